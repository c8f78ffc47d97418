//! `helm template` of a chart and its subcharts: dependencies processed ([`super::deps`]),
//! values coalesced ([`super::values`]), every chart's templates parsed into one set in
//! Helm's order (deeper paths first, reverse lexical order, so a parent's `define` wins),
//! each manifest template executed with its chart's dot, and the output stage of
//! [`super::output`].

use super::chart::Chart;
use super::objects::{self, KubeVersion};
use super::origin::{Origins, ValuesFiles};
use super::output::{self, OutputOptions};
use super::values;
use crate::template::{self, Dict, Funcs, MissingKey, TemplateSet, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// `helm template`'s options.
#[derive(Clone, Debug)]
pub struct RenderOptions {
    /// The release name (`helm template NAME CHART`; `release-name` by default).
    pub release_name: String,
    /// `-n/--namespace`.
    pub namespace: String,
    /// `--is-upgrade`.
    pub is_upgrade: bool,
    /// `--kube-version`.
    pub kube_version: Option<String>,
    /// `-a/--api-versions`, added to the defaults.
    pub api_versions: Vec<String>,
    /// `--include-crds`.
    pub include_crds: bool,
    /// `--skip-schema-validation`: `values.schema.json` files are not checked.
    pub skip_schema_validation: bool,
    pub output: OutputOptions,
    /// The user's values (`-f` files, read as values files are), later ones winning.
    pub values: Vec<Value>,
    /// `--set` flags, applied after the files.
    pub set: Vec<String>,
    /// `--set-string` flags, after `--set`.
    pub set_string: Vec<String>,
    /// `--set-json` flags (`key=JSON`), before `--set`.
    pub set_json: Vec<String>,
    /// `--set-file` flags with the files they name, after `--set-string`.
    pub set_file: Vec<super::strvals::SetFile>,
    /// `--set-literal` flags, last.
    pub set_literal: Vec<String>,
    /// Stack bytes templates may use (see [`template::Options::max_stack`]).
    pub template_stack: usize,
    /// Render without the top chart's dependencies that are not in `charts/` (they are
    /// returned in [`Rendered::missing`]); off, it is Helm's error.
    pub allow_missing_dependencies: bool,
    /// Place the nodes of [`Rendered::nodes`] at the template lines that wrote them (their
    /// spans name the template, as Helm prints its path), or at the values file lines that
    /// set what they print ([`render_with`]), for findings about fields; `kdelta render`,
    /// which only prints, leaves it off.
    pub positions: bool,
    /// Keep each rendered document's node ([`Rendered::nodes`]), the objects a diff and the
    /// checks read; off for a render that is only printed, whose documents are then read for
    /// their heads alone (as Helm reads them: a YAML error still fails the render).
    pub objects: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            release_name: "release-name".into(),
            namespace: "default".into(),
            is_upgrade: false,
            kube_version: None,
            api_versions: Vec::new(),
            include_crds: false,
            skip_schema_validation: false,
            output: OutputOptions::default(),
            values: Vec::new(),
            set: Vec::new(),
            set_string: Vec::new(),
            set_json: Vec::new(),
            set_file: Vec::new(),
            set_literal: Vec::new(),
            template_stack: template::Options::default().max_stack,
            allow_missing_dependencies: false,
            positions: false,
            objects: true,
        }
    }
}

/// Why `helm template` failed: what kind of problem (findings use it), Helm's own message
/// (the first line of what it prints after `Error: `), and the template it is about.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct RenderError {
    pub kind: ErrorKind,
    pub message: String,
    /// For parse, execution and output errors, the template Helm's message starts from.
    pub location: Option<TemplateLocation>,
    /// For a values error, a subchart's values that are not a table.
    pub mismatch: Option<values::CoalesceError>,
}

/// A chart template a render error is about: its path in the chart
/// (`top/charts/sub/templates/x.yaml`), and the line and column where Helm's message gives
/// them. For an error inside `include` or `tpl`, the outermost: the position that wraps the
/// others, which Helm prints first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateLocation {
    pub template: String,
    pub line: Option<u32>,
    pub column: Option<u32>,
}

impl TemplateLocation {
    /// Where a template error is.
    fn of(e: &template::Error) -> Option<TemplateLocation> {
        let number = |n: usize| u32::try_from(n).ok();
        match (e.location(), e.kind()) {
            (Some(at), _) => Some(TemplateLocation {
                template: at.template.clone(),
                line: number(at.line),
                column: at.column.and_then(number),
            }),
            (None, template::ErrorKind::StackLimit { template, .. }) => Some(TemplateLocation {
                template: template.clone(),
                line: None,
                column: None,
            }),
            (None, _) => None,
        }
    }
}

