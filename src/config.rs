//! `.kdelta.yaml`: which targets to render and which plain-manifest directories exist.

use crate::finding::rules;
use crate::finding::Finding;
use crate::yaml::{self, de::from_node, Dialect, ParseOptions};
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Deserialize;

/// One ignore rule: which resources (a wildcard over `group/version/Kind/namespace/name`) and
/// which field paths (wildcards over kdelta paths such as
/// `metadata.annotations["checksum/config"]`; a rule that matches a parent path covers the
/// fields below it). `*` matches any run of characters; nothing else is special. The diff
/// applies them (`diff::noise`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IgnoreRule {
    pub resources: String,
    pub fields: Vec<String>,
}

/// The default config file name, at the repository root.
pub const CONFIG_FILE: &str = ".kdelta.yaml";

/// The JSON Schema of the config file, for editors (`kdelta config schema`); a test keeps it
/// in step with what [`Config::parse`] accepts.
pub const CONFIG_SCHEMA: &str = include_str!("../docs/kdelta-config.schema.json");

/// The Argo CD installation the manifests are for (`.kdelta.yaml` `argocd:`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct ArgoCd {
    /// Argo CD's namespace: where an ApplicationSet without `metadata.namespace` lives.
    pub namespace: String,
    /// `application.resourceTrackingMethod`: how every deployed object is marked as the
    /// Application's (else as the repository's argocd-cm says, else the annotation).
    pub tracking: Option<Tracking>,
    /// `application.instanceLabelKey`, the label `label` tracking sets.
    pub instance_label_key: Option<String>,
    /// argocd-cm keys (`kustomize.buildOptions`, `resource.exclusions`, …), over what the
    /// repository's argocd-cm says.
    pub settings: std::collections::BTreeMap<String, String>,
    /// Config management plugins by the name Applications give, each as the shell command
    /// line that generates its manifests, in the forms kdelta renders natively
    /// (docs/argocd.md).
    pub plugins: std::collections::BTreeMap<String, String>,
    /// Clusters beyond the cluster Secrets of the repository, for clusters generators.
    pub clusters: Vec<ClusterConfig>,
    /// The controller's `--enable-new-git-file-globbing` (doublestar globs in git files
    /// generators).
    pub new_git_file_globbing: bool,
}

impl Default for ArgoCd {
    fn default() -> Self {
        ArgoCd {
            namespace: "argocd".to_string(),
            tracking: None,
            instance_label_key: None,
            settings: Default::default(),
            plugins: Default::default(),
            clusters: Vec::new(),
            new_git_file_globbing: false,
        }
    }
}

/// Argo CD's resource tracking methods, and `none` to leave objects unmarked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
pub enum Tracking {
    #[serde(rename = "annotation")]
    Annotation,
    #[serde(rename = "label")]
    Label,
    #[serde(rename = "annotation+label")]
    AnnotationAndLabel,
    #[serde(rename = "none")]
    None,
}

impl Tracking {
    /// The method argocd-cm names (`annotation`, `label`, `annotation+label`).
    pub fn parse(s: &str) -> Option<Tracking> {
        Some(match s {
            "annotation" => Tracking::Annotation,
            "label" => Tracking::Label,
            "annotation+label" => Tracking::AnnotationAndLabel,
            "none" => Tracking::None,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Tracking::Annotation => "annotation",
            Tracking::Label => "label",
            Tracking::AnnotationAndLabel => "annotation+label",
            Tracking::None => "none",
        }
    }
}

/// A cluster `.kdelta.yaml` declares, as a cluster Secret would.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterConfig {
    pub name: String,
    pub server: String,
    #[serde(default)]
    pub project: String,
    #[serde(default)]
    pub labels: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    pub annotations: std::collections::BTreeMap<String, String>,
}

