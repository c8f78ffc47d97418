//! Flux as an engine end to end: which Kustomizations are roots, every Kustomization and
//! HelmRelease a root applies as a target of its own, a parent's substitution reaching its
//! children in a diff, `explain` (which controller applied an object, and how), and the
//! findings at the Flux objects' files and lines.

use super::*;

const SYNC: &str = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  url: https://example.invalid/fleet.git\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  path: ./clusters/prod\n  sourceRef: {kind: GitRepository, name: flux-system}\n";

/// A Kustomization `name` of flux-system building `path`, with `extra` under `spec`.
fn ks(name: &str, path: &str, extra: &str) -> String {
    format!("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: {name}\n  namespace: flux-system\nspec:\n  path: {path}\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n{extra}")
}

/// A prod cluster (bootstrap files committed) applying `apps` with the variable `REPLICAS`
/// from the ConfigMap `cluster-vars`, and a dev cluster without bootstrap files.
fn fleet(env: &TestEnv, replicas: &str) {
    env.write("clusters/prod/flux-system/gotk-sync.yaml", SYNC)
        .write(
            "clusters/prod/vars.yaml",
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-vars\n  namespace: flux-system\ndata:\n  REPLICAS: \"{replicas}\"\n"),
        )
        .write(
            "clusters/prod/apps.yaml",
            ks(
                "apps",
                "./apps",
                "  postBuild:\n    substituteFrom:\n    - kind: ConfigMap\n      name: cluster-vars\n",
            ),
        )
        .write(
            "apps/web.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  replicas: ${REPLICAS}\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: nginx:1.27}]\n",
        )
        .write("clusters/dev/apps.yaml", ks("apps", "./apps", ""));
}

#[test]
fn roots_and_everything_they_apply_are_targets() {
    let env = TestEnv::new();
    fleet(&env, "2");
    env.commit("fleet");
    let list = env.kdelta(&["list"]).success();
    for id in [
        "flux-ks:flux-system/flux-system@clusters/prod",
        "flux-ks:flux-system/apps@clusters/prod",
        // clusters/dev has no bootstrap files: its sync is implied, as the Flux operator
        // makes it.
        "flux-ks:flux-system/flux-system@clusters/dev",
        "flux-ks:flux-system/apps@clusters/dev",
    ] {
        assert!(list.stdout.contains(id), "{id}:\n{}", list.stdout);
    }
    // A Kustomization a root applies is not a root of its own.
    assert!(
        !list.stdout.contains("flux-ks:flux-system/apps@apps"),
        "{}",
        list.stdout
    );

    let prod = env
        .kdelta(&["render", "flux-ks:flux-system/apps@clusters/prod"])
        .success();
    assert!(prod.stdout.contains("replicas: 2"), "{}", prod.stdout);
    assert!(
        prod.stdout
            .contains("kustomize.toolkit.fluxcd.io/name: apps"),
        "{}",
        prod.stdout
    );
    // The summary counts Flux's objects as it counts Argo CD's Applications.
    env.kdelta(&["check", "--no-validate"])
        .success()
        .stdout_has("Flux Kustomizations and HelmReleases: 4 complete, 0 incomplete");
    // A child's own file names it.
    env.kdelta(&["render", "clusters/dev/apps.yaml"])
        .success()
        .stdout_has("replicas: ${REPLICAS}");
    // Without postBuild nothing is substituted.
    env.kdelta(&["render", "flux-ks:flux-system/apps@clusters/dev"])
        .success()
        .stdout_has("replicas: ${REPLICAS}");
}

