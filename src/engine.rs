//! The seam between the engines (kustomize, Helm, Argo CD, plain manifests) and the code that
//! orchestrates them. An engine owns a spec type (what one of its targets is), its options, how
//! it detects targets in a snapshot, and how it renders one; [`crate::target`] lists the
//! engines in one dispatch table.

use crate::config::Config;
use crate::finding::Finding;
use crate::resource::Resource;
use crate::source::{DirEntry, EntryKind, Files, RepoPath, Snapshot};
use crate::yaml::Node;

/// What rendering one target gives.
#[derive(Clone, Debug)]
pub struct EngineOutput<D> {
    pub resources: Vec<Resource>,
    pub findings: Vec<Finding>,
    /// False when an error stopped the render (the resources are then incomplete).
    pub ok: bool,
    /// False when the output lacks something kdelta did not fetch or cannot render yet: a
    /// finding marked `incomplete` says what.
    pub complete: bool,
    /// What the engine knows beyond the resources (a Helm dependency tree, the generator
    /// parameters behind an Application), typed per engine.
    pub details: D,
    /// The reference tool's stdout, when it is not the resources printed by kdelta's writer
    /// (`helm template` keeps its `# Source:` comments and the templates' own layout).
    pub printed: Option<String>,
}

impl<D: Default> EngineOutput<D> {
    /// An output whose completeness follows from its findings.
    pub fn new(resources: Vec<Resource>, findings: Vec<Finding>, ok: bool) -> EngineOutput<D> {
        let complete = !findings.iter().any(|f| f.is_incomplete());
        EngineOutput {
            resources,
            findings,
            ok,
            complete,
            details: D::default(),
            printed: None,
        }
    }

    /// A failed render: no resources, the findings say why.
    pub fn failed(findings: Vec<Finding>) -> EngineOutput<D> {
        EngineOutput::new(Vec::new(), findings, false)
    }
}

impl<D> EngineOutput<D> {
    /// The same output with other details.
    pub fn map_details<E>(self, f: impl FnOnce(D) -> E) -> EngineOutput<E> {
        EngineOutput {
            resources: self.resources,
            findings: self.findings,
            ok: self.ok,
            complete: self.complete,
            details: f(self.details),
            printed: self.printed,
        }
    }
}

/// One directory as discovery sees it.
pub struct DirListing<'a> {
    pub snapshot: &'a dyn Snapshot,
    pub dir: &'a RepoPath,
    pub entries: &'a [DirEntry],
    pub config: &'a Config,
}

impl DirListing<'_> {
    /// True when the directory holds a file (not a directory) of that name.
    pub fn has_file(&self, name: &str) -> bool {
        self.entries
            .iter()
            .any(|e| e.name == name && e.kind != EntryKind::Dir)
    }
}

/// What an engine found in one directory.
pub struct Detected<S> {
    pub specs: Vec<S>,
    /// The directory belongs to this engine as a whole (a Helm chart: its templates and
    /// subcharts are part of it): no other engine looks at it and discovery does not descend.
    pub claims_dir: bool,
    /// The files and directories the directory's target renders as parts of itself (what a
    /// kustomization lists under `resources` and `components`): discovery tells
    /// [`Spec::detect_file`] which top-level targets include a file.
    pub lists: Vec<RepoPath>,
}

impl<S> Default for Detected<S> {
    fn default() -> Self {
        Detected {
            specs: Vec::new(),
            claims_dir: false,
            lists: Vec::new(),
        }
    }
}