/// The config file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawConfig {
    #[serde(default)]
    include: Vec<String>,
    #[serde(default)]
    exclude: Vec<String>,
    #[serde(default)]
    directories: Vec<String>,
    #[serde(default)]
    ignore: Vec<RawIgnore>,
    #[serde(default)]
    charts: std::collections::BTreeMap<String, ChartConfig>,
    #[serde(default, rename = "repoURLs")]
    repo_urls: Vec<String>,
    #[serde(default)]
    argocd: ArgoCd,
    #[serde(default)]
    fetch: FetchConfig,
    #[serde(default)]
    kubernetes: KubernetesConfig,
    #[serde(default)]
    rules: Vec<RawRuleSetting>,
}

/// One `rules:` entry as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRuleSetting {
    rule: String,
    severity: String,
    #[serde(default)]
    paths: Vec<String>,
}

/// One `rules:` entry: which validation rules, where, and the severity they take (`None`:
/// off).
#[derive(Debug, Clone)]
struct RuleSetting {
    rule: globset::GlobMatcher,
    paths: Option<GlobSet>,
    severity: Option<crate::finding::Severity>,
}

/// The rules `rules:` may change: validation's.
fn configurable(id: &str) -> bool {
    ["schema.", "api.", "deploy.", "reference."]
        .iter()
        .any(|p| id.starts_with(p))
}

/// The cluster the manifests are for (`.kdelta.yaml` `kubernetes:`), for validation.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct KubernetesConfig {
    /// The Kubernetes version validated for (`1.29`, `v1.29.4`); `--kube-version` wins.
    pub version: Option<String>,
    /// A version to check an upgrade to: what it removes is a warning.
    pub upgrade_to: Option<String>,
    /// False switches validation off (as `--no-validate`).
    pub validate: Option<bool>,
    /// Other versions for some targets: by path, or by Argo CD destination cluster.
    pub overrides: Vec<KubernetesOverride>,
    /// Files or directories of the repository holding more CRDs (YAML) that custom resources
    /// are validated against, beside those the targets render; or schema locations (http(s)
    /// URL templates, as kubeconform's `-schema-location`) for the kinds no CRD defines.
    pub crds: Vec<String>,
}

/// One `kubernetes.overrides` entry: the version of the targets it selects.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KubernetesOverride {
    /// Globs of target paths (checked when the file is read; [`Config::override_paths`]
    /// compiles them).
    #[serde(default)]
    pub paths: Vec<String>,
    /// An Argo CD destination cluster: its `server` URL or its `name`.
    #[serde(default)]
    pub cluster: Option<String>,
    pub version: String,
}

impl KubernetesOverride {
    /// True when the override selects a target at `path` (and, for an Argo CD Application,
    /// its destination `cluster`, as server URL and name).
    pub fn selects(&self, path: &str, cluster: Option<(&str, &str)>) -> bool {
        let path_ok = Config::override_paths(self).is_none_or(|p| p.is_match(path));
        let cluster_ok = match (&self.cluster, cluster) {
            (None, _) => true,
            (Some(want), Some((server, name))) => {
                want.trim_end_matches('/') == server.trim_end_matches('/') || want == name
            }
            (Some(_), None) => false,
        };
        path_ok && cluster_ok
    }
}

/// The Kubernetes version the first of `overrides` that selects a target names (see
/// [`KubernetesOverride::selects`]): what Helm renders its charts for.
pub fn kube_version_for<'a>(
    overrides: &'a [KubernetesOverride],
    path: &str,
    cluster: Option<(&str, &str)>,
) -> Option<&'a str> {
    overrides
        .iter()
        .find(|o| o.selects(path, cluster))
        .map(|o| o.version.as_str())
}

/// How remote sources are fetched (`.kdelta.yaml` `fetch:`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct FetchConfig {
    /// Hosts (`host` or `host:port`) that may be reached over plain HTTP besides loopback.
    pub plain_http_hosts: Vec<String>,
    /// URL prefixes fetched from elsewhere (a mirror, a pull-through proxy), first match wins.
    pub mirrors: Vec<MirrorConfig>,
}

/// One `fetch.mirrors` entry.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MirrorConfig {
    pub from: String,
    pub to: String,
}

