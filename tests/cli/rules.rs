//! One test per rule (or small group of related rules) that no other test triggers: each builds
//! a small repository, runs `kdelta`, and checks the finding a user sees — its rule id,
//! severity, file, line and the key words of its message (the reference tool's, where kdelta
//! quotes kustomize or Helm) — and the exit code.

use super::*;

/// The findings of `rule` in a JSON report.
fn findings_of<'a>(report: &'a Value, rule: &str) -> Vec<&'a Value> {
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == rule)
        .collect()
}

/// The one finding of `rule` in a JSON report.
#[track_caller]
fn the_finding<'a>(report: &'a Value, rule: &str) -> &'a Value {
    let found = findings_of(report, rule);
    assert_eq!(found.len(), 1, "one {rule} finding expected in {report:#}");
    found[0]
}

/// Asserts a finding's severity, file, line (`None`: it has none) and that its message holds
/// `words`.
#[track_caller]
fn assert_finding(f: &Value, severity: &str, file: &str, line: Option<u64>, words: &str) {
    assert_eq!(f["severity"], severity, "{f:#}");
    assert_eq!(f["file"], file, "{f:#}");
    match line {
        Some(l) => assert_eq!(f["line"], l, "{f:#}"),
        None => assert!(f.get("line").is_none(), "{f:#}"),
    }
    let message = f["message"].as_str().expect("a message");
    assert!(message.contains(words), "{words:?} not in {f:#}");
}

/// `kdelta check --format json` in `env`, expecting exit code `code`.
fn check(env: &TestEnv, code: i32) -> Value {
    env.kdelta(&["check", "--format", "json"]).code(code).json()
}

// ---------------------------------------------------------------------------------------------
// Helm

const CM_TEMPLATE: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  replicas: \"{{ .Values.replicas }}\"\n";

#[test]
fn a_library_chart_is_not_installable() {
    let env = TestEnv::new();
    env.write(
        "charts/lib/Chart.yaml",
        "apiVersion: v2\nname: lib\nversion: 0.1.0\ntype: library\n",
    )
    .write(
        "charts/lib/templates/_cm.tpl",
        "{{- define \"lib.cm\" -}}\nkind: ConfigMap\n{{- end -}}\n",
    );
    env.commit("library chart");
    // A library chart is no target of its own: `check` has nothing to render.
    let report = check(&env, 0);
    assert_eq!(report["targets"], json!([]), "{report:#}");
    // Rendered on its own, it is Helm's error.
    let out = env.kdelta(&["render", "charts/lib"]).code(1);
    assert!(
        out.stderr.contains(
            "error[helm.chart.library] charts/lib/Chart.yaml: library charts are not installable\n  help: render a chart that depends on it"
        ),
        "{}",
        out.stderr
    );
}

#[test]
fn values_that_break_the_values_schema_are_an_error_at_the_schema() {
    let env = TestEnv::new();
    env.write(
        "charts/app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 0.1.0\n",
    )
    .write("charts/app/values.yaml", "replicas: 0\n")
    .write(
        "charts/app/values.schema.json",
        "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\",\"properties\":{\"replicas\":{\"type\":\"integer\",\"minimum\":1}}}\n",
    )
    .write("charts/app/templates/cm.yaml", CM_TEMPLATE);
    env.commit("schema");
    let report = check(&env, 1);
    // helm template: "values don't meet the specifications of the schema(s) in the following
    // chart(s):\napp:\n- replicas: Must be greater than or equal to 1\n".
    let f = the_finding(&report, "helm.values.schema");
    assert_finding(
        f,
        "error",
        "charts/app/values.schema.json",
        None,
        "values don't meet the specifications of the schema(s) in the following chart(s):\napp:\n- replicas: Must be greater than or equal to 1",
    );
    // With a value the schema accepts, the chart renders.
    env.kdelta(&["render", "charts/app", "--set", "replicas=2"])
        .success()
        .stdout_has("  replicas: \"2\"\n");
}

#[test]
fn a_chart_whose_kube_version_excludes_the_cluster_is_an_error_at_kube_version() {
    let env = TestEnv::new();
    env.write(
        "charts/app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 0.1.0\nkubeVersion: \"<1.25.0\"\n",
    )
    .write("charts/app/values.yaml", "replicas: 1\n")
    .write("charts/app/templates/cm.yaml", CM_TEMPLATE);
    env.commit("old chart");
    let report = check(&env, 1);
    let f = the_finding(&report, "helm.kube-version");
    assert_finding(
        f,
        "error",
        "charts/app/Chart.yaml",
        Some(4),
        "chart requires kubeVersion: <1.25.0 which is incompatible with Kubernetes v1.32.0",
    );
    // For a version the chart supports, it renders.
    env.kdelta(&["render", "charts/app", "--kube-version", "1.24.0"])
        .success()
        .stdout_has("kind: ConfigMap\n");
}

#[test]
fn a_show_only_pattern_that_matches_no_template_is_an_error() {
    let env = TestEnv::new();
    env.write(
        "charts/app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 0.1.0\n",
    )
    .write("charts/app/values.yaml", "replicas: 1\n")
    .write("charts/app/templates/cm.yaml", CM_TEMPLATE);
    env.commit("chart");
    env.kdelta(&["render", "charts/app", "--show-only", "templates/cm.yaml"])
        .success()
        .stdout_has("name: settings\n");
    let out = env
        .kdelta(&["render", "charts/app", "--show-only", "templates/nope.yaml"])
        .code(1);
    assert!(
        out.stderr.contains("error[helm.show-only] charts/app/Chart.yaml: could not find template templates/nope.yaml in chart"),
        "{}",
        out.stderr
    );
    let report = env
        .kdelta(&[
            "check",
            "--format",
            "json",
            "--show-only",
            "templates/nope.yaml",
        ])
        .code(1)
        .json();
    assert_finding(
        the_finding(&report, "helm.show-only"),
        "error",
        "charts/app/Chart.yaml",
        None,
        "could not find template templates/nope.yaml in chart",
    );
}

#[test]
fn a_condition_that_is_not_a_bool_is_a_warning_and_the_subchart_renders() {
    let env = TestEnv::new();
    env.write(
        "charts/app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n- name: sub\n  version: 1.0.0\n  condition: sub.enabled\n",
    )
    .write("charts/app/values.yaml", "sub:\n  enabled: \"false\"\n")
    .write(
        "charts/app/charts/sub/Chart.yaml",
        "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
    )
    .write(
        "charts/app/charts/sub/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sub\n",
    );
    env.commit("string condition");
    let report = check(&env, 0);
    // helm template warns "Condition path 'sub.enabled' for chart sub returned non-bool value"
    // and renders the subchart.
    assert_finding(
        the_finding(&report, "helm.condition.not-bool"),
        "warning",
        "charts/app/Chart.yaml",
        Some(5),
        "condition path 'sub.enabled' for chart sub holds a value that is not a bool",
    );
    env.kdelta(&["render", "charts/app"])
        .success()
        .stdout_has("# Source: app/charts/sub/templates/cm.yaml\n");
}

#[test]
fn a_hook_with_an_event_helm_does_not_know_is_skipped_with_a_warning() {
    let env = TestEnv::new();
    env.write(
        "charts/legacy/Chart.yaml",
        "apiVersion: v1\nname: legacy\nversion: 0.1.0\n",
    )
    .write(
        "charts/legacy/templates/crd.yaml",
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n  annotations:\n    helm.sh/hook: crd-install\n",
    )
    .write(
        "charts/legacy/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: legacy\n",
    );
    env.commit("a Helm 2 chart");
    let report = check(&env, 0);
    // Helm 3 logs "info: skipping unknown hook: \"crd-install\"" and leaves the CRD out.
    // At the line that writes the annotation.
    assert_finding(
        the_finding(&report, "helm.hook.unknown-event"),
        "warning",
        "charts/legacy/templates/crd.yaml",
        Some(6),
        "Helm skips this CustomResourceDefinition: its helm.sh/hook \"crd-install\"",
    );
    let out = env
        .kdelta(&["render", "charts/legacy"])
        .success()
        .stdout_has("# Source: legacy/templates/cm.yaml\n");
    assert!(
        !out.stdout.contains("CustomResourceDefinition"),
        "{}",
        out.stdout
    );
}

