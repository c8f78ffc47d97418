//! Helm charts (`helm template`): loading a chart and its subcharts ([`chart`]), dependency
//! processing ([`deps`]) and the tree it leaves ([`tree`]), values ([`values`], [`strvals`],
//! [`schema`]), the objects of the dot ([`objects`]), rendering ([`render`]), Helm's output
//! stage ([`output`]), and the engine's targets ([`target`]): a chart read from a snapshot
//! with findings at file and line.

mod annotate;
pub mod chart;
pub mod deps;
pub mod files;
pub mod glob;
pub mod head;
pub mod ignore;
pub mod lock;
pub mod objects;
pub mod origin;
pub mod output;
mod place;
pub mod render;
pub mod schema;
pub mod strvals;
pub mod target;
pub mod tree;
pub mod values;

use crate::engine::{self, Detected, DirListing, EngineOutput};
use crate::resource::Resource;
use crate::source::{Files, RepoPath, Snapshot};

/// A Helm target: a chart directory, with its `values.yaml` or a values set: a
/// `ci/*-values.yaml` file or a set named in `.kdelta.yaml`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Spec {
    pub chart: RepoPath,
    /// The values set's name in the target id (`ci/prod-values.yaml`, `prod`).
    pub values: Option<String>,
    /// Its values files, relative to the chart, applied over `values.yaml` as `-f` would be.
    pub values_files: Vec<String>,
    /// Its `--set` flags.
    pub set: Vec<String>,
    /// The release name and namespace `.kdelta.yaml` gives the chart (the command line's win).
    pub release_name: Option<String>,
    pub namespace: Option<String>,
}

impl Spec {
    /// The chart in `dir` with its own values.
    pub fn chart(dir: RepoPath) -> Spec {
        Spec {
            chart: dir,
            values: None,
            values_files: Vec::new(),
            set: Vec::new(),
            release_name: None,
            namespace: None,
        }
    }
}

/// The `helm template` flags that change its output (part of every cache key). Values files
/// given on the command line are read when kdelta starts, as Helm reads them, and carried
/// here as `(name, text)`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Options {
    pub release_name: Option<String>,
    pub namespace: Option<String>,
    pub kube_version: Option<String>,
    /// `kubernetes.overrides`: other versions for the charts at some paths (none when
    /// `--kube-version` was given, which is the whole run's).
    pub kube_overrides: Vec<crate::config::KubernetesOverride>,
    pub api_versions: Vec<String>,
    pub include_crds: bool,
    pub skip_schema_validation: bool,
    pub skip_tests: bool,
    pub no_hooks: bool,
    pub show_only: Vec<String>,
    pub is_upgrade: bool,
    pub values: Vec<(String, String)>,
    pub set: Vec<String>,
    pub set_string: Vec<String>,
    pub set_json: Vec<String>,
    /// `--set-file key=path` flags with the files they name.
    pub set_file: Vec<strvals::SetFile>,
    pub set_literal: Vec<String>,
    /// Helm's local repository cache, where dependencies missing from `charts/` are looked
    /// for (see [`crate::source::helm_cache`]).
    pub repository_cache: Option<std::path::PathBuf>,
    /// Render a second time when the templates call non-deterministic functions, to find
    /// the fields they regenerate (the diff needs it; printing does not).
    pub detect_regenerated: bool,
    /// Place the rendered objects' fields at the template lines that wrote them, for findings
    /// (printing does not need it).
    pub positions: bool,
    /// The render is only printed (`kdelta render`): its documents are read for their heads,
    /// not kept as objects (see [`render::RenderOptions::objects`]).
    pub only_printed: bool,
}

/// What a chart's render knows beyond its resources.
#[derive(Clone, Debug, Default)]
pub struct Details {
    /// The dependency tree, with pruned and missing subcharts (none when the render failed).
    pub tree: Option<Box<tree::Node>>,
    /// The non-deterministic functions the templates called.
    pub nondeterministic: Vec<&'static str>,
    /// A second render's resources when the output is not deterministic: the fields that
    /// differ between the two are regenerated on every render.
    pub rerender: Vec<Resource>,
    /// The values files the resources' fields are placed in (the fields printed as read from
    /// the values), for `kdelta explain`.
    pub values_files: std::collections::BTreeSet<crate::yaml::FileId>,
}

