//! Conformance harness (DESIGN.md section 8): runs every case of the corpora in
//! `../shared/conformance` (each folder's README gives its format) and checks each corpus against
//! its known-failure list, `tests/conformance/known-failures-<corpus>.txt` (`NAME reason…` lines,
//! `#` comments). The test fails when
//!
//! * a case fails that its list does not name, or a listed case passes (remove its line), or a
//!   listed name is no case or a skipped one;
//! * a case cannot be judged (a harness error, whatever the list says): no expected output and no
//!   expected error, an unreadable `case.yaml`, data that contradicts itself;
//! * a list is missing: an empty list is a file with no case lines, never a default.
//!
//! Each corpus has its own test file, `tests/conformance_<corpus>.rs`, which reads and runs its
//! cases; this harness judges them. It prints the corpus's scoreboard line (`conformance
//! kustomize: N passed, M failed (known), K skipped`) and one line per case that did not pass.
//! A case is skipped only where its corpus says the reference result is unusable, and the skip
//! prints that reason.
//!
//! Without `../shared/conformance` the test prints that it skipped and passes, except under
//! `CI=true`: CI always has `../shared` beside the clone, so there its absence fails the test.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use kdelta::finding::{Finding, Severity};
use kdelta::yaml;
use serde_json::Value;

// ---------------------------------------------------------------------------------------------
// Outcomes, known-failure lists and the scoreboard

/// What one case came to.
pub enum Outcome {
    Pass,
    Fail(String),
    /// The reference result cannot be used; the reason is printed.
    Skip(String),
}

/// A case's outcome, or `Err` when the harness cannot judge it (missing or contradictory data).
pub type Judged = Result<Outcome, String>;

/// The cases of one corpus, by name, in corpus order.
pub struct Results {
    corpus: &'static str,
    cases: Vec<(String, Judged)>,
}

impl Results {
    pub fn new(corpus: &'static str) -> Results {
        Results {
            corpus,
            cases: Vec::new(),
        }
    }

    pub fn push(&mut self, name: impl Into<String>, judged: Judged) {
        self.cases.push((name.into(), judged));
    }
}

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn known_failures_file(corpus: &str) -> PathBuf {
    manifest_dir().join(format!("tests/conformance/known-failures-{corpus}.txt"))
}

/// A corpus's known-failure list: case name → reason.
fn known_failures(corpus: &str) -> Result<BTreeMap<String, String>, String> {
    let path = known_failures_file(corpus);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "{corpus}: cannot read {} ({e}); every corpus needs its list, even an empty one",
            path.display()
        )
    })?;
    let mut known = BTreeMap::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (name, reason) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        if known
            .insert(name.to_string(), reason.trim().to_string())
            .is_some()
        {
            return Err(format!(
                "{corpus}: {name} is listed twice in {}",
                path.display()
            ));
        }
    }
    Ok(known)
}

/// Prints a corpus's scoreboard and returns what is wrong with it.
fn judge(results: &Results) -> Vec<String> {
    let corpus = results.corpus;
    let list = format!("tests/conformance/known-failures-{corpus}.txt");
    let mut problems = Vec::new();
    let known = known_failures(corpus).unwrap_or_else(|e| {
        problems.push(e);
        BTreeMap::new()
    });
    let (mut passed, mut known_failed, mut skipped) = (0, 0, 0);
    let (mut new_failures, mut fixed, mut broken) = (0, 0, 0);
    let mut lines = Vec::new();
    let mut seen = BTreeSet::new();
    for (name, judged) in &results.cases {
        if !seen.insert(name.as_str()) {
            problems.push(format!("{corpus}: two cases are named {name}"));
        }
        if name.is_empty() || name.contains(char::is_whitespace) {
            problems.push(format!("{corpus}: case name {name:?} cannot be listed"));
        }
        let listed = known.contains_key(name);
        match judged {
            Ok(Outcome::Pass) => {
                passed += 1;
                if listed {
                    fixed += 1;
                    lines.push(format!(
                        "  PASS {corpus} {name}: listed in {list}, remove its line"
                    ));
                    problems.push(format!("{corpus}: {name} passes; remove it from {list}"));
                }
            }
            Ok(Outcome::Fail(why)) if listed => {
                known_failed += 1;
                lines.push(format!("  FAIL (known) {corpus} {name}: {why}"));
            }
            Ok(Outcome::Fail(why)) => {
                new_failures += 1;
                lines.push(format!("  FAIL (NEW) {corpus} {name}: {why}"));
                problems.push(format!(
                    "{corpus}: {name} fails and is not in {list}: {why}"
                ));
            }
            Ok(Outcome::Skip(why)) => {
                skipped += 1;
                lines.push(format!("  SKIP {corpus} {name}: {why}"));
                if listed {
                    problems.push(format!(
                        "{corpus}: {name} is skipped; remove it from {list}"
                    ));
                }
            }
            Err(why) => {
                broken += 1;
                lines.push(format!("  HARNESS ERROR {corpus} {name}: {why}"));
                problems.push(format!("{corpus}: harness error in {name}: {why}"));
            }
        }
    }
    for name in known.keys().filter(|k| !seen.contains(k.as_str())) {
        problems.push(format!(
            "{corpus}: {name} is listed in {list} but is no case"
        ));
    }
    let mut board = format!(
        "conformance {corpus}: {passed} passed, {known_failed} failed (known), {skipped} skipped"
    );
    for (n, what) in [
        (new_failures, "failed (NEW)"),
        (fixed, "passed but listed"),
        (broken, "harness errors"),
    ] {
        if n > 0 {
            board.push_str(&format!(", {n} {what}"));
        }
    }
    println!("{board}");
    for line in lines {
        println!("{line}");
    }
    problems
}