impl FetchConfig {
    /// The fetch store's settings.
    pub fn settings(&self) -> crate::fetch::Settings {
        crate::fetch::Settings {
            plain_http_hosts: self.plain_http_hosts.clone(),
            mirrors: self
                .mirrors
                .iter()
                .map(|m| (m.from.clone(), m.to.clone()))
                .collect(),
            this_repository: Vec::new(),
        }
    }
}

/// What `.kdelta.yaml` says about one Helm chart (`charts:` keyed by the chart's directory).
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ChartConfig {
    /// `helm template NAME`: the release name (default `release-name`).
    #[serde(default)]
    pub release_name: Option<String>,
    /// `-n`: the release namespace (default `default`).
    #[serde(default)]
    pub namespace: Option<String>,
    /// Whether each `ci/*-values.yaml` is a target of its own (default true).
    #[serde(default = "yes")]
    pub ci_values: bool,
    /// Named values sets, each one more target (`helm:CHART#NAME`).
    #[serde(default)]
    pub values_sets: std::collections::BTreeMap<String, ValuesSet>,
}

fn yes() -> bool {
    true
}

/// A values set: values files relative to the chart (later wins) and `--set` flags, or just
/// the list of files.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum ValuesSet {
    Files(Vec<String>),
    Full {
        #[serde(default)]
        values: Vec<String>,
        #[serde(default)]
        set: Vec<String>,
    },
}

impl ValuesSet {
    /// The values files.
    pub fn files(&self) -> &[String] {
        match self {
            ValuesSet::Files(f) | ValuesSet::Full { values: f, .. } => f,
        }
    }

    /// The `--set` flags.
    pub fn set(&self) -> &[String] {
        match self {
            ValuesSet::Files(_) => &[],
            ValuesSet::Full { set, .. } => set,
        }
    }
}

/// An `ignore:` entry as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawIgnore {
    #[serde(default)]
    resources: Option<String>,
    fields: Vec<String>,
}

/// `kubernetes:` with each override's path globs checked.
fn check_overrides(
    k: KubernetesConfig,
    node: &yaml::Node,
) -> Result<KubernetesConfig, ConfigError> {
    for (i, o) in k.overrides.iter().enumerate() {
        for p in &o.paths {
            glob(p).map_err(|e| {
                let span = node
                    .get("kubernetes")
                    .and_then(|n| n.get("overrides"))
                    .and_then(|n| n.as_seq())
                    .and_then(|s| s.get(i))
                    .map_or(node.span, |n| n.span);
                ConfigError {
                    message: format!("kubernetes.overrides: {e}"),
                    line: span.line,
                    column: span.column,
                }
            })?;
        }
    }
    Ok(k)
}

/// `rules:` compiled: each rule glob must name a validation rule, each severity be one.
fn rule_settings(
    raw: Vec<RawRuleSetting>,
    node: &yaml::Node,
) -> Result<Vec<RuleSetting>, ConfigError> {
    use crate::finding::Severity;
    let at = |i: usize, key: &str, message: String| {
        let span = node
            .get("rules")
            .and_then(|n| n.as_seq())
            .and_then(|s| s.get(i))
            .map(|n| n.get(key).map_or(n.span, |k| k.span))
            .unwrap_or(node.span);
        ConfigError {
            message,
            line: span.line,
            column: span.column,
        }
    };
    let mut out = Vec::new();
    for (i, r) in raw.into_iter().enumerate() {
        let rule = glob(&r.rule)
            .map_err(|e| at(i, "rule", format!("rules: {e}")))?
            .compile_matcher();
        if !rules::ALL
            .iter()
            .any(|known| configurable(known.id) && rule.is_match(known.id))
        {
            return Err(at(
                i,
                "rule",
                format!(
                    "rules: {} names no validation rule (schema.*, api.*, deploy.*, reference.*; see docs/rules.md)",
                    r.rule
                ),
            ));
        }
        let severity = match r.severity.as_str() {
            "error" => Some(Severity::Error),
            "warning" => Some(Severity::Warning),
            "notice" => Some(Severity::Notice),
            "off" => None,
            other => {
                return Err(at(
                    i,
                    "severity",
                    format!("rules: severity {other:?} is not error, warning, notice or off"),
                ))
            }
        };
        let paths = if r.paths.is_empty() {
            None
        } else {
            let mut b = GlobSetBuilder::new();
            for p in &r.paths {
                b.add(glob(p).map_err(|e| at(i, "paths", format!("rules: {e}")))?);
            }
            Some(
                b.build()
                    .map_err(|e| at(i, "paths", format!("rules: {e}")))?,
            )
        };
        out.push(RuleSetting {
            rule,
            paths,
            severity,
        });
    }
    Ok(out)
}

