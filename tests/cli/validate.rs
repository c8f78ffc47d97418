//! Validation of what renders: schema findings at the field's file and line, removed and
//! deprecated apiVersions for the Kubernetes version asked for, custom resources against the
//! repository's own CRDs, new/existing/fixed in a diff, and the configuration's switches.

use super::*;

/// A valid Deployment `prod/web`, with `extra` appended under `spec.template.spec.containers[0]`.
fn web(extra: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: prod\n\
         spec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: web\n  template:\n    \
         metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      \
         - name: web\n        image: nginx:1.27\n{extra}"
    )
}

const OLD_INGRESS: &str = "apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata:\n  name: old\n  namespace: prod\nspec:\n  backend:\n    serviceName: web\n    servicePort: 80\n";

fn findings_of<'a>(report: &'a Value, rule: &str) -> Vec<&'a Value> {
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == rule)
        .collect()
}

#[test]
fn check_reports_schema_errors_at_the_field_and_apis_the_version_removed() {
    let env = TestEnv::new();
    env.write(".kdelta.yaml", CONFIG)
        .write(
            "manifests/web.yaml",
            web("        ports:\n        - containerPort: \"80\"\n        imagePullPolicy: Always\n        resource: {}\n"),
        )
        .write("manifests/ingress.yaml", OLD_INGRESS);
    env.commit("base");

    let report = env.kdelta(&["check", "--format", "json"]).code(1).json();
    let typed = findings_of(&report, "schema.type");
    assert_eq!(typed.len(), 1, "{report:#}");
    assert_eq!(typed[0]["file"], "manifests/web.yaml");
    assert_eq!(typed[0]["line"], 20, "{:#}", typed[0]);
    assert!(
        typed[0]["message"]
            .as_str()
            .unwrap()
            .contains("spec.template.spec.containers[0].ports[0].containerPort"),
        "{:#}",
        typed[0]
    );
    let unknown = findings_of(&report, "schema.unknown-field");
    assert_eq!(unknown.len(), 1, "{report:#}");
    assert_eq!(unknown[0]["line"], 22);
    assert!(unknown[0]["message"]
        .as_str()
        .unwrap()
        .contains("\"resource\""));

    let removed = findings_of(&report, "api.removed");
    assert_eq!(removed.len(), 1, "{report:#}");
    let message = removed[0]["message"].as_str().unwrap();
    assert!(message.contains("removed in 1.22"), "{message}");
    assert!(
        message.contains("networking.k8s.io/v1 Ingress"),
        "{message}"
    );
    assert_eq!(removed[0]["file"], "manifests/ingress.yaml");

    // On a cluster that still serves it, the Ingress is deprecated, not removed; the upgrade
    // check says what the next version removes.
    let old = env
        .kdelta(&[
            "check",
            "--format",
            "json",
            "--kube-version",
            "1.21",
            "--next-kube-version",
            "1.22",
        ])
        .code(1)
        .json();
    assert!(findings_of(&old, "api.removed").is_empty(), "{old:#}");
    assert_eq!(findings_of(&old, "api.deprecated").len(), 1, "{old:#}");
    assert_eq!(findings_of(&old, "api.removed-next").len(), 1, "{old:#}");

    // Off: nothing of it, and the run passes.
    let off = env
        .kdelta(&["check", "--format", "json", "--no-validate"])
        .success()
        .json();
    assert!(
        off["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| !f["rule"].as_str().unwrap().starts_with("schema.")),
        "{off:#}"
    );
}

#[test]
fn a_diff_fails_only_on_the_validation_errors_it_introduces() {
    let env = TestEnv::new();
    env.write(".kdelta.yaml", CONFIG)
        .write("manifests/web.yaml", web("        resource: {}\n"))
        .write("manifests/ingress.yaml", OLD_INGRESS);
    let base = env.commit("base: two known problems");

    // Only the replicas change: both problems exist at base, so the diff passes.
    env.write(
        "manifests/web.yaml",
        web("        resource: {}\n").replace("replicas: 2", "replicas: 3"),
    );
    let same = env.commit("replicas");
    let r = env.kdelta(&["diff", &base, &same]).success();
    assert!(
        r.stdout
            .contains("error[schema.unknown-field] (existing) manifests/web.yaml:"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("error[api.removed] (existing)"),
        "{}",
        r.stdout
    );

    // A new problem fails it; the fixed one is said as fixed.
    env.write(
        "manifests/web.yaml",
        web("        ports:\n        - containerPort: \"80\"\n"),
    );
    let head = env.commit("a new problem, an old one fixed");
    let r = env.kdelta(&["diff", &base, &head]).code(1);
    assert!(
        r.stdout
            .contains("error[schema.type] (new) manifests/web.yaml:"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("error[schema.unknown-field] (fixed)"),
        "{}",
        r.stdout
    );
    let report = env
        .kdelta(&["diff", &base, &head, "--format", "json"])
        .code(1)
        .json();
    let baselines: Vec<(&str, &str)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| Some((f["rule"].as_str()?, f["baseline"].as_str()?)))
        .collect();
    assert!(baselines.contains(&("schema.type", "new")), "{baselines:?}");
    assert!(
        baselines.contains(&("api.removed", "existing")),
        "{baselines:?}"
    );
    assert!(
        baselines.contains(&("schema.unknown-field", "fixed")),
        "{baselines:?}"
    );
    let errors: Vec<String> = report_schema()
        .iter_errors(&report)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let sarif_file = env.repo().join("../report.sarif");
    env.kdelta(&[
        "diff",
        &base,
        &head,
        "--sarif",
        sarif_file.to_str().unwrap(),
    ])
    .code(1);
    let sarif: Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif_file).expect("SARIF written"))
            .expect("SARIF is JSON");
    let states: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["baselineState"].as_str())
        .collect();
    assert!(
        states.contains(&"new") && states.contains(&"unchanged"),
        "{states:?}"
    );
}

