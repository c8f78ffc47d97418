//! Flux: Kustomizations and HelmReleases rendered as its controllers apply them.
//!
//! Flux starts from the Kustomizations a cluster is bootstrapped with (`flux-system`, which
//! builds `clusters/NAME`) and applies what each builds: more Kustomizations, HelmReleases,
//! sources, the ConfigMaps and Secrets their substitutions and values read. Discovery finds
//! every Kustomization document of the repository and keeps those no other Kustomization of
//! the repository builds: the roots ([`Spec::Root`], `flux-ks:NAMESPACE/NAME@PATH`, where PATH
//! is the directory the root builds, which tells clusters apart). A root's expansion walks
//! its graph ([`graph`]) to a fixed point, each Kustomization built from its source
//! ([`kustomization`]) as its parent applied it (namespaced, patched, substituted); every
//! Kustomization and HelmRelease the walk meets is a target ([`Spec::Applied`],
//! `flux-ks:…@PATH`, `flux-hr:…@PATH`). A Kustomization's target holds what it applies; a
//! HelmRelease's, its chart's objects ([`helmrelease`]).

mod artifacts;
pub mod envsubst;
mod graph;
mod helmrelease;
mod ignore;
mod kustomization;
mod sources;
pub mod values;

use crate::config::Config;
use crate::engine::{self, EngineOutput};
use crate::finding::{Finding, Severity};
use crate::resource::Resource;
use crate::source::{yaml_finding, Files, RepoPath, Snapshot};
use crate::yaml::{self, Node, ParseOptions};

/// The API group of Flux's Kustomization.
pub const KUSTOMIZE_GROUP: &str = "kustomize.toolkit.fluxcd.io";
/// The API group of Flux's HelmRelease.
pub const HELM_GROUP: &str = "helm.toolkit.fluxcd.io";

/// A Flux object that is a target.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Spec {
    /// A Kustomization of the repository that no other Kustomization of the repository builds
    /// (`flux-ks:NAMESPACE/NAME@PATH`): where Flux starts.
    Root {
        file: RepoPath,
        namespace: String,
        name: String,
        /// The directory it builds, as written (`clusters/staging`; `.` for the root).
        path: String,
        /// The directories of the repository it builds, when discovery can tell (see
        /// [`builds_in_repository`]): its path, then its `spec.components`. [`Spec::settle`]
        /// compares them, with what their kustomizations reach outside them.
        builds: Vec<RepoPath>,
    },
    /// A Kustomization or HelmRelease that a root's graph applies.
    Applied {
        root: Box<Spec>,
        kind: Kind,
        namespace: String,
        name: String,
        /// The file the object is written in (for a remote artifact's, the file of the
        /// Kustomization that applies it): `kdelta render FILE` names it, reports anchor there.
        file: RepoPath,
    },
}

/// The kinds of Flux objects that are targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Kustomization,
    HelmRelease,
}

impl Kind {
    /// The kind of a Flux object (group and kind), if it is a target's.
    pub fn of(api_version: &str, kind: &str) -> Option<Kind> {
        let group = api_version.split('/').next().unwrap_or_default();
        match (group, kind) {
            (KUSTOMIZE_GROUP, "Kustomization") => Some(Kind::Kustomization),
            (HELM_GROUP, "HelmRelease") => Some(Kind::HelmRelease),
            _ => None,
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            Kind::Kustomization => "flux-ks",
            Kind::HelmRelease => "flux-hr",
        }
    }
}

/// What changes Flux's rendering.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Options {
    /// This repository's URLs, normalised (a GitRepository naming one is read at the revision
    /// under test).
    pub repo_urls: Vec<String>,
    /// The cluster's Kubernetes version and extra API versions, for `.Capabilities`.
    pub kube_version: Option<String>,
    pub api_versions: Vec<String>,
    /// `kubernetes.overrides`: other versions for the HelmReleases of some paths.
    pub kube_overrides: Vec<crate::config::KubernetesOverride>,
}

/// What a Flux target's render knows beyond its objects: what the controller did to them
/// (`kdelta explain`).
#[derive(Clone, Debug, Default)]
pub struct Details {
    pub steps: Vec<String>,
    /// A HelmRelease's CRDs from the charts' `crds/` directories, by name, between its
    /// render and post-rendering.
    crds: std::collections::BTreeSet<String>,
}

impl Spec {
    fn root(&self) -> &Spec {
        match self {
            Spec::Root { .. } => self,
            Spec::Applied { root, .. } => root,
        }
    }

    /// The directories a root builds in the repository, when discovery can tell.
    fn builds(&self) -> &[RepoPath] {
        match self {
            Spec::Root { builds, .. } => builds,
            Spec::Applied { .. } => &[],
        }
    }

