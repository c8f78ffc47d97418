//! One Helm target rendered from a snapshot: the chart directory read through [`Files`] (so
//! the cache knows every input), `helm template` run on it, Helm's errors turned into findings
//! at the file and line they name, and its output read back into resources.

use super::chart::{Chart, LoadError};
use super::render::{self, ErrorKind, RenderError, RenderOptions};
use super::tree::{self, State};
use super::{Details, Options, Spec};
use crate::engine::EngineOutput;
use crate::fetch::{ChartRequest, FetchedChart, Unavailable};
use crate::finding::{rules, Finding, Incomplete, Rule};
use crate::resource::{Origin, Resource};
use crate::source::{source_finding, Contents, EntryKind, Files, RepoPath};
use crate::yaml::{self, FileId, ParseOptions, Span};
use std::collections::HashMap;

/// Renders `spec` as `helm template` does with `opts`.
pub fn render(spec: &Spec, files: &Files, opts: &Options) -> EngineOutput<Details> {
    let (chart, cached) = match load_with_cache(files, &spec.chart, opts, true) {
        Ok(c) => c,
        Err(f) => return EngineOutput::failed(vec![f]),
    };
    render_loaded(spec, chart, cached, files, opts)
}

/// Renders a chart fetched from a Helm repository (it is not in the snapshot) as `helm
/// template` does: `at` is the file that names the chart (an Argo CD Application), where its
/// findings and resources point; `spec.chart` is that file's directory.
pub fn render_fetched(
    spec: &Spec,
    fetched: &FetchedChart,
    at: &RepoPath,
    files: &Files,
    opts: &Options,
) -> EngineOutput<Details> {
    let chart = match Chart::archive_files(&fetched.bytes).and_then(load_fetched) {
        Ok(c) => c,
        Err(e) => return EngineOutput::failed(vec![archive_error(fetched, &e, at)]),
    };
    render_outside(spec, chart, at, files, opts)
}

/// Loads a fetched chart from its archive's files ([`Chart::archive_files`], which a caller
/// may have changed) to render it: its own templates are parsed ahead on idle cores while it
/// loads ([`render::parse_ahead`]).
pub fn load_fetched(files: Vec<(String, Vec<u8>)>) -> Result<Chart, LoadError> {
    let files: Vec<(String, Contents)> = files
        .into_iter()
        .map(|(path, data)| (path, Contents::Read(data.into())))
        .collect();
    render::parse_ahead(&files);
    Chart::load(files)
}

/// Renders a chart that is not in the snapshot, already loaded (a fetched archive whose files
/// the caller changed, as Flux's source-controller replaces `values.yaml` by a HelmRelease's
/// `valuesFiles`); findings and resources point at `at`, the file that names it.
pub fn render_outside(
    spec: &Spec,
    chart: Chart,
    at: &RepoPath,
    files: &Files,
    opts: &Options,
) -> EngineOutput<Details> {
    let mut out = render_loaded(spec, chart, Vec::new(), files, opts);
    anchor_at(&mut out.findings, at);
    for r in &mut out.resources {
        r.origin.file = at.clone();
    }
    out
}

/// The finding for a fetched archive that does not load as a chart.
fn archive_error(fetched: &FetchedChart, e: &super::chart::LoadError, at: &RepoPath) -> Finding {
    Finding::error(
        rules::FETCH_FAILED,
        format!("{}: the chart archive cannot be loaded: {e}", fetched.url),
    )
    .in_file(at.to_string())
    .incomplete(Incomplete::FetchFailed)
}

/// Findings about a chart that is not in the repository point at the file that names it
/// (their message names the template).
fn anchor_at(findings: &mut [Finding], at: &RepoPath) {
    for f in findings {
        f.file = Some(at.to_string());
        f.line = None;
        f.column = None;
    }
}

fn render_loaded(
    spec: &Spec,
    mut chart: Chart,
    mut cached: Vec<Finding>,
    files: &Files,
    opts: &Options,
) -> EngineOutput<Details> {
    let schema_notices = attach_schema_documents(&mut chart, files, &spec.chart, opts);
    let options = match render_options(spec, files, opts) {
        Ok(o) => for_chart(o, &chart),
        Err(f) => return EngineOutput::failed(vec![f]),
    };
    let located = Locator {
        files,
        chart_dir: &spec.chart,
    };
    // Fields printed from the values are placed at the values files' lines.
    let values_at = options.positions.then(|| ValuesAt::new(spec, files, opts));
    let values_files = values_at
        .as_ref()
        .map(|v| v as &dyn super::origin::ValuesFiles);
    let mut first = match render::render_with(&chart, &options, values_files) {
        Ok(r) => r,
        Err(e) => {
            if let Some(mut notices) = located.failed_without_missing(&chart, &e) {
                let tree = located.tree(&chart, &[], &[]);
                let mut findings = cached;
                findings.extend(SchemaNotice::kept(schema_notices, &[]));
                findings.append(&mut notices);
                let out = EngineOutput::new(Vec::new(), findings, true);
                return out.map_details(|()| Details {
                    tree: Some(Box::new(tree)),
                    ..Details::default()
                });
            }
            return EngineOutput::failed(vec![located.error(&chart, &e, spec)]);
        }
    };
    let tree = located.tree(&chart, &first.pruned, &first.non_bool);
    cached.extend(SchemaNotice::kept(schema_notices, &first.pruned));
    let mut findings = cached;
    findings.extend(tree_findings(&tree, &located));
    findings.extend(skipped_hook_findings(
        &first.skipped_hooks,
        &chart,
        &located,
    ));
    let (resources, parse_findings) = located.resources(&mut first, &tree, &options);
    findings.extend(parse_findings);
    // A second render says which values the non-deterministic functions regenerate; the diff
    // shows those as such, not as changes.
    let rerender = if first.nondeterministic.is_empty() || !opts.detect_regenerated {
        Vec::new()
    } else {
        crate::template::probe(|| render::render_with(&chart, &options, values_files))
            .map(|mut again| located.resources(&mut again, &tree, &options).0)
            .unwrap_or_default()
    };
    let mut out = EngineOutput::new(resources, findings, true);
    out.printed = Some(first.output);
    out.map_details(|()| Details {
        tree: Some(Box::new(tree)),
        nondeterministic: first.nondeterministic,
        rerender,
        values_files: first.values_files,
    })
}

/// `helm template` of the chart in `dir` with `opts`, as kustomize's `helmCharts` run it: its
/// stdout and the notices about its subcharts (pruned, missing), or the error as a finding.
pub fn template(
    files: &Files,
    dir: &RepoPath,
    opts: &Options,
) -> Result<(String, Vec<Finding>), Finding> {
    let spec = Spec::chart(dir.clone());
    let (mut chart, mut notices) = load_with_cache(files, dir, opts, true)?;
    let schema_notices = attach_schema_documents(&mut chart, files, dir, opts);
    let options = text_only(for_chart(render_options(&spec, files, opts)?, &chart));
    let located = Locator {
        files,
        chart_dir: dir,
    };
    let rendered = match render::render(&chart, &options) {
        Ok(r) => r,
        Err(e) => match located.failed_without_missing(&chart, &e) {
            Some(more) => {
                notices.extend(SchemaNotice::kept(schema_notices, &[]));
                notices.extend(more);
                return Ok((String::new(), notices));
            }
            None => return Err(located.error(&chart, &e, &spec)),
        },
    };
    let tree = located.tree(&chart, &rendered.pruned, &rendered.non_bool);
    notices.extend(SchemaNotice::kept(schema_notices, &rendered.pruned));
    notices.extend(tree_findings(&tree, &located));
    notices.extend(skipped_hook_findings(
        &rendered.skipped_hooks,
        &chart,
        &located,
    ));
    Ok((rendered.output, notices))
}

