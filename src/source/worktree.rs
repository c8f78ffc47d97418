//! The directory tree on disk as a snapshot: the work tree of a repository, or any directory
//! outside git. Besides `git/`, the only reader of the file system.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{PoisonError, RwLock};

use super::{Bytes, DirEntry, EntryKind, ObjectId, RepoPath, Snapshot, SourceError, MAX_FILE_SIZE};

/// Files under a directory, read on demand and kept, so every read of a path in one run sees
/// the same contents. `.git` is never part of it.
pub struct WorktreeSnapshot {
    /// The root with every symbolic link resolved; every path read must stay below it.
    root: PathBuf,
    max_file_size: u64,
    files: RwLock<HashMap<RepoPath, Bytes>>,
}

/// Where a repository path leads on disk.
struct Resolved {
    /// The repository path after following links.
    path: RepoPath,
    /// The absolute, link-free file system path.
    disk: PathBuf,
}

impl WorktreeSnapshot {
    /// A snapshot of the directory `root`, which must exist.
    pub fn new(root: PathBuf) -> Result<WorktreeSnapshot, SourceError> {
        let canonical = fs::canonicalize(&root).map_err(|e| SourceError::Io {
            path: root.display().to_string(),
            message: format!("cannot open the directory: {e}"),
        })?;
        if !canonical.is_dir() {
            return Err(SourceError::NotDir {
                path: root.display().to_string(),
            });
        }
        Ok(WorktreeSnapshot {
            root: canonical,
            max_file_size: MAX_FILE_SIZE,
            files: RwLock::default(),
        })
    }

    /// Sets the largest file this snapshot reads (default [`MAX_FILE_SIZE`]).
    pub fn with_max_file_size(mut self, limit: u64) -> WorktreeSnapshot {
        self.max_file_size = limit;
        self
    }

    /// The directory this snapshot shows (symbolic links resolved).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Follows every link in `path`; the result must stay inside the root and outside `.git`.
    fn resolve(&self, path: &RepoPath) -> Result<Resolved, SourceError> {
        if in_git_dir(path) {
            return Err(not_found(path));
        }
        let full = self.root.join(path.as_str());
        let disk = fs::canonicalize(&full).map_err(|e| io_error(path, &e))?;
        let escape = || SourceError::SymlinkEscape {
            path: path.to_string(),
            target: disk.display().to_string(),
        };
        let rel = disk.strip_prefix(&self.root).map_err(|_| escape())?;
        let rel = rel.to_str().ok_or_else(|| SourceError::Io {
            path: path.to_string(),
            message: "the link target's path is not valid UTF-8".to_string(),
        })?;
        let resolved = RepoPath::new(rel).map_err(|_| escape())?;
        if in_git_dir(&resolved) {
            return Err(not_found(path));
        }
        Ok(Resolved {
            path: resolved,
            disk,
        })
    }

    fn cached(&self, path: &RepoPath) -> Option<Bytes> {
        let files = self.files.read().unwrap_or_else(PoisonError::into_inner);
        files.get(path).cloned()
    }
}

impl Snapshot for WorktreeSnapshot {
    fn read(&self, path: &RepoPath) -> Result<Bytes, SourceError> {
        let target = self.resolve(path)?;
        if let Some(bytes) = self.cached(&target.path) {
            return Ok(bytes);
        }
        let meta = fs::metadata(&target.disk).map_err(|e| io_error(path, &e))?;
        if meta.is_dir() {
            return Err(SourceError::IsDir {
                path: path.to_string(),
            });
        }
        // Opening a FIFO blocks until a writer comes, and a device can be endless.
        if !meta.is_file() {
            return Err(SourceError::NotRegular {
                path: path.to_string(),
            });
        }
        if meta.len() > self.max_file_size {
            return Err(SourceError::TooLarge {
                path: path.to_string(),
                size: meta.len(),
                limit: self.max_file_size,
            });
        }
        let bytes = Bytes::from(fs::read(&target.disk).map_err(|e| io_error(path, &e))?);
        // The file may have grown between the size check and the read.
        if bytes.len() as u64 > self.max_file_size {
            return Err(SourceError::TooLarge {
                path: path.to_string(),
                size: bytes.len() as u64,
                limit: self.max_file_size,
            });
        }
        let mut files = self.files.write().unwrap_or_else(PoisonError::into_inner);
        Ok(files.entry(target.path).or_insert(bytes).clone())
    }

