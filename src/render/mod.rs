//! Rendering: what a target is, how one target is rendered, and running many in parallel with
//! the content-addressed cache.

mod directory;
mod files;
mod run;

pub use files::{source_finding, yaml_finding, Files, LoadError, ParseCache, ReadSet};
pub use run::{render_all, render_pair, PairOutcome};

use crate::finding::rules;
use crate::report::Finding;
use crate::resource::Resource;
use crate::source::{RepoPath, Snapshot};

/// Something kdelta renders into Kubernetes objects.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// A kustomization directory (`kustomize build DIR`).
    Kustomize { dir: RepoPath },
    /// A Helm chart, optionally with a values file.
    Helm {
        chart: RepoPath,
        values: Option<RepoPath>,
    },
    /// An Argo CD ApplicationSet (one per document).
    AppSet { file: RepoPath, name: String },
    /// An Argo CD Application manifest.
    Application { file: RepoPath, name: String },
    /// A directory of plain manifests.
    Directory { dir: RepoPath },
}

impl Target {
    /// The stable id used in reports: `kustomize:apps/web/overlays/prod`.
    pub fn id(&self) -> String {
        match self {
            Target::Kustomize { dir } => format!("kustomize:{dir}"),
            Target::Helm {
                chart,
                values: None,
            } => format!("helm:{chart}"),
            Target::Helm {
                chart,
                values: Some(v),
            } => format!("helm:{chart}#{v}"),
            Target::AppSet { file, name } => format!("appset:{file}#{name}"),
            Target::Application { file, name } => format!("app:{file}#{name}"),
            Target::Directory { dir } => format!("dir:{dir}"),
        }
    }

    /// `kustomize`, `helm`, `appset`, `app` or `directory`.
    pub fn kind(&self) -> &'static str {
        match self {
            Target::Kustomize { .. } => "kustomize",
            Target::Helm { .. } => "helm",
            Target::AppSet { .. } => "appset",
            Target::Application { .. } => "app",
            Target::Directory { .. } => "directory",
        }
    }

    /// The path the target lives at (its directory or defining file).
    pub fn path(&self) -> &RepoPath {
        match self {
            Target::Kustomize { dir } | Target::Directory { dir } => dir,
            Target::Helm { chart, .. } => chart,
            Target::AppSet { file, .. } | Target::Application { file, .. } => file,
        }
    }
}

/// Options that change rendered output (part of every cache key).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct RenderOptions {
    /// Kustomize: allow reading files outside a kustomization's root.
    pub load_restrictor_none: bool,
    /// Kustomize: `--reorder none` (keep input order) instead of the legacy kind order.
    pub reorder_none: bool,
    /// Run exec plugins (kustomize) — off unless the user passed the flag.
    pub enable_exec_plugins: bool,
    /// Kustomize: add the `app.kubernetes.io/managed-by` label to every object, as
    /// `buildMetadata: [managedByLabel]` does (kustomize's deprecated `--enable-managedby-label`).
    pub add_managed_by_label: bool,
}

/// The outcome of rendering one target at one revision.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub resources: Vec<Resource>,
    pub findings: Vec<Finding>,
    pub read_set: ReadSet,
    /// False when an error stopped the render (resources are then incomplete).
    pub ok: bool,
    /// False when the output lacks something kdelta did not fetch or cannot render yet (a
    /// remote base, a Helm chart not inflated): a finding marked `incomplete` says what.
    pub complete: bool,
    /// The file that defines the target (kustomization, Chart.yaml, the Argo CD manifest),
    /// where reports anchor the target's annotations.
    pub file: RepoPath,
}

impl Rendered {
    /// The rendered output as the reference tool prints it.
    pub fn to_yaml(&self) -> Result<String, Finding> {
        self.to_yaml_redacted(false).map(|(s, _)| s)
    }

