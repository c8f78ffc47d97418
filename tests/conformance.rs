//! Conformance harness (DESIGN.md section 8): runs the reference tools' own cases from
//! `../shared/conformance` and fails when an engine passes fewer than the floor recorded in
//! `tests/conformance-floor.toml`. Without the corpus it says so and passes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn corpus_root() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance");
    root.is_dir().then_some(root)
}

fn floors() -> BTreeMap<String, usize> {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance-floor.toml"),
    )
    .expect("tests/conformance-floor.toml exists");
    text.lines()
        .filter_map(|l| {
            let l = l.split('#').next()?.trim();
            let (k, v) = l.split_once('=')?;
            Some((
                k.trim().trim_matches('"').to_string(),
                v.trim().parse().ok()?,
            ))
        })
        .collect()
}

fn case_dirs(corpus: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(corpus)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.join("case.yaml").is_file())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

#[derive(Default)]
struct Score {
    passed: usize,
    failed: Vec<String>,
    skipped: usize,
}

impl Score {
    fn report(&self, name: &str, floors: &BTreeMap<String, usize>) -> Option<String> {
        println!(
            "conformance {name}: {} passed, {} failed, {} skipped",
            self.passed,
            self.failed.len(),
            self.skipped
        );
        for f in self.failed.iter().take(400) {
            println!("  FAIL {name} {f}");
        }
        let floor = floors.get(name).copied().unwrap_or(0);
        (self.passed < floor).then(|| format!("{name}: {} passed, floor is {floor}", self.passed))
    }
}

/// Splits a kustomize output stream into documents (they are joined by `---\n`).
fn split_docs(s: &str) -> Vec<&str> {
    if s.is_empty() {
        return Vec::new();
    }
    s.split("\n---\n")
        .enumerate()
        .map(|(i, d)| {
            if i == 0 {
                d.strip_prefix("---\n").unwrap_or(d)
            } else {
                d
            }
        })
        .collect()
}

/// Parse every expected output with the YAML 1.2 reader and write it back with the emitter:
/// the bytes must not change, since the expected files are the emitter's own output format.
fn emitter_round_trip(root: &Path) -> Score {
    use kdelta::yaml;
    let mut score = Score::default();
    for corpus in ["kustomize", "kustomize-extra"] {
        for dir in case_dirs(&root.join(corpus)) {
            for file in ["expected.yaml", "expected-default-order.yaml"] {
                let Ok(text) = std::fs::read_to_string(dir.join(file)) else {
                    continue;
                };
                let name = format!(
                    "{corpus}/{}/{file}",
                    dir.file_name().unwrap().to_string_lossy()
                );
                let mut ok = true;
                let mut out = String::new();
                for (i, doc) in split_docs(&text).into_iter().enumerate() {
                    let doc = if doc.ends_with('\n') {
                        doc.to_string()
                    } else {
                        format!("{doc}\n")
                    };
                    match yaml::parse_one(doc.as_bytes(), &yaml::ParseOptions::default())
                        .map_err(|e| e.to_string())
                        .and_then(|n| {
                            yaml::to_value(&n, yaml::Dialect::Yaml12).map_err(|e| e.to_string())
                        }) {
                        Ok(v) => {
                            if i > 0 {
                                out.push_str("---\n");
                            }
                            out.push_str(&yaml::emit::to_string(&v));
                        }
                        Err(e) => {
                            ok = false;
                            score.failed.push(format!("{name}: {e}"));
                            break;
                        }
                    }
                }
                if ok {
                    if out == text {
                        score.passed += 1;
                    } else {
                        let diff = first_difference(&text, &out);
                        score.failed.push(format!("{name}: {diff}"));
                    }
                }
            }
        }
    }
    score
}

fn first_difference(expected: &str, got: &str) -> String {
    for (i, (e, g)) in expected.lines().zip(got.lines()).enumerate() {
        if e != g {
            return format!("line {}: expected {e:?}, got {g:?}", i + 1);
        }
    }
    format!(
        "length differs: expected {} lines, got {}",
        expected.lines().count(),
        got.lines().count()
    )
}

/// A case's `case.yaml`, as far as the harness needs it.
struct Case {
    dir: PathBuf,
    build_dir: String,
    reorder_none: bool,
    load_restrictor_none: bool,
    add_managed_by_label: bool,
    runnable: bool,
    expect_error: bool,
    /// Phrases the reference's own test expects in the error message.
    error_phrases: Vec<String>,
}

/// Makes error phrases comparable: the tests' in-memory paths start with `/`, kdelta's are
/// repo-relative, and Go quotes nested errors with `"`.
fn normalize_error(s: &str) -> String {
    s.replace('"', "").replace("'/", "'").replace(" /", " ")
}

