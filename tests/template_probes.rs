//! The template engine against the probe corpus of `testdata/template/` (see its README): each
//! probe is the chart file `probe/templates/_probe.tpl`, included with `.Values` (the category's
//! `data.yaml`, read as Helm reads values) under `missingkey=zero`. Its output must equal what
//! helm v3.17.3 printed byte for byte, its error Go's own error text. Probes that fail today are
//! listed in `testdata/template/known-failures.txt`, checked both ways: an unlisted failure fails
//! the test, and so does a listed probe that passes. `KDELTA_PROBE_TRACE=1` prints what the
//! listed ones give.

use kdelta::template::{Funcs, MissingKey, Options, TemplateSet};
use serde_json::Value as Json;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const PROBE_NAME: &str = "probe/templates/_probe.tpl";

fn corpus() -> PathBuf {
    match std::env::var_os("KDELTA_TEMPLATE_PROBES") {
        // A corpus elsewhere (while recording one).
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/template"),
    }
}

/// The stack each probe runs on, and the share of it templates may use: enough for Helm's
/// 1,000 nested includes in a debug build (a few KiB each).
const PROBE_STACK: usize = 256 << 20;
const TEMPLATE_STACK: usize = 192 << 20;

/// Runs one probe on its own thread: its output, or its error text.
fn run(template: &str, data: &str) -> Result<String, String> {
    let (template, data) = (template.to_string(), data.to_string());
    std::thread::Builder::new()
        .stack_size(PROBE_STACK)
        .spawn(move || run_here(&template, &data))
        .expect("a probe thread starts")
        .join()
        .expect("a probe never panics")
}

/// Runs a file-level probe: the text is `probe/templates/probe.yaml` of a chart whose values
/// are `data`, rendered as `helm template` renders it (its whole stdout).
fn run_file(template: &str, data: &str) -> Result<String, String> {
    use kdelta::helm::{chart::Chart, render};
    let files = vec![
        (
            "Chart.yaml".to_string(),
            b"apiVersion: v2\nname: probe\nversion: 0.1.0\n".to_vec(),
        ),
        ("values.yaml".to_string(), data.as_bytes().to_vec()),
        (
            "templates/probe.yaml".to_string(),
            template.as_bytes().to_vec(),
        ),
    ];
    std::thread::Builder::new()
        .stack_size(PROBE_STACK)
        .spawn(move || {
            let chart = Chart::from_files(files).map_err(|e| e.to_string())?;
            let options = render::RenderOptions {
                template_stack: TEMPLATE_STACK,
                ..render::RenderOptions::default()
            };
            render::render_chart(&chart, &options)
        })
        .expect("a probe thread starts")
        .join()
        .expect("a probe never panics")
}

fn run_here(template: &str, data: &str) -> Result<String, String> {
    let mut set = TemplateSet::new(
        Funcs::helm(),
        Options {
            missing_key: MissingKey::Zero,
            root_name: "gotpl".into(),
            max_stack: TEMPLATE_STACK,
            ..Options::default()
        },
    );
    // Each probe gets a fresh dot: sprig's set/merge change maps in place.
    let dot = kdelta::template::chart_values(
        kdelta::template::helm_values(data).expect("data.yaml parses"),
    );
    set.parse(PROBE_NAME, template).map_err(|e| e.to_string())?;
    set.execute(PROBE_NAME, &dot)
        .map_err(|e| kdelta::template::helm_error(&e))
}

#[test]
fn template_probes_match_helm() {
    let root = corpus();
    let data =
        std::fs::read_to_string(root.join("data.yaml")).expect("testdata/template/data.yaml");
    let known: BTreeSet<String> = std::fs::read_to_string(root.join("known-failures.txt"))
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split_whitespace().next().unwrap_or_default().to_string())
        .collect();
    let mut categories: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("testdata/template exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("probes.json").is_file())
        .collect();
    categories.sort();
    let (mut passed, mut failed_known) = (0, 0);
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for dir in &categories {
        let category = dir.file_name().unwrap().to_string_lossy().to_string();
        let read = |f: &str| -> Json {
            serde_json::from_str(&std::fs::read_to_string(dir.join(f)).expect(f)).expect(f)
        };
        let (probes, expected) = (read("probes.json"), read("expected.json"));
        for probe in probes.as_array().expect("a list") {
            let name = probe[0].as_str().expect("a name");
            let template = probe[1].as_str().expect("a template");
            let id = format!("{category}/{name}");
            seen.insert(id.clone());
            let want = &expected[name];
            let got = if category == "file-level" {
                run_file(template, &data)
            } else {
                run(template, &data)
            };
            let ok = match (
                &got,
                want.get("out"),
                want.get("go_error").or(want.get("error")),
            ) {
                (Ok(out), Some(Json::String(w)), _) => out == w,
                // Bytes that are not UTF-8, as kdelta carries them in a string.
                (Ok(out), None, None) => {
                    want.get("out_b64").and_then(Json::as_str).is_some_and(|w| {
                        use base64::Engine;
                        base64::engine::general_purpose::STANDARD.decode(w).ok()
                            == Some(kdelta::template::gostr::to_bytes(out).into_owned())
                    })
                }
                // Helm's message is recorded up to its first line break.
                (Err(e), None, Some(Json::String(w))) => e.lines().next().unwrap_or_default() == w,
                _ => false,
            };
            match (ok, known.contains(&id)) {
                (true, false) => passed += 1,
                (true, true) => {
                    problems.push(format!("{id} passes: remove it from known-failures.txt"))
                }
                (false, true) => {
                    failed_known += 1;
                    if std::env::var_os("KDELTA_PROBE_TRACE").is_some() {
                        eprintln!("known {id}: expected {want}, got {got:?}");
                    }
                }
                (false, false) => problems.push(format!("{id}: expected {want}, got {got:?}")),
            }
        }
    }
    for k in known.difference(&seen) {
        problems.push(format!(
            "{k} is listed in known-failures.txt but is no probe"
        ));
    }
    println!(
        "template probes: {passed} passed, {failed_known} failed (known), {} problems",
        problems.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
