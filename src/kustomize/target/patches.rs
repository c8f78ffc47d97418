//! The patch transformers as kustomization fields run them: `patchesStrategicMerge`, `patches`
//! and `patchesJson6902`.

use super::{Acc, Builder, Kt};
use crate::finding::rules;
use crate::kustomize::error::KError;
use crate::kustomize::transform::{json6902, patch};
use crate::kustomize::types::{self};
use crate::source::RepoPath;
use crate::yaml::{FileId, Node, Span};

impl Builder {
    /// One `patches:` entry.
    pub(super) fn run_patch(
        &mut self,
        kt: &Kt,
        acc: &mut Acc,
        entry: &types::Patch,
        i: usize,
    ) -> Result<(), KError> {
        let inline_at = kt.span_in_file("patches", Some(i));
        self.apply_patch_entry(kt, acc, entry, inline_at)
            .map_err(|e| kt.err_at(e, "patches", Some(i)))
    }

    /// `patchesStrategicMerge:`: inline patches or files of patches, each applied to the
    /// resource with the patch's id.
    pub(super) fn run_patches_strategic_merge(
        &mut self,
        kt: &Kt,
        acc: &mut Acc,
    ) -> Result<(), KError> {
        let Some(entries) =
            kt.k.patches_strategic_merge
                .as_ref()
                .filter(|e| !e.is_empty())
        else {
            return Ok(());
        };
        let inline_at = |i| kt.span_in_file("patchesStrategicMerge", Some(i));
        self.apply_psm_entries(kt, acc, entries, &inline_at)
            .map_err(|e| kt.err_at(e, "patchesStrategicMerge", None))
    }