/// The parsed configuration with compiled globs.
#[derive(Debug, Clone)]
pub struct Config {
    include: Option<GlobSet>,
    exclude: GlobSet,
    directories: GlobSet,
    ignore: Vec<IgnoreRule>,
    charts: std::collections::BTreeMap<String, ChartConfig>,
    repo_urls: Vec<String>,
    argocd: ArgoCd,
    fetch: FetchConfig,
    kubernetes: KubernetesConfig,
    rules: Vec<RuleSetting>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            include: None,
            exclude: GlobSet::empty(),
            directories: GlobSet::empty(),
            ignore: Vec::new(),
            charts: Default::default(),
            repo_urls: Vec::new(),
            argocd: Default::default(),
            fetch: Default::default(),
            kubernetes: Default::default(),
            rules: Vec::new(),
        }
    }
}

fn glob(pattern: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(pattern.trim_end_matches('/'))
        .literal_separator(true)
        .build()
}

fn glob_set(patterns: &[String], key: &str, node: &yaml::Node) -> Result<GlobSet, ConfigError> {
    let mut b = GlobSetBuilder::new();
    for (i, p) in patterns.iter().enumerate() {
        let g = glob(p).map_err(|e| {
            let span = node
                .get(key)
                .and_then(|n| n.as_seq())
                .and_then(|s| s.get(i))
                .map(|n| n.span)
                .unwrap_or_default();
            ConfigError {
                message: format!("invalid glob {p:?} in `{key}`: {}", e.kind()),
                line: span.line,
                column: span.column,
            }
        })?;
        b.add(g);
    }
    b.build().map_err(|e| ConfigError {
        message: e.to_string(),
        line: 0,
        column: 0,
    })
}

/// An invalid config file, with the position of the problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ConfigError {
    pub message: String,
    pub line: u32,
    pub column: u32,
}

impl ConfigError {
    /// The error as a finding on `file`.
    pub fn to_finding(&self, file: &str) -> Finding {
        Finding::error(rules::CONFIG_INVALID, self.message.clone())
            .at(file, self.line, self.column)
            .with_help("see docs/configuration.md for the keys .kdelta.yaml accepts")
    }
}

impl Config {
    /// Parses the contents of a config file.
    pub fn parse(bytes: &[u8]) -> Result<Config, ConfigError> {
        let node = yaml::parse_one(bytes, &ParseOptions::default()).map_err(|e| ConfigError {
            message: e.message.clone(),
            line: e.span.line,
            column: e.span.column,
        })?;
        if node.is_null() {
            return Ok(Config::default());
        }
        let raw: RawConfig = from_node(&node, Dialect::Yaml12).map_err(|e| ConfigError {
            message: e.message.clone(),
            line: e.span.line,
            column: e.span.column,
        })?;
        Ok(Config {
            include: if raw.include.is_empty() {
                None
            } else {
                Some(glob_set(&raw.include, "include", &node)?)
            },
            exclude: glob_set(&raw.exclude, "exclude", &node)?,
            directories: glob_set(&raw.directories, "directories", &node)?,
            ignore: raw
                .ignore
                .into_iter()
                .map(|r| IgnoreRule {
                    resources: r.resources.unwrap_or_else(|| "*".to_string()),
                    fields: r.fields,
                })
                .collect(),
            repo_urls: raw.repo_urls,
            argocd: raw.argocd,
            fetch: raw.fetch,
            kubernetes: check_overrides(raw.kubernetes, &node)?,
            rules: rule_settings(raw.rules, &node)?,
            charts: raw
                .charts
                .into_iter()
                .map(|(k, v)| {
                    (
                        k.trim_end_matches('/').trim_start_matches("./").to_string(),
                        v,
                    )
                })
                .collect(),
        })
    }

