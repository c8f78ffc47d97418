//! The harnesses behind the fuzz targets in `fuzz/` and their regression tests in
//! `tests/fuzz_regressions.rs`. Each takes the fuzzer's bytes, runs one part of kdelta on them,
//! and panics only where kdelta has a bug; `Err` means kdelta refused the input, as it may.
//!
//! Inputs that stand for several files (`kustomize_build`, `patches`) are split into sections:
//! a line `=== NAME` starts a section, and what precedes the first such line is the first
//! section (see [`sections`]).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::render::{render_target, ParseCache, RenderOptions};
use crate::source::{EntryKind, GitRepo, MemorySnapshot, RepoPath, Snapshot};
use crate::yaml::{self, Dialect, DuplicateKeys, ParseOptions};

/// What a harness concluded: `Ok` when kdelta accepted the input, `Err` (with the reason) when
/// it refused it.
pub type Outcome = Result<(), String>;

/// Runs the harness of the fuzz target `name` (the git harness with a fixture it creates in
/// `scratch`, which must be an empty directory). `None` for an unknown name.
pub fn run(name: &str, data: &[u8], scratch: &Path) -> Option<Outcome> {
    Some(match name {
        "yaml_roundtrip" => yaml_roundtrip(data),
        "kustomize_build" => kustomize_build(data),
        "patches" => patches(data),
        "template_parse" => template_parse(data),
        "template_exec" => template_exec(data),
        "git_objects" => match GitFixture::create(scratch) {
            Ok(fixture) => fixture.run(data),
            Err(e) => panic!("cannot create the git fixture: {e}"),
        },
        _ => return None,
    })
}

/// Splits `data` at lines that start with `=== `: the text before the first such line (with
/// an empty name), then each header's name (the rest of its line) and the bytes up to the
/// next header.
pub fn sections(data: &[u8]) -> Vec<(String, &[u8])> {
    let mut starts: Vec<usize> = (0..data.len())
        .filter(|&i| data[i..].starts_with(b"=== ") && (i == 0 || data[i - 1] == b'\n'))
        .collect();
    starts.push(data.len());
    let mut out = vec![(String::new(), &data[..starts[0]])];
    for w in starts.windows(2) {
        let chunk = &data[w[0]..w[1]];
        let line_end = chunk
            .iter()
            .position(|&b| b == b'\n')
            .unwrap_or(chunk.len());
        let name = String::from_utf8_lossy(&chunk[4..line_end])
            .trim()
            .to_string();
        let body = chunk.get(line_end + 1..).unwrap_or_default();
        out.push((name, body));
    }
    out
}

/// Parses a YAML stream, turns every document into a value in both dialects and writes it with
/// the go-yaml emitter (and the node tree with the kyaml writer); what is written must read
/// back, and the emitter's output must read back to the same value.
pub fn yaml_roundtrip(data: &[u8]) -> Outcome {
    let opts = ParseOptions {
        duplicate_keys: DuplicateKeys::LastWins,
        ..ParseOptions::default()
    };
    let docs = yaml::parse_stream(data, &opts).map_err(|e| e.to_string())?;
    for doc in &docs {
        let text = yaml::emit::node_to_string(doc);
        if let Err(e) = yaml::parse_stream(text.as_bytes(), &opts) {
            panic!("node_to_string wrote YAML that does not parse ({e}):\n{text}");
        }
        for dialect in [Dialect::Yaml11, Dialect::Yaml12] {
            let value =
                yaml::to_value(doc, dialect).unwrap_or_else(|_| yaml::to_value_lossy(doc, dialect));
            let text = yaml::emit::to_string(&value);
            // go-yaml v2 writes a string key "<<" plain, and reading that back is a merge
            // (Helm's toYaml does the same): kdelta matches it, so there is nothing to compare.
            if has_merge_key(&value) {
                continue;
            }
            let back = match yaml::parse_one(text.as_bytes(), &opts) {
                Ok(node) => node,
                Err(e) => panic!("emit::to_string wrote YAML that does not parse ({e}):\n{text}"),
            };
            // sigs.k8s.io/yaml output is read back by go-yaml v2: YAML 1.1 typing.
            let reread = match yaml::to_value(&back, Dialect::Yaml11) {
                Ok(v) => v,
                Err(e) => panic!("emit::to_string wrote a value that does not type ({e}):\n{text}"),
            };
            assert!(
                same_value(&value, &reread),
                "emit::to_string changed the value:\n{value:?}\nwas written as\n{text}\nand read back as\n{reread:?}"
            );
        }
    }
    Ok(())
}

