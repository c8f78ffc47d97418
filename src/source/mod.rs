//! Read-only views of a repository at one revision: a git commit, the staged index, or the
//! work tree. Every engine reads through [`Snapshot`], never through `std::fs`.

#[cfg(all(test, unix))]
mod contract;
mod git;
mod links;
mod memory;
mod mentions;
mod paths;
mod recording;
mod worktree;

pub use git::{CommitSnapshot, GitRepo, IndexSnapshot, ResolvedRev};
#[cfg(test)]
pub(crate) use memory::CountingSnapshot;
#[doc(hidden)]
pub use memory::MemorySnapshot;
pub use mentions::read_if_mentions;
pub use paths::{PathError, RepoPath};
pub use recording::{
    source_finding, yaml_finding, Contents, Documents, Files, LoadError, ParseCache, ReadSet,
    RemoteSnapshot, Seen,
};
pub use worktree::WorktreeSnapshot;

use std::path::Path;
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

    /// The first 7 hex characters, as `git log --oneline` abbreviates.
    pub fn short(&self) -> String {
        let mut hex = self.to_hex();
        hex.truncate(7);
        hex
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
    #[error("{path}: not a regular file (a FIFO, socket or device); kdelta does not read it")]
    NotRegular { path: String },
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

/// A read of one file that runs later, after the borrow of its snapshot ended (a chart's
/// `.Files`, read only when a template asks for them).
pub type LaterRead = Box<dyn FnOnce() -> Result<Bytes, SourceError> + Send>;

/// A read-only file view of one revision.
pub trait Snapshot: Send + Sync {
    /// The contents of a file, following symbolic links inside the snapshot.
    fn read(&self, path: &RepoPath) -> Result<Bytes, SourceError>;
    /// A read of the file at `path` for later: what can be checked without reading it (that
    /// it is there, a regular file, not too large) is checked now. `Ok(None)` when the
    /// snapshot cannot defer a read (then [`Snapshot::read`] it now).
    fn read_later(&self, _path: &RepoPath) -> Result<Option<LaterRead>, SourceError> {
        Ok(None)
    }
    /// The entries of a directory, sorted by name (bytewise).
    fn list(&self, dir: &RepoPath) -> Result<Vec<DirEntry>, SourceError>;
    /// What the path names, following symbolic links (a dangling or escaping link is `Missing`;
    /// a FIFO, socket or device in a work tree is a `File` that [`Snapshot::read`] refuses).
    fn kind(&self, path: &RepoPath) -> EntryKind;
    /// The path with every symbolic link in it resolved, as `realpath` would give it (links
    /// never lead outside the repository).
    fn canonical(&self, path: &RepoPath) -> Result<RepoPath, SourceError>;
    /// The content id of a file or directory, when the snapshot knows one.
    fn object_id(&self, path: &RepoPath) -> Option<ObjectId>;
    /// The content id of a file when the snapshot stores it (git's trees and index name every
    /// blob's id), found without reading the file; `None` when it would take a read.
    fn stored_id(&self, _path: &RepoPath) -> Option<ObjectId> {
        None
    }
    /// The contents of a file with their content id ([`ObjectId::for_blob`] of them); a
    /// snapshot that knows the id already (git's) does not hash the bytes again.
    fn read_with_id(&self, path: &RepoPath) -> Result<(Bytes, ObjectId), SourceError> {
        let bytes = self.read(path)?;
        let id = ObjectId::for_blob(&bytes);
        Ok((bytes, id))
    }
    /// The contents of a file with what a read set keeps of them: the stored id when the
    /// snapshot has one, else the contents (hashed only if a comparison asks).
    fn read_seen(&self, path: &RepoPath) -> Result<(Bytes, Seen), SourceError> {
        match self.stored_id(path) {
            Some(id) => Ok((self.read(path)?, Seen::Id(id))),
            None => {
                let bytes = self.read(path)?;
                Ok((bytes.clone(), Seen::Contents(bytes)))
            }
        }
    }
    /// A short human description such as `HEAD~1 (3f2a9c1)`, `staged`, or `work tree`.
    fn describe(&self) -> String;
}

/// Which revision of a repository to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Revision {
    /// A commit named by any revision spec (`HEAD~1`, `origin/main`, a tag, a hex id); `HEAD`
    /// before the first commit is the empty tree.
    Commit(String),
    /// The staged index, as a pre-commit hook sees it.
    Staged,
    /// The files on disk (also outside any git repository).
    Worktree,
}

