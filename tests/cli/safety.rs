//! The promises of docs/security.md that are about the run as a whole: a crash costs one target,
//! not the report; incomplete output is never passed off as complete; output is deterministic;
//! kdelta needs no network and writes nothing into the repository.

use super::*;
use std::collections::BTreeMap;
use std::path::Path;

/// A repository with three kustomize overlays over one base, a plain-manifest directory and a
/// kustomization with a remote base; two commits (an image bump, a replica change, a new
/// ConfigMap, a changed Secret).
fn multi_target_repo() -> (TestEnv, String, String) {
    let env = TestEnv::new();
    env.write(".kdelta.yaml", CONFIG)
        .write("manifests/web.yaml", deployment(2))
        .write(
            "apps/base/kustomization.yaml",
            "resources:\n- deploy.yaml\nconfigMapGenerator:\n- name: settings\n  literals:\n  - mode=a\n",
        )
        .write(
            "apps/base/deploy.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: api\n        image: example/api:1.0\n  selector:\n    matchLabels:\n      app: web\n",
        )
        .write(
            "remote/kustomization.yaml",
            "resources:\n- https://github.com/example/base?ref=v1\n- cm.yaml\n",
        )
        .write("remote/cm.yaml", config_map("local", "v"));
    for env_name in ["dev", "staging", "prod"] {
        env.write(
            &format!("apps/overlays/{env_name}/kustomization.yaml"),
            format!("namespace: {env_name}\nresources:\n- ../../base\n"),
        );
    }
    let base = env.commit("base");
    env.write(
        "apps/base/deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n      - name: api\n        image: example/api:1.1\n  selector:\n    matchLabels:\n      app: web\n",
    )
    .write("manifests/cm.yaml", config_map("extra", "x"))
    .write("manifests/creds.yaml", secret("c3dvcmRmaXNo"));
    let head = env.commit("head");
    (env, base, head)
}

#[test]
fn a_crash_in_one_target_is_a_finding_and_the_others_still_render() {
    let (env, base, head) = multi_target_repo();
    let mut cmd = env.kdelta_cmd(&["diff", &base, &head, "--format", "json"]);
    cmd.env("KDELTA_INJECT_PANIC", "kustomize:apps/overlays/prod")
        .env_remove("RUST_BACKTRACE");
    let diff = run(cmd).code(1);
    let report = diff.json();
    let crashed: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "internal.panic")
        .collect();
    // Rendered at both revisions (the base render fails, so head is rendered too).
    assert_eq!(crashed.len(), 2, "{}", diff.stdout);
    let message = crashed[1]["message"].as_str().unwrap();
    assert!(
        message.starts_with("kdelta crashed rendering kustomize:apps/overlays/prod"),
        "{message}"
    );
    assert!(message.contains("KDELTA_INJECT_PANIC"), "{message}");
    assert!(crashed[1]["help"]
        .as_str()
        .unwrap()
        .contains("please report"));
    let status = |id: &str| target_in(&report, id)["status"].clone();
    assert_eq!(status("kustomize:apps/overlays/prod"), "error");
    assert_eq!(status("kustomize:apps/overlays/dev"), "modified");
    assert_eq!(status("kustomize:apps/overlays/staging"), "modified");
    assert_eq!(status("dir:manifests"), "modified");
    // Nothing of Rust's panic message reaches the terminal.
    assert!(!diff.stderr.contains("panicked"), "{}", diff.stderr);

    let mut cmd = env.kdelta_cmd(&["render", "apps/overlays/prod"]);
    cmd.env("KDELTA_INJECT_PANIC", "kustomize:apps/overlays/prod")
        .env_remove("RUST_BACKTRACE");
    run(cmd)
        .code(1)
        .stderr_has("error[internal.panic]")
        .stderr_has("kdelta crashed rendering kustomize:apps/overlays/prod");
}

#[test]
fn a_crash_in_one_writer_leaves_the_others_and_exits_1() {
    let (env, base, head) = multi_target_repo();
    let junit = env.out("r.xml");
    let markdown = env.out("r.md");
    let mut cmd = env.kdelta_cmd(&[
        "diff",
        &base,
        &head,
        "--format",
        "json",
        "--junit",
        junit.to_str().unwrap(),
        "--markdown",
        markdown.to_str().unwrap(),
    ]);
    cmd.env("KDELTA_INJECT_PANIC", "writer:junit")
        .env_remove("RUST_BACKTRACE");
    let diff = run(cmd)
        .code(1)
        .stderr_has("error[internal.panic]: the JUnit writer crashed");
    assert!(!junit.exists(), "the crashed writer wrote nothing");
    assert!(std::fs::read_to_string(&markdown)
        .unwrap()
        .contains("apps/overlays/prod"));
    diff.json();
}

