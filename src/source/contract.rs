//! The [`Snapshot`] contract: behaviour checks written once and run against every snapshot kind
//! over the same contents (a commit, the staged index, the work tree, and a memory snapshot).
//! Where kinds legitimately differ, the check says so by matching on [`Kind`].

use std::path::{Path, PathBuf};
use std::process::Command;

use tempfile::TempDir;

use super::testing::{commit_all, git, symlink, write};
use super::{
    DirEntry, EntryKind, GitRepo, MemorySnapshot, ObjectId, RepoPath, Snapshot, SourceError,
    WorktreeSnapshot, MAX_FILE_SIZE,
};

/// One entry of the contents every kind is built from.
enum Entry {
    File(&'static str, &'static str),
    /// A file with the executable bit, which changes git's tree ids but not the blob's.
    Executable(&'static str, &'static str),
    Link(&'static str, &'static str),
}

/// The repository's contents. Escaping links name targets that exist outside the repository
/// (see [`Fixture`]), so that the work tree, which asks the operating system, sees the
/// escape too; [`escaping_links_to_missing_targets`] covers the other case.
const CONTENTS: &[Entry] = &[
    Entry::File("README", "readme\n"),
    Entry::File("apps/api/x.yaml", "api\n"),
    Entry::File("apps/web/kustomization.yaml", "v2\n"),
    Entry::File("base/deploy.yaml", "deploy\n"),
    Entry::Executable("tools/run.sh", "#!/bin/sh\n"),
    Entry::Link("apps/web/base", "../../base"),
    Entry::Link("apps/web/deploy", "base/deploy.yaml"),
    Entry::Link("evil/up", "../../etc"),
    Entry::Link("evil/abs", "/etc/passwd"),
    Entry::Link("evil/abs-dir", "/etc"),
    Entry::Link("evil/etc", "../../../../../../../../etc"),
    Entry::Link("evil/outside", "../../outside.txt"),
    Entry::Link("evil/gone", "../../nowhere"),
    Entry::Link("evil/git", "../.git/config"),
    Entry::Link("evil/loop-a", "loop-b"),
    Entry::Link("evil/loop-b", "loop-a"),
    Entry::Link("evil/dangling", "nowhere"),
];

/// The snapshot kinds under test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `HEAD` of the fixture repository.
    Commit,
    /// Its staged index (clean, so equal to `HEAD`).
    Index,
    /// Its work tree.
    Worktree,
    /// A [`MemorySnapshot`] of [`CONTENTS`].
    Memory,
}

/// [`CONTENTS`] committed in `<tmp>/repo`, with `<tmp>/etc/passwd` and `<tmp>/outside.txt`
/// beside it for escaping links to reach.
struct Fixture {
    _tmp: TempDir,
    repo: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture::build(|_| {})
    }

    /// The fixture with `extra` run on the work tree before everything is committed.
    fn build(extra: impl FnOnce(&Path)) -> Fixture {
        let tmp = TempDir::new().unwrap();
        let repo = tmp.path().join("repo");
        write(tmp.path(), "etc/passwd", "root\n");
        write(tmp.path(), "outside.txt", "secret\n");
        std::fs::create_dir(&repo).unwrap();
        git(&repo, &["init", "-q"]);
        for entry in CONTENTS {
            match *entry {
                Entry::File(path, contents) => write(&repo, path, contents),
                Entry::Executable(path, contents) => {
                    write(&repo, path, contents);
                    std::fs::set_permissions(
                        repo.join(path),
                        std::os::unix::fs::PermissionsExt::from_mode(0o755),
                    )
                    .unwrap();
                }
                Entry::Link(path, target) => symlink(&repo, path, target),
            }
        }
        extra(&repo);
        commit_all(&repo, "contents");
        Fixture { _tmp: tmp, repo }
    }

    fn open(&self, kind: Kind) -> Box<dyn Snapshot> {
        self.open_limited(kind, MAX_FILE_SIZE)
    }

    /// The constructor of each kind: `kind` over the fixture, reading files of at most `limit`
    /// bytes (a memory snapshot has no limit).
    fn open_limited(&self, kind: Kind, limit: u64) -> Box<dyn Snapshot> {
        let repo = || {
            GitRepo::discover(&self.repo)
                .unwrap()
                .with_max_file_size(limit)
        };
        match kind {
            Kind::Commit => {
                let repo = repo();
                Box::new(repo.snapshot_at(&repo.resolve("HEAD").unwrap()).unwrap())
            }
            Kind::Index => Box::new(repo().staged_snapshot().unwrap()),
            Kind::Worktree => Box::new(
                WorktreeSnapshot::new(self.repo.clone())
                    .unwrap()
                    .with_max_file_size(limit),
            ),
            Kind::Memory => {
                let mut memory = MemorySnapshot::new();
                for entry in CONTENTS {
                    let added = match *entry {
                        Entry::File(path, contents) | Entry::Executable(path, contents) => {
                            memory.add_file(&p(path), contents.as_bytes())
                        }
                        Entry::Link(path, target) => memory.add_symlink(&p(path), target),
                    };
                    assert!(added, "{}", entry_path(entry));
                }
                Box::new(memory)
            }
        }
    }

    /// `git rev-parse` in the fixture repository.
    fn rev_parse(&self, spec: &str) -> String {
        git(&self.repo, &["rev-parse", spec])
    }
}

