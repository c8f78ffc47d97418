//! The kustomize corpora's cases (`kustomize`, `kustomize-extra`: `kubectl kustomize` v5.5.0
//! results, one format), read, rendered with the library and judged; `render_kustomize` serves
//! kustomize-next too. A case is skipped where the reference result is unusable
//! (`oracle.ran: false`, the reference needed the network or docker; `oracle.oracle_limited`,
//! it could not run exec functions, exec or Go plugins or helm).
//!
//! An error case passes only when kdelta reports an error finding whose text holds every key
//! phrase of the case. Phrases compare as runs of adjacent lower-case words (letters and digits),
//! so quoting, punctuation and the `/` of in-memory paths do not matter; the reference's `$IN` and
//! `$CASE` placeholders (and kdelta's absolute case paths), Go pointers (`0xc000…`, `0xPTR`) and
//! Go escapes (`\n`, `\"`) are removed first. Where the phrases come from:
//!
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

use std::path::{Path, PathBuf};

use crate::harness::{
    case_dirs, dir_name, error_list, field, first_difference, guarded, read_text, read_yaml,
    strings, text, Outcome, Results,
};
use kdelta::kustomize::Options as KustomizeOptions;
use kdelta::render::{render_target, ParseCache, RenderOptions, Target};
use kdelta::source::{RepoPath, WorktreeSnapshot};
use serde_json::Value;

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
pub fn render_kustomize(
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
        return Err(error_list(&rendered.findings));
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

pub fn kustomize_corpus(root: &Path, corpus: &'static str) -> Results {
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
