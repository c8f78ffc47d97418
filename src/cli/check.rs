//! `kdelta check`: render every target at one revision and report findings.

use super::args::{CheckArgs, CommonArgs};
use super::common;
use anyhow::Result;
use kdelta::pipeline;
use kdelta::source::Revision;

pub fn run(c: &CommonArgs, args: &CheckArgs) -> Result<i32> {
    let (start, ws) = common::workspace(c)?;
    let mut opts = common::pipeline_options(c)?;
    opts.only = common::selected_paths(&start, ws.root(), &args.paths)?;
    let opened = common::open(&ws, &common::revision(&args.revision))?;
    let snapshot = opened.snapshot.as_ref();
    // Staged changes are checked against HEAD: what they cannot affect is as HEAD has it.
    let since = if args.revision.staged && args.revision.rev.is_none() && !args.all {
        Some(common::open(&ws, &Revision::Commit("HEAD".to_string()))?)
    } else {
        None
    };
    common::fetch_first(c, &[snapshot], &opts)?;
    let report = pipeline::check(
        pipeline::Revision {
            snapshot,
            info: opened.info,
        },
        since.as_ref().map(|s| s.snapshot.as_ref()),
        common::config(c, snapshot),
        &opts,
    );
    common::write_report_files(c, &report)?;
    common::print_report(c, &report)?;
    Ok(common::findings_exit_code(c, report.has_errors()))
}
