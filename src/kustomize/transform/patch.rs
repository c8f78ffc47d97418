//! Patches: `patches:` (PatchTransformer: strategic merge or JSON 6902, with or without a
//! target selector), `patchesStrategicMerge:` and `patchesJson6902:` (the legacy transformers).

use super::super::error::KError;
use super::super::kid::KId;
use super::super::res::Res;
use super::super::resmap::{DuplicateId, ResMap};
use super::super::schema::BuildSchema;
use super::super::selector::{SelectorError, SelectorMatcher};
use super::super::smp::SmpError;
use super::super::types::Selector;
use super::json6902;
use crate::finding::rules;
use crate::yaml::{self, from_go_json, to_value, Dialect, Node, ParseOptions};
use serde_json::Value;
use std::sync::Arc;

/// A parsed patch.
pub enum PatchBody {
    /// Strategic merge patch documents.
    Smp(Vec<Res>),
    /// JSON 6902 operations.
    Json(Vec<json6902::Op>),
}

/// Parses patch text as kustomize does: it must be either strategic-merge resources or a JSON
/// patch, not both and not neither.
pub fn parse_patch(
    text: &str,
    source: &str,
    schema: &Arc<BuildSchema>,
) -> Result<PatchBody, KError> {
    let smp = parse_smp(text, schema);
    let json = parse_json_patch(text);
    match (smp, json) {
        (Ok(_), Ok(_)) => Err(err(format!(
            "illegally qualifies as both an SM and JSON patch: {source}"
        ))),
        (Ok(p), Err(_)) => Ok(PatchBody::Smp(p)),
        (Err(_), Ok(ops)) => Ok(PatchBody::Json(ops)),
        (Err(_), Err(_)) => Err(yaml_limit(text)
            .unwrap_or_else(|| err(format!("unable to parse SM or JSON patch from {source}")))),
    }
}

/// A `yaml.limit` error when patch text exceeds a YAML safety limit (nesting, aliases, size).
/// Its message stays short: kustomize's wording for an unreadable patch would echo the whole
/// (typically huge) text.
pub fn yaml_limit(text: &str) -> Option<KError> {
    let opts = ParseOptions::default();
    match super::super::documents::read_documents(text.as_bytes(), &opts) {
        Err(e) if e.kind == yaml::YamlErrorKind::Limit => Some(KError::new(
            rules::YAML_LIMIT,
            format!("the patch text: {e}"),
        )),
        _ => None,
    }
}

/// Strategic merge patch documents: every non-empty document must be an object with kind and
/// name (kustomize's `SliceFromBytes`). kyaml reads them as node trees that keep a key given
/// twice: the merge finds the first, and a subtree it copies whole keeps both (annotations
/// collapse to the last at the end of the build, anything else fails to print).
pub fn parse_smp(text: &str, schema: &Arc<BuildSchema>) -> Result<Vec<Res>, PatchDocsError> {
    let docs = super::super::documents::read_documents(
        text.as_bytes(),
        &ParseOptions {
            duplicate_keys: yaml::DuplicateKeys::Keep,
            ..ParseOptions::default()
        },
    )
    .map_err(|e| PatchDocsError::Yaml(Box::new(e)))?;
    let mut out = Vec::new();
    for doc in docs {
        if doc.is_nil_or_empty() {
            continue;
        }
        if !doc.is_map() {
            return Err(PatchDocsError::NotMapping(doc.span));
        }
        let kind = doc.str_at(&["kind"]).unwrap_or("");
        if kind.is_empty() {
            return Err(PatchDocsError::MissingKind(doc.span));
        }
        if !kind.ends_with("List") && doc.str_at(&["metadata", "name"]).unwrap_or("").is_empty() {
            return Err(PatchDocsError::MissingName(doc.span));
        }
        out.push(Res::new(doc, Default::default(), schema.clone()));
    }
    Ok(out)
}

/// Why text is not strategic merge patch documents, worded as kustomize's `SliceFromBytes`;
/// each knows where in the text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PatchDocsError {
    #[error("{0}")]
    Yaml(Box<yaml::YamlError>),
    /// A document that is not a mapping, at its start.
    #[error("wrong node kind: expected MappingNode")]
    NotMapping(yaml::Span),
    #[error("missing kind in object")]
    MissingKind(yaml::Span),
    #[error("missing metadata.name in object")]
    MissingName(yaml::Span),
}