/// The kinds of [`RenderError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// `--kube-version` is not a version.
    KubeVersionFlag,
    /// The values flags or files cannot be read.
    Values,
    /// The chart's `kubeVersion` excludes the Kubernetes version.
    KubeVersion,
    /// The chart is a library chart (`type: library`): Helm renders only charts that depend on
    /// it.
    Library,
    /// Dependencies declared but not in `charts/`.
    MissingDependencies,
    /// The values break a chart's `values.schema.json`.
    Schema,
    /// A template does not parse.
    Parse,
    /// A template fails (`fail`, a bad call, `required`).
    Execute,
    /// A rendered manifest cannot be read as YAML.
    Output,
    /// A `--show-only` pattern matches no template.
    ShowOnly,
    /// A file of a chart's `.Files` that a template read could not be read.
    Files,
}

impl ErrorKind {
    fn with(self, message: impl Into<String>) -> RenderError {
        RenderError {
            kind: self,
            message: message.into(),
            location: None,
            mismatch: None,
        }
    }
}

impl From<values::CoalesceError> for RenderError {
    fn from(e: values::CoalesceError) -> RenderError {
        RenderError {
            mismatch: Some(e.clone()),
            ..ErrorKind::Values.with(e.to_string())
        }
    }
}

impl RenderError {
    /// The same error, about `location`.
    fn at(self, location: Option<TemplateLocation>) -> RenderError {
        RenderError { location, ..self }
    }
}

/// The text with Go's `<no value>` removed, as Helm's `strings.ReplaceAll` does after each
/// template; most outputs have none, and are kept as they are.
fn without_no_value(text: String) -> String {
    const NO_VALUE: &str = "<no value>";
    if memchr::memmem::find(text.as_bytes(), NO_VALUE.as_bytes()).is_none() {
        return text;
    }
    text.replace(NO_VALUE, "")
}

/// What `helm template` of a chart gave.
#[derive(Clone, Debug)]
pub struct Rendered {
    /// Its stdout.
    pub output: String,
    /// The subcharts dependency processing left out, and why.
    pub pruned: Vec<super::deps::Pruned>,
    /// Condition paths that held something other than a bool (Helm warns).
    pub non_bool: Vec<super::deps::NonBool>,
    /// The top chart's dependencies missing from `charts/` (with
    /// [`RenderOptions::allow_missing_dependencies`]).
    pub missing: Vec<super::chart::Dependency>,
    /// The non-deterministic functions the templates called (`randAlphaNum`, `genCA`…):
    /// another render gives other output.
    pub nondeterministic: Vec<&'static str>,
    /// The hooks Helm skips, their events unknown to it (not in `output`).
    pub skipped_hooks: Vec<super::output::SkippedHook>,
    /// The files of the nodes' spans that are values files, named as the caller named them
    /// (the others are templates, named as Helm prints their paths).
    pub values_files: BTreeSet<crate::yaml::FileId>,
    /// The printed documents' node trees by their text (without the `# Source:` line), as the
    /// output stage read them; CRDs are not among them. Ordered, not hashed: a document can be
    /// hundreds of kilobytes, and comparing two mostly stops at their first lines.
    pub nodes: std::collections::BTreeMap<String, crate::yaml::Node>,
}

/// Renders `chart` as `helm template` does: its stdout, or the first line of the error it
/// prints after `Error: `.
pub fn render_chart(chart: &Chart, options: &RenderOptions) -> Result<String, String> {
    render(chart, options)
        .map(|r| r.output)
        .map_err(|e| e.message)
}

/// Renders `chart` as `helm template` does, saying which subcharts were pruned.
pub fn render(chart: &Chart, options: &RenderOptions) -> Result<Rendered, RenderError> {
    render_with(chart, options, None)
}