/// [`template`] of a chart fetched from a Helm repository, for kustomize's `helmCharts`:
/// findings point at `at`, the kustomization.
pub fn template_fetched(
    files: &Files,
    fetched: &FetchedChart,
    at: &RepoPath,
    opts: &Options,
) -> Result<(String, Vec<Finding>), Finding> {
    let mut chart = Chart::archive_files(&fetched.bytes)
        .and_then(load_fetched)
        .map_err(|e| archive_error(fetched, &e, at))?;
    let dir = at.parent();
    let spec = Spec::chart(dir.clone());
    let schema_notices = attach_schema_documents(&mut chart, files, &dir, opts);
    let options = text_only(for_chart(render_options(&spec, files, opts)?, &chart));
    let located = Locator {
        files,
        chart_dir: &dir,
    };
    let rendered = match render::render(&chart, &options) {
        Ok(r) => r,
        Err(e) => {
            if let Some(more) = located.failed_without_missing(&chart, &e) {
                let mut notices: Vec<Finding> = SchemaNotice::kept(schema_notices, &[]).collect();
                notices.extend(more);
                anchor_at(&mut notices, at);
                return Ok((String::new(), notices));
            }
            let mut f = [located.error(&chart, &e, &spec)];
            anchor_at(&mut f, at);
            let [f] = f;
            return Err(f);
        }
    };
    let tree = located.tree(&chart, &rendered.pruned, &rendered.non_bool);
    let mut notices: Vec<Finding> = SchemaNotice::kept(schema_notices, &rendered.pruned).collect();
    notices.extend(tree_findings(&tree, &located));
    notices.extend(skipped_hook_findings(
        &rendered.skipped_hooks,
        &chart,
        &located,
    ));
    anchor_at(&mut notices, at);
    Ok((rendered.output, notices))
}

/// `options` for a render whose printed output is all that is used (kustomize reads it
/// again): its documents are read for their heads only.
fn text_only(options: RenderOptions) -> RenderOptions {
    RenderOptions {
        objects: false,
        ..options
    }
}

/// Keeps on each chart of the tree the documents at http(s) URLs its `values.schema.json`
/// references (directly or through one another), from the fetch store: the fetch step
/// downloads them, a render reads them from the cache. A chart whose schema names one the
/// store cannot give is not checked (Helm would fetch it): a notice when it is not fetched,
/// an error when the fetch failed, and either way the render is incomplete — unless the
/// values prune that chart, whose schema Helm does not check (see [`SchemaNotice::kept`]).
fn attach_schema_documents(
    chart: &mut Chart,
    files: &Files,
    dir: &RepoPath,
    opts: &Options,
) -> Vec<SchemaNotice> {
    let mut notices = Vec::new();
    if !opts.skip_schema_validation {
        let path = chart.name.clone();
        attach_below(chart, files, dir, Some(&path), &mut notices);
    }
    notices
}

/// A finding about a chart's schema documents, with the chart's path (`top.sub`, by the
/// names its charts were loaded under) when dependency processing names it so.
struct SchemaNotice {
    path: Option<String>,
    finding: Finding,
}

impl SchemaNotice {
    /// The findings about the charts dependency processing kept: not those of a pruned
    /// chart or of a chart below one. A chart its parent also takes under an alias (where
    /// the pruned path names the alias) keeps its finding.
    fn kept(
        notices: Vec<SchemaNotice>,
        pruned: &[super::deps::Pruned],
    ) -> impl Iterator<Item = Finding> + '_ {
        notices
            .into_iter()
            .filter(move |n| {
                !n.path.as_deref().is_some_and(|path| {
                    pruned.iter().any(|p| {
                        path == p.path
                            || path
                                .strip_prefix(p.path.as_str())
                                .is_some_and(|rest| rest.starts_with('.'))
                    })
                })
            })
            .map(|n| n.finding)
    }
}

/// [`attach_schema_documents`] of `chart` (at `path`, when pruning names it so) and below.
fn attach_below(
    chart: &mut Chart,
    files: &Files,
    dir: &RepoPath,
    path: Option<&str>,
    notices: &mut Vec<SchemaNotice>,
) {
    for i in 0..chart.dependencies.len() {
        let name = chart.dependencies[i].name.clone();
        let aliased = chart
            .requirements
            .iter()
            .any(|r| r.name == name && !r.alias.is_empty());
        let sub_path = path.filter(|_| !aliased).map(|p| format!("{p}.{name}"));
        attach_below(
            &mut chart.dependencies[i],
            files,
            dir,
            sub_path.as_deref(),
            notices,
        );
    }
    let Some(text) = chart.schema.as_ref().filter(|t| names_url(t)) else {
        return;
    };
    let (documents, missing) = super::schema::remote_documents(text, |url| {
        files
            .remote_file(url)
            .map(|body| std::sync::Arc::from(String::from_utf8_lossy(&body)))
    });
    chart.schema_documents = documents;
    let Some((url, why)) = missing else {
        return;
    };
    let file = schema_file(dir, &chart.source);
    let unchecked = format!("{}'s values are not checked against its schema", chart.name);
    let incomplete = why.incomplete();
    let finding = match why {
        Unavailable::NotCached(_) => Finding::notice(
            rules::HELM_SCHEMA_NOT_FETCHED,
            format!(
                "values.schema.json references {}, which is not fetched; {unchecked}",
                crate::fetch::url::redact_text(&url)
            ),
        )
        .with_help("run `kdelta fetch` (or pass --fetch) to download it, as helm would"),
        Unavailable::Failed(e) => Finding::error(
            rules::FETCH_FAILED,
            format!(
                "values.schema.json references {}: {e}; {unchecked}",
                crate::fetch::url::redact_text(&url)
            ),
        ),
    };
    notices.push(SchemaNotice {
        path: path.map(str::to_string),
        finding: finding.in_file(file).incomplete(incomplete),
    });
    chart.schema = None;
    chart.schema_documents.clear();
}

/// Whether a schema's text may reference a document at a URL: a `$ref`, `$id` or `id` whose
/// value is an http(s) URL (the `$schema` of nearly every schema does not count). Only such
/// a schema is compiled to find the documents it needs.
fn names_url(schema: &str) -> bool {
    let bytes = schema.as_bytes();
    memchr::memmem::find_iter(bytes, b"://").any(|at| {
        // Back over the URL's scheme to the opening quote, then the key before the colon.
        let before = &schema[..at];
        let Some(quote) = before.rfind('"') else {
            return false;
        };
        let scheme = &before[quote + 1..];
        if scheme != "http" && scheme != "https" {
            return false;
        }
        let key = before[..quote].trim_end();
        let Some(key) = key.strip_suffix(':') else {
            return false;
        };
        let key = key.trim_end();
        ["\"$ref\"", "\"$id\"", "\"id\""]
            .iter()
            .any(|k| key.ends_with(k))
    })
}

/// The `values.schema.json` of the chart at `source` below `dir`, or the archive that holds
/// it for a packed subchart (`charts/sub-1.0.0.tgz`, and the charts packed inside it).
fn schema_file(dir: &RepoPath, source: &str) -> String {
    if let Some(end) = source.find(".tgz") {
        let archive = &source[..end + ".tgz".len()];
        return dir
            .join(archive)
            .unwrap_or_else(|_| dir.clone())
            .to_string();
    }
    if source.is_empty() {
        return dir.child("values.schema.json").to_string();
    }
    dir.join(source)
        .map(|d| d.child("values.schema.json"))
        .unwrap_or_else(|_| dir.child("values.schema.json"))
        .to_string()
}

