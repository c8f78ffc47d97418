//! The dependency rule of DESIGN.md section 2, checked on the source: a module imports only
//! from modules in lower layers (the leaves know nothing of the engines, the engines nothing
//! of the orchestration, `diff` and `report` nothing of rendering), only `source`, the
//! kustomize exec plugin runner and the pipeline touch the file system, and only the CLI
//! prints. Every top-level module must be placed in a layer.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The layers, lowest first. A module may use any module of a lower layer; modules of one
/// layer do not use each other (engines may, where the domain needs it: kustomize's
/// `helmCharts` inflate through the Helm engine; ApplicationSets use their globs and patches).
const LAYERS: &[&[&str]] = &[
    &["fxhash", "go", "once"],
    &[
        "panic", "process", "finding", "redact", "yaml", "semver", "testing",
    ],
    &["fetch"],
    &["source"],
    &["resource", "config", "template"],
    &["engine"],
    &["kustomize", "helm", "argocd", "flux", "directory"],
    &["target"],
    &["discover"],
    &["render"],
    &["validate"],
    &["diff"],
    &["report"],
    &["pipeline", "fuzzing"],
];

/// Uses allowed inside one layer: (user, used).
const SAME_LAYER: &[(&str, &str)] = &[
    ("kustomize", "helm"),
    ("argocd", "kustomize"),
    ("argocd", "helm"),
    ("argocd", "directory"),
    // Flux builds Kustomizations and renders HelmReleases (whose `targetPath` goes through
    // Helm's `--set` parser).
    ("flux", "kustomize"),
    ("flux", "helm"),
];

/// Modules that may read or write files directly (everything else reads through a snapshot).
const FILE_SYSTEM: &[&str] = &[
    "fetch",
    "source",
    "pipeline",
    "fuzzing",
    "kustomize",
    // The directory a plugin the user allowed runs in.
    "process",
    // The system's time zone database, read as Go's `time.LoadLocation` reads it (sprig's
    // `dateInZone`), and nothing else.
    "go",
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file of a top-level module (`src/NAME.rs` or `src/NAME/**`).
fn module_files(name: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let single = src().join(format!("{name}.rs"));
    if single.is_file() {
        files.push(single);
    }
    let mut stack = vec![src().join(name)];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") && !is_test_file(&p) {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// Test-only files (`tests.rs`, `tests/…` inside a module) may use anything.
fn is_test_file(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "tests.rs")
        || path
            .strip_prefix(src())
            .is_ok_and(|p| p.components().any(|c| c.as_os_str() == "tests"))
}

/// The code of a file without comments and without `#[cfg(test)]` modules at the end of a
/// file (tests may use anything).
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("a readable source file");
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => &text,
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules a file names through `crate::…`, with the line it first does.
fn crate_uses(code: &str) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for (n, line) in code.lines().enumerate() {
        let mut rest = line;
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            let names: Vec<&str> = if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                group[..end]
                    .split(',')
                    .map(|s| s.trim().split("::").next().unwrap_or(""))
                    .collect()
            } else {
                vec![rest
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or("")]
            };
            for name in names.into_iter().filter(|s| !s.is_empty()) {
                out.entry(name.to_string()).or_insert(n + 1);
            }
        }
    }
    out
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The modules `lib.rs` declares.
fn declared_modules() -> Vec<String> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).expect("src/lib.rs");
    lib.lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("pub mod ")
                .or(l.trim().strip_prefix("mod "))
        })
        .map(|l| l.trim_end_matches(';').to_string())
        .collect()
}

#[test]
fn every_module_has_a_layer() {
    for m in declared_modules() {
        assert!(
            layer_of(&m).is_some(),
            "src/{m} is in no layer of tests/architecture.rs: place it in DESIGN.md's order"
        );
    }
}