// ---------------------------------------------------------------------------------------------
// Argo CD

const REPO_URL: &str = "https://git.example.com/gitops.git";

/// An Application `web` deploying the plain directory `web/`, with `extra` under its spec.
fn web_application(extra: &str) -> String {
    format!(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: web\n  namespace: argocd\nspec:\n  source:\n    repoURL: {REPO_URL}\n    path: web\n  destination:\n    namespace: prod\n{extra}"
    )
}

fn write_web(env: &TestEnv, app_extra: &str) {
    env.write(".kdelta.yaml", format!("repoURLs: [{REPO_URL}]\n"))
        .write("argocd/web.yaml", web_application(app_extra))
        .write("web/cm.yaml", config_map("web", "v"));
}

#[test]
fn an_argocd_setting_kdelta_cannot_read_is_a_warning_at_the_setting() {
    let env = TestEnv::new();
    write_web(&env, "");
    env.write(
        "argocd/argocd-cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\n  namespace: argocd\ndata:\n  resource.exclusions: |\n    apiGroups: [cilium.io]\n",
    );
    env.commit("exclusions as a map");
    let report = check(&env, 0);
    assert_finding(
        the_finding(&report, "argocd.settings.invalid"),
        "warning",
        "argocd/argocd-cm.yaml",
        Some(7),
        "argocd-cm resource.exclusions cannot be read (not a list); kdelta ignores it",
    );
}

#[test]
fn two_argocd_cms_that_disagree_are_a_warning_at_the_one_not_used() {
    let env = TestEnv::new();
    write_web(&env, "");
    let cm = |label: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\n  namespace: argocd\ndata:\n  application.instanceLabelKey: {label}\n")
    };
    env.write("install/a/argocd-cm.yaml", cm("example.com/app"))
        .write("install/b/argocd-cm.yaml", cm("example.com/other"));
    env.commit("two installations");
    let report = check(&env, 0);
    assert_finding(
        the_finding(&report, "argocd.settings.conflict"),
        "warning",
        "install/b/argocd-cm.yaml",
        Some(7),
        "is set differently here and at install/a/argocd-cm.yaml:7; kdelta uses install/a/argocd-cm.yaml:7",
    );
}

#[test]
fn an_application_with_two_source_types_is_an_error_at_its_manifest() {
    let env = TestEnv::new();
    write_web(&env, "");
    env.write(
        "argocd/web.yaml",
        web_application("").replace(
            "    path: web\n",
            "    path: web\n    helm:\n      releaseName: web\n    kustomize:\n      namePrefix: prod-\n",
        ),
    );
    env.commit("helm and kustomize");
    let report = check(&env, 1);
    // Argo CD's words.
    let f = the_finding(&report, "app.source.invalid");
    assert_finding(
        f,
        "error",
        "argocd/web.yaml",
        None,
        "Application web: multiple application sources defined: Kustomize,Helm",
    );
}

#[test]
fn an_ignore_differences_jq_expression_kdelta_cannot_apply_is_a_notice() {
    let env = TestEnv::new();
    // At the expression kdelta cannot apply; the Application still renders, and those
    // differences are shown.
    write_web(
        &env,
        "  ignoreDifferences:\n  - kind: ConfigMap\n    jqPathExpressions: ['.data.key', '.data | select(.key == \"v\")']\n",
    );
    env.commit("ignore differences");
    let report = check(&env, 0);
    assert_finding(
        the_finding(&report, "app.ignore-differences"),
        "notice",
        "argocd/web.yaml",
        Some(14),
        "Application web: ignoreDifferences jq expressions kdelta cannot apply (only plain paths): .data | select(.key == \"v\")",
    );
}

// ---------------------------------------------------------------------------------------------
// Discovery

/// A directory that cannot be listed is skipped with a warning, the rest of the work tree is
/// still discovered. Tests run as root, whom no permission bit stops; what stops root too is a
/// path longer than the system's limit (PATH_MAX, 4096 bytes on Linux): directories nested
/// deeper than that, as a generated or vendored tree can be, list as far as the limit and no
/// further (`File name too long`).
#[test]
fn a_directory_that_cannot_be_listed_is_skipped_with_a_warning() {
    let env = TestEnv::without_git();
    env.write("app/kustomization.yaml", "resources:\n- cm.yaml\n")
        .write("app/cm.yaml", config_map("settings", "v"));
    // 22 levels of 200 bytes, built from the bottom up by renames, as no path given to the
    // system may be that long: each level is made at a short path, the tree so far moved
    // into it.
    let name = "d".repeat(200);
    let level = |i: usize| env.root().join(format!("level{i}")).join(&name);
    std::fs::create_dir_all(level(0)).expect("mkdir");
    for i in 1..22 {
        std::fs::create_dir_all(level(i)).expect("mkdir");
        std::fs::rename(level(i - 1), level(i).join(&name)).expect("rename");
    }
    std::fs::rename(level(21), env.repo().join(&name)).expect("rename");
    let report = env.kdelta(&["check", "--format", "json"]).success().json();
    let f = the_finding(&report, "discover.unreadable");
    assert_eq!(f["severity"], "warning", "{f:#}");
    // The first directory whose absolute path reaches the limit (how deep that is depends on
    // where the temporary directory is).
    let unlisted = f["file"].as_str().expect("a directory");
    assert!(unlisted.split('/').all(|part| part == name), "{f:#}");
    let absolute = env.repo().join(unlisted).as_os_str().len();
    assert!(
        absolute >= 4096 && absolute - 201 < 4096,
        "{absolute} {f:#}"
    );
    assert_eq!(
        report["targets"][0]["id"], "kustomize:app",
        "the rest is discovered: {report:#}"
    );
    let text = env.kdelta(&["check", "--color", "never"]).success();
    insta::assert_snapshot!("discover_unreadable", text.stdout.replace(unlisted, "DEEP"));
}

// ---------------------------------------------------------------------------------------------
// Validation

#[test]
fn a_name_the_api_server_rejects_is_a_metadata_error_at_the_name() {
    let env = TestEnv::new();
    env.write(".kdelta.yaml", CONFIG)
        .write("manifests/cm.yaml", config_map("Bad_Name", "v"));
    env.commit("bad name");
    let report = check(&env, 1);
    assert_finding(
        the_finding(&report, "schema.metadata"),
        "error",
        "manifests/cm.yaml",
        Some(4),
        "metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters",
    );
}

/// Two items of a list-type map with one key: for a built-in kind the API server's core
/// validation names the key field and its value (`validateContainers`:
/// `field.Duplicate(path.Child("name"), ctr.Name)`), at the second item's key; for a custom
/// resource the CRD's structural schema validation names the item and its key as a Go map
/// (apiextensions-apiserver's `listtype.validateListMap`).
#[test]
fn a_duplicate_list_map_key_is_worded_as_the_api_server_words_it() {
    let env = TestEnv::new();
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: routes.example.com\nspec:\n  group: example.com\n  names:\n    kind: Route\n    plural: routes\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              backends:\n                type: array\n                x-kubernetes-list-type: map\n                x-kubernetes-list-map-keys: [name, port]\n                items:\n                  type: object\n                  required: [name]\n                  properties:\n                    name: {type: string}\n                    port: {type: integer}\n";
    env.write(".kdelta.yaml", "directories: [crds, manifests]\n")
        .write("crds/route.yaml", crd)
        .write(
            "manifests/web.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: prod\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n      - name: web\n        image: busybox:1.36\n",
        )
        .write(
            "manifests/route.yaml",
            "apiVersion: example.com/v1\nkind: Route\nmetadata:\n  name: web\n  namespace: prod\nspec:\n  backends:\n  - name: web\n    port: 80\n  - port: 80\n    name: web\n",
        );
    env.commit("duplicates");
    let report = check(&env, 1);
    let found = findings_of(&report, "schema.duplicate");
    assert_eq!(found.len(), 2, "{report:#}");
    assert_finding(
        found[0],
        "error",
        "manifests/route.yaml",
        Some(10),
        "spec.backends[1]: Duplicate value: map[string]interface {}{\"name\":\"web\", \"port\":80}",
    );
    assert_finding(
        found[1],
        "error",
        "manifests/web.yaml",
        Some(18),
        "spec.template.spec.containers[1].name: Duplicate value: \"web\"",
    );
    let text = env.kdelta(&["check", "--color", "never"]).code(1);
    insta::assert_snapshot!("schema_duplicate", text.stdout);
}

