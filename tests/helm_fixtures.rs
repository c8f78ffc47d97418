//! kdelta's own Helm cases (`testdata/helm/NN-name/`): `chart/` rendered as the case's
//! `command` says (`helm template [NAME] chart [-f FILE]… [--set[-string|-literal|-json|-file] X]…
//! [-n NS] [--include-crds]
//! [--skip-tests] [--no-hooks] [--is-upgrade] [--kube-version V]`) must give `expected.yaml`,
//! which the reference helm v3.17.3 wrote (see testdata/helm/README.md).

use kdelta::helm::{chart::Chart, render};
use std::path::{Path, PathBuf};

fn chart_files(chart: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![chart.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir)
            .expect("a chart directory")
            .flatten()
        {
            let path = e.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(chart).expect("inside the chart");
                let bytes = std::fs::read(&path).expect("a readable file");
                files.push((rel.to_string_lossy().replace('\\', "/"), bytes));
            }
        }
    }
    files
}

/// The options `command` asks for, and the chart directory.
fn parse_command(case: &Path, command: &str) -> (PathBuf, render::RenderOptions) {
    let mut args = command.split_whitespace();
    assert_eq!(args.next(), Some("helm"), "{command}");
    assert_eq!(args.next(), Some("template"), "{command}");
    let mut options = render::RenderOptions {
        template_stack: 192 << 20,
        ..render::RenderOptions::default()
    };
    let mut positional = Vec::new();
    while let Some(a) = args.next() {
        let mut value = || args.next().expect("a flag's value").to_string();
        match a {
            "-f" | "--values" => {
                let text = std::fs::read_to_string(case.join(value())).expect("a values file");
                options
                    .values
                    .push(kdelta::template::helm_values(&text).expect("values parse"));
            }
            "--set" => options.set.push(value()),
            "--set-string" => options.set_string.push(value()),
            "--set-literal" => options.set_literal.push(value()),
            "--set-json" => options.set_json.push(value()),
            "--set-file" => {
                let v = value();
                let (key, file) = v.split_once('=').expect("--set-file key=path");
                let content = std::fs::read_to_string(case.join(file)).expect("a --set-file file");
                options.set_file.push((key.to_string(), content));
            }
            "-n" | "--namespace" => options.namespace = value(),
            "--kube-version" => options.kube_version = Some(value()),
            "--include-crds" => options.include_crds = true,
            "--skip-tests" => options.output.skip_tests = true,
            "--no-hooks" => options.output.no_hooks = true,
            "--is-upgrade" => options.is_upgrade = true,
            other if other.starts_with('-') => panic!("{command}: flag {other} is not supported"),
            other => positional.push(other.to_string()),
        }
    }
    let chart = match positional.as_slice() {
        [chart] => chart.clone(),
        [name, chart] => {
            options.release_name = name.clone();
            chart.clone()
        }
        _ => panic!("{command}: expected [NAME] CHART"),
    };
    (case.join(chart), options)
}

#[test]
fn helm_fixtures_match_helm() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/helm");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("testdata/helm")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("case.yaml").is_file())
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no cases in testdata/helm");
    let mut problems = Vec::new();
    for case in &cases {
        let text = std::fs::read_to_string(case.join("case.yaml")).expect("case.yaml");
        let command = text
            .lines()
            .find_map(|l| l.strip_prefix("command: "))
            .expect("case.yaml has a command");
        let (chart, options) = parse_command(case, command);
        let files = chart_files(&chart);
        let got = std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(move || {
                Chart::from_files(files)
                    .map_err(|e| e.to_string())
                    .and_then(|c| render::render_chart(&c, &options))
            })
            .expect("a render thread")
            .join()
            .expect("no panic");
        let name = case.file_name().unwrap_or_default().to_string_lossy();
        let expected = std::fs::read_to_string(case.join("expected.yaml")).ok();
        let expected_error = std::fs::read_to_string(case.join("expected-error.txt")).ok();
        match (got, expected, expected_error) {
            (Ok(out), Some(want), _) if out == want => {}
            // Helm's error as recorded: its first line.
            (Err(e), _, Some(want)) if e.lines().next() == want.lines().next() => {}
            (got, want, want_error) => problems.push(format!(
                "{name}: got {got:?}\nexpected {want:?} / error {want_error:?}"
            )),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
