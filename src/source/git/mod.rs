//! Git repositories through gix: revisions, merge bases, and snapshots of a commit's tree or of
//! the staged index, read straight from the object database (no checkout). The only module
//! that knows gix.

use std::cmp::Reverse;
use std::collections::{BTreeSet, HashMap};
use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use gix::bstr::ByteSlice;
use gix::objs::tree::EntryKind as Mode;

use super::links::{self, LinkTable, RawKind};
use super::{
    Bytes, DirEntry, EntryKind, ObjectId, RepoPath, RevInfo, Revision, Snapshot, SourceError,
    WorktreeSnapshot, MAX_FILE_SIZE,
};

/// A git repository (main work tree, linked worktree or bare), opened without reading any user
/// or system configuration or `GIT_*` variable (but see [`GitRepo::staged_snapshot`]), so
/// results depend on the repository alone.
pub struct GitRepo {
    repo: gix::Repository,
    objects: Arc<ObjectStore>,
    max_file_size: u64,
}

/// A revision spec resolved to a commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedRev {
    /// The spec as the user wrote it, e.g. `HEAD~1` or `origin/main`.
    pub spec: String,
    /// The commit it names (annotated tags peeled).
    pub commit: ObjectId,
}

impl ResolvedRev {
    /// The spec with the abbreviated commit, e.g. `HEAD~1 (3f2a9c1)`.
    pub fn describe(&self) -> String {
        format!("{} ({})", self.spec, self.commit.short())
    }
}

/// Refs tried, in order, when `origin/HEAD` does not name the default branch.
const DEFAULT_BRANCH_CANDIDATES: [(&str, &str); 4] = [
    ("refs/remotes/origin/main", "origin/main"),
    ("refs/remotes/origin/master", "origin/master"),
    ("refs/heads/main", "main"),
    ("refs/heads/master", "master"),
];

/// What [`GitRepo::default_branch`] tries, for error messages.
const DEFAULT_BRANCH_TRIED: &str = "origin/HEAD, origin/main, origin/master, main, master";

impl GitRepo {
    /// Opens the repository containing `dir`, walking up through its parents like git does.
    pub fn discover(dir: &Path) -> Result<GitRepo, SourceError> {
        let options = gix::open::Options::isolated();
        let trust = gix::sec::trust::Mapping {
            full: options.clone(),
            reduced: options,
        };
        let sync = gix::ThreadSafeRepository::discover_opts(dir, Default::default(), trust)
            .map_err(|e| {
                if e.is_not_found() {
                    SourceError::Git(format!(
                        "not a git repository (or any parent): {}",
                        dir.display()
                    ))
                } else {
                    git_error(
                        format_args!("cannot open the git repository at {}", dir.display()),
                        e,
                    )
                }
            })?;
        let mut repo = sync.to_thread_local();
        // Commit lookups during merge-base walks and rev-parse benefit from a small cache.
        repo.object_cache_size_if_unset(4 * 1024 * 1024);
        Ok(GitRepo {
            repo,
            objects: Arc::new(ObjectStore::new(sync)),
            max_file_size: MAX_FILE_SIZE,
        })
    }

    /// Sets the largest blob snapshots made afterwards will read (default [`MAX_FILE_SIZE`]).
    pub fn with_max_file_size(mut self, limit: u64) -> GitRepo {
        self.max_file_size = limit;
        self
    }

    /// The top directory of the work tree, or `None` for a bare repository.
    pub fn work_dir(&self) -> Option<PathBuf> {
        self.repo.workdir().map(Path::to_path_buf)
    }

    /// Resolves any revision spec (`HEAD~2`, a branch, `origin/main`, a tag, a short hex id) to a
    /// commit, peeling annotated tags.
    pub fn resolve(&self, revspec: &str) -> Result<ResolvedRev, SourceError> {
        let id = self.repo.rev_parse_single(revspec).map_err(|e| {
            let why = if e.is_not_found() {
                "no branch, tag or commit has this name".to_string()
            } else {
                e.probable_cause().to_string()
            };
            SourceError::Git(format!("unknown revision {revspec:?}: {why}"))
        })?;
        let commit = id
            .object()
            .and_then(|object| object.peel_to_commit())
            .map_err(|e| {
                git_error(
                    format_args!("revision {revspec:?} does not name a commit"),
                    e,
                )
            })?;
        Ok(ResolvedRev {
            spec: revspec.to_string(),
            commit: to_oid(&commit.id)?,
        })
    }

    /// The default branch: the target of `origin/HEAD` (e.g. `origin/main`), else the first of
    /// `origin/main`, `origin/master`, `main`, `master` that exists.
    pub fn default_branch(&self) -> Option<String> {
        if let Ok(Some(head)) = self.repo.try_find_reference("refs/remotes/origin/HEAD") {
            if let gix::refs::TargetRef::Symbolic(target) = head.target() {
                if let Ok(full) = target.as_bstr().to_str() {
                    if self.ref_exists(full) {
                        return Some(target.shorten().to_string());
                    }
                }
            }
        }
        DEFAULT_BRANCH_CANDIDATES
            .iter()
            .find(|(full, _)| self.ref_exists(full))
            .map(|(_, short)| short.to_string())
    }

    fn ref_exists(&self, full_name: &str) -> bool {
        matches!(self.repo.try_find_reference(full_name), Ok(Some(_)))
    }

    /// True for a shallow clone (`.git/shallow` lists commits whose parents are missing).
    pub fn is_shallow(&self) -> bool {
        self.repo.is_shallow().unwrap_or(false)
    }