fn corpus_root() -> Option<PathBuf> {
    let root = manifest_dir().join("../shared/conformance");
    root.is_dir().then_some(root)
}

/// Whether this is a CI run (`CI=true`, as CI services set it).
fn on_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// Runs one corpus (`corpus` reads and runs its cases from the corpora's root) and judges it
/// against its known-failure list: the body of every corpus's test.
pub fn run_corpus(corpus: impl FnOnce(&Path) -> Results) {
    let Some(root) = corpus_root() else {
        assert!(
            !on_ci(),
            "conformance: ../shared/conformance not found, but CI=true and CI always has \
             ../shared beside the clone"
        );
        println!("conformance: skipped, ../shared/conformance not found");
        return;
    };
    let problems = judge(&corpus(&root));
    assert!(
        problems.is_empty(),
        "conformance: {} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Reading corpus data

/// A YAML file as data (YAML 1.2 typing).
pub fn read_yaml(path: &Path) -> Result<Value, String> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let bytes = std::fs::read(path).map_err(|e| format!("{name}: {e}"))?;
    let node = yaml::parse_one(&bytes, &yaml::ParseOptions::default())
        .map_err(|e| format!("{name}: {e}"))?;
    yaml::to_value(&node, yaml::Dialect::Yaml12).map_err(|e| format!("{name}: {e}"))
}

pub fn read_text(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        format!("{name}: {e}")
    })
}

pub fn field<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.get(k))
}

/// A scalar field as text (`exit_code: 1` and `ran: false` read as "1" and "false").
pub fn text(v: &Value, path: &[&str]) -> Option<String> {
    match field(v, path)? {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other @ (Value::Bool(_) | Value::Number(_)) => Some(other.to_string()),
        _ => None,
    }
}

/// A sequence of strings (absent or not a sequence: empty).
pub fn strings(v: &Value, path: &[&str]) -> Vec<String> {
    field(v, path)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

pub fn case_dirs(corpus: &Path) -> Result<Vec<PathBuf>, String> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(corpus)
        .map_err(|e| format!("{}: {e}", corpus.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.yaml").is_file())
        .collect();
    dirs.sort();
    Ok(dirs)
}

pub fn dir_name(dir: &Path) -> String {
    dir.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// Runs a case, turning a panic into a failure.
pub fn guarded(run: impl FnOnce() -> Outcome) -> Outcome {
    catch_unwind(AssertUnwindSafe(run)).unwrap_or_else(|_| Outcome::Fail("PANIC".to_string()))
}

/// Where a rendered output first differs from the expected one: a line, the line count, or the
/// trailing newline.
pub fn first_difference(expected: &str, got: &str) -> String {
    for (i, (e, g)) in expected.lines().zip(got.lines()).enumerate() {
        if e != g {
            return format!("line {}: expected {e:?}, got {g:?}", i + 1);
        }
    }
    let (e, g) = (expected.lines().count(), got.lines().count());
    if e != g {
        format!("expected {e} lines, got {g}")
    } else {
        "trailing newline differs".to_string()
    }
}

/// A render's error findings as `rule: message (file)`, with the reference tool's wording
/// where the finding has it: what error cases compare their key phrases against.
pub fn error_list(findings: &[Finding]) -> Vec<String> {
    findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| {
            let file = f.file.as_deref().unwrap_or("");
            format!("{}: {} ({file})", f.rule, f.reference_text())
        })
        .collect()
}