/// How an opened revision is named in reports: as the user named it, and the commit it
/// resolved to.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RevisionInfo {
    /// The revision as the user wrote it, or `STAGED` / `WORKTREE`.
    pub rev: String,
    /// The commit's full hex id, for commit revisions.
    pub commit: Option<String>,
}

/// Opens `rev` of the repository containing `dir`. The work tree of a repository is its top
/// directory; outside any repository it is `dir` itself.
pub fn open(dir: &Path, rev: &Revision) -> Result<(Box<dyn Snapshot>, RevisionInfo), SourceError> {
    match (GitRepo::discover(dir), rev) {
        (Ok(repo), _) => repo.open(rev),
        (Err(_), Revision::Worktree) => Ok((
            Box::new(WorktreeSnapshot::new(dir.to_path_buf())?),
            RevisionInfo {
                rev: "WORKTREE".to_string(),
                commit: None,
            },
        )),
        (Err(e), _) => Err(e),
    }
}

/// The base revision `kdelta diff` uses by default: the default branch's name (e.g.
/// `origin/main`) and the merge base of `HEAD` with it.
pub fn default_base(dir: &Path) -> Result<(String, ObjectId), SourceError> {
    GitRepo::discover(dir)?.default_base()
}

/// The repository (or plain directory) a command works on: open it once, then open any number
/// of revisions from it so they share one blob cache.
pub struct Workspace {
    repo: Option<GitRepo>,
    root: std::path::PathBuf,
}

impl Workspace {
    /// Finds the repository containing `dir`; outside any repository the workspace is `dir`.
    pub fn discover(dir: &Path) -> Workspace {
        match GitRepo::discover(dir) {
            Ok(repo) => {
                let root = repo.work_dir().unwrap_or_else(|| dir.to_path_buf());
                Workspace {
                    repo: Some(repo),
                    root,
                }
            }
            Err(_) => Workspace {
                repo: None,
                root: dir.to_path_buf(),
            },
        }
    }

    /// The directory the work-tree snapshot is rooted at.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The repository's remote URLs (none outside git).
    pub fn remote_urls(&self) -> Vec<String> {
        self.repo
            .as_ref()
            .map(GitRepo::remote_urls)
            .unwrap_or_default()
    }

    /// True inside a git repository.
    pub fn is_git(&self) -> bool {
        self.repo.is_some()
    }

    /// Opens a revision.
    pub fn open(&self, rev: &Revision) -> Result<(Box<dyn Snapshot>, RevisionInfo), SourceError> {
        match (&self.repo, rev) {
            (Some(repo), _) => repo.open(rev),
            (None, Revision::Worktree) => Ok((
                Box::new(WorktreeSnapshot::new(self.root.clone())?),
                RevisionInfo {
                    rev: "WORKTREE".to_string(),
                    commit: None,
                },
            )),
            (None, _) => Err(SourceError::Git(format!(
                "not a git repository (or any parent): {}",
                self.root.display()
            ))),
        }
    }

    /// The default diff base: the default branch's name and the merge base of HEAD with it.
    pub fn default_base(&self) -> Result<(String, ObjectId), SourceError> {
        match &self.repo {
            Some(repo) => repo.default_base(),
            None => Err(SourceError::Git(format!(
                "not a git repository (or any parent): {}; kdelta diff compares git revisions",
                self.root.display()
            ))),
        }
    }
}

/// Helpers for tests that build real repositories with the `git` command line.
#[cfg(all(test, unix))]
pub(crate) mod testing {
    use std::path::Path;
    use std::process::Command;

    /// Runs git in `dir` as [`crate::testing::git_command`] does; returns its trimmed standard
    /// output.
    pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
        let out = git_command(dir, args).output().expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Like [`git`], for commands expected to fail (e.g. a conflicting merge).
    pub(crate) fn git_may_fail(dir: &Path, args: &[&str]) {
        let _ = git_command(dir, args).output().expect("git runs");
    }

