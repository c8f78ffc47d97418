//! The repository the git tests share: two branches, tags, links inside and out, and an
//! executable file.

use tempfile::TempDir;

use super::{CommitSnapshot, GitRepo};
use crate::source::testing::{commit_all, git, symlink, write};
use crate::source::{RepoPath, Snapshot};

pub(super) fn p(path: &str) -> RepoPath {
    RepoPath::new(path).unwrap()
}

pub(super) fn text(snapshot: &dyn Snapshot, path: &str) -> String {
    String::from_utf8(snapshot.read(&p(path)).unwrap().to_vec()).unwrap()
}

/// Commit ids of the fixture, oldest first.
pub(super) struct Fixture {
    pub(super) dir: TempDir,
    pub(super) c1: String,
    pub(super) c2: String,
    pub(super) c3_feature: String,
    pub(super) c4: String,
}

/// main: c1 ── c2 ── c4, feature: c2 ── c3; tags v1 (lightweight, c1), v2 (annotated, c2).
pub(super) fn fixture() -> Fixture {
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

pub(super) fn snapshot(repo: &GitRepo, spec: &str) -> CommitSnapshot {
    repo.snapshot_at(&repo.resolve(spec).unwrap()).unwrap()
}