const CRD: &str = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  names:\n    kind: Widget\n    plural: widgets\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              size:\n                type: integer\n                minimum: 1\n";

#[test]
fn custom_resources_are_checked_against_the_crds_the_repository_renders() {
    let env = TestEnv::new();
    env.write(".kdelta.yaml", "directories: [crds, manifests]\n")
        .write("crds/widget.yaml", CRD)
        .write(
            "manifests/widgets.yaml",
            "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: ok\n  namespace: prod\nspec:\n  size: 3\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: bad\n  namespace: prod\nspec:\n  size: big\n  colour: red\n---\napiVersion: example.com/v2\nkind: Widget\nmetadata:\n  name: unserved\n  namespace: prod\n---\napiVersion: other.example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n  namespace: prod\n",
        );
    env.commit("widgets");
    let report = env.kdelta(&["check", "--format", "json"]).code(1).json();
    let typed = findings_of(&report, "schema.type");
    assert_eq!(typed.len(), 1, "{report:#}");
    assert!(typed[0]["message"]
        .as_str()
        .unwrap()
        .contains("Widget/prod/bad"));
    assert_eq!(typed[0]["line"], 15, "{:#}", typed[0]);
    let unknown = findings_of(&report, "schema.unknown-field");
    assert_eq!(unknown.len(), 1, "{report:#}");
    assert!(unknown[0]["message"].as_str().unwrap().contains("colour"));
    let unserved = findings_of(&report, "schema.unknown-kind");
    assert_eq!(unserved.len(), 1, "{report:#}");
    assert!(unserved[0]["message"]
        .as_str()
        .unwrap()
        .contains("example.com/v2"));
    // No CRD anywhere: a notice, never silence.
    let none = findings_of(&report, "schema.no-schema");
    assert_eq!(none.len(), 1, "{report:#}");
    assert_eq!(none[0]["severity"], "notice");
    assert!(none[0]["message"].as_str().unwrap().contains("Gadget"));
}

const RULED_CRD: &str = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ranges.example.com\nspec:\n  group: example.com\n  names:\n    kind: Range\n    plural: ranges\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            x-kubernetes-validations:\n            - rule: self.min <= self.max\n              message: min must not exceed max\n            - rule: self.min != oldSelf.min\n            - rule: self.max > 0 || self.size.split(',').transformList(i, v, v) == []\n            - rule: self.min >\n            properties:\n              min: {type: integer, default: 5}\n              max: {type: integer}\n              size: {type: string}\n";