/// The dependency tree of `spec` with `opts`' values (what `kdelta tree` prints), without
/// rendering the templates.
pub fn dependency_tree(spec: &Spec, files: &Files, opts: &Options) -> Result<tree::Node, Finding> {
    let (chart, _) = load_with_cache(files, &spec.chart, opts, false)?;
    let options = render_options(spec, files, opts)?;
    let values_error = |e: &dyn std::fmt::Display| {
        Finding::error(rules::HELM_VALUES, e.to_string())
            .in_file(spec.chart.child("Chart.yaml").to_string())
    };
    let user = render::user_values(&options).map_err(|e| values_error(&e))?;
    let mut processed = chart.clone();
    let decided = super::deps::process(&mut processed, &user).map_err(|e| values_error(&e))?;
    Ok(tree::build(&chart, &decided.pruned, &decided.non_bool))
}

/// The chart in `dir`, with the top chart's dependencies that `charts/` lacks taken from this
/// repository (`file://` entries) or from Helm's repository cache where it holds a version the
/// entry accepts (the highest; a notice names each one taken). `parse_ahead`: the chart is
/// about to be rendered ([`load`]).
fn load_with_cache(
    files: &Files,
    dir: &RepoPath,
    opts: &Options,
    parse_ahead: bool,
) -> Result<(Chart, Vec<Finding>), Finding> {
    let mut chart = load(files, dir, parse_ahead)?;
    let compatible = |constraint: &str, version: &str| {
        crate::template::semver_satisfies(constraint, version).unwrap_or(false)
    };
    let mut notices = Vec::new();
    let mut lock: Option<Option<super::lock::Lock>> = None;
    let mut lock_reported = false;
    for r in chart.requirements.clone() {
        // Helm takes a chart of the entry's name from `charts/` whatever its version (the tree
        // warns when the version is outside the constraint).
        if chart.dependencies.iter().any(|c| c.name == r.name) {
            continue;
        }
        // `repository: file://../common`: the chart is in this repository; `helm dependency
        // build` would package it into charts/ as it is.
        if let Some(rel) = r.repository.strip_prefix("file://") {
            let Ok(dep_dir) = dir.join(rel) else { continue };
            if files.kind(&dep_dir) != EntryKind::Dir {
                continue;
            }
            let mut dep = load(files, &dep_dir, false)?;
            if dep.name == r.name && compatible(&r.version, &dep.version()) {
                dep.set_source(&dep_dir.relative_to(dir));
                chart.dependencies.push(dep);
            }
            continue;
        }
        if crate::fetch::is_chart_repository(&r.repository) {
            let chart_yaml = dir.child(chart.requirements_file);
            let located = Locator {
                files,
                chart_dir: dir,
            };
            let index = r.index.saturating_sub(1).to_string();
            let line = located
                .span(chart_yaml.as_str(), &["dependencies", &index])
                .line;
            // `helm dependency build`: the locked version, unless the lock is out of sync.
            let lock = lock.get_or_insert_with(|| {
                super::lock::Lock::read(files, dir, chart.requirements_file)
            });
            let version = match lock {
                Some(l) if l.in_sync == Some(false) => {
                    if !lock_reported {
                        lock_reported = true;
                        notices.push(out_of_sync(l, dir, chart.requirements_file));
                    }
                    r.version.clone()
                }
                Some(l) => l
                    .version_of(&r.name, &r.repository)
                    .map_or_else(|| r.version.clone(), String::from),
                None => r.version.clone(),
            };
            let request = ChartRequest {
                repo: r.repository.clone(),
                name: r.name.clone(),
                version,
                oci: crate::fetch::OciVersion::Helm,
            };
            match files.helm_chart(&request) {
                Ok(fetched) => {
                    let mut dep = Chart::from_archive(&fetched.bytes).map_err(|e| {
                        archive_error(&fetched, &e, &chart_yaml).at(chart_yaml.to_string(), line, 0)
                    })?;
                    dep.source = format!("charts/{}-{}.tgz", r.name, fetched.version);
                    chart.dependencies.push(dep);
                    notices.extend(fetched.warnings.iter().map(|(rule, w)| {
                        Finding::warning(*rule, w.clone()).at(chart_yaml.to_string(), line, 0)
                    }));
                    continue;
                }
                Err(Unavailable::Failed(e)) => {
                    notices.push(
                        Finding::error(rules::FETCH_FAILED, format!("dependency {}: {e}", r.name))
                            .at(chart_yaml.to_string(), line, 0)
                            .incomplete(Incomplete::FetchFailed),
                    );
                    continue;
                }
                // Not fetched: Helm's own cache may have it.
                Err(Unavailable::NotCached(_)) => {}
            }
        }
        let Some(cache) = &opts.repository_cache else {
            continue;
        };
        let best = crate::fetch::helm_cache::archives(cache, &r.name)
            .into_iter()
            .filter(|(v, _)| compatible(&r.version, v))
            .reduce(|a, b| {
                if compatible(&format!(">{}", a.0), &b.0) {
                    b
                } else {
                    a
                }
            });
        let Some((version, path)) = best else {
            continue;
        };
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        let loaded = files
            .helm_cache_archive(&path)
            .map_err(|e| e.to_string())
            .and_then(|bytes| Chart::from_archive(&bytes).map_err(|e| e.to_string()));
        let chart_yaml = dir.child(chart.requirements_file).to_string();
        match loaded {
            Ok(mut dep) => {
                dep.source = format!("charts/{file}");
                chart.dependencies.push(dep);
                notices.push(
                    Finding::notice(
                        rules::HELM_DEPENDENCY_FROM_CACHE,
                        format!(
                            "dependency {} {version} is not in charts/; it was taken from Helm's repository cache ({})",
                            r.name,
                            path.display()
                        ),
                    )
                    .with_help("vendor it with `helm dependency build` so that every machine renders the same chart")
                    .in_file(chart_yaml),
                );
            }
            Err(e) => notices.push(
                Finding::warning(
                    rules::HELM_DEPENDENCY_FROM_CACHE,
                    format!(
                        "{} in Helm's repository cache cannot be read: {e}",
                        path.display()
                    ),
                )
                .in_file(chart_yaml),
            ),
        }
    }
    Ok((chart, notices))
}

/// Helm's refusal of a lock that does not match the dependencies file, at the lock file.
fn out_of_sync(lock: &super::lock::Lock, dir: &RepoPath, deps_file: &str) -> Finding {
    Finding::error(
        rules::HELM_LOCK_OUT_OF_SYNC,
        format!(
            "the lock file ({}) is out of sync with the dependencies file ({deps_file}). Please update the dependencies",
            lock.file
        ),
    )
    .with_help("run `helm dependency update` and commit the new lock file; kdelta rendered the versions the constraints pick")
    .in_file(dir.child(lock.file).to_string())
}

