//! replacements (ReplacementTransformer): copy a value from one resource field (or a static
//! `sourceValue`) into fields of selected resources. Includes kustomize v5.7's static source,
//! v5.8's regex target selectors and writes into YAML/JSON held inside string values (with the
//! delimiter options applied there as kustomize's master branch does).

use super::super::kid::{Gvk, KId};
use super::super::pathmatch::{self, Create};
use super::super::res::Res;
use super::super::resmap::ResMap;
use super::super::selector::{LabelSelector, SelectorError, SelectorMatcher};
use super::super::types::{
    FieldOptions, ReplacementField, Selector, SourceSelector, TargetSelector,
};
use crate::finding::rules;
use crate::yaml::{self, Dialect, Node, NodeKind, ParseOptions, Span};

/// A replacement failure: a stable rule id and kustomize's wording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplacementError {
    pub rule: crate::finding::Rule,
    pub message: String,
}

fn err(rule: crate::finding::Rule, message: impl Into<String>) -> ReplacementError {
    ReplacementError {
        rule,
        message: message.into(),
    }
}

/// Runs one replacement over all resources. Returns warnings: targets that kustomize v5.5.0
/// (exact names) and v5.8 (regular expressions) select differently.
pub fn apply(rm: &mut ResMap, r: &ReplacementField) -> Result<Vec<String>, ReplacementError> {
    if (r.source.is_none() && r.source_value.is_none()) || r.targets.is_empty() {
        return Err(err(
            rules::KUSTOMIZE_REPLACEMENT_INVALID,
            "replacements must specify a source and at least one target",
        ));
    }
    let source = source_value(rm, r)?;
    let mut warnings = Vec::new();
    for (i, t) in r.targets.iter().enumerate() {
        warnings.extend(version_divergence(rm, t, i));
        apply_target(rm, &source, t)?;
    }
    Ok(warnings)
}

/// Characters that make a selector field mean something else as a regular expression.
fn has_regex_syntax(s: &str) -> bool {
    s.chars().any(|c| ".^$*+?()[]{}|\\".contains(c))
}

/// v5.8 reads a target's `select`/`reject` group, version, kind, name and namespace as anchored
/// regular expressions; v5.5.0 compares them exactly. Where that changes which objects are
/// selected (`name: $(profile-name)` selects the object so named in v5.5.0 and nothing in
/// v5.8), say so: kdelta renders as v5.8, and the user's kustomize may be older. A field that
/// is no regular expression at all (`name: dst[`) stops v5.8; kdelta then renders as v5.5.0.
fn version_divergence(rm: &ResMap, t: &TargetSelector, index: usize) -> Option<String> {
    let select = t.select.as_ref()?;
    let regex = IdMatchers::regex(t, select);
    let selectors = std::iter::once(select).chain(&t.reject);
    let regex_like = selectors.clone().any(|s| {
        [&s.group, &s.version, &s.kind, &s.name, &s.namespace]
            .iter()
            .any(|f| has_regex_syntax(f))
    });
    if !regex_like && regex.is_ok() {
        return None;
    }
    let exact = selected_ids(rm, t, select, &IdMatchers::exact(t, select))?;
    let list = |v: &[String]| {
        if v.is_empty() {
            "nothing".to_string()
        } else {
            v.join(", ")
        }
    };
    let regex = match regex {
        Ok(m) => selected_ids(rm, t, select, &m)?,
        Err(_) => {
            let what = not_a_regex(select, &t.reject)
                .map(|(field, value)| format!(" at {field} {value:?}"))
                .unwrap_or_default();
            return Some(format!(
                "targets[{index}] selects differently in kustomize versions: v5.8 reads \
                 select/reject fields as regular expressions and stops with \
                 \"error creating target selector\"{what}, v5.5.0 compares them exactly and \
                 selects {}; kdelta renders as v5.5.0",
                list(&exact)
            ));
        }
    };
    if exact == regex {
        return None;
    }
    Some(format!(
        "targets[{index}] selects differently in kustomize versions: v5.8 reads select/reject \
         fields as regular expressions and selects {}, v5.5.0 compares them exactly and selects {}; \
         kdelta renders as v5.8",
        list(&regex),
        list(&exact)
    ))
}

