//! kdelta's own Argo CD cases (`testdata/argocd/NN-name/`, see its README): what an
//! Application deploys, as `kdelta render TARGET` prints it after the Application itself,
//! must be `expected.yaml` — the output of the reference tool (`kubectl kustomize`, `helm
//! template`) run with Argo CD's arguments — document by document; or the render fails with
//! every line of `expected-error.txt` in its stderr.

#[path = "util/fixtures.rs"]
mod fixtures;

use fixtures::{cases, documents, field, mismatch, run_cases};
use serde_json::{json, Value};
use std::process::Command;

#[test]
fn argocd_fixtures_match_the_reference_tools() {
    let cases = cases("argocd");
    assert!(cases.len() >= 13, "cases missing from testdata/argocd");
    run_cases(&cases, |name, stdout, want| {
        let mut got = documents(stdout, "kdelta's output");
        // Everything but the Application itself.
        let app = got.remove(0);
        assert_eq!(app["kind"], "Application", "{name}: the first document");
        mismatch(&got, &documents(want, "expected.yaml"))
    });
}

/// kdelta's ApplicationSet cases (`testdata/argocd/appset/NN-name/`): `kdelta render TARGET`
/// of an ApplicationSet must print the Applications of `expected.yaml`, which are transcribed
/// from the Argo CD test that `case.yaml`'s `source:` names (there is no offline reference
/// binary), document by document as data; or fail with every line of `expected-error.txt`.
#[test]
fn appset_fixtures_match_argo_cds_own_tests() {
    let cases = cases("argocd/appset");
    assert!(
        cases.len() >= 30,
        "cases missing from testdata/argocd/appset"
    );
    for case in &cases {
        let text = std::fs::read_to_string(case.join("case.yaml")).expect("case.yaml");
        assert!(
            field(&text, "source").is_some(),
            "{}: case.yaml names its source",
            case.display()
        );
    }
    run_cases(&cases, |_, stdout, want| {
        mismatch(
            &documents(stdout, "kdelta's output"),
            &documents(want, "expected.yaml"),
        )
    });
}

/// `kdelta check --format json` in a directory holding `files`: the report.
fn check_report(files: &[(&str, &str)]) -> Value {
    let work = tempfile::tempdir().expect("tempdir");
    for (path, text) in files {
        let p = work.path().join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_kdelta"))
        .args(["check", "--format", "json"])
        .current_dir(work.path())
        .env_remove("GITHUB_ACTIONS")
        .output()
        .expect("kdelta runs");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    report
}

const REPO_URLS: &str = "repoURLs: [https://git.example.com/gitops.git]\n";

fn app(name: &str, source_extra: &str) -> String {
    format!(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: {name}, namespace: argocd}}\nspec:\n  project: default\n  source:\n    repoURL: https://git.example.com/gitops.git\n    path: apps/{name}\n{source_extra}  destination: {{server: https://kubernetes.default.svc, namespace: {name}}}\n"
    )
}

fn rules_of(findings: &[Value]) -> Vec<String> {
    findings
        .iter()
        .map(|f| {
            format!(
                "{} {}",
                f["rule"].as_str().unwrap_or(""),
                f["message"].as_str().unwrap_or("")
            )
        })
        .collect()
}

