//! `kdelta explain RESOURCE [TARGET_OR_PATH...]`: where a rendered object comes from.

use super::args::{CommonArgs, ExplainArgs, Format};
use super::common;
use anyhow::{bail, Result};
use kdelta::finding::Severity;
use kdelta::pipeline::{self, provenance};
use kdelta::report::text::{findings_to_string, TextOptions};

pub fn run(c: &CommonArgs, args: &ExplainArgs) -> Result<i32> {
    let (start, ws) = common::workspace(c)?;
    let opened = common::open(&ws, &common::revision(&args.revision))?;
    let snapshot = opened.snapshot.as_ref();
    let config = common::config(c, snapshot).unwrap_or_default();
    let mut opts = common::pipeline_options(c)?;
    opts.render = pipeline::with_revision_settings(
        &pipeline::with_config(&opts.render, &config),
        &config,
        snapshot,
    );
    opts.configure_store(&config);
    common::fetch_first(c, &[snapshot], &opts)?;
    let targets = if args.targets.is_empty() {
        pipeline::list(snapshot, &config, &opts).targets
    } else {
        let mut targets = Vec::new();
        for arg in &args.targets {
            targets.extend(super::render::resolve(
                c,
                snapshot,
                &start,
                &opened.root,
                arg,
            )?);
        }
        targets
    };
    let (found, failed) = provenance::explain(snapshot, &targets, &args.resource, &opts);
    // A target that could not be rendered may hold the object: say so, with why.
    for r in &failed {
        let errors: Vec<_> = r
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .cloned()
            .collect();
        eprint!("{}", findings_to_string(&errors, TextOptions::default()));
    }
    if found.is_empty() {
        bail!(
            "no rendered object matches {:?} in {} (name it as Kind/name, Kind/namespace/name, \
             or as a report does: apps/v1/Deployment/prod/web)",
            args.resource,
            snapshot.describe()
        );
    }
    let out = if c.format == Some(Format::Json) {
        let json = serde_json::json!({"schema": "kdelta/explain/v1", "objects": found});
        format!("{}\n", serde_json::to_string_pretty(&json)?)
    } else {
        kdelta::report::provenance::to_string(&found, common::color(c))
    };
    common::write_stdout(&out);
    Ok(if failed.is_empty() {
        super::EXIT_OK
    } else {
        super::EXIT_FINDINGS
    })
}
