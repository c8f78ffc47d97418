//! A Directory source, as Argo CD's repo-server reads one (`findManifests`): the files
//! directly in the path (every level with `recurse`) named `*.yaml`, `*.yml`, `*.json` or
//! `*.jsonnet` (any name with `disableExtensionFilter`), filtered by `exclude` then
//! `include` (globs in which `*` also crosses `/`), skipping files that contain
//! `+argocd:skip-file-rendering`, in walk order. A YAML file that does not decode is left
//! out unless it looks like a manifest; a JSON file holds one object. Jsonnet is not
//! evaluated: a notice.

use crate::engine::EngineOutput;
use crate::finding::{rules, Finding, Incomplete};
use crate::resource::Resource;
use crate::source::{source_finding, EntryKind, Files, RepoPath};
use crate::yaml::{Node, ParseOptions};
use serde_json::Value as Json;

const SKIP_MARKER: &[u8] = b"+argocd:skip-file-rendering";

/// The manifests of the directory `dir` with the Application's `directory` options.
pub fn render(app: &str, options: &Json, files: &Files, dir: &RepoPath) -> EngineOutput<()> {
    let recurse = options["recurse"].as_bool() == Some(true);
    let any_name = options["disableExtensionFilter"].as_bool() == Some(true);
    let glob = |key: &str| {
        options[key]
            .as_str()
            .filter(|s| !s.is_empty())
            .map(gobwas_without_separators)
    };
    let (include, exclude) = (glob("include"), glob("exclude"));
    let mut out = EngineOutput::new(Vec::new(), Vec::new(), true);
    let mut paths = Vec::new();
    if let Err(e) = walk(files, dir, recurse, &mut paths) {
        return EngineOutput::failed(vec![source_finding(&e, dir)]);
    }
    let mut jsonnet = Vec::new();
    for path in paths {
        let name = path.file_name();
        let manifest_name = [".yaml", ".yml", ".json", ".jsonnet"]
            .iter()
            .any(|ext| name.ends_with(ext));
        if !any_name && !manifest_name {
            continue;
        }
        let rel = path.as_str()[dir.as_str().len()..].trim_start_matches('/');
        let matches = |pattern: &String| {
            crate::helm::glob::matches(crate::helm::glob::Syntax::Gobwas, pattern, rel)
        };
        if exclude.as_ref().is_some_and(matches) || include.as_ref().is_some_and(|p| !matches(p)) {
            continue;
        }
        // A link to a directory or to nothing is skipped, as Argo CD skips it.
        if files.kind(&path) != EntryKind::File {
            continue;
        }
        let bytes = match files.read(&path) {
            Ok(b) => b,
            Err(e) => {
                out.findings.push(source_finding(&e, &path));
                out.ok = false;
                continue;
            }
        };
        if bytes.windows(SKIP_MARKER.len()).any(|w| w == SKIP_MARKER) {
            continue;
        }
        if name.ends_with(".jsonnet") {
            jsonnet.push(path.to_string());
            continue;
        }
        if let Err(f) = objects(files, &path, &bytes, &mut out.resources) {
            out.findings.push(*f);
            out.ok = false;
        }
    }
    if !jsonnet.is_empty() {
        out.findings.push(
            Finding::notice(
                rules::APP_SOURCE_NOT_RENDERED,
                format!(
                    "Application {app}: kdelta does not evaluate Jsonnet; left out: {}",
                    jsonnet.join(", ")
                ),
            )
            .in_file(jsonnet[0].clone())
            .incomplete(Incomplete::Jsonnet),
        );
        out.complete = false;
    }
    out
}

/// The files below `dir` in `filepath.Walk`'s order (names sorted, a directory's files where
/// its name sorts), descending only with `recurse`; links are not followed into directories.
fn walk(
    files: &Files,
    dir: &RepoPath,
    recurse: bool,
    out: &mut Vec<RepoPath>,
) -> Result<(), crate::source::SourceError> {
    for e in files.list(dir)? {
        let path = dir.child(&e.name);
        match e.kind {
            EntryKind::Dir if recurse => walk(files, &path, recurse, out)?,
            EntryKind::Dir | EntryKind::Missing => {}
            EntryKind::File | EntryKind::Symlink => out.push(path),
        }
    }
    Ok(())
}

/// gobwas's glob compiled without separators: `*` matches `/` too.
fn gobwas_without_separators(pattern: &str) -> String {
    pattern.replace("**", "*").replace('*', "**")
}