fn entry_path(entry: &Entry) -> &'static str {
    match *entry {
        Entry::File(path, _) | Entry::Executable(path, _) | Entry::Link(path, _) => path,
    }
}

fn p(path: &str) -> RepoPath {
    RepoPath::new(path).unwrap()
}

fn text(s: &dyn Snapshot, path: &str) -> String {
    String::from_utf8(s.read(&p(path)).unwrap().to_vec()).unwrap()
}

fn names(s: &dyn Snapshot, dir: &str) -> Vec<(String, EntryKind)> {
    s.list(&p(dir))
        .unwrap()
        .into_iter()
        .map(|DirEntry { name, kind }| (name, kind))
        .collect()
}

fn id(s: &dyn Snapshot, path: &str) -> Option<String> {
    s.object_id(&p(path)).map(|id| id.to_hex())
}

/// Maps a kind's test name to its [`Kind`].
macro_rules! kind {
    (commit) => {
        super::Kind::Commit
    };
    (index) => {
        super::Kind::Index
    };
    (worktree) => {
        super::Kind::Worktree
    };
    (memory) => {
        super::Kind::Memory
    };
}

/// `case: [kinds];` declares the test `contract::case::kind` running `case(Kind)` for each kind.
macro_rules! contract {
    ($($case:ident: [$($kind:ident),+];)+) => {$(
        mod $case {
            $(
                #[test]
                fn $kind() {
                    super::$case(kind!($kind));
                }
            )+
        }
    )+};
}

contract! {
    reads_files: [commit, index, worktree, memory];
    lists_directories: [commit, index, worktree, memory];
    kinds_follow_links: [commit, index, worktree, memory];
    missing_paths: [commit, index, worktree, memory];
    never_shows_the_git_directory: [commit, index, worktree, memory];
    follows_links_inside_the_repository: [commit, index, worktree, memory];
    rejects_links_leaving_the_repository: [commit, index, worktree, memory];
    escaping_links_to_missing_targets: [commit, index, worktree, memory];
    reports_link_loops_and_dangling_links: [commit, index, worktree, memory];
    paths_cannot_climb_out_of_the_repository: [commit, index, worktree, memory];
    object_ids: [commit, index, worktree, memory];
    describes_itself: [commit, index, worktree, memory];
    refuses_files_over_the_size_limit: [commit, index, worktree, memory];
    reads_agree_across_threads: [commit, index, worktree, memory];
    reads_later_as_now: [commit, index, worktree, memory];
    // A memory snapshot cannot change after it is built.
    reads_are_stable_within_a_snapshot: [commit, index, worktree];
    // A memory snapshot holds only files and links.
    fifos_are_never_read: [commit, index, worktree];
}