    /// `repoURLs`: other URLs of this repository (a mirror, an old name) that Argo CD
    /// manifests use.
    pub fn repo_urls(&self) -> &[String] {
        &self.repo_urls
    }

    /// The Argo CD installation the manifests are for (`argocd:`).
    pub fn argocd(&self) -> &ArgoCd {
        &self.argocd
    }

    /// The cluster the manifests are for (`kubernetes:`).
    pub fn kubernetes(&self) -> &KubernetesConfig {
        &self.kubernetes
    }

    /// An override's `paths` as one glob set (None: it selects by cluster only); the globs
    /// were checked when the file was read.
    pub fn override_paths(o: &KubernetesOverride) -> Option<GlobSet> {
        if o.paths.is_empty() {
            return None;
        }
        let mut b = GlobSetBuilder::new();
        for p in &o.paths {
            b.add(glob(p).ok()?);
        }
        b.build().ok()
    }

    /// The severity `rules:` gives a finding of `rule` in `file` (the last matching entry
    /// wins): `Some(None)` when switched off, `None` when no entry applies.
    pub fn rule_severity(
        &self,
        rule: &str,
        file: Option<&str>,
    ) -> Option<Option<crate::finding::Severity>> {
        self.rules
            .iter()
            .rev()
            .find(|s| {
                s.rule.is_match(rule)
                    && s.paths
                        .as_ref()
                        .is_none_or(|p| file.is_some_and(|f| p.is_match(f)))
            })
            .map(|s| s.severity)
    }

    /// `findings` with `rules:` applied: severities changed, switched-off ones dropped.
    pub fn apply_rules(&self, findings: Vec<Finding>) -> Vec<Finding> {
        if self.rules.is_empty() {
            return findings;
        }
        findings
            .into_iter()
            .filter_map(|mut f| {
                if !configurable(f.rule.id) {
                    return Some(f);
                }
                match self.rule_severity(f.rule.id, f.file.as_deref()) {
                    None => Some(f),
                    Some(None) => None,
                    Some(Some(severity)) => {
                        f.severity = severity;
                        Some(f)
                    }
                }
            })
            .collect()
    }

    /// How remote sources are fetched (`fetch:`).
    pub fn fetch(&self) -> &FetchConfig {
        &self.fetch
    }

    /// What the configuration says about the chart in `dir`.
    pub fn chart(&self, dir: &str) -> Option<&ChartConfig> {
        self.charts.get(dir)
    }

    /// True when a target at this repo-relative path should be rendered.
    pub fn selects(&self, path: &str) -> bool {
        let included = match &self.include {
            None => true,
            Some(set) => set.is_match(path),
        };
        included && !self.exclude.is_match(path)
    }

    /// The `ignore:` rules, for the diff.
    pub fn ignore_rules(&self) -> &[IgnoreRule] {
        &self.ignore
    }

