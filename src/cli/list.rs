//! `kdelta list`: the discovered targets.

use super::args::{CommonArgs, Format, ListArgs};
use super::common;
use anyhow::Result;
use kdelta::report::text::{findings_to_string, TextOptions};
use std::fmt::Write;

pub fn run(c: &CommonArgs, args: &ListArgs) -> Result<i32> {
    let (_start, ws) = common::workspace(c)?;
    let opened = common::open(&ws, &common::revision(&args.revision))?;
    let config = match common::config(c, opened.snapshot.as_ref()) {
        Ok(cfg) => cfg,
        Err(f) => {
            eprint!("{}", findings_to_string(&[f], TextOptions::default()));
            return Ok(super::EXIT_FINDINGS);
        }
    };
    let opts = common::pipeline_options(c)?;
    common::fetch_first(c, &[opened.snapshot.as_ref()], &opts)?;
    let found = kdelta::pipeline::list(opened.snapshot.as_ref(), &config, &opts);
    if c.format == Some(Format::Json) {
        let items: Vec<serde_json::Value> = found
            .targets
            .iter()
            .map(|t| serde_json::json!({"id": t.id(), "kind": t.kind(), "path": t.path().to_string()}))
            .collect();
        super::common::write_stdout(&format!("{}\n", serde_json::to_string_pretty(&items)?));
    } else {
        let mut out = String::new();
        for t in &found.targets {
            let _ = writeln!(out, "{:<10} {}", t.kind(), t.id());
        }
        super::common::write_stdout(&out);
    }
    if !found.findings.is_empty() {
        eprint!(
            "{}",
            findings_to_string(&found.findings, TextOptions::default())
        );
    }
    Ok(super::EXIT_OK)
}
