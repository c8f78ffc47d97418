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
//! It prints a scoreboard line per corpus (`conformance kustomize: N passed, M failed (known), K
//! skipped`) and one line per case that did not pass. Corpora: `emitter` (every expected output of
//! kustomize and kustomize-extra, parsed and re-emitted, must come out byte for byte),
//! `kustomize`, `kustomize-extra`, `kustomize-next`, `helm` and `appset`. A case is skipped only
//! where the corpus says the reference result is unusable (kustomize: `oracle.ran: false`, the
//! reference needed the network or docker; `oracle.oracle_limited`, it could not run exec
//! functions, exec or Go plugins or helm), and the skip prints that reason. Helm cases run
//! through the Helm engine ([`run_helm_case`]); ApplicationSet cases through the generator
//! ([`run_appset_case`]: the Applications compared as values, an error by its substring).
//!
//! An error case passes only when kdelta reports an error finding whose text holds every key
//! phrase of the case. Phrases compare as runs of adjacent lower-case words (letters and digits),
//! so quoting, punctuation and the `/` of in-memory paths do not matter; the reference's `$IN` and
//! `$CASE` placeholders (and kdelta's absolute case paths), Go pointers (`0xc000…`, `0xPTR`) and
//! Go escapes (`\n`, `\"`) are removed first. Where the phrases come from:
//!
//! * kustomize-next: the whole `expected-error.txt`, a substring of kdelta's message (its README).
//! * appset: `expectError.contains` (its README), a substring of the generation error (or, for a
//!   `partial` error, of a validation error while the other Applications are compared).
//! * kustomize and kustomize-extra: the reference test's own assertions (`test_error_contains`,
//!   `test_error_equals`, the literal runs of `test_error_regexp` between `.+`/`\S+`) that occur
//!   in `expected-error.txt`. Assertions worded for the test's in-memory file system do not occur
//!   there and are dropped. A case left with none (kustomize-extra has no assertions at all) uses
//!   the innermost cause of the reference error ([`innermost_cause`]): the message up to its first
//!   blank line (what follows is an object dump or a tool's stderr), without the configurations
//!   kustomize quotes between backticks and without Go value dumps (`&{…}`, `ResId{…}`), is cut
//!   at line breaks and at `: ` (Go's wrapping separator); the last piece with at least three
//!   prose words (letters only, so not a path, an id or a number) is the cause, and its
//!   `; `-separated clauses of three prose words or more are the key phrases. A message without
//!   such a piece uses its first line.
//!
//! Without `../shared/conformance` the test prints that it skipped and passes, except under
//! `CI=true`: CI always has `../shared` beside the clone, so there its absence fails the test.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use kdelta::kustomize::Options as KustomizeOptions;
use kdelta::render::{render_target, ParseCache, RenderOptions, Target};
use kdelta::report::Severity;
use kdelta::source::{RepoPath, WorktreeSnapshot};
use kdelta::yaml;
use serde_json::Value;

// ---------------------------------------------------------------------------------------------
// Outcomes, known-failure lists and the scoreboard

/// What one case came to.
enum Outcome {
    Pass,
    Fail(String),
    /// The reference result cannot be used; the reason is printed.
    Skip(String),
}

/// A case's outcome, or `Err` when the harness cannot judge it (missing or contradictory data).
type Judged = Result<Outcome, String>;

/// The cases of one corpus, by name, in corpus order.
struct Results {
    corpus: &'static str,
    cases: Vec<(String, Judged)>,
}

impl Results {
    fn new(corpus: &'static str) -> Results {
        Results {
            corpus,
            cases: Vec::new(),
        }
    }

    fn push(&mut self, name: impl Into<String>, judged: Judged) {
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

#[test]
fn conformance() {
    let Some(root) = corpus_root() else {
        assert!(
            !on_ci(),
            "conformance: ../shared/conformance not found, but CI=true and CI always has \
             ../shared beside the clone"
        );
        println!("conformance: skipped, ../shared/conformance not found");
        return;
    };
    let results = [
        emitter_round_trip(&root),
        kustomize_corpus(&root, "kustomize"),
        kustomize_corpus(&root, "kustomize-extra"),
        kustomize_next(&root),
        helm_corpus(&root),
        appset_corpus(&root),
    ];
    let problems: Vec<String> = results.iter().flat_map(judge).collect();
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
fn read_yaml(path: &Path) -> Result<Value, String> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let bytes = std::fs::read(path).map_err(|e| format!("{name}: {e}"))?;
    let node = yaml::parse_one(&bytes, &yaml::ParseOptions::default())
        .map_err(|e| format!("{name}: {e}"))?;
    yaml::to_value(&node, yaml::Dialect::Yaml12).map_err(|e| format!("{name}: {e}"))
}

fn read_text(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        format!("{name}: {e}")
    })
}