impl PatchDocsError {
    /// Where in the text the error is.
    pub fn span(&self) -> yaml::Span {
        match self {
            PatchDocsError::Yaml(e) => e.span,
            PatchDocsError::NotMapping(span)
            | PatchDocsError::MissingKind(span)
            | PatchDocsError::MissingName(span) => *span,
        }
    }
}

/// Why patch text is no JSON patch, split where kustomize's legacy `patchesJson6902` words it
/// differently: a YAML patch that `YAMLToJSON` cannot convert fails with that error as it is,
/// JSON that `jsonpatch.DecodePatch` refuses ([`JsonPatchError::is_decoding`]) is prefixed
/// with `decoding <text>: `.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum JsonPatchError {
    /// Empty text.
    #[error("empty json patch operations")]
    Empty,
    /// YAML that does not parse.
    #[error("{0}")]
    Yaml(yaml::YamlError),
    /// YAML that JSON cannot hold.
    #[error("{0}")]
    YamlToJson(yaml::YamlToJsonError),
    /// Text starting with `[` that is no JSON; `message` is serde_json's, with its position.
    #[error("{message}")]
    Json {
        message: String,
        line: usize,
        column: usize,
    },
    /// JSON that is no list of operations.
    #[error("{0}")]
    Decode(json6902::DecodeError),
}

impl JsonPatchError {
    /// True when `jsonpatch.DecodePatch` refused the text (rather than `YAMLToJSON`).
    pub fn is_decoding(&self) -> bool {
        matches!(
            self,
            JsonPatchError::Json { .. } | JsonPatchError::Decode(_)
        )
    }
}

/// JSON patch operations, from JSON (`[...]`) or YAML text (through `YAMLToJSON`: keys by their
/// YAML 1.1 type, `0x10` as `16`; a null or collection key is an error). Each operation keeps
/// where the text has it, when the text reads as YAML (JSON patches mostly do).
pub fn parse_json_patch(text: &str) -> Result<Vec<json6902::Op>, JsonPatchError> {
    if text.is_empty() {
        return Err(JsonPatchError::Empty);
    }
    let opts = ParseOptions {
        duplicate_keys: yaml::DuplicateKeys::LastWins,
        ..ParseOptions::default()
    };
    let (value, node): (Value, Option<Node>) = if text.starts_with('[') {
        let value = serde_json::from_str(text).map_err(|e| JsonPatchError::Json {
            message: e.to_string(),
            line: e.line(),
            column: e.column(),
        })?;
        (value, yaml::parse_one(text.as_bytes(), &opts).ok())
    } else {
        let node = yaml::parse_one(text.as_bytes(), &opts).map_err(JsonPatchError::Yaml)?;
        let value = yaml::yaml_to_json(&node).map_err(JsonPatchError::YamlToJson)?;
        (value, Some(node))
    };
    let mut ops = json6902::decode(&value).map_err(JsonPatchError::Decode)?;
    if text.starts_with('[') {
        keep_value_json(text, &mut ops);
    }
    // The spans of the operations, when the node tree has the same list.
    if let Some(items) = node.as_ref().and_then(Node::as_seq) {
        if items.len() == ops.len() {
            for (op, item) in ops.iter_mut().zip(items) {
                op.span = item.span;
                op.value_node = item.get("value").cloned();
            }
        }
    }
    Ok(ops)
}

/// Gives each operation of a patch written in JSON its value's text, which `test` compares
/// (evanphx keeps every operation's fields as `json.RawMessage`).
fn keep_value_json(text: &str, ops: &mut [json6902::Op]) {
    type Operation = std::collections::HashMap<String, Option<Box<serde_json::value::RawValue>>>;
    let Ok(raw) = serde_json::from_str::<Vec<Operation>>(text) else {
        return;
    };
    for (op, mut fields) in ops.iter_mut().zip(raw) {
        op.value_json = fields
            .remove("value")
            .flatten()
            .map(|v| compact_json(v.get()));
    }
}

