//! kustomize's builtin transformers, one per file, each a function over the resource list.
//! The order they run in is written once, in `target.rs`, as in kustomize's kusttarget.

pub mod hash;
pub mod images;
pub mod json6902;
pub mod labels;
pub mod merge_values;
pub mod nameref;
pub mod namespace;
pub mod patch;
mod positions;
pub mod prefix_suffix;
pub mod replacement;
pub mod replicas;
pub mod sort;
pub mod value_add;
pub mod vars;

use super::fieldspec::FieldSpecError;
use crate::yaml::{Node, NodeKind, Scalar, ScalarStyle, Span};

/// A field setter met a node of another kind than it writes (kyaml's `ErrorIfInvalid`), with
/// the node as kyaml prints it and where it is written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("wrong node kind: expected {expected} but got {got}: node contents:\n{contents}")]
pub struct WrongKind {
    pub expected: &'static str,
    pub got: &'static str,
    /// The node, as kyaml prints it.
    pub contents: String,
    pub span: Span,
}

/// A field spec whose setter writes with [`set_scalar`] or [`set_entry`] failed.
pub type SetError = FieldSpecError<WrongKind>;

/// kyaml `FieldSetter{Name: ""}` on a scalar: the new text and tag, keeping the node's style
/// (so a quoted value stays quoted). go-yaml v3 writes a tag it set (not one read from the
/// source) only where the value would not resolve to it, and the values set here do (a replica
/// count is `!!int`): a quoted or block value is written without its `!!int` and reads back,
/// as kustomize prints every object, as a string (`replicas: "9"` after a JSON patch made
/// it a string).
pub fn set_scalar(node: &mut Node, value: &str, tag: Option<&str>) -> Result<(), WrongKind> {
    match &mut node.kind {
        NodeKind::Scalar(s) => {
            s.text = value.to_string();
            let dropped = s.style != ScalarStyle::Plain && tag != Some("!!str");
            s.tag = if dropped { None } else { tag.map(Box::from) };
            node.set_untagged(tag.is_none());
            Ok(())
        }
        NodeKind::Map(_) | NodeKind::Seq(_) => Err(wrong_kind("ScalarNode", node)),
    }
}

/// kyaml `FieldSetter{Name: key}` on a mapping: replaces the value in place (keeping its style
/// and identity) or appends the entry, whose value is then object `shared` (see
/// [`Node::shared`]). Returns the identity of the value it overwrote (0 for none), which the
/// caller writes through the rest of the resource.
pub fn set_entry(
    node: &mut Node,
    key: &str,
    value: &str,
    tag: Option<&str>,
    shared: u32,
) -> Result<u32, WrongKind> {
    let NodeKind::Map(entries) = &mut node.kind else {
        return Err(wrong_kind("MappingNode", node));
    };
    let new = |style| {
        Node::new(NodeKind::Scalar(Scalar {
            text: value.to_string(),
            style,
            tag: tag.map(Box::from),
        }))
    };
    match entries.iter_mut().find(|(k, _)| k.as_str() == Some(key)) {
        Some((_, v)) => {
            let style = v.as_scalar().map(|s| s.style).unwrap_or_default();
            let identity = v.shared();
            *v = new(style).at(v.span);
            v.set_shared(identity);
            Ok(identity)
        }
        None => {
            let mut v = new(ScalarStyle::Plain);
            v.set_shared(shared);
            entries.push((Node::plain(key), v));
            Ok(0)
        }
    }
}

/// kyaml's `ErrorIfInvalid`: the kind expected, the kind found, and the node.
pub(super) fn wrong_kind(expected: &'static str, n: &Node) -> WrongKind {
    WrongKind {
        expected,
        got: kind_name(n),
        contents: crate::yaml::emit::node_to_string(n),
        span: n.span,
    }
}

fn kind_name(n: &Node) -> &'static str {
    match n.kind {
        NodeKind::Scalar(_) => "ScalarNode",
        NodeKind::Seq(_) => "SequenceNode",
        NodeKind::Map(_) => "MappingNode",
    }
}
