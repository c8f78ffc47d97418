//! The git generator (`generators/git.go`): directories and files of this repository at the
//! revision, or of another one's commit from the fetch store, with Argo CD's path parameters.

use super::*;

/// The git generator (`generators/git.go`) on this repository, or on another one's commit
/// from the fetch store.
pub(super) fn git(
    body: &Json,
    ctx: &Context,
    mode: &Mode,
    notices: &mut Vec<Gap>,
) -> Result<Vec<Params>, GenerateError> {
    let repo = body["repoURL"].as_str().unwrap_or_default();
    let revision = body["revision"]
        .as_str()
        .filter(|r| !r.is_empty())
        .unwrap_or("HEAD");
    let shown = crate::fetch::url::redact_text(repo);
    // Another repository: its commit from the fetch store.
    let fetched;
    let sibling;
    let files = match ctx.files {
        Some(f) if (ctx.is_this_repo)(repo) => f,
        Some(f) => match crate::argocd::deploy::git_snapshot(f, repo, revision) {
            Ok((snapshot, _)) => {
                fetched = snapshot;
                sibling = f.sibling(fetched.as_ref());
                &sibling
            }
            Err(crate::fetch::Unavailable::NotCached(_)) => {
                notices.push(Gap::Offline(format!(
                    "the git generator reads {shown} at {revision}, which is not this repository and not in kdelta's cache (run `kdelta fetch`, or add --fetch; if it is this repository, declare its URL in repoURLs of .kdelta.yaml), so its Applications are missing"
                )));
                return Ok(Vec::new());
            }
            Err(crate::fetch::Unavailable::Failed(e)) => {
                notices.push(Gap::FetchFailed(format!(
                    "the git generator cannot read {shown} at {revision}: {e}; its Applications are missing"
                )));
                return Ok(Vec::new());
            }
        },
        None => {
            notices.push(Gap::Offline(format!(
                "the git generator reads {shown}, which is not this repository; kdelta does not fetch it here, so its Applications are missing"
            )));
            return Ok(Vec::new());
        }
    };
    let prefix = body["pathParamPrefix"].as_str().unwrap_or_default();
    let mut out = Vec::new();
    if let Some(dirs) = body["directories"].as_array() {
        let (include, exclude) = patterns(dirs);
        for d in all_directories(files) {
            let m = |p: &String| {
                crate::helm::glob::matches(crate::helm::glob::Syntax::GoFilepath, p, &d)
            };
            if include.iter().any(m) && !exclude.iter().any(m) {
                let mut p = Params::new();
                path_params(&mut p, &d, None, prefix, mode);
                out.push(p);
            }
        }
    }
    if let Some(list) = body["files"].as_array() {
        let (include, exclude) = patterns(list);
        let all = all_files(files);
        let glob = |pattern: &str, path: &str| {
            if ctx.new_git_file_globbing {
                crate::helm::glob::doublestar(pattern, path)
            } else {
                pathspec(pattern, path)
            }
        };
        let mut chosen: Vec<&String> = all
            .iter()
            .filter(|f| include.iter().any(|p| glob(p, f)) && !exclude.iter().any(|p| glob(p, f)))
            .collect();
        chosen.sort();
        for f in chosen {
            let path = RepoPath::new(f)?;
            let bytes = match files.read(&path) {
                Ok(bytes) => bytes,
                Err(error) => return Err(GenerateError::GitRead { path, error }),
            };
            for content in file_param_sets(&bytes, f)? {
                let mut p = if mode.go_template {
                    content
                } else {
                    flatten(&Json::Object(content))
                };
                path_params(&mut p, dir_of(f), Some(f), prefix, mode);
                out.push(p);
            }
        }
    }
    for p in &mut out {
        append_values(p, &body["values"], mode)?;
    }
    Ok(out)
}

/// `(include, exclude)` patterns of `directories:`/`files:` entries.
pub(super) fn patterns(entries: &[Json]) -> (Vec<String>, Vec<String>) {
    let mut include = Vec::new();
    let mut exclude = Vec::new();
    for e in entries {
        let path = e["path"].as_str().unwrap_or_default().to_string();
        if e["exclude"].as_bool() == Some(true) {
            exclude.push(path);
        } else {
            include.push(path);
        }
    }
    (include, exclude)
}

/// Every directory of the repository, at every depth, but dot-directories and what is below
/// them (the repo-server's walk without `--include-hidden-directories`).
pub(super) fn all_directories(files: &Files) -> Vec<String> {
    let mut out = Vec::new();
    walk(files, &RepoPath::root(), &mut |p, kind| {
        if kind == EntryKind::Dir {
            out.push(p.to_string());
        }
    });
    out.sort();
    out
}

/// Every file of the repository (`git ls-files`).
pub(super) fn all_files(files: &Files) -> Vec<String> {
    let mut out = Vec::new();
    walk(files, &RepoPath::root(), &mut |p, kind| {
        if kind == EntryKind::File {
            out.push(p.to_string());
        }
    });
    out
}

