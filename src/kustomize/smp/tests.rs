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
    std::fs::read_to_string(dir.join(name)).map_err(|e| format!("{}: {e}", dir.join(name).display()))
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
    paths.iter().all(|path| r.str_at(path) == patch.str_at(path))
}

/// Runs the kustomization in `dir` and returns what kustomize would print.
fn build(dir: &Path) -> Result<String, String> {
    let k = parse_one(read(dir, "kustomization.yaml")?.as_bytes(), &ParseOptions::default())
        .map_err(|e| e.message)?;
    let mut resources = Vec::new();
    for r in k.get("resources").and_then(Node::as_seq).into_iter().flatten() {
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
    for entry in k.get("patches").and_then(Node::as_seq).into_iter().flatten() {
        let text = read(dir, entry.str_at(&["path"]).unwrap_or_default())?;
        let target = entry.get("target").map(|t| Target {
            fields: t
                .as_map()
                .into_iter()
                .flatten()
                .map(|(k, v)| (k.as_str().unwrap_or_default().into(), v.as_str().unwrap_or_default().into()))
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

/// Builds fixture `name` and compares it with the oracle's output.
fn check(name: &str) {
    let dir = fixtures().join(name);
    let expected = read(&dir, "expected.yaml").unwrap();
    let got = build(&dir).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(got, expected, "fixture {name}");
}

#[test]
fn every_fixture_matches_kustomize() {
    let mut failed = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("kustomization.yaml").is_file())
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty());
    for dir in &dirs {
        let expected = read(dir, "expected.yaml").unwrap();
        match build(dir) {
            Ok(got) if got == expected => {}
            Ok(got) => failed.push(format!(
                "{}:\n--- got\n{got}--- expected\n{expected}",
                dir.display()
            )),
            Err(e) => failed.push(format!("{}: error {e}", dir.display())),
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