#[test]
fn crd_rules_are_evaluated_after_defaults_and_rules_kdelta_cannot_run_are_said_once() {
    let env = TestEnv::new();
    env.write(".kdelta.yaml", "directories: [crds, manifests]\n")
        .write("crds/range.yaml", RULED_CRD)
        .write(
            "manifests/ranges.yaml",
            "apiVersion: example.com/v1\nkind: Range\nmetadata:\n  name: ok\n  namespace: prod\nspec:\n  min: 1\n  max: 3\n---\napiVersion: example.com/v1\nkind: Range\nmetadata:\n  name: defaulted\n  namespace: prod\nspec:\n  max: 3\n---\napiVersion: example.com/v1\nkind: Range\nmetadata:\n  name: bad\n  namespace: prod\nspec:\n  min: 4\n  max: 3\n",
        );
    env.commit("ranges");
    let report = env.kdelta(&["check", "--format", "json"]).code(1).json();
    let rule = findings_of(&report, "schema.rule");
    let messages: Vec<&str> = rule.iter().filter_map(|f| f["message"].as_str()).collect();
    // Two objects break the rule (one through min's default); the transition rule is
    // skipped; the rule that does not compile is one finding, at the CRD.
    assert_eq!(rule.len(), 3, "{report:#}");
    assert!(
        messages
            .contains(&"example.com/v1/Range/prod/bad: spec: Invalid value: \"object\": min must not exceed max"),
        "{messages:?}"
    );
    assert!(
        messages.contains(
            &"example.com/v1/Range/prod/defaulted: spec: Invalid value: \"object\": min must not exceed max"
        ),
        "{messages:?}"
    );
    let bad = rule
        .iter()
        .find(|f| f["message"].as_str().unwrap().contains("prod/bad"))
        .unwrap();
    assert_eq!(
        (bad["file"].as_str(), bad["line"].as_u64()),
        (Some("manifests/ranges.yaml"), Some(24))
    );
    let compile = rule
        .iter()
        .find(|f| f["file"] == "crds/range.yaml")
        .expect("at the CRD");
    assert!(
        compile["message"]
            .as_str()
            .unwrap()
            .contains("\"self.min \\u003e\" does not compile"),
        "{compile:#}"
    );
    let skipped = findings_of(&report, "schema.rule-skipped");
    assert_eq!(skipped.len(), 1, "{report:#}");
    assert_eq!(skipped[0]["severity"], "notice");
    assert_eq!(skipped[0]["file"], "crds/range.yaml");
    assert!(
        skipped[0]["message"]
            .as_str()
            .unwrap()
            .ends_with("kdelta lacks the CEL function transformList"),
        "{:#}",
        skipped[0]
    );
}

#[test]
fn the_configuration_sets_the_version_and_each_rules_severity() {
    let env = TestEnv::new();
    env.write(
        ".kdelta.yaml",
        "directories: [manifests]\nkubernetes:\n  version: \"1.21\"\nrules:\n- rule: schema.*\n  severity: warning\n- rule: schema.unknown-field\n  paths: [\"manifests/legacy/**\"]\n  severity: \"off\"\n",
    )
    .write("manifests/web.yaml", web("        resource: {}\n"))
    .write(
        "manifests/legacy/web.yaml",
        web("        resource: {}\n").replace("name: web\n  namespace", "name: legacy\n  namespace"),
    )
    .write("manifests/ingress.yaml", OLD_INGRESS);
    env.commit("base");
    // Only warnings are left: the version serves the Ingress, and schema findings are
    // warnings, except in legacy/, where unknown fields are not reported at all.
    let report = env.kdelta(&["check", "--format", "json"]).success().json();
    let unknown = findings_of(&report, "schema.unknown-field");
    assert_eq!(unknown.len(), 1, "{report:#}");
    assert_eq!(unknown[0]["severity"], "warning");
    assert_eq!(unknown[0]["file"], "manifests/web.yaml");
    assert_eq!(
        findings_of(&report, "api.deprecated").len(),
        1,
        "{report:#}"
    );

    // A rule glob that names no validation rule is the configuration's error.
    env.write(
        ".kdelta.yaml",
        "directories: [manifests]\nrules:\n- rule: kustomize.*\n  severity: \"off\"\n",
    );
    env.kdelta(&["check"]).code(1).stdout_has(
        "error[config.invalid] .kdelta.yaml:3:9: rules: kustomize.* names no validation rule",
    );

    // validate: false is --no-validate.
    env.write(
        ".kdelta.yaml",
        "directories: [manifests]\nkubernetes:\n  validate: false\n",
    );
    env.kdelta(&["check"]).success();
}

#[test]
fn helm_renders_for_the_configured_kubernetes_version() {
    let env = TestEnv::new();
    env.write(".kdelta.yaml", "kubernetes:\n  version: \"1.29\"\n")
        .write("chart/Chart.yaml", "apiVersion: v2\nname: c\nversion: 1.0.0\n")
        .write(
            "chart/templates/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n",
        );
    env.commit("chart");
    env.kdelta(&["render", "chart"])
        .success()
        .stdout_has("kube: \"v1.29.0\"");
    env.kdelta(&["render", "chart", "--kube-version", "1.31.2"])
        .success()
        .stdout_has("kube: \"v1.31.2\"");
}