#[test]
fn what_a_kustomizations_components_and_resources_reach_is_not_a_root() {
    let env = TestEnv::new();
    env.write("clusters/prod/flux-system/gotk-sync.yaml", SYNC)
        // A component with a Kustomization of its own, brought in by `spec.components`.
        .write(
            "clusters/prod/db.yaml",
            ks(
                "db",
                "./apps/db",
                "  components: [../../components/database]\n  postBuild:\n    substitute: {APP: shop}\n",
            ),
        )
        .write("apps/db/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: db, namespace: x}\n")
        .write(
            "components/database/kustomization.yaml",
            "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [ks.yaml]\n",
        )
        .write("components/database/ks.yaml", ks("${APP}-database", "./apps/db", ""))
        // A kustomization listing a Kustomization file outside its directory.
        .write("clusters/prod/overlay.yaml", ks("overlay", "./overlays/prod", ""))
        .write(
            "overlays/prod/kustomization.yaml",
            "resources: [../../base/web/ks.yaml]\n",
        )
        .write("base/web/ks.yaml", ks("web", "./apps/db", ""));
    env.commit("reach");
    let list = env.kdelta(&["list"]).success();
    for id in [
        "flux-ks:flux-system/shop-database@clusters/prod",
        "flux-ks:flux-system/web@clusters/prod",
    ] {
        assert!(list.stdout.contains(id), "{id}:\n{}", list.stdout);
    }
    // Neither is a root of its own (`${APP}` would be unsubstituted there).
    for id in ["@components/database", "@base/web", "${APP}"] {
        assert!(!list.stdout.contains(id), "{id}:\n{}", list.stdout);
    }
}

#[test]
fn the_flux_operators_oci_sync_artifact_is_read_from_the_directory_ci_pushes() {
    let env = TestEnv::new();
    // As a FluxInstance with `sync.kind: OCIRepository` makes it: the cluster's
    // Kustomizations read the artifact CI pushes from `kubernetes/` (flux push artifact
    // --path=./kubernetes), whose OCIRepository is not in the repository.
    env.write(
        "kubernetes/clusters/prod/apps.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  path: ./apps/prod\n  sourceRef: {kind: OCIRepository, name: flux-system}\n",
    )
    .write(
        "kubernetes/apps/prod/kustomization.yaml",
        "resources: [../base/web/ks.yaml, generated.yaml]\n",
    )
    .write(
        "kubernetes/apps/base/web/ks.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: web\n  namespace: flux-system\nspec:\n  path: ./apps/base/web/app\n  sourceRef: {kind: OCIRepository, name: flux-system}\n",
    )
    .write(
        "kubernetes/apps/base/web/app/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: x}\n",
    )
    // An ArtifactGenerator copying from that artifact, and a Kustomization of what it makes.
    .write(
        "kubernetes/apps/prod/generated.yaml",
        "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\nmetadata: {name: split, namespace: flux-system}\nspec:\n  sources:\n  - {alias: repo, kind: OCIRepository, name: flux-system}\n  artifacts:\n  - name: api\n    copy:\n    - {from: \"@repo/apps/base/api/**\", to: \"@artifact/\"}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: api, namespace: flux-system}\nspec:\n  path: ./\n  sourceRef: {kind: ExternalArtifact, name: api}\n",
    )
    .write(
        "kubernetes/apps/base/api/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: api, namespace: x}\n",
    );
    env.commit("oci");
    let list = env.kdelta(&["list"]).success();
    assert!(
        list.stdout
            .contains("flux-ks:flux-system/web@kubernetes/clusters/prod"),
        "{}",
        list.stdout
    );
    assert!(!list.stdout.contains("@kubernetes/apps"), "{}", list.stdout);
    env.kdelta(&["render", "flux-ks:flux-system/web@kubernetes/clusters/prod"])
        .success()
        .stdout_has("name: web\n  namespace: x\n");
    env.kdelta(&["render", "flux-ks:flux-system/api@kubernetes/clusters/prod"])
        .success()
        .stdout_has("name: api\n  namespace: x\n");
    env.kdelta(&["explain", "ConfigMap/x/web"])
        .success()
        .stdout_has("built from this repository's kubernetes/apps/base/web/app");
    // The plain kustomize target of kubernetes/apps/prod builds as Flux builds it, without
    // the load restrictor that would refuse its file outside the directory.
    env.kdelta(&["render", "kustomize:kubernetes/apps/prod"])
        .success()
        .stdout_has("name: web");
}