    /// The file the target's object is written in.
    fn file(&self) -> &RepoPath {
        match self {
            Spec::Root { file, .. } | Spec::Applied { file, .. } => file,
        }
    }

    fn cluster(&self) -> &str {
        match self.root() {
            Spec::Root { path, .. } => path,
            Spec::Applied { .. } => unreachable!("an applied target's root is a root"),
        }
    }

    /// The target's kind and object name.
    fn object(&self) -> (Kind, &str, &str) {
        match self {
            Spec::Root {
                namespace, name, ..
            } => (Kind::Kustomization, namespace, name),
            Spec::Applied {
                kind,
                namespace,
                name,
                ..
            } => (*kind, namespace, name),
        }
    }
}

impl engine::Spec for Spec {
    type Options = Options;
    type Details = Details;
    /// The directory of this repository a Kustomization of the revision builds.
    type Setting = RepoPath;
    const ID_PREFIXES: &'static [&'static str] = &["flux-ks", "flux-hr"];
    const DUPLICATE: (crate::finding::Rule, &'static str) =
        (crate::finding::rules::FLUX_DUPLICATE, "Flux");

    fn kind(&self) -> &'static str {
        self.object().0.prefix()
    }

    fn coverage(&self) -> Option<engine::Coverage> {
        Some(engine::Coverage::Flux)
    }

    /// Which controller applied the object, and what it did on the way.
    fn explain(&self, details: &Details, _object: &Resource) -> Vec<String> {
        if details.steps.is_empty() {
            return Vec::new();
        }
        let controller = match self.object().0 {
            Kind::HelmRelease => "helm-controller",
            Kind::Kustomization => "kustomize-controller",
        };
        vec![format!(
            "applied by Flux's {controller}: {}",
            details.steps.join("; ")
        )]
    }

    /// A HelmRelease renders a chart; a Kustomization's walk is shared.
    fn cost(&self) -> u8 {
        match self.object().0 {
            Kind::HelmRelease => 2,
            Kind::Kustomization => 1,
        }
    }

    fn id(&self) -> String {
        let (kind, namespace, name) = self.object();
        format!("{}:{namespace}/{name}@{}", kind.prefix(), self.cluster())
    }

    fn path(&self) -> &RepoPath {
        self.file()
    }

    /// The file the object is written in.
    fn defining_file(&self, _snapshot: &dyn Snapshot) -> RepoPath {
        self.file().clone()
    }

    /// A root expands into every Kustomization and HelmRelease its graph applies.
    fn expand(&self, files: &Files, opts: &Options) -> (Vec<Spec>, Vec<Finding>) {
        let Spec::Root { .. } = self else {
            return (Vec::new(), Vec::new());
        };
        let walked = graph::walk(self, files, opts);
        let applied = walked
            .targets()
            .filter(|(kind, namespace, name, _)| {
                self.object() != (*kind, namespace.as_str(), name.as_str())
            })
            .map(|(kind, namespace, name, file)| Spec::Applied {
                root: Box::new(self.clone()),
                kind,
                namespace,
                name,
                file,
            })
            .collect();
        (applied, walked.findings.clone())
    }

    /// The directories the Kustomizations of a file build in this repository: the path of a
    /// GitRepository's, the places the Flux operator's sync artifact may be for its.
    fn settings_in(path: &RepoPath, bytes: &[u8]) -> Vec<RepoPath> {
        if memchr::memmem::find(bytes, KUSTOMIZE_GROUP.as_bytes()).is_none() {
            return Vec::new();
        }
        let Ok(docs) = yaml::parse_stream(bytes, &ParseOptions::default()) else {
            return Vec::new();
        };
        docs.iter()
            .filter(|d| {
                Kind::of(
                    d.str_at(&["apiVersion"]).unwrap_or_default(),
                    d.str_at(&["kind"]).unwrap_or_default(),
                ) == Some(Kind::Kustomization)
            })
            .flat_map(|d| {
                let namespace = d.str_at(&["metadata", "namespace"]).unwrap_or("default");
                let source = d
                    .get_path(&["spec", "sourceRef"])
                    .and_then(|r| sources::Ref::at(r, "GitRepository", namespace));
                let dir = d.str_at(&["spec", "path"]).unwrap_or_default();
                match source {
                    _ if dir.contains("${") => Vec::new(),
                    Some(s) if s.kind == "GitRepository" => {
                        sources::clean_path(dir).into_iter().collect()
                    }
                    Some(s) => sources::operator_artifact_candidates(&s, path, dir)
                        .into_iter()
                        .map(|(_, dir)| dir)
                        .collect(),
                    None => Vec::new(),
                }
            })
            .collect()
    }

    /// kustomize-controller builds every kustomization below a Kustomization's path
    /// without the load restrictor: the kustomize targets there build so too, as Argo CD's
    /// `kustomize.buildOptions` reach the kustomize targets of its repositories.
    fn apply_settings(
        _opts: &mut Options,
        _config: &Config,
        mut found: Vec<RepoPath>,
        shared: &mut engine::Shared,
    ) -> Vec<Finding> {
        found.sort();
        found.dedup();
        shared.kustomize_build_options.load_restrictor_none_below = found;
        Vec::new()
    }

    fn configure(opts: &mut Options, _config: &Config, shared: &engine::Shared) {
        // GitRepositories of this repository are read at the revision; charts render for
        // the cluster.
        opts.repo_urls = shared.repo_urls.clone();
        opts.kube_version = shared.kube_version.clone();
        opts.kube_overrides = shared.kube_overrides.clone();
        opts.api_versions = shared.api_versions.clone();
    }

    fn render(&self, files: &Files, opts: &Options) -> EngineOutput<Details> {
        let walked = graph::walk(self.root(), files, opts);
        let (kind, namespace, name) = self.object();
        match kind {
            Kind::Kustomization => walked.kustomization_output(namespace, name),
            Kind::HelmRelease => match walked.helm_release(namespace, name) {
                Some(hr) => {
                    let mut out = helmrelease::render(hr, &walked, files, opts);
                    if let Some(found) = walked.release_findings.get(&(namespace.to_string(), name.to_string())) {
                        out.findings.extend(found.iter().cloned());
                    }
                    out
                }
                None => EngineOutput::failed(vec![Finding::error(
                    crate::finding::rules::FLUX_INVALID,
                    format!("HelmRelease {namespace}/{name} is no longer applied by this cluster's Kustomizations"),
                )
                .in_file(self.file().to_string())]),
            },
        }
    }

    /// Every Kustomization document of a YAML file that mentions Flux's group; the roots
    /// among them are chosen by [`Spec::settle`].
    fn detect_file(
        snapshot: &dyn Snapshot,
        path: &RepoPath,
        _config: &Config,
        _included_by: &[RepoPath],
    ) -> (Vec<Spec>, Vec<Finding>) {
        let bootstrap = bootstrap_root(path);
        let bytes = match &bootstrap {
            // A bootstrap placeholder may hold nothing of Flux's.
            Some(_) => snapshot.read(path).ok(),
            None => crate::source::read_if_mentions(snapshot, path, KUSTOMIZE_GROUP),
        };
        let Some(bytes) = bytes else {
            return (Vec::new(), Vec::new());
        };
        match yaml::parse_stream(&bytes, &ParseOptions::default()) {
            Ok(docs) => {
                let mut found: Vec<Spec> = docs
                    .iter()
                    .filter_map(|d| candidate(d, path, snapshot))
                    .collect();
                if let Some(b) = bootstrap {
                    if !found.iter().any(|c| c.object() == b.object()) {
                        found.push(b);
                    }
                }
                (found, Vec::new())
            }
            Err(e) => {
                let mut f = yaml_finding(&e, path);
                f.severity = Severity::Warning;
                f.message = format!(
                    "looks like a Flux manifest but is not valid YAML: {}",
                    f.message
                );
                (Vec::new(), vec![f])
            }
        }
    }

    /// The roots: Kustomizations whose file no other Kustomization builds — lies under its
    /// path or components (of a GitRepository source, which is this repository for all
    /// discovery can tell), or is listed by a kustomization there. A directory
    /// `clusters/NAME` (Flux's layout) holding Kustomizations that nothing builds is a
    /// cluster whose sync the Flux operator or a bootstrap outside the repository makes: it
    /// is a root of its own (`flux-ks:flux-system/flux-system@…/clusters/NAME`).
    fn settle(snapshot: &dyn Snapshot, mut specs: Vec<Spec>) -> (Vec<Spec>, Vec<Finding>) {
        let mut reach = Reach::new(snapshot);
        let built: Vec<RepoPath> = specs.iter().flat_map(|s| reach.of(s.builds())).collect();
        let mut clusters: Vec<RepoPath> = specs
            .iter()
            .filter_map(|s| cluster_dir(s.file()))
            .filter(|dir| !built.iter().any(|b| dir.starts_with(b)))
            .collect();
        clusters.sort();
        clusters.dedup();
        specs.extend(clusters.into_iter().map(|dir| Spec::Root {
            path: sources::shown_path(&dir),
            builds: vec![dir.clone()],
            file: dir,
            namespace: "flux-system".into(),
            name: "flux-system".into(),
        }));
        let reached: Vec<Vec<RepoPath>> = specs.iter().map(|s| reach.of(s.builds())).collect();
        let roots = specs
            .iter()
            .enumerate()
            .filter(|(i, s)| {
                !reached
                    .iter()
                    .enumerate()
                    .any(|(j, paths)| j != *i && paths.iter().any(|p| s.file().starts_with(p)))
            })
            .map(|(_, s)| s.clone())
            .collect();
        (roots, Vec::new())
    }
}

