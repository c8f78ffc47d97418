//! GitLab Code Quality (`--codequality FILE`): the findings as GitLab's JSON report, which a
//! merge request shows beside the diff. Each finding's fingerprint is a digest of its rule,
//! place, target and message, so it is the same on every run and GitLab can tell new issues
//! from fixed ones.

use super::{Finding, Report, Severity};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "critical",
        Severity::Warning => "major",
        Severity::Notice => "info",
    }
}

/// The report's findings as a Code Quality report, pretty-printed, ending in a newline.
pub fn to_string(report: &Report) -> String {
    let issues: Vec<Value> = report.findings.iter().map(issue).collect();
    let mut s = serde_json::to_string_pretty(&issues).expect("JSON values serialise");
    s.push('\n');
    s
}

fn issue(f: &Finding) -> Value {
    let mut h = Sha256::new();
    for part in [
        f.rule.id,
        f.file.as_deref().unwrap_or(""),
        &f.line.unwrap_or(0).to_string(),
        f.target.as_deref().unwrap_or(""),
        &f.message,
    ] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    let fingerprint: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    json!({
        "description": format!("{}{}", f.message, f.baseline_label()),
        "check_name": f.rule.id,
        "fingerprint": fingerprint,
        "severity": severity(f.severity),
        "location": {
            // GitLab needs a path; a finding without a file is about the configuration.
            "path": f.file.as_deref().unwrap_or(".kdelta.yaml"),
            "lines": {"begin": f.line.filter(|l| *l > 0).unwrap_or(1)},
        },
    })
}
