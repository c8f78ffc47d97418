//! The YAML node tree: mappings (ordered), sequences and scalars with their source positions.
//! Scalars keep their raw text, style and tag; what type they are is decided later by a
//! [`Dialect`](super::Dialect), because Helm (YAML 1.1) and kustomize (YAML 1.2) disagree.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// A position in a source file (1-based). Line 0 means "made by kdelta, not read from a file".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub line: u32,
    pub column: u32,
    /// The file, when it is not the one the whole tree was read from: a field a kustomize
    /// patch wrote into an object keeps the patch file's line, and says so here.
    pub file: FileId,
}

impl Span {
    /// A position at `line`, `column` (both 1-based) of the tree's own file.
    pub fn new(line: u32, column: u32) -> Span {
        Span {
            line,
            column,
            file: FileId::OWN,
        }
    }

    /// True when the node was read from a file (not synthesised).
    pub fn is_known(&self) -> bool {
        self.line > 0
    }

    /// The same position, in the file named `name`.
    pub fn in_file(self, name: &str) -> Span {
        Span {
            file: FileId::of(name),
            ..self
        }
    }
}

/// Which file a node was read from, as an index into this process's table of file names
/// (interned once each): [`FileId::OWN`] is the file its whole tree came from (a resource's
/// origin), any other id names the file itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(u32);

/// The interned file names: the id of a name is its index in the list, plus one.
#[derive(Default)]
struct FileTable {
    ids: HashMap<Arc<str>, u32>,
    names: Vec<Arc<str>>,
}

fn file_table() -> std::sync::MutexGuard<'static, FileTable> {
    static TABLE: OnceLock<Mutex<FileTable>> = OnceLock::new();
    let table = TABLE.get_or_init(Default::default);
    table
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl FileId {
    /// The file the whole tree was read from.
    pub const OWN: FileId = FileId(0);

    /// The id of the file named `name` (the same id for the same name, for the whole run).
    pub fn of(name: &str) -> FileId {
        let mut table = file_table();
        if let Some(&id) = table.ids.get(name) {
            return FileId(id);
        }
        let name: Arc<str> = Arc::from(name);
        table.names.push(Arc::clone(&name));
        let id = u32::try_from(table.names.len()).unwrap_or(u32::MAX);
        table.ids.insert(name, id);
        FileId(id)
    }

    /// The file's name; None for [`FileId::OWN`].
    pub fn name(self) -> Option<Arc<str>> {
        let index = usize::try_from(self.0).ok()?.checked_sub(1)?;
        file_table().names.get(index).cloned()
    }

    /// True for [`FileId::OWN`].
    pub fn is_own(self) -> bool {
        self == FileId::OWN
    }
}

/// How a scalar was written in the source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ScalarStyle {
    #[default]
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

/// A scalar: its text as written (after unescaping), style and explicit tag (`!!str`, long form
/// normalised to the `!!` short form).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Scalar {
    pub text: String,
    pub style: ScalarStyle,
    pub tag: Option<Box<str>>,
}

impl Scalar {
    /// True when the scalar is a string whatever the dialect: quoted, block, or tagged `!!str`.
    pub fn is_string_literal(&self) -> bool {
        match self.tag.as_deref() {
            Some("!!str") => true,
            Some(_) => false,
            None => self.style != ScalarStyle::Plain,
        }
    }
}

/// The content of a node.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    Scalar(Scalar),
    Seq(Vec<Node>),
    /// Key/value pairs in source order (keys are unique after parsing).
    Map(Vec<(Node, Node)>),
}

/// A YAML node with its source position.
#[derive(Clone, Debug)]
pub struct Node {
    pub kind: NodeKind,
    pub span: Span,
    /// [`Node::shared`] in the low 30 bits, [`Node::flow`] and [`Node::untagged`] in the top
    /// two: one word, so that a node stays 64 bytes.
    marks: u32,
}

/// The top bit of [`Node::marks`].
const FLOW: u32 = 1 << 31;
/// The next bit of [`Node::marks`].
const UNTAGGED: u32 = 1 << 30;
/// The bits of [`Node::marks`] that hold [`Node::shared`].
const SHARED_ID: u32 = !(FLOW | UNTAGGED);

