//! End-to-end runs of the `kdelta` binary on real temporary git repositories (see
//! tests/util/mod.rs). Targets are plain-manifest directories named in `.kdelta.yaml`, so these
//! tests exercise the whole pipeline — revisions, discovery, rendering, diff, reports, exit
//! codes — independently of the rendering engines.

mod util;

use serde_json::{json, Value};
use util::{run, TestEnv};

// ---------------------------------------------------------------------------------------------
// Fixtures

const CONFIG: &str = "directories: [manifests]\n";

fn deployment(replicas: u32) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: prod\n\
         spec:\n  replicas: {replicas}\n  template:\n    spec:\n      containers:\n      \
         - name: web\n        image: nginx:1.27\n"
    )
}

fn service(name: &str) -> String {
    format!("apiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\n  namespace: prod\n")
}

fn config_map(name: &str, value: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: prod\ndata:\n  key: {value:?}\n")
}

/// A repository with one commit: `manifests/` holds a Deployment (2 replicas) and a Service
/// `old`.
fn base_repo() -> (TestEnv, String) {
    let env = TestEnv::new();
    env.write(".kdelta.yaml", CONFIG)
        .write("manifests/web.yaml", deployment(2))
        .write("manifests/old.yaml", service("old"));
    let base = env.commit("base");
    (env, base)
}

/// [`base_repo`] plus a second commit: 3 replicas, Service `old` removed, Service `new` added.
fn two_commit_repo() -> (TestEnv, String, String) {
    let (env, base) = base_repo();
    env.write("manifests/web.yaml", deployment(3))
        .remove("manifests/old.yaml")
        .write("manifests/new.yaml", service("new"));
    let head = env.commit("head");
    (env, base, head)
}

fn has_ansi(s: &str) -> bool {
    s.contains('\u{1b}')
}

/// The JSON Schema of the report, as shipped in docs/.
fn report_schema() -> jsonschema::Validator {
    let text = include_str!("../docs/report.schema.json");
    let schema: Value = serde_json::from_str(text).expect("docs/report.schema.json is JSON");
    jsonschema::draft7::new(&schema).expect("docs/report.schema.json is a valid draft-7 schema")
}

