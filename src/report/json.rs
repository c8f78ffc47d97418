//! The JSON report (`--format json`, `--json FILE`): schema `kdelta/report/v1`, documented in
//! docs/json-report.md: the report, then the changes found in several targets and the image
//! changes (`groups`, `images`; present when not empty).

use super::overview::{ChangeGroup, ImageChange, Overview};
use super::Report;
use serde::Serialize;

#[derive(Serialize)]
struct WithOverview<'a> {
    #[serde(flatten)]
    report: &'a Report,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    groups: &'a [ChangeGroup],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    images: &'a [ImageChange],
}

/// The report as pretty-printed JSON, ending in a newline.
pub fn to_string(report: &Report) -> String {
    let overview = Overview::of(report);
    let doc = WithOverview {
        report,
        groups: &overview.groups,
        images: &overview.images,
    };
    let mut s = serde_json::to_string_pretty(&doc).expect("the report model always serialises");
    s.push('\n');
    s
}
