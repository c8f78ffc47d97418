//! The template engine on a real chart's templates: parsing every template file of a chart
//! into one set, executing every manifest template, and the whole of `helm template` for
//! the chart through the Helm engine (loading, values, rendering, the output stage).
//!
//! The chart is `KDELTA_BENCH_CHART` (a chart directory), else argo-rollouts from the shared
//! conformance corpus (`../shared/conformance/helm/charts/argo-rollouts/in`). Without either,
//! the benchmarks say so and measure nothing. The dot is what Helm gives a chart without
//! dependencies: `.Values`, `.Release`, `.Chart`, `.Capabilities` and `.Template`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use divan::counter::ItemsCount;
use divan::Bencher;
use kdelta::template::{
    chart_values, helm_values, Funcs, MissingKey, Object, ObjectRef, Options, TemplateSet, Value,
};

/// Counts allocations and their bytes beside the times.
#[global_allocator]
static ALLOC: divan::AllocProfiler = divan::AllocProfiler::system();

fn main() {
    divan::main();
}

struct Chart {
    dir: PathBuf,
    name: String,
    /// Template name (`argo-rollouts/templates/controller/deployment.yaml`) and text.
    files: Vec<(String, String)>,
    values: Value,
    metadata: Value,
}

fn chart_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("KDELTA_BENCH_CHART") {
        return Some(PathBuf::from(dir));
    }
    let shared = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/conformance/helm/charts/argo-rollouts/in");
    shared.is_dir().then_some(shared)
}

static CHART: LazyLock<Option<Chart>> = LazyLock::new(|| {
    let Some(dir) = chart_dir() else {
        eprintln!("template bench: no chart (set KDELTA_BENCH_CHART or provide ../shared)");
        return None;
    };
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    let chart_yaml = helm_values(&read(&dir.join("Chart.yaml"))).expect("Chart.yaml parses");
    let Value::Map(meta) = &chart_yaml else {
        panic!("Chart.yaml is a mapping");
    };
    let name = meta
        .get("name")
        .and_then(|n| n.as_str().map(str::to_string))
        .expect("the chart has a name");
    // Helm's chart.Metadata fields, capitalised.
    let metadata = Value::map(
        meta.entries()
            .into_iter()
            .map(|(k, v)| {
                let mut key = k.clone();
                key[..1].make_ascii_uppercase();
                (key, v)
            })
            .collect(),
    );
    let values = chart_values(helm_values(&read(&dir.join("values.yaml"))).expect("values"));
    let mut files = Vec::new();
    collect(&dir.join("templates"), &dir, &name, &mut files);
    files.sort();
    Some(Chart {
        dir: dir.clone(),
        name,
        files,
        values,
        metadata,
    })
});

fn collect(dir: &Path, root: &Path, chart: &str, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            collect(&path, root, chart, out);
        } else if let Ok(text) = std::fs::read_to_string(&path) {
            let rel = path.strip_prefix(root).unwrap_or(&path).to_string_lossy();
            out.push((format!("{chart}/{rel}"), text));
        }
    }
}

/// `.Capabilities.APIVersions`: Helm's `VersionSet`, with its `Has` method.
#[derive(Debug)]
struct ApiVersions(Vec<&'static str>);

impl Object for ApiVersions {
    fn type_name(&self) -> &'static str {
        "chartutil.VersionSet"
    }

    fn kind_name(&self) -> &'static str {
        "slice"
    }

    fn call(&self, method: &str, args: &[Value]) -> Option<Result<Value, String>> {
        (method == "Has").then(|| {
            let want = args.first().and_then(|a| a.as_str()).unwrap_or_default();
            Ok(Value::Bool(self.0.contains(&want)))
        })
    }

    fn text(&self) -> String {
        format!("[{}]", self.0.join(" "))
    }
}

fn options() -> Options {
    Options {
        missing_key: MissingKey::Zero,
        root_name: "gotpl".into(),
        max_stack: 4 << 20,
        ..Options::default()
    }
}

fn parse(chart: &Chart) -> TemplateSet {
    let mut set = TemplateSet::new(Funcs::helm(), options());
    for (name, text) in &chart.files {
        set.parse(name, text).expect("the chart's templates parse");
    }
    set
}

fn map(entries: &[(&str, Value)]) -> Value {
    Value::map(
        entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect::<BTreeMap<_, _>>(),
    )
}