fn has_merge_key(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.iter().any(|(k, v)| k == "<<" || has_merge_key(v)),
        Value::Array(items) => items.iter().any(has_merge_key),
        _ => false,
    }
}

/// Equal as JSON data: numbers by value (an integral float reads back as an integer, as in Go),
/// objects regardless of key order. A string holding a character that YAML 1.1 reads as a line
/// break (NEL, LS, PS) is not compared: go-yaml v2 writes it raw and folds it when reading back,
/// and kdelta reproduces that (testdata/kustomize/54-unicode-astral-and-nel).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(_)) if x.contains(is_yaml11_break) => true,
        (Value::Number(x), Value::Number(y)) => {
            x == y || matches!((x.as_f64(), y.as_f64()), (Some(x), Some(y)) if x == y)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_value(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| match y.get(k) {
                    Some(w) => same_value(v, w),
                    None => k.contains(is_yaml11_break),
                })
        }
        _ => a == b,
    }
}

fn is_yaml11_break(c: char) -> bool {
    matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// An in-memory repository from sections: the first is the root `kustomization.yaml`; `=== PATH`
/// adds a file, `=== PATH -> TARGET` a symbolic link; `=== @build DIR` builds `DIR` instead
/// of the root, `=== @reorder-none` and `=== @load-restrictor-none` set those options.
pub fn memory_repo(data: &[u8]) -> (MemorySnapshot, RepoPath, RenderOptions) {
    let mut snapshot = MemorySnapshot::new();
    let mut dir = RepoPath::root();
    let mut opts = RenderOptions::default();
    for (i, (name, body)) in sections(data).into_iter().enumerate() {
        let name = if i == 0 {
            "kustomization.yaml"
        } else {
            name.as_str()
        };
        if let Some(option) = name.strip_prefix('@') {
            match option.split_once(' ') {
                Some(("build", d)) => dir = RepoPath::new(d.trim()).unwrap_or_default(),
                _ if option == "reorder-none" => opts.kustomize.reorder_none = true,
                _ if option == "load-restrictor-none" => opts.kustomize.load_restrictor_none = true,
                _ => {}
            }
        } else if let Some((link, target)) = name.split_once(" -> ") {
            if let Ok(path) = RepoPath::new(link.trim()) {
                snapshot.add_symlink(&path, target.trim());
            }
        } else if let Ok(path) = RepoPath::new(name) {
            snapshot.add_file(&path, body);
        }
    }
    (snapshot, dir, opts)
}

/// Builds the kustomization of [`memory_repo`] and writes the output; the output must parse.
pub fn kustomize_build(data: &[u8]) -> Outcome {
    let (snapshot, dir, opts) = memory_repo(data);
    let cache = ParseCache::default();
    let rendered = render_target(
        &snapshot,
        &crate::kustomize::Spec { dir }.into(),
        &opts,
        &cache,
    );
    if !rendered.ok {
        let errors: Vec<&str> = rendered
            .findings
            .iter()
            .map(|f| f.message.as_str())
            .collect();
        return Err(errors.join("; "));
    }
    let text = rendered.to_yaml().map_err(|f| f.message)?;
    let opts = ParseOptions {
        duplicate_keys: DuplicateKeys::LastWins,
        ..ParseOptions::default()
    };
    if let Err(e) = yaml::parse_stream(text.as_bytes(), &opts) {
        panic!("the build wrote YAML that does not parse ({e}):\n{text}");
    }
    Ok(())
}

/// A resource (the first section) and a patch (the second): applied as `patches:` text, as a
/// strategic merge patch and as a JSON 6902 patch (see
/// [`crate::kustomize::fuzz::apply_patch_text`]).
pub fn patches(data: &[u8]) -> Outcome {
    let parts = sections(data);
    let resource = parts[0].1;
    let patch = parts.get(1).map(|(_, b)| *b).unwrap_or_default();
    let patch = std::str::from_utf8(patch).map_err(|e| e.to_string())?;
    crate::kustomize::fuzz::apply_patch_text(resource, patch).map(|_| ())
}

/// `template_parse`: the bytes (as UTF-8, lossily) parsed as a Go template with Helm's
/// functions. Parse errors are fine; a panic or a hang is a bug.
pub fn template_parse(data: &[u8]) -> Outcome {
    use crate::template::{Funcs, Options, TemplateSet};
    let text = String::from_utf8_lossy(data);
    let mut set = TemplateSet::new(Funcs::helm(), Options::default());
    set.parse("fuzz", &text).map_err(|e| e.to_string())
}

/// `template_exec`: the bytes parsed and executed on a small fixed dot, with small budgets for
/// steps and output so that every input ends quickly.
pub fn template_exec(data: &[u8]) -> Outcome {
    use crate::template::{Funcs, MissingKey, Options, TemplateSet, Value};
    let text = String::from_utf8_lossy(data);
    let mut set = TemplateSet::new(
        Funcs::helm(),
        Options {
            missing_key: MissingKey::Zero,
            max_steps: 100_000,
            max_output: 1 << 20,
            ..Options::default()
        },
    );
    set.parse("fuzz", &text).map_err(|e| e.to_string())?;
    let dot = Value::from(serde_json::json!({
        "s": "hello", "n": 2, "f": 3.25, "t": true, "nil": null,
        "l": ["a", "b", 1], "m": {"a": 1, "b": {"c": "deep"}}, "e": {}
    }));
    set.execute("fuzz", &dot)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// A small git repository whose objects the `git_objects` harness corrupts one at a time.
pub struct GitFixture {
    dir: PathBuf,
    /// Loose object files of the commit, the root tree, a subtree and a blob, with their
    /// type names and original contents.
    objects: Vec<(PathBuf, &'static str, Vec<u8>)>,
    index: PathBuf,
}

/// Most entries the harness visits in one snapshot.
const MAX_VISITS: usize = 10_000;

impl GitFixture {
    /// Creates the repository in `dir` (an empty or missing directory) with the `git` command.
    pub fn create(dir: &Path) -> Result<GitFixture, String> {
        std::fs::create_dir_all(dir.join("base")).map_err(|e| e.to_string())?;
        let write = |path: &str, text: &str| {
            std::fs::write(dir.join(path), text).map_err(|e| format!("{path}: {e}"))
        };
        write("kustomization.yaml", "resources:\n- base\nnamePrefix: p-\n")?;
        write("base/kustomization.yaml", "resources:\n- cm.yaml\n")?;
        write(
            "base/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  k: v\n",
        )?;
        #[cfg(unix)]
        std::os::unix::fs::symlink("base/cm.yaml", dir.join("link.yaml"))
            .map_err(|e| e.to_string())?;
        git(dir, &["init", "-q"])?;
        git(dir, &["add", "-A"])?;
        git(dir, &["commit", "-q", "-m", "fixture"])?;
        let mut objects = Vec::new();
        for (spec, kind) in [
            ("HEAD", "commit"),
            ("HEAD^{tree}", "tree"),
            ("HEAD:base", "tree"),
            ("HEAD:base/cm.yaml", "blob"),
        ] {
            let hex = git(dir, &["rev-parse", spec])?;
            let path = dir.join(".git/objects").join(&hex[..2]).join(&hex[2..]);
            let original = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            objects.push((path, kind, original));
        }
        Ok(GitFixture {
            dir: dir.to_path_buf(),
            objects,
            index: dir.join("fuzzed-index"),
        })
    }

    /// Interprets `data`: the first byte picks what to corrupt (the index, or one of the
    /// objects given as its contents after a correct header, as raw object bytes, or as raw
    /// loose-file bytes), the rest is what is written there. Then reads every entry of the
    /// snapshot, and puts the object back.
    pub fn run(&self, data: &[u8]) -> Outcome {
        let Some((&selector, body)) = data.split_first() else {
            return Err("empty input".into());
        };
        let result = match selector % 4 {
            0 => {
                write_file(&self.index, body);
                let repo = GitRepo::discover(&self.dir).map_err(|e| e.to_string())?;
                repo.staged_snapshot_from(&self.index)
                    .map_err(|e| e.to_string())
                    .and_then(|s| visit(&s))
            }
            how => {
                let (path, kind, original) = &self.objects[(selector as usize / 4) % 4];
                let loose = match how {
                    1 => {
                        let mut raw = format!("{kind} {}\0", body.len()).into_bytes();
                        raw.extend_from_slice(body);
                        zlib_stored(&raw)
                    }
                    2 => zlib_stored(body),
                    _ => body.to_vec(),
                };
                write_file(path, &loose);
                let result = self.read_head();
                write_file(path, original);
                result
            }
        };
        result
    }

    fn read_head(&self) -> Outcome {
        let repo = GitRepo::discover(&self.dir).map_err(|e| e.to_string())?;
        let rev = repo.resolve("HEAD").map_err(|e| e.to_string())?;
        let snapshot = repo.snapshot_at(&rev).map_err(|e| e.to_string())?;
        visit(&snapshot)
    }
}

/// Lists every directory and reads every file of a snapshot; `Err` for the first failure.
fn visit(snapshot: &dyn Snapshot) -> Outcome {
    let mut pending = vec![RepoPath::root()];
    let mut seen = BTreeSet::new();
    let mut first_error = None;
    while let Some(dir) = pending.pop() {
        if seen.len() >= MAX_VISITS || !seen.insert(dir.clone()) {
            continue;
        }
        let entries = match snapshot.list(&dir) {
            Ok(entries) => entries,
            Err(e) => {
                first_error.get_or_insert(e.to_string());
                continue;
            }
        };
        for entry in entries {
            let path = dir.child(&entry.name);
            let _ = snapshot.object_id(&path);
            let _ = snapshot.canonical(&path);
            match snapshot.kind(&path) {
                EntryKind::Dir => pending.push(path),
                EntryKind::File => {
                    if let Err(e) = snapshot.read(&path) {
                        first_error.get_or_insert(e.to_string());
                    }
                }
                EntryKind::Symlink | EntryKind::Missing => {}
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn write_file(path: &Path, bytes: &[u8]) {
    // Loose objects are read-only: replace the file rather than write through it.
    let _ = std::fs::remove_file(path);
    if let Err(e) = std::fs::write(path, bytes) {
        panic!("cannot write {}: {e}", path.display());
    }
}

/// `bytes` as a zlib stream of stored (uncompressed) deflate blocks, as a loose object.
fn zlib_stored(bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    let mut chunks = bytes.chunks(0xffff).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(chunk) = chunks.next() {
        let last = chunks.peek().is_none();
        let len = chunk.len() as u16;
        out.push(u8::from(last));
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in bytes {
        a = (a + u32::from(byte)) % 65521;
        b = (b + a) % 65521;
    }
    out.extend_from_slice(&((b << 16) | a).to_be_bytes());
    out
}

/// Runs git in `dir` as the tests do ([`crate::testing::git_command`], with `dir` as its home);
/// returns its trimmed standard output.
fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = crate::testing::git_command(dir, dir, args)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_split_at_header_lines() {
        let parts = sections(b"a: 1\n=== x.yaml\nb: 2\n=== y\n");
        assert_eq!(
            parts,
            [
                (String::new(), &b"a: 1\n"[..]),
                ("x.yaml".to_string(), &b"b: 2\n"[..]),
                ("y".to_string(), &b""[..]),
            ]
        );
    }

    #[test]
    fn zlib_stored_is_a_valid_stream() {
        // Adler-32 of "Wikipedia" is 0x11E60398.
        let z = zlib_stored(b"Wikipedia");
        assert_eq!(&z[z.len() - 4..], &[0x11, 0xe6, 0x03, 0x98]);
        assert_eq!(&z[..3], &[0x78, 0x01, 0x01]);
    }
}