pub(super) fn walk(files: &Files, dir: &RepoPath, visit: &mut dyn FnMut(&RepoPath, EntryKind)) {
    let Ok(entries) = files.list(dir) else { return };
    for e in entries {
        let path = dir.child(&e.name);
        match e.kind {
            EntryKind::Dir if e.name.starts_with('.') => {}
            EntryKind::Dir => {
                visit(&path, EntryKind::Dir);
                walk(files, &path, visit);
            }
            EntryKind::File | EntryKind::Symlink => visit(&path, EntryKind::File),
            EntryKind::Missing => {}
        }
    }
}

/// A git pathspec as `git ls-files -- PATTERN` reads it: `*` and `?` also match `/`, and a
/// pattern naming a directory matches everything below it.
pub(super) fn pathspec(pattern: &str, path: &str) -> bool {
    if !pattern.contains(['*', '?', '[']) {
        return path == pattern || path.starts_with(&format!("{}/", pattern.trim_end_matches('/')));
    }
    let gobwas = pattern
        .replace("**", "*")
        .replace('*', "**")
        .replace('{', "\\{");
    crate::helm::glob::matches(crate::helm::glob::Syntax::Gobwas, &gobwas, path)
}

pub(super) fn dir_of(file: &str) -> &str {
    file.rsplit_once('/').map_or(".", |(d, _)| d)
}

/// A git file's parameter sets: Argo CD unmarshals the file (sigs.k8s.io/yaml: its first
/// document, go-yaml v2 typing) into one object, and where that fails into a list of objects,
/// reporting the second attempt's error. An empty file or `null` is one empty set, as is a
/// `null` item of the list.
pub(super) fn file_param_sets(bytes: &[u8], name: &str) -> Result<Vec<Params>, GenerateError> {
    let value = crate::template::sigs_yaml_to_json(&crate::template::gostr::from_bytes(bytes))
        .map_err(|error| GenerateError::GitFileSyntax {
            name: name.to_string(),
            error,
        })?;
    let refused = |got: &Json, want| GenerateError::GitFileShape {
        name: name.to_string(),
        got: super::json_type(got),
        want,
    };
    match value {
        Json::Object(m) => Ok(vec![m]),
        Json::Null => Ok(vec![Params::new()]),
        Json::Array(items) => items
            .into_iter()
            .map(|item| match item {
                Json::Object(m) => Ok(m),
                Json::Null => Ok(Params::new()),
                other => Err(refused(&other, "map[string]interface {}")),
            })
            .collect(),
        other => Err(refused(&other, "[]map[string]interface {}")),
    }
}

/// jeremywohl/flatten with dots: nested maps `a.b`, lists `a.0`, leaves as `%v`.
pub(super) fn flatten(v: &Json) -> Params {
    fn go(v: &Json, prefix: &str, out: &mut Params) {
        let key = |k: &str| {
            if prefix.is_empty() {
                k.to_string()
            } else {
                format!("{prefix}.{k}")
            }
        };
        match v {
            Json::Object(m) if !m.is_empty() => {
                for (k, v) in m {
                    go(v, &key(k), out);
                }
            }
            Json::Array(a) if !a.is_empty() => {
                for (i, v) in a.iter().enumerate() {
                    go(v, &key(&i.to_string()), out);
                }
            }
            other if !prefix.is_empty() => {
                out.insert(prefix.to_string(), json!(go_sprint(other)));
            }
            _ => {}
        }
    }
    let mut out = Params::new();
    go(v, "", &mut out);
    out
}

/// The path parameters of a git directory (or of a file's directory, with its name).
pub(super) fn path_params(
    p: &mut Params,
    dir: &str,
    file: Option<&str>,
    prefix: &str,
    mode: &Mode,
) {
    let base = dir.rsplit('/').next().unwrap_or(dir);
    let segments: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    let filename = file.map(|f| f.rsplit('/').next().unwrap_or(f));
    let root = if prefix.is_empty() {
        "path".to_string()
    } else {
        format!("{prefix}.path")
    };
    if mode.go_template {
        let mut m = Map::new();
        m.insert("path".into(), json!(dir));
        m.insert("basename".into(), json!(base));
        m.insert("basenameNormalized".into(), json!(normalize(base)));
        m.insert("segments".into(), json!(segments));
        if let Some(f) = filename {
            m.insert("filename".into(), json!(f));
            m.insert("filenameNormalized".into(), json!(normalize(f)));
        }
        if prefix.is_empty() {
            p.insert("path".into(), Json::Object(m));
        } else {
            let mut outer = Map::new();
            outer.insert("path".into(), Json::Object(m));
            p.insert(prefix.to_string(), Json::Object(outer));
        }
        return;
    }
    p.insert(root.clone(), json!(dir));
    p.insert(format!("{root}.basename"), json!(base));
    p.insert(format!("{root}.basenameNormalized"), json!(normalize(base)));
    if let Some(f) = filename {
        p.insert(format!("{root}.filename"), json!(f));
        p.insert(format!("{root}.filenameNormalized"), json!(normalize(f)));
    }
    for (i, s) in segments.iter().enumerate() {
        p.insert(format!("{root}[{i}]"), json!(s));
    }
}
