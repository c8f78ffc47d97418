//! Snapshot tests of every writer on one hand-built report that covers what a writer must
//! handle: modified fields, a multi-line field, added and removed resources, a renamed
//! ConfigMap, a Secret change with redaction markers, findings of each severity with and
//! without lines, a target in error and an unchanged cached target. The Secret change is made
//! by the real diff so its markers are real; they are keyed per process, so the snapshots
//! normalise the digests.

use super::*;
use crate::diff::{diff_resources, DiffOptions};
use crate::resource::Resource;
use crate::source::RepoPath;
use crate::yaml::{parse_stream, ParseOptions};
use serde_json::{json, Value};
use structure::{check_html_static, check_junit_structure, check_markdown_structure};
use structure::{count_attr, parse_xml};

mod external;
mod structure;

/// Secret values of the fixture, plain and base64: no writer may print any of them.
const SECRET_VALUES: &[&str] = &[
    "hunter2",
    "aHVudGVyMg==",
    "db-pass",
    "ZGItcGFzcw==",
    "s3cr3t-token",
    "czNjcjN0LXRva2Vu",
    "old-note",
    "api-key-value",
    "YXBpLWtleS12YWx1ZQ==",
];

fn resources(yaml: &str) -> Vec<Resource> {
    parse_stream(yaml.as_bytes(), &ParseOptions::default())
        .expect("fixture YAML parses")
        .into_iter()
        .map(|n| Resource::new(n, RepoPath::root()))
        .collect()
}

fn field(path: &str, old: Option<Value>, new: Option<Value>) -> FieldChange {
    FieldChange {
        path: path.to_string(),
        old,
        new,
    }
}

fn change(resource: &str, kind: ChangeKind, fields: Vec<FieldChange>) -> Change {
    Change {
        resource: resource.to_string(),
        change: kind,
        from: None,
        from_target: None,
        reason: None,
        fields,
        body: None,
    }
}

fn whole(resource: &str, kind: ChangeKind, body: Value) -> Change {
    Change {
        body: Some(body.into()),
        ..change(resource, kind, Vec::new())
    }
}

fn target(
    id: &str,
    kind: &str,
    status: TargetStatus,
    file: &str,
    changes: Vec<Change>,
) -> TargetReport {
    TargetReport {
        incomplete_reason: None,
        id: id.to_string(),
        kind: kind.to_string(),
        status,
        file: Some(file.to_string()),
        cached: false,
        position: None,
        incomplete: false,
        changes,
        sources: Default::default(),
    }
}

/// A modified Secret (a key changed, a key added, `stringData` removed) and an added Secret,
/// diffed for real so the values are redacted the way a run redacts them.
fn secret_changes() -> (Vec<Change>, Vec<Change>) {
    let base = resources(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: web-creds\n  namespace: web\n\
         data:\n  password: aHVudGVyMg==\nstringData:\n  note: old-note\n",
    );
    let head = resources(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: web-creds\n  namespace: web\n\
         data:\n  password: ZGItcGFzcw==\n  token: czNjcjN0LXRva2Vu\n",
    );
    let modified = diff_resources(&base, &head, &DiffOptions::default());
    let added = resources(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: api-key\n  namespace: api\n\
         type: Opaque\ndata:\n  key: YXBpLWtleS12YWx1ZQ==\n",
    );
    let added = diff_resources(&[], &added, &DiffOptions::default());
    (modified, added)
}