    /// The best common ancestor of two commits. In a shallow clone without one, the error says
    /// how to fetch the missing history.
    pub fn merge_base(&self, a: ObjectId, b: ObjectId) -> Result<ObjectId, SourceError> {
        let shallow_hint = || {
            SourceError::Git(format!(
                "no merge base between {} and {}: this is a shallow clone, so the history \
                 that joins them is missing; fetch the full history (`fetch-depth: 0` in \
                 actions/checkout, or `git fetch --unshallow`)",
                a.short(),
                b.short()
            ))
        };
        match self.repo.merge_base(to_gix(a), to_gix(b)) {
            Ok(Some(base)) => to_oid(&base),
            Ok(None) | Err(_) if self.is_shallow() => Err(shallow_hint()),
            Ok(None) => Err(SourceError::Git(format!(
                "no merge base between {} and {}: they share no history",
                a.short(),
                b.short()
            ))),
            Err(e) => Err(git_error(
                format_args!(
                    "cannot compute the merge base of {} and {}",
                    a.short(),
                    b.short()
                ),
                e,
            )),
        }
    }

    /// The default branch's name and the merge base of `HEAD` with it (the default diff base).
    pub fn default_base(&self) -> Result<(String, ObjectId), SourceError> {
        let branch = self.default_branch().ok_or_else(|| {
            SourceError::Git(format!(
                "no default branch to compare with: none of {DEFAULT_BRANCH_TRIED} exists; \
                 name the base revision explicitly"
            ))
        })?;
        let head = self.resolve("HEAD")?;
        let tip = self.resolve(&branch)?;
        Ok((branch, self.merge_base(head.commit, tip.commit)?))
    }

    /// Opens `rev` of this repository; the work tree is the repository's top directory.
    pub fn open(&self, rev: &Revision) -> Result<(Box<dyn Snapshot>, RevInfo), SourceError> {
        match rev {
            Revision::Commit(spec) => {
                let resolved = self.resolve(spec)?;
                let info = RevInfo {
                    rev: spec.clone(),
                    commit: Some(resolved.commit.to_hex()),
                };
                Ok((Box::new(self.snapshot_at(&resolved)?), info))
            }
            Revision::Staged => Ok((
                Box::new(self.staged_snapshot()?),
                RevInfo {
                    rev: "STAGED".to_string(),
                    commit: None,
                },
            )),
            Revision::Worktree => {
                let root = self.work_dir().ok_or_else(|| {
                    SourceError::Git(format!(
                        "{}: a bare repository has no work tree",
                        self.repo.git_dir().display()
                    ))
                })?;
                let snapshot = WorktreeSnapshot::new(root)?.with_max_file_size(self.max_file_size);
                Ok((
                    Box::new(snapshot),
                    RevInfo {
                        rev: "WORKTREE".to_string(),
                        commit: None,
                    },
                ))
            }
        }
    }

    /// A snapshot of the commit's tree, read from the object database.
    pub fn snapshot_at(&self, rev: &ResolvedRev) -> Result<CommitSnapshot, SourceError> {
        let context = || format!("cannot read the tree of {}", rev.describe());
        let commit = self
            .repo
            .find_commit(to_gix(rev.commit))
            .map_err(|e| git_error(context(), e))?;
        let tree_id = commit.tree_id().map_err(|e| git_error(context(), e))?;
        let mut builder = TableBuilder::default();
        add_tree(
            &self.repo,
            tree_id.detach(),
            &RepoPath::root(),
            &mut builder,
        )
        .map_err(|e| in_context(context(), e))?;
        let mut table = builder.finish();
        table.root_id = Some(to_oid(&tree_id)?);
        Ok(CommitSnapshot {
            view: self.view(table, rev.describe()),
            rev: rev.clone(),
        })
    }

    /// A snapshot of the staged index (what `git commit` would record). Honours `GIT_INDEX_FILE`,
    /// which git sets for hooks during `git commit -a` and `git commit <paths>`; unmerged
    /// entries are an error naming the path.
    pub fn staged_snapshot(&self) -> Result<IndexSnapshot, SourceError> {
        let index_file = match std::env::var_os("GIT_INDEX_FILE") {
            // Git runs hooks at the top of the work tree, so a relative path starts there.
            Some(file) if !file.is_empty() => match self.repo.workdir() {
                Some(top) => top.join(file),
                None => PathBuf::from(file),
            },
            _ if self.repo.is_bare() => {
                return Err(SourceError::Git(
                    "a bare repository has no index to read staged files from".to_string(),
                ))
            }
            _ => self.repo.index_path(),
        };
        self.staged_snapshot_from(&index_file)
    }

    /// A snapshot of the stage-0 entries of the index file at `index_file` (empty when the file
    /// does not exist, as in a repository without commits).
    pub fn staged_snapshot_from(&self, index_file: &Path) -> Result<IndexSnapshot, SourceError> {
        // Read afresh every time: a cached index could miss a `git add` made since.
        let index = gix::index::File::at_or_default(
            index_file,
            self.repo.object_hash(),
            false,
            Default::default(),
        )
        .map_err(|e| SourceError::Io {
            path: index_file.display().to_string(),
            message: format!("cannot read the index: {}", e.probable_cause()),
        })?;
        self.index_snapshot(&index)
    }

