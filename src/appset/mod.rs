//! Argo CD ApplicationSets and Applications. An ApplicationSet generates Applications
//! ([`generate`], offline, as the controller does), each a target of its own; an Application
//! (generated, or a manifest of the repository) renders into itself and what it deploys from
//! this repository ([`deploy`]: kustomize, Helm or plain manifests).

mod deploy;
mod directory;
mod env;
pub mod generate;
pub mod ignore;
mod kustomize_edit;
pub mod render;
mod target;

use crate::config::Config;
use crate::engine::{self, EngineOutput};
use crate::finding::{Finding, Severity};
use crate::source::{yaml_finding, Files, RepoPath, Snapshot};
use crate::yaml::{self, Node, ParseOptions};

/// An Argo CD manifest: one document of a file, named by `metadata.name`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Spec {
    /// An ApplicationSet (`appset:FILE#NAME`).
    AppSet { file: RepoPath, name: String },
    /// An Application manifest of the repository (`app:FILE#NAME`).
    Application { file: RepoPath, name: String },
    /// An Application an ApplicationSet generates (`app:NAMESPACE/NAME`).
    Generated {
        file: RepoPath,
        appset: String,
        namespace: String,
        name: String,
    },
}

/// What changes the expansion and rendering.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Options {
    /// This repository's URLs (its git remotes and `.kdelta.yaml`'s aliases), normalised by
    /// [`normalize_repo_url`]: a git generator naming one reads the revision under test.
    pub repo_urls: Vec<String>,
    /// The controller's `--enable-new-git-file-globbing`.
    pub new_git_file_globbing: bool,
    /// What `.kdelta.yaml` says of the Argo CD installation (`argocd:`).
    pub argocd: crate::config::ArgoCd,
}

/// What an ApplicationSet's render knows beyond its Applications.
#[derive(Clone, Debug, Default)]
pub struct Details {
    /// Each generated Application's name, with the generator and parameters that made it.
    pub made_by: std::collections::BTreeMap<String, String>,
    /// An Application's `ignoreDifferences`, which its diff applies.
    pub ignore_differences: Vec<ignore::IgnoreDifference>,
}

/// A repository URL in the form kdelta compares: host and path, lower-case host, no scheme,
/// user, `.git` suffix or trailing `/` (`git@github.com:org/repo.git`,
/// `https://github.com/org/repo` and `ssh://git@github.com/org/repo` are one repository).
pub fn normalize_repo_url(url: &str) -> String {
    let url = url.trim().trim_end_matches('/');
    let url = url.strip_suffix(".git").unwrap_or(url);
    let rest = match url.split_once("://") {
        Some((_, rest)) => rest.to_string(),
        // scp-like `user@host:path`.
        None => url.replacen(':', "/", 1),
    };
    let rest = rest.rsplit_once('@').map_or(rest.as_str(), |(_, r)| r);
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let host = host.split(':').next().unwrap_or(host).to_lowercase();
    format!("{host}/{path}")
}

impl Spec {
    fn file(&self) -> &RepoPath {
        match self {
            Spec::AppSet { file, .. }
            | Spec::Application { file, .. }
            | Spec::Generated { file, .. } => file,
        }
    }
}

impl engine::Spec for Spec {
    type Options = Options;
    type Details = Details;

    fn kind(&self) -> &'static str {
        match self {
            Spec::AppSet { .. } => "appset",
            Spec::Application { .. } | Spec::Generated { .. } => "app",
        }
    }

    fn id(&self) -> String {
        match self {
            Spec::AppSet { file, name } => format!("appset:{file}#{name}"),
            Spec::Application { file, name } => format!("app:{file}#{name}"),
            Spec::Generated {
                namespace, name, ..
            } => format!("app:{namespace}/{name}"),
        }
    }

    fn path(&self) -> &RepoPath {
        self.file()
    }

    fn defining_file(&self, _snapshot: &dyn Snapshot) -> RepoPath {
        self.file().clone()
    }

    /// The Applications an ApplicationSet generates, each a target.
    fn expand(&self, files: &Files, opts: &Options) -> (Vec<Spec>, Vec<Finding>) {
        match self {
            Spec::AppSet { file, name } => {
                (target::expand_appset(files, file, name, opts), Vec::new())
            }
            _ => (Vec::new(), Vec::new()),
        }
    }

    fn render(&self, files: &Files, opts: &Options) -> EngineOutput<Details> {
        match self {
            Spec::AppSet { file, name } => target::render_appset(files, file, name, opts),
            Spec::Application { file, name } => target::render_application(files, file, name, opts),
            Spec::Generated {
                file, appset, name, ..
            } => target::render_generated(files, file, appset, name, opts),
        }
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
