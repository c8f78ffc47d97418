//! `kdelta report BASE [HEAD] --html FILE`: the `diff` pipeline, written as a self-contained
//! HTML audit report; stdout, the other report files and the exit code are as for `diff`.

use super::args::{CommonArgs, ReportArgs};
use super::common;
use super::diff::{self, Comparison};
use anyhow::{Context, Result};
use kdelta::report::html;

pub fn run(c: &CommonArgs, args: &ReportArgs) -> Result<i32> {
    let report = diff::pair_report(
        c,
        &Comparison {
            base: Some(&args.base),
            head: args.head.as_deref(),
            staged: args.staged,
            paths: &args.paths,
            changed_only: args.changed_only,
        },
    )?;
    if let Some(page) = common::guarded("HTML", || html::to_string(&report)) {
        std::fs::write(&args.html, page)
            .with_context(|| format!("cannot write {}", args.html.display()))?;
        eprintln!("kdelta: wrote the HTML report to {}", args.html.display());
    }
    diff::output(c, &report)
}
