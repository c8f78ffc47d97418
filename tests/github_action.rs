//! The GitHub Action's scripts (`github-action/scripts/`), run as the composite action runs
//! them: with a runner's environment (`GITHUB_OUTPUT`, `GITHUB_EVENT_PATH`…), the event
//! payloads of `testdata/github-action/events/`, the kdelta binary of this build, and a fake
//! `gh` that records its calls (`testdata/github-action/fake-gh`). `action.yml` itself is
//! checked for inputs, outputs and steps that do not line up, and for the cache of fetched
//! charts it restores, hands to kdelta and saves.

#[allow(dead_code)] // the shared helpers, of which these tests use a few
mod util;

use kdelta::yaml::{self, Dialect, ParseOptions};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use util::{run, Run, TestEnv};

const ACTION: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/github-action");
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/github-action");

/// A repository whose `main` moved on after `feature` branched off, and an `origin/main`.
struct Repo {
    env: TestEnv,
    /// Where `feature` branched off.
    fork_point: String,
    /// `main` now.
    main: String,
    /// `feature` now.
    feature: String,
}

fn repo() -> Repo {
    let env = TestEnv::new();
    env.write(".kdelta.yaml", "directories: [apps/web, apps/db]\n")
        .write("apps/web/web.yaml", deployment("web", 2))
        .write("apps/db/db.yaml", deployment("db", 1))
        .write("apps/web/secret.yaml", secret("hunter2"));
    let fork_point = env.commit("base");
    env.git(&["checkout", "-q", "-b", "feature"]);
    env.write("apps/web/web.yaml", deployment("web", 3))
        .write("apps/web/secret.yaml", secret("correct-horse"));
    let feature = env.commit("web: 3 replicas");
    env.git(&["checkout", "-q", "main"]);
    env.write("apps/db/db.yaml", deployment("db", 5));
    let main = env.commit("db: 5 replicas");
    env.git(&["update-ref", "refs/remotes/origin/main", &main]);
    env.git(&["checkout", "-q", "feature"]);
    Repo {
        env,
        fork_point,
        main,
        feature,
    }
}

fn deployment(name: &str, replicas: u32) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: prod\n\
         spec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: web\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx\n"
    )
}

fn secret(password: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n  namespace: prod\n\
         stringData:\n  password: {password}\n"
    )
}

/// One script run: its outcome and the `GITHUB_OUTPUT` it wrote.
struct Step {
    run: Run,
    outputs: BTreeMap<String, String>,
}

