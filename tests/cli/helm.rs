//! Helm targets end to end: subcharts switched off between revisions, values regenerated on
//! every render, template errors at their file and line, `ci/*-values.yaml` targets, and
//! `kdelta tree`.

use super::*;

/// A chart `charts/app` with a `redis` subchart behind `redis.enabled`.
fn write_umbrella(env: &TestEnv, redis_enabled: bool) {
    env.write(
        "charts/app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n- name: redis\n  version: 1.x\n  condition: redis.enabled\n",
    )
    .write(
        "charts/app/values.yaml",
        format!("redis:\n  enabled: {redis_enabled}\nmode: a\n"),
    )
    .write(
        "charts/app/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-app\ndata:\n  mode: {{ .Values.mode | quote }}\n",
    )
    .write(
        "charts/app/charts/redis/Chart.yaml",
        "apiVersion: v2\nname: redis\nversion: 1.2.0\n",
    )
    .write(
        "charts/app/charts/redis/templates/svc.yaml",
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}-redis\nspec:\n  ports:\n  - port: 6379\n",
    );
}

#[test]
fn a_subchart_switched_off_is_a_warning_and_its_objects_carry_the_reason() {
    let env = TestEnv::new();
    write_umbrella(&env, true);
    let base = env.commit("redis on");
    write_umbrella(&env, false);
    let head = env.commit("redis off");
    let report = env
        .kdelta(&["diff", &base, &head, "--format", "json"])
        .success()
        .json();
    let target = &report["targets"][0];
    assert_eq!(target["id"], "helm:charts/app");
    assert_eq!(target["status"], "modified");
    assert_eq!(
        target["changes"],
        json!([{
            "resource": "core/v1/Service/_/release-name-redis",
            "change": "removed",
            "reason": "subchart redis pruned at head: condition redis.enabled=false"
        }])
    );
    let findings = report["findings"].as_array().unwrap();
    let toggled = findings
        .iter()
        .find(|f| f["rule"] == "helm.subchart.toggled")
        .expect("a toggled warning");
    assert_eq!(toggled["severity"], "warning");
    assert_eq!(toggled["file"], "charts/app/Chart.yaml");
    assert_eq!(toggled["line"], 5);
    assert!(toggled["message"]
        .as_str()
        .unwrap()
        .contains("subchart redis is pruned at head (condition redis.enabled=false)"));
    let pruned = findings
        .iter()
        .find(|f| f["rule"] == "helm.subchart.pruned")
        .expect("a pruned notice");
    assert_eq!(pruned["revision"], "head");
    assert_eq!(pruned["line"], 5);

    // Every writer carries the reason.
    env.kdelta(&["diff", &base, &head, "--color", "never"])
        .success()
        .stdout_has("- core/v1/Service/_/release-name-redis\n      (subchart redis pruned at head: condition redis.enabled=false)");
    env.kdelta(&["diff", &base, &head, "--format", "markdown"])
        .success()
        .stdout_has("subchart redis pruned at head: condition redis.enabled=false");
}

#[test]
fn values_regenerated_on_every_render_are_not_changes() {
    let env = TestEnv::new();
    let write = |mode: &str| {
        env.write("chart/Chart.yaml", "apiVersion: v2\nname: gen\nversion: 0.1.0\n")
            .write("chart/values.yaml", format!("mode: {mode}\n"))
            .write(
                "chart/templates/secret.yaml",
                "{{- $pw := randAlphaNum 24 }}\napiVersion: v1\nkind: Secret\nmetadata:\n  name: pw\ndata:\n  password: {{ $pw | b64enc }}\n---\n\
                 apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    metadata:\n      annotations:\n        checksum/pw: {{ $pw | sha256sum }}\n        mode: {{ .Values.mode }}\n  selector:\n    matchLabels:\n      app: web\n",
            );
    };
    write("a");
    let base = env.commit("a");
    write("b");
    let head = env.commit("b");
    let report = env
        .kdelta(&["diff", &base, &head, "--format", "json"])
        .success()
        .json();
    let changes = &report["targets"][0]["changes"];
    assert_eq!(
        changes,
        &json!([{
            "resource": "apps/v1/Deployment/_/web",
            "change": "modified",
            "fields": [{"path": "spec.template.metadata.annotations.mode", "old": "a", "new": "b"}]
        }]),
        "{report:#}"
    );
    let notice = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "helm.regenerated")
        .expect("a regenerated notice");
    let message = notice["message"].as_str().unwrap();
    assert!(
        message.starts_with("2 field(s) are regenerated on every render (randAlphaNum)"),
        "{message}"
    );
    assert!(
        message.contains("core/v1/Secret/_/pw data.password"),
        "{message}"
    );
}

