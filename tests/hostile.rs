//! The hostile-repository suite: every case in `testdata/hostile/*/case.yaml` is built into a
//! temporary git repository (big inputs are generated here, never committed), and
//! `kdelta check` and `kdelta render` run on it — on the work tree and on the commit — under a
//! time and memory limit. Each must end with the case's finding, naming the file, and exit 1:
//! never a panic, a crash or a hang. `testdata/hostile/README.md` describes the case format.

#[allow(dead_code)]
mod util;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use util::{run, Run, TestEnv};

/// Address space a run may use (`ulimit -v`, KiB): a bomb that expands in memory fails here.
const MEMORY_LIMIT_KIB: u64 = 4 * 1024 * 1024;

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/hostile")
}

/// A case file read with kdelta's own YAML parser (the suite must not need another).
fn read_case(path: &Path) -> Value {
    let bytes = std::fs::read(path).expect("read case.yaml");
    let node = kdelta::yaml::parse_one(&bytes, &kdelta::yaml::ParseOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    kdelta::yaml::to_value(&node, kdelta::yaml::Dialect::Yaml12)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn u64_of(v: &Value, key: &str) -> Option<u64> {
    v.get(key).and_then(Value::as_u64)
}

/// The contents a `generate:` entry describes.
fn generate(spec: &Value) -> Vec<u8> {
    let text = |key: &str| str_of(spec, key).unwrap_or("").to_string();
    if let Some(hex) = str_of(spec, "hex") {
        let digits: Vec<u8> = hex.bytes().filter(u8::is_ascii_hexdigit).collect();
        return digits
            .chunks(2)
            .map(|pair| {
                u8::from_str_radix(std::str::from_utf8(pair).expect("ascii"), 16).expect("hex")
            })
            .collect();
    }
    if let Some(r) = spec.get("random") {
        // A fixed xorshift stream: binary garbage, the same on every run.
        let size = u64_of(r, "size").expect("random.size") as usize;
        let mut x = u64_of(r, "seed").unwrap_or(1).max(1);
        let mut out = text("prefix").into_bytes();
        out.extend((0..size).map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        }));
        return out;
    }
    let mut out = text("prefix");
    if let Some(r) = spec.get("repeat") {
        // `template` `count` times, `{i}` replaced by the repetition's number and `{nest}` by
        // the repetition's `nest`.
        let nested = r.get("nest").map(nest).unwrap_or_default();
        let template = str_of(r, "template")
            .expect("repeat.template")
            .replace("{nest}", &nested);
        let count = u64_of(r, "count").expect("repeat.count");
        let numbered = template.contains("{i}");
        out.reserve(template.len() * count as usize);
        for i in 0..count {
            if numbered {
                out.push_str(&template.replace("{i}", &i.to_string()));
            } else {
                out.push_str(&template);
            }
        }
    }
    out.push_str(&text("infix"));
    if let Some(n) = spec.get("nest") {
        out.push_str(&nest(n));
    }
    out.push_str(&text("suffix"));
    out.into_bytes()
}

/// `depth` levels of `open` (each on its own line, indented, when `indent` is set), the `leaf`,
/// then `depth` times `close`.
fn nest(n: &Value) -> String {
    let depth = u64_of(n, "depth").expect("nest.depth") as usize;
    let open = str_of(n, "open").expect("nest.open");
    let close = str_of(n, "close").unwrap_or("");
    let indent = u64_of(n, "indent").unwrap_or(0) as usize;
    let mut out = String::new();
    for level in 0..depth {
        if indent > 0 {
            out.push_str(&" ".repeat((level + 1) * indent));
        }
        out.push_str(open);
        if indent > 0 {
            out.push('\n');
        }
    }
    if indent > 0 {
        out.push_str(&" ".repeat((depth + 1) * indent));
    }
    out.push_str(str_of(n, "leaf").unwrap_or("x"));
    out.push_str(&close.repeat(depth));
    out
}

