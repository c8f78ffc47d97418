//! Report outputs: the JSON report against its schema, `--json`/`--junit` files, colors.

use super::*;

#[test]
fn json_report_is_documented_by_the_schema() {
    let env = TestEnv::new();
    env.write(".kdelta.yaml", "directories: ['envs/*']\n")
        .write(
            "envs/prod/app.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg-7f8t9k2h5m\ndata:\n  a: \"1\"\n\
             ---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n\
             spec:\n  replicas: 2\n  paused: true\n  selector:\n    matchLabels:\n      app: web\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx\n",
        )
        .write("envs/stable/ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: stable\n")
        .write("envs/old/svc.yaml", service("old"))
        .write("envs/secret/s.yaml", secret("aHVudGVyMg=="))
        .write("charts/api/Chart.yaml", "apiVersion: v2\nname: api\nversion: 0.1.0\n")
        .write(
            "argocd/apps.yaml",
            "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: guestbook\n",
        );
    write_kustomization(&env, "apps/web");
    let base = env.commit("base");
    env.write(
        "envs/prod/app.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg-b2c4d6f8g9\ndata:\n  a: \"2\"\n\
         ---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n\
         spec:\n  replicas: 3\n  strategy:\n    type: Recreate\n  selector:\n    matchLabels:\n      app: web\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx\n",
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

/// A base shared by 50 overlays (one namespace each): a change to the base is one grouped
/// change, not 51 (the base is a target too), in every format, and the Markdown names every
/// target within a limit far below the whole report.
#[test]
fn a_base_change_inherited_by_fifty_overlays_is_shown_once() {
    let env = TestEnv::new();
    let base_files = |image: &str, replicas: u32| {
        env.write("base/kustomization.yaml", "resources:\n- deploy.yaml\n")
            .write(
                "base/deploy.yaml",
                format!(
                    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: {replicas}\n  template:\n    spec:\n      containers:\n      - name: web\n        image: {image}\n        securityContext:\n          runAsNonRoot: true\n  selector:\n    matchLabels:\n      app: web\n"
                ),
            );
    };
    base_files("ghcr.io/example/web:v1", 2);
    for i in 0..50 {
        env.write(
            &format!("overlays/env{i:02}/kustomization.yaml"),
            format!("resources:\n- ../../base\nnamespace: env{i:02}\n"),
        );
    }
    let base = env.commit("fifty overlays");
    base_files("ghcr.io/example/web:v2", 3);
    let head = env.commit("web v2, three replicas");

    let text = env.kdelta(&["diff", &base, &head]).success().stdout;
    assert_eq!(
        text.matches("spec.replicas: 2 → 3").count(),
        1,
        "one grouped change:\n{text}"
    );
    assert!(
        text.contains("  ghcr.io/example/web  v1 → v2  (51 targets)\n"),
        "{text}"
    );
    assert!(
        text.contains("  ~ apps/v1/Deployment/*/web  in 51 targets: kustomize:base, kustomize:overlays/env00, kustomize:overlays/env01 and 48 more\n"),
        "{text}"
    );
    assert!(
        text.contains("kustomize:overlays/env49 (modified)\n  ~ apps/v1/Deployment/env49/web  (as in 51 targets, above)\n"),
        "{text}"
    );

    let stat = env
        .kdelta(&["diff", &base, &head, "--stat"])
        .success()
        .stdout;
    assert!(
        stat.contains(" kustomize:overlays/env07 | 1 modified (modified)\n"),
        "{stat}"
    );
    assert!(!stat.contains("spec.replicas"), "{stat}");

    let json = env
        .kdelta(&["diff", &base, &head, "--format", "json"])
        .success()
        .json();
    assert_valid_report(&report_schema(), &json);
    let groups = json["groups"].as_array().expect("groups");
    assert_eq!(groups.len(), 1, "{groups:#?}");
    assert_eq!(groups[0]["resource"], "apps/v1/Deployment/*/web");
    assert_eq!(groups[0]["occurrences"].as_array().map(Vec::len), Some(51));
    assert_eq!(
        json["images"],
        json!([{
            "image": "ghcr.io/example/web",
            "old": "ghcr.io/example/web:v1",
            "new": "ghcr.io/example/web:v2",
            "targets": std::iter::once("kustomize:base".to_string())
                .chain((0..50).map(|i| format!("kustomize:overlays/env{i:02}")))
                .collect::<Vec<_>>(),
            "resources": 51
        }])
    );
    // Every per-target change is still in the JSON.
    let changes: usize = json["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["changes"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(changes, 51);

    // A Markdown limit far below the whole report still names every overlay.
    let md = env
        .kdelta(&[
            "diff",
            &base,
            &head,
            "--format",
            "markdown",
            "--markdown-limit",
            "8000",
            "--full-report",
            "kdelta-report",
        ])
        .success()
        .stdout;
    assert!(md.len() <= 8000, "{}", md.len());
    assert!(md.contains("| `kustomize:base` | modified |"), "{md}");
    for i in 0..50 {
        assert!(
            md.contains(&format!("| `kustomize:overlays/env{i:02}` | modified |")),
            "env{i:02} not named:\n{md}"
        );
    }
    assert!(
        md.contains("| `ghcr.io/example/web` | v1 → v2 | 51 |"),
        "{md}"
    );
    assert!(
        md.contains("The whole report is in the artifact `kdelta-report`"),
        "{md}"
    );
    let whole = env
        .kdelta(&["diff", &base, &head, "--format", "markdown"])
        .success()
        .stdout;
    assert_eq!(
        whole.matches("`spec.replicas`: `2` → `3`").count(),
        1,
        "{whole}"
    );
}

#[test]
fn sarif_and_code_quality_files_hold_the_findings() {
    let env = TestEnv::new();
    env.write(".kdelta.yaml", "directories: [manifests]\n")
        .write("manifests/bad.yaml", "a: [\n");
    env.commit("bad");
    let (sarif, quality) = (env.out("kdelta.sarif"), env.out("gl-code-quality.json"));
    env.kdelta(&[
        "check",
        "--sarif",
        sarif.to_str().unwrap(),
        "--codequality",
        quality.to_str().unwrap(),
    ])
    .code(1);
    let sarif: Value = serde_json::from_str(&std::fs::read_to_string(sarif).unwrap()).unwrap();
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "yaml.parse");
    assert_eq!(result["level"], "error");
    assert_eq!(
        result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "manifests/bad.yaml"
    );
    let quality: Value = serde_json::from_str(&std::fs::read_to_string(quality).unwrap()).unwrap();
    assert_eq!(quality[0]["check_name"], "yaml.parse");
    assert_eq!(quality[0]["location"]["path"], "manifests/bad.yaml");
}

/// Four shards (`--shard i/4`), merged with `merge-reports`, make the report one unsharded
/// run makes; and a target's shard depends on its id alone.
#[test]
fn four_merged_shards_make_the_unsharded_report() {
    let env = TestEnv::new();
    let write = |version: &str| {
        for i in 0..16 {
            env.write(
                &format!("apps/app{i:02}/kustomization.yaml"),
                format!("resources:\n- cm.yaml\nnamespace: ns{i:02}\n"),
            )
            .write(
                &format!("apps/app{i:02}/cm.yaml"),
                config_map(
                    &format!("cfg{i:02}"),
                    if i % 3 == 0 { version } else { "same" },
                ),
            );
        }
    };
    write("1");
    env.write(
        "apps/broken/kustomization.yaml",
        "resources:\n- missing.yaml\n",
    );
    let base = env.commit("sixteen apps");
    write("2");
    env.write("apps/new/kustomization.yaml", "resources:\n- cm.yaml\n")
        .write("apps/new/cm.yaml", config_map("new", "1"));
    let head = env.commit("change every third app, add one");

    let whole = env
        .kdelta(&["diff", &base, &head, "--format", "json"])
        .code(1)
        .json();
    let mut shards = Vec::new();
    for i in 1..=4 {
        let out = env.out(&format!("shard{i}.json"));
        let shard = format!("{i}/4");
        env.kdelta(&[
            "diff",
            &base,
            &head,
            "--shard",
            &shard,
            "--json",
            out.to_str().unwrap(),
        ]);
        let report: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_valid_report(&report_schema(), &report);
        assert!(report["targets"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["position"].is_u64()));
        shards.push(out.to_str().unwrap().to_string());
    }
    let counts: Vec<usize> = shards
        .iter()
        .map(|s| {
            let r: Value = serde_json::from_str(&std::fs::read_to_string(s).unwrap()).unwrap();
            r["targets"].as_array().unwrap().len()
        })
        .collect();
    assert_eq!(counts.iter().sum::<usize>(), 18, "{counts:?}");
    assert!(counts.iter().all(|n| *n < 18), "{counts:?}");
    let mut args = vec!["merge-reports", "--format", "json"];
    args.extend(shards.iter().map(String::as_str));
    let merged = env.kdelta(&args).code(1).json();
    assert_eq!(merged, whole);
    // Every writer works from the merged report.
    let html = env.out("merged.html");
    let mut args = vec![
        "merge-reports",
        "--format",
        "markdown",
        "--html",
        html.to_str().unwrap(),
    ];
    args.extend(shards.iter().map(String::as_str));
    env.kdelta(&args)
        .code(1)
        .stdout_has("## kdelta: 7 targets changed, 1 error");
    assert!(std::fs::read_to_string(html)
        .unwrap()
        .contains("kustomize:apps/new"));
    // Reports of different runs are refused.
    let other = env.out("other.json");
    env.kdelta(&["diff", &base, &base, "--json", other.to_str().unwrap()]);
    env.kdelta(&["merge-reports", &shards[0], other.to_str().unwrap()])
        .code(2)
        .stderr_has("only shards of one run can be merged");
}