/// [`render`], placing the fields printed as read from the values at the lines of
/// `values_files` that set them (with [`RenderOptions::positions`]).
pub fn render_with(
    chart: &Chart,
    options: &RenderOptions,
    values_files: Option<&dyn ValuesFiles>,
) -> Result<Rendered, RenderError> {
    let kube = match &options.kube_version {
        None => KubeVersion::parse(objects::DEFAULT_KUBE_VERSION).expect("a valid default"),
        Some(v) => KubeVersion::parse(v).map_err(|e| {
            ErrorKind::KubeVersionFlag.with(format!("invalid kube version '{v}': {e}"))
        })?,
    };
    let mut api_versions: Vec<String> = objects::DEFAULT_API_VERSIONS
        .iter()
        .map(|s| s.to_string())
        .collect();
    api_versions.extend(options.api_versions.iter().cloned());

    let user = user_values(options).map_err(|e| ErrorKind::Values.with(e.to_string()))?;
    // Helm's checkIfInstallable, after the values and before the dependency check.
    if chart.is_library() {
        return Err(ErrorKind::Library.with("library charts are not installable"));
    }
    // Helm's CheckDependencies, on the top chart, by name.
    let missing: Vec<super::chart::Dependency> = chart
        .requirements
        .iter()
        .filter(|r| !chart.dependencies.iter().any(|d| d.name == r.name))
        .cloned()
        .collect();
    if !missing.is_empty() && !options.allow_missing_dependencies {
        let names: Vec<&str> = missing.iter().map(|m| m.name.as_str()).collect();
        return Err(ErrorKind::MissingDependencies.with(format!(
            "An error occurred while checking for chart dependencies. You may need to run `helm dependency build` to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: {}",
            names.join(", ")
        )));
    }
    // Only the top chart's `kubeVersion` is checked, as in Helm's renderResources.
    if let Some(Value::String(constraint)) = chart.metadata.get("kubeVersion") {
        if !constraint.is_empty()
            && !template::semver_satisfies(constraint, &kube.version).unwrap_or(false)
        {
            return Err(ErrorKind::KubeVersion.with(format!(
                "chart requires kubeVersion: {constraint} which is incompatible with Kubernetes {}",
                kube.version
            )));
        }
    }
    let set = template_set(options);
    let behind = Behind::start(&set, chart, !options.skip_schema_validation);
    let coalesced = {
        let mut chart = chart.clone();
        super::deps::process(&mut chart, &user).and_then(|processed| {
            let values = values::coalesce_values_for(&chart, &user, values::Copies::Deep)?;
            Ok((chart, processed, values))
        })
    };
    drop(behind);
    let (chart, processed, values) = coalesced?;
    // Helm checks the schemas before it runs the templates; the check reads a copy of the
    // values taken now, so it runs beside them, and its error comes first.
    let schema = (!options.skip_schema_validation).then(|| super::schema::prepare(&chart, &values));
    let (rendered, checked) = rayon::join(
        || {
            let common = Common {
                release: release_value(options),
                capabilities: objects::capabilities(kube, api_versions),
            };
            run_templates(set, &chart, &values, &common, options, values_files)
        },
        || schema.map_or(Ok(()), |s| s.check()),
    );
    checked.map_err(|e| ErrorKind::Schema.with(e.to_string()))?;
    // A file a template read but could not be read is what went wrong, whatever the
    // templates made of its empty text.
    if let Some((file, error)) = unreadable(&chart, &chart.name) {
        return Err(ErrorKind::Files
            .with(format!("cannot read {error}"))
            .at(Some(TemplateLocation {
                template: file,
                line: None,
                column: None,
            })));
    }
    let Templated {
        manifests,
        nondeterministic,
        printed,
        values_files,
        skipped_hooks,
    } = rendered?;
    let nodes = manifests
        .into_iter()
        .filter_map(|m| Some((m.content, m.node?)))
        .collect();
    Ok(Rendered {
        nodes,
        values_files,
        output: output::show_only(printed, &options.output.show_only)
            .map_err(|e| ErrorKind::ShowOnly.with(e.to_string()))?,
        pruned: processed.pruned,
        non_bool: processed.non_bool,
        missing,
        nondeterministic,
        skipped_hooks,
    })
}

/// `.Release`.
fn release_value(options: &RenderOptions) -> Value {
    map([
        ("Name", Value::str(options.release_name.as_str())),
        ("Namespace", Value::str(options.namespace.as_str())),
        ("IsUpgrade", Value::Bool(options.is_upgrade)),
        ("IsInstall", Value::Bool(!options.is_upgrade)),
        ("Revision", Value::Int(1)),
        ("Service", Value::str("Helm")),
    ])
}

/// What the templates of a chart gave.
struct Templated {
    manifests: Vec<output::Manifest>,
    /// The non-deterministic functions called.
    nondeterministic: Vec<&'static str>,
    /// What `helm template` prints.
    printed: String,
    /// The values files the manifests' spans name.
    values_files: BTreeSet<crate::yaml::FileId>,
    skipped_hooks: Vec<output::SkippedHook>,
}