#[test]
fn kustomizations_below_a_flux_path_build_without_the_load_restrictor_as_flux_builds_them() {
    let env = TestEnv::new();
    let overlay = "resources: [../../shared/cm.yaml]\n";
    env.write("clusters/prod/flux-system/gotk-sync.yaml", SYNC)
        .write("clusters/prod/apps.yaml", ks("apps", "./apps", ""))
        .write("apps/web/kustomization.yaml", overlay)
        .write("tools/web/kustomization.yaml", overlay)
        .write(
            "shared/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shared, namespace: x}\n",
        );
    env.commit("overlays");
    // kustomize-controller builds apps/web (below the Kustomization's path) with
    // LoadRestrictionsNone, as `kubectl kustomize --load-restrictor LoadRestrictionsNone`.
    env.kdelta(&["render", "kustomize:apps/web"])
        .success()
        .stdout_has("name: shared");
    // Nothing of Flux's builds tools/web: kustomize's default restrictor refuses the file.
    let tools = env.kdelta(&["render", "kustomize:tools/web"]).code(1);
    assert!(
        tools.stderr.contains("kustomize.load-restrictor"),
        "{}",
        tools.stderr
    );
}

#[test]
fn a_variable_changed_in_a_parent_shows_in_the_child_and_explain_says_why() {
    let env = TestEnv::new();
    fleet(&env, "2");
    env.commit("two");
    fleet(&env, "5");
    env.commit("five");
    let report = env
        .kdelta(&[
            "diff",
            "HEAD~1",
            "HEAD",
            "--format",
            "json",
            "--no-validate",
        ])
        .success()
        .json();
    let apps = report["targets"]
        .as_array()
        .expect("targets")
        .iter()
        .find(|t| t["id"] == "flux-ks:flux-system/apps@clusters/prod")
        .expect("the child Kustomization");
    assert_eq!(apps["status"], "modified", "{apps:#}");
    let text = serde_json::to_string(&apps["changes"]).unwrap();
    assert!(
        text.contains("spec.replicas") && text.contains('5'),
        "{text}"
    );

    let explain = env
        .kdelta(&["explain", "apps/v1/Deployment/shop/web"])
        .success();
    assert!(
        explain.stdout.contains("kustomize-controller") && explain.stdout.contains("${REPLICAS}"),
        "{}",
        explain.stdout
    );
}

