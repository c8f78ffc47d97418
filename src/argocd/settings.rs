//! Argo CD's own configuration, as the repository holds it. Many repositories commit the
//! `argocd-cm` their Argo CD runs with, and the config management plugins of its repo-server
//! sidecars; what an Application renders into depends on both. Discovery looks in every YAML
//! file of a revision for:
//!
//! - a `ConfigMap` named `argocd-cm`: its `data` keys (and the legacy
//!   `configManagementPlugins`, which Argo CD 2.8 removed);
//! - `ConfigManagementPlugin` manifests, alone or in the `data` of a sidecar's `ConfigMap`
//!   (`argocd-cmp-cm` and the like);
//! - the argo-cd Helm chart's values: `configs.cm` (argocd-cm's keys) and
//!   `configs.cmp.plugins` (one plugin per key), at the top or under a parent chart's key.
//!
//! `.kdelta.yaml`'s `argocd.settings` and `argocd.plugins` come first. Where two files set a
//! key to different values (two installations, overlays), the first in path order is used
//! and a warning says which, and how to choose.

use crate::config::{ArgoCd, Tracking};
use crate::finding::{rules, Finding};
use crate::source::RepoPath;
use crate::yaml::{self, Node, ParseOptions};
use std::collections::BTreeMap;

/// Where a setting was read: a file and line, or `.kdelta.yaml`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Place {
    pub file: String,
    pub line: u32,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}", self.file, self.line)
        } else {
            f.write_str(&self.file)
        }
    }
}

/// One argocd-cm value with where it was read.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Sourced {
    pub value: String,
    pub place: Place,
}

/// A config management plugin as Argo CD's repo-server knows it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Plugin {
    /// The name an Application's `plugin.name` gives: `NAME`, or `NAME-VERSION` when the
    /// plugin has a `spec.version`.
    pub name: String,
    /// `generate`'s command followed by its args.
    pub generate: Vec<String>,
    /// `init`'s, run first when kdelta runs the plugin itself (`--run-plugins`).
    pub init: Vec<String>,
    /// How the plugin claims a source whose Application names no plugin.
    pub discover: Discover,
    pub place: Place,
    /// From argocd-cm's `configManagementPlugins`, which Argo CD 2.8 and later ignore.
    pub legacy: bool,
}

/// A plugin's `discover` rule.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Discover {
    /// None: the plugin is used only when an Application names it.
    Named,
    /// `fileName`: a glob matched in the source directory.
    FileName(String),
    /// `find.glob`: a glob matched below the source directory.
    Glob(String),
    /// `find.command`: a command whose non-empty output claims the source.
    Command(Vec<String>),
}

/// What one file says of Argo CD's configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// An argocd-cm key.
    Cm {
        key: String,
        value: Sourced,
    },
    Plugin(Plugin),
}

impl Entry {
    /// Where the entry was read.
    pub fn place(&self) -> &Place {
        match self {
            Entry::Cm { value, .. } => &value.place,
            Entry::Plugin(p) => &p.place,
        }
    }
}

/// The settings of a revision, merged.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Settings {
    /// argocd-cm's keys.
    pub cm: BTreeMap<String, Sourced>,
    /// The plugins, by the name Applications give.
    pub plugins: BTreeMap<String, Plugin>,
}

/// Bytes that every manifest holding settings has; the others are not parsed.
const MARKERS: [&[u8]; 2] = [b"argocd-cm", b"ConfigManagementPlugin"];

/// Whether a values file may hold the argo-cd chart's `configs.cm` or `configs.cmp`: a
/// `configs:` key with a `cm:` or `cmp:` key on a later line (or a flow mapping). A superset
/// of the files that do, checked without parsing: most charts' values files are large and say
/// nothing of Argo CD.
fn may_hold_chart_configs(bytes: &[u8]) -> bool {
    let mut after_configs = false;
    for line in bytes.split(|&b| b == b'\n') {
        if let Some(rest) = key_line(line, b"configs") {
            if rest.contains(&b'{') {
                return true;
            }
            after_configs = true;
        } else if after_configs
            && (key_line(line, b"cm").is_some() || key_line(line, b"cmp").is_some())
        {
            return true;
        }
    }
    false
}