// Trees of millions of nodes are kept in memory: a file on each span must not make them bigger.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Node>() == 64);

/// Equal content and positions; which Go object a node stands for does not count.
impl PartialEq for Node {
    fn eq(&self, other: &Node) -> bool {
        self.kind == other.kind && self.span == other.span && self.flow() == other.flow()
    }
}

impl Node {
    /// True when both trees hold the same scalars (text, style, tag) in the same structure,
    /// wherever they were written and whatever their flow style: they read as the same value.
    pub fn same_content(&self, other: &Node) -> bool {
        match (&self.kind, &other.kind) {
            (NodeKind::Scalar(a), NodeKind::Scalar(b)) => a == b,
            (NodeKind::Seq(a), NodeKind::Seq(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_content(y))
            }
            (NodeKind::Map(a), NodeKind::Map(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|((k, v), (l, w))| k.same_content(l) && v.same_content(w))
            }
            _ => false,
        }
    }

    /// A node with an unknown (synthetic) position.
    pub fn new(kind: NodeKind) -> Node {
        Node {
            kind,
            span: Span::default(),
            marks: 0,
        }
    }

    /// A node of every part: for code that rebuilds one node from another's.
    pub fn from_parts(kind: NodeKind, span: Span, flow: bool, shared: u32) -> Node {
        let mut node = Node::new(kind).at(span);
        node.set_flow(flow);
        node.set_shared(shared);
        node
    }

    /// A collection written in flow style (`{a: 1}`, `[x]`); kept for kyaml-style re-emitting.
    pub fn flow(&self) -> bool {
        self.marks & FLOW != 0
    }

    /// Sets [`Node::flow`].
    pub fn set_flow(&mut self, flow: bool) {
        self.set_mark(FLOW, flow);
    }

    fn set_mark(&mut self, bit: u32, on: bool) {
        self.marks = if on {
            self.marks | bit
        } else {
            self.marks & !bit
        };
    }

    /// Non-zero when this node stands for one Go object that kustomize placed at several paths
    /// of a resource: every node of the resource with the same id is that object, so writing
    /// one in place writes them all (see `kustomize::shared`). Not part of equality.
    pub fn shared(&self) -> u32 {
        self.marks & SHARED_ID
    }

    /// Sets [`Node::shared`] (an id from [`Node::next_shared_id`], or 0 for none).
    pub fn set_shared(&mut self, id: u32) {
        self.marks = (self.marks & !SHARED_ID) | (id & SHARED_ID);
    }

    /// A scalar kustomize wrote with no tag (kyaml's `NodeTagEmpty`, as the prefix/suffix and
    /// image transformers write): go-yaml v3 gives it the type its text reads as whenever it
    /// prints it, even after a replacement changed the text, where a parsed scalar keeps the
    /// tag it was read with. Not part of equality.
    pub fn untagged(&self) -> bool {
        self.marks & UNTAGGED != 0
    }

    /// Sets [`Node::untagged`].
    pub fn set_untagged(&mut self, untagged: bool) {
        self.set_mark(UNTAGGED, untagged);
    }

    /// A plain scalar whose type is decided by resolution (`3` is an int, `true` a bool).
    pub fn plain(text: impl Into<String>) -> Node {
        Node::new(NodeKind::Scalar(Scalar {
            text: text.into(),
            style: ScalarStyle::Plain,
            tag: None,
        }))
    }

    /// A scalar that is a string in every dialect.
    pub fn string(text: impl Into<String>) -> Node {
        Node::new(NodeKind::Scalar(Scalar {
            text: text.into(),
            style: ScalarStyle::Plain,
            tag: Some("!!str".into()),
        }))
    }

    /// The null scalar.
    pub fn null() -> Node {
        Node::new(NodeKind::Scalar(Scalar {
            text: "null".to_string(),
            style: ScalarStyle::Plain,
            tag: Some("!!null".into()),
        }))
    }

    /// An empty mapping.
    pub fn map() -> Node {
        Node::new(NodeKind::Map(Vec::new()))
    }