/// A Kustomization document as a root candidate. The id's PATH is the directory it builds
/// when that is a directory of the repository, else the directory of its file.
fn candidate(doc: &Node, file: &RepoPath, snapshot: &dyn Snapshot) -> Option<Spec> {
    let kind = Kind::of(doc.str_at(&["apiVersion"])?, doc.str_at(&["kind"])?)?;
    if kind != Kind::Kustomization {
        return None;
    }
    let builds = builds_in_repository(doc, file, snapshot);
    Some(Spec::Root {
        file: file.clone(),
        namespace: doc
            .str_at(&["metadata", "namespace"])
            .unwrap_or("default")
            .to_string(),
        name: doc.str_at(&["metadata", "name"])?.to_string(),
        path: sources::shown_path(builds.first().unwrap_or(&file.parent())),
        builds,
    })
}

/// The file name `flux bootstrap` gives the cluster's own sync objects, in
/// `PATH/flux-system/`.
const BOOTSTRAP_FILE: &str = "gotk-sync.yaml";

/// The root `flux bootstrap` makes for `PATH/flux-system/gotk-sync.yaml`: the Kustomization
/// `flux-system/flux-system` building PATH from the GitRepository `flux-system`. Many
/// repositories commit the file without it (a placeholder; the Flux operator's
/// `FluxInstance` makes the same objects), so it is implied.
fn bootstrap_root(file: &RepoPath) -> Option<Spec> {
    let dir = file.parent();
    (file.file_name() == BOOTSTRAP_FILE && dir.file_name() == "flux-system").then(|| Spec::Root {
        file: file.clone(),
        namespace: "flux-system".into(),
        name: "flux-system".into(),
        path: sources::shown_path(&dir.parent()),
        builds: vec![dir.parent()],
    })
}