/// Reads the chart directory (as Helm's `LoadDir`: `.helmignore`d paths skipped, whole
/// directories at once) and loads it; for a chart about to be rendered, its templates are
/// parsed ahead on idle cores while it loads ([`render::parse_ahead`]).
pub fn load(files: &Files, dir: &RepoPath, parse_ahead: bool) -> Result<Chart, Finding> {
    let ignore_file = dir.child(".helmignore");
    let rules = match files.kind(&ignore_file) {
        EntryKind::File => {
            let bytes = files
                .read(&ignore_file)
                .map_err(|e| source_finding(&e, &ignore_file))?;
            super::ignore::Rules::parse(&String::from_utf8_lossy(&bytes))
        }
        _ => super::ignore::Rules::parse(""),
    };
    // The walk names the files in Helm's order; they are read on every core (each read is a
    // copy from the page cache and a hash), and the first failure in walk order is reported.
    let steps = walk(files, &rules, dir.clone(), String::new(), 0);
    let loaded: Vec<(String, Contents)> = {
        use rayon::prelude::*;
        steps
            .into_par_iter()
            .map(|step| match step {
                Step::Read(child, rel) => {
                    let contents = if Chart::reads_at_load(&rel) {
                        files.read(&child).map(Contents::Read)
                    } else {
                        files.read_later(&child)
                    };
                    contents
                        .map(|c| (rel, c))
                        .map_err(|e| source_finding(&e, &child))
                }
                Step::Fail(finding) => Err(finding),
            })
            .collect::<Vec<_>>()
            .into_iter()
            .collect::<Result<_, _>>()?
    };
    if parse_ahead {
        render::parse_ahead(&loaded);
    }
    Chart::from_walked_files(loaded).map_err(|e| {
        let (file, line) = load_error_location(&e);
        let file = dir.join(&file).unwrap_or_else(|_| dir.child("Chart.yaml"));
        Finding::error(rules::HELM_CHART_INVALID, e.to_string()).at(file.to_string(), line, 0)
    })
}

/// One step of a chart directory's walk: a file to read (its path, and relative to the
/// chart), or why the walk stops.
enum Step {
    Read(RepoPath, String),
    Fail(Finding),
}

/// An entry of a listed directory: a step, or a subdirectory to walk.
enum Entry {
    Step(Step),
    Dir(RepoPath, String),
}

/// Directories this far below the chart's are walked on every core (the chart's own
/// `templates/`, `charts/`, and each subchart's); deeper ones each on one, without recursion.
const PARALLEL_DEPTH: usize = 3;

/// The steps of the walk of `path` (`rel` below the chart) in Helm's order (`filepath.Walk`:
/// lexical, each directory's entries where its name falls), ending at the first failure.
fn walk(
    files: &Files,
    rules: &super::ignore::Rules,
    path: RepoPath,
    rel: String,
    depth: usize,
) -> Vec<Step> {
    if depth >= PARALLEL_DEPTH {
        return walk_below(files, rules, path, rel);
    }
    use rayon::prelude::*;
    let parts: Vec<Vec<Step>> = list(files, rules, &path, &rel)
        .into_par_iter()
        .map(|entry| match entry {
            Entry::Step(step) => vec![step],
            Entry::Dir(path, rel) => walk(files, rules, path, rel, depth + 1),
        })
        .collect();
    let mut steps = Vec::new();
    for part in parts {
        let failed = matches!(part.last(), Some(Step::Fail(_)));
        steps.extend(part);
        if failed {
            break;
        }
    }
    steps
}

/// [`walk`] on one core, with a stack instead of recursion (a directory tree may be deep).
fn walk_below(
    files: &Files,
    rules: &super::ignore::Rules,
    path: RepoPath,
    rel: String,
) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut stack = vec![Entry::Dir(path, rel)];
    while let Some(entry) = stack.pop() {
        match entry {
            Entry::Step(step) => {
                let failed = matches!(step, Step::Fail(_));
                steps.push(step);
                if failed {
                    break;
                }
            }
            Entry::Dir(path, rel) => {
                stack.extend(list(files, rules, &path, &rel).into_iter().rev())
            }
        }
    }
    steps
}

/// The entries of `path` (`rel` below the chart) in name order, those the ignore rules keep,
/// up to the first that fails (a listing that fails is that failure).
fn list(files: &Files, rules: &super::ignore::Rules, path: &RepoPath, rel: &str) -> Vec<Entry> {
    let entries = match files.list(path) {
        Ok(entries) => entries,
        Err(e) => return vec![Entry::Step(Step::Fail(source_finding(&e, path)))],
    };
    let mut out = Vec::new();
    for e in entries {
        let child = path.child(&e.name);
        let child_rel = if rel.is_empty() {
            e.name.clone()
        } else {
            format!("{rel}/{}", e.name)
        };
        let kind = match e.kind {
            EntryKind::Symlink => files.kind(&child),
            k => k,
        };
        match kind {
            EntryKind::Dir if !rules.ignores(&child_rel, true) => {
                out.push(Entry::Dir(child, child_rel))
            }
            EntryKind::File if !rules.ignores(&child_rel, false) => {
                out.push(Entry::Step(Step::Read(child, child_rel)))
            }
            EntryKind::Missing => {
                // A dangling or escaping link: Helm's walk resolves every link before its
                // ignore rules, so it fails on one `.helmignore` names too.
                let finding = match files.why_missing(&child) {
                    Some(err) => source_finding(&err, &child),
                    None => Finding::error(
                        rules::SOURCE_NOT_FOUND,
                        "error evaluating symlink: it points to nothing (helm fails on a \
                         dangling link in a chart, even one .helmignore names)",
                    )
                    .in_file(child.to_string()),
                };
                out.push(Entry::Step(Step::Fail(finding)));
                break;
            }
            _ => {}
        }
    }
    out
}

/// The file (relative to the chart) and line a load error is about: a subchart's own file for
/// an unpacked subchart, the archive for a packed one.
fn load_error_location(e: &super::chart::LoadError) -> (String, u32) {
    use super::chart::LoadError as E;
    match e {
        E::Yaml { file, error } => (file.to_string(), error.line.unwrap_or(0)),
        E::Subchart { entry, error, .. } => {
            let (file, line) = load_error_location(error);
            if entry.ends_with(".tgz") || file.is_empty() {
                (format!("charts/{entry}"), 0)
            } else {
                (format!("charts/{entry}/{file}"), line)
            }
        }
        other => (other.file().unwrap_or_default().to_string(), 0),
    }
}

/// The `helm template` options of a target: the command line's, then the target's values set.
fn render_options(spec: &Spec, files: &Files, opts: &Options) -> Result<RenderOptions, Finding> {
    let mut options = RenderOptions {
        release_name: opts
            .release_name
            .clone()
            .or_else(|| spec.release_name.clone())
            .unwrap_or_else(|| "release-name".into()),
        namespace: opts
            .namespace
            .clone()
            .or_else(|| spec.namespace.clone())
            .unwrap_or_else(|| "default".into()),
        is_upgrade: opts.is_upgrade,
        kube_version: opts.kube_version.clone(),
        api_versions: opts.api_versions.clone(),
        include_crds: opts.include_crds,
        skip_schema_validation: opts.skip_schema_validation,
        output: super::output::OutputOptions {
            no_hooks: opts.no_hooks,
            skip_tests: opts.skip_tests,
            show_only: opts.show_only.clone(),
        },
        // The values set's flags first: the command line's come after and win.
        set: spec.set.iter().chain(&opts.set).cloned().collect(),
        set_string: opts.set_string.clone(),
        set_json: opts.set_json.clone(),
        set_file: opts.set_file.clone(),
        set_literal: opts.set_literal.clone(),
        template_stack: TEMPLATE_STACK,
        allow_missing_dependencies: false,
        positions: opts.positions,
        objects: !opts.only_printed,
        ..RenderOptions::default()
    };
    // The target's own values file comes first; the command line's `-f` files override it,
    // as they would on `helm template -f target-values.yaml -f …`.
    for rel in &spec.values_files {
        let path = spec.chart.join(rel).map_err(|e| {
            Finding::error(rules::SOURCE_OUTSIDE_REPOSITORY, e.to_string())
                .in_file(spec.chart.child("Chart.yaml").to_string())
        })?;
        let bytes = files.read(&path).map_err(|e| source_finding(&e, &path))?;
        options.values.push(values_file(
            &String::from_utf8_lossy(&bytes),
            &path.to_string(),
        )?);
    }
    for (name, text) in &opts.values {
        options.values.push(values_file(text, name)?);
    }
    Ok(options)
}

