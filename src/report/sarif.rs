//! SARIF 2.1.0 (`--sarif FILE`): every finding as a result with its rule (id, summary, help
//! pointing at docs/rules.md), level and physical location, for GitHub code scanning and
//! other SARIF viewers.

use super::{Finding, Report, Severity, Side};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The level SARIF names a severity by.
fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Notice => "note",
    }
}

/// The report's findings as one SARIF log, pretty-printed, ending in a newline.
pub fn to_string(report: &Report) -> String {
    // The rules the findings use, in id order, each with its index.
    let mut rules: BTreeMap<&str, &crate::finding::Rule> = BTreeMap::new();
    for f in &report.findings {
        rules.entry(f.rule.id).or_insert(&f.rule);
    }
    let index: BTreeMap<&str, usize> = rules.keys().enumerate().map(|(i, id)| (*id, i)).collect();
    let descriptors: Vec<Value> = rules
        .values()
        .map(|r| {
            json!({
                "id": r.id,
                "shortDescription": {"text": r.summary},
                "help": {
                    "text": format!("See docs/rules.md, rule {}.", r.id),
                    "markdown": format!("See [`{}`](docs/rules.md) in docs/rules.md.", r.id),
                },
                "defaultConfiguration": {"level": level(r.severity)},
            })
        })
        .collect();
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|f| result(f, index[f.rule.id]))
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "kdelta",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": descriptors,
            }},
            // Paths are relative to the repository root.
            "originalUriBaseIds": {"SRCROOT": {"description": {"text": "the repository root"}}},
            "results": results,
        }]
    });
    let mut s = serde_json::to_string_pretty(&log).expect("JSON values serialise");
    s.push('\n');
    s
}

/// The message, then its context and help as `note:` and `help:` lines.
fn message_text(f: &Finding) -> String {
    let mut text = f.message.clone();
    for c in &f.context {
        text.push_str(&format!("\nnote: {c}"));
    }
    if let Some(h) = &f.help {
        text.push_str(&format!("\nhelp: {h}"));
    }
    text
}

fn result(f: &Finding, rule_index: usize) -> Value {
    let mut r = json!({
        "ruleId": f.rule.id,
        "ruleIndex": rule_index,
        "level": level(f.severity),
        "message": {"text": message_text(f)},
    });
    if let Some(file) = &f.file {
        let mut physical = json!({"artifactLocation": {"uri": uri(file), "uriBaseId": "SRCROOT"}});
        if let Some(line) = f.line.filter(|l| *l > 0) {
            let mut region = json!({"startLine": line});
            if let Some(col) = f.column.filter(|c| *c > 0) {
                region["startColumn"] = json!(col);
            }
            physical["region"] = region;
        }
        r["locations"] = json!([{"physicalLocation": physical}]);
    }
    let mut props = serde_json::Map::new();
    if let Some(t) = &f.target {
        props.insert("target".into(), json!(t));
    }
    if f.revision == Some(Side::Base) {
        props.insert("revision".into(), json!("base"));
    }
    // SARIF's own words for a finding against a baseline.
    if let Some(b) = f.baseline {
        r["baselineState"] = json!(match b {
            super::Baseline::New => "new",
            super::Baseline::Existing => "unchanged",
            super::Baseline::Fixed => "absent",
        });
    }
    if f.is_incomplete() {
        props.insert("incomplete".into(), json!(true));
    }
    if !props.is_empty() {
        r["properties"] = Value::Object(props);
    }
    r
}

/// A repository path as a relative URI reference (`%`-encoding what a URI cannot hold).
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}