fn reads_files(kind: Kind) {
    let f = Fixture::new();
    let s = f.open(kind);
    for entry in CONTENTS {
        if let Entry::File(path, contents) | Entry::Executable(path, contents) = *entry {
            assert_eq!(text(s.as_ref(), path), contents, "{path}");
        }
    }
    // The root is named `.` in messages.
    for (dir, named) in [("apps", "apps"), ("", ".")] {
        assert!(
            matches!(s.read(&p(dir)), Err(SourceError::IsDir { ref path }) if path == named),
            "{dir:?}: {:?}",
            s.read(&p(dir))
        );
    }
    // A file used as a directory: snapshots that resolve paths themselves name the file, the
    // work tree (where the operating system does) names the whole path.
    let expected = match kind {
        Kind::Commit | Kind::Index | Kind::Memory => "base/deploy.yaml",
        Kind::Worktree => "base/deploy.yaml/x",
    };
    match s.read(&p("base/deploy.yaml/x")) {
        Err(SourceError::NotDir { path }) => assert_eq!(path, expected),
        other => panic!("{other:?}"),
    }
}

fn lists_directories(kind: Kind) {
    use EntryKind::{Dir, File, Symlink};
    let f = Fixture::new();
    let s = f.open(kind);
    let entries = |list: &[(&str, EntryKind)]| -> Vec<(String, EntryKind)> {
        list.iter().map(|&(n, k)| (n.to_string(), k)).collect()
    };
    assert_eq!(
        names(s.as_ref(), ""),
        entries(&[
            ("README", File),
            ("apps", Dir),
            ("base", Dir),
            ("evil", Dir),
            ("tools", Dir)
        ]),
        ".git is never listed"
    );
    assert_eq!(
        names(s.as_ref(), "apps"),
        entries(&[("api", Dir), ("web", Dir)])
    );
    assert_eq!(
        names(s.as_ref(), "apps/web"),
        entries(&[
            ("base", Symlink),
            ("deploy", Symlink),
            ("kustomization.yaml", File)
        ]),
        "links are listed as links, not followed"
    );
    assert_eq!(names(s.as_ref(), "tools"), entries(&[("run.sh", File)]));
    let mut links: Vec<&str> = CONTENTS
        .iter()
        .filter_map(|e| match *e {
            Entry::Link(path, _) => path.strip_prefix("evil/"),
            _ => None,
        })
        .collect();
    links.sort_unstable();
    let links: Vec<(&str, EntryKind)> = links.into_iter().map(|n| (n, Symlink)).collect();
    assert_eq!(names(s.as_ref(), "evil"), entries(&links));
    assert!(matches!(
        s.list(&p("README")),
        Err(SourceError::NotDir { path }) if path == "README"
    ));
    assert!(matches!(
        s.list(&p("nope")),
        Err(SourceError::NotFound { path }) if path == "nope"
    ));
}

fn kinds_follow_links(kind: Kind) {
    let f = Fixture::new();
    let s = f.open(kind);
    for (path, expected) in [
        ("", EntryKind::Dir),
        ("apps", EntryKind::Dir),
        ("apps/web", EntryKind::Dir),
        ("README", EntryKind::File),
        ("apps/api/x.yaml", EntryKind::File),
        ("tools/run.sh", EntryKind::File),
        ("apps/web/base", EntryKind::Dir),
        ("apps/web/deploy", EntryKind::File),
        ("apps/web/base/deploy.yaml", EntryKind::File),
        ("evil/up", EntryKind::Missing),
        ("evil/dangling", EntryKind::Missing),
        ("evil/loop-a", EntryKind::Missing),
        ("nope", EntryKind::Missing),
    ] {
        assert_eq!(s.kind(&p(path)), expected, "{path:?}");
    }
}

