//! An ApplicationSet target: its manifest read from the snapshot, the cluster Secrets of the
//! repository found, the Applications generated, and generation's problems as findings.

use super::generate::{self, Cluster, Context};
use super::{normalize_repo_url, Details, Options};
use crate::engine::EngineOutput;
use crate::finding::{rules, Finding};
use crate::resource::{Origin, Resource};
use crate::source::{EntryKind, Files, RepoPath};
use crate::yaml::{self, Dialect, ParseOptions};

/// The Applications the ApplicationSet `name` of `file` generates.
pub fn render_appset(
    files: &Files,
    file: &RepoPath,
    name: &str,
    opts: &Options,
) -> EngineOutput<Details> {
    let docs = match files.yaml_documents(file, &ParseOptions::default()) {
        Ok(parsed) => match parsed.as_ref() {
            Ok(docs) => docs.clone(),
            Err(e) => return EngineOutput::failed(vec![crate::source::yaml_finding(e, file)]),
        },
        Err(e) => return EngineOutput::failed(vec![e.into_finding()]),
    };
    let Some(node) = docs.iter().find(|d| {
        d.str_at(&["kind"]) == Some("ApplicationSet")
            && d.str_at(&["metadata", "name"]) == Some(name)
    }) else {
        return EngineOutput::failed(vec![Finding::error(
            rules::APPSET_GENERATE,
            format!("no ApplicationSet {name} in this file"),
        )
        .in_file(file.to_string())]);
    };
    let at = node.span;
    let appset = match yaml::to_value(node, Dialect::Yaml12) {
        Ok(v) => v,
        Err(e) => {
            return EngineOutput::failed(vec![Finding::error(
                rules::APPSET_GENERATE,
                e.to_string(),
            )
            .at(file.to_string(), at.line, at.column)])
        }
    };
    let clusters = cluster_secrets(files);
    let is_this_repo = |url: &str| opts.repo_urls.contains(&normalize_repo_url(url));
    let ctx = Context {
        files: Some(files),
        is_this_repo: &is_this_repo,
        clusters: &clusters,
        new_git_file_globbing: opts.new_git_file_globbing,
    };
    let generated = match generate::generate(&appset, &ctx) {
        Ok(g) => g,
        Err(e) => {
            return EngineOutput::failed(vec![Finding::error(rules::APPSET_GENERATE, e).at(
                file.to_string(),
                at.line,
                at.column,
            )])
        }
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
    let resources = generated
        .apps
        .iter()
        .map(|app| Resource {
            node: yaml::from_go_json(app),
            origin: Origin {
                file: file.clone(),
                span: at,
            },
        })
        .collect();
    let mut out = EngineOutput::new(resources, findings, true);
    out.details = Details {
        made_by: generated.made_by.into_iter().collect(),
    };
    out
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