    /// The rendered output, with Secret values replaced by keyed digests when `redact` is set;
    /// also returns how many values were replaced.
    pub fn to_yaml_redacted(&self, redact: bool) -> Result<(String, usize), Finding> {
        let mut values = Vec::with_capacity(self.resources.len());
        let mut redacted = 0;
        for r in &self.resources {
            let mut v =
                crate::yaml::to_value(&r.node, crate::yaml::Dialect::Yaml12).map_err(|e| {
                    Finding::error(rules::RENDER_OUTPUT, e.to_string()).at(
                        r.origin.file.to_string(),
                        r.origin.span.line,
                        0,
                    )
                })?;
            if redact {
                redacted += crate::diff::redact::redact_secret(&mut v);
            }
            values.push(v);
        }
        Ok((crate::yaml::emit::to_stream(values.iter()), redacted))
    }
}

/// Renders one target from a snapshot.
pub fn render_target(
    snapshot: &dyn Snapshot,
    target: &Target,
    opts: &RenderOptions,
    cache: &ParseCache,
) -> Rendered {
    let files = Files::new(snapshot, cache);
    let id = target.id();
    let outcome = crate::panic::catch(|| {
        crate::panic::inject(&id);
        match target {
            Target::Directory { dir } => directory::render(&files, dir),
            Target::Kustomize { dir } => crate::kustomize::build(&files, dir, opts),
            Target::Helm { chart, .. } => {
                not_rendered_yet(rules::HELM_NOT_RENDERED_YET, chart, "Helm charts")
            }
            Target::AppSet { file, .. } => {
                not_rendered_yet(rules::APPSET_NOT_RENDERED_YET, file, "ApplicationSets")
            }
            Target::Application { file, .. } => {
                not_rendered_yet(rules::APP_NOT_RENDERED_YET, file, "Argo CD Applications")
            }
        }
    });
    let crashed = outcome.is_err();
    let (resources, mut findings, ok) = match outcome {
        Ok(output) => output,
        Err(caught) => (
            Vec::new(),
            vec![panic_finding(&id, &caught, files.last_read())],
            false,
        ),
    };
    let file = defining_file(snapshot, target);
    for f in &mut findings {
        if f.target.is_none() {
            f.target = Some(id.clone());
        }
    }
    let complete = !findings.iter().any(|f| f.incomplete);
    Rendered {
        resources,
        findings,
        read_set: ReadSet {
            partial: crashed,
            ..files.into_read_set()
        },
        ok,
        complete,
        file,
    }
}

impl Rendered {
    /// `--strict`: findings that leave the output incomplete become errors, and the target
    /// fails.
    pub fn escalate_incomplete(&mut self) {
        for f in self.findings.iter_mut().filter(|f| f.incomplete) {
            f.severity = crate::report::Severity::Error;
            self.ok = false;
        }
    }
}

/// The `internal.panic` finding for a crash while rendering `id`.
fn panic_finding(id: &str, caught: &crate::panic::Caught, last_read: Option<RepoPath>) -> Finding {
    let reading = match &last_read {
        Some(p) => format!(" while reading {p} (the last file read)"),
        None => String::new(),
    };
    let finding = Finding::error(
        rules::INTERNAL_PANIC,
        format!("kdelta crashed rendering {id}{reading}: {caught}"),
    )
    .with_help(
        "this is a bug in kdelta, not in your repository; please report it with this message \
         and, if you can, the file named here. The other targets were rendered.",
    );
    match last_read {
        Some(p) => finding.in_file(p.to_string()),
        None => finding,
    }
}

/// The file a target is defined in.
fn defining_file(snapshot: &dyn Snapshot, target: &Target) -> RepoPath {
    match target {
        Target::Kustomize { dir } => crate::discover::KUSTOMIZATION_FILES
            .iter()
            .map(|f| dir.child(f))
            .find(|p| snapshot.kind(p) == crate::source::EntryKind::File)
            .unwrap_or_else(|| dir.child("kustomization.yaml")),
        Target::Helm { chart, .. } => chart.child("Chart.yaml"),
        Target::AppSet { file, .. } | Target::Application { file, .. } => file.clone(),
        Target::Directory { dir } => dir.clone(),
    }
}

fn not_rendered_yet(
    rule: crate::finding::Rule,
    path: &RepoPath,
    what: &str,
) -> (Vec<Resource>, Vec<Finding>, bool) {
    let finding = Finding::notice(
        rule,
        format!("{what} are discovered but not rendered yet by this kdelta version"),
    )
    .in_file(path.to_string())
    .incomplete();
    (Vec::new(), vec![finding], true)
}