    fn list(&self, dir: &RepoPath) -> Result<Vec<DirEntry>, SourceError> {
        let target = self.resolve(dir)?;
        let entries = fs::read_dir(&target.disk).map_err(|e| io_error(dir, &e))?;
        let mut out = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| io_error(dir, &e))?;
            let Ok(name) = entry.file_name().into_string() else {
                continue; // not addressable by a RepoPath
            };
            if name == ".git" {
                continue;
            }
            let file_type = entry.file_type().map_err(|e| io_error(dir, &e))?;
            let kind = if file_type.is_symlink() {
                EntryKind::Symlink
            } else if file_type.is_dir() {
                EntryKind::Dir
            } else {
                // A FIFO, socket or device is listed as a file so that a target reading the
                // directory reports it: `read` refuses it without opening it.
                EntryKind::File
            };
            out.push(DirEntry { name, kind });
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    fn kind(&self, path: &RepoPath) -> EntryKind {
        let Ok(target) = self.resolve(path) else {
            return EntryKind::Missing;
        };
        // A FIFO, socket or device counts as a file, so that using it reports it: `read`
        // refuses it.
        match fs::metadata(&target.disk) {
            Ok(meta) if meta.is_dir() => EntryKind::Dir,
            Ok(_) => EntryKind::File,
            Err(_) => EntryKind::Missing,
        }
    }

    fn canonical(&self, path: &RepoPath) -> Result<RepoPath, SourceError> {
        self.resolve(path).map(|target| target.path)
    }

    fn object_id(&self, path: &RepoPath) -> Option<ObjectId> {
        if self.kind(path) != EntryKind::File {
            return None;
        }
        self.read(path).ok().map(|bytes| ObjectId::for_blob(&bytes))
    }

    fn describe(&self) -> String {
        "work tree".to_string()
    }
}

fn in_git_dir(path: &RepoPath) -> bool {
    path.components().any(|c| c == ".git")
}

fn not_found(path: &RepoPath) -> SourceError {
    SourceError::NotFound {
        path: path.to_string(),
    }
}

/// `ELOOP`, which std does not name yet.
#[cfg(any(target_os = "linux", target_os = "android"))]
const ELOOP: i32 = 40;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const ELOOP: i32 = 62;