/// The first `select`/`reject` field that is not a regular expression, as `select.name`.
fn not_a_regex<'s>(select: &'s Selector, rejects: &'s [Selector]) -> Option<(String, &'s str)> {
    let entries = std::iter::once(("select".to_string(), select)).chain(
        rejects
            .iter()
            .enumerate()
            .map(|(i, r)| (format!("reject[{i}]"), r)),
    );
    for (at, s) in entries {
        let fields = [
            ("group", &s.group),
            ("version", &s.version),
            ("kind", &s.kind),
            ("name", &s.name),
            ("namespace", &s.namespace),
        ];
        for (field, value) in fields {
            if !value.is_empty() && regex::Regex::new(&format!("^(?:{value})$")).is_err() {
                return Some((format!("{at}.{field}"), value.as_str()));
            }
        }
    }
    None
}

/// The ids of the objects `matchers` select for target `t` (`None`: a label or annotation
/// selector does not parse, which applying the target reports).
fn selected_ids(
    rm: &ResMap,
    t: &TargetSelector,
    select: &Selector,
    matchers: &IdMatchers<'_>,
) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for res in &rm.list {
        if !label_selectors_match(res, select).ok()?
            || rejected_by_labels(res, t.reject.iter()).ok()?
        {
            continue;
        }
        if matchers.selects(&res_ids(res)) {
            out.push(res.cur_id().to_string());
        }
    }
    Some(out)
}

/// How a target's `select` and `reject` entries compare a resource's ids: as v5.8's anchored
/// regular expressions, or exactly as v5.5.0's `ResId.IsSelectedBy`.
enum IdMatch {
    Regex(SelectorMatcher),
    Exact(KId),
}

impl IdMatch {
    fn selects(&self, id: &KId) -> bool {
        match self {
            IdMatch::Regex(m) => id_matches(m, id),
            IdMatch::Exact(sel) => id.is_selected_by(sel),
        }
    }
}

/// A target's `select` matcher and its `reject` matchers, all compared the same way.
struct IdMatchers<'t> {
    select: IdMatch,
    rejects: Vec<(IdMatch, &'t Selector)>,
}

impl<'t> IdMatchers<'t> {
    /// v5.8's regular expressions (`NewTargetSelectorRegex`), or why one does not compile.
    fn regex(t: &'t TargetSelector, select: &Selector) -> Result<Self, SelectorError> {
        Ok(IdMatchers {
            select: IdMatch::Regex(SelectorMatcher::new(select)?),
            rejects: t
                .reject
                .iter()
                .map(|r| SelectorMatcher::new(r).map(|m| (IdMatch::Regex(m), r)))
                .collect::<Result<_, _>>()?,
        })
    }

    /// v5.5.0's exact comparison (`ResId.IsSelectedBy` in `applyReplacement` and
    /// `containsRejectId`).
    fn exact(t: &'t TargetSelector, select: &Selector) -> Self {
        let id = |s: &Selector| selector_id(&s.group, &s.version, &s.kind, &s.name, &s.namespace);
        IdMatchers {
            select: IdMatch::Exact(id(select)),
            rejects: t
                .reject
                .iter()
                .map(|r| (IdMatch::Exact(id(r)), r))
                .collect(),
        }
    }

    /// True when one of `ids` is selected and none is rejected (a reject entry without group,
    /// version, kind, name and namespace rejects nothing by id).
    fn selects(&self, ids: &[KId]) -> bool {
        let rejected = self.rejects.iter().any(|(m, r)| {
            let empty = r.group.is_empty()
                && r.version.is_empty()
                && r.kind.is_empty()
                && r.name.is_empty()
                && r.namespace.is_empty();
            !empty && ids.iter().any(|id| m.selects(id))
        });
        !rejected && ids.iter().any(|id| self.select.selects(id))
    }
}

/// The replacement's value. Without a delimiter kustomize holds the source node itself, not a
/// copy, so a target that rewrites the source field changes what later targets receive.
struct SourceValue {
    value: Node,
    /// The source object and field, when the value is read live.
    live: Option<(usize, Vec<String>)>,
}