/// The templates of the tree parsed and run, their documents sorted, and what `helm
/// template` prints of them.
///
/// Helm runs the templates one after another, and a template that writes to a map another can
/// see (`set` on `.Values`, as bitnami's charts keep a generated password, or on a chart's
/// `.`, which its templates share) changes what the next ones read. So they run side by side
/// up to the first that would write to a map it did not make, which then runs alone, and so on.
fn run_templates(
    mut set: TemplateSet,
    chart: &Chart,
    values: &values::Table,
    common: &Common,
    options: &RenderOptions,
    values_files_read: Option<&dyn ValuesFiles>,
) -> Result<Templated, RenderError> {
    let mut templates = BTreeMap::new();
    let root = collect_templates(chart, None, values, common, &mut templates);

    let names = parse_order(templates.keys().cloned());
    {
        use rayon::prelude::*;
        set.parse_ahead(names.par_iter().map(|n| (n.as_str(), templates[n].text)));
    }
    for name in &names {
        set.parse_shared(name, templates[name].text).map_err(|e| {
            ErrorKind::Parse
                .with(parse_error(name, &e.to_string()))
                .at(TemplateLocation::of(&e))
        })?;
    }
    let runnable: Vec<&String> = names
        .iter()
        .filter(|n| !n.rsplit('/').next().unwrap_or_default().starts_with('_'))
        .collect();
    // Rounds: the templates left run side by side up to the first that writes to a map it did
    // not make; that one's run goes on in order once the templates before it have run (or, when
    // one of them still ran it could not, it runs alone after the round), its writes made; the
    // next round sees them. A chart's writers are few (bitnami's set a generated password once;
    // the templates after read it). When a round's first template is a writer, writers likely
    // follow one another: the next ones run in order, twice as many each time this happens, so
    // that a chart whose every template writes costs a few rounds, not one per template.
    let names: Vec<&str> = runnable.iter().map(|n| n.as_str()).collect();
    let mut outputs = Vec::new();
    let mut in_order = 1;
    let finished = |outputs: &Vec<_>| {
        outputs.len() == names.len() || outputs.last().is_some_and(Result::is_err)
    };
    // Each output is printed and its documents read on the core that rendered it, while the
    // other templates still run.
    let printed = |name: &str, out: &mut template::Rendered| {
        // The documents are read from the output's Go bytes (a byte that is not UTF-8 fails
        // as Helm's reading does), and printed as text.
        let text = without_no_value(std::mem::take(&mut out.text));
        let documents = if name.ends_with("NOTES.txt") {
            Vec::new()
        } else {
            output::documents(name, &text, options.objects)
        };
        (printed_text(text), documents)
    };
    while !finished(&outputs) {
        let left = &names[outputs.len()..];
        let template::Independent {
            outcomes: side_by_side,
            last_wrote,
        } = set.render_independent(
            left,
            |i| {
                // Each its own copy of its chart's dot (a write to it is a write to a shared
                // map).
                let t = &templates[left[i]];
                let mut dot = t.dot.entries().into_iter().collect::<BTreeMap<_, _>>();
                dot.insert("Template".to_string(), template_value(left[i], t));
                template::chart_values(Value::map(dot))
            },
            |i, out| printed(left[i], out),
        );
        in_order = match (side_by_side.len(), last_wrote.is_some()) {
            // The round's first template wrote: writers likely follow one another.
            (0, _) | (1, true) => in_order.max(1) * 2,
            // The round ended with a writer whose run went on in order.
            (_, true) => 0,
            // The template after the round is a writer, refused: it runs in order.
            _ => 1,
        };
        if let Some(dot) = last_wrote {
            let name = left[side_by_side.len() - 1];
            keep_dot_writes(&dot, &templates[name].dot);
        }
        outputs.extend(side_by_side);
        for _ in 0..in_order {
            if finished(&outputs) {
                break;
            }
            // As Helm runs it: on the chart's shared dot.
            let name = names[outputs.len()];
            let t = &templates[name];
            t.dot
                .insert("Template".to_string(), template_value(name, t))
                .expect("not an isolated execution");
            let out = set.render(name, &template::chart_values(Value::Map(t.dot.clone())));
            outputs.push(out.map(|mut out| {
                let made = printed(name, &mut out);
                (out, made)
            }));
        }
    }
    let mut rendered = Vec::new();
    let mut documents = Vec::new();
    let mut nondeterministic = Vec::new();
    let mut written = HashMap::new();
    for (name, out) in runnable.into_iter().zip(outputs) {
        let (out, (text, docs)) = out.map_err(|e| {
            ErrorKind::Execute
                .with(template::helm_error(&e))
                .at(TemplateLocation::of(&e))
        })?;
        nondeterministic.extend(out.nondeterministic);
        if options.positions {
            written.insert(
                name.as_str(),
                super::place::Recorded {
                    lines: out.lines,
                    printed: out.printed,
                },
            );
        }
        if !name.ends_with("NOTES.txt") {
            rendered.push((name.clone(), text));
            documents.push((name.clone(), docs));
        }
    }
    nondeterministic.sort_unstable();
    nondeterministic.dedup();
    let (mut manifests, skipped_hooks) = output::sort_documents(documents).map_err(|e| {
        let location = TemplateLocation {
            template: e.template.clone(),
            line: None,
            column: None,
        };
        ErrorKind::Output.with(e.to_string()).at(Some(location))
    })?;
    let mut values_files = BTreeSet::new();
    if options.positions {
        let origins = values_files_read.map(|files| {
            // What the flags alone set: a value they set is in no file.
            let flags = user_values(&RenderOptions {
                values: Vec::new(),
                ..options.clone()
            })
            .unwrap_or_default();
            let root = match &root {
                Value::Map(dot) => match dot.get("Values") {
                    Some(Value::Map(values)) => values,
                    _ => Dict::default(),
                },
                _ => Dict::default(),
            };
            Origins::new(files, chart, &options.values, flags, root)
        });
        values_files =
            super::place::place_manifests(&mut manifests, &rendered, &written, origins.as_ref());
    }
    let mut crds = Vec::new();
    if options.include_crds {
        collect_crds(chart, &chart.name, &mut crds);
    }
    let printed = output::print(&crds, &manifests, &options.output);
    Ok(Templated {
        manifests,
        nondeterministic,
        printed,
        values_files,
        skipped_hooks,
    })
}