/// What every engine renders for beside its own options: the cluster and this repository.
/// The command line sets it, [`Shared::complete`] adds `.kdelta.yaml`'s, and each engine
/// takes what it uses in [`Spec::configure`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Shared {
    /// The cluster's Kubernetes version: `--kube-version`, else `kubernetes.version`.
    pub kube_version: Option<String>,
    /// `kubernetes.overrides`: other versions by path or Argo CD destination (none when
    /// `--kube-version` was given, which is the whole run's).
    pub kube_overrides: Vec<crate::config::KubernetesOverride>,
    /// `--api-versions`: API versions the cluster serves beyond the built-in ones.
    pub api_versions: Vec<String>,
    /// This repository's URLs (its git remotes and `.kdelta.yaml`'s `repoURLs`), normalised,
    /// sorted: an Argo CD source or a Flux GitRepository naming one reads the revision under
    /// test.
    pub repo_urls: Vec<String>,
    /// The kustomize build options the deployment tool passes to every kustomization it
    /// builds, offered by the engine that reads the tool's settings in
    /// [`Spec::apply_settings`] (Argo CD's argocd-cm `kustomize.buildOptions`).
    pub kustomize_build_options: KustomizeBuildOptions,
}

/// kustomize build options a deployment tool imposes on the kustomizations it builds: the
/// kustomize engine builds its targets with them too, as the tool would.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct KustomizeBuildOptions {
    /// `--load-restrictor LoadRestrictionsNone`.
    pub load_restrictor_none: bool,
    /// Directories whose kustomizations are built without the load restrictor: the paths
    /// Flux's Kustomizations build (kustomize-controller always builds so).
    pub load_restrictor_none_below: Vec<RepoPath>,
    /// `--enable-managedby-label`.
    pub add_managed_by_label: bool,
}

/// The [`Spec::Setting`] of an engine that reads no settings from the repository's files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoSetting {}

impl Shared {
    /// Adds what `.kdelta.yaml` says (the command line's version wins). Applying it twice
    /// changes nothing.
    pub fn complete(&mut self, config: &Config) {
        self.repo_urls.extend(
            config
                .repo_urls()
                .iter()
                .map(|u| crate::fetch::url::normalize_repo_url(u)),
        );
        self.repo_urls.sort();
        self.repo_urls.dedup();
        if self.kube_version.is_none() {
            self.kube_version = config.kubernetes().version.clone();
            self.kube_overrides = config.kubernetes().overrides.clone();
        }
    }
}

/// A coverage count of a report's summary: how many targets of a kind rendered completely,
/// and why the others did not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coverage {
    /// Argo CD Applications (`summary.applications`).
    Applications,
    /// Flux's Kustomizations and HelmReleases (`summary.flux`).
    Flux,
}

/// One state of an object on its way through a render, for `kdelta explain`: the object as a
/// step left it, and where that step was configured.
#[derive(Clone, Copy, Debug)]
pub struct Stage<'a> {
    /// The file that configured the step (a kustomization).
    pub file: &'a RepoPath,
    /// The line of its entry there (0: unknown).
    pub line: u32,
    /// What ran: `resources`, `patches[0]`, `images[1] (ImageTagTransformer)`…
    pub step: &'a str,
    /// The object after the step.
    pub object: &'a Node,
}

/// One render of a target at one revision, as the engine's diff hooks see it.
#[derive(Debug)]
pub struct Render<'a, D> {
    pub resources: &'a [Resource],
    /// What the engine reported beyond the resources.
    pub details: &'a D,
    /// The file that defines the target, where a finding without a place of its own goes.
    pub file: &'a RepoPath,
}

impl<D> Clone for Render<'_, D> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<D> Copy for Render<'_, D> {}

impl<'a, D> Render<'a, D> {
    /// The same render with other details (one engine's, taken out of the dispatch table's).
    pub fn with_details<E>(self, details: &'a E) -> Render<'a, E> {
        Render {
            resources: self.resources,
            details,
            file: self.file,
        }
    }
}

/// Whether an object appears in a diff (it is rendered at head only) or disappears from it
/// (at base only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Appearance {
    Added,
    Removed,
}

/// Why some objects appear or disappear in a diff, as their engine knows (see
/// [`Annotations::reasons`]).
#[derive(Clone, Debug)]
pub struct Reason {
    pub appearance: Appearance,
    /// The objects' ids (`group/version/Kind/namespace/name`).
    pub ids: std::collections::HashSet<String>,
    /// `subchart redis pruned at head: condition redis.enabled=false`.
    pub why: String,
}