    /// The isolated test git command, with `dir` as its home too.
    fn git_command(dir: &Path, args: &[&str]) -> Command {
        crate::testing::git_command(dir, dir, args)
    }

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

    /// Stages everything and commits; returns the new commit's id.
    pub(crate) fn commit_all(dir: &Path, message: &str) -> String {
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", message]);
        git(dir, &["rev-parse", "HEAD"])
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::testing::{commit_all, git, write};
    use super::*;
    use tempfile::TempDir;

    #[test]
    fn the_yaml_size_limit_is_the_file_size_limit() {
        assert_eq!(crate::yaml::Limits::DEFAULT.max_bytes as u64, MAX_FILE_SIZE);
    }

    fn text(snapshot: &dyn Snapshot, path: &str) -> String {
        let bytes = snapshot.read(&RepoPath::new(path).unwrap()).unwrap();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    #[test]
    fn opens_a_plain_directory_as_the_work_tree() {
        let dir = TempDir::new().unwrap();
        write(dir.path(), "k/kustomization.yaml", "resources: []\n");
        let (snapshot, info) = open(dir.path(), &Revision::Worktree).unwrap();
        assert_eq!(
            text(snapshot.as_ref(), "k/kustomization.yaml"),
            "resources: []\n"
        );
        assert_eq!(
            info,
            RevisionInfo {
                rev: "WORKTREE".into(),
                commit: None
            }
        );

        for rev in [Revision::Commit("HEAD".into()), Revision::Staged] {
            let err = open(dir.path(), &rev).err().unwrap().to_string();
            let expected = format!(
                "not a git repository (or any parent): {}",
                dir.path().display()
            );
            assert_eq!(err, expected);
        }
        let err = default_base(dir.path()).unwrap_err().to_string();
        assert!(err.starts_with("not a git repository"), "{err}");
    }

    #[test]
    fn opens_each_revision_of_a_repository_from_a_subdirectory() {
        let dir = TempDir::new().unwrap();
        let d = dir.path();
        git(d, &["init", "-q"]);
        write(d, "top.yaml", "one\n");
        write(d, "apps/web/k.yaml", "web\n");
        let first = commit_all(d, "one");
        write(d, "top.yaml", "two\n");
        git(d, &["add", "top.yaml"]);
        write(d, "top.yaml", "three\n");
        let sub = d.join("apps/web");

        let (head, info) = open(&sub, &Revision::Commit("HEAD".into())).unwrap();
        assert_eq!(text(head.as_ref(), "top.yaml"), "one\n");
        assert_eq!(
            info,
            RevisionInfo {
                rev: "HEAD".into(),
                commit: Some(first.clone())
            }
        );
        assert_eq!(head.describe(), format!("HEAD ({})", &first[..7]));

        let (staged, info) = open(&sub, &Revision::Staged).unwrap();
        assert_eq!(text(staged.as_ref(), "top.yaml"), "two\n");
        assert_eq!(info.rev, "STAGED");

        let (work, info) = open(&sub, &Revision::Worktree).unwrap();
        assert_eq!(
            text(work.as_ref(), "top.yaml"),
            "three\n",
            "the root is the repository's top"
        );
        assert_eq!(info.commit, None);

        let err = open(&sub, &Revision::Commit("nope".into()))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("\"nope\""), "{err}");
    }

    #[test]
    fn default_base_is_the_merge_base_with_the_default_branch() {
        let dir = TempDir::new().unwrap();
        let d = dir.path();
        git(d, &["init", "-q"]);
        write(d, "a", "a\n");
        let base = commit_all(d, "one");
        git(d, &["checkout", "-q", "-b", "topic"]);
        write(d, "a", "topic\n");
        commit_all(d, "topic");
        git(d, &["checkout", "-q", "main"]);
        write(d, "b", "b\n");
        commit_all(d, "main moves on");
        git(d, &["checkout", "-q", "topic"]);
        let (rev, commit) = default_base(d).unwrap();
        assert_eq!((rev.as_str(), commit.to_hex()), ("main", base));
    }
}