fn missing_paths(kind: Kind) {
    let f = Fixture::new();
    let s = f.open(kind);
    for missing in ["nope", "apps/nope/x.yaml", "README/x"] {
        assert_eq!(s.kind(&p(missing)), EntryKind::Missing, "{missing}");
        assert_eq!(s.object_id(&p(missing)), None, "{missing}");
        assert!(s.canonical(&p(missing)).is_err(), "{missing}");
    }
    for missing in ["nope", "apps/nope/x.yaml"] {
        assert!(
            matches!(s.read(&p(missing)), Err(SourceError::NotFound { ref path }) if path == missing),
            "{missing}: {:?}",
            s.read(&p(missing))
        );
        assert!(matches!(
            s.list(&p(missing)),
            Err(SourceError::NotFound { .. })
        ));
    }
}

fn never_shows_the_git_directory(kind: Kind) {
    let f = Fixture::new();
    let s = f.open(kind);
    assert_eq!(s.kind(&p(".git")), EntryKind::Missing);
    assert_eq!(s.kind(&p(".git/config")), EntryKind::Missing);
    assert!(matches!(
        s.read(&p(".git/config")),
        Err(SourceError::NotFound { path }) if path == ".git/config"
    ));
    assert!(matches!(
        s.list(&p(".git")),
        Err(SourceError::NotFound { .. })
    ));
    assert!(
        matches!(s.read(&p("evil/git")), Err(SourceError::NotFound { ref path }) if path == "evil/git"),
        "a link into .git: {:?}",
        s.read(&p("evil/git"))
    );
    assert!(!names(s.as_ref(), "").iter().any(|(name, _)| name == ".git"));
}

fn follows_links_inside_the_repository(kind: Kind) {
    let f = Fixture::new();
    let s = f.open(kind);
    assert_eq!(text(s.as_ref(), "apps/web/base/deploy.yaml"), "deploy\n");
    assert_eq!(text(s.as_ref(), "apps/web/deploy"), "deploy\n");
    assert_eq!(s.kind(&p("apps/web/base")), EntryKind::Dir);
    assert_eq!(s.kind(&p("apps/web/deploy")), EntryKind::File);
    assert_eq!(
        s.list(&p("apps/web/base")).unwrap(),
        s.list(&p("base")).unwrap()
    );
    assert_eq!(
        s.object_id(&p("apps/web/base")),
        s.object_id(&p("base")),
        "a link's id is its target's"
    );
    assert_eq!(
        s.object_id(&p("apps/web/deploy")),
        s.object_id(&p("base/deploy.yaml"))
    );
    for (path, canonical) in [
        ("apps/web/deploy", "base/deploy.yaml"),
        ("apps/web/base/deploy.yaml", "base/deploy.yaml"),
        ("apps/web/base", "base"),
        ("README", "README"),
        ("", ""),
    ] {
        assert_eq!(s.canonical(&p(path)).unwrap(), p(canonical), "{path:?}");
    }
}

fn rejects_links_leaving_the_repository(kind: Kind) {
    let f = Fixture::new();
    let s = f.open(kind);
    let outside = |link: &str, target: &str| {
        f.repo
            .join(Path::new(link).parent().unwrap())
            .join(target)
            .canonicalize()
            .unwrap()
            .display()
            .to_string()
    };
    for (link, target) in [
        ("evil/up", "../../etc"),
        ("evil/abs", "/etc/passwd"),
        ("evil/abs-dir", "/etc"),
        ("evil/etc", "../../../../../../../../etc"),
        ("evil/outside", "../../outside.txt"),
    ] {
        // Snapshots that resolve links themselves report the link's own text; the work tree,
        // where the operating system resolves it, reports where it leads.
        let expected = match kind {
            Kind::Commit | Kind::Index | Kind::Memory => target.to_string(),
            Kind::Worktree => outside(link, target),
        };
        match s.read(&p(link)) {
            Err(SourceError::SymlinkEscape { path, target }) => {
                assert_eq!((path.as_str(), target), (link, expected));
            }
            other => panic!("{link}: {other:?}"),
        }
        assert_eq!(s.kind(&p(link)), EntryKind::Missing, "{link}");
        assert_eq!(s.object_id(&p(link)), None, "{link}");
        assert!(
            matches!(
                s.canonical(&p(link)),
                Err(SourceError::SymlinkEscape { .. })
            ),
            "{link}"
        );
        assert!(
            matches!(s.list(&p(link)), Err(SourceError::SymlinkEscape { .. })),
            "{link}"
        );
    }
    // Below an escaping link: the link-resolving snapshots name the link, the work tree the
    // path asked for.
    for path in ["evil/up/passwd", "evil/etc/passwd"] {
        let link = &path[..path.len() - "/passwd".len()];
        let expected = match kind {
            Kind::Commit | Kind::Index | Kind::Memory => link,
            Kind::Worktree => path,
        };
        match s.read(&p(path)) {
            Err(SourceError::SymlinkEscape { path, .. }) => assert_eq!(path, expected),
            other => panic!("{path}: {other:?}"),
        }
        assert_eq!(s.kind(&p(path)), EntryKind::Missing, "{path}");
        assert_eq!(s.object_id(&p(path)), None, "{path}");
    }
}