    /// True when `dir` is listed under `directories:`.
    pub fn is_manifest_directory(&self, dir: &str) -> bool {
        self.directories.is_match(dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_exclude_and_directories() {
        let c = Config::parse(
            b"include: ['apps/**']\nexclude: ['**/testdata/**']\ndirectories: ['manifests/*']\n",
        )
        .unwrap();
        assert!(c.selects("apps/web/overlays/prod"));
        assert!(!c.selects("apps/web/testdata/x"));
        assert!(!c.selects("infra/x"));
        assert!(c.is_manifest_directory("manifests/crds"));
        assert!(!c.is_manifest_directory("manifests/crds/sub"));
        let all = Config::parse(b"").unwrap();
        assert!(all.selects("anything"));
    }

    #[test]
    fn ignore_rules() {
        let c = Config::parse(
            b"ignore:\n- fields: ['metadata.labels[\"helm.sh/chart\"]']\n- resources: 'apps/*/Deployment/*'\n  fields: [spec.replicas]\n",
        )
        .unwrap();
        let rules = c.ignore_rules();
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0].resources, "*");
        assert!(rules[1].hides("apps/v1/Deployment/prod/web", "spec.replicas"));
        assert!(!rules[1].hides("core/v1/Service/prod/web", "spec.replicas"));
        assert!(Config::parse(b"ignore:\n- resources: x\n").is_err());
    }

    #[test]
    fn charts_and_values_sets() {
        let c = Config::parse(
            b"charts:\n  charts/api/:\n    releaseName: api\n    ciValues: false\n    valuesSets:\n      prod: [values-prod.yaml]\n      canary:\n        values: [values-prod.yaml]\n        set: [canary=true]\n",
        )
        .unwrap();
        let api = c.chart("charts/api").expect("the chart's entry");
        assert_eq!(api.release_name.as_deref(), Some("api"));
        assert!(!api.ci_values);
        assert_eq!(api.values_sets["prod"].files(), ["values-prod.yaml"]);
        assert_eq!(api.values_sets["canary"].set(), ["canary=true"]);
        assert!(Config::parse(b"charts:\n  x:\n    bogus: 1\n").is_err());
    }

    #[test]
    fn errors_have_lines() {
        let e = Config::parse(b"include: []\nbogus: 1\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("unknown field"), "{}", e.message);
        let e = Config::parse(b"exclude:\n- 'a/[b'\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = Config::parse(b"include: [a\n").unwrap_err();
        assert!(e.line > 0);
        let f = e.to_finding(".kdelta.yaml");
        assert_eq!(f.rule, rules::CONFIG_INVALID);
    }
}

#[cfg(test)]
mod schema_tests {
    use super::*;

    fn as_json(text: &str) -> serde_json::Value {
        let node = yaml::parse_one(text.as_bytes(), &ParseOptions::default()).expect("YAML");
        yaml::to_value(&node, Dialect::Yaml12).expect("typed")
    }

    /// Every example of docs/configuration.md is valid for the schema and for the parser, and
    /// what the parser refuses the schema refuses too.
    #[test]
    fn the_schema_accepts_what_the_parser_accepts() {
        let schema: serde_json::Value = serde_json::from_str(CONFIG_SCHEMA).expect("JSON");
        let validator = jsonschema::draft7::new(&schema).expect("a draft-7 schema");
        let docs = include_str!("../docs/configuration.md");
        let examples: Vec<&str> = docs
            .split("```yaml\n")
            .skip(1)
            .filter_map(|b| b.split("```").next())
            .collect();
        assert!(examples.len() >= 5, "{}", examples.len());
        for e in &examples {
            Config::parse(e.as_bytes()).unwrap_or_else(|err| panic!("{err}\n{e}"));
            let errors: Vec<String> = validator
                .iter_errors(&as_json(e))
                .map(|x| x.to_string())
                .collect();
            assert!(errors.is_empty(), "{errors:?}\n{e}");
        }
        for wrong in [
            "includes: [a]\n",
            "argocd:\n  tracking: labels\n",
            "charts:\n  c:\n    valuesSets:\n      prod: 3\n",
            "argocd:\n  clusters:\n  - name: x\n",
            "ignore:\n- resources: '*'\n",
        ] {
            assert!(
                Config::parse(wrong.as_bytes()).is_err(),
                "the parser takes {wrong}"
            );
            assert!(
                !validator.is_valid(&as_json(wrong)),
                "the schema takes {wrong}"
            );
        }
    }
}
