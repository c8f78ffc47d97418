//! Argo CD ApplicationSets and Applications. The engine has not landed yet: manifests are
//! discovered and each is reported with a notice that its output is missing; ApplicationSets
//! expand into no Applications yet.

pub mod generate;
pub mod render;

use crate::config::Config;
use crate::engine::{self, EngineOutput};
use crate::finding::{rules, Finding, Severity};
use crate::source::{yaml_finding, Files, RepoPath, Snapshot};
use crate::yaml::{self, Node, ParseOptions};

/// An Argo CD manifest: one document of a file, named by `metadata.name`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Spec {
    /// An ApplicationSet (`appset:FILE#NAME`).
    AppSet { file: RepoPath, name: String },
    /// An Application (`app:FILE#NAME`).
    Application { file: RepoPath, name: String },
}

/// What changes the expansion and rendering (none yet).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Options {}

impl Spec {
    fn file(&self) -> &RepoPath {
        match self {
            Spec::AppSet { file, .. } | Spec::Application { file, .. } => file,
        }
    }
}

impl engine::Spec for Spec {
    type Options = Options;
    type Details = ();

    fn kind(&self) -> &'static str {
        match self {
            Spec::AppSet { .. } => "appset",
            Spec::Application { .. } => "app",
        }
    }

    fn id(&self) -> String {
        match self {
            Spec::AppSet { file, name } => format!("appset:{file}#{name}"),
            Spec::Application { file, name } => format!("app:{file}#{name}"),
        }
    }

    fn path(&self) -> &RepoPath {
        self.file()
    }

    fn defining_file(&self, _snapshot: &dyn Snapshot) -> RepoPath {
        self.file().clone()
    }

    /// The Applications an ApplicationSet generates: none until the generators land (its
    /// render says so).
    fn expand(&self, _files: &Files, _opts: &Options) -> (Vec<Spec>, Vec<Finding>) {
        (Vec::new(), Vec::new())
    }

    fn render(&self, _files: &Files, _opts: &Options) -> EngineOutput<()> {
        let notice = match self {
            Spec::AppSet { file, .. } => {
                engine::not_rendered_yet(rules::APPSET_NOT_RENDERED_YET, file, "ApplicationSets")
            }
            Spec::Application { file, .. } => {
                engine::not_rendered_yet(rules::APP_NOT_RENDERED_YET, file, "Argo CD Applications")
            }
        };
        EngineOutput::new(Vec::new(), vec![notice], true)
    }

    /// Every ApplicationSet and Application document of a YAML file that mentions
    /// `argoproj.io/`; a file that does but is not valid YAML is a warning (it may not be an
    /// Argo CD manifest at all).
    fn detect_file(
        snapshot: &dyn Snapshot,
        path: &RepoPath,
        _config: &Config,
    ) -> (Vec<Spec>, Vec<Finding>) {
        let Ok(bytes) = snapshot.read(path) else {
            return (Vec::new(), Vec::new());
        };
        if !contains(&bytes, b"argoproj.io/") {
            return (Vec::new(), Vec::new());
        }
        match yaml::parse_stream(&bytes, &ParseOptions::default()) {
            Ok(docs) => (
                docs.iter().filter_map(|d| manifest(d, path)).collect(),
                Vec::new(),
            ),
            Err(e) => {
                let mut f = yaml_finding(&e, path);
                f.severity = Severity::Warning;
                f.message = format!(
                    "looks like an Argo CD manifest but is not valid YAML: {}",
                    f.message
                );
                (Vec::new(), vec![f])
            }
        }
    }
}

fn manifest(doc: &Node, path: &RepoPath) -> Option<Spec> {
    if !doc.str_at(&["apiVersion"])?.starts_with("argoproj.io/") {
        return None;
    }
    let name = doc.str_at(&["metadata", "name"])?.to_string();
    match doc.str_at(&["kind"])? {
        "ApplicationSet" => Some(Spec::AppSet {
            file: path.clone(),
            name,
        }),
        "Application" => Some(Spec::Application {
            file: path.clone(),
            name,
        }),
        _ => None,
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}
