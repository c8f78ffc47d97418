//! Strategic merge against `kubectl kustomize` (kustomize v5.5.0) on the fixtures in
//! testdata/smp/: each directory is a buildable kustomization (`resources.yaml`, patches
//! `patch-NN.yaml` listed under `patches:`, optionally `openapi: {path: …}`) whose
//! `expected.yaml` is the oracle's output (see its `case.yaml`). The harness below does the
//! little plumbing those kustomizations need: pick the target, merge, reset name, namespace
//! and kind as `Resource.ApplySmPatch` does, drop deleted resources, emit.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{merge, Merged};
use crate::kustomize::openapi::{Schema, SchemaState};
use crate::yaml::{emit, parse_one, parse_stream, to_value, Dialect, Node, ParseOptions};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/smp")
}

fn read(dir: &Path, name: &str) -> Result<String, String> {
    std::fs::read_to_string(dir.join(name))
        .map_err(|e| format!("{}: {e}", dir.join(name).display()))
}

fn docs(text: &str) -> Result<Vec<Node>, String> {
    let docs = parse_stream(text.as_bytes(), &ParseOptions::default()).map_err(|e| e.message)?;
    Ok(docs.into_iter().filter(|d| !d.is_null()).collect())
}

/// A patch entry's `target`, reduced to what the fixtures use.
#[derive(Default)]
struct Target {
    fields: BTreeMap<String, String>,
}

impl Target {
    fn selects(&self, r: &Node) -> bool {
        let av = r.str_at(&["apiVersion"]).unwrap_or_default();
        let (group, version) = av.rsplit_once('/').unwrap_or(("", av));
        self.fields.iter().all(|(k, v)| {
            let have = match k.as_str() {
                "kind" => r.str_at(&["kind"]).unwrap_or_default(),
                "name" => r.str_at(&["metadata", "name"]).unwrap_or_default(),
                "namespace" => r.str_at(&["metadata", "namespace"]).unwrap_or_default(),
                "group" => group,
                "version" => version,
                _ => return false,
            };
            have == v
        })
    }
}

/// kustomize's `GetById(patch.OrgId())`, for resources that differ in apiVersion, kind or name.
fn same_id(r: &Node, patch: &Node) -> bool {
    let paths: [&[&str]; 4] = [
        &["apiVersion"],
        &["kind"],
        &["metadata", "name"],
        &["metadata", "namespace"],
    ];
    paths
        .iter()
        .all(|path| r.str_at(path) == patch.str_at(path))
}