/// The objects of one file, or why the file is refused.
fn objects(
    files: &Files,
    path: &RepoPath,
    bytes: &[u8],
    out: &mut Vec<Resource>,
) -> Result<(), Box<Finding>> {
    let unmarshal = |line: u32, column: u32, why: &str| {
        Box::new(
            Finding::error(
                rules::RESOURCE_INVALID,
                format!("Failed to unmarshal {:?}: {why}", path.file_name()),
            )
            .at(path.to_string(), line, column),
        )
    };
    if path.file_name().ends_with(".json") {
        let mut docs = serde_json::Deserializer::from_slice(bytes).into_iter::<Json>();
        match docs.next() {
            Some(Ok(_)) => {}
            Some(Err(e)) => {
                return Err(unmarshal(
                    e.line() as u32,
                    e.column() as u32,
                    &e.to_string(),
                ))
            }
            None => return Err(unmarshal(1, 1, "unexpected end of JSON input")),
        }
        if docs.next().is_some() {
            return Err(Box::new(
                Finding::error(
                    rules::RESOURCE_INVALID,
                    format!(
                        "Found multiple objects in {:?}. Only single objects are allowed in JSON files.",
                        path.file_name()
                    ),
                )
                .in_file(path.to_string()),
            ));
        }
    }
    let parsed = files
        .yaml_stream(path, &ParseOptions::default())
        .map_err(|e| Box::new(source_finding(&e, path)))?;
    let looks_like_manifest = [&b"apiVersion:"[..], b"kind:", b"metadata:"]
        .iter()
        .all(|needle| bytes.windows(needle.len()).any(|w| w == *needle));
    let docs = match parsed.as_ref() {
        Ok(docs) => docs,
        Err(e) if looks_like_manifest => {
            return Err(unmarshal(e.span.line, e.span.column, &e.message))
        }
        Err(_) => return Ok(()),
    };
    let before = out.len();
    for doc in docs.iter().filter(|d| !d.is_null()) {
        let missing = if !doc.is_map() {
            Some("cannot unmarshal into an object")
        } else if doc.str_at(&["kind"]).is_none_or(str::is_empty) {
            Some("Object 'Kind' is missing")
        } else if doc.str_at(&["apiVersion"]).is_none_or(str::is_empty) {
            Some("Object 'apiVersion' is missing")
        } else {
            None
        };
        match missing {
            // A file that is not manifests at all (values, configuration) is left out.
            Some(_) if out.len() == before && !looks_like_manifest => return Ok(()),
            Some(why) => return Err(unmarshal(doc.span.line, doc.span.column, why)),
            None => {
                // The repo-server decodes each object into JSON: a value no type fits (`!!int
                // three`, NaN) fails the manifest generation.
                if let Some(e) = crate::yaml::typing_error(doc, crate::yaml::Dialect::Yaml12) {
                    return Err(unmarshal(doc.span.line, doc.span.column, &e.to_string()));
                }
                out.push(Resource::new(Node::clone(doc), path.clone()))
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{MemorySnapshot, ParseCache};

    fn render_with(options: Json, tree: &[(&str, &str)]) -> (Vec<String>, Vec<String>) {
        let mut snap = MemorySnapshot::new();
        for (p, text) in tree {
            snap.add_file(&RepoPath::new(p).unwrap(), text.as_bytes());
        }
        let cache = ParseCache::default();
        let files = Files::new(&snap, &cache);
        let out = render("app", &options, &files, &RepoPath::new("m").unwrap());
        (
            out.resources.iter().map(|r| r.name().to_string()).collect(),
            out.findings.iter().map(|f| f.message.clone()).collect(),
        )
    }

    fn cm(name: &str) -> String {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n")
    }

    #[test]
    fn walks_filters_and_skips_as_argo_cd() {
        let (a, b, c, d) = (cm("a"), cm("b"), cm("c"), cm("d"));
        let skipped = format!("# +argocd:skip-file-rendering\n{}", cm("skipped"));
        let tree = [
            ("m/a.yaml", a.as_str()),
            ("m/sub/b.yml", b.as_str()),
            (
                "m/sub/deep/c.json",
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"}}",
            ),
            ("m/z.yaml", d.as_str()),
            ("m/values.yaml", "replicas: 2\n"),
            ("m/notes.txt", c.as_str()),
            ("m/skip.yaml", skipped.as_str()),
        ];
        assert_eq!(render_with(Json::Null, &tree).0, ["a", "d"]);
        let recurse = serde_json::json!({"recurse": true});
        assert_eq!(render_with(recurse, &tree).0, ["a", "b", "c", "d"]);
        let filtered = serde_json::json!({"recurse": true, "include": "{*.yml,*.json}", "exclude": "*/deep/*"});
        assert_eq!(render_with(filtered, &tree).0, ["b"]);
        let any = serde_json::json!({"disableExtensionFilter": true, "include": "*.txt"});
        assert_eq!(render_with(any, &tree).0, ["c"]);
    }

    #[test]
    fn refuses_broken_manifests_and_names_jsonnet() {
        let (_, findings) = render_with(
            Json::Null,
            &[
                (
                    "m/bad.yaml",
                    "apiVersion: v1\nkind: ConfigMap\nmetadata: [\n",
                ),
                ("m/two.json", "{\"kind\":\"A\"}{\"kind\":\"B\"}"),
                ("m/lib.jsonnet", "{}"),
            ],
        );
        assert_eq!(findings.len(), 3, "{findings:?}");
        assert!(
            findings[0].starts_with("Failed to unmarshal \"bad.yaml\""),
            "{findings:?}"
        );
        assert!(findings[1].starts_with("Found multiple objects in \"two.json\""));
        assert!(findings[2].contains("does not evaluate Jsonnet; left out: m/lib.jsonnet"));
    }
}