// ---------------------------------------------------------------------------------------------
// Kustomize: loading kustomizations

/// A ConfigMap `name` as a kustomize resource file.
fn cm(name: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  k: v\n")
}

/// Asserts the reference tool's whole message, as `kubectl kustomize` v5.5.0 prints it (with
/// repository-relative paths).
#[track_caller]
fn assert_reference(f: &Value, reference: &str) {
    assert_eq!(f["reference_message"], reference, "{f:#}");
}

#[test]
fn kustomizations_that_include_each_other_are_a_cycle_at_the_entry_that_closes_it() {
    let env = TestEnv::new();
    env.write("a/kustomization.yaml", "resources:\n- ../b\n")
        .write("b/kustomization.yaml", "resources:\n- ../a\n");
    env.commit("a cycle");
    let report = check(&env, 1);
    let cycles = findings_of(&report, "kustomize.cycle");
    assert_eq!(cycles.len(), 2, "{report:#}");
    let of_a = cycles
        .iter()
        .find(|f| f["target"] == "kustomize:a")
        .expect("a finding of kustomize:a");
    assert_finding(
        of_a,
        "error",
        "b/kustomization.yaml",
        Some(2),
        "cycle detected: candidate root 'a' contains visited root 'a'",
    );
    assert_reference(
        of_a,
        "accumulating resources: accumulation err='accumulating resources from '../b'': recursed accumulation of path 'b': accumulating resources: accumulation err='accumulating resources from '../a'': cycle detected: candidate root 'a' contains visited root 'a'",
    );
}

#[test]
fn a_file_outside_the_kustomization_root_breaks_the_load_restrictor() {
    let env = TestEnv::new();
    env.write("shared/cm.yaml", cm("shared")).write(
        "app/kustomization.yaml",
        "resources:\n- ../shared/cm.yaml\n",
    );
    env.commit("outside the root");
    let report = check(&env, 1);
    let f = the_finding(&report, "kustomize.load-restrictor");
    assert_finding(
        f,
        "error",
        "app/kustomization.yaml",
        Some(2),
        "security; file 'shared/cm.yaml' is not in or below 'app'",
    );
    assert!(f["help"]
        .as_str()
        .unwrap()
        .contains("--load-restrictor none"));
}

#[test]
fn an_absolute_path_is_refused_by_the_load_restrictor() {
    // testdata/kustomize/152 and 153 hold kubectl kustomize's messages, with the absolute root.
    let env = TestEnv::new();
    env.write("res/cm.yaml", cm("a"))
        .write("res/kustomization.yaml", "resources:\n- cm.yaml\n- /etc/passwd\n")
        .write("patch/cm.yaml", cm("a"))
        .write(
            "patch/kustomization.yaml",
            "resources:\n- cm.yaml\npatches:\n- path: /etc/passwd\n  target:\n    kind: ConfigMap\n",
        )
        .write("component/kustomization.yaml", "components:\n- /etc\n");
    env.commit("absolute paths");
    let report = check(&env, 1);
    let found = findings_of(&report, "kustomize.absolute-path");
    assert_eq!(found.len(), 3, "{report:#}");
    let of = |file: &str| {
        *found
            .iter()
            .find(|f| f["file"] == file)
            .unwrap_or_else(|| panic!("no finding in {file}: {report:#}"))
    };
    let res = of("res/kustomization.yaml");
    assert_finding(
        res,
        "error",
        "res/kustomization.yaml",
        Some(3),
        "security; file '/etc/passwd' is not in or below 'res'",
    );
    assert_reference(
        res,
        "accumulating resources: accumulation err='accumulating resources from '/etc/passwd': security; file '/etc/passwd' is not in or below 'res'': new root '/etc/passwd' cannot be absolute",
    );
    let patch = of("patch/kustomization.yaml");
    assert_finding(
        patch,
        "error",
        "patch/kustomization.yaml",
        Some(4),
        "security; file '/etc/passwd' is not in or below 'patch'",
    );
    assert_reference(
        patch,
        "trouble configuring builtin PatchTransformer with config: `\npath: /etc/passwd\ntarget:\n  kind: ConfigMap\n`: failed to get the patch file from path(/etc/passwd): security; file '/etc/passwd' is not in or below 'patch'",
    );
    assert_finding(
        of("component/kustomization.yaml"),
        "error",
        "component/kustomization.yaml",
        Some(2),
        "new root '/etc' cannot be absolute",
    );
}

#[test]
fn a_configurations_or_crds_file_of_the_wrong_shape_is_go_s_decoding_error_at_the_value() {
    // testdata/kustomize/154 and 155 hold kubectl kustomize's messages.
    let env = TestEnv::new();
    env.write("config/cm.yaml", cm("a"))
        .write(
            "config/kustomization.yaml",
            "resources:\n- cm.yaml\nconfigurations:\n- config.yaml\n",
        )
        .write(
            "config/config.yaml",
            "namePrefix:\n- path: metadata/name\nnameReference: 3\n",
        )
        .write("crds/cm.yaml", cm("a"))
        .write(
            "crds/kustomization.yaml",
            "resources:\n- cm.yaml\ncrds:\n- crd.json\n",
        )
        .write("crds/crd.json", "{\"a\": {\"Dependencies\": [\"x\", 3]}}\n");
    env.commit("wrong shapes");
    let report = check(&env, 1);
    let config = the_finding(&report, "kustomize.configurations");
    assert_finding(
        config,
        "error",
        "config/config.yaml",
        Some(3),
        "json: cannot unmarshal number into Go struct field TransformerConfig.nameReference of type builtinconfig.nbrSlice",
    );
    assert_reference(
        config,
        "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number into Go struct field TransformerConfig.nameReference of type builtinconfig.nbrSlice",
    );
    // A file starting with `{` is read by json.Unmarshal: no wrapping, and 3 is no string.
    let crds = the_finding(&report, "kustomize.crds");
    assert_finding(
        crds,
        "error",
        "crds/crd.json",
        Some(1),
        "json: cannot unmarshal number into Go struct field OpenAPIDefinition.Dependencies of type string",
    );
    assert_reference(
        crds,
        "loading CRDs [crd.json]: unable to parse open API definition from 'crd.json': json: cannot unmarshal number into Go struct field OpenAPIDefinition.Dependencies of type string",
    );
}

#[test]
fn a_resource_directory_without_a_kustomization_is_an_error_at_the_entry() {
    let env = TestEnv::new();
    env.write("app/base/cm.yaml", cm("x"))
        .write("app/kustomization.yaml", "resources:\n- cm.yaml\n- base\n")
        .write("app/cm.yaml", cm("y"));
    env.commit("base without kustomization");
    let report = check(&env, 1);
    let f = the_finding(&report, "kustomize.missing-kustomization");
    assert_finding(
        f,
        "error",
        "app/kustomization.yaml",
        Some(3),
        "unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory 'app/base'",
    );
}

#[test]
fn two_resources_with_one_id_are_a_duplicate_at_the_second() {
    let env = TestEnv::new();
    env.write("app/a.yaml", cm("x"))
        .write("app/b.yaml", cm("x"))
        .write("app/kustomization.yaml", "resources:\n- a.yaml\n- b.yaml\n");
    env.commit("same id twice");
    let report = check(&env, 1);
    let f = the_finding(&report, "kustomize.duplicate-resource");
    assert_finding(
        f,
        "error",
        "app/kustomization.yaml",
        Some(3),
        "may not add resource with an already registered id: ConfigMap.v1.[noGrp]/x.[noNs]",
    );
    assert_reference(
        f,
        "accumulating resources: merging resources from 'b.yaml': may not add resource with an already registered id: ConfigMap.v1.[noGrp]/x.[noNs]",
    );
}