/// `options` for `chart`: kdelta renders without the top chart's dependencies missing from
/// `charts/` when each names a chart repository (`kdelta fetch` can vendor it into the cache;
/// `helm.dependency.missing` says the output is incomplete). One with no repository kdelta
/// can fetch from (none, a `file://` path that is not there) is Helm's error, which names every
/// missing dependency, as `helm template` does before rendering.
fn for_chart(options: RenderOptions, chart: &Chart) -> RenderOptions {
    let fetchable = chart
        .requirements
        .iter()
        .filter(|r| !chart.dependencies.iter().any(|d| d.name == r.name))
        .all(|r| crate::fetch::is_chart_repository(&r.repository));
    RenderOptions {
        allow_missing_dependencies: fetchable,
        ..options
    }
}

/// Stack bytes a chart's templates may use: kdelta's workers have 8 MiB; deeply recursive
/// `include`s (bitnami's common library) need a few.
const TEMPLATE_STACK: usize = 4 << 20;

/// A values file read as Helm reads one into a map (its errors worded as `helm template -f`
/// words them): a document that is a scalar or a list is refused, not ignored.
fn values_file(text: &str, name: &str) -> Result<crate::template::Value, Finding> {
    let value = crate::template::helm_values(text).map_err(|e| {
        Finding::error(rules::HELM_VALUES, format!("failed to parse {name}: {e}")).at(
            name,
            e.line.unwrap_or(0),
            0,
        )
    })?;
    match super::chart::json_type(&value) {
        None | Some("object") => Ok(value),
        Some(got) => Err(Finding::error(
            rules::HELM_VALUES,
            format!("failed to parse {name}: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {got} into Go value of type map[string]interface {{}}"),
        )
        .in_file(name)),
    }
}

/// A target's values files read for their positions: the user's (the target's own, then the
/// command line's `-f` files, as [`render_options`] orders them) and each chart's
/// `values.yaml`, parsed when first asked. Spans name a file of the repository by its path,
/// a `-f` file as the command line named it.
struct ValuesAt<'a> {
    files: &'a Files<'a>,
    chart_dir: &'a RepoPath,
    user: Vec<(FileId, UserValues<'a>)>,
    parsed: Vec<std::sync::OnceLock<Option<ParsedValues>>>,
    charts: std::sync::Mutex<HashMap<String, Option<(FileId, ParsedValues)>>>,
}

/// Where a user's values file is.
enum UserValues<'a> {
    Repository(RepoPath),
    Text(&'a str),
}

/// A values file's documents, as the parse cache shares them.
type ParsedValues = std::sync::Arc<Result<Vec<yaml::Node>, yaml::YamlError>>;

impl<'a> ValuesAt<'a> {
    fn new(spec: &'a Spec, files: &'a Files<'a>, opts: &'a Options) -> ValuesAt<'a> {
        let mut user = Vec::new();
        for rel in &spec.values_files {
            if let Ok(path) = spec.chart.join(rel) {
                user.push((FileId::of(path.as_str()), UserValues::Repository(path)));
            }
        }
        for (name, text) in &opts.values {
            user.push((FileId::of(name), UserValues::Text(text)));
        }
        let parsed = user.iter().map(|_| std::sync::OnceLock::new()).collect();
        ValuesAt {
            files,
            chart_dir: &spec.chart,
            user,
            parsed,
            charts: Default::default(),
        }
    }

    fn read(&self, path: &RepoPath) -> Option<ParsedValues> {
        self.files.yaml_stream(path, &ParseOptions::default()).ok()
    }
}

/// Where the first document of `docs` sets `path`: the entry's key and value (a list item's
/// both), in `file`.
fn placed_in(docs: &ParsedValues, file: FileId, path: &[&str]) -> Option<super::origin::Placed> {
    let mut node = docs.as_ref().as_ref().ok()?.first()?;
    let mut key = node.span;
    for step in path {
        (key, node) = match &node.kind {
            yaml::NodeKind::Map(_) => {
                let (k, v) = node.get_entry(step)?;
                (k.span, v)
            }
            yaml::NodeKind::Seq(items) => {
                let item = items.get(step.parse::<usize>().ok()?)?;
                (item.span, item)
            }
            yaml::NodeKind::Scalar(_) => return None,
        };
    }
    let named = |span: Span| Span { file, ..span };
    Some(super::origin::Placed {
        key: named(key),
        value: named(node.span),
    })
}

impl super::origin::ValuesFiles for ValuesAt<'_> {
    fn user(&self, index: usize, path: &[&str]) -> Option<super::origin::Placed> {
        let (file, values) = self.user.get(index)?;
        let parsed = self.parsed.get(index)?.get_or_init(|| match values {
            UserValues::Repository(p) => self.read(p),
            UserValues::Text(text) => Some(std::sync::Arc::new(yaml::parse_stream(
                text.as_bytes(),
                &ParseOptions::default(),
            ))),
        });
        placed_in(parsed.as_ref()?, *file, path)
    }

    fn chart(&self, source: &str, path: &[&str]) -> Option<super::origin::Placed> {
        let mut charts = self.charts.lock().unwrap_or_else(|p| p.into_inner());
        let found = charts.entry(source.to_string()).or_insert_with(|| {
            // A packed subchart's values are inside its archive: no line of the repository.
            if source.contains(".tgz") {
                return None;
            }
            let dir = match source {
                "" => self.chart_dir.clone(),
                _ => self.chart_dir.join(source).ok()?,
            };
            let file = dir.child("values.yaml");
            Some((FileId::of(file.as_str()), self.read(&file)?))
        });
        let (file, docs) = found.as_ref()?;
        placed_in(docs, *file, path)
    }
}

/// Maps what Helm names (template paths, dependency entries) to repository files.
struct Locator<'a> {
    files: &'a Files<'a>,
    chart_dir: &'a RepoPath,
}