#[test]
fn a_base_is_validated_as_part_of_the_overlay_that_includes_it() {
    let env = TestEnv::new();
    // The base lacks the selector its overlay adds: only the overlay is applied.
    let base = web("").replace("  selector:\n    matchLabels:\n      app: web\n", "");
    env.write("app/base/kustomization.yaml", "resources:\n- web.yaml\n")
        .write("app/base/web.yaml", base)
        .write(
            "app/prod/kustomization.yaml",
            "resources:\n- ../base\npatches:\n- patch: |-\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata:\n      name: web\n      namespace: prod\n    spec:\n      selector:\n        matchLabels:\n          app: web\n",
        );
    env.commit("base and overlay");
    let report = env.kdelta(&["check", "--format", "json"]).success().json();
    assert!(
        findings_of(&report, "schema.required").is_empty(),
        "{report:#}"
    );

    // Without the patch, the overlay's own object lacks it: reported there.
    env.write("app/prod/kustomization.yaml", "resources:\n- ../base\n");
    let report = env.kdelta(&["check", "--format", "json"]).code(1).json();
    let required = findings_of(&report, "schema.required");
    assert_eq!(required.len(), 1, "{report:#}");
    assert_eq!(required[0]["target"], "kustomize:app/prod");
}

#[test]
fn a_sops_encrypted_object_is_not_validated_and_a_notice_says_so() {
    let env = TestEnv::new();
    // As `sops --encrypt` leaves a Secret: the values and the metadata are not what is
    // applied (Flux's kustomize-controller or KSOPS decrypts them first).
    env.write(
        "app/secret.sops.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n  namespace: prod\ndata:\n  token: ENC[AES256_GCM,data:d5RH6/yKHPhv0zGikfuG,iv:abc=,tag:def=,type:str]\nsops:\n  age:\n  - recipient: age1xyz\n    enc: |\n      -----BEGIN AGE ENCRYPTED FILE-----\n      -----END AGE ENCRYPTED FILE-----\n  lastmodified: \"2026-01-01T00:00:00Z\"\n  mac: ENC[AES256_GCM,data:abc=,type:str]\n  version: 3.9.0\n",
    )
    .write("app/web.yaml", web("        ports: [{containerPort: \"80\"}]\n"))
    .write("app/kustomization.yaml", "resources: [secret.sops.yaml, web.yaml]\n");
    env.commit("sops");
    let report = env.kdelta(&["check", "--format", "json"]).code(1).json();
    // The plain object still is.
    assert_eq!(findings_of(&report, "schema.type").len(), 1, "{report:#}");
    let errors: Vec<&Value> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["file"] == "app/secret.sops.yaml" && f["severity"] != "notice")
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let notice = findings_of(&report, "schema.no-schema");
    assert_eq!(notice.len(), 1, "{report:#}");
    assert_eq!(notice[0]["file"], "app/secret.sops.yaml");
    assert!(
        notice[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("core/v1/Secret/prod/creds: SOPS-encrypted")),
        "{:#}",
        notice[0]
    );
}

