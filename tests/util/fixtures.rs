//! The fixture cases of `testdata/argocd/` and `testdata/flux/`: each a `case.yaml` naming the
//! target, a `repo/` and the reference tool's `expected.yaml` (or `expected-error.txt`), run
//! with `kdelta render` in a copy of the repository.

use kdelta::yaml::{self, Dialect, ParseOptions};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The documents of a YAML stream, as data (null documents left out).
pub fn documents(text: &str, what: &str) -> Vec<Value> {
    yaml::parse_stream(text.as_bytes(), &ParseOptions::default())
        .unwrap_or_else(|e| panic!("{what} is not YAML: {e}"))
        .iter()
        .filter(|d| !d.is_null())
        .map(|d| yaml::to_value(d, Dialect::Yaml12).expect("typed"))
        .collect()
}

/// Copies a directory tree (a case's repository, run outside this repository's git tree).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir").flatten() {
        let dest = to.join(e.file_name());
        if e.file_type().expect("file type").is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), &dest).expect("copy");
        }
    }
}

pub fn field<'a>(case_yaml: &'a str, key: &str) -> Option<&'a str> {
    case_yaml
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(": "))
}

/// The case directories under `testdata/DIR`, sorted.
pub fn cases(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(dir);
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("testdata/{dir}: {e}"))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("case.yaml").is_file())
        .collect();
    cases.sort();
    cases
}

/// Runs each case's `kdelta render TARGET` in a copy of its `repo/`. A case with
/// `expected-error.txt` must fail with each of its lines on stderr; any other is handed to
/// `compare` with its stdout and `expected.yaml`, which says what is wrong, if anything.
pub fn run_cases(cases: &[PathBuf], compare: impl Fn(&str, &str, &str) -> Option<String>) {
    let mut problems = Vec::new();
    for case in cases {
        let name = case
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let text = std::fs::read_to_string(case.join("case.yaml")).expect("case.yaml");
        let target = field(&text, "target").expect("case.yaml has a target");
        let work = tempfile::tempdir().expect("tempdir");
        copy_tree(&case.join("repo"), work.path());
        let out = Command::new(env!("CARGO_BIN_EXE_kdelta"))
            .args(["render", "--allow-incomplete", "--show-secrets", target])
            .current_dir(work.path())
            .env_remove("GITHUB_ACTIONS")
            .output()
            .expect("kdelta runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if let Ok(want) = std::fs::read_to_string(case.join("expected-error.txt")) {
            if out.status.code() != Some(1) || !want.lines().all(|l| stderr.contains(l)) {
                problems.push(format!(
                    "{name}: exit {:?}, stderr:\n{stderr}\nexpected the lines of:\n{want}",
                    out.status.code()
                ));
            }
            continue;
        }
        let want = std::fs::read_to_string(case.join("expected.yaml")).expect("expected.yaml");
        if !out.status.success() {
            problems.push(format!("{name}: exit {:?}\n{stderr}", out.status.code()));
            continue;
        }
        if let Some(p) = compare(&name, &stdout, &want) {
            problems.push(format!("{name}: {p}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

pub fn mismatch(got: &[Value], want: &[Value]) -> Option<String> {
    (got != want).then(|| {
        format!(
            "kdelta printed\n{}\nexpected\n{}",
            serde_json::to_string_pretty(got).unwrap_or_default(),
            serde_json::to_string_pretty(want).unwrap_or_default()
        )
    })
}
