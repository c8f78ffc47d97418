//! Positions through a JSON 6902 patch. The patch applies to the object as JSON (as kustomize
//! applies it), which has no positions: afterwards, the fields the patch left alone take back
//! their lines, and the fields an operation wrote take the lines of its value in the patch.

use super::json6902::{pointer_tokens as tokens, Op};
use crate::yaml::{Node, NodeKind};
use std::collections::HashMap;

/// Gives `patched` (the object rebuilt from JSON after `ops`) the positions of `before` at
/// the same paths, then those of each operation's value where it wrote it. Linear in the
/// trees and the operations: a patch of many operations on a wide map looks each key up once.
pub fn carry(patched: &mut Node, before: &Node, ops: &[Op]) {
    copy_spans(patched, before);
    let mut written = Trie::default();
    let mut sources_looked_up = 0;
    for op in ops {
        let source = match op.op.as_str() {
            "add" | "replace" => op.value_node.as_ref(),
            // Each looks its source up from the root: a bounded number of them.
            "copy" | "move" if sources_looked_up < MAX_SOURCE_LOOKUPS => {
                sources_looked_up += 1;
                op.from.as_deref().and_then(|from| at(before, from))
            }
            _ => None,
        };
        if let Some(source) = source {
            written.insert(tokens(&op.path), source);
        }
    }
    written.apply(patched);
}

/// Maps wider than this have their keys looked up by hash.
const WIDE: usize = 16;

/// `copy` and `move` operations whose source is looked up for its positions: each lookup walks
/// from the root, so a patch of very many of them leaves the rest unplaced.
const MAX_SOURCE_LOOKUPS: usize = 1000;

/// The values operations wrote, by the path they wrote them at (a later write wins).
#[derive(Default)]
struct Trie<'o> {
    here: Option<&'o Node>,
    below: HashMap<String, Trie<'o>>,
}

impl<'o> Trie<'o> {
    fn insert(&mut self, path: impl Iterator<Item = String>, source: &'o Node) {
        let mut at = self;
        for token in path {
            at = at.below.entry(token).or_default();
        }
        at.here = Some(source);
        // What was written below it before is overwritten with it.
        at.below.clear();
    }

    fn apply(&self, node: &mut Node) {
        if let Some(source) = self.here {
            copy_spans(node, source);
        }
        if self.below.is_empty() {
            return;
        }
        match &mut node.kind {
            NodeKind::Map(entries) => {
                for (k, v) in entries.iter_mut() {
                    if let Some(t) = k.as_str().and_then(|k| self.below.get(k)) {
                        t.apply(v);
                    }
                }
            }
            NodeKind::Seq(items) => {
                let len = items.len();
                for (token, t) in &self.below {
                    if let Some(item) = index(token, len).and_then(|i| items.get_mut(i)) {
                        t.apply(item);
                    }
                }
            }
            NodeKind::Scalar(_) => {}
        }
    }
}

/// Copies the positions of `from` onto `to` where the two trees have the same shape: the
/// node itself, a mapping's entries by key, a sequence's items by index when both have as
/// many (else by the `name` of each item, as Kubernetes keys most lists).
fn copy_spans(to: &mut Node, from: &Node) {
    to.span = from.span;
    match (&mut to.kind, &from.kind) {
        (NodeKind::Map(to), NodeKind::Map(from)) => {
            // A wide map's keys are looked up by hash, a narrow one's in turn.
            let by_key: HashMap<&str, &(Node, Node)> = if from.len() > WIDE {
                from.iter()
                    .filter_map(|e| Some((e.0.as_str()?, e)))
                    .collect()
            } else {
                HashMap::new()
            };
            for (k, v) in to.iter_mut() {
                let Some(key) = k.as_str() else { continue };
                let found = if from.len() > WIDE {
                    by_key.get(key).copied()
                } else {
                    from.iter().find(|(fk, _)| fk.as_str() == Some(key))
                };
                if let Some((fk, fv)) = found {
                    k.span = fk.span;
                    copy_spans(v, fv);
                }
            }
        }
        (NodeKind::Seq(to), NodeKind::Seq(from)) if to.len() == from.len() => {
            to.iter_mut().zip(from).for_each(|(t, f)| copy_spans(t, f));
        }
        (NodeKind::Seq(to), NodeKind::Seq(from)) => {
            let by_name: HashMap<&str, &Node> = from
                .iter()
                .filter_map(|f| Some((f.str_at(&["name"])?, f)))
                .collect();
            for item in to.iter_mut() {
                if let Some(old) = item.str_at(&["name"]).and_then(|n| by_name.get(n)) {
                    copy_spans(item, old);
                }
            }
        }
        _ => {}
    }
}