#[test]
fn render_refuses_incomplete_output_unless_allowed() {
    let (env, _, _) = multi_target_repo();
    let refused = env
        .kdelta(&["render", "remote"])
        .code(1)
        .stderr_has("notice[kustomize.remote-resource]")
        .stderr_has("--allow-incomplete");
    assert_eq!(refused.stdout, "", "nothing to pipe into kubectl apply");
    env.kdelta(&["render", "remote", "--allow-incomplete"])
        .success()
        .stdout_has("name: local");
    env.kdelta(&["render", "remote", "--allow-incomplete", "--strict"])
        .code(1)
        .stderr_has("error[kustomize.remote-resource]");
}

#[test]
fn incomplete_targets_are_marked_in_every_report_and_strict_fails_them() {
    let (env, base, head) = multi_target_repo();
    let check = env
        .kdelta(&["check", "--rev", &head, "--format", "json"])
        .success();
    let report = check.json();
    let remote = target_in(&report, "kustomize:remote");
    assert_eq!(remote["incomplete"], true, "{remote}");
    assert_eq!(report["summary"]["incomplete"], 1);
    let notice = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "kustomize.remote-resource")
        .unwrap()
        .clone();
    assert_eq!(notice["incomplete"], true);
    assert_eq!(notice["line"], 2, "{notice}");

    env.kdelta(&["check", "--rev", &head])
        .success()
        .stdout_has("kustomize:remote (unchanged, incomplete)")
        .stdout_has("1 target incomplete");
    let md = env
        .kdelta(&["diff", &base, &head, "--format", "markdown"])
        .success();
    assert!(md.stdout.contains("unchanged, incomplete"), "{}", md.stdout);
    let html = env.out("r.html");
    env.kdelta(&["report", &base, &head, "--html", html.to_str().unwrap()])
        .success();
    assert!(std::fs::read_to_string(&html)
        .unwrap()
        .contains("<span class=\"badge incomplete\">incomplete</span>"));
    let junit = env.out("r.xml");
    env.kdelta(&["check", "--junit", junit.to_str().unwrap()])
        .success();
    assert!(std::fs::read_to_string(&junit)
        .unwrap()
        .contains("the output is incomplete"));
    env.kdelta(&["check", "--rev", &head, "--format", "github"])
        .success()
        .stdout_has("kustomize.remote-resource");

    let strict = env
        .kdelta(&["check", "--rev", &head, "--strict", "--format", "json"])
        .code(1);
    let report = strict.json();
    let remote = target_in(&report, "kustomize:remote");
    assert_eq!(remote["status"], "error");
    env.kdelta(&["diff", &base, &head, "--strict"]).code(1);
}

/// Every output of a diff, check and render: (name, bytes).
fn all_outputs(env: &TestEnv, base: &str, head: &str, extra: &[&str]) -> Vec<(String, String)> {
    let mut outputs = Vec::new();
    for format in ["text", "json", "markdown", "github"] {
        let mut args = vec!["diff", base, head, "--format", format];
        args.extend(extra);
        outputs.push((format!("diff {format}"), env.kdelta(&args).stdout));
    }
    let (json, junit, md, html) = (
        env.out("d.json"),
        env.out("d.xml"),
        env.out("d.md"),
        env.out("d.html"),
    );
    let mut args = vec![
        "report",
        base,
        head,
        "--html",
        html.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
        "--markdown",
        md.to_str().unwrap(),
    ];
    args.extend(extra);
    let run = env.kdelta(&args);
    outputs.push(("report stdout".into(), run.stdout));
    for file in [&json, &junit, &md, &html] {
        outputs.push((
            file.display().to_string(),
            std::fs::read_to_string(file).unwrap(),
        ));
    }
    let mut args = vec!["check", "--rev", head, "--format", "json"];
    args.extend(extra);
    outputs.push(("check".into(), env.kdelta(&args).stdout));
    let mut args = vec!["render", "--rev", head, "apps", "manifests"];
    args.extend(extra);
    outputs.push(("render".into(), env.kdelta(&args).stdout));
    outputs
}