#[test]
fn plugins_kdelta_cannot_render_say_why_and_leave_the_application_incomplete() {
    let unknown_name = app("a", "    plugin: {name: tanka}\n");
    let unknown_tool = app("b", "    plugin: {name: jsonnet-ish}\n");
    let filter = app("c", "    plugin: {name: kustomize-yq}\n");
    let cmp = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cmp-cm}\ndata:\n  a.yaml: |\n    kind: ConfigManagementPlugin\n    metadata: {name: jsonnet-ish}\n    spec:\n      generate: {command: [sh, -c, 'tk show environments/default']}\n  b.yaml: |\n    kind: ConfigManagementPlugin\n    metadata: {name: kustomize-yq}\n    spec:\n      generate: {command: [sh, -c, 'kustomize build . | yq e .']}\n";
    let cm = "kind: ConfigMap\napiVersion: v1\nmetadata: {name: cm, namespace: x}\ndata: {a: b}\n";
    let report = check_report(&[
        (".kdelta.yaml", REPO_URLS),
        ("argocd/a.yaml", &unknown_name),
        ("argocd/b.yaml", &unknown_tool),
        ("argocd/c.yaml", &filter),
        ("argocd/cmp.yaml", cmp),
        ("apps/a/cm.yaml", cm),
        ("apps/b/cm.yaml", cm),
        ("apps/c/kustomization.yaml", "resources: [cm.yaml]\n"),
        ("apps/c/cm.yaml", cm),
    ]);
    let findings = report["findings"].as_array().cloned().unwrap_or_default();
    // The coverage line: every Application incomplete, for one reason, each saying why.
    assert_eq!(
        report["summary"]["applications"],
        serde_json::json!({"complete": 0, "incomplete": 3, "reasons": {"config management plugin": 3}}),
        "{report:#}"
    );
    for t in report["targets"].as_array().into_iter().flatten() {
        if t["kind"] == "app" {
            assert!(
                t["incomplete_reason"]
                    .as_str()
                    .is_some_and(|r| r.contains("plugin")),
                "{t:#}"
            );
        }
    }
    let notices: Vec<&Value> = findings
        .iter()
        .filter(|f| f["rule"] == "app.source.not-rendered")
        .collect();
    let messages = rules_of(&findings);
    let has = |file: &str, text: &str| {
        notices.iter().any(|f| {
            f["file"] == file
                && f["incomplete"] == true
                && f["message"].as_str().unwrap_or_default().contains(text)
        })
    };
    assert!(
        has(
            "argocd/a.yaml",
            "plugin tanka, which neither the repository"
        ),
        "{messages:#?}"
    );
    assert!(
        has("argocd/b.yaml", "does not know the command `tk`"),
        "{messages:#?}"
    );
    assert!(has("argocd/c.yaml", "through `yq e .`"), "{messages:#?}");
    let help = notices
        .iter()
        .find(|f| f["file"] == "argocd/a.yaml")
        .and_then(|f| f["help"].as_str())
        .unwrap_or_default();
    assert!(help.contains("argocd.plugins.tanka"), "{help}");
}