/// The Kustomization a root implies where the repository holds none (see [`bootstrap_root`]
/// and [`Spec::settle`]): `flux-system/flux-system` building its path from the GitRepository
/// `flux-system`, as `flux bootstrap` and the Flux operator make it.
pub(crate) fn implied_object(root: &Spec) -> Option<Node> {
    let Spec::Root {
        name,
        namespace,
        path,
        ..
    } = root
    else {
        return None;
    };
    if name != "flux-system" || namespace != "flux-system" {
        return None;
    }
    let text = format!(
        "apiVersion: {KUSTOMIZE_GROUP}/v1\nkind: Kustomization\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 10m0s\n  path: ./{path}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
    );
    yaml::parse_one(text.as_bytes(), &ParseOptions::default()).ok()
}

/// The `…/clusters/NAME` directory a file lies in, if any.
fn cluster_dir(file: &RepoPath) -> Option<RepoPath> {
    let mut dir = file.parent();
    while !dir.is_root() {
        if dir.parent().file_name() == "clusters" {
            return Some(dir);
        }
        dir = dir.parent();
    }
    None
}

/// The directories of the repository a Kustomization written in `file` builds, when
/// discovery can tell (its source is a GitRepository, or the Flux operator's sync artifact
/// found in the repository, and its path holds no variable): its path, then its
/// `spec.components` (Flux lists them in the path's kustomization, relative to it).
fn builds_in_repository(doc: &Node, file: &RepoPath, snapshot: &dyn Snapshot) -> Vec<RepoPath> {
    let namespace = doc.str_at(&["metadata", "namespace"]).unwrap_or("default");
    let Some(source) = doc
        .get_path(&["spec", "sourceRef"])
        .and_then(|r| sources::Ref::at(r, "GitRepository", namespace))
    else {
        return Vec::new();
    };
    let path = doc.str_at(&["spec", "path"]).unwrap_or_default();
    if path.contains("${") {
        return Vec::new();
    }
    let dir = match source.kind.as_str() {
        "GitRepository" => sources::clean_path(path),
        _ => sources::operator_artifact_path(&source, file, path, |d| {
            snapshot.kind(d) == crate::source::EntryKind::Dir
        })
        .map(|(_, dir)| dir),
    };
    let Some(dir) = dir else {
        return Vec::new();
    };
    let components = doc
        .get_path(&["spec", "components"])
        .and_then(Node::as_seq)
        .into_iter()
        .flatten()
        .filter_map(Node::as_str)
        .filter(|c| !c.contains("${"))
        .filter_map(|c| dir.join(c).ok());
    std::iter::once(dir.clone()).chain(components).collect()
}