impl Locator<'_> {
    /// A file relative to the top chart, as a repository path.
    fn repo_path(&self, rel: &str) -> String {
        if rel.is_empty() {
            return self.chart_dir.to_string();
        }
        self.chart_dir
            .join(rel)
            .map(|p| p.to_string())
            .unwrap_or_else(|_| self.chart_dir.to_string())
    }

    /// The file behind a template path Helm prints (`top/charts/sub/templates/x.yaml`, with
    /// aliases as names), relative to the top chart.
    fn template_file(tree: &tree::Node, template: &str) -> String {
        let mut parts = template.split('/').skip(1).peekable();
        let mut node = tree;
        let mut prefix = tree.source.clone();
        while parts.peek() == Some(&"charts") {
            let mut ahead = parts.clone();
            ahead.next();
            let Some(name) = ahead.next() else { break };
            let Some(child) = node.children.iter().find(|c| c.name == name) else {
                break;
            };
            parts = ahead;
            node = child;
            prefix = child.source.clone();
        }
        let rest: Vec<&str> = parts.collect();
        // A packed subchart's files are inside its archive: point at the archive.
        if prefix.contains(".tgz") {
            return prefix;
        }
        match (prefix.is_empty(), rest.is_empty()) {
            (_, true) => prefix,
            (true, false) => rest.join("/"),
            (false, false) => format!("{prefix}/{}", rest.join("/")),
        }
    }

    /// The dependency tree, each entry located in its file.
    fn tree(
        &self,
        chart: &Chart,
        pruned: &[super::deps::Pruned],
        non_bool: &[super::deps::NonBool],
    ) -> tree::Node {
        let mut tree = tree::build(chart, pruned, non_bool);
        tree.for_each_mut(&mut |n| {
            n.entry = self
                .entry(&n.declared_in)
                .map(|(file, span)| (file, span.line, span.column));
        });
        tree
    }

    /// A finding for Helm's error, at the file (and line, column) it names.
    fn error(&self, chart: &Chart, e: &RenderError, spec: &Spec) -> Finding {
        let chart_yaml = self.repo_path("Chart.yaml");
        let (rule, help): (Rule, Option<&str>) = match e.kind {
            ErrorKind::KubeVersionFlag => (rules::HELM_VALUES, None),
            ErrorKind::Values => (rules::HELM_VALUES, None),
            ErrorKind::KubeVersion => (
                rules::HELM_KUBE_VERSION,
                Some("pass --kube-version with a version the chart supports"),
            ),
            ErrorKind::Library => (
                rules::HELM_CHART_LIBRARY,
                Some("render a chart that depends on it; a library chart has no manifests of its own"),
            ),
            ErrorKind::MissingDependencies => (
                rules::HELM_DEPENDENCY_MISSING,
                Some("run `helm dependency build` and commit charts/, or give each dependency a repository `kdelta fetch` can download it from"),
            ),
            ErrorKind::Schema => (rules::HELM_VALUES_SCHEMA, None),
            ErrorKind::Parse | ErrorKind::Execute => (rules::HELM_TEMPLATE, None),
            ErrorKind::Output => (rules::HELM_OUTPUT, None),
            ErrorKind::ShowOnly => (rules::HELM_SHOW_ONLY, None),
            ErrorKind::Files => (rules::SOURCE_READ, None),
        };
        let mut f = Finding::error(rule, e.message.clone());
        if let Some(h) = help {
            f = f.with_help(h);
        }
        let tree = tree::build(chart, &[], &[]);
        match e.kind {
            ErrorKind::Parse | ErrorKind::Execute | ErrorKind::Output | ErrorKind::Files => {
                // Every template's path starts with the top chart's name.
                let prefix = format!("{}/", chart.name);
                match e
                    .location
                    .as_ref()
                    .filter(|at| at.template.starts_with(&prefix))
                {
                    Some(at) => {
                        let file = Self::template_file(&tree, &at.template);
                        let (line, column) = (at.line.unwrap_or(0), at.column.unwrap_or(0));
                        f.at(self.repo_path(&file), line, column)
                    }
                    None => f.in_file(chart_yaml),
                }
            }
            ErrorKind::KubeVersion => {
                let span = self.span(&chart_yaml, &["kubeVersion"]);
                f.at(chart_yaml, span.line, span.column)
            }
            ErrorKind::Schema => f.in_file(self.repo_path("values.schema.json")),
            ErrorKind::Values => {
                if let Some((file, span)) = e
                    .mismatch
                    .as_ref()
                    .and_then(|m| self.mismatch_at(chart, spec, m))
                {
                    return f.at(file, span.line, span.column);
                }
                match spec.values_files.last() {
                    Some(v) => f.in_file(self.repo_path(v)),
                    None => f.in_file(self.repo_path("values.yaml")),
                }
            }
            _ => f.in_file(chart_yaml),
        }
    }

    /// When the render without the top chart's missing dependencies fails, Helm would have
    /// stopped at them first (`CheckDependencies` runs before the templates, the schema and
    /// `kubeVersion`): the failure, whether a `no template` for a partial the dependency
    /// defines or a nil pointer on its values, is then reported in each missing dependency's
    /// incomplete notice, not as an error that hides the cause. `None` when nothing is missing
    /// or the error comes before Helm's dependency check.
    fn failed_without_missing(&self, chart: &Chart, e: &RenderError) -> Option<Vec<Finding>> {
        let after_check = matches!(
            e.kind,
            ErrorKind::KubeVersion
                | ErrorKind::Schema
                | ErrorKind::Parse
                | ErrorKind::Execute
                | ErrorKind::Output
                | ErrorKind::ShowOnly
        );
        if !after_check {
            return None;
        }
        let tree = self.tree(chart, &[], &[]);
        let mut notices: Vec<Finding> = tree_findings(&tree, self)
            .into_iter()
            .filter(|f| f.rule == rules::HELM_DEPENDENCY_MISSING && f.is_incomplete())
            .collect();
        if notices.is_empty() {
            return None;
        }
        for f in &mut notices {
            f.message = format!(
                "{}, and the chart does not render without it: {}",
                f.message, e.message
            );
        }
        Some(notices)
    }

    /// The span of a key path in a YAML file (default when it cannot be read).
    /// Where the top chart's values give a subchart's key a value that is not a table: the
    /// last of the target's values files that does, else `values.yaml`. `None` for a deeper
    /// subchart, or when no file does (a `--set` flag gave it).
    fn mismatch_at(
        &self,
        chart: &Chart,
        spec: &Spec,
        m: &super::values::CoalesceError,
    ) -> Option<(String, Span)> {
        if m.chart != chart.name {
            return None;
        }
        spec.values_files
            .iter()
            .rev()
            .map(String::as_str)
            .chain(["values.yaml"])
            .map(|rel| self.repo_path(rel))
            .find_map(|file| {
                let node = self.node(&file, &[&m.subchart])?;
                (!node.is_map() && !node.is_null()).then_some((file, node.span))
            })
    }

    /// The node at `path` in the first document of `file`.
    fn node(&self, file: &str, path: &[&str]) -> Option<crate::yaml::Node> {
        let p = RepoPath::new(file).ok()?;
        let parsed = self.files.yaml_stream(&p, &ParseOptions::default()).ok()?;
        let docs = parsed.as_ref().as_ref().ok()?;
        let mut node = docs.first();
        for key in path {
            node = node.and_then(|n| n.get(key));
        }
        node.cloned()
    }

    fn span(&self, file: &str, path: &[&str]) -> Span {
        let Ok(p) = RepoPath::new(file) else {
            return Span::default();
        };
        let Ok(parsed) = self.files.yaml_stream(&p, &ParseOptions::default()) else {
            return Span::default();
        };
        let Ok(docs) = parsed.as_ref() else {
            return Span::default();
        };
        let mut node = docs.first();
        for key in path {
            node = node.and_then(|n| match key.parse::<usize>() {
                Ok(i) => n.as_seq().and_then(|s| s.get(i)),
                Err(_) => n.get(key),
            });
        }
        node.map(|n| n.span).unwrap_or_default()
    }

    /// The resources of `helm template`'s output, each from its template's file (its fields
    /// at the lines of the files that wrote them when they were placed by `options`); only
    /// its Secrets when the render kept no other objects.
    fn resources(
        &self,
        rendered: &mut render::Rendered,
        tree: &tree::Node,
        options: &RenderOptions,
    ) -> (Vec<Resource>, Vec<Finding>) {
        let placed = options.positions;
        let mut resources = Vec::new();
        let mut findings = Vec::new();
        let mut files = HashMap::new();
        for doc in super::output::split_manifests(&rendered.output) {
            let (source, content) = match doc.strip_prefix("# Source: ") {
                Some(rest) => rest.split_once('\n').unwrap_or((rest, "")),
                None => ("", doc),
            };
            let file = self.repo_path(&Self::template_file(tree, source));
            let file = RepoPath::new(&file).unwrap_or_else(|_| self.chart_dir.clone());
            let origin = Origin {
                file: file.clone(),
                span: Span::default(),
            };
            // The output stage read the templates' documents already (a document printed twice
            // is read again the second time).
            if let Some(mut node) = rendered.nodes.remove(content) {
                if placed {
                    self.name_template_files(&mut node, tree, &rendered.values_files, &mut files);
                }
                resources.push(Resource { node, origin });
                continue;
            }
            if !options.objects {
                continue;
            }
            match yaml::parse_stream(content.as_bytes(), &ParseOptions::default()) {
                Ok(nodes) => {
                    resources.extend(nodes.into_iter().filter(|n| !n.is_null()).map(|node| {
                        Resource {
                            node,
                            origin: Origin {
                                file: file.clone(),
                                span: Span::default(),
                            },
                        }
                    }))
                }
                Err(e) => findings.push(
                    Finding::error(
                        rules::HELM_OUTPUT,
                        format!("the output of {source} is not valid YAML: {}", e.message),
                    )
                    .in_file(file.to_string()),
                ),
            }
        }
        (resources, findings)
    }

    /// Names the files of the node's spans, templates as Helm prints their paths
    /// (`top/charts/sub/templates/x.yaml`), as files of the repository; values files are
    /// named already. `files` remembers the names given.
    fn name_template_files(
        &self,
        node: &mut yaml::Node,
        tree: &tree::Node,
        values_files: &std::collections::BTreeSet<FileId>,
        files: &mut HashMap<FileId, FileId>,
    ) {
        for id in node.files() {
            if values_files.contains(&id) {
                continue;
            }
            files.entry(id).or_insert_with(|| {
                let template = id.name().unwrap_or_default();
                FileId::of(&self.repo_path(&Self::template_file(tree, &template)))
            });
        }
        node.map_spans(&|span| match files.get(&span.file) {
            Some(&file) => Span { file, ..span },
            None => span,
        });
    }

    /// The line of a dependency entry (`dependencies[i]` of the file), for findings.
    fn entry(&self, declared: &Option<(String, usize)>) -> Option<(String, Span)> {
        let (file, index) = declared.as_ref()?;
        // An entry inside a packed subchart: the archive is the repository's file.
        if let Some(at) = file.find(".tgz/") {
            return Some((self.repo_path(&file[..at + 4]), Span::default()));
        }
        let path = self.repo_path(file);
        let span = self.span(&path, &["dependencies", &(index - 1).to_string()]);
        Some((path, span))
    }
}