fn at<'a>(node: &'a Node, pointer: &str) -> Option<&'a Node> {
    let mut cur = node;
    for t in tokens(pointer) {
        cur = match &cur.kind {
            NodeKind::Map(entries) => &entries.iter().find(|(k, _)| k.as_str() == Some(&t))?.1,
            NodeKind::Seq(items) => items.get(index(&t, items.len())?)?,
            NodeKind::Scalar(_) => return None,
        };
    }
    Some(cur)
}

/// A sequence index: a number, or `-` (an item appended: the last one now).
fn index(token: &str, len: usize) -> Option<usize> {
    if token == "-" {
        return len.checked_sub(1);
    }
    token.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kustomize::transform::patch::parse_json_patch;
    use crate::yaml::{from_go_json, parse_one, to_value, Dialect, ParseOptions};

    fn lines(node: &Node, pointer: &str) -> u32 {
        at(node, pointer).map_or(0, |n| n.span.line)
    }

    #[test]
    fn untouched_fields_keep_their_lines_and_written_ones_take_the_patch_s() {
        let object = "kind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  \
                      template:\n    spec:\n      containers:\n      - name: web\n        \
                      image: nginx\n";
        let before = parse_one(object.as_bytes(), &ParseOptions::default()).unwrap();
        let patch = "- op: replace\n  path: /spec/replicas\n  value: 3\n\
                     - op: add\n  path: /spec/template/spec/containers/-\n  value:\n    \
                     name: sidecar\n    image: busybox\n\
                     - op: copy\n  from: /metadata/name\n  path: /metadata/label\n";
        let ops = parse_json_patch(patch).unwrap();
        let mut doc = to_value(&before, Dialect::Yaml12).unwrap();
        crate::kustomize::transform::json6902::apply(&mut doc, &ops).unwrap();
        let mut after = from_go_json(&doc);
        carry(&mut after, &before, &ops);

        // Left alone: the object's lines.
        assert_eq!(lines(&after, "/kind"), 1);
        assert_eq!(lines(&after, "/spec/template/spec/containers/0/image"), 10);
        // Written by an operation: its value's line in the patch.
        assert_eq!(lines(&after, "/spec/replicas"), 3);
        assert_eq!(lines(&after, "/spec/template/spec/containers/1/name"), 7);
        assert_eq!(lines(&after, "/spec/template/spec/containers/1/image"), 8);
        // Copied: where it was copied from.
        assert_eq!(lines(&after, "/metadata/label"), 3);
    }

    #[test]
    fn an_item_inserted_before_others_does_not_lend_them_its_neighbours_lines() {
        let object = "items:\n- name: a\n  v: 1\n- name: b\n  v: 2\n";
        let before = parse_one(object.as_bytes(), &ParseOptions::default()).unwrap();
        let patch = "\n\n- op: add\n  path: /items/0\n  value:\n    name: z\n    v: 0\n";
        let ops = parse_json_patch(patch).unwrap();
        let mut doc = to_value(&before, Dialect::Yaml12).unwrap();
        crate::kustomize::transform::json6902::apply(&mut doc, &ops).unwrap();
        let mut after = from_go_json(&doc);
        carry(&mut after, &before, &ops);
        assert_eq!(lines(&after, "/items/0/v"), 7);
        assert_eq!(lines(&after, "/items/1/v"), 3);
        assert_eq!(lines(&after, "/items/2/v"), 5);
    }
}