impl engine::Spec for Spec {
    type Options = Options;
    type Details = Details;
    type Setting = engine::NoSetting;
    const ID_PREFIXES: &'static [&'static str] = &["helm"];
    /// A chart is rendered as `helm template` renders it, whatever Argo CD's settings say.
    const READS_REVISION_SETTINGS: bool = false;
    /// A chart's release name and namespace, and its values sets.
    const CONFIG_KEYS: &'static [&'static str] = &["charts"];
    /// The chart's directory holds its templates, values and subcharts.
    const PATH_IS_INPUT_DIR: bool = true;
    const TAKES_RELEASE_NAME: bool = true;
    const MARKER_FILES: &'static [&'static str] = &["Chart.yaml"];
    /// A chart's templates and subcharts are part of it (see `detect_dir`).
    const CLAIMING_FILES: &'static [&'static str] = &["Chart.yaml"];

    /// A chart: templates to execute, keys to generate.
    fn cost(&self) -> u8 {
        2
    }

    /// Printed output has no findings about fields, nor a diff's regenerated values.
    fn printing(opts: &mut Options) {
        opts.positions = false;
        opts.detect_regenerated = false;
        opts.only_printed = true;
    }

    fn without_regenerated_probe(opts: &mut Options) {
        opts.detect_regenerated = false;
    }

    /// Generated passwords and keys change on every render: a second render finds them.
    fn diffing(opts: &mut Options) {
        opts.detect_regenerated = true;
    }

    fn kind(&self) -> &'static str {
        "helm"
    }

    fn id(&self) -> String {
        match &self.values {
            None => format!("helm:{}", self.chart),
            Some(v) => format!("helm:{}#{v}", self.chart),
        }
    }

    fn path(&self) -> &RepoPath {
        &self.chart
    }

    /// The chart, the template the object was rendered from, and the values; then, for each
    /// values file that set fields of the object, which fields at which lines.
    fn explain(&self, details: &Details, object: &Resource) -> Vec<String> {
        let file = object.origin.file.to_string();
        let mut values = vec![format!("{}/values.yaml", self.chart)];
        values.extend(
            self.values_files
                .iter()
                .map(|f| format!("{}/{f}", self.chart)),
        );
        let mut notes = vec![format!(
            "rendered by the chart {} from the template {file}, with the values of {}{}",
            self.chart,
            values.join(", then "),
            if self.set.is_empty() {
                String::new()
            } else {
                format!(" and --set {}", self.set.join(","))
            }
        )];
        notes.extend(from_values(&object.node, &details.values_files));
        notes
    }

    fn defining_file(&self, _snapshot: &dyn Snapshot) -> RepoPath {
        self.chart.child("Chart.yaml")
    }

    /// Subcharts switched on or off between the revisions, and the fields the chart
    /// regenerates on every render.
    fn annotate<'a>(
        &self,
        base: engine::Render<'a, Details>,
        head: engine::Render<'a, Details>,
    ) -> engine::Annotations<'a> {
        annotate::annotate(&self.chart, base, head)
    }

    fn configure(opts: &mut Options, _config: &crate::config::Config, shared: &engine::Shared) {
        opts.kube_version = shared.kube_version.clone();
        opts.kube_overrides = shared.kube_overrides.clone();
        opts.api_versions = shared.api_versions.clone();
    }

    fn render(&self, files: &Files, opts: &Options) -> EngineOutput<Details> {
        match crate::config::kube_version_for(&opts.kube_overrides, self.chart.as_str(), None) {
            Some(v) => {
                let opts = Options {
                    kube_version: Some(v.to_string()),
                    ..opts.clone()
                };
                target::render(self, files, &opts)
            }
            None => target::render(self, files, opts),
        }
    }

    /// The chart's directory (subcharts in `charts/` included), the charts its `file://`
    /// dependencies name, and the directories of its values files.
    fn input_dirs(&self, files: &Files, _opts: &Options) -> Option<Vec<RepoPath>> {
        let mut dirs = vec![self.chart.clone()];
        for f in &self.values_files {
            dirs.push(self.chart.join(f).ok()?.parent());
        }
        for file in ["Chart.yaml", "requirements.yaml"] {
            let Ok(stream) = files.yaml_stream(&self.chart.child(file), &Default::default()) else {
                continue;
            };
            let doc = stream.as_ref().as_ref().ok()?.first()?;
            let deps = doc.get("dependencies").and_then(crate::yaml::Node::as_seq);
            for dep in deps.into_iter().flatten() {
                if let Some(rel) = dep
                    .str_at(&["repository"])
                    .and_then(|r| r.strip_prefix("file://"))
                {
                    dirs.push(self.chart.join(rel).ok()?);
                }
            }
        }
        Some(dirs)
    }

    /// A directory with a `Chart.yaml` is a chart; its subcharts and templates are part of it,
    /// not targets of their own. Each `ci/*-values.yaml` (chart-testing's convention) is a
    /// target of its own too, and so is each values set `.kdelta.yaml` names for the chart.
    /// `helm template`'s documents (`SplitManifests`).
    fn printed_documents(printed: &str) -> Vec<&str> {
        output::split_manifests(printed)
    }

    fn at_dir(snapshot: &dyn Snapshot, dir: &RepoPath) -> Option<Spec> {
        (snapshot.kind(&dir.child("Chart.yaml")) == crate::source::EntryKind::File)
            .then(|| Spec::chart(dir.clone()))
    }

    fn detect_dir(listing: &DirListing) -> Detected<Spec> {
        if !listing.has_file("Chart.yaml") {
            return Detected::default();
        }
        // A library chart only serves the charts that depend on it: helm refuses to render
        // it alone, so it is no target (`kdelta render` of it says what helm says).
        if is_library(listing.snapshot, &listing.dir.child("Chart.yaml")) {
            return Detected {
                specs: Vec::new(),
                claims_dir: true,
                lists: Vec::new(),
            };
        }
        let config = listing
            .config
            .chart(listing.dir.as_str())
            .cloned()
            .unwrap_or(crate::config::ChartConfig {
                ci_values: true,
                ..Default::default()
            });
        let base = Spec {
            release_name: config.release_name.clone(),
            namespace: config.namespace.clone(),
            ..Spec::chart(listing.dir.clone())
        };
        let mut specs = vec![base.clone()];
        let ci = listing.dir.child("ci");
        if let (true, Ok(entries)) = (config.ci_values, listing.snapshot.list(&ci)) {
            specs.extend(
                entries
                    .iter()
                    .filter(|e| {
                        e.kind != crate::source::EntryKind::Dir && e.name.ends_with("-values.yaml")
                    })
                    .map(|e| Spec {
                        values: Some(format!("ci/{}", e.name)),
                        values_files: vec![format!("ci/{}", e.name)],
                        ..base.clone()
                    }),
            );
        }
        for (name, set) in &config.values_sets {
            specs.push(Spec {
                values: Some(name.clone()),
                values_files: set.files().to_vec(),
                set: set.set().to_vec(),
                ..base.clone()
            });
        }
        Detected {
            specs,
            claims_dir: true,
            lists: Vec::new(),
        }
    }
}

