//! An ApplicationSet target: its manifest read from the snapshot, the cluster Secrets of the
//! repository found, the Applications generated, and generation's problems as findings.

use super::generate::{self, Cluster, Context};
use super::{normalize_repo_url, Details, Options, Spec};
use crate::engine::EngineOutput;
use crate::finding::{rules, Finding};
use crate::resource::{Origin, Resource};
use crate::source::{EntryKind, Files, RepoPath};
use crate::yaml::{self, Dialect, ParseOptions};

/// The ApplicationSet `name` of `file` generated, with where its manifest starts; or the
/// finding that stops it.
fn generated(
    files: &Files,
    file: &RepoPath,
    name: &str,
    opts: &Options,
) -> Result<(generate::Generated, crate::yaml::Span), Finding> {
    let node = manifest(files, file, "ApplicationSet", name)?;
    let at = node.span;
    let appset = yaml::to_value(&node, Dialect::Yaml12).map_err(|e| {
        Finding::error(rules::APPSET_GENERATE, e.to_string()).at(
            file.to_string(),
            at.line,
            at.column,
        )
    })?;
    // Cluster Secrets are looked for (in every YAML file) only when a clusters generator asks.
    let mut clusters: Vec<Cluster> = opts
        .argocd
        .clusters
        .iter()
        .map(|c| Cluster {
            name: c.name.clone(),
            server: c.server.clone(),
            project: c.project.clone(),
            labels: c.labels.clone(),
            annotations: c.annotations.clone(),
        })
        .collect();
    if uses_clusters(&appset["spec"]["generators"]) {
        clusters.extend(cluster_secrets(files));
    }
    let is_this_repo = |url: &str| opts.repo_urls.contains(&normalize_repo_url(url));
    let ctx = Context {
        files: Some(files),
        is_this_repo: &is_this_repo,
        clusters: &clusters,
        namespace: &opts.argocd.namespace,
        new_git_file_globbing: opts.new_git_file_globbing,
    };
    generate::generate(&appset, &ctx)
        .map(|g| (g, at))
        .map_err(|e| {
            Finding::error(rules::APPSET_GENERATE, e).at(file.to_string(), at.line, at.column)
        })
}

/// The document of `kind` named `name` in `file`.
fn manifest(
    files: &Files,
    file: &RepoPath,
    kind: &str,
    name: &str,
) -> Result<crate::yaml::Node, Finding> {
    let parsed = files
        .yaml_documents(file, &ParseOptions::default())
        .map_err(|e| e.into_finding())?;
    let docs = parsed
        .as_ref()
        .as_ref()
        .map_err(|e| crate::source::yaml_finding(e, file))?;
    docs.iter()
        .find(|d| {
            d.str_at(&["kind"]) == Some(kind) && d.str_at(&["metadata", "name"]) == Some(name)
        })
        .cloned()
        .ok_or_else(|| {
            Finding::error(
                rules::APPSET_GENERATE,
                format!("no {kind} {name} in this file"),
            )
            .in_file(file.to_string())
        })
}

/// An ApplicationSet's render: the Applications it generates, printed as `argocd appset
/// generate` lists them (each is a target of its own, with what it deploys), and what went
/// wrong generating them.
pub fn render_appset(
    files: &Files,
    file: &RepoPath,
    name: &str,
    opts: &Options,
) -> EngineOutput<Details> {
    let (generated, at) = match generated(files, file, name, opts) {
        Ok(g) => g,
        Err(f) => return EngineOutput::failed(vec![f]),
    };
    let mut findings: Vec<Finding> = generated
        .errors
        .iter()
        .map(|e| {
            Finding::error(rules::APPSET_VALIDATION, e.clone()).at(
                file.to_string(),
                at.line,
                at.column,
            )
        })
        .collect();
    findings.extend(generated.notices.iter().map(|n| {
        Finding::notice(rules::APPSET_GENERATOR_OFFLINE, n.clone())
            .at(file.to_string(), at.line, at.column)
            .incomplete()
    }));
    let mut out = EngineOutput::new(Vec::new(), findings, true);
    out.printed = Some(crate::yaml::emit::to_stream(generated.apps.iter()));
    out.details = Details {
        made_by: generated.made_by.into_iter().collect(),
        ..Default::default()
    };
    out
}

