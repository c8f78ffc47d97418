//! Conformance corpus `appset` (DESIGN.md section 8): Argo CD ApplicationSet cases, expanded
//! through the generator ([`run_appset_case`]): the Applications compared as values, an error
//! by `expectError.contains`, a substring of the generation error (or, for a `partial` error,
//! of a validation error while the other Applications are compared).

#[allow(dead_code)] // the shared harness, of which each corpus uses a part
#[path = "conformance/harness.rs"]
mod harness;

use std::path::{Path, PathBuf};

use harness::{case_dirs, dir_name, field, read_yaml, strings, text, Outcome, Results};
use kdelta::yaml;
use serde_json::Value;

#[test]
fn conformance() {
    harness::run_corpus(appset_corpus);
}

/// One ApplicationSet case, with the corpus's expectation.
struct AppSetCase {
    /// `appset.yaml`, `clusters.yaml` (when present) and `repo/` (when present) live here.
    dir: PathBuf,
    /// `controllerOptions` of `case.yaml`.
    controller_options: Option<Value>,
    /// `expectError`, when generation fails.
    error: Option<AppSetError>,
    /// `repoURLsServedByRepoDir`: the git generators' repositories that `repo/` holds.
    served: Vec<String>,
}

/// An ApplicationSet case's `expectError`.
struct AppSetError {
    /// `generate`, `render` or `validate`.
    stage: String,
    /// A substring of the message.
    contains: String,
    /// The other Applications are still created.
    partial: bool,
}

/// Expands an ApplicationSet case and compares it with its expectation (the Applications as
/// values; an error by its substring).
fn run_appset_case(case: &AppSetCase) -> Outcome {
    use kdelta::argocd::generate::{clusters_from_manifests, generate, Context};
    let docs = |name: &str| -> Result<Vec<Value>, String> {
        let path = case.dir.join(name);
        if !path.is_file() {
            return Ok(Vec::new());
        }
        let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
        let nodes = yaml::parse_stream(&bytes, &yaml::ParseOptions::default())
            .map_err(|e| format!("{name}: {e}"))?;
        nodes
            .iter()
            .filter(|n| !n.is_null())
            .map(|n| yaml::to_value(n, yaml::Dialect::Yaml12).map_err(|e| e.to_string()))
            .collect()
    };
    let (appset, clusters, expected) = match (
        docs("appset.yaml"),
        docs("clusters.yaml"),
        docs("expected.yaml"),
    ) {
        (Ok(a), Ok(c), Ok(e)) => (a, c, e),
        (a, c, e) => {
            return Outcome::Fail(format!(
                "unreadable case: {:?}",
                [a.err(), c.err(), e.err()]
            ))
        }
    };
    let mut repo = kdelta::source::MemorySnapshot::new();
    let repo_dir = case.dir.join("repo");
    if repo_dir.is_dir() {
        let mut stack = vec![repo_dir.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if let Ok(bytes) = std::fs::read(&p) {
                    let rel = p
                        .strip_prefix(&repo_dir)
                        .unwrap_or(&p)
                        .to_string_lossy()
                        .replace('\\', "/");
                    if let Ok(path) = kdelta::source::RepoPath::new(&rel) {
                        repo.add_file(&path, &bytes);
                    }
                }
            }
        }
    }
    let cache = kdelta::source::ParseCache::default();
    let files = kdelta::source::Files::new(&repo, &cache);
    let served = |url: &str| case.served.iter().any(|s| s == url);
    let new_globbing = case
        .controller_options
        .as_ref()
        .and_then(|o| o.get("enableNewGitFileGlobbing"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let ctx = Context {
        files: Some(&files),
        is_this_repo: &served,
        clusters: &clusters_from_manifests(&clusters),
        namespace: "argocd",
        new_git_file_globbing: new_globbing,
    };
    let Some(appset) = appset.first() else {
        return Outcome::Fail("no ApplicationSet".to_string());
    };
    match (generate(appset, &ctx), &case.error) {
        (Err(e), Some(want)) if !want.partial && e.to_string().contains(&want.contains) => {
            Outcome::Pass
        }
        (Err(e), _) => Outcome::Fail(format!("generation failed: {e}")),
        (Ok(got), want) => {
            if let Some(want) = want {
                if !want.partial || !got.errors.iter().any(|e| e.contains(&want.contains)) {
                    return Outcome::Fail(format!(
                        "expected a {} error containing {:?}; got {:?}",
                        want.stage, want.contains, got.errors
                    ));
                }
            }
            if got.apps == expected {
                Outcome::Pass
            } else {
                Outcome::Fail(format!(
                    "got {}\nwant {}",
                    serde_json::to_string_pretty(&got.apps).unwrap_or_default(),
                    serde_json::to_string_pretty(&expected).unwrap_or_default()
                ))
            }
        }
    }
}

fn read_appset_case(dir: &Path) -> Result<AppSetCase, String> {
    let case = read_yaml(&dir.join("case.yaml"))?;
    if !dir.join("appset.yaml").is_file() {
        return Err("no appset.yaml".to_string());
    }
    let error = match field(&case, &["expectError"]) {
        None | Some(Value::Null) => None,
        Some(_) => {
            let contains = text(&case, &["expectError", "contains"])
                .filter(|c| !c.trim().is_empty())
                .ok_or("case.yaml: expectError without contains")?;
            Some(AppSetError {
                stage: text(&case, &["expectError", "stage"]).unwrap_or_default(),
                contains,
                partial: text(&case, &["expectError", "partial"]).as_deref() == Some("true"),
            })
        }
    };
    Ok(AppSetCase {
        dir: dir.to_path_buf(),
        controller_options: field(&case, &["controllerOptions"]).cloned(),
        error,
        served: strings(&case, &["repoURLsServedByRepoDir"]),
    })
}

fn appset_corpus(root: &Path) -> Results {
    let mut results = Results::new("appset");
    match case_dirs(&root.join("appset")) {
        Ok(dirs) => {
            for dir in dirs {
                let judged = read_appset_case(&dir).map(|case| run_appset_case(&case));
                results.push(dir_name(&dir), judged);
            }
        }
        Err(e) => results.push("appset", Err(e)),
    }
    results
}
