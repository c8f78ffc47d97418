//! CRD `x-kubernetes-validations` (CEL) rules against Gateway API's own corpus: its
//! `examples/standard` (which its CRD test applies to a real API server and expects accepted)
//! must give no violation, and each of its `hack/invalid-examples/standard` (which the same
//! test expects rejected) at least one. Which rule rejects each invalid example is kdelta's
//! reading of the CRDs' text, pinned in the snapshot; `tests/validate_schemas.rs` checks the
//! same CRDs' structural schemas.

use kdelta::validate::schema::{validate, Crd, CrdMatch, ViolationKind};
use kdelta::yaml::{parse_stream, Node, ParseOptions};
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/validate/crds")
}

fn docs(path: &Path) -> Vec<Node> {
    let text = std::fs::read(path).expect("a testdata file");
    parse_stream(&text, &ParseOptions::default())
        .expect("YAML")
        .into_iter()
        .filter(|d| !d.is_null())
        .collect()
}

fn gateway_crds() -> Vec<Crd> {
    ["gateways", "httproutes"]
        .iter()
        .map(|n| {
            let path = dir().join(format!("gateway.networking.k8s.io_{n}.yaml"));
            Crd::from_node(&docs(&path)[0]).expect("a CRD")
        })
        .collect()
}

fn files(sub: &str) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir().join("gateway-api").join(sub))
        .expect("a corpus directory")
        .map(|e| e.expect("an entry").path())
        .collect();
    paths.sort();
    paths
}

/// The violations of each custom resource of `path` one of `crds` defines, as
/// `(kind/name, messages)`.
fn check(crds: &[Crd], path: &Path) -> Vec<(String, Vec<(ViolationKind, String)>)> {
    let mut out = Vec::new();
    for doc in docs(path) {
        let api_version = doc.str_at(&["apiVersion"]).unwrap_or_default();
        let kind = doc.str_at(&["kind"]).unwrap_or_default();
        let name = doc.str_at(&["metadata", "name"]).unwrap_or_default();
        let Some(CrdMatch::Found(version)) = crds
            .iter()
            .map(|c| c.lookup(api_version, kind))
            .find(|m| !matches!(m, CrdMatch::Other))
        else {
            continue;
        };
        let violations = validate(version.root(), &doc)
            .into_iter()
            .map(|v| (v.kind, v.message))
            .collect();
        out.push((format!("{kind}/{name}"), violations));
    }
    out
}

#[test]
fn gateway_api_rules_compile() {
    for crd in gateway_crds() {
        let problems: Vec<String> = crd.rule_problems().iter().map(|p| p.to_string()).collect();
        assert_eq!(problems, Vec::<String>::new(), "{}", crd.name);
    }
}

#[test]
fn gateway_api_examples_are_valid() {
    let crds = gateway_crds();
    let mut checked = 0;
    let mut failures = Vec::new();
    for path in files("examples") {
        for (object, violations) in check(&crds, &path) {
            checked += 1;
            if !violations.is_empty() {
                failures.push(format!("{}: {object}: {violations:?}", path.display()));
            }
        }
    }
    assert!(checked >= 70, "{checked} objects checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn gateway_api_invalid_examples_are_rejected() {
    let crds = gateway_crds();
    // Nothing but a rule catches these: their fields pass the schemas' types, patterns and
    // bounds (read from the CRDs' text).
    let only_rules = [
        "gateway-hostname-tcp.yaml",
        "gateway-hostname-udp.yaml",
        "gateway-invalid-addresses.yaml",
        "gateway-invalid-tls-mode.yaml",
        "gateway-tlsconfig-tcp.yaml",
        "httproute-httproute-portless-backend.yaml",
        "httproute-httproute-portless-service.yaml",
        "httproute-invalid-filter-duplicate.yaml",
        "httproute-invalid-filter-empty.yaml",
        "httproute-invalid-filter-wrong-field.yaml",
        "httproute-invalid-path-alphanum-specialchars-mix.yaml",
        "httproute-invalid-path-specialchars.yaml",
        "httproute-invalid-request-redirect-with-backendref.yaml",
    ];
    let mut pinned = String::new();
    let mut failures = Vec::new();
    for path in files("invalid-examples") {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        for (object, violations) in check(&crds, &path) {
            if violations.is_empty() {
                failures.push(format!("{name}: {object} is accepted"));
            }
            let by_rule = violations.iter().all(|(k, _)| *k == ViolationKind::Rule);
            if only_rules.contains(&&*name) && !by_rule {
                failures.push(format!("{name}: {object} not by a rule: {violations:?}"));
            }
            pinned.push_str(&format!("{name} {object}:\n"));
            for (kind, message) in &violations {
                pinned.push_str(&format!("  {kind:?} {message}\n"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    insta::assert_snapshot!(pinned);
}