/// The manifest templates (not partials) and the dot each runs with.
fn runs(chart: &Chart) -> Vec<(String, Value)> {
    let release = map(&[
        ("Name", Value::str("release-name")),
        ("Namespace", Value::str("default")),
        ("Service", Value::str("Helm")),
        ("IsInstall", Value::Bool(true)),
        ("IsUpgrade", Value::Bool(false)),
        ("Revision", Value::Int(1)),
    ]);
    let api_versions = ApiVersions(vec!["v1", "apps/v1", "batch/v1", "networking.k8s.io/v1"]);
    let capabilities = map(&[
        (
            "KubeVersion",
            map(&[
                ("Version", Value::str("v1.32.0")),
                ("GitVersion", Value::str("v1.32.0")),
                ("Major", Value::str("1")),
                ("Minor", Value::str("32")),
            ]),
        ),
        (
            "APIVersions",
            Value::Object(ObjectRef(std::sync::Arc::new(api_versions))),
        ),
    ]);
    chart
        .files
        .iter()
        .filter(|(name, _)| {
            let file = name.rsplit('/').next().unwrap_or_default();
            !file.starts_with('_') && (file.ends_with(".yaml") || file.ends_with(".tpl"))
        })
        .map(|(name, _)| {
            let template = map(&[
                ("Name", Value::str(name.as_str())),
                ("BasePath", Value::str(format!("{}/templates", chart.name))),
            ]);
            let dot = map(&[
                ("Values", chart.values.clone()),
                ("Release", release.clone()),
                ("Chart", chart.metadata.clone()),
                ("Capabilities", capabilities.clone()),
                ("Template", template),
            ]);
            (name.clone(), dot)
        })
        .collect()
}

#[divan::bench]
fn parse_chart(bencher: Bencher) {
    let Some(chart) = CHART.as_ref() else { return };
    bencher
        .counter(ItemsCount::new(chart.files.len()))
        .bench(|| parse(chart));
}

/// The parser alone: every template file parsed anew (`parse_chart` finds all but the first
/// round in the process's parse cache).
#[divan::bench]
fn parse_chart_uncached(bencher: Bencher) {
    let Some(chart) = CHART.as_ref() else { return };
    let set = TemplateSet::new(Funcs::helm(), options());
    bencher
        .counter(divan::counter::BytesCount::new(
            chart.files.iter().map(|(_, t)| t.len()).sum::<usize>(),
        ))
        .bench(|| {
            chart
                .files
                .iter()
                .map(|(name, text)| set.parse_uncached(name, text).expect("parses"))
                .sum::<usize>()
        });
}

#[divan::bench]
fn execute_chart(bencher: Bencher) {
    let Some(chart) = CHART.as_ref() else { return };
    let set = parse(chart);
    let runs = runs(chart);
    // Every manifest renders (a failing one would measure an early exit). With
    // KDELTA_BENCH_DUMP=DIR the outputs are written there, to compare with `helm template`.
    let dump = std::env::var_os("KDELTA_BENCH_DUMP").map(PathBuf::from);
    for (name, dot) in &runs {
        let out = set
            .execute(name, dot)
            .unwrap_or_else(|e| panic!("{name} does not render: {e}"));
        if let Some(dir) = &dump {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().expect("a file in a directory")).ok();
            std::fs::write(&path, out).expect("the dump directory is writable");
        }
    }
    bencher.counter(ItemsCount::new(runs.len())).bench(|| {
        runs.iter()
            .map(|(name, dot)| set.execute(name, dot).map(|s| s.len()).unwrap_or(0))
            .sum::<usize>()
    });
}

#[divan::bench]
fn parse_and_execute_chart(bencher: Bencher) {
    let Some(chart) = CHART.as_ref() else { return };
    let runs = runs(chart);
    bencher.counter(ItemsCount::new(runs.len())).bench(|| {
        let set = parse(chart);
        runs.iter()
            .map(|(name, dot)| set.execute(name, dot).map(|s| s.len()).unwrap_or(0))
            .sum::<usize>()
    });
}

/// The chart's files, as the Helm engine loads them.
fn chart_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = e.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(bytes) = std::fs::read(&path) {
                let rel = path.strip_prefix(dir).unwrap_or(&path);
                out.push((rel.to_string_lossy().into_owned(), bytes));
            }
        }
    }
    out
}

/// `helm template CHART`, whole: what `scripts/bench.sh`-style comparisons time against helm.
#[divan::bench]
fn helm_template(bencher: Bencher) {
    use kdelta::helm::{chart, render};
    let Some(c) = CHART.as_ref() else { return };
    let files = chart_files(&c.dir);
    let options = render::RenderOptions {
        template_stack: 4 << 20,
        ..render::RenderOptions::default()
    };
    let loaded = chart::Chart::from_files(files.clone()).expect("the chart loads");
    render::render_chart(&loaded, &options).expect("the chart renders");
    bencher.bench(|| {
        let loaded = chart::Chart::from_files(files.clone()).expect("the chart loads");
        render::render_chart(&loaded, &options).map(|s| s.len())
    });
}