/// Warnings for the hooks Helm skips (`helm.hook.unknown-event`), at their templates.
fn skipped_hook_findings<'a>(
    skipped: &'a [super::output::SkippedHook],
    chart: &'a Chart,
    located: &'a Locator,
) -> impl Iterator<Item = Finding> + 'a {
    skipped.iter().map(|h| {
        // `top/templates/x.yaml`: the path below the top chart's directory.
        let file = h.template.split_once('/').map_or(h.template.as_str(), |(_, rest)| rest);
        let finding = Finding::warning(
            rules::HELM_HOOK_UNKNOWN_EVENT,
            format!(
                "Helm skips this {}: its helm.sh/hook \"{}\" names an event Helm 3 does not know, so it is not rendered",
                h.kind, h.events
            ),
        )
        .with_help("use Helm 3's hook events (pre-install, post-upgrade, test, ...); a CRD belongs in crds/");
        match hook_line(chart, file, &h.events) {
            Some(line) => finding.at(located.repo_path(file), line, 0),
            None => finding.in_file(located.repo_path(file)),
        }
    })
}

/// The line of the template at `file` (below the top chart: `templates/x.yaml`,
/// `charts/sub/templates/y.yaml`) that writes a `helm.sh/hook` annotation with `events` as
/// written; `None` where the template writes it some other way (from a value, a helper).
fn hook_line(chart: &Chart, file: &str, events: &str) -> Option<u32> {
    let (mut chart, mut rest) = (chart, file);
    while let Some(below) = rest.strip_prefix("charts/") {
        let (name, after) = below.split_once('/')?;
        chart = chart.dependencies.iter().find(|c| c.name == name)?;
        rest = after;
    }
    let text = chart.templates.get(rest)?;
    let line = text.lines().position(|l| {
        l.contains("helm.sh/hook") && !l.contains("helm.sh/hook-") && l.contains(events)
    })?;
    u32::try_from(line + 1).ok()
}

