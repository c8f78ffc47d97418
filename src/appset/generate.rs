//! ApplicationSet generation, offline, as Argo CD's ApplicationSet controller (v3.5) does it
//! (reference/argocd.md §1–§5): every generator's parameter sets (list, clusters, git files
//! and directories read from the snapshot, matrix, merge), post selectors, the template
//! rendered per set, `templatePatch`, the finalizer rule, the duplicate-name rule, and the
//! Applications sorted by name. Generators that need the network or a cluster are notices.

use super::render::{self, go_sprint, Mode, Params};
use crate::source::{EntryKind, Files, RepoPath};
use serde_json::{json, Map, Value as Json};
use std::collections::BTreeMap;

/// The in-cluster destination Argo CD always knows.
pub const IN_CLUSTER_SERVER: &str = "https://kubernetes.default.svc";

/// An Argo CD cluster: a cluster Secret (`argocd.argoproj.io/secret-type: cluster`) of the
/// repository, or one `.kdelta.yaml` declares (`argocd.clusters`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cluster {
    pub name: String,
    pub server: String,
    pub project: String,
    /// The Secret's labels and annotations.
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
}

/// What generation reads beyond the ApplicationSet.
pub struct Context<'a> {
    /// The repository the git generators read, when their `repoURL` is this repository.
    pub files: Option<&'a Files<'a>>,
    /// True when a generator's `repoURL` names the repository of `files`.
    pub is_this_repo: &'a dyn Fn(&str) -> bool,
    pub clusters: &'a [Cluster],
    /// The namespace of an ApplicationSet without `metadata.namespace` (Argo CD's own).
    pub namespace: &'a str,
    /// The controller's `--enable-new-git-file-globbing`.
    pub new_git_file_globbing: bool,
}

/// The Applications of an ApplicationSet.
#[derive(Clone, Debug, Default)]
pub struct Generated {
    /// Sorted by name.
    pub apps: Vec<Json>,
    /// Validation errors: the Applications they name are not created, the others are.
    pub errors: Vec<String>,
    /// Generators kdelta cannot run offline (their Applications are missing).
    pub notices: Vec<String>,
    /// Each Application's name with the generator and parameters that made it
    /// (`list generator 0 with {"cluster":"dev"}`).
    pub made_by: Vec<(String, String)>,
}