#[track_caller]
fn assert_valid_report(validator: &jsonschema::Validator, report: &Value) {
    let errors: Vec<String> = validator
        .iter_errors(report)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "report does not match docs/report.schema.json:\n{}\n{report:#}",
        errors.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// diff

#[test]
fn diff_between_two_commits_shows_field_changes_and_added_and_removed_resources() {
    let (env, base, head) = two_commit_repo();
    let r = env
        .kdelta(&["diff", &base, &head])
        .success()
        .stdout_has("dir:manifests (modified)\n")
        .stdout_has("  ~ apps/v1/Deployment/prod/web\n      spec.replicas: 2 → 3\n")
        .stdout_has("  + core/v1/Service/prod/new\n")
        .stdout_has("  - core/v1/Service/prod/old\n");
    assert!(!has_ansi(&r.stdout), "no colors into a pipe");
    insta::assert_snapshot!("diff_two_commits", r.stdout);
}

#[test]
fn diff_without_arguments_compares_the_merge_base_with_main_to_the_work_tree() {
    let (env, base) = base_repo();
    env.git(&["checkout", "-q", "-b", "feature"]);
    env.write("manifests/web.yaml", deployment(3));
    env.commit("feature: 3 replicas");
    // main moves on after the branch point; that change is not the feature's.
    env.git(&["checkout", "-q", "main"]);
    env.write("manifests/main-only.yaml", config_map("main-only", "x"));
    env.commit("main moves on");
    env.git(&["checkout", "-q", "feature"]);
    // An uncommitted edit in the work tree is part of the head side.
    env.write("manifests/web.yaml", deployment(4));

    let r = env
        .kdelta(&["diff"])
        .success()
        .stdout_has("spec.replicas: 2 → 4");
    assert!(!r.stdout.contains("main-only"), "{}", r.stdout);

    let report = env.kdelta(&["diff", "--format", "json"]).success().json();
    assert_eq!(
        report["base"],
        json!({"rev": "merge-base(HEAD, main)", "commit": base})
    );
    assert_eq!(report["head"], json!({"rev": "WORKTREE", "commit": null}));

    // From a subdirectory, the repository is still found and paths stay repo-relative.
    let mut cmd = env.kdelta_cmd(&["diff"]);
    cmd.current_dir(env.repo().join("manifests"));
    let from_sub = run(cmd).success();
    assert_eq!(from_sub.stdout, r.stdout);
}

#[test]
fn diff_staged_compares_the_index_not_the_work_tree() {
    let (env, _base) = base_repo();
    env.write("manifests/web.yaml", deployment(3));
    env.git(&["add", "manifests/web.yaml"]);
    env.write("manifests/web.yaml", deployment(4));

    env.kdelta(&["diff", "--staged"])
        .success()
        .stdout_has("spec.replicas: 2 → 3");
    env.kdelta(&["diff", "HEAD", "--staged"])
        .success()
        .stdout_has("spec.replicas: 2 → 3");
    env.kdelta(&["diff"])
        .success()
        .stdout_has("spec.replicas: 2 → 4");
    let report = env
        .kdelta(&["diff", "--staged", "--format", "json"])
        .success()
        .json();
    assert_eq!(report["head"], json!({"rev": "STAGED", "commit": null}));
}

#[test]
fn fail_on_diff_exits_1_only_when_something_changed() {
    let (env, base, head) = two_commit_repo();
    env.kdelta(&["diff", &base, &head, "--fail-on-diff"])
        .code(1)
        .stdout_has("spec.replicas: 2 → 3");
    let same = env
        .kdelta(&["diff", &head, &head, "--fail-on-diff"])
        .success();
    assert!(
        same.stdout
            .starts_with("1 targets: 0 modified, 0 added, 0 removed, 1 unchanged"),
        "{}",
        same.stdout
    );
    // Without the flag a diff is not a failure.
    env.kdelta(&["diff", &base, &head]).success();
}

#[test]
fn revisions_can_be_named_by_annotated_tag_relative_spec_or_branch() {
    let (env, base, head) = two_commit_repo();
    env.git(&["tag", "-a", "v1.0.0", "-m", "release", &base]);
    let by_id = env.kdelta(&["diff", &base, &head]).success();
    for (b, h) in [("v1.0.0", "HEAD"), ("HEAD~1", "HEAD"), ("HEAD^", "main")] {
        let r = env.kdelta(&["diff", b, h]).success();
        assert_eq!(r.stdout, by_id.stdout, "diff {b} {h}");
    }
    let report = env
        .kdelta(&["diff", "v1.0.0", "HEAD", "--format", "json"])
        .success()
        .json();
    // The annotated tag is peeled to the commit it points at.
    assert_eq!(report["base"], json!({"rev": "v1.0.0", "commit": base}));
    assert_eq!(report["head"], json!({"rev": "HEAD", "commit": head}));
}

#[test]
fn an_unknown_revision_exits_2_with_a_clear_message() {
    let (env, _base) = base_repo();
    for args in [
        &["diff", "no-such-branch", "HEAD"][..],
        &["diff", "HEAD", "no-such-branch"],
        &["check", "--rev", "no-such-branch"],
        &["list", "--rev", "no-such-branch"],
        &["render", "--rev", "no-such-branch", "manifests"],
    ] {
        let r = env
            .kdelta(args)
            .code(2)
            .stderr_has("kdelta: error: unknown revision \"no-such-branch\"");
        assert!(r.stdout.is_empty(), "{args:?} printed {}", r.stdout);
    }
    env.kdelta(&["diff", "HEAD~5", "HEAD"])
        .code(2)
        .stderr_has("unknown revision \"HEAD~5\"");
}

#[test]
fn a_shallow_clone_without_merge_base_says_fetch_depth_0() {
    // Upstream: main and feature diverge after `base`, each by two commits.
    let (upstream, _base) = base_repo();
    upstream.git(&["checkout", "-q", "-b", "feature"]);
    for n in [3, 4] {
        upstream.write("manifests/web.yaml", deployment(n));
        upstream.commit(&format!("feature {n}"));
    }
    upstream.git(&["checkout", "-q", "main"]);
    for name in ["a", "b"] {
        upstream.write(&format!("manifests/{name}.yaml"), config_map(name, name));
        upstream.commit(&format!("main {name}"));
    }
    // The clone has only the tips: no common ancestor is present.
    let url = format!("file://{}", upstream.repo().display());
    let clone = TestEnv::clone_of(
        &url,
        &["--depth", "1", "--no-single-branch", "--branch", "feature"],
    );
    clone
        .kdelta(&["diff"])
        .code(2)
        .stderr_has("shallow clone")
        .stderr_has("fetch-depth: 0");
    // Naming both revisions needs no merge base.
    clone
        .kdelta(&["diff", "origin/main", "HEAD"])
        .success()
        .stdout_has("spec.replicas: 2 → 4");
}

// ---------------------------------------------------------------------------------------------
// Reports: JSON, JUnit, colors

#[test]
fn json_report_is_documented_by_the_schema() {
    let env = TestEnv::new();
    env.write(".kdelta.yaml", "directories: ['envs/*']\n")
        .write(
            "envs/prod/app.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg-7f8t9k2h5m\ndata:\n  a: \"1\"\n\
             ---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n\
             spec:\n  replicas: 2\n  paused: true\n",
        )
        .write("envs/stable/ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: stable\n")
        .write("envs/old/svc.yaml", service("old"))
        .write("envs/secret/s.yaml", secret("aHVudGVyMg=="))
        .write("apps/web/kustomization.yaml", "resources: []\n")
        .write("charts/api/Chart.yaml", "apiVersion: v2\nname: api\nversion: 0.1.0\n")
        .write(
            "argocd/apps.yaml",
            "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: guestbook\n",
        );
    let base = env.commit("base");
    env.write(
        "envs/prod/app.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg-b2c4d6f8g9\ndata:\n  a: \"2\"\n\
         ---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n\
         spec:\n  replicas: 3\n  strategy:\n    type: Recreate\n",
    )
    .remove("envs/old")
    .write("envs/new/svc.yaml", service("new"))
    .write("envs/secret/s.yaml", secret("c3dvcmRmaXNo"))
    .write("envs/broken/bad.yaml", "a: [\n");
    let head = env.commit("head");

    let validator = report_schema();
    let diff = env
        .kdelta(&["diff", &base, &head, "--format", "json"])
        .code(1)
        .json();
    assert_valid_report(&validator, &diff);

    // Every status, change kind and finding shape the schema describes occurs here.
    assert_eq!(diff["schema"], "kdelta/report/v1");
    assert_eq!(diff["base"], json!({"rev": base, "commit": base}));
    let status = |id: &str| -> Value {
        diff["targets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["id"] == id)
            .unwrap_or_else(|| panic!("no target {id} in {diff:#}"))["status"]
            .clone()
    };
    assert_eq!(status("dir:envs/prod"), "modified");
    assert_eq!(status("dir:envs/new"), "added");
    assert_eq!(status("dir:envs/old"), "removed");
    assert_eq!(status("dir:envs/stable"), "unchanged");
    assert_eq!(status("dir:envs/broken"), "error");
    assert_eq!(status("kustomize:apps/web"), "unchanged");
    let prod = diff["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "dir:envs/prod")
        .unwrap();
    assert_eq!(
        prod["changes"],
        json!([
            {"resource": "apps/v1/Deployment/_/web", "change": "modified", "fields": [
                {"path": "spec.paused", "old": true},
                {"path": "spec.replicas", "old": 2, "new": 3},
                {"path": "spec.strategy", "new": {"type": "Recreate"}},
            ]},
            {"resource": "core/v1/ConfigMap/_/cfg-b2c4d6f8g9", "change": "renamed",
             "from": "core/v1/ConfigMap/_/cfg-7f8t9k2h5m",
             "fields": [{"path": "data.a", "old": "1", "new": "2"}]},
        ])
    );
    assert_eq!(
        diff["findings"][0],
        json!({"severity": "error", "rule": "yaml.parse", "target": "dir:envs/broken",
               "file": "envs/broken/bad.yaml", "line": 2, "column": 1,
               "message": diff["findings"][0]["message"], "revision": "head"})
    );
    assert_eq!(diff["summary"]["errors"], 1);

    // A single-revision report (check) has no base, and findings without a side.
    let check = env.kdelta(&["check", "--format", "json"]).code(1).json();
    assert_valid_report(&validator, &check);
    assert_eq!(check["base"], Value::Null);

    // The schema is not vacuous: a report with an unknown status or a missing field fails it.
    let mut bad = diff.clone();
    bad["targets"][0]["status"] = json!("exploded");
    assert!(!validator.is_valid(&bad));
    let mut bad = diff.clone();
    bad["summary"].as_object_mut().unwrap().remove("errors");
    assert!(!validator.is_valid(&bad));
    let mut bad = diff;
    bad["surprise"] = json!(1);
    assert!(!validator.is_valid(&bad));
}

#[test]
fn json_and_junit_files_are_written_beside_the_text_output() {
    let (env, base, head) = two_commit_repo();
    env.write("other/cm.yaml", config_map("cm", "v"))
        .write(".kdelta.yaml", "directories: [manifests, other]\n");
    let head2 = env.commit("add a second target");
    let json_file = env.out("report.json");
    let junit_file = env.out("report.xml");
    let text = env
        .kdelta(&[
            "diff",
            &base,
            &head2,
            "--json",
            json_file.to_str().unwrap(),
            "--junit",
            junit_file.to_str().unwrap(),
        ])
        .success();
    assert!(
        text.stdout.contains("spec.replicas: 2 → 3"),
        "{}",
        text.stdout
    );

    // The file holds exactly what --format json prints.
    let printed = env
        .kdelta(&["diff", &base, &head2, "--format", "json"])
        .success();
    let written = std::fs::read_to_string(&json_file).expect("--json wrote the file");
    assert_eq!(written, printed.stdout);
    assert_valid_report(&report_schema(), &serde_json::from_str(&written).unwrap());

    // JUnit: one testsuite per target, a render case plus one case per changed resource.
    let xml = std::fs::read_to_string(&junit_file).expect("--junit wrote the file");
    let junit = quick_junit::Report::deserialize_from_str(&xml).expect("valid JUnit XML");
    let suites: Vec<&str> = junit.test_suites.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(suites, ["dir:manifests", "dir:other"]);
    let cases: Vec<&str> = junit.test_suites[0]
        .test_cases
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(
        cases,
        [
            "render",
            "apps/v1/Deployment/prod/web",
            "core/v1/Service/prod/new",
            "core/v1/Service/prod/old"
        ]
    );
    assert_eq!(junit.failures, 0, "a diff alone is no failure:\n{xml}");
    let web = &junit.test_suites[0].test_cases[1];
    assert_eq!(web.classname.as_deref(), Some("dir:manifests"));
    assert!(
        web.system_out
            .as_deref()
            .unwrap_or("")
            .contains("spec.replicas"),
        "{xml}"
    );

    // With --fail-on-diff every changed resource is a failed test case.
    env.kdelta(&[
        "diff",
        &base,
        &head,
        "--fail-on-diff",
        "--junit",
        junit_file.to_str().unwrap(),
    ])
    .code(1);
    let xml = std::fs::read_to_string(&junit_file).unwrap();
    let junit = quick_junit::Report::deserialize_from_str(&xml).expect("valid JUnit XML");
    assert_eq!(junit.failures, 3, "{xml}");
}

#[test]
fn junit_error_findings_are_failures_named_by_rule_and_location() {
    let (env, _base) = base_repo();
    env.write(
        "manifests/bad.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata: [a\n",
    );
    let junit_file = env.out("check.xml");
    env.kdelta(&["check", "--junit", junit_file.to_str().unwrap()])
        .code(1);
    let xml = std::fs::read_to_string(&junit_file).unwrap();
    let junit = quick_junit::Report::deserialize_from_str(&xml).expect("valid JUnit XML");
    assert_eq!(junit.test_suites.len(), 1);
    let suite = &junit.test_suites[0];
    assert_eq!(suite.name.as_str(), "dir:manifests");
    let finding = suite
        .test_cases
        .iter()
        .find(|c| c.name.as_str().starts_with("yaml.parse"))
        .unwrap_or_else(|| panic!("no yaml.parse case:\n{xml}"));
    assert_eq!(finding.name.as_str(), "yaml.parse manifests/bad.yaml:6:1");
    match &finding.status {
        quick_junit::TestCaseStatus::NonSuccess { kind, ty, .. } => {
            assert_eq!(*kind, quick_junit::NonSuccessKind::Failure);
            assert_eq!(ty.as_deref(), Some("yaml.parse"));
        }
        other => panic!("the finding is not a failure: {other:?}"),
    }
}

#[test]
fn colors_only_when_asked_and_never_with_no_color() {
    let (env, base, head) = two_commit_repo();
    let colored = env
        .kdelta(&["diff", &base, &head, "--color", "always"])
        .success();
    assert!(has_ansi(&colored.stdout), "--color always colors");
    let plain = env
        .kdelta(&["diff", &base, &head, "--color", "never"])
        .success();
    assert!(!has_ansi(&plain.stdout) && !has_ansi(&plain.stderr));
    let mut cmd = env.kdelta_cmd(&["diff", &base, &head]);
    cmd.env("NO_COLOR", "1");
    let no_color = run(cmd).success();
    assert!(!has_ansi(&no_color.stdout) && !has_ansi(&no_color.stderr));
    assert_eq!(no_color.stdout, plain.stdout);
}

// ---------------------------------------------------------------------------------------------
// Secrets

fn secret(password_b64: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n  namespace: prod\n\
         data:\n  password: {password_b64}\n"
    )
}

fn secret_with_token(password_b64: &str, token: &str) -> String {
    format!("{}stringData:\n  token: {token}\n", secret(password_b64))
}

#[test]
fn secret_values_never_appear_in_any_output_but_the_changed_key_does() {
    let (env, _) = base_repo();
    // "hunter2" and "swordfish", base64-encoded.
    env.write(
        "manifests/creds.yaml",
        secret_with_token("aHVudGVyMg==", "tok-one-1234"),
    );
    let base = env.commit("secret v1");
    env.write("manifests/creds.yaml", secret_with_token("c3dvcmRmaXNo", "tok-two-5678"))
        .write("manifests/added.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: added\n  namespace: prod\nstringData:\n  api-key: brand-new-key-42\n");
    let head = env.commit("secret v2");
    let forbidden = [
        "aHVudGVyMg==",
        "c3dvcmRmaXNo",
        "hunter2",
        "swordfish",
        "tok-one-1234",
        "tok-two-5678",
        "brand-new-key-42",
    ];
    let assert_clean = |what: &str, text: &str| {
        for value in forbidden {
            assert!(!text.contains(value), "{what} shows {value:?}:\n{text}");
        }
    };

    let json_file = env.out("s.json");
    let junit_file = env.out("s.xml");
    let text = env
        .kdelta(&[
            "diff",
            &base,
            &head,
            "--json",
            json_file.to_str().unwrap(),
            "--junit",
            junit_file.to_str().unwrap(),
        ])
        .success()
        .stdout_has("~ core/v1/Secret/prod/creds\n      data.password: changed")
        .stdout_has("stringData.token: changed")
        .stdout_has("+ core/v1/Secret/prod/added");
    assert_clean("text", &text.stdout);
    assert_clean("stderr", &text.stderr);
    let json_text = std::fs::read_to_string(&json_file).unwrap();
    assert_clean("--json", &json_text);
    let junit_text = std::fs::read_to_string(&junit_file).unwrap();
    assert_clean("--junit", &junit_text);
    assert!(junit_text.contains("data.password"), "{junit_text}");
    let stdout_json = env
        .kdelta(&["diff", &base, &head, "--format", "json"])
        .success();
    assert_clean("--format json", &stdout_json.stdout);

    // The key is reported as changed, with distinct markers on each side.
    let report: Value = serde_json::from_str(&json_text).unwrap();
    let creds = report["targets"][0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["resource"] == "core/v1/Secret/prod/creds")
        .expect("the Secret changed")
        .clone();
    let field = &creds["fields"][0];
    assert_eq!(field["path"], "data.password");
    let (old, new) = (
        field["old"].as_str().unwrap(),
        field["new"].as_str().unwrap(),
    );
    assert!(old.starts_with("<redacted sha256:") && new.starts_with("<redacted sha256:"));
    assert_ne!(old, new);

    // render and check redact too.
    let rendered = env.kdelta(&["render", "manifests"]).success();
    assert_clean("render", &rendered.stdout);
    assert!(
        rendered.stdout.contains("password: <redacted sha256:"),
        "{}",
        rendered.stdout
    );
    assert!(
        rendered.stderr.contains("--show-secrets"),
        "{}",
        rendered.stderr
    );
    let check = env.kdelta(&["check", "--format", "json"]).success();
    assert_clean("check", &check.stdout);

    // --show-secrets opts out.
    env.kdelta(&["diff", &base, &head, "--show-secrets"])
        .success()
        .stdout_has("data.password: aHVudGVyMg== → c3dvcmRmaXNo")
        .stdout_has("stringData.token: tok-one-1234 → tok-two-5678");
    let shown = env
        .kdelta(&["diff", &base, &head, "--show-secrets", "--format", "json"])
        .success();
    assert!(
        shown.stdout.contains("\"c3dvcmRmaXNo\""),
        "{}",
        shown.stdout
    );
    env.kdelta(&["render", "manifests", "--show-secrets"])
        .success()
        .stdout_has("password: c3dvcmRmaXNo");
}

// ---------------------------------------------------------------------------------------------
// check, list, render

#[test]
fn check_passes_on_valid_manifests_and_reports_yaml_errors_with_file_and_line() {
    let (env, _base) = base_repo();
    env.kdelta(&["check"])
        .success()
        .stdout_has("1 targets:")
        .stdout_has("0 errors");

    env.write(
        "manifests/bad.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata: [a\n",
    );
    let r = env
        .kdelta(&["check"])
        .code(1)
        .stdout_has("dir:manifests (error)")
        .stdout_has("error[yaml.parse] manifests/bad.yaml:6:1: ");
    insta::assert_snapshot!("check_yaml_error", r.stdout);
    let report = env.kdelta(&["check", "--format", "json"]).code(1).json();
    let f = &report["findings"][0];
    assert_eq!(
        (&f["rule"], &f["file"], &f["line"]),
        (
            &json!("yaml.parse"),
            &json!("manifests/bad.yaml"),
            &json!(6)
        )
    );

    // The committed revision is still fine: --rev reads it, not the work tree.
    env.kdelta(&["check", "--rev", "HEAD"]).success();
}

#[test]
fn check_staged_reads_the_index_for_pre_commit_hooks() {
    let (env, _base) = base_repo();
    env.write("manifests/web.yaml", "spec: [\n");
    env.git(&["add", "manifests/web.yaml"]);
    env.write("manifests/web.yaml", deployment(5));
    env.kdelta(&["check"]).success();
    env.kdelta(&["check", "--staged"])
        .code(1)
        .stdout_has("error[yaml.parse] manifests/web.yaml:2:1");
}

#[test]
fn the_pre_commit_hook_blocks_a_commit_with_an_error_finding() {
    let (env, _base) = base_repo();
    let hook = env.repo().join(".git/hooks/pre-commit");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/hooks/pre-commit"),
        &hook,
    )
    .unwrap();
    // The hook runs the `kdelta` on PATH: put the freshly built binary first.
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_kdelta"))
        .parent()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let commit = |message: &str| {
        let mut cmd = env.git_cmd(env.repo(), &["commit", "-q", "-m", message]);
        cmd.env("PATH", &path);
        cmd.output().expect("git commit runs")
    };

    env.write("manifests/web.yaml", deployment(3));
    env.git(&["add", "-A"]);
    let ok = commit("3 replicas");
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );

    env.write("manifests/web.yaml", "spec: [\n");
    env.git(&["add", "-A"]);
    let refused = commit("broken");
    // git sends a hook's stdout to its own stderr.
    let shown = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success(),
        "the hook let a broken file through"
    );
    assert!(
        shown.contains("error[yaml.parse] manifests/web.yaml:2:1"),
        "{shown}"
    );
}

