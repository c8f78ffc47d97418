//! The table of one tree or index: every path with its git mode and object id, and every
//! directory's sorted listing, built once so lookups never touch the object database.

use std::cmp::Reverse;
use std::collections::HashMap;
use std::fmt::Display;

use gix::bstr::ByteSlice;
use gix::objs::tree::EntryKind as Mode;

use super::{git_error, to_gix, to_oid};
use crate::source::links::RawKind;
use crate::source::{DirEntry, EntryKind, ObjectId, RepoPath, SourceError};

/// One path of a tree or index: its git mode and object id.
#[derive(Clone, Copy, Debug)]
pub(super) struct Node {
    mode: Mode,
    pub(super) id: ObjectId,
}

impl Node {
    pub(super) fn new(mode: Mode, id: ObjectId) -> Node {
        Node { mode, id }
    }

    pub(super) fn raw_kind(&self) -> RawKind {
        match self.mode {
            Mode::Blob | Mode::BlobExecutable => RawKind::File,
            Mode::Link => RawKind::Symlink,
            // A submodule shows as the (empty) directory a checkout without it leaves.
            Mode::Tree | Mode::Commit => RawKind::Dir,
        }
    }

    fn entry_kind(&self) -> EntryKind {
        match self.raw_kind() {
            RawKind::File => EntryKind::File,
            RawKind::Dir => EntryKind::Dir,
            RawKind::Symlink => EntryKind::Symlink,
            RawKind::Missing => EntryKind::Missing,
        }
    }
}

/// Every path of a snapshot, so lookups and listings never touch the object database.
#[derive(Default)]
pub(super) struct Table {
    pub(super) nodes: HashMap<RepoPath, Node>,
    /// Sorted listings of every directory, the root included.
    pub(super) children: HashMap<RepoPath, Vec<DirEntry>>,
    pub(super) root_id: Option<ObjectId>,
}

impl Table {
    /// Fills in tree ids for directories as git would compute them, so an index directory and the
    /// same directory in a commit have equal ids.
    pub(super) fn compute_dir_ids(&mut self) -> Result<(), SourceError> {
        // Deepest first, so every subdirectory's id is known before its parent's.
        let mut dirs: Vec<&RepoPath> = self.children.keys().collect();
        dirs.sort_by_key(|dir| Reverse(dir.components().count()));
        let mut computed: HashMap<RepoPath, ObjectId> = HashMap::new();
        for dir in dirs {
            let mut tree = gix::objs::Tree::empty();
            for entry in &self.children[dir] {
                let path = dir.child(&entry.name);
                let Some(node) = self.nodes.get(&path) else {
                    continue;
                };
                let id = match node.mode {
                    Mode::Tree => computed.get(&path).copied().unwrap_or(node.id),
                    _ => node.id,
                };
                tree.entries.push(gix::objs::tree::Entry {
                    mode: node.mode.into(),
                    filename: entry.name.as_str().into(),
                    oid: to_gix(id),
                });
            }
            tree.entries.sort();
            let mut buf = Vec::new();
            gix::objs::WriteTo::write_to(&tree, &mut buf).map_err(|e| {
                SourceError::Git(format!("{dir}: cannot encode the directory as a tree: {e}"))
            })?;
            let id = gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Tree, &buf)
                .map_err(|e| git_error(format_args!("{dir}: cannot hash the tree"), e))?;
            let id = to_oid(&id)?;
            computed.insert(dir.clone(), id);
        }
        for (dir, id) in computed {
            if dir.is_root() {
                self.root_id = Some(id);
            } else if let Some(node) = self.nodes.get_mut(&dir) {
                node.id = id;
            }
        }
        Ok(())
    }
}

/// Collects paths, then derives the directory listings.
#[derive(Default)]
pub(super) struct TableBuilder {
    nodes: HashMap<RepoPath, Node>,
}

impl TableBuilder {
    /// Adds a path and, when missing, its ancestors as directories (ids filled in later).
    pub(super) fn insert(&mut self, path: RepoPath, node: Node) {
        let mut dir = path.parent();
        while !dir.is_root() && !self.nodes.contains_key(&dir) {
            let parent = dir.parent();
            self.nodes
                .insert(dir, Node::new(Mode::Tree, ObjectId([0; 20])));
            dir = parent;
        }
        self.nodes.insert(path, node);
    }

