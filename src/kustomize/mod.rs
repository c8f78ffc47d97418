//! Native `kustomize build`, faithful to kustomize v5.5.0 byte for byte (see
//! ../shared/reference/kustomize.md). `target.rs` holds the pipeline; each builtin transformer
//! has its own file under `transform/`.

mod builtins;
mod crds;
mod documents;
mod error;
mod exec;
mod fieldspec;
#[doc(hidden)]
pub mod fuzz;
mod generate;
mod gotype;
mod hash;
mod kid;
mod loader;
pub mod openapi;
mod origin;
pub mod pathmatch;
mod plugins;
mod printable;
mod remote;
mod res;
mod resmap;
mod schema;
mod selector;
pub mod smp;
mod smp_bridge;
mod target;
mod tconfig;
pub mod trace;
pub mod transform;
mod types;

pub use error::KError;
pub use exec::PluginEnv;

use crate::engine::{self, Detected, DirListing, EngineOutput};
use crate::finding::{rules, Finding, Incomplete};
use crate::resource::Resource;
use crate::source::{EntryKind, Files, RepoPath, Snapshot};
use crate::yaml::{self, ParseOptions};
use loader::Loader;
use target::{Acc, Builder};

/// The file names kustomize accepts, in its order of preference.
pub const KUSTOMIZATION_FILES: [&str; 3] =
    ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// A kustomize target: a kustomization directory (`kustomize build DIR`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Spec {
    pub dir: RepoPath,
}

/// The `kustomize build` flags that change its output (part of every cache key).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Options {
    /// `--load-restrictor none`: allow reading files outside a kustomization's root.
    pub load_restrictor_none: bool,
    /// Directories below which kustomizations build as with `--load-restrictor none` (what
    /// Flux's Kustomizations build).
    pub load_restrictor_none_below: Vec<RepoPath>,
    /// `--reorder none` (keep input order) instead of the legacy kind order.
    pub reorder_none: bool,
    /// Run exec plugins — off unless the user passed the flag.
    pub enable_exec_plugins: bool,
    /// Where exec plugins are looked for (the environment kustomize reads); used only with
    /// `enable_exec_plugins`.
    pub plugin_env: PluginEnv,
    /// Add the `app.kubernetes.io/managed-by` label to every object, as
    /// `buildMetadata: [managedByLabel]` does (kustomize's deprecated `--enable-managedby-label`).
    pub add_managed_by_label: bool,
    /// Record every object's state after each build step (`kdelta explain`).
    pub trace: bool,
    /// `--helm-kube-version` and `--helm-api-versions` (kustomize v5.3 and later): when set,
    /// they replace every helmCharts entry's own `kubeVersion` and `apiVersions`, as
    /// HelmChartInflationGenerator's config does. Argo CD passes its destination cluster's.
    pub helm_kube_version: Option<String>,
    pub helm_api_versions: Vec<String>,
}

impl Options {
    /// These options with what a deployment tool passes to every kustomization it builds
    /// (its flags are added to kdelta's own).
    pub fn impose(&mut self, imposed: &engine::KustomizeBuildOptions) {
        self.load_restrictor_none |= imposed.load_restrictor_none;
        self.add_managed_by_label |= imposed.add_managed_by_label;
        for dir in &imposed.load_restrictor_none_below {
            if !self.load_restrictor_none_below.contains(dir) {
                self.load_restrictor_none_below.push(dir.clone());
            }
        }
    }

    /// True when the kustomization in `dir` builds with the load restrictor `rootOnly`.
    pub fn root_only(&self, dir: &RepoPath) -> bool {
        !self.load_restrictor_none
            && !self
                .load_restrictor_none_below
                .iter()
                .any(|below| dir.starts_with(below))
    }
}