#[test]
fn a_finding_in_a_chart_points_at_the_template_line_that_writes_the_field() {
    let env = TestEnv::new();
    env.write("chart/Chart.yaml", "apiVersion: v2\nname: c\nversion: 1.0.0\n")
        .write("chart/values.yaml", "port: \"80\"\n")
        .write(
            "chart/templates/svc.yaml",
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  ports:\n  - port: 80\n    targetPort: 8080\n    protocl: TCP\n  - port: 81\n    nodePort: {{ \"80\" | quote }}\n",
        );
    env.commit("chart");
    let report = env.kdelta(&["check", "--format", "json"]).code(1).json();
    let unknown = findings_of(&report, "schema.unknown-field");
    assert_eq!(unknown.len(), 1, "{report:#}");
    assert_eq!(unknown[0]["file"], "chart/templates/svc.yaml");
    assert_eq!(unknown[0]["line"], 9, "{:#}", unknown[0]);
    let typed = findings_of(&report, "schema.type");
    assert_eq!(typed.len(), 1, "{report:#}");
    assert_eq!(typed[0]["line"], 11, "{:#}", typed[0]);
}

/// An Application deploying `web/` to `server` in namespace `ns`.
fn application(name: &str, server: &str, ns: &str) -> String {
    format!(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {name}\n  namespace: argocd\nspec:\n  project: default\n  source:\n    repoURL: https://git.example.com/gitops.git\n    path: web\n  destination:\n    server: {server}\n    namespace: {ns}\n"
    )
}

#[test]
fn two_applications_deploying_one_object_to_one_cluster_is_a_warning() {
    let env = TestEnv::new();
    env.write(
        ".kdelta.yaml",
        "repoURLs: [https://git.example.com/gitops.git]\n",
    )
    .write("web/web.yaml", web("").replace("  namespace: prod\n", ""))
    .write(
        "web/role.yaml",
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: web-reader}\nrules: []\n",
    )
    .write(
        "argocd/a.yaml",
        application("a", "https://kubernetes.default.svc", "prod"),
    )
    // Another destination namespace: the Deployment differs, the ClusterRole is the same.
    .write(
        "argocd/e.yaml",
        application("e", "https://kubernetes.default.svc", "staging"),
    )
    .write(
        "argocd/b.yaml",
        application("b", "https://kubernetes.default.svc/", "prod"),
    )
    .write(
        "argocd/c.yaml",
        application("c", "https://other.example.com", "prod"),
    )
    // The same Application in a second file (another installation's overlay), and one of
    // another Argo CD installation: no conflict.
    .write(
        "other/a.yaml",
        application("a", "https://kubernetes.default.svc", "prod"),
    )
    .write(
        "other/d.yaml",
        application("d", "https://kubernetes.default.svc", "prod")
            .replace("namespace: argocd", "namespace: openshift-gitops"),
    );
    env.commit("applications");
    let report = env.kdelta(&["check", "--format", "json"]).success().json();
    let dup = findings_of(&report, "deploy.duplicate");
    let mut messages: Vec<&str> = dup.iter().map(|f| f["message"].as_str().unwrap()).collect();
    messages.sort();
    assert_eq!(
        messages,
        [
            "apps/Deployment/prod/web is deployed to https://kubernetes.default.svc by app:argocd/a.yaml#a and by app:argocd/b.yaml#b: the two Applications sync the same object",
            "rbac.authorization.k8s.io/ClusterRole/_/web-reader is deployed to https://kubernetes.default.svc by app:argocd/a.yaml#a and by app:argocd/b.yaml#b: the two Applications sync the same object",
            "rbac.authorization.k8s.io/ClusterRole/_/web-reader is deployed to https://kubernetes.default.svc by app:argocd/a.yaml#a and by app:argocd/e.yaml#e: the two Applications sync the same object",
        ],
        "{report:#}"
    );
    assert!(
        dup.iter().all(|f| f["target"] != "app:argocd/a.yaml#a"),
        "{report:#}"
    );
}

#[test]
fn overrides_give_some_targets_another_kubernetes_version() {
    let env = TestEnv::new();
    env.write(
        ".kdelta.yaml",
        "directories: [manifests, legacy]\nrepoURLs: [https://git.example.com/gitops.git]\nkubernetes:\n  version: \"1.33\"\n  overrides:\n  - paths: [\"legacy\"]\n    version: \"1.21\"\n  - cluster: https://old.example.com\n    version: \"1.21\"\n",
    )
    .write("manifests/ingress.yaml", OLD_INGRESS)
    .write("legacy/ingress.yaml", OLD_INGRESS)
    .write("web/ingress.yaml", OLD_INGRESS)
    .write(
        "argocd/old.yaml",
        application("old", "https://old.example.com", "prod"),
    );
    env.commit("three ingresses");
    let report = env.kdelta(&["check", "--format", "json"]).code(1).json();
    let removed: Vec<&str> = findings_of(&report, "api.removed")
        .iter()
        .map(|f| f["target"].as_str().unwrap())
        .collect();
    assert_eq!(removed, vec!["dir:manifests"], "{report:#}");
    let mut deprecated: Vec<&str> = findings_of(&report, "api.deprecated")
        .iter()
        .map(|f| f["target"].as_str().unwrap())
        .collect();
    deprecated.sort();
    assert_eq!(
        deprecated,
        vec!["app:argocd/old.yaml#old", "dir:legacy"],
        "{report:#}"
    );
}

#[test]
fn a_service_selecting_no_pod_template_of_its_target_is_a_warning() {
    let env = TestEnv::new();
    let service = |selector: &str| {
        format!("apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: prod\nspec:\n  selector:\n    app: {selector}\n  ports:\n  - port: 80\n")
    };
    env.write(".kdelta.yaml", "directories: [manifests, operator]\n")
        .write("manifests/web.yaml", web(""))
        .write("manifests/svc.yaml", service("wbe"))
        .write(
            "manifests/ok.yaml",
            service("web").replace("name: web\n", "name: ok\n"),
        )
        // No pod template here: the pods may come from an operator.
        .write("operator/svc.yaml", service("db"));
    env.commit("services");
    let report = env.kdelta(&["check", "--format", "json"]).success().json();
    let unmatched = findings_of(&report, "reference.service-selector");
    assert_eq!(unmatched.len(), 1, "{report:#}");
    assert_eq!(unmatched[0]["file"], "manifests/svc.yaml");
    assert_eq!(unmatched[0]["line"], 8, "{:#}", unmatched[0]);
    assert!(unmatched[0]["message"]
        .as_str()
        .unwrap()
        .contains("app=wbe"));
}

#[test]
fn references_nothing_renders_are_warnings_at_the_field() {
    let env = TestEnv::new();
    // web(extra) appends under containers[0]: env from a Secret an ExternalSecret makes in
    // another directory, from one nothing makes, an optional one, and a volume's claim.
    let pod = web(
        "        envFrom:\n        - secretRef: {name: db-creds}\n        - secretRef: {name: typo-creds}\n        - configMapRef: {name: maybe, optional: true}\n        - configMapRef: {name: kube-root-ca.crt}\n      serviceAccountName: web\n      volumes:\n      - name: data\n        persistentVolumeClaim: {claimName: web-data}\n",
    );
    env.write(".kdelta.yaml", "directories: [manifests, secrets]\n")
        .write("manifests/web.yaml", pod)
        .write(
            "manifests/sa.yaml",
            "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: web, namespace: prod}\n",
        )
        .write(
            "secrets/db.yaml",
            "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: db, namespace: prod}\nspec:\n  target: {name: db-creds}\n",
        );
    env.commit("references");
    let report = env.kdelta(&["check", "--format", "json"]).success().json();
    let missing = findings_of(&report, "reference.missing");
    let messages: Vec<&str> = missing
        .iter()
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(missing.len(), 2, "{messages:#?}");
    assert!(
        messages[0].contains("envFrom[1].secretRef.name names Secret prod/typo-creds"),
        "{messages:#?}"
    );
    assert!(
        messages[1]
            .contains("persistentVolumeClaim.claimName names PersistentVolumeClaim prod/web-data"),
        "{messages:#?}"
    );
    assert_eq!(missing[0]["file"], "manifests/web.yaml");
    assert_eq!(missing[0]["line"], 21, "{:#}", missing[0]);

    // The rule can be switched off per path.
    env.write(
        ".kdelta.yaml",
        "directories: [manifests, secrets]\nrules:\n- {rule: reference.missing, severity: off, paths: [manifests/**]}\n",
    );
    let quiet = env.kdelta(&["check", "--format", "json"]).success().json();
    assert!(
        findings_of(&quiet, "reference.missing").is_empty(),
        "{quiet:#}"
    );
}

#[test]
fn a_namespace_nothing_makes_is_a_missing_reference_where_the_repository_makes_namespaces() {
    let env = TestEnv::new();
    let cm = |ns: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: {ns}\n---\n")
    };
    env.write(".kdelta.yaml", "directories: [manifests, apps]\n")
        .write(
            "manifests/objects.yaml",
            [cm("prod"), cm("staging"), cm("monitoring"), cm("kube-system"), cm("flux-made")].concat(),
        )
        .write(
            "manifests/z-more.yaml",
            cm("staging").replace("settings", "more"),
        )
        .write("manifests/ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: prod}\n")
        .write(
            "apps/monitoring.yaml",
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: monitoring, namespace: argocd}\nspec:\n  project: default\n  source: {repoURL: https://charts.example.com, chart: mon, targetRevision: 1.0.0}\n  destination: {server: https://kubernetes.default.svc, namespace: monitoring}\n  syncPolicy:\n    syncOptions: [CreateNamespace=true]\n",
        )
        .write(
            "apps/release.yaml",
            "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: made, namespace: prod}\nspec:\n  targetNamespace: flux-made\n  install: {createNamespace: true}\n  chart:\n    spec: {chart: made, sourceRef: {kind: HelmRepository, name: none}}\n",
        );
    env.commit("namespaces");
    let report = env.kdelta(&["check", "--format", "json"]).success().json();
    let missing: Vec<String> = findings_of(&report, "reference.missing")
        .iter()
        .filter(|f| f["message"].as_str().unwrap().contains("names Namespace"))
        .map(|f| {
            format!(
                "{}:{} {}",
                f["file"].as_str().unwrap(),
                f["line"],
                f["message"].as_str().unwrap()
            )
        })
        .collect();
    // staging: once per target, at its first object there (in the target's order). The Application's own namespace
    // is Argo CD's, which exists wherever Argo CD reads it.
    assert_eq!(
        missing,
        [
            "manifests/z-more.yaml:5 core/v1/ConfigMap/staging/more: metadata.namespace names Namespace staging, which no target of this revision renders or creates",
        ],
        "{report:#}"
    );

    // A repository that makes no namespace leaves them to whoever runs it.
    env.remove("manifests/ns.yaml")
        .remove("apps/monitoring.yaml")
        .remove("apps/release.yaml");
    env.commit("no namespaces");
    let quiet = env.kdelta(&["check", "--format", "json"]).success().json();
    assert!(
        !findings_of(&quiet, "reference.missing")
            .iter()
            .any(|f| f["message"].as_str().unwrap().contains("names Namespace")),
        "{quiet:#}"
    );
}