#[test]
fn every_output_is_identical_across_runs_and_job_counts() {
    let (env, base, head) = multi_target_repo();
    let first = all_outputs(&env, &base, &head, &["-j", "1"]);
    for jobs in ["1", "8"] {
        let again = all_outputs(&env, &base, &head, &["-j", jobs]);
        for ((name, a), (_, b)) in first.iter().zip(&again) {
            assert!(!a.is_empty(), "{name} is empty");
            assert_eq!(a, b, "{name} differs between -j 1 and -j {jobs}");
        }
    }
}

/// Every file under `dir` (the `.git` directory included) with its bytes and permissions.
fn tree_state(dir: &Path) -> BTreeMap<String, (Vec<u8>, u32)> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let entry = entry.unwrap();
            let meta = std::fs::symlink_metadata(entry.path()).unwrap();
            let rel = entry
                .path()
                .strip_prefix(dir)
                .unwrap()
                .display()
                .to_string();
            if meta.is_dir() {
                stack.push(entry.path());
                out.insert(rel, (Vec::new(), meta.permissions().mode()));
            } else if meta.is_file() {
                let bytes = std::fs::read(entry.path()).unwrap();
                out.insert(rel, (bytes, meta.permissions().mode()));
            }
        }
    }
    out
}

/// `unshare -m -n` with the repository bind-mounted read-only, when this machine allows it
/// (root, or user namespaces). CI runs as root, so there it must work.
fn sandboxed(repo: &Path, mut cmd: std::process::Command) -> Option<std::process::Command> {
    let probe = std::process::Command::new("unshare")
        .args(["-m", "-n", "true"])
        .status();
    if !probe.is_ok_and(|s| s.success()) {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must be able to run `unshare -m -n` (the sandbox test needs it)"
        );
        eprintln!("SKIPPED: the sandboxed run needs `unshare -m -n`, which this machine refuses");
        return None;
    }
    let program = cmd.get_program().to_owned();
    let args: Vec<_> = cmd.get_args().map(|a| a.to_owned()).collect();
    let mut wrapped = std::process::Command::new("unshare");
    wrapped
        .args(["-m", "-n", "sh", "-c"])
        .arg(r#"repo="$1"; shift; mount --bind "$repo" "$repo" && mount -o remount,bind,ro "$repo" && exec "$@""#)
        .arg("sandbox")
        .arg(repo)
        .arg(program)
        .args(args);
    if let Some(dir) = cmd.get_current_dir() {
        wrapped.current_dir(dir);
    }
    for (key, value) in cmd.get_envs() {
        match value {
            Some(v) => wrapped.env(key, v),
            None => wrapped.env_remove(key),
        };
    }
    cmd = wrapped;
    Some(cmd)
}

#[test]
fn runs_without_network_on_a_read_only_repository_and_changes_nothing() {
    let (env, base, head) = multi_target_repo();
    // Uncommitted edits, so the work tree and the index are read too.
    env.write(
        "apps/overlays/dev/kustomization.yaml",
        "namespace: dev2\nresources:\n- ../../base\n",
    );
    env.git(&["add", "apps/overlays/dev"]);
    env.write("manifests/cm.yaml", config_map("extra", "y"));
    let before = tree_state(env.repo());
    let commands: Vec<Vec<&str>> = vec![
        vec!["diff", &base, &head, "--format", "json"],
        vec!["diff", &head, "--format", "json"],
        vec!["diff", "--staged", &base, "--format", "json"],
        vec!["check", "--format", "json"],
        vec!["check", "--staged", "--format", "json"],
        vec!["render", "apps", "manifests"],
        vec!["list"],
    ];
    for args in commands {
        let plain = env.kdelta(&args);
        let Some(cmd) = sandboxed(env.repo(), env.kdelta_cmd(&args)) else {
            return;
        };
        let sandboxed = run(cmd);
        assert_eq!(
            (sandboxed.code, &sandboxed.stdout),
            (plain.code, &plain.stdout),
            "kdelta {args:?} differs in the sandbox:\n{}",
            sandboxed.stderr
        );
    }
    assert!(
        tree_state(env.repo()) == before,
        "the repository or its .git changed"
    );
}