impl engine::Spec for Spec {
    type Options = Options;
    type Details = trace::Trace;
    type Setting = engine::NoSetting;
    const ID_PREFIXES: &'static [&'static str] = &["kustomize"];
    /// A kustomization reads files below its directory (with the default load restrictor).
    const PATH_IS_INPUT_DIR: bool = true;
    const MARKER_FILES: &'static [&'static str] = &KUSTOMIZATION_FILES;

    fn kind(&self) -> &'static str {
        "kustomize"
    }

    fn id(&self) -> String {
        format!("kustomize:{}", self.dir)
    }

    fn path(&self) -> &RepoPath {
        &self.dir
    }

    fn defining_file(&self, snapshot: &dyn Snapshot) -> RepoPath {
        KUSTOMIZATION_FILES
            .iter()
            .map(|f| self.dir.child(f))
            .find(|p| snapshot.kind(p) == EntryKind::File)
            .unwrap_or_else(|| self.dir.child("kustomization.yaml"))
    }

    fn render(&self, files: &Files, opts: &Options) -> EngineOutput<trace::Trace> {
        build(files, &self.dir, opts)
    }

    /// The object's state after every step that left it, from the build's trace.
    fn history(trace: &trace::Trace, index: usize) -> impl Iterator<Item = engine::Stage<'_>> {
        trace.history(index)
    }

    fn trace(opts: &mut Options) {
        opts.trace = true;
    }

    fn at_dir(snapshot: &dyn Snapshot, dir: &RepoPath) -> Option<Spec> {
        KUSTOMIZATION_FILES
            .iter()
            .any(|f| snapshot.kind(&dir.child(f)) == EntryKind::File)
            .then(|| Spec { dir: dir.clone() })
    }

    /// The build options the deployment tool imposes (argocd-cm's `kustomize.buildOptions`,
    /// offered by the Argo CD engine): kustomizations build as the tool builds them.
    fn configure(opts: &mut Options, _config: &crate::config::Config, shared: &engine::Shared) {
        opts.impose(&shared.kustomize_build_options);
    }

    /// The kustomization's directory and those of every kustomization it includes (resources,
    /// components, generator and transformer directories), transitively: with the default
    /// load restrictor a kustomization reads files only below its own directory. Unknown with
    /// `--load-restrictor none` or exec plugins (they read anywhere).
    fn input_dirs(&self, files: &Files, opts: &Options) -> Option<Vec<RepoPath>> {
        if !opts.root_only(&self.dir) || opts.enable_exec_plugins {
            return None;
        }
        let mut dirs: Vec<RepoPath> = Vec::new();
        let mut stack = vec![self.dir.clone()];
        while let Some(dir) = stack.pop() {
            if dirs.contains(&dir) {
                continue;
            }
            dirs.push(dir.clone());
            let Some(file) = KUSTOMIZATION_FILES
                .iter()
                .map(|f| dir.child(f))
                .find(|p| files.kind(p) == EntryKind::File)
            else {
                continue;
            };
            // An unreadable kustomization fails the build: render it to say so.
            let stream = files.yaml_stream(&file, &ParseOptions::default()).ok()?;
            let doc = stream.as_ref().as_ref().ok()?.first()?;
            for key in [
                "resources",
                "bases",
                "components",
                "generators",
                "transformers",
                "validators",
            ] {
                let entries = doc.get(key).and_then(yaml::Node::as_seq);
                for entry in entries.into_iter().flatten().filter_map(yaml::Node::as_str) {
                    if loader::is_remote_file(entry) || loader::is_remote_target(entry) {
                        continue;
                    }
                    let path = dir.join(entry).ok()?;
                    if files.kind(&path) == EntryKind::Dir {
                        stack.push(files.canonical(&path).unwrap_or(path));
                    }
                }
            }
        }
        Some(dirs)
    }

    /// A directory with a kustomization that is not a `Component` (components are only built
    /// as part of the kustomizations that use them), with what it includes (a component's
    /// too). A kustomization that cannot be read is a target still (its build says what is
    /// wrong) that includes nothing.
    fn detect_dir(listing: &DirListing) -> Detected<Spec> {
        let Some(file) = KUSTOMIZATION_FILES.iter().find(|f| listing.has_file(f)) else {
            return Detected::default();
        };
        let doc = listing
            .snapshot
            .read(&listing.dir.child(file))
            .ok()
            .and_then(|bytes| yaml::parse_one(&bytes, &ParseOptions::default()).ok());
        let component = doc
            .as_ref()
            .is_some_and(|d| d.str_at(&["kind"]) == Some("Component"));
        Detected {
            specs: (!component)
                .then(|| Spec {
                    dir: listing.dir.clone(),
                })
                .into_iter()
                .collect(),
            claims_dir: false,
            lists: doc
                .map(|d| included_paths(&d, listing.dir))
                .unwrap_or_default(),
        }
    }
}

