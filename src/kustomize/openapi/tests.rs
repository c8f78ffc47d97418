use std::collections::BTreeMap;
use std::sync::Arc;

use super::*;

fn strategy(s: Option<SchemaRef<'_>>) -> Option<(String, Vec<String>)> {
    let l = s?.list_strategy()?;
    Some((
        l.strategy.to_string(),
        l.keys.iter().map(|k| k.to_string()).collect(),
    ))
}

fn keys(strategy: &str, keys: &[&str]) -> Option<(String, Vec<String>)> {
    Some((
        strategy.to_string(),
        keys.iter().map(|k| k.to_string()).collect(),
    ))
}

#[test]
fn builtin_pod_template_lists() {
    let s = Schema::builtin();
    let deploy = s.for_type("apps/v1", "Deployment").unwrap();
    let pod = deploy.lookup(&["spec", "template", "spec"]).unwrap();
    assert_eq!(strategy(pod.field("containers")), keys("merge", &["name"]));
    assert_eq!(
        strategy(pod.lookup(&["containers", "[]", "ports"])),
        keys("merge", &["containerPort", "protocol"])
    );
    assert_eq!(
        strategy(pod.lookup(&["containers", "[]", "env"])),
        keys("merge", &["name"])
    );
    assert_eq!(
        strategy(pod.field("volumes")),
        keys("merge,retainKeys", &["name"])
    );
    // Replaced wholesale: no strategy in the schema.
    assert!(!pod.field("tolerations").is_some_and(|t| t.is_associative()));
    assert!(pod
        .lookup(&["containers", "[]", "args"])
        .is_none_or(|a| !a.is_associative()));
    // A list of scalars that merges.
    assert_eq!(
        strategy(deploy.lookup(&["metadata", "finalizers"])),
        keys("merge", &[])
    );
    // Maps of strings resolve to a schema (with nothing below).
    assert!(deploy.lookup(&["metadata", "labels", "app"]).is_some());
    assert!(deploy.lookup(&["spec", "nonsense"]).is_none());
}

#[test]
fn builtin_service_ports_use_list_map_keys() {
    let svc = Schema::builtin().for_type("v1", "Service").unwrap();
    assert_eq!(
        strategy(svc.lookup(&["spec", "ports"])),
        keys("merge", &["port", "protocol"])
    );
}

#[test]
fn builtin_other_groups_and_kustomize_types() {
    let s = Schema::builtin();
    let cron = s.for_type("batch/v1", "CronJob").unwrap();
    let pod = cron
        .lookup(&["spec", "jobTemplate", "spec", "template", "spec"])
        .unwrap();
    assert!(pod.field("initContainers").unwrap().is_associative());
    let sts = s.for_type("apps/v1", "StatefulSet").unwrap();
    assert!(sts.lookup(&["spec", "volumeClaimTemplates"]).is_none());
    let k = s
        .for_type("kustomize.config.k8s.io/v1beta1", "Kustomization")
        .unwrap();
    assert_eq!(
        strategy(k.field("configMapGenerator")),
        keys("merge", &["name"])
    );
    assert!(s.for_type("example.com/v1", "Foo").is_none());
}

const CUSTOM: &[u8] = br##"{"definitions": {
  "v1alpha1.MyCRD": {
    "properties": {
      "spec": {"properties": {"template": {"$ref": "#/definitions/io.k8s.api.core.v1.PodTemplateSpec"}}}
    },
    "x-kubernetes-group-version-kind": [{"group": "example.com", "kind": "MyCRD", "version": "v1alpha1"}]
  },
  "io.k8s.api.core.v1.PodTemplateSpec": {"properties": {"spec": {"$ref": "#/definitions/io.k8s.api.core.v1.PodSpec"}}},
  "io.k8s.api.core.v1.PodSpec": {"properties": {"containers": {
    "type": "array", "items": {"$ref": "#/definitions/io.k8s.api.core.v1.Container"},
    "x-kubernetes-patch-merge-key": "image", "x-kubernetes-patch-strategy": "merge"}}},
  "io.k8s.api.core.v1.Container": {"properties": {"name": {"type": "string"}}}
}}"##;