impl SourceValue {
    fn current(&self, rm: &ResMap) -> Node {
        self.live
            .as_ref()
            .and_then(|(i, path)| pathmatch::lookup(&rm.list[*i].node, path).ok().flatten())
            .cloned()
            .unwrap_or_else(|| self.value.clone())
    }
}

/// kustomize `MakeResIds`: the current id and every previous one (scope never set).
fn res_ids(r: &Res) -> Vec<KId> {
    let mut cur = r.cur_id();
    cur.gvk.cluster_scoped = false;
    let mut ids = vec![cur];
    ids.extend(r.prev_ids());
    ids
}

fn selector_id(group: &str, version: &str, kind: &str, name: &str, namespace: &str) -> KId {
    KId {
        gvk: Gvk {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
            cluster_scoped: false,
        },
        name: name.into(),
        namespace: namespace.into(),
    }
}

fn describe_source(s: &SourceSelector) -> String {
    format!(
        "{}:{}",
        selector_id(&s.group, &s.version, &s.kind, &s.name, &s.namespace),
        s.field_path
    )
}

fn source_value(rm: &ResMap, r: &ReplacementField) -> Result<SourceValue, ReplacementError> {
    match (&r.source, &r.source_value) {
        (Some(_), Some(_)) => Err(err(
            rules::KUSTOMIZE_REPLACEMENT_INVALID,
            "value and resource selectors are mutually exclusive",
        )),
        (None, Some(v)) => Ok(SourceValue {
            value: Node::plain(v.clone()),
            live: None,
        }),
        (None, None) => unreachable!("checked by the caller"),
        (Some(s), None) => {
            let sel = selector_id(&s.group, &s.version, &s.kind, &s.name, &s.namespace);
            let mut found: Option<usize> = None;
            for (i, res) in rm.list.iter().enumerate() {
                if res_ids(res).iter().any(|id| id.is_selected_by(&sel)) {
                    if found.is_some() {
                        return Err(err(
                            rules::KUSTOMIZE_REPLACEMENT_AMBIGUOUS_SOURCE,
                            format!("multiple matches for selector {}", describe_source(s)),
                        ));
                    }
                    found = Some(i);
                }
            }
            let Some(index) = found else {
                return Err(err(
                    rules::KUSTOMIZE_REPLACEMENT_SOURCE_NOT_FOUND,
                    format!("nothing selected by {}", describe_source(s)),
                ));
            };
            let field_path = if s.field_path.is_empty() {
                "metadata.name"
            } else {
                &s.field_path
            };
            let path = pathmatch::split(field_path);
            let node = pathmatch::lookup(&rm.list[index].node, &path).map_err(|e| {
                err(
                    rules::KUSTOMIZE_REPLACEMENT_SOURCE_FIELD,
                    format!("error looking up replacement source: {e}"),
                )
            })?;
            let node = match node {
                Some(n) if !is_nil_or_empty(n) => n.clone(),
                _ => {
                    return Err(err(
                        rules::KUSTOMIZE_REPLACEMENT_SOURCE_FIELD_MISSING,
                        format!(
                            "fieldPath `{field_path}` is missing for replacement source {}",
                            selector_id(&s.group, &s.version, &s.kind, &s.name, &s.namespace)
                        ),
                    ))
                }
            };
            let refined = s.options.as_ref().is_some_and(|o| !o.delimiter.is_empty());
            Ok(SourceValue {
                value: refine(s.options.as_ref(), node)?,
                live: (!refined).then_some((index, path)),
            })
        }
    }
}

fn is_nil_or_empty(n: &Node) -> bool {
    match &n.kind {
        NodeKind::Scalar(_) => n.is_null(),
        NodeKind::Seq(items) => items.is_empty(),
        NodeKind::Map(entries) => entries.is_empty(),
    }
}

