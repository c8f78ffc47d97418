//! Argo CD ApplicationSets end to end: Applications generated from this repository's own
//! directories (its git remote named in the generator), and a diff that says which generator
//! made a new Application.

use super::*;

/// Two generators: git directories over the kustomize overlays of `apps/`, and a matrix of a
/// list over the Helm chart in `charts/shop`.
const APPSET: &str = "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: apps\nspec:\n  goTemplate: true\n  generators:\n  - git:\n      repoURL: git@github.com:example/gitops.git\n      revision: HEAD\n      directories:\n      - path: apps/*\n  - matrix:\n      generators:\n      - git:\n          repoURL: https://github.com/example/gitops\n          revision: HEAD\n          directories:\n          - path: charts/*\n      - list:\n          elements:\n          - env: prod\n            replicas: '3'\n  - scmProvider:\n      github:\n        organization: example\n  template:\n    metadata:\n      name: '{{.path.basename}}{{with .env}}-{{.}}{{end}}'\n    spec:\n      project: default\n      source:\n        repoURL: https://github.com/example/gitops.git\n        targetRevision: HEAD\n        path: '{{.path.path}}'\n      destination:\n        server: https://kubernetes.default.svc\n        namespace: '{{.path.basename}}'\n  templatePatch: |\n    {{- if .env }}\n    spec:\n      source:\n        helm:\n          parameters:\n          - name: replicas\n            value: '{{.replicas}}'\n    {{- end }}\n";

fn deployment(name: &str, image: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: {image}\n  selector:\n    matchLabels:\n      app: web\n"
    )
}

fn write_repo(env: &TestEnv, web_image: &str) {
    env.write("argocd/apps.yaml", APPSET)
        .write("apps/web/kustomization.yaml", "resources:\n- deploy.yaml\nnamePrefix: web-\n")
        .write("apps/web/deploy.yaml", deployment("app", web_image))
        .write("charts/shop/Chart.yaml", "apiVersion: v2\nname: shop\nversion: 1.0.0\n")
        .write("charts/shop/values.yaml", "replicas: 1\n")
        .write(
            "charts/shop/templates/deploy.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n  namespace: {{ .Release.Namespace }}\nspec:\n  replicas: {{ .Values.replicas }}\n  selector:\n    matchLabels:\n      app: web\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx\n",
        );
}

