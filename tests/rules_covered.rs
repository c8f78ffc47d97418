//! Every rule id is triggered by some test: a test or fixture names it (its id, or its
//! constant in a `#[cfg(test)]` module), or it is listed in `tests/rules_uncovered.txt` with
//! the reason. The list only shrinks: a listed rule that a test now names must leave it.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir` (recursively) whose name passes `keep`.
fn files(dir: &Path, keep: &dyn Fn(&Path) -> bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, keep, out);
        } else if keep(&p) {
            out.push(p);
        }
    }
}

/// `(CONSTANT, id)` of every rule in the registry.
fn registry() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(root().join("src/finding/rules.rs")).expect("rules.rs");
    text.lines()
        .filter_map(|l| {
            let (name, rest) = l.trim().split_once(" = \"")?;
            let (id, _) = rest.split_once('"')?;
            name.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                .then(|| (name.to_string(), id.to_string()))
        })
        .collect()
}

/// True when `text` holds `name` as a whole id, not as the start of a longer one (a test naming
/// `kustomize.vars.duplicate` does not name `kustomize.vars`).
fn names(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(at, _)| {
        !text[at + name.len()..]
            .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '_')
    })
}

#[test]
fn every_rule_is_triggered_by_a_test_or_listed_with_a_reason() {
    let rules = registry();
    assert!(rules.len() > 100, "the registry was not read");
    let mut texts = String::new();
    let mut found = Vec::new();
    files(
        &root().join("tests"),
        &|p| p.extension().is_some_and(|e| e == "rs"),
        &mut found,
    );
    files(
        &root().join("testdata"),
        &|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("expected"))
        },
        &mut found,
    );
    for f in &found {
        texts.push_str(&std::fs::read_to_string(f).unwrap_or_default());
    }
    // The unit tests of the library: what follows `#[cfg(test)]` in each source file.
    let mut sources = Vec::new();
    files(
        &root().join("src"),
        &|p| p.extension().is_some_and(|e| e == "rs"),
        &mut sources,
    );
    for f in &sources {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        if let Some(at) = text.find("#[cfg(test)]") {
            texts.push_str(&text[at..]);
        }
    }
    let listed_text =
        std::fs::read_to_string(root().join("tests/rules_uncovered.txt")).expect("the list");
    let listed: Vec<(&str, &str)> = listed_text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split_once(" — ").unwrap_or((l, "")))
        .collect();
    let mut problems = Vec::new();
    for (name, id) in &rules {
        let named = names(&texts, &format!("\"{id}"))
            || texts.contains(&format!("[{id}]"))
            || names(&texts, &format!("rules::{name}"));
        match listed.iter().find(|(l, _)| l.trim() == id) {
            Some((_, why)) if why.trim().is_empty() => {
                problems.push(format!("{id}: listed without a reason"))
            }
            Some(_) if named => problems.push(format!(
                "{id}: a test names it now; take it off tests/rules_uncovered.txt"
            )),
            None if !named => problems.push(format!(
                "{id}: no test triggers it; add one (or list it in tests/rules_uncovered.txt with the reason)"
            )),
            _ => {}
        }
    }
    for (id, _) in &listed {
        if !rules.iter().any(|(_, r)| r == id.trim()) {
            problems.push(format!("{id}: listed but not a rule"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
