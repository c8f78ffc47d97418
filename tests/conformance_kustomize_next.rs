//! Conformance corpus `kustomize-next` (DESIGN.md section 8): kustomize v5.7/v5.8 features,
//! with the upstream tests' expected values. Build-level cases render with
//! `tests/conformance/kustomize.rs`; an error case passes when kdelta's message holds the whole
//! `expected-error.txt` as a substring (the corpus's README).

#[allow(dead_code)] // the shared harness, of which each corpus uses a part
#[path = "conformance/harness.rs"]
mod harness;
#[allow(dead_code)] // the kustomize corpora's runner; this corpus uses its render_kustomize
#[path = "conformance/kustomize.rs"]
mod kustomize;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use harness::{case_dirs, dir_name, read_text, read_yaml, strings, text, Judged, Outcome, Results};
use kdelta::kustomize::Options as KustomizeOptions;
use kdelta::yaml;
use kustomize::render_kustomize;
use serde_json::Value;

#[test]
fn conformance() {
    harness::run_corpus(kustomize_next);
}

/// The documents of a YAML stream as typed values (kyaml typing).
fn values_of(text: &str) -> Result<Vec<Value>, String> {
    yaml::parse_stream(text.as_bytes(), &yaml::ParseOptions::default())
        .map_err(|e| e.to_string())?
        .iter()
        .filter(|n| !n.is_null())
        .map(|n| yaml::to_value(n, yaml::Dialect::Yaml12).map_err(|e| e.to_string()))
        .collect()
}

/// The path matcher's matches, serialised the way kyaml does (empty when nothing matched).
fn path_matches(dir: &Path, path: &[String]) -> Result<String, String> {
    let input = std::fs::read(dir.join("in/resource.yaml")).map_err(|e| e.to_string())?;
    let node =
        yaml::parse_one(&input, &yaml::ParseOptions::default()).map_err(|e| e.to_string())?;
    let found = kdelta::kustomize::pathmatch::matches(&node, path).map_err(|e| e.to_string())?;
    Ok(if found.is_empty() {
        String::new()
    } else {
        yaml::emit::node_to_string(&yaml::Node::new(yaml::NodeKind::Seq(found)))
    })
}

/// Build-level cases compare as data (strings exact), path-matcher cases as kyaml text; errors
/// are substrings of kdelta's message.
fn run_next_case(dir: &Path) -> Judged {
    let case = read_yaml(&dir.join("case.yaml"))?;
    let expected = match text(&case, &["expects"]).as_deref() {
        Some("output") => Ok(read_text(&dir.join("expected.yaml"))?),
        Some("error") => Err(read_text(&dir.join("expected-error.txt"))?
            .trim()
            .to_string()),
        other => return Err(format!("case.yaml: expects is {other:?}")),
    };
    if expected.as_ref().is_err_and(|e| e.is_empty()) {
        return Err("expected-error.txt is empty".to_string());
    }
    let level = text(&case, &["level"]);
    let got: Result<String, Vec<String>> = match level.as_deref() {
        Some("pathmatcher") => {
            let path = strings(&case, &["path"]);
            if !dir.join("in/resource.yaml").is_file() {
                return Err("no in/resource.yaml".to_string());
            }
            guarded_result(|| path_matches(dir, &path).map_err(|e| vec![e]))
        }
        Some("build") => {
            let build_dir = text(&case, &["build_dir"]).ok_or("case.yaml: no build_dir")?;
            let build_dir = match build_dir.strip_prefix("in") {
                Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                    rest.trim_start_matches('/').to_string()
                }
                _ => return Err(format!("case.yaml: build_dir {build_dir:?} is not in in/")),
            };
            let options = KustomizeOptions {
                reorder_none: true,
                ..KustomizeOptions::default()
            };
            guarded_result(|| render_kustomize(dir, &build_dir, &options))
        }
        other => return Err(format!("case.yaml: level is {other:?}")),
    };
    Ok(match (expected, got) {
        (Err(phrase), Err(errors)) => {
            if errors.iter().any(|e| e.contains(&phrase)) {
                Outcome::Pass
            } else {
                Outcome::Fail(format!("error {errors:?} lacks {phrase:?}"))
            }
        }
        (Err(_), Ok(_)) => Outcome::Fail("expected an error, got a result".to_string()),
        (Ok(_), Err(errors)) => Outcome::Fail(format!("render failed: {}", errors.join("; "))),
        (Ok(expected), Ok(got)) if level.as_deref() == Some("pathmatcher") => {
            if got.trim() == expected.trim() {
                Outcome::Pass
            } else {
                Outcome::Fail(format!("expected {expected:?}, got {got:?}"))
            }
        }
        (Ok(expected), Ok(got)) => match (values_of(&expected), values_of(&got)) {
            (Ok(e), Ok(g)) if e == g => Outcome::Pass,
            (Ok(e), Ok(g)) => Outcome::Fail(format!(
                "data differs:\nexpected {}\ngot      {}",
                Value::Array(e),
                Value::Array(g)
            )),
            (Err(e), _) => return Err(format!("expected.yaml: {e}")),
            (_, Err(e)) => Outcome::Fail(e),
        },
    })
}

/// Runs a render, turning a panic into an error.
fn guarded_result(
    run: impl FnOnce() -> Result<String, Vec<String>>,
) -> Result<String, Vec<String>> {
    catch_unwind(AssertUnwindSafe(run)).unwrap_or_else(|_| Err(vec!["PANIC".to_string()]))
}

fn kustomize_next(root: &Path) -> Results {
    let mut results = Results::new("kustomize-next");
    match case_dirs(&root.join("kustomize-next")) {
        Ok(dirs) => {
            for dir in dirs {
                results.push(dir_name(&dir), run_next_case(&dir));
            }
        }
        Err(e) => results.push("kustomize-next", Err(e)),
    }
    results
}