/// Source `delimiter`/`index`: one part of the source text.
fn refine(options: Option<&FieldOptions>, mut node: Node) -> Result<Node, ReplacementError> {
    let Some(o) = options.filter(|o| !o.delimiter.is_empty()) else {
        return Ok(node);
    };
    let parsed = node.span.is_known() && !node.untagged();
    let NodeKind::Scalar(s) = &mut node.kind else {
        return Err(err(
            rules::KUSTOMIZE_REPLACEMENT_DELIMITER,
            "delimiter option can only be used with scalar nodes",
        ));
    };
    let parts: Vec<&str> = s.text.split(o.delimiter.as_str()).collect();
    if o.index < 0 || o.index as usize >= parts.len() {
        return Err(err(
            rules::KUSTOMIZE_REPLACEMENT_INDEX_OUT_OF_RANGE,
            format!(
                "options.index {} is out of bounds for value {}",
                o.index, s.text
            ),
        ));
    }
    let part = parts[o.index as usize].to_string();
    pin_tag(s, parsed);
    s.text = part;
    Ok(node)
}

/// go-yaml v3 resolves a parsed plain scalar's tag when parsing and keeps it when only the text
/// is replaced: "PORT" stays a string after becoming "8080", `replicas: 1` stays an int.
/// Scalars kustomize creates itself carry no tag (they have no source position here, or are
/// marked [`Node::untagged`]).
fn pin_tag(s: &mut crate::yaml::Scalar, parsed: bool) {
    if parsed && s.tag.is_none() && s.style == crate::yaml::ScalarStyle::Plain {
        s.tag = Some(yaml::plain_tag(&s.text, Dialect::Yaml12).into());
    }
}

fn id_matches(m: &SelectorMatcher, id: &KId) -> bool {
    m.matches_gvk(&id.gvk) && m.matches_name(&id.name) && m.matches_namespace(&id.namespace)
}

fn label_selectors_match(r: &Res, sel: &Selector) -> Result<bool, ReplacementError> {
    let check = |expr: &str,
                 map: std::collections::BTreeMap<String, String>|
     -> Result<bool, ReplacementError> {
        if expr.is_empty() {
            return Ok(true);
        }
        LabelSelector::parse(expr)
            .map(|s| s.matches(&map))
            .map_err(|e| err(rules::KUSTOMIZE_REPLACEMENT_INVALID_SELECTOR, e.to_string()))
    };
    Ok(
        check(&sel.annotation_selector, r.annotations())?
            && check(&sel.label_selector, r.labels())?,
    )
}

/// True when a `reject` entry with a label or annotation selector matches `res` (those match
/// the same way in every kustomize version).
fn rejected_by_labels<'s>(
    res: &Res,
    rejects: impl Iterator<Item = &'s Selector>,
) -> Result<bool, ReplacementError> {
    for r in rejects {
        if r.annotation_selector.is_empty() && r.label_selector.is_empty() {
            continue;
        }
        if label_selectors_match(res, r)? {
            return Ok(true);
        }
    }
    Ok(false)
}

fn apply_target(
    rm: &mut ResMap,
    source: &SourceValue,
    t: &TargetSelector,
) -> Result<(), ReplacementError> {
    let Some(select) = &t.select else {
        return Err(err(
            rules::KUSTOMIZE_REPLACEMENT_INVALID,
            "target must specify resources to select",
        ));
    };
    // A field that is no regular expression stops v5.8 (`error creating target selector`);
    // v5.5.0, the reference, compares the fields exactly and renders.
    let matchers = IdMatchers::regex(t, select).unwrap_or_else(|_| IdMatchers::exact(t, select));
    let field_paths: Vec<String> = if t.field_paths.is_empty() {
        vec!["metadata.name".to_string()]
    } else {
        t.field_paths.clone()
    };
    for i in 0..rm.list.len() {
        let res = &rm.list[i];
        if !label_selectors_match(res, select)? {
            continue;
        }
        if rejected_by_labels(res, t.reject.iter())? {
            continue;
        }
        if !matchers.selects(&res_ids(res)) {
            continue;
        }
        let target_id = res.cur_id();
        for fp in &field_paths {
            let value = source.current(rm);
            copy_to_field(&mut rm.list[i].node, &value, fp, t.options.as_ref()).map_err(|e| {
                ReplacementError {
                    message: format!("{} (target {target_id})", e.message),
                    ..e
                }
            })?;
        }
    }
    Ok(())
}

