//! `kdelta diff [BASE [HEAD]]`: render both revisions and report what changes. The pipeline
//! ([`pair_report`]) and the output step ([`output`]) are shared with `kdelta report`.

use super::args::{CommonArgs, DiffArgs};
use super::common;
use anyhow::Result;
use kdelta::pipeline;
use kdelta::report::Report;
use kdelta::source::Revision;

/// The two revisions to compare, as named on the command line.
pub struct Comparison<'a> {
    /// The base revision; `None` means the merge-base with the default branch.
    pub base: Option<&'a str>,
    /// The head revision; `None` means the work tree (or the index with `staged`).
    pub head: Option<&'a str>,
    /// Read the head from the staged index.
    pub staged: bool,
    /// Only the targets at or under these paths (`-- PATH...`).
    pub paths: &'a [String],
    /// Render only the targets the change can affect.
    pub changed_only: bool,
}

pub fn run(c: &CommonArgs, args: &DiffArgs) -> Result<i32> {
    let report = pair_report(
        c,
        &Comparison {
            base: args.base.as_deref(),
            head: args.head.as_deref(),
            staged: args.staged,
            paths: &args.paths,
            changed_only: args.changed_only,
        },
    )?;
    output(c, &report)
}

/// Opens both revisions, discovers and renders their targets, and diffs them.
pub fn pair_report(c: &CommonArgs, cmp: &Comparison) -> Result<Report> {
    let (start, ws) = common::workspace(c)?;
    let mut opts = common::pipeline_options(c)?;
    opts.only = common::selected_paths(&start, ws.root(), cmp.paths)?;
    opts.changed_only = cmp.changed_only;
    let (base_rev, base_label) = match cmp.base {
        Some(b) => (Revision::Commit(b.to_string()), None),
        None => {
            let (branch, merge_base) = ws.default_base()?;
            (
                Revision::Commit(merge_base.to_hex()),
                Some(format!("merge-base(HEAD, {branch})")),
            )
        }
    };
    let head_rev = match (cmp.head, cmp.staged) {
        (Some(h), _) => Revision::Commit(h.to_string()),
        (None, true) => Revision::Staged,
        (None, false) => Revision::Worktree,
    };
    let mut base = common::open(&ws, &base_rev)?;
    if let Some(label) = base_label {
        base.info.rev = label;
    }
    let head = common::open(&ws, &head_rev)?;
    common::fetch_first(c, &[base.snapshot.as_ref(), head.snapshot.as_ref()], &opts)?;
    // The head's configuration decides what is rendered on both sides.
    let config = common::config(c, head.snapshot.as_ref());
    Ok(pipeline::diff(
        pipeline::Revision {
            snapshot: base.snapshot.as_ref(),
            info: base.info,
        },
        pipeline::Revision {
            snapshot: head.snapshot.as_ref(),
            info: head.info,
        },
        config,
        &kdelta::pipeline::Options {
            render: opts.render.diffing(),
            ..opts
        },
    ))
}

/// Writes the report files, prints the report and returns the exit code: 1 on error findings
/// (or on any change with `--fail-on-diff`).
pub fn output(c: &CommonArgs, report: &Report) -> Result<i32> {
    common::write_report_files(c, report)?;
    common::print_report(c, report)?;
    let failed = report.has_errors() || (c.fail_on_diff && report.has_changes());
    Ok(common::findings_exit_code(c, failed))
}