    pub(super) fn finish(self) -> Table {
        let mut children: HashMap<RepoPath, Vec<DirEntry>> = HashMap::new();
        children.insert(RepoPath::root(), Vec::new());
        for (path, node) in &self.nodes {
            if node.mode == Mode::Tree {
                children.entry(path.clone()).or_default();
            }
            children.entry(path.parent()).or_default().push(DirEntry {
                name: path.file_name().to_string(),
                kind: node.entry_kind(),
            });
        }
        for list in children.values_mut() {
            list.sort_by(|a, b| a.name.cmp(&b.name));
        }
        Table {
            nodes: self.nodes,
            children,
            root_id: None,
        }
    }
}

/// Records every entry below the tree `id` under `prefix`.
pub(super) fn add_tree(
    repo: &gix::Repository,
    id: gix::ObjectId,
    prefix: &RepoPath,
    builder: &mut TableBuilder,
) -> Result<(), SourceError> {
    let git = |e: gix::Error| SourceError::Git(e.probable_cause().to_string());
    // Each tree to read, with its path and the ids of the trees above it: a damaged or
    // hostile object database can hold a tree that contains itself, which would never end.
    let mut pending = vec![(id, prefix.clone(), Vec::new())];
    let mut added = 0usize;
    while let Some((id, dir, mut ancestors)) = pending.pop() {
        if ancestors.contains(&id) {
            return Err(SourceError::Git(format!(
                "{}: tree {id} contains itself",
                display_dir(&dir)
            )));
        }
        if ancestors.len() >= MAX_TREE_DEPTH {
            return Err(SourceError::Git(format!(
                "{}: trees nest deeper than {MAX_TREE_DEPTH} levels",
                display_dir(&dir)
            )));
        }
        ancestors.push(id);
        let tree = repo.find_tree(id).map_err(git)?;
        let decoded = tree.decode().map_err(git)?;
        for entry in &decoded.entries {
            let Some(name) = repo_path(entry.filename).filter(|n| n.components().count() == 1)
            else {
                continue;
            };
            let path = dir.child(name.as_str());
            let Ok(oid) = to_oid(entry.oid) else {
                continue;
            };
            added += 1;
            if added > MAX_TREE_ENTRIES {
                return Err(SourceError::Git(format!(
                    "{}: more than {MAX_TREE_ENTRIES} files and directories",
                    display_dir(prefix)
                )));
            }
            let kind = entry.mode.kind();
            if kind == Mode::Tree {
                pending.push((entry.oid.to_owned(), path.clone(), ancestors.clone()));
            }
            builder.insert(path, Node::new(kind, oid));
        }
    }
    Ok(())
}

/// A directory for messages: the root is `.`.
fn display_dir(dir: &RepoPath) -> String {
    if dir.is_root() {
        ".".to_string()
    } else {
        dir.to_string()
    }
}

/// Deepest nesting of trees read, git's default `core.maxTreeDepth`.
const MAX_TREE_DEPTH: usize = 4096;

/// Most paths one tree may hold, subtrees included: far beyond real repositories (a few hundred
/// thousand files), and a bound on trees that share subtrees so that paths multiply.
const MAX_TREE_ENTRIES: usize = 2_000_000;

/// `err` (from reading a tree) with `context` in front.
pub(super) fn in_context(context: impl Display, err: SourceError) -> SourceError {
    match err {
        SourceError::Git(message) => SourceError::Git(format!("{context}: {message}")),
        other => other,
    }
}

/// A repository path from git's bytes, or `None` for names no [`RepoPath`] can address
/// (not UTF-8, or not in normal form such as `a/../b`); such entries are left out.
pub(super) fn repo_path(raw: &gix::bstr::BStr) -> Option<RepoPath> {
    let text = raw.to_str().ok()?;
    RepoPath::new(text)
        .ok()
        .filter(|p| p.as_str() == text && !p.is_root())
}