/// What the kustomization `doc` of directory `dir` includes as parts of its output: the files
/// and directories it lists under `resources` (and the deprecated `bases`) and the component
/// directories, resolved from `dir`; remote entries and paths that leave the repository are
/// left out.
pub fn included_paths(doc: &yaml::Node, dir: &RepoPath) -> Vec<RepoPath> {
    ["resources", "bases", "components"]
        .iter()
        .filter_map(|key| doc.get(key).and_then(yaml::Node::as_seq))
        .flatten()
        .filter_map(yaml::Node::as_str)
        .filter(|entry| !loader::is_remote_file(entry) && !loader::is_remote_target(entry))
        .filter_map(|entry| dir.join(entry).ok())
        .collect()
}

/// The label kustomize adds with `buildMetadata: [managedByLabel]`.
const MANAGED_BY_LABEL: &str = "app.kubernetes.io/managed-by";
/// The version in that label. kdelta reproduces the reference binary, `kubectl kustomize`,
/// whose embedded kustomize (v5.5.0) reports its version as `(devel)`; the standalone
/// `kustomize` v5.5.0 release would write `v5.5.0` here.
const KUSTOMIZE_VERSION: &str = "(devel)";

/// Builds the kustomization in `dir`. When an error stops the build, the output is not `ok`
/// and its findings hold the error (with the kustomization file and line that caused it).
pub fn build(files: &Files, dir: &RepoPath, opts: &Options) -> EngineOutput<trace::Trace> {
    let mut b = Builder {
        root_only: opts.root_only(dir),
        findings: Vec::new(),
        exec_plugins: opts.enable_exec_plugins.then(|| opts.plugin_env.clone()),
        trace: opts.trace.then(trace::Trace::default),
        helm_kube_version: opts.helm_kube_version.clone(),
        helm_api_versions: opts.helm_api_versions.clone(),
    };
    let result = run(&mut b, files, dir, opts);
    let trace = b.trace.take().unwrap_or_default();
    let mut findings = b.findings;
    // An input the build went on without — a remote base or file, a helmCharts chart that
    // is neither vendored nor fetched, a fetch that failed — is a finding marked incomplete.
    let skipped_input = findings.iter().any(|f| f.is_incomplete());
    match result {
        Ok(resources) => EngineOutput {
            details: trace,
            ..EngineOutput::new(resources, findings, true)
        },
        // A remote input kdelta did not fetch stops the build, or an error follows from its
        // absence (a var or a patch whose object is in the remote base or in the chart): the
        // output is incomplete, not wrong — a notice, as for the remote itself.
        Err(e)
            if e.rule == rules::KUSTOMIZE_REMOTE_RESOURCE
                || (skipped_input && target::may_follow_from_skipped_inputs(&e)) =>
        {
            let f = if e.rule == rules::KUSTOMIZE_REMOTE_RESOURCE {
                let mut f = e.into_finding().incomplete(Incomplete::NotFetched);
                f.severity = crate::finding::Severity::Notice;
                f
            } else {
                target::without_inputs(e)
            };
            findings.push(f);
            EngineOutput::new(Vec::new(), findings, true)
        }
        Err(e) => {
            findings.push(e.into_finding());
            EngineOutput::failed(findings)
        }
    }
}