/// Writes the case's files, generated files, links, FIFOs and devices into `env`.
fn build(env: &TestEnv, case: &Value, name: &str) {
    for (path, contents) in case
        .get("files")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        // A variant removes a file of its case with `~`.
        if let Some(text) = contents.as_str() {
            env.write(path, text);
        }
    }
    for (path, spec) in case
        .get("generate")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        env.write(path, generate(spec));
    }
    for (path, target) in case
        .get("symlinks")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        env.symlink(path, target.as_str().expect("link target"));
    }
    for (key, tool) in [("fifos", "mkfifo"), ("devices", "mknod")] {
        for path in case
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let full = env.repo().join(path.as_str().expect("path"));
            std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
            let mut cmd = Command::new(tool);
            cmd.arg(&full);
            if tool == "mknod" {
                cmd.args(["c", "1", "3"]); // /dev/null's numbers
            }
            let ok = cmd.status().map(|s| s.success()).unwrap_or(false);
            if !ok && tool == "mknod" {
                // Only root can make a device node; a link to /dev/null stands in.
                eprintln!("{name}: cannot mknod (not root?); linking to /dev/null instead");
                std::os::unix::fs::symlink("/dev/null", &full).expect("symlink");
            } else {
                assert!(ok, "{name}: {tool} {} failed", full.display());
            }
        }
    }
}

/// Runs kdelta with `args` in `env` under the memory limit.
fn kdelta_limited(env: &TestEnv, args: &[&str]) -> (Run, Duration) {
    let inner = env.kdelta_cmd(args);
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!(
            "ulimit -v {MEMORY_LIMIT_KIB} && exec \"$0\" \"$@\""
        ))
        .arg(inner.get_program())
        .args(inner.get_args())
        .current_dir(env.repo());
    for (key, value) in inner.get_envs() {
        match value {
            Some(v) => cmd.env(key, v),
            None => cmd.env_remove(key),
        };
    }
    let started = Instant::now();
    let r = run(cmd);
    (r, started.elapsed())
}

/// An entry of a variant over its case's: mappings merge (the variant's keys win), anything
/// else is replaced.
fn merged(base: &Value, over: &Value, key: &str) -> Value {
    let mut out = base.get(key).cloned().unwrap_or(Value::Null);
    if let (Some(o), Some(b)) = (
        over.get(key).and_then(Value::as_object),
        out.as_object_mut(),
    ) {
        for (k, v) in o {
            b.insert(k.clone(), v.clone());
        }
    } else if let Some(v) = over.get(key) {
        out = v.clone();
    }
    out
}

/// One outcome line for the suite's summary.
struct Outcome {
    case: String,
    rule: String,
    code: i32,
    elapsed: Duration,
}