#[test]
fn modules_import_only_from_lower_layers() {
    let mut violations = Vec::new();
    for module in declared_modules() {
        let own = layer_of(&module).expect("checked by every_module_has_a_layer");
        for file in module_files(&module) {
            for (used, line) in crate_uses(&code(&file)) {
                if used == module {
                    continue;
                }
                let Some(theirs) = layer_of(&used) else {
                    continue;
                };
                let allowed = theirs < own
                    || (theirs == own && SAME_LAYER.contains(&(module.as_str(), used.as_str())));
                if !allowed {
                    violations.push(format!(
                        "{}:{line}: {module} uses crate::{used}, which is not below it",
                        file.strip_prefix(src()).unwrap_or(&file).display()
                    ));
                }
            }
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

#[test]
fn only_the_cli_prints_and_few_modules_touch_files() {
    let mut violations = Vec::new();
    for module in declared_modules() {
        for file in module_files(&module) {
            let code = code(&file);
            let shown = file
                .strip_prefix(src())
                .unwrap_or(&file)
                .display()
                .to_string();
            for (n, line) in code.lines().enumerate() {
                if ["println!", "eprintln!", "print!(", "eprint!("]
                    .iter()
                    .any(|p| line.contains(p))
                {
                    violations.push(format!("{shown}:{}: prints (only src/cli may)", n + 1));
                }
                if !FILE_SYSTEM.contains(&module.as_str())
                    && (line.contains("std::fs") || line.contains("File::open"))
                {
                    violations.push(format!(
                        "{shown}:{}: touches the file system (read through a Snapshot)",
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

#[test]
fn the_checker_sees_imports() {
    let uses = crate_uses("use crate::{appset, finding::Finding};\nlet x = crate::yaml::parse();");
    assert_eq!(
        uses.keys().collect::<Vec<_>>(),
        ["appset", "finding", "yaml"]
    );
}

#[test]
fn the_code_map_lists_every_module() {
    let map =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/architecture.md"))
            .expect("docs/architecture.md");
    for m in declared_modules() {
        let dir = format!("`src/{m}/`");
        let file = format!("`src/{m}.rs`");
        assert!(
            map.contains(&dir) || map.contains(&file),
            "docs/architecture.md does not list src/{m}"
        );
    }
}

/// The lines of the `engines!` table in src/target.rs: each engine's variant of `Target` and
/// `Details`, and the kinds its targets report (`Argo(argocd::Spec: "appset" | "app") =>
/// argocd,` gives `Argo`, `appset` and `app`).
fn engine_table() -> Vec<(String, Vec<String>)> {
    let table = std::fs::read_to_string(src().join("target.rs")).expect("src/target.rs");
    let start = table.rfind("engines! {").expect("the engines! table");
    table[start..]
        .lines()
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with('}'))
        .filter_map(|l| {
            let (variant, rest) = l.trim().split_once('(')?;
            let (spec, _) = rest.split_once(')')?;
            let kinds = spec
                .split('"')
                .skip(1)
                .step_by(2)
                .map(String::from)
                .collect();
            Some((variant.to_string(), kinds))
        })
        .collect()
}

/// Where `line` names `word` as a whole (not as the start of a longer name).
fn names(line: &str, word: &str) -> bool {
    line.match_indices(word).any(|(i, _)| {
        !line[i + word.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
    })
}

/// Engine knowledge stays behind `engine::Spec`: no module above the engines (discovery, the
/// render, validation, diff, report and pipeline layers, and the CLI) names an engine's
/// target or details (`Target::Helm`, `Details::Argo`) or compares a target's kind with one
/// of the engines' (`"helm"`, `"app"`): it asks the seam for the property it means, so a new
/// engine is its folder and one line of the `engines!` table.
#[test]
fn no_generic_module_names_an_engine() {
    let table = engine_table();
    assert!(table.len() >= 5, "the table was read: {table:?}");
    let kinds: Vec<&String> = table.iter().flat_map(|(_, kinds)| kinds).collect();
    assert!(
        kinds.len() >= 7 && table.iter().all(|(_, kinds)| !kinds.is_empty()),
        "every engine's kinds were read: {table:?}"
    );
    let engine_layer = layer_of("helm").expect("the engines' layer");
    let mut files: Vec<PathBuf> = declared_modules()
        .iter()
        .filter(|m| layer_of(m).is_some_and(|l| l > engine_layer) && *m != "target")
        .flat_map(|m| module_files(m))
        .collect();
    files.extend(module_files("cli"));
    let mut violations = Vec::new();
    for file in files {
        let shown = file
            .strip_prefix(src())
            .unwrap_or(&file)
            .display()
            .to_string();
        for (n, line) in code(&file).lines().enumerate() {
            for (variant, _) in &table {
                for named in [format!("Target::{variant}"), format!("Details::{variant}")] {
                    if names(line, &named) {
                        violations.push(format!(
                            "{shown}:{}: names {named} (ask the target, through engine::Spec)",
                            n + 1
                        ));
                    }
                }
            }
            for kind in &kinds {
                if line.contains(&format!("\"{kind}\"")) {
                    violations.push(format!(
                        "{shown}:{}: names the kind \"{kind}\" (ask engine::Spec for what it means)",
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

/// The generic modules: discovery, rendering, diff, reports and the pipeline. Validation
/// is not one yet (`validate/deployed.rs` asks kustomize's built-in schemas which kinds are
/// namespaced), the fuzz harnesses reach into the engines they fuzz, and the CLI builds the
/// engines' options from its flags.
const GENERIC: &[&str] = &["discover", "render", "diff", "report", "pipeline"];

/// The generic modules use no engine module (`crate::argocd::settings`,
/// `crate::helm::output`): what they need of an engine (the settings a revision's files
/// hold, what `kdelta render DIR` renders, how a printed output splits) they ask through
/// `engine::Spec` and the `engines!` table's dispatch, so a new engine changes none of them.
#[test]
fn generic_modules_use_no_engine_module() {
    let engine_layer = layer_of("helm").expect("the engines' layer");
    let engines = LAYERS[engine_layer];
    let mut violations = Vec::new();
    for module in GENERIC {
        assert!(
            layer_of(module).is_some_and(|l| l > engine_layer),
            "{module} is above the engines"
        );
        for file in module_files(module) {
            for (used, line) in crate_uses(&code(&file)) {
                if engines.contains(&used.as_str()) {
                    violations.push(format!(
                        "{}:{line}: {module} uses crate::{used} (ask engine::Spec, through the engines! table)",
                        file.strip_prefix(src()).unwrap_or(&file).display()
                    ));
                }
            }
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

#[test]
fn the_checker_sees_an_engine_named() {
    assert!(names("if let Some(Details::Helm(d)) = x", "Details::Helm"));
    assert!(!names("Target::Helmet", "Target::Helm"));
}