#[test]
fn list_shows_every_discovered_target() {
    let env = TestEnv::new();
    env.write(
        ".kdelta.yaml",
        "directories: ['envs/*']\nexclude: ['apps/ignored']\n",
    )
    .write("envs/prod/cm.yaml", config_map("cm", "v"))
    .write("envs/dev/cm.yaml", config_map("cm", "v"))
    .write("apps/web/kustomization.yaml", "resources: []\n")
    .write("apps/ignored/kustomization.yaml", "resources: []\n")
    .write(
        "apps/component/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n",
    )
    .write(
        "charts/api/Chart.yaml",
        "apiVersion: v2\nname: api\nversion: 0.1.0\n",
    )
    // A subchart is part of its parent chart, not a target of its own.
    .write(
        "charts/api/charts/sub/Chart.yaml",
        "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
    )
    .write(
        "argocd/apps.yaml",
        "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: guestbook\n\
             ---\napiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: infra\n",
    );
    let r = env.kdelta(&["list"]).success();
    assert_eq!(
        r.stdout,
        "kustomize  kustomize:apps/web\n\
         helm       helm:charts/api\n\
         appset     appset:argocd/apps.yaml#guestbook\n\
         app        app:argocd/apps.yaml#infra\n\
         directory  dir:envs/dev\n\
         directory  dir:envs/prod\n"
    );
    let items: Value =
        serde_json::from_str(&env.kdelta(&["list", "--format", "json"]).success().stdout)
            .expect("list --format json prints JSON");
    assert_eq!(
        items[0],
        json!({"id": "kustomize:apps/web", "kind": "kustomize", "path": "apps/web"})
    );
    assert_eq!(items.as_array().unwrap().len(), 6);

    // include narrows the targets; globs match repo-relative paths (`*` stays in one component).
    let narrow = env.out("narrow.yaml");
    std::fs::write(
        &narrow,
        "include: ['envs/**', 'argocd/*.yaml']\nexclude: ['envs/dev']\ndirectories: ['envs/*']\n",
    )
    .unwrap();
    env.kdelta(&["list", "--config", narrow.to_str().unwrap()])
        .success()
        .stdout_has(
            "appset     appset:argocd/apps.yaml#guestbook\n\
             app        app:argocd/apps.yaml#infra\n\
             directory  dir:envs/prod\n",
        );

    // Engines that do not render yet are reported as notices, not errors and not dropped.
    env.kdelta(&["check"])
        .success()
        .stdout_has("notice[kustomize.not-rendered-yet] apps/web")
        .stdout_has("notice[helm.not-rendered-yet] charts/api")
        .stdout_has("notice[appset.not-rendered-yet] argocd/apps.yaml")
        .stdout_has("notice[app.not-rendered-yet] argocd/apps.yaml");
}