/// Fields an engine regenerates on every render (random passwords, generated certificates):
/// the diff does not show them as changes, and says so in one notice.
#[derive(Clone, Debug)]
pub struct Regenerated<'a> {
    /// Each render paired with a second render of the same revision: the fields that differ
    /// between the two are regenerated.
    pub renders: Vec<(&'a [Resource], &'a [Resource])>,
    /// What regenerates them (the non-deterministic functions the templates called), sorted.
    pub by: Vec<&'static str>,
    /// The rule of the notice.
    pub rule: crate::finding::Rule,
}

/// What an engine adds to the diff of two renders of one of its targets (see
/// [`Spec::annotate`]).
#[derive(Clone, Debug, Default)]
pub struct Annotations<'a> {
    /// Findings that explain the diff (a Helm subchart switched on or off, at its entry).
    pub findings: Vec<Finding>,
    /// Why objects appear or disappear; a later reason for an object replaces an earlier one.
    pub reasons: Vec<Reason>,
    pub regenerated: Option<Regenerated<'a>>,
}

/// A kind of target: the spec type of one engine. Implemented by every engine's spec and
/// listed once in [`crate::target`]'s dispatch table.
pub trait Spec: Sized {
    /// What changes the engine's output (part of every cache key).
    type Options;
    /// What the engine reports beyond resources.
    type Details: Default + Clone + std::fmt::Debug;
    /// What one file says of the tool's own configuration, which holds for the whole revision
    /// (an argocd-cm key, a config management plugin): see [`Spec::settings_in`]. An engine
    /// that reads none says [`NoSetting`].
    type Setting: Clone + std::fmt::Debug + PartialEq + Send;

    /// The kind in reports and `kdelta list`: `kustomize`, `helm`, `appset`, `app`,
    /// `flux-ks`, `flux-hr`, `directory`. Every kind an engine reports is written in its line
    /// of the `engines!` table too, where `tests/architecture.rs` reads them: code above the
    /// engines asks a property of the seam instead of comparing kinds.
    fn kind(&self) -> &'static str;