#[test]
fn findings_point_at_the_flux_objects_and_strict_substitution_fails() {
    let env = TestEnv::new();
    env.write("clusters/prod/flux-system/gotk-sync.yaml", SYNC)
        .write(
            "clusters/prod/apps.yaml",
            format!(
                "{}---\n{}---\n{}",
                ks("paused", "./apps/ok", "  suspend: true\n"),
                ks(
                    "waits",
                    "./apps/ok",
                    "  dependsOn:\n  - name: never-applied\n"
                ),
                ks(
                    "strict",
                    "./apps/strict",
                    "  postBuild:\n    substitute: {A: a}\n"
                ),
            ),
        )
        .write(
            "clusters/prod/more.yaml",
            format!(
                "{}---\n{}---\n{}",
                ks("missing", "./apps/none", ""),
                ks("twin-a", "./apps/shared", ""),
                ks("twin-b", "./apps/shared", ""),
            ),
        )
        .write("apps/shared/inner.yaml", ks("inner", "./apps/ok", ""))
        .write("apps/ok/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok, namespace: x}\n")
        .write(
            "apps/strict/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: strict, namespace: x}\ndata: {a: '${A}', b: '${B}'}\n",
        );
    env.commit("findings");
    let report = env
        .kdelta(&["check", "--format", "json", "--no-validate"])
        .code(1)
        .json();
    let find = |rule: &str| -> Vec<Value> {
        report["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter(|f| f["rule"] == rule)
            .cloned()
            .collect()
    };
    let suspended = find("flux.suspended");
    assert_eq!(suspended.len(), 1, "{report:#}");
    assert_eq!(suspended[0]["file"], "clusters/prod/apps.yaml");
    assert_eq!(suspended[0]["line"], 1);
    let waits = find("flux.depends-on");
    assert_eq!(waits.len(), 1, "{report:#}");
    assert_eq!(waits[0]["line"], 11, "{:#}", waits[0]);
    assert!(waits[0]["message"]
        .as_str()
        .unwrap()
        .contains("flux-system/never-applied"));
    let missing = find("flux.invalid");
    assert_eq!(missing.len(), 1, "{report:#}");
    assert_eq!(missing[0]["file"], "clusters/prod/more.yaml");
    assert!(missing[0]["message"]
        .as_str()
        .unwrap()
        .contains("kustomization path not found: apps/none"));
    let twice = find("flux.duplicate");
    assert_eq!(twice.len(), 1, "{report:#}");
    assert!(
        twice[0]["message"]
            .as_str()
            .unwrap()
            .contains("flux-system/inner is applied by Kustomization flux-system/twin-a and again by flux-system/twin-b"),
        "{:#}",
        twice[0]
    );
    let strict = find("flux.substitute");
    assert_eq!(strict.len(), 1, "{report:#}");
    assert_eq!(strict[0]["line"], 22, "{:#}", strict[0]);
    assert!(
        strict[0]["message"]
            .as_str()
            .unwrap()
            .contains("variable not set (strict mode): \"B\""),
        "{:#}",
        strict[0]
    );
}

#[test]
fn sops_secrets_and_values_only_the_cluster_holds_are_notices() {
    let env = TestEnv::new();
    env.write("clusters/prod/flux-system/gotk-sync.yaml", SYNC)
        .write(
            "clusters/prod/apps.yaml",
            ks("apps", "./apps", "  decryption: {provider: sops}\n"),
        )
        .write(
            "apps/secret.yaml",
            "apiVersion: v1\nkind: Secret\nmetadata: {name: creds, namespace: x}\nstringData:\n  password: ENC[AES256_GCM,data:abc=,type:str]\nsops:\n  age: []\n  version: 3.9.0\n",
        )
        .write(
            "charts/chart/Chart.yaml",
            "apiVersion: v2\nname: chart\nversion: 0.1.0\n",
        )
        .write(
            "charts/chart/templates/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {size: {{ .Values.size | quote }}}\n",
        )
        .write(
            "apps/release.yaml",
            "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: app, namespace: x}\nspec:\n  chart:\n    spec:\n      chart: ./charts/chart\n      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}\n  valuesFrom:\n  - kind: Secret\n    name: made-by-an-operator\n  values: {size: 3}\n",
        );
    env.commit("sops");
    let report = env
        .kdelta(&["check", "--format", "json", "--no-validate"])
        .success()
        .json();
    let notices: Vec<&str> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == "flux.not-rendered")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert!(
        notices
            .iter()
            .any(|m| m.contains("Secret creds is SOPS-encrypted")),
        "{report:#}"
    );
    assert!(
        notices
            .iter()
            .any(|m| m.contains("valuesFrom Secret x/made-by-an-operator")),
        "{report:#}"
    );
    // The chart still renders with the values the repository gives.
    env.kdelta(&[
        "render",
        "--allow-incomplete",
        "flux-hr:x/app@clusters/prod",
    ])
    .success()
    .stdout_has("size: \"3\"");
}

#[test]
fn a_variable_a_missing_secret_may_define_takes_its_default_or_stays_as_written() {
    let env = TestEnv::new();
    env.write("clusters/prod/flux-system/gotk-sync.yaml", SYNC)
        .write(
            "clusters/prod/apps.yaml",
            ks(
                "apps",
                "./apps",
                "  postBuild:\n    substitute:\n      LIST: |\n        [\n          {name: a}\n        ]\n    substituteFrom:\n    - kind: Secret\n      name: made-by-external-secrets\n",
            ),
        )
        .write(
            "apps/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: x}\ndata:\n  list: ${q:='}${LIST}${q:='}\n  size: ${SIZE:=5Gi}\n  domain: ${SECRET_DOMAIN}\n  upper: ${NAME^^}\n",
        );
    env.commit("vars");
    let render = env
        .kdelta(&[
            "render",
            "--allow-incomplete",
            "flux-ks:flux-system/apps@clusters/prod",
        ])
        .success();
    // The defaults Flux takes unless the Secret defines the variables (the quote around a
    // value that holds `: `, so the object still reads as YAML); a variable without one is
    // left as written.
    assert!(
        render
            .stderr
            .contains("Secret flux-system/made-by-external-secrets"),
        "{}",
        render.stderr
    );
    render
        .stdout_has("  list: '[  {name: a}]'\n")
        .stdout_has("  size: 5Gi\n")
        .stdout_has("  domain: ${SECRET_DOMAIN}\n")
        .stdout_has("  upper: ${NAME}\n");
}