    /// An empty sequence.
    pub fn seq() -> Node {
        Node::new(NodeKind::Seq(Vec::new()))
    }

    /// A fresh id for [`Node::shared`], never 0, below 2^31 (ids wrap around after two billion:
    /// they only need to differ within one resource).
    pub fn next_shared_id() -> u32 {
        use std::sync::atomic::{AtomicU32, Ordering};
        static NEXT: AtomicU32 = AtomicU32::new(1);
        loop {
            let id = NEXT.fetch_add(1, Ordering::Relaxed) & SHARED_ID;
            if id != 0 {
                return id;
            }
        }
    }

    /// Go's in-place write through a shared pointer: every node under `self` that is object
    /// `id` takes `kind` (keeping its own position and identity).
    pub fn write_shared(&mut self, id: u32, kind: &NodeKind) {
        if id == 0 {
            return;
        }
        if self.shared() == id {
            self.kind = kind.clone();
        }
        match &mut self.kind {
            NodeKind::Scalar(_) => {}
            NodeKind::Seq(items) => items.iter_mut().for_each(|n| n.write_shared(id, kind)),
            NodeKind::Map(entries) => entries
                .iter_mut()
                .for_each(|(_, v)| v.write_shared(id, kind)),
        }
    }

    /// A deep copy that is its own object everywhere (kyaml `Copy`): no [`Node::shared`] ids.
    pub fn unshared(mut self) -> Node {
        self.clear_shared();
        self
    }

    fn clear_shared(&mut self) {
        self.set_shared(0);
        match &mut self.kind {
            NodeKind::Scalar(_) => {}
            NodeKind::Seq(items) => items.iter_mut().for_each(Node::clear_shared),
            NodeKind::Map(entries) => entries.iter_mut().for_each(|(_, v)| v.clear_shared()),
        }
    }

    /// Says of every position under this node that was read from the tree's own file that it
    /// was read from `file`: for a tree that is merged into trees read from other files (a
    /// kustomize patch), so that its fields keep pointing at their own file.
    pub fn read_from(&mut self, file: FileId) {
        self.map_spans(&|span| {
            if span.is_known() && span.file.is_own() {
                Span { file, ..span }
            } else {
                span
            }
        });
    }

    /// The files other than the tree's own that positions under this node name, each once, in
    /// the order first met.
    pub fn files(&self) -> Vec<FileId> {
        fn collect(node: &Node, out: &mut Vec<FileId>) {
            if !node.span.file.is_own() && !out.contains(&node.span.file) {
                out.push(node.span.file);
            }
            match &node.kind {
                NodeKind::Scalar(_) => {}
                NodeKind::Seq(items) => items.iter().for_each(|n| collect(n, out)),
                NodeKind::Map(entries) => entries.iter().for_each(|(k, v)| {
                    collect(k, out);
                    collect(v, out);
                }),
            }
        }
        let mut out = Vec::new();
        collect(self, &mut out);
        out
    }

    /// Replaces the position of every node under this one (keys included) by `f` of it.
    pub fn map_spans(&mut self, f: &impl Fn(Span) -> Span) {
        self.span = f(self.span);
        match &mut self.kind {
            NodeKind::Scalar(_) => {}
            NodeKind::Seq(items) => items.iter_mut().for_each(|n| n.map_spans(f)),
            NodeKind::Map(entries) => entries.iter_mut().for_each(|(k, v)| {
                k.map_spans(f);
                v.map_spans(f);
            }),
        }
    }

    /// Moves every known position under this node `lines` lines down (for a document parsed
    /// out of the middle of a file).
    pub fn shift_lines(&mut self, lines: u32) {
        if self.span.is_known() {
            self.span.line += lines;
        }
        match &mut self.kind {
            NodeKind::Scalar(_) => {}
            NodeKind::Seq(items) => items.iter_mut().for_each(|n| n.shift_lines(lines)),
            NodeKind::Map(entries) => entries.iter_mut().for_each(|(k, v)| {
                k.shift_lines(lines);
                v.shift_lines(lines);
            }),
        }
    }

    /// The same node placed at `span`.
    pub fn at(mut self, span: Span) -> Node {
        self.span = span;
        self
    }

