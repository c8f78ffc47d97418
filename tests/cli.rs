//! End-to-end runs of the `kdelta` binary on real temporary git repositories (see
//! tests/util/mod.rs). Targets are plain-manifest directories named in `.kdelta.yaml`, so these
//! tests exercise the whole pipeline — revisions, discovery, rendering, diff, reports, exit
//! codes — independently of the rendering engines.

mod util;

#[path = "cli/argocd.rs"]
mod argocd;
#[path = "cli/commands.rs"]
mod commands;
#[path = "cli/diff.rs"]
mod diff;
#[path = "cli/flux.rs"]
mod flux;
#[path = "cli/helm.rs"]
mod helm;
#[path = "cli/hostile.rs"]
mod hostile;
#[path = "cli/kustomize.rs"]
mod kustomize;
#[path = "cli/reports.rs"]
mod reports;
#[path = "cli/rules.rs"]
mod rules;
#[path = "cli/safety.rs"]
mod safety;
#[path = "cli/secrets.rs"]
mod secrets;
#[path = "cli/validate.rs"]
mod validate;

use serde_json::{json, Value};
use util::{run, run_with_stdin, TestEnv};

// ---------------------------------------------------------------------------------------------
// Fixtures

const CONFIG: &str = "directories: [manifests]\n";

/// The first finding of `target` in a JSON report.
#[track_caller]
fn finding_for(report: &Value, target: &str) -> Value {
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["target"] == target)
        .unwrap_or_else(|| panic!("no finding for {target}: {report}"))
        .clone()
}

fn deployment(replicas: u32) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: prod\n\
         spec:\n  replicas: {replicas}\n  template:\n    spec:\n      containers:\n      \
         - name: web\n        image: nginx:1.27\n  selector:\n    matchLabels:\n      app: web\n"
    )
}

fn service(name: &str) -> String {
    format!("apiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\n  namespace: prod\n")
}

fn config_map(name: &str, value: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: prod\ndata:\n  key: {value:?}\n")
}

/// A minimal valid kustomization in `dir` (one ConfigMap), whatever state the kustomize engine
/// is in: these tests are about discovery and reporting, not kustomize semantics.
fn write_kustomization(env: &TestEnv, dir: &str) {
    env.write(
        &format!("{dir}/kustomization.yaml"),
        "resources:\n- cm.yaml\n",
    )
    .write(&format!("{dir}/cm.yaml"), config_map("kustomized", "v"));
}

/// A Secret `prod/creds` with one `data` key.
fn secret(password_b64: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n  namespace: prod\n\
         data:\n  password: {password_b64}\n"
    )
}

/// A repository with one commit: `manifests/` holds a Deployment (2 replicas) and a Service
/// `old`.
fn base_repo() -> (TestEnv, String) {
    let env = TestEnv::new();
    env.write(".kdelta.yaml", CONFIG)
        .write("manifests/web.yaml", deployment(2))
        .write("manifests/old.yaml", service("old"));
    let base = env.commit("base");
    (env, base)
}

/// [`base_repo`] plus a second commit: 3 replicas, Service `old` removed, Service `new` added.
fn two_commit_repo() -> (TestEnv, String, String) {
    let (env, base) = base_repo();
    env.write("manifests/web.yaml", deployment(3))
        .remove("manifests/old.yaml")
        .write("manifests/new.yaml", service("new"));
    let head = env.commit("head");
    (env, base, head)
}

fn has_ansi(s: &str) -> bool {
    s.contains('\u{1b}')
}

/// The entry of target `id` in a JSON report.
fn target_in<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["targets"]
        .as_array()
        .expect("targets")
        .iter()
        .find(|t| t["id"] == id)
        .unwrap_or_else(|| panic!("no target {id} in {report}"))
}

/// The change of `resource` in a target's JSON entry.
fn change_in<'a>(target: &'a Value, resource: &str) -> &'a Value {
    target["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .find(|c| c["resource"] == resource)
        .unwrap_or_else(|| panic!("no change of {resource} in {target:#}"))
}

/// The JSON Schema of the report, as shipped in docs/.
fn report_schema() -> jsonschema::Validator {
    let text = include_str!("../docs/report.schema.json");
    let schema: Value = serde_json::from_str(text).expect("docs/report.schema.json is JSON");
    jsonschema::draft7::new(&schema).expect("docs/report.schema.json is a valid draft-7 schema")
}

#[track_caller]
fn assert_valid_report(validator: &jsonschema::Validator, report: &Value) {
    let errors: Vec<String> = validator
        .iter_errors(report)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "report does not match docs/report.schema.json:\n{}\n{report:#}",
        errors.join("\n")
    );
}
