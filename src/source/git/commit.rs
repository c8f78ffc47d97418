//! A commit's tree as a snapshot.

use super::repo::{GitRepo, ResolvedRev};
use super::tree::{add_tree, in_context, TableBuilder};
use super::view::{snapshot_via_view, ObjectView};
use super::{git_error, to_gix, to_oid};
use crate::source::{RepoPath, SourceError};

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

snapshot_via_view!(CommitSnapshot);

impl GitRepo {
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
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::source::git::fixture::{fixture, p, snapshot, text};
    use crate::source::git::view::ObjectView;
    use crate::source::testing::git;
    use crate::source::{EntryKind, Snapshot, WorktreeSnapshot, MAX_FILE_SIZE};

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
}
