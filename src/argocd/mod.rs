//! Argo CD ApplicationSets and Applications. An ApplicationSet generates Applications
//! ([`generate`], offline, as the controller does), each a target of its own; an Application
//! (generated, or a manifest of the repository) renders into itself and what it deploys from
//! this repository ([`deploy`]: kustomize, Helm or plain manifests).
//!
//! Which manifests of the repository are targets: every ApplicationSet and Application
//! document of a YAML file, as written (`appset:FILE#NAME`, `app:FILE#NAME`) — unless a
//! kustomization lists the file under `resources` (or lists a component that does). Such a
//! file is an input of the kustomization (an ApplicationSet template whose placeholders its
//! patches fill, an Application its overlays rename), not something applied on its own: its
//! manifests are targets as the top-level kustomizations that include it build them — those
//! no other kustomization includes, the overlays that are applied rather than their bases
//! ([`Spec::Kustomized`], `appset:DIR`, which expands into `appset:DIR#NAME` and
//! `app:DIR#NAME`) — whether an Application deploys the kustomization or it is applied by
//! hand. The Applications another Application deploys from a chart or a kustomization are
//! its children (`app:NAMESPACE/NAME`) only when they come from no manifest file, so that
//! each Application is one target.

mod deploy;
mod directory;
mod env;
pub mod generate;
pub mod ignore;
mod kustomize_edit;
mod kustomized;
pub mod plugin;
pub mod render;
pub mod settings;
mod target;

use crate::config::Config;
use crate::engine::{self, EngineOutput};
use crate::finding::{Finding, Severity};
use crate::resource::Resource;
use crate::source::{yaml_finding, EntryKind, Files, RepoPath, Snapshot};
use crate::yaml::{self, Node, ParseOptions};

/// An Argo CD manifest: one document of a file, named by `metadata.name`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Spec {
    /// An ApplicationSet (`appset:FILE#NAME`).
    AppSet { file: RepoPath, name: String },
    /// An Application manifest of the repository (`app:FILE#NAME`).
    Application { file: RepoPath, name: String },
    /// The Argo CD manifests of the manifest files that the kustomization in `dir` includes
    /// (no other kustomization includes it), as it builds them (`appset:DIR`): it renders into
    /// those manifests and expands into one [`Spec::Built`] each.
    Kustomized { dir: RepoPath },
    /// One Argo CD manifest of the kustomization in `dir`, as it builds it, named by its
    /// built `metadata.name` (`app:DIR#NAME`, `appset:DIR#NAME`).
    Built {
        dir: RepoPath,
        kind: ManifestKind,
        name: String,
    },
    /// An Application an ApplicationSet ([`Spec::AppSet`] or [`Spec::Built`]) generates
    /// (`app:NAMESPACE/NAME`).
    Generated {
        appset: Box<Spec>,
        namespace: String,
        name: String,
    },
    /// An Application another Application deploys, rendered from a chart or a kustomization
    /// (app of apps; `app:NAMESPACE/NAME`).
    Child {
        parent: Box<Spec>,
        namespace: String,
        name: String,
    },
}

/// The kind of an Argo CD manifest that is a target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ManifestKind {
    Application,
    ApplicationSet,
}

impl ManifestKind {
    /// The `kind` of such a manifest.
    pub fn as_str(self) -> &'static str {
        match self {
            ManifestKind::Application => "Application",
            ManifestKind::ApplicationSet => "ApplicationSet",
        }
    }

    fn of(kind: &str) -> Option<ManifestKind> {
        match kind {
            "Application" => Some(ManifestKind::Application),
            "ApplicationSet" => Some(ManifestKind::ApplicationSet),
            _ => None,
        }
    }
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
    /// Argo CD's settings at the revision: `.kdelta.yaml`'s, then the repository's argocd-cm
    /// and plugins ([`settings`]).
    pub settings: std::sync::Arc<settings::Settings>,
    /// The cluster's Kubernetes version (`--kube-version`, `kubernetes.version`): what Argo
    /// CD's repo-server passes to `helm template` as `--kube-version` (the destination
    /// cluster's), unless the Application's `helm.kubeVersion` says otherwise.
    pub kube_version: Option<String>,
    /// `kubernetes.overrides`: other versions by the Application's path or destination.
    pub kube_overrides: Vec<crate::config::KubernetesOverride>,
    /// `--run-plugins`: a config management plugin whose command kdelta cannot render
    /// natively is run (in a temporary checkout of the revision).
    pub run_plugins: bool,
    /// How the top-level kustomizations whose Argo CD manifests are targets are built
    /// ([`Spec::Kustomized`]): kdelta's kustomize flags (the command line sets them here as
    /// for the kustomize engine) with the build options argocd-cm imposes, as the kustomize
    /// targets are built (what an Application deploys is built as Argo CD builds it
    /// instead).
    pub kustomize: crate::kustomize::Options,
}