/// Runs `github-action/scripts/NAME` in the repository as the runner would, with `vars` as the
/// step's `env:` and the event `event` (a fixture name, `@BASE@`/`@HEAD@` replaced).
fn step(
    env: &TestEnv,
    name: &str,
    event: Option<(&str, &str, &str)>,
    vars: &[(&str, &str)],
) -> Step {
    let output = env.out("github_output");
    let _ = std::fs::remove_file(&output);
    let mut cmd = env.isolated_cmd("bash");
    cmd.arg(Path::new(ACTION).join("scripts").join(name));
    let bin = env.root().join("bin");
    std::fs::create_dir_all(&bin).expect("mkdir bin");
    std::fs::copy(Path::new(FIXTURES).join("fake-gh"), bin.join("gh")).expect("install fake gh");
    let kdelta_dir = Path::new(env!("CARGO_BIN_EXE_kdelta"))
        .parent()
        .expect("bin dir");
    let path = std::env::join_paths([bin, kdelta_dir.to_path_buf()].into_iter().chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("PATH");
    cmd.env("PATH", path)
        .env("GITHUB_OUTPUT", &output)
        .env("GITHUB_STEP_SUMMARY", env.out("step_summary.md"))
        .env("GITHUB_REPOSITORY", "owner/repo")
        .env("GITHUB_ACTIONS", "true")
        .env("RUNNER_TEMP", env.out("runner-temp"))
        .env("FAKE_GH_LOG", env.out("gh.log"))
        .env_remove("GITHUB_EVENT_NAME")
        .env_remove("GITHUB_EVENT_PATH")
        .env_remove("GITHUB_SHA")
        // An input of the scripts, which cargo also sets when it runs the tests of a package
        // with a build script.
        .env_remove("OUT_DIR");
    if let Some((name, base, head)) = event {
        let text = std::fs::read_to_string(Path::new(FIXTURES).join(format!("events/{name}.json")))
            .expect("event fixture")
            .replace("@BASE@", base)
            .replace("@HEAD@", head);
        let path = env.out("event.json");
        std::fs::write(&path, text).expect("write event");
        let event_name = name.trim_end_matches("_new_branch");
        cmd.env("GITHUB_EVENT_NAME", event_name)
            .env("GITHUB_EVENT_PATH", path);
    }
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let run = run(cmd);
    let outputs = std::fs::read_to_string(&output)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Step { run, outputs }
}

impl Step {
    #[track_caller]
    fn code(self, code: i32) -> Step {
        assert_eq!(
            self.run.code, code,
            "exit {} (expected {code})\n--- stdout\n{}\n--- stderr\n{}",
            self.run.code, self.run.stdout, self.run.stderr
        );
        self
    }

    fn output(&self, key: &str) -> &str {
        self.outputs
            .get(key)
            .map(String::as_str)
            .unwrap_or_else(|| {
                panic!(
                    "no output {key:?} in {:?}\n{}",
                    self.outputs, self.run.stdout
                )
            })
    }
}

// ---------------------------------------------------------------------------------------------
// revisions.sh

#[test]
fn revisions_follow_each_event() {
    let r = repo();
    let env = &r.env;
    // A pull request: its head against where it branched off (what "Files changed" shows).
    for event in ["pull_request", "pull_request_target"] {
        let s = step(env, "revisions.sh", Some((event, &r.main, &r.feature)), &[]).code(0);
        assert_eq!(s.output("base"), r.fork_point, "{event}");
        assert_eq!(s.output("head"), r.feature, "{event}");
        assert_eq!(s.output("pr"), "7", "{event}");
    }
    // merge-base false compares the commits as given.
    let s = step(
        env,
        "revisions.sh",
        Some(("pull_request", &r.main, &r.feature)),
        &[("MERGE_BASE", "false")],
    )
    .code(0);
    assert_eq!(s.output("base"), r.main);

    // A push: the commit before the push to the pushed one; no pull request to comment on.
    let s = step(
        env,
        "revisions.sh",
        Some(("push", &r.fork_point, &r.feature)),
        &[],
    )
    .code(0);
    assert_eq!(
        (s.output("base"), s.output("head"), s.output("pr")),
        (r.fork_point.as_str(), r.feature.as_str(), "")
    );
    // The first push of a branch (before is all zeros): what it adds to the default branch.
    let s = step(
        env,
        "revisions.sh",
        Some(("push_new_branch", "", &r.feature)),
        &[],
    )
    .code(0);
    assert_eq!(s.output("base"), r.fork_point);
    // A manual run: GITHUB_SHA against the default branch, unless the inputs say otherwise.
    let s = step(
        env,
        "revisions.sh",
        Some(("workflow_dispatch", "", "")),
        &[("GITHUB_SHA", &r.feature)],
    )
    .code(0);
    assert_eq!(
        (s.output("base"), s.output("head")),
        (r.fork_point.as_str(), r.feature.as_str())
    );
    let s = step(
        env,
        "revisions.sh",
        Some(("workflow_dispatch", "", "")),
        &[
            ("BASE", &r.main),
            ("HEAD", &r.main),
            ("MERGE_BASE", "false"),
        ],
    )
    .code(0);
    assert_eq!(
        (s.output("base"), s.output("head")),
        (r.main.as_str(), r.main.as_str())
    );
}

#[test]
fn missing_history_is_explained() {
    let r = repo();
    let absent = "1234567890123456789012345678901234567890";
    let s = step(
        &r.env,
        "revisions.sh",
        Some(("pull_request", absent, &r.feature)),
        &[],
    )
    .code(2);
    assert!(
        s.run
            .stdout
            .contains("::error title=kdelta::the base revision"),
        "{}",
        s.run.stdout
    );
    assert!(s.run.stdout.contains("fetch-depth: 0"), "{}", s.run.stdout);
    assert_eq!(s.output("exit-code"), "2");
    // pull_request_target checks out the base branch: the head must be checked out explicitly.
    let s = step(
        &r.env,
        "revisions.sh",
        Some(("pull_request_target", &r.main, absent)),
        &[],
    )
    .code(2);
    assert!(
        s.run
            .stdout
            .contains("ref: ${{ github.event.pull_request.head.sha }}"),
        "{}",
        s.run.stdout
    );

    // A shallow clone (actions/checkout's default) lacks the fork point.
    let url = format!("file://{}", r.env.repo().display());
    let shallow = TestEnv::clone_of(&url, &["--depth", "1", "--branch", "feature"]);
    shallow.git(&["fetch", "-q", "--depth", "1", "origin", "main"]);
    let s = step(
        &shallow,
        "revisions.sh",
        Some(("pull_request", &r.main, &r.feature)),
        &[],
    )
    .code(2);
    assert!(
        s.run
            .stdout
            .contains("::warning title=kdelta::this is a shallow clone"),
        "{}",
        s.run.stdout
    );
    assert!(s.run.stdout.contains("no merge base"), "{}", s.run.stdout);
}

// ---------------------------------------------------------------------------------------------
// diff.sh

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn diff_writes_every_report_once_and_keeps_secrets() {
    let r = repo();
    let env = &r.env;
    let s = step(
        env,
        "diff.sh",
        None,
        &[("BASE", &r.fork_point), ("HEAD", &r.feature)],
    )
    .code(0);
    assert_eq!(s.output("exit-code"), "0");
    // Outside the checkout by default, so the work tree stays clean.
    assert!(s
        .output("dir")
        .starts_with(env.out("runner-temp").to_str().unwrap()));
    assert_eq!(env.git(&["status", "--porcelain"]), "");
    let json: serde_json::Value = serde_json::from_str(&read(s.output("json"))).expect("JSON");
    assert_eq!(json["summary"]["modified"], 1, "{json}");
    assert!(read(s.output("junit")).contains("<testsuites"));
    assert!(read(s.output("html")).contains("<html"));
    let comment = read(s.output("markdown"));
    assert!(comment.contains("spec.replicas"), "{comment}");
    // Annotations on stdout, the Markdown in the job summary.
    assert!(
        s.run.stdout.contains("::notice file=apps/web"),
        "{}",
        s.run.stdout
    );
    assert!(read(env.out("step_summary.md").to_str().unwrap()).contains("spec.replicas"));
    for file in ["json", "junit", "html", "markdown"] {
        assert!(
            !read(s.output(file)).contains("correct-horse"),
            "{file} shows a Secret value"
        );
    }
    assert!(!s.run.stdout.contains("correct-horse"));

    // show-secrets, paths and fail-on-diff reach kdelta.
    let s = step(
        env,
        "diff.sh",
        None,
        &[
            ("BASE", &r.fork_point),
            ("HEAD", &r.feature),
            ("SHOW_SECRETS", "true"),
            ("FAIL_ON_DIFF", "true"),
            ("PATHS", "apps/web"),
            ("OUT_DIR", env.out("reports").to_str().unwrap()),
        ],
    )
    .code(0);
    assert_eq!(s.output("exit-code"), "1");
    assert!(read(s.output("json")).contains("correct-horse"));
    let json: serde_json::Value = serde_json::from_str(&read(s.output("json"))).expect("JSON");
    assert_eq!(json["summary"]["targets"], 1, "{json}");
    let s = step(
        env,
        "diff.sh",
        None,
        &[
            ("BASE", &r.fork_point),
            ("HEAD", &r.feature),
            ("PATHS", "apps/db"),
            ("FAIL_ON_DIFF", "true"),
        ],
    )
    .code(0);
    assert_eq!(
        s.output("exit-code"),
        "0",
        "apps/db does not change on the branch"
    );

    // kdelta cannot run: exit code 2 for the last step, and an error annotation.
    let s = step(
        env,
        "diff.sh",
        None,
        &[("BASE", "no-such-rev"), ("HEAD", &r.feature)],
    )
    .code(0);
    assert_eq!(s.output("exit-code"), "2");
    assert!(s
        .run
        .stdout
        .contains("::error title=kdelta::kdelta could not run"));
}

/// Puts a `kdelta` before the build's on the scripts' PATH that writes its arguments, one a
/// line, to `out/kdelta-args` and runs the build's; returns that file.
fn record_kdelta_args(env: &TestEnv) -> PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    let bin = env.root().join("bin");
    std::fs::create_dir_all(&bin).expect("mkdir bin");
    let log = env.out("kdelta-args");
    let wrapper = bin.join("kdelta");
    std::fs::write(
        &wrapper,
        "#!/usr/bin/env bash\nprintf '%s\\n' \"$@\" >\"$KDELTA_ARGS_LOG\"\nexec \"$KDELTA_REAL\" \"$@\"\n",
    )
    .expect("write the kdelta wrapper");
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    log
}

