//! Kustomize targets end to end: generated names renamed by content hash, exec plugins that run
//! only when enabled, replacement failures as findings at the replacement entry.

use super::*;
use std::os::unix::fs::PermissionsExt;

#[test]
fn a_generated_configmap_whose_hash_changes_is_one_renamed_resource() {
    let env = TestEnv::new();
    env.write(
        "app/kustomization.yaml",
        "configMapGenerator:\n- name: settings\n  literals:\n  - MODE=a\nsecretGenerator:\n- name: token\n  literals:\n  - value=first-secret-value\nresources:\n- pod.yaml\n",
    )
    .write(
        "app/pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: busybox\n    envFrom:\n    - configMapRef:\n        name: settings\n",
    );
    let base = env.commit("v1");
    env.write(
        "app/kustomization.yaml",
        "configMapGenerator:\n- name: settings\n  literals:\n  - MODE=b\nsecretGenerator:\n- name: token\n  literals:\n  - value=second-secret-value\nresources:\n- pod.yaml\n",
    );
    let head = env.commit("v2");
    let out = env
        .kdelta(&["diff", &base, &head, "--format", "json"])
        .success();
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let changes = report["targets"][0]["changes"].as_array().unwrap();
    let kinds: Vec<(&str, &str)> = changes
        .iter()
        .map(|c| {
            (
                c["resource"].as_str().unwrap(),
                c["change"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(
        kinds
            .iter()
            .any(|(r, c)| r.starts_with("core/v1/ConfigMap/_/settings-") && *c == "renamed"),
        "{kinds:?}"
    );
    assert!(
        kinds.iter().all(|(_, c)| *c != "added" && *c != "removed"),
        "{kinds:?}"
    );
    let cm = changes
        .iter()
        .find(|c| c["resource"].as_str().unwrap().contains("ConfigMap"))
        .unwrap();
    assert_eq!(
        cm["fields"][0],
        json!({"path": "data.MODE", "old": "a", "new": "b"})
    );
    for secret in [
        "first-secret-value",
        "second-secret-value",
        "Zmlyc3Qtc2VjcmV0LXZhbHVl",
    ] {
        assert!(!out.stdout.contains(secret), "{}", out.stdout);
    }
}

fn install_plugin(env: &TestEnv, script: &str) {
    let dir = env
        .root()
        .join("home/.config/kustomize/plugin/example.com/v1/greeter");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("Greeter");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn exec_plugins_run_only_when_enabled() {
    let env = TestEnv::new();
    install_plugin(
        &env,
        "#!/bin/sh\n# $1 is the config file\nname=$(sed -n 's/^  name: //p' \"$1\")\ncat <<EOF\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: $name\n  annotations:\n    kustomize.config.k8s.io/needs-hash: \"true\"\ndata:\n  greeting: hello\nEOF\n",
    );
    env.write("app/kustomization.yaml", "generators:\n- greeter.yaml\n")
        .write(
            "app/greeter.yaml",
            "apiVersion: example.com/v1\nkind: Greeter\nmetadata:\n  name: greetings\n",
        );
    env.commit("plugin");
    let denied = env.kdelta(&["render", "app"]).code(1);
    assert!(
        denied.stderr.contains("kustomize.plugin.exec-disabled"),
        "{}",
        denied.stderr
    );
    assert!(denied.stderr.contains("Greeter"), "{}", denied.stderr);
    assert!(
        denied.stderr.contains("--enable-exec-plugins"),
        "{}",
        denied.stderr
    );
    let allowed = env
        .kdelta(&["render", "--enable-exec-plugins", "app"])
        .success();
    assert!(
        allowed.stdout.contains("greeting: hello"),
        "{}",
        allowed.stdout
    );
    // The plugin asked for a hash suffix.
    assert!(
        allowed.stdout.contains("name: greetings-"),
        "{}",
        allowed.stdout
    );
}

#[test]
fn exec_transformers_get_the_resources_on_stdin() {
    let env = TestEnv::new();
    install_plugin(
        &env,
        "#!/bin/sh\nsed 's/image: busybox/image: busybox:1.36/'\n",
    );
    env.write("app/kustomization.yaml", "resources:\n- pod.yaml\ntransformers:\n- greeter.yaml\n")
        .write("app/greeter.yaml", "apiVersion: example.com/v1\nkind: Greeter\nmetadata:\n  name: pin\n")
        .write(
            "app/pod.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: busybox\n",
        );
    env.commit("transformer");
    let out = env
        .kdelta(&["render", "--enable-exec-plugins", "app"])
        .success();
    assert!(out.stdout.contains("image: busybox:1.36"), "{}", out.stdout);
}

/// A replacement whose target field is missing fails the head revision: the finding names the
/// rule, the kustomization and the line of the replacement entry, and the resource it was applied
/// to — the same in text, JSON and GitHub annotation output.
#[test]
fn replacement_failures_are_findings_at_the_replacement_entry() {
    let env = TestEnv::new();
    let deploy = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: nginx\n  selector:\n    matchLabels:\n      app: web\n";
    let replacement = |field: &str| {
        format!(
            "resources:\n- deploy.yaml\nreplacements:\n- source:\n    kind: Deployment\n    fieldPath: metadata.name\n  targets:\n  - select:\n      kind: Deployment\n    fieldPaths:\n    - {field}\n"
        )
    };
    env.write("app/deploy.yaml", deploy).write(
        "app/kustomization.yaml",
        replacement("spec.template.spec.containers.[name=app].name"),
    );
    let base = env.commit("works");
    env.write(
        "app/kustomization.yaml",
        format!(
            "# the field below does not exist\n{}",
            replacement("spec.nothere.value")
        ),
    );
    let head = env.commit("breaks");

    let json = env
        .kdelta(&["diff", &base, &head, "--format", "json"])
        .code(1);
    let report = json.json();
    let finding = &report["findings"][0];
    assert_eq!(finding["rule"], "kustomize.replacement.target-not-found");
    assert_eq!(finding["file"], "app/kustomization.yaml");
    assert_eq!(finding["line"], 5, "{finding}");
    assert_eq!(finding["revision"], "head", "{finding}");
    let message = finding["message"].as_str().unwrap();
    assert!(message.contains("spec.nothere.value"), "{message}");
    assert!(message.contains("Deployment.v1.apps/web"), "{message}");
    assert_eq!(report["targets"][0]["status"], "error");

    let text = env
        .kdelta(&["diff", &base, &head, "--color", "never"])
        .code(1);
    assert!(
        text.stdout
            .contains("error[kustomize.replacement.target-not-found] app/kustomization.yaml:5:3"),
        "{}",
        text.stdout
    );

    let github = env
        .kdelta(&["diff", &base, &head, "--format", "github"])
        .code(1);
    assert!(
        github.stdout.contains(
            "::error file=app/kustomization.yaml,line=5,col=3,title=kustomize.replacement.target-not-found::"
        ),
        "{}",
        github.stdout
    );
}

/// A replacement whose source selects nothing is its own rule, pointing at the entry too.
#[test]
fn a_replacement_source_that_matches_nothing_is_reported() {
    let env = TestEnv::new();
    env.write(
        "app/kustomization.yaml",
        "resources:\n- cm.yaml\nreplacements:\n- source:\n    kind: ConfigMap\n    name: absent\n    fieldPath: data.host\n  targets:\n  - select:\n      kind: ConfigMap\n    fieldPaths:\n    - data.other\n",
    )
    .write(
        "app/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: present\ndata:\n  host: example.org\n",
    );
    env.commit("absent source");
    let out = env.kdelta(&["check", "--format", "json"]).code(1);
    let finding = &out.json()["findings"][0];
    assert_eq!(finding["rule"], "kustomize.replacement.source-not-found");
    assert_eq!(finding["line"], 4, "{finding}");
    assert!(
        finding["message"].as_str().unwrap().contains("absent"),
        "{finding}"
    );
}

#[test]
fn a_replacement_target_that_kustomize_versions_select_differently_is_a_warning() {
    // kubeflow v1.9/v1.10 common/user-namespace/base: `name: $(profile-name)` is the literal
    // name of the object in v5.5.0 and an unmatchable regex in v5.8.
    let env = TestEnv::new();
    env.write(
        "app/kustomization.yaml",
        "resources:\n- res.yaml\nreplacements:\n- source:\n    kind: ConfigMap\n    name: src\n    fieldPath: data.v\n  targets:\n  - select:\n      kind: ConfigMap\n      name: $(name)\n    fieldPaths:\n    - data.a\n- source:\n    kind: ConfigMap\n    name: src\n    fieldPath: data.v\n  targets:\n  - select:\n      kind: ConfigMap\n      name: plain\n    fieldPaths:\n    - data.a\n",
    )
    .write(
        "app/res.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: src\ndata:\n  v: replaced\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: $(name)\ndata:\n  a: orig\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\ndata:\n  a: orig\n",
    );
    // `$(name)` is no name the API server takes (schema.metadata); not this test's point.
    let check = env
        .kdelta(&["check", "--format", "json", "--no-validate"])
        .success();
    let report = check.json();
    let warnings: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "kustomize.replacement.version-divergence")
        .collect();
    assert_eq!(
        warnings.len(),
        1,
        "only the regex-like selector: {}",
        check.stdout
    );
    assert_eq!(warnings[0]["severity"], "warning");
    assert_eq!(warnings[0]["file"], "app/kustomization.yaml");
    assert_eq!(warnings[0]["line"], 4);
    let message = warnings[0]["message"].as_str().unwrap();
    assert_eq!(
        message,
        "targets[0] selects differently in kustomize versions: v5.8 reads select/reject fields \
         as regular expressions and selects nothing, v5.5.0 compares them exactly and selects \
         ConfigMap.v1.[noGrp]/$(name).[noNs]; kdelta renders as v5.8"
    );
}

#[test]
fn a_replacement_target_name_that_is_no_regex_is_compared_exactly_as_in_v5_5_0() {
    // kustomize v5.5.0 compares `select.name: dst[` exactly (`ResId.IsSelectedBy`) and renders;
    // v5.8 stops with "error creating target selector". kdelta renders as v5.5.0 and warns.
    let env = TestEnv::new();
    env.write(
        "app/kustomization.yaml",
        "resources:\n- res.yaml\nreplacements:\n- source:\n    kind: ConfigMap\n    name: src\n    fieldPath: data.v\n  targets:\n  - select:\n      kind: ConfigMap\n      name: dst[\n    fieldPaths:\n    - data.a\n",
    )
    .write(
        "app/res.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: src\ndata:\n  v: replaced\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dst\ndata:\n  a: orig\n",
    );
    env.commit("name that is no regex");
    let report = env.kdelta(&["check", "--format", "json"]).success().json();
    let findings = report["findings"].as_array().unwrap();
    assert!(
        !findings.iter().any(|f| f["severity"] == "error"),
        "{report:#}"
    );
    let warning = findings
        .iter()
        .find(|f| f["rule"] == "kustomize.replacement.version-divergence")
        .expect("a version-divergence warning");
    assert_eq!(warning["line"], 4, "{warning}");
    assert_eq!(
        warning["message"],
        "targets[0] selects differently in kustomize versions: v5.8 reads select/reject fields \
         as regular expressions and stops with \"error creating target selector\" at select.name \
         \"dst[\", v5.5.0 compares them exactly and selects nothing; kdelta renders as v5.5.0"
    );
    env.kdelta(&["render", "app"])
        .success()
        .stdout_has("  a: orig\n");
}

/// A remote input kdelta never fetches leaves a build incomplete, not failed: a generator
/// file source at a URL, and a merge generator whose base is in a remote resource.
#[test]
fn builds_that_need_an_unfetched_remote_are_incomplete_not_errors() {
    let env = TestEnv::new();
    env.write(
        "apps/files/kustomization.yaml",
        "configMapGenerator:\n- name: cfg\n  files:\n  - https://example.com/d.json\n",
    )
    .write(
        "apps/merge/kustomization.yaml",
        "resources:\n- https://example.com/install.yaml\nconfigMapGenerator:\n- name: argocd-cm\n  behavior: merge\n  literals:\n  - a=b\n",
    );
    env.commit("remote inputs");
    let out = env.kdelta(&["check", "--color", "never"]).success();
    assert!(
        out.stdout
            .contains("notice[kustomize.remote-resource] apps/files/kustomization.yaml"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("the build cannot complete without the remote inputs it did not fetch"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("error["), "{}", out.stdout);
    env.kdelta(&["check", "--strict"]).code(1);
}

#[test]
fn errors_lead_with_the_innermost_cause_and_keep_kustomizes_message() {
    let env = TestEnv::new();
    env.write("app/kustomization.yaml", "resources:\n- missing.yaml\n")
        .write("overlay/kustomization.yaml", "resources:\n- ../base\n")
        .write("base/kustomization.yaml", "resources:\n- cm.yaml\n")
        .write("base/cm.yaml", "kind: ConfigMap\nmetadata:\n  bad: [\n");
    let r = env.kdelta(&["check", "--", "app"]).code(1);
    // The cause and where it is listed first, kustomize's wrapping as notes.
    assert!(
        r.stdout.contains(
            "error[kustomize.file-not-found] app/kustomization.yaml:2:3: app/missing.yaml: no such file or directory (listed in resources)\n  note: accumulating resources from 'missing.yaml'\n"
        ),
        "{}",
        r.stdout
    );
    let report = env.kdelta(&["check", "--format", "json"]).code(1).json();
    let finding = |target: &str| finding_for(&report, target);
    let app = finding("kustomize:app");
    // kustomize's exact text stays in the report.
    assert_eq!(
        app["reference_message"],
        "accumulating resources: accumulation err='accumulating resources from 'missing.yaml': 'app/missing.yaml': no such file or directory': must build at directory: not a valid directory"
    );
    // Through an overlay: the YAML error at its line, then the kustomizations that led there.
    let overlay = finding("kustomize:overlay");
    assert_eq!(
        (&overlay["file"], &overlay["line"]),
        (&json!("base/cm.yaml"), &json!(4))
    );
    assert!(
        overlay["message"]
            .as_str()
            .unwrap()
            .starts_with("did not find expected node content"),
        "{overlay}"
    );
    let context: Vec<&str> = overlay["context"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert!(
        context.contains(&"accumulating resources from 'cm.yaml' (base/kustomization.yaml:2)")
            && context
                .contains(&"accumulating resources from '../base' (overlay/kustomization.yaml:2)"),
        "{context:?}"
    );
    assert!(overlay["reference_message"].as_str().unwrap().contains(
        "MalformedYAMLError: yaml: line 3: did not find expected node content in File: cm.yaml"
    ));
}

#[test]
fn explain_follows_an_object_through_bases_components_patches_and_transformers() {
    let env = TestEnv::new();
    env.write(
        "base/kustomization.yaml",
        "resources:\n- deploy.yaml\nconfigMapGenerator:\n- name: settings\n  literals: [MODE=a]\n",
    )
    .write(
        "base/deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n        envFrom:\n        - configMapRef:\n            name: settings\n  selector:\n    matchLabels:\n      app: web\n",
    )
    .write(
        "comp/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonAnnotations:\n  team: web\n",
    )
    .write(
        "prod/kustomization.yaml",
        "namespace: prod\nnamePrefix: prod-\nresources:\n- ../base\ncomponents:\n- ../comp\npatches:\n- patch: |-\n    - op: replace\n      path: /spec/replicas\n      value: 3\n  target:\n    kind: Deployment\nimages:\n- name: nginx\n  newTag: \"1.27\"\n",
    );
    // Named as it was read (before the prefix), in one target.
    let report = env
        .kdelta(&["explain", "Deployment/web", "prod", "--format", "json"])
        .success()
        .json();
    assert_eq!(report["schema"], "kdelta/explain/v1");
    let objects = report["objects"].as_array().unwrap();
    assert_eq!(objects.len(), 1, "{report}");
    let o = &objects[0];
    assert_eq!(o["resource"], "apps/v1/Deployment/prod/prod-web");
    assert_eq!(
        (&o["file"], &o["line"]),
        (&json!("base/deploy.yaml"), &json!(1))
    );
    assert_eq!(
        o["kustomizations"],
        json!([
            "base/kustomization.yaml",
            "prod/kustomization.yaml",
            "comp/kustomization.yaml"
        ])
    );
    let steps: Vec<(String, String, Vec<String>)> = o["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let fields = s["fields"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| {
                    format!(
                        "{}: {} → {}",
                        f["path"].as_str().unwrap(),
                        f["old"],
                        f["new"]
                    )
                })
                .collect();
            (
                format!("{}:{}", s["file"].as_str().unwrap(), s["line"]),
                s["step"].as_str().unwrap().to_string(),
                fields,
            )
        })
        .collect();
    let expected = [
        ("comp/kustomization.yaml:3", "commonAnnotations (AnnotationsTransformer)", "metadata.annotations: null → {\"team\":\"web\"}"),
        ("prod/kustomization.yaml:8", "patches[0]", "spec.replicas: 1 → 3"),
        ("prod/kustomization.yaml:1", "namespace (NamespaceTransformer)", "metadata.namespace: null → \"prod\""),
        ("prod/kustomization.yaml:2", "namePrefix (PrefixTransformer)", "metadata.name: \"web\" → \"prod-web\""),
        ("prod/kustomization.yaml:15", "images[0] (ImageTagTransformer)", "spec.template.spec.containers[name=web].image: \"nginx:1.25\" → \"nginx:1.27\""),
        ("prod/kustomization.yaml:null", "hash suffixes, name references and vars (the whole build)", "spec.template.spec.containers[name=web].envFrom[0].configMapRef.name: \"settings\" → \"prod-settings-kdkkf5f9gt\""),
    ];
    assert_eq!(steps.len(), expected.len(), "{steps:#?}");
    for ((at, step, fields), (e_at, e_step, e_field)) in steps.iter().zip(expected) {
        assert_eq!((at.as_str(), step.as_str()), (e_at, e_step));
        assert!(fields.contains(&e_field.to_string()), "{step}: {fields:?}");
    }

    // A generated ConfigMap by its name without the hash; the base renders it too.
    let r = env.kdelta(&["explain", "ConfigMap/settings"]).success();
    assert!(
        r.stdout.contains("core/v1/ConfigMap/_/settings-"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("core/v1/ConfigMap/prod/prod-settings-"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("  read from  base/kustomization.yaml:4\n"),
        "{}",
        r.stdout
    );
    env.kdelta(&["explain", "Service/web"])
        .code(2)
        .stderr_has("no rendered object matches \"Service/web\"");
}

#[test]
fn explain_names_the_patch_files_a_step_wrote_fields_from() {
    let env = TestEnv::new();
    env.write("base/kustomization.yaml", "resources:\n- deploy.yaml\n")
        .write(
            "base/deploy.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n",
        )
        .write(
            "prod/kustomization.yaml",
            "resources:\n- ../base\npatches:\n- path: replicas.yaml\n- path: ops.yaml\n  target:\n    kind: Deployment\n- patch: |-\n    - op: add\n      path: /spec/paused\n      value: true\n  target:\n    kind: Deployment\n",
        )
        .write(
            "prod/replicas.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n",
        )
        .write(
            "prod/ops.yaml",
            "- op: add\n  path: /spec/minReadySeconds\n  value: 5\n",
        );
    let report = env
        .kdelta(&["explain", "Deployment/web", "prod", "--format", "json"])
        .success()
        .json();
    let steps: Vec<(String, serde_json::Value)> = report["objects"][0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["step"].as_str().unwrap().to_string(), s["from"].clone()))
        .collect();
    assert_eq!(
        steps,
        [
            ("patches[0]".to_string(), json!(["prod/replicas.yaml"])),
            ("patches[1]".to_string(), json!(["prod/ops.yaml"])),
            // Inline: written in the kustomization, which the step names already.
            ("patches[2]".to_string(), serde_json::Value::Null),
        ],
        "{report:#}"
    );
    let r = env.kdelta(&["explain", "Deployment/web", "prod"]).success();
    assert!(
        r.stdout.contains(
            "  changed by patches[0] at prod/kustomization.yaml:4 from prod/replicas.yaml\n"
        ),
        "{}",
        r.stdout
    );
}

/// A key given twice in the second object of a file whose first object has the same key: the
/// error names the duplicate and the first definition by their lines in the file (go-yaml,
/// which reads one object at a time, counts both from the object's first line).
#[test]
fn a_duplicate_key_in_a_later_object_names_lines_of_the_file() {
    let env = TestEnv::new();
    env.copy_testdata(
        "kustomize/105-error-duplicate-key-in-a-later-document/in",
        "app",
    );
    env.commit("duplicate key");
    let out = env.kdelta(&["check", "--format", "json"]).code(1);
    let report = out.json();
    let errors: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "yaml.duplicate-key" && f["severity"] == "error")
        .collect();
    assert_eq!(errors.len(), 1, "{}", out.stdout);
    assert_eq!(errors[0]["file"], "app/workers.yaml");
    assert_eq!(errors[0]["line"], 18);
    assert_eq!(
        errors[0]["message"],
        "mapping key \"labels\" already defined at line 14"
    );
}

/// A patch on an object of a helmCharts chart that is neither vendored nor fetched cannot
/// apply: like a patch on an unfetched remote base, it makes the output incomplete (a
/// notice), not wrong (testdata/kustomize-incomplete/01-patch-on-a-chart-not-fetched).
#[test]
fn a_patch_on_a_chart_not_fetched_is_a_notice_not_an_error() {
    let env = TestEnv::new();
    env.copy_testdata(
        "kustomize-incomplete/01-patch-on-a-chart-not-fetched/in",
        "apps/dashboard",
    );
    env.commit("chart not fetched");
    let out = env
        .kdelta(&["check", "--color", "never", "--format", "json"])
        .success();
    let report = out.json();
    let findings = report["findings"].as_array().unwrap();
    let rules: Vec<(&str, &str)> = findings
        .iter()
        .map(|f| (f["rule"].as_str().unwrap(), f["severity"].as_str().unwrap()))
        .collect();
    assert!(
        rules.contains(&("kustomize.helm.not-fetched", "notice")),
        "{rules:?}"
    );
    let patch = findings
        .iter()
        .find(|f| f["rule"] == "kustomize.patch")
        .unwrap_or_else(|| panic!("no kustomize.patch finding: {rules:?}"));
    assert_eq!(patch["severity"], "notice");
    assert_eq!(patch["incomplete"], true);
    assert!(
        patch["message"]
            .as_str()
            .unwrap()
            .starts_with("the build cannot complete without the remote inputs it did not fetch"),
        "{patch}"
    );
    assert!(rules.iter().all(|(_, s)| *s != "error"), "{rules:?}");
    assert_eq!(report["targets"][0]["incomplete"], true);
    env.kdelta(&["check", "--strict"]).code(1);
}

/// A patch on an object of a remote base that is not fetched is left out, and the rest of the
/// build renders: the local objects, transformed (testdata/kustomize-incomplete/02-…). The
/// target is incomplete, which only notices say: `check` passes, `render` prints nothing
/// unless `--allow-incomplete`.
#[test]
fn a_patch_on_a_remote_base_not_fetched_leaves_the_local_objects_rendered() {
    let env = TestEnv::new();
    env.copy_testdata(
        "kustomize-incomplete/02-patch-on-a-remote-base-not-fetched/in",
        "",
    );
    env.commit("remote base not fetched");
    let check = env
        .kdelta(&["check", "--color", "never"])
        .success()
        .stdout_has("notice[kustomize.patch] overlays/prod/kustomization.yaml:13:3")
        .stdout_has("kustomize:overlays/prod (unchanged, incomplete)");
    assert!(!check.stdout.contains("error["), "{}", check.stdout);
    env.kdelta(&["render", "overlays/prod"]).code(1);
    let expected =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "testdata/kustomize-incomplete/02-patch-on-a-remote-base-not-fetched/expected.yaml",
        ))
        .unwrap();
    let render = env
        .kdelta(&["render", "--allow-incomplete", "overlays/prod"])
        .success();
    assert_eq!(render.stdout, expected);
}

/// Only a failure that a missing object can cause (a patch that matches nothing) becomes a
/// notice once a remote input was skipped: a patch file that is not there is the
/// repository's own error, whatever else is missing.
#[test]
fn a_local_error_stays_an_error_after_a_remote_base_is_skipped() {
    let env = TestEnv::new();
    env.write(
        "app/kustomization.yaml",
        "resources:\n- https://github.com/example-org/platform-manifests//api?ref=v1\n- cm.yaml\npatches:\n- path: missing-patch.yaml\n",
    )
    .write(
        "app/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n",
    );
    env.commit("a patch file that is not there");
    let out = env.kdelta(&["check", "--color", "never"]).code(1);
    assert!(
        out.stdout.contains("error[kustomize.file-not-found]"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("notice[kustomize.remote-resource] app/kustomization.yaml:2:3"),
        "{}",
        out.stdout
    );
}

/// A JSON 6902 operation that does not apply is reported at its line in the patch file, for
/// `patches:` and `patchesJson6902:` entries alike; kustomize's message is kept as it is.
#[test]
fn a_json_patch_operation_that_does_not_apply_points_at_its_line_in_the_patch_file() {
    let env = TestEnv::new();
    let deploy =
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n";
    let patch =
        "- op: replace\n  path: /spec/replicas\n  value: 2\n- op: remove\n  path: /spec/nothere\n";
    let target = "  target:\n    kind: Deployment\n    name: web\n";
    env.write("new/deploy.yaml", deploy)
        .write("new/patch.yaml", patch)
        .write(
            "new/kustomization.yaml",
            format!("resources:\n- deploy.yaml\npatches:\n- path: patch.yaml\n{target}"),
        )
        .write("legacy/deploy.yaml", deploy)
        .write("legacy/ops.json", "[\n  {\"op\": \"replace\", \"path\": \"/spec/replicas\", \"value\": 2},\n  {\"op\": \"remove\", \"path\": \"/spec/nothere\"}\n]\n")
        .write(
            "legacy/kustomization.yaml",
            format!("resources:\n- deploy.yaml\npatchesJson6902:\n- path: ops.json\n{target}"),
        );
    env.commit("patches");
    let report = env.kdelta(&["check", "--format", "json"]).code(1).json();
    let finding = |target: &str| finding_for(&report, target);
    let new = finding("kustomize:new");
    assert_eq!(new["rule"], "kustomize.patch");
    assert_eq!(
        (&new["file"], &new["line"], &new["column"]),
        (&json!("new/patch.yaml"), &json!(4), &json!(3)),
        "{new}"
    );
    assert_eq!(
        new["message"],
        "error in remove for path: '/spec/nothere': Unable to remove nonexistent key: nothere: missing value"
    );
    let legacy = finding("kustomize:legacy");
    assert_eq!(
        (&legacy["file"], &legacy["line"]),
        (&json!("legacy/ops.json"), &json!(3)),
        "{legacy}"
    );
}

/// A `path:` replacement file that does not decode is reported at the line of the value that
/// does not fit, in that file (it was the file alone); kustomize's message is kept.
#[test]
fn a_replacement_file_that_does_not_decode_points_at_its_line() {
    let env = TestEnv::new();
    env.write(
        "app/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: x\n",
    )
    .write(
        "app/replacements.yaml",
        "- source:\n    kind: ConfigMap\n    name: cm\n    fieldPath: data.a\n  targets: 5\n",
    )
    .write(
        "app/kustomization.yaml",
        "resources:\n- cm.yaml\nreplacements:\n- path: replacements.yaml\n",
    );
    env.commit("replacements");
    let report = env.kdelta(&["check", "--format", "json"]).code(1).json();
    let f = &report["findings"][0];
    assert_eq!(f["rule"], "kustomize.replacement.invalid", "{f}");
    assert_eq!(
        (&f["file"], &f["line"]),
        (&json!("app/replacements.yaml"), &json!(5)),
        "{f}"
    );
}

/// A ValueAddTransformer whose `targetFilePath` is not valid YAML is reported at the syntax
/// error in that file (it was the transformer's config).
#[test]
fn a_value_add_target_file_that_does_not_parse_points_at_its_line() {
    let env = TestEnv::new();
    env.write(
        "app/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: x\n",
    )
    .write(
        "app/value-add.yaml",
        "apiVersion: builtin\nkind: ValueAddTransformer\nmetadata: {name: x}\nvalue: added\ntargetFilePath: targets.yaml\n",
    )
    .write("app/targets.yaml", "targets:\n- fieldPath: a\n  x: [unclosed\n")
    .write(
        "app/kustomization.yaml",
        "resources:\n- cm.yaml\ntransformers:\n- value-add.yaml\n",
    );
    env.commit("value add");
    let report = env.kdelta(&["check", "--format", "json"]).code(1).json();
    let f = &report["findings"][0];
    assert_eq!(f["rule"], "kustomize.transform", "{f}");
    assert_eq!(f["file"], "app/targets.yaml", "{f}");
    assert!(f["line"].as_u64().is_some_and(|l| l >= 3), "{f}");
}