/// Runs the kustomization in `dir` and returns what kustomize would print.
fn build(dir: &Path) -> Result<String, String> {
    let k = parse_one(
        read(dir, "kustomization.yaml")?.as_bytes(),
        &ParseOptions::default(),
    )
    .map_err(|e| e.message)?;
    let mut resources = Vec::new();
    for r in k
        .get("resources")
        .and_then(Node::as_seq)
        .into_iter()
        .flatten()
    {
        resources.extend(docs(&read(dir, r.as_str().unwrap_or_default())?)?);
    }
    let mut state = SchemaState::new();
    let mut openapi = BTreeMap::new();
    let mut custom = None;
    if let Some(path) = k.str_at(&["openapi", "path"]) {
        openapi.insert("path".to_string(), path.to_string());
        custom = Some((path.to_string(), read(dir, path)?));
    }
    state
        .set(
            &openapi,
            custom.as_ref().map(|(p, b)| (p.as_str(), b.as_bytes())),
            true,
        )
        .map_err(|e| e.to_string())?;
    let schema = state.schema();
    let mut alive = vec![true; resources.len()];
    for entry in k
        .get("patches")
        .and_then(Node::as_seq)
        .into_iter()
        .flatten()
    {
        let text = read(dir, entry.str_at(&["path"]).unwrap_or_default())?;
        let target = entry.get("target").map(|t| Target {
            fields: t
                .as_map()
                .into_iter()
                .flatten()
                .map(|(k, v)| {
                    (
                        k.as_str().unwrap_or_default().into(),
                        v.as_str().unwrap_or_default().into(),
                    )
                })
                .collect(),
        });
        for patch in docs(&text)? {
            for (i, r) in resources.iter_mut().enumerate() {
                let selected = match &target {
                    Some(t) => t.selects(r),
                    None => same_id(r, &patch),
                };
                if alive[i] && selected {
                    let mut p = patch.clone();
                    if target.is_some() {
                        if let Some(av) = r.get("apiVersion") {
                            p.set("apiVersion", av.clone());
                        }
                    }
                    if apply(r, &p, &schema)? == Merged::Deleted {
                        alive[i] = false;
                    }
                }
            }
        }
    }
    let values = resources
        .iter()
        .zip(&alive)
        .filter(|(_, a)| **a)
        .map(|(r, _)| to_value(r, Dialect::Yaml12).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(emit::to_stream(&values))
}

/// kustomize `Resource.ApplySmPatch`: merge, then put back the name, namespace and kind.
fn apply(r: &mut Node, patch: &Node, schema: &Schema) -> Result<Merged, String> {
    let name = r.get_path(&["metadata", "name"]).cloned();
    let namespace = r.get_path(&["metadata", "namespace"]).cloned();
    let kind = r.get("kind").cloned();
    let merged = merge(r, patch, schema).map_err(|e| e.to_string())?;
    if merged == Merged::Patched {
        if let Some(kind) = kind {
            r.set("kind", kind);
        }
        if let Some(name) = name {
            r.map_at("metadata").set("name", name);
        }
        match namespace {
            Some(ns) => r.map_at("metadata").set("namespace", ns),
            None => {
                if let Some(meta) = r.get_mut("metadata") {
                    meta.remove("namespace");
                }
            }
        }
    }
    Ok(merged)
}

/// Builds fixture `dir` and compares the result with the oracle's output, or the error with
/// the oracle's message (`expected-error.txt`, which the error must contain).
fn check(dir: &Path) -> Result<(), String> {
    if let Ok(message) = read(dir, "expected-error.txt") {
        return match build(dir) {
            Err(e) if e.contains(message.trim()) => Ok(()),
            Err(e) => Err(format!("error {e:?} lacks {:?}", message.trim())),
            Ok(got) => Err(format!("built, but kustomize fails:\n{got}")),
        };
    }
    let expected = read(dir, "expected.yaml")?;
    match build(dir) {
        Ok(got) if got == expected => Ok(()),
        Ok(got) => Err(format!("\n--- got\n{got}--- expected\n{expected}")),
        Err(e) => Err(format!("error {e}")),
    }
}

#[test]
fn every_fixture_matches_kustomize() {
    check_tree(&fixtures());
}

/// Checks another tree of fixtures in the same layout, e.g. randomly generated cases with
/// their `kubectl kustomize` output: `KDELTA_SMP_FIXTURES=DIR cargo test -- --ignored`.
#[test]
#[ignore = "needs KDELTA_SMP_FIXTURES"]
fn external_fixtures_match_kustomize() {
    let dir = std::env::var_os("KDELTA_SMP_FIXTURES").expect("KDELTA_SMP_FIXTURES is not set");
    check_tree(Path::new(&dir));
}

fn check_tree(root: &Path) {
    let mut failed = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("kustomization.yaml").is_file())
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty());
    for dir in &dirs {
        if let Err(e) = check(dir) {
            failed.push(format!("{}: {e}", dir.display()));
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} fixtures differ:\n{}",
        failed.len(),
        dirs.len(),
        failed.join("\n")
    );
}

/// Checks the named fixtures.
fn fixtures_match(names: &[&str]) {
    for name in names {
        if let Err(e) = check(&fixtures().join(name)) {
            panic!("fixture {name}: {e}");
        }
    }
}

#[test]
fn containers_and_env_merge_by_name() {
    fixtures_match(&[
        "smp-containers-by-name",
        "kustomize-TestStrategicMergePatchInline",
    ]);
}

#[test]
fn ports_merge_by_port_and_protocol() {
    fixtures_match(&[
        "smp-ports-multi-key",
        "extra-24-smp-service-ports-merge",
        "kustomize-TestPatchPortHasNoProtocol",
        "kustomize-TestPatchAddNewServicePort",
        "kustomize-TestSmpWithDifferentKeysOnDifferentPorts",
    ]);
}

