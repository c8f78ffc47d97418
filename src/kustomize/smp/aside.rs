//! Keeping the merge proportional to the patch. Walking a field the patch does not mention
//! usually changes nothing, yet costs a copy into the arena and back: N patches that each add a
//! key to one mapping would cost N² copies. Before the merge, fields that only the resource has
//! and that the walk provably leaves as they are ("settled") are taken out of their mappings;
//! after it they are put back where they were. A field is settled when walking it alone cannot
//! change it, fail, or reach a node the rest of the walk reaches:
//! * a scalar that is not null and that the field setter would not re-quote,
//! * a mapping of such scalars and mappings with non-empty scalar keys,
//! * no shared (alias) scalars anywhere, and shallow enough that no depth limit applies.
//!
//! Sequences are never settled (whether they merge depends on the schema). `apiVersion` and
//! `kind` always stay, since the walk reads them to find a schema.

use super::filters::yaml11_quote_needed;
use crate::yaml::{Node, NodeKind, ScalarStyle};
use std::collections::{HashMap, HashSet};

/// Deepest mapping the set-aside descends to, and the height a settled value may have: far
/// below the walk's own depth limit, so setting a field aside never hides a depth error.
const MAX_ASIDE_DEPTH: usize = 100;
const MAX_SETTLED_HEIGHT: usize = 200;

/// What was taken out of one mapping of the resource.
pub(super) struct Aside {
    /// Number of entries the mapping had.
    len: usize,
    /// The entries taken out, with their original positions, in order.
    moved: Vec<(usize, (Node, Node))>,
    /// The keys of the entries left in, with their original positions, in order.
    kept: Vec<(usize, String)>,
    /// Set-asides inside kept mapping fields, by key.
    nested: Vec<(String, Aside)>,
}

/// Takes settled fields the patch does not mention out of `dest` (a resource, or a mapping in
/// it) where `patch` is the corresponding part of the patch. `None` when nothing was taken.
pub(super) fn set_aside(dest: &mut Node, patch: &Node, depth: usize) -> Option<Aside> {
    if depth > MAX_ASIDE_DEPTH || dest.shared() != 0 {
        return None;
    }
    let patch_entries = patch.as_map()?;
    let mut patch_fields: HashMap<&str, &Node> = HashMap::with_capacity(patch_entries.len());
    for (k, v) in patch_entries {
        let name = plain_key(k)?;
        // A directive decides the mapping's fate as a whole; duplicates make "the field"
        // ambiguous. Leave such mappings to the walk.
        if name == super::walk::DIRECTIVE || patch_fields.insert(name, v).is_some() {
            return None;
        }
    }
    let entries = dest.as_map()?;
    let mut names = HashSet::with_capacity(entries.len());
    if !entries
        .iter()
        .all(|(k, _)| plain_key(k).is_some_and(|n| names.insert(n)))
    {
        return None;
    }
    let len = entries.len();
    let keep: Vec<bool> = entries
        .iter()
        .map(|(k, v)| {
            let name = plain_key(k).expect("checked above");
            patch_fields.contains_key(name)
                || name == "apiVersion"
                || name == "kind"
                || !settled(v, MAX_SETTLED_HEIGHT)
        })
        .collect();
    let entries = dest.as_map_mut().expect("a mapping, checked above");
    let mut nested = Vec::new();
    for (i, (k, v)) in entries.iter_mut().enumerate() {
        let name = plain_key(k).expect("checked above");
        if !keep[i] || !v.is_map() {
            continue;
        }
        // Only where the walk merges the two mappings field by field (no directive, checked
        // by the recursive call) is the kept value still the resource's own mapping after it.
        let Some(p) = patch_fields.get(name).filter(|p| p.is_map()) else {
            continue;
        };
        if let Some(inner) = set_aside(v, p, depth + 1) {
            nested.push((name.to_string(), inner));
        }
    }
    if nested.is_empty() && keep.iter().all(|&k| k) {
        return None;
    }
    let mut moved = Vec::new();
    let mut kept = Vec::new();
    let mut left = Vec::with_capacity(keep.iter().filter(|&&k| k).count());
    for (i, entry) in std::mem::take(entries).into_iter().enumerate() {
        if keep[i] {
            kept.push((i, plain_key(&entry.0).unwrap_or_default().to_string()));
            left.push(entry);
        } else {
            moved.push((i, entry));
        }
    }
    *entries = left;
    Some(Aside {
        len,
        moved,
        kept,
        nested,
    })
}

/// Puts set-aside fields back into `merged` (what became of the mapping they were taken
/// from): each at its old position among the fields that were left in, and fields the merge
/// added after all of them, as the walk appends new fields.
pub(super) fn restore(merged: &mut Node, aside: Aside) {
    let Some(entries) = merged.as_map_mut() else {
        return; // the mapping was replaced as a whole: nothing taken from it survives
    };
    let mut position: HashMap<String, usize> = HashMap::with_capacity(entries.len());
    for (i, (k, _)) in entries.iter().enumerate() {
        if let Some(name) = plain_key(k) {
            position.entry(name.to_string()).or_insert(i);
        }
    }
    for (name, inner) in aside.nested {
        if let Some(&i) = position.get(&name) {
            restore(&mut entries[i].1, inner);
        }
    }
    let mut slots: Vec<Option<(Node, Node)>> =
        std::mem::take(entries).into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(aside.len + slots.len());
    let mut moved = aside.moved.into_iter().peekable();
    let mut kept = aside.kept.into_iter().peekable();
    for i in 0..aside.len {
        if moved.peek().is_some_and(|(at, _)| *at == i) {
            out.push(moved.next().expect("peeked").1);
        } else if kept.peek().is_some_and(|(at, _)| *at == i) {
            let (_, name) = kept.next().expect("peeked");
            // Gone when the merge deleted the field.
            if let Some(entry) = position.get(&name).and_then(|&p| slots[p].take()) {
                out.push(entry);
            }
        }
    }
    out.extend(slots.into_iter().flatten());
    *entries = out;
}

/// A key the walk can name: a non-empty scalar.
fn plain_key(k: &Node) -> Option<&str> {
    k.as_str().filter(|n| !n.is_empty())
}

/// True when walking `v` as a field the patch does not have leaves it exactly as it is.
fn settled(v: &Node, height: usize) -> bool {
    // The walk's copy back out drops the flow style and may share scalars.
    if height == 0 || v.shared() != 0 || v.flow() {
        return false;
    }
    match &v.kind {
        NodeKind::Scalar(s) => {
            // As the arena marks scalars kdelta made: untagged, never null.
            let untagged = s.tag.is_none() && s.style == ScalarStyle::Plain && !v.span.is_known();
            let null = !untagged
                && match s.tag.as_deref() {
                    Some(tag) => tag == "!!null",
                    None => {
                        s.style == ScalarStyle::Plain
                            && matches!(s.text.as_str(), "" | "~" | "null" | "Null" | "NULL")
                    }
                };
            !null && !yaml11_quote_needed(s, untagged)
        }
        NodeKind::Seq(_) => false,
        NodeKind::Map(entries) => entries
            .iter()
            .all(|(k, v)| plain_key(k).is_some() && settled(v, height - 1)),
    }
}