fn fixture() -> Report {
    let (secret_modified, secret_added) = secret_changes();
    let mut web = vec![
        change(
            "apps/v1/Deployment/web/web",
            ChangeKind::Modified,
            vec![
                field(
                    "metadata.annotations[\"example.com/owner\"]",
                    None,
                    Some(json!("team-a")),
                ),
                field("spec.replicas", Some(json!(2)), Some(json!(3))),
                field(
                    "spec.template.spec.containers[name=app].args[0]",
                    Some(json!("--mode=a|b `x`")),
                    Some(json!("--mode=<script>alert(1)</script>")),
                ),
                field(
                    "spec.template.spec.containers[name=app].image",
                    Some(json!("nginx:1.25")),
                    Some(json!("nginx:1.27")),
                ),
                field(
                    "spec.template.spec.containers[name=app].resources",
                    Some(json!({"limits": {"cpu": "500m", "memory": "256Mi"}})),
                    None,
                ),
            ],
        ),
        change(
            "core/v1/ConfigMap/web/nginx-conf",
            ChangeKind::Modified,
            vec![field(
                "data[\"nginx.conf\"]",
                Some(json!(
                    "server {\n  listen 80;\n  location / {\n    root /srv;\n  }\n}\n"
                )),
                Some(json!(
                    "server {\n  listen 8080;\n  location / {\n    root /srv;\n    # ```` fenced\n  }\n}\n"
                )),
            )],
        ),
        Change {
            from: Some("core/v1/ConfigMap/web/app-config-7f8t9k2h5m".to_string()),
            from_target: None,
            reason: None,
            ..change(
                "core/v1/ConfigMap/web/app-config-b2c4d6f8g9",
                ChangeKind::Renamed,
                vec![field("data.LOG_LEVEL", Some(json!("info")), Some(json!("debug")))],
            )
        },
        whole(
            "core/v1/Service/web/web-canary",
            ChangeKind::Added,
            json!({"apiVersion": "v1", "kind": "Service",
                   "metadata": {"name": "web-canary", "namespace": "web"},
                   "spec": {"ports": [{"port": 80, "targetPort": 8080}], "selector": {"app": "web"}}}),
        ),
        whole(
            "networking.k8s.io/v1/Ingress/web/web-old",
            ChangeKind::Removed,
            json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
                   "metadata": {"name": "web-old", "namespace": "web"},
                   "spec": {"rules": [{"host": "old.example.com"}]}}),
        ),
    ];
    web.extend(secret_modified);
    let mut api = vec![whole(
        "apps/v1/Deployment/api/api",
        ChangeKind::Added,
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "api", "namespace": "api"},
               "spec": {"replicas": 1, "template": {"spec": {"containers": [
                   {"name": "api", "image": "ghcr.io/example/api:2.0.0"}]}}}}),
    )];
    api.extend(secret_added);
    let targets = vec![
        target(
            "kustomize:apps/web/overlays/prod",
            "kustomize",
            TargetStatus::Modified,
            "apps/web/overlays/prod/kustomization.yaml",
            web,
        ),
        target(
            "helm:charts/api#ci/prod-values.yaml",
            "helm",
            TargetStatus::Added,
            "charts/api/Chart.yaml",
            api,
        ),
        target(
            "app:argocd/legacy",
            "app",
            TargetStatus::Removed,
            "argocd/apps.yaml",
            vec![whole(
                "core/v1/ConfigMap/legacy/legacy-settings",
                ChangeKind::Removed,
                json!({"apiVersion": "v1", "kind": "ConfigMap",
                       "metadata": {"name": "legacy-settings", "namespace": "legacy"},
                       "data": {"mode": "legacy"}}),
            )],
        ),
        target(
            "kustomize:apps/broken",
            "kustomize",
            TargetStatus::Error,
            "apps/broken/kustomization.yaml",
            Vec::new(),
        ),
        TargetReport {
            incomplete_reason: None,
            cached: true,
            position: None,
            ..target(
                "kustomize:apps/db",
                "kustomize",
                TargetStatus::Unchanged,
                "apps/db/kustomization.yaml",
                Vec::new(),
            )
        },
        target(
            "dir:manifests/static",
            "directory",
            TargetStatus::Unchanged,
            "manifests/static",
            Vec::new(),
        ),
    ];
    let findings = vec![
        Finding::error(crate::finding::Rule::example("kustomize.replacement.source-not-found"),
            "replacement source ConfigMap/missing not found",
        )
        .at("apps/broken/kustomization.yaml", 14, 5)
        .for_target("kustomize:apps/broken")
        .with_help("check the kind and name under replacements[0].source")
        .with_context(
            &["accumulating resources from '../base' (apps/broken/kustomization.yaml:3)"],
            "accumulating resources from '../base': replacement source ConfigMap/missing not found",
        ),
        Finding::error(crate::finding::Rule::example("render.failed"),
            "cannot parse apps/broken/base/deploy.yaml: mapping values are not allowed here",
        )
        .in_file("apps/broken/base/deploy.yaml")
        .for_target("kustomize:apps/broken"),
        Finding {
            revision: Some(Side::Base),
            ..Finding::error(crate::finding::Rule::example("yaml.parse"), "did not find expected key")
                .at("apps/web/overlays/prod/patch.yaml", 3, 1)
                .for_target("kustomize:apps/web/overlays/prod")
        },
        Finding::warning(crate::finding::Rule::example("helm.values.unknown-key"),
            "key `replicaCount|x` is not in values.schema.json: 100% <b>ignored</b>\nsecond line, with: colons",
        )
        .at("charts/api/ci/prod-values.yaml", 7, 3)
        .for_target("helm:charts/api#ci/prod-values.yaml"),
        Finding::notice(crate::finding::Rule::example("helm.subchart.pruned"),
            "subchart redis disabled: condition redis.enabled is false",
        )
        .at("charts/api/Chart.yaml", 12, 0)
        .for_target("helm:charts/api#ci/prod-values.yaml"),
        Finding::notice(crate::finding::Rule::example("kustomize.remote-base.skipped"),
            "remote base github.com/example/base?ref=v1 was not fetched (no network); rendered without it",
        ),
    ];
    Report {
        schema: REPORT_SCHEMA,
        base: Some(RevisionInfo {
            rev: "origin/main".to_string(),
            commit: Some("3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39".to_string()),
        }),
        head: RevisionInfo {
            rev: "WORKTREE".to_string(),
            commit: None,
        },
        targets,
        findings,
        summary: Summary {
            targets: 6,
            rendered: 10,
            cached: 1,
            modified: 1,
            added: 1,
            removed: 1,
            errors: 2,
            incomplete: 0,
            applications: None,
            flux: None,
        },
    }
}

