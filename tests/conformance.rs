//! Conformance harness (DESIGN.md section 8): runs the reference tools' own cases from
//! `../shared/conformance` and fails when an engine passes fewer than the floor recorded in
//! `tests/conformance-floor.toml`. Without the corpus it says so and passes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn corpus_root() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance");
    root.is_dir().then_some(root)
}

fn floors() -> BTreeMap<String, usize> {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance-floor.toml"),
    )
    .expect("tests/conformance-floor.toml exists");
    text.lines()
        .filter_map(|l| {
            let l = l.split('#').next()?.trim();
            let (k, v) = l.split_once('=')?;
            Some((
                k.trim().trim_matches('"').to_string(),
                v.trim().parse().ok()?,
            ))
        })
        .collect()
}

fn case_dirs(corpus: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(corpus)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.join("case.yaml").is_file())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

#[derive(Default)]
struct Score {
    passed: usize,
    failed: Vec<String>,
    skipped: usize,
}

impl Score {
    fn report(&self, name: &str, floors: &BTreeMap<String, usize>) -> Option<String> {
        println!(
            "conformance {name}: {} passed, {} failed, {} skipped",
            self.passed,
            self.failed.len(),
            self.skipped
        );
        for f in self.failed.iter().take(400) {
            println!("  FAIL {name} {f}");
        }
        let floor = floors.get(name).copied().unwrap_or(0);
        (self.passed < floor).then(|| format!("{name}: {} passed, floor is {floor}", self.passed))
    }
}

/// Splits a kustomize output stream into documents (they are joined by `---\n`).
fn split_docs(s: &str) -> Vec<&str> {
    if s.is_empty() {
        return Vec::new();
    }
    s.split("\n---\n")
        .enumerate()
        .map(|(i, d)| {
            if i == 0 {
                d.strip_prefix("---\n").unwrap_or(d)
            } else {
                d
            }
        })
        .collect()
}

/// Parse every expected output with the YAML 1.2 reader and write it back with the emitter:
/// the bytes must not change, since the expected files are the emitter's own output format.
fn emitter_round_trip(root: &Path) -> Score {
    use kdelta::yaml;
    let mut score = Score::default();
    for corpus in ["kustomize", "kustomize-extra"] {
        for dir in case_dirs(&root.join(corpus)) {
            for file in ["expected.yaml", "expected-default-order.yaml"] {
                let Ok(text) = std::fs::read_to_string(dir.join(file)) else {
                    continue;
                };
                let name = format!(
                    "{corpus}/{}/{file}",
                    dir.file_name().unwrap().to_string_lossy()
                );
                let mut ok = true;
                let mut out = String::new();
                for (i, doc) in split_docs(&text).into_iter().enumerate() {
                    let doc = if doc.ends_with('\n') {
                        doc.to_string()
                    } else {
                        format!("{doc}\n")
                    };
                    match yaml::parse_one(doc.as_bytes(), &yaml::ParseOptions::default())
                        .map_err(|e| e.to_string())
                        .and_then(|n| {
                            yaml::to_value(&n, yaml::Dialect::Yaml12).map_err(|e| e.to_string())
                        }) {
                        Ok(v) => {
                            if i > 0 {
                                out.push_str("---\n");
                            }
                            out.push_str(&yaml::emit::to_string(&v));
                        }
                        Err(e) => {
                            ok = false;
                            score.failed.push(format!("{name}: {e}"));
                            break;
                        }
                    }
                }
                if ok {
                    if out == text {
                        score.passed += 1;
                    } else {
                        let diff = first_difference(&text, &out);
                        score.failed.push(format!("{name}: {diff}"));
                    }
                }
            }
        }
    }
    score
}

fn first_difference(expected: &str, got: &str) -> String {
    for (i, (e, g)) in expected.lines().zip(got.lines()).enumerate() {
        if e != g {
            return format!("line {}: expected {e:?}, got {g:?}", i + 1);
        }
    }
    format!(
        "length differs: expected {} lines, got {}",
        expected.lines().count(),
        got.lines().count()
    )
}

#[test]
fn conformance() {
    let Some(root) = corpus_root() else {
        println!("conformance: skipped, ../shared/conformance not found");
        return;
    };
    let floors = floors();
    let mut below = Vec::new();
    below.extend(emitter_round_trip(&root).report("emitter", &floors));
    assert!(
        below.is_empty(),
        "conformance dropped below the floor: {below:?}"
    );
}