/// What building directories reads of the repository, by discovery's reading: the
/// directories, and what the kustomizations below them list outside them (resources,
/// bases, components), transitively, as kustomize-controller builds without a load
/// restrictor. Kept per directory set, as roots share them.
struct Reach<'a> {
    snapshot: &'a dyn Snapshot,
    known: std::collections::HashMap<Vec<RepoPath>, Vec<RepoPath>>,
}

impl<'a> Reach<'a> {
    fn new(snapshot: &'a dyn Snapshot) -> Reach<'a> {
        Reach {
            snapshot,
            known: Default::default(),
        }
    }

    fn of(&mut self, dirs: &[RepoPath]) -> Vec<RepoPath> {
        if let Some(r) = self.known.get(dirs) {
            return r.clone();
        }
        if dirs.iter().any(RepoPath::is_root) {
            // The whole repository: nothing is outside it.
            return dirs.to_vec();
        }
        let mut reached: Vec<RepoPath> = dirs.to_vec();
        let mut queue: Vec<RepoPath> = dirs.to_vec();
        while let Some(dir) = queue.pop() {
            for file in self.kustomization_files(&dir) {
                let Ok(bytes) = self.snapshot.read(&file) else {
                    continue;
                };
                let Ok(doc) = yaml::parse_one(&bytes, &ParseOptions::default()) else {
                    continue;
                };
                for entry in crate::kustomize::included_paths(&doc, &file.parent()) {
                    if reached.iter().any(|r| entry.starts_with(r)) {
                        continue;
                    }
                    if self.snapshot.kind(&entry) == crate::source::EntryKind::Dir {
                        queue.push(entry.clone());
                    }
                    reached.push(entry);
                }
            }
        }
        self.known.insert(dirs.to_vec(), reached.clone());
        reached
    }

    /// The kustomization files in `dir` and below it.
    fn kustomization_files(&self, dir: &RepoPath) -> Vec<RepoPath> {
        let mut out = Vec::new();
        let mut stack = vec![dir.clone()];
        while let Some(d) = stack.pop() {
            for entry in self.snapshot.list(&d).unwrap_or_default() {
                match entry.kind {
                    crate::source::EntryKind::Dir => stack.push(d.child(&entry.name)),
                    crate::source::EntryKind::File
                        if crate::kustomize::KUSTOMIZATION_FILES.contains(&entry.name.as_str()) =>
                    {
                        out.push(d.child(&entry.name))
                    }
                    _ => {}
                }
            }
        }
        out
    }
}

/// A ConfigMap's `data`, or a Secret's `data` decoded and its `stringData` (the API server
/// folds it into `data`), by key: what `substituteFrom` and `valuesFrom` read.
pub(crate) fn object_data(object: &Node) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let secret = object.str_at(&["kind"]) == Some("Secret");
    if let Some(data) = object.get("data").and_then(Node::as_map) {
        for (k, v) in data {
            let (Some(k), Some(v)) = (k.as_str(), v.as_scalar()) else {
                continue;
            };
            let value = if secret {
                // As the API server stores it: a value kustomize generated is base64 wrapped
                // at 70 characters.
                match crate::go::json::decode_bytes(v.text.trim()) {
                    Some(b) => String::from_utf8_lossy(&b).into_owned(),
                    None => continue,
                }
            } else {
                v.text.clone()
            };
            out.push((k.to_string(), value));
        }
    }
    if secret {
        if let Some(data) = object.get("stringData").and_then(Node::as_map) {
            for (k, v) in data {
                if let (Some(k), Some(v)) = (k.as_str(), v.as_scalar()) {
                    out.push((k.to_string(), v.text.clone()));
                }
            }
        }
    }
    out
}

/// `commonMetadata`'s labels and annotations on an object's top-level metadata (over its
/// own), as kustomize-controller and helm-controller set them.
fn set_common_metadata(node: &mut Node, common: Option<&Node>) {
    let Some(common) = common else { return };
    for key in ["labels", "annotations"] {
        if let Some(entries) = common.get(key).and_then(Node::as_map) {
            let target = node.map_at("metadata").map_at(key);
            for (k, v) in entries {
                if let Some(k) = k.as_str() {
                    target.set(k, v.clone());
                }
            }
        }
    }
}