fn escaping_links_to_missing_targets(kind: Kind) {
    let f = Fixture::new();
    let s = f.open(kind);
    let read = s.read(&p("evil/gone"));
    match kind {
        Kind::Commit | Kind::Index | Kind::Memory => assert!(
            matches!(&read, Err(SourceError::SymlinkEscape { path, target })
                if path == "evil/gone" && target == "../../nowhere"),
            "{read:?}"
        ),
        // The operating system cannot resolve a link to nothing, so the work tree never sees
        // that it would leave the repository: the read fails as a missing file.
        Kind::Worktree => assert!(
            matches!(&read, Err(SourceError::NotFound { path }) if path == "evil/gone"),
            "{read:?}"
        ),
    }
    assert_eq!(s.kind(&p("evil/gone")), EntryKind::Missing);
    assert_eq!(s.object_id(&p("evil/gone")), None);
}

fn reports_link_loops_and_dangling_links(kind: Kind) {
    let f = Fixture::new();
    let s = f.open(kind);
    assert!(matches!(
        s.read(&p("evil/loop-a")),
        Err(SourceError::SymlinkLoop { path }) if path == "evil/loop-a"
    ));
    assert!(matches!(
        s.list(&p("evil/loop-a")),
        Err(SourceError::SymlinkLoop { .. })
    ));
    assert_eq!(s.kind(&p("evil/loop-b")), EntryKind::Missing);
    assert_eq!(s.object_id(&p("evil/loop-b")), None);
    assert!(matches!(
        s.read(&p("evil/dangling")),
        Err(SourceError::NotFound { path }) if path == "evil/dangling"
    ));
    assert_eq!(s.kind(&p("evil/dangling")), EntryKind::Missing);
}

fn paths_cannot_climb_out_of_the_repository(kind: Kind) {
    let f = Fixture::new();
    let s = f.open(kind);
    let web = p("apps/web");
    assert!(web.join("../../../etc/passwd").is_err());
    assert!(RepoPath::new("/etc/passwd").is_err());
    assert!(RepoPath::new("apps/../..").is_err());
    // `..` is lexical: through a linked directory it does not reach the link's target.
    let through_link = web.join("base/../kustomization.yaml").unwrap();
    assert_eq!(text(s.as_ref(), through_link.as_str()), "v2\n");
}