fn copy_to_field(
    obj: &mut Node,
    value: &Node,
    fp: &str,
    options: Option<&FieldOptions>,
) -> Result<(), ReplacementError> {
    let create = options.filter(|o| o.create).map(|_| Create::of(value));
    // As kustomize, a path that does not lead into structured data (or fails there) is
    // then followed as a plain field path, whose failure is the one reported.
    if set_in_structured_data(obj, value, fp, create, options).is_some() {
        return Ok(());
    }
    let path = pathmatch::split(fp);
    let retrieval = |cause: Option<pathmatch::PathError>| {
        let what = if create.is_some() {
            "unable to find or create field"
        } else {
            "unable to find field"
        };
        let rule = rules::KUSTOMIZE_REPLACEMENT_TARGET_NOT_FOUND;
        match cause {
            Some(c) => err(rule, format!("{what} {fp:?} in replacement target: {c}")),
            None => err(rule, format!("{what} {fp:?} in replacement target")),
        }
    };
    let mut failure: Option<ReplacementError> = None;
    // Targets written in place that kustomize placed at several paths (labels).
    let mut written = Vec::new();
    let n = pathmatch::visit::<pathmatch::PathError>(obj, &path, create, &mut |t| {
        match set_field_value(options, t, value) {
            Ok(()) if t.shared() != 0 => written.push((t.shared(), t.kind.clone())),
            Ok(()) => {}
            Err(e) => {
                failure.get_or_insert(e);
            }
        }
        Ok(())
    })
    .map_err(|e| retrieval(Some(e)))?;
    if let Some(e) = failure {
        return Err(e);
    }
    for (identity, kind) in written {
        obj.write_shared(identity, &kind);
    }
    if n == 0 {
        return Err(retrieval(None));
    }
    Ok(())
}

/// kustomize `setFieldValue`: a scalar target keeps its tag and style and takes the value's
/// text (with the delimiter options); any other target is replaced by the value node.
fn set_field_value(
    options: Option<&FieldOptions>,
    target: &mut Node,
    value: &Node,
) -> Result<(), ReplacementError> {
    let mut value = value.clone().unshared();
    if let Some(o) = options.filter(|o| !o.delimiter.is_empty()) {
        let NodeKind::Scalar(t) = &target.kind else {
            return Err(err(
                rules::KUSTOMIZE_REPLACEMENT_DELIMITER,
                "delimiter option can only be used with scalar nodes",
            ));
        };
        let mut parts: Vec<String> = t
            .text
            .split(o.delimiter.as_str())
            .map(str::to_string)
            .collect();
        let v = value.as_str().unwrap_or("").to_string();
        if o.index < 0 {
            parts.insert(0, v);
        } else if o.index as usize >= parts.len() {
            parts.push(v);
        } else {
            parts[o.index as usize] = v;
        }
        if let NodeKind::Scalar(s) = &mut value.kind {
            s.text = parts.join(&o.delimiter);
        }
    }
    let parsed = target.span.is_known() && !target.untagged();
    match (&mut target.kind, &value.kind) {
        (NodeKind::Scalar(t), NodeKind::Scalar(v)) => {
            pin_tag(t, parsed);
            t.text = v.text.clone();
        }
        _ => {
            let (span, identity) = (target.span, target.shared());
            *target = value.at(span);
            target.set_shared(identity);
        }
    }
    Ok(())
}

/// kustomize v5.8 `setValueInStructuredData`: when a prefix of the path is a string holding YAML
/// or JSON, the rest of the path is followed inside it and the string is re-serialised.
fn set_in_structured_data(
    obj: &mut Node,
    value: &Node,
    fp: &str,
    create: Option<Create>,
    options: Option<&FieldOptions>,
) -> Option<()> {
    let parts = pathmatch::split(fp);
    if parts.len() < 2 {
        return None;
    }
    let mut carrier: Option<(usize, Node)> = None;
    for i in 1..parts.len() {
        let Ok(Some(n)) = pathmatch::lookup(obj, &parts[..i]) else {
            continue;
        };
        if let NodeKind::Scalar(s) = &n.kind {
            if let Ok(parsed) = yaml::parse_one(s.text.as_bytes(), &ParseOptions::default()) {
                carrier = Some((i, parsed));
                break;
            }
        }
    }
    let (i, mut doc) = carrier?;
    let original = pathmatch::lookup(obj, &parts[..i])
        .ok()
        .flatten()
        .and_then(Node::as_str)
        .unwrap_or("")
        .to_string();
    if original.trim().is_empty() {
        return None;
    }
    let mut failed = false;
    let n = pathmatch::visit::<pathmatch::PathError>(&mut doc, &parts[i..], create, &mut |t| {
        failed |= set_field_value(options, t, value).is_err();
        Ok(())
    })
    .ok()?;
    if failed || n == 0 {
        return None;
    }
    let serialized = serialize_embedded(&doc, &original).ok()?;
    let mut wrote = false;
    pathmatch::visit::<pathmatch::PathError>(obj, &parts[..i], None, &mut |carrier| {
        if let NodeKind::Scalar(s) = &mut carrier.kind {
            if !wrote {
                s.text = serialized.clone();
                wrote = true;
            }
        }
        Ok(())
    })
    .ok()?;
    Some(())
}