#[test]
fn a_directory_with_two_kustomization_files_is_an_error() {
    let env = TestEnv::new();
    env.write("app/cm.yaml", cm("x"))
        .write("app/kustomization.yaml", "resources:\n- cm.yaml\n")
        .write("app/kustomization.yml", "resources:\n- cm.yaml\n");
    env.commit("two kustomization files");
    let report = check(&env, 1);
    let f = the_finding(&report, "kustomize.multiple-kustomizations");
    assert_eq!(f["severity"], "error");
    assert_eq!(f["target"], "kustomize:app");
    assert_eq!(
        f["message"],
        "Found multiple kustomization files under: app"
    );
}

#[test]
fn an_unknown_field_and_an_empty_kustomization_are_errors() {
    let env = TestEnv::new();
    env.write("typo/cm.yaml", cm("x"))
        .write(
            "typo/kustomization.yaml",
            "resources:\n- cm.yaml\nresourcez: []\n",
        )
        .write(
            "empty/kustomization.yaml",
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n",
        );
    env.commit("typo and empty");
    let report = check(&env, 1);
    assert_finding(
        the_finding(&report, "kustomize.invalid-kustomization"),
        "error",
        "typo/kustomization.yaml",
        Some(3),
        "invalid Kustomization: json: unknown field \"resourcez\"",
    );
    assert_finding(
        the_finding(&report, "kustomize.empty-kustomization"),
        "error",
        "empty/kustomization.yaml",
        None,
        "kustomization.yaml is empty",
    );
}

#[test]
fn a_component_under_resources_and_a_kustomization_under_components_are_errors() {
    let env = TestEnv::new();
    env.write("comp/cm.yaml", cm("x"))
        .write(
            "comp/kustomization.yaml",
            "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n- cm.yaml\n",
        )
        .write("as-resource/kustomization.yaml", "resources:\n- ../comp\n")
        .write("base/cm.yaml", cm("y"))
        .write("base/kustomization.yaml", "resources:\n- cm.yaml\n")
        .write("as-component/kustomization.yaml", "components:\n- ../base\n");
    env.commit("kinds swapped");
    let report = check(&env, 1);
    let kinds = findings_of(&report, "kustomize.component-kind");
    let of = |target: &str| {
        kinds
            .iter()
            .find(|f| f["target"] == target)
            .unwrap_or_else(|| panic!("no component-kind finding of {target} in {report:#}"))
    };
    assert_finding(
        of("kustomize:as-resource"),
        "error",
        "comp/kustomization.yaml",
        Some(2),
        "expected kind != 'Component' for path 'comp'",
    );
    let f = of("kustomize:as-component");
    assert_finding(
        f,
        "error",
        "base/kustomization.yaml",
        None,
        "expected kind 'Component' for path 'base' but got 'Kustomization'",
    );
    assert_reference(
        f,
        "accumulating components: accumulateDirectory: expected kind 'Component' for path 'base' but got 'Kustomization'",
    );
}

#[test]
fn a_directory_where_a_file_is_needed_and_a_file_where_a_directory_is_are_errors() {
    let env = TestEnv::new();
    env.write("patch-dir/cm.yaml", cm("x"))
        .write("patch-dir/p/patch.yaml", cm("x"))
        .write(
            "patch-dir/kustomization.yaml",
            "resources:\n- cm.yaml\npatches:\n- path: p\n",
        )
        .write("component-file/cm.yaml", cm("x"))
        .write(
            "component-file/kustomization.yaml",
            "resources:\n- cm.yaml\ncomponents:\n- cm.yaml\n",
        );
    env.commit("wrong entry types");
    let report = check(&env, 1);
    let f = the_finding(&report, "kustomize.not-a-file");
    assert_finding(
        f,
        "error",
        "patch-dir/kustomization.yaml",
        Some(4),
        "'patch-dir/p' must resolve to a file",
    );
    let f = the_finding(&report, "kustomize.not-a-directory");
    assert_finding(
        f,
        "error",
        "component-file/kustomization.yaml",
        Some(4),
        "a file, not a directory",
    );
    assert_reference(
        f,
        "accumulating components: loader.New: must build at directory: 'component-file/cm.yaml': file is not directory",
    );
}

#[test]
fn a_deprecated_field_is_a_notice_in_kustomizes_words() {
    let env = TestEnv::new();
    env.write("app/cm.yaml", cm("x")).write(
        "app/kustomization.yaml",
        "resources:\n- cm.yaml\ncommonLabels:\n  team: a\n",
    );
    env.commit("commonLabels");
    let report = check(&env, 0);
    let warning = "# Warning: 'commonLabels' is deprecated. Please use 'labels' instead. Run 'kustomize edit fix' to update your Kustomization automatically.";
    assert_finding(
        the_finding(&report, "kustomize.deprecated"),
        "notice",
        "app/kustomization.yaml",
        Some(3),
        warning,
    );
    // `render` prints it to stderr as kustomize does, and renders.
    env.kdelta(&["render", "app"])
        .success()
        .stderr_has(warning)
        .stdout_has("    team: a\n");
}

// ---------------------------------------------------------------------------------------------
// Kustomize: vars and generators

/// A Pod whose argument is `arg`.
fn pod(arg: &str) -> String {
    format!("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: busybox\n    args: [\"{arg}\"]\n")
}

const CFG_VAR: &str =
    "- name: CFG\n  objref:\n    kind: ConfigMap\n    name: cfg\n    apiVersion: v1\n";

#[test]
fn a_var_declared_twice_is_an_error_and_one_never_used_a_warning() {
    let env = TestEnv::new();
    env.write("twice/cm.yaml", cm("cfg"))
        .write("twice/pod.yaml", pod("$(CFG)"))
        .write(
            "twice/kustomization.yaml",
            format!("resources:\n- cm.yaml\n- pod.yaml\nvars:\n{CFG_VAR}{CFG_VAR}"),
        )
        .write("unused/cm.yaml", cm("cfg"))
        .write("unused/pod.yaml", pod("x"))
        .write(
            "unused/kustomization.yaml",
            format!("resources:\n- cm.yaml\n- pod.yaml\nvars:\n{CFG_VAR}"),
        );
    env.commit("vars");
    let report = check(&env, 1);
    assert_finding(
        the_finding(&report, "kustomize.vars.duplicate"),
        "error",
        "twice/kustomization.yaml",
        Some(10),
        "var 'CFG' already encountered",
    );
    // kustomize logs "well-defined vars that were never replaced: CFG" and renders.
    assert_finding(
        the_finding(&report, "kustomize.vars.unused"),
        "warning",
        "unused/kustomization.yaml",
        None,
        "well-defined vars that were never replaced: CFG",
    );
}

#[test]
fn a_var_whose_object_is_missing_or_ambiguous_is_an_error_worded_as_kustomize() {
    let env = TestEnv::new();
    env.write("missing/cm.yaml", cm("cfg"))
        .write(
            "missing/kustomization.yaml",
            "resources: [cm.yaml]\nvars:\n- name: CFG\n  objref: {kind: ConfigMap, name: nope, apiVersion: v1}\n",
        )
        .write(
            "ambiguous/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: x\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: y\n",
        )
        .write(
            "ambiguous/kustomization.yaml",
            "resources: [cm.yaml]\nvars:\n- name: CFG\n  objref: {kind: ConfigMap, name: cfg, apiVersion: v1}\n",
        );
    env.commit("vars without one object");
    let report = check(&env, 1);
    // Go's %v of the var: its target prints as its Gvk, the version filled from apiVersion
    // once kustomize looked it up (and the field path defaulted when it resolved it).
    let missing = the_finding(&report, "kustomize.vars");
    assert_finding(
        missing,
        "error",
        "missing/kustomization.yaml",
        Some(2),
        "var '{CFG ConfigMap.v1.[noGrp] {metadata.name}}' cannot be mapped to a field in the set of known resources",
    );
    let ambiguous = the_finding(&report, "kustomize.vars.ambiguous");
    assert_finding(
        ambiguous,
        "error",
        "ambiguous/kustomization.yaml",
        Some(3),
        "found 2 resId matches for var {CFG ConfigMap.v1.[noGrp] {}} (unable to disambiguate)",
    );
    assert_reference(
        ambiguous,
        "merging vars [{CFG ConfigMap.[noVer].[noGrp] {}}]: found 2 resId matches for var {CFG ConfigMap.v1.[noGrp] {}} (unable to disambiguate)",
    );
}

