//! Conformance corpus `emitter` (DESIGN.md section 8): every expected output of the kustomize
//! and kustomize-extra corpora, parsed with the YAML 1.2 reader and re-emitted, must come out
//! byte for byte.

#[allow(dead_code)] // the shared harness, of which each corpus uses a part
#[path = "conformance/harness.rs"]
mod harness;

use std::path::Path;

use harness::{case_dirs, dir_name, first_difference, guarded, read_text, Outcome, Results};
use kdelta::yaml;

#[test]
fn conformance() {
    harness::run_corpus(emitter_round_trip);
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