fn io_error(path: &RepoPath, err: &io::Error) -> SourceError {
    match err.kind() {
        io::ErrorKind::NotFound => not_found(path),
        io::ErrorKind::NotADirectory => SourceError::NotDir {
            path: path.to_string(),
        },
        _ if err.raw_os_error() == Some(ELOOP) => SourceError::SymlinkLoop {
            path: path.to_string(),
        },
        _ => SourceError::Io {
            path: path.to_string(),
            message: err.to_string(),
        },
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::source::testing::{symlink, write};
    use tempfile::TempDir;

    fn p(path: &str) -> RepoPath {
        RepoPath::new(path).unwrap()
    }

    /// A plain directory (no git) with links inside and out.
    fn tree() -> (TempDir, WorktreeSnapshot) {
        let dir = TempDir::new().unwrap();
        let d = dir.path().join("repo");
        write(&d, "base/deploy.yaml", "deploy\n");
        write(&d, "apps/web/kustomization.yaml", "web\n");
        write(&d, ".git/config", "[core]\n");
        write(&d, "apps/sub/.git", "gitdir: elsewhere\n");
        write(dir.path(), "outside.txt", "secret\n");
        symlink(&d, "apps/web/base", "../../base");
        symlink(&d, "apps/web/deploy", "base/deploy.yaml");
        symlink(&d, "evil/up", "../../outside.txt");
        symlink(&d, "evil/etc", "../../../../../../../../etc");
        symlink(&d, "evil/abs", "/etc");
        symlink(&d, "evil/git", "../.git/config");
        symlink(&d, "evil/loop-a", "loop-b");
        symlink(&d, "evil/loop-b", "loop-a");
        symlink(&d, "evil/dangling", "nowhere");
        let snapshot = WorktreeSnapshot::new(d).unwrap();
        (dir, snapshot)
    }

    fn text(s: &WorktreeSnapshot, path: &str) -> String {
        String::from_utf8(s.read(&p(path)).unwrap().to_vec()).unwrap()
    }

    #[test]
    fn reads_and_lists_a_directory_outside_git() {
        let (_dir, s) = tree();
        assert_eq!(text(&s, "base/deploy.yaml"), "deploy\n");
        assert_eq!(s.kind(&p("apps/web")), EntryKind::Dir);
        assert_eq!(s.kind(&p("")), EntryKind::Dir);
        assert_eq!(s.kind(&p("nope")), EntryKind::Missing);
        assert!(
            matches!(s.read(&p("nope")), Err(SourceError::NotFound { path }) if path == "nope")
        );
        assert!(matches!(s.read(&p("apps")), Err(SourceError::IsDir { .. })));
        assert!(matches!(
            s.list(&p("base/deploy.yaml")),
            Err(SourceError::NotDir { .. })
        ));
        assert!(matches!(
            s.read(&p("base/deploy.yaml/x")),
            Err(SourceError::NotDir { .. })
        ));
        assert_eq!(s.describe(), "work tree");

        let names = |dir: &str| -> Vec<(String, EntryKind)> {
            s.list(&p(dir))
                .unwrap()
                .into_iter()
                .map(|e| (e.name, e.kind))
                .collect()
        };
        assert_eq!(
            names(""),
            [
                ("apps".into(), EntryKind::Dir),
                ("base".into(), EntryKind::Dir),
                ("evil".into(), EntryKind::Dir)
            ],
            ".git is never listed"
        );
        assert_eq!(names("apps/sub"), []);
        assert_eq!(
            names("apps/web"),
            [
                ("base".into(), EntryKind::Symlink),
                ("deploy".into(), EntryKind::Symlink),
                ("kustomization.yaml".into(), EntryKind::File),
            ]
        );
        assert!(matches!(
            s.read(&p(".git/config")),
            Err(SourceError::NotFound { .. })
        ));
        assert_eq!(s.kind(&p(".git")), EntryKind::Missing);
    }

    #[test]
    fn follows_links_inside_the_root() {
        let (_dir, s) = tree();
        assert_eq!(text(&s, "apps/web/deploy"), "deploy\n");
        assert_eq!(text(&s, "apps/web/base/deploy.yaml"), "deploy\n");
        assert_eq!(s.kind(&p("apps/web/base")), EntryKind::Dir);
        assert_eq!(
            s.list(&p("apps/web/base")).unwrap(),
            s.list(&p("base")).unwrap()
        );
    }

    #[test]
    fn rejects_links_leaving_the_root() {
        let (_dir, s) = tree();
        for path in ["evil/up", "evil/etc", "evil/abs", "evil/etc/passwd"] {
            assert!(
                matches!(s.read(&p(path)), Err(SourceError::SymlinkEscape { .. })),
                "{path}: {:?}",
                s.read(&p(path))
            );
            assert_eq!(s.kind(&p(path)), EntryKind::Missing, "{path}");
            assert_eq!(s.object_id(&p(path)), None, "{path}");
        }
        assert!(matches!(
            s.list(&p("evil/abs")),
            Err(SourceError::SymlinkEscape { .. })
        ));
        assert!(matches!(
            s.read(&p("evil/git")),
            Err(SourceError::NotFound { .. })
        ));
        assert!(matches!(
            s.read(&p("evil/loop-a")),
            Err(SourceError::SymlinkLoop { .. })
        ));
        assert!(matches!(
            s.read(&p("evil/dangling")),
            Err(SourceError::NotFound { .. })
        ));
    }

    #[test]
    fn refuses_files_over_the_size_limit() {
        let (_dir, s) = tree();
        let s = s.with_max_file_size(5);
        match s.read(&p("base/deploy.yaml")) {
            Err(SourceError::TooLarge { path, size, limit }) => {
                assert_eq!((path.as_str(), size, limit), ("base/deploy.yaml", 7, 5));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(text(&s, "apps/web/kustomization.yaml"), "web\n");
    }

    #[test]
    fn object_ids_are_git_blob_ids() {
        let (_dir, s) = tree();
        assert_eq!(
            s.object_id(&p("apps/web/deploy")),
            Some(ObjectId::for_blob(b"deploy\n"))
        );
        // `git hash-object` of "deploy\n".
        assert_eq!(
            s.object_id(&p("base/deploy.yaml")).unwrap().to_hex(),
            "8541464a78c90b5e5a2e4ff120b6c286271ed093"
        );
        assert_eq!(s.object_id(&p("base")), None);
        assert_eq!(s.object_id(&p("missing")), None);
    }

    #[test]
    fn reads_are_stable_within_a_snapshot() {
        let (dir, s) = tree();
        assert_eq!(text(&s, "base/deploy.yaml"), "deploy\n");
        write(&dir.path().join("repo"), "base/deploy.yaml", "changed\n");
        assert_eq!(
            text(&s, "apps/web/deploy"),
            "deploy\n",
            "same file through a link"
        );
    }
}