/// Manifests in the order a person might write them: several kinds per file, files named so
/// that their own order differs from kustomize's legacy kind order.
fn write_unordered_manifests(env: &TestEnv, dir: &str) {
    env.write(
        &format!("{dir}/a-workloads.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n  labels:\n    app: web\n\
         spec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n\
         \x20   spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n        args: [\"--port\", \"8080\"]\n\
         ---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: shop\n\
         spec:\n  ports:\n  - port: 80\n    targetPort: 8080\n  selector:\n    app: web\n",
    )
    .write(
        &format!("{dir}/b-config.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\n  namespace: shop\n\
         data:\n  enabled: \"true\"\n  mode: 'on'\n  note: |\n    first line\n    second line\n\
         ---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n\
         rules:\n- apiGroups: [\"\"]\n  resources: [\"pods\"]\n  verbs: [\"get\", \"list\"]\n",
    )
    .write(
        &format!("{dir}/c-namespace.yml"),
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n\
         ---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: gadget\n  namespace: shop\nspec:\n  size: 3\n\
         ---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: web\n  namespace: shop\n",
    );
}

/// What kustomize v5.5.0 prints for the manifests of [`write_unordered_manifests`]: produced by
/// `kubectl kustomize DIR` (Kustomize Version v5.5.0) on a kustomization.yaml listing the three
/// files as `resources:` — never typed by hand.
const LEGACY_ORDER_EXPECTED: &str = "\
apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: web
  namespace: shop
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: reader
rules:
- apiGroups:
  - \"\"
  resources:
  - pods
  verbs:
  - get
  - list
---
apiVersion: v1
data:
  enabled: \"true\"
  mode: \"on\"
  note: |
    first line
    second line
kind: ConfigMap
metadata:
  name: web-config
  namespace: shop
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
spec:
  ports:
  - port: 80
    targetPort: 8080
  selector:
    app: web
---
apiVersion: apps/v1
kind: Deployment
metadata:
  labels:
    app: web
  name: web
  namespace: shop
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - args:
        - --port
        - \"8080\"
        image: nginx:1.27
        name: web
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: gadget
  namespace: shop
spec:
  size: 3
";

#[test]
fn render_prints_a_directory_in_kustomize_legacy_order() {
    let env = TestEnv::new();
    write_unordered_manifests(&env, "site");
    let r = env.kdelta(&["render", "site"]).success();
    assert_eq!(r.stdout, LEGACY_ORDER_EXPECTED);

    // The same from git, from a subdirectory, and by target id.
    env.write(".kdelta.yaml", "directories: [site]\n");
    env.commit("site");
    env.remove("site");
    env.kdelta(&["render", "site"])
        .code(2)
        .stderr_has("site: no such file or directory");
    let from_git = env.kdelta(&["render", "--rev", "HEAD", "site"]).success();
    assert_eq!(from_git.stdout, LEGACY_ORDER_EXPECTED);
    env.git(&["checkout", "-q", "--", "site"]);
    let mut cmd = env.kdelta_cmd(&["render", "."]);
    cmd.current_dir(env.repo().join("site"));
    assert_eq!(run(cmd).success().stdout, LEGACY_ORDER_EXPECTED);
    let by_id = env.kdelta(&["render", "dir:site"]).success();
    assert_eq!(by_id.stdout, LEGACY_ORDER_EXPECTED);
}

#[test]
fn render_list_and_check_work_outside_any_git_repository() {
    let env = TestEnv::without_git();
    write_unordered_manifests(&env, "site");
    let r = env.kdelta(&["render", "site"]).success();
    assert_eq!(r.stdout, LEGACY_ORDER_EXPECTED);
    env.write(".kdelta.yaml", "directories: [site]\n");
    env.kdelta(&["list"])
        .success()
        .stdout_has("directory  dir:site\n");
    env.kdelta(&["check"]).success().stdout_has("1 targets:");
    // Comparing revisions needs git.
    env.kdelta(&["diff"])
        .code(2)
        .stderr_has("not a git repository");
    env.kdelta(&["check", "--rev", "HEAD"])
        .code(2)
        .stderr_has("not a git repository");
}

#[test]
fn kdelta_never_writes_into_the_repository() {
    let (env, base, head) = two_commit_repo();
    env.write("manifests/web.yaml", deployment(7));
    env.git(&["add", "-A"]);
    env.write("manifests/web.yaml", deployment(8));
    let status = env.git(&["status", "--porcelain=v1", "--untracked-files=all"]);
    let index = std::fs::read(env.repo().join(".git/index")).unwrap();
    for args in [
        &["diff", &base, &head][..],
        &["diff"],
        &["diff", "--staged"],
        &["check"],
        &["check", "--staged"],
        &["list"],
        &["render", "manifests"],
    ] {
        env.kdelta(args).success();
    }
    assert_eq!(
        env.git(&["status", "--porcelain=v1", "--untracked-files=all"]),
        status
    );
    assert_eq!(std::fs::read(env.repo().join(".git/index")).unwrap(), index);
}

// ---------------------------------------------------------------------------------------------
// Configuration and usage errors

#[test]
fn an_invalid_config_is_an_error_finding_with_its_line() {
    let (env, base) = base_repo();
    env.write(
        ".kdelta.yaml",
        "# targets\ndirectories: [manifests]\nbogus: 1\n",
    );
    env.kdelta(&["check"])
        .code(1)
        .stdout_has("error[config.invalid] .kdelta.yaml:3:1: unknown field `bogus`");
    let report = env.kdelta(&["check", "--format", "json"]).code(1).json();
    let f = &report["findings"][0];
    assert_eq!(
        (&f["rule"], &f["file"], &f["line"]),
        (&json!("config.invalid"), &json!(".kdelta.yaml"), &json!(3))
    );
    assert_valid_report(&report_schema(), &report);
    // The work tree's config governs a diff against it.
    env.kdelta(&["diff", &base])
        .code(1)
        .stdout_has(".kdelta.yaml:3:1");
    env.kdelta(&["list"])
        .code(1)
        .stderr_has("error[config.invalid] .kdelta.yaml:3:1");

    env.write(
        ".kdelta.yaml",
        "directories:\n- manifests\n- 'apps/[oops'\n",
    );
    env.kdelta(&["check"])
        .code(1)
        .stdout_has("error[config.invalid] .kdelta.yaml:3:")
        .stdout_has("invalid glob");
    env.write(".kdelta.yaml", "directories: [manifests\n");
    env.kdelta(&["check"])
        .code(1)
        .stdout_has("error[config.invalid] .kdelta.yaml:");

    // --config names a file outside the repository.
    let cfg = env.out("alt.yaml");
    std::fs::write(&cfg, "directories: [manifests]\n").unwrap();
    env.kdelta(&["check", "--config", cfg.to_str().unwrap()])
        .success()
        .stdout_has("1 targets:");
    env.kdelta(&[
        "check",
        "--config",
        env.out("missing.yaml").to_str().unwrap(),
    ])
    .code(1)
    .stdout_has("error[config.invalid]");
}

#[test]
fn usage_errors_exit_2() {
    let (env, _base) = base_repo();
    env.kdelta(&["frobnicate"]).code(2);
    env.kdelta(&["diff", "a", "b", "c"]).code(2);
    env.kdelta(&["diff", "HEAD", "HEAD", "--staged"]).code(2);
    env.kdelta(&["check", "--rev", "HEAD", "--staged"]).code(2);
    env.kdelta(&["diff", "--format", "yaml"]).code(2);
    env.kdelta(&["--help"])
        .success()
        .stdout_has("Usage: kdelta");
    env.kdelta(&["--version"]).success().stdout_has("kdelta ");
}

// ---------------------------------------------------------------------------------------------
// Hostile inputs: a clear message, exit 1 or 2, never a panic or a hang (the helper fails the
// test on either).

#[test]
fn a_binary_file_named_yaml_is_a_finding() {
    let (env, _base) = base_repo();
    let mut bytes = vec![0x7f, b'E', b'L', b'F', 0, 0, 0xff, 0xfe];
    bytes.extend((0u32..4096).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
    env.write("manifests/x.yaml", &bytes);
    env.kdelta(&["check"])
        .code(1)
        .stdout_has("error[yaml.parse] manifests/x.yaml")
        .stdout_has("not valid UTF-8");
    let base = env.git(&["rev-parse", "HEAD"]);
    let head = env.commit("binary");
    env.kdelta(&["diff", &base, &head])
        .code(1)
        .stdout_has("manifests/x.yaml");
    env.kdelta(&["render", "manifests"])
        .code(1)
        .stderr_has("manifests/x.yaml");
}

#[test]
fn a_50_mb_yaml_file_is_refused_quickly() {
    let (env, base) = base_repo();
    let mut big = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n");
    let value = "x".repeat(100);
    let mut i = 0u64;
    while big.len() < 50 * 1024 * 1024 {
        big.push_str(&format!("  k{i}: {value}\n"));
        i += 1;
    }
    env.write("manifests/big.yaml", &big);
    let started = std::time::Instant::now();
    env.kdelta(&["check"])
        .code(1)
        .stdout_has("error[source.too-large] manifests/big.yaml")
        .stdout_has("over the");
    let head = env.commit("big");
    env.kdelta(&["diff", &base, &head])
        .code(1)
        .stdout_has("source.too-large");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn a_billion_laughs_document_hits_the_alias_limit() {
    let (env, _base) = base_repo();
    let mut doc = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\ndata:\n  a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for w in names.windows(2) {
        let refs = vec![format!("*{}", w[0]); 9].join(",");
        doc.push_str(&format!("  {}: &{} [{refs}]\n", w[1], w[1]));
    }
    env.write("manifests/lol.yaml", doc);
    let started = std::time::Instant::now();
    env.kdelta(&["check"])
        .code(1)
        .stdout_has("error[yaml.limit] manifests/lol.yaml:");
    env.kdelta(&["render", "manifests"])
        .code(1)
        .stderr_has("yaml.limit");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn paths_outside_the_repository_are_refused() {
    let (env, _base) = base_repo();
    for arg in ["../../etc", "/etc", "manifests/../../../etc"] {
        let r = env
            .kdelta(&["render", arg])
            .code(2)
            .stderr_has("outside the repository");
        assert!(r.stdout.is_empty());
        assert!(!r.stderr.contains("prefix not found"), "{}", r.stderr);
    }
    let mut cmd = env.kdelta_cmd(&["render", "../../../../../../etc"]);
    cmd.current_dir(env.repo().join("manifests"));
    run(cmd).code(2).stderr_has("outside the repository");
}

#[test]
fn a_symlink_pointing_outside_the_repository_is_not_followed() {
    let (env, base) = base_repo();
    env.symlink("manifests/p.yaml", "/etc/passwd");
    let leak = |s: &str| s.contains("root:") || s.contains("/bin/");
    let check = env
        .kdelta(&["check"])
        .code(1)
        .stdout_has("error[source.outside-repository] manifests/p.yaml")
        .stdout_has("symbolic link points outside the repository");
    assert!(!leak(&check.stdout), "{}", check.stdout);
    let render = env.kdelta(&["render", "manifests"]).code(1);
    assert!(!leak(&render.stdout) && !leak(&render.stderr));
    let head = env.commit("link");
    let diff = env
        .kdelta(&["diff", &base, &head])
        .code(1)
        .stdout_has("source.outside-repository");
    assert!(!leak(&diff.stdout));
    env.kdelta(&["check", "--staged"])
        .code(1)
        .stdout_has("manifests/p.yaml");
    // A link to a directory outside is refused the same way.
    env.symlink("escape", "/etc");
    env.kdelta(&["render", "escape"]).code(2);
}