#[test]
fn values_from_a_generated_secret_are_read_through_kustomizes_wrapped_base64() {
    let env = TestEnv::new();
    env.write("clusters/prod/flux-system/gotk-sync.yaml", SYNC)
        .write("clusters/prod/apps.yaml", ks("apps", "./apps", ""))
        .write(
            "charts/chart/Chart.yaml",
            "apiVersion: v2\nname: chart\nversion: 0.1.0\n",
        )
        .write(
            "charts/chart/templates/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {greeting: {{ .Values.greeting | quote }}}\n",
        )
        .write(
            "apps/release.yaml",
            "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: app, namespace: x}\nspec:\n  chart:\n    spec:\n      chart: ./charts/chart\n      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}\n  valuesFrom:\n  - kind: Secret\n    name: app-values\n",
        )
        // Longer than 52 bytes: kustomize writes its base64 on several lines.
        .write(
            "apps/values.yaml",
            "greeting: a value long enough that its base64 is wrapped at seventy characters\n",
        )
        .write(
            "apps/kustomization.yaml",
            "namespace: x\nresources: [release.yaml]\ngeneratorOptions: {disableNameSuffixHash: true}\nsecretGenerator:\n- name: app-values\n  files: [values.yaml]\n",
        );
    env.commit("values");
    env.kdelta(&["render", "flux-hr:x/app@clusters/prod"])
        .success()
        .stdout_has(
            "greeting: a value long enough that its base64 is wrapped at seventy characters\n",
        );
}

#[test]
fn older_api_versions_patch_fields_apply() {
    let env = TestEnv::new();
    env.write("clusters/prod/flux-system/gotk-sync.yaml", SYNC)
        .write(
            "clusters/prod/apps.yaml",
            "apiVersion: kustomize.toolkit.fluxcd.io/v1beta2\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  path: ./apps\n  sourceRef: {kind: GitRepository, name: flux-system}\n  patchesStrategicMerge:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: settings, namespace: x}\n    data: {mode: patched}\n  patchesJson6902:\n  - target: {version: v1, kind: ConfigMap, name: settings, namespace: x}\n    patch:\n    - {op: add, path: /data/extra, value: json6902}\n",
        )
        .write(
            "apps/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: x}\ndata: {mode: plain}\n",
        );
    env.commit("v1beta2");
    let out = env
        .kdelta(&["render", "flux-ks:flux-system/apps@clusters/prod"])
        .success();
    for needle in ["mode: patched", "extra: json6902"] {
        assert!(out.stdout.contains(needle), "{needle}:\n{}", out.stdout);
    }
}

