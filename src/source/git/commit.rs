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
    //! What only a commit has: history. The behaviour every snapshot shares is checked by the
    //! contract suite in `source/contract.rs`.

    use super::*;
    use crate::source::git::fixture::{fixture, p, snapshot, text};
    use crate::source::{EntryKind, Snapshot};

    #[test]
    fn reads_files_at_each_revision() {
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
        let old = snapshot(&repo, "HEAD~1");
        assert_eq!(old.kind(&p("apps/api/x.yaml")), EntryKind::Missing);
        assert!(matches!(
            old.read(&p("apps/api/x.yaml")),
            Err(SourceError::NotFound { path }) if path == "apps/api/x.yaml"
        ));
    }

    #[test]
    fn the_size_limit_holds_for_blobs_another_snapshot_cached() {
        let f = fixture();
        let repo = GitRepo::discover(f.dir.path()).unwrap();
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
    fn directory_ids_change_with_their_contents() {
        let f = fixture();
        let repo = GitRepo::discover(f.dir.path()).unwrap();
        let head = snapshot(&repo, "HEAD");
        let old = snapshot(&repo, "HEAD~2");
        let id = |s: &dyn Snapshot, path: &str| s.object_id(&p(path));
        // A change inside a directory changes the ids of it and its ancestors, not its siblings.
        assert_ne!(id(&old, "apps/web"), id(&head, "apps/web"));
        assert_ne!(id(&old, "apps"), id(&head, "apps"));
        assert_ne!(id(&old, ""), id(&head, ""));
        assert_eq!(id(&old, "base"), id(&head, "base"));
    }
}
