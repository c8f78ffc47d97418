//! `mergeValues` (kdelta's implementation of kustomize proposal 22-03): structured merge of
//! generator values with `behavior: merge`. No reference tool implements it, so the test
//! asserts the merged data.

use base64::Engine;
use kdelta::render::{render_target, ParseCache, RenderOptions, Target};
use kdelta::source::{RepoPath, WorktreeSnapshot};
use kdelta::yaml;
use std::path::Path;

fn render(dir: &str) -> (Vec<serde_json::Value>, Vec<kdelta::report::Finding>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/merge-values");
    let snapshot = WorktreeSnapshot::new(root).unwrap();
    let r = render_target(
        &snapshot,
        &Target::Kustomize(kdelta::kustomize::Spec {
            dir: RepoPath::new(dir).unwrap(),
        }),
        &RenderOptions::default(),
        &ParseCache::default(),
    );
    let values = r
        .resources
        .iter()
        .map(|res| yaml::to_value(&res.node, yaml::Dialect::Yaml12).unwrap())
        .collect();
    (values, r.findings)
}

#[test]
fn json_and_yaml_values_merge_structurally() {
    let (objs, findings) = render("overlay");
    assert!(findings.is_empty(), "{findings:?}");
    let cm = objs.iter().find(|o| o["kind"] == "ConfigMap").unwrap();
    let config: serde_json::Value =
        serde_json::from_str(cm["data"]["config.json"].as_str().unwrap()).unwrap();
    assert_eq!(
        config,
        serde_json::json!({"server": {"host": "0.0.0.0", "port": 9090}, "features": ["c"], "debug": true})
    );
    // The base file was pretty-printed JSON, so the merged value is too.
    assert!(cm["data"]["config.json"]
        .as_str()
        .unwrap()
        .contains("\n  \"debug\": true"));
    assert_eq!(cm["data"]["LOG_LEVEL"], "info");
    let secret = objs.iter().find(|o| o["kind"] == "Secret").unwrap();
    let raw = secret["data"]["settings.yaml"].as_str().unwrap();
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(raw)
        .unwrap();
    assert_eq!(
        String::from_utf8(decoded).unwrap(),
        "db: {host: db.internal, port: 6432}"
    );
}

#[test]
fn base_alone_is_unchanged_and_hashes_follow_the_merged_content() {
    let (base, _) = render("base");
    let (overlay, _) = render("overlay");
    let name = |objs: &[serde_json::Value], kind: &str| {
        objs.iter().find(|o| o["kind"] == kind).unwrap()["metadata"]["name"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(name(&base, "ConfigMap").starts_with("app-"));
    assert_ne!(name(&base, "ConfigMap"), name(&overlay, "ConfigMap"));
}