fn run(
    b: &mut Builder,
    files: &Files,
    dir: &RepoPath,
    opts: &Options,
) -> Result<Vec<Resource>, KError> {
    let ldr = Loader::new(files, dir.clone(), b.root_only, schema::BuildSchema::new());
    let mut kt = b.load(ldr)?;
    b.set_openapi(&kt, true)?;
    if !kt.build_metadata.is_empty() {
        kt.origin = Some(String::new());
    }
    let mut acc = b.accumulate_target(&kt, Acc::new())?;
    let traced = |b: &mut Builder, rm: &resmap::ResMap, what: &str| {
        b.trace_step(&kt.file, crate::yaml::Span::default(), what, rm);
    };
    transform::hash::add_hash_suffixes(&mut acc.rm);
    transform::nameref::fix_name_references(&mut acc.rm, &acc.tc.name_reference).map_err(|e| {
        KError::new(rules::KUSTOMIZE_NAME_REFERENCE, e.to_string()).at(&kt.file, Default::default())
    })?;
    let unused =
        transform::vars::resolve(&mut acc.rm, &acc.vars, &acc.tc.var_reference).map_err(|e| {
            KError::new(rules::KUSTOMIZE_VARS, e.to_string()).at(&kt.file, kt.span("vars", None))
        })?;
    traced(
        b,
        &acc.rm,
        "hash suffixes, name references and vars (the whole build)",
    );
    if !unused.is_empty() {
        b.findings.push(
            Finding::warning(
                rules::KUSTOMIZE_VARS_UNUSED,
                format!(
                    "well-defined vars that were never replaced: {}",
                    unused.join(",")
                ),
            )
            .in_file(kt.file.to_string()),
        );
    }
    // Objects marked local-config are inputs to the build, not output.
    acc.rm.list.retain(|r| {
        r.annotations()
            .get("config.kubernetes.io/local-config")
            .is_none_or(|v| v == "false")
    });
    // kustomize rebuilds its resource map from what is left, and panics on two objects with
    // one id (a replacement or vars that renamed one onto another).
    acc.rm.check_unique_ids().map_err(|e| {
        KError::new(rules::KUSTOMIZE_DUPLICATE_RESOURCE, e.to_string())
            .at(&kt.file, Default::default())
    })?;
    transform::sort::sort(&mut acc.rm, kt.k.sort_options.as_ref(), opts.reorder_none).map_err(
        |e| {
            KError::new(rules::KUSTOMIZE_SORT_OPTIONS, e.to_string())
                .at(&kt.file, kt.span("sortOptions", None))
        },
    )?;
    let managed_by =
        opts.add_managed_by_label || kt.k.build_metadata.iter().any(|m| m == "managedByLabel");
    let keep_origin = kt.k.build_metadata.iter().any(|m| m == "originAnnotations");
    let keep_transformations =
        kt.k.build_metadata
            .iter()
            .any(|m| m == "transformerAnnotations");
    if managed_by {
        // A LabelTransformer on metadata/labels, like kustomize's: an existing value it
        // overwrites may be shared with selectors (see transform::labels).
        let pairs = [(
            MANAGED_BY_LABEL.to_string(),
            format!("kustomize-{KUSTOMIZE_VERSION}"),
        )]
        .into();
        transform::labels::set_pairs(
            &mut acc.rm,
            &pairs,
            &[fieldspec::FieldSpec::any("metadata/labels", true)],
        )
        .map_err(|e| {
            KError::new(rules::KUSTOMIZE_TRANSFORM, e.to_string())
                .at(&kt.file, crate::yaml::Span::default())
        })?;
        traced(b, &acc.rm, "managed-by label");
    }
    if let Some(t) = &mut b.trace {
        t.output = trace::objects(&acc.rm)
            .into_iter()
            .map(|(k, _)| k)
            .collect();
    }
    let mut out = Vec::with_capacity(acc.rm.len());
    for mut r in acc.rm.list {
        r.remove_build_annotations();
        // kustomize's RemoveOriginAnnotations / RemoveTransformerAnnotations rewrite the
        // annotations of every object, even unchanged: values become strings and an empty
        // `annotations: {}` disappears.
        if !keep_origin || !keep_transformations {
            let mut a = r.annotations();
            if !keep_origin {
                a.remove(res::anno::ORIGIN);
            }
            if !keep_transformations {
                a.remove(res::anno::TRANSFORMATIONS);
            }
            r.set_annotations(&a);
        }
        crate::yaml::roundtrip::through_go_yaml_v3(&mut r.node);
        printable::check(&r)?;
        out.push(Resource {
            node: r.node,
            origin: r.origin,
        });
    }
    Ok(out)
}