#[test]
fn an_applicationset_over_this_repository_renders_what_each_application_deploys() {
    let env = TestEnv::new();
    env.git(&[
        "remote",
        "add",
        "origin",
        "https://github.com/example/gitops.git",
    ]);
    write_repo(&env, "web:1.0");
    let base = env.commit("web and shop");
    // A new overlay, and an image bump in an existing one.
    write_repo(&env, "web:1.1");
    env.write("apps/api/kustomization.yaml", "resources:\n- deploy.yaml\n")
        .write("apps/api/deploy.yaml", deployment("api", "api:2.0"));
    let head = env.commit("api, web 1.1");

    env.kdelta(&["list", "--rev", &head]).success().stdout_has(
        "appset     appset:argocd/apps.yaml#apps\napp        app:argocd/api\napp        app:argocd/shop-prod\napp        app:argocd/web\n",
    );
    // The ApplicationSet prints its Applications.
    let out = env
        .kdelta(&[
            "render",
            "--rev",
            &head,
            "--allow-incomplete",
            "argocd/apps.yaml",
        ])
        .success();
    assert!(
        out.stdout.contains("  name: api\n  namespace: argocd\n"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("        value: \"3\"\n"),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr.contains("notice[appset.generator.offline] argocd/apps.yaml:1:1: the scmProvider generator needs the network or a cluster"),
        "{}",
        out.stderr
    );
    // An Application prints itself and what it deploys: the chart with the Application's
    // release name, destination namespace and parameters.
    let shop = env
        .kdelta(&["render", "--rev", &head, "app:argocd/shop-prod"])
        .success();
    assert!(
        shop.stdout.contains("kind: Deployment\nmetadata:\n  annotations:\n    argocd.argoproj.io/tracking-id: shop-prod:apps/Deployment:shop/shop-prod\n  name: shop-prod\n  namespace: shop\nspec:\n  replicas: 3\n"),
        "{}",
        shop.stdout
    );

    let report = env
        .kdelta(&["diff", &base, &head, "--format", "json"])
        .success()
        .json();
    let target = |id: &str| target_in(&report, id).clone();
    let api = target("app:argocd/api");
    assert_eq!(api["status"], "added");
    let app_change = change_in(&api, "argoproj.io/v1alpha1/Application/argocd/api");
    let reason = app_change["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("generated by the git generator (generators[0]) with {"),
        "{reason}"
    );
    assert!(reason.contains("\"path\":\"apps/api\""), "{reason}");
    // What the Application deploys is added with it, without the Application's reason (the
    // Deployment shares its name).
    let deployment = change_in(&api, "apps/v1/Deployment/_/api");
    assert_eq!(deployment["reason"], Value::Null);
    let web = target("app:argocd/web");
    assert_eq!(web["status"], "modified");
    assert_eq!(
        web["changes"],
        json!([{
            "resource": "apps/v1/Deployment/_/web-app",
            "change": "modified",
            "fields": [{"path": "spec.template.spec.containers[name=app].image", "old": "web:1.0", "new": "web:1.1"}]
        }])
    );
    assert_eq!(target("app:argocd/shop-prod")["status"], "unchanged");
}

#[test]
fn a_broken_applicationset_is_an_error_at_its_manifest() {
    let env = TestEnv::new();
    env.write(
        "argocd/bad.yaml",
        "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: bad\nspec:\n  generators:\n  - list:\n      elements:\n      - n: 1\n  template:\n    metadata:\n      name: '{{n}}'\n    spec: {}\n---\napiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: dup\nspec:\n  generators:\n  - list:\n      elements:\n      - n: a\n      - n: a\n      - n: b\n  template:\n    metadata:\n      name: 'x-{{n}}'\n    spec: {}\n",
    );
    env.commit("bad");
    env.kdelta(&["check", "--color", "never"])
        .code(1)
        .stdout_has("error[appset.generate] argocd/bad.yaml:1:1: error parsing value as string: n")
        .stdout_has("error[appset.validation] argocd/bad.yaml:15:1: ApplicationSet dup contains applications with duplicate name: x-a");
}

#[test]
fn a_repo_url_alias_in_the_config_is_this_repository() {
    let env = TestEnv::new();
    env.write(".kdelta.yaml", "repoURLs:\n- https://git.example.com/platform/gitops.git\n")
        .write(
            "argocd/dirs.yaml",
            "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: dirs\nspec:\n  generators:\n  - git:\n      repoURL: ssh://git@git.example.com/platform/gitops\n      revision: HEAD\n      directories:\n      - path: envs/*\n  template:\n    metadata:\n      name: '{{path.basename}}'\n    spec:\n      project: default\n      source:\n        repoURL: https://git.example.com/platform/gitops.git\n        path: '{{path}}'\n      destination:\n        server: https://kubernetes.default.svc\n",
        )
        .write("envs/dev/cm.yaml", config_map("dev", "1"));
    env.commit("alias");
    env.kdelta(&["list"])
        .success()
        .stdout_has("app        app:argocd/dev\n");
    env.kdelta(&["render", "app:argocd/dev"])
        .success()
        .stdout_has("kind: ConfigMap\nmetadata:\n  annotations:\n    argocd.argoproj.io/tracking-id: dev:/ConfigMap:prod/dev\n  name: dev\n");
}

#[test]
fn cluster_secrets_anywhere_in_the_repository_feed_the_clusters_generator() {
    let env = TestEnv::new();
    env.write(
        "clusters/prod.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: prod\n  labels:\n    argocd.argoproj.io/secret-type: cluster\n    env: prod\nstringData:\n  name: prod-eu\n  server: https://10.0.0.1\n",
    )
    .write(
        "argocd/clusters.yaml",
        "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: guestbook\nspec:\n  generators:\n  - clusters: {}\n  template:\n    metadata:\n      name: 'guestbook-{{name}}'\n    spec:\n      project: default\n      source:\n        repoURL: https://github.com/argoproj/argocd-example-apps\n        path: guestbook\n      destination:\n        server: '{{server}}'\n        namespace: guestbook\n",
    );
    env.commit("clusters");
    env.kdelta(&["list"]).success().stdout_has(
        "app        app:argocd/guestbook-in-cluster\napp        app:argocd/guestbook-prod-eu\n",
    );
    // The source is another repository: the Application renders into itself, with a notice.
    env.kdelta(&["check", "--color", "never"])
        .success()
        .stdout_has("notice[app.source.not-rendered] argocd/clusters.yaml: Application guestbook-prod-eu deploys guestbook from https://github.com/argoproj/argocd-example-apps at HEAD, which is not this repository");
}

#[test]
fn a_clusters_generator_that_matches_no_cluster_says_so() {
    let env = TestEnv::new();
    env.write(
        "argocd/clusters.yaml",
        "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: web\nspec:\n  generators:\n  - clusters:\n      selector:\n        matchLabels:\n          env: prod\n  template:\n    metadata:\n      name: 'web-{{name}}'\n    spec:\n      project: default\n      source:\n        repoURL: https://github.com/org/web\n        path: deploy\n      destination:\n        server: '{{server}}'\n        namespace: web\n",
    );
    env.commit("appset");
    env.kdelta(&["check", "--color", "never"]).success().stdout_has(
        "notice[appset.generator.offline] argocd/clusters.yaml:1:1: the clusters generator's selector matches none of the 0 clusters kdelta knows",
    );
}

#[test]
fn a_multi_source_application_reads_value_files_through_its_ref_sources() {
    let env = TestEnv::new();
    env.git(&[
        "remote",
        "add",
        "origin",
        "git@github.com:example/gitops.git",
    ]);
    env.write(
        "argocd/shop.yaml",
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: shop\n  namespace: argocd\nspec:\n  project: default\n  sources:\n  - repoURL: https://github.com/example/gitops\n    path: charts/shop\n    helm:\n      valueFiles:\n      - values-prod.yaml\n      - $values/envs/prod/*.yaml\n      - $ext/shared.yaml\n      - missing.yaml\n      ignoreMissingValueFiles: true\n      valuesObject:\n        size: xl\n  - repoURL: https://github.com/example/gitops.git\n    ref: values\n  - repoURL: https://github.com/example/other\n    ref: ext\n  destination:\n    server: https://kubernetes.default.svc\n    namespace: prod\n",
    )
    .write("charts/shop/Chart.yaml", "apiVersion: v2\nname: shop\nversion: 1.0.0\n")
    .write("charts/shop/values.yaml", "replicas: 1\nsize: s\nzone: a\ntier: x\n")
    .write("charts/shop/values-prod.yaml", "replicas: 4\n")
    .write("envs/prod/a-zone.yaml", "zone: b\ntier: y\n")
    .write("envs/prod/b-tier.yaml", "tier: z\n")
    .write(
        "charts/shop/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n  namespace: {{ .Release.Namespace }}\ndata:\n  replicas: {{ .Values.replicas | quote }}\n  size: {{ .Values.size }}\n  zone: {{ .Values.zone }}\n  tier: {{ .Values.tier }}\n",
    );
    env.commit("app");
    let out = env
        .kdelta(&["render", "--allow-incomplete", "app:argocd/shop.yaml#shop"])
        .success();
    // The value files in order (the glob's matches sorted), the missing one ignored, the
    // inline values last.
    assert!(
        out.stdout.contains("apiVersion: v1\ndata:\n  replicas: \"4\"\n  size: xl\n  tier: z\n  zone: b\nkind: ConfigMap\nmetadata:\n  annotations:\n    argocd.argoproj.io/tracking-id: shop:/ConfigMap:prod/shop\n  name: shop\n  namespace: prod\n"),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr.contains(
            "value files at URLs or not in kdelta's cache ($ext/shared.yaml) were left out"
        ),
        "{}",
        out.stderr
    );
    // Without ignoreMissingValueFiles a glob that matches nothing is Argo CD's error.
    env.write(
        "argocd/shop.yaml",
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: shop\nspec:\n  source:\n    repoURL: https://github.com/example/gitops\n    path: charts/shop\n    helm:\n      valueFiles: [envs/*.yaml]\n  destination:\n    namespace: prod\n",
    );
    env.kdelta(&["render", "app:argocd/shop.yaml#shop"])
        .code(1)
        .stderr_has("error[helm.values] argocd/shop.yaml: Application shop: error resolving helm value files: values file glob \"envs/*.yaml\" matched no files");
}

#[test]
fn ignore_differences_of_an_application_leave_fields_out_of_its_diff() {
    let env = TestEnv::new();
    env.write(".kdelta.yaml", "repoURLs: [https://git.example.com/gitops.git]\n")
        .write(
            "argocd/web.yaml",
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: web\nspec:\n  source:\n    repoURL: https://git.example.com/gitops.git\n    path: web\n  destination:\n    namespace: prod\n  ignoreDifferences:\n  - group: apps\n    kind: Deployment\n    jsonPointers: [/spec/replicas]\n    jqPathExpressions: ['.metadata.labels[\"team\"]', '.spec.template.spec.containers[] | select(.name == \"x\")']\n",
        )
        .write(
            "web/deploy.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    team: a\nspec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n      - name: app\n        image: web:1\n  selector:\n    matchLabels:\n      app: web\n",
        );
    let base = env.commit("web");
    env.write(
        "web/deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    team: b\nspec:\n  replicas: 5\n  template:\n    spec:\n      containers:\n      - name: app\n        image: web:2\n  selector:\n    matchLabels:\n      app: web\n",
    );
    let head = env.commit("scale and bump");
    let report = env
        .kdelta(&["diff", &base, &head, "--format", "json"])
        .success()
        .json();
    let web = target_in(&report, "app:argocd/web.yaml#web");
    assert_eq!(
        web["changes"],
        json!([{
            "resource": "apps/v1/Deployment/_/web",
            "change": "modified",
            "fields": [{"path": "spec.template.spec.containers[name=app].image", "old": "web:1", "new": "web:2"}]
        }])
    );
    let findings = report["findings"].to_string();
    assert!(
        findings.contains("ignoreDifferences jq expressions kdelta cannot apply (only plain paths): .spec.template.spec.containers[] | select(.name == \\\"x\\\")"),
        "{findings}"
    );
    // `render` still prints what is deployed, replicas included.
    env.kdelta(&["render", "--rev", &head, "app:argocd/web.yaml#web"])
        .success()
        .stdout_has("  replicas: 5\n");
}

#[test]
fn applications_an_application_deploys_from_a_chart_are_targets_of_their_own() {
    let env = TestEnv::new();
    let root = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: root\n  namespace: argocd\nspec:\n  source:\n    repoURL: https://git.example.com/gitops.git\n    path: apps\n  destination:\n    namespace: argocd\n";
    let chart_template = "{{- range .Values.apps }}\n---\napiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {{ . }}\nspec:\n  source:\n    repoURL: https://git.example.com/gitops.git\n    path: services/{{ . }}\n  destination:\n    namespace: {{ . }}\n{{- end }}\n";
    env.write(
        ".kdelta.yaml",
        "repoURLs: [https://git.example.com/gitops.git]\n",
    )
    .write("argocd/root.yaml", root)
    .write(
        "apps/Chart.yaml",
        "apiVersion: v2\nname: apps\nversion: 1.0.0\n",
    )
    .write("apps/values.yaml", "apps: [billing]\n")
    .write("apps/templates/apps.yaml", chart_template)
    .write("services/billing/cm.yaml", config_map("billing", "1"))
    .write("services/search/cm.yaml", config_map("search", "1"));
    let base = env.commit("root with billing");
    env.write("apps/values.yaml", "apps: [billing, search]\n")
        .write("services/billing/cm.yaml", config_map("billing", "2"));
    let head = env.commit("search, billing 2");
    env.kdelta(&["list", "--rev", &head]).success().stdout_has(
        "app        app:argocd/root.yaml#root\napp        app:argocd/billing\napp        app:argocd/search\n",
    );
    // A child renders into itself (with the tracking the parent's sync gives it) and what it
    // deploys.
    env.kdelta(&["render", "--rev", &head, "app:argocd/search"])
        .success()
        .stdout_has("kind: Application\nmetadata:\n  annotations:\n    argocd.argoproj.io/tracking-id: root:argoproj.io/Application:argocd/search\n  name: search\n")
        .stdout_has("kind: ConfigMap\nmetadata:\n  annotations:\n    argocd.argoproj.io/tracking-id: search:/ConfigMap:prod/search\n");
    let report = env
        .kdelta(&["diff", &base, &head, "--format", "json"])
        .success()
        .json();
    let target = |id: &str| target_in(&report, id).clone();
    let search = target("app:argocd/search");
    assert_eq!(search["status"], "added");
    let app = change_in(&search, "argoproj.io/v1alpha1/Application/_/search");
    assert_eq!(app["reason"], "deployed by the Application root");
    assert_eq!(target("app:argocd/billing")["status"], "modified");
}

#[test]
fn the_argocd_configuration_names_the_namespace_clusters_and_tracking() {
    let env = TestEnv::new();
    env.write(
        ".kdelta.yaml",
        "repoURLs: [https://git.example.com/gitops.git]\nargocd:\n  namespace: gitops\n  tracking: annotation+label\n  instanceLabelKey: example.com/app\n  clusters:\n  - name: edge\n    server: https://edge.example.com\n    labels: {tier: edge}\n",
    )
    .write(
        "argocd/clusters.yaml",
        "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: web\nspec:\n  generators:\n  - clusters:\n      selector:\n        matchLabels:\n          tier: edge\n  template:\n    metadata:\n      name: 'web-{{name}}'\n    spec:\n      project: default\n      source:\n        repoURL: https://git.example.com/gitops.git\n        path: web\n      destination:\n        server: '{{server}}'\n        namespace: web\n",
    )
    .write("web/cm.yaml", config_map("web", "1"));
    env.commit("edge");
    // The declared cluster, in the configured namespace (the in-cluster entry is not selected).
    env.kdelta(&["list"])
        .success()
        .stdout_has("appset     appset:argocd/clusters.yaml#web\napp        app:gitops/web-edge\n");
    // annotation+label tracking: both, the label under the configured key.
    env.kdelta(&["render", "app:gitops/web-edge"])
        .success()
        .stdout_has("  annotations:\n    argocd.argoproj.io/tracking-id: web-edge:/ConfigMap:prod/web\n  labels:\n    example.com/app: web-edge\n");
    env.write(
        ".kdelta.yaml",
        "repoURLs: [https://git.example.com/gitops.git]\nargocd:\n  tracking: none\n  clusters:\n  - name: edge\n    server: https://edge.example.com\n    labels: {tier: edge}\n",
    );
    let out = env.kdelta(&["render", "app:argocd/web-edge"]).success();
    assert!(!out.stdout.contains("tracking-id"), "{}", out.stdout);
    env.write(".kdelta.yaml", "argocd:\n  tracking: labels\n");
    env.kdelta(&["list"])
        .code(1)
        .stderr_has("error[config.invalid] .kdelta.yaml:2:13: unknown variant `labels`, expected one of `annotation`, `label`, `annotation+label`, `none`");
}

#[test]
fn two_applicationsets_making_one_application_render_it_once_with_a_warning() {
    let env = TestEnv::new();
    let appset = |name: &str| {
        format!("apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: {name}\nspec:\n  generators:\n  - list:\n      elements:\n      - app: web\n  template:\n    metadata:\n      name: '{{{{app}}}}'\n    spec:\n      project: default\n      source:\n        repoURL: https://example.com/other.git\n        path: web\n      destination:\n        namespace: web\n")
    };
    env.write("argocd/a.yaml", appset("a"))
        .write("argocd/b.yaml", appset("b"));
    env.commit("two owners");
    let list = env.kdelta(&["list"]).success().stdout;
    assert_eq!(list.matches("app:argocd/web\n").count(), 1, "{list}");
    env.kdelta(&["check", "--color", "never"])
        .success()
        .stdout_has("warning[app.duplicate] argocd/b.yaml: app:argocd/web is made by argocd/a.yaml and by argocd/b.yaml; Argo CD lets only one own it, so kdelta renders the first");
}

#[test]
fn an_application_that_deploys_itself_or_its_parent_is_not_its_own_child() {
    let env = TestEnv::new();
    let app = |name: &str, path: &str| {
        format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {name}\n  namespace: argocd\nspec:\n  source:\n    repoURL: https://git.example.com/gitops.git\n    path: {path}\n  destination:\n    namespace: argocd\n")
    };
    env.write(
        ".kdelta.yaml",
        "repoURLs: [https://git.example.com/gitops.git]\n",
    )
    .write("argocd/root.yaml", app("root", "apps"))
    // The root's chart deploys the root itself and a child; the child's deploys the root.
    .write(
        "apps/Chart.yaml",
        "apiVersion: v2\nname: apps\nversion: 1.0.0\n",
    )
    .write("apps/templates/root.yaml", app("root", "apps"))
    .write("apps/templates/child.yaml", app("child", "child"))
    .write(
        "child/Chart.yaml",
        "apiVersion: v2\nname: child\nversion: 1.0.0\n",
    )
    .write("child/templates/root.yaml", app("root", "apps"));
    env.commit("cycle");
    let list = env.kdelta(&["list"]).success().stdout;
    assert!(list.contains("app        app:argocd/child\n"), "{list}");
    assert_eq!(list.matches("app:argocd/root\n").count(), 0, "{list}");
    let check = env.kdelta(&["check", "--color", "never"]).success().stdout;
    assert!(!check.contains("app.duplicate"), "{check}");
    // The child renders, with the root it deploys back.
    env.kdelta(&["render", "app:argocd/child"])
        .success()
        .stdout_has(
            "  name: root
",
        );
}

#[test]
fn explain_says_which_generator_and_parameters_make_an_application() {
    let env = TestEnv::new();
    env.git(&[
        "remote",
        "add",
        "origin",
        "https://github.com/example/gitops.git",
    ]);
    write_repo(&env, "web:1.0");
    let r = env
        .kdelta(&[
            "explain",
            "Application/shop-prod",
            "app:argocd/shop-prod",
            "--format",
            "json",
        ])
        .success()
        .json();
    let o = &r["objects"][0];
    assert_eq!(
        o["resource"],
        "argoproj.io/v1alpha1/Application/argocd/shop-prod"
    );
    assert_eq!(o["file"], "argocd/apps.yaml");
    let notes = o["notes"][0].as_str().unwrap();
    assert!(
        notes.starts_with("generated by the matrix generator (generators[1])")
            && notes.contains("\"env\":\"prod\""),
        "{notes}"
    );
}

/// The ids `kdelta list` prints, one a line.
fn listed_ids(env: &TestEnv) -> Vec<String> {
    env.kdelta(&["list"])
        .success()
        .stdout
        .lines()
        .filter_map(|l| l.split_whitespace().nth(1).map(str::to_string))
        .collect()
}

/// An ApplicationSet template with placeholders, listed by a base kustomization that overlays
/// patch (testdata/argocd/17-…): the template is no target of its own, so nothing expands its
/// placeholders; each overlay's ApplicationSet is, as the overlay builds it.
#[test]
fn an_applicationset_template_a_kustomization_lists_is_no_target_of_its_own() {
    let env = TestEnv::new();
    env.copy_testdata("argocd/17-appset-template-filled-by-overlays/repo", "");
    env.commit("appset template and overlays");
    let ids = listed_ids(&env);
    for id in [
        "appset:argocd-appsets/prod",
        "appset:argocd-appsets/prod#apps-prod",
        "appset:argocd-appsets/staging#apps-staging",
        "app:argocd/web-prod",
        "app:argocd/api-prod",
        "app:argocd/web-staging",
    ] {
        assert!(ids.iter().any(|i| i == id), "{id} missing from {ids:?}");
    }
    assert!(
        ids.iter()
            .all(|i| !i.contains("appset.yaml") && !i.contains("PLACEHOLDER")),
        "{ids:?}"
    );
    // The base that lists the template is built as part of its overlays only.
    assert!(
        !ids.iter().any(|i| i == "appset:argocd-appsets/template"),
        "{ids:?}"
    );
    let check = env.kdelta(&["check", "--color", "never"]).success();
    assert!(!check.stdout.contains("error["), "{}", check.stdout);
    // An ApplicationSet's render prints the Applications it generates.
    env.kdelta(&["render", "appset:argocd-appsets/staging#apps-staging"])
        .success()
        .stdout_has("  name: web-staging\n")
        .stdout_has("    path: apps/web/overlays/staging\n");
}

/// An app of apps whose source is a kustomization listing Application manifests (renamed by
/// its namePrefix): each Application is one target, as the kustomization builds it, rendering
/// what it deploys — not also a child of the root, nor the manifest as written.
#[test]
fn applications_an_app_of_apps_kustomization_lists_are_one_target_each() {
    let env = TestEnv::new();
    let app = |name: &str, path: &str| {
        format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {name}\n  namespace: argocd\nspec:\n  source:\n    repoURL: https://git.example.com/gitops.git\n    path: {path}\n  destination:\n    namespace: {name}\n")
    };
    env.write(
        ".kdelta.yaml",
        "repoURLs: [https://git.example.com/gitops.git]\nargocd:\n  tracking: none\n",
    )
    .write("argocd/root.yaml", app("root", "apps"))
    .write(
        "apps/kustomization.yaml",
        "namePrefix: team-\nresources:\n- billing.yaml\n- search.yaml\n",
    )
    .write("apps/billing.yaml", app("billing", "services/billing"))
    // After a comment, a separator and another object: the Application is known by where
    // its document starts, which kustomize (one document at a time) and a whole-file read
    // must agree on.
    .write(
        "apps/search.yaml",
        format!(
            "# the search team\n---\n{}---\n\n{}",
            config_map("search-settings", "1"),
            app("search", "services/search")
        ),
    )
    .write("services/billing/cm.yaml", config_map("billing", "1"))
    .write("services/search/cm.yaml", config_map("search", "1"));
    env.commit("app of apps");
    let ids = listed_ids(&env);
    let apps: Vec<&String> = ids.iter().filter(|i| i.starts_with("app:")).collect();
    assert_eq!(
        apps,
        [
            "app:argocd/root.yaml#root",
            "app:apps#team-billing",
            "app:apps#team-search"
        ],
        "{ids:?}"
    );
    env.kdelta(&["render", "app:apps#team-search"])
        .success()
        .stdout_has("kind: Application\nmetadata:\n  name: team-search\n")
        .stdout_has("kind: ConfigMap\nmetadata:\n  name: search\n");
}

/// A component's resources are the kustomization's that uses it: an Application a component
/// lists is a target through that kustomization.
#[test]
fn an_application_a_component_lists_is_a_target_of_the_kustomization_using_it() {
    let env = TestEnv::new();
    env.write(
        ".kdelta.yaml",
        "repoURLs: [https://git.example.com/gitops.git]\n",
    )
    .write(
        "clusters/prod/kustomization.yaml",
        "components:\n- ../../components/monitoring\nnamespace: argocd\n",
    )
    .write(
        "components/monitoring/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n- app.yaml\n",
    )
    .write(
        "components/monitoring/app.yaml",
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: monitoring\nspec:\n  source:\n    repoURL: https://git.example.com/gitops.git\n    path: services/monitoring\n",
    )
    .write("services/monitoring/cm.yaml", config_map("monitoring", "1"));
    env.commit("a component with an Application");
    let ids = listed_ids(&env);
    assert!(
        ids.iter().any(|i| i == "app:clusters/prod#monitoring"),
        "{ids:?}"
    );
    assert!(
        !ids.iter().any(|i| i.contains("components/monitoring")),
        "{ids:?}"
    );
}

#[test]
fn explain_says_in_one_line_why_an_applications_output_is_incomplete() {
    let env = TestEnv::new();
    env.write(
        ".kdelta.yaml",
        "repoURLs: [https://git.example.com/gitops.git]\n",
    );
    env.write(
        "argocd/web.yaml",
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: web, namespace: argocd}\nspec:\n  project: default\n  source:\n    repoURL: https://git.example.com/gitops.git\n    path: apps/web\n  destination: {server: https://kubernetes.default.svc, namespace: web}\n",
    );
    env.write(
        "apps/web/kustomization.yaml",
        "resources:\n- https://charts.example.com/operator/install.yaml\n- cm.yaml\n",
    );
    env.write(
        "apps/web/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n",
    );
    env.commit("web");
    let r = env
        .kdelta(&[
            "explain",
            "ConfigMap/settings",
            "app:argocd/web.yaml#web",
            "--format",
            "json",
        ])
        .success()
        .json();
    let notes: Vec<&str> = r["objects"][0]["notes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| n.as_str())
        .collect();
    assert!(
        notes.iter().any(|n| n.starts_with("app:argocd/web.yaml#web is incomplete: ")
            && n.contains("remote file 'https://charts.example.com/operator/install.yaml' is not in kdelta's cache")),
        "{notes:?}"
    );
}

#[test]
fn charts_render_for_the_cluster_version_its_override_or_the_application_s_own() {
    let env = TestEnv::new();
    let app = |name: &str, helm: &str| {
        format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: {name}, namespace: argocd}}\nspec:\n  source:\n    repoURL: https://git.example.com/gitops.git\n    path: charts/kube\n{helm}  destination: {{server: https://kubernetes.default.svc, namespace: {name}}}\n")
    };
    env.write(
        ".kdelta.yaml",
        "repoURLs: [https://git.example.com/gitops.git]\nkubernetes:\n  version: \"1.29\"\n  overrides:\n  - {paths: [\"charts/**\"], version: \"1.26\"}\n  - {cluster: https://edge.example.com, version: \"1.28\"}\nargocd: {tracking: none}\n",
    )
    .write("charts/kube/Chart.yaml", "apiVersion: v2\nname: kube\nversion: 1.0.0\n")
    .write(
        "charts/kube/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kube}\ndata: {version: {{ .Capabilities.KubeVersion.Version | quote }}}\n",
    )
    .write("argocd/cluster.yaml", app("cluster", ""))
    .write(
        "argocd/pinned.yaml",
        app("pinned", "    helm: {kubeVersion: \"1.31.2\"}\n"),
    )
    .write(
        "argocd/edge.yaml",
        app("edge", "").replace(
            "server: https://kubernetes.default.svc",
            "server: https://edge.example.com",
        ),
    );
    env.commit("two applications");
    env.kdelta(&["render", "--no-validate", "app:argocd/cluster.yaml#cluster"])
        .success()
        .stdout_has("version: v1.29.0");
    env.kdelta(&["render", "--no-validate", "app:argocd/pinned.yaml#pinned"])
        .success()
        .stdout_has("version: v1.31.2");
    // kubernetes.overrides: by the Application's destination, and by a chart's path.
    env.kdelta(&["render", "--no-validate", "app:argocd/edge.yaml#edge"])
        .success()
        .stdout_has("version: v1.28.0");
    env.kdelta(&["render", "--no-validate", "helm:charts/kube"])
        .success()
        .stdout_has("{version: \"v1.26.0\"}");
    // --kube-version is the whole run's.
    env.kdelta(&[
        "render",
        "--no-validate",
        "--kube-version",
        "1.30.1",
        "app:argocd/edge.yaml#edge",
    ])
    .success()
    .stdout_has("version: v1.30.1");
}