/// For each values file that set fields of `node` (`files`: the values files of the render),
/// a note naming the fields and their lines, in the file's order.
fn from_values(
    node: &crate::yaml::Node,
    files: &std::collections::BTreeSet<crate::yaml::FileId>,
) -> Vec<String> {
    use crate::yaml::{Node, NodeKind};
    /// The fields listed per file; more are counted.
    const LISTED: usize = 12;
    fn walk(
        node: &Node,
        path: &mut String,
        files: &std::collections::BTreeSet<crate::yaml::FileId>,
        out: &mut std::collections::BTreeMap<crate::yaml::FileId, Vec<(u32, String)>>,
    ) {
        match &node.kind {
            NodeKind::Scalar(_) => {
                if files.contains(&node.span.file) {
                    let fields = out.entry(node.span.file).or_default();
                    fields.push((node.span.line, path.clone()));
                }
            }
            NodeKind::Map(entries) => {
                for (k, v) in entries {
                    let len = path.len();
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(k.as_text().unwrap_or_default());
                    walk(v, path, files, out);
                    path.truncate(len);
                }
            }
            NodeKind::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    walk(item, path, files, out);
                    path.truncate(len);
                }
            }
        }
    }
    if files.is_empty() {
        return Vec::new();
    }
    let mut found = std::collections::BTreeMap::new();
    walk(node, &mut String::new(), files, &mut found);
    let mut notes: Vec<(String, String)> = found
        .into_iter()
        .map(|(file, mut fields)| {
            fields.sort();
            let name = file.name().map(|n| n.to_string()).unwrap_or_default();
            let mut listed: Vec<String> = fields
                .iter()
                .take(LISTED)
                .map(|(line, path)| format!("{path} (line {line})"))
                .collect();
            if fields.len() > LISTED {
                listed.push(format!("and {} more", fields.len() - LISTED));
            }
            let note = format!("fields set by {name}: {}", listed.join(", "));
            (name, note)
        })
        .collect();
    notes.sort();
    notes.into_iter().map(|(_, note)| note).collect()
}

/// True when the `Chart.yaml` at `path` declares `type: library`.
fn is_library(snapshot: &dyn Snapshot, path: &RepoPath) -> bool {
    let Ok(bytes) = snapshot.read(path) else {
        return false;
    };
    if memchr::memmem::find(&bytes, b"library").is_none() {
        return false;
    }
    crate::yaml::parse_one(&bytes, &Default::default())
        .is_ok_and(|n| n.str_at(&["type"]) == Some("library"))
}
