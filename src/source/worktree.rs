//! The directory tree on disk as a snapshot: the work tree of a repository, or any directory
//! outside git. Besides `git/`, the only reader of the file system.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use super::{
    Bytes, DirEntry, EntryKind, LaterRead, ObjectId, RepoPath, Snapshot, SourceError, MAX_FILE_SIZE,
};

/// Files under a directory, read on demand and kept, so every read of a path in one run sees
/// the same contents. `.git` is never part of it.
pub struct WorktreeSnapshot {
    /// The root with every symbolic link resolved; every path read must stay below it.
    root: PathBuf,
    max_file_size: u64,
    files: RwLock<HashMap<RepoPath, Bytes>>,
    /// Object ids computed so far: the render cache asks for the same file's id once per
    /// target that read it, and hashing it again each time made many targets reading one
    /// kustomization cost the square of their number.
    ids: RwLock<HashMap<RepoPath, Option<ObjectId>>>,
    /// What each path asked about was (resolving links takes a call per component).
    kinds: RwLock<HashMap<RepoPath, EntryKind>>,
    /// Directories resolved so far ([`Self::resolve_below_dir`]).
    dirs: RwLock<HashMap<RepoPath, Resolved>>,
}

/// Where a repository path leads on disk.
#[derive(Clone)]
struct Resolved {
    /// The repository path after following links.
    path: RepoPath,
    /// The absolute, link-free file system path.
    disk: PathBuf,
    /// Its metadata, when the resolution read it (an `lstat` of what is no link is the
    /// file's own).
    meta: Option<fs::Metadata>,
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
            ids: RwLock::default(),
            kinds: RwLock::default(),
            dirs: RwLock::default(),
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
        if let Some(resolved) = self.resolve_below_dir(path) {
            return Ok(resolved);
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
            meta: None,
        })
    }

    /// The resolution of a path that is no link below a directory resolved before: one
    /// `lstat`, not a `readlink` for each component (a chart's 300 files spent 3% of a render
    /// there). None for links, errors and the root, which take the whole walk.
    fn resolve_below_dir(&self, path: &RepoPath) -> Option<Resolved> {
        if path.is_root() {
            return None;
        }
        let parent = self.resolve_dir(&path.parent()).ok()?;
        let disk = parent.disk.join(path.file_name());
        let meta = fs::symlink_metadata(&disk).ok()?;
        if meta.file_type().is_symlink() {
            return None;
        }
        Some(Resolved {
            path: parent.path.child(path.file_name()),
            disk,
            meta: Some(meta),
        })
    }

    /// [`Self::resolve`] of a directory, remembered.
    fn resolve_dir(&self, dir: &RepoPath) -> Result<Resolved, SourceError> {
        let known = self.dirs.read().unwrap_or_else(PoisonError::into_inner);
        if let Some(r) = known.get(dir) {
            return Ok(r.clone());
        }
        drop(known);
        let resolved = self.resolve(dir)?;
        self.dirs
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(dir.clone(), resolved.clone());
        Ok(resolved)
    }

    /// The size of the regular file `target` (at `path`), refused when it is a directory,
    /// not a regular file or over the limit.
    fn checked_size(&self, path: &RepoPath, target: &Resolved) -> Result<u64, SourceError> {
        let meta = match &target.meta {
            Some(meta) => meta.clone(),
            None => fs::metadata(&target.disk).map_err(|e| io_error(path, &e))?,
        };
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
        Ok(meta.len())
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
        let size = self.checked_size(path, &target)?;
        let bytes = read_checked(path, &target.disk, size, self.max_file_size)?;
        let mut files = self.files.write().unwrap_or_else(PoisonError::into_inner);
        Ok(files.entry(target.path).or_insert(bytes).clone())
    }

    fn read_later(&self, path: &RepoPath) -> Result<Option<LaterRead>, SourceError> {
        let target = self.resolve(path)?;
        if self.cached(&target.path).is_some() {
            return Ok(None);
        }
        let size = self.checked_size(path, &target)?;
        let (path, limit) = (path.clone(), self.max_file_size);
        Ok(Some(Box::new(move || {
            read_checked(&path, &target.disk, size, limit)
        })))
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
        if let Some(kind) = self
            .kinds
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(path)
        {
            return *kind;
        }
        // A FIFO, socket or device counts as a file, so that using it reports it: `read`
        // refuses it.
        let kind = match self.resolve(path).map(|t| match t.meta {
            Some(meta) => Ok(meta),
            None => fs::metadata(&t.disk),
        }) {
            Ok(Ok(meta)) if meta.is_dir() => EntryKind::Dir,
            Ok(Ok(_)) => EntryKind::File,
            _ => EntryKind::Missing,
        };
        self.kinds
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(path.clone(), kind);
        kind
    }

    fn canonical(&self, path: &RepoPath) -> Result<RepoPath, SourceError> {
        self.resolve(path).map(|target| target.path)
    }

    fn object_id(&self, path: &RepoPath) -> Option<ObjectId> {
        if let Some(id) = self.ids.read().unwrap_or_else(|p| p.into_inner()).get(path) {
            return *id;
        }
        let id = if self.kind(path) == EntryKind::File {
            self.read(path).ok().map(|bytes| ObjectId::for_blob(&bytes))
        } else {
            None
        };
        self.ids
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(path.clone(), id);
        id
    }

    fn describe(&self) -> String {
        "work tree".to_string()
    }
}

