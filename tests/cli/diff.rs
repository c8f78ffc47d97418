//! `kdelta diff`: revisions (two commits, the default merge base, the index, tags and
//! relative specs), `--fail-on-diff`, unknown revisions and shallow clones.

use super::*;

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
fn paths_after_a_double_dash_select_the_targets_under_them() {
    let env = TestEnv::new();
    env.write(".kdelta.yaml", "directories: [team-a/web, team-b/api]\n")
        .write("team-a/web/web.yaml", deployment(2))
        .write("team-b/api/cm.yaml", config_map("api", "1"));
    let base = env.commit("base");
    env.write("team-a/web/web.yaml", deployment(3))
        .write("team-b/api/cm.yaml", config_map("api", "2"));

    let only_a = env.kdelta(&["diff", &base, "--", "team-a"]).success();
    assert!(
        only_a.stdout.contains("dir:team-a/web (modified)"),
        "{}",
        only_a.stdout
    );
    assert!(!only_a.stdout.contains("team-b"), "{}", only_a.stdout);
    // Relative to the directory kdelta runs in, as git's pathspecs are.
    let from_b = env
        .kdelta(&["-C", "team-b", "diff", &base, "--", "."])
        .success();
    assert!(
        from_b.stdout.contains("dir:team-b/api (modified)"),
        "{}",
        from_b.stdout
    );
    assert!(!from_b.stdout.contains("team-a"), "{}", from_b.stdout);
    env.kdelta(&["check", "--", "team-b/api"])
        .success()
        .stdout_has("1 targets:");
    env.kdelta(&["diff", &base, "--", "../elsewhere"]).code(2);
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

#[test]
fn an_error_fixed_at_head_does_not_fail_the_diff() {
    let (env, _) = base_repo();
    env.write("manifests/web.yaml", "spec: [\n");
    let broken = env.commit("break it");
    env.write("manifests/web.yaml", deployment(2));
    let fixed = env.commit("fix it");
    let r = env
        .kdelta(&["diff", &broken, &fixed])
        .success()
        .stdout_has("error[yaml.parse] (base) manifests/web.yaml:2:1");
    assert!(r.stdout.contains("0 errors"), "{}", r.stdout);
    let report = env
        .kdelta(&["diff", &broken, &fixed, "--format", "json"])
        .success()
        .json();
    assert_eq!(report["findings"][0]["revision"], "base");
    assert_eq!(report["summary"]["errors"], 0);
    // The other way round, the head's error fails it.
    env.kdelta(&["diff", &fixed, &broken])
        .code(1)
        .stdout_has("dir:manifests (error)");
}

#[test]
fn dash_c_runs_as_if_started_in_the_directory() {
    let (env, base, head) = two_commit_repo();
    let mut cmd = env.kdelta_cmd(&["-C", "repo/manifests", "diff", &base, &head]);
    cmd.current_dir(env.root());
    run(cmd).success().stdout_has("spec.replicas: 2 → 3");
    env.kdelta(&["-C", "no/such/dir", "list"])
        .code(2)
        .stderr_has("no/such/dir");
}

#[test]
fn moves_between_namespaces_and_targets_are_one_change_and_ignored_fields_are_hidden() {
    let env = TestEnv::new();
    let cm = |ns: &str, v: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n  namespace: {ns}\n  annotations:\n    checksum/config: \"{v}\"\ndata:\n  k: v\n")
    };
    env.write(".kdelta.yaml", "directories: [one, two]\nignore:\n- fields: ['metadata.annotations[\"checksum/*\"]']\n")
        .write("one/cm.yaml", cm("a", "1"))
        .write("one/other.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n  namespace: a\n  annotations:\n    checksum/config: \"1\"\n")
        .write("two/keep.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep\n");
    let base = env.commit("base");
    // `shared` moves to target two and namespace b; `other` only changes an ignored annotation.
    env.remove("one/cm.yaml")
        .write("two/cm.yaml", cm("b", "1"))
        .write("one/other.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n  namespace: a\n  annotations:\n    checksum/config: \"2\"\n");
    let head = env.commit("move");
    let out = env
        .kdelta(&["diff", &base, &head, "--format", "json"])
        .success();
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let targets = report["targets"].as_array().unwrap();
    let two = targets.iter().find(|t| t["id"] == "dir:two").unwrap();
    let change = &two["changes"][0];
    assert_eq!(change["change"], "renamed", "{}", out.stdout);
    assert_eq!(change["from"], "core/v1/ConfigMap/a/shared");
    assert_eq!(change["from_target"], "dir:one");
    assert_eq!(change["resource"], "core/v1/ConfigMap/b/shared");
    let one = targets.iter().find(|t| t["id"] == "dir:one").unwrap();
    // The removal became the move, and `other` only changed an ignored field.
    assert_eq!(one["status"], "unchanged", "{}", out.stdout);
}

#[test]
fn changed_only_renders_just_the_targets_a_change_can_affect() {
    let env = TestEnv::new();
    let cm = |name: &str, v: &str| config_map(name, v);
    env.write(".kdelta.yaml", "directories: [manifests]\n")
        .write("base/kustomization.yaml", "resources:\n- cm.yaml\n")
        .write("base/cm.yaml", cm("base", "1"))
        .write("prod/kustomization.yaml", "resources:\n- ../base\n")
        .symlink("manifests/shared.yaml", "../shared/cm.yaml")
        .write("shared/cm.yaml", cm("shared", "1"))
        .write("other/kustomization.yaml", "resources:\n- cm.yaml\n")
        .write("other/cm.yaml", cm("other", "1"));
    let base = env.commit("three kustomizations");

    // A change in the base: base and prod are rendered, other is not.
    env.write("base/cm.yaml", cm("base", "2"));
    let head = env.commit("base 2");
    let full = env
        .kdelta(&["diff", &base, &head, "--format", "json"])
        .success()
        .json();
    let only = env
        .kdelta(&["diff", &base, &head, "--changed-only", "--format", "json"])
        .success()
        .json();
    // The same targets, statuses and defining files, rendered or not.
    let statuses = |r: &Value| -> Vec<(String, String, String)> {
        r["targets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t["id"].as_str().unwrap().into(),
                    t["status"].as_str().unwrap().into(),
                    t["file"].as_str().unwrap().into(),
                )
            })
            .collect()
    };
    assert_eq!(statuses(&full), statuses(&only));
    // base and prod at both revisions; other and the manifests not at all.
    assert_eq!(only["summary"]["rendered"], 4, "{only}");
    assert_eq!(only["summary"]["cached"], 2, "{only}");

    // A change reached only through a symbolic link still counts.
    env.write("shared/cm.yaml", cm("shared", "2"));
    let linked = env.commit("shared 2");
    let r = env
        .kdelta(&["diff", &head, &linked, "--changed-only", "--format", "json"])
        .success()
        .json();
    assert_eq!(target_in(&r, "dir:manifests")["status"], "modified", "{r}");
    assert_eq!(r["summary"]["rendered"], 2, "{r}");
}
