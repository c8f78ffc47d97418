//! The node graph the merge works on. kyaml's merge mutates `yaml.Node`s in place through
//! shared pointers: a merged list element is the destination's element object, a list under
//! construction holds the same objects as the destination list, and replacing a field value
//! copies one node over another. Which object ends up where decides the result in corner cases
//! (see `$patch: replace` on a list item), so the merge runs on an arena whose ids play the
//! role of those pointers, and converts from and to [`Node`] trees at the edges.

use crate::yaml::{Node, NodeKind, Scalar, ScalarStyle, Span};
use std::collections::HashMap;

/// A node's identity in the arena (kyaml: a `*yaml.Node`).
pub type Id = usize;

/// The content of an arena node.
#[derive(Clone, Debug)]
pub enum Kind {
    Scalar(Scalar),
    Seq(Vec<Id>),
    /// Keys stay plain nodes: the merge only reads their text.
    Map(Vec<(Node, Id)>),
}

/// One node.
#[derive(Clone, Debug)]
pub struct ANode {
    pub kind: Kind,
    pub span: Span,
    /// Made by kyaml's `NewScalarRNode`: untagged, so never null while merging.
    pub untagged: bool,
    /// kyaml's `ShouldKeep`: a null that a field setter keeps instead of deleting the field.
    pub keep: bool,
    /// A flow collection (go-yaml's `FlowStyle`, part of the style a field setter copies).
    pub flow: bool,
}

/// The node kind names kyaml's errors use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KindName {
    Scalar,
    Seq,
    Map,
}

impl KindName {
    /// go-yaml's name for the kind.
    pub fn go_name(self) -> &'static str {
        match self {
            KindName::Scalar => "ScalarNode",
            KindName::Seq => "SequenceNode",
            KindName::Map => "MappingNode",
        }
    }
}

/// All nodes of one merge.
#[derive(Debug, Default)]
pub struct Arena {
    nodes: Vec<ANode>,
    /// The arena node of each shared scalar imported so far ([`Node::shared`]).
    shared: HashMap<u32, Id>,
}

