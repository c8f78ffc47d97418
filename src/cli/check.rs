//! `kdelta check`: render every target at one revision and report findings.

use super::args::{CheckArgs, CommonArgs};
use super::common;
use anyhow::Result;
use kdelta::discover::discover;
use kdelta::render::{render_all, ParseCache};

pub fn run(c: &CommonArgs, args: &CheckArgs) -> Result<i32> {
    let (_start, ws) = common::workspace(c)?;
    let opened = common::open(&ws, &common::revision(&args.revision))?;
    let snapshot = opened.snapshot.as_ref();
    let (config, mut findings) = match common::config(c, snapshot) {
        Ok(cfg) => (cfg, Vec::new()),
        Err(f) => (kdelta::config::Config::default(), vec![f]),
    };
    let found = discover(snapshot, &config);
    findings.extend(found.findings);
    let cache = ParseCache::default();
    let mut rendered = render_all(snapshot, &found.targets, &common::render_options(c), &cache);
    if c.strict {
        rendered.iter_mut().for_each(|r| r.escalate_incomplete());
    }
    let report = kdelta::diff::single_report(&found.targets, &rendered, opened.info, findings);
    common::write_report_files(c, &report)?;
    common::print_report(c, &report)?;
    Ok(if report.has_errors() {
        super::EXIT_FINDINGS
    } else {
        super::EXIT_OK
    })
}