/// The rest of `line` after the mapping key `name` (plain or quoted) and its colon, if the
/// line starts with that key.
fn key_line<'a>(line: &'a [u8], name: &[u8]) -> Option<&'a [u8]> {
    let line = line.trim_ascii_start();
    let (quote, line) = match line.first() {
        Some(q @ (b'"' | b'\'')) => (Some(*q), &line[1..]),
        _ => (None, line),
    };
    let mut rest = line.strip_prefix(name)?;
    if let Some(q) = quote {
        rest = rest.strip_prefix(&[q])?;
    }
    rest.strip_prefix(b":")
}

/// What the YAML file `path` says of Argo CD's configuration. A file that is not YAML says
/// nothing here (what renders it reports the error).
pub fn detect(path: &RepoPath, bytes: &[u8]) -> Vec<Entry> {
    if !MARKERS
        .iter()
        .any(|m| memchr::memmem::find(bytes, m).is_some())
        && !may_hold_chart_configs(bytes)
    {
        return Vec::new();
    }
    let Ok(docs) = yaml::parse_stream(bytes, &ParseOptions::default()) else {
        return Vec::new();
    };
    let file = path.to_string();
    let mut out = Vec::new();
    for doc in &docs {
        match (doc.str_at(&["kind"]), doc.str_at(&["metadata", "name"])) {
            (Some("ConfigMap"), Some("argocd-cm")) => {
                if let Some(data) = doc.get("data") {
                    cm_entries(data, &file, &mut out);
                }
            }
            (Some("ConfigMap"), _) => {
                for (_, v) in doc.get("data").and_then(Node::as_map).into_iter().flatten() {
                    if let Some(text) = v.as_str().filter(|t| t.contains("ConfigManagementPlugin"))
                    {
                        embedded_plugins(text, &file, v.span.line, &mut out);
                    }
                }
            }
            (Some("ConfigManagementPlugin"), _) => {
                out.extend(plugin_manifest(doc, &file, 0).map(Entry::Plugin));
            }
            _ => chart_values(doc, &file, 0, &mut out),
        }
    }
    out
}

/// argocd-cm's `data` (or the chart's `configs.cm`): every scalar key, and the legacy
/// plugins.
fn cm_entries(data: &Node, file: &str, out: &mut Vec<Entry>) {
    for (k, v) in data.as_map().into_iter().flatten() {
        let (Some(key), Some(value)) = (k.as_str(), v.as_text()) else {
            continue;
        };
        let place = Place {
            file: file.to_string(),
            line: k.span.line,
        };
        if key == "configManagementPlugins" {
            legacy_plugins(value, &place, out);
            continue;
        }
        out.push(Entry::Cm {
            key: key.to_string(),
            value: Sourced {
                value: value.to_string(),
                place,
            },
        });
    }
}

/// argocd-cm's `configManagementPlugins`: a YAML list of `{name, init, generate}`.
fn legacy_plugins(text: &str, place: &Place, out: &mut Vec<Entry>) {
    let Ok(list) = yaml::parse_one(text.as_bytes(), &ParseOptions::default()) else {
        return;
    };
    for p in list.as_seq().into_iter().flatten() {
        let Some(name) = p.str_at(&["name"]) else {
            continue;
        };
        out.push(Entry::Plugin(Plugin {
            name: name.to_string(),
            generate: command(p.get("generate")),
            init: command(p.get("init")),
            discover: Discover::Named,
            place: place.clone(),
            legacy: true,
        }));
    }
}