    /// The scalar, if this is one.
    pub fn as_scalar(&self) -> Option<&Scalar> {
        match &self.kind {
            NodeKind::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The scalar's text, if this is a scalar (whatever its type).
    pub fn as_str(&self) -> Option<&str> {
        self.as_scalar().map(|s| s.text.as_str())
    }

    /// For a mapping: no two of its scalar keys have the same text (other keys are not
    /// compared). Pairwise for the usual few keys, by hashing for many.
    pub fn keys_distinct(entries: &[(Node, Node)]) -> bool {
        if entries.len() <= 16 {
            return entries.iter().enumerate().all(|(i, (k, _))| {
                let Some(t) = k.as_str() else { return true };
                entries[..i].iter().all(|(o, _)| o.as_str() != Some(t))
            });
        }
        let mut seen = std::collections::HashSet::with_capacity_and_hasher(
            entries.len(),
            crate::fxhash::FxBuildHasher::default(),
        );
        entries
            .iter()
            .filter_map(|(k, _)| k.as_str())
            .all(|t| seen.insert(t))
    }

    /// The scalar's text if it is a non-null scalar: what kyaml's `GetString` style lookups see.
    pub fn as_text(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Scalar(s) if !self.is_null() => Some(s.text.as_str()),
            _ => None,
        }
    }

    /// The entries, if this is a mapping.
    pub fn as_map(&self) -> Option<&Vec<(Node, Node)>> {
        match &self.kind {
            NodeKind::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The entries, mutably, if this is a mapping.
    pub fn as_map_mut(&mut self) -> Option<&mut Vec<(Node, Node)>> {
        match &mut self.kind {
            NodeKind::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The items, if this is a sequence.
    pub fn as_seq(&self) -> Option<&Vec<Node>> {
        match &self.kind {
            NodeKind::Seq(s) => Some(s),
            _ => None,
        }
    }

    /// The items, mutably, if this is a sequence.
    pub fn as_seq_mut(&mut self) -> Option<&mut Vec<Node>> {
        match &mut self.kind {
            NodeKind::Seq(s) => Some(s),
            _ => None,
        }
    }

    /// True for a mapping.
    pub fn is_map(&self) -> bool {
        matches!(self.kind, NodeKind::Map(_))
    }

    /// True for a sequence.
    pub fn is_seq(&self) -> bool {
        matches!(self.kind, NodeKind::Seq(_))
    }

    /// True for a scalar.
    pub fn is_scalar(&self) -> bool {
        matches!(self.kind, NodeKind::Scalar(_))
    }

    /// kyaml `IsNilOrEmpty`: null, or a mapping or sequence without entries. Such documents
    /// are skipped wherever kustomize reads objects.
    pub fn is_nil_or_empty(&self) -> bool {
        match &self.kind {
            NodeKind::Map(m) => m.is_empty(),
            NodeKind::Seq(s) => s.is_empty(),
            NodeKind::Scalar(_) => self.is_null(),
        }
    }

    /// True for a null scalar (`~`, `null`, empty, or tagged `!!null`); the same in YAML 1.1 and 1.2.
    pub fn is_null(&self) -> bool {
        match &self.kind {
            NodeKind::Scalar(s) => match s.tag.as_deref() {
                Some("!!null") => true,
                Some(_) => false,
                None => {
                    s.style == ScalarStyle::Plain
                        && matches!(s.text.as_str(), "" | "~" | "null" | "Null" | "NULL")
                }
            },
            _ => false,
        }
    }

    /// The value of `key` in a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    /// The value of `key` in a mapping, mutably.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        self.as_map_mut()?
            .iter_mut()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    /// The key node and value of `key` in a mapping.
    pub fn get_entry(&self, key: &str) -> Option<(&Node, &Node)> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(k, v)| (k, v))
    }

    /// Follows a path of mapping keys (`["metadata", "name"]`).
    pub fn get_path(&self, path: &[&str]) -> Option<&Node> {
        path.iter().try_fold(self, |n, k| n.get(k))
    }

    /// Follows a path of mapping keys, mutably.
    pub fn get_path_mut(&mut self, path: &[&str]) -> Option<&mut Node> {
        let mut cur = self;
        for k in path {
            cur = cur.get_mut(k)?;
        }
        Some(cur)
    }

    /// The text of the scalar at `path`, when it is a non-null scalar.
    pub fn str_at(&self, path: &[&str]) -> Option<&str> {
        self.get_path(path)?.as_text()
    }

    /// Sets `key` in a mapping (replacing an existing value in place, else appending).
    /// Does nothing on a non-mapping.
    pub fn set(&mut self, key: &str, value: Node) {
        if let Some(m) = self.as_map_mut() {
            if let Some(slot) = m.iter_mut().find(|(k, _)| k.as_str() == Some(key)) {
                slot.1 = value;
            } else {
                // An untagged key, as kyaml's FieldSetter makes it: `1` reads back as an int.
                m.push((Node::plain(key), value));
            }
        }
    }

    /// Removes `key` from a mapping, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<Node> {
        let m = self.as_map_mut()?;
        let i = m.iter().position(|(k, _)| k.as_str() == Some(key))?;
        Some(m.remove(i).1)
    }

    /// The mapping at `key`, created (or replacing a null/non-mapping value) when missing.
    pub fn map_at(&mut self, key: &str) -> &mut Node {
        let needs_new = !matches!(self.get(key), Some(n) if n.is_map());
        if needs_new {
            self.set(key, Node::map());
        }
        self.get_mut(key)
            .expect("the key was just set to a mapping")
    }

    /// Follows (creating as needed) a path of mappings and returns the innermost one.
    pub fn map_at_path(&mut self, path: &[&str]) -> &mut Node {
        let mut cur = self;
        for k in path {
            cur = cur.map_at(k);
        }
        cur
    }

    /// Number of nodes in this subtree (for limits).
    pub fn count(&self) -> usize {
        let mut n = 0;
        let mut stack = vec![self];
        while let Some(node) = stack.pop() {
            n += 1;
            match &node.kind {
                NodeKind::Scalar(_) => {}
                NodeKind::Seq(items) => stack.extend(items),
                NodeKind::Map(entries) => {
                    for (k, v) in entries {
                        stack.push(k);
                        stack.push(v);
                    }
                }
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_content_ignores_positions_and_flow_but_not_style_tags_or_order() {
        let parse = |text: &str| {
            crate::yaml::parse_one(text.as_bytes(), &crate::yaml::ParseOptions::default()).unwrap()
        };
        let a = parse("a: 1\nb: [x, y]\n");
        assert!(a.same_content(&parse("\n\na: 1\nb:\n- x\n- y\n")));
        assert!(
            !a.same_content(&parse("a: '1'\nb: [x, y]\n")),
            "a quoted 1 is a string"
        );
        assert!(!a.same_content(&parse("a: !!str 1\nb: [x, y]\n")));
        assert!(!a.same_content(&parse("b: [x, y]\na: 1\n")));
        assert!(!a.same_content(&parse("a: 1\nb: [x]\n")));
        assert!(!a.same_content(&parse("a: 1\nb: {x: y}\n")));
    }

    #[test]
    fn get_set_remove() {
        let mut n = Node::map();
        n.map_at_path(&["metadata", "labels"])
            .set("app", Node::string("web"));
        assert_eq!(n.str_at(&["metadata", "labels", "app"]), Some("web"));
        n.set("kind", Node::plain("ConfigMap"));
        n.set("kind", Node::plain("Secret"));
        assert_eq!(n.as_map().unwrap().len(), 2);
        assert_eq!(n.str_at(&["kind"]), Some("Secret"));
        assert!(n.remove("kind").is_some());
        assert!(n.get("kind").is_none());
        assert_eq!(n.count(), 7);
    }

    #[test]
    fn nulls_and_string_literals() {
        assert!(Node::plain("~").is_null());
        assert!(Node::plain("").is_null());
        assert!(!Node::string("null").is_null());
        assert!(Node::null().is_null());
        assert_eq!(Node::plain("null").as_text(), None);
        assert!(Node::string("3").as_scalar().unwrap().is_string_literal());
        assert!(!Node::plain("3").as_scalar().unwrap().is_string_literal());
    }
}