/// What an ApplicationSet's render knows beyond its Applications.
#[derive(Clone, Debug, Default)]
pub struct Details {
    /// Each Application's name, with what makes it: the generator and parameters, or the
    /// Application that deploys it (`generated by …`, `deployed by …`).
    pub made_by: std::collections::BTreeMap<String, String>,
    /// An Application's `ignoreDifferences`, which its diff applies.
    pub ignore_differences: Vec<ignore::IgnoreDifference>,
}

pub use crate::fetch::url::normalize_repo_url;

impl Spec {
    /// The file that defines the manifest, or the directory of the kustomization that lists
    /// it.
    fn file(&self) -> &RepoPath {
        match self {
            Spec::AppSet { file, .. } | Spec::Application { file, .. } => file,
            Spec::Kustomized { dir } | Spec::Built { dir, .. } => dir,
            Spec::Generated { appset, .. } => appset.file(),
            Spec::Child { parent, .. } => parent.file(),
        }
    }

    /// The directory of the kustomization whose build makes this target, if one does.
    fn kustomization(&self) -> Option<&RepoPath> {
        match self {
            Spec::AppSet { .. } | Spec::Application { .. } => None,
            Spec::Kustomized { dir } | Spec::Built { dir, .. } => Some(dir),
            Spec::Generated { appset, .. } => appset.kustomization(),
            Spec::Child { parent, .. } => parent.kustomization(),
        }
    }
}

