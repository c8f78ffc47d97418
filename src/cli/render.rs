//! `kdelta render`: print rendered manifests exactly as the reference tool would (Secret values
//! redacted unless `--show-secrets`).

use super::args::{CommonArgs, RenderArgs};
use super::common;
use anyhow::{bail, Result};
use kdelta::finding::{rules, Severity};
use kdelta::pipeline::{self, ResolveError, TargetArg};
use kdelta::render::Target;
use kdelta::report::text::{findings_to_string, TextOptions};
use kdelta::source::Snapshot;

pub fn run(c: &CommonArgs, args: &RenderArgs) -> Result<i32> {
    let (mut start, mut ws) = common::workspace(c)?;
    let mut requested: Vec<String> = if args.targets.is_empty() {
        vec![".".to_string()]
    } else {
        args.targets.clone()
    };
    // `helm template` and `kubectl kustomize` render a chart or a kustomization anywhere: one
    // outside this repository (the last argument, as the chart of `render NAME CHART`) is
    // opened on its own, as its work tree. Any other path outside stays refused.
    if args.revision.rev.is_none() && !args.revision.staged {
        if let Some(last) = requested.last_mut() {
            let dir = start.join(&*last);
            let renderable =
                |d: &std::path::Path| Target::marker_files().any(|f| d.join(f).is_file());
            if TargetArg::parse_id(last).is_none()
                && renderable(&dir)
                && std::fs::canonicalize(&dir).is_ok_and(|d| !d.starts_with(ws.root()))
            {
                let dir = std::fs::canonicalize(&dir)?;
                ws = kdelta::source::Workspace::discover(&dir);
                *last = common::repo_relative(ws.root(), &dir)
                    .map(|p| p.to_string())
                    .unwrap_or_else(|_| ".".to_string());
                if last.is_empty() {
                    *last = ".".to_string();
                }
                start = ws.root().to_path_buf();
            }
        }
    }
    let opened = common::open(&ws, &common::revision(&args.revision))?;
    let snapshot = opened.snapshot.as_ref();
    let mut opts = common::pipeline_options(c)?;
    let config = common::config(c, snapshot).unwrap_or_default();
    opts.render = pipeline::with_config(&opts.render, &config).printing();
    opts.configure_store(&config);
    // `kdelta render NAME CHART`, as `helm template NAME CHART`.
    if let [name, chart] = requested.as_slice() {
        let name_is_path = resolve(c, snapshot, &start, &opened.root, name).is_ok();
        let chart_is_chart = resolve(c, snapshot, &start, &opened.root, chart)
            .is_ok_and(|t| !t.is_empty() && t.iter().all(Target::takes_release_name));
        if !name_is_path && chart_is_chart && opts.render.helm.release_name.is_none() {
            opts.render.helm.release_name = Some(name.clone());
            requested = vec![chart.clone()];
        }
    }
    let mut targets = Vec::new();
    for arg in &requested {
        targets.extend(resolve(c, snapshot, &start, &opened.root, arg)?);
    }
    if targets.is_empty() {
        bail!("nothing to render in {}", requested.join(", "));
    }
    // Argo CD's settings (argocd-cm's kustomize options, plugins): finding them walks the
    // whole revision, which only targets that read them need (a chart or a plain directory
    // does not).
    if targets.iter().any(Target::reads_revision_settings) {
        opts.render = pipeline::with_revision_settings(&opts.render, &config, snapshot);
    }
    common::fetch_first(c, &[snapshot], &opts)?;
    let mut failed = false;
    let mut out = String::new();
    let many = targets.len() > 1;
    for (i, (t, rendered)) in pipeline::render(snapshot, &targets, &opts).enumerate() {
        super::huge_pages::stop_prefaulting();
        // kustomize prints its deprecation warnings verbatim; kdelta does the same on stderr.
        let (warnings, others): (Vec<_>, Vec<_>) = rendered
            .findings
            .iter()
            .cloned()
            .partition(|f| f.rule == rules::KUSTOMIZE_DEPRECATED);
        for w in &warnings {
            eprintln!("{}", w.message);
        }
        if !others.is_empty() {
            eprint!("{}", findings_to_string(&others, TextOptions::default()));
        }
        failed |= rendered
            .findings
            .iter()
            .any(|f| f.severity == Severity::Error);
        if !rendered.ok {
            continue;
        }
        if !rendered.complete && !args.allow_incomplete {
            // `kdelta render DIR | kubectl apply -f -` must never apply a partial set.
            eprintln!(
                "kdelta: the output of {} is incomplete (see the notices above), so it is not printed; pass --allow-incomplete to print it anyway",
                t.id()
            );
            failed = true;
            continue;
        }
        let printed = kdelta::panic::catch(|| rendered.into_yaml_redacted(!c.show_secrets))
            .unwrap_or_else(|caught| {
                Err(kdelta::report::Finding::error(
                    rules::INTERNAL_PANIC,
                    format!("kdelta crashed printing {}: {caught}", t.id()),
                )
                .with_help("this is a bug in kdelta, not in your repository; please report it with this message"))
            });
        match printed {
            Ok((yaml, redacted)) => {
                if many {
                    if i > 0 {
                        out.push_str("---\n");
                    }
                    out.push_str(&format!("# kdelta target: {}\n", t.id()));
                }
                if out.is_empty() {
                    out = yaml;
                } else {
                    out.push_str(&yaml);
                }
                if redacted > 0 {
                    eprintln!(
                        "kdelta: {redacted} Secret value(s) in {} replaced by digests; pass --show-secrets to print them",
                        t.id()
                    );
                }
            }
            Err(f) => {
                eprint!("{}", findings_to_string(&[f], TextOptions::default()));
                failed = true;
            }
        }
    }
    super::common::write_stdout(&out);
    Ok(if failed {
        super::EXIT_FINDINGS
    } else {
        super::EXIT_OK
    })
}

/// Maps one argument to targets (see [`pipeline::resolve`]); paths are relative to the start
/// directory.
pub(super) fn resolve(
    c: &CommonArgs,
    snapshot: &dyn Snapshot,
    start: &std::path::Path,
    root: &std::path::Path,
    arg: &str,
) -> Result<Vec<Target>> {
    let target_arg = match TargetArg::parse_id(arg) {
        Some(id) => id,
        None => TargetArg::Path(common::arg_path(start, root, arg)?),
    };
    let config = common::config(c, snapshot).unwrap_or_default();
    let mut opts = pipeline::with_config(&common::render_options(c)?, &config);
    // Only an id may name an Application an ApplicationSet generates, which Argo CD's
    // settings shape; a path needs no walk for them.
    if matches!(target_arg, TargetArg::Id(_)) {
        opts = pipeline::with_revision_settings(&opts, &config, snapshot);
    }
    match pipeline::resolve(snapshot, &config, &target_arg, &opts) {
        Ok(found) => Ok(found),
        Err(ResolveError::NoSuchId) => {
            let rest = arg.split_once(':').map_or(arg, |(_, r)| r);
            bail!("no target {arg} (see `kdelta list`); {rest} not found")
        }
        Err(ResolveError::NotAManifest) => bail!(
            "{arg} is a file but not an Argo CD or Flux manifest; pass its directory to render the manifests in it"
        ),
        Err(ResolveError::Missing) => bail!(
            "{arg}: no such file or directory in {}",
            snapshot.describe()
        ),
    }
}
