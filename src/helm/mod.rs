//! Helm charts (`helm template`): loading a chart and its subcharts ([`chart`]), dependency
//! processing ([`deps`]) and the tree it leaves ([`tree`]), values ([`values`], [`strvals`],
//! [`schema`]), the objects of the dot ([`objects`]), rendering ([`render`]), Helm's output
//! stage ([`output`]), and the engine's targets ([`target`]): a chart read from a snapshot
//! with findings at file and line.

pub mod chart;
pub mod deps;
pub mod glob;
pub mod ignore;
pub mod objects;
pub mod output;
pub mod render;
pub mod schema;
pub mod strvals;
pub mod target;
pub mod tree;
pub mod values;

use crate::engine::{self, Detected, DirListing, EngineOutput};
use crate::resource::Resource;
use crate::source::{Files, RepoPath, Snapshot};

/// A Helm target: a chart directory, optionally with a values file (relative to the chart,
/// applied over `values.yaml` as `-f` would be).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Spec {
    pub chart: RepoPath,
    pub values: Option<String>,
}

/// The `helm template` flags that change its output (part of every cache key). Values files
/// given on the command line are read when kdelta starts, as Helm reads them, and carried
/// here as `(name, text)`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Options {
    pub release_name: Option<String>,
    pub namespace: Option<String>,
    pub kube_version: Option<String>,
    pub api_versions: Vec<String>,
    pub include_crds: bool,
    pub skip_tests: bool,
    pub no_hooks: bool,
    pub show_only: Vec<String>,
    pub is_upgrade: bool,
    pub values: Vec<(String, String)>,
    pub set: Vec<String>,
    pub set_string: Vec<String>,
    pub set_json: Vec<String>,
    /// `--set-file key=path`, as `(key, the file's text)`.
    pub set_file: Vec<(String, String)>,
    pub set_literal: Vec<String>,
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
}

impl engine::Spec for Spec {
    type Options = Options;
    type Details = Details;

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

    fn defining_file(&self, _snapshot: &dyn Snapshot) -> RepoPath {
        self.chart.child("Chart.yaml")
    }

    fn render(&self, files: &Files, opts: &Options) -> EngineOutput<Details> {
        target::render(self, files, opts)
    }

    /// A directory with a `Chart.yaml` is a chart; its subcharts and templates are part of it,
    /// not targets of their own. Each `ci/*-values.yaml` (chart-testing's convention) is a
    /// target of its own too.
    fn detect_dir(listing: &DirListing) -> Detected<Spec> {
        if !listing.has_file("Chart.yaml") {
            return Detected::default();
        }
        let mut specs = vec![Spec {
            chart: listing.dir.clone(),
            values: None,
        }];
        let ci = listing.dir.child("ci");
        if let Ok(entries) = listing.snapshot.list(&ci) {
            specs.extend(
                entries
                    .iter()
                    .filter(|e| {
                        e.kind != crate::source::EntryKind::Dir && e.name.ends_with("-values.yaml")
                    })
                    .map(|e| Spec {
                        chart: listing.dir.clone(),
                        values: Some(format!("ci/{}", e.name)),
                    }),
            );
        }
        Detected {
            specs,
            claims_dir: true,
        }
    }
}
