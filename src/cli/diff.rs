//! `kdelta diff [BASE [HEAD]]`: render both revisions and report what changes.

use super::args::{CommonArgs, DiffArgs, Format};
use super::common;
use anyhow::Result;
use kdelta::diff::DiffOptions;
use kdelta::discover::discover;
use kdelta::render::{render_pair, ParseCache};
use kdelta::report::text::TextOptions;
use kdelta::source::Revision;

pub fn run(c: &CommonArgs, args: &DiffArgs) -> Result<i32> {
    let (_start, ws) = common::workspace(c)?;
    let (base_rev, base_label) = match &args.base {
        Some(b) => (Revision::Commit(b.clone()), None),
        None => {
            let (branch, merge_base) = ws.default_base()?;
            (
                Revision::Commit(merge_base.to_hex()),
                Some(format!("merge-base(HEAD, {branch})")),
            )
        }
    };
    let head_rev = match (&args.head, args.staged) {
        (Some(h), _) => Revision::Commit(h.clone()),
        (None, true) => Revision::Staged,
        (None, false) => Revision::Worktree,
    };
    let mut base = common::open(&ws, &base_rev)?;
    if let Some(label) = base_label {
        base.info.rev = label;
    }
    let head = common::open(&ws, &head_rev)?;
    let mut findings = Vec::new();
    // The head's configuration decides what is rendered on both sides.
    let config = match common::config(c, head.snapshot.as_ref()) {
        Ok(cfg) => cfg,
        Err(f) => {
            findings.push(f);
            kdelta::config::Config::default()
        }
    };
    let base_found = discover(base.snapshot.as_ref(), &config);
    let head_found = discover(head.snapshot.as_ref(), &config);
    findings.extend(head_found.findings);
    let cache = ParseCache::default();
    let outcomes = render_pair(
        base.snapshot.as_ref(),
        head.snapshot.as_ref(),
        &base_found.targets,
        &head_found.targets,
        &common::render_options(c),
        &cache,
    );
    let report = kdelta::diff::pair_report(
        &outcomes,
        base.info,
        head.info,
        findings,
        &DiffOptions {
            show_secrets: c.show_secrets,
        },
    );
    common::write_report_files(c, &report)?;
    match c.format.unwrap_or(Format::Text) {
        Format::Json => print!("{}", kdelta::report::json::to_string(&report)),
        Format::Text => print!(
            "{}",
            kdelta::report::text::to_string(
                &report,
                TextOptions {
                    color: common::color(c)
                }
            )
        ),
    }
    let failed = report.has_errors() || (c.fail_on_diff && report.has_changes());
    Ok(if failed {
        super::EXIT_FINDINGS
    } else {
        super::EXIT_OK
    })
}