#[test]
fn argocd_cm_tracking_and_exclusions_apply_to_every_application() {
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm, namespace: argocd}\ndata:\n  application.resourceTrackingMethod: label\n  application.instanceLabelKey: example.com/app\n  resource.exclusions: |\n    - apiGroups: [cilium.io]\n      kinds: [CiliumIdentity]\n";
    let manifests = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n---\napiVersion: cilium.io/v2\nkind: CiliumIdentity\nmetadata: {name: '1234'}\n";
    let work = tempfile::tempdir().expect("tempdir");
    for (path, text) in [
        (".kdelta.yaml", REPO_URLS.to_string()),
        ("argocd/argocd-cm.yaml", cm.to_string()),
        ("argocd/web.yaml", app("web", "")),
        ("apps/web/all.yaml", manifests.to_string()),
    ] {
        let p = work.path().join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_kdelta"))
        .args(["render", "--allow-incomplete", "app:argocd/web.yaml#web"])
        .current_dir(work.path())
        .output()
        .expect("kdelta runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let docs = documents(&stdout, "kdelta's output");
    // The Application, then the ConfigMap only: the CiliumIdentity is excluded.
    assert_eq!(docs.len(), 2, "{stdout}\n{stderr}");
    assert_eq!(
        docs[1]["metadata"]["labels"]["example.com/app"], "web",
        "{stdout}"
    );
    assert!(docs[1]["metadata"]["annotations"].is_null(), "{stdout}");
    assert!(
        stderr.contains("app.resource.excluded")
            && stderr.contains("cilium.io/CiliumIdentity 1234"),
        "{stderr}"
    );
}

#[test]
fn run_plugins_runs_a_command_kdelta_cannot_render_in_a_checkout_with_argo_cds_environment() {
    let cmp = r#"apiVersion: v1
kind: ConfigMap
metadata: {name: argocd-cmp-cm}
data:
  plugin.yaml: |
    kind: ConfigManagementPlugin
    metadata: {name: echo}
    spec:
      init:
        command: [sh, -c, 'test -f ../shared/base.txt && cp ../shared/base.txt copied.txt']
      generate:
        command: [sh, -c]
        args: ['printf "kind: ConfigMap\napiVersion: v1\nmetadata: {name: %s, namespace: %s}\ndata: {tier: %s, from: %s}\n" "$ARGOCD_APP_NAME" "$ARGOCD_APP_NAMESPACE" "$ARGOCD_ENV_TIER" "$(cat copied.txt)"']
  broken.yaml: |
    kind: ConfigManagementPlugin
    metadata: {name: broken}
    spec:
      generate: {command: [sh, -c, 'echo oops >&2; exit 3']}
"#;
    let work = tempfile::tempdir().expect("tempdir");
    for (path, text) in [
        (
            ".kdelta.yaml",
            format!("{REPO_URLS}argocd: {{tracking: none}}\n"),
        ),
        ("argocd/cmp.yaml", cmp.to_string()),
        (
            "argocd/web.yaml",
            app(
                "web",
                "    plugin:\n      name: echo\n      env: [{name: TIER, value: gold}]\n",
            ),
        ),
        (
            "argocd/bad.yaml",
            app("bad", "    plugin: {name: broken}\n"),
        ),
        ("apps/web/README", "x".to_string()),
        ("apps/bad/README", "x".to_string()),
        ("apps/shared/base.txt", "base".to_string()),
    ] {
        let p = work.path().join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
    let render = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_kdelta"))
            .args(args)
            .current_dir(work.path())
            .output()
            .expect("kdelta runs");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    // Without the flag nothing runs: the Application is incomplete and says how to run it.
    let (code, stdout, stderr) = render(&["render", "app:argocd/web.yaml#web"]);
    assert_ne!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stderr.contains("--run-plugins"), "{stderr}");
    assert!(!stdout.contains("tier"), "{stdout}");
    let (code, stdout, stderr) = render(&["render", "--run-plugins", "app:argocd/web.yaml#web"]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let docs = documents(&stdout, "kdelta's output");
    assert_eq!(docs.len(), 2, "{stdout}");
    assert_eq!(
        docs[1],
        serde_json::json!({"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "web", "namespace": "web"}, "data": {"tier": "gold", "from": "base"}})
    );
    let (code, _, stderr) = render(&["render", "--run-plugins", "app:argocd/bad.yaml#bad"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("app.plugin.failed")
            && stderr.contains("exit status: 3")
            && stderr.contains("oops"),
        "{stderr}"
    );
}

#[test]
fn helm_values_file_schemes_of_argocd_cm_say_which_urls_a_value_file_may_use() {
    let chart = "apiVersion: v2\nname: web\nversion: 0.1.0\n";
    let template = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n";
    let web = app(
        "web",
        "    helm:\n      valueFiles: [secrets://values-secret.yaml]\n",
    );
    let files = |cm: Option<&str>| {
        let mut f = vec![
            (".kdelta.yaml", REPO_URLS.to_string()),
            ("argocd/web.yaml", web.clone()),
            ("apps/web/Chart.yaml", chart.to_string()),
            ("apps/web/templates/cm.yaml", template.to_string()),
        ];
        if let Some(cm) = cm {
            f.push(("argocd/argocd-cm.yaml", cm.to_string()));
        }
        f
    };
    let findings = |f: Vec<(&str, String)>| -> Vec<String> {
        let borrowed: Vec<(&str, &str)> = f.iter().map(|(p, t)| (*p, t.as_str())).collect();
        rules_of(
            check_report(&borrowed)["findings"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default(),
        )
    };
    let refused = findings(files(None));
    assert!(
        refused.iter().any(|f| f.starts_with("helm.values")
            && f.contains("the URL scheme 'secrets' is not allowed")),
        "{refused:#?}"
    );
    let allowed = findings(files(Some(
        "kind: ConfigMap\nmetadata: {name: argocd-cm}\ndata:\n  helm.valuesFileSchemes: secrets, https\n",
    )));
    assert!(
        allowed.iter().all(|f| !f.contains("is not allowed"))
            && allowed
                .iter()
                .any(|f| f.starts_with("app.source.not-rendered")
                    && f.contains("secrets://values-secret.yaml")),
        "{allowed:#?}"
    );
}

/// A `kustomize edit` that the kustomization refuses (a label it has already, without
/// `forceCommonLabels`) is reported at that label in the kustomization file (it was the
/// Application's file); Argo CD's message is kept.
#[test]
fn a_kustomize_edit_refused_by_the_kustomization_points_at_it() {
    let report = check_report(&[
        (".kdelta.yaml", REPO_URLS),
        (
            "argocd/web.yaml",
            &app("web", "    kustomize:\n      commonLabels: {team: b}\n"),
        ),
        (
            "apps/web/kustomization.yaml",
            "resources:\n- cm.yaml\ncommonLabels:\n  team: a\n",
        ),
        (
            "apps/web/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n",
        ),
    ]);
    let f = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == "app.source.invalid")
        .unwrap_or_else(|| panic!("no app.source.invalid finding: {report:#}"));
    assert_eq!(
        f["message"],
        "Application web: kustomize edit add label: label team already in kustomization file. Use --force to override.",
        "{f}"
    );
    assert_eq!(
        (&f["file"], &f["line"]),
        (&json!("apps/web/kustomization.yaml"), &json!(4)),
        "{f}"
    );
}
