//! `check`, `list` and `render`, the pre-commit hook, read-only operation, configuration
//! errors and usage errors.

use super::*;

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
fn check_staged_renders_only_what_the_staged_change_can_affect() {
    let env = TestEnv::new();
    env.write("apps/base/kustomization.yaml", "resources:\n- web.yaml\n")
        .write("apps/base/web.yaml", deployment(2))
        .write(
            "apps/broken/kustomization.yaml",
            "resources:\n- missing.yaml\n",
        )
        .write(
            "apps/prod/kustomization.yaml",
            "resources:\n- ../base\nnamespace: prod\n",
        );
    env.commit("one overlay broken at HEAD");
    env.write(
        "apps/prod/kustomization.yaml",
        "resources:\n- ../base\nnamespace: live\n",
    );
    env.git(&["add", "-A"]);
    let report = env
        .kdelta(&["check", "--staged", "--format", "json"])
        .success()
        .json();
    let targets: Vec<(&str, bool)> = report["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["id"].as_str().unwrap(), t["cached"] == true))
        .collect();
    assert_eq!(
        targets,
        [
            ("kustomize:apps/base", true),
            ("kustomize:apps/broken", true),
            ("kustomize:apps/prod", false),
        ],
        "{report:#}"
    );
    assert_eq!(
        (&report["summary"]["rendered"], &report["summary"]["cached"]),
        (&json!(1), &json!(2))
    );
    // --all renders everything, HEAD's error included.
    env.kdelta(&["check", "--staged", "--all"])
        .code(1)
        .stdout_has("apps/broken/kustomization.yaml");
    // A staged change to the shared base affects every overlay that includes it.
    env.write("apps/base/web.yaml", "spec: [\n");
    env.git(&["add", "-A"]);
    let report = env
        .kdelta(&["check", "--staged", "--format", "json"])
        .code(1)
        .json();
    assert_eq!(report["summary"]["rendered"], json!(2), "{report:#}");
    assert!(report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["file"] == "apps/base/web.yaml" && f["target"] == "kustomize:apps/prod"));
}

#[test]
fn exit_zero_reports_errors_without_failing_and_head_before_the_first_commit_is_empty() {
    let env = TestEnv::new();
    env.write(".kdelta.yaml", CONFIG)
        .write("manifests/web.yaml", deployment(2));
    env.git(&["add", "-A"]);
    // What the kdelta-diff hook runs on a repository's first commit: everything is added.
    env.kdelta(&["diff", "HEAD", "--staged", "--exit-zero"])
        .success()
        .stdout_has("dir:manifests (added)")
        .stdout_has("+ apps/v1/Deployment/prod/web");
    env.commit("first");

    env.write("manifests/web.yaml", "spec: [\n");
    env.git(&["add", "-A"]);
    for args in [
        &["check", "--staged"][..],
        &["diff", "HEAD", "--staged"],
        &["diff", "HEAD", "--staged", "--fail-on-diff"],
    ] {
        env.kdelta(args).code(1);
        let with_zero = [args, &["--exit-zero"]].concat();
        env.kdelta(&with_zero)
            .success()
            .stdout_has("error[yaml.parse] manifests/web.yaml:2:1");
    }
    // A command that cannot run still says so.
    env.kdelta(&["diff", "no-such-rev", "--exit-zero"]).code(2);
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
    write_kustomization(&env, "apps/web");
    write_kustomization(&env, "apps/ignored");
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

    // An ApplicationSet without generators makes no Application; an Application without a
    // source renders into itself.
    env.kdelta(&["check"]).success();
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

#[test]
fn render_at_the_root_skips_dotfiles_and_empty_resource_lists_are_valid() {
    let env = TestEnv::new();
    env.write(".kdelta.yaml", "directories: [manifests]\n")
        .write(".pre-commit-config.yaml", "repos: []\n")
        .write(
            "cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: root\n",
        )
        .write("k/kustomization.yaml", "resources: []\n");
    env.commit("root");
    env.kdelta(&["render", "."])
        .success()
        .stdout_has("name: root");
    // kustomize accepts a kustomization that only lists no resources.
    let out = env.kdelta(&["render", "k"]).success();
    assert_eq!(out.stdout, "");
}

#[test]
fn config_schema_prints_the_json_schema_of_the_config_file() {
    let env = TestEnv::new();
    let schema: Value = serde_json::from_str(&env.kdelta(&["config", "schema"]).success().stdout)
        .expect("the schema is JSON");
    assert_eq!(schema["title"], ".kdelta.yaml");
    assert!(schema["properties"]["argocd"]["properties"]["tracking"].is_object());
}

#[test]
fn init_writes_a_starter_config_that_check_accepts_and_never_overwrites_one() {
    let env = TestEnv::new();
    write_kustomization(&env, "apps/web");
    write_kustomization(&env, "apps/web/testdata/broken");
    env.write("apps/web/testdata/broken/cm.yaml", "data: [\n")
        .write("clusters/eu/crds/crd.yaml", config_map("crd", "1"));
    // The broken fixture fails a check without configuration.
    env.kdelta(&["check"]).code(1);

    let printed = env.kdelta(&["init", "--stdout"]).success().stdout;
    assert!(!env.repo().join(".kdelta.yaml").exists());
    env.kdelta(&["init"]).success().stderr_has("kdelta: wrote ");
    let written = std::fs::read_to_string(env.repo().join(".kdelta.yaml")).unwrap();
    assert_eq!(written, printed);
    assert!(written.contains("#   kustomize:apps/web\n"), "{written}");
    assert!(
        written.contains("#   - clusters/eu/crds    # 1 file, 1 object\n"),
        "{written}"
    );
    // With the starter, the fixture is excluded and the check passes.
    env.kdelta(&["check"]).success().stdout_has("1 targets:");
    env.kdelta(&["list"])
        .success()
        .stdout_has("kustomize  kustomize:apps/web\n");

    env.write(".kdelta.yaml", "include: [apps/**]\n");
    env.kdelta(&["init"])
        .code(2)
        .stderr_has("already exists; pass --force");
    assert_eq!(
        std::fs::read_to_string(env.repo().join(".kdelta.yaml")).unwrap(),
        "include: [apps/**]\n"
    );
    env.kdelta(&["init", "--force"]).success();
    assert_eq!(
        std::fs::read_to_string(env.repo().join(".kdelta.yaml")).unwrap(),
        printed
    );
}

#[test]
fn every_option_of_every_command_is_documented() {
    let env = TestEnv::new();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs = std::fs::read_to_string(root.join("README.md")).unwrap();
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            docs.push_str(&std::fs::read_to_string(path).unwrap());
        }
    }
    let commands = [
        "diff",
        "check",
        "render",
        "list",
        "tree",
        "report",
        "explain",
        "init",
        "merge-reports",
        "fetch",
    ];
    let mut missing = Vec::new();
    for command in commands {
        let help = env.kdelta(&[command, "--help"]).success().stdout;
        for line in help.lines() {
            let Some(start) = line.find("--") else {
                continue;
            };
            // Option lines start with the option (`  -f, --values <FILE>`).
            if !line.trim_start().starts_with('-') {
                continue;
            }
            let option: String = line[start..]
                .chars()
                .take_while(|c| *c == '-' || c.is_ascii_alphanumeric())
                .collect();
            if option != "--help" && !docs.contains(&format!("`{option}")) {
                missing.push(format!("{command} {option}"));
            }
        }
    }
    missing.sort();
    missing.dedup();
    assert!(missing.is_empty(), "undocumented options: {missing:?}");
}