/// What `helm template` prints of a template's output (`<no value>` already replaced): its
/// bytes as text.
fn printed_text(text: String) -> String {
    match template::gostr::display(&text) {
        std::borrow::Cow::Owned(shown) => shown,
        std::borrow::Cow::Borrowed(_) => text,
    }
}

/// The template set Helm's engine runs a chart's templates in.
fn template_set(options: &RenderOptions) -> TemplateSet {
    TemplateSet::new(
        Funcs::helm(),
        template::Options {
            missing_key: MissingKey::Zero,
            root_name: "gotpl".into(),
            max_stack: options.template_stack,
            positions: options.positions,
            ..template::Options::default()
        },
    )
}

/// Parses a chart's own templates, found among the files it is about to be loaded from (paths
/// relative to the chart), into the process's parse cache, each as a job for a core that has
/// nothing else to do, while the caller goes on loading the chart: reading its values is most
/// of a load, on one core. The run finds them parsed (its text shares the file's bytes as the
/// job's does; the cache renames them to the run's names). [`Behind`] takes the rest of the
/// tree once the chart is loaded.
pub(crate) fn parse_ahead(files: &[(String, crate::source::Contents)]) {
    // Helm's function table and its fingerprint, made once for the process rather than on
    // this thread for every chart it loads.
    static PARSER: std::sync::LazyLock<Arc<TemplateSet>> =
        std::sync::LazyLock::new(|| Arc::new(template_set(&RenderOptions::default()).parser()));
    let parser = &*PARSER;
    for (path, contents) in files {
        let crate::source::Contents::Read(file) = contents else {
            continue;
        };
        if !Chart::is_template(path) {
            continue;
        }
        let (name, file, parser) = (path.clone(), file.clone(), parser.clone());
        rayon::spawn(move || {
            // A panic is the run's to meet, and report, when it parses the same text.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                parser.parse_unclaimed(&name, &super::chart::template_text(file))
            }));
        });
    }
}

/// Whether `text` was parsed as a Helm template ([`parse_ahead`]).
#[cfg(test)]
pub(crate) fn has_parsed(text: &Arc<str>) -> bool {
    template_set(&RenderOptions::default()).has_parsed(text)
}

/// Work on a chart's tree that does not depend on its values, done on another core while
/// this one processes the dependencies and coalesces the values (a big chart's tree is
/// milliseconds of each): its schemas compiled, then its templates parsed (skipping those its
/// load parsed ahead, [`parse_ahead`]), into the process's caches, where the run finds them.
/// The templates stop when this is dropped: with the values coalesced the run knows which
/// subcharts are disabled, and parses the templates it needs itself.
struct Behind {
    stop: Arc<AtomicBool>,
}

impl Behind {
    fn start(set: &TemplateSet, chart: &Chart, schemas: bool) -> Behind {
        fn walk(chart: &Chart, path: &str, out: &mut Work) {
            for (name, text) in chart.templates.iter() {
                out.templates.push((format!("{path}/{name}"), text.clone()));
            }
            // A schema with remote documents is compiled with them, at its check.
            if chart.schema_documents.is_empty() {
                out.schemas.extend(chart.schema.clone());
            }
            for child in &chart.dependencies {
                walk(child, &format!("{path}/charts/{}", child.name), out);
            }
        }
        #[derive(Default)]
        struct Work {
            templates: Vec<(String, Arc<str>)>,
            schemas: Vec<Arc<str>>,
        }
        let mut work = Work::default();
        walk(chart, &chart.name, &mut work);
        if !schemas {
            work.schemas.clear();
        }
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let parser = set.parser();
        rayon::spawn(move || {
            // A panic is the run's to meet, and report, when it does the same work.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                super::schema::compile_ahead(&work.schemas);
                for (name, text) in &work.templates {
                    if stopped.load(Ordering::Relaxed) {
                        break;
                    }
                    parser.parse_unclaimed(name, text);
                }
            }));
        });
        Behind { stop }
    }
}

impl Drop for Behind {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Makes on `shared`, a chart's dot, the writes a template's run made to `copy`, the copy of
/// it that run had: Helm runs a chart's templates on one map, so after `set $ "Values" …`
/// (istio's charts replace `.Values` so, after a `set` on it) its later templates see the
/// new entry. Only a run that went on in order can have written to its copy (a first write
/// to it is refused, and the template runs in order on `shared`).
fn keep_dot_writes(copy: &Value, shared: &Dict) {
    let Value::Map(copy) = copy else {
        return;
    };
    let written = copy.entries();
    for (key, _) in shared.entries() {
        if key != "Template" && !written.iter().any(|(k, _)| *k == key) {
            shared.remove(&key).expect("not an isolated execution");
        }
    }
    for (key, value) in written {
        if key != "Template" {
            shared
                .insert(key, value)
                .expect("not an isolated execution");
        }
    }
}

/// `.Template` of template `name`.
fn template_value(name: &str, t: &Renderable) -> Value {
    template::chart_values(map([
        ("Name", Value::str(name)),
        ("BasePath", Value::str(t.base_path.as_str())),
    ]))
}

/// What every chart's dot shares.
struct Common {
    release: Value,
    capabilities: Value,
}

/// A template to run: its text, its chart's dot (one map, shared by the chart's templates,
/// as in Helm), and `.Template.BasePath`.
struct Renderable<'c> {
    text: &'c Arc<str>,
    dot: Dict,
    base_path: String,
}