/// Replaces the per-process digests of redaction markers (raw or HTML-escaped) by a constant.
fn normalise(s: &str) -> String {
    let re =
        regex::Regex::new(r"(<|&lt;)redacted sha256:[0-9a-f]+(>|&gt;)").expect("a valid regex");
    re.replace_all(s, "${1}redacted sha256:DIGEST${2}")
        .into_owned()
}

fn assert_no_secret(writer: &str, out: &str) {
    for v in SECRET_VALUES {
        assert!(
            !out.contains(v),
            "{writer} output contains the secret value {v:?}"
        );
    }
}

fn all_outputs(report: &Report) -> Vec<(&'static str, String)> {
    vec![
        (
            "text",
            text::to_string(report, text::TextOptions::default()),
        ),
        (
            "markdown",
            markdown::to_string(report, &markdown::MarkdownOptions::default()),
        ),
        ("github", github::to_string(report)),
        (
            "junit",
            junit::to_string(report, junit::JunitOptions { fail_on_diff: true }),
        ),
        ("json", json::to_string(report)),
        // The details in plain JSON, so that they can be searched.
        ("html", html::render(report, html::Embed::Plain)),
    ]
}

#[test]
fn the_fixture_has_real_secret_markers() {
    let r = fixture();
    let web = &r.targets[0];
    let secret = web
        .changes
        .iter()
        .find(|c| c.resource.contains("/Secret/"))
        .expect("the Secret change");
    let paths: Vec<&str> = secret.fields.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["data.password", "data.token", "stringData"]);
    assert!(view::is_secret(
        secret.fields[0].old.as_ref().expect("an old value")
    ));
}

#[test]
fn no_writer_prints_a_secret_value() {
    for (writer, out) in all_outputs(&fixture()) {
        assert_no_secret(writer, &out);
        if ["text", "markdown", "html"].contains(&writer) {
            // A changed key reads as a sentence, not as two markers.
            assert!(out.contains(view::SECRET_CHANGED), "{writer}");
        }
    }
}

#[test]
fn text_snapshot() {
    let out = text::to_string(&fixture(), text::TextOptions::default());
    insta::assert_snapshot!(normalise(&out));
}

#[test]
fn markdown_snapshot() {
    let out = markdown::to_string(&fixture(), &markdown::MarkdownOptions::default());
    check_markdown_structure(&out);
    insta::assert_snapshot!(normalise(&out));
}

#[test]
fn github_snapshot() {
    let out = github::to_string(&fixture());
    let command = regex::Regex::new(
        r"^::(error|warning|notice)( [a-z]+=[^,:\r\n]*(,[a-z]+=[^,:\r\n]*)*)?::[^\r\n]*$",
    )
    .expect("a valid regex");
    for line in out.lines() {
        assert!(command.is_match(line), "not a workflow command: {line}");
    }
    insta::assert_snapshot!(out);
}

