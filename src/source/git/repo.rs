//! The repository: discovery, revision specs, the default branch and merge bases, and opening
//! any [`Revision`] as a snapshot.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use gix::bstr::ByteSlice;

use super::blobs::BlobStore;
use super::tree::Table;
use super::view::ObjectView;
use super::{git_error, to_gix, to_oid};
use crate::source::{
    ObjectId, Revision, RevisionInfo, Snapshot, SourceError, WorktreeSnapshot, MAX_FILE_SIZE,
};

/// A git repository (main work tree, linked worktree or bare), opened without reading any user
/// or system configuration or `GIT_*` variable (but see [`GitRepo::staged_snapshot`]), so
/// results depend on the repository alone.
pub struct GitRepo {
    pub(super) repo: gix::Repository,
    /// Shared by every snapshot made from this repository, so base and head read a blob once.
    blobs: Arc<BlobStore>,
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
            blobs: Arc::new(BlobStore::new(sync)),
            max_file_size: MAX_FILE_SIZE,
        })
    }

    /// Sets the largest blob snapshots made afterwards will read (default [`MAX_FILE_SIZE`]).
    pub fn with_max_file_size(mut self, limit: u64) -> GitRepo {
        self.max_file_size = limit;
        self
    }

    /// The fetch URLs of the repository's remotes (what Argo CD's `repoURL`s name).
    pub fn remote_urls(&self) -> Vec<String> {
        let mut urls: Vec<String> = self
            .repo
            .remote_names()
            .iter()
            .filter_map(|name| {
                self.repo
                    .find_remote(AsRef::<gix::bstr::BStr>::as_ref(name))
                    .ok()
            })
            .filter_map(|r| {
                r.url(gix::remote::Direction::Fetch)
                    .map(|u| u.to_bstring().to_string())
            })
            .collect();
        urls.sort();
        urls.dedup();
        urls
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

    /// Whether `HEAD` names a branch without commits yet (a new repository).
    fn head_is_unborn(&self) -> bool {
        self.repo.head().is_ok_and(|head| head.is_unborn())
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
    pub fn open(&self, rev: &Revision) -> Result<(Box<dyn Snapshot>, RevisionInfo), SourceError> {
        match rev {
            Revision::Commit(spec) if spec == "HEAD" && self.head_is_unborn() => Ok((
                Box::new(self.unborn_head_snapshot()?),
                RevisionInfo {
                    rev: "HEAD (no commits yet)".to_string(),
                    commit: None,
                },
            )),
            Revision::Commit(spec) => {
                let resolved = self.resolve(spec)?;
                let info = RevisionInfo {
                    rev: spec.clone(),
                    commit: Some(resolved.commit.to_hex()),
                };
                Ok((Box::new(self.snapshot_at(&resolved)?), info))
            }
            Revision::Staged => Ok((
                Box::new(self.staged_snapshot()?),
                RevisionInfo {
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
                    RevisionInfo {
                        rev: "WORKTREE".to_string(),
                        commit: None,
                    },
                ))
            }
        }
    }

    /// The view every snapshot of this repository reads through: `table` over the shared blob
    /// store, with this repository's size limit.
    pub(super) fn view(&self, table: Table, description: String) -> ObjectView {
        ObjectView {
            table,
            blobs: Arc::clone(&self.blobs),
            max_file_size: self.max_file_size,
            description,
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::source::git::fixture::{fixture, snapshot, text};
    use crate::source::testing::{commit_all, git, write};
    use tempfile::TempDir;

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
}