    /// Loads strategic merge patches (inline or files) and applies each to its resource;
    /// `inline_at(i)` is where entry `i` is written, the place of its fields when it is inline.
    pub fn apply_psm_entries(
        &mut self,
        kt: &Kt,
        acc: &mut Acc,
        entries: &[String],
        inline_at: &dyn Fn(usize) -> Span,
    ) -> Result<(), KError> {
        let field = "patchesStrategicMerge";
        let mut patches = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            let at = |e: KError| kt.err_at(e, field, Some(i));
            let inline = match patch::parse_smp(entry, &kt.ldr.schema) {
                Ok(p) => Some(p).filter(|p| !p.is_empty()),
                // Not a path either: refuse it without echoing it as a file name.
                Err(_) => match patch::yaml_limit(entry) {
                    Some(e) => return Err(at(e)),
                    None => None,
                },
            };
            match inline {
                Some(mut inline) => {
                    place(
                        inline.iter_mut().map(|p| &mut p.node),
                        Read::Inline(inline_at(i)),
                    );
                    patches.extend(inline);
                }
                None => {
                    let file = kt.ldr.load(entry).map_err(|e| {
                        at(e.context(format!(
                            "trouble configuring builtin PatchStrategicMergeTransformer with config: `\npaths:\n- {entry}\n`"
                        )))
                    })?;
                    let text = crate::kustomize::documents::patch_text(&file.bytes);
                    let mut loaded = patch::parse_smp(&text, &kt.ldr.schema).map_err(|e| {
                        file.locate(
                            KError::new(rules::KUSTOMIZE_PATCH, format!("{e} in File: {entry}")),
                            e.span(),
                            at,
                        )
                    })?;
                    place(
                        loaded.iter_mut().map(|p| &mut p.node),
                        Read::of(file.path.as_ref(), inline_at(i)),
                    );
                    patches.extend(loaded);
                }
            }
        }
        if patches.is_empty() {
            return Err(KError::new(
                rules::KUSTOMIZE_PATCH,
                "patch appears to be empty",
            ));
        }
        patch::apply_patches_strategic_merge(&mut acc.rm, &patches).map_err(patch::err)
    }

    /// A PatchTransformer: strategic merge or JSON 6902, inline or from a file; `inline_at` is
    /// where the entry is written, the place of its fields when it is inline.
    pub fn apply_patch_entry(
        &mut self,
        kt: &Kt,
        acc: &mut Acc,
        entry: &types::Patch,
        inline_at: Span,
    ) -> Result<(), KError> {
        let inline = entry.patch.trim();
        // The patch file, for errors that know where in it they are.
        let (text, source, file) = match (inline.is_empty(), entry.path.is_empty()) {
            (true, true) => {
                let config = describe_patch(entry);
                return Err(patch::err(format!(
                    "trouble configuring builtin PatchTransformer with config: `\n{config}`: must specify one of patch and path in\n{config}"
                )));
            }
            (false, false) => {
                let config = describe_patch(entry);
                return Err(patch::err(format!(
                    "trouble configuring builtin PatchTransformer with config: `\n{config}`: patch and path can't be set at the same time\n{config}"
                )));
            }
            (false, true) => (inline.to_string(), format!("[patch: {:?}]", inline), None),
            (true, false) => {
                let file = kt.ldr.load(&entry.path).map_err(|e| {
                    let e = e.context(format!(
                        "failed to get the patch file from path({})",
                        entry.path
                    ));
                    // kustomize's configureBuiltinPlugin wraps a Config failure in the config.
                    KError {
                        message: format!(
                            "trouble configuring builtin PatchTransformer with config: `\n{}`: {}",
                            describe_patch(entry),
                            e.message
                        ),
                        ..e
                    }
                })?;
                (
                    crate::kustomize::documents::patch_text(&file.bytes),
                    format!("[path: {:?}]", entry.path),
                    file.path,
                )
            }
        };
        let mut body = patch::parse_patch(&text, &source, &kt.ldr.schema)?;
        let read = Read::of(file.as_ref(), inline_at);
        match &mut body {
            patch::PatchBody::Smp(patches) => place(patches.iter_mut().map(|p| &mut p.node), read),
            patch::PatchBody::Json(ops) => place(values(ops), read),
        }
        if let patch::PatchBody::Smp(patches) = &mut body {
            for p in patches.iter_mut() {
                if entry
                    .options
                    .get("allowNameChange")
                    .copied()
                    .unwrap_or(false)
                {
                    p.set_annotation(crate::kustomize::res::anno::ALLOW_NAME_CHANGE, "enabled");
                }
                if entry
                    .options
                    .get("allowKindChange")
                    .copied()
                    .unwrap_or(false)
                {
                    p.set_annotation(crate::kustomize::res::anno::ALLOW_KIND_CHANGE, "enabled");
                }
            }
        }
        patch::apply_patch(&mut acc.rm, &body, entry.target.as_ref(), &source)
            .map_err(|e| located(e, file.as_ref()))
    }

    /// One `patchesJson6902:` entry.
    pub(super) fn run_legacy_json6902(
        &mut self,
        kt: &Kt,
        acc: &mut Acc,
        entry: &types::Patch,
        i: usize,
    ) -> Result<(), KError> {
        let inline_at = kt.span_in_file("patchesJson6902", Some(i));
        self.apply_legacy_json6902_entry(kt, acc, entry, inline_at)
            .map_err(|e| kt.err_at(e, "patchesJson6902", Some(i)))
    }

    /// A PatchJson6902Transformer; `inline_at` is where the entry is written, the place of the
    /// values it writes when its operations are inline.
    pub fn apply_legacy_json6902_entry(
        &mut self,
        kt: &Kt,
        acc: &mut Acc,
        entry: &types::Patch,
        inline_at: Span,
    ) -> Result<(), KError> {
        let Some(target) = &entry.target else {
            return Err(patch::err(
                "must specify a target for patch (patchesJson6902 entries need `target`)",
            ));
        };
        if target.name.is_empty() {
            return Err(patch::err(
                "trouble configuring builtin PatchJson6902Transformer: must specify the target name",
            ));
        }
        let mut file = None;
        let text = match (entry.path.is_empty(), entry.patch.is_empty()) {
            (true, true) => return Err(patch::err("empty file path and empty jsonOp")),
            (false, false) => {
                return Err(patch::err("must specify a file path or jsonOp, not both"))
            }
            (true, false) => entry.patch.clone(),
            (false, true) => {
                let loaded = kt.ldr.load(&entry.path)?;
                file = loaded.path;
                let text = crate::kustomize::documents::patch_text(&loaded.bytes);
                if text.is_empty() {
                    return Err(patch::err(format!(
                        "patch file '{}' empty seems to be empty",
                        entry.path
                    )));
                }
                text
            }
        };
        let mut ops = patch::parse_json_patch(&text).map_err(|e| {
            patch::yaml_limit(&text).unwrap_or_else(|| {
                if e.is_decoding() {
                    patch::err(format!("decoding {text}: {e}"))
                } else {
                    patch::err(e)
                }
            })
        })?;
        place(values(&mut ops), Read::of(file.as_ref(), inline_at));
        if ops.is_empty() {
            return Err(patch::err(format!(
                "patch appears to be empty; file={}, JsonOp={}",
                entry.path, entry.patch
            )));
        }
        patch::apply_legacy_json6902(&mut acc.rm, &ops, target)
            .map_err(|e| located(e, file.as_ref()))
    }
}

