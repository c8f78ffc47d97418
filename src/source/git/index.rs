//! The staged index as a snapshot: what `git commit` would record.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use gix::bstr::ByteSlice;
use gix::objs::tree::EntryKind as Mode;

use super::repo::GitRepo;
use super::to_oid;
use super::tree::{add_tree, in_context, repo_path, Node, TableBuilder};
use super::view::{snapshot_via_view, ObjectView};
use crate::source::SourceError;

/// The staged index: stage-0 entries, directories implied by their paths.
pub struct IndexSnapshot {
    view: ObjectView,
}

snapshot_via_view!(IndexSnapshot);

impl GitRepo {
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

    /// The empty snapshot that `HEAD` names before the first commit, as `git diff --cached`
    /// sees it there: everything staged is added.
    pub fn unborn_head_snapshot(&self) -> Result<IndexSnapshot, SourceError> {
        let mut table = TableBuilder::default().finish();
        table.compute_dir_ids()?;
        Ok(IndexSnapshot {
            view: self.view(table, "HEAD (no commits yet)".to_string()),
        })
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
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::source::git::fixture::{fixture, p, snapshot, text};
    use crate::source::testing::{commit_all, git, git_may_fail, write};
    use crate::source::{EntryKind, ObjectId, Snapshot};

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
}