fn object_ids(kind: Kind) {
    let f = Fixture::new();
    let s = f.open(kind);
    let s = s.as_ref();
    // `git hash-object` of "deploy\n".
    let deploy = "8541464a78c90b5e5a2e4ff120b6c286271ed093";
    assert_eq!(f.rev_parse("HEAD:base/deploy.yaml"), deploy);
    assert_eq!(ObjectId::for_blob(b"deploy\n").to_hex(), deploy);
    assert_eq!(id(s, "base/deploy.yaml").as_deref(), Some(deploy));
    assert_eq!(id(s, "apps/web/deploy").as_deref(), Some(deploy));
    assert_eq!(
        id(s, "tools/run.sh"),
        Some(f.rev_parse("HEAD:tools/run.sh")),
        "the executable bit is not part of a blob's id"
    );
    for (dir, spec) in [
        ("apps", "HEAD:apps"),
        ("apps/web", "HEAD:apps/web"),
        ("base", "HEAD:base"),
        ("tools", "HEAD:tools"),
        ("evil", "HEAD:evil"),
        ("", "HEAD^{tree}"),
    ] {
        let expected = match kind {
            Kind::Commit | Kind::Index => Some(f.rev_parse(spec)),
            // Only git stores directories as objects; hashing a directory on disk would mean
            // reading all of it.
            Kind::Worktree | Kind::Memory => None,
        };
        assert_eq!(id(s, dir), expected, "{dir:?}");
    }
    assert_eq!(id(s, "missing"), None);
    assert_eq!(id(s, "evil/abs"), None);
    // A read with its id gives the bytes' blob id, through symbolic links too.
    for path in ["base/deploy.yaml", "apps/web/deploy", "tools/run.sh"] {
        let (bytes, with_id) = s.read_with_id(&p(path)).unwrap();
        assert_eq!(bytes, s.read(&p(path)).unwrap(), "{path}");
        assert_eq!(with_id, ObjectId::for_blob(&bytes), "{path}");
    }
    // A stored id, where the snapshot has one, is the read's id; never a directory's.
    for path in ["base/deploy.yaml", "apps/web/deploy", "tools/run.sh"] {
        let stored = s.stored_id(&p(path));
        match kind {
            Kind::Commit | Kind::Index => {
                assert_eq!(stored, Some(s.read_with_id(&p(path)).unwrap().1), "{path}");
            }
            Kind::Worktree | Kind::Memory => assert_eq!(stored, None, "{path}"),
        }
    }
    assert_eq!(s.stored_id(&p("apps")), None);
    assert_eq!(s.stored_id(&p("missing")), None);
    assert!(s.read_with_id(&p("missing")).is_err());
    assert!(s.read_with_id(&p("apps")).is_err());
}

fn describes_itself(kind: Kind) {
    let f = Fixture::new();
    let expected = match kind {
        Kind::Commit => format!("HEAD ({})", &f.rev_parse("HEAD")[..7]),
        Kind::Index => "staged".to_string(),
        Kind::Worktree => "work tree".to_string(),
        Kind::Memory => "memory".to_string(),
    };
    assert_eq!(f.open(kind).describe(), expected);
}

fn refuses_files_over_the_size_limit(kind: Kind) {
    let f = Fixture::new();
    let s = f.open_limited(kind, 5);
    let s = s.as_ref();
    let deploy = s.read(&p("base/deploy.yaml"));
    match kind {
        Kind::Commit | Kind::Index | Kind::Worktree => match deploy {
            Err(SourceError::TooLarge { path, size, limit }) => {
                assert_eq!((path.as_str(), size, limit), ("base/deploy.yaml", 7, 5));
            }
            other => panic!("{other:?}"),
        },
        // A memory snapshot holds only what a test or fuzzer put in it: it has no limit.
        Kind::Memory => assert_eq!(&*deploy.unwrap(), b"deploy\n"),
    }
    assert_eq!(text(s, "apps/api/x.yaml"), "api\n");
    assert_eq!(s.kind(&p("base/deploy.yaml")), EntryKind::File);
    let deploy_id = s.object_id(&p("base/deploy.yaml"));
    match kind {
        // Git knows a blob's id without reading the blob.
        Kind::Commit | Kind::Index => assert!(deploy_id.is_some()),
        // The work tree hashes what it reads, and it reads no file over the limit.
        Kind::Worktree => assert_eq!(deploy_id, None),
        Kind::Memory => assert_eq!(deploy_id, Some(ObjectId::for_blob(b"deploy\n"))),
    }
    // Git stores a link's target as a blob, and the limit applies to that blob too: a limit
    // below a target's length (never so with the default limit) makes the link unreadable.
    let link = s.read(&p("apps/web/deploy"));
    let too_large = |expected: u64| {
        matches!(&link, Err(SourceError::TooLarge { path, size, .. })
            if path == "apps/web/deploy" && *size == expected)
    };
    match kind {
        Kind::Commit | Kind::Index => assert!(too_large(16), "{link:?}"),
        Kind::Worktree => assert!(too_large(7), "{link:?}"),
        Kind::Memory => assert_eq!(text(s, "apps/web/deploy"), "deploy\n"),
    }
}