/// A kustomization inflating a vendored chart that prints the Kubernetes version Helm renders
/// for, deployed by an Application, with argocd-cm's kustomize `buildOptions`.
fn kustomized_chart(env: &TestEnv, build_options: &str, kdelta_yaml: &str) {
    env.write(
        ".kdelta.yaml",
        format!("repoURLs: [https://git.example.com/gitops.git]\n{kdelta_yaml}"),
    )
    .write(
        "argocd/argocd-cm.yaml",
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\n  namespace: argocd\ndata:\n  kustomize.buildOptions: {build_options}\n"),
    )
    .write(
        "argocd/app.yaml",
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: versions\n  namespace: argocd\nspec:\n  source:\n    repoURL: https://git.example.com/gitops.git\n    path: app\n  destination:\n    server: https://kubernetes.default.svc\n    namespace: prod\n",
    )
    .write(
        "app/kustomization.yaml",
        "helmCharts:\n- name: versions\n  releaseName: v\n  kubeVersion: 1.26.0\n",
    )
    .write(
        "app/charts/versions/Chart.yaml",
        "apiVersion: v2\nname: versions\nversion: 1.0.0\n",
    )
    .write("app/charts/versions/values.yaml", "{}\n")
    .write(
        "app/charts/versions/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: versions\ndata:\n  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n  batch: {{ .Capabilities.APIVersions.Has \"example.com/v9\" | quote }}\n",
    );
    env.commit("a kustomized chart");
}

#[test]
fn argo_cd_builds_helm_charts_of_kustomizations_for_the_destination_cluster() {
    // kustomize build alone renders for the entry's kubeVersion.
    let env = TestEnv::new();
    kustomized_chart(
        &env,
        "--enable-helm",
        "kubernetes:\n  version: \"1.29.0\"\n",
    );
    env.kdelta(&["render", "kustomize:app"])
        .success()
        .stdout_has("kube: v1.26.0");
    // The repo-server appends --helm-kube-version with the cluster's version, which replaces
    // the entry's (kustomize v5.3+).
    env.kdelta(&["render", "app:argocd/app.yaml#versions"])
        .success()
        .stdout_has("kube: v1.29.0");

    // Without --enable-helm in buildOptions it passes nothing; the configured flags apply.
    let env = TestEnv::new();
    kustomized_chart(
        &env,
        "--helm-kube-version 1.27.0 --helm-api-versions example.com/v9",
        "",
    );
    env.kdelta(&["render", "app:argocd/app.yaml#versions"])
        .success()
        .stdout_has("kube: v1.27.0")
        .stdout_has("batch: \"true\"");
}