#[test]
fn generated_certificates_and_keys_are_not_changes() {
    // The second render that finds regenerated fields uses fixed keys (no key generation):
    // every field derived from a key must still differ between the two renders.
    let env = TestEnv::new();
    let write = |mode: &str| {
        env.write("chart/Chart.yaml", "apiVersion: v2\nname: tls\nversion: 0.1.0\n")
            .write("chart/values.yaml", format!("mode: {mode}\n"))
            .write(
                "chart/templates/secret.yaml",
                "{{- $ca := genCA \"ca\" 365 }}\n{{- $cert := genSignedCert \"web\" nil (list \"web.svc\") 365 $ca }}\n\
                 apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls\n  annotations:\n    mode: {{ .Values.mode }}\ndata:\n  ca.crt: {{ $ca.Cert | b64enc }}\n  tls.crt: {{ $cert.Cert | b64enc }}\n  tls.key: {{ $cert.Key | b64enc }}\n  signing.key: {{ genPrivateKey \"ecdsa\" | b64enc }}\n",
            );
    };
    write("a");
    let base = env.commit("a");
    write("b");
    let head = env.commit("b");
    let report = env
        .kdelta(&["diff", &base, &head, "--format", "json", "--show-secrets"])
        .success()
        .json();
    assert_eq!(
        report["targets"][0]["changes"],
        json!([{
            "resource": "core/v1/Secret/_/tls",
            "change": "modified",
            "fields": [{"path": "metadata.annotations.mode", "old": "a", "new": "b"}]
        }]),
        "{report:#}"
    );
    let notice = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "helm.regenerated")
        .expect("a regenerated notice");
    let message = notice["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "4 field(s) are regenerated on every render (genCA, genPrivateKey, genSignedCert)"
        ),
        "{message}"
    );
}

#[test]
fn template_errors_point_at_the_template_and_ci_values_are_targets() {
    let env = TestEnv::new();
    write_umbrella(&env, true);
    env.write(
        "charts/app/ci/small-values.yaml",
        "redis:\n  enabled: false\n",
    )
    .write("charts/app/ci/notes.txt", "not a values file\n");
    env.write(
        ".kdelta.yaml",
        "charts:\n  charts/app:\n    releaseName: shop\n    valuesSets:\n      prod:\n        values: [prod.yaml]\n        set: [mode=p]\n",
    )
    .write("charts/app/prod.yaml", "redis:\n  enabled: false\n");
    env.commit("chart");
    env.kdelta(&["list"]).success().stdout_has(
        "helm       helm:charts/app\nhelm       helm:charts/app#ci/small-values.yaml\nhelm       helm:charts/app#prod\n",
    );
    let prod = env.kdelta(&["render", "helm:charts/app#prod"]).success();
    assert_eq!(
        prod.stdout,
        "---\n# Source: app/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop-app\ndata:\n  mode: \"p\"\n"
    );
    env.kdelta(&["tree"]).success().stdout_has(
        "helm:charts/app\napp 1.0.0\n└── redis 1.2.0\n\nhelm:charts/app#ci/small-values.yaml\napp 1.0.0\n└── redis 1.2.0  pruned: condition redis.enabled=false\n\nhelm:charts/app#prod\n",
    );
    env.kdelta(&[
        "tree",
        "charts/app",
        "--set",
        "redis.enabled=false",
        "--format",
        "json",
    ])
    .success()
    .stdout_has("\"state\": \"pruned\",\n          \"reason\": \"condition redis.enabled=false\"");
    env.kdelta(&["render", "myrel", "charts/app", "--set", "mode=x"])
        .success()
        .stdout_has("---\n# Source: app/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: myrel-app\ndata:\n  mode: \"x\"\n");

    env.write(
        "charts/app/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: {{ required \"mode is required\" .Values.nothing }}\n",
    );
    env.kdelta(&["check", "--color", "never"])
        .code(1)
        .stdout_has("error[helm.template] charts/app/templates/cm.yaml:6:8: execution error at (app/templates/cm.yaml:6:8): mode is required");
    env.write("charts/app/templates/cm.yaml", "{{ if }}\n");
    env.kdelta(&["render", "charts/app"])
        .code(1)
        .stderr_has("error[helm.template] charts/app/templates/cm.yaml:1: parse error at (app/templates/cm.yaml:1): missing value for if");
}