    fn index_snapshot(&self, index: &gix::index::State) -> Result<IndexSnapshot, SourceError> {
        let mut builder = TableBuilder::default();
        let mut unmerged = BTreeSet::new();
        for entry in index.entries() {
            let raw_path = entry.path(index);
            if entry.stage_raw() != 0 {
                unmerged.insert(raw_path.to_str_lossy().into_owned());
                continue;
            }
            // `git add -N` placeholders are not part of the next commit.
            if entry
                .flags
                .contains(gix::index::entry::Flags::INTENT_TO_ADD)
            {
                continue;
            }
            let Some(path) = repo_path(raw_path) else {
                continue;
            };
            if entry.mode.is_sparse() {
                // A sparse index keeps whole directories as tree entries: expand them.
                add_tree(&self.repo, entry.id, &path, &mut builder).map_err(|e| {
                    in_context(
                        format_args!("{path}: cannot expand the sparse directory"),
                        e,
                    )
                })?;
                builder.insert(path, Node::new(Mode::Tree, to_oid(&entry.id)?));
                continue;
            }
            let Some(mode) = entry.mode.to_tree_entry_mode() else {
                continue;
            };
            builder.insert(path, Node::new(mode.kind(), to_oid(&entry.id)?));
        }
        if let Some(first) = unmerged.first() {
            let more = match unmerged.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            return Err(SourceError::Git(format!(
                "{first}: unmerged (conflicted) in the index{more}; resolve the conflict and \
                 `git add` the file"
            )));
        }
        let mut table = builder.finish();
        table.compute_dir_ids()?;
        Ok(IndexSnapshot {
            view: self.view(table, "staged".to_string()),
        })
    }

    fn view(&self, table: Table, description: String) -> ObjectView {
        ObjectView {
            table,
            objects: Arc::clone(&self.objects),
            max_file_size: self.max_file_size,
            description,
        }
    }
}

/// A commit's tree, read from the object database.
pub struct CommitSnapshot {
    view: ObjectView,
    rev: ResolvedRev,
}

impl CommitSnapshot {
    /// The revision this snapshot shows.
    pub fn rev(&self) -> &ResolvedRev {
        &self.rev
    }
}

/// The staged index: stage-0 entries, directories implied by their paths.
pub struct IndexSnapshot {
    view: ObjectView,
}

macro_rules! snapshot_via_view {
    ($ty:ty) => {
        impl Snapshot for $ty {
            fn read(&self, path: &RepoPath) -> Result<Bytes, SourceError> {
                self.view.read(path)
            }
            fn list(&self, dir: &RepoPath) -> Result<Vec<DirEntry>, SourceError> {
                self.view.list(dir)
            }
            fn kind(&self, path: &RepoPath) -> EntryKind {
                self.view.kind(path)
            }
            fn canonical(&self, path: &RepoPath) -> Result<RepoPath, SourceError> {
                links::resolve(&self.view, path).map(|(resolved, _)| resolved)
            }
            fn object_id(&self, path: &RepoPath) -> Option<ObjectId> {
                self.view.object_id(path)
            }
            fn describe(&self) -> String {
                self.view.description.clone()
            }
        }
    };
}

snapshot_via_view!(CommitSnapshot);
snapshot_via_view!(IndexSnapshot);

/// One path of a tree or index: its git mode and object id.
#[derive(Clone, Copy, Debug)]
struct Node {
    mode: Mode,
    id: ObjectId,
}

impl Node {
    fn new(mode: Mode, id: ObjectId) -> Node {
        Node { mode, id }
    }

