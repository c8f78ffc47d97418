//! The JSON report (`--format json`, `--json FILE`): schema `kdelta/report/v1`, documented in
//! docs/json-report.md.

use super::Report;

/// The report as pretty-printed JSON, ending in a newline.
pub fn to_string(report: &Report) -> String {
    let mut s = serde_json::to_string_pretty(report).expect("the report model always serialises");
    s.push('\n');
    s
}
