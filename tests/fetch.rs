//! The fetch layer end to end: `kdelta fetch`, `--fetch` and offline rendering from the cache,
//! against a Helm HTTP repository served on 127.0.0.1 by the test itself (tests/fetch/server.rs).
//! Nothing here reaches beyond loopback.

#[allow(dead_code)] // the shared helpers, of which these tests use a few
mod util;

#[path = "fetch/git_http.rs"]
mod git_http;
#[path = "fetch/registry.rs"]
mod registry;
#[path = "fetch/server.rs"]
mod server;

use server::{Route, Server};
use sha2::Digest as _;
use std::time::Duration;
use util::TestEnv;

/// A chart archive as `helm package` lays it out: one Deployment whose image is a value.
fn chart_tgz(name: &str, version: &str, image: &str) -> Vec<u8> {
    let files = [
        (
            "Chart.yaml",
            format!("apiVersion: v2\nname: {name}\nversion: {version}\n"),
        ),
        ("values.yaml", format!("image: {image}\nreplicas: 1\n")),
        (
            "values-prod.yaml",
            "replicas: 5\n".to_string(),
        ),
        (
            "templates/deploy.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}-{{ .Chart.Name }}\nspec:\n  replicas: {{ .Values.replicas }}\n  template:\n    spec:\n      containers:\n      - name: app\n        image: {{ .Values.image }}\n  selector:\n    matchLabels:\n      app: web\n".to_string(),
        ),
    ];
    tgz_of(name, &files)
}

/// A chart archive of `files` (paths relative to the chart) under the directory `name`.
fn tgz_of(name: &str, files: &[(&str, String)]) -> Vec<u8> {
    let mut tar = tar::Builder::new(Vec::new());
    for (path, text) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(text.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, format!("{name}/{path}"), text.as_bytes())
            .expect("append");
    }
    let raw = tar.into_inner().expect("tar");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, &raw).expect("gzip");
    gz.finish().expect("gzip")
}

fn sha256_hex(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A repository serving chart `web` 1.0.0 (nginx:1.25) and 1.1.0 (nginx:1.27) at `/charts`,
/// with archives under `/charts/archives/`; `digest` gives each entry's published digest.
fn helm_repository(server: &Server, digest: impl Fn(&[u8]) -> String) {
    let mut index = String::from("apiVersion: v1\nentries:\n  web:\n");
    for (version, image) in [("1.0.0", "nginx:1.25"), ("1.1.0", "nginx:1.27")] {
        let tgz = chart_tgz("web", version, image);
        index.push_str(&format!(
            "  - name: web\n    version: {version}\n    urls: [archives/web-{version}.tgz]\n    digest: {}\n",
            digest(&tgz)
        ));
        server.route(
            &format!("/charts/archives/web-{version}.tgz"),
            Route::ok(tgz),
        );
    }
    server.route("/charts/index.yaml", Route::ok(index));
}

/// Three targets naming chart `web` at `version` from `repo`: a chart with a non-vendored
/// dependency, a kustomization's `helmCharts` and an Argo CD Application.
fn write_targets(env: &TestEnv, repo: &str, version: &str) {
    write_targets_with(env, repo, repo, version);
}

/// [`write_targets`] with the Application's own `repoURL` (Argo CD writes an OCI registry
/// without a scheme).
fn write_targets_with(env: &TestEnv, repo: &str, app_repo: &str, version: &str) {
    env.write(
        "umbrella/Chart.yaml",
        format!("apiVersion: v2\nname: umbrella\nversion: 0.1.0\ndependencies:\n  - name: web\n    version: \"{version}\"\n    repository: {repo}\n"),
    );
    env.write(
        "kust/kustomization.yaml",
        format!(
            "helmCharts:\n- name: web\n  repo: {repo}\n  version: \"{version}\"\n  releaseName: k\n"
        ),
    );
    env.write(
        "argo/app.yaml",
        format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: webapp\n  namespace: argocd\nspec:\n  destination:\n    namespace: web\n    server: https://kubernetes.default.svc\n  source:\n    repoURL: {app_repo}\n    chart: web\n    targetRevision: \"{version}\"\n    helm:\n      valueFiles: [values-prod.yaml]\n"),
    );
}

/// The changes of fields whose path ends with `field` that the JSON report lists for a
/// target, as `OLD → NEW`.
fn field_changes(report: &serde_json::Value, target: &str, field: &str) -> Vec<String> {
    let t = report["targets"]
        .as_array()
        .expect("targets")
        .iter()
        .find(|t| t["id"] == target)
        .unwrap_or_else(|| panic!("no target {target} in {report:#}"));
    t["changes"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|c| c["fields"].as_array().into_iter().flatten())
        .filter(|f| f["path"].as_str().is_some_and(|p| p.ends_with(field)))
        .map(|f| format!("{} → {}", f["old"], f["new"]))
        .collect()
}

/// `kdelta diff HEAD~1 HEAD --fetch` as JSON, which must succeed.
fn diff_fetched(env: &TestEnv) -> util::Run {
    env.kdelta(&["diff", "HEAD~1", "HEAD", "--fetch", "--format", "json"])
        .success()
}

/// Commits what `write("v1")` and then `write("v2")` write; offline, the diff of the two says
/// what is not in kdelta's cache; gives the `--fetch` diff.
fn commit_twice_and_fetch(env: &TestEnv, write: impl Fn(&str)) -> util::Run {
    for version in ["v1", "v2"] {
        write(version);
        env.commit(version);
    }
    env.kdelta(&["diff", "HEAD~1", "HEAD"])
        .success()
        .stdout_has("not in kdelta's cache");
    diff_fetched(env)
}

/// `kdelta diff HEAD~1 HEAD` without `--fetch` (the servers gone) gives the report the
/// `--fetch` run gave.
fn assert_offline_replay(env: &TestEnv, fetched: &util::Run) {
    let replay = env
        .kdelta(&["diff", "HEAD~1", "HEAD", "--format", "json"])
        .success();
    assert_eq!(replay.stdout, fetched.stdout);
}

/// Each reason is in a `fetch.failed` error of the run's output.
fn assert_fetch_failures(run: &util::Run, reasons: &[&str]) {
    for reason in reasons {
        assert!(
            run.stdout
                .lines()
                .any(|l| l.starts_with("error[fetch.failed]") && l.contains(reason)),
            "{reason}\n{}",
            run.stdout
        );
    }
}

/// The first finding of `rule` in a JSON report, which must have one.
fn finding<'r>(report: &'r serde_json::Value, rule: &str) -> &'r serde_json::Value {
    report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|f| f["rule"] == rule)
        .unwrap_or_else(|| panic!("no {rule} in {report:#}"))
}