fn field<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.get(k))
}

/// A scalar field as text (`exit_code: 1` and `ran: false` read as "1" and "false").
fn text(v: &Value, path: &[&str]) -> Option<String> {
    match field(v, path)? {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other @ (Value::Bool(_) | Value::Number(_)) => Some(other.to_string()),
        _ => None,
    }
}

/// A sequence of strings (absent or not a sequence: empty).
fn strings(v: &Value, path: &[&str]) -> Vec<String> {
    field(v, path)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn case_dirs(corpus: &Path) -> Result<Vec<PathBuf>, String> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(corpus)
        .map_err(|e| format!("{}: {e}", corpus.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.yaml").is_file())
        .collect();
    dirs.sort();
    Ok(dirs)
}

fn dir_name(dir: &Path) -> String {
    dir.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// Runs a case, turning a panic into a failure.
fn guarded(run: impl FnOnce() -> Outcome) -> Outcome {
    catch_unwind(AssertUnwindSafe(run)).unwrap_or_else(|_| Outcome::Fail("PANIC".to_string()))
}

fn first_difference(expected: &str, got: &str) -> String {
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

// ---------------------------------------------------------------------------------------------
// Key phrases of error cases

/// Undoes Go's quoting of nested errors (`%q`): `\n`, `\t` and `\"`.
fn unescape_go(text: &str) -> String {
    text.replace("\\n", "\n")
        .replace("\\t", "\t")
        .replace("\\\"", "\"")
}

/// Lower-case words of a message, without case paths, placeholders and Go pointers.
fn words(text: &str, case_dir: &Path) -> Vec<String> {
    let in_dir = case_dir.join("in").to_string_lossy().into_owned();
    let case = case_dir.to_string_lossy().into_owned();
    let mut text = unescape_go(text);
    for prefix in [
        format!("{in_dir}/"),
        in_dir,
        format!("{case}/"),
        case,
        "$IN/".to_string(),
        "$IN".to_string(),
        "$CASE/".to_string(),
        "$CASE".to_string(),
    ] {
        text = text.replace(&prefix, "");
    }
    let is_pointer = |w: &str| {
        w == "0xptr"
            || (w.len() > 2 && w.starts_with("0x") && w[2..].chars().all(|c| c.is_ascii_hexdigit()))
    };
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !is_pointer(w))
        .map(str::to_string)
        .collect()
}

/// Whether the words of `phrase` occur, adjacent and in order, among `haystack`.
fn contains_phrase(haystack: &[String], phrase: &[String]) -> bool {
    !phrase.is_empty() && haystack.windows(phrase.len()).any(|w| w == phrase)
}

/// The literal runs of a test's `assert.Regexp` pattern (split at `.+`, `\S+` and the like), or
/// `None` when it uses other regex syntax.
fn regex_literals(re: &str) -> Option<Vec<String>> {
    let (mut parts, mut current) = (Vec::new(), String::new());
    let mut chars = re.chars().peekable();
    while let Some(c) = chars.next() {
        let wildcard = match c {
            '\\' => match chars.next()? {
                'S' | 's' | 'w' | 'd' => true,
                e if e.is_ascii_punctuation() => {
                    current.push(e);
                    false
                }
                _ => return None,
            },
            '.' => true,
            '^' | '$' | '(' | ')' | '|' | '?' | '[' | ']' | '{' | '}' | '+' | '*' => return None,
            c => {
                current.push(c);
                false
            }
        };
        if wildcard {
            if matches!(chars.peek(), Some('+' | '*')) {
                chars.next();
            }
            parts.push(std::mem::take(&mut current));
        }
    }
    parts.push(current);
    Some(parts)
}

/// Words of letters only (after trimming quotes and punctuation): prose, not paths, ids or numbers.
fn prose_words(text: &str) -> usize {
    text.split_whitespace()
        .map(|t| t.trim_matches(|c: char| "'\"`()[]{}<>,;:.!?".contains(c)))
        .filter(|t| {
            t.starts_with(|c: char| c.is_ascii_alphabetic())
                && t.ends_with(|c: char| c.is_ascii_alphabetic())
                && t.chars()
                    .all(|c| c.is_ascii_alphabetic() || c == '\'' || c == '-')
        })
        .count()
}

/// Replaces backtick-quoted blocks and Go value dumps (`&{…}`, `Name{…}`) by line breaks.
fn cut_quoted(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '`' {
            for c in chars.by_ref() {
                if c == '`' {
                    break;
                }
            }
            out.push('\n');
        } else if c == '{'
            && out
                .chars()
                .next_back()
                .is_some_and(|p| p == '&' || p.is_alphanumeric())
        {
            let mut depth = 1;
            for c in chars.by_ref() {
                depth += match c {
                    '{' => 1,
                    '}' => -1,
                    _ => 0,
                };
                if depth == 0 {
                    break;
                }
            }
            // Drop the value's type name (`resid.ResId`, `&`) too.
            let keep = out
                .trim_end_matches(|c: char| c.is_alphanumeric() || "&._".contains(c))
                .len();
            out.truncate(keep);
            out.push('\n');
        } else {
            out.push(c);
        }
    }
    out
}

/// Key phrases for a reference error that no assertion describes (the rule is in the module doc).
fn innermost_cause(reference: &str) -> Vec<String> {
    let text = unescape_go(reference);
    let paragraph: Vec<&str> = text
        .trim_start()
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .collect();
    let cut = cut_quoted(&paragraph.join("\n"));
    let cause = cut
        .lines()
        .flat_map(|l| l.split(": "))
        .filter(|s| prose_words(s) >= 3)
        .last();
    let Some(cause) = cause else {
        return paragraph
            .first()
            .map(|l| vec![l.trim().to_string()])
            .unwrap_or_default();
    };
    let clauses: Vec<String> = cause
        .split("; ")
        .filter(|c| prose_words(c) >= 3)
        .map(|c| c.trim().to_string())
        .collect();
    if clauses.is_empty() {
        vec![cause.trim().to_string()]
    } else {
        clauses
    }
}

/// Key phrases of a kustomize or kustomize-extra error case (see the module doc).
fn kustomize_phrases(case: &Value, reference: &str, dir: &Path) -> Vec<String> {
    let reference_words = words(reference, dir);
    let mut asserted = strings(case, &["test_error_contains"]);
    asserted.extend(strings(case, &["test_error_equals"]));
    for re in strings(case, &["test_error_regexp"]) {
        asserted.extend(regex_literals(&re).unwrap_or_default());
    }
    let found: Vec<String> = asserted
        .into_iter()
        .filter(|p| contains_phrase(&reference_words, &words(p, dir)))
        .collect();
    let phrases = if found.is_empty() {
        innermost_cause(reference)
    } else {
        found
    };
    phrases
        .into_iter()
        .filter(|p| !words(p, dir).is_empty())
        .collect()
}

/// Judges a render that should have failed: some error finding must hold every phrase.
fn check_error(result: Result<String, Vec<String>>, phrases: &[String], dir: &Path) -> Outcome {
    match result {
        Ok(_) => Outcome::Fail("expected an error, rendered successfully".to_string()),
        Err(errors) if errors.is_empty() => {
            Outcome::Fail("render failed without an error finding".to_string())
        }
        Err(errors) => {
            let found: Vec<Vec<String>> = errors.iter().map(|e| words(e, dir)).collect();
            let missing: Vec<&String> = phrases
                .iter()
                .filter(|p| !found.iter().any(|f| contains_phrase(f, &words(p, dir))))
                .collect();
            if missing.is_empty() {
                Outcome::Pass
            } else {
                Outcome::Fail(format!("error lacks {missing:?}: {}", errors.join("; ")))
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// emitter: expected outputs round-trip through the YAML reader and emitter

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

/// Parses a kustomize output with the YAML 1.2 reader and writes it back with the emitter.
fn re_emit(text: &str) -> Result<String, String> {
    let mut out = String::new();
    for (i, doc) in split_docs(text).into_iter().enumerate() {
        let doc = if doc.ends_with('\n') {
            doc.to_string()
        } else {
            format!("{doc}\n")
        };
        let node = yaml::parse_one(doc.as_bytes(), &yaml::ParseOptions::default())
            .map_err(|e| e.to_string())?;
        let value = yaml::to_value(&node, yaml::Dialect::Yaml12).map_err(|e| e.to_string())?;
        if i > 0 {
            out.push_str("---\n");
        }
        out.push_str(&yaml::emit::to_string(&value));
    }
    Ok(out)
}

/// Every expected output of the kustomize corpora must survive a round trip byte for byte, since
/// the expected files are in the emitter's own output format.
fn emitter_round_trip(root: &Path) -> Results {
    let mut results = Results::new("emitter");
    for corpus in ["kustomize", "kustomize-extra"] {
        let dirs = match case_dirs(&root.join(corpus)) {
            Ok(dirs) => dirs,
            Err(e) => {
                results.push(corpus, Err(e));
                continue;
            }
        };
        for dir in dirs {
            for file in ["expected.yaml", "expected-default-order.yaml"] {
                let path = dir.join(file);
                if !path.is_file() {
                    continue;
                }
                let name = format!("{corpus}/{}/{file}", dir_name(&dir));
                let judged = read_text(&path).map(|text| {
                    guarded(|| match re_emit(&text) {
                        Ok(out) if out == text => Outcome::Pass,
                        Ok(out) => Outcome::Fail(first_difference(&text, &out)),
                        Err(e) => Outcome::Fail(e),
                    })
                });
                results.push(name, judged);
            }
        }
    }
    results
}

// ---------------------------------------------------------------------------------------------
// kustomize and kustomize-extra: `kubectl kustomize` results

/// A case of the kustomize corpora, as far as the harness needs it.
struct KustomizeCase {
    dir: PathBuf,
    build_dir: String,
    options: KustomizeOptions,
    expected: Expected,
}

/// What the reference produced.
enum Expected {
    /// `expected.yaml` (with the case's order) and, where the CLI's legacy order differs,
    /// `expected-default-order.yaml`.
    Output {
        main: String,
        default_order: Option<String>,
    },
    /// `expected-error.txt` and the key phrases taken from it.
    Error { phrases: Vec<String> },
}

/// Why the reference result of a kustomize case cannot be used, if it cannot.
fn skip_reason(case: &Value) -> Option<String> {
    if text(case, &["oracle", "ran"]).as_deref() == Some("false") {
        let note = text(case, &["oracle", "note"]).unwrap_or_else(|| "not run".to_string());
        return Some(format!("reference {note}"));
    }
    if field(case, &["oracle", "oracle_limited"]).is_some() {
        let why = strings(case, &["oracle", "oracle_limited"]).join("; ");
        return Some(format!("reference result unusable: {why}"));
    }
    // Builtin plugin configs (`transformers: [file.yaml]`) are part of kdelta's kustomize.
    let needs: Vec<String> = strings(case, &["needs"])
        .into_iter()
        .filter(|n| n != "builtin-plugin-config")
        .collect();
    if !needs.is_empty() {
        return Some(format!("needs {}", needs.join(", ")));
    }
    for option in ["enable_plugins", "enable_helm"] {
        if text(case, &["options", option]).as_deref() == Some("true") {
            return Some(format!("options.{option} is set"));
        }
    }
    if text(case, &["offline"]).as_deref() != Some("true") {
        return Some("not offline".to_string());
    }
    None
}

/// Reads a case that is not skipped (`case` is its `case.yaml`) and its expected result.
fn read_kustomize_case(dir: &Path, case: &Value) -> Result<KustomizeCase, String> {
    let build_dir = text(case, &["build_dir"]).ok_or("case.yaml: no build_dir")?;
    let options = KustomizeOptions {
        reorder_none: text(case, &["options", "reorder"]).as_deref() == Some("none"),
        load_restrictor_none: text(case, &["options", "load_restrictor"]).as_deref()
            == Some("LoadRestrictionsNone"),
        enable_exec_plugins: false,
        add_managed_by_label: text(case, &["options", "add_managedby_label"]).as_deref()
            == Some("true"),
        ..KustomizeOptions::default()
    };
    let exit = text(case, &["oracle", "exit_code"]).ok_or("case.yaml: no oracle.exit_code")?;
    let output = dir.join("expected.yaml");
    let error = dir.join("expected-error.txt");
    let expected = match (output.is_file(), error.is_file()) {
        (true, false) if exit == "0" => Expected::Output {
            main: read_text(&output)?,
            default_order: match dir.join("expected-default-order.yaml") {
                p if p.is_file() => Some(read_text(&p)?),
                _ => None,
            },
        },
        (false, true) if exit != "0" => {
            let reference = read_text(&error)?;
            let phrases = kustomize_phrases(case, &reference, dir);
            if phrases.is_empty() {
                return Err("expected-error.txt gives no key phrase".to_string());
            }
            Expected::Error { phrases }
        }
        (false, false) => return Err("neither expected.yaml nor expected-error.txt exists".into()),
        (true, true) => return Err("both expected.yaml and expected-error.txt exist".into()),
        _ => {
            return Err(format!(
                "oracle.exit_code {exit} contradicts the expected file"
            ))
        }
    };
    Ok(KustomizeCase {
        dir: dir.to_path_buf(),
        build_dir,
        options,
        expected,
    })
}

/// Renders a build directory with the library, as `kubectl kustomize` would: the output, or the
/// error findings (`rule: message (file)`) when the render failed.
fn render_kustomize(
    dir: &Path,
    build_dir: &str,
    options: &KustomizeOptions,
) -> Result<String, Vec<String>> {
    // A case about an empty file system has no in/ at all.
    let input = dir.join("in");
    let root = if input.is_dir() {
        input
    } else {
        let empty = std::env::temp_dir().join("kdelta-conformance-empty");
        std::fs::create_dir_all(&empty).map_err(|e| vec![e.to_string()])?;
        empty
    };
    let snapshot = WorktreeSnapshot::new(root).map_err(|e| vec![e.to_string()])?;
    let build_dir = RepoPath::new(build_dir).map_err(|e| vec![e.to_string()])?;
    let cache = ParseCache::default();
    let target = Target::Kustomize(kdelta::kustomize::Spec { dir: build_dir });
    let options = RenderOptions {
        kustomize: options.clone(),
        ..RenderOptions::default()
    };
    let rendered = render_target(&snapshot, &target, &options, &cache);
    if !rendered.ok {
        return Err(rendered
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| {
                let file = f.file.as_deref().unwrap_or("");
                format!("{}: {} ({file})", f.rule, f.reference_text())
            })
            .collect());
    }
    rendered.to_yaml().map_err(|f| vec![f.message])
}

fn run_kustomize_case(case: &KustomizeCase) -> Outcome {
    let render = |reorder_none| {
        let options = KustomizeOptions {
            reorder_none,
            ..case.options.clone()
        };
        render_kustomize(&case.dir, &case.build_dir, &options)
    };
    match &case.expected {
        Expected::Output {
            main,
            default_order,
        } => {
            let mut checks = vec![("expected.yaml", main, case.options.reorder_none)];
            if let Some(default_order) = default_order {
                checks.push(("expected-default-order.yaml", default_order, false));
            }
            for (file, expected, reorder_none) in checks {
                match render(reorder_none) {
                    Ok(got) if got == *expected => {}
                    Ok(got) => {
                        return Outcome::Fail(format!(
                            "{file}: {}",
                            first_difference(expected, &got)
                        ))
                    }
                    Err(errors) => {
                        return Outcome::Fail(format!("render failed: {}", errors.join("; ")))
                    }
                }
            }
            Outcome::Pass
        }
        Expected::Error { phrases } => {
            check_error(render(case.options.reorder_none), phrases, &case.dir)
        }
    }
}

fn kustomize_corpus(root: &Path, corpus: &'static str) -> Results {
    let mut results = Results::new(corpus);
    let dirs = match case_dirs(&root.join(corpus)) {
        Ok(dirs) => dirs,
        Err(e) => {
            results.push(corpus, Err(e));
            return results;
        }
    };
    for dir in dirs {
        let judged = read_yaml(&dir.join("case.yaml")).and_then(|case| match skip_reason(&case) {
            Some(reason) => Ok(Outcome::Skip(reason)),
            None => read_kustomize_case(&dir, &case).map(|c| guarded(|| run_kustomize_case(&c))),
        });
        results.push(dir_name(&dir), judged);
    }
    results
}

// ---------------------------------------------------------------------------------------------
// kustomize-next: the upstream tests' expected values for v5.7/v5.8 features

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
    let found = kdelta::kustomize::pathmatch::matches(&node, path)?;
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

// ---------------------------------------------------------------------------------------------
// helm: `helm template` v3.17.3 results (no Helm engine yet)

/// One Helm case, with the corpus's expectation.
enum HelmCase {
    /// `helm template` of a chart: the whole output stream. Lines matching `masks` carry random
    /// values (compare them with the values blanked).
    Template {
        chart: PathBuf,
        release: String,
        namespace: String,
        values_files: Vec<PathBuf>,
        masks: Vec<String>,
        expected: String,
    },
    /// Which charts survive tags and conditions, with `values` (YAML text) as the user's values:
    /// sorted chart paths (`parentchart.subchart1`).
    Enabled {
        chart: PathBuf,
        values: String,
        expected: Vec<String>,
    },
    /// One value of the root chart's final `.Values` after import-values, as Go prints it
    /// (`None`: present and null).
    ImportValue {
        chart: PathBuf,
        path: String,
        expected: Option<String>,
    },
    /// `tpl` of `template` with `data` as the dot: the output, or the first line of the error.
    Probe {
        template: String,
        data: PathBuf,
        expected: Result<String, String>,
    },
}

/// A chart directory's files, as the Helm engine loads them.
fn chart_files(chart: &Path) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut files = Vec::new();
    let mut stack = vec![chart.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries =
            std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(bytes) = std::fs::read(&path) {
                let rel = path.strip_prefix(chart).unwrap_or(&path);
                files.push((rel.to_string_lossy().replace('\\', "/"), bytes));
            }
        }
    }
    Ok(files)
}

/// The chart with dependencies processed for `user` values, and its final root values.
fn processed_chart(
    chart: &Path,
    user: &str,
) -> Result<(kdelta::helm::chart::Chart, kdelta::helm::values::Table), String> {
    use kdelta::helm::{chart::Chart, deps, values};
    let mut c = Chart::from_files(chart_files(chart)?).map_err(|e| e.to_string())?;
    let user = values::table(&kdelta::template::helm_values(user)?).unwrap_or_default();
    deps::process(&mut c, &user)?;
    let vals = values::coalesce_values_for(&c, &user)?;
    Ok((c, vals))
}

/// Renders a Helm case and compares it with its expectation.
fn run_helm_case(case: &HelmCase) -> Outcome {
    match case {
        HelmCase::Probe {
            template,
            data,
            expected,
        } => run_template_probe(template, data, expected),
        HelmCase::Template {
            chart,
            release,
            namespace,
            values_files,
            masks,
            expected,
        } => run_chart_template(chart, release, namespace, values_files, masks, expected),
        HelmCase::Enabled {
            chart,
            values,
            expected,
        } => match processed_chart(chart, values) {
            Ok((c, _)) => {
                let got = kdelta::helm::deps::chart_paths(&c);
                if &got == expected {
                    Outcome::Pass
                } else {
                    Outcome::Fail(format!("charts {got:?}, expected {expected:?}"))
                }
            }
            Err(e) => Outcome::Fail(e),
        },
        HelmCase::ImportValue {
            chart,
            path,
            expected,
        } => match processed_chart(chart, "") {
            Ok((_, vals)) => {
                let (tables, key) = path.rsplit_once('.').unwrap_or(("", path));
                let table = if tables.is_empty() {
                    Some(vals)
                } else {
                    kdelta::helm::values::table_at(&vals, tables)
                };
                let got = table.and_then(|t| t.get(key).cloned()).map(|v| match v {
                    kdelta::template::Value::Nil => None,
                    v => Some(kdelta::template::sprint(&[v])),
                });
                match got {
                    Some(g) if &g == expected => Outcome::Pass,
                    other => Outcome::Fail(format!("{path}: got {other:?}, expected {expected:?}")),
                }
            }
            Err(e) => Outcome::Fail(e),
        },
    }
}

/// `helm template` of a chart directory, compared with the reference output after blanking
/// the lines the case masks (random values) on both sides.
fn run_chart_template(
    chart: &Path,
    release: &str,
    namespace: &str,
    values_files: &[PathBuf],
    masks: &[String],
    expected: &str,
) -> Outcome {
    use kdelta::helm::{chart::Chart, render};
    let files = match chart_files(chart) {
        Ok(f) => f,
        Err(e) => return Outcome::Fail(e),
    };
    let mut values = Vec::new();
    for f in values_files {
        match read_text(f).and_then(|t| kdelta::template::helm_values(&t)) {
            Ok(v) => values.push(v),
            Err(e) => return Outcome::Fail(format!("values: {e}")),
        }
    }
    let options = render::RenderOptions {
        release_name: release.to_string(),
        namespace: namespace.to_string(),
        values,
        template_stack: 192 << 20,
        ..render::RenderOptions::default()
    };
    let got = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            Chart::from_files(files)
                .map_err(|e| e.to_string())
                .and_then(|c| render::render_chart(&c, &options))
        })
        .expect("a render thread starts")
        .join()
        .unwrap_or_else(|_| Err("the render panicked".to_string()));
    let got = match got {
        Ok(out) => out,
        Err(e) => return Outcome::Fail(e),
    };
    // KDELTA_HELM_DUMP=DIR keeps kdelta's output of every chart case, to diff by hand.
    if let Some(dir) = std::env::var_os("KDELTA_HELM_DUMP") {
        let name = chart.to_string_lossy().replace(['/', '\\'], "_");
        let file = Path::new(&dir).join(format!("{name}-{}.yaml", values_files.len()));
        std::fs::write(file, &got).ok();
    }
    let masks: Vec<regex::Regex> = masks
        .iter()
        .filter_map(|m| regex::Regex::new(m).ok())
        .collect();
    let blank = |text: &str| -> String {
        text.lines()
            .map(|l| {
                if masks.iter().any(|m| m.is_match(l)) {
                    "<masked>"
                } else {
                    l
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let (got, want) = (blank(&got), blank(expected));
    if got == want {
        return Outcome::Pass;
    }
    let line = got
        .lines()
        .zip(want.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(got.lines().count().min(want.lines().count()));
    Outcome::Fail(format!(
        "differs from helm at line {}: got {:?}, want {:?}",
        line + 1,
        got.lines().nth(line).unwrap_or_default(),
        want.lines().nth(line).unwrap_or_default()
    ))
}

/// A probe as Helm's `tpl` runs it: template `gotpl`, `missingkey=zero`, `<no value>` removed,
/// the dot loaded as Helm loads values (YAML 1.1 keys, every number a float64). An error case
/// passes when the reference error ends with kdelta's error (the reference wraps it in the
/// chart's own `tpl` call).
fn run_template_probe(template: &str, data: &Path, expected: &Result<String, String>) -> Outcome {
    use kdelta::template::{Funcs, MissingKey, Options, TemplateSet};
    let dot = match read_text(data).and_then(|t| kdelta::template::helm_values(&t)) {
        Ok(d) => d,
        Err(e) => return Outcome::Fail(format!("data: {e}")),
    };
    let mut set = TemplateSet::new(
        Funcs::builtin(),
        Options {
            missing_key: MissingKey::Zero,
            ..Options::default()
        },
    );
    let got = set
        .parse("gotpl", template)
        .and_then(|()| set.execute("gotpl", &dot))
        .map(|out| out.replace("<no value>", ""))
        .map_err(|e| e.to_string());
    match (expected, &got) {
        (Ok(want), Ok(out)) if want == out => Outcome::Pass,
        (Err(want), Err(e)) if want.ends_with(e.as_str()) => Outcome::Pass,
        _ => Outcome::Fail(format!("expected {expected:?}, got {got:?}")),
    }
}

/// Case names from free text: `tags with no effect` → `tags-with-no-effect`.
fn slug(name: &str) -> String {
    name.to_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

fn helm_dependency_cases(dir: &Path, results: &mut Results) {
    let chart = dir.join("subpop");
    let dump_chart = dir.join("subpop-dump");
    for (name, chart, expected) in [
        ("template/subpop", &chart, "expected-subpop-default.yaml"),
        (
            "template/subpop-dump",
            &dump_chart,
            "expected-subpop-dump.yaml",
        ),
    ] {
        let case = read_text(&dir.join(expected)).map(|expected| HelmCase::Template {
            chart: chart.clone(),
            release: "rel".to_string(),
            namespace: "default".to_string(),
            values_files: Vec::new(),
            masks: Vec::new(),
            expected,
        });
        results.push(
            format!("dependencies/{name}"),
            case.map(|c| run_helm_case(&c)),
        );
    }
    match read_yaml(&dir.join("cases.yaml")) {
        Ok(file) => {
            let cases = field(&file, &["cases"]).and_then(Value::as_array);
            for case in cases.into_iter().flatten() {
                let Some(name) = text(case, &["name"]) else {
                    results.push("dependencies/cases.yaml", Err("a case has no name".into()));
                    continue;
                };
                let judged = match (text(case, &["values"]), field(case, &["expected"])) {
                    (Some(values), Some(Value::Array(_))) => {
                        Ok(run_helm_case(&HelmCase::Enabled {
                            chart: chart.clone(),
                            values,
                            expected: strings(case, &["expected"]),
                        }))
                    }
                    _ => Err("cases.yaml: the case has no values or no expected list".to_string()),
                };
                results.push(format!("dependencies/{}", slug(&name)), judged);
            }
        }
        Err(e) => results.push("dependencies/cases.yaml", Err(e)),
    }
    match read_yaml(&dir.join("imports.yaml")) {
        Ok(file) => {
            let values = field(&file, &["expected_root_values"]).and_then(Value::as_object);
            for (path, value) in values.into_iter().flatten() {
                let judged = match value.as_str() {
                    Some(v) => Ok(run_helm_case(&HelmCase::ImportValue {
                        chart: dump_chart.clone(),
                        path: path.clone(),
                        expected: Some(v.to_string()),
                    })),
                    None => Err(format!("imports.yaml: {path} is not a string")),
                };
                results.push(format!("dependencies/import-values/{path}"), judged);
            }
            for path in strings(&file, &["expected_root_values_present_null"]) {
                let case = HelmCase::ImportValue {
                    chart: dump_chart.clone(),
                    path: path.clone(),
                    expected: None,
                };
                results.push(
                    format!("dependencies/import-values/{path}"),
                    Ok(run_helm_case(&case)),
                );
            }
        }
        Err(e) => results.push("dependencies/imports.yaml", Err(e)),
    }
}

/// `helm template in [-f FILE]…` from a chart case's `command`.
fn template_command(command: &str, dir: &Path) -> Result<(PathBuf, Vec<PathBuf>), String> {
    let mut args = command.split_whitespace();
    if args.next() != Some("helm") || args.next() != Some("template") {
        return Err(format!("command {command:?} is not helm template"));
    }
    let (mut chart, mut values) = (None, Vec::new());
    while let Some(arg) = args.next() {
        match arg {
            "-f" | "--values" => values.push(dir.join(args.next().ok_or("-f without a file")?)),
            a if a.starts_with('-') => {
                return Err(format!("command {command:?}: unknown flag {a}"))
            }
            a if chart.is_none() => chart = Some(dir.join(a)),
            a => return Err(format!("command {command:?}: unexpected argument {a}")),
        }
    }
    let chart = chart.ok_or_else(|| format!("command {command:?} names no chart"))?;
    if let Some(missing) = std::iter::once(&chart).chain(&values).find(|p| !p.exists()) {
        return Err(format!("{} does not exist", missing.display()));
    }
    Ok((chart, values))
}

fn helm_chart_case(dir: &Path, case: &Value) -> Result<HelmCase, String> {
    let command = text(case, &["command"]).ok_or("case.yaml: a case has no command")?;
    let (chart, values_files) = template_command(&command, dir)?;
    let expected = text(case, &["expected"]).ok_or("case.yaml: a case has no expected")?;
    Ok(HelmCase::Template {
        chart,
        release: text(case, &["release_name"]).ok_or("case.yaml: no release_name")?,
        namespace: text(case, &["namespace"]).ok_or("case.yaml: no namespace")?,
        values_files,
        masks: strings(case, &["mask_line_regexes"]),
        expected: read_text(&dir.join(expected))?,
    })
}

fn helm_chart_cases(dir: &Path, results: &mut Results) {
    let dirs = match case_dirs(dir) {
        Ok(dirs) => dirs,
        Err(e) => {
            results.push("charts", Err(e));
            return;
        }
    };
    for chart_dir in dirs {
        let chart = dir_name(&chart_dir);
        let file = match read_yaml(&chart_dir.join("case.yaml")) {
            Ok(file) => file,
            Err(e) => {
                results.push(format!("charts/{chart}"), Err(e));
                continue;
            }
        };
        let cases = field(&file, &["cases"]).and_then(Value::as_array);
        if cases.is_none_or(|c| c.is_empty()) {
            results.push(format!("charts/{chart}"), Err("case.yaml: no cases".into()));
        }
        for case in cases.into_iter().flatten() {
            let Some(name) = text(case, &["name"]) else {
                results.push(format!("charts/{chart}"), Err("a case has no name".into()));
                continue;
            };
            let judged = helm_chart_case(&chart_dir, case).map(|c| run_helm_case(&c));
            results.push(format!("charts/{chart}/{name}"), judged);
        }
    }
}

fn helm_probe_cases(dir: &Path, results: &mut Results) {
    let defaults = read_text(&dir.join("expected-defaults-chart.yaml")).map(|expected| {
        run_helm_case(&HelmCase::Template {
            chart: dir.join("defaults-chart"),
            release: "release-name".to_string(),
            namespace: "default".to_string(),
            values_files: Vec::new(),
            masks: Vec::new(),
            expected,
        })
    });
    results.push("template-probes/defaults-chart", defaults);
    let json = |file: &str| -> Result<Value, String> {
        serde_json::from_str(&read_text(&dir.join(file))?).map_err(|e| format!("{file}: {e}"))
    };
    let (probes, expected) = match (json("probes.json"), json("helm_expected.json")) {
        (Ok(p), Ok(e)) => (p, e),
        (Err(e), _) | (_, Err(e)) => {
            results.push("template-probes", Err(e));
            return;
        }
    };
    for probe in probes.as_array().into_iter().flatten() {
        let (name, template) = match probe.as_array().map(Vec::as_slice) {
            Some([Value::String(n), Value::String(t)]) => (n.clone(), t.clone()),
            _ => {
                results.push(
                    "template-probes",
                    Err(format!("probes.json: bad entry {probe}")),
                );
                continue;
            }
        };
        let judged = match (
            text(&expected, &[&name, "out"]),
            text(&expected, &[&name, "error"]),
        ) {
            (Some(out), None) => Ok(Ok(out)),
            (None, Some(error)) => Ok(Err(error)),
            _ => Err("helm_expected.json has no single out or error for it".to_string()),
        }
        .map(|expected| {
            run_helm_case(&HelmCase::Probe {
                template,
                data: dir.join("data.yaml"),
                expected,
            })
        });
        results.push(format!("template-probes/{name}"), judged);
    }
}

fn helm_corpus(root: &Path) -> Results {
    let mut results = Results::new("helm");
    let helm = root.join("helm");
    helm_dependency_cases(&helm.join("dependencies"), &mut results);
    helm_chart_cases(&helm.join("charts"), &mut results);
    helm_probe_cases(&helm.join("template-probes"), &mut results);
    results
}

// ---------------------------------------------------------------------------------------------
// appset: Argo CD ApplicationSet expansion

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
        (Err(e), Some(want)) if !want.partial && e.contains(&want.contains) => Outcome::Pass,
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