impl Arena {
    /// Copies a tree in, returning the id of its root. Scalars that stand for one shared Go
    /// object become one arena node, so in-place writes during the merge reach all of them.
    pub fn import(&mut self, node: &Node) -> Id {
        if node.shared() != 0 && matches!(node.kind, NodeKind::Scalar(_)) {
            if let Some(&id) = self.shared.get(&node.shared()) {
                return id;
            }
        }
        let kind = match &node.kind {
            NodeKind::Scalar(s) => Kind::Scalar(s.clone()),
            NodeKind::Seq(items) => Kind::Seq(items.iter().map(|n| self.import(n)).collect()),
            NodeKind::Map(entries) => Kind::Map(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), self.import(v)))
                    .collect(),
            ),
        };
        let id = self.add(kind, node.span);
        self.nodes[id].flow = node.flow();
        // A plain scalar kdelta made rather than read stands for one kustomize made with
        // `NewScalarRNode`: no tag at all.
        if let NodeKind::Scalar(s) = &node.kind {
            self.nodes[id].untagged =
                s.tag.is_none() && s.style == ScalarStyle::Plain && !node.span.is_known();
        }
        if node.shared() != 0 && matches!(node.kind, NodeKind::Scalar(_)) {
            self.shared.insert(node.shared(), id);
        }
        id
    }

    /// Copies the tree at `id` out; a scalar node reached at several places comes out as
    /// nodes sharing one [`Node::shared`] identity. `max_depth` bounds the walk (the graph
    /// could in theory share a node with its own descendant); `None` when exceeded.
    pub fn export(&self, id: Id, max_depth: usize) -> Option<Node> {
        let mut seen = HashMap::new();
        self.count_scalars(id, max_depth, &mut seen)?;
        let identities: HashMap<Id, u32> = seen
            .into_iter()
            .filter(|&(_, count)| count > 1)
            .map(|(id, _)| (id, Node::next_shared_id()))
            .collect();
        self.export_with(id, max_depth, &identities)
    }

    fn count_scalars(&self, id: Id, max_depth: usize, seen: &mut HashMap<Id, u32>) -> Option<()> {
        let depth = max_depth.checked_sub(1)?;
        match &self.nodes.get(id)?.kind {
            Kind::Scalar(_) => *seen.entry(id).or_default() += 1,
            Kind::Seq(items) => {
                for i in items {
                    self.count_scalars(*i, depth, seen)?;
                }
            }
            Kind::Map(entries) => {
                for (_, v) in entries {
                    self.count_scalars(*v, depth, seen)?;
                }
            }
        }
        Some(())
    }

    fn export_with(&self, id: Id, max_depth: usize, identities: &HashMap<Id, u32>) -> Option<Node> {
        let n = self.nodes.get(id)?;
        let depth = max_depth.checked_sub(1)?;
        let kind = match &n.kind {
            Kind::Scalar(s) => NodeKind::Scalar(s.clone()),
            Kind::Seq(items) => NodeKind::Seq(
                items
                    .iter()
                    .map(|i| self.export_with(*i, depth, identities))
                    .collect::<Option<_>>()?,
            ),
            Kind::Map(entries) => NodeKind::Map(
                entries
                    .iter()
                    .map(|(k, v)| Some((k.clone(), self.export_with(*v, depth, identities)?)))
                    .collect::<Option<_>>()?,
            ),
        };
        Some(Node::from_parts(
            kind,
            n.span,
            n.flow,
            identities.get(&id).copied().unwrap_or(0),
        ))
    }

    /// A new node.
    pub fn add(&mut self, kind: Kind, span: Span) -> Id {
        self.nodes.push(ANode {
            kind,
            span,
            untagged: false,
            keep: false,
            flow: false,
        });
        self.nodes.len() - 1
    }

    /// A new empty sequence.
    pub fn new_seq(&mut self) -> Id {
        self.add(Kind::Seq(Vec::new()), Span::default())
    }

    /// kyaml `NewScalarRNode(text)`: a plain scalar without a tag.
    pub fn new_plain(&mut self, text: &str) -> Id {
        let id = self.add(
            Kind::Scalar(Scalar {
                text: text.to_string(),
                style: ScalarStyle::Plain,
                tag: None,
            }),
            Span::default(),
        );
        self.nodes[id].untagged = true;
        id
    }

    /// kyaml `MakePersistentNullNode(text)`.
    pub fn new_kept_null(&mut self, text: &str, span: Span) -> Id {
        let id = self.add(
            Kind::Scalar(Scalar {
                text: text.to_string(),
                style: ScalarStyle::Plain,
                tag: Some("!!null".into()),
            }),
            span,
        );
        self.nodes[id].keep = true;
        id
    }

    /// The node `id`. Ids come only from this arena, so the index is always valid.
    pub fn get(&self, id: Id) -> &ANode {
        &self.nodes[id]
    }

    /// The node `id`, mutably.
    pub fn get_mut(&mut self, id: Id) -> &mut ANode {
        &mut self.nodes[id]
    }

    /// kyaml `SetYNode`: node `to` takes a shallow copy of node `from` (children shared).
    /// `keep` belongs to kyaml's wrapper, not to the node, so it is not copied.
    pub fn overwrite(&mut self, to: Id, from: Id) {
        if to != from {
            let mut copy = self.nodes[from].clone();
            copy.keep = false;
            self.nodes[to] = copy;
        }
    }

    /// The kind of a node.
    pub fn kind_name(&self, id: Id) -> KindName {
        match self.get(id).kind {
            Kind::Scalar(_) => KindName::Scalar,
            Kind::Seq(_) => KindName::Seq,
            Kind::Map(_) => KindName::Map,
        }
    }

    /// kyaml `IsTaggedNull` on a present node.
    pub fn is_null(&self, id: Id) -> bool {
        let n = self.get(id);
        match &n.kind {
            Kind::Scalar(s) if !n.untagged => scalar_is_null(s),
            _ => false,
        }
    }

    /// kyaml `IsMissingOrNull`.
    pub fn missing_or_null(&self, id: Option<Id>) -> bool {
        id.is_none_or(|i| self.is_null(i))
    }

    /// kyaml `IsEmptyMap`: missing, null, or a mapping without entries.
    pub fn is_empty_map(&self, id: Option<Id>) -> bool {
        match id {
            None => true,
            Some(i) => self.is_null(i) || matches!(&self.get(i).kind, Kind::Map(m) if m.is_empty()),
        }
    }

    /// kyaml `IsNilOrEmpty` of a field value: null, or an empty mapping or sequence.
    pub fn is_nil_or_empty(&self, id: Id) -> bool {
        self.is_null(id)
            || match &self.get(id).kind {
                Kind::Map(m) => m.is_empty(),
                Kind::Seq(s) => s.is_empty(),
                Kind::Scalar(_) => false,
            }
    }

    /// go-yaml's `Node.Value`: a scalar's text, empty for collections.
    pub fn value(&self, id: Id) -> &str {
        match &self.get(id).kind {
            Kind::Scalar(s) => &s.text,
            _ => "",
        }
    }

    /// go-yaml's `Node.Content` of a sequence (empty for other kinds).
    pub fn items(&self, id: Id) -> Vec<Id> {
        match &self.get(id).kind {
            Kind::Seq(items) => items.clone(),
            _ => Vec::new(),
        }
    }

    /// Replaces a sequence's items (no effect on other kinds).
    pub fn set_items(&mut self, id: Id, new: Vec<Id>) {
        if let Kind::Seq(items) = &mut self.get_mut(id).kind {
            *items = new;
        }
    }

    /// Appends to a sequence (no effect on other kinds).
    pub fn push_item(&mut self, id: Id, item: Id) {
        if let Kind::Seq(items) = &mut self.get_mut(id).kind {
            items.push(item);
        }
    }

    /// The keys of a mapping, in order (kyaml `Fields`; empty for other kinds).
    pub fn field_names(&self, id: Id) -> Vec<String> {
        match &self.get(id).kind {
            Kind::Map(m) => m
                .iter()
                .map(|(k, _)| k.as_str().unwrap_or_default().to_string())
                .collect(),
            _ => Vec::new(),
        }
    }

    /// [`Arena::field_names`] and [`Arena::field`] of every name at once: the value of the
    /// first entry of each name in a mapping (a name without entry comes from a key that is
    /// not a scalar, which `field_names` gives as "").
    pub fn first_fields(&self, id: Id) -> HashMap<String, Option<Id>> {
        let mut out = HashMap::new();
        if let Kind::Map(m) = &self.get(id).kind {
            for (k, v) in m {
                match k.as_str() {
                    Some(name) => {
                        let first = out.entry(name.to_string()).or_insert(Some(*v));
                        first.get_or_insert(*v);
                    }
                    None => {
                        out.entry(String::new()).or_insert(None);
                    }
                }
            }
        }
        out
    }

    /// kyaml `Field(name)`: the value of the first entry called `name` in a mapping.
    pub fn field(&self, id: Id, name: &str) -> Option<Id> {
        match &self.get(id).kind {
            Kind::Map(m) => m
                .iter()
                .find(|(k, _)| k.as_str() == Some(name))
                .map(|(_, v)| *v),
            _ => None,
        }
    }

    /// kyaml `FieldClearer`: removes the first entry called `name`.
    pub fn remove_field(&mut self, id: Id, name: &str) {
        if let Kind::Map(m) = &mut self.get_mut(id).kind {
            if let Some(i) = m.iter().position(|(k, _)| k.as_str() == Some(name)) {
                m.remove(i);
            }
        }
    }

    /// Appends an entry to a mapping.
    pub fn push_field(&mut self, id: Id, name: &str, value: Id) {
        if let Kind::Map(m) = &mut self.get_mut(id).kind {
            m.push((Node::string(name), value));
        }
    }

    /// kyaml `ShortTag`, for messages: the tag a scalar resolves to.
    pub fn short_tag(&self, id: Id) -> String {
        match &self.get(id).kind {
            Kind::Scalar(s) => match (&s.tag, s.style) {
                (Some(t), _) => t.to_string(),
                (None, ScalarStyle::Plain) => {
                    crate::yaml::plain_tag(&s.text, crate::yaml::Dialect::Yaml12).to_string()
                }
                (None, _) => "!!str".to_string(),
            },
            Kind::Seq(_) => "!!seq".to_string(),
            Kind::Map(_) => "!!map".to_string(),
        }
    }
}

/// go-yaml v3's null: tagged `!!null`, or a plain `~`, `null`, `Null`, `NULL` or nothing.
fn scalar_is_null(s: &Scalar) -> bool {
    match s.tag.as_deref() {
        Some(tag) => tag == "!!null",
        None => {
            s.style == ScalarStyle::Plain
                && matches!(s.text.as_str(), "" | "~" | "null" | "Null" | "NULL")
        }
    }
}