#[test]
fn a_helm_chart_kustomize_would_pull_is_a_notice_and_the_output_incomplete() {
    let env = TestEnv::new();
    env.write(
        "app/kustomization.yaml",
        "helmCharts:\n- name: redis\n  version: 17.3.0\n  repo: https://charts.example.com\n  releaseName: cache\n",
    );
    env.commit("app");
    env.kdelta(&["check", "--color", "never"])
        .success()
        .stdout_has("notice[kustomize.helm.not-fetched] app/kustomization.yaml:2:3: helm chart 'redis' 17.3.0 from https://charts.example.com is neither in charts/redis-17.3.0/redis nor in kdelta's cache");
    env.kdelta(&["render", "app"])
        .code(1)
        .stderr_has("the output of kustomize:app is incomplete");
}

#[test]
fn a_dependency_missing_from_charts_renders_from_helms_repository_cache() {
    let env = TestEnv::new();
    env.write(
        "charts/app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n- name: packed\n  version: ~1.2.0\n  repository: https://charts.example.com\n",
    );
    env.commit("chart");
    // Not vendored and not cached: a notice, and the output is incomplete.
    env.kdelta(&["render", "charts/app"])
        .code(1)
        .stderr_has("notice[helm.dependency.missing] charts/app/Chart.yaml:5:3: dependency packed ~1.2.0 from https://charts.example.com is not found in charts/");
    // `helm dependency update` left the archive in the cache.
    let cache = env.root().join("home/.cache/helm/repository");
    std::fs::create_dir_all(&cache).unwrap();
    let packed = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/helm/01-subcharts-packed-and-aliased/chart/charts/packed-1.2.0.tgz");
    std::fs::copy(&packed, cache.join("packed-1.2.0.tgz")).unwrap();
    std::fs::write(cache.join("packed-1.1.0.tgz"), b"not this one").unwrap();
    let out = env.kdelta(&["render", "charts/app"]).success();
    assert!(
        out.stdout
            .contains("# Source: app/charts/packed/templates/"),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr.contains("notice[helm.dependency.from-cache] charts/app/Chart.yaml: dependency packed 1.2.0 is not in charts/; it was taken from Helm's repository cache"),
        "{}",
        out.stderr
    );
    // The archive is one of the target's remote sources, with its digest.
    let report = env.kdelta(&["check", "--format", "json"]).success().json();
    let sources = report["targets"]
        .as_array()
        .expect("targets")
        .iter()
        .find(|t| t["id"] == "helm:charts/app")
        .map(|t| t["sources"]["head"].to_string())
        .unwrap_or_default();
    assert!(
        sources.contains("helm-cache")
            && sources.contains("packed-1.2.0.tgz")
            && sources.contains("sha256:"),
        "{report:#}"
    );
}