/// The arguments the recording `kdelta` got, after a `step` with [`recording`] in its variables.
fn kdelta_args(log: &Path) -> Vec<String> {
    read(log.to_str().expect("UTF-8 path"))
        .lines()
        .map(str::to_string)
        .collect()
}

/// The variables that make [`record_kdelta_args`]'s wrapper work.
fn recording(log: &Path) -> [(&'static str, &str); 2] {
    [
        ("KDELTA_ARGS_LOG", log.to_str().expect("UTF-8 path")),
        ("KDELTA_REAL", env!("CARGO_BIN_EXE_kdelta")),
    ]
}

#[test]
fn diff_fetches_as_the_fetch_input_says_and_offers_a_complete_cache() {
    // The head adds a chart from a repository kdelta must not reach (plain HTTP to a host that
    // is not loopback), so fetching fails without any network: a finding says kdelta tried.
    let env = TestEnv::new();
    env.write("apps/web/kustomization.yaml", "resources: [cm.yaml]\n")
        .write(
            "apps/web/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n",
        );
    let base = env.commit("web");
    env.write(
        "apps/web/kustomization.yaml",
        "resources: [cm.yaml]\nhelmCharts:\n- name: web\n  repo: http://charts.example.com/stable\n  version: 1.0.0\n",
    );
    let head = env.commit("web: a chart");
    let log = record_kdelta_args(&env);
    let cache = env.out("kdelta-cache");
    let cache_dir = cache.to_str().unwrap();
    let run = |fetch: &str| {
        let mut vars = vec![
            ("BASE", base.as_str()),
            ("HEAD", head.as_str()),
            ("FETCH", fetch),
            ("KDELTA_CACHE_DIR", cache_dir),
        ];
        vars.extend(recording(&log));
        let s = step(&env, "diff.sh", None, &vars).code(0);
        let json: Value = serde_json::from_str(&read(s.output("json"))).expect("JSON");
        let rules: Vec<String> = json["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter_map(|f| f["rule"].as_str().map(str::to_string))
            .collect();
        (s, kdelta_args(&log), rules)
    };

    // "true": kdelta is asked to fetch, and tries.
    let (s, args, rules) = run("true");
    assert_eq!(
        args.iter().filter(|a| *a == "--fetch").count(),
        1,
        "{args:?}"
    );
    let dashdash = args.iter().position(|a| a == "--").unwrap_or(args.len());
    assert!(
        args.iter().position(|a| a == "--fetch") < Some(dashdash),
        "{args:?}"
    );
    assert!(rules.iter().any(|r| r == "fetch.failed"), "{rules:?}");
    assert_eq!(s.output("exit-code"), "1");
    assert!(
        !s.outputs.contains_key("cache-dir"),
        "an empty cache is not saved"
    );

    // "false": offline; what is not cached is a notice, and nothing fails.
    let (s, args, rules) = run("false");
    assert!(!args.iter().any(|a| a == "--fetch"), "{args:?}");
    assert_eq!(args[..3], ["report", base.as_str(), head.as_str()]);
    assert!(!rules.iter().any(|r| r.starts_with("fetch.")), "{rules:?}");
    assert!(
        rules.iter().any(|r| r == "kustomize.helm.not-fetched"),
        "{rules:?}"
    );
    assert_eq!(s.output("exit-code"), "0");

    // A restored cache is offered for saving after a run that fetched everything, never after
    // one where a chart could not be fetched (the entry would be saved without it for good).
    std::fs::create_dir_all(cache.join("v1/refs")).expect("mkdir");
    std::fs::write(cache.join("v1/refs/restored.json"), "{}").expect("write");
    let (s, _, _) = run("false");
    assert_eq!(s.output("cache-dir"), cache_dir);
    let (s, _, _) = run("true");
    assert!(!s.outputs.contains_key("cache-dir"), "{:?}", s.outputs);
}

// ---------------------------------------------------------------------------------------------
// cache-key.sh

#[test]
fn the_cache_key_follows_what_decides_the_charts_fetched() {
    let r = repo();
    let env = &r.env;
    let key = |base: &str, head: &str, vars: &[(&str, &str)]| -> String {
        let mut all = vec![("BASE", base), ("HEAD", head)];
        all.extend_from_slice(vars);
        step(env, "cache-key.sh", None, &all)
            .code(0)
            .output("hash")
            .to_string()
    };
    let start = key(&r.fork_point, &r.feature, &[]);
    assert_eq!(start.len(), 32, "{start}");
    assert!(start.bytes().all(|b| b.is_ascii_hexdigit()), "{start}");
    // Manifests that name no chart leave it alone.
    assert_eq!(key(&r.fork_point, &r.feature, &[]), start);
    assert_eq!(key(&r.fork_point, &r.fork_point, &[]), start);

    // A chart's dependencies, a kustomization and an Argo CD Application's chart version each
    // change it, at either revision.
    env.git(&["checkout", "-q", "-b", "charts", &r.fork_point]);
    let mut seen = vec![start.clone()];
    for (path, text) in [
        (
            "charts/umbrella/Chart.yaml",
            "apiVersion: v2\nname: umbrella\nversion: 0.1.0\ndependencies:\n- name: web\n  version: 1.0.0\n  repository: https://charts.example.com\n",
        ),
        (
            "charts/umbrella/Chart.yaml",
            "apiVersion: v2\nname: umbrella\nversion: 0.1.0\ndependencies:\n- name: web\n  version: 1.1.0\n  repository: https://charts.example.com\n",
        ),
        (
            "kust/kustomization.yaml",
            "helmCharts:\n- name: web\n  repo: https://charts.example.com\n  version: 1.0.0\n",
        ),
        (
            "argo/app.yaml",
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: web\nspec:\n  source:\n    repoURL: https://charts.example.com\n    chart: web\n    targetRevision: 1.0.0\n",
        ),
        (
            "argo/app.yaml",
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: web\nspec:\n  source:\n    repoURL: https://charts.example.com\n    chart: web\n    targetRevision: 1.1.0\n",
        ),
    ] {
        env.write(path, text);
        let commit = env.commit(path);
        let k = key(&r.fork_point, &commit, &[]);
        assert!(!seen.contains(&k), "{path}: {k} again");
        assert_eq!(key(&commit, &r.fork_point, &[]).len(), 32);
        assert_ne!(key(&commit, &r.fork_point, &[]), start, "{path} at the base");
        seen.push(k);
    }
    let last = seen.last().unwrap().clone();
    // The inputs that choose the targets change it too.
    for vars in [
        [("PATHS", "apps/web")],
        [("CONFIG", "other.yaml")],
        [("ARGS", "--strict")],
        [("WORKING_DIRECTORY", "repo")],
    ] {
        let head = env.git(&["rev-parse", "HEAD"]);
        assert_ne!(key(&r.fork_point, head.trim(), &vars), last, "{vars:?}");
    }

    // No key, no failure: the action then neither restores nor saves.
    let s = step(
        env,
        "cache-key.sh",
        None,
        &[("BASE", "no-such-rev"), ("HEAD", &r.feature)],
    )
    .code(0);
    assert!(!s.outputs.contains_key("hash"), "{:?}", s.outputs);
    assert!(
        s.run
            .stdout
            .contains("::warning title=kdelta::cannot name the cache"),
        "{}",
        s.run.stdout
    );
}

// ---------------------------------------------------------------------------------------------
// comment.sh

/// The report files of the branch's diff, and those of a diff without changes.
fn reports(r: &Repo) -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let changed = step(
        &r.env,
        "diff.sh",
        None,
        &[("BASE", &r.fork_point), ("HEAD", &r.feature)],
    );
    let quiet = step(
        &r.env,
        "diff.sh",
        None,
        &[
            ("BASE", &r.feature),
            ("HEAD", &r.feature),
            ("OUT_DIR", r.env.out("quiet").to_str().unwrap()),
        ],
    );
    (changed.outputs, quiet.outputs)
}

fn comment(
    env: &TestEnv,
    report: &BTreeMap<String, String>,
    vars: &[(&str, &str)],
) -> (Step, String) {
    let log = env.out("gh.log");
    let _ = std::fs::remove_file(&log);
    let mut all = vec![
        ("PR", "7"),
        ("MARKDOWN", report["markdown"].as_str()),
        ("JSON", report["json"].as_str()),
    ];
    all.extend_from_slice(vars);
    let s = step(env, "comment.sh", None, &all).code(0);
    (s, std::fs::read_to_string(&log).unwrap_or_default())
}

#[test]
fn comment_is_posted_once_then_updated_in_place() {
    let r = repo();
    let env = &r.env;
    let (changed, quiet) = reports(&r);

    // No comment of ours yet: one is posted, starting with the marker.
    let (s, log) = comment(env, &changed, &[]);
    assert!(
        log.starts_with("gh api --paginate repos/owner/repo/issues/7/comments --jq"),
        "{log}"
    );
    assert!(
        log.contains("gh api -X POST repos/owner/repo/issues/7/comments -F body=@"),
        "{log}"
    );
    assert!(
        log.contains("--- body\n<!-- kdelta:comment default -->\n"),
        "{log}"
    );
    assert!(log.contains("spec.replicas"), "{log}");
    assert!(!log.contains("correct-horse"), "{log}");
    assert_eq!(
        s.output("comment-url"),
        "https://github.com/owner/repo/pull/7#issuecomment-1001"
    );

    // Ours exists: the first one is edited, nothing new is posted.
    let (_, log) = comment(env, &changed, &[("FAKE_GH_COMMENTS", "111\n222\n")]);
    assert!(
        log.contains("gh api -X PATCH repos/owner/repo/issues/comments/111 -F body=@"),
        "{log}"
    );
    assert!(!log.contains("POST"), "{log}");

    // Nothing to say: no new comment, but an existing one is brought up to date.
    let (s, log) = comment(env, &quiet, &[]);
    assert!(!log.contains("POST") && !log.contains("PATCH"), "{log}");
    assert!(s.run.stdout.contains("no comment"), "{}", s.run.stdout);
    let (_, log) = comment(env, &quiet, &[("FAKE_GH_COMMENTS", "111")]);
    assert!(
        log.contains("-X PATCH repos/owner/repo/issues/comments/111"),
        "{log}"
    );

    // Each key keeps its own comment; a key cannot break out of the jq filter.
    let (_, log) = comment(env, &changed, &[("KEY", "prod \"cluster\"")]);
    assert!(
        log.contains("<!-- kdelta:comment prod--cluster- -->"),
        "{log}"
    );
}

#[test]
fn comment_failures_warn_and_pushes_get_no_comment() {
    let r = repo();
    let env = &r.env;
    let (changed, _) = reports(&r);
    // A fork's read-only token: a warning, not a failed job.
    let (s, _) = comment(env, &changed, &[("FAKE_GH_FAIL", "1")]);
    assert!(
        s.run
            .stdout
            .contains("::warning title=kdelta::cannot write the pull request comment")
            && s.run.stdout.contains("HTTP 403"),
        "{}",
        s.run.stdout
    );
    // Not a pull request: gh is never called.
    let (_, log) = comment(env, &changed, &[("PR", "")]);
    assert_eq!(log, "");
}

// ---------------------------------------------------------------------------------------------
// action.yml

#[test]
fn the_action_declares_what_its_steps_use() {
    let text = std::fs::read_to_string(Path::new(ACTION).join("action.yml")).expect("action.yml");
    let section = |name: &str| -> Vec<String> {
        let start = text.find(&format!("\n{name}:\n")).expect("section") + name.len() + 3;
        text[start..]
            .lines()
            .take_while(|l| l.is_empty() || l.starts_with(' '))
            .filter(|l| l.starts_with("  ") && !l.starts_with("   ") && l.ends_with(':'))
            .map(|l| l.trim().trim_end_matches(':').to_string())
            .collect()
    };
    let inputs = section("inputs");
    let outputs = section("outputs");
    assert!(inputs.contains(&"paths".to_string()) && outputs.contains(&"exit-code".to_string()));
    let used = |prefix: &str| -> Vec<String> {
        text.match_indices(prefix)
            .map(|(i, _)| {
                text[i + prefix.len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                    .collect()
            })
            .collect()
    };
    for input in used("inputs.") {
        assert!(
            inputs.contains(&input),
            "inputs.{input} is used but not declared"
        );
    }
    let ids: Vec<String> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("id: "))
        .map(str::to_string)
        .collect();
    for id in used("steps.") {
        assert!(
            ids.contains(&id),
            "steps.{id} is used but no step has that id"
        );
    }
    for script in used("scripts/") {
        let path: PathBuf = Path::new(ACTION)
            .join("scripts")
            .join(format!("{script}.sh"));
        assert!(path.is_file(), "{} is missing", path.display());
    }
    // No third-party actions: only GitHub's own.
    for (i, _) in text.match_indices("uses: ") {
        let action = &text[i + 6..].lines().next().unwrap_or_default();
        assert!(
            action.starts_with("actions/"),
            "third-party action {action}"
        );
    }
}

/// `action.yml` as data.
fn action() -> Value {
    let text = std::fs::read_to_string(Path::new(ACTION).join("action.yml")).expect("action.yml");
    let docs = yaml::parse_stream(text.as_bytes(), &ParseOptions::default())
        .unwrap_or_else(|e| panic!("action.yml is not YAML: {e}"));
    assert_eq!(docs.len(), 1, "action.yml holds one document");
    yaml::to_value(&docs[0], Dialect::Yaml12).expect("action.yml as data")
}

/// The one step that `uses:` an action starting with `prefix`.
fn uses<'a>(steps: &'a [Value], prefix: &str) -> &'a Value {
    let found: Vec<&Value> = steps
        .iter()
        .filter(|s| s["uses"].as_str().is_some_and(|u| u.starts_with(prefix)))
        .collect();
    assert_eq!(found.len(), 1, "steps using {prefix}");
    found[0]
}

