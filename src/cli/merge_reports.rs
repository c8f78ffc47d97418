//! `kdelta merge-reports A.json B.json …`: the shards' JSON reports as one report, printed and
//! written like `diff` prints and writes its report.

use super::args::{CommonArgs, MergeReportsArgs};
use super::{common, diff};
use anyhow::{Context, Result};
use kdelta::report::{html, merge};

pub fn run(c: &CommonArgs, args: &MergeReportsArgs) -> Result<i32> {
    let mut reports = Vec::new();
    for path in &args.reports {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let report = merge::from_json(&text)
            .map_err(|e| anyhow::anyhow!("{} is not a kdelta JSON report: {e}", path.display()))?;
        reports.push(report);
    }
    let report = merge::merge(reports)?;
    if let Some(path) = &args.html {
        if let Some(page) = common::guarded("HTML", || html::to_string(&report)) {
            std::fs::write(path, page)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    diff::output(c, &report)
}
