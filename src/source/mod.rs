//! Read-only views of a repository at one revision: a git commit, the staged index, or the
//! work tree. Every engine reads through [`Snapshot`], never through `std::fs`.

mod paths;
mod worktree;

pub use paths::{PathError, RepoPath};
pub use worktree::WorktreeSnapshot;

use std::sync::Arc;

/// File contents shared between threads and between the two revisions of a diff.
pub type Bytes = Arc<[u8]>;

/// A content id: the git object id of a blob or tree (for work-tree files, the id git would give
/// the blob). Equal ids mean equal contents.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId(pub [u8; 20]);

impl ObjectId {
    /// The id git gives a blob with these contents (`git hash-object`).
    pub fn for_blob(contents: &[u8]) -> ObjectId {
        use sha1::{Digest, Sha1};
        let mut h = Sha1::new();
        h.update(format!("blob {}\0", contents.len()).as_bytes());
        h.update(contents);
        ObjectId(h.finalize().into())
    }

    /// Lower-case hex, 40 characters.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl std::fmt::Debug for ObjectId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl std::fmt::Display for ObjectId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_hex())
    }
}

/// What a path names in a snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Dir,
    /// A symbolic link (reported by [`Snapshot::list`]; `read` and `kind` follow links).
    Symlink,
    Missing,
}

/// One entry of a directory listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntry {
    /// The entry's own name (no slashes).
    pub name: String,
    /// File, Dir or Symlink (not followed).
    pub kind: EntryKind,
}

/// Errors reading a snapshot. Each names the repo-relative path.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("{path}: no such file or directory")]
    NotFound { path: String },
    #[error("{path}: is a directory, not a file")]
    IsDir { path: String },
    #[error("{path}: not a directory")]
    NotDir { path: String },
    #[error(transparent)]
    Path(#[from] PathError),
    #[error("{path}: symbolic link points outside the repository ({target})")]
    SymlinkEscape { path: String, target: String },
    #[error("{path}: too many levels of symbolic links")]
    SymlinkLoop { path: String },
    #[error("{path}: file is {size} bytes, over the {limit}-byte limit")]
    TooLarge { path: String, size: u64, limit: u64 },
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("{0}")]
    Git(String),
}

/// Largest file any engine reads (manifests, values, templates). Bigger files are errors, so a
/// stray 50 MB blob cannot stall a run.
pub const MAX_FILE_SIZE: u64 = 16 * 1024 * 1024;

/// A read-only file view of one revision.
pub trait Snapshot: Send + Sync {
    /// The contents of a file, following symbolic links inside the snapshot.
    fn read(&self, path: &RepoPath) -> Result<Bytes, SourceError>;
    /// The entries of a directory, sorted by name (bytewise).
    fn list(&self, dir: &RepoPath) -> Result<Vec<DirEntry>, SourceError>;
    /// What the path names, following symbolic links (a dangling or escaping link is `Missing`).
    fn kind(&self, path: &RepoPath) -> EntryKind;
    /// The content id of a file or directory, when the snapshot knows one.
    fn object_id(&self, path: &RepoPath) -> Option<ObjectId>;
    /// A short human description such as `HEAD~1 (3f2a9c1)`, `staged`, or `work tree`.
    fn describe(&self) -> String;
}

/// Helpers for tests that build real directory trees.
#[cfg(all(test, unix))]
pub(crate) mod testing {
    use std::path::Path;

    /// Writes `contents` to `dir/rel`, creating parent directories.
    pub(crate) fn write(dir: &Path, rel: &str, contents: &str) {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().expect("a file has a parent")).expect("mkdir");
        std::fs::write(path, contents).expect("write");
    }

    /// Creates the symbolic link `dir/rel` pointing at `target`.
    pub(crate) fn symlink(dir: &Path, rel: &str, target: &str) {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().expect("a link has a parent")).expect("mkdir");
        std::os::unix::fs::symlink(target, path).expect("symlink");
    }
}