#[test]
fn broken_charts_are_findings_at_their_file_and_line_never_crashes() {
    let env = TestEnv::new();
    let chart = |dir: &str, name: &str| {
        env.write(
            &format!("{dir}/Chart.yaml"),
            format!("apiVersion: v2\nname: {name}\nversion: 0.1.0\n"),
        );
    };
    env.write(
        "bad-yaml/Chart.yaml",
        "apiVersion: v2\nname: x\nversion: 0.1.0\n  x: : y\n",
    );
    chart("bad-values", "v");
    env.write("bad-values/values.yaml", "a: 1\nb: [\n");
    chart("bad-archive", "a");
    env.write("bad-archive/charts/sub-1.0.0.tgz", "not gzip");
    chart("alias-bomb", "bomb");
    env.write(
        "alias-bomb/values.yaml",
        "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n",
    );
    env.write(
        "alias-bomb/templates/cm.yaml",
        "data: {{ toJson .Values | len }}\n",
    );
    chart("recursion", "rec");
    env.write(
        "recursion/templates/cm.yaml",
        "{{ define \"loop\" }}{{ include \"loop\" . }}{{ end }}{{ include \"loop\" . }}\n",
    );
    chart("escape", "esc");
    env.symlink("escape/templates/passwd.yaml", "/etc/passwd");
    env.commit("broken");
    let report = env.kdelta(&["check", "--format", "json"]).code(1).json();
    let finding = |target: &str| -> Value {
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["target"] == target && f["severity"] == "error")
            .unwrap_or_else(|| panic!("no error for {target} in {report:#}"))
            .clone()
    };
    let at = |f: &Value| (f["rule"].clone(), f["file"].clone(), f["line"].clone());
    assert_eq!(
        at(&finding("helm:bad-yaml")),
        (
            json!("helm.chart.invalid"),
            json!("bad-yaml/Chart.yaml"),
            json!(4)
        )
    );
    assert_eq!(
        at(&finding("helm:bad-values")),
        (
            json!("helm.chart.invalid"),
            json!("bad-values/values.yaml"),
            json!(2)
        )
    );
    assert_eq!(
        at(&finding("helm:bad-archive")).1,
        json!("bad-archive/charts/sub-1.0.0.tgz")
    );
    assert_eq!(finding("helm:alias-bomb")["rule"], "helm.chart.invalid");
    let rec = finding("helm:recursion");
    assert_eq!(rec["rule"], "helm.template");
    assert_eq!(rec["file"], "recursion/templates/cm.yaml");
    assert_eq!(finding("helm:escape")["rule"], "source.outside-repository");
    for t in report["targets"].as_array().unwrap() {
        assert_eq!(t["status"], "error", "{t}");
    }
}

#[test]
fn explain_names_the_template_chart_and_values_of_a_helm_object() {
    let env = TestEnv::new();
    write_umbrella(&env, true);
    let r = env
        .kdelta(&["explain", "Service/release-name-redis", "--format", "json"])
        .success()
        .json();
    let o = &r["objects"][0];
    assert_eq!(o["target"], "helm:charts/app");
    // The subchart's template, in the umbrella chart's values.
    assert_eq!(o["file"], "charts/app/charts/redis/templates/svc.yaml");
    assert_eq!(
        o["notes"],
        json!(["rendered by the chart charts/app from the template charts/app/charts/redis/templates/svc.yaml, with the values of charts/app/values.yaml"])
    );
}

#[test]
fn a_vendored_dependency_outside_its_constraint_renders_with_a_warning_at_its_entry() {
    let env = TestEnv::new();
    env.write(
        "charts/app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n- name: db\n  version: ~1.0.0\n  repository: https://charts.example.com\n",
    )
    .write("charts/app/charts/db/Chart.yaml", "apiVersion: v2\nname: db\nversion: 2.0.1\n")
    .write(
        "charts/app/charts/db/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db\n",
    );
    env.commit("chart");
    // Helm renders charts/db by name; kdelta neither withholds the output nor fetches another.
    env.kdelta(&["render", "charts/app"])
        .success()
        .stdout_has("# Source: app/charts/db/templates/cm.yaml\n")
        .stderr_has("warning[helm.dependency.outside-constraint] charts/app/Chart.yaml:5:3: charts/ holds db 2.0.1, outside this dependency's version constraint ~1.0.0; helm template renders it anyway");
}

