//! A snapshot held in memory: files and symbolic links given by their paths, directories implied
//! by them. For tests and fuzzing, where writing a tree to disk for every input would be slow.

use std::collections::{BTreeMap, BTreeSet};

use super::links::{self, LinkTable, RawKind};
use super::{Bytes, DirEntry, EntryKind, ObjectId, RepoPath, Snapshot, SourceError};

/// One entry of a [`MemorySnapshot`].
#[derive(Clone, Debug)]
enum Entry {
    File(Bytes),
    Symlink(String),
}

/// A read-only snapshot built from `(path, contents)` pairs. Links are resolved inside the
/// snapshot, as in a git tree.
#[doc(hidden)]
#[derive(Clone, Debug, Default)]
pub struct MemorySnapshot {
    entries: BTreeMap<RepoPath, Entry>,
    dirs: BTreeSet<RepoPath>,
}

impl MemorySnapshot {
    /// An empty snapshot (only the root directory).
    pub fn new() -> MemorySnapshot {
        MemorySnapshot::default()
    }

    /// Adds a file. A path under an existing file, or naming an existing directory, is refused
    /// (false), as a tree cannot hold both.
    pub fn add_file(&mut self, path: &RepoPath, contents: &[u8]) -> bool {
        self.add(path, Entry::File(Bytes::from(contents)))
    }

    /// Adds a symbolic link whose target text is `target`; refused like [`Self::add_file`].
    pub fn add_symlink(&mut self, path: &RepoPath, target: &str) -> bool {
        self.add(path, Entry::Symlink(target.to_string()))
    }

    fn add(&mut self, path: &RepoPath, entry: Entry) -> bool {
        if path.is_root() || self.dirs.contains(path) {
            return false;
        }
        let mut ancestors = Vec::new();
        let mut dir = path.parent();
        while !dir.is_root() {
            if self.entries.contains_key(&dir) {
                return false;
            }
            ancestors.push(dir.clone());
            dir = dir.parent();
        }
        self.dirs.extend(ancestors);
        self.entries.insert(path.clone(), entry);
        true
    }

    fn resolve(&self, path: &RepoPath) -> Result<(RepoPath, RawKind), SourceError> {
        links::resolve(self, path)
    }
}

impl LinkTable for MemorySnapshot {
    fn raw_kind(&self, path: &RepoPath) -> RawKind {
        match self.entries.get(path) {
            Some(Entry::File(_)) => RawKind::File,
            Some(Entry::Symlink(_)) => RawKind::Symlink,
            None if path.is_root() || self.dirs.contains(path) => RawKind::Dir,
            None => RawKind::Missing,
        }
    }

    fn link_target(&self, path: &RepoPath) -> Result<String, SourceError> {
        match self.entries.get(path) {
            Some(Entry::Symlink(target)) => Ok(target.clone()),
            _ => Err(SourceError::NotFound {
                path: path.to_string(),
            }),
        }
    }
}

impl Snapshot for MemorySnapshot {
    fn read(&self, path: &RepoPath) -> Result<Bytes, SourceError> {
        let (resolved, kind) = self.resolve(path)?;
        match (kind, self.entries.get(&resolved)) {
            (RawKind::File, Some(Entry::File(bytes))) => Ok(bytes.clone()),
            (RawKind::Dir, _) => Err(SourceError::IsDir {
                path: path.to_string(),
            }),
            _ => Err(SourceError::NotFound {
                path: path.to_string(),
            }),
        }
    }

