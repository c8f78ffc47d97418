//! End to end with the real `pre-commit` (PyPI): a GitOps repository that names this repository
//! as its hook repository gets kdelta built by pre-commit itself (`language: rust`, no manual
//! install), and `git commit` runs `kdelta-check` and `kdelta-diff` on the staged snapshot: a
//! good commit goes through with its diff shown, a bad one is refused with the file and line.
//!
//! Skipped with a message when `pre-commit` is not on PATH, except under `CI=true`, where that
//! fails: `.ci/run` installs it.

#[allow(dead_code)] // the shared helpers, of which this test uses a few
mod util;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use util::{run_within, Run, TestEnv};

/// The first commit builds kdelta (a `cargo install` of the whole crate).
const BUILD_TIMEOUT: Duration = Duration::from_secs(20 * 60);
/// Later commits reuse the built hook environment.
const COMMIT_TIMEOUT: Duration = Duration::from_secs(120);

const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  \
                          namespace: prod\nspec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: web\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx\n";

#[test]
fn pre_commit_builds_the_hooks_and_checks_each_commit() {
    let Some(pre_commit) = find_pre_commit() else {
        return;
    };
    let env = TestEnv::new();
    let (hook_repo, rev) = hook_repository(&env);
    env.write(
        ".pre-commit-config.yaml",
        format!(
            "repos:\n  - repo: {}\n    rev: {rev}\n    hooks:\n      - id: kdelta-check\n      \
             - id: kdelta-diff\n",
            hook_repo.display()
        ),
    )
    .write(".kdelta.yaml", "directories: [manifests]\n")
    .write("manifests/deploy.yaml", DEPLOYMENT);

    let mut install = Command::new(&pre_commit);
    install.current_dir(env.repo()).arg("install");
    hook_env(&env, &mut install);
    expect(run_within(install, COMMIT_TIMEOUT), 0, "pre-commit install");

    // The first commit: HEAD has no commits yet, so the diff shows everything as added.
    let first = commit(&env, "first", BUILD_TIMEOUT);
    let first = expect(first, 0, "the first commit");
    let out = first.stdout + &first.stderr;
    assert!(out.contains("kdelta check (staged)"), "{out}");
    assert!(out.contains("+ apps/v1/Deployment/prod/web"), "{out}");

    // A change: the hook shows the field that changes, and the commit goes through.
    env.write("manifests/deploy.yaml", DEPLOYMENT.replace("2", "3"));
    let second = expect(commit(&env, "scale", COMMIT_TIMEOUT), 0, "a good commit");
    let out = second.stdout + &second.stderr;
    assert!(out.contains("spec.replicas: 2 → 3"), "{out}");
    let head = env.git(&["rev-parse", "HEAD"]);

    // A broken manifest: refused, with the file and line; HEAD does not move.
    env.write("manifests/broken.yaml", "kind: ConfigMap\nmetadata: [\n");
    let bad = expect(commit(&env, "broken", COMMIT_TIMEOUT), 1, "a bad commit");
    let out = bad.stdout + &bad.stderr;
    assert!(out.contains("manifests/broken.yaml:"), "{out}");
    assert!(out.contains("Failed"), "{out}");
    assert_eq!(env.git(&["rev-parse", "HEAD"]), head);

    // Only the staged snapshot counts: unstaging the broken file lets the commit through.
    env.git(&["rm", "-q", "--cached", "manifests/broken.yaml"]);
    let mut cmd = env.git_cmd(
        env.repo(),
        &["commit", "-q", "--allow-empty", "-m", "fixed"],
    );
    hook_env(&env, &mut cmd);
    expect(
        run_within(cmd, COMMIT_TIMEOUT),
        0,
        "the commit without the file",
    );
}

/// `pre-commit` on PATH; `None` (the test is skipped) when missing outside CI.
fn find_pre_commit() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("pre-commit"))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        assert!(
            !std::env::var("CI").is_ok_and(|v| v == "true"),
            "pre-commit is not installed, and CI=true needs it: `bash .ci/run --tools-only` \
             installs it"
        );
        eprintln!("skipped: pre-commit is not installed (pip install pre-commit)");
    }
    found
}

/// This repository's files as they are now (committed or not, as `git ls-files` sees them),
/// committed in a fresh repository: the hook repository pre-commit clones at the returned rev.
fn hook_repository(env: &TestEnv) -> (PathBuf, String) {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dest = env.root().join("kdelta-hooks");
    let listed = env.git_in(
        source,
        &[
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ],
    );
    for rel in listed.split('\0').filter(|r| !r.is_empty()) {
        let from = source.join(rel);
        let to = dest.join(rel);
        let Ok(meta) = std::fs::symlink_metadata(&from) else {
            continue; // deleted in the work tree
        };
        std::fs::create_dir_all(to.parent().expect("a file has a parent")).expect("mkdir");
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&from).expect("read link");
            std::os::unix::fs::symlink(target, &to).expect("symlink");
        } else if meta.is_file() {
            std::fs::copy(&from, &to).expect("copy");
        }
    }
    env.git_in(&dest, &["init", "-q"]);
    env.git_in(&dest, &["add", "-A"]);
    env.git_in(&dest, &["commit", "-q", "-m", "kdelta"]);
    let rev = env.git_in(&dest, &["rev-parse", "HEAD"]);
    (dest, rev)
}

/// Stages everything and commits, with the hooks pre-commit installed.
fn commit(env: &TestEnv, message: &str, timeout: Duration) -> Run {
    env.git(&["add", "-A"]);
    let mut cmd = env.git_cmd(env.repo(), &["commit", "-q", "-m", message]);
    hook_env(env, &mut cmd);
    run_within(cmd, timeout)
}

/// What pre-commit and the cargo it runs need beside the isolated git environment: its own
/// cache in the test's directory, the machine's Rust toolchain and crate cache (the test home
/// has neither), and a build directory kept across runs so a second run does not rebuild from
/// scratch. The release profile is traded for build speed: the test is about the hook wiring.
fn hook_env(env: &TestEnv, cmd: &mut Command) {
    let home = PathBuf::from(std::env::var_os("HOME").expect("HOME is set"));
    let or_home = |var: &str, dir: &str| std::env::var_os(var).unwrap_or(home.join(dir).into());
    cmd.env("PRE_COMMIT_HOME", env.root().join("pre-commit-cache"))
        .env("CARGO_HOME", or_home("CARGO_HOME", ".cargo"))
        .env("RUSTUP_HOME", or_home("RUSTUP_HOME", ".rustup"))
        .env(
            "CARGO_TARGET_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("pre-commit-build"),
        )
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0")
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
        .env("CARGO_PROFILE_RELEASE_LTO", "false")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "256")
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("NO_COLOR")
        .env_remove("GITHUB_ACTIONS");
}

/// Asserts the exit code of a git or pre-commit run, showing its output when it differs.
#[track_caller]
fn expect(run: Run, code: i32, what: &str) -> Run {
    assert_eq!(
        run.code, code,
        "{what}: exited {} (expected {code})\n--- stdout\n{}\n--- stderr\n{}",
        run.code, run.stdout, run.stderr
    );
    run
}