/// Notices for the subcharts that do not render: pruned ones (`helm.subchart.pruned`) and
/// declared ones missing from `charts/` (`helm.dependency.missing`).
fn tree_findings(tree: &tree::Node, located: &Locator) -> Vec<Finding> {
    let mut out = Vec::new();
    for (depth, n) in tree.descendants() {
        let place = |f: Finding| match &n.entry {
            Some((file, line, column)) => f.at(file.clone(), *line, *column),
            None => f.in_file(located.repo_path("Chart.yaml")),
        };
        for c in &n.non_bool {
            out.push(place(Finding::warning(
                rules::HELM_CONDITION_NOT_BOOL,
                format!("condition path '{c}' for chart {} holds a value that is not a bool; Helm ignores it and tries the next path", n.chart),
            )));
        }
        if let Some(constraint) = &n.outside_constraint {
            out.push(place(Finding::warning(
                rules::HELM_DEPENDENCY_OUTSIDE_CONSTRAINT,
                format!(
                    "charts/ holds {} {}, outside this dependency's version constraint {constraint}; helm template renders it anyway",
                    n.chart, n.version
                ),
            ).with_help("run `helm dependency update` to vendor a version the constraint accepts, or widen the constraint")));
        }
        match &n.state {
            State::Enabled => {}
            // A subtree pruned with its parent is said once, at the parent.
            State::Pruned(reason) if reason.starts_with("parent ") => {}
            State::Pruned(reason) => out.push(place(Finding::notice(
                rules::HELM_SUBCHART_PRUNED,
                format!("subchart {} {} is pruned: {reason}", n.name, n.version),
            ))),
            State::Missing(reason) => {
                let repository = if n.repository.is_empty() {
                    String::new()
                } else {
                    format!(" from {}", n.repository)
                };
                let mut f = Finding::notice(
                    rules::HELM_DEPENDENCY_MISSING,
                    format!(
                        "dependency {} {}{repository} is {reason}; its resources are missing",
                        n.chart, n.version
                    ),
                )
                .with_help(
                    "run `kdelta fetch` (or add --fetch) to download it into kdelta's cache, or vendor it with `helm dependency build`",
                );
                // Helm checks only the top chart's dependencies; below, it renders without them.
                if depth == 1 {
                    f = f.incomplete(Incomplete::NotFetched);
                }
                out.push(place(f));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_schema_finding_points_at_the_schema_or_the_archive_that_holds_it() {
        let dir = RepoPath::new("apps/web").unwrap();
        assert_eq!(schema_file(&dir, ""), "apps/web/values.schema.json");
        assert_eq!(
            schema_file(&dir, "charts/common"),
            "apps/web/charts/common/values.schema.json"
        );
        assert_eq!(
            schema_file(&dir, "charts/db-1.0.0.tgz/charts/lib"),
            "apps/web/charts/db-1.0.0.tgz"
        );
    }

    #[test]
    fn only_references_to_urls_send_a_schema_to_be_searched() {
        for text in [
            r##"{"$ref": "https://example.com/s.json"}"##,
            r##"{"properties": {"a": {"$ref":"http://h/s.json#/x"}}}"##,
            r##"{"$id": "https://example.com/root.json", "$ref": "other.json"}"##,
            r##"{"id" :  "http://example.com/root.json"}"##,
        ] {
            assert!(names_url(text), "{text}");
        }
        for text in [
            r##"{"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "#/definitions/a"}"##,
            r##"{"description": "see https://example.com", "$ref": "file:///s.json"}"##,
            r##"{"properties": {"id": {"type": "string", "default": "https://x"}}}"##,
            "{}",
        ] {
            assert!(!names_url(text), "{text}");
        }
    }
    use super::*;

    /// The walk runs on every core, but reports the failure Helm's walk meets first: in
    /// lexical order, each directory's entries where its name falls.
    #[test]
    fn the_walk_reports_its_first_failure_in_helms_order() {
        let mut s = crate::source::MemorySnapshot::new();
        let p = |path: &str| RepoPath::new(path).unwrap();
        s.add_file(
            &p("c/Chart.yaml"),
            b"apiVersion: v2\nname: c\nversion: 1.0.0\n",
        );
        // Each leaves the repository.
        for (link, target) in [
            ("c/charts/sub/files/a", "../../../../../etc"),
            ("c/files/b", "../../../etc"),
            ("c/templates/x/c", "../../../../etc"),
            ("c/templates/z", "../../../etc"),
        ] {
            s.add_symlink(&p(link), target);
        }
        let cache = crate::source::ParseCache::default();
        let failure = |files: &Files| load(files, &p("c"), false).unwrap_err().file;
        for (first, then) in [
            ("c/charts/sub/files/a", "c/files/b"),
            ("c/files/b", "c/templates/x/c"),
            ("c/templates/x/c", "c/templates/z"),
        ] {
            assert_eq!(failure(&Files::new(&s, &cache)).as_deref(), Some(first));
            s.add_file(&p(first), b"");
            assert_eq!(failure(&Files::new(&s, &cache)).as_deref(), Some(then));
        }
    }

    /// Helm resolves each link as its walk meets it, before `.helmignore`: a dangling one
    /// fails the chart even when the file is ignored, but not inside an ignored directory.
    #[test]
    fn a_dangling_link_fails_the_chart_unless_its_directory_is_ignored() {
        let p = |path: &str| RepoPath::new(path).unwrap();
        let chart = |helmignore: &str| {
            let mut s = crate::source::MemorySnapshot::new();
            s.add_file(
                &p("c/Chart.yaml"),
                b"apiVersion: v2\nname: c\nversion: 1.0.0\n",
            );
            s.add_file(&p("c/.helmignore"), helmignore.as_bytes());
            s.add_file(&p("c/templates/cm.yaml"), b"kind: ConfigMap\n");
            s.add_symlink(&p("c/templates/gone.yaml"), "nowhere.yaml");
            s
        };
        let cache = crate::source::ParseCache::default();
        for helmignore in ["", "templates/gone.yaml\n"] {
            let s = chart(helmignore);
            let err = load(&Files::new(&s, &cache), &p("c"), false).unwrap_err();
            assert_eq!(
                err.file.as_deref(),
                Some("c/templates/gone.yaml"),
                "{helmignore:?}"
            );
            assert!(
                err.message.contains("error evaluating symlink"),
                "{}",
                err.message
            );
        }
        let s = chart("templates/\n");
        assert!(load(&Files::new(&s, &cache), &p("c"), false).is_ok());
    }

    /// A chart about to be rendered, from the repository or fetched, has its own templates
    /// parsed while it loads, by jobs that run on whichever core of the pool is idle.
    #[test]
    fn a_chart_loaded_to_render_has_its_templates_parsed_ahead() {
        // The job may wait for a core while other tests run; a generous bound catches one that
        // never runs.
        let parsed_ahead = |text: &std::sync::Arc<str>| {
            let start = std::time::Instant::now();
            while !render::has_parsed(text) {
                assert!(
                    start.elapsed() < std::time::Duration::from_secs(120),
                    "{text} was not parsed ahead"
                );
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        };
        let chart_yaml = b"apiVersion: v2\nname: c\nversion: 1.0.0\n";
        let mut s = crate::source::MemorySnapshot::new();
        let p = |path: &str| RepoPath::new(path).unwrap();
        s.add_file(&p("c/Chart.yaml"), chart_yaml);
        s.add_file(
            &p("c/templates/ahead.yaml"),
            b"{{/* parsed ahead of the load's end */}}a: {{ .Values.a }}\n",
        );
        let cache = crate::source::ParseCache::default();
        let chart = load(&Files::new(&s, &cache), &p("c"), true).unwrap();
        parsed_ahead(&chart.templates["templates/ahead.yaml"]);

        let fetched = load_fetched(vec![
            ("Chart.yaml".into(), chart_yaml.to_vec()),
            (
                "templates/fetched.yaml".into(),
                b"{{/* fetched, parsed ahead */}}b: {{ .Values.b }}\n".to_vec(),
            ),
        ])
        .unwrap();
        parsed_ahead(&fetched.templates["templates/fetched.yaml"]);
    }

    #[test]
    fn values_file_errors_carry_their_line() {
        let e = crate::template::helm_values("a: 1\n  b: 2\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert_eq!(
            e.to_string(),
            "error converting YAML to JSON: yaml: line 2: mapping values are not allowed in this context"
        );
        let f = values_file("a: 1\n  b: 2\n", "env/values.yaml").unwrap_err();
        assert_eq!(
            (f.file.as_deref(), f.line, f.message.as_str()),
            (
                Some("env/values.yaml"),
                Some(2),
                "failed to parse env/values.yaml: error converting YAML to JSON: yaml: line 2: mapping values are not allowed in this context"
            )
        );
        // encoding/json's refusal names no line.
        let e = crate::template::helm_values("a: .nan\n").unwrap_err();
        assert_eq!(e.line, None);

        use super::super::chart::LoadError;
        let inner = crate::template::helm_values("x:\n- a\n b: c\n").unwrap_err();
        let line = inner.line.expect("go-yaml names the line");
        let e = LoadError::Subchart {
            entry: "sub".into(),
            parent: "top".into(),
            error: Box::new(LoadError::Yaml {
                file: "values.yaml",
                error: inner,
            }),
        };
        assert_eq!(
            load_error_location(&e),
            ("charts/sub/values.yaml".to_string(), line)
        );
    }

    #[test]
    fn values_sigs_yaml_cannot_make_json_of_are_errors() {
        // Each as helm v3.17.3 words it (`failed to parse F: ` before), at its line.
        for (text, line, message) in [
            (
                "a: 1\n[x]: 2\n",
                2,
                "yaml: invalid map key: []interface {}{\"x\"}",
            ),
            (
                "a: 1\n9223372036854775808: 2\n",
                2,
                "unsupported map key of type: uint64, key: 0x8000000000000000, value: 2",
            ),
            (
                "a:\n  b: !!int 1.5\n",
                2,
                "yaml: cannot decode !!float `1.5` as a !!int",
            ),
            (
                "a: !!bool 1\n",
                1,
                "yaml: cannot decode !!int `1` as a !!bool",
            ),
        ] {
            let e = crate::template::helm_values(text).unwrap_err();
            assert_eq!(e.line, Some(line), "{text}");
            assert_eq!(
                e.to_string(),
                format!("error converting YAML to JSON: {message}")
            );
        }
    }
}