    fn list(&self, dir: &RepoPath) -> Result<Vec<DirEntry>, SourceError> {
        let (resolved, kind) = self.resolve(dir)?;
        if kind != RawKind::Dir {
            return Err(SourceError::NotDir {
                path: dir.to_string(),
            });
        }
        let mut out: Vec<DirEntry> = Vec::new();
        let children = self
            .entries
            .iter()
            .map(|(path, entry)| {
                let kind = match entry {
                    Entry::File(_) => EntryKind::File,
                    Entry::Symlink(_) => EntryKind::Symlink,
                };
                (path, kind)
            })
            .chain(self.dirs.iter().map(|path| (path, EntryKind::Dir)))
            .filter(|(path, _)| !path.is_root() && path.parent() == resolved);
        for (path, kind) in children {
            out.push(DirEntry {
                name: path.file_name().to_string(),
                kind,
            });
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    fn kind(&self, path: &RepoPath) -> EntryKind {
        match self.resolve(path) {
            Ok((_, RawKind::File)) => EntryKind::File,
            Ok((_, RawKind::Dir)) => EntryKind::Dir,
            _ => EntryKind::Missing,
        }
    }

    fn canonical(&self, path: &RepoPath) -> Result<RepoPath, SourceError> {
        self.resolve(path).map(|(resolved, _)| resolved)
    }

    fn object_id(&self, path: &RepoPath) -> Option<ObjectId> {
        match self.read(path) {
            Ok(bytes) => Some(ObjectId::for_blob(&bytes)),
            Err(_) => None,
        }
    }

    fn describe(&self) -> String {
        "memory".to_string()
    }
}

/// A [`MemorySnapshot`] that names each blob's id without a read (as git's snapshots do) and
/// counts the files read, for tests of what is read again and what is not.
#[cfg(test)]
pub(crate) struct CountingSnapshot {
    pub files: MemorySnapshot,
    reads: std::sync::atomic::AtomicUsize,
}

#[cfg(test)]
impl CountingSnapshot {
    pub fn new(files: MemorySnapshot) -> CountingSnapshot {
        CountingSnapshot {
            files,
            reads: Default::default(),
        }
    }

    /// How many files were read so far.
    pub fn reads(&self) -> usize {
        self.reads.load(std::sync::atomic::Ordering::SeqCst)
    }
}

#[cfg(test)]
impl Snapshot for CountingSnapshot {
    fn read(&self, path: &RepoPath) -> Result<Bytes, SourceError> {
        self.reads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.files.read(path)
    }
    fn list(&self, dir: &RepoPath) -> Result<Vec<DirEntry>, SourceError> {
        self.files.list(dir)
    }
    fn kind(&self, path: &RepoPath) -> EntryKind {
        self.files.kind(path)
    }
    fn canonical(&self, path: &RepoPath) -> Result<RepoPath, SourceError> {
        self.files.canonical(path)
    }
    fn object_id(&self, path: &RepoPath) -> Option<ObjectId> {
        self.files.object_id(path)
    }
    fn stored_id(&self, path: &RepoPath) -> Option<ObjectId> {
        self.files.object_id(path)
    }
    fn describe(&self) -> String {
        "counting".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> RepoPath {
        RepoPath::new(s).expect("valid test path")
    }

    #[test]
    fn files_links_and_implied_directories() {
        let mut snap = MemorySnapshot::new();
        assert!(snap.add_file(&p("a/b/c.yaml"), b"x: 1\n"));
        assert!(snap.add_symlink(&p("a/link"), "b/c.yaml"));
        assert!(!snap.add_file(&p("a/b"), b"dir already"));
        assert!(!snap.add_file(&p("a/b/c.yaml/d"), b"under a file"));
        assert_eq!(&*snap.read(&p("a/link")).unwrap(), b"x: 1\n");
        assert_eq!(snap.kind(&p("a/b")), EntryKind::Dir);
        assert_eq!(snap.kind(&p("nope")), EntryKind::Missing);
        let names: Vec<_> = snap
            .list(&p("a"))
            .unwrap()
            .into_iter()
            .map(|e| (e.name, e.kind))
            .collect();
        assert_eq!(
            names,
            [
                ("b".to_string(), EntryKind::Dir),
                ("link".to_string(), EntryKind::Symlink)
            ]
        );
        assert!(matches!(
            snap.read(&p("a/b")),
            Err(SourceError::IsDir { .. })
        ));
        assert_eq!(snap.list(&RepoPath::root()).unwrap().len(), 1);
    }
}