/// No finding of a JSON report leaves its target's output incomplete.
fn assert_complete(report: &serde_json::Value) {
    assert!(
        report["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .all(|f| f["incomplete"] != true),
        "{report:#}"
    );
}

/// The image changes the JSON report lists for a target.
fn image_changes(report: &serde_json::Value, target: &str) -> Vec<String> {
    field_changes(report, target, ".image")
}

const TARGETS: [&str; 3] = [
    "helm:umbrella",
    "kustomize:kust",
    "app:argo/app.yaml#webapp",
];

#[test]
fn a_chart_bump_shows_inside_every_source_and_replays_offline_from_the_cache() {
    let server = Server::start();
    helm_repository(&server, sha256_hex);
    let repo = format!("{}/charts", server.url());
    let env = TestEnv::new();
    write_targets(&env, &repo, "1.0.0");
    env.commit("v1");
    write_targets(&env, &repo, "~1.1.0");
    env.commit("bump web");

    // Without --fetch nothing is asked of the server; each target says what is missing.
    let offline = env.kdelta(&["diff", "HEAD~1", "HEAD"]).success();
    assert!(server.requests().is_empty(), "{:?}", server.requests());
    for needle in [
        "kustomize.helm.not-fetched",
        "helm.dependency.missing",
        "app.source.not-rendered",
        "run `kdelta fetch`",
    ] {
        assert!(
            offline.stdout.contains(needle),
            "{needle}:\n{}",
            offline.stdout
        );
    }

    let fetched = diff_fetched(&env);
    let report = fetched.json();
    for target in TARGETS {
        assert_eq!(
            image_changes(&report, target),
            [r#""nginx:1.25" → "nginx:1.27""#],
            "{target}"
        );
    }
    assert_eq!(report["summary"]["errors"], 0, "{report:#}");
    // Each target names the chart version and digest each revision rendered from.
    let digest = |version: &str| {
        sha256_hex(&chart_tgz(
            "web",
            version,
            if version == "1.0.0" {
                "nginx:1.25"
            } else {
                "nginx:1.27"
            },
        ))
    };
    for t in report["targets"].as_array().expect("targets") {
        let sources = &t["sources"];
        let one = |side: &str| {
            let map = sources[side].as_object().unwrap_or_else(|| panic!("{t:#}"));
            assert_eq!(map.len(), 1, "{t:#}");
            map.values().next().unwrap().as_str().unwrap().to_string()
        };
        assert_eq!(one("base"), format!("1.0.0 sha256:{}", digest("1.0.0")));
        assert_eq!(one("head"), format!("1.1.0 sha256:{}", digest("1.1.0")));
    }
    // Each source once per run, whatever number of targets and revisions name it.
    assert_eq!(server.count("/charts/index.yaml"), 1);
    assert_eq!(server.count("/charts/archives/web-1.0.0.tgz"), 1);
    assert_eq!(server.count("/charts/archives/web-1.1.0.tgz"), 1);
    assert!(
        fetched.stderr.contains("kdelta: fetched 2 charts"),
        "{}",
        fetched.stderr
    );

    // The servers gone, the same report from the cache alone, with one job or many.
    drop(server);
    assert_offline_replay(&env, &fetched);
    let serial = env
        .kdelta(&["diff", "HEAD~1", "HEAD", "--format", "json", "-j", "1"])
        .success();
    assert_eq!(serial.stdout, fetched.stdout);
    let text = env.kdelta(&["diff", "HEAD~1", "HEAD"]).success();
    let bumped = format!(
        "/charts web: 1.0.0 sha256:{} → 1.1.0 sha256:{}",
        digest("1.0.0"),
        digest("1.1.0")
    );
    assert_eq!(text.stdout.matches(&bumped).count(), 3, "{}", text.stdout);
    // The Application's value file is read from the chart it names: 5 replicas.
    env.kdelta(&["render", "--rev", "HEAD", "argo/app.yaml"])
        .success()
        .stdout_has("replicas: 5");
}

/// A Flux cluster whose bootstrap Kustomization applies a HelmRepository at `repo` and a
/// HelmRelease of chart `web` at `version`, with `values-prod.yaml` in place of the chart's
/// values and one value from a ConfigMap the cluster applies.
fn write_flux_cluster(env: &TestEnv, repo: &str, version: &str) {
    env.write(
        "clusters/prod/flux-system/gotk-sync.yaml",
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  url: https://example.invalid/fleet.git\n  ref: {branch: main}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  path: ./clusters/prod\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
    );
    env.write(
        "clusters/prod/flux-system/kustomization.yaml",
        "resources: [gotk-sync.yaml]\n",
    );
    env.write(
        "clusters/prod/web.yaml",
        format!("apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: charts\n  namespace: web\nspec:\n  url: {repo}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-values\n  namespace: web\ndata:\n  values.yaml: 'image: nginx:{version}'\n---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: web\n  namespace: web\nspec:\n  chart:\n    spec:\n      chart: web\n      version: \"{version}\"\n      sourceRef: {{kind: HelmRepository, name: charts}}\n      valuesFiles: [values.yaml, values-prod.yaml]\n  valuesFrom:\n  - kind: ConfigMap\n    name: web-values\n"),
    );
}

#[test]
fn a_flux_helm_release_chart_bump_shows_as_the_changes_inside_the_chart() {
    let server = Server::start();
    helm_repository(&server, sha256_hex);
    let repo = format!("{}/charts", server.url());
    let env = TestEnv::new();
    write_flux_cluster(&env, &repo, "1.0.0");
    env.commit("v1");
    write_flux_cluster(&env, &repo, "1.1.0");
    env.commit("bump web");
    let target = "flux-hr:web/web@clusters/prod";

    let offline = env.kdelta(&["diff", "HEAD~1", "HEAD"]).success();
    assert!(server.requests().is_empty(), "{:?}", server.requests());
    for needle in [
        "flux.not-rendered",
        "is not in kdelta's cache",
        "`kdelta fetch`",
    ] {
        assert!(
            offline.stdout.contains(needle),
            "{needle}:\n{}",
            offline.stdout
        );
    }

    let fetched = diff_fetched(&env);
    let report = fetched.json();
    assert_eq!(report["summary"]["errors"], 0, "{report:#}");
    // The ConfigMap's image wins over the chart's; values-prod.yaml's replicas replace
    // values.yaml's.
    assert_eq!(
        image_changes(&report, target),
        [r#""nginx:1.0.0" → "nginx:1.1.0""#]
    );
    let t = report["targets"]
        .as_array()
        .expect("targets")
        .iter()
        .find(|t| t["id"] == target)
        .expect("the HelmRelease target");
    assert_eq!(
        t["sources"]["head"].as_object().map(|m| m.len()),
        Some(1),
        "{t:#}"
    );
    drop(server);
    assert_offline_replay(&env, &fetched);
    let rendered = env.kdelta(&["render", "--rev", "HEAD", target]).success();
    for needle in [
        "replicas: 5",
        "name: web-web",
        "helm.toolkit.fluxcd.io/name: web",
        "helm.toolkit.fluxcd.io/namespace: web",
    ] {
        assert!(
            rendered.stdout.contains(needle),
            "{needle}:\n{}",
            rendered.stdout
        );
    }
}

#[test]
fn a_fetched_dependency_renders_as_the_same_chart_vendored_in_charts() {
    let server = Server::start();
    helm_repository(&server, sha256_hex);
    let env = TestEnv::new();
    write_targets(&env, &format!("{}/charts", server.url()), "1.1.0");
    env.commit("v1");
    let fetched = env.kdelta(&["render", "umbrella", "--fetch"]).success();
    assert!(
        fetched.stdout.contains("image: nginx:1.27"),
        "{}",
        fetched.stdout
    );
    env.write(
        "umbrella/charts/web-1.1.0.tgz",
        chart_tgz("web", "1.1.0", "nginx:1.27"),
    );
    let vendored = env.kdelta(&["render", "umbrella"]).success();
    assert_eq!(fetched.stdout, vendored.stdout);
}

#[test]
fn kdelta_fetch_fills_the_cache_for_later_offline_runs() {
    let server = Server::start();
    helm_repository(&server, sha256_hex);
    let env = TestEnv::new();
    write_targets(&env, &format!("{}/charts", server.url()), "1.0.0");
    env.commit("v1");
    let cache = env.out("cache");
    let cache = cache.to_str().expect("a UTF-8 path");
    let fetch = env
        .kdelta(&["fetch", "HEAD", "--cache-dir", cache])
        .success();
    assert!(
        fetch.stderr.contains("kdelta: fetched 1 chart"),
        "{}",
        fetch.stderr
    );
    drop(server);
    let check = env
        .kdelta(&[
            "check",
            "--rev",
            "HEAD",
            "--cache-dir",
            cache,
            "--format",
            "json",
        ])
        .success();
    let report = check.json();
    assert!(
        !check.stdout.contains("not-fetched") && !check.stdout.contains("not-rendered"),
        "{report:#}"
    );
    // --fetch with the repository gone: the index fetched before, with a warning that says
    // when; the chart, immutable, from the cache.
    let stale = env
        .kdelta(&["check", "--rev", "HEAD", "--cache-dir", cache, "--fetch"])
        .success();
    assert!(
        stale.stdout.contains("warning[fetch.stale]")
            && stale.stdout.contains("could not be fetched again")
            && stale.stdout.contains("kdelta used the copy fetched at 20"),
        "{}",
        stale.stdout
    );
    // Another cache knows nothing.
    let elsewhere = env.out("other-cache");
    env.kdelta(&[
        "check",
        "--rev",
        "HEAD",
        "--cache-dir",
        elsewhere.to_str().unwrap(),
    ])
    .success()
    .stdout_has("kustomize.helm.not-fetched");
}

#[test]
fn every_failure_is_a_finding_with_its_reason_and_the_rest_renders() {
    let server = Server::start();
    helm_repository(&server, sha256_hex);
    let env = TestEnv::new();
    let base = server.url();
    env.write(
        "missing/kustomization.yaml",
        format!("helmCharts:\n- name: web\n  repo: {base}/nowhere\n  version: 1.0.0\n"),
    );
    env.write(
        "noversion/kustomization.yaml",
        format!("helmCharts:\n- name: web\n  repo: {base}/charts\n  version: \"~9.0\"\n"),
    );
    env.write(
        "nochart/kustomization.yaml",
        format!("helmCharts:\n- name: db\n  repo: {base}/charts\n  version: 1.0.0\n"),
    );
    env.write(
        "plain/kustomization.yaml",
        "helmCharts:\n- name: web\n  repo: http://charts.example.com/stable\n  version: 1.0.0\n",
    );
    env.write(
        "mixed/kustomization.yaml",
        format!("resources: [cm.yaml]\nhelmCharts:\n- name: web\n  repo: {base}/nowhere\n  version: 1.0.0\n"),
    );
    env.write(
        "mixed/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local\n",
    );
    env.commit("v1");
    let run = env
        .kdelta(&["check", "--fetch", "--format", "json"])
        .code(1);
    let report = run.json();
    let findings: Vec<String> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == "fetch.failed")
        .map(|f| {
            format!(
                "{} {}",
                f["file"].as_str().unwrap_or(""),
                f["message"].as_str().unwrap_or("")
            )
        })
        .collect();
    let expect = [
        ("missing/kustomization.yaml", "HTTP 404 Not Found"),
        (
            "noversion/kustomization.yaml",
            "no chart version found for web-~9.0",
        ),
        ("nochart/kustomization.yaml", "chart \"db\" not found"),
        (
            "plain/kustomization.yaml",
            "plain HTTP is only used for loopback addresses",
        ),
    ];
    for (file, reason) in expect {
        assert!(
            findings
                .iter()
                .any(|f| f.starts_with(file) && f.contains(reason)),
            "{file}: {reason}\n{findings:#?}"
        );
    }
    // The local ConfigMap still renders beside the chart that failed.
    let mixed = env
        .kdelta(&["render", "mixed", "--fetch", "--allow-incomplete"])
        .code(1);
    assert!(mixed.stdout.contains("kind: ConfigMap"), "{}", mixed.stdout);
    assert!(mixed.stderr.contains("HTTP 404"), "{}", mixed.stderr);
    assert!(!server.requests().iter().any(|p| p.contains("example")));
}

#[test]
fn a_wrong_published_digest_is_a_warning_and_the_archive_renders() {
    let server = Server::start();
    helm_repository(&server, |_| "0".repeat(64));
    let env = TestEnv::new();
    write_targets(&env, &format!("{}/charts", server.url()), "1.0.0");
    env.commit("v1");
    let run = env.kdelta(&["check", "--fetch"]).success();
    assert!(
        run.stdout.contains("warning[fetch.digest-mismatch]"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("Helm never checks it"),
        "{}",
        run.stdout
    );
    env.kdelta(&["check", "--strict"])
        .code(1)
        .stdout_has("error[fetch.digest-mismatch]");
}

#[test]
fn truncated_and_slow_bodies_fail_cleanly() {
    let server = Server::start();
    helm_repository(&server, sha256_hex);
    let tgz = chart_tgz("web", "1.0.0", "nginx:1.25");
    server.route(
        "/charts/archives/web-1.0.0.tgz",
        Route {
            truncate: true,
            ..Route::ok(tgz)
        },
    );
    server.route(
        "/slow/index.yaml",
        Route {
            delay: Some(Duration::from_secs(5)),
            ..Route::ok("apiVersion: v1\nentries: {}\n")
        },
    );
    let env = TestEnv::new();
    let base = server.url();
    env.write(
        "cut/kustomization.yaml",
        format!("helmCharts:\n- name: web\n  repo: {base}/charts\n  version: 1.0.0\n"),
    );
    env.write(
        "slow/kustomization.yaml",
        format!("helmCharts:\n- name: web\n  repo: {base}/slow\n  version: 1.0.0\n"),
    );
    env.commit("v1");
    let mut cmd = env.kdelta_cmd(&["check", "--fetch"]);
    cmd.env("KDELTA_FETCH_TIMEOUT", "1");
    let run = util::run(cmd).code(1);
    assert!(
        run.stdout.contains("cut/kustomization.yaml")
            && run
                .stdout
                .contains("the connection closed before the whole body arrived"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("/slow/index.yaml: timed out"),
        "{}",
        run.stdout
    );
    // Nothing partial was cached: a later offline run still lacks the chart.
    env.kdelta(&["check"])
        .success()
        .stdout_has("kustomize.helm.not-fetched");
}

#[test]
fn credentials_reach_the_repository_and_no_output_or_cache() {
    let server = Server::start();
    helm_repository(&server, sha256_hex);
    let password = "s3cret-Pa55";
    let token = {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(format!("bob:{password}"))
    };
    for path in ["/charts/index.yaml", "/charts/archives/web-1.0.0.tgz"] {
        let mut route = Route::ok(Vec::new());
        route.auth = Some(format!("Basic {token}"));
        // Keep the body the repository serves.
        route.body = match path {
            "/charts/index.yaml" => {
                b"apiVersion: v1\nentries:\n  web:\n  - version: 1.0.0\n    urls: [archives/web-1.0.0.tgz]\n"
                    .to_vec()
            }
            _ => chart_tgz("web", "1.0.0", "nginx:1.25"),
        };
        server.route(path, route);
    }
    let env = TestEnv::new();
    let with_password = format!("http://bob:{password}@127.0.0.1:{}/charts", server.port);
    write_targets(&env, &with_password, "1.0.0");
    env.write(
        "wrong/kustomization.yaml",
        format!(
            "helmCharts:\n- name: web\n  repo: http://bob:wrong-{password}@127.0.0.1:{}/charts\n  version: 1.0.0\n",
            server.port
        ),
    );
    env.commit("v1");
    let json = env.out("report.json");
    let run = env.kdelta(&["check", "--fetch", "--json", json.to_str().unwrap()]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("HTTP 401 Unauthorized"),
        "{}",
        run.stdout
    );
    let mut seen = vec![run.stdout.clone(), run.stderr.clone()];
    seen.push(std::fs::read_to_string(&json).expect("the JSON report"));
    let cache = env.root().join("home/.cache/kdelta");
    for entry in walk(&cache) {
        seen.push(String::from_utf8_lossy(&std::fs::read(entry).unwrap()).into_owned());
    }
    for text in &seen {
        assert!(!text.contains(password), "the password leaked:\n{text}");
        assert!(!text.contains(&token), "the token leaked:\n{text}");
    }
    // The right password rendered.
    let render = env.kdelta(&["render", "kust"]).success();
    assert!(
        render.stdout.contains("image: nginx:1.25"),
        "{}",
        render.stdout
    );
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    assert!(!out.is_empty(), "the cache at {} is empty", dir.display());
    out
}

/// Chart.yaml as Helm's OCI config blob holds it.
fn config_json(version: &str) -> String {
    format!(r#"{{"apiVersion":"v2","name":"web","version":"{version}"}}"#)
}

#[test]
fn charts_in_an_oci_registry_render_in_every_source_and_replay_offline() {
    let Some(registry) = registry::Registry::start() else {
        return;
    };
    for (version, image) in [("1.0.0", "nginx:1.25"), ("1.1.0", "nginx:1.27")] {
        registry.push(
            "charts/web",
            version,
            &config_json(version),
            &chart_tgz("web", version, image),
        );
    }
    let env = TestEnv::new();
    let host = format!("127.0.0.1:{}/charts", registry.port);
    let oci = format!("oci://{host}");
    write_targets_with(&env, &oci, &host, "1.0.0");
    env.commit("v1");
    // A constraint: the tags are listed and the highest match taken.
    write_targets_with(&env, &oci, &host, "~1.1.0");
    env.commit("bump web");
    let fetched = diff_fetched(&env);
    let report = fetched.json();
    for target in TARGETS {
        assert_eq!(
            image_changes(&report, target),
            [r#""nginx:1.25" → "nginx:1.27""#],
            "{target}: {report:#}"
        );
    }
    let digest = sha256_hex(&chart_tgz("web", "1.1.0", "nginx:1.27"));
    let head = &report["targets"][0]["sources"]["head"];
    assert_eq!(
        head[format!("helm {oci} web")],
        format!("1.1.0 sha256:{digest}"),
        "{report:#}"
    );
    drop(registry);
    assert_offline_replay(&env, &fetched);
}

/// Chart `web` 1.2.0 pushed to `charts/web` under each tag, with that tag's image: which tag
/// was pulled shows in the output.
fn push_under_tags(registry: &registry::Registry, tags: &[(&str, &str)]) {
    for (tag, image) in tags {
        registry.push(
            "charts/web",
            tag,
            &config_json("1.2.0"),
            &chart_tgz("web", "1.2.0", image),
        );
    }
}

#[test]
fn a_version_helm_reads_is_the_oci_tag_as_written() {
    let Some(registry) = registry::Registry::start() else {
        return;
    };
    // Three tags of one chart version, as registries hold `v`-prefixed and short tags
    // (helm v3.17.3 pulls, and locks as a dependency, `v1.2.0` and `1.2` as written).
    push_under_tags(
        &registry,
        &[
            ("1.2.0", "nginx:1.25"),
            ("v1.2.0", "nginx:1.27"),
            ("1.2", "nginx:1.26"),
        ],
    );
    let env = TestEnv::new();
    let host = format!("127.0.0.1:{}/charts", registry.port);
    let oci = format!("oci://{host}");
    write_targets_with(&env, &oci, &host, "1.2.0");
    env.commit("1.2.0");
    write_targets_with(&env, &oci, &host, "v1.2.0");
    env.commit("v1.2.0");
    let report = diff_fetched(&env).json();
    for target in TARGETS {
        assert_eq!(
            image_changes(&report, target),
            [r#""nginx:1.25" → "nginx:1.27""#],
            "{target}: {report:#}"
        );
    }
    write_targets_with(&env, &oci, &host, "1.2");
    env.commit("1.2");
    let report = diff_fetched(&env).json();
    for target in TARGETS {
        assert_eq!(
            image_changes(&report, target),
            [r#""nginx:1.27" → "nginx:1.26""#],
            "{target}: {report:#}"
        );
    }
}

#[test]
fn a_flux_helm_repository_of_type_oci_takes_only_a_strict_version_as_the_tag() {
    let Some(registry) = registry::Registry::start() else {
        return;
    };
    push_under_tags(
        &registry,
        &[
            ("1.2.0", "nginx:1.25"),
            ("v1.2.0", "nginx:1.27"),
            ("1.2", "nginx:1.26"),
            ("1.2.5", "nginx:1.28"),
        ],
    );
    let env = TestEnv::new();
    let repo = format!("oci://127.0.0.1:{}/charts", registry.port);
    let target = "flux-hr:api/api@clusters/prod";
    env.write(
        "clusters/prod/flux-system/gotk-sync.yaml",
        "# made by the Flux operator\n",
    );
    let write = |version: &str| {
        env.write(
            "clusters/prod/api.yaml",
            format!("apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: charts\n  namespace: api\nspec:\n  type: oci\n  url: {repo}\n---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: api\n  namespace: api\nspec:\n  chart:\n    spec:\n      chart: web\n      version: \"{version}\"\n      sourceRef: {{kind: HelmRepository, name: charts}}\n"),
        );
    };
    // source-controller's OCIChartRepository: a strict version, `v` or not, is the tag...
    write("1.2.0");
    env.commit("1.2.0");
    write("v1.2.0");
    env.commit("v1.2.0");
    let report = diff_fetched(&env).json();
    assert_eq!(
        image_changes(&report, target),
        [r#""nginx:1.25" → "nginx:1.27""#],
        "{report:#}"
    );
    // ...and `1.2` a range over the strict tags (helm pulls the tag `1.2`).
    write("1.2");
    env.commit("1.2");
    let report = diff_fetched(&env).json();
    assert_eq!(
        image_changes(&report, target),
        [r#""nginx:1.27" → "nginx:1.28""#],
        "{report:#}"
    );
}

/// A Flux HelmRelease whose `chartRef` is an OCIRepository holding chart `web` at `reference`
/// (`tag: …` or `semver: …`), as the home-operations repositories write them.
fn write_flux_oci_release(env: &TestEnv, url: &str, reference: &str) {
    env.write(
        "clusters/prod/flux-system/gotk-sync.yaml",
        "# made by the Flux operator\n",
    );
    env.write(
        "clusters/prod/web.yaml",
        format!("apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: web\n  namespace: web\nspec:\n  url: {url}\n  ref: {{{reference}}}\n  layerSelector:\n    mediaType: application/vnd.cncf.helm.chart.content.v1.tar+gzip\n---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: web\n  namespace: web\nspec:\n  chartRef: {{kind: OCIRepository, name: web}}\n"),
    );
}

#[test]
fn a_chart_from_an_oci_repository_has_its_digest_in_its_version_as_helm_controller_sets_it() {
    let Some(registry) = registry::Registry::start() else {
        return;
    };
    let chart = tgz_of(
        "web",
        &[
            ("Chart.yaml", "apiVersion: v2\nname: web\nversion: v1.0\n".into()),
            (
                "templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n  labels:\n    helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version | replace \"+\" \"_\" }}\n".into(),
            ),
        ],
    );
    let mut manifest = String::new();
    for tag in ["1.0.0", "stable", "2.0.0"] {
        manifest = registry.push_artifact(
            "charts/web",
            tag,
            (registry::HELM_CONFIG, config_json("1.0.0").as_bytes()),
            (registry::HELM_LAYER, &chart),
        );
    }
    let env = TestEnv::new();
    let url = format!("oci://127.0.0.1:{}/charts/web", registry.port);
    let target = "flux-hr:web/web@clusters/prod";
    // The version as Masterminds writes it (no `v`, three numbers) with the manifest's first
    // 12 hex digits, whether the tag is a version, another name or the digest itself.
    let label = format!(
        "helm.sh/chart: web-1.0.0_{}",
        &manifest["sha256:".len()..][..12]
    );
    for reference in [
        "tag: 1.0.0".to_string(),
        "tag: stable".to_string(),
        format!("digest: '{manifest}'"),
    ] {
        write_flux_oci_release(&env, &url, &reference);
        env.commit(&reference);
        let rendered = env.kdelta(&["render", target, "--fetch"]).success();
        assert!(
            rendered.stdout.contains(&label),
            "{reference}: {label}\n{}",
            rendered.stdout
        );
    }
    // A tag that is another version than the chart's is helm-controller's error.
    write_flux_oci_release(&env, &url, "tag: 2.0.0");
    env.commit("2.0.0");
    let failed = env.kdelta(&["render", target, "--fetch"]).code(1);
    assert!(
        failed
            .stderr
            .contains("artifact revision 2.0.0 does not match chart version v1.0"),
        "{}",
        failed.stderr
    );
}

#[test]
fn a_flux_oci_repository_chart_bump_renders_from_the_registry_and_replays_offline() {
    let Some(registry) = registry::Registry::start() else {
        return;
    };
    for (version, image) in [("1.0.0", "nginx:1.25"), ("1.1.0", "nginx:1.27")] {
        registry.push(
            "charts/web",
            version,
            &config_json(version),
            &chart_tgz("web", version, image),
        );
    }
    let env = TestEnv::new();
    let url = format!("oci://127.0.0.1:{}/charts/web", registry.port);
    // The same chart through a HelmRepository of `type: oci`, as chart.spec names it.
    let repo = format!("oci://127.0.0.1:{}/charts", registry.port);
    let write = |reference: &str, version: &str| {
        write_flux_oci_release(&env, &url, reference);
        env.write(
            "clusters/prod/api.yaml",
            format!("apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: charts\n  namespace: api\nspec:\n  type: oci\n  url: {repo}\n---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: api\n  namespace: api\nspec:\n  chart:\n    spec:\n      chart: web\n      version: \"{version}\"\n      sourceRef: {{kind: HelmRepository, name: charts}}\n"),
        );
    };
    write("tag: 1.0.0", "1.0.0");
    env.commit("v1");
    // A semver range: the registry's tags are listed and the highest match taken.
    write("semver: '>=1.0.0 <2.0.0'", "1.x");
    env.commit("bump web");
    let fetched = diff_fetched(&env);
    let report = fetched.json();
    for target in [
        "flux-hr:web/web@clusters/prod",
        "flux-hr:api/api@clusters/prod",
    ] {
        assert_eq!(
            image_changes(&report, target),
            [r#""nginx:1.25" → "nginx:1.27""#],
            "{target}: {report:#}"
        );
    }
    drop(registry);
    assert_offline_replay(&env, &fetched);
}

#[test]
fn a_registry_token_challenge_is_answered_and_a_wrong_digest_refused() {
    let server = Server::start();
    let tgz = chart_tgz("web", "1.0.0", "nginx:1.25");
    let layer = format!("sha256:{}", sha256_hex(&tgz));
    let manifest = format!(
        r#"{{"schemaVersion":2,"config":{{"mediaType":"{}","digest":"{layer}","size":1}},"layers":[{{"mediaType":"{}","digest":"{layer}","size":{}}}]}}"#,
        registry::HELM_CONFIG,
        registry::HELM_LAYER,
        tgz.len()
    );
    let realm = format!("{}/token", server.url());
    let challenge = format!(
        r#"Bearer realm="{realm}",service="test-registry",scope="repository:charts/web:pull""#
    );
    let bearer = |body: Vec<u8>| Route {
        auth: Some("Bearer t0ken".into()),
        challenge: Some(challenge.clone()),
        ..Route::ok(body)
    };
    server.route(
        "/token?service=test-registry&scope=repository%3Acharts%2Fweb%3Apull",
        Route::ok(r#"{"token":"t0ken"}"#),
    );
    server.route(
        "/v2/charts/web/manifests/1.0.0",
        bearer(manifest.clone().into_bytes()),
    );
    server.route(
        &format!("/v2/charts/web/blobs/{layer}"),
        bearer(tgz.clone()),
    );
    // Another chart whose layer is not what its manifest says.
    let lying = manifest.replace("/web", "/lie");
    server.route("/v2/charts/lie/manifests/1.0.0", Route::ok(lying));
    server.route(
        &format!("/v2/charts/lie/blobs/{layer}"),
        Route::ok(chart_tgz("web", "1.0.0", "evil:latest")),
    );
    let env = TestEnv::new();
    let oci = format!("oci://127.0.0.1:{}/charts", server.port);
    env.write(
        "good/kustomization.yaml",
        format!("helmCharts:\n- name: web\n  repo: {oci}\n  version: 1.0.0\n"),
    );
    env.write(
        "bad/kustomization.yaml",
        format!("helmCharts:\n- name: lie\n  repo: {oci}\n  version: 1.0.0\n"),
    );
    env.commit("v1");
    let run = env.kdelta(&["check", "--fetch"]).code(1);
    assert!(
        run.stdout
            .contains("error[fetch.failed] bad/kustomization.yaml")
            && run.stdout.contains("does not match its digest"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("good/kustomization.yaml"),
        "{}",
        run.stdout
    );
    env.kdelta(&["render", "good"])
        .success()
        .stdout_has("image: nginx:1.25");
    let render_bad = env.kdelta(&["render", "bad", "--allow-incomplete"]);
    assert!(!render_bad.stdout.contains("evil"), "{}", render_bad.stdout);
    assert!(
        server.requests().iter().any(|p| p.starts_with("/token?")),
        "{:?}",
        server.requests()
    );
}

/// A repository `other.git` served over smart HTTP: `apps/web` is a kustomization whose
/// Deployment has 1 replica at tag v1 and 3 at tag v2. Returns the server, the served
/// repository's directory and the commit of v1.
fn other_repository(env: &TestEnv) -> (git_http::GitServer, String) {
    let work = env.root().join("other-work");
    std::fs::create_dir_all(work.join("apps/web")).unwrap();
    std::fs::create_dir_all(work.join("components/tier")).unwrap();
    env.git_in(&work, &["init", "-q"]);
    let component = |tier: &str| {
        format!("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nlabels:\n- pairs: {{tier: {tier}}}\n")
    };
    std::fs::write(
        work.join("components/tier/kustomization.yaml"),
        component("one"),
    )
    .unwrap();
    std::fs::create_dir_all(work.join("charts/app/templates")).unwrap();
    std::fs::write(
        work.join("charts/app/Chart.yaml"),
        "apiVersion: v2\nname: app\nversion: 1.0.0\n",
    )
    .unwrap();
    std::fs::write(
        work.join("charts/app/templates/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n",
    )
    .unwrap();
    std::fs::write(
        work.join("apps/web/kustomization.yaml"),
        "resources: [deploy.yaml]\n",
    )
    .unwrap();
    let deploy = |replicas: u32| {
        format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: web\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx\n")
    };
    std::fs::write(work.join("apps/web/deploy.yaml"), deploy(1)).unwrap();
    std::fs::write(work.join("apps/web/values.yaml"), "replicas: 2\n").unwrap();
    env.git_in(&work, &["add", "-A"]);
    env.git_in(&work, &["commit", "-q", "-m", "v1"]);
    env.git_in(&work, &["tag", "v1"]);
    let v1 = env.git_in(&work, &["rev-parse", "HEAD"]);
    std::fs::write(work.join("apps/web/deploy.yaml"), deploy(3)).unwrap();
    std::fs::write(work.join("apps/web/values.yaml"), "replicas: 4\n").unwrap();
    std::fs::write(
        work.join("components/tier/kustomization.yaml"),
        component("two"),
    )
    .unwrap();
    env.git_in(&work, &["commit", "-q", "-am", "v2"]);
    env.git_in(&work, &["tag", "v2"]);
    let served = env.root().join("served");
    std::fs::create_dir_all(&served).unwrap();
    env.git_in(
        env.root(),
        &[
            "clone",
            "-q",
            "--bare",
            work.to_str().unwrap(),
            served.join("other.git").to_str().unwrap(),
        ],
    );
    env.git_in(
        &served.join("other.git"),
        &["config", "uploadpack.allowReachableSHA1InWant", "true"],
    );
    (git_http::GitServer::start(&served), v1)
}

#[test]
fn a_remote_component_is_fetched_and_built_as_kustomize_builds_it() {
    let env = TestEnv::new();
    let (server, _) = other_repository(&env);
    let url = server.url("other.git");
    env.write(
        "app/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n",
    );
    let write = |rev: &str| {
        env.write(
            "app/kustomization.yaml",
            format!("resources: [cm.yaml]\ncomponents:\n- {url}//components/tier?ref={rev}\n"),
        );
    };
    let fetched = commit_twice_and_fetch(&env, write);
    let report = fetched.json();
    assert_eq!(
        field_changes(&report, "kustomize:app", "labels.tier"),
        [r#""one" → "two""#],
        "{report:#}"
    );
    assert_complete(&report);
    drop(server);
    assert_offline_replay(&env, &fetched);
}

fn write_git_targets(env: &TestEnv, url: &str, rev: &str) {
    env.write(
        "argo/app.yaml",
        format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: other\n  namespace: argocd\nspec:\n  destination:\n    namespace: web\n    server: https://kubernetes.default.svc\n  source:\n    repoURL: {url}\n    path: apps/web\n    targetRevision: {rev}\n"),
    );
    env.write(
        "kust/kustomization.yaml",
        format!("namePrefix: k-\nresources:\n- {url}//apps/web?ref={rev}\n"),
    );
}

/// The `spec.replicas` changes the JSON report lists for a target.
fn replica_changes(report: &serde_json::Value, target: &str) -> Vec<String> {
    field_changes(report, target, "spec.replicas")
}

#[test]
fn sources_in_other_git_repositories_render_at_the_revision_named() {
    let env = TestEnv::new();
    let (server, v1) = other_repository(&env);
    let url = server.url("other.git");
    write_git_targets(&env, &url, "v1");
    // A remote base pinned to a commit id.
    env.write(
        "pinned/kustomization.yaml",
        format!("resources:\n- {url}//apps/web?ref={v1}\n"),
    );
    env.commit("v1");
    write_git_targets(&env, &url, "v2");
    env.commit("bump");

    env.kdelta(&["diff", "HEAD~1", "HEAD"])
        .success()
        .stdout_has("not in kdelta's cache");
    let fetched = diff_fetched(&env);
    let report = fetched.json();
    for target in ["kustomize:kust", "app:argo/app.yaml#other"] {
        assert_eq!(
            replica_changes(&report, target),
            ["1 → 3"],
            "{target}: {report:#}"
        );
    }
    // v1 and v2 by tag; the pinned commit is v1's, fetched once by whichever asks first.
    assert!(
        fetched
            .stderr
            .contains("2 git references, 0 files; refreshed 0 indexes/tags; 1 from cache")
            || fetched
                .stderr
                .contains("3 git references, 0 files; refreshed 0 indexes/tags; 0 from cache"),
        "{}",
        fetched.stderr
    );
    let sources = &report["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "kustomize:kust")
        .unwrap()["sources"];
    assert_eq!(
        sources["base"][format!("git {url}")],
        format!("v1 {v1}"),
        "{report:#}"
    );
    env.kdelta(&["render", "pinned"])
        .success()
        .stdout_has("replicas: 1");
    // Only the commits asked for were fetched, one deep each.
    let cache = env.root().join("home/.cache/kdelta/v1/git");
    let repo = std::fs::read_dir(&cache)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let count = env.git_in(&repo, &["rev-list", "--all", "--count"]);
    assert_eq!(count, "2", "v1 and v2, without history");
    assert!(!repo.join("FETCH_HEAD").exists());

    drop(server);
    assert_offline_replay(&env, &fetched);
}

/// A Flux cluster whose `flux-system` directory holds `sync`, with a GitRepository `other` at
/// `url` and `tag`, and a Kustomization `web` of `path` in the GitRepository `source`.
fn write_flux_web(env: &TestEnv, sync: &str, url: &str, tag: &str, path: &str, source: &str) {
    env.write("clusters/prod/flux-system/gotk-sync.yaml", sync);
    env.write(
        "clusters/prod/web.yaml",
        format!("apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: other\n  namespace: flux-system\nspec:\n  url: {url}\n  ref: {{tag: {tag}}}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: web\n  namespace: flux-system\nspec:\n  path: ./{path}\n  targetNamespace: web\n  sourceRef: {{kind: GitRepository, name: {source}}}\n"),
    );
}

#[test]
fn a_flux_kustomization_of_another_git_repository_renders_at_its_ref() {
    let env = TestEnv::new();
    let (server, _) = other_repository(&env);
    let url = server.url("other.git");
    let write = |tag: &str| {
        write_flux_web(
            &env,
            "# made by the Flux operator\n",
            &url,
            tag,
            "apps/web",
            "other",
        )
    };
    let fetched = commit_twice_and_fetch(&env, write);
    let target = "flux-ks:flux-system/web@clusters/prod";
    let report = fetched.json();
    assert_eq!(replica_changes(&report, target), ["1 → 3"], "{report:#}");
    drop(server);
    assert_offline_replay(&env, &fetched);
    env.kdelta(&["render", "--rev", "HEAD", target])
        .success()
        .stdout_has("namespace: web");
}

#[test]
fn a_path_in_a_git_repository_s_include_is_read_from_the_included_repository() {
    let env = TestEnv::new();
    let (server, _) = other_repository(&env);
    let url = server.url("other.git");
    let sync = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  url: https://git.example.com/me/fleet.git\n  ref: {branch: main}\n  include:\n  - repository: {name: other}\n    fromPath: apps\n    toPath: vendor/apps\n  - repository: {name: other}\n    fromPath: charts\n    toPath: vendor/charts\n---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: app\n  namespace: flux-system\nspec:\n  chart:\n    spec:\n      chart: ./vendor/charts/app\n      sourceRef: {kind: GitRepository, name: flux-system}\n";
    let write = |tag: &str| write_flux_web(&env, sync, &url, tag, "vendor/apps/web", "flux-system");
    let fetched = commit_twice_and_fetch(&env, write);
    let target = "flux-ks:flux-system/web@clusters/prod";
    let report = fetched.json();
    assert_eq!(replica_changes(&report, target), ["1 → 3"], "{report:#}");
    assert_complete(&report);
    drop(server);
    assert_offline_replay(&env, &fetched);
    // A chart directory below a toPath is the included repository's.
    env.kdelta(&[
        "render",
        "--rev",
        "HEAD",
        "flux-hr:flux-system/app@clusters/prod",
    ])
    .success()
    .stdout_has("name: app");
}

#[test]
fn semver_references_pick_among_a_git_repository_s_tags_as_argo_cd_and_flux_do() {
    let env = TestEnv::new();
    let (server, _) = other_repository(&env);
    let url = server.url("other.git");
    // v1 has one replica, v2 three.
    let bare = env.root().join("served/other.git");
    for (tag, commit) in [
        ("v1.0.0", "v1"),
        ("v1.1.0", "v2"),
        ("1.2", "v1"),
        ("v2.0.0-rc.1", "v1"),
    ] {
        env.git_in(&bare, &["tag", tag, commit]);
    }
    let write = |url: &str, argo: &[(&str, &str)], flux: &str| {
        let apps: Vec<String> = argo.iter().map(|(name, rev)| {
            format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {name}\n  namespace: argocd\nspec:\n  destination:\n    namespace: web\n    server: https://kubernetes.default.svc\n  source:\n    repoURL: {url}\n    path: apps/web\n    targetRevision: {rev}\n")
        }).collect();
        env.write("argo/apps.yaml", apps.join("---\n"));
        env.write(
            "clusters/prod/flux-system/gotk-sync.yaml",
            "# made by the Flux operator\n",
        );
        env.write(
            "clusters/prod/web.yaml",
            format!("apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: other\n  namespace: flux-system\nspec:\n  url: {url}\n  ref: {{{flux}}}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: web\n  namespace: flux-system\nspec:\n  path: ./apps/web\n  sourceRef: {{kind: GitRepository, name: other}}\n"),
        );
    };
    write(&url, &[("tilde", "v1"), ("loose", "v1")], "tag: v1");
    env.commit("v1");
    // Argo CD reads every tag Masterminds does: `~1.1` is v1.1.0, `1.x` is `1.2` (v1's
    // commit). Flux reads strict versions only (a `v` allowed): `1.x` is v1.1.0.
    write(
        &url,
        &[("tilde", "'~1.1'"), ("loose", "1.x")],
        "semver: 1.x",
    );
    env.commit("constraints");
    let fetched = diff_fetched(&env);
    let report = fetched.json();
    for (target, change) in [
        ("app:argo/apps.yaml#tilde", vec!["1 → 3"]),
        ("app:argo/apps.yaml#loose", vec![]),
        ("flux-ks:flux-system/web@clusters/prod", vec!["1 → 3"]),
    ] {
        assert_eq!(
            replica_changes(&report, target),
            change,
            "{target}: {report:#}"
        );
    }
    assert!(
        !fetched.stdout.contains("fetch.failed") && !fetched.stdout.contains("not-rendered"),
        "{}",
        fetched.stdout
    );
    drop(server);
    assert_offline_replay(&env, &fetched);
    // No tag matches: Argo CD takes the constraint for a branch name, Flux fails.
    let server = git_http::GitServer::start(&env.root().join("served"));
    write(
        &server.url("other.git"),
        &[("tilde", "'~9.0'"), ("loose", "1.x")],
        "semver: '>=9'",
    );
    env.commit("nothing matches");
    let run = env.kdelta(&["check", "--fetch"]).code(1);
    assert_fetch_failures(
        &run,
        &[
            "at ~9.0, which is not this repository",
            "no match found for semver: >=9",
        ],
    );
}

#[test]
fn a_missing_git_reference_or_server_is_a_finding() {
    let env = TestEnv::new();
    let (server, _) = other_repository(&env);
    let url = server.url("other.git");
    write_git_targets(&env, &url, "v9");
    env.write(
        "gone/kustomization.yaml",
        "resources:\n- http://127.0.0.1:9/nothing.git//base?ref=v1\n- cm.yaml\n",
    );
    env.write(
        "gone/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local\n",
    );
    env.write(
        "refused/kustomization.yaml",
        "resources:\n- http://git.example.com/org/repo//base?ref=v1\n",
    );
    env.commit("v1");
    let run = env.kdelta(&["check", "--fetch"]).code(1);
    for (file, reason) in [
        ("kust/kustomization.yaml", "no branch or tag v9"),
        ("argo/app.yaml", "no branch or tag v9"),
        ("gone/kustomization.yaml", "127.0.0.1:9"),
        (
            "refused/kustomization.yaml",
            "only used for loopback addresses",
        ),
    ] {
        assert!(
            run.stdout
                .lines()
                .any(|l| l.starts_with("error[fetch.failed]")
                    && l.contains(file)
                    && l.contains(reason)),
            "{file}: {reason}\n{}",
            run.stdout
        );
    }
    env.kdelta(&["render", "gone", "--allow-incomplete"])
        .success()
        .stdout_has("name: local");
}

#[test]
fn value_files_of_a_multi_source_application_come_from_the_ref_repository() {
    let env = TestEnv::new();
    let (server, _) = other_repository(&env);
    let url = server.url("other.git");
    env.write(
        ".kdelta.yaml",
        "repoURLs: [https://git.example.com/me/main.git]\n",
    );
    env.write(
        "charts/web/Chart.yaml",
        "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    );
    env.write("charts/web/values.yaml", "replicas: 1\n");
    env.write(
        "charts/web/templates/deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: {{ .Values.replicas }}\n  selector:\n    matchLabels:\n      app: web\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx\n",
    );
    let app = |rev: &str| {
        format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: multi\n  namespace: argocd\nspec:\n  destination:\n    namespace: web\n    server: https://kubernetes.default.svc\n  sources:\n  - repoURL: https://git.example.com/me/main.git\n    path: charts/web\n    targetRevision: HEAD\n    helm:\n      valueFiles:\n      - values.yaml\n      - $values/apps/web/values.yaml\n  - repoURL: {url}\n    targetRevision: {rev}\n    ref: values\n")
    };
    env.write("argo/multi.yaml", app("v1"));
    env.commit("v1");
    env.write("argo/multi.yaml", app("v2"));
    env.commit("bump values");
    let offline = env.kdelta(&["diff", "HEAD~1", "HEAD"]).success();
    assert!(
        offline.stdout.contains("not in kdelta's cache"),
        "{}",
        offline.stdout
    );
    let report = diff_fetched(&env).json();
    assert_eq!(
        replica_changes(&report, "app:argo/multi.yaml#multi"),
        ["2 → 4"],
        "{report:#}"
    );
}

#[test]
fn helm_value_files_and_file_parameters_at_urls_are_fetched_as_helm_reads_them() {
    let server = Server::start();
    helm_repository(&server, |_| String::new());
    for (version, image) in [("v1", "nginx:1.26"), ("v2", "nginx:1.28")] {
        server.route(
            &format!("/values/{version}.yaml"),
            Route::ok(format!("image: {image}\n")),
        );
        server.route(&format!("/banner/{version}.txt"), Route::ok(version));
    }
    let env = TestEnv::new();
    env.write(
        ".kdelta.yaml",
        "repoURLs: [https://git.example.com/me/main.git]\n",
    );
    env.write(
        "charts/web/Chart.yaml",
        "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    );
    env.write("charts/web/values.yaml", "image: nginx\n");
    env.write(
        "charts/web/templates/deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    banner: {{ .Values.banner | quote }}\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    spec:\n      containers:\n      - name: web\n        image: {{ .Values.image }}\n",
    );
    let base = server.url();
    // A chart of this repository and one fetched from a Helm repository, each with a value
    // file (and the first a file parameter) at a URL, the version in an environment
    // variable as Argo CD substitutes it.
    let write = |version: &str| {
        env.write(
            "argo/local.yaml",
            format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: local\n  namespace: argocd\nspec:\n  destination:\n    namespace: web\n    server: https://kubernetes.default.svc\n  source:\n    repoURL: https://git.example.com/me/main.git\n    path: charts/web\n    targetRevision: HEAD\n    helm:\n      valueFiles:\n      - values.yaml\n      - {base}/values/{version}.yaml\n      fileParameters:\n      - name: banner\n        path: {base}/banner/{version}.txt\n"),
        );
        env.write(
            "argo/fetched.yaml",
            format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: fetched\n  namespace: argocd\nspec:\n  destination:\n    namespace: web\n    server: https://kubernetes.default.svc\n  source:\n    repoURL: {base}/charts\n    chart: web\n    targetRevision: 1.0.0\n    helm:\n      valueFiles:\n      - values-prod.yaml\n      - {base}/values/${{ARGOCD_APP_NAME}}-{version}.yaml\n"),
        );
    };
    for (version, image) in [("v1", "nginx:1.25"), ("v2", "nginx:1.27")] {
        server.route(
            &format!("/values/fetched-{version}.yaml"),
            Route::ok(format!("image: {image}\n")),
        );
    }
    let fetched = commit_twice_and_fetch(&env, write);
    let report = fetched.json();
    assert_eq!(
        image_changes(&report, "app:argo/local.yaml#local"),
        [r#""nginx:1.26" → "nginx:1.28""#],
        "{report:#}"
    );
    assert_eq!(
        field_changes(&report, "app:argo/local.yaml#local", "banner"),
        [r#""v1" → "v2""#],
        "{report:#}"
    );
    assert_eq!(
        image_changes(&report, "app:argo/fetched.yaml#fetched"),
        [r#""nginx:1.25" → "nginx:1.27""#],
        "{report:#}"
    );
    assert_complete(&report);
    assert_eq!(server.count("/values/v2.yaml"), 1);
    drop(server);
    assert_offline_replay(&env, &fetched);
}

#[test]
fn a_value_file_url_that_fails_is_an_error_even_when_missing_files_are_ignored() {
    let server = Server::start();
    helm_repository(&server, |_| String::new());
    let env = TestEnv::new();
    env.write(
        "argo/app.yaml",
        format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: webapp\n  namespace: argocd\nspec:\n  destination:\n    namespace: web\n    server: https://kubernetes.default.svc\n  source:\n    repoURL: {0}/charts\n    chart: web\n    targetRevision: 1.0.0\n    helm:\n      ignoreMissingValueFiles: true\n      valueFiles:\n      - {0}/values/missing.yaml\n", server.url()),
    );
    env.commit("v1");
    let run = env.kdelta(&["check", "--fetch"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains("fetch.failed") && run.stdout.contains("404"),
        "{}",
        run.stdout
    );
}

#[test]
fn an_applicationset_git_generator_reads_another_repository() {
    let env = TestEnv::new();
    let (server, _) = other_repository(&env);
    let url = server.url("other.git");
    let appset = |rev: &str| {
        format!("apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: apps\n  namespace: argocd\nspec:\n  generators:\n  - git:\n      repoURL: {url}\n      revision: {rev}\n      directories:\n      - path: apps/*\n  template:\n    metadata:\n      name: '{{{{path.basename}}}}'\n    spec:\n      project: default\n      destination:\n        server: https://kubernetes.default.svc\n        namespace: '{{{{path.basename}}}}'\n      source:\n        repoURL: {url}\n        targetRevision: {rev}\n        path: '{{{{path}}}}'\n")
    };
    env.write("argo/appset.yaml", appset("v1"));
    env.commit("v1");
    env.write("argo/appset.yaml", appset("v2"));
    env.commit("bump");
    let offline = env.kdelta(&["diff", "HEAD~1", "HEAD"]).success();
    assert!(
        offline
            .stdout
            .contains("not in kdelta's cache (run `kdelta fetch`"),
        "{}",
        offline.stdout
    );
    let report = diff_fetched(&env).json();
    let app = report["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"].as_str().is_some_and(|id| id.ends_with("/web")))
        .unwrap_or_else(|| panic!("no generated Application web: {report:#}"));
    assert_eq!(
        replica_changes(&report, app["id"].as_str().unwrap()),
        ["1 → 3"],
        "{report:#}"
    );
    drop(server);
    // Gone and not cached at that revision: an error finding, the rest of the run goes on.
    env.write("argo/appset.yaml", appset("v3"));
    env.commit("v3");
    let run = env.kdelta(&["check", "--fetch"]).code(1);
    assert!(
        run.stdout.contains("error[fetch.failed] argo/appset.yaml")
            && run.stdout.contains("the git generator cannot read"),
        "{}",
        run.stdout
    );
}

#[test]
fn applications_a_fetched_chart_renders_become_targets() {
    let server = Server::start();
    helm_repository(&server, sha256_hex);
    let repo = format!("{}/charts", server.url());
    // An app-of-apps chart: one Application for chart web, at the version its values name.
    let apps = |version: &str| {
        tgz_of(
            "apps",
            &[
                ("Chart.yaml", format!("apiVersion: v2\nname: apps\nversion: {version}\n")),
                ("values.yaml", format!("webVersion: {version}\n")),
                (
                    "templates/web.yaml",
                    format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: web\n  namespace: argocd\nspec:\n  destination:\n    namespace: web\n    server: https://kubernetes.default.svc\n  source:\n    repoURL: {repo}\n    chart: web\n    targetRevision: '{{{{ .Values.webVersion }}}}'\n"),
                ),
            ],
        )
    };
    let mut index = String::from("apiVersion: v1\nentries:\n  apps:\n");
    for version in ["1.0.0", "1.1.0"] {
        server.route(
            &format!("/charts/apps-{version}.tgz"),
            Route::ok(apps(version)),
        );
        index.push_str(&format!(
            "  - version: {version}\n    urls: [apps-{version}.tgz]\n"
        ));
    }
    index.push_str("  web:\n");
    for version in ["1.0.0", "1.1.0"] {
        index.push_str(&format!(
            "  - version: {version}\n    urls: [archives/web-{version}.tgz]\n"
        ));
    }
    server.route("/charts/index.yaml", Route::ok(index));
    let env = TestEnv::new();
    let root = |version: &str| {
        format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: root\n  namespace: argocd\nspec:\n  destination:\n    namespace: argocd\n    server: https://kubernetes.default.svc\n  source:\n    repoURL: {repo}\n    chart: apps\n    targetRevision: {version}\n")
    };
    env.write("argo/root.yaml", root("1.0.0"));
    env.commit("v1");
    env.write("argo/root.yaml", root("1.1.0"));
    env.commit("bump the apps");
    let report = diff_fetched(&env).json();
    let child = report["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| {
            t["id"]
                .as_str()
                .is_some_and(|id| id.ends_with("argocd/web"))
        })
        .unwrap_or_else(|| panic!("the Application the chart renders is no target: {report:#}"));
    assert_eq!(
        image_changes(&report, child["id"].as_str().unwrap()),
        [r#""nginx:1.25" → "nginx:1.27""#],
        "{report:#}"
    );
}

#[test]
fn a_mirror_in_the_configuration_serves_the_sources_it_covers() {
    let server = Server::start();
    helm_repository(&server, sha256_hex);
    let env = TestEnv::new();
    env.write(
        ".kdelta.yaml",
        format!(
            "fetch:\n  mirrors:\n  - from: https://charts.example.com/stable\n    to: {}/charts\n",
            server.url()
        ),
    );
    write_targets(&env, "https://charts.example.com/stable", "1.0.0");
    env.commit("v1");
    let run = env
        .kdelta(&["check", "--fetch", "--format", "json"])
        .success();
    let report = run.json();
    let sources = &report["targets"][0]["sources"]["head"];
    // Reports name the source as written; it was fetched from the mirror.
    assert!(
        sources["helm https://charts.example.com/stable web"]
            .as_str()
            .is_some_and(|v| v.starts_with("1.0.0 sha256:")),
        "{report:#}"
    );
    assert_eq!(server.count("/charts/index.yaml"), 1);
}

#[test]
fn helm_repositories_yaml_names_repositories_and_holds_their_credentials() {
    let server = Server::start();
    let token = {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode("alice:helm-s3cret")
    };
    let index = "apiVersion: v1\nentries:\n  web:\n  - version: 1.0.0\n    urls: [web-1.0.0.tgz]\n";
    for (path, body) in [
        ("/private/index.yaml", index.as_bytes().to_vec()),
        (
            "/private/web-1.0.0.tgz",
            chart_tgz("web", "1.0.0", "nginx:1.25"),
        ),
    ] {
        server.route(
            path,
            Route {
                auth: Some(format!("Basic {token}")),
                ..Route::ok(body)
            },
        );
    }
    let env = TestEnv::new();
    let config = env.root().join("home/.config/helm");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("repositories.yaml"),
        format!(
            "apiVersion: \"\"\nrepositories:\n- name: private\n  url: {}/private\n  username: alice\n  password: helm-s3cret\n",
            server.url()
        ),
    )
    .unwrap();
    env.write(
        "umbrella/Chart.yaml",
        "apiVersion: v2\nname: umbrella\nversion: 0.1.0\ndependencies:\n- name: web\n  version: 1.0.0\n  repository: \"@private\"\n- name: db\n  version: 1.0.0\n  repository: alias:unknown\n",
    );
    env.commit("v1");
    let run = env.kdelta(&["check", "--fetch"]).code(1);
    assert!(
        run.stdout
            .contains("no repository named \"unknown\" in Helm's repositories.yaml"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("helm-s3cret") && !run.stderr.contains("helm-s3cret"));
    // The unknown name stays an error offline too; the rest renders.
    env.kdelta(&["render", "umbrella", "--allow-incomplete"])
        .code(1)
        .stdout_has("image: nginx:1.25");
}

#[test]
fn an_application_pinned_to_a_tag_of_this_repository_renders_that_tag() {
    let env = TestEnv::new();
    env.write(
        ".kdelta.yaml",
        "repoURLs: [https://git.example.com/me/main.git]\n",
    );
    env.write("apps/web/kustomization.yaml", "resources: [deploy.yaml]\n");
    let deploy = |replicas: u32| {
        format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: web\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx\n")
    };
    let app = |rev: &str| {
        format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: web\n  namespace: argocd\nspec:\n  destination:\n    namespace: web\n    server: https://kubernetes.default.svc\n  source:\n    repoURL: https://git.example.com/me/main.git\n    path: apps/web\n    targetRevision: {rev}\n")
    };
    env.write("apps/web/deploy.yaml", deploy(1));
    env.write("argo/web.yaml", app("v1.0.0"));
    env.commit("one replica");
    env.git(&["tag", "v1.0.0"]);
    env.write("apps/web/deploy.yaml", deploy(3));
    env.commit("three replicas");
    env.git(&["tag", "v1.1.0"]);
    env.write("argo/web.yaml", app("v1.1.0"));
    env.commit("promote v1.1.0");
    // The change to the files does not reach the Application still pinned to v1.0.0.
    let report = env
        .kdelta(&["diff", "HEAD~2", "HEAD~1", "--format", "json"])
        .success()
        .json();
    assert_eq!(replica_changes(&report, "kustomize:apps/web"), ["1 → 3"]);
    assert!(
        replica_changes(&report, "app:argo/web.yaml#web").is_empty(),
        "{report:#}"
    );
    // The promotion does, read from the local repository without any fetch.
    let report = env
        .kdelta(&["diff", "HEAD~1", "HEAD", "--format", "json"])
        .success()
        .json();
    assert_eq!(
        replica_changes(&report, "app:argo/web.yaml#web"),
        ["1 → 3"],
        "{report:#}"
    );
    // A constraint pins the highest tag of this repository it admits (`~1.0` is below
    // 1.1.0).
    env.write("argo/web.yaml", app("'~1.0'"));
    env.commit("a constraint");
    let report = env
        .kdelta(&["diff", "HEAD~1", "HEAD", "--format", "json"])
        .success()
        .json();
    assert_eq!(
        replica_changes(&report, "app:argo/web.yaml#web"),
        ["3 → 1"],
        "{report:#}"
    );
    // A tag the repository does not have: the revision under test, with a notice.
    env.write("argo/web.yaml", app("v9.0.0"));
    env.commit("a tag that does not exist");
    env.kdelta(&["check"])
        .success()
        .stdout_has("deploys this repository at v9.0.0, but neither the local repository nor kdelta's cache has it");
}

#[test]
fn an_argo_cd_oci_source_renders_the_artifact_it_names() {
    let Some(registry) = registry::Registry::start() else {
        return;
    };
    // Argo CD takes a revision as a tag first (`latest`, `v1.2.0`), and a semver constraint
    // over the tags when no tag has its name.
    for (tag, replicas) in [("1.0.0", 1), ("1.1.0", 3), ("latest", 4), ("v1.2.0", 5)] {
        let layer = tgz_of(
            ".",
            &[
                ("apps/web/kustomization.yaml", "resources: [deploy.yaml]\n".to_string()),
                (
                    "apps/web/deploy.yaml",
                    format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: web\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx\n"),
                ),
            ],
        );
        registry.push_artifact(
            "manifests/web",
            tag,
            ("application/vnd.oci.empty.v1+json", b"{}"),
            ("application/vnd.oci.image.layer.v1.tar+gzip", &layer),
        );
    }
    let env = TestEnv::new();
    let url = format!("oci://127.0.0.1:{}/manifests/web", registry.port);
    let app = |rev: &str| {
        format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: web\n  namespace: argocd\nspec:\n  destination:\n    namespace: web\n    server: https://kubernetes.default.svc\n  source:\n    repoURL: {url}\n    path: apps/web\n    targetRevision: {rev}\n")
    };
    let target = "app:argo/web.yaml#web";
    for (from, to, change) in [
        ("1.0.0", "1.1.0", "1 → 3"),
        ("1.1.0", "latest", "3 → 4"),
        ("latest", "v1.2.0", "4 → 5"),
        ("v1.2.0", "'~1.1'", "5 → 3"),
        ("'~1.1'", "'>=1.0.0'", "3 → 5"),
    ] {
        env.write("argo/web.yaml", app(from));
        env.commit(from);
        env.write("argo/web.yaml", app(to));
        env.commit(to);
        let fetched = diff_fetched(&env);
        let report = fetched.json();
        assert_eq!(
            replica_changes(&report, target),
            [change],
            "{to}: {report:#}"
        );
    }
    let fetched = diff_fetched(&env);
    drop(registry);
    assert_offline_replay(&env, &fetched);
}

/// `flux push artifact`'s media types.
const FLUX_CONFIG: &str = "application/vnd.cncf.flux.config.v1+json";
const FLUX_CONTENT: &str = "application/vnd.cncf.flux.content.v1.tar+gzip";

#[test]
fn a_flux_oci_repository_artifact_renders_by_digest_semver_and_tag_as_flux_picks_them() {
    let Some(registry) = registry::Registry::start() else {
        return;
    };
    let mut digests = std::collections::HashMap::new();
    for (tag, replicas) in [
        ("v1.0.0", 1),
        ("v1.1.0", 3),
        ("1.2.0", 4),
        ("v2.0.0", 5),
        ("latest", 6),
    ] {
        let layer = tgz_of(
            ".",
            &[(
                "apps/web/deploy.yaml",
                format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: {replicas}\n"),
            )],
        );
        let digest = registry.push_artifact(
            "manifests/app",
            tag,
            (FLUX_CONFIG, b"{}"),
            (FLUX_CONTENT, &layer),
        );
        digests.insert(tag, digest);
    }
    let env = TestEnv::new();
    let url = format!("oci://127.0.0.1:{}/manifests/app", registry.port);
    let write = |reference: &str| {
        env.write(
            "clusters/prod/flux-system/gotk-sync.yaml",
            "# made by the Flux operator\n",
        );
        env.write(
            "clusters/prod/app.yaml",
            format!("apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: app\n  namespace: flux-system\nspec:\n  url: {url}\n  ref: {{{reference}}}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: web\n  namespace: flux-system\nspec:\n  path: ./apps/web\n  targetNamespace: web\n  sourceRef: {{kind: OCIRepository, name: app}}\n"),
        );
    };
    let target = "flux-ks:flux-system/web@clusters/prod";
    // No ref is `latest`; a digest wins over a tag.
    write("");
    env.commit("latest");
    write(&format!("digest: '{}', tag: v2.0.0", digests["v1.0.0"]));
    env.commit("pinned by digest");
    let fetched = diff_fetched(&env);
    assert_eq!(
        replica_changes(&fetched.json(), target),
        ["6 → 1"],
        "{}",
        fetched.stdout
    );
    // A semver range takes strict versions with or without a `v`, among the tags the filter
    // keeps: `v2.0.0` is filtered out, `1.2.0` is the highest left.
    write("semver: '>=1.0.0', semverFilter: '^v?1[.]'");
    env.commit("semver");
    let fetched = diff_fetched(&env);
    assert_eq!(
        replica_changes(&fetched.json(), target),
        ["1 → 4"],
        "{}",
        fetched.stdout
    );
    drop(registry);
    assert_offline_replay(&env, &fetched);
    // Offline, a range the cached tags cannot satisfy is missing from the cache, not wrong.
    write("semver: '>=3.0.0'");
    env.commit("nothing matches");
    env.kdelta(&["check"])
        .success()
        .stdout_has("no match found for semver: >=3.0.0; the tags were listed at");
}

#[test]
fn a_flux_oci_repository_that_names_nothing_is_flux_s_error() {
    let Some(registry) = registry::Registry::start() else {
        return;
    };
    let layer = tgz_of(
        ".",
        &[(
            "apps/web/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n".to_string(),
        )],
    );
    registry.push_artifact(
        "manifests/app",
        "v1.0.0",
        (FLUX_CONFIG, b"{}"),
        (FLUX_CONTENT, &layer),
    );
    let env = TestEnv::new();
    let url = format!("oci://127.0.0.1:{}/manifests/app", registry.port);
    env.write(
        "clusters/prod/flux-system/gotk-sync.yaml",
        "# made by the Flux operator\n",
    );
    let mut documents = Vec::new();
    for (name, spec) in [
        ("range", "ref: {semver: '>=3.0.0'}".to_string()),
        (
            "layer",
            format!(
                "ref: {{tag: v1.0.0}}\n  layerSelector: {{mediaType: {}}}",
                registry::HELM_LAYER
            ),
        ),
        (
            "digest",
            format!("ref: {{digest: 'sha256:{}'}}", "0".repeat(64)),
        ),
    ] {
        documents.push(format!("apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: {name}\n  namespace: flux-system\nspec:\n  url: {url}\n  {spec}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: {name}\n  namespace: flux-system\nspec:\n  path: ./apps/web\n  sourceRef: {{kind: OCIRepository, name: {name}}}\n"));
    }
    env.write("clusters/prod/apps.yaml", documents.join("---\n"));
    env.commit("v1");
    let run = env.kdelta(&["check", "--fetch"]).code(1);
    assert_fetch_failures(
        &run,
        &[
            "no match found for semver: >=3.0.0",
            "failed to find layer with media type 'application/vnd.cncf.helm.chart.content.v1.tar+gzip' in artifact",
            "HTTP 404",
        ],
    );
}

#[test]
fn chart_lock_pins_versions_and_an_out_of_sync_lock_is_helms_error() {
    let server = Server::start();
    helm_repository(&server, sha256_hex);
    let repo = format!("{}/charts", server.url());
    let env = TestEnv::new();
    let chart = format!(
        "apiVersion: v2\nname: umbrella\nversion: 0.1.0\ndependencies:\n- name: web\n  version: \"~1\"\n  repository: {repo}\n"
    );
    let locked = format!("dependencies:\n- name: web\n  repository: {repo}\n  version: 1.0.0\n");
    // The digest helm dependency update writes (kdelta's port is checked against helm's in
    // testdata/helm-lock).
    let parse = |t: &str| kdelta::yaml::parse_one(t.as_bytes(), &Default::default()).expect("YAML");
    let digest = kdelta::helm::lock::hash_req(
        parse(&chart).get("dependencies"),
        parse(&locked).get("dependencies"),
    )
    .expect("a digest");
    env.write("umbrella/Chart.yaml", &chart);
    env.write(
        "umbrella/Chart.lock",
        format!("{locked}digest: {digest}\ngenerated: \"2026-01-01T00:00:00Z\"\n"),
    );
    env.commit("v1");
    env.kdelta(&["render", "umbrella", "--fetch"])
        .success()
        .stdout_has("image: nginx:1.25");
    // The constraint changes, the lock does not: helm dependency build refuses it.
    env.write(
        "umbrella/Chart.yaml",
        chart.replace("\"~1\"", "\">=1.0.0\""),
    );
    let run = env.kdelta(&["render", "umbrella", "--fetch"]).code(1);
    assert!(
        run.stderr
            .contains("error[helm.lock.out-of-sync] umbrella/Chart.lock")
            && run.stderr.contains(
                "the lock file (Chart.lock) is out of sync with the dependencies file (Chart.yaml)"
            ),
        "{}",
        run.stderr
    );
    assert!(run.stdout.contains("image: nginx:1.27"), "{}", run.stdout);
}

#[test]
fn a_kustomize_resource_at_a_url_is_fetched_and_replays_offline() {
    let server = Server::start();
    let install = |image: &str| {
        format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: operator\nspec:\n  template:\n    spec:\n      containers:\n      - name: operator\n        image: {image}\n  selector:\n    matchLabels:\n      app: web\n")
    };
    server.route(
        "/releases/v1/install.yaml",
        Route::ok(install("operator:1")),
    );
    server.route(
        "/releases/v2/install.yaml",
        Route::ok(install("operator:2")),
    );
    let env = TestEnv::new();
    let kustomization = |version: &str| {
        format!(
            "namespace: ops\nresources:\n- {}/releases/{version}/install.yaml\n- local.yaml\n",
            server.url()
        )
    };
    env.write(
        "ops/local.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n",
    );
    env.write("ops/kustomization.yaml", kustomization("v1"));
    env.commit("v1");
    // Not fetched: the local objects render, and a notice says what is missing.
    let offline = env.kdelta(&["check", "--format", "json"]).json();
    let notice = finding(&offline, "kustomize.remote-resource");
    assert_eq!(notice["incomplete"], true);
    assert!(
        notice["message"]
            .as_str()
            .is_some_and(|m| m.contains("remote file") && m.contains("not in kdelta's cache")),
        "{notice:#}"
    );
    env.write("ops/kustomization.yaml", kustomization("v2"));
    env.commit("v2");
    let fetched = diff_fetched(&env);
    let report = fetched.json();
    assert_eq!(
        image_changes(&report, "kustomize:ops"),
        ["\"operator:1\" → \"operator:2\""],
        "{report:#}"
    );
    assert_complete(&report);
    // Each URL once, whichever revision and target asks.
    assert_eq!(server.count("/releases/v1/install.yaml"), 1);
    assert_eq!(server.count("/releases/v2/install.yaml"), 1);
    drop(server);
    assert_offline_replay(&env, &fetched);
}

#[test]
fn a_kustomize_resource_url_that_fails_is_an_error_and_the_rest_renders() {
    let server = Server::start();
    let env = TestEnv::new();
    env.write(
        "ops/kustomization.yaml",
        format!(
            "resources:\n- {}/missing/install.yaml\n- local.yaml\n",
            server.url()
        ),
    );
    env.write(
        "ops/local.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n",
    );
    env.commit("v1");
    let run = env.kdelta(&["render", "--fetch", "--allow-incomplete", "ops"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.contains("name: settings"), "{}", run.stdout);
    assert!(
        run.stderr.contains("fetch.failed") && run.stderr.contains("404"),
        "{}",
        run.stderr
    );
}

/// `testdata/fetch/kustomize-remote-files` (its regen.sh recorded expected.yaml with `kubectl
/// kustomize`): a kustomization in `dir` whose patches, generator files and replacement are
/// at URLs of `server`, which serves them. Returns the expected output and the served paths.
fn write_kustomize_remote_files(
    env: &TestEnv,
    server: &Server,
    dir: &str,
) -> (String, Vec<String>) {
    let case = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/fetch/kustomize-remote-files");
    let served = case.join("served");
    let mut paths = Vec::new();
    for file in walk(&served) {
        let rel = file.strip_prefix(&served).unwrap().to_string_lossy();
        let path = format!("/{rel}");
        server.route(&path, Route::ok(std::fs::read(&file).unwrap()));
        paths.push(path);
    }
    let read = |name: &str| std::fs::read_to_string(case.join(name)).unwrap();
    env.write(
        &format!("{dir}/deployment.yaml"),
        read("in/deployment.yaml"),
    );
    env.write(
        &format!("{dir}/kustomization.yaml"),
        read("in/kustomization.yaml.in").replace("SERVER", &server.url()),
    );
    (read("expected.yaml"), paths)
}

#[test]
fn files_a_kustomization_loads_from_urls_are_fetched_as_kustomize_downloads_them() {
    let server = Server::start();
    let env = TestEnv::new();
    let (expected, paths) = write_kustomize_remote_files(&env, &server, "web");
    env.commit("v1");
    // Not fetched: the build stops at the first file it lacks, with a notice saying so.
    let offline = env.kdelta(&["check", "--format", "json"]).json();
    let notice = finding(&offline, "kustomize.remote-resource");
    assert_eq!(notice["incomplete"], true, "{notice:#}");
    assert!(
        notice["message"]
            .as_str()
            .is_some_and(|m| m.contains("remote file")
                && m.contains("/config/settings.env")
                && m.contains("not in kdelta's cache")),
        "{notice:#}"
    );
    let fetched = env.kdelta(&["render", "--fetch", "web"]);
    assert_eq!(fetched.code, 0, "{}", fetched.stderr);
    assert_eq!(fetched.stdout, expected);
    for path in &paths {
        assert_eq!(server.count(path), 1, "{path}");
    }
    drop(server);
    let replay = env.kdelta(&["render", "web"]);
    assert_eq!(replay.code, 0, "{}", replay.stderr);
    assert_eq!(replay.stdout, expected);
}

#[test]
fn a_kustomization_file_url_that_fails_is_an_error_at_its_entry() {
    let server = Server::start();
    let env = TestEnv::new();
    write_kustomize_remote_files(&env, &server, "web");
    server.route(
        "/config/settings.env",
        Route {
            status: 404,
            ..Route::default()
        },
    );
    env.commit("v1");
    let run = env.kdelta(&["check", "--fetch", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report = run.json();
    let failed = finding(&report, "fetch.failed");
    assert_eq!(failed["severity"], "error", "{failed:#}");
    assert_eq!(failed["file"], "web/kustomization.yaml", "{failed:#}");
    assert!(
        failed["message"]
            .as_str()
            .is_some_and(|m| m.contains("/config/settings.env") && m.contains("404")),
        "{failed:#}"
    );
}

/// A chart whose `values.schema.json` names its definitions at URLs, as bjw-s's app-template
/// does: one by an absolute `$ref`, one relative to that document's `$id`.
fn write_schema_chart(env: &TestEnv, url: &str, replicas: u32) {
    env.write(
        "charts/app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 1.0.0\n",
    );
    env.write("charts/app/values.yaml", format!("replicas: {replicas}\n"));
    env.write(
        "charts/app/values.schema.json",
        format!(r#"{{"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "{url}/schemas/root.json"}}"#),
    );
    env.write(
        "charts/app/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  replicas: \"{{ .Values.replicas }}\"\n",
    );
}

fn serve_schemas(server: &Server) {
    server.route(
        "/schemas/root.json",
        Route::ok(format!(
            r##"{{"$id": "{}/schemas/root.json", "type": "object", "properties": {{"replicas": {{"$ref": "defs.json#/definitions/replicas"}}}}}}"##,
            server.url()
        )),
    );
    server.route(
        "/schemas/defs.json",
        Route::ok(r#"{"definitions": {"replicas": {"type": "integer", "minimum": 1}}}"#),
    );
}

#[test]
fn a_values_schema_naming_documents_at_urls_is_checked_with_them_once_fetched() {
    let server = Server::start();
    serve_schemas(&server);
    let env = TestEnv::new();
    write_schema_chart(&env, &server.url(), 1);
    env.commit("v1");
    // Not fetched: a notice says which document, the values are not checked, and the output
    // is incomplete.
    let offline = env.kdelta(&["check", "--format", "json"]).json();
    let notice = finding(&offline, "helm.schema.not-fetched");
    assert_eq!(notice["incomplete"], true, "{notice:#}");
    assert_eq!(
        notice["file"], "charts/app/values.schema.json",
        "{notice:#}"
    );
    assert!(
        notice["message"]
            .as_str()
            .is_some_and(|m| m.contains("/schemas/root.json")),
        "{notice:#}"
    );
    assert_eq!(server.requests().len(), 0);
    // Fetched: the chart renders complete, each document fetched once.
    write_schema_chart(&env, &server.url(), 2);
    env.commit("v2");
    let fetched = diff_fetched(&env);
    let report = fetched.json();
    assert_eq!(
        field_changes(&report, "helm:charts/app", "data.replicas"),
        ["\"1\" → \"2\""],
        "{report:#}"
    );
    assert_complete(&report);
    assert_eq!(server.count("/schemas/root.json"), 1);
    assert_eq!(server.count("/schemas/defs.json"), 1);
    assert!(fetched.stderr.contains(", 2 files;"), "{}", fetched.stderr);
    // Values that break the fetched definition are helm's error (helm v3.17.3's words).
    write_schema_chart(&env, &server.url(), 0);
    env.commit("v3");
    let broken = env.kdelta(&["render", "--fetch", "charts/app"]);
    assert_eq!(broken.code, 1, "{}", broken.stderr);
    assert!(
        broken.stderr.contains("helm.values.schema")
            && broken
                .stderr
                .contains("app:\n- replicas: Must be greater than or equal to 1"),
        "{}",
        broken.stderr
    );
    env.git(&["reset", "-q", "--hard", "HEAD~1"]);
    drop(server);
    assert_offline_replay(&env, &fetched);
}

#[test]
fn a_schema_document_that_fails_to_fetch_is_an_error_and_the_chart_still_renders() {
    let server = Server::start();
    let env = TestEnv::new();
    write_schema_chart(&env, &server.url(), 1);
    env.commit("v1");
    let run = env.kdelta(&["render", "--fetch", "--allow-incomplete", "charts/app"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.contains("replicas: \"1\""), "{}", run.stdout);
    assert!(
        run.stderr.contains("fetch.failed")
            && run.stderr.contains("/schemas/root.json")
            && run.stderr.contains("404"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_pruned_subchart_needs_no_schema_documents() {
    // Helm checks the schemas of the charts dependency processing keeps: a disabled
    // subchart's remote documents are not missing.
    let env = TestEnv::new();
    env.write(
        "charts/app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n- name: sub\n  version: 1.0.0\n  condition: sub.enabled\n",
    );
    env.write("charts/app/values.yaml", "sub:\n  enabled: false\n");
    env.write(
        "charts/app/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n",
    );
    env.write(
        "charts/app/charts/sub/Chart.yaml",
        "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
    );
    env.write(
        "charts/app/charts/sub/values.schema.json",
        r#"{"$ref": "https://example.invalid/schemas/sub.json"}"#,
    );
    env.write(
        "charts/app/charts/sub/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sub\n",
    );
    env.commit("v1");
    let pruned = env.kdelta(&["render", "charts/app"]);
    assert_eq!(pruned.code, 0, "{}", pruned.stderr);
    assert!(pruned.stdout.contains("name: app"), "{}", pruned.stdout);
    assert!(
        !pruned.stderr.contains("helm.schema.not-fetched"),
        "{}",
        pruned.stderr
    );
    let enabled = env.kdelta(&["render", "charts/app", "--set", "sub.enabled=true"]);
    assert_eq!(enabled.code, 1, "{}", enabled.stderr);
    assert!(
        enabled.stderr.contains(
            "helm.schema.not-fetched] charts/app/charts/sub/values.schema.json: values.schema.json references https://example.invalid/schemas/sub.json"
        ),
        "{}",
        enabled.stderr
    );
    assert!(enabled.stdout.is_empty(), "{}", enabled.stdout);
}

#[test]
fn custom_resources_are_validated_with_schemas_at_the_configured_locations() {
    let server = Server::start();
    let schema = r#"{"type": "object", "properties": {"spec": {"type": "object", "properties": {"secretName": {"type": "string"}}}}}"#;
    server.route(
        "/catalog/cert-manager.io/certificate_v1.json",
        Route::ok(schema),
    );
    let env = TestEnv::new();
    env.write(
        ".kdelta.yaml",
        format!(
            "kubernetes:\n  crds:\n  - {}/catalog/{{{{.Group}}}}/{{{{.ResourceKind}}}}_{{{{.ResourceAPIVersion}}}}.json\n",
            server.url()
        ),
    );
    env.write("app/kustomization.yaml", "resources: [cert.yaml]\n");
    env.write(
        "app/cert.yaml",
        "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: web\nspec:\n  secretName: 5\n---\napiVersion: example.io/v1\nkind: Widget\nmetadata:\n  name: w\n",
    );
    env.commit("v1");
    let rules = |report: &serde_json::Value| -> Vec<String> {
        let mut found: Vec<String> = report["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|f| f["rule"].as_str().is_some_and(|r| r.starts_with("schema.")))
            .map(|f| format!("{} {}", f["rule"], f["message"]))
            .collect();
        found.sort();
        found
    };
    // Not fetched: neither kind has a schema.
    let offline = env.kdelta(&["check", "--format", "json"]).json();
    let unchecked = rules(&offline);
    assert_eq!(unchecked.len(), 2, "{unchecked:#?}");
    assert!(
        unchecked.iter().all(|r| r.contains("schema.no-schema")),
        "{unchecked:#?}"
    );
    // Fetched: the Certificate is checked with the catalog's schema; the catalog lacks the
    // Widget (a 404, which is no failure).
    let fetched = env.kdelta(&["check", "--fetch", "--format", "json"]);
    assert_eq!(fetched.code, 1, "{}", fetched.stdout);
    let checked = rules(&fetched.json());
    assert_eq!(checked.len(), 2, "{checked:#?}");
    assert!(
        checked[0].contains("schema.no-schema") && checked[0].contains("Widget"),
        "{checked:#?}"
    );
    assert!(
        checked[1].contains("schema.type") && checked[1].contains("spec.secretName"),
        "{checked:#?}"
    );
    assert!(
        !fetched.stdout.contains("fetch.failed"),
        "{}",
        fetched.stdout
    );
    assert_eq!(
        server.count("/catalog/cert-manager.io/certificate_v1.json"),
        1
    );
    assert_eq!(server.count("/catalog/example.io/widget_v1.json"), 1);
    // Offline again, from the cache.
    drop(server);
    let replay = env.kdelta(&["check", "--format", "json"]);
    assert_eq!(rules(&replay.json()), checked);
}