#[test]
fn junit_snapshot() {
    let report = fixture();
    let plain = junit::to_string(&report, junit::JunitOptions::default());
    let strict = junit::to_string(&report, junit::JunitOptions { fail_on_diff: true });
    check_junit_structure(&plain);
    check_junit_structure(&strict);
    insta::assert_snapshot!("junit", plain);
    insta::assert_snapshot!("junit_fail_on_diff", strict);
}

#[test]
fn json_snapshot() {
    insta::assert_snapshot!(normalise(&json::to_string(&fixture())));
}

#[test]
fn html_snapshot() {
    let out = html::render(&fixture(), html::Embed::Plain);
    check_html_static(&out);
    insta::assert_snapshot!(normalise(&out));
}

#[test]
fn check_report_without_base() {
    let mut r = fixture();
    r.base = None;
    for t in &mut r.targets {
        t.changes.clear();
        if t.status != TargetStatus::Error {
            t.status = TargetStatus::Unchanged;
        }
    }
    let md = markdown::to_string(&r, &markdown::MarkdownOptions::default());
    check_markdown_structure(&md);
    assert!(
        md.contains("## kdelta: 6 targets checked, 2 errors"),
        "{md}"
    );
    assert!(md.contains("Revision `WORKTREE`"), "{md}");
    let page = html::to_string(&r);
    check_html_static(&page);
    assert!(page.contains("Changed targets (1)"), "{page}");
}

/// A report far over the comment limit: 400 targets of 40 changes, each with a long
/// multi-line field, plus 300 findings.
fn huge_report() -> Report {
    let mut r = fixture();
    let long: String = (0..30).map(|i| format!("line {i} ``` of text\n")).collect();
    let longer = long.replace("line 7 ", "line seven ");
    for t in 0..400 {
        let changes = (0..40)
            .map(|c| {
                change(
                    &format!("core/v1/ConfigMap/ns{t}/cm{c}"),
                    ChangeKind::Modified,
                    vec![
                        field("data.file", Some(json!(long)), Some(json!(longer))),
                        field("data.count", Some(json!(c)), Some(json!(c + 1))),
                    ],
                )
            })
            .collect();
        r.targets.push(target(
            &format!("kustomize:apps/generated/t{t:03}"),
            "kustomize",
            TargetStatus::Modified,
            &format!("apps/generated/t{t:03}/kustomization.yaml"),
            changes,
        ));
    }
    for i in 0..300 {
        r.findings.push(
            Finding::warning(
                crate::finding::Rule::example("test.generated"),
                format!("generated warning {i} | with a pipe"),
            )
            .at("apps/generated/kustomization.yaml", i + 1, 1),
        );
    }
    r.summary.targets = r.targets.len();
    r.summary.modified += 400;
    r
}

#[test]
fn markdown_truncates_cleanly_under_the_limit() {
    let r = huge_report();
    for limit in [markdown::GITHUB_COMMENT_LIMIT, 20_000, 5_000, 100] {
        let md = markdown::to_string(
            &r,
            &markdown::MarkdownOptions {
                max_len: limit,
                ..Default::default()
            },
        );
        let max = limit.max(markdown::MIN_LIMIT);
        assert!(md.len() <= max, "{} > {max}", md.len());
        assert!(md.chars().count() <= max);
        check_markdown_structure(&md);
        assert!(
            md.contains("> [!WARNING]\n> This report was truncated"),
            "{md}"
        );
        assert!(md.contains("targets left out"), "{md}");
        // The errors and the image changes are never left out.
        assert!(md.contains("### Errors (2)"), "{md}");
        assert!(
            md.contains("| `ghcr.io/example/api` | added 2.0.0 | 1 |"),
            "{md}"
        );
        // The summary table is always whole, at the top.
        assert!(md.contains("| 406 | 401 | 1 | 1 | 2 | 2 |"), "{md}");
        assert_no_secret("markdown", &md);
    }
    let md = markdown::to_string(&r, &markdown::MarkdownOptions::default());
    // The default limit leaves room for real content, not just the header.
    assert!(md.len() > 60_000, "{}", md.len());
    // Every changed target is named, and each change shared by the 400 generated targets is
    // shown once.
    assert!(
        md.contains("(every changed target is named in the table)"),
        "{md}"
    );
    assert!(md.contains("| `kustomize:apps/generated/t399` | modified | 40 modified |"));
    assert!(md.contains("### Changes in several targets (40)"));
    assert!(md.contains(
        "<summary><b>modified</b> <code>core/v1/ConfigMap/*/cm39</code> · in 400 targets</summary>"
    ));
    assert!(!md.contains("resource changes not shown"), "{md}");
    let note = md
        .lines()
        .find(|l| l.starts_with("> This report was truncated"))
        .expect("the note");
    // The first targets are kept whole and in order.
    assert!(md.contains("kustomize:apps/web/overlays/prod"));
    insta::assert_snapshot!("markdown_truncation_note", note);
}

