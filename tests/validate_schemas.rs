//! The bundled-schema validator against an independent one: for every object of
//! `testdata/validate/objects/` and every Kubernetes version `expected.json` holds (recorded
//! by `testdata/validate/record.py` with kubernetes-validate in strict mode), kdelta's verdict
//! (valid, invalid, or no schema for the kind) must equal the recorded one, except where
//! `deviations.json` says kdelta departs on purpose and why. Where both reject an object,
//! kdelta must point at (or below) the field the independent validator names.

use kdelta::validate::schema::{validate, Catalog, Crd, CrdMatch, KubeVersion, Lookup, Violation};
use kdelta::yaml::{parse_one, parse_stream, Node, ParseOptions};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/validate")
}

fn read_json(name: &str) -> Value {
    let text = std::fs::read_to_string(dir().join(name)).expect("a testdata file");
    serde_json::from_str(&text).expect("JSON")
}

fn object(name: &str) -> Node {
    let path = dir().join("objects").join(format!("{name}.yaml"));
    let text = std::fs::read(&path).expect("an object file");
    parse_one(&text, &ParseOptions::default()).expect("one YAML document")
}

/// kdelta's verdict, as the recorder names them, with the violations.
fn kdelta_verdict(catalog: &Catalog, node: &Node) -> (&'static str, Vec<Violation>) {
    let api_version = node.str_at(&["apiVersion"]).unwrap_or_default();
    let kind = node.str_at(&["kind"]).unwrap_or_default();
    match catalog.lookup(api_version, kind) {
        Lookup::Found(ty) => {
            let violations = validate(ty, node);
            let verdict = if violations.is_empty() {
                "valid"
            } else {
                "invalid"
            };
            (verdict, violations)
        }
        Lookup::UnknownKind | Lookup::UnknownApiVersion | Lookup::NotBuiltIn => {
            ("no-schema", Vec::new())
        }
    }
}

/// `containers[0].ports[1]` → `containers.0.ports.1`, as the recorder prints paths.
fn dotted(path: &str) -> String {
    path.replace('[', ".").replace(']', "")
}