/// Helm's `recAllTpls`: each chart's templates under its full path
/// (`parent/charts/sub/templates/x.yaml`), with the chart's own dot; returns the chart's dot,
/// which its parent's `.Subcharts` holds.
fn collect_templates<'c>(
    chart: &'c Chart,
    parent: Option<(&str, &Dict)>,
    values: &values::Table,
    common: &Common,
    out: &mut BTreeMap<String, Renderable<'c>>,
) -> Value {
    let (full_path, own_values) = match parent {
        None => (chart.name.clone(), Dict::new(values.clone())),
        // Helm's `vals.Table("Values." + name)`: the parent's own map of the chart's name, so
        // a `set` on a subchart's `.Values` is seen in the parent's.
        Some((parent_path, parent_values)) => (
            format!("{parent_path}/charts/{}", chart.name),
            match parent_values.get(&chart.name) {
                Some(Value::Map(own)) => own,
                _ => Dict::default(),
            },
        ),
    };
    let mut subcharts = BTreeMap::new();
    for child in &chart.dependencies {
        let child_dot =
            collect_templates(child, Some((&full_path, &own_values)), values, common, out);
        subcharts.insert(child.name.clone(), child_dot);
    }
    let dot = Dict::new(BTreeMap::from([
        ("Chart".to_string(), chart.dot_value(parent.is_none())),
        ("Files".to_string(), objects::files_value(&chart.files)),
        ("Release".to_string(), common.release.clone()),
        ("Capabilities".to_string(), common.capabilities.clone()),
        (
            "Values".to_string(),
            template::chart_values(Value::Map(own_values)),
        ),
        ("Subcharts".to_string(), Value::map(subcharts)),
    ]));
    let base_path = format!("{full_path}/templates");
    for (path, text) in chart.templates.iter() {
        let partial = path.rsplit('/').next().unwrap_or_default().starts_with('_');
        // A library chart contributes only its partials.
        if chart.is_library() && !partial {
            continue;
        }
        out.insert(
            format!("{full_path}/{path}"),
            Renderable {
                text,
                dot: dot.clone(),
                base_path: base_path.clone(),
            },
        );
    }
    Value::Map(dot)
}

/// The first file of the `.Files` of the tree at `full_path` whose read failed (its path as a
/// template's, `top/charts/sub/files/x`), and the error.
fn unreadable(chart: &Chart, full_path: &str) -> Option<(String, String)> {
    if let Some((file, error)) = chart.files.failure() {
        return Some((format!("{full_path}/{file}"), error));
    }
    chart
        .dependencies
        .iter()
        .find_map(|child| unreadable(child, &format!("{full_path}/charts/{}", child.name)))
}

/// `crds/` files, the chart's own first, then its subcharts', depth first.
fn collect_crds(chart: &Chart, full_path: &str, out: &mut Vec<(String, String)>) {
    // In path order, as Helm's loader reads them.
    let mut paths: Vec<&String> = chart.crds.iter().collect();
    paths.sort();
    for p in paths {
        let text = chart
            .files
            .get(p)
            .map(|s| String::from_utf8_lossy(&crate::template::gostr::to_bytes(&s)).into_owned());
        out.push((format!("{full_path}/{p}"), text.unwrap_or_default()));
    }
    for child in &chart.dependencies {
        collect_crds(child, &format!("{full_path}/charts/{}", child.name), out);
    }
}

/// A values flag of Helm's `values.Options`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValuesFlag {
    SetJson,
    Set,
    SetString,
    SetFile,
    SetLiteral,
}

impl std::fmt::Display for ValuesFlag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ValuesFlag::SetJson => "--set-json",
            ValuesFlag::Set => "--set",
            ValuesFlag::SetString => "--set-string",
            ValuesFlag::SetFile => "--set-file",
            ValuesFlag::SetLiteral => "--set-literal",
        })
    }
}

/// A values flag whose text Helm's parser refuses; Display is Helm's wording (only
/// `--set-json` repeats the flag's text).
#[derive(Debug, thiserror::Error)]
pub struct FlagError {
    pub flag: ValuesFlag,
    /// The flag's text.
    pub text: String,
    #[source]
    pub source: super::strvals::StrvalsError,
}