#[test]
fn explain_names_the_controller_that_applied_an_object() {
    let env = TestEnv::new();
    env.write("clusters/prod/flux-system/gotk-sync.yaml", SYNC)
        .write(
            "clusters/prod/apps.yaml",
            ks("apps", "./apps", "  targetNamespace: shop\n"),
        )
        .write(
            "apps/web.yaml",
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports: [{port: 80}]\n",
        )
        .write(
            "apps/release.yaml",
            "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: cache}\nspec:\n  chart:\n    spec:\n      chart: ./charts/cache\n      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}\n  values: {size: 3}\n",
        )
        .write(
            "charts/cache/Chart.yaml",
            "apiVersion: v2\nname: cache\nversion: 0.1.0\n",
        )
        .write(
            "charts/cache/templates/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cache}\ndata: {size: {{ .Values.size | quote }}}\n",
        );
    env.commit("fleet");
    let notes = |query: &str, target: &str| {
        let r = env
            .kdelta(&["explain", query, target, "--format", "json"])
            .success()
            .json();
        assert_eq!(r["objects"].as_array().map(Vec::len), Some(1), "{r:#}");
        r["objects"][0]["notes"].clone()
    };
    // A Kustomization's objects: kustomize-controller, with what it did to the build (apps
    // has no kustomization.yaml: the controller generates one).
    assert_eq!(
        notes("Service/web", "flux-ks:flux-system/apps@clusters/prod"),
        json!(["applied by Flux's kustomize-controller: generated a kustomization of the 2 manifests and kustomizations under apps; targetNamespace: shop"]),
    );
    // A HelmRelease's: helm-controller, with the release it installed (its own name: the
    // HelmRelease has no targetNamespace of its own).
    assert_eq!(
        notes("ConfigMap/cache", "flux-hr:shop/cache@clusters/prod"),
        json!(["applied by Flux's helm-controller: release cache in namespace shop"]),
    );
    // The text report says the same.
    env.kdelta(&[
        "explain",
        "ConfigMap/cache",
        "flux-hr:shop/cache@clusters/prod",
    ])
    .success()
    .stdout_has("applied by Flux's helm-controller: release cache in namespace shop");
}

/// A `valuesFrom` reference whose text is not a values map is reported at its entry in the
/// HelmRelease (it was the HelmRelease), counting only the references read: an optional one
/// the repository lacks is skipped, as helm-controller skips it.
#[test]
fn a_values_reference_that_does_not_read_points_at_its_entry() {
    let env = TestEnv::new();
    env.write("clusters/prod/flux-system/gotk-sync.yaml", SYNC)
        .write("clusters/prod/apps.yaml", ks("apps", "./apps", ""))
        .write(
            "charts/chart/Chart.yaml",
            "apiVersion: v2\nname: chart\nversion: 0.1.0\n",
        )
        .write(
            "charts/chart/templates/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {size: {{ .Values.size | quote }}}\n",
        )
        .write(
            "apps/vals.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: vals, namespace: x}\ndata:\n  values.yaml: \"- a list\"\n",
        )
        .write(
            "apps/release.yaml",
            "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: app, namespace: x}\nspec:\n  chart:\n    spec:\n      chart: ./charts/chart\n      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}\n  valuesFrom:\n  - kind: Secret\n    name: missing\n    optional: true\n  - kind: ConfigMap\n    name: vals\n  values: {size: 3}\n",
        );
    env.commit("values");
    let report = env
        .kdelta(&["check", "--format", "json", "--no-validate"])
        .code(1)
        .json();
    let f = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == "flux.invalid")
        .unwrap_or_else(|| panic!("no flux.invalid finding: {report:#}"));
    assert_eq!(
        (&f["file"], &f["line"]),
        (&json!("apps/release.yaml"), &json!(13)),
        "{f}"
    );
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .ends_with("json: cannot unmarshal array into Go value of type common.Values"),
        "{f}"
    );
}

/// A path the GitRepository's `spec.ignore` leaves out of the artifact is not there for the
/// controller, though the directory is in the repository.
#[test]
fn a_path_the_sources_ignore_patterns_leave_out_is_not_found() {
    let env = TestEnv::new();
    let sync = SYNC.replace(
        "  url: https://example.invalid/fleet.git\n",
        "  url: https://example.invalid/fleet.git\n  ignore: |\n    /scratch/\n",
    );
    env.write("clusters/prod/flux-system/gotk-sync.yaml", sync)
        .write(
            "clusters/prod/apps.yaml",
            ks("scratch", "./scratch/apps", ""),
        )
        .write(
            "scratch/apps/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: x}\n",
        );
    env.commit("ignored path");
    env.kdelta(&["render", "flux-ks:flux-system/scratch@clusters/prod"])
        .code(1)
        .stderr_has("kustomization path not found: scratch/apps: the source's ignore patterns leave it out of the artifact");
}