#[test]
fn the_configuration_can_name_a_catalog_in_the_crds_catalog_layout() {
    let env = TestEnv::new();
    env.write(
        ".kdelta.yaml",
        "directories: [manifests]\nkubernetes:\n  crds: [vendor/catalog]\n",
    )
    // datreeio/CRDs-catalog's layout: GROUP/KIND_VERSION.json, the kind in lower case.
    .write(
        "vendor/catalog/example.com/widget_v1.json",
        r#"{"type": "object", "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"}, "spec": {"type": "object", "properties": {"size": {"type": "integer"}}, "additionalProperties": false}}}"#,
    )
    .write("vendor/catalog/README.json", "{}")
    .write(
        "manifests/widget.yaml",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: bad\n  namespace: prod\nspec:\n  size: big\n",
    );
    env.commit("a catalog");
    let report = env.kdelta(&["check", "--format", "json"]).code(1).json();
    let typed = findings_of(&report, "schema.type");
    assert_eq!(typed.len(), 1, "{report:#}");
    assert_eq!(typed[0]["line"], 7, "{:#}", typed[0]);
    assert!(
        findings_of(&report, "schema.no-schema").is_empty(),
        "{report:#}"
    );
}

#[test]
fn a_crd_s_one_of_any_of_and_not_constrain_its_objects() {
    let env = TestEnv::new();
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: backups.example.com}\nspec:\n  group: example.com\n  names: {kind: Backup, plural: backups}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            oneOf:\n            - required: [s3]\n            - required: [gcs]\n            not: {required: [legacy]}\n            properties:\n              s3: {type: string}\n              gcs: {type: string}\n              legacy: {type: string}\n              port:\n                x-kubernetes-int-or-string: true\n                anyOf: [{type: integer}, {type: string}]\n              size:\n                type: string\n                anyOf: [{pattern: '^[0-9]+Gi$'}, {enum: [max]}]\n";
    let backup = |name: &str, spec: &str| {
        format!("apiVersion: example.com/v1\nkind: Backup\nmetadata: {{name: {name}, namespace: prod}}\nspec: {spec}\n---\n")
    };
    env.write(".kdelta.yaml", "directories: [manifests]\n")
        .write("manifests/crd.yaml", crd)
        .write(
            "manifests/backups.yaml",
            [
                backup("ok", "{s3: b, port: 80, size: 10Gi}"),
                backup("ok-too", "{gcs: b, port: http, size: max}"),
                backup("neither", "{port: 80}"),
                backup("both", "{s3: a, gcs: b}"),
                backup("legacy", "{s3: a, legacy: x}"),
                backup("size", "{s3: a, size: 10G}"),
            ]
            .concat(),
        );
    env.commit("backups");
    let report = env.kdelta(&["check", "--format", "json"]).code(1).json();
    let mut messages: Vec<&str> = findings_of(&report, "schema.value")
        .iter()
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    messages.sort();
    assert_eq!(
        messages,
        [
            "example.com/v1/Backup/prod/both: spec: must validate one and only one schema (oneOf). Found 2 valid alternatives",
            "example.com/v1/Backup/prod/legacy: spec: must not validate the schema (not)",
            "example.com/v1/Backup/prod/neither: spec: must validate one and only one schema (oneOf). Found none valid (spec.s3: Required value)",
            "example.com/v1/Backup/prod/size: spec.size: must validate at least one schema (anyOf) (spec.size: Invalid value: \"10G\": should match '^[0-9]+Gi$')",
        ],
        "{report:#}"
    );
}