fn read_case(dir: &Path) -> Option<Case> {
    use kdelta::yaml;
    let text = std::fs::read(dir.join("case.yaml")).ok()?;
    let node = yaml::parse_one(&text, &yaml::ParseOptions::default()).ok()?;
    let s = |path: &[&str]| node.str_at(path).unwrap_or("").to_string();
    let offline = s(&["offline"]) == "true";
    // Builtin plugin configs (`transformers: [file.yaml]`) are part of kdelta's kustomize; every
    // other need (network, docker, exec and Go plugins, a helm binary) is not.
    let needs_nothing = node.get("needs").and_then(|n| n.as_seq()).is_none_or(|v| {
        v.iter()
            .all(|n| n.as_str() == Some("builtin-plugin-config"))
    });
    let limited = node.get_path(&["oracle", "oracle_limited"]).is_some();
    let ran = s(&["oracle", "ran"]) != "false";
    let plugins =
        s(&["options", "enable_plugins"]) == "true" || s(&["options", "enable_helm"]) == "true";
    let exit = s(&["oracle", "exit_code"]);
    let error_phrases = node
        .get("test_error_contains")
        .and_then(|n| n.as_seq())
        .map(|v| {
            v.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    Some(Case {
        dir: dir.to_path_buf(),
        build_dir: s(&["build_dir"]),
        reorder_none: s(&["options", "reorder"]) == "none",
        load_restrictor_none: s(&["options", "load_restrictor"]) == "LoadRestrictionsNone",
        add_managed_by_label: s(&["options", "add_managedby_label"]) == "true",
        runnable: offline && needs_nothing && !limited && ran && !plugins,
        expect_error: !exit.is_empty() && exit != "0",
        error_phrases,
    })
}

/// Renders a case's build directory with the library, as `kubectl kustomize` would.
fn render_case(case: &Case, reorder_none: bool) -> Result<String, String> {
    use kdelta::kustomize::Spec;
    use kdelta::render::{render_target, ParseCache, RenderOptions, Target};
    use kdelta::source::{RepoPath, WorktreeSnapshot};
    // A case about an empty file system has no in/ at all.
    let input = case.dir.join("in");
    let empty = std::env::temp_dir().join("kdelta-conformance-empty");
    let root = if input.is_dir() {
        input
    } else {
        std::fs::create_dir_all(&empty).map_err(|e| e.to_string())?;
        empty
    };
    let snapshot = WorktreeSnapshot::new(root).map_err(|e| e.to_string())?;
    let dir = RepoPath::new(&case.build_dir).map_err(|e| e.to_string())?;
    let opts = RenderOptions {
        kustomize: kdelta::kustomize::Options {
            load_restrictor_none: case.load_restrictor_none,
            reorder_none,
            enable_exec_plugins: false,
            add_managed_by_label: case.add_managed_by_label,
        },
        ..RenderOptions::default()
    };
    let cache = ParseCache::default();
    let rendered = render_target(&snapshot, &Target::Kustomize(Spec { dir }), &opts, &cache);
    if !rendered.ok {
        let errors: Vec<String> = rendered
            .findings
            .iter()
            .filter(|f| f.severity == kdelta::report::Severity::Error)
            .map(|f| format!("{}: {}", f.rule, f.message))
            .collect();
        return Err(errors.join("; "));
    }
    rendered.to_yaml().map_err(|f| f.message)
}

fn kustomize_corpus(root: &Path, corpus: &str) -> Score {
    let mut score = Score::default();
    for dir in case_dirs(&root.join(corpus)) {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let Some(case) = read_case(&dir) else {
            score.skipped += 1;
            continue;
        };
        if !case.runnable {
            score.skipped += 1;
            continue;
        }
        let result = std::panic::catch_unwind(|| {
            if case.expect_error {
                return match render_case(&case, case.reorder_none) {
                    Err(message) => {
                        let got = normalize_error(&message);
                        match case
                            .error_phrases
                            .iter()
                            .find(|p| !got.contains(&normalize_error(p)))
                        {
                            None => Ok(()),
                            Some(p) => Err(format!("error lacks {p:?}: {message}")),
                        }
                    }
                    Ok(_) => Err("expected an error, rendered successfully".to_string()),
                };
            }
            let mut checks = vec![("expected.yaml", case.reorder_none)];
            if case.dir.join("expected-default-order.yaml").is_file() {
                checks.push(("expected-default-order.yaml", false));
            }
            for (file, reorder_none) in checks {
                let expected = std::fs::read_to_string(case.dir.join(file)).unwrap_or_default();
                let got = render_case(&case, reorder_none)?;
                if got != expected {
                    return Err(format!("{file}: {}", first_difference(&expected, &got)));
                }
            }
            Ok(())
        });
        match result {
            Ok(Ok(())) => score.passed += 1,
            Ok(Err(e)) => score.failed.push(format!("{name}: {e}")),
            Err(_) => score.failed.push(format!("{name}: PANIC")),
        }
    }
    score
}

/// The documents of a YAML stream as typed values (kyaml typing).
fn values_of(text: &str) -> Result<Vec<serde_json::Value>, String> {
    use kdelta::yaml;
    yaml::parse_stream(text.as_bytes(), &yaml::ParseOptions::default())
        .map_err(|e| e.to_string())?
        .iter()
        .filter(|n| !n.is_null())
        .map(|n| yaml::to_value(n, yaml::Dialect::Yaml12).map_err(|e| e.to_string()))
        .collect()
}

/// kustomize-next: build-level cases compared as data (strings exact), and path-matcher cases
/// compared with kyaml's serialisation of the matches.
fn kustomize_next(root: &Path) -> Score {
    use kdelta::kustomize::pathmatch;
    use kdelta::yaml;
    let mut score = Score::default();
    for dir in case_dirs(&root.join("kustomize-next")) {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read(dir.join("case.yaml")).unwrap_or_default();
        let Ok(case) = yaml::parse_one(&text, &yaml::ParseOptions::default()) else {
            score.skipped += 1;
            continue;
        };
        let expects_error = case.str_at(&["expects"]) == Some("error");
        let expected_error =
            std::fs::read_to_string(dir.join("expected-error.txt")).unwrap_or_default();
        let expected = std::fs::read_to_string(dir.join("expected.yaml")).unwrap_or_default();
        let result: Result<(), String> = match case.str_at(&["level"]) {
            Some("pathmatcher") => (|| {
                let path: Vec<String> = case
                    .get("path")
                    .and_then(|p| p.as_seq())
                    .map(|p| {
                        p.iter()
                            .filter_map(|x| x.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default();
                let input =
                    std::fs::read(dir.join("in/resource.yaml")).map_err(|e| e.to_string())?;
                let node = yaml::parse_one(&input, &yaml::ParseOptions::default())
                    .map_err(|e| e.to_string())?;
                match pathmatch::matches(&node, &path) {
                    Err(e) if expects_error => {
                        if e.contains(expected_error.trim()) {
                            Ok(())
                        } else {
                            Err(format!("error {e:?} lacks {expected_error:?}"))
                        }
                    }
                    Err(e) => Err(e),
                    Ok(found) => {
                        let got = if found.is_empty() {
                            String::new()
                        } else {
                            yaml::emit::node_to_string(&yaml::Node::new(yaml::NodeKind::Seq(found)))
                        };
                        if got.trim() == expected.trim() {
                            Ok(())
                        } else {
                            Err(format!("expected {expected:?}, got {got:?}"))
                        }
                    }
                }
            })(),
            _ => {
                let build_dir = case
                    .str_at(&["build_dir"])
                    .unwrap_or("in")
                    .trim_start_matches("in")
                    .trim_start_matches('/')
                    .to_string();
                let c = Case {
                    dir: dir.clone(),
                    build_dir,
                    reorder_none: true,
                    load_restrictor_none: false,
                    add_managed_by_label: false,
                    runnable: true,
                    expect_error: expects_error,
                    error_phrases: Vec::new(),
                };
                match render_case(&c, true) {
                    Err(e) if expects_error => {
                        if e.contains(expected_error.trim()) {
                            Ok(())
                        } else {
                            Err(format!("error {e:?} lacks {:?}", expected_error.trim()))
                        }
                    }
                    Err(e) => Err(e),
                    Ok(_) if expects_error => {
                        Err("expected an error, rendered successfully".into())
                    }
                    Ok(got) => match (values_of(&expected), values_of(&got)) {
                        (Ok(e), Ok(g)) if e == g => Ok(()),
                        (Ok(e), Ok(g)) => Err(format!(
                            "data differs:\nexpected {}\ngot      {}",
                            serde_json::to_string(&e).unwrap(),
                            serde_json::to_string(&g).unwrap()
                        )),
                        (Err(e), _) | (_, Err(e)) => Err(e),
                    },
                }
            }
        };
        match result {
            Ok(()) => score.passed += 1,
            Err(e) => score.failed.push(format!("{name}: {e}")),
        }
    }
    score
}

#[test]
fn conformance() {
    let Some(root) = corpus_root() else {
        println!("conformance: skipped, ../shared/conformance not found");
        return;
    };
    let floors = floors();
    let mut below = Vec::new();
    below.extend(emitter_round_trip(&root).report("emitter", &floors));
    below.extend(kustomize_corpus(&root, "kustomize").report("kustomize", &floors));
    below.extend(kustomize_corpus(&root, "kustomize-extra").report("kustomize-extra", &floors));
    below.extend(kustomize_next(&root).report("kustomize-next", &floors));
    assert!(
        below.is_empty(),
        "conformance dropped below the floor: {below:?}"
    );
}
