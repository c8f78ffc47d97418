//! A compact, read-only copy of node trees, for parses kept in a cache: one record per node in
//! document order and every scalar's text in one buffer, about a third of the memory of the
//! [`Node`] trees it was made from. A cached parse is handed out as fresh trees anyway (the
//! engines edit them), so thawing replaces a clone.

use super::node::{Node, NodeKind, Scalar, ScalarStyle, Span};

/// Node trees, frozen.
#[derive(Debug, Default)]
pub struct Frozen {
    /// Every node in pre-order: a collection is followed by its items (a mapping by its keys
    /// and values, alternating).
    nodes: Vec<Packed>,
    /// The scalars' texts, one after the other.
    text: String,
    /// The explicit tags, for the few scalars that have one.
    tags: Vec<Box<str>>,
    /// How many trees.
    roots: usize,
}

/// One node: what a [`Node`] holds, with its text as a range of [`Frozen::text`].
#[derive(Debug)]
struct Packed {
    /// Scalars: where the text starts. Collections: how many items (entries, for a mapping).
    start_or_len: u32,
    /// Scalars: the text's length.
    text_len: u32,
    /// The position's line and column: a frozen tree is a parse of one file, so every node is
    /// of the tree's own file ([`super::node::FileId::OWN`]).
    line: u32,
    column: u32,
    shared: u32,
    /// The tag's index in [`Frozen::tags`], plus one; zero for none.
    tag: u32,
    kind: PackedKind,
    flow: bool,
}

#[derive(Debug, Clone, Copy)]
enum PackedKind {
    Scalar(ScalarStyle),
    Seq,
    Map,
}

impl Frozen {
    /// Freezes `trees`. None when a count or text offset does not fit 32 bits (no blob the
    /// sources accept is that large), or when a node says it was read from another file.
    pub fn of(trees: &[Node]) -> Option<Frozen> {
        let mut out = Frozen {
            roots: trees.len(),
            ..Frozen::default()
        };
        for tree in trees {
            out.push(tree)?;
        }
        out.nodes.shrink_to_fit();
        out.text.shrink_to_fit();
        Some(out)
    }

    fn push(&mut self, node: &Node) -> Option<()> {
        if !node.span.file.is_own() {
            return None;
        }
        let mut packed = Packed {
            start_or_len: 0,
            text_len: 0,
            line: node.span.line,
            column: node.span.column,
            shared: node.shared(),
            tag: 0,
            kind: PackedKind::Seq,
            flow: node.flow(),
        };
        match &node.kind {
            NodeKind::Scalar(s) => {
                packed.start_or_len = u32::try_from(self.text.len()).ok()?;
                packed.text_len = u32::try_from(s.text.len()).ok()?;
                packed.kind = PackedKind::Scalar(s.style);
                if let Some(tag) = &s.tag {
                    self.tags.push(tag.clone());
                    packed.tag = u32::try_from(self.tags.len()).ok()?;
                }
                self.text.push_str(&s.text);
                self.nodes.push(packed);
            }
            NodeKind::Seq(items) => {
                packed.start_or_len = u32::try_from(items.len()).ok()?;
                self.nodes.push(packed);
                for item in items {
                    self.push(item)?;
                }
            }
            NodeKind::Map(entries) => {
                packed.start_or_len = u32::try_from(entries.len()).ok()?;
                packed.kind = PackedKind::Map;
                self.nodes.push(packed);
                for (key, value) in entries {
                    self.push(key)?;
                    self.push(value)?;
                }
            }
        }
        Some(())
    }

    /// The trees, as they were frozen.
    pub fn thaw(&self) -> Vec<Node> {
        let mut next = 0;
        (0..self.roots).map(|_| self.thaw_at(&mut next)).collect()
    }

    fn thaw_at(&self, next: &mut usize) -> Node {
        let packed = &self.nodes[*next];
        *next += 1;
        let kind = match packed.kind {
            PackedKind::Scalar(style) => {
                let start = packed.start_or_len as usize;
                NodeKind::Scalar(Scalar {
                    text: self.text[start..start + packed.text_len as usize].to_string(),
                    style,
                    tag: (packed.tag > 0).then(|| self.tags[packed.tag as usize - 1].clone()),
                })
            }
            PackedKind::Seq => NodeKind::Seq(
                (0..packed.start_or_len)
                    .map(|_| self.thaw_at(next))
                    .collect(),
            ),
            PackedKind::Map => NodeKind::Map(
                (0..packed.start_or_len)
                    .map(|_| {
                        let key = self.thaw_at(next);
                        (key, self.thaw_at(next))
                    })
                    .collect(),
            ),
        };
        let span = Span::new(packed.line, packed.column);
        Node::from_parts(kind, span, packed.flow, packed.shared)
    }

    /// The memory it takes, roughly (what a cache's budget counts).
    pub fn heap_bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Packed>()
            + self.text.capacity()
            + self.tags.iter().map(|t| t.len() + 16).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{parse_stream, ParseOptions};

    #[test]
    fn thawing_gives_back_the_trees_with_positions_styles_tags_and_flow() {
        let source = "a: 1\nb: [x, 'y', !!str 3]\nc:\n  d: |\n    text\n  e: {f: null}\n---\n- !custom q\n- \"\"\n---\n";
        let trees = parse_stream(source.as_bytes(), &ParseOptions::default()).unwrap();
        let mut shared = trees.clone();
        shared[0].set_shared(7);
        for t in [&trees, &shared] {
            let frozen = Frozen::of(t).unwrap();
            assert_eq!(frozen.thaw(), *t);
            assert_eq!(frozen.thaw()[0].shared(), t[0].shared());
        }
        assert!(Frozen::of(&[]).unwrap().thaw().is_empty());
    }

    #[test]
    fn a_frozen_tree_takes_far_less_memory_than_the_tree() {
        let source: String = (0..500)
            .map(|i| format!("- name: item-{i}\n  value: \"{i}\"\n  labels: {{app: web}}\n"))
            .collect();
        let trees = parse_stream(source.as_bytes(), &ParseOptions::default()).unwrap();
        let frozen = Frozen::of(&trees).unwrap();
        // Each item: its mapping, three keys, two scalar values and a mapping of one entry.
        let nodes = 500 * 9 + 1;
        let text: usize = (0..500).map(|i| 26 + 2 * i.to_string().len()).sum();
        // Not counting the trees' many small allocations, which take more still.
        let tree_bytes = nodes * std::mem::size_of::<Node>() + text;
        assert!(
            frozen.heap_bytes() * 2 < tree_bytes,
            "{} vs {tree_bytes}",
            frozen.heap_bytes()
        );
    }
}
