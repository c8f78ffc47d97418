//! `kdelta tree`: Helm charts' dependency trees, with pruned subcharts and why.

use super::args::{CommonArgs, Format, TreeArgs};
use super::common;
use anyhow::{bail, Result};
use kdelta::render::Target;
use kdelta::report::text::{findings_to_string, TextOptions};

pub fn run(c: &CommonArgs, args: &TreeArgs) -> Result<i32> {
    let (start, ws) = common::workspace(c)?;
    let opened = common::open(&ws, &common::revision(&args.revision))?;
    let snapshot = opened.snapshot.as_ref();
    let opts = common::pipeline_options(c)?;
    common::fetch_first(c, &[snapshot], &opts)?;
    let mut targets = Vec::new();
    if args.charts.is_empty() {
        let config = common::config(c, snapshot).unwrap_or_default();
        targets = kdelta::pipeline::list(snapshot, &config, &opts).targets;
    } else {
        for arg in &args.charts {
            let found = super::render::resolve(c, snapshot, &start, &opened.root, arg)?;
            if !found
                .iter()
                .any(|t| t.spec::<kdelta::helm::Spec>().is_some())
            {
                bail!("{arg} is not a Helm chart (no Chart.yaml)");
            }
            targets.extend(found);
        }
    }
    let specs: Vec<&kdelta::helm::Spec> = targets
        .iter()
        .filter_map(Target::spec::<kdelta::helm::Spec>)
        .collect();
    let cache = opts.parse_cache();
    let mut findings = Vec::new();
    let mut text = String::new();
    let mut json = Vec::new();
    for spec in specs {
        let files = kdelta::render::Files::new(snapshot, &cache);
        let id = kdelta::engine::Spec::id(spec);
        match kdelta::helm::target::dependency_tree(spec, &files, &opts.render.helm) {
            Ok(tree) => {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&format!("{id}\n{}", tree.to_text()));
                json.push(serde_json::json!({"target": id, "tree": tree}));
            }
            Err(f) => findings.push(f.for_target(id)),
        }
    }
    if c.format == Some(Format::Json) {
        common::write_stdout(&format!("{}\n", serde_json::to_string_pretty(&json)?));
    } else {
        common::write_stdout(&text);
    }
    if !findings.is_empty() {
        eprint!("{}", findings_to_string(&findings, TextOptions::default()));
        return Ok(super::EXIT_FINDINGS);
    }
    Ok(super::EXIT_OK)
}