/// The file at `disk` (`path`), of `size` bytes when checked, refused when it grew over
/// `limit` since.
fn read_checked(path: &RepoPath, disk: &Path, size: u64, limit: u64) -> Result<Bytes, SourceError> {
    let bytes = read_shared(disk, size).map_err(|e| io_error(path, &e))?;
    if bytes.len() as u64 > limit {
        return Err(SourceError::TooLarge {
            path: path.to_string(),
            size: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

/// The contents of a file, read straight into the shared buffer when it has the `expected`
/// size (no second copy of every file a render reads); a file that changed size meanwhile is
/// read again whole.
fn read_shared(disk: &Path, expected: u64) -> io::Result<Bytes> {
    use std::io::Read;
    let mut file = fs::File::open(disk)?;
    let Ok(len) = usize::try_from(expected) else {
        return Ok(Bytes::from(fs::read(disk)?));
    };
    let mut buffer = Arc::<[u8]>::new_uninit_slice(len);
    let slots = Arc::get_mut(&mut buffer).expect("a buffer no one else holds");
    let complete = read_into(&mut file, slots)? == len && file.read(&mut [0u8; 1])? == 0;
    if complete {
        // SAFETY: `read_into` wrote all `len` bytes.
        Ok(unsafe { buffer.assume_init() })
    } else {
        Ok(Bytes::from(fs::read(disk)?))
    }
}

/// Reads `file` into `buffer` until it is full or the file ends, without clearing the buffer
/// first (a big chart's files cleared were 3% of its render): how many bytes were read.
#[cfg(unix)]
fn read_into(file: &mut fs::File, buffer: &mut [std::mem::MaybeUninit<u8>]) -> io::Result<usize> {
    use std::os::fd::AsRawFd;
    let mut filled = 0;
    while filled < buffer.len() {
        let rest = &mut buffer[filled..];
        // SAFETY: the kernel writes at most `rest.len()` bytes into `rest`, memory this
        // function borrows mutably; bytes it writes are initialized.
        let n = unsafe { libc::read(file.as_raw_fd(), rest.as_mut_ptr().cast(), rest.len()) };
        match n {
            0 => break,
            n if n > 0 => filled += n as usize,
            _ => {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
    Ok(filled)
}

/// Elsewhere the buffer is cleared, then read into.
#[cfg(not(unix))]
fn read_into(file: &mut fs::File, buffer: &mut [std::mem::MaybeUninit<u8>]) -> io::Result<usize> {
    use std::io::Read;
    buffer.fill(std::mem::MaybeUninit::new(0));
    // SAFETY: every byte was just initialized.
    let bytes = unsafe { &mut *(buffer as *mut [std::mem::MaybeUninit<u8>] as *mut [u8]) };
    let mut filled = 0;
    while filled < bytes.len() {
        match file.read(&mut bytes[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
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
    //! What only a directory on disk has: a `.git` that may be any file or directory, even
    //! outside a repository. The behaviour every snapshot shares, FIFOs and reads pinned on
    //! first use included, is checked by the contract suite in `source/contract.rs`.

    use super::*;
    use crate::source::testing::write;
    use tempfile::TempDir;

    fn p(path: &str) -> RepoPath {
        RepoPath::new(path).unwrap()
    }

    #[test]
    fn reads_and_lists_a_directory_outside_git() {
        let dir = TempDir::new().unwrap();
        let d = dir.path();
        write(d, "base/deploy.yaml", "deploy\n");
        write(d, ".git/config", "[core]\n");
        write(d, "apps/sub/.git", "gitdir: elsewhere\n");
        let s = WorktreeSnapshot::new(d.to_path_buf()).unwrap();
        assert_eq!(&*s.read(&p("base/deploy.yaml")).unwrap(), b"deploy\n");

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
                ("base".into(), EntryKind::Dir)
            ],
            ".git is never listed"
        );
        assert_eq!(names("apps/sub"), [], "nor is a submodule's .git file");
        assert!(matches!(
            s.read(&p(".git/config")),
            Err(SourceError::NotFound { .. })
        ));
        assert!(matches!(
            s.read(&p("apps/sub/.git")),
            Err(SourceError::NotFound { .. })
        ));
        assert_eq!(s.kind(&p(".git")), EntryKind::Missing);
    }

    /// A file is read whole at the size it was listed with, and again whole when it grew or
    /// shrank since.
    #[test]
    fn a_file_is_read_whole_whatever_its_size_was_when_listed() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("f");
        let text: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &text).expect("written");
        for listed in [text.len() as u64, 10, text.len() as u64 + 10, 0] {
            let read = read_shared(&path, listed).expect("read");
            assert_eq!(&read[..], &text[..], "listed at {listed} bytes");
        }
        std::fs::write(&path, b"").expect("emptied");
        assert!(read_shared(&path, 0).expect("read").is_empty());
    }
}
