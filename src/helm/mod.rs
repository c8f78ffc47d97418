//! Helm charts (`helm template`). The engine's pieces are here — loading a chart and its
//! subcharts ([`chart`]), dependency processing ([`deps`]), values ([`values`]), the objects
//! of the dot ([`objects`]), rendering ([`render`]) and Helm's output stage ([`output`]) — but
//! targets are not rendered through them yet: charts are discovered and each is reported with
//! a notice that its output is missing, until values flags and the repository's files are
//! wired in.

pub mod chart;
pub mod deps;
pub mod glob;
pub mod ignore;
pub mod objects;
pub mod output;
pub mod render;
pub mod schema;
pub mod strvals;
pub mod values;

use crate::engine::{self, Detected, DirListing, EngineOutput};
use crate::finding::rules;
use crate::source::{Files, RepoPath, Snapshot};

/// A Helm target: a chart directory, optionally with a values file.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Spec {
    pub chart: RepoPath,
    pub values: Option<RepoPath>,
}

/// What changes `helm template`'s output (none yet).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Options {}

impl engine::Spec for Spec {
    type Options = Options;
    type Details = ();

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

    fn render(&self, _files: &Files, _opts: &Options) -> EngineOutput<()> {
        EngineOutput::new(
            Vec::new(),
            vec![engine::not_rendered_yet(
                rules::HELM_NOT_RENDERED_YET,
                &self.chart,
                "Helm charts",
            )],
            true,
        )
    }

    /// A directory with a `Chart.yaml` is a chart; its subcharts and templates are part of it,
    /// not targets of their own.
    fn detect_dir(listing: &DirListing) -> Detected<Spec> {
        if !listing.has_file("Chart.yaml") {
            return Detected::default();
        }
        Detected {
            specs: vec![Spec {
                chart: listing.dir.clone(),
                values: None,
            }],
            claims_dir: true,
        }
    }
}