#[test]
fn a_template_failing_for_a_dependency_not_fetched_is_part_of_its_incomplete_notice() {
    let env = TestEnv::new();
    env.write(
        "charts/app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n- name: common\n  version: 2.x\n  repository: https://charts.example.com\n",
    )
    .write(
        "charts/app/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ include \"common.name\" . }}\n",
    );
    env.commit("chart");
    // Helm would stop at the missing dependency; the template error is its consequence.
    let out = env.kdelta(&["render", "charts/app"]).code(1);
    assert!(
        out.stderr.contains("notice[helm.dependency.missing] charts/app/Chart.yaml:5:3: dependency common 2.x from https://charts.example.com is not found in charts/; its resources are missing, and the chart does not render without it: template: app/templates/cm.yaml:4:11: executing \"app/templates/cm.yaml\" at <include \"common.name\" .>: error calling include: template: no template \"common.name\" associated with template \"gotpl\""),
        "{}",
        out.stderr
    );
    assert!(
        !out.stderr.contains("error[helm.template]"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("the output of helm:charts/app is incomplete"),
        "{}",
        out.stderr
    );
    // Without a repository kdelta cannot fetch it: Helm's error, naming the dependency.
    env.write(
        "charts/app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n- name: common\n  version: 2.x\n",
    );
    env.kdelta(&["render", "charts/app"])
        .code(1)
        .stderr_has("error[helm.dependency.missing] charts/app/Chart.yaml: An error occurred while checking for chart dependencies. You may need to run `helm dependency build` to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: common");
}

/// A shared library chart (`type: library`) and a chart that depends on it through
/// `file://`: the library is no target, the app renders with its helpers, and rendering the
/// library alone is helm's error.
#[test]
fn a_library_chart_in_the_repository_is_no_target_but_serves_its_dependents() {
    let env = TestEnv::new();
    env.write(
        "charts/common/Chart.yaml",
        "apiVersion: v2\nname: common\nversion: 0.1.0\ntype: library\n",
    )
    .write(
        "charts/common/templates/_names.tpl",
        "{{- define \"common.name\" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end -}}\n",
    )
    .write(
        "charts/app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n- name: common\n  version: 0.1.0\n  repository: file://../common\n",
    )
    .write(
        "charts/app/charts/common/Chart.yaml",
        "apiVersion: v2\nname: common\nversion: 0.1.0\ntype: library\n",
    )
    .write(
        "charts/app/charts/common/templates/_names.tpl",
        "{{- define \"common.name\" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end -}}\n",
    )
    .write(
        "charts/app/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ include \"common.name\" . }}\n",
    );
    env.commit("library and app");
    let list = env.kdelta(&["list"]).success().stdout;
    assert!(list.contains("helm:charts/app"), "{list}");
    assert!(!list.contains("helm:charts/common"), "{list}");
    env.kdelta(&["check"]).success();
    env.kdelta(&["render", "charts/app"])
        .success()
        .stdout_has("name: release-name-app");
    let alone = env.kdelta(&["render", "charts/common"]);
    assert_eq!(alone.code, 1, "{}", alone.stderr);
    assert!(
        alone.stderr.contains("library charts are not installable"),
        "{}",
        alone.stderr
    );
}

/// `helm template` renders any chart directory; so does `kdelta render`, for a chart outside
/// the repository it runs in (read as that directory's work tree).
#[test]
fn a_chart_outside_the_repository_renders_as_helm_template_would() {
    let env = TestEnv::new();
    env.write("README.md", "x").commit("repo");
    let outside = tempfile::tempdir().expect("tempdir");
    let chart = outside.path().join("web");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(chart.join("values.yaml"), "port: 80\n").unwrap();
    std::fs::write(
        chart.join("templates/svc.yaml"),
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  ports:\n  - port: {{ .Values.port }}\n",
    )
    .unwrap();
    let path = chart.to_string_lossy().to_string();
    env.kdelta(&["render", &path])
        .success()
        .stdout_has("name: release-name\n");
    env.kdelta(&["render", "shop", &path])
        .success()
        .stdout_has("name: shop\n");
    // A directory outside that is neither a chart nor a kustomization stays refused.
    let plain = outside.path().to_string_lossy().to_string();
    env.kdelta(&["render", &plain])
        .code(2)
        .stderr_has("outside the repository");
}

/// `-f` and `--set-file` read files as Helm's `readFile` does: `-` is standard input, read
/// once (a second `-` reads nothing), a path relative to the current directory; a file that
/// is missing is Go's error, and a URL is refused (kdelta renders without the network).
#[test]
fn values_flags_read_standard_input_once_and_refuse_urls() {
    let env = TestEnv::new();
    env.write("c/Chart.yaml", "apiVersion: v2\nname: c\nversion: 0.1.0\n")
        .write("c/values.yaml", "k: v\n")
        .write(
            "c/templates/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  v: {{ toJson .Values | quote }}\n",
        )
        .write("f.txt", "file\n")
        .commit("chart");
    let run = run_with_stdin(
        env.kdelta_cmd(&["render", "c", "--set-file", "a={f.txt,-},b=-"]),
        "typed\n",
    )
    .success();
    assert!(
        run.stdout
            .contains(r#"v: "{\"a\":[\"file\\n\",\"typed\\n\"],\"b\":\"\",\"k\":\"v\"}""#),
        "{}",
        run.stdout
    );
    run_with_stdin(env.kdelta_cmd(&["render", "c", "-f", "-"]), "k: piped\n")
        .success()
        .stdout_has(r#"\"k\":\"piped\""#);
    env.kdelta(&["render", "c", "--set-file", "a=missing.txt"])
        .code(1)
        .stderr_has("failed parsing --set-file data: open missing.txt: no such file or directory");
    env.kdelta(&["render", "c", "-f", "https://example.com/values.yaml"])
        .code(2)
        .stderr_has("kdelta reads values from files, not URLs");
}

/// A subchart's key holding something other than a table is Helm's `type mismatch` error,
/// reported at the line of the values file that sets it (it was the file alone): the target's
/// own values file when it sets one, else the chart's `values.yaml`.
#[test]
fn a_subchart_value_that_is_not_a_table_points_at_its_line() {
    let env = TestEnv::new();
    write_umbrella(&env, true);
    env.write("charts/app/values.yaml", "mode: a\nredis: 5\n")
        .write("charts/app/ci/bad-values.yaml", "mode: b\n\nredis: [1]\n");
    env.commit("chart");
    let report = env.kdelta(&["check", "--format", "json"]).code(1).json();
    let finding = |target: &str| finding_for(&report, target);
    let top = finding("helm:charts/app");
    assert_eq!(top["rule"], "helm.values", "{top}");
    assert_eq!(
        top["message"], "type mismatch on redis: %!t(float64=5)",
        "{top}"
    );
    assert_eq!(
        (&top["file"], &top["line"]),
        (&json!("charts/app/values.yaml"), &json!(2)),
        "{top}"
    );
    let ci = finding("helm:charts/app#ci/bad-values.yaml");
    assert_eq!(
        (&ci["file"], &ci["line"]),
        (&json!("charts/app/ci/bad-values.yaml"), &json!(3)),
        "{ci}"
    );
}

/// A chart `chart` whose Deployment prints values through the usual patterns (a field chain,
/// `with`, `toYaml | nindent`, entries added to a map the template starts), with a subchart
/// `db` whose replicas the parent sets.
fn write_values_chart(env: &TestEnv) {
    env.write(
        "chart/Chart.yaml",
        "apiVersion: v2\nname: web\nversion: 1.0.0\n",
    )
    .write(
        "chart/values.yaml",
        "replicas: 2\nimage:\n  repository: nginx\n  tag: \"1.27\"\npodLabels:\n  tier: web\nprobe:\n  timeout: soon\nresources:\n  limits:\n    cpu: 2x\n    memory: 1Gi\ndb:\n  replicas: lots\n",
    )
    .write(
        "chart/templates/deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: {{ .Values.replicas }}\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n        {{- with .Values.podLabels }}\n        {{- toYaml . | nindent 8 }}\n        {{- end }}\n    spec:\n      containers:\n      - name: web\n        image: \"{{ .Values.image.repository }}:{{ .Values.image.tag }}\"\n        {{- with .Values.probe }}\n        readinessProbe:\n          timeoutSeconds: {{ .timeout }}\n        {{- end }}\n        resources:\n          {{- toYaml .Values.resources | nindent 10 }}\n",
    )
    .write(
        "chart/charts/db/Chart.yaml",
        "apiVersion: v2\nname: db\nversion: 1.0.0\n",
    )
    .write("chart/charts/db/values.yaml", "replicas: 1\n")
    .write(
        "chart/charts/db/templates/db.yaml",
        "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\nspec:\n  serviceName: db\n  replicas: {{ .Values.replicas }}\n  selector:\n    matchLabels:\n      app: db\n  template:\n    metadata:\n      labels:\n        app: db\n    spec:\n      containers:\n      - name: db\n        image: postgres\n",
    );
}

/// The findings of a report as `(target, field, file, line)`, sorted; the field is the path
/// the message names.
fn located(report: &Value) -> Vec<(String, String, String, u64)> {
    let mut out: Vec<(String, String, String, u64)> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"].as_str().is_some_and(|r| r.starts_with("schema.")))
        .map(|f| {
            let message = f["message"].as_str().unwrap_or_default();
            (
                f["target"].as_str().unwrap_or_default().to_string(),
                message.split(": ").nth(1).unwrap_or_default().to_string(),
                f["file"].as_str().unwrap_or_default().to_string(),
                f["line"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    out.sort();
    out
}

fn at(target: &str, field: &str, file: &str, line: u64) -> (String, String, String, u64) {
    (target.into(), field.into(), file.into(), line)
}

/// A field whose value a template printed as read from the values points at the values file
/// line that set it: the chart's `values.yaml`, a subchart's value its parent sets, a field
/// nested in a `toYaml` block, a scalar inside `with .Values.x` (dot is a map of the values
/// there: its fields are traced too).
#[test]
fn a_field_printed_from_the_values_points_at_the_values_line_that_set_it() {
    let env = TestEnv::new();
    write_values_chart(&env);
    env.commit("chart");
    let report = env.kdelta(&["check", "--format", "json"]).code(1).json();
    let t = "helm:chart";
    assert_eq!(
        located(&report),
        [
            // The subchart's value (a StatefulSet's), set by the parent's values under the
            // subchart's name.
            at(t, "spec.replicas", "chart/values.yaml", 14),
            // `{{ .timeout }}` inside `with .Values.probe`.
            at(
                t,
                "spec.template.spec.containers[0].readinessProbe.timeoutSeconds",
                "chart/values.yaml",
                8
            ),
            // Inside `toYaml .Values.resources | nindent 10`: the same key under the value.
            at(
                t,
                "spec.template.spec.containers[0].resources.limits[cpu]",
                "chart/values.yaml",
                11
            ),
        ],
        "{report:#}"
    );
}

/// The user's values files win over the chart's, last first: a `.kdelta.yaml` values set's
/// files (repository paths) and `-f` files (as the command line names them, outside the
/// repository too); a value a `--set` flag gives is in no file, and stays at its template line.
#[test]
fn a_value_overridden_by_a_values_file_points_at_that_file_and_a_flag_at_the_template() {
    let env = TestEnv::new();
    write_values_chart(&env);
    env.write(
        ".kdelta.yaml",
        "charts:\n  chart:\n    valuesSets:\n      prod: [values-prod.yaml]\n",
    )
    .write(
        "chart/values-prod.yaml",
        "# production\nresources:\n  limits:\n    cpu: 3x\n",
    );
    env.commit("chart with a values set");
    std::fs::write(env.root().join("outside.yaml"), "db:\n  replicas: plenty\n").unwrap();
    let report = env
        .kdelta(&["check", "--format", "json", "-f", "../outside.yaml"])
        .code(1)
        .json();
    let cpu = "spec.template.spec.containers[0].resources.limits[cpu]";
    let found = located(&report);
    for f in [
        at("helm:chart#prod", cpu, "chart/values-prod.yaml", 4),
        at("helm:chart", cpu, "chart/values.yaml", 11),
        at("helm:chart", "spec.replicas", "../outside.yaml", 2),
        at("helm:chart#prod", "spec.replicas", "../outside.yaml", 2),
    ] {
        assert!(found.contains(&f), "{f:?} in {found:#?}");
    }
    let report = env
        .kdelta(&[
            "check",
            "--format",
            "json",
            "--set",
            "resources.limits.cpu=4x",
            "--set",
            "replicas=some",
        ])
        .code(1)
        .json();
    let found = located(&report);
    for f in [
        // The toYaml action's line: the flag set the value, no file did.
        at("helm:chart", cpu, "chart/templates/deploy.yaml", 26),
        at("helm:chart#prod", cpu, "chart/templates/deploy.yaml", 26),
        at(
            "helm:chart",
            "spec.replicas",
            "chart/templates/deploy.yaml",
            6,
        ),
    ] {
        assert!(found.contains(&f), "{f:?} in {found:#?}");
    }
}

/// `kdelta explain` says which fields of an object values files set, at which lines.
#[test]
fn explain_names_the_fields_values_files_set() {
    let env = TestEnv::new();
    write_values_chart(&env);
    env.commit("chart");
    let out = env
        .kdelta(&["explain", "Deployment/web", "--format", "json"])
        .success()
        .json();
    let notes = out["objects"][0]["notes"].to_string();
    assert!(
        notes.contains("fields set by chart/values.yaml: spec.replicas (line 1), spec.template.metadata.labels.tier (line 6), spec.template.spec.containers[0].readinessProbe.timeoutSeconds (line 8), spec.template.spec.containers[0].resources.limits.cpu (line 11)"),
        "{out:#}"
    );
}