/// A read deferred with [`Snapshot::read_later`] gives what [`Snapshot::read`] gives, and its
/// errors (checked at once or when it runs) are the read's.
fn reads_later_as_now(kind: Kind) {
    let f = Fixture::new();
    let s = f.open(kind);
    let mut paths: Vec<&str> = CONTENTS.iter().map(entry_path).collect();
    paths.extend(["apps", "", "missing.yaml", "base/deploy.yaml/x"]);
    for path in paths {
        // A snapshot holding the file already (a memory snapshot, a work tree that read it
        // before, through a link) has it read now.
        let later = match s.read_later(&p(path)) {
            Ok(Some(read)) => read(),
            Ok(None) => {
                assert!(matches!(kind, Kind::Memory | Kind::Worktree), "{path}");
                s.read(&p(path))
            }
            Err(e) => Err(e),
        };
        let now = s.read(&p(path));
        match (now, later) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{path}"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{path}"),
            (a, b) => panic!("{path}: {a:?} now, {b:?} later"),
        }
    }
}

fn reads_agree_across_threads(kind: Kind) {
    let f = Fixture::new();
    let s = f.open(kind);
    let s = s.as_ref();
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                for _ in 0..20 {
                    assert_eq!(text(s, "apps/web/deploy"), "deploy\n");
                    assert_eq!(text(s, "apps/web/kustomization.yaml"), "v2\n");
                }
            });
        }
    });
}

fn reads_are_stable_within_a_snapshot(kind: Kind) {
    let f = Fixture::new();
    let s = f.open(kind);
    assert_eq!(text(s.as_ref(), "base/deploy.yaml"), "deploy\n");
    write(&f.repo, "base/deploy.yaml", "changed\n");
    write(&f.repo, "README", "changed\n");
    commit_all(&f.repo, "change");
    assert_eq!(
        text(s.as_ref(), "apps/web/deploy"),
        "deploy\n",
        "same file through a link"
    );
    let readme = match kind {
        Kind::Commit | Kind::Index => "readme\n",
        // The work tree reads a file when first asked for it: only files read before the
        // change keep their old contents.
        Kind::Worktree => "changed\n",
        Kind::Memory => unreachable!("a memory snapshot cannot change"),
    };
    assert_eq!(text(s.as_ref(), "README"), readme);
}

fn fifos_are_never_read(kind: Kind) {
    let f = Fixture::build(|repo| {
        std::fs::create_dir(repo.join("special")).unwrap();
        let made = Command::new("mkfifo")
            .arg(repo.join("special/fifo"))
            .status()
            .unwrap();
        assert!(made.success());
    });
    let s = f.open(kind);
    let read = s.read(&p("special/fifo"));
    match kind {
        // `git add` skips FIFOs, so git never records one.
        Kind::Commit | Kind::Index => {
            assert_eq!(s.kind(&p("special")), EntryKind::Missing);
            assert!(
                matches!(read, Err(SourceError::NotFound { .. })),
                "{read:?}"
            );
        }
        // Listed and typed as a file so that a target using it reports it, but never opened
        // (opening a FIFO blocks until a writer comes).
        Kind::Worktree => {
            assert_eq!(
                names(s.as_ref(), "special"),
                [("fifo".to_string(), EntryKind::File)]
            );
            assert_eq!(s.kind(&p("special/fifo")), EntryKind::File);
            assert!(
                matches!(&read, Err(SourceError::NotRegular { path }) if path == "special/fifo"),
                "{read:?}"
            );
            assert_eq!(s.object_id(&p("special/fifo")), None);
        }
        Kind::Memory => unreachable!("a memory snapshot holds only files and links"),
    }
}
