//! The Argo CD manifests of a top-level kustomization (see the module documentation of
//! `appset`): the kustomization built with kdelta's kustomize flags, and of its output the
//! ApplicationSets and Applications that come from manifest files of the repository (what
//! its resources, bases and components list), as it builds them.

use super::{is_manifest_document, manifest_kind, Details, ManifestKind, Options, Spec};
use crate::engine::EngineOutput;
use crate::finding::{rules, Finding, Incomplete};
use crate::source::{EntryKind, Files, RepoPath};
use crate::yaml::{self, Dialect, Node, Span};

/// One Argo CD manifest as the kustomization builds it, with the file and position it comes
/// from.
#[derive(Clone)]
pub(super) struct BuiltManifest {
    pub kind: ManifestKind,
    pub name: String,
    pub node: Node,
    pub file: RepoPath,
    pub at: Span,
}

/// What building the kustomization gave: its manifests, and the findings that say the build
/// went on without something (a remote base, a chart not fetched), which every target made
/// from it shares.
#[derive(Clone)]
pub(super) struct Built {
    pub manifests: Vec<BuiltManifest>,
    pub incomplete: Vec<Finding>,
}

/// Builds the kustomization in `dir`; a build that fails is a notice (the kustomize target
/// reports the error itself). Every target made from the kustomization needs its build:
/// one build serves them all while its inputs are unchanged.
/// Shared, not copied: every target made from the kustomization takes its manifest from the
/// one build, and a copy per target would cost the square of their number.
fn build(files: &Files, dir: &RepoPath, opts: &Options) -> std::sync::Arc<Result<Built, Finding>> {
    let key = format!("appset::kustomized {dir} {:?}", opts.kustomize);
    files.memoized(&key, |files| {
        std::sync::Arc::new(build_now(files, dir, opts))
    })
}

fn build_now(files: &Files, dir: &RepoPath, opts: &Options) -> Result<Built, Finding> {
    let out = crate::kustomize::build(files, dir, &opts.kustomize);
    if !out.ok {
        let file = crate::kustomize::KUSTOMIZATION_FILES
            .iter()
            .map(|f| dir.child(f))
            .find(|p| files.kind(p) == EntryKind::File)
            .unwrap_or_else(|| dir.child("kustomization.yaml"));
        return Err(Finding::notice(
            rules::APP_SOURCE_NOT_RENDERED,
            format!(
                "the Argo CD manifests of the kustomization in {dir} are not rendered: it does not build (kustomize:{dir} says why)"
            ),
        )
        .in_file(file.to_string())
        .incomplete(Incomplete::Other));
    }
    let manifests = out
        .resources
        .into_iter()
        .filter(|r| {
            manifest_kind(&r.node).is_some()
                && is_manifest_document(files, &r.origin.file, r.origin.span)
        })
        .filter_map(|r| {
            let (kind, name) = manifest_kind(&r.node)?;
            let name = name.to_string();
            Some(BuiltManifest {
                kind,
                name,
                file: r.origin.file,
                at: r.origin.span,
                node: r.node,
            })
        })
        .collect();
    let incomplete = out
        .findings
        .into_iter()
        .filter(|f| f.is_incomplete())
        .collect();
    Ok(Built {
        manifests,
        incomplete,
    })
}

/// The targets the kustomization in `dir` makes: one per Argo CD manifest.
pub(super) fn expand(files: &Files, dir: &RepoPath, opts: &Options) -> Vec<Spec> {
    let built = build(files, dir, opts);
    let Ok(built) = built.as_ref() else {
        return Vec::new();
    };
    built
        .manifests
        .iter()
        .map(|m| Spec::Built {
            dir: dir.clone(),
            kind: m.kind,
            name: m.name.clone(),
        })
        .collect()
}

/// The render of [`Spec::Kustomized`]: the manifests as the kustomization builds them,
/// printed (each is a target of its own, and the kustomize target holds them as objects).
pub(super) fn render(files: &Files, dir: &RepoPath, opts: &Options) -> EngineOutput<Details> {
    let built = build(files, dir, opts);
    let built = match built.as_ref() {
        Ok(b) => b,
        Err(f) => return EngineOutput::new(Vec::new(), vec![f.clone()], true),
    };
    let values: Vec<serde_json::Value> = built
        .manifests
        .iter()
        .filter_map(|m| yaml::to_value(&m.node, Dialect::Yaml12).ok())
        .collect();
    let mut out = EngineOutput::new(Vec::new(), built.incomplete.clone(), true);
    out.printed = Some(yaml::emit::to_stream(values.iter()));
    out
}

/// The manifest of `kind` named `name` as the kustomization in `dir` builds it, with its file
/// and position, and the findings that say the build is incomplete.
pub(super) fn find(
    files: &Files,
    dir: &RepoPath,
    kind: ManifestKind,
    name: &str,
    opts: &Options,
) -> Result<(BuiltManifest, Vec<Finding>), Finding> {
    let built = build(files, dir, opts);
    let built = built.as_ref().as_ref().map_err(Clone::clone)?;
    let found = built
        .manifests
        .iter()
        .find(|m| m.kind == kind && m.name == name)
        .cloned()
        .ok_or_else(|| {
            Finding::error(
                rules::APP_SOURCE_INVALID,
                format!(
                    "the kustomization in {dir} no longer makes the {} {name}",
                    kind.as_str()
                ),
            )
            .in_file(dir.to_string())
        })?;
    Ok((found, built.incomplete.clone()))
}