/// A patch error, placed at the operation that failed when the patch is a file and its text
/// says where the operation is (the entry in the kustomization is the place otherwise).
fn located(e: patch::PatchError, file: Option<&RepoPath>) -> KError {
    let span = e.failed_op().map(|op| op.span).filter(|s| s.is_known());
    let k = patch::err(e);
    match (file, span) {
        (Some(file), Some(span)) => k.at(file, span),
        _ => k,
    }
}

/// Where a patch's text was read from.
enum Read<'a> {
    /// A patch file: its nodes' lines are the file's.
    File(&'a RepoPath),
    /// Text written inline at this place (a kustomization's entry), or read from a URL that
    /// entry names: its nodes' lines are not lines of a repository file, so they all take the
    /// entry's place.
    Inline(Span),
}

impl<'a> Read<'a> {
    /// A patch read from `file` (`None`: inline, or from a URL) named at `entry`.
    fn of(file: Option<&'a RepoPath>, entry: Span) -> Read<'a> {
        match file {
            Some(file) => Read::File(file),
            None => Read::Inline(entry),
        }
    }
}

/// The values JSON 6902 operations write, as written.
fn values(ops: &mut [json6902::Op]) -> impl Iterator<Item = &mut Node> {
    ops.iter_mut().filter_map(|op| op.value_node.as_mut())
}

/// Says of the nodes of a patch where they were read from, so that a field the patch writes
/// into an object points at the patch, not at the object's file.
fn place<'n>(nodes: impl Iterator<Item = &'n mut Node>, read: Read) {
    let file = match read {
        Read::File(path) => FileId::of(path.as_str()),
        Read::Inline(_) => FileId::OWN,
    };
    for node in nodes {
        match read {
            Read::File(_) => node.read_from(file),
            Read::Inline(at) => node.map_spans(&|span| if span.is_known() { at } else { span }),
        }
    }
}

fn describe_patch(p: &types::Patch) -> String {
    // The PatchTransformer config as sigs.k8s.io/yaml marshals it: through JSON, so the keys
    // are sorted and empty fields (`omitempty`) left out.
    let mut config = crate::yaml::Node::map();
    if !p.options.is_empty() {
        let mut options = crate::yaml::Node::map();
        for (k, v) in &p.options {
            options.set(k, crate::yaml::Node::plain(v.to_string()));
        }
        config.set("options", options);
    }
    if !p.path.is_empty() {
        config.set("path", crate::yaml::Node::string(p.path.clone()));
    }
    if !p.patch.is_empty() {
        config.set("patch", crate::yaml::Node::string(p.patch.clone()));
    }
    if let Some(t) = &p.target {
        let mut target = crate::yaml::Node::map();
        for (k, v) in [
            ("annotationSelector", &t.annotation_selector),
            ("group", &t.group),
            ("kind", &t.kind),
            ("labelSelector", &t.label_selector),
            ("name", &t.name),
            ("namespace", &t.namespace),
            ("version", &t.version),
        ] {
            if !v.is_empty() {
                target.set(k, crate::yaml::Node::string(v.clone()));
            }
        }
        config.set("target", target);
    }
    if matches!(&config.kind, crate::yaml::NodeKind::Map(m) if m.is_empty()) {
        return "{}\n".to_string();
    }
    crate::yaml::emit::node_to_string(&config)
}