#[test]
fn volumes_merge_and_tolerations_are_replaced() {
    fixtures_match(&[
        "smp-volumes-tolerations",
        "kustomize-TestRemoveEmptyDirAddPersistentDisk",
        "extra-22-smp-statefulset-volumeclaimtemplates",
        "extra-25-smp-ingress-rules-replaced",
    ]);
}

#[test]
fn patch_directives_delete_and_replace() {
    fixtures_match(&[
        "smp-directives",
        "extra-20-smp-delete-and-replace-directives",
        "kustomize-TestSmpDeleteOnResource",
    ]);
}

#[test]
fn null_deletes_fields() {
    fixtures_match(&[
        "smp-nulls",
        "kustomize-TestRemoveEmptyDirWithNullFieldInSmp",
        "kustomize-TestPatchDeleteOfNotExistingAttributesShouldNotAddExtraElements",
    ]);
}

#[test]
fn custom_resources_without_schema_replace_lists() {
    fixtures_match(&[
        "smp-crd-no-schema",
        "extra-26-smp-crd-without-openapi",
        "smp-crds-field-gives-no-merge-keys",
    ]);
}

#[test]
fn custom_openapi_schema_merges_by_its_keys() {
    fixtures_match(&[
        "smp-custom-openapi",
        "extra-27-smp-crd-with-openapi-schema",
        "kustomize-TestCustomOpenApiFieldBasicUsage",
        "kustomize-TestCustomOpenApiFieldYaml",
        "kustomize-TestCustomOpenApiFieldWithTwoGvks",
    ]);
}

#[test]
fn item_order_primitive_lists_and_unhandled_directives() {
    fixtures_match(&[
        "smp-primitive-lists-and-ordering",
        "extra-31-smp-retainkeys-and-primitive-list",
        "kustomize-TestPatchesInOneFile__r1",
    ]);
}

#[test]
fn kyaml_quirks() {
    fixtures_match(&["smp-quirks"]);
}

#[test]
fn errors() {
    fixtures_match(&["smp-error-unknown-directive", "smp-error-wrong-kind"]);
}

fn node(text: &str) -> Node {
    parse_one(text.as_bytes(), &ParseOptions::default()).unwrap()
}

#[test]
fn deleting_the_whole_resource_leaves_it_untouched() {
    let original = node("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n");
    let mut r = original.clone();
    let patch = node("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n$patch: delete\n");
    assert_eq!(
        merge(&mut r, &patch, Schema::builtin()),
        Ok(Merged::Deleted)
    );
    assert_eq!(r, original);
}

#[test]
fn one_patch_applies_to_many_resources() {
    let patch = node(
        "kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - name: b\n        $patch: delete\n",
    );
    for name in ["x", "y"] {
        let mut r = node(&format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\nspec:\n  template:\n    spec:\n      containers:\n      - {{name: a, image: a}}\n      - {{name: b, image: b}}\n"
        ));
        assert_eq!(
            merge(&mut r, &patch, Schema::builtin()),
            Ok(Merged::Patched)
        );
        let containers = r
            .get_path(&["spec", "template", "spec", "containers"])
            .and_then(Node::as_seq)
            .unwrap();
        assert_eq!(containers.len(), 1, "{name}");
    }
}

#[test]
fn without_a_schema_lists_are_replaced() {
    let mut r = node(
        "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - {name: a, image: a}\n",
    );
    let patch = node(
        "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - {name: b, image: b}\n",
    );
    merge(&mut r, &patch, &Schema::empty()).unwrap();
    let v = to_value(&r, Dialect::Yaml12).unwrap();
    assert_eq!(
        v["spec"]["template"]["spec"]["containers"],
        serde_json::json!([{"name": "b", "image": "b"}])
    );
}

#[test]
fn errors_name_the_field() {
    let mut r = node("apiVersion: v1\nkind: ConfigMap\ndata: {a: b}\n");
    let patch = node("apiVersion: v1\nkind: ConfigMap\ndata: [x]\n");
    let err = merge(&mut r, &patch, Schema::builtin()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "wrong node kind: expected MappingNode but got SequenceNode (at data)"
    );
}