/// Go's `json.Compact` of valid JSON: the whitespace between tokens removed.
fn compact_json(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

/// Why a patch does not apply, in kustomize's words.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PatchError {
    /// A block scalar go-yaml could not read back after writing it, which kustomize's JSON
    /// patch round trip needs.
    #[error("a block scalar starts with a tab, which go-yaml writes without an indentation indicator and cannot read back: yaml: found a tab character where an indentation space is expected")]
    TabInBlockScalar,
    /// The object has a value JSON cannot hold.
    #[error("{0}")]
    ToJson(yaml::ValueError),
    /// An operation of a JSON patch does not apply; the error says which.
    #[error("{0}")]
    Op(json6902::ApplyError),
    /// The JSON patch replaced the object with something else.
    #[error("the JSON patch did not leave an object")]
    NotAnObject,
    /// The strategic merge failed.
    #[error("{0}")]
    Merge(SmpError),
    /// No resource, or more than one, has the id of a patch without target.
    #[error("{} matches for Id {id}; failed to find unique target for patch {id}", if *.multiple { "multiple" } else { "no" })]
    Target { id: KId, multiple: bool },
    /// [`PatchError::Target`] for a `patches:` entry, which names the patch again.
    #[error("no resource matches strategic merge patch \"{id}\": {cause}")]
    NoResourceMatches { id: KId, cause: Box<PatchError> },
    /// A `patches:` entry with a target and several strategic merge documents.
    #[error("Multiple Strategic-Merge Patches in one `patches` entry is not allowed to set `patches.target` field: {patch}")]
    SeveralWithTarget { patch: String },
    /// A JSON patch in `patches:` without target.
    #[error("must specify a target for JSON patch {patch}")]
    JsonWithoutTarget { patch: String },
    /// The target selector does not compile.
    #[error("{0}")]
    Selector(SelectorError),
    /// The patch gave two objects the same id.
    #[error(transparent)]
    DuplicateId(#[from] DuplicateId),
}

impl PatchError {
    /// The JSON patch operation that failed, when one did.
    pub fn failed_op(&self) -> Option<&json6902::ApplyError> {
        match self {
            PatchError::Op(e) => Some(e),
            _ => None,
        }
    }
}

/// Applies JSON operations to one resource, keeping kustomize's internal annotations.
pub fn apply_json(r: &mut Res, ops: &[json6902::Op]) -> Result<(), PatchError> {
    let internal: Vec<(String, String)> = r
        .annotations()
        .into_iter()
        .filter(|(k, _)| {
            k.starts_with("internal.config.kubernetes.io/")
                || k.starts_with("config.k8s.io/")
                || k == "config.kubernetes.io/path"
                || k == "config.kubernetes.io/index"
        })
        .collect();
    if yaml::roundtrip::unreadable_block(&r.node).is_some() {
        return Err(PatchError::TabInBlockScalar);
    }
    yaml::roundtrip::through_go_yaml_v3(&mut r.node);
    let mut doc = to_value(&r.node, Dialect::Yaml12).map_err(PatchError::ToJson)?;
    json6902::apply(&mut doc, ops).map_err(PatchError::Op)?;
    // kustomize reads the patched object back through go-yaml v3 (`RNode.UnmarshalJSON`,
    // `FromMap`), where every string is written anew: a line break makes it a literal block.
    let patched = from_go_json(&doc).at(r.node.span);
    if yaml::roundtrip::unreadable_block(&patched).is_some() {
        return Err(PatchError::TabInBlockScalar);
    }
    let before = std::mem::replace(&mut r.node, patched);
    super::positions::carry(&mut r.node, &before, ops);
    if !r.node.is_map() {
        return Err(PatchError::NotAnObject);
    }
    let mut a = r.annotations();
    a.extend(internal);
    r.set_annotations(&a);
    Ok(())
}

/// kustomize `Resource.ApplySmPatch`: merge, then restore the kind and name unless the patch
/// allows changing them, and always the namespace. Returns false when the patch deleted the
/// resource.
pub fn apply_smp(r: &mut Res, patch: &Res) -> Result<bool, PatchError> {
    let (name, ns, kind) = (
        r.name().to_string(),
        r.namespace().to_string(),
        r.kind().to_string(),
    );
    if patch.name_change_allowed() || patch.kind_change_allowed() {
        r.store_previous_id();
    }
    let kept = super::super::smp_bridge::merge(&mut r.node, &patch.node, &r.schema)
        .map_err(PatchError::Merge)?;
    if !kept {
        return Ok(false);
    }
    if !patch.kind_change_allowed() {
        r.set_kind(&kind);
    }
    if !patch.name_change_allowed() {
        r.set_name(&name);
    }
    r.set_namespace(&ns);
    Ok(true)
}

/// kustomize `resWrangler.ApplySmPatch`: a copy of the patch, its metadata rewritten as
/// strings (`CopyMergeMetaDataFieldsFrom`) and given each target's apiVersion, applied to every
/// selected resource; deleted resources leave the list. Because of the rewrite, a label `1`
/// arrives as `"1"` and an annotation `null` is set to `"null"` rather than deleting it, unlike
/// a `patches:` entry without a target.
fn apply_smp_to(rm: &mut ResMap, selected: &[usize], patch: &Res) -> Result<(), PatchError> {
    let mut deleted = Vec::new();
    for &i in selected {
        let mut p = patch.clone();
        p.rewrite_metadata_as_strings();
        // SetGvk: untagged scalars, as kyaml's SetApiVersion writes them (see Res::set_kind).
        let api = rm.list[i].api_version().to_string();
        p.node.set("apiVersion", Node::plain(api));
        let kind = p.kind().to_string();
        p.set_kind(&kind);
        if !apply_smp(&mut rm.list[i], &p)? {
            deleted.push(i);
        }
    }
    for i in deleted.into_iter().rev() {
        rm.list.remove(i);
    }
    Ok(())
}

/// Indices of the resources a selector picks.
pub fn select(rm: &ResMap, sel: &Selector) -> Result<Vec<usize>, SelectorError> {
    let m = SelectorMatcher::new(sel)?;
    Ok(rm
        .list
        .iter()
        .enumerate()
        .filter(|(_, r)| m.matches(r))
        .map(|(i, _)| i)
        .collect())
}

/// The one resource a patch without target applies to: any id (current or previous) equal to
/// the patch's id.
fn target_of(rm: &ResMap, patch: &Res) -> Result<usize, PatchError> {
    let id = patch.org_id();
    let found = rm.matching_any_id(|x| x.equals(&id));
    match found.as_slice() {
        [i] => Ok(*i),
        other => Err(PatchError::Target {
            multiple: !other.is_empty(),
            id,
        }),
    }
}

/// One `patches:` entry (PatchTransformer). A patch that gives two objects the same id fails.
pub fn apply_patch(
    rm: &mut ResMap,
    body: &PatchBody,
    target: Option<&Selector>,
    source: &str,
) -> Result<(), PatchError> {
    apply_patch_body(rm, body, target, source)?;
    Ok(rm.check_unique_ids()?)
}

fn apply_patch_body(
    rm: &mut ResMap,
    body: &PatchBody,
    target: Option<&Selector>,
    source: &str,
) -> Result<(), PatchError> {
    let select = |rm: &ResMap, sel: &Selector| select(rm, sel).map_err(PatchError::Selector);
    match body {
        PatchBody::Smp(patches) => match target {
            Some(sel) => {
                if patches.len() > 1 {
                    return Err(PatchError::SeveralWithTarget {
                        patch: source.to_string(),
                    });
                }
                let Some(patch) = patches.first() else {
                    return Ok(());
                };
                let selected = select(rm, sel)?;
                apply_smp_to(rm, &selected, patch)
            }
            None => {
                for patch in patches {
                    let i = target_of(rm, patch).map_err(|e| PatchError::NoResourceMatches {
                        id: patch.org_id(),
                        cause: Box::new(e),
                    })?;
                    if !apply_smp(&mut rm.list[i], patch)? {
                        rm.list.remove(i);
                    }
                }
                Ok(())
            }
        },
        PatchBody::Json(ops) => {
            let Some(sel) = target else {
                return Err(PatchError::JsonWithoutTarget {
                    patch: source.to_string(),
                });
            };
            for i in select(rm, sel)? {
                rm.list[i].store_previous_id();
                apply_json(&mut rm.list[i], ops)?;
            }
            Ok(())
        }
    }
}

/// `patchesStrategicMerge:` — each patch applies to the resource with its id.
pub fn apply_patches_strategic_merge(rm: &mut ResMap, patches: &[Res]) -> Result<(), PatchError> {
    for patch in patches {
        let i = target_of(rm, patch)?;
        apply_smp_to(rm, &[i], patch)?;
    }
    Ok(())
}

/// `patchesJson6902:` — JSON operations on the resources the target selects.
pub fn apply_legacy_json6902(
    rm: &mut ResMap,
    ops: &[json6902::Op],
    target: &Selector,
) -> Result<(), PatchError> {
    for i in select(rm, target).map_err(PatchError::Selector)? {
        apply_json(&mut rm.list[i], ops)?;
    }
    Ok(())
}

/// A patch error without a location yet.
pub fn err(e: impl ToString) -> KError {
    KError::new(rules::KUSTOMIZE_PATCH, e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::Span;

    /// Operations keep where the patch text has them, in YAML and in JSON.
    #[test]
    fn json_patch_operations_keep_their_spans() {
        let yaml =
            parse_json_patch("- op: add\n  path: /a\n  value: 1\n- op: remove\n  path: /b\n")
                .unwrap();
        let spans: Vec<Span> = yaml.iter().map(|op| op.span).collect();
        assert_eq!(spans, [Span::new(1, 3), Span::new(4, 3)]);
        let json = parse_json_patch(
            "[\n {\"op\": \"add\", \"path\": \"/a\"},\n {\"op\": \"remove\", \"path\": \"/b\"}\n]",
        )
        .unwrap();
        let lines: Vec<u32> = json.iter().map(|op| op.span.line).collect();
        assert_eq!(lines, [2, 3]);
        assert!(matches!(
            parse_json_patch("[1"),
            Err(JsonPatchError::Json { line: 1, .. })
        ));
        assert!(parse_json_patch("{}").unwrap_err().is_decoding());
    }

    /// `test` compares JSON text: a patch written in JSON as written (whitespace aside), one
    /// written in YAML as Go's json.Marshal writes it, the object always as json.Marshal does.
    #[test]
    fn test_operations_compare_json_text() {
        let doc = serde_json::json!({"s": "a&b", "i": 1, "l": [1, "<x>"], "o": {"k": null}});
        let passes = |patch: &str| {
            let ops = parse_json_patch(patch).unwrap();
            json6902::apply(&mut doc.clone(), &ops).is_ok()
        };
        for (patch, ok) in [
            (r#"[{"op": "test", "path": "/s", "value": "a&b"}]"#, false),
            (
                r#"[{"op": "test", "path": "/s", "value": "a\u0026b"}]"#,
                true,
            ),
            (r#"[{"op": "test", "path": "/i", "value": 1.0}]"#, false),
            (r#"[{"op": "test", "path": "/i", "value": 1}]"#, true),
            (
                r#"[{"op": "test", "path": "/l", "value": [ 1 , "\u003cx\u003e" ]}]"#,
                true,
            ),
            (
                r#"[{"op": "test", "path": "/l", "value": [1, "<x>"]}]"#,
                false,
            ),
            (
                r#"[{"op": "test", "path": "/o", "value": {"k": null}}]"#,
                true,
            ),
            (
                r#"[{"op": "test", "path": "/o", "value": {"k": null, "j": 1}}]"#,
                false,
            ),
            (r#"[{"op": "test", "path": "/nope", "value": null}]"#, true),
            (r#"[{"op": "test", "path": "/i", "value": null}]"#, false),
            ("- {op: test, path: /s, value: a&b}", true),
            ("- {op: test, path: /i, value: 1.0}", true),
            ("- {op: test, path: /l, value: [1, <x>]}", true),
        ] {
            assert_eq!(passes(patch), ok, "{patch}");
        }
    }
}