    /// The prefixes of this engine's target ids (`kustomize` of `kustomize:apps/web`): an
    /// argument that starts with one and a colon is a target id.
    const ID_PREFIXES: &'static [&'static str];

    /// The rule of a warning about two targets of one id, and who owns such an object (only
    /// the first is rendered): two ApplicationSets make one Application, two Flux roots of a
    /// cluster apply one Kustomization.
    const DUPLICATE: (crate::finding::Rule, &'static str) =
        (crate::finding::rules::APP_DUPLICATE, "Argo CD");

    /// The stable id used in reports: `kustomize:apps/web/overlays/prod`.
    fn id(&self) -> String;
    /// The path the target lives at (its directory or defining file).
    fn path(&self) -> &RepoPath;
    /// The file that defines the target, where reports anchor its annotations.
    fn defining_file(&self, snapshot: &dyn Snapshot) -> RepoPath;
    /// Renders the target, reading through `files`.
    fn render(&self, files: &Files, opts: &Self::Options) -> EngineOutput<Self::Details>;

    /// What `kdelta explain` says made `object`, one of this target's rendered objects,
    /// beyond the file it was read from: the chart, template and values of a Helm target, the
    /// generator behind an Application, what a Flux controller did. `details` are the render's.
    fn explain(&self, _details: &Self::Details, _object: &Resource) -> Vec<String> {
        Vec::new()
    }

    /// The states the object at `index` of a render's output passed through, oldest first (a
    /// traced kustomize build's steps), when the engine records them (see [`Spec::trace`]):
    /// `kdelta explain` shows the fields each step changed, and finds an object by the name
    /// it was first read with too.
    fn history(_details: &Self::Details, _index: usize) -> impl Iterator<Item = Stage<'_>> {
        std::iter::empty()
    }

    /// The documents of the text a render keeps as the tool printed it
    /// ([`EngineOutput::printed`]), as the tool splits them: a Secret's is printed again,
    /// its values redacted.
    fn printed_documents(printed: &str) -> Vec<&str> {
        vec![printed]
    }

    /// Options that make the render record what [`Spec::history`] reads, for `kdelta
    /// explain` (off otherwise: recording every step costs).
    fn trace(_opts: &mut Self::Options) {}

    /// Options for a render whose output is only printed (`kdelta render`): off with what only
    /// findings about fields and diffs need. An engine that keeps its tool's stdout
    /// ([`EngineOutput::printed`]) may then return as resources only the Secrets, which
    /// printing redacts.
    fn printing(_opts: &mut Self::Options) {}

    /// Options for a render whose regenerated values are not looked for (the second render of
    /// a pair, which the first one's probe covers).
    fn without_regenerated_probe(_opts: &mut Self::Options) {}

    /// Options for the renders of a diff: values the engine regenerates on every render (a
    /// chart's random passwords) are looked for, to be told apart from changes.
    fn diffing(_opts: &mut Self::Options) {}

    /// The objects a diff of two of this target's renders compares, when the engine leaves
    /// fields out of them (an Application's `ignoreDifferences`, as `head`, the details of the
    /// head's render, say): `(base, head)`, or `None` to compare them as rendered.
    fn compared(
        &self,
        _head: &Self::Details,
        _base_objects: &[Resource],
        _head_objects: &[Resource],
    ) -> Option<(Vec<Resource>, Vec<Resource>)> {
        None
    }

    /// What the engine knows of the diff between two renders of this target beyond the
    /// objects: Helm's subcharts switched on or off, the fields a chart regenerates.
    fn annotate<'a>(
        &self,
        _base: Render<'a, Self::Details>,
        _head: Render<'a, Self::Details>,
    ) -> Annotations<'a> {
        Annotations::default()
    }

    /// Why the object `id` appears in a diff (`details` are the head's render's) or
    /// disappears from it (the base's), when the render knows: the generator and parameters
    /// that make a generated Application. Asked for every added or removed object, of a
    /// target diffed, added or removed.
    fn reason(
        &self,
        _details: &Self::Details,
        _id: &str,
        _appearance: Appearance,
    ) -> Option<String> {
        None
    }

    /// The coverage count of the report's summary this target adds to, if any.
    fn coverage(&self) -> Option<Coverage> {
        None
    }

    /// The top-level keys of `.kdelta.yaml` that configure this engine's targets, beyond the
    /// shared ones (`charts` for a chart, `argocd` for Argo CD's manifests): `kdelta init`
    /// suggests a key when the repository has targets it concerns.
    const CONFIG_KEYS: &'static [&'static str] = &[];

    /// True when the target's path is a directory whose files, in it and below it, are the
    /// target's inputs (a kustomization's, a chart's): `kdelta init` suggests no
    /// plain-manifest directory there.
    const PATH_IS_INPUT_DIR: bool = false;

    /// True when the render takes a release name from the command line, as `helm template
    /// NAME CHART` does: `kdelta render NAME CHART` names the release NAME.
    const TAKES_RELEASE_NAME: bool = false;

    /// The file names that make a directory one of this engine's targets on their own (a
    /// kustomization, `Chart.yaml`): `kdelta render` renders such a directory outside the
    /// repository, as `kubectl kustomize` and `helm template` do.
    const MARKER_FILES: &'static [&'static str] = &[];

    /// The file names that make a directory this engine's as a whole, as
    /// [`Detected::claims_dir`] says of it (`Chart.yaml`): the walk for a revision's settings
    /// alone, which detects no targets, does not descend there either.
    const CLAIMING_FILES: &'static [&'static str] = &[];

    /// True when the render reads the revision's settings (what [`Spec::settings_in`] finds,
    /// of any engine: argocd-cm's kustomize build options apply to kustomizations too), which
    /// finding walks the whole revision: `kdelta render` of a target that does not skips
    /// that walk.
    const READS_REVISION_SETTINGS: bool = true;

    /// Takes into the engine's options what `.kdelta.yaml` and the run's [`Shared`] settings
    /// say for it. Applied again once the engines have offered one another settings (see
    /// [`Spec::apply_settings`]), so applying it twice must change nothing more than once.
    fn configure(_opts: &mut Self::Options, _config: &Config, _shared: &Shared) {}

    /// What the YAML file `path`, whose bytes are `bytes`, says of the tool's own
    /// configuration (Argo CD's argocd-cm, its plugins), which holds for the whole revision.
    /// Discovery asks every engine about every YAML file it walks, and about the YAML files
    /// of a directory an engine claims (a chart's own values), reading each file once.
    fn settings_in(_path: &RepoPath, _bytes: &[u8]) -> Vec<Self::Setting> {
        Vec::new()
    }

    /// Takes into the engine's options the settings discovery found in a revision (`found`,
    /// in path order) with what `.kdelta.yaml` says of them, and offers the other engines
    /// what concerns them in `shared` (which every engine's [`Spec::configure`] then takes);
    /// returns what is wrong with the settings. Called once per revision, engines in table
    /// order.
    fn apply_settings(
        _opts: &mut Self::Options,
        _config: &Config,
        _found: Vec<Self::Setting>,
        _shared: &mut Shared,
    ) -> Vec<Finding> {
        Vec::new()
    }

    /// How long a render takes, roughly, for scheduling: the costliest targets start first so
    /// that no long render is left alone at the end (a Helm chart can take many times as long
    /// as an overlay: kubeflow's katib chart, started last, took a third of the wall time).
    fn cost(&self) -> u8 {
        0
    }

    /// The targets this one generates (an ApplicationSet's Applications), found in the expand
    /// phase between discovery and rendering so that they are rendered and diffed like any
    /// other target.
    fn expand(&self, _files: &Files, _opts: &Self::Options) -> (Vec<Self>, Vec<Finding>) {
        (Vec::new(), Vec::new())
    }

    /// The directories every file the render can read lies in (a kustomization's directory
    /// and the bases and components it includes; a chart's directory), for `--changed-only`:
    /// a target none of whose directories holds a changed path renders as before. `None`
    /// when the engine cannot tell without rendering (the target is then always rendered).
    /// Reads go through `files`, so the files parsed here are parsed once for the renders too.
    fn input_dirs(&self, _files: &Files, _opts: &Self::Options) -> Option<Vec<RepoPath>> {
        None
    }

    /// The targets of this kind discovery keeps, once every file is detected: an engine whose
    /// targets depend on one another (a Flux Kustomization that another one of the
    /// repository applies is not a starting point) decides here, reading `snapshot`.
    fn settle(_snapshot: &dyn Snapshot, specs: Vec<Self>) -> (Vec<Self>, Vec<Finding>) {
        (specs, Vec::new())
    }

    /// The target `kdelta render DIR` renders when `dir` is one of this engine's, whatever
    /// the configuration selects (a kustomization's directory, a component's too: building it
    /// says why it cannot be built alone). The engines are asked in table order; the first
    /// that answers renders the directory.
    fn at_dir(_snapshot: &dyn Snapshot, _dir: &RepoPath) -> Option<Self> {
        None
    }

    /// Targets of this kind in a directory (discovery asks every engine, in table order).
    fn detect_dir(_listing: &DirListing) -> Detected<Self> {
        Detected::default()
    }
    /// Targets of this kind defined in a YAML file; findings for files that look like such
    /// manifests but cannot be read. `included_by` holds the directories of the top-level
    /// targets the file is a part of: those that include it (see [`Detected::lists`]),
    /// directly or through targets they include, and that no target includes.
    fn detect_file(
        _snapshot: &dyn Snapshot,
        _path: &RepoPath,
        _config: &Config,
        _included_by: &[RepoPath],
    ) -> (Vec<Self>, Vec<Finding>) {
        (Vec::new(), Vec::new())
    }
}