    fn raw_kind(&self) -> RawKind {
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
struct Table {
    nodes: HashMap<RepoPath, Node>,
    /// Sorted listings of every directory, the root included.
    children: HashMap<RepoPath, Vec<DirEntry>>,
    root_id: Option<ObjectId>,
}

impl Table {
    /// Fills in tree ids for directories as git would compute them, so an index directory and the
    /// same directory in a commit have equal ids.
    fn compute_dir_ids(&mut self) -> Result<(), SourceError> {
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
struct TableBuilder {
    nodes: HashMap<RepoPath, Node>,
}

impl TableBuilder {
    /// Adds a path and, when missing, its ancestors as directories (ids filled in later).
    fn insert(&mut self, path: RepoPath, node: Node) {
        let mut dir = path.parent();
        while !dir.is_root() && !self.nodes.contains_key(&dir) {
            let parent = dir.parent();
            self.nodes
                .insert(dir, Node::new(Mode::Tree, ObjectId([0; 20])));
            dir = parent;
        }
        self.nodes.insert(path, node);
    }

    fn finish(self) -> Table {
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
fn add_tree(
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
fn in_context(context: impl Display, err: SourceError) -> SourceError {
    match err {
        SourceError::Git(message) => SourceError::Git(format!("{context}: {message}")),
        other => other,
    }
}

/// A repository path from git's bytes, or `None` for names no [`RepoPath`] can address
/// (not UTF-8, or not in normal form such as `a/../b`); such entries are left out.
fn repo_path(raw: &gix::bstr::BStr) -> Option<RepoPath> {
    let text = raw.to_str().ok()?;
    RepoPath::new(text)
        .ok()
        .filter(|p| p.as_str() == text && !p.is_root())
}

/// The table of one snapshot plus the shared object reader.
struct ObjectView {
    table: Table,
    objects: Arc<ObjectStore>,
    max_file_size: u64,
    description: String,
}

impl LinkTable for ObjectView {
    fn raw_kind(&self, path: &RepoPath) -> RawKind {
        match self.table.nodes.get(path) {
            Some(node) => node.raw_kind(),
            None if path.is_root() => RawKind::Dir,
            None => RawKind::Missing,
        }
    }

    fn link_target(&self, path: &RepoPath) -> Result<String, SourceError> {
        let node = self.node(path)?;
        let bytes = self.objects.read_blob(node.id, path, self.max_file_size)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| SourceError::Io {
            path: path.to_string(),
            message: "symbolic link target is not valid UTF-8".to_string(),
        })
    }
}

impl ObjectView {
    fn node(&self, path: &RepoPath) -> Result<Node, SourceError> {
        self.table
            .nodes
            .get(path)
            .copied()
            .ok_or_else(|| SourceError::NotFound {
                path: path.to_string(),
            })
    }

    fn read(&self, path: &RepoPath) -> Result<Bytes, SourceError> {
        match links::resolve(self, path)? {
            (_, RawKind::Dir) => Err(SourceError::IsDir {
                path: path.to_string(),
            }),
            (resolved, _) => {
                let node = self.node(&resolved)?;
                self.objects.read_blob(node.id, path, self.max_file_size)
            }
        }
    }

    fn list(&self, dir: &RepoPath) -> Result<Vec<DirEntry>, SourceError> {
        match links::resolve(self, dir)? {
            (resolved, RawKind::Dir) => Ok(self
                .table
                .children
                .get(&resolved)
                .cloned()
                .unwrap_or_default()),
            _ => Err(SourceError::NotDir {
                path: dir.to_string(),
            }),
        }
    }

    fn kind(&self, path: &RepoPath) -> EntryKind {
        match links::resolve(self, path) {
            Ok((_, RawKind::File)) => EntryKind::File,
            Ok((_, RawKind::Dir)) => EntryKind::Dir,
            _ => EntryKind::Missing,
        }
    }

    fn object_id(&self, path: &RepoPath) -> Option<ObjectId> {
        let (resolved, _) = links::resolve(self, path).ok()?;
        if resolved.is_root() {
            self.table.root_id
        } else {
            self.table.nodes.get(&resolved).map(|node| node.id)
        }
    }
}

/// Reads blobs for any number of threads and keeps each blob once, shared by every snapshot
/// of the repository (a blob unchanged between base and head is read once).
struct ObjectStore {
    repo: gix::ThreadSafeRepository,
    /// Thread-local handles not in use; a reader takes one and puts it back, so pack caches
    /// survive between reads without locking during decoding.
    idle: Mutex<Vec<gix::Repository>>,
    blobs: BlobCache,
}

impl ObjectStore {
    fn new(repo: gix::ThreadSafeRepository) -> ObjectStore {
        ObjectStore {
            repo,
            idle: Mutex::new(Vec::new()),
            blobs: BlobCache::default(),
        }
    }

    fn with_repo<T>(&self, f: impl FnOnce(&gix::Repository) -> T) -> T {
        let pooled = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let repo = pooled.unwrap_or_else(|| self.repo.to_thread_local());
        let out = f(&repo);
        self.idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(repo);
        out
    }

    /// The blob `id` (at `path`, for messages), refusing blobs over `limit` bytes before
    /// decoding them.
    fn read_blob(&self, id: ObjectId, path: &RepoPath, limit: u64) -> Result<Bytes, SourceError> {
        let too_large = |size: u64| SourceError::TooLarge {
            path: path.to_string(),
            size,
            limit,
        };
        if let Some(bytes) = self.blobs.get(&id) {
            let size = bytes.len() as u64;
            return if size > limit {
                Err(too_large(size))
            } else {
                Ok(bytes)
            };
        }
        let data = self.with_repo(|repo| {
            let read_error = |e: gix::Error| SourceError::Io {
                path: path.to_string(),
                message: format!("cannot read blob {}: {}", id.short(), e.probable_cause()),
            };
            let header = repo.find_header(to_gix(id)).map_err(read_error)?;
            if header.kind() != gix::objs::Kind::Blob {
                return Err(SourceError::Io {
                    path: path.to_string(),
                    message: format!("object {} is a {}, not a blob", id.short(), header.kind()),
                });
            }
            if header.size() > limit {
                return Err(too_large(header.size()));
            }
            Ok(repo
                .find_object(to_gix(id))
                .map_err(read_error)?
                .detach()
                .data)
        })?;
        Ok(self.blobs.insert(id, Bytes::from(data)))
    }
}

/// Blob bytes by object id, sharded so parallel readers rarely wait on each other.
struct BlobCache {
    shards: [RwLock<HashMap<ObjectId, Bytes>>; 16],
}

impl Default for BlobCache {
    fn default() -> Self {
        BlobCache {
            shards: std::array::from_fn(|_| RwLock::default()),
        }
    }
}

impl BlobCache {
    fn shard(&self, id: &ObjectId) -> &RwLock<HashMap<ObjectId, Bytes>> {
        &self.shards[usize::from(id.0[0]) % self.shards.len()]
    }

    fn get(&self, id: &ObjectId) -> Option<Bytes> {
        let shard = self
            .shard(id)
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        shard.get(id).cloned()
    }

    /// Stores `bytes` unless another thread got there first; returns the stored copy.
    fn insert(&self, id: ObjectId, bytes: Bytes) -> Bytes {
        let mut shard = self
            .shard(&id)
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        Arc::clone(shard.entry(id).or_insert(bytes))
    }
}

fn to_oid(id: &gix::oid) -> Result<ObjectId, SourceError> {
    <[u8; 20]>::try_from(id.as_bytes())
        .map(ObjectId)
        .map_err(|_| SourceError::Git(format!("unsupported object id {id} (only SHA-1 is)")))
}

fn to_gix(id: ObjectId) -> gix::ObjectId {
    gix::ObjectId::Sha1(id.0)
}

/// `context: cause`, with the innermost cause gix recorded (its outer messages name internals).
fn git_error(context: impl Display, err: gix::Error) -> SourceError {
    SourceError::Git(format!("{context}: {}", err.probable_cause()))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::source::testing::{commit_all, git, git_may_fail, symlink, write};
    use tempfile::TempDir;

    fn p(path: &str) -> RepoPath {
        RepoPath::new(path).unwrap()
    }

    fn text(snapshot: &dyn Snapshot, path: &str) -> String {
        String::from_utf8(snapshot.read(&p(path)).unwrap().to_vec()).unwrap()
    }

    /// Commit ids of the fixture, oldest first.
    struct Fixture {
        dir: TempDir,
        c1: String,
        c2: String,
        c3_feature: String,
        c4: String,
    }

    /// main: c1 ── c2 ── c4, feature: c2 ── c3; tags v1 (lightweight, c1), v2 (annotated, c2).
    fn fixture() -> Fixture {
        let dir = TempDir::new().unwrap();
        let d = dir.path();
        git(d, &["init", "-q"]);
        write(d, "README", "readme\n");
        write(d, "apps/web/kustomization.yaml", "v1\n");
        write(d, "base/deploy.yaml", "deploy\n");
        let c1 = commit_all(d, "one");
        git(d, &["tag", "v1"]);

        write(d, "apps/web/kustomization.yaml", "v2\n");
        write(d, "tools/run.sh", "#!/bin/sh\n");
        std::fs::set_permissions(
            d.join("tools/run.sh"),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        symlink(d, "apps/web/base", "../../base");
        symlink(d, "apps/web/deploy", "base/deploy.yaml");
        symlink(d, "evil/up", "../../etc");
        symlink(d, "evil/abs", "/etc/passwd");
        symlink(d, "evil/loop-a", "loop-b");
        symlink(d, "evil/loop-b", "loop-a");
        let c2 = commit_all(d, "two");
        git(d, &["tag", "-a", "v2", "-m", "release two"]);

        git(d, &["checkout", "-q", "-b", "feature"]);
        write(d, "README", "readme on feature\n");
        let c3_feature = commit_all(d, "three");

        git(d, &["checkout", "-q", "main"]);
        write(d, "apps/api/x.yaml", "api\n");
        let c4 = commit_all(d, "four");
        Fixture {
            dir,
            c1,
            c2,
            c3_feature,
            c4,
        }
    }

    fn snapshot(repo: &GitRepo, spec: &str) -> CommitSnapshot {
        repo.snapshot_at(&repo.resolve(spec).unwrap()).unwrap()
    }

    #[test]
    fn resolves_revisions_of_every_kind() {
        let f = fixture();
        let repo = GitRepo::discover(f.dir.path()).unwrap();
        let hex = |spec: &str| repo.resolve(spec).unwrap().commit.to_hex();
        assert_eq!(hex("HEAD"), f.c4);
        assert_eq!(hex("main"), f.c4);
        assert_eq!(hex("HEAD~1"), f.c2);
        assert_eq!(hex("HEAD~2"), f.c1);
        assert_eq!(hex("feature"), f.c3_feature);
        assert_eq!(hex("v1"), f.c1);
        assert_eq!(hex("v2"), f.c2, "annotated tags are peeled to their commit");
        assert_eq!(hex(&f.c2[..7]), f.c2);
        assert_eq!(hex(&f.c2), f.c2);
        let rev = repo.resolve("HEAD~1").unwrap();
        assert_eq!(rev.describe(), format!("HEAD~1 ({})", &f.c2[..7]));
        assert_eq!(snapshot(&repo, "HEAD~1").describe(), rev.describe());
    }

    #[test]
    fn unknown_revisions_are_named_in_the_error() {
        let f = fixture();
        let repo = GitRepo::discover(f.dir.path()).unwrap();
        for spec in ["no-such-branch", "HEAD~10", "origin/main"] {
            let err = repo.resolve(spec).unwrap_err().to_string();
            assert!(err.contains(&format!("{spec:?}")), "{err}");
        }
        let err = repo.resolve("HEAD:README").unwrap_err().to_string();
        assert!(err.contains("does not name a commit"), "{err}");
    }

    #[test]
    fn reads_files_and_lists_dirs_at_each_revision() {
        let f = fixture();
        let repo = GitRepo::discover(f.dir.path()).unwrap();
        let file = "apps/web/kustomization.yaml";
        assert_eq!(text(&snapshot(&repo, "HEAD"), file), "v2\n");
        assert_eq!(text(&snapshot(&repo, "HEAD~1"), file), "v2\n");
        assert_eq!(text(&snapshot(&repo, "HEAD~2"), file), "v1\n");
        assert_eq!(text(&snapshot(&repo, "v1"), file), "v1\n");
        assert_eq!(text(&snapshot(&repo, "v2"), file), "v2\n");
        assert_eq!(
            text(&snapshot(&repo, "feature"), "README"),
            "readme on feature\n"
        );
        assert_eq!(text(&snapshot(&repo, "main"), "README"), "readme\n");

        let head = snapshot(&repo, "HEAD");
        assert_eq!(head.kind(&p("apps/api/x.yaml")), EntryKind::File);
        assert_eq!(head.kind(&p("apps")), EntryKind::Dir);
        assert_eq!(head.kind(&p("")), EntryKind::Dir);
        let old = snapshot(&repo, "HEAD~1");
        assert_eq!(old.kind(&p("apps/api/x.yaml")), EntryKind::Missing);
        assert!(matches!(
            old.read(&p("apps/api/x.yaml")),
            Err(SourceError::NotFound { path }) if path == "apps/api/x.yaml"
        ));
        assert!(matches!(
            head.read(&p("apps")),
            Err(SourceError::IsDir { .. })
        ));
        assert!(matches!(
            head.list(&p("README")),
            Err(SourceError::NotDir { .. })
        ));

        let names = |dir: &str| -> Vec<(String, EntryKind)> {
            head.list(&p(dir))
                .unwrap()
                .into_iter()
                .map(|e| (e.name, e.kind))
                .collect()
        };
        assert_eq!(
            names(""),
            [
                ("README".to_string(), EntryKind::File),
                ("apps".to_string(), EntryKind::Dir),
                ("base".to_string(), EntryKind::Dir),
                ("evil".to_string(), EntryKind::Dir),
                ("tools".to_string(), EntryKind::Dir),
            ]
        );
        assert_eq!(
            names("apps/web"),
            [
                ("base".to_string(), EntryKind::Symlink),
                ("deploy".to_string(), EntryKind::Symlink),
                ("kustomization.yaml".to_string(), EntryKind::File),
            ]
        );
        assert_eq!(
            names("apps"),
            [
                ("api".to_string(), EntryKind::Dir),
                ("web".to_string(), EntryKind::Dir)
            ]
        );
    }

    #[test]
    fn follows_symlinks_inside_the_tree() {
        let f = fixture();
        let repo = GitRepo::discover(f.dir.path()).unwrap();
        let head = snapshot(&repo, "HEAD");
        assert_eq!(text(&head, "apps/web/base/deploy.yaml"), "deploy\n");
        assert_eq!(text(&head, "apps/web/deploy"), "deploy\n");
        assert_eq!(head.kind(&p("apps/web/base")), EntryKind::Dir);
        assert_eq!(head.kind(&p("apps/web/deploy")), EntryKind::File);
        assert_eq!(
            head.list(&p("apps/web/base")).unwrap(),
            head.list(&p("base")).unwrap()
        );
        assert_eq!(
            head.object_id(&p("apps/web/base")),
            head.object_id(&p("base")),
            "a link's id is its target's"
        );
    }

    #[test]
    fn rejects_symlinks_leaving_the_repository_and_loops() {
        let f = fixture();
        let repo = GitRepo::discover(f.dir.path()).unwrap();
        let head = snapshot(&repo, "HEAD");
        for (path, target) in [("evil/up", "../../etc"), ("evil/abs", "/etc/passwd")] {
            match head.read(&p(path)) {
                Err(SourceError::SymlinkEscape {
                    path: link,
                    target: t,
                }) => {
                    assert_eq!((link.as_str(), t.as_str()), (path, target));
                }
                other => panic!("{path}: {other:?}"),
            }
            assert_eq!(head.kind(&p(path)), EntryKind::Missing);
            assert_eq!(head.object_id(&p(path)), None);
        }
        assert!(matches!(
            head.read(&p("evil/up/passwd")),
            Err(SourceError::SymlinkEscape { .. })
        ));
        assert!(matches!(
            head.list(&p("evil/up")),
            Err(SourceError::SymlinkEscape { .. })
        ));
        assert!(matches!(
            head.read(&p("evil/loop-a")),
            Err(SourceError::SymlinkLoop { .. })
        ));
        assert_eq!(head.kind(&p("evil/loop-b")), EntryKind::Missing);
    }

    #[test]
    fn paths_cannot_climb_out_of_the_repository() {
        let f = fixture();
        let repo = GitRepo::discover(f.dir.path()).unwrap();
        let head = snapshot(&repo, "HEAD");
        let web = p("apps/web");
        assert!(web.join("../../../etc/passwd").is_err());
        assert!(RepoPath::new("/etc/passwd").is_err());
        // `..` is lexical: through a linked directory it does not reach the link's target.
        let through_link = web.join("base/../kustomization.yaml").unwrap();
        assert_eq!(text(&head, through_link.as_str()), "v2\n");
    }

    #[test]
    fn refuses_blobs_over_the_size_limit() {
        let f = fixture();
        let repo = GitRepo::discover(f.dir.path())
            .unwrap()
            .with_max_file_size(5);
        let head = snapshot(&repo, "HEAD");
        match head.read(&p("base/deploy.yaml")) {
            Err(SourceError::TooLarge { path, size, limit }) => {
                assert_eq!((path.as_str(), size, limit), ("base/deploy.yaml", 7, 5));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(text(&head, "apps/api/x.yaml"), "api\n");
        // The limit holds for blobs already cached by a snapshot with a larger limit, too.
        let repo = repo.with_max_file_size(MAX_FILE_SIZE);
        let big = snapshot(&repo, "HEAD");
        assert_eq!(text(&big, "base/deploy.yaml"), "deploy\n");
        let small = ObjectView {
            max_file_size: 5,
            ..big.view
        };
        assert!(matches!(
            small.read(&p("base/deploy.yaml")),
            Err(SourceError::TooLarge { .. })
        ));
    }

    #[test]
    fn object_ids_match_git_and_the_work_tree() {
        let f = fixture();
        let d = f.dir.path();
        let repo = GitRepo::discover(d).unwrap();
        let head = snapshot(&repo, "HEAD");
        let id = |s: &dyn Snapshot, path: &str| s.object_id(&p(path)).map(|id| id.to_hex());
        assert_eq!(
            id(&head, "base/deploy.yaml").unwrap(),
            git(d, &["rev-parse", "HEAD:base/deploy.yaml"])
        );
        assert_eq!(
            id(&head, "apps").unwrap(),
            git(d, &["rev-parse", "HEAD:apps"])
        );
        assert_eq!(
            id(&head, "").unwrap(),
            git(d, &["rev-parse", "HEAD^{tree}"])
        );

        let work = WorktreeSnapshot::new(d.to_path_buf()).unwrap();
        assert_eq!(id(&head, "base/deploy.yaml"), id(&work, "base/deploy.yaml"));
        assert_eq!(
            id(&work, "base"),
            None,
            "the work tree has no directory ids"
        );

        // A change inside a directory changes the ids of it and its ancestors, not its siblings.
        let old = snapshot(&repo, "HEAD~2");
        assert_ne!(id(&old, "apps/web"), id(&head, "apps/web"));
        assert_ne!(id(&old, "apps"), id(&head, "apps"));
        assert_ne!(id(&old, ""), id(&head, ""));
        assert_eq!(id(&old, "base"), id(&head, "base"));
    }

    #[test]
    fn staged_snapshot_sees_the_index_not_the_work_tree() {
        let f = fixture();
        let d = f.dir.path();
        let repo = GitRepo::discover(d).unwrap();
        let head = snapshot(&repo, "HEAD");
        let staged = repo.staged_snapshot().unwrap();
        assert_eq!(staged.describe(), "staged");
        // A clean index has the same directory ids as HEAD, executable bits and links included.
        for dir in ["", "apps", "apps/web", "tools", "evil"] {
            assert_eq!(
                staged.object_id(&p(dir)),
                head.object_id(&p(dir)),
                "{dir:?}"
            );
        }
        assert_eq!(text(&staged, "apps/web/deploy"), "deploy\n");

        write(d, "README", "staged\n");
        write(d, "new/file.yaml", "new\n");
        git(d, &["add", "README", "new/file.yaml"]);
        git(d, &["rm", "-q", "base/deploy.yaml"]);
        write(d, "README", "unstaged\n");
        write(d, "apps/api/x.yaml", "unstaged\n");
        write(d, "untracked.yaml", "untracked\n");

        let staged = repo.staged_snapshot().unwrap();
        assert_eq!(text(&staged, "README"), "staged\n");
        assert_eq!(text(&staged, "new/file.yaml"), "new\n");
        assert_eq!(text(&staged, "apps/api/x.yaml"), "api\n");
        assert_eq!(staged.kind(&p("new")), EntryKind::Dir);
        assert_eq!(staged.kind(&p("untracked.yaml")), EntryKind::Missing);
        assert_eq!(staged.kind(&p("base/deploy.yaml")), EntryKind::Missing);
        assert_eq!(
            staged.kind(&p("apps/web/deploy")),
            EntryKind::Missing,
            "dangling now"
        );
        assert!(matches!(
            staged.read(&p("evil/abs")),
            Err(SourceError::SymlinkEscape { .. })
        ));
        assert_eq!(
            staged.object_id(&p("README")),
            Some(ObjectId::for_blob(b"staged\n"))
        );
        assert_eq!(staged.object_id(&p("apps")), head.object_id(&p("apps")));
        assert_ne!(staged.object_id(&p("")), head.object_id(&p("")));
        let names: Vec<String> = staged
            .list(&p(""))
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect();
        // `base` held one file, now removed: git tracks no empty directories.
        assert_eq!(
            names,
            ["README", "apps", "evil", "new", "tools"].map(String::from)
        );
    }

    #[test]
    fn staged_snapshot_reads_another_index_file() {
        let f = fixture();
        let d = f.dir.path();
        let index = d.join("other-index");
        git(
            d,
            &[
                "read-tree",
                &format!("--index-output={}", index.display()),
                "v1",
            ],
        );
        let repo = GitRepo::discover(d).unwrap();
        let staged = repo.staged_snapshot_from(&index).unwrap();
        assert_eq!(text(&staged, "apps/web/kustomization.yaml"), "v1\n");
        assert_eq!(staged.kind(&p("evil")), EntryKind::Missing);
        let v1 = snapshot(&repo, "v1");
        assert_eq!(staged.object_id(&p("")), v1.object_id(&p("")));
        let empty = repo.staged_snapshot_from(&d.join("no-such-index")).unwrap();
        assert_eq!(empty.list(&p("")).unwrap(), []);
    }

    #[test]
    fn staged_snapshot_refuses_conflicts() {
        let f = fixture();
        let d = f.dir.path();
        write(d, "README", "main side\n");
        commit_all(d, "main side");
        git_may_fail(d, &["merge", "-q", "feature"]);
        let repo = GitRepo::discover(d).unwrap();
        let err = repo.staged_snapshot().err().unwrap().to_string();
        assert!(err.starts_with("README: unmerged"), "{err}");
    }

    #[test]
    fn merge_base_of_two_branches() {
        let f = fixture();
        let repo = GitRepo::discover(f.dir.path()).unwrap();
        let main = repo.resolve("main").unwrap().commit;
        let feature = repo.resolve("feature").unwrap().commit;
        assert_eq!(repo.merge_base(main, feature).unwrap().to_hex(), f.c2);
        let v2 = repo.resolve("v2").unwrap().commit;
        assert_eq!(repo.merge_base(v2, feature).unwrap().to_hex(), f.c2);
    }

    #[test]
    fn default_branch_prefers_origin_head() {
        let f = fixture();
        let root = TempDir::new().unwrap();
        let r = root.path();
        let upstream = f.dir.path().to_str().unwrap();
        // No remote: the local main branch.
        assert_eq!(
            GitRepo::discover(f.dir.path())
                .unwrap()
                .default_branch()
                .as_deref(),
            Some("main")
        );

        git(r, &["clone", "-q", "--bare", upstream, "origin.git"]);
        git(
            &r.join("origin.git"),
            &["symbolic-ref", "HEAD", "refs/heads/feature"],
        );
        git(r, &["clone", "-q", "origin.git", "work"]);
        let work = r.join("work");
        let repo = GitRepo::discover(&work).unwrap();
        assert_eq!(repo.default_branch().as_deref(), Some("origin/feature"));
        let (rev, base) = repo.default_base().unwrap();
        assert_eq!(
            (rev.as_str(), base.to_hex()),
            ("origin/feature", f.c3_feature.clone())
        );

        git(&work, &["remote", "set-head", "origin", "-d"]);
        let repo = GitRepo::discover(&work).unwrap();
        assert_eq!(repo.default_branch().as_deref(), Some("origin/main"));
        git(&work, &["checkout", "-q", "-b", "topic", "origin/feature"]);
        let (rev, base) = repo.default_base().unwrap();
        assert_eq!((rev.as_str(), base.to_hex()), ("origin/main", f.c2.clone()));
    }

    #[test]
    fn default_base_names_the_refs_it_tried() {
        let dir = TempDir::new().unwrap();
        let d = dir.path();
        git(d, &["init", "-q", "-b", "trunk"]);
        write(d, "a", "a\n");
        commit_all(d, "one");
        let repo = GitRepo::discover(d).unwrap();
        assert_eq!(repo.default_branch(), None);
        let err = repo.default_base().unwrap_err().to_string();
        assert!(
            err.contains("origin/HEAD, origin/main, origin/master, main, master"),
            "{err}"
        );
    }

    #[test]
    fn shallow_clone_without_merge_base_says_how_to_fix_it() {
        let f = fixture();
        let root = TempDir::new().unwrap();
        let url = format!("file://{}", f.dir.path().display());
        git(
            root.path(),
            &[
                "clone",
                "-q",
                "--depth",
                "1",
                "--no-single-branch",
                "--no-tags",
                &url,
                "shallow",
            ],
        );
        let repo = GitRepo::discover(&root.path().join("shallow")).unwrap();
        assert!(repo.is_shallow());
        let main = repo.resolve("origin/main").unwrap().commit;
        let feature = repo.resolve("origin/feature").unwrap().commit;
        let err = repo.merge_base(main, feature).unwrap_err().to_string();
        assert!(err.contains("shallow clone"), "{err}");
        assert!(err.contains("fetch-depth: 0"), "{err}");
        assert!(err.contains("git fetch --unshallow"), "{err}");
        assert!(!GitRepo::discover(f.dir.path()).unwrap().is_shallow());
    }

    #[test]
    fn opens_subdirectories_bare_repositories_and_linked_worktrees() {
        let f = fixture();
        let d = f.dir.path();
        let top = d.canonicalize().unwrap();
        let repo = GitRepo::discover(&d.join("apps/web")).unwrap();
        assert_eq!(repo.work_dir().unwrap().canonicalize().unwrap(), top);

        let root = TempDir::new().unwrap();
        git(
            root.path(),
            &["clone", "-q", "--bare", d.to_str().unwrap(), "bare.git"],
        );
        let bare = GitRepo::discover(&root.path().join("bare.git")).unwrap();
        assert_eq!(bare.work_dir(), None);
        assert_eq!(
            text(&snapshot(&bare, "v1"), "apps/web/kustomization.yaml"),
            "v1\n"
        );
        assert!(bare.staged_snapshot().is_err());

        let linked = root.path().join("linked");
        git(
            d,
            &["worktree", "add", "-q", linked.to_str().unwrap(), "feature"],
        );
        let repo = GitRepo::discover(&linked.join("apps")).unwrap();
        assert_eq!(
            repo.work_dir().unwrap().canonicalize().unwrap(),
            linked.canonicalize().unwrap()
        );
        assert_eq!(repo.resolve("HEAD").unwrap().commit.to_hex(), f.c3_feature);
        assert_eq!(
            text(&repo.staged_snapshot().unwrap(), "README"),
            "readme on feature\n"
        );
    }

    #[test]
    fn snapshots_are_shared_across_threads() {
        let f = fixture();
        let repo = GitRepo::discover(f.dir.path()).unwrap();
        let head = snapshot(&repo, "HEAD");
        let old = snapshot(&repo, "HEAD~2");
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    for _ in 0..20 {
                        assert_eq!(text(&head, "apps/web/deploy"), "deploy\n");
                        assert_eq!(text(&old, "apps/web/kustomization.yaml"), "v1\n");
                    }
                });
            }
        });
        // Base and head share one blob cache: the unchanged blob is the same allocation.
        let a = head.read(&p("base/deploy.yaml")).unwrap();
        let b = old.read(&p("base/deploy.yaml")).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
    }
}
