//! The API server's ObjectMeta rules on a walked object: the name per kind (or
//! `generateName`) and namespace of a resource or embedded resource, and the syntax of label
//! and annotation keys and values wherever ObjectMeta appears.

use super::catalog::split_api_version;
use super::check::{ScalarValue, Seg, ViolationKind, Walker};
use super::names::{self, NameRule};
use crate::yaml::Node;

impl<'n> Walker<'n> {
    /// The name rules of a resource's (or embedded resource's) `metadata`; labels and
    /// annotations are checked wherever ObjectMeta is.
    pub(super) fn resource_meta(&mut self, node: &'n Node, is_root: bool) {
        let api_version = node.str_at(&["apiVersion"]).unwrap_or_default();
        let kind = node.str_at(&["kind"]).unwrap_or_default();
        let (group, _) = split_api_version(api_version);
        let rule = NameRule::for_builtin_kind(group, kind);
        let meta = node.get("metadata").filter(|m| m.is_map());
        let field = |n: &'n Node, k: &str| {
            n.get_entry(k)
                .filter(|(_, v)| v.as_text().is_some_and(|t| !t.is_empty()))
        };
        let name = meta.and_then(|m| field(m, "name"));
        let generate = meta.and_then(|m| field(m, "generateName"));
        self.path.push(Seg::Field("metadata"));
        match (name, generate) {
            (Some((_, v)), _) => {
                let text = v.as_text().unwrap_or_default();
                for e in rule.check(text, false) {
                    let what = format!("Invalid value: {}: {e}", crate::go::json::quote(text));
                    self.report(Some(Seg::Field("name")), v.span, ViolationKind::Meta, what);
                }
            }
            (None, Some((_, v))) => {
                let text = v.as_text().unwrap_or_default();
                for e in rule.check(text, true) {
                    let what = format!("Invalid value: {}: {e}", crate::go::json::quote(text));
                    self.report(
                        Some(Seg::Field("generateName")),
                        v.span,
                        ViolationKind::Meta,
                        what,
                    );
                }
            }
            (None, None) if is_root => {
                let span = meta.map_or(node.span, |m| m.span);
                self.report(
                    Some(Seg::Field("name")),
                    span,
                    ViolationKind::Required,
                    "Required value: name or generateName is required".to_string(),
                );
            }
            (None, None) => {}
        }
        if let Some((_, v)) = meta.and_then(|m| field(m, "namespace")) {
            let text = v.as_text().unwrap_or_default();
            for e in names::dns1123_label(text) {
                let what = format!("Invalid value: {}: {e}", crate::go::json::quote(text));
                self.report(
                    Some(Seg::Field("namespace")),
                    v.span,
                    ViolationKind::Meta,
                    what,
                );
            }
        }
        self.path.pop();
    }

    pub(super) fn labels_and_annotations(&mut self, meta: &'n Node) {
        if let Some(labels) = meta.get("labels").and_then(Node::as_map) {
            self.path.push(Seg::Field("labels"));
            for (k, v) in labels {
                let Some(key) = k.as_str() else { continue };
                for e in names::qualified_name(key) {
                    let what = format!("Invalid value: {}: {e}", crate::go::json::quote(key));
                    self.report(None, k.span, ViolationKind::Meta, what);
                }
                if let Some(ScalarValue::Str(value)) = self.scalar_value(v.as_scalar()) {
                    for e in names::label_value(value) {
                        let what = format!("Invalid value: {}: {e}", crate::go::json::quote(value));
                        self.report(None, v.span, ViolationKind::Meta, what);
                    }
                }
            }
            self.path.pop();
        }
        if let Some(annotations) = meta.get("annotations").and_then(Node::as_map) {
            self.path.push(Seg::Field("annotations"));
            let mut total = 0usize;
            for (k, v) in annotations {
                let Some(key) = k.as_str() else { continue };
                total += key.len() + v.as_str().map_or(0, str::len);
                let lower;
                let checked = if key.bytes().any(|b| b.is_ascii_uppercase()) {
                    lower = key.to_ascii_lowercase();
                    lower.as_str()
                } else {
                    key
                };
                for e in names::qualified_name(checked) {
                    let what = format!("Invalid value: {}: {e}", crate::go::json::quote(key));
                    self.report(None, k.span, ViolationKind::Meta, what);
                }
            }
            const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;
            if total > TOTAL_ANNOTATION_SIZE_LIMIT {
                let what =
                    format!("Too long: must have at most {TOTAL_ANNOTATION_SIZE_LIMIT} bytes");
                self.report(None, meta.span, ViolationKind::Meta, what);
            }
            self.path.pop();
        }
    }
}