fn check_case(name: &str, case: &Value, outcomes: &mut Vec<Outcome>) {
    let expect = case.get("expect").expect("expect");
    let exit = u64_of(expect, "exit").unwrap_or(1) as i32;
    // Validation is `check`'s: a case found by it alone renders.
    let render_exit = u64_of(expect, "render_exit").map_or(exit, |e| e as i32);
    // A case that must render (exit 0) names no rule.
    let rule = str_of(expect, "rule").unwrap_or(if exit == 0 { "" } else { "?" });
    let file = str_of(expect, "file").unwrap_or("");
    let names = str_of(expect, "names").unwrap_or("");
    let max_message = u64_of(expect, "max_message").unwrap_or(4000) as usize;
    let never: Vec<&str> = expect
        .get("never")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let target = str_of(case, "target").unwrap_or("app");
    let revisions: Vec<&str> = case
        .get("revisions")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_else(|| vec!["worktree", "commit"]);

    let env = TestEnv::new();
    build(&env, case, name);
    if revisions.contains(&"commit") {
        env.commit("hostile");
    }
    for revision in revisions {
        let rev: &[&str] = if revision == "commit" {
            &["--rev", "HEAD"]
        } else {
            &[]
        };
        let label = format!("{name} ({revision})");

        let mut args = vec!["check", "--format", "json"];
        args.extend_from_slice(rev);
        let (r, elapsed) = kdelta_limited(&env, &args);
        let r = r.code(exit);
        let report = r.json();
        let findings = report["findings"].as_array().cloned().unwrap_or_default();
        if exit == 0 {
            let errors: Vec<_> = findings
                .iter()
                .filter(|f| f["severity"] == "error")
                .collect();
            assert!(errors.is_empty(), "{label}: errors: {errors:#?}");
            let (r, elapsed) = kdelta_limited(&env, &[&["render"], rev, &[target]].concat());
            r.code(0);
            outcomes.push(Outcome {
                case: format!("{label} render"),
                rule: "-".to_string(),
                code: 0,
                elapsed,
            });
            continue;
        }
        let hit = findings.iter().find(|f| {
            f["rule"] == rule
                && f["file"] == file
                && f["message"].as_str().is_some_and(|m| m.contains(names))
        });
        let Some(hit) = hit else {
            panic!(
                "{label}: no {rule} finding at {file} naming {names:?}; findings:\n{findings:#?}"
            );
        };
        let message = hit["message"].as_str().unwrap_or("");
        assert!(
            message.len() <= max_message,
            "{label}: the {rule} message is {} bytes: {}…",
            message.len(),
            message.chars().take(200).collect::<String>()
        );
        for text in &never {
            assert!(!r.stdout.contains(text), "{label}: check printed {text:?}");
        }
        outcomes.push(Outcome {
            case: format!("{label} check"),
            rule: rule.to_string(),
            code: r.code,
            elapsed,
        });

        let mut args = vec!["render"];
        args.extend_from_slice(rev);
        args.push(target);
        let (r, elapsed) = kdelta_limited(&env, &args);
        let mut r = r.code(render_exit);
        if render_exit != 0 {
            r = r.stderr_has(&format!("error[{rule}] {file}"));
        }
        for text in &never {
            assert!(
                !r.stdout.contains(text) && !r.stderr.contains(text),
                "{label}: render printed {text:?}"
            );
        }
        outcomes.push(Outcome {
            case: format!("{label} render"),
            rule: rule.to_string(),
            code: r.code,
            elapsed,
        });
    }
}

#[test]
fn hostile_repositories_end_with_a_finding() {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(cases_dir())
        .expect("testdata/hostile exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.join("case.yaml").is_file())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 10, "only {} cases", dirs.len());
    let only = std::env::var("KDELTA_HOSTILE_CASE").ok();
    let mut outcomes = Vec::new();
    let mut failures = Vec::new();
    for dir in dirs {
        let name = dir
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        let case = read_case(&dir.join("case.yaml"));
        let mut check = |name: &str, case: &Value| {
            let run = std::panic::AssertUnwindSafe(|| check_case(name, case, &mut outcomes));
            if let Err(e) = std::panic::catch_unwind(run) {
                let message = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!("{name}: {message}"));
            }
        };
        match case.get("variants").and_then(Value::as_array) {
            None => check(&name, &case),
            Some(variants) => {
                for v in variants {
                    let mut c = case.clone();
                    let obj = c.as_object_mut().expect("case is a mapping");
                    for key in [
                        "files",
                        "generate",
                        "symlinks",
                        "fifos",
                        "devices",
                        "expect",
                        "target",
                        "revisions",
                    ] {
                        obj.insert(key.to_string(), merged(&case, v, key));
                    }
                    let vname = format!("{name}/{}", str_of(v, "name").expect("variant name"));
                    check(&vname, &c);
                }
            }
        }
    }
    // The outcomes, for `cargo test -- --nocapture`.
    for o in &outcomes {
        eprintln!(
            "{:<60} {:<28} exit {} {:>8.2?}",
            o.case, o.rule, o.code, o.elapsed
        );
    }
    assert!(
        failures.is_empty(),
        "{} hostile case(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