#[test]
fn the_action_fetches_by_default_and_keeps_the_cache() {
    let action = action();
    let inputs = &action["inputs"];
    for input in ["fetch", "cache"] {
        assert_eq!(
            inputs[input]["default"], "true",
            "{input}: {:#}",
            inputs[input]
        );
        assert_eq!(inputs[input]["required"], false, "{input}");
        assert!(inputs[input]["description"].is_string(), "{input}");
    }
    let steps = action["runs"]["steps"].as_array().expect("steps");
    let step = |id: &str| -> &Value {
        steps
            .iter()
            .find(|s| s["id"] == id)
            .unwrap_or_else(|| panic!("no step {id}"))
    };

    // Every action is GitHub's own, pinned to a major version like the others.
    let cache_major = uses(steps, "actions/cache@")["uses"].as_str().unwrap();
    let major = cache_major.split_once('@').unwrap().1;
    for s in steps.iter().filter_map(|s| s["uses"].as_str()) {
        let (name, version) = s
            .split_once('@')
            .unwrap_or_else(|| panic!("{s} is not pinned"));
        assert!(name.starts_with("actions/"), "{s}");
        assert!(
            version.starts_with('v') && version[1..].bytes().all(|b| b.is_ascii_digit()),
            "{s}"
        );
        if name.starts_with("actions/cache") {
            assert_eq!(version, major, "{s}");
        }
    }

    // kdelta is given the fetch input, and the cache directory the cache steps keep.
    let diff = step("diff");
    assert_eq!(diff["env"]["FETCH"], "${{ inputs.fetch }}");
    let dir = "${{ runner.temp }}/kdelta-cache";
    assert_eq!(
        diff["env"]["KDELTA_CACHE_DIR"],
        "${{ inputs.cache == 'true' && format('{0}/kdelta-cache', runner.temp) || env.KDELTA_CACHE_DIR }}"
    );
    let restore = uses(steps, "actions/cache/restore@");
    let save = uses(steps, "actions/cache/save@");
    assert_eq!(restore["with"]["path"], dir);
    assert_eq!(save["with"]["path"], dir);

    // Restored only with the input, in the working directory's repository, before kdelta runs;
    // saved after it under the key restore looked for, also when the job fails.
    let key_step = step("fetch-cache-key");
    assert_eq!(key_step["if"], "inputs.cache == 'true'");
    assert_eq!(
        key_step["working-directory"],
        "${{ inputs.working-directory }}"
    );
    assert_eq!(
        key_step["run"],
        "bash \"$GITHUB_ACTION_PATH/scripts/cache-key.sh\""
    );
    for var in [
        "BASE",
        "HEAD",
        "WORKING_DIRECTORY",
        "PATHS",
        "CONFIG",
        "ARGS",
    ] {
        assert!(key_step["env"][var].is_string(), "cache-key.sh needs {var}");
    }
    let index = |s: &Value| steps.iter().position(|t| t == s).unwrap();
    assert!(index(key_step) < index(restore) && index(restore) < index(diff));
    assert!(index(diff) < index(save));
    assert!(restore["if"]
        .as_str()
        .unwrap()
        .starts_with("inputs.cache == 'true' && steps.fetch-cache-key.outputs.hash != ''"));
    let key = restore["with"]["key"].as_str().unwrap();
    let prefix = restore["with"]["restore-keys"].as_str().unwrap().trim();
    assert_eq!(prefix, "kdelta-fetch-${{ runner.os }}-");
    assert_eq!(
        key,
        format!("{prefix}${{{{ steps.fetch-cache-key.outputs.hash }}}}")
    );
    let restore_id = restore["id"].as_str().expect("the restore step has an id");
    assert_eq!(
        save["with"]["key"],
        format!("${{{{ steps.{restore_id}.outputs.cache-primary-key }}}}")
    );
    let when = save["if"].as_str().unwrap();
    for term in [
        "always()",
        "inputs.cache == 'true'",
        "inputs.fetch == 'true'",
        &format!("steps.{restore_id}.outputs.cache-hit != 'true'"),
        "steps.diff.outputs.cache-dir != ''",
    ] {
        assert!(when.contains(term), "{term} in {when}");
    }
}
