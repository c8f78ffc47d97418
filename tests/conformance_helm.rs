//! Conformance corpus `helm` (DESIGN.md section 8): `helm template` v3.17.3 results, run
//! through the Helm engine ([`run_helm_case`]): the `subpop` chart's dependency cases (which
//! charts are enabled, import-values), real public charts, and template probes.

#[allow(dead_code)] // the shared harness, of which each corpus uses a part
#[path = "conformance/harness.rs"]
mod harness;

use std::path::{Path, PathBuf};

use harness::{case_dirs, dir_name, field, read_text, read_yaml, strings, text, Outcome, Results};
use serde_json::Value;

#[test]
fn conformance() {
    harness::run_corpus(helm_corpus);
}

/// One Helm case, with the corpus's expectation.
enum HelmCase {
    /// `helm template` of a chart: the whole output stream. Lines matching `masks` carry random
    /// values (compare them with the values blanked).
    Template {
        chart: PathBuf,
        release: String,
        namespace: String,
        values_files: Vec<PathBuf>,
        masks: Vec<String>,
        expected: String,
    },
    /// Which charts survive tags and conditions, with `values` (YAML text) as the user's values:
    /// sorted chart paths (`parentchart.subchart1`).
    Enabled {
        chart: PathBuf,
        values: String,
        expected: Vec<String>,
    },
    /// One value of the root chart's final `.Values` after import-values, as Go prints it
    /// (`None`: present and null).
    ImportValue {
        chart: PathBuf,
        path: String,
        expected: Option<String>,
    },
    /// `tpl` of `template` with `data` as the dot: the output, or the first line of the error.
    Probe {
        template: String,
        data: PathBuf,
        expected: Result<String, String>,
    },
}

/// A chart directory's files, as the Helm engine loads them.
fn chart_files(chart: &Path) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut files = Vec::new();
    let mut stack = vec![chart.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries =
            std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(bytes) = std::fs::read(&path) {
                let rel = path.strip_prefix(chart).unwrap_or(&path);
                files.push((rel.to_string_lossy().replace('\\', "/"), bytes));
            }
        }
    }
    Ok(files)
}

/// The chart with dependencies processed for `user` values, and its final root values.
fn processed_chart(
    chart: &Path,
    user: &str,
) -> Result<(kdelta::helm::chart::Chart, kdelta::helm::values::Table), String> {
    use kdelta::helm::{chart::Chart, deps, values};
    let mut c = Chart::from_files(chart_files(chart)?).map_err(|e| e.to_string())?;
    let user = values::table(&kdelta::template::helm_values(user).map_err(|e| e.to_string())?)
        .unwrap_or_default();
    deps::process(&mut c, &user).map_err(|e| e.to_string())?;
    let vals =
        values::coalesce_values_for(&c, &user, values::Copies::Deep).map_err(|e| e.to_string())?;
    Ok((c, vals))
}

/// Renders a Helm case and compares it with its expectation.
fn run_helm_case(case: &HelmCase) -> Outcome {
    match case {
        HelmCase::Probe {
            template,
            data,
            expected,
        } => run_template_probe(template, data, expected),
        HelmCase::Template {
            chart,
            release,
            namespace,
            values_files,
            masks,
            expected,
        } => run_chart_template(chart, release, namespace, values_files, masks, expected),
        HelmCase::Enabled {
            chart,
            values,
            expected,
        } => match processed_chart(chart, values) {
            Ok((c, _)) => {
                let got = kdelta::helm::deps::chart_paths(&c);
                if &got == expected {
                    Outcome::Pass
                } else {
                    Outcome::Fail(format!("charts {got:?}, expected {expected:?}"))
                }
            }
            Err(e) => Outcome::Fail(e),
        },
        HelmCase::ImportValue {
            chart,
            path,
            expected,
        } => match processed_chart(chart, "") {
            Ok((_, vals)) => {
                let (tables, key) = path.rsplit_once('.').unwrap_or(("", path));
                let table = if tables.is_empty() {
                    Some(vals)
                } else {
                    kdelta::helm::values::table_at_shared(&vals, tables)
                };
                let got = table.and_then(|t| t.get(key).cloned()).map(|v| match v {
                    kdelta::template::Value::Nil => None,
                    v => Some(kdelta::template::sprint(&[v])),
                });
                match got {
                    Some(g) if &g == expected => Outcome::Pass,
                    other => Outcome::Fail(format!("{path}: got {other:?}, expected {expected:?}")),
                }
            }
            Err(e) => Outcome::Fail(e),
        },
    }
}