/// The `ConfigManagementPlugin` documents of a sidecar ConfigMap's value; their lines count
/// from the value's.
fn embedded_plugins(text: &str, file: &str, line: u32, out: &mut Vec<Entry>) {
    let Ok(docs) = yaml::parse_stream(text.as_bytes(), &ParseOptions::default()) else {
        return;
    };
    for doc in docs
        .iter()
        .filter(|d| d.str_at(&["kind"]) == Some("ConfigManagementPlugin"))
    {
        out.extend(plugin_manifest(doc, file, line).map(Entry::Plugin));
    }
}

/// A `ConfigManagementPlugin` manifest.
fn plugin_manifest(doc: &Node, file: &str, line_offset: u32) -> Option<Plugin> {
    let name = doc.str_at(&["metadata", "name"])?;
    let spec = doc.get("spec")?;
    Some(plugin_spec(name, spec, file, doc.span.line + line_offset))
}

/// A plugin from its name and `spec` (a manifest's, or the chart's `configs.cmp.plugins`).
fn plugin_spec(name: &str, spec: &Node, file: &str, line: u32) -> Plugin {
    let name = match spec.str_at(&["version"]).filter(|v| !v.is_empty()) {
        Some(v) => format!("{name}-{v}"),
        None => name.to_string(),
    };
    let discover = spec.get("discover");
    let text = |path: &[&str]| {
        discover
            .and_then(|d| d.str_at(path))
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let discover = if let Some(f) = text(&["fileName"]) {
        Discover::FileName(f)
    } else if let Some(g) = text(&["find", "glob"]) {
        Discover::Glob(g)
    } else {
        match command(discover.and_then(|d| d.get("find"))) {
            c if c.is_empty() => Discover::Named,
            c => Discover::Command(c),
        }
    };
    Plugin {
        name,
        generate: command(spec.get("generate")),
        init: command(spec.get("init")),
        discover,
        place: Place {
            file: file.to_string(),
            line,
        },
        legacy: false,
    }
}

/// A `{command, args}` block as one argument list.
fn command(block: Option<&Node>) -> Vec<String> {
    let words = |key: &str| -> Vec<String> {
        match block.and_then(|b| b.get(key)) {
            Some(n) if n.is_seq() => n
                .as_seq()
                .into_iter()
                .flatten()
                .filter_map(|w| w.as_text().map(str::to_string))
                .collect(),
            Some(n) => n.as_text().map(|t| vec![t.to_string()]).unwrap_or_default(),
            None => Vec::new(),
        }
    };
    let mut out = words("command");
    out.extend(words("args"));
    out
}

/// How deep below a values file's top the argo-cd chart's values are looked for (an umbrella
/// chart's `argo-cd:` key, or a kustomization's `helmCharts[].valuesInline`).
const VALUES_DEPTH: usize = 4;

/// The argo-cd chart's `configs.cm` and `configs.cmp.plugins`, wherever a mapping has them.
fn chart_values(node: &Node, file: &str, depth: usize, out: &mut Vec<Entry>) {
    if depth > VALUES_DEPTH {
        return;
    }
    if let Some(configs) = node.get("configs").filter(|c| c.is_map()) {
        if let Some(cm) = configs.get("cm").filter(|c| c.is_map()) {
            cm_entries(cm, file, out);
        }
        if let Some(plugins) = configs.get("cmp").and_then(|c| c.get("plugins")) {
            for (k, v) in plugins.as_map().into_iter().flatten() {
                if let (Some(name), true) = (k.as_str(), v.is_map()) {
                    out.push(Entry::Plugin(plugin_spec(name, v, file, k.span.line)));
                }
            }
        }
    }
    match &node.kind {
        yaml::NodeKind::Map(entries) => {
            for (k, v) in entries {
                if k.as_str() != Some("configs") {
                    chart_values(v, file, depth + 1, out);
                }
            }
        }
        yaml::NodeKind::Seq(items) => {
            for v in items {
                chart_values(v, file, depth + 1, out);
            }
        }
        _ => {}
    }
}

impl Settings {
    /// The settings of a revision: `.kdelta.yaml` first, then what `entries` (in path order)
    /// say; a key or plugin that files set differently is a warning on the one not used.
    pub fn merge(config: &ArgoCd, entries: Vec<Entry>) -> (Settings, Vec<Finding>) {
        let mut out = Settings::default();
        let configured = Place {
            file: crate::config::CONFIG_FILE.to_string(),
            line: 0,
        };
        for (key, value) in &config.settings {
            out.cm.insert(
                key.clone(),
                Sourced {
                    value: value.clone(),
                    place: configured.clone(),
                },
            );
        }
        if let Some(t) = config.tracking {
            out.cm.insert(
                TRACKING.to_string(),
                Sourced {
                    value: t.as_str().to_string(),
                    place: configured.clone(),
                },
            );
        }
        if let Some(k) = &config.instance_label_key {
            out.cm.insert(
                INSTANCE_LABEL_KEY.to_string(),
                Sourced {
                    value: k.clone(),
                    place: configured.clone(),
                },
            );
        }
        for (name, line) in &config.plugins {
            out.plugins.insert(
                name.clone(),
                Plugin {
                    name: name.clone(),
                    generate: vec!["sh".into(), "-c".into(), line.clone()],
                    init: Vec::new(),
                    discover: Discover::Named,
                    place: configured.clone(),
                    legacy: false,
                },
            );
        }
        let mut findings = Vec::new();
        let conflict = |what: String, used: &Place, other: &Place| {
            Finding::warning(
                rules::ARGOCD_SETTINGS_CONFLICT,
                format!("{what} is set differently here and at {used}; kdelta uses {used}"),
            )
            .at(other.file.clone(), other.line, 0)
            .with_help("say which applies in argocd.settings or argocd.plugins of .kdelta.yaml")
        };
        for entry in entries {
            match entry {
                Entry::Cm { key, value } => match out.cm.get(&key) {
                    None => {
                        out.cm.insert(key, value);
                    }
                    Some(have) if have.value == value.value => {}
                    Some(have) if have.place == configured || !applied(&key) => {}
                    Some(have) => findings.push(conflict(
                        format!("argocd-cm {key}"),
                        &have.place,
                        &value.place,
                    )),
                },
                Entry::Plugin(p) => match out.plugins.get(&p.name) {
                    None => {
                        out.plugins.insert(p.name.clone(), p);
                    }
                    Some(have) if have.generate == p.generate || have.place == configured => {}
                    Some(have) => findings.push(conflict(
                        format!("config management plugin {}", p.name),
                        &have.place,
                        &p.place,
                    )),
                },
            }
        }
        (out, findings)
    }

    /// The tracking method (`application.resourceTrackingMethod`; Argo CD 3's default is the
    /// annotation).
    pub fn tracking(&self) -> Tracking {
        self.cm
            .get(TRACKING)
            .and_then(|s| Tracking::parse(s.value.trim()))
            .unwrap_or(Tracking::Annotation)
    }

    /// The label `label` tracking sets (`application.instanceLabelKey`).
    pub fn instance_label_key(&self) -> &str {
        self.cm
            .get(INSTANCE_LABEL_KEY)
            .map(|s| s.value.trim())
            .filter(|s| !s.is_empty())
            .unwrap_or("app.kubernetes.io/instance")
    }

    /// The kustomize build options for a source asking for kustomize `version` (its
    /// `kustomize.version`), and where they were set: `kustomize.buildOptions.VERSION` for a
    /// version, else the global `kustomize.buildOptions`.
    pub fn kustomize_build_options(&self, version: Option<&str>) -> Option<&Sourced> {
        match version.filter(|v| !v.is_empty()) {
            Some(v) => self.cm.get(&format!("kustomize.buildOptions.{v}")),
            None => self.cm.get("kustomize.buildOptions"),
        }
    }

    /// True when a kustomize `version` is configured (`kustomize.version.V`, the legacy
    /// `kustomize.path.V`, or build options for it).
    pub fn has_kustomize_version(&self, version: &str) -> bool {
        [
            "kustomize.version.",
            "kustomize.path.",
            "kustomize.buildOptions.",
        ]
        .iter()
        .any(|k| self.cm.contains_key(&format!("{k}{version}")))
    }

    /// The URL schemes Helm value files may use (`helm.valuesFileSchemes`; default `https`
    /// and `http`).
    pub fn values_file_schemes(&self) -> Vec<String> {
        match self.cm.get("helm.valuesFileSchemes") {
            Some(s) => s
                .value
                .split(',')
                .map(|x| x.trim().to_string())
                .filter(|x| !x.is_empty())
                .collect(),
            None => vec!["https".to_string(), "http".to_string()],
        }
    }

    /// `resource.exclusions` and `resource.inclusions`, parsed; a value that is not a list of
    /// filters is a finding and counts as empty.
    pub fn resource_filters(&self) -> (ResourceFilters, Vec<Finding>) {
        let mut findings = Vec::new();
        let mut parse = |key: &str| -> Vec<ResourceFilter> {
            let Some(s) = self.cm.get(key) else {
                return Vec::new();
            };
            let parsed = yaml::parse_one(s.value.as_bytes(), &ParseOptions::default())
                .map_err(|e| e.message.clone())
                .and_then(|n| {
                    if n.is_null() {
                        return Ok(Vec::new());
                    }
                    n.as_seq()
                        .ok_or_else(|| "not a list".to_string())
                        .map(|items| items.iter().map(ResourceFilter::from_node).collect())
                });
            parsed.unwrap_or_else(|e| {
                findings.push(
                    Finding::warning(
                        rules::ARGOCD_SETTINGS_INVALID,
                        format!("argocd-cm {key} cannot be read ({e}); kdelta ignores it"),
                    )
                    .at(s.place.file.clone(), s.place.line, 0),
                );
                Vec::new()
            })
        };
        let filters = ResourceFilters {
            exclusions: parse("resource.exclusions"),
            inclusions: parse("resource.inclusions"),
        };
        (filters, findings)
    }

    /// True when the revision says anything of Argo CD's configuration.
    pub fn is_empty(&self) -> bool {
        self.cm.is_empty() && self.plugins.is_empty()
    }
}

/// kustomize build options (argocd-cm's `kustomize.buildOptions`, a plugin's `kustomize
/// build` flags) as kdelta's, and the flags it does not apply. Flags that only change how
/// kustomize runs (`--enable-helm`, which kdelta always has, `--enable-alpha-plugins`,
/// `--helm-command`) are accepted; exec plugins still run only with kdelta's own flag.
pub fn kustomize_options(flags: &str) -> (crate::kustomize::Options, Vec<String>) {
    let mut opts = crate::kustomize::Options::default();
    let mut unknown = Vec::new();
    let words: Vec<&str> = flags.split_whitespace().collect();
    let mut i = 0;
    while i < words.len() {
        let (flag, inline) = match words[i].split_once('=') {
            Some((f, v)) => (f, Some(v)),
            None => (words[i], None),
        };
        let mut value = || {
            inline.unwrap_or_else(|| {
                i += 1;
                words.get(i).copied().unwrap_or_default()
            })
        };
        match flag {
            "--load-restrictor" | "--load_restrictor" => match value() {
                "LoadRestrictionsNone" | "none" => opts.load_restrictor_none = true,
                "LoadRestrictionsRootOnly" | "rootOnly" => opts.load_restrictor_none = false,
                other => unknown.push(format!("{flag} {other}")),
            },
            "--reorder" => match value() {
                "none" => opts.reorder_none = true,
                "legacy" => opts.reorder_none = false,
                other => unknown.push(format!("{flag} {other}")),
            },
            "--enable-managedby-label" => opts.add_managed_by_label = true,
            "--enable-helm"
            | "--enable-alpha-plugins"
            | "--enable-exec"
            | "--enable_alpha_plugins"
            | "--network"
            | "--as-current-user"
            | "--helm-debug"
            | "--stack-trace" => {}
            "--helm-kube-version" => opts.helm_kube_version = Some(value().to_string()),
            "--helm-api-versions" => opts.helm_api_versions.extend(
                value()
                    .split(',')
                    .filter(|v| !v.is_empty())
                    .map(str::to_string),
            ),
            "--helm-command" | "--mount" | "--env" | "-e" | "--network-name" => {
                value();
            }
            other => unknown.push(other.to_string()),
        }
        i += 1;
    }
    (opts, unknown)
}

/// Whether kdelta applies an argocd-cm key (the others, `url`, `dex.config`…, may differ
/// between installations without changing what renders).
fn applied(key: &str) -> bool {
    [
        TRACKING,
        INSTANCE_LABEL_KEY,
        "helm.valuesFileSchemes",
        "resource.exclusions",
        "resource.inclusions",
    ]
    .contains(&key)
        || key.starts_with("kustomize.")
}

/// The warning for kustomize build flags kdelta does not apply, at the setting.
pub fn unknown_flags_finding(unknown: &[String], place: &Place) -> Finding {
    Finding::warning(
        rules::ARGOCD_SETTINGS_INVALID,
        format!(
            "kustomize build options kdelta does not apply: {}",
            unknown.join(" ")
        ),
    )
    .at(place.file.clone(), place.line, 0)
}

const TRACKING: &str = "application.resourceTrackingMethod";
const INSTANCE_LABEL_KEY: &str = "application.instanceLabelKey";

/// argocd-cm's resource filters (`settings.ResourcesFilter`).
#[derive(Clone, Debug, Default)]
pub struct ResourceFilters {
    pub exclusions: Vec<ResourceFilter>,
    pub inclusions: Vec<ResourceFilter>,
}

/// One `resource.exclusions`/`resource.inclusions` entry: globs over API groups, kinds and
/// cluster URLs; an empty list matches everything.
#[derive(Clone, Debug, Default)]
pub struct ResourceFilter {
    pub api_groups: Vec<String>,
    pub kinds: Vec<String>,
    pub clusters: Vec<String>,
}

impl ResourceFilter {
    fn from_node(n: &Node) -> ResourceFilter {
        let list = |k: &str| -> Vec<String> {
            n.get(k)
                .and_then(Node::as_seq)
                .into_iter()
                .flatten()
                .filter_map(|x| x.as_text().map(str::to_string))
                .collect()
        };
        ResourceFilter {
            api_groups: list("apiGroups"),
            kinds: list("kinds"),
            clusters: list("clusters"),
        }
    }

    /// `FilteredResource.Match`; a cluster kdelta does not know (a destination by name)
    /// matches only `*`.
    fn matches(&self, group: &str, kind: &str, cluster: Option<&str>) -> bool {
        let any = |globs: &[String], text: Option<&str>| {
            globs.is_empty()
                || globs.iter().any(|g| match text {
                    Some(t) => glob_match(g, t),
                    None => g == "*",
                })
        };
        any(&self.api_groups, Some(group))
            && any(&self.kinds, Some(kind))
            && any(&self.clusters, cluster)
    }
}

impl ResourceFilters {
    /// `IsExcludedResource`: what Argo CD never manages, besides events and metrics, which
    /// it always leaves alone.
    pub fn excludes(&self, group: &str, kind: &str, cluster: Option<&str>) -> bool {
        let core = matches!(group, "events.k8s.io" | "metrics.k8s.io")
            || (group.is_empty() && kind == "Event");
        core || self
            .exclusions
            .iter()
            .any(|f| f.matches(group, kind, cluster))
            || (!self.inclusions.is_empty()
                && !self
                    .inclusions
                    .iter()
                    .any(|f| f.matches(group, kind, cluster)))
    }
}

/// A glob where `*` matches any run of characters and `?` one (gobwas/glob without
/// separators, as Argo CD's `glob.Match` compiles it).
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(path: &str, text: &str) -> Vec<Entry> {
        detect(&RepoPath::new(path).unwrap(), text.as_bytes())
    }

    fn cm(entries: &[Entry]) -> Vec<(String, String, u32)> {
        entries
            .iter()
            .filter_map(|e| match e {
                Entry::Cm { key, value } => {
                    Some((key.clone(), value.value.clone(), value.place.line))
                }
                _ => None,
            })
            .collect()
    }

    fn plugins(entries: &[Entry]) -> Vec<Plugin> {
        entries
            .iter()
            .filter_map(|e| match e {
                Entry::Plugin(p) => Some(p.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn reads_a_committed_argocd_cm() {
        let e = found(
            "argocd/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\ndata:\n  kustomize.buildOptions: \"--enable-helm --load-restrictor LoadRestrictionsNone\"\n  admin.enabled: \"false\"\n",
        );
        assert_eq!(
            cm(&e),
            vec![
                (
                    "kustomize.buildOptions".into(),
                    "--enable-helm --load-restrictor LoadRestrictionsNone".into(),
                    6
                ),
                ("admin.enabled".into(), "false".into(), 7),
            ]
        );
    }

    #[test]
    fn values_files_are_parsed_only_when_they_may_hold_configs_cm_or_cmp() {
        for (text, may) in [
            ("configs:\n  cm:\n    a: b\n", true),
            (
                "argo-cd:\n  configs:\n    # comment\n    cmp:\n      create: true\n",
                true,
            ),
            ("\"configs\":\n  'cm':\n    a: b\n", true),
            ("configs: {cm: {a: b}}\n", true),
            ("configs:\n  secret: {}\n", false),
            ("cm:\n  a: b\nconfigs:\n  x: 1\n", false),
            ("configsExtra:\n  cm:\n", false),
            ("image:\n  tag: 1\n", false),
        ] {
            assert_eq!(may_hold_chart_configs(text.as_bytes()), may, "{text}");
        }
    }

    #[test]
    fn reads_the_argo_cd_charts_values_at_the_top_and_under_a_parent_chart() {
        let top = "configs:\n  cm:\n    application.resourceTrackingMethod: annotation+label\n  cmp:\n    create: true\n    plugins:\n      kustomize-build-with-helm:\n        generate:\n          command: [ sh, -c ]\n          args: [ kustomize build --enable-helm ]\n";
        let e = found("argocd/values.yaml", top);
        assert_eq!(
            cm(&e),
            vec![(
                "application.resourceTrackingMethod".into(),
                "annotation+label".into(),
                3
            )]
        );
        let p = plugins(&e);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].name, "kustomize-build-with-helm");
        assert_eq!(p[0].generate, ["sh", "-c", "kustomize build --enable-helm"]);
        assert_eq!(p[0].discover, Discover::Named);
        let nested = format!(
            "argo-cd:\n{}",
            top.lines().map(|l| format!("  {l}\n")).collect::<String>()
        );
        assert_eq!(plugins(&found("umbrella/values.yaml", &nested)).len(), 1);
    }

    #[test]
    fn reads_plugins_from_a_sidecar_config_map_with_their_version_and_discovery() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cmp-plugin\ndata:\n  plugin.yaml: |\n    apiVersion: argoproj.io/v1alpha1\n    kind: ConfigManagementPlugin\n    metadata:\n      name: envsubst\n    spec:\n      version: v1.0\n      discover:\n        find:\n          command: [sh, -c, \"find . -name 'kustomization.yaml'\"]\n      generate:\n        command: [sh, -c, \"kustomize build . | envsubst\"]\n";
        let p = plugins(&found("cmp.yaml", text));
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].name, "envsubst-v1.0");
        assert_eq!(
            p[0].discover,
            Discover::Command(vec![
                "sh".into(),
                "-c".into(),
                "find . -name 'kustomization.yaml'".into()
            ])
        );
        assert_eq!(p[0].place.line, 7);
    }

    #[test]
    fn reads_legacy_plugins_of_argocd_cm() {
        let text = "kind: ConfigMap\nmetadata:\n  name: argocd-cm\ndata:\n  configManagementPlugins: |\n    - name: kustomized-helm\n      generate:\n        command: [\"sh\", \"-c\"]\n        args: [\"kustomize build --enable-helm\"]\n";
        let p = plugins(&found("cm.yaml", text));
        assert_eq!(p.len(), 1);
        assert!(p[0].legacy);
        assert_eq!(
            p[0].generate.last().unwrap(),
            "kustomize build --enable-helm"
        );
    }

    #[test]
    fn files_without_argo_cd_settings_say_nothing() {
        assert!(found(
            "a.yaml",
            "kind: ConfigMap\nmetadata: {name: other}\ndata: {a: b}\n"
        )
        .is_empty());
        assert!(found("bad.yaml", "argocd-cm: [\n").is_empty());
        assert!(found("v.yaml", "configs:\n  other: 1\n").is_empty());
    }

    #[test]
    fn kdelta_yaml_comes_first_and_files_that_disagree_are_a_warning() {
        let a = found("a/cm.yaml", "kind: ConfigMap\nmetadata: {name: argocd-cm}\ndata:\n  kustomize.buildOptions: --enable-helm\n  url: https://a\n");
        let b = found("b/cm.yaml", "kind: ConfigMap\nmetadata: {name: argocd-cm}\ndata:\n  kustomize.buildOptions: --enable-helm --load-restrictor LoadRestrictionsNone\n  url: https://b\n");
        let (s, f) = Settings::merge(&ArgoCd::default(), [a.clone(), b.clone()].concat());
        assert_eq!(s.cm["url"].value, "https://a");
        assert_eq!(s.cm["kustomize.buildOptions"].value, "--enable-helm");
        // Only what kdelta applies is worth a warning.
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].file.as_deref(), Some("b/cm.yaml"));
        assert_eq!(f[0].line, Some(4));
        let config = ArgoCd {
            settings: [
                ("url".to_string(), "https://c".to_string()),
                (
                    "kustomize.buildOptions".to_string(),
                    "--enable-helm".to_string(),
                ),
            ]
            .into(),
            tracking: Some(Tracking::Label),
            ..ArgoCd::default()
        };
        let (s, f) = Settings::merge(&config, [a, b].concat());
        assert!(f.is_empty(), "{f:?}");
        assert_eq!(s.cm["url"].value, "https://c");
        assert_eq!(s.tracking(), Tracking::Label);
    }

    #[test]
    fn kustomize_build_options_as_kdeltas() {
        let (o, unknown) = kustomize_options(
            "--enable-helm --load-restrictor=LoadRestrictionsNone --reorder none --helm-command /bin/helm3 --frobnicate",
        );
        assert!(o.load_restrictor_none && o.reorder_none && !o.enable_exec_plugins);
        assert_eq!(unknown, ["--frobnicate"]);
        let (o, unknown) =
            kustomize_options("--load_restrictor LoadRestrictionsRootOnly --reorder sideways");
        assert!(!o.load_restrictor_none);
        assert_eq!(unknown, ["--reorder sideways"]);
    }

    #[test]
    fn resource_filters_match_like_argo_cd() {
        let s = Settings {
            cm: [(
                "resource.exclusions".to_string(),
                Sourced {
                    value:
                        "- apiGroups: [cilium.io]\n  kinds: [CiliumIdentity]\n  clusters: ['*']\n"
                            .into(),
                    place: Place {
                        file: "cm.yaml".into(),
                        line: 3,
                    },
                },
            )]
            .into(),
            ..Settings::default()
        };
        let (filters, findings) = s.resource_filters();
        assert!(findings.is_empty());
        assert!(filters.excludes("cilium.io", "CiliumIdentity", None));
        assert!(!filters.excludes("cilium.io", "CiliumNetworkPolicy", None));
        assert!(filters.excludes("", "Event", None));
        assert!(!filters.excludes("apps", "Deployment", Some("https://kubernetes.default.svc")));
        assert!(glob_match("*.k8s.io", "metrics.k8s.io"));
        assert!(!glob_match("a?c", "abbc"));
    }
}