#[test]
fn the_configuration_can_name_more_crds() {
    let env = TestEnv::new();
    env.write(
        ".kdelta.yaml",
        "directories: [manifests]\nkubernetes:\n  crds: [vendor/crds]\n",
    )
    .write("vendor/crds/widget.yaml", CRD)
    .write(
        "manifests/widget.yaml",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: bad\n  namespace: prod\nspec:\n  size: big\n",
    );
    env.commit("a CRD no target renders");
    let report = env.kdelta(&["check", "--format", "json"]).code(1).json();
    assert_eq!(findings_of(&report, "schema.type").len(), 1, "{report:#}");
    assert!(
        findings_of(&report, "schema.no-schema").is_empty(),
        "{report:#}"
    );
}

#[test]
fn a_field_a_patch_writes_is_reported_at_the_patch_not_at_the_base() {
    let env = TestEnv::new();
    let patch = |containers: &str| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: prod\n\
             spec:\n  template:\n    spec:\n      containers:\n{containers}"
        )
    };
    env.write(".kdelta.yaml", CONFIG)
        .write("base/web.yaml", web("        resource: {}\n"))
        .write("base/kustomization.yaml", "resources:\n- web.yaml\n")
        // A patch file: its fields keep the patch file's lines.
        .write(
            "file/patch.yaml",
            patch("      - name: web\n        ports:\n        - containerPort: \"eighty\"\n"),
        )
        .write(
            "file/kustomization.yaml",
            "resources:\n- ../base\npatches:\n- path: patch.yaml\n",
        )
        // A JSON 6902 patch file: the value an operation writes keeps its line there, and the
        // fields it leaves alone keep theirs in the base.
        .write(
            "json/ops.yaml",
            "- op: add\n  path: /spec/template/spec/containers/0/ports\n  value:\n  \
             - containerPort: \"eighty\"\n",
        )
        .write(
            "json/kustomization.yaml",
            "resources:\n- ../base\npatches:\n- path: ops.yaml\n  target:\n    kind: Deployment\n",
        )
        // An inline patch: its lines are not the kustomization's, so its fields are placed at
        // the entry that holds it.
        .write(
            "inline/kustomization.yaml",
            format!(
                "resources:\n- ../base\npatches:\n- patch: |-\n{}",
                patch("      - name: web\n        ports:\n        - containerPort: \"eighty\"\n")
                    .lines()
                    .map(|l| format!("    {l}\n"))
                    .collect::<String>()
            ),
        );
    env.commit("base");

    let report = env.kdelta(&["check", "--format", "json"]).code(1).json();
    let mut typed: Vec<(String, String, u64)> = findings_of(&report, "schema.type")
        .iter()
        .map(|f| {
            (
                f["target"].as_str().unwrap().to_string(),
                f["file"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    typed.sort();
    assert_eq!(
        typed,
        [
            (
                "kustomize:file".to_string(),
                "file/patch.yaml".to_string(),
                12
            ),
            (
                "kustomize:inline".to_string(),
                "inline/kustomization.yaml".to_string(),
                4
            ),
            ("kustomize:json".to_string(), "json/ops.yaml".to_string(), 4),
        ],
        "{report:#}"
    );
    // The base's own problem stays at the base's line, in every target.
    let values: Vec<(String, u64)> = findings_of(&report, "schema.unknown-field")
        .iter()
        .map(|f| {
            (
                f["file"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(
        values.len() >= 3
            && values
                .iter()
                .all(|v| *v == ("base/web.yaml".to_string(), 19)),
        "{report:#}"
    );
}

#[test]
fn a_finding_in_a_chart_points_at_the_line_that_wrote_the_field_even_when_others_write_its_key() {
    let env = TestEnv::new();
    env.write("chart/Chart.yaml", "apiVersion: v2\nname: c\nversion: 1.0.0\n")
        .write("chart/values.yaml", "port: eighty\n")
        .write(
            "chart/templates/_helpers.tpl",
            "{{- define \"c.labels\" -}}\napp: web\nversion: 1\n{{- end }}\n",
        )
        .write(
            "chart/templates/deploy.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    \
             {{- include \"c.labels\" . | nindent 4 }}\nspec:\n  selector:\n    matchLabels:\n      \
             app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      \
             containers:\n      - name: a\n        image: nginx\n        ports:\n        \
             - containerPort: 80\n      - name: b\n        image: nginx\n        ports:\n        \
             - containerPort: {{ .Release.Name | quote }}\n",
        );
    env.commit("chart");
    let report = env.kdelta(&["check", "--format", "json"]).code(1).json();
    let mut typed: Vec<(String, u64, String)> = findings_of(&report, "schema.type")
        .iter()
        .map(|f| {
            let message = f["message"].as_str().unwrap();
            let path = message.split(": ").nth(1).unwrap_or_default().to_string();
            (
                f["file"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                path,
            )
        })
        .collect();
    typed.sort();
    let deploy = "chart/templates/deploy.yaml".to_string();
    assert_eq!(
        typed,
        [
            // Written by an `include`: the line of the action.
            (deploy.clone(), 6, "metadata.labels[version]".to_string()),
            // Two lines write `containerPort:`; the second one wrote this one.
            (
                deploy,
                24,
                "spec.template.spec.containers[1].ports[0].containerPort".to_string()
            ),
        ],
        "{report:#}"
    );
}