/// `helm template` of a chart directory, compared with the reference output after blanking
/// the lines the case masks (random values) on both sides.
fn run_chart_template(
    chart: &Path,
    release: &str,
    namespace: &str,
    values_files: &[PathBuf],
    masks: &[String],
    expected: &str,
) -> Outcome {
    use kdelta::helm::{chart::Chart, render};
    let files = match chart_files(chart) {
        Ok(f) => f,
        Err(e) => return Outcome::Fail(e),
    };
    let mut values = Vec::new();
    for f in values_files {
        match read_text(f)
            .and_then(|t| kdelta::template::helm_values(&t).map_err(|e| e.to_string()))
        {
            Ok(v) => values.push(v),
            Err(e) => return Outcome::Fail(format!("values: {e}")),
        }
    }
    let options = render::RenderOptions {
        release_name: release.to_string(),
        namespace: namespace.to_string(),
        values,
        template_stack: 192 << 20,
        ..render::RenderOptions::default()
    };
    let got = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            Chart::from_files(files)
                .map_err(|e| e.to_string())
                .and_then(|c| render::render_chart(&c, &options))
        })
        .expect("a render thread starts")
        .join()
        .unwrap_or_else(|_| Err("the render panicked".to_string()));
    let got = match got {
        Ok(out) => out,
        Err(e) => return Outcome::Fail(e),
    };
    // KDELTA_HELM_DUMP=DIR keeps kdelta's output of every chart case, to diff by hand.
    if let Some(dir) = std::env::var_os("KDELTA_HELM_DUMP") {
        let name = chart.to_string_lossy().replace(['/', '\\'], "_");
        let file = Path::new(&dir).join(format!("{name}-{}.yaml", values_files.len()));
        std::fs::write(file, &got).ok();
    }
    let masks: Vec<regex::Regex> = masks
        .iter()
        .filter_map(|m| regex::Regex::new(m).ok())
        .collect();
    let blank = |text: &str| -> String {
        text.lines()
            .map(|l| {
                if masks.iter().any(|m| m.is_match(l)) {
                    "<masked>"
                } else {
                    l
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let (got, want) = (blank(&got), blank(expected));
    if got == want {
        return Outcome::Pass;
    }
    let line = got
        .lines()
        .zip(want.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(got.lines().count().min(want.lines().count()));
    Outcome::Fail(format!(
        "differs from helm at line {}: got {:?}, want {:?}",
        line + 1,
        got.lines().nth(line).unwrap_or_default(),
        want.lines().nth(line).unwrap_or_default()
    ))
}

/// A probe as Helm's `tpl` runs it: template `gotpl`, `missingkey=zero`, `<no value>` removed,
/// the dot loaded as Helm loads values (YAML 1.1 keys, every number a float64). An error case
/// passes when the reference error ends with kdelta's error (the reference wraps it in the
/// chart's own `tpl` call).
fn run_template_probe(template: &str, data: &Path, expected: &Result<String, String>) -> Outcome {
    use kdelta::template::{Funcs, MissingKey, Options, TemplateSet};
    let dot = match read_text(data)
        .and_then(|t| kdelta::template::helm_values(&t).map_err(|e| e.to_string()))
    {
        Ok(d) => d,
        Err(e) => return Outcome::Fail(format!("data: {e}")),
    };
    let mut set = TemplateSet::new(
        Funcs::builtin(),
        Options {
            missing_key: MissingKey::Zero,
            ..Options::default()
        },
    );
    let got = set
        .parse("gotpl", template)
        .and_then(|()| set.execute("gotpl", &dot))
        .map(|out| out.replace("<no value>", ""))
        .map_err(|e| e.to_string());
    match (expected, &got) {
        (Ok(want), Ok(out)) if want == out => Outcome::Pass,
        (Err(want), Err(e)) if want.ends_with(e.as_str()) => Outcome::Pass,
        _ => Outcome::Fail(format!("expected {expected:?}, got {got:?}")),
    }
}

/// Case names from free text: `tags with no effect` → `tags-with-no-effect`.
fn slug(name: &str) -> String {
    name.to_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

fn helm_dependency_cases(dir: &Path, results: &mut Results) {
    let chart = dir.join("subpop");
    let dump_chart = dir.join("subpop-dump");
    for (name, chart, expected) in [
        ("template/subpop", &chart, "expected-subpop-default.yaml"),
        (
            "template/subpop-dump",
            &dump_chart,
            "expected-subpop-dump.yaml",
        ),
    ] {
        let case = read_text(&dir.join(expected)).map(|expected| HelmCase::Template {
            chart: chart.clone(),
            release: "rel".to_string(),
            namespace: "default".to_string(),
            values_files: Vec::new(),
            masks: Vec::new(),
            expected,
        });
        results.push(
            format!("dependencies/{name}"),
            case.map(|c| run_helm_case(&c)),
        );
    }
    match read_yaml(&dir.join("cases.yaml")) {
        Ok(file) => {
            let cases = field(&file, &["cases"]).and_then(Value::as_array);
            for case in cases.into_iter().flatten() {
                let Some(name) = text(case, &["name"]) else {
                    results.push("dependencies/cases.yaml", Err("a case has no name".into()));
                    continue;
                };
                let judged = match (text(case, &["values"]), field(case, &["expected"])) {
                    (Some(values), Some(Value::Array(_))) => {
                        Ok(run_helm_case(&HelmCase::Enabled {
                            chart: chart.clone(),
                            values,
                            expected: strings(case, &["expected"]),
                        }))
                    }
                    _ => Err("cases.yaml: the case has no values or no expected list".to_string()),
                };
                results.push(format!("dependencies/{}", slug(&name)), judged);
            }
        }
        Err(e) => results.push("dependencies/cases.yaml", Err(e)),
    }
    match read_yaml(&dir.join("imports.yaml")) {
        Ok(file) => {
            let values = field(&file, &["expected_root_values"]).and_then(Value::as_object);
            for (path, value) in values.into_iter().flatten() {
                let judged = match value.as_str() {
                    Some(v) => Ok(run_helm_case(&HelmCase::ImportValue {
                        chart: dump_chart.clone(),
                        path: path.clone(),
                        expected: Some(v.to_string()),
                    })),
                    None => Err(format!("imports.yaml: {path} is not a string")),
                };
                results.push(format!("dependencies/import-values/{path}"), judged);
            }
            for path in strings(&file, &["expected_root_values_present_null"]) {
                let case = HelmCase::ImportValue {
                    chart: dump_chart.clone(),
                    path: path.clone(),
                    expected: None,
                };
                results.push(
                    format!("dependencies/import-values/{path}"),
                    Ok(run_helm_case(&case)),
                );
            }
        }
        Err(e) => results.push("dependencies/imports.yaml", Err(e)),
    }
}

/// `helm template in [-f FILE]…` from a chart case's `command`.
fn template_command(command: &str, dir: &Path) -> Result<(PathBuf, Vec<PathBuf>), String> {
    let mut args = command.split_whitespace();
    if args.next() != Some("helm") || args.next() != Some("template") {
        return Err(format!("command {command:?} is not helm template"));
    }
    let (mut chart, mut values) = (None, Vec::new());
    while let Some(arg) = args.next() {
        match arg {
            "-f" | "--values" => values.push(dir.join(args.next().ok_or("-f without a file")?)),
            a if a.starts_with('-') => {
                return Err(format!("command {command:?}: unknown flag {a}"))
            }
            a if chart.is_none() => chart = Some(dir.join(a)),
            a => return Err(format!("command {command:?}: unexpected argument {a}")),
        }
    }
    let chart = chart.ok_or_else(|| format!("command {command:?} names no chart"))?;
    if let Some(missing) = std::iter::once(&chart).chain(&values).find(|p| !p.exists()) {
        return Err(format!("{} does not exist", missing.display()));
    }
    Ok((chart, values))
}

fn helm_chart_case(dir: &Path, case: &Value) -> Result<HelmCase, String> {
    let command = text(case, &["command"]).ok_or("case.yaml: a case has no command")?;
    let (chart, values_files) = template_command(&command, dir)?;
    let expected = text(case, &["expected"]).ok_or("case.yaml: a case has no expected")?;
    Ok(HelmCase::Template {
        chart,
        release: text(case, &["release_name"]).ok_or("case.yaml: no release_name")?,
        namespace: text(case, &["namespace"]).ok_or("case.yaml: no namespace")?,
        values_files,
        masks: strings(case, &["mask_line_regexes"]),
        expected: read_text(&dir.join(expected))?,
    })
}

fn helm_chart_cases(dir: &Path, results: &mut Results) {
    let dirs = match case_dirs(dir) {
        Ok(dirs) => dirs,
        Err(e) => {
            results.push("charts", Err(e));
            return;
        }
    };
    for chart_dir in dirs {
        let chart = dir_name(&chart_dir);
        let file = match read_yaml(&chart_dir.join("case.yaml")) {
            Ok(file) => file,
            Err(e) => {
                results.push(format!("charts/{chart}"), Err(e));
                continue;
            }
        };
        let cases = field(&file, &["cases"]).and_then(Value::as_array);
        if cases.is_none_or(|c| c.is_empty()) {
            results.push(format!("charts/{chart}"), Err("case.yaml: no cases".into()));
        }
        for case in cases.into_iter().flatten() {
            let Some(name) = text(case, &["name"]) else {
                results.push(format!("charts/{chart}"), Err("a case has no name".into()));
                continue;
            };
            let judged = helm_chart_case(&chart_dir, case).map(|c| run_helm_case(&c));
            results.push(format!("charts/{chart}/{name}"), judged);
        }
    }
}

fn helm_probe_cases(dir: &Path, results: &mut Results) {
    let defaults = read_text(&dir.join("expected-defaults-chart.yaml")).map(|expected| {
        run_helm_case(&HelmCase::Template {
            chart: dir.join("defaults-chart"),
            release: "release-name".to_string(),
            namespace: "default".to_string(),
            values_files: Vec::new(),
            masks: Vec::new(),
            expected,
        })
    });
    results.push("template-probes/defaults-chart", defaults);
    let json = |file: &str| -> Result<Value, String> {
        serde_json::from_str(&read_text(&dir.join(file))?).map_err(|e| format!("{file}: {e}"))
    };
    let (probes, expected) = match (json("probes.json"), json("helm_expected.json")) {
        (Ok(p), Ok(e)) => (p, e),
        (Err(e), _) | (_, Err(e)) => {
            results.push("template-probes", Err(e));
            return;
        }
    };
    for probe in probes.as_array().into_iter().flatten() {
        let (name, template) = match probe.as_array().map(Vec::as_slice) {
            Some([Value::String(n), Value::String(t)]) => (n.clone(), t.clone()),
            _ => {
                results.push(
                    "template-probes",
                    Err(format!("probes.json: bad entry {probe}")),
                );
                continue;
            }
        };
        let judged = match (
            text(&expected, &[&name, "out"]),
            text(&expected, &[&name, "error"]),
        ) {
            (Some(out), None) => Ok(Ok(out)),
            (None, Some(error)) => Ok(Err(error)),
            _ => Err("helm_expected.json has no single out or error for it".to_string()),
        }
        .map(|expected| {
            run_helm_case(&HelmCase::Probe {
                template,
                data: dir.join("data.yaml"),
                expected,
            })
        });
        results.push(format!("template-probes/{name}"), judged);
    }
}

fn helm_corpus(root: &Path) -> Results {
    let mut results = Results::new("helm");
    let helm = root.join("helm");
    helm_dependency_cases(&helm.join("dependencies"), &mut results);
    helm_chart_cases(&helm.join("charts"), &mut results);
    helm_probe_cases(&helm.join("template-probes"), &mut results);
    results
}