/// Generates the Applications of `appset` (the manifest as JSON). An `Err` is an error that
/// stops the whole ApplicationSet, as in the controller.
pub fn generate(appset: &Json, ctx: &Context) -> Result<Generated, String> {
    let spec = &appset["spec"];
    let mode = Mode {
        go_template: spec["goTemplate"].as_bool().unwrap_or(false),
        missing_key_error: spec["goTemplateOptions"]
            .as_array()
            .is_some_and(|o| o.iter().any(|o| o.as_str() == Some("missingkey=error"))),
    };
    let namespace = appset["metadata"]["namespace"]
        .as_str()
        .filter(|n| !n.is_empty())
        .unwrap_or(ctx.namespace)
        .to_string();
    let appset_name = appset["metadata"]["name"].as_str().unwrap_or_default();
    let template = &spec["template"];
    let patch = spec["templatePatch"].as_str();
    let mut out = Generated::default();
    let mut apps = Vec::new();
    let generators = spec["generators"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    for (i, g) in generators.iter().enumerate() {
        for (kind, body) in generator_kinds(g) {
            let own_template = body.get("template").cloned().unwrap_or(Json::Null);
            let merged = fill_empty(&own_template, template);
            let sets = params_of(kind, body, ctx, &mode, &mut out.notices)?;
            let sets = select(sets, g.get("selector"))?;
            for p in sets {
                let app = render_app(&merged, &p, &mode, patch, &namespace, &spec["syncPolicy"])?;
                out.made_by.push((
                    app_name(&app),
                    format!(
                        "the {kind} generator (generators[{i}]) with {}",
                        Json::Object(p)
                    ),
                ));
                apps.push(app);
            }
        }
    }
    // Validation: every Application of a duplicated name is dropped.
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for a in &apps {
        *counts.entry(app_name(a)).or_default() += 1;
    }
    for (name, n) in &counts {
        if *n > 1 {
            out.errors.push(format!(
                "ApplicationSet {appset_name} contains applications with duplicate name: {name}"
            ));
        }
        if name.is_empty() {
            out.errors.push(format!(
                "ApplicationSet {appset_name} generated an Application without a name"
            ));
        }
    }
    apps.retain(|a| {
        let name = app_name(a);
        !name.is_empty() && counts[&name] == 1
    });
    apps.sort_by_key(app_name);
    out.apps = apps;
    Ok(out)
}

fn app_name(app: &Json) -> String {
    app["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The generator keys set in one `generators:` entry (each runs: Argo CD's
/// `GetRelevantGenerators`).
fn generator_kinds(g: &Json) -> Vec<(&'static str, &Json)> {
    const KINDS: [&str; 9] = [
        "list",
        "clusters",
        "git",
        "matrix",
        "merge",
        "scmProvider",
        "pullRequest",
        "clusterDecisionResource",
        "plugin",
    ];
    KINDS
        .iter()
        .filter_map(|k| g.get(*k).filter(|v| !v.is_null()).map(|v| (*k, v)))
        .collect()
}

/// mergo.Merge(dst, src): `dst`'s non-empty fields win, empty ones come from `src`.
fn fill_empty(dst: &Json, src: &Json) -> Json {
    match (dst, src) {
        (Json::Object(d), Json::Object(s)) => {
            let mut out = d.clone();
            for (k, sv) in s {
                let merged = match d.get(k) {
                    Some(dv) if !is_empty(dv) => fill_empty(dv, sv),
                    _ => sv.clone(),
                };
                out.insert(k.clone(), merged);
            }
            Json::Object(out)
        }
        (d, s) if is_empty(d) => s.clone(),
        (d, _) => d.clone(),
    }
}

fn is_empty(v: &Json) -> bool {
    match v {
        Json::Null => true,
        Json::String(s) => s.is_empty(),
        Json::Array(a) => a.is_empty(),
        Json::Object(m) => m.is_empty(),
        Json::Bool(b) => !b,
        Json::Number(n) => n.as_f64() == Some(0.0),
    }
}

/// The parameter sets of one generator.
fn params_of(
    kind: &str,
    body: &Json,
    ctx: &Context,
    mode: &Mode,
    notices: &mut Vec<String>,
) -> Result<Vec<Params>, String> {
    match kind {
        "list" => list(body, mode),
        "clusters" => clusters(body, ctx, mode),
        "git" => git(body, ctx, mode, notices),
        "matrix" => matrix(body, ctx, mode, notices),
        "merge" => merge(body, ctx, mode, notices),
        other => {
            notices.push(format!(
                "the {other} generator needs the network or a cluster; kdelta does not run it offline, so its Applications are missing"
            ));
            Ok(Vec::new())
        }
    }
}

/// The list generator (`generators/list.go`).
fn list(body: &Json, mode: &Mode) -> Result<Vec<Params>, String> {
    let mut out = Vec::new();
    for e in body["elements"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let Json::Object(m) = e else {
            return Err("error unmarshling list element".to_string());
        };
        if mode.go_template {
            out.push(m.clone());
            continue;
        }
        let mut p = Params::new();
        for (k, v) in m {
            match (k.as_str(), v) {
                (_, Json::String(s)) => {
                    p.insert(k.clone(), Json::String(s.clone()));
                }
                ("values", Json::Object(values)) => {
                    for (vk, vv) in values {
                        let Json::String(s) = vv else {
                            return Err(format!("error parsing value as string: values.{vk}"));
                        };
                        p.insert(format!("values.{vk}"), Json::String(s.clone()));
                    }
                }
                _ => return Err(format!("error parsing value as string: {k}")),
            }
        }
        out.push(p);
    }
    if let Some(text) = body["elementsYaml"]
        .as_str()
        .filter(|t| !t.trim().is_empty())
    {
        let node = crate::yaml::parse_one(text.as_bytes(), &Default::default())
            .map_err(|e| format!("error unmarshling decoded ElementsYaml {}", e.message))?;
        let value = crate::yaml::to_value(&node, crate::yaml::Dialect::Yaml12)
            .map_err(|e| format!("error unmarshling decoded ElementsYaml {e}"))?;
        for e in value.as_array().map(Vec::as_slice).unwrap_or_default() {
            if let Json::Object(m) = e {
                out.push(m.clone());
            }
        }
    }
    Ok(out)
}

/// The clusters generator (`generators/cluster.go`).
fn clusters(body: &Json, ctx: &Context, mode: &Mode) -> Result<Vec<Params>, String> {
    let selector = &body["selector"];
    let selector_empty = selector["matchLabels"]
        .as_object()
        .is_none_or(Map::is_empty)
        && selector["matchExpressions"]
            .as_array()
            .is_none_or(Vec::is_empty);
    // Keyed by name, as the controller keys them.
    let mut by_name: BTreeMap<&str, &Cluster> = BTreeMap::new();
    for c in ctx.clusters {
        let labels: BTreeMap<String, String> = c.labels.clone();
        if selector_empty || matches_selector(selector, &labels)? {
            by_name.insert(&c.name, c);
        }
    }
    let mut out = Vec::new();
    for c in by_name.values() {
        let mut p = Params::new();
        p.insert("name".into(), json!(c.name));
        p.insert("nameNormalized".into(), json!(normalize(&c.name)));
        p.insert("server".into(), json!(c.server));
        p.insert("project".into(), json!(c.project));
        if mode.go_template {
            let mut meta = Map::new();
            if !c.labels.is_empty() {
                meta.insert("labels".into(), json!(c.labels));
            }
            if !c.annotations.is_empty() {
                meta.insert("annotations".into(), json!(c.annotations));
            }
            p.insert("metadata".into(), Json::Object(meta));
        } else {
            for (k, v) in &c.labels {
                p.insert(format!("metadata.labels.{k}"), json!(v));
            }
            for (k, v) in &c.annotations {
                p.insert(format!("metadata.annotations.{k}"), json!(v));
            }
        }
        out.push(p);
    }
    let has_local = ctx.clusters.iter().any(|c| c.server == IN_CLUSTER_SERVER);
    if selector_empty && !has_local {
        let mut p = Params::new();
        p.insert("name".into(), json!("in-cluster"));
        p.insert("nameNormalized".into(), json!("in-cluster"));
        p.insert("server".into(), json!(IN_CLUSTER_SERVER));
        p.insert("project".into(), json!(""));
        out.push(p);
    }
    for p in &mut out {
        append_values(p, &body["values"], mode)?;
    }
    if body["flatList"].as_bool() == Some(true) {
        let all: Vec<Json> = out.into_iter().map(Json::Object).collect();
        let mut p = Params::new();
        p.insert("clusters".into(), Json::Array(all));
        return Ok(vec![p]);
    }
    Ok(out)
}

/// `values:` rendered against each parameter set (`appendTemplatedValues`).
fn append_values(p: &mut Params, values: &Json, mode: &Mode) -> Result<(), String> {
    let Some(values) = values.as_object().filter(|v| !v.is_empty()) else {
        return Ok(());
    };
    let mut rendered = Map::new();
    for (k, v) in values {
        let text = v.as_str().unwrap_or_default();
        rendered.insert(k.clone(), json!(render::render_string(text, p, mode)?));
    }
    if mode.go_template {
        p.insert("values".into(), Json::Object(rendered));
    } else {
        for (k, v) in rendered {
            p.insert(format!("values.{k}"), v);
        }
    }
    Ok(())
}

/// Argo CD's `SanitizeName` (the `normalize` function).
pub fn normalize(name: &str) -> String {
    let lower = name.to_lowercase();
    let replaced: String = lower
        .chars()
        .map(|c| {
            if c == '-' || c == '.' || c.is_ascii_lowercase() || c.is_ascii_digit() {
                c
            } else {
                '-'
            }
        })
        .collect();
    let cut: String = replaced.chars().take(253).collect();
    cut.trim_matches(|c| c == '-' || c == '.').to_string()
}

/// The git generator on this repository (`generators/git.go`); another repository is a
/// notice.
fn git(
    body: &Json,
    ctx: &Context,
    mode: &Mode,
    notices: &mut Vec<String>,
) -> Result<Vec<Params>, String> {
    let repo = body["repoURL"].as_str().unwrap_or_default();
    let files = match ctx.files {
        Some(f) if (ctx.is_this_repo)(repo) => f,
        _ => {
            notices.push(format!(
                "the git generator reads {repo}, which is not this repository; kdelta does not fetch it, so its Applications are missing"
            ));
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
                doublestar(pattern, path)
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
            let path = RepoPath::new(f).map_err(|e| e.to_string())?;
            let bytes = files
                .read(&path)
                .map_err(|e| format!("unable to read files: {e}"))?;
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
fn patterns(entries: &[Json]) -> (Vec<String>, Vec<String>) {
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
fn all_directories(files: &Files) -> Vec<String> {
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
fn all_files(files: &Files) -> Vec<String> {
    let mut out = Vec::new();
    walk(files, &RepoPath::root(), &mut |p, kind| {
        if kind == EntryKind::File {
            out.push(p.to_string());
        }
    });
    out
}

fn walk(files: &Files, dir: &RepoPath, visit: &mut dyn FnMut(&RepoPath, EntryKind)) {
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
fn pathspec(pattern: &str, path: &str) -> bool {
    if !pattern.contains(['*', '?', '[']) {
        return path == pattern || path.starts_with(&format!("{}/", pattern.trim_end_matches('/')));
    }
    let gobwas = pattern
        .replace("**", "*")
        .replace('*', "**")
        .replace('{', "\\{");
    crate::helm::glob::matches(crate::helm::glob::Syntax::Gobwas, &gobwas, path)
}

/// doublestar's glob: `*` stays within a segment, a `**` segment matches any number of
/// segments.
pub(super) fn doublestar(pattern: &str, path: &str) -> bool {
    fn go(p: &[&str], n: &[&str]) -> bool {
        match p.first() {
            None => n.is_empty(),
            Some(&"**") => (0..=n.len()).any(|i| go(&p[1..], &n[i..])),
            Some(seg) => {
                !n.is_empty()
                    && crate::helm::glob::matches(crate::helm::glob::Syntax::GoFilepath, seg, n[0])
                    && go(&p[1..], &n[1..])
            }
        }
    }
    let p: Vec<&str> = pattern.split('/').collect();
    let n: Vec<&str> = path.split('/').collect();
    go(&p, &n)
}

fn dir_of(file: &str) -> &str {
    file.rsplit_once('/').map_or(".", |(d, _)| d)
}

/// A git file's parameter sets: one object, or each element of an array.
fn file_param_sets(bytes: &[u8], name: &str) -> Result<Vec<Params>, String> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(vec![Params::new()]);
    }
    let node = crate::yaml::parse_one(bytes, &Default::default())
        .map_err(|e| format!("unable to parse file {name}: {}", e.message))?;
    let value = crate::yaml::to_value(&node, crate::yaml::Dialect::Yaml12)
        .map_err(|e| format!("unable to parse file {name}: {e}"))?;
    match value {
        Json::Object(m) => Ok(vec![m]),
        Json::Null => Ok(vec![Params::new()]),
        Json::Array(items) => Ok(items
            .into_iter()
            .filter_map(|i| match i {
                Json::Object(m) => Some(m),
                _ => None,
            })
            .collect()),
        _ => Err(format!(
            "unable to parse file {name}: not an object or a list"
        )),
    }
}

/// jeremywohl/flatten with dots: nested maps `a.b`, lists `a.0`, leaves as `%v`.
fn flatten(v: &Json) -> Params {
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
fn path_params(p: &mut Params, dir: &str, file: Option<&str>, prefix: &str, mode: &Mode) {
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

/// The matrix generator (`generators/matrix.go`).
fn matrix(
    body: &Json,
    ctx: &Context,
    mode: &Mode,
    notices: &mut Vec<String>,
) -> Result<Vec<Params>, String> {
    let children = body["generators"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    if children.len() < 2 {
        return Err("found less than two generators, Matrix support only two".to_string());
    }
    if children.len() > 2 {
        return Err("found more than two generators, Matrix support only two".to_string());
    }
    let first = child_params(&children[0], ctx, mode, notices)?;
    let mut out = Vec::new();
    for a in &first {
        let second = interpolate(&children[1], a, mode)?;
        for b in child_params(&second, ctx, mode, notices)? {
            out.push(combine(a, &b, mode)?);
        }
    }
    Ok(out)
}

/// A matrix's second child rendered with the first's parameters (its post selector is not).
fn interpolate(child: &Json, params: &Params, mode: &Mode) -> Result<Json, String> {
    let Json::Object(m) = child else {
        return Ok(child.clone());
    };
    let mut out = Map::new();
    for (k, v) in m {
        if k == "selector" {
            out.insert(k.clone(), v.clone());
            continue;
        }
        out.insert(k.clone(), render::render_value(v, params, mode)?);
    }
    Ok(Json::Object(out))
}

/// One parameter set of each matrix child combined: with Go templates a deep merge where
/// the first wins; in fasttemplate mode an equal key with another value is an error.
fn combine(a: &Params, b: &Params, mode: &Mode) -> Result<Params, String> {
    if mode.go_template {
        return Ok(deep_merge_params(b, a));
    }
    let mut out = a.clone();
    for (k, v) in b {
        match a.get(k) {
            Some(existing) if existing != v => {
                return Err(format!(
                    "found duplicate key {k} with different value, a: {} ,b: {}",
                    go_sprint(existing),
                    go_sprint(v)
                ))
            }
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    Ok(out)
}

/// The strings of a JSON list (none when it is not one).
pub(super) fn strings(v: &Json) -> Vec<&str> {
    v.as_array()
        .map(|l| l.iter().filter_map(Json::as_str).collect())
        .unwrap_or_default()
}

/// [`deep_merge`] of two parameter sets.
fn deep_merge_params(base: &Params, over: &Params) -> Params {
    match deep_merge(&Json::Object(base.clone()), &Json::Object(over.clone())) {
        Json::Object(m) => m,
        _ => Params::new(),
    }
}

/// mergo.Merge with override: `over`'s values win, maps merge deeply.
fn deep_merge(base: &Json, over: &Json) -> Json {
    match (base, over) {
        (Json::Object(b), Json::Object(o)) => {
            let mut out = b.clone();
            for (k, v) in o {
                let merged = match b.get(k) {
                    Some(bv) => deep_merge(bv, v),
                    None => v.clone(),
                };
                out.insert(k.clone(), merged);
            }
            Json::Object(out)
        }
        (b, o) if is_empty(o) && !o.is_boolean() => b.clone(),
        (_, o) => o.clone(),
    }
}

/// A child of a matrix or merge: its generator (one key), then its post selector.
fn child_params(
    child: &Json,
    ctx: &Context,
    mode: &Mode,
    notices: &mut Vec<String>,
) -> Result<Vec<Params>, String> {
    let kinds = generator_kinds(child);
    if kinds.len() > 1 {
        return Err("more than one inner generator specified".to_string());
    }
    let Some((kind, body)) = kinds.first() else {
        return Err("there isn't any inner generator".to_string());
    };
    let sets = params_of(kind, body, ctx, mode, notices)?;
    select(sets, child.get("selector"))
}

/// The merge generator (`generators/merge.go`).
fn merge(
    body: &Json,
    ctx: &Context,
    mode: &Mode,
    notices: &mut Vec<String>,
) -> Result<Vec<Params>, String> {
    let children = body["generators"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    if children.len() < 2 {
        return Err("found less than two generators, Merge requires two or more".to_string());
    }
    let keys = strings(&body["mergeKeys"]);
    if keys.is_empty() {
        return Err("no merge keys were specified".to_string());
    }
    let key_of = |p: &Params| -> String {
        let m: Map<String, Json> = keys
            .iter()
            .map(|k| (k.to_string(), p.get(*k).cloned().unwrap_or(Json::Null)))
            .collect();
        Json::Object(m).to_string()
    };
    let mut sets: Vec<Vec<Params>> = Vec::new();
    for c in children {
        let params = child_params(c, ctx, mode, notices)?;
        let mut seen = std::collections::HashSet::new();
        for p in &params {
            if !seen.insert(key_of(p)) {
                return Err("the parameters from a generator were not unique by the given mergeKeys, Merge requires all param sets to be unique".to_string());
            }
        }
        sets.push(params);
    }
    let mut base = sets.remove(0);
    for later in sets {
        for b in &mut base {
            if let Some(o) = later.iter().find(|o| key_of(o) == key_of(b)) {
                *b = if mode.go_template {
                    deep_merge_params(b, o)
                } else {
                    let mut m = b.clone();
                    for (k, v) in o {
                        m.insert(k.clone(), v.clone());
                    }
                    m
                };
            }
        }
    }
    Ok(base)
}

/// A generator's post selector over its flattened parameter sets (§4).
fn select(sets: Vec<Params>, selector: Option<&Json>) -> Result<Vec<Params>, String> {
    let Some(selector) = selector.filter(|s| !s.is_null()) else {
        return Ok(sets);
    };
    let mut out = Vec::new();
    for p in sets {
        let flat: BTreeMap<String, String> = flatten(&Json::Object(p.clone()))
            .into_iter()
            .map(|(k, v)| (k, go_sprint(&v)))
            .collect();
        if matches_selector(selector, &flat)? {
            out.push(p);
        }
    }
    Ok(out)
}

/// A Kubernetes label selector over a map of labels.
fn matches_selector(selector: &Json, labels: &BTreeMap<String, String>) -> Result<bool, String> {
    if let Some(m) = selector["matchLabels"].as_object() {
        for (k, v) in m {
            if labels.get(k).map(String::as_str) != v.as_str() {
                return Ok(false);
            }
        }
    }
    for e in selector["matchExpressions"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let key = e["key"].as_str().unwrap_or_default();
        let values = strings(&e["values"]);
        let have = labels.get(key).map(String::as_str);
        let ok = match e["operator"].as_str().unwrap_or_default() {
            "In" => have.is_some_and(|h| values.contains(&h)),
            "NotIn" => have.is_none_or(|h| !values.contains(&h)),
            "Exists" => have.is_some(),
            "DoesNotExist" => have.is_none(),
            op => {
                return Err(format!(
                    "error parsing label selector: {op} is not a valid label selector operator"
                ))
            }
        };
        if !ok {
            return Ok(false);
        }
    }
    Ok(true)
}

/// One Application from the template and a parameter set (`RenderTemplateParams`, then
/// `templatePatch`, then the namespace).
fn render_app(
    template: &Json,
    params: &Params,
    mode: &Mode,
    patch: Option<&str>,
    namespace: &str,
    appset_sync_policy: &Json,
) -> Result<Json, String> {
    let mut app = if params.is_empty() {
        template.clone()
    } else {
        let mut rendered = render::render_value(template, params, mode)?;
        let finalizers_empty = rendered["metadata"]["finalizers"]
            .as_array()
            .is_none_or(Vec::is_empty);
        // The ApplicationSet's own sync policy decides (`preserveResourcesOnDeletion`).
        let preserve = appset_sync_policy["preserveResourcesOnDeletion"].as_bool() == Some(true);
        if finalizers_empty && (appset_sync_policy.is_null() || !preserve) {
            rendered["metadata"]["finalizers"] = json!(["resources-finalizer.argocd.argoproj.io"]);
        }
        rendered
    };
    if let Some(patch) = patch.filter(|p| !p.trim().is_empty()) {
        let text = render::render_string(patch, params, mode)?;
        let patch_node = crate::yaml::parse_one(text.as_bytes(), &Default::default())
            .map_err(|e| format!("error creating template patch: {}", e.message))?;
        let project = app["spec"]["project"].clone();
        let mut node = crate::yaml::from_go_json(&app);
        crate::kustomize::smp::merge(
            &mut node,
            &patch_node,
            crate::kustomize::openapi::Schema::builtin(),
        )
        .map_err(|e| format!("error applying template patch: {e}"))?;
        app = crate::yaml::to_value(&node, crate::yaml::Dialect::Yaml12)
            .map_err(|e| e.to_string())?;
        if app.get("spec").is_some_and(Json::is_object) {
            app["spec"]["project"] = project;
        }
    }
    let mut metadata = app["metadata"].as_object().cloned().unwrap_or_default();
    metadata.insert("namespace".into(), json!(namespace));
    let mut out = Map::new();
    out.insert("apiVersion".into(), json!("argoproj.io/v1alpha1"));
    out.insert("kind".into(), json!("Application"));
    out.insert("metadata".into(), Json::Object(metadata));
    out.insert("spec".into(), app["spec"].clone());
    Ok(Json::Object(out))
}

/// The cluster Secrets among a stream of manifests (`argocd.argoproj.io/secret-type:
/// cluster`, `data` base64 or `stringData`).
pub fn clusters_from_manifests(docs: &[Json]) -> Vec<Cluster> {
    use base64::Engine;
    let mut out = Vec::new();
    for d in docs {
        if d["kind"] != "Secret"
            || d["metadata"]["labels"]["argocd.argoproj.io/secret-type"] != "cluster"
        {
            continue;
        }
        let field = |k: &str| -> String {
            if let Some(s) = d["stringData"][k].as_str() {
                return s.to_string();
            }
            d["data"][k]
                .as_str()
                .and_then(|b| {
                    base64::engine::general_purpose::STANDARD
                        .decode(b.trim())
                        .ok()
                })
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default()
        };
        let strings = |v: &Json| -> BTreeMap<String, String> {
            v.as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                        .collect()
                })
                .unwrap_or_default()
        };
        out.push(Cluster {
            name: field("name"),
            server: field("server"),
            project: field("project"),
            labels: strings(&d["metadata"]["labels"]),
            annotations: strings(&d["metadata"]["annotations"]),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_normalize_as_argo_cd_does() {
        assert_eq!(normalize("My_Cluster.Prod--"), "my-cluster.prod");
    }

    #[test]
    fn globs_follow_both_git_file_modes() {
        assert!(pathspec("**/config.json", "a/b/config.json"));
        assert!(pathspec("a/*/values.yaml", "a/x/charts/y/values.yaml"));
        assert!(!pathspec("*/x", "x"));
        assert!(pathspec("apps", "apps/a/b.yaml"));
        assert!(doublestar("**/config.json", "config.json"));
        assert!(doublestar("a/**/c.json", "a/c.json"));
        assert!(!doublestar("a/*/values.yaml", "a/x/charts/y/values.yaml"));
    }

    #[test]
    fn flatten_dots_maps_and_lists() {
        let f = flatten(&json!({"a": {"b": 1000000, "c": [true, "x"]}, "d": "e"}));
        assert_eq!(f["a.b"], "1e+06");
        assert_eq!(f["a.c.0"], "true");
        assert_eq!(f["a.c.1"], "x");
        assert_eq!(f["d"], "e");
    }
}