/// `mergeValues` is kdelta's extension (docs/kustomize.md; kustomize never implemented proposal
/// 22-03), so these messages are kdelta's own.
#[test]
fn merge_values_need_behavior_merge_and_values_that_parse() {
    let env = TestEnv::new();
    let base = "configMapGenerator:\n- name: app\n  literals:\n  - 'config.json={\"server\": {\"port\": 80}}'\n";
    let overlay = |behavior: &str, value: &str| {
        format!("resources: [../base]\nconfigMapGenerator:\n- name: app\n  behavior: {behavior}\n  mergeValues:\n  - key: config.json\n    format: json\n  literals:\n  - 'config.json={value}'\n")
    };
    env.write("base/kustomization.yaml", base)
        .write(
            "good/kustomization.yaml",
            overlay("merge", "{\"debug\": true}"),
        )
        .write(
            "replace/kustomization.yaml",
            overlay("replace", "{\"debug\": true}"),
        )
        .write("broken/kustomization.yaml", overlay("merge", "{debug"));
    env.commit("mergeValues");
    let report = check(&env, 1);
    let mut found: Vec<(String, String)> = findings_of(&report, "kustomize.generator.merge-values")
        .iter()
        .map(|f| {
            (
                f["file"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    found.sort();
    assert_eq!(found.len(), 2, "{report:#}");
    assert_eq!(found[0].0, "broken/kustomization.yaml");
    assert!(
        found[0].1.starts_with("mergeValues of key 'config.json': "),
        "{found:?}"
    );
    assert_eq!(found[1].0, "replace/kustomization.yaml");
    assert_eq!(
        found[1].1,
        "mergeValues needs behavior: merge (generator 'app' has 'replace')"
    );
    // The good overlay merges the two documents.
    env.kdelta(&["render", "good"])
        .success()
        .stdout_has(r#"{"debug":true,"server":{"port":80}}"#);
}

#[test]
fn a_create_generator_over_an_existing_object_and_a_merge_with_nothing_to_merge_are_errors() {
    let env = TestEnv::new();
    env.write("exists/cm.yaml", cm("settings"))
        .write(
            "exists/kustomization.yaml",
            "resources:\n- cm.yaml\nconfigMapGenerator:\n- name: settings\n  literals:\n  - A=1\n",
        )
        .write(
            "no-base/kustomization.yaml",
            "configMapGenerator:\n- name: settings\n  behavior: merge\n  literals:\n  - A=1\n",
        );
    env.commit("generators");
    let report = check(&env, 1);
    let id = "id resid.ResId{Gvk:resid.Gvk{Group:\"\", Version:\"v1\", Kind:\"ConfigMap\", isClusterScoped:false}, Name:\"settings\", Namespace:\"\"}";
    let f = the_finding(&report, "kustomize.generator.exists");
    assert_finding(
        f,
        "error",
        "exists/kustomization.yaml",
        Some(4),
        &format!("{id} exists; behavior must be merge or replace"),
    );
    assert_reference(
        f,
        &format!("merging from generator settings: {id} exists; behavior must be merge or replace"),
    );
    assert_finding(
        the_finding(&report, "kustomize.generator.no-base"),
        "error",
        "no-base/kustomization.yaml",
        Some(2),
        &format!("{id} does not exist; cannot merge or replace"),
    );
}

#[test]
fn a_merge_generator_matching_two_objects_is_ambiguous() {
    let env = TestEnv::new();
    env.write("base/cm.yaml", cm("s"))
        .write("base/kustomization.yaml", "namePrefix: p-\nresources:\n- cm.yaml\n")
        .write("overlay/cm.yaml", cm("s"))
        .write(
            "overlay/kustomization.yaml",
            "resources:\n- ../base\n- cm.yaml\nconfigMapGenerator:\n- name: s\n  behavior: merge\n  literals:\n  - A=1\n",
        );
    env.commit("ambiguous merge");
    let report = check(&env, 1);
    // kustomize lists both objects between "found multiple objects" and "that could accept".
    assert_finding(
        the_finding(&report, "kustomize.generator.ambiguous"),
        "error",
        "overlay/kustomization.yaml",
        Some(5),
        "that could accept merge of ConfigMap.v1.[noGrp]/s.[noNs]",
    );
}

#[test]
fn a_generator_that_cannot_be_used_or_repeats_a_key_is_an_error() {
    let env = TestEnv::new();
    env.write(
        "no-equals/kustomization.yaml",
        "configMapGenerator:\n- name: s\n  literals:\n  - NOEQUALS\n",
    )
    .write(
        "repeated/kustomization.yaml",
        "configMapGenerator:\n- name: settings\n  literals:\n  - A=1\n  - A=2\n",
    );
    env.commit("bad literals");
    let report = check(&env, 1);
    assert_finding(
        the_finding(&report, "kustomize.generator.invalid"),
        "error",
        "no-equals/kustomization.yaml",
        Some(2),
        "invalid literal source NOEQUALS, expected key=value",
    );
    assert_finding(
        the_finding(&report, "kustomize.generator.duplicate-key"),
        "error",
        "repeated/kustomization.yaml",
        Some(2),
        "configmap settings illegally repeats the key `A`",
    );
}

#[test]
fn an_unknown_behavior_and_a_key_the_api_server_rejects_are_warnings() {
    // kustomize accepts both silently: it reads the behavior as create and generates the key.
    let env = TestEnv::new();
    env.write(
        "app/kustomization.yaml",
        "configMapGenerator:\n- name: settings\n  behavior: upsert\n  literals:\n  - a b=1\n",
    );
    env.commit("odd generator");
    let report = check(&env, 0);
    assert_finding(
        the_finding(&report, "kustomize.generator.behavior"),
        "warning",
        "app/kustomization.yaml",
        Some(2),
        "unknown generator behavior 'upsert' is read as create",
    );
    assert_finding(
        the_finding(&report, "kustomize.generator.invalid-key"),
        "warning",
        "app/kustomization.yaml",
        Some(2),
        "\"a b\" is not a valid key name for a ConfigMap",
    );
    env.kdelta(&["render", "app"])
        .success()
        .stdout_has("  a b: \"1\"\n");
}

// ---------------------------------------------------------------------------------------------
// Kustomize: exec plugins (their wording against kubectl kustomize v5.5.0 is pinned by
// testdata/kustomize/16*-*exec-*)

/// A repository whose `app` kustomization runs the generator `Greeter`, and (with `script`)
/// that plugin installed in the private home's XDG plugin root, which exists either way.
fn greeter_repo(script: Option<&str>) -> TestEnv {
    let env = TestEnv::new();
    let dir = env
        .root()
        .join("home/.config/kustomize/plugin/example.com/v1/greeter");
    std::fs::create_dir_all(&dir).unwrap();
    if let Some(script) = script {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join("Greeter");
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    env.write("app/kustomization.yaml", "generators:\n- greeter.yaml\n")
        .write(
            "app/greeter.yaml",
            "apiVersion: example.com/v1\nkind: Greeter\nmetadata:\n  name: greetings\n",
        );
    env.commit("greeter");
    env
}

/// `kdelta check --enable-exec-plugins` in `env`, failing: the JSON report, and the text
/// report with the temporary root written as `$ROOT`.
fn check_with_plugins(env: &TestEnv) -> (Value, String) {
    let report_in = |format: &str| {
        let mut cmd = env.kdelta_cmd(&[
            "check",
            "--enable-exec-plugins",
            "--color",
            "never",
            "--format",
            format,
        ]);
        cmd.env_remove("KUSTOMIZE_PLUGIN_HOME");
        let out = run(cmd).code(1);
        out.stdout
            .replace(env.root().to_string_lossy().as_ref(), "$ROOT")
    };
    let report = serde_json::from_str(&report_in("json")).expect("a JSON report");
    (report, report_in("text"))
}

#[test]
fn an_exec_plugin_missing_from_the_plugin_root_is_not_found() {
    let env = greeter_repo(None);
    let (report, text) = check_with_plugins(&env);
    let f = the_finding(&report, "kustomize.plugin.not-found");
    assert_finding(
        f,
        "error",
        "app/greeter.yaml",
        Some(1),
        "exec plugin Greeter.v1.example.com/greetings.[noNs] not found: no executable $ROOT/home/.config/kustomize/plugin/example.com/v1/greeter/Greeter",
    );
    assert_eq!(
        f["reference_message"],
        "loading generator plugins: failed to load generator: expected file with Go object code at: $ROOT/home/.config/kustomize/plugin/example.com/v1/greeter/Greeter.so",
        "{f:#}"
    );
    insta::assert_snapshot!("kustomize_plugin_not_found", text);
}

#[test]
fn an_exec_plugin_that_exits_non_zero_failed_with_its_stderr() {
    let env = greeter_repo(Some(
        "#!/bin/sh\necho 'greeter: no greeting configured' >&2\nexit 3\n",
    ));
    let (report, text) = check_with_plugins(&env);
    let f = the_finding(&report, "kustomize.plugin.failed");
    assert_finding(
        f,
        "error",
        "app/greeter.yaml",
        Some(1),
        "exec plugin $ROOT/home/.config/kustomize/plugin/example.com/v1/greeter/Greeter failed: exit status 3: greeter: no greeting configured",
    );
    // kustomize names the temporary file it wrote the config to; kdelta the config's file.
    assert_eq!(
        f["reference_message"],
        "greeter: no greeting configured\n: failure in plugin configured via app/greeter.yaml; exit status 3",
        "{f:#}"
    );
    insta::assert_snapshot!("kustomize_plugin_failed", text);
}

#[test]
fn an_exec_plugin_that_prints_no_yaml_printed_invalid_output() {
    let env = greeter_repo(Some("#!/bin/sh\necho 'greeting: hello: world'\n"));
    let (report, text) = check_with_plugins(&env);
    let f = the_finding(&report, "kustomize.plugin.output");
    assert_finding(
        f,
        "error",
        "app/greeter.yaml",
        Some(1),
        "plugin Greeter.v1.example.com/greetings.[noNs] printed invalid YAML at line 1, column 16 of its output: mapping values are not allowed in this context",
    );
    assert_eq!(
        f["reference_message"],
        "MalformedYAMLError: yaml: mapping values are not allowed in this context",
        "{f:#}"
    );
    insta::assert_snapshot!("kustomize_plugin_output", text);
}

// ---------------------------------------------------------------------------------------------
// Kustomize: replacements

/// ConfigMaps `src` (data.image `nginx:1.27`) and `dst` (data.v `old`).
const REPLACEMENT_CMS: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: src\ndata:\n  image: nginx:1.27\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dst\ndata:\n  v: old\n";

/// A kustomization in `dir` over [`REPLACEMENT_CMS`] with one replacement, whose entry is at
/// line 4: a source with `source` (after `kind: ConfigMap`) and the target `dst`'s `data.v`.
fn write_replacement(env: &TestEnv, dir: &str, source: &str) {
    env.write(&format!("{dir}/cm.yaml"), REPLACEMENT_CMS).write(
        &format!("{dir}/kustomization.yaml"),
        format!("resources:\n- cm.yaml\nreplacements:\n- source:\n    kind: ConfigMap\n{source}  targets:\n  - select:\n      name: dst\n    fieldPaths:\n    - data.v\n"),
    );
}

#[test]
fn a_replacement_target_label_selector_that_does_not_parse_is_an_error_at_the_entry() {
    // testdata/kustomize/159 holds kubectl kustomize's message: the Kubernetes label parser's.
    let env = TestEnv::new();
    env.write("app/cm.yaml", REPLACEMENT_CMS).write(
        "app/kustomization.yaml",
        "resources:\n- cm.yaml\nreplacements:\n- source:\n    kind: ConfigMap\n    name: src\n    fieldPath: data.image\n  targets:\n  - select:\n      labelSelector: app in (a\n    fieldPaths:\n    - data.v\n",
    );
    env.commit("label selector that does not parse");
    let report = check(&env, 1);
    let f = the_finding(&report, "kustomize.replacement.invalid-selector");
    assert_finding(
        f,
        "error",
        "app/kustomization.yaml",
        Some(4),
        "unable to parse requirement: found '', expected: ',' or ')'",
    );
    assert_eq!(
        f["message"], "unable to parse requirement: found '', expected: ',' or ')'",
        "{f:#}"
    );
}

#[test]
fn a_replacement_source_matching_two_objects_or_lacking_the_field_is_an_error_at_the_entry() {
    let env = TestEnv::new();
    write_replacement(&env, "ambiguous", "    fieldPath: data.v\n");
    write_replacement(
        &env,
        "missing",
        "    name: src\n    fieldPath: data.nothere\n",
    );
    env.commit("sources");
    let report = check(&env, 1);
    assert_finding(
        the_finding(&report, "kustomize.replacement.ambiguous-source"),
        "error",
        "ambiguous/kustomization.yaml",
        Some(4),
        "multiple matches for selector ConfigMap.[noVer].[noGrp]/[noName].[noNs]:data.v",
    );
    assert_finding(
        the_finding(&report, "kustomize.replacement.source-field-missing"),
        "error",
        "missing/kustomization.yaml",
        Some(4),
        "fieldPath `data.nothere` is missing for replacement source ConfigMap.[noVer].[noGrp]/src.[noNs]",
    );
}

#[test]
fn a_replacement_source_value_that_cannot_be_followed_or_split_is_an_error_at_the_entry() {
    let env = TestEnv::new();
    // A path through a string.
    write_replacement(
        &env,
        "through-scalar",
        "    name: src\n    fieldPath: data.image.x\n",
    );
    // A delimiter on a map.
    write_replacement(
        &env,
        "split-map",
        "    name: src\n    fieldPath: data\n    options:\n      delimiter: \":\"\n",
    );
    // An index past the parts.
    write_replacement(
        &env,
        "index",
        "    name: src\n    fieldPath: data.image\n    options:\n      delimiter: \":\"\n      index: 5\n",
    );
    env.commit("source values");
    let report = check(&env, 1);
    // kustomize adds ": node contents:" and the node.
    assert_finding(
        the_finding(&report, "kustomize.replacement.source-field"),
        "error",
        "through-scalar/kustomization.yaml",
        Some(4),
        "error looking up replacement source: wrong node kind: expected MappingNode but got ScalarNode",
    );
    assert_finding(
        the_finding(&report, "kustomize.replacement.delimiter"),
        "error",
        "split-map/kustomization.yaml",
        Some(4),
        "delimiter option can only be used with scalar nodes",
    );
    assert_finding(
        the_finding(&report, "kustomize.replacement.index-out-of-range"),
        "error",
        "index/kustomization.yaml",
        Some(4),
        "options.index 5 is out of bounds for value nginx:1.27",
    );
}

#[test]
fn a_replacement_without_targets_is_invalid() {
    let env = TestEnv::new();
    env.write("app/cm.yaml", REPLACEMENT_CMS).write(
        "app/kustomization.yaml",
        "resources:\n- cm.yaml\nreplacements:\n- source:\n    kind: ConfigMap\n    name: src\n    fieldPath: data.image\n",
    );
    env.commit("no targets");
    let report = check(&env, 1);
    assert_finding(
        the_finding(&report, "kustomize.replacement.invalid"),
        "error",
        "app/kustomization.yaml",
        Some(4),
        "replacements must specify a source and at least one target",
    );
}

// ---------------------------------------------------------------------------------------------
// Kustomize: output and fields kdelta does not support

#[test]
fn sort_options_that_contradict_each_other_are_an_error_at_sort_options() {
    let env = TestEnv::new();
    env.write("app/cm.yaml", cm("x")).write(
        "app/kustomization.yaml",
        "resources:\n- cm.yaml\nsortOptions:\n  order: fifo\n  legacySortOptions:\n    orderFirst: [Namespace]\n",
    );
    env.commit("fifo with legacy options");
    let report = check(&env, 1);
    assert_finding(
        the_finding(&report, "kustomize.sort-options"),
        "error",
        "app/kustomization.yaml",
        Some(3),
        "the field 'sortOptions.legacySortOptions' is set but the selected sort order is 'fifo', not 'legacy'",
    );
}

#[test]
fn a_key_that_reads_as_a_number_cannot_be_printed() {
    let env = TestEnv::new();
    env.write(
        "app/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  1: one\n",
    )
    .write("app/kustomization.yaml", "resources:\n- cm.yaml\n");
    env.commit("an int key");
    let report = check(&env, 1);
    // kustomize prints the whole object, then "json: unsupported type: …".
    assert_finding(
        the_finding(&report, "kustomize.non-string-key"),
        "error",
        "app/cm.yaml",
        Some(6),
        "the key \"1\" of ConfigMap.v1.[noGrp]/x.[noNs] reads as an int, not a string: json: unsupported type: map[interface {}]interface {}",
    );
}

#[test]
fn validators_are_not_supported_and_stop_the_build() {
    let env = TestEnv::new();
    env.write("app/cm.yaml", cm("x"))
        .write(
            "app/validator.yaml",
            "apiVersion: example.com/v1\nkind: Validator\nmetadata:\n  name: v\n",
        )
        .write(
            "app/kustomization.yaml",
            "resources:\n- cm.yaml\nvalidators:\n- validator.yaml\n",
        );
    env.commit("a validator");
    let report = check(&env, 1);
    assert_finding(
        the_finding(&report, "kustomize.unsupported"),
        "error",
        "app/kustomization.yaml",
        Some(3),
        "'validators' is not supported by this kdelta version yet",
    );
}

// ---------------------------------------------------------------------------------------------
// Plain manifests and reading files

#[test]
fn documents_that_are_no_objects_are_errors_at_the_document() {
    let env = TestEnv::new();
    env.write(".kdelta.yaml", CONFIG)
        .write("manifests/cm.yaml", config_map("ok", "v"))
        .write(
            "manifests/odd.yaml",
            "- a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: {}\n",
        );
    env.commit("odd documents");
    let report = check(&env, 1);
    let invalid = findings_of(&report, "resource.invalid");
    assert_eq!(invalid.len(), 2, "{report:#}");
    assert_finding(
        invalid[0],
        "error",
        "manifests/odd.yaml",
        Some(1),
        "document is not a mapping",
    );
    assert_finding(
        invalid[1],
        "error",
        "manifests/odd.yaml",
        Some(3),
        "object has no kind or no metadata.name",
    );
}

#[test]
fn a_symbolic_link_loop_is_a_read_error_at_the_link() {
    let env = TestEnv::new();
    env.write(".kdelta.yaml", CONFIG)
        .write("manifests/cm.yaml", config_map("ok", "v"))
        .symlink("manifests/loop.yaml", "loop.yaml");
    env.commit("a link to itself");
    for args in [
        &["check", "--format", "json"][..],
        &["check", "--format", "json", "--rev", "HEAD"],
    ] {
        let report = env.kdelta(args).code(1).json();
        assert_finding(
            the_finding(&report, "source.read"),
            "error",
            "manifests/loop.yaml",
            None,
            "too many levels of symbolic links",
        );
    }
}

#[test]
fn an_application_whose_path_is_missing_is_a_not_found_error() {
    let env = TestEnv::new();
    write_web(&env, "");
    env.write(
        "argocd/web.yaml",
        web_application("").replace("path: web", "path: gone"),
    );
    env.commit("path gone");
    let report = check(&env, 1);
    let f = the_finding(&report, "source.not-found");
    assert_finding(
        f,
        "error",
        "argocd/web.yaml",
        None,
        "Application web: source path gone is not a directory in this revision",
    );
    assert_eq!(f["target"], "app:argocd/web.yaml#web");
}

// ---------------------------------------------------------------------------------------------
// Output that cannot be printed

#[test]
fn a_template_whose_output_is_not_yaml_is_an_error_at_the_template() {
    let env = TestEnv::new();
    env.write(
        "charts/app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 0.1.0\n",
    )
    .write(
        "charts/app/templates/bad.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: b: c\n",
    );
    env.commit("bad output");
    let report = check(&env, 1);
    // helm template's words.
    assert_finding(
        the_finding(&report, "helm.output"),
        "error",
        "charts/app/templates/bad.yaml",
        None,
        "YAML parse error on app/templates/bad.yaml: error converting YAML to JSON: yaml: line 6: mapping values are not allowed in this context",
    );
}

/// A ConfigMap whose value's tag does not fit it.
const UNTYPABLE_CM: &str =
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  v: !!int three\n";

#[test]
fn a_kustomize_object_with_a_value_that_cannot_be_typed_cannot_be_printed() {
    let env = TestEnv::new();
    env.write("app/cm.yaml", UNTYPABLE_CM)
        .write("app/kustomization.yaml", "resources:\n- cm.yaml\n");
    env.commit("untypable");
    let report = check(&env, 1);
    // kubectl kustomize: "map[string]interface {}(nil): yaml: cannot decode !!str `three` as a
    // !!int".
    assert_finding(
        the_finding(&report, "kustomize.output"),
        "error",
        "app/cm.yaml",
        Some(1),
        "cannot decode !!str `three` as a !!int",
    );
}

#[test]
fn an_application_directory_with_a_value_that_cannot_be_typed_is_an_unmarshal_error() {
    let env = TestEnv::new();
    write_web(&env, "");
    env.write("web/cm.yaml", UNTYPABLE_CM);
    env.commit("untypable");
    // Argo CD's repo-server decodes each object into JSON and fails the generation.
    let report = check(&env, 1);
    let invalid: Vec<&Value> = findings_of(&report, "resource.invalid")
        .into_iter()
        .filter(|f| f["target"].as_str().unwrap_or_default().starts_with("app:"))
        .collect();
    assert_eq!(invalid.len(), 1, "{report:#}");
    assert_finding(
        invalid[0],
        "error",
        "web/cm.yaml",
        Some(1),
        "Failed to unmarshal \"cm.yaml\": line 6: cannot decode !!str `three` as a !!int",
    );
    env.kdelta(&["render", "app:argocd/web.yaml#web"])
        .code(1)
        .stderr_has("cannot decode !!str `three` as a !!int");
}

// ---------------------------------------------------------------------------------------------
// Kustomize: builtin transformers

#[test]
fn a_transformer_that_meets_a_field_of_the_wrong_kind_is_an_error_at_its_field() {
    let env = TestEnv::new();
    env.write(
        "annotations/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations: [a]\n",
    )
    .write(
        "annotations/kustomization.yaml",
        "resources:\n- cm.yaml\ncommonAnnotations:\n  team: a\n",
    )
    .write(
        "replicas/deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec: [a]\n",
    )
    .write(
        "replicas/kustomization.yaml",
        "resources:\n- deploy.yaml\nreplicas:\n- name: web\n  count: 3\n",
    );
    env.commit("fields of the wrong kind");
    let report = check(&env, 1);
    // kustomize adds ": node contents:" and the node.
    assert_finding(
        the_finding(&report, "kustomize.transform"),
        "error",
        "annotations/kustomization.yaml",
        Some(3),
        "considering field 'metadata/annotations' of object ConfigMap.v1.[noGrp]/x.[noNs]: wrong node kind: expected MappingNode but got SequenceNode",
    );
    assert_finding(
        the_finding(&report, "kustomize.replicas"),
        "error",
        "replicas/kustomization.yaml",
        Some(4),
        "considering field 'spec/replicas' of object Deployment.v1.apps/web.[noNs]: visit traversal on path: [replicas]: expected sequence or mapping node",
    );
}

#[test]
fn an_image_field_that_is_a_map_is_an_images_error_worded_as_kustomize() {
    let env = TestEnv::new();
    env.write(
        "app/deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      containers:\n      - name: c\n        image:\n          name: nginx\n",
    )
    .write(
        "app/kustomization.yaml",
        "resources: [deploy.yaml]\nimages:\n- name: nginx\n  newTag: \"2\"\n",
    );
    env.commit("an image that is a map");
    let report = check(&env, 1);
    let f = the_finding(&report, "kustomize.images");
    // As kubectl kustomize v5.5.0 prints it: kyaml's wording with the node's contents.
    assert_finding(
        f,
        "error",
        "app/kustomization.yaml",
        Some(3),
        "wrong node kind: expected ScalarNode but got MappingNode: node contents:\nname: nginx\n",
    );
}

#[test]
fn a_helm_charts_entry_kustomize_refuses_is_an_error_in_its_words() {
    let env = TestEnv::new();
    env.write(
        "nameless/kustomization.yaml",
        "helmCharts:\n- version: 1.0.0\n",
    )
    .write(
        "merge/kustomization.yaml",
        "helmCharts:\n- name: c\n  valuesMerge: bogus\n  valuesInline: {a: 1}\n",
    )
    .write(
        "merge/charts/c/Chart.yaml",
        "apiVersion: v2\nname: c\nversion: 1.0.0\n",
    )
    .write("merge/charts/c/values.yaml", "{}\n");
    env.commit("helmCharts entries kustomize refuses");
    let report = check(&env, 1);
    let mut found: Vec<(String, String)> = findings_of(&report, "kustomize.helm.invalid")
        .iter()
        .map(|f| {
            (
                f["file"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    found.sort();
    // kubectl kustomize v5.5.0: "trouble configuring builtin HelmChartInflationGenerator with
    // config: `<the entry>`: chart name cannot be empty" (and "valuesMerge must be one of
    // [merge override replace]").
    assert_eq!(found.len(), 2, "{report:#}");
    assert_eq!(found[0].0, "merge/kustomization.yaml");
    assert!(
        found[0]
            .1
            .contains("valuesMerge must be one of [merge override replace]"),
        "{found:?}"
    );
    assert_eq!(found[1].0, "nameless/kustomization.yaml");
    assert!(
        found[1].1.contains("chart name cannot be empty"),
        "{found:?}"
    );
}

#[test]
fn an_openapi_version_kustomize_does_not_have_is_an_error() {
    let env = TestEnv::new();
    env.write("app/cm.yaml", cm("x")).write(
        "app/kustomization.yaml",
        "resources:\n- cm.yaml\nopenapi:\n  version: v1.99.0\n",
    );
    env.commit("openapi version");
    let report = check(&env, 1);
    assert_finding(
        the_finding(&report, "kustomize.openapi"),
        "error",
        "app/kustomization.yaml",
        Some(3),
        "the specified OpenAPI version is not built in",
    );
}

#[test]
fn a_name_reference_through_a_field_of_the_wrong_kind_is_an_error() {
    let env = TestEnv::new();
    env.write(
        "app/pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: x\n  volumes:\n  - name: v\n    configMap: cfg\n",
    )
    .write(
        "app/kustomization.yaml",
        "resources:\n- pod.yaml\nconfigMapGenerator:\n- name: cfg\n  literals:\n  - A=1\n",
    );
    env.commit("configMap as a string");
    let report = check(&env, 1);
    assert_finding(
        the_finding(&report, "kustomize.name-reference"),
        "error",
        "app/kustomization.yaml",
        None,
        "updating name reference in 'spec/volumes/configMap/name' field of 'Pod.v1.[noGrp]/p.[noNs]': considering field 'spec/volumes/configMap/name' of object Pod.v1.[noGrp]/p.[noNs]: visit traversal on path: [configMap name]: expected sequence or mapping node",
    );
}

#[test]
fn a_builtin_plugin_config_of_an_unknown_kind_or_the_other_role_is_an_error_at_the_config() {
    // testdata/kustomize/156, 157 and 158 hold kubectl kustomize's messages.
    let env = TestEnv::new();
    let generator = |dir: &str, config: &str| {
        env.write(&format!("{dir}/cm.yaml"), cm("a"))
            .write(
                &format!("{dir}/kustomization.yaml"),
                "resources:\n- cm.yaml\ngenerators:\n- gen.yaml\n",
            )
            .write(&format!("{dir}/gen.yaml"), config);
    };
    generator(
        "unknown",
        "apiVersion: builtin\nkind: Frobnicator\nmetadata:\n  name: f\n",
    );
    generator(
        "transformer",
        "apiVersion: builtin\nkind: PrefixSuffixTransformer\nmetadata:\n  name: f\nprefix: x-\n",
    );
    // kustomize configures the plugin before it checks its role.
    generator(
        "no-patch",
        "apiVersion: builtin\nkind: PatchTransformer\nmetadata:\n  name: f\n",
    );
    env.write("generator/cm.yaml", cm("a"))
        .write(
            "generator/kustomization.yaml",
            "resources:\n- cm.yaml\ntransformers:\n- t.yaml\n",
        )
        .write(
            "generator/t.yaml",
            "apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata:\n  name: f\nliterals:\n- a=b\n",
        );
    env.commit("plugins of the wrong kind");
    let report = check(&env, 1);
    let unknown = findings_of(&report, "kustomize.plugin.unknown");
    assert_eq!(unknown.len(), 3, "{report:#}");
    let of = |file: &str| {
        *unknown
            .iter()
            .find(|f| f["file"] == file)
            .unwrap_or_else(|| panic!("no finding in {file}: {report:#}"))
    };
    let f = of("unknown/gen.yaml");
    assert_finding(
        f,
        "error",
        "unknown/gen.yaml",
        Some(1),
        "unable to load builtin Frobnicator.builtin.[noGrp]",
    );
    assert_reference(
        f,
        "loading generator plugins: failed to load generator: unable to load builtin Frobnicator.builtin.[noGrp]",
    );
    assert!(
        f["help"].as_str().unwrap().contains("ConfigMapGenerator"),
        "{f:#}"
    );
    assert_reference(
        of("transformer/gen.yaml"),
        "loading generator plugins: failed to load generator: plugin PrefixSuffixTransformer.builtin.[noGrp]/f.[noNs] not a generator",
    );
    assert_finding(
        of("generator/t.yaml"),
        "error",
        "generator/t.yaml",
        Some(1),
        "plugin ConfigMapGenerator.builtin.[noGrp]/f.[noNs] not a transformer",
    );
    let config = the_finding(&report, "kustomize.plugin.config");
    assert_finding(
        config,
        "error",
        "no-patch/gen.yaml",
        Some(1),
        "must specify one of patch and path in\napiVersion: builtin\nkind: PatchTransformer\nmetadata:\n  name: f\n",
    );
    assert_reference(
        config,
        "loading generator plugins: failed to load generator: plugin PatchTransformer.builtin.[noGrp]/f.[noNs] fails configuration: must specify one of patch and path in\napiVersion: builtin\nkind: PatchTransformer\nmetadata:\n  name: f\n",
    );
}

#[test]
fn a_krm_function_is_not_run_and_said_so() {
    let env = TestEnv::new();
    env.write("app/cm.yaml", cm("x"))
        .write(
            "app/set-labels.yaml",
            "apiVersion: example.com/v1\nkind: SetLabels\nmetadata:\n  name: f\n  annotations:\n    config.kubernetes.io/function: |\n      container:\n        image: example.com/set-labels:v1\n",
        )
        .write(
            "app/kustomization.yaml",
            "resources:\n- cm.yaml\ntransformers:\n- set-labels.yaml\n",
        );
    env.commit("a KRM function");
    let report = check(&env, 0);
    assert_finding(
        the_finding(&report, "kustomize.plugin.krm-function"),
        "notice",
        "app/set-labels.yaml",
        Some(1),
        "KRM function SetLabels.v1.example.com/f.[noNs] (container image example.com/set-labels:v1) is not run by kdelta; its output is missing",
    );
    // What it would have made or changed is missing: the target is incomplete.
    let target = report["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "kustomize:app")
        .expect("the kustomization's target");
    assert_eq!(target["incomplete"], true, "{target:#}");
}

#[test]
fn a_patch_file_document_that_is_no_object_is_an_error_at_its_line() {
    let env = TestEnv::new();
    env.write(
        "patched/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n",
    )
    .write(
        "patched/kustomization.yaml",
        "resources:\n- cm.yaml\npatchesStrategicMerge:\n- patch.yaml\n",
    )
    // The second document of the patch file has no kind.
    .write(
        "patched/patch.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n---\napiVersion: v1\nmetadata:\n  name: cm\n",
    );
    env.commit("a patch without kind");
    let report = check(&env, 1);
    assert_finding(
        the_finding(&report, "kustomize.patch"),
        "error",
        "patched/patch.yaml",
        Some(6),
        "missing kind in object in File: patch.yaml",
    );
}