#[test]
fn markdown_is_whole_when_it_fits() {
    let md = markdown::to_string(&fixture(), &markdown::MarkdownOptions::default());
    assert!(!md.contains("truncated"), "{md}");
}

#[test]
fn junit_failures_follow_severity_and_fail_on_diff() {
    let report = fixture();
    let plain = parse_xml(&junit::to_string(&report, junit::JunitOptions::default()));
    // Two head errors and the broken target's render case; the base-side error is one too.
    assert_eq!(count_attr(&plain, "failures"), 4);
    let strict = parse_xml(&junit::to_string(
        &report,
        junit::JunitOptions { fail_on_diff: true },
    ));
    let changes: usize = report.targets.iter().map(|t| t.changes.len()).sum();
    assert_eq!(count_attr(&strict, "failures"), 4 + changes);
}

#[test]
fn html_has_every_section_with_data() {
    let page = html::render(&fixture(), html::Embed::Plain);
    for id in [
        "id=\"summary\"",
        "id=\"images\"",
        "id=\"targets\"",
        "id=\"pruned-subcharts\"",
        "id=\"findings\"",
        "id=\"unchanged\"",
        "id=\"target-kustomize-apps-web-overlays-prod\"",
        "id=\"target-helm-charts-api-ci-prod-values-yaml\"",
    ] {
        assert!(page.contains(id), "missing {id}");
    }
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(page.contains(view::SECRET_CHANGED));
    // The compressed page holds the same details.
    let compressed = html::to_string(&fixture());
    let data = |page: &str, tag: &str| -> String {
        let start = page.find(tag).expect("the data block") + tag.len();
        let end = start + page[start..].find("</script>").expect("its end");
        page[start..end].trim().to_string()
    };
    let plain = data(
        &page,
        "<script type=\"application/json\" id=\"kdelta-data\">",
    );
    let packed = data(
        &compressed,
        "<script type=\"application/gzip;base64\" id=\"kdelta-data\">",
    );
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(packed)
        .expect("base64");
    let mut json = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut json)
        .expect("gzip");
    assert_eq!(json.replace("</", "<\\/"), plain);
    let chunks: Vec<String> = serde_json::from_str(&json).expect("a JSON array of strings");
    assert!(chunks
        .iter()
        .any(|c| c.contains("&lt;script&gt;alert(1)&lt;/script&gt;")));
    // Without pruned-subchart findings the section is left out.
    let mut r = fixture();
    r.findings.retain(|f| f.rule != html::PRUNED_SUBCHART_RULE);
    let page = html::to_string(&r);
    assert!(!page.contains("id=\"pruned-subcharts\""));
}