#[test]
fn verdicts_match_the_independent_validator() {
    let expected = read_json("expected.json");
    let deviations = read_json("deviations.json");
    let objects = expected["objects"].as_object().expect("objects");
    assert!(
        objects.len() >= 60,
        "the corpus has {} objects",
        objects.len()
    );
    let mut failures = Vec::new();
    let mut used_deviations = std::collections::BTreeSet::new();
    for version in expected["versions"].as_array().expect("versions") {
        let version = version.as_str().expect("a version");
        let catalog = Catalog::bundled(KubeVersion::parse(version).expect("a version"))
            .expect("a bundled version");
        for (name, per_version) in objects {
            let recorded = &per_version[version];
            let tool = recorded["verdict"].as_str().expect("a verdict");
            let node = object(name);
            let (got, violations) = kdelta_verdict(catalog, &node);
            let deviation = &deviations["objects"][name];
            let applies = deviation.is_object()
                && (deviation["versions"] == "all"
                    || deviation["versions"]
                        .as_array()
                        .is_some_and(|vs| vs.iter().any(|v| v == version)));
            let want = if applies {
                used_deviations.insert(name.clone());
                if deviation["tool"] != tool {
                    failures.push(format!(
                        "{name} @ {version}: deviations.json says the tool answers {}, but it recorded {tool}: update the deviation",
                        deviation["tool"]
                    ));
                }
                deviation["kdelta"].as_str().expect("kdelta's verdict")
            } else {
                tool
            };
            let shown: Vec<String> = violations
                .iter()
                .map(|v| format!("{}:{} {}", v.span.line, v.span.column, v.message))
                .collect();
            if got != want {
                failures.push(format!(
                    "{name} @ {version}: kdelta says {got}, expected {want} ({}); kdelta: {shown:?}",
                    recorded["message"].as_str().unwrap_or("")
                ));
                continue;
            }
            if got == "invalid" && tool == "invalid" {
                // The independent validator's path (`spec.template.spec.containers.0`) is
                // where kdelta reports, or above it.
                let message = recorded["message"].as_str().unwrap_or("");
                let tool_path = message.split(": ").next().unwrap_or("");
                let near = violations
                    .iter()
                    .any(|v| dotted(&v.path).starts_with(tool_path));
                if !near {
                    failures.push(format!(
                        "{name} @ {version}: the tool points at {tool_path:?}, kdelta at {shown:?}"
                    ));
                }
            }
        }
    }
    for name in deviations["objects"].as_object().expect("objects").keys() {
        if !used_deviations.contains(name) {
            failures.push(format!(
                "deviations.json lists {name}, which no recorded verdict uses"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What kdelta reports for each object at one version, pinned: paths, lines and wording.
#[test]
fn messages_for_the_corpus() {
    let catalog = Catalog::bundled(KubeVersion::new(1, 33)).expect("1.33 is bundled");
    let expected = read_json("expected.json");
    let mut out = String::new();
    for name in expected["objects"].as_object().expect("objects").keys() {
        let node = object(name);
        let (verdict, violations) = kdelta_verdict(catalog, &node);
        out.push_str(&format!("{name}: {verdict}\n"));
        for v in violations {
            out.push_str(&format!(
                "  {}:{} {:?} {}\n",
                v.span.line, v.span.column, v.kind, v.message
            ));
        }
    }
    insta::assert_snapshot!(out);
}

/// The CRDs of `testdata/validate/crds/`, compiled.
fn crds() -> Vec<Crd> {
    let mut out = Vec::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir().join("crds"))
        .expect("the CRD directory")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    paths.sort();
    for path in paths {
        let text = std::fs::read(&path).expect("a CRD file");
        for doc in parse_stream(&text, &ParseOptions::default()).expect("YAML") {
            if doc.is_null() {
                continue;
            }
            let crd = Crd::from_node(&doc).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            // The CRD object itself is valid against the bundled apiextensions schema.
            let catalog = Catalog::latest();
            let Lookup::Found(ty) =
                catalog.lookup("apiextensions.k8s.io/v1", "CustomResourceDefinition")
            else {
                panic!("the bundle has CustomResourceDefinition");
            };
            let violations = validate(ty, &doc);
            assert!(violations.is_empty(), "{}: {violations:?}", path.display());
            out.push(crd);
        }
    }
    out
}

#[test]
fn custom_resources_against_real_crds() {
    let crds = crds();
    assert_eq!(crds.len(), 5);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir().join("crds/instances"))
        .expect("the instances directory")
        .map(|e| e.expect("an entry").path())
        .collect();
    paths.sort();
    assert!(paths.len() >= 12);
    let mut failures = Vec::new();
    let mut pinned = String::new();
    for path in paths {
        let name = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let text = std::fs::read_to_string(&path).expect("an instance");
        let expect: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("# expect: "))
            .collect();
        let node = parse_one(text.as_bytes(), &ParseOptions::default()).expect("one document");
        let api_version = node.str_at(&["apiVersion"]).unwrap_or_default();
        let kind = node.str_at(&["kind"]).unwrap_or_default();
        let found: Vec<CrdMatch<'_>> = crds
            .iter()
            .map(|c| c.lookup(api_version, kind))
            .filter(|m| !matches!(m, CrdMatch::Other))
            .collect();
        let got: Vec<String> = match found.as_slice() {
            [CrdMatch::Found(version)] => {
                let violations = validate(version.root(), &node);
                pinned.push_str(&format!("{name}:\n"));
                for v in &violations {
                    pinned.push_str(&format!(
                        "  {}:{} {:?} {}\n",
                        v.span.line, v.span.column, v.kind, v.message
                    ));
                }
                let mut got: Vec<String> = violations
                    .iter()
                    .map(|v| format!("{:?} {}", v.kind, v.path))
                    .collect();
                if got.is_empty() {
                    got.push("valid".to_string());
                }
                got
            }
            [CrdMatch::VersionNotServed] => vec!["not-served".to_string()],
            _ => vec![format!("no CRD for {api_version} {kind}")],
        };
        let mut want: Vec<String> = expect.iter().map(|s| s.to_string()).collect();
        let mut sorted = got.clone();
        sorted.sort();
        want.sort();
        if sorted != want {
            failures.push(format!("{name}: expected {want:?}, kdelta reports {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    insta::assert_snapshot!(pinned);
}