impl std::fmt::Display for FlagError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.flag {
            ValuesFlag::SetJson => write!(
                f,
                "failed parsing {} data {}: {}",
                self.flag, self.text, self.source
            ),
            _ => write!(f, "failed parsing {} data: {}", self.flag, self.source),
        }
    }
}

/// Helm's `values.Options.MergeValues`: the files in order, then `--set-json`, `--set`,
/// `--set-string`, `--set-file` and `--set-literal`.
pub fn user_values(options: &RenderOptions) -> Result<values::Table, FlagError> {
    use super::strvals::{self, Typing};
    let mut user = values::Table::new();
    for v in &options.values {
        if let Some(t) = values::table(v) {
            user = values::merge_maps(user, t);
        }
    }
    fn failed(
        flag: ValuesFlag,
        text: &str,
    ) -> impl FnOnce(strvals::StrvalsError) -> FlagError + '_ {
        move |source| FlagError {
            flag,
            text: text.to_string(),
            source,
        }
    }
    for s in &options.set_json {
        strvals::parse_json_into(s, &mut user).map_err(failed(ValuesFlag::SetJson, s))?;
    }
    for s in &options.set {
        strvals::parse_into(s, &mut user, Typing::Typed).map_err(failed(ValuesFlag::Set, s))?;
    }
    for s in &options.set_string {
        strvals::parse_into(s, &mut user, Typing::String)
            .map_err(failed(ValuesFlag::SetString, s))?;
    }
    for flag in &options.set_file {
        flag.parse_into(&mut user)
            .map_err(failed(ValuesFlag::SetFile, &flag.text))?;
    }
    for s in &options.set_literal {
        strvals::parse_literal_into(s, &mut user).map_err(failed(ValuesFlag::SetLiteral, s))?;
    }
    Ok(user)
}

