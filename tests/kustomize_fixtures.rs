//! Golden fixtures for the native kustomize build: every `testdata/kustomize/<case>/` holds an
//! input tree (`in/`), a `case.yaml` (build directory, options, the exact reference command) and
//! the reference tool's result — `expected.yaml` (its stdout, compared byte for byte) or
//! `expected-error.txt` (its error; the case's `key_phrases` must appear in kdelta's error
//! findings). `testdata/kustomize/regen.py` regenerates the results with `kubectl kustomize`.
//!
//! Cases that fail today are listed in `testdata/kustomize/KNOWN_FAILURES` with the reason. The
//! test fails when a case outside that list fails, and when a listed case passes (delete its line).

#[allow(dead_code)] // the conformance harness, of which these fixtures use a few helpers
#[path = "conformance/harness.rs"]
mod harness;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use harness::{dir_name, error_list, first_difference};
use kdelta::render::{render_target, ParseCache, RenderOptions, Target};
use kdelta::source::{RepoPath, WorktreeSnapshot};
use kdelta::yaml;

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/kustomize")
}

/// A fixture's `case.yaml`, as far as the test needs it.
struct Case {
    name: String,
    dir: PathBuf,
    build_dir: String,
    options: RenderOptions,
    key_phrases: Vec<String>,
}

/// What the reference tool produced for a case.
enum Expected {
    Output(String),
    Error(String),
}