/// JSON when the original text starts with `{` or `[` (pretty with two spaces when the original
/// had a newline and a double space), otherwise kyaml-style YAML, trimmed.
pub fn serialize_embedded(doc: &Node, original: &str) -> Result<String, yaml::ValueError> {
    let first = original.trim_start().chars().next();
    if matches!(first, Some('{' | '[')) {
        let v = yaml::to_value(doc, Dialect::Yaml12)?;
        if original.contains('\n') && original.contains("  ") {
            return Ok(go_json_indent(&v, 0));
        }
        return Ok(super::super::hash::go_json(&v));
    }
    Ok(yaml::emit::node_to_string(doc).trim().to_string())
}

/// Go `json.MarshalIndent(v, "", "  ")`.
fn go_json_indent(v: &serde_json::Value, depth: usize) -> String {
    use serde_json::Value;
    let pad = |d: usize| "  ".repeat(d);
    match v {
        Value::Array(items) if !items.is_empty() => {
            let inner: Vec<String> = items
                .iter()
                .map(|x| format!("{}{}", pad(depth + 1), go_json_indent(x, depth + 1)))
                .collect();
            format!("[\n{}\n{}]", inner.join(",\n"), pad(depth))
        }
        Value::Object(m) if !m.is_empty() => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let inner: Vec<String> = keys
                .into_iter()
                .map(|k| {
                    format!(
                        "{}{}: {}",
                        pad(depth + 1),
                        super::super::hash::go_json(&Value::String(k.clone())),
                        go_json_indent(&m[k.as_str()], depth + 1)
                    )
                })
                .collect();
            format!("{{\n{}\n{}}}", inner.join(",\n"), pad(depth))
        }
        other => super::super::hash::go_json(other),
    }
}

/// Why a `path:` replacement file holds no replacements.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplacementFileError {
    /// A replacement does not decode; the error's span is where, in the file.
    #[error("{0}")]
    Decode(crate::yaml::de::DeError),
    /// The file is a scalar.
    #[error("unsupported replacement type encountered within replacement path")]
    Unsupported { span: Span },
}

impl ReplacementFileError {
    /// Where in the file the error is.
    pub fn span(&self) -> Span {
        match self {
            ReplacementFileError::Decode(e) => e.span,
            ReplacementFileError::Unsupported { span } => *span,
        }
    }
}

/// Loads `path:` replacement files: a list of replacements or a single one.
pub fn parse_file(node: &Node) -> Result<Vec<ReplacementField>, ReplacementFileError> {
    use crate::yaml::de::from_node_go_json;
    match &node.kind {
        NodeKind::Seq(_) => {
            from_node_go_json(node, Dialect::Yaml11).map_err(ReplacementFileError::Decode)
        }
        NodeKind::Map(_) => from_node_go_json::<ReplacementField>(node, Dialect::Yaml11)
            .map(|r| vec![r])
            .map_err(ReplacementFileError::Decode),
        NodeKind::Scalar(_) => Err(ReplacementFileError::Unsupported { span: node.span }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty_json_like_go() {
        let v = serde_json::json!({"b": [1, {"c": "<x>"}], "a": {}, "e": []});
        assert_eq!(
            go_json_indent(&v, 0),
            "{\n  \"a\": {},\n  \"b\": [\n    1,\n    {\n      \"c\": \"\\u003cx\\u003e\"\n    }\n  ],\n  \"e\": []\n}"
        );
    }
}