#[test]
fn custom_schema_alone_and_on_top() {
    let custom = Arc::new(CustomSchema::parse("s.json", CUSTOM).unwrap());
    let alone = Schema::custom_only(Arc::clone(&custom));
    let crd = alone.for_type("example.com/v1alpha1", "MyCRD").unwrap();
    assert_eq!(
        strategy(crd.lookup(&["spec", "template", "spec", "containers"])),
        keys("merge", &["image"])
    );
    assert!(alone.for_type("apps/v1", "Deployment").is_none());

    // On top of the built-in types, the custom PodSpec replaces the Kubernetes one by name,
    // also under the built-in Deployment.
    let both = Schema::with_custom(custom);
    let deploy = both.for_type("apps/v1", "Deployment").unwrap();
    assert_eq!(
        strategy(deploy.lookup(&["spec", "template", "spec", "containers"])),
        keys("merge", &["image"])
    );
    assert!(deploy
        .lookup(&["spec", "template", "spec", "volumes"])
        .is_none());
    assert!(deploy.lookup(&["metadata", "finalizers"]).is_some());
}

fn openapi(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn state_custom_before_first_use_replaces_builtin() {
    let mut st = SchemaState::new();
    st.set(
        &openapi(&[("path", "s.json")]),
        Some(("s.json", CUSTOM)),
        true,
    )
    .unwrap();
    let s = st.schema();
    assert!(s.for_type("example.com/v1alpha1", "MyCRD").is_some());
    assert!(s.for_type("apps/v1", "Deployment").is_none());
}

/// Checked with kubectl: an overlay over base `a` (a Deployment with a patch) and base `b`
/// (`openapi: {path: …}`) merges the Deployment's containers by name, because `a`'s patch
/// parsed the built-in schema before `b` set its own; without `a`'s patch they are replaced.
#[test]
fn state_custom_after_first_use_is_layered() {
    let mut st = SchemaState::new();
    st.set(&BTreeMap::new(), None, true).unwrap();
    assert!(st.schema().for_type("apps/v1", "Deployment").is_some());
    st.set(
        &openapi(&[("path", "s.json")]),
        Some(("s.json", CUSTOM)),
        false,
    )
    .unwrap();
    let s = st.schema();
    assert!(s.for_type("example.com/v1alpha1", "MyCRD").is_some());
    assert!(s.for_type("apps/v1", "Deployment").is_some());
}

#[test]
fn state_scope_query_delays_builtin() {
    let mut st = SchemaState::new();
    st.set(&BTreeMap::new(), None, true).unwrap();
    assert_eq!(st.is_namespace_scoped("example.com/v1", "Foo"), None);
    st.set(
        &openapi(&[("path", "s.json")]),
        Some(("s.json", CUSTOM)),
        false,
    )
    .unwrap();
    let s = st.schema();
    assert!(s.for_type("apps/v1", "Deployment").is_some());
}

#[test]
fn state_first_setting_wins_and_errors() {
    let mut st = SchemaState::new();
    st.set(&openapi(&[("version", "v1.21.2")]), None, true)
        .unwrap();
    st.set(
        &openapi(&[("path", "s.json")]),
        Some(("s.json", CUSTOM)),
        false,
    )
    .unwrap();
    assert!(st
        .schema()
        .for_type("example.com/v1alpha1", "MyCRD")
        .is_none());
    assert_eq!(
        SchemaState::new().set(&openapi(&[("version", "v1.14.1")]), None, true),
        Err(OpenApiError::NotBuiltIn {
            version: "v1.14.1".into()
        })
    );
    assert_eq!(
        SchemaState::new().set(
            &openapi(&[("version", "v1.21.2"), ("path", "s.json")]),
            Some(("s.json", CUSTOM)),
            true
        ),
        Err(OpenApiError::VersionAndPath)
    );
}

#[test]
fn namespace_scope() {
    let mut st = SchemaState::new();
    assert_eq!(st.is_namespace_scoped("v1", "Namespace"), Some(false));
    assert_eq!(st.is_namespace_scoped("apps/v1", "Deployment"), Some(true));
    let doc = br##"{"definitions": {}, "paths": {
      "/apis/ex.com/v1/widgets": {"get": {"x-kubernetes-group-version-kind": {"group": "ex.com", "version": "v1", "kind": "Widget"}}},
      "/apis/ex.com/v1/namespaces/{namespace}/gadgets": {"get": {"x-kubernetes-group-version-kind": {"group": "ex.com", "version": "v1", "kind": "Gadget"}}}
    }}"##;
    st.set(&openapi(&[("path", "s.json")]), Some(("s.json", doc)), true)
        .unwrap();
    assert_eq!(st.is_namespace_scoped("ex.com/v1", "Widget"), Some(false));
    assert_eq!(st.is_namespace_scoped("ex.com/v1", "Gadget"), Some(true));
    assert_eq!(st.is_namespace_scoped("ex.com/v1", "Other"), None);
}