impl engine::Spec for Spec {
    type Options = Options;
    type Details = Details;
    /// argocd-cm's keys and the config management plugins, in the files that hold them.
    type Setting = settings::Entry;
    const ID_PREFIXES: &'static [&'static str] = &["appset", "app"];
    /// The Argo CD installation the manifests are for (its namespace, tracking method,
    /// settings).
    const CONFIG_KEYS: &'static [&'static str] = &["argocd"];

    fn kind(&self) -> &'static str {
        match self {
            Spec::AppSet { .. }
            | Spec::Kustomized { .. }
            | Spec::Built {
                kind: ManifestKind::ApplicationSet,
                ..
            } => "appset",
            Spec::Application { .. }
            | Spec::Built {
                kind: ManifestKind::Application,
                ..
            }
            | Spec::Generated { .. }
            | Spec::Child { .. } => "app",
        }
    }

    /// What makes an Application of the render: the generator and parameters, or the
    /// Application that deploys it.
    fn explain(&self, details: &Details, object: &Resource) -> Vec<String> {
        if object.kind() != "Application" {
            return Vec::new();
        }
        let name = object
            .node
            .str_at(&["metadata", "name"])
            .unwrap_or_default();
        details.made_by.get(name).cloned().into_iter().collect()
    }

    /// Both sides without the fields the head's Application leaves out (`ignoreDifferences`),
    /// as the live one does in Argo CD.
    fn compared(
        &self,
        head: &Details,
        base_objects: &[Resource],
        head_objects: &[Resource],
    ) -> Option<(Vec<Resource>, Vec<Resource>)> {
        let rules = &head.ignore_differences;
        if rules.is_empty() {
            return None;
        }
        let b = ignore::normalized(base_objects, rules);
        let h = ignore::normalized(head_objects, rules);
        if b.is_none() && h.is_none() {
            return None;
        }
        Some((
            b.unwrap_or_else(|| base_objects.to_vec()),
            h.unwrap_or_else(|| head_objects.to_vec()),
        ))
    }

    /// A generated Application that appears or disappears: which generator and parameters
    /// make (or made) it. Only the Applications themselves: an object an Application deploys
    /// may share its name.
    fn reason(
        &self,
        details: &Details,
        id: &str,
        appearance: engine::Appearance,
    ) -> Option<String> {
        if !(id.starts_with("argoproj.io/") && id.contains("/Application/")) {
            return None;
        }
        let name = id.rsplit('/').next().unwrap_or_default();
        let made_by = details.made_by.get(name)?;
        Some(match appearance {
            engine::Appearance::Added => made_by.clone(),
            engine::Appearance::Removed => format!("no longer {made_by}"),
        })
    }

    /// Applications are counted; an ApplicationSet is counted through the ones it generates.
    fn coverage(&self) -> Option<engine::Coverage> {
        (self.kind() == "app").then_some(engine::Coverage::Applications)
    }

    fn id(&self) -> String {
        match self {
            Spec::AppSet { file, name } => format!("appset:{file}#{name}"),
            Spec::Application { file, name } => format!("app:{file}#{name}"),
            Spec::Kustomized { dir } => format!("appset:{dir}"),
            Spec::Built { dir, name, .. } => format!("{}:{dir}#{name}", self.kind()),
            Spec::Generated {
                namespace, name, ..
            }
            | Spec::Child {
                namespace, name, ..
            } => format!("app:{namespace}/{name}"),
        }
    }

    fn path(&self) -> &RepoPath {
        self.file()
    }

    /// The manifest file, or for a manifest a kustomization lists, the kustomization file.
    fn defining_file(&self, snapshot: &dyn Snapshot) -> RepoPath {
        match self.kustomization() {
            Some(dir) => {
                engine::Spec::defining_file(&crate::kustomize::Spec { dir: dir.clone() }, snapshot)
            }
            None => self.file().clone(),
        }
    }

    /// The Applications an ApplicationSet generates, the manifests a kustomization lists,
    /// and the Applications an Application deploys from a chart or a kustomization: each a
    /// target.
    fn expand(&self, files: &Files, opts: &Options) -> (Vec<Spec>, Vec<Finding>) {
        match self {
            Spec::AppSet { .. }
            | Spec::Built {
                kind: ManifestKind::ApplicationSet,
                ..
            } => (target::expand_appset(self, files, opts), Vec::new()),
            Spec::Kustomized { dir } => (kustomized::expand(files, dir, opts), Vec::new()),
            _ => (target::expand_children(self, files, opts), Vec::new()),
        }
    }

    fn configure(opts: &mut Options, config: &Config, shared: &engine::Shared) {
        opts.repo_urls = shared.repo_urls.clone();
        opts.argocd = config.argocd().clone();
        opts.new_git_file_globbing |= config.argocd().new_git_file_globbing;
        // The destination cluster's version is what the repo-server renders charts for.
        opts.kube_version = shared.kube_version.clone();
        opts.kube_overrides = shared.kube_overrides.clone();
        // The kustomizations that include Argo CD manifests build as the kustomize targets do.
        opts.kustomize.impose(&shared.kustomize_build_options);
    }

    fn settings_in(path: &RepoPath, bytes: &[u8]) -> Vec<settings::Entry> {
        settings::detect(path, bytes)
    }

    /// The revision's settings, `.kdelta.yaml`'s first. Argo CD builds every kustomization
    /// with argocd-cm's `kustomize.buildOptions`, so its load restrictor and managed-by label
    /// are offered to the kustomize targets as well; its flags kdelta does not apply are said
    /// here, once per revision (a source's own version's options, where they apply).
    fn apply_settings(
        opts: &mut Options,
        config: &Config,
        found: Vec<settings::Entry>,
        shared: &mut engine::Shared,
    ) -> Vec<Finding> {
        let (settings, mut findings) = settings::Settings::merge(config.argocd(), found);
        findings.extend(settings.resource_filters().1);
        let offered = &mut shared.kustomize_build_options;
        (offered.load_restrictor_none, offered.add_managed_by_label) = (false, false);
        if let Some(s) = settings.kustomize_build_options(None) {
            let (k, unknown) = settings::kustomize_options(&s.value);
            offered.load_restrictor_none = k.load_restrictor_none;
            offered.add_managed_by_label = k.add_managed_by_label;
            if !unknown.is_empty() {
                findings.push(settings::unknown_flags_finding(&unknown, &s.place));
            }
        }
        opts.settings = std::sync::Arc::new(settings);
        findings
    }

    fn render(&self, files: &Files, opts: &Options) -> EngineOutput<Details> {
        match self {
            Spec::AppSet { .. }
            | Spec::Built {
                kind: ManifestKind::ApplicationSet,
                ..
            } => target::render_appset(self, files, opts),
            Spec::Kustomized { dir } => kustomized::render(files, dir, opts),
            _ => target::render_app(self, files, opts),
        }
    }

    /// Every ApplicationSet and Application document of a YAML file that mentions
    /// `argoproj.io/`; a file that does but is not valid YAML is a warning (it may not be an
    /// Argo CD manifest at all). A file that kustomizations include is a part of them: its
    /// manifests are targets through each top-level one ([`Spec::Kustomized`]), not on their
    /// own (see the module's documentation).
    fn detect_file(
        snapshot: &dyn Snapshot,
        path: &RepoPath,
        _config: &Config,
        included_by: &[RepoPath],
    ) -> (Vec<Spec>, Vec<Finding>) {
        let Some(bytes) = crate::source::read_if_mentions(snapshot, path, "argoproj.io/") else {
            return (Vec::new(), Vec::new());
        };
        match yaml::parse_stream(&bytes, &ParseOptions::default()) {
            Ok(docs) => {
                let manifests: Vec<Spec> = docs.iter().filter_map(|d| manifest(d, path)).collect();
                if manifests.is_empty() || included_by.is_empty() {
                    return (manifests, Vec::new());
                }
                let kustomized = included_by
                    .iter()
                    .map(|dir| Spec::Kustomized { dir: dir.clone() })
                    .collect();
                (kustomized, Vec::new())
            }
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

/// True when an object read from `file` at `at` comes from a manifest of the repository that
/// discovery makes a target: standalone (`app:FILE#NAME`) or, when kustomizations include the
/// file, through them ([`Spec::Kustomized`]). That is an ApplicationSet or Application
/// document starting at `at` in a YAML file that is not a chart's template. Whatever a
/// kustomization makes of the document (another name, another namespace), it is that target.
/// A chart's output has no position (a fetched chart's names the file that names the chart),
/// so it is never such a manifest.
fn is_manifest_document(files: &Files, file: &RepoPath, at: yaml::Span) -> bool {
    if !at.is_known() {
        return false;
    }
    let name = file.file_name();
    if !(name.ends_with(".yaml") || name.ends_with(".yml")) {
        return false;
    }
    let mut dir = file.parent();
    loop {
        if files.kind(&dir.child("Chart.yaml")) == EntryKind::File {
            return false;
        }
        if dir.is_root() {
            break;
        }
        dir = dir.parent();
    }
    files
        .yaml_documents(file, &ParseOptions::default())
        .ok()
        .is_some_and(|parsed| {
            parsed.as_ref().as_ref().is_ok_and(|docs| {
                docs.iter()
                    .any(|d| d.span == at && manifest_kind(d).is_some())
            })
        })
}

/// The kind and name of an Argo CD manifest that is a target.
fn manifest_kind(doc: &Node) -> Option<(ManifestKind, &str)> {
    if !doc.str_at(&["apiVersion"])?.starts_with("argoproj.io/") {
        return None;
    }
    let kind = ManifestKind::of(doc.str_at(&["kind"])?)?;
    Some((kind, doc.str_at(&["metadata", "name"])?))
}

fn manifest(doc: &Node, path: &RepoPath) -> Option<Spec> {
    let (kind, name) = manifest_kind(doc)?;
    let (file, name) = (path.clone(), name.to_string());
    Some(match kind {
        ManifestKind::ApplicationSet => Spec::AppSet { file, name },
        ManifestKind::Application => Spec::Application { file, name },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Spec as _;
    use crate::source::{CountingSnapshot, MemorySnapshot};

    fn revision(files: &[(&str, &str)]) -> CountingSnapshot {
        let mut snapshot = MemorySnapshot::new();
        for (path, text) in files {
            snapshot.add_file(&RepoPath::new(path).unwrap(), text.as_bytes());
        }
        CountingSnapshot::new(snapshot)
    }

    #[test]
    fn a_blob_known_not_to_mention_argo_cd_is_not_read_again_at_the_other_revision() {
        // Content no other test uses, so that no earlier detection knows its id.
        let plain = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: not-argo-memo-test}\n";
        let app = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: memo-test}\nspec: {}\n";
        let files = [("plain.yaml", plain), ("app.yaml", app)];
        let config = Config::default();
        let detect = |snapshot: &CountingSnapshot, path: &str| {
            Spec::detect_file(snapshot, &RepoPath::new(path).unwrap(), &config, &[])
        };
        let base = revision(&files);
        assert!(detect(&base, "plain.yaml").0.is_empty());
        assert_eq!(detect(&base, "app.yaml").0.len(), 1);
        assert_eq!(base.reads(), 2);
        let head = revision(&files);
        assert!(detect(&head, "plain.yaml").0.is_empty());
        assert_eq!(detect(&head, "app.yaml").0.len(), 1);
        // Only the Argo CD manifest is read again.
        assert_eq!(head.reads(), 1);
        // Changed content is read.
        let changed = revision(&[(
            "plain.yaml",
            "kind: ConfigMap\nmetadata: {name: other-memo}\n",
        )]);
        assert!(detect(&changed, "plain.yaml").0.is_empty());
        assert_eq!(changed.reads(), 1);
    }
}