/// The Applications an ApplicationSet generates, as targets (`app:NAMESPACE/NAME`). Problems
/// are reported by the ApplicationSet's own render.
pub fn expand_appset(files: &Files, file: &RepoPath, name: &str, opts: &Options) -> Vec<Spec> {
    let Ok((generated, _)) = generated(files, file, name, opts) else {
        return Vec::new();
    };
    generated
        .apps
        .iter()
        .map(|app| Spec::Generated {
            file: file.clone(),
            appset: name.to_string(),
            namespace: app["metadata"]["namespace"]
                .as_str()
                .unwrap_or(&opts.argocd.namespace)
                .to_string(),
            name: app["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        })
        .collect()
}

/// A generated Application's render: the Application itself, then what it deploys.
pub fn render_generated(
    files: &Files,
    file: &RepoPath,
    appset: &str,
    name: &str,
    opts: &Options,
) -> EngineOutput<Details> {
    let (generated, at) = match generated(files, file, appset, opts) {
        Ok(g) => g,
        Err(f) => return EngineOutput::failed(vec![f]),
    };
    let Some(app) = generated
        .apps
        .iter()
        .find(|a| a["metadata"]["name"] == name)
    else {
        return EngineOutput::failed(vec![Finding::error(
            rules::APPSET_GENERATE,
            format!("ApplicationSet {appset} no longer generates Application {name}"),
        )
        .at(file.to_string(), at.line, at.column)]);
    };
    let mut out = application(app, files, file, at, opts);
    out.details.made_by = generated
        .made_by
        .into_iter()
        .filter(|(n, _)| n == name)
        .collect();
    out
}

/// An Application manifest of the repository: itself, then what it deploys.
pub fn render_application(
    files: &Files,
    file: &RepoPath,
    name: &str,
    opts: &Options,
) -> EngineOutput<Details> {
    let node = match manifest(files, file, "Application", name) {
        Ok(n) => n,
        Err(f) => return EngineOutput::failed(vec![f]),
    };
    let at = node.span;
    match yaml::to_value(&node, Dialect::Yaml12) {
        Ok(app) => application(&app, files, file, at, opts),
        Err(e) => EngineOutput::failed(vec![Finding::error(
            rules::APP_SOURCE_INVALID,
            e.to_string(),
        )
        .at(file.to_string(), at.line, at.column)]),
    }
}

fn application(
    app: &serde_json::Value,
    files: &Files,
    file: &RepoPath,
    at: crate::yaml::Span,
    opts: &Options,
) -> EngineOutput<Details> {
    let origin = Origin {
        file: file.clone(),
        span: at,
    };
    let mut resources = vec![Resource {
        node: yaml::from_go_json(app),
        origin,
    }];
    let (deployed, mut findings, ok) = super::deploy::deploy(app, files, opts, file.as_str());
    resources.extend(deployed);
    let (ignore_differences, unsupported) = super::ignore::of_application(app);
    if !unsupported.is_empty() {
        findings.push(
            Finding::notice(
                rules::APP_IGNORE_DIFFERENCES,
                format!(
                    "Application {}: ignoreDifferences jq expressions kdelta cannot apply (only plain paths): {}",
                    app["metadata"]["name"].as_str().unwrap_or_default(),
                    unsupported.join(", ")
                ),
            )
            .at(file.to_string(), at.line, at.column),
        );
    }
    let mut out: EngineOutput<Details> = EngineOutput::new(resources, findings, ok);
    out.details.ignore_differences = ignore_differences;
    out
}

/// True when a generator (or a matrix or merge child) is a clusters generator.
fn uses_clusters(generators: &serde_json::Value) -> bool {
    match generators {
        serde_json::Value::Array(items) => items.iter().any(uses_clusters),
        serde_json::Value::Object(m) => m.iter().any(|(k, v)| {
            k == "clusters"
                || (matches!(k.as_str(), "matrix" | "merge" | "generators") && uses_clusters(v))
        }),
        _ => false,
    }
}

/// Argo CD cluster Secrets anywhere in the repository (`argocd.argoproj.io/secret-type:
/// cluster`), from every YAML file that mentions the label.
fn cluster_secrets(files: &Files) -> Vec<Cluster> {
    let mut out = Vec::new();
    let mut stack = vec![RepoPath::root()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = files.list(&dir) else {
            continue;
        };
        for e in entries {
            let path = dir.child(&e.name);
            match e.kind {
                EntryKind::Dir if !e.name.starts_with('.') => stack.push(path),
                EntryKind::File if e.name.ends_with(".yaml") || e.name.ends_with(".yml") => {
                    let Ok(bytes) = files.read(&path) else {
                        continue;
                    };
                    if !bytes
                        .windows(30)
                        .any(|w| w == b"argocd.argoproj.io/secret-type")
                    {
                        continue;
                    }
                    let Ok(docs) = yaml::parse_stream(&bytes, &ParseOptions::default()) else {
                        continue;
                    };
                    let values: Vec<serde_json::Value> = docs
                        .iter()
                        .filter_map(|d| yaml::to_value(d, Dialect::Yaml12).ok())
                        .collect();
                    out.extend(generate::clusters_from_manifests(&values));
                }
                _ => {}
            }
        }
    }
    out
}