/// What matters comes first in text and Markdown: after the errors, a subchart switched on or
/// off and an Application that appears, before the image changes and the targets; a large
/// added object is summarised by its line count.
#[test]
fn subchart_toggles_and_new_applications_come_right_after_the_errors() {
    let mut r = fixture();
    let mut app = change(
        "argoproj.io/v1alpha1/Application/argocd/billing",
        ChangeKind::Added,
        Vec::new(),
    );
    app.reason =
        Some("generated by the list generator (generators[0]) with {\"env\":\"prod\"}".into());
    let crd_body: serde_json::Map<String, Value> = (0..150)
        .map(|i| (format!("field{i:03}"), json!(i)))
        .collect();
    let mut crd = change(
        "apiextensions.k8s.io/v1/CustomResourceDefinition/_/widgets.example.com",
        ChangeKind::Added,
        Vec::new(),
    );
    crd.body = Some(json!({"spec": crd_body}).into());
    r.targets.push(target(
        "app:argocd/billing",
        "app",
        TargetStatus::Added,
        "argocd/apps.yaml",
        vec![app, crd],
    ));
    r.findings.push(
        Finding::warning(
            crate::finding::rules::HELM_SUBCHART_TOGGLED,
            "subchart redis is enabled at base and pruned at head: condition redis.enabled=false",
        )
        .at("charts/api/Chart.yaml", 9, 3),
    );
    let out = text::to_string(&r, text::TextOptions::default());
    let at = |needle: &str| {
        out.find(needle)
            .unwrap_or_else(|| panic!("no {needle:?} in\n{out}"))
    };
    assert!(at("error[render.failed]") < at("warning[helm.subchart.toggled]"));
    assert!(at("warning[helm.subchart.toggled]") < at("applications added or removed"));
    assert!(at("+ argoproj.io/v1alpha1/Application/argocd/billing (in app:argocd/billing: generated by the list generator") < at("image changes"));
    assert!(out.contains("+ apiextensions.k8s.io/v1/CustomResourceDefinition/_/widgets.example.com (151 lines)\n"), "{out}");
    let md = markdown::to_string(&r, &markdown::MarkdownOptions::default());
    let at = |needle: &str| {
        md.find(needle)
            .unwrap_or_else(|| panic!("no {needle:?} in\n{md}"))
    };
    assert!(at("### Errors, subcharts and Applications (4)") < at("### Image changes"));
    assert!(at("`helm.subchart.toggled`") < at("### Image changes"));
    assert!(at("- 🚀 **Application added** `argoproj.io/v1alpha1/Application/argocd/billing` in `app:argocd/billing`: generated by") < at("### Image changes"));
    assert!(md.contains("- **added** `apiextensions.k8s.io/v1/CustomResourceDefinition/_/widgets.example.com` (151 lines)\n"), "{md}");
}

/// The SARIF log validates against the SARIF 2.1.0 schema (testdata/sarif), and holds every
/// finding with its rule, level and place.
#[test]
fn sarif_validates_against_the_schema() {
    let report = fixture();
    let log: Value = serde_json::from_str(&sarif::to_string(&report)).expect("SARIF is JSON");
    let schema: Value =
        serde_json::from_str(include_str!("../../testdata/sarif/sarif-schema-2.1.0.json"))
            .expect("the schema is JSON");
    let validator = jsonschema::draft4::new(&schema).expect("a valid draft-4 schema");
    let errors: Vec<String> = validator.iter_errors(&log).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}\n{log:#}");
    // The schema does catch a wrong log.
    let mut wrong = log.clone();
    wrong["runs"][0]["results"][0]["level"] = json!("fatal");
    assert!(!validator.is_valid(&wrong));
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), report.findings.len());
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules");
    for r in results {
        let rule = &rules[r["ruleIndex"].as_u64().expect("an index") as usize];
        assert_eq!(rule["id"], r["ruleId"]);
    }
    let replacement = results
        .iter()
        .find(|r| r["ruleId"] == "kustomize.replacement.source-not-found")
        .expect("the replacement error");
    assert_eq!(replacement["level"], "error");
    assert_eq!(
        replacement["locations"][0]["physicalLocation"],
        json!({"artifactLocation": {"uri": "apps/broken/kustomization.yaml", "uriBaseId": "SRCROOT"},
               "region": {"startLine": 14, "startColumn": 5}})
    );
    assert_no_secret("sarif", &log.to_string());
}

/// The Code Quality report: one issue per finding, with a fingerprint that is the same on
/// every run and differs between findings.
#[test]
fn code_quality_fingerprints_are_stable_and_distinct() {
    let report = fixture();
    let first: Value = serde_json::from_str(&codequality::to_string(&report)).expect("JSON");
    let again: Value = serde_json::from_str(&codequality::to_string(&report)).expect("JSON");
    assert_eq!(first, again);
    let issues = first.as_array().expect("a list of issues");
    assert_eq!(issues.len(), report.findings.len());
    let prints: std::collections::BTreeSet<&str> = issues
        .iter()
        .map(|i| i["fingerprint"].as_str().expect("a fingerprint"))
        .collect();
    assert_eq!(prints.len(), issues.len());
    let replacement = issues
        .iter()
        .find(|i| i["check_name"] == "kustomize.replacement.source-not-found")
        .expect("the replacement error");
    assert_eq!(replacement["severity"], "critical");
    assert_eq!(
        replacement["location"],
        json!({"path": "apps/broken/kustomization.yaml", "lines": {"begin": 14}})
    );
}