fn read_case(dir: &Path) -> Result<Case, String> {
    let name = dir_name(dir);
    let text = std::fs::read(dir.join("case.yaml")).map_err(|e| format!("case.yaml: {e}"))?;
    let node = yaml::parse_one(&text, &yaml::ParseOptions::default())
        .map_err(|e| format!("case.yaml: {e}"))?;
    let field = |path: &[&str]| node.str_at(path).map(str::to_string);
    let build_dir = field(&["build_dir"]).ok_or("case.yaml: no build_dir")?;
    let reorder_none = match field(&["options", "reorder"]).as_deref() {
        Some("none") => true,
        Some("legacy") | None => false,
        Some(other) => return Err(format!("case.yaml: unknown reorder {other:?}")),
    };
    let load_restrictor_none = match field(&["options", "load_restrictor"]).as_deref() {
        Some("LoadRestrictionsNone") => true,
        Some("LoadRestrictionsRootOnly") | None => false,
        Some(other) => return Err(format!("case.yaml: unknown load_restrictor {other:?}")),
    };
    // Exec plugins (`--enable-alpha-plugins`): the plugin root and home are directories of the
    // case, as regen.py gives them to kustomize.
    let enable_exec_plugins =
        field(&["options", "enable_alpha_plugins"]).as_deref() == Some("true");
    let plugin_env = kdelta::kustomize::PluginEnv {
        kustomize_plugin_home: field(&["options", "plugin_home"])
            .map(|p| dir.join(p).to_string_lossy().into_owned())
            .unwrap_or_default(),
        xdg_config_home: String::new(),
        home: dir
            .join(field(&["options", "home"]).unwrap_or_else(|| "home".to_string()))
            .to_string_lossy()
            .into_owned(),
    };
    let key_phrases = node
        .get("key_phrases")
        .and_then(|n| n.as_seq())
        .map(|seq| {
            seq.iter()
                .filter_map(|p| p.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    Ok(Case {
        name,
        dir: dir.to_path_buf(),
        build_dir,
        options: RenderOptions {
            kustomize: kdelta::kustomize::Options {
                load_restrictor_none,
                reorder_none,
                enable_exec_plugins,
                plugin_env,
                ..Default::default()
            },
            ..RenderOptions::default()
        },
        key_phrases,
    })
}

fn read_expected(case: &Case) -> Result<Expected, String> {
    let output = std::fs::read_to_string(case.dir.join("expected.yaml")).ok();
    let error = std::fs::read_to_string(case.dir.join("expected-error.txt")).ok();
    match (output, error) {
        (Some(out), None) => Ok(Expected::Output(out)),
        (None, Some(err)) => Ok(Expected::Error(err)),
        (Some(_), Some(_)) => Err("both expected.yaml and expected-error.txt exist".into()),
        (None, None) => Err("neither expected.yaml nor expected-error.txt exists".into()),
    }
}

/// The rendered output, or the error findings (`rule: message (file)`) when the render failed.
fn render(case: &Case) -> Result<String, Vec<String>> {
    let in_dir = case.dir.join("in");
    let snapshot = WorktreeSnapshot::new(in_dir).map_err(|e| vec![e.to_string()])?;
    let dir = RepoPath::new(&case.build_dir).map_err(|e| vec![e.to_string()])?;
    let cache = ParseCache::default();
    let rendered = render_target(
        &snapshot,
        &Target::Kustomize(kdelta::kustomize::Spec { dir }),
        &case.options,
        &cache,
    );
    let errors = error_list(&rendered.findings);
    if !rendered.ok || !errors.is_empty() {
        return Err(errors);
    }
    rendered.to_yaml().map_err(|f| vec![f.message])
}

/// Lowercase words of a message, with the case's absolute input path (and the `$CASE`
/// placeholder the expected errors use for it) removed, so that paths compare as relative ones;
/// other paths in the case (an exec plugin's) read as `$CASE`, as in the expected errors.
fn words(text: &str, case_dir: &Path) -> Vec<String> {
    let abs = case_dir.join("in").to_string_lossy().into_owned();
    let text = text
        .replace(&abs, "")
        .replace("$CASE/in", "")
        .replace(case_dir.to_string_lossy().as_ref(), "$CASE");
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether the words of `phrase` occur, in order and adjacent, among `haystack`.
fn contains_phrase(haystack: &[String], phrase: &[String]) -> bool {
    phrase.is_empty() || haystack.windows(phrase.len()).any(|w| w == phrase)
}

/// Runs one case; `Err` says why it failed.
fn check(case: &Case) -> Result<(), String> {
    match read_expected(case)? {
        Expected::Output(expected) => match render(case) {
            Ok(got) if got == expected => Ok(()),
            Ok(got) => Err(first_difference(&expected, &got)),
            Err(errors) => Err(format!("render failed: {}", errors.join("; "))),
        },
        Expected::Error(oracle) => {
            if case.key_phrases.is_empty() {
                return Err("error case without key_phrases in case.yaml".into());
            }
            let oracle_words = words(&oracle, &case.dir);
            for phrase in &case.key_phrases {
                if !contains_phrase(&oracle_words, &words(phrase, &case.dir)) {
                    return Err(format!(
                        "key phrase {phrase:?} is not in expected-error.txt"
                    ));
                }
            }
            match render(case) {
                Ok(_) => Err("expected an error, rendered successfully".into()),
                Err(errors) if errors.is_empty() => {
                    Err("render failed without an error finding".into())
                }
                Err(errors) => {
                    let got = words(&errors.join("\n"), &case.dir);
                    let missing: Vec<&String> = case
                        .key_phrases
                        .iter()
                        .filter(|p| !contains_phrase(&got, &words(p, &case.dir)))
                        .collect();
                    if missing.is_empty() {
                        Ok(())
                    } else {
                        Err(format!("error lacks {missing:?}: {}", errors.join("; ")))
                    }
                }
            }
        }
    }
}

/// `testdata/kustomize/KNOWN_FAILURES`: case name → reason (`NAME reason…`, `#` comments).
fn known_failures() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(fixtures_root().join("KNOWN_FAILURES")).unwrap_or_default();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| match l.split_once(char::is_whitespace) {
            Some((name, reason)) => (name.to_string(), reason.trim().to_string()),
            None => (l.to_string(), String::new()),
        })
        .collect()
}

#[test]
fn kustomize_fixtures() {
    let known = known_failures();
    let mut passed = Vec::new();
    let mut failed: Vec<(String, String)> = Vec::new();
    let dirs = harness::case_dirs(&fixtures_root()).expect("testdata/kustomize exists");
    for dir in dirs {
        let result = read_case(&dir).and_then(|case| {
            std::panic::catch_unwind(|| check(&case))
                .unwrap_or_else(|_| Err("PANIC".to_string()))
                .map(|()| case.name.clone())
                .map_err(|e| e.to_string())
        });
        let name = dir_name(&dir);
        match result {
            Ok(_) => passed.push(name),
            Err(e) => failed.push((name, e)),
        }
    }

    println!(
        "kustomize fixtures: {} passed, {} failed",
        passed.len(),
        failed.len()
    );
    for (name, why) in &failed {
        let tag = if known.contains_key(name) {
            "known"
        } else {
            "NEW"
        };
        println!("  FAIL ({tag}) {name}: {why}");
    }

    let unexpected: Vec<&str> = failed
        .iter()
        .filter(|(n, _)| !known.contains_key(n))
        .map(|(n, _)| n.as_str())
        .collect();
    let fixed: Vec<&str> = passed
        .iter()
        .filter(|n| known.contains_key(*n))
        .map(String::as_str)
        .collect();
    let all: Vec<String> = passed
        .iter()
        .cloned()
        .chain(failed.iter().map(|(n, _)| n.clone()))
        .collect();
    let stale: Vec<&str> = known
        .keys()
        .filter(|k| !all.contains(k))
        .map(String::as_str)
        .collect();
    for name in &fixed {
        println!("  PASS {name}: listed in KNOWN_FAILURES, delete its line");
    }
    assert!(
        unexpected.is_empty() && fixed.is_empty() && stale.is_empty(),
        "kustomize fixtures: newly failing {unexpected:?}; passing but listed in \
         testdata/kustomize/KNOWN_FAILURES (delete them) {fixed:?}; listed but no such case {stale:?}"
    );
}