fn map<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::map(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

/// Helm's `sortTemplates`: more path segments first, then reverse lexical order.
fn parse_order(names: impl Iterator<Item = String>) -> Vec<String> {
    // Each name's depth counted once, not at every comparison (a chart with a library in each
    // subchart sorts a thousand names).
    let depth = |s: &str| s.bytes().filter(|&b| b == b'/').count();
    let mut names: Vec<(usize, String)> = names.map(|n| (depth(&n), n)).collect();
    names.sort_by(|(da, a), (db, b)| db.cmp(da).then_with(|| b.cmp(a)));
    names.into_iter().map(|(_, n)| n).collect()
}

/// Helm's `cleanupParseError`: `parse error at (FILE:LINE): MESSAGE`, the message being the
/// last `: ` part of Go's error.
fn parse_error(file: &str, go: &str) -> String {
    let first = go.lines().next().unwrap_or_default();
    let tokens: Vec<&str> = first.split(": ").collect();
    if tokens.len() < 2 {
        return format!("parse error in ({file}): {first}");
    }
    format!(
        "parse error at ({}): {}",
        tokens[1],
        tokens[tokens.len() - 1]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_parse_deepest_first_then_reverse_order() {
        let order = parse_order(
            [
                "c/templates/a.yaml",
                "c/templates/x/b.yaml",
                "c/templates/z.yaml",
            ]
            .into_iter()
            .map(String::from),
        );
        assert_eq!(
            order,
            [
                "c/templates/x/b.yaml",
                "c/templates/z.yaml",
                "c/templates/a.yaml"
            ]
        );
    }

    /// The error of rendering a chart `top` (with a subchart `sub` and its helpers) whose
    /// other files are `files`.
    fn failure(files: &[(&str, &str)]) -> RenderError {
        let mut all = vec![
            ("Chart.yaml", "apiVersion: v2\nname: top\nversion: 1.0.0\n"),
            (
                "charts/sub/Chart.yaml",
                "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
            ),
            (
                "charts/sub/templates/_helpers.tpl",
                "{{- define \"sub.nil\" -}}\n{{ .Values.a.b }}\n{{- end }}\n{{- define \"sub.fail\" -}}\n  {{ fail \"boom\" }}\n{{- end }}",
            ),
        ];
        all.extend_from_slice(files);
        let chart = Chart::from_files(
            all.iter()
                .map(|(path, text)| (path.to_string(), text.as_bytes().to_vec())),
        )
        .expect("the chart loads");
        render(&chart, &RenderOptions::default()).expect_err("the render fails")
    }

    /// A chart `top` with a subchart `sub` whose `files/a.txt` and `files/b.txt` are read
    /// later: `a.txt` gives `alpha`, `b.txt` fails. Counts the reads that ran.
    fn chart_with_later_files(
        template: &str,
        reads: &Arc<std::sync::atomic::AtomicUsize>,
    ) -> Chart {
        use crate::source::{Contents, SourceError};
        let read = |path: &'static str, text: Option<&'static str>| {
            let reads = reads.clone();
            Contents::Later(Box::new(move || {
                reads.fetch_add(1, Ordering::SeqCst);
                text.map(|t| crate::source::Bytes::from(t.as_bytes()))
                    .ok_or_else(|| SourceError::Io {
                        path: path.to_string(),
                        message: "Permission denied".to_string(),
                    })
            }))
        };
        let text = |t: &str| Contents::Read(crate::source::Bytes::from(t.as_bytes()));
        Chart::load([
            (
                "Chart.yaml".to_string(),
                text("apiVersion: v2\nname: top\nversion: 1.0.0\n"),
            ),
            (
                "charts/sub/Chart.yaml".to_string(),
                text("apiVersion: v2\nname: sub\nversion: 1.0.0\n"),
            ),
            ("charts/sub/templates/x.yaml".to_string(), text(template)),
            (
                "charts/sub/files/a.txt".to_string(),
                read("top/charts/sub/files/a.txt", Some("alpha")),
            ),
            (
                "charts/sub/files/b.txt".to_string(),
                read("top/charts/sub/files/b.txt", None),
            ),
        ])
        .expect("the chart loads")
    }

    #[test]
    fn files_are_read_when_a_template_asks_for_them() {
        let reads = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let chart = chart_with_later_files(
            "a: {{ .Files.Get \"files/a.txt\" }}\nn: {{ len (.Files.Glob \"files/a*\") }}\n",
            &reads,
        );
        let out = render(&chart, &RenderOptions::default()).expect("renders");
        assert!(out.output.contains("a: alpha\nn: 1\n"), "{}", out.output);
        // Once, and b.txt (which would fail) never.
        assert_eq!(reads.load(Ordering::SeqCst), 1);
        let quiet = chart_with_later_files("a: 1\n", &reads);
        render(&quiet, &RenderOptions::default()).expect("renders");
        assert_eq!(reads.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_file_that_cannot_be_read_fails_the_render_at_the_file() {
        let reads = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        // The template fails on the empty text it got; the read is the error.
        let chart = chart_with_later_files(
            "b: {{ .Files.Get \"files/b.txt\" | required \"b.txt is empty\" }}\n",
            &reads,
        );
        let e = render(&chart, &RenderOptions::default()).expect_err("fails");
        assert_eq!(e.kind, ErrorKind::Files);
        assert_eq!(
            e.message,
            "cannot read top/charts/sub/files/b.txt: Permission denied"
        );
        assert_eq!(e.location, at("top/charts/sub/files/b.txt", None, None));
    }

    fn at(template: &str, line: Option<u32>, column: Option<u32>) -> Option<TemplateLocation> {
        Some(TemplateLocation {
            template: template.into(),
            line,
            column,
        })
    }

    #[test]
    fn errors_carry_the_template_they_start_from() {
        // An include of a subchart's helper: where the include is, as Helm's message starts.
        let e = failure(&[("templates/x.yaml", "a:\n  {{ include \"sub.nil\" . }}")]);
        assert_eq!(e.kind, ErrorKind::Execute);
        assert_eq!(e.location, at("top/templates/x.yaml", Some(2), Some(5)));
        assert!(
            e.message.starts_with("template: top/templates/x.yaml:2:5: executing \"top/templates/x.yaml\" at <include \"sub.nil\" .>: error calling include: template: top/charts/sub/templates/_helpers.tpl:2:10: "),
            "{}",
            e.message
        );
        // `template` does not wrap: the helper's own position.
        let e = failure(&[("templates/x.yaml", "a:\n  {{ template \"sub.nil\" . }}")]);
        assert_eq!(
            e.location,
            at("top/charts/sub/templates/_helpers.tpl", Some(2), Some(10))
        );
        // `fail` inside `tpl` inside a subchart's template.
        let e = failure(&[(
            "charts/sub/templates/y.yaml",
            "a:\n\n  b: {{ tpl \"{{ include \\\"sub.fail\\\" . }}\" . }}",
        )]);
        assert_eq!(
            e.message,
            "execution error at (top/charts/sub/templates/y.yaml:3:8): boom"
        );
        assert_eq!(
            e.location,
            at("top/charts/sub/templates/y.yaml", Some(3), Some(8))
        );
        // Parse errors give a line; output errors only the template.
        let e = failure(&[("charts/sub/templates/y.yaml", "a:\n  {{ if }}")]);
        assert_eq!(e.kind, ErrorKind::Parse);
        assert_eq!(
            e.location,
            at("top/charts/sub/templates/y.yaml", Some(2), None)
        );
        let e = failure(&[("templates/x.yaml", "a: b: c\n")]);
        assert_eq!(e.kind, ErrorKind::Output);
        assert_eq!(e.location, at("top/templates/x.yaml", None, None));
    }

    #[test]
    fn parse_errors_are_worded_as_helm_does() {
        assert_eq!(
            parse_error(
                "c/templates/a.yaml",
                "template: c/templates/a.yaml:1: function \"x\" not defined"
            ),
            "parse error at (c/templates/a.yaml:1): function \"x\" not defined"
        );
    }
}
