//! What an Application deploys, as Argo CD's repo-server renders it
//! (reference/argocd.md §6), for the sources in this repository: the source type detected
//! (an explicit `helm`/`kustomize`/`directory` block, else `Chart.yaml` or a kustomization in
//! the path — kustomize first — else a directory), then the kustomize, Helm or plain-manifest
//! engine with the Application's options. Sources elsewhere, and options kdelta does not
//! apply yet, are notices: the output is then incomplete.

use super::{normalize_repo_url, Options};
use crate::engine::EngineOutput;
use crate::finding::{rules, Finding};
use crate::resource::Resource;
use crate::source::{EntryKind, Files, RepoPath};
use serde_json::Value as Json;

/// The resources `app` deploys, and what kept some from being rendered.
pub fn deploy(
    app: &Json,
    files: &Files,
    opts: &Options,
    at: &str,
) -> (Vec<Resource>, Vec<Finding>, bool) {
    let name = app["metadata"]["name"].as_str().unwrap_or_default();
    let spec = &app["spec"];
    let sources: Vec<&Json> = match spec["sources"].as_array() {
        Some(list) if !list.is_empty() => list.iter().collect(),
        _ => vec![&spec["source"]],
    };
    let mut resources = Vec::new();
    let mut findings = Vec::new();
    let mut ok = true;
    for source in sources {
        if source.is_null() {
            continue;
        }
        // A source with only `ref` provides files to the others and deploys nothing.
        if source["path"].is_null() && source["chart"].is_null() && !source["ref"].is_null() {
            continue;
        }
        let out = deploy_source(name, spec, source, files, opts, at);
        resources.extend(out.resources);
        findings.extend(out.findings);
        ok &= out.ok;
    }
    (resources, findings, ok)
}

fn incomplete(at: &str, message: String) -> Finding {
    Finding::notice(rules::APP_SOURCE_NOT_RENDERED, message)
        .in_file(at.to_string())
        .incomplete()
}

fn deploy_source(
    app: &str,
    spec: &Json,
    source: &Json,
    files: &Files,
    opts: &Options,
    at: &str,
) -> EngineOutput<()> {
    let repo = source["repoURL"].as_str().unwrap_or_default();
    let revision = source["targetRevision"].as_str().unwrap_or("HEAD");
    if !source["chart"].is_null() {
        return EngineOutput::new(
            Vec::new(),
            vec![incomplete(
                at,
                format!(
                    "Application {app} deploys chart {} {revision} from the Helm repository {repo}; kdelta does not fetch it",
                    source["chart"].as_str().unwrap_or_default()
                ),
            )],
            true,
        );
    }
    if !opts.repo_urls.contains(&normalize_repo_url(repo)) {
        return EngineOutput::new(
            Vec::new(),
            vec![incomplete(
                at,
                format!(
                    "Application {app} deploys {} from {repo} at {revision}, which is not this repository; kdelta does not fetch it",
                    source["path"].as_str().unwrap_or(".")
                ),
            )],
            true,
        );
    }
    let path = source["path"].as_str().unwrap_or(".").trim_matches('/');
    let dir = match RepoPath::new(if path.is_empty() { "." } else { path }) {
        Ok(d) => d,
        Err(e) => {
            return EngineOutput::failed(vec![Finding::error(
                rules::SOURCE_OUTSIDE_REPOSITORY,
                format!("Application {app}: source path {path}: {e}"),
            )
            .in_file(at.to_string())])
        }
    };
    if files.kind(&dir) != EntryKind::Dir {
        return EngineOutput::failed(vec![Finding::error(
            rules::SOURCE_NOT_FOUND,
            format!("Application {app}: source path {path} is not a directory in this revision"),
        )
        .in_file(at.to_string())]);
    }
    let explicit: Vec<&str> = ["helm", "kustomize", "directory", "plugin"]
        .into_iter()
        .filter(|k| !source[*k].is_null())
        .collect();
    if explicit.len() > 1 {
        return EngineOutput::failed(vec![Finding::error(
            rules::APP_SOURCE_INVALID,
            format!(
                "Application {app}: multiple application sources defined: {}",
                explicit.join(", ")
            ),
        )
        .in_file(at.to_string())]);
    }
    let has = |f: &str| files.kind(&dir.child(f)) == EntryKind::File;
    let kind = match explicit.first() {
        Some(k) => *k,
        None if crate::kustomize::KUSTOMIZATION_FILES.iter().any(|f| has(f)) => "kustomize",
        None if has("Chart.yaml") => "helm",
        None => "directory",
    };
    match kind {
        "kustomize" => kustomize(app, &source["kustomize"], files, &dir, at),
        "helm" => helm(app, spec, &source["helm"], files, &dir, at),
        "plugin" => EngineOutput::new(
            Vec::new(),
            vec![incomplete(at, format!("Application {app} uses a config management plugin; kdelta does not run plugins"))],
            true,
        ),
        _ => directory(app, &source["directory"], files, &dir, at),
    }
}

fn kustomize(
    app: &str,
    options: &Json,
    files: &Files,
    dir: &RepoPath,
    at: &str,
) -> EngineOutput<()> {
    let mut out = crate::kustomize::build(files, dir, &crate::kustomize::Options::default());
    let set: Vec<&str> = options
        .as_object()
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default();
    options_not_applied(&mut out, app, "kustomize", &set, at);
    out
}

fn helm(
    app: &str,
    spec: &Json,
    options: &Json,
    files: &Files,
    dir: &RepoPath,
    at: &str,
) -> EngineOutput<()> {
    let text = |k: &str| {
        options[k]
            .as_str()
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let mut chart = crate::helm::Spec::chart(dir.clone());
    // Value files from another source (`$ref/…`) or a URL are not read yet.
    let mut skipped = Vec::new();
    for f in options["valueFiles"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let Some(f) = f.as_str() else { continue };
        if f.starts_with('$') || f.contains("://") {
            skipped.push(f.to_string());
        } else {
            chart.values_files.push(f.to_string());
        }
    }
    let mut helm_opts = crate::helm::Options {
        release_name: Some(text("releaseName").unwrap_or_else(|| app.to_string())),
        namespace: text("namespace").or_else(|| {
            spec["destination"]["namespace"]
                .as_str()
                .map(str::to_string)
        }),
        kube_version: text("kubeVersion"),
        api_versions: super::generate::strings(&options["apiVersions"])
            .into_iter()
            .map(str::to_string)
            .collect(),
        include_crds: options["skipCrds"].as_bool() != Some(true),
        skip_tests: options["skipTests"].as_bool() == Some(true),
        ..Default::default()
    };
    // `valuesObject` replaces `values`; either comes after the value files.
    let inline = match &options["valuesObject"] {
        Json::Object(m) if !m.is_empty() => {
            Some(crate::yaml::emit::to_string(&Json::Object(m.clone())))
        }
        _ => text("values"),
    };
    if let Some(v) = inline {
        helm_opts.values.push(("values".to_string(), v));
    }
    for p in options["parameters"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let (Some(name), Some(value)) = (p["name"].as_str(), p["value"].as_str()) else {
            continue;
        };
        let flag = format!("{name}={}", clean_set_value(value));
        if p["forceString"].as_bool() == Some(true) {
            helm_opts.set_string.push(flag);
        } else {
            helm_opts.set.push(flag);
        }
    }
    let out = crate::helm::target::render(&chart, files, &helm_opts);
    let mut findings = out.findings;
    if !skipped.is_empty() {
        findings.push(incomplete(
            at,
            format!(
                "Application {app}: value files kdelta does not read yet ({}) were left out",
                skipped.join(", ")
            ),
        ));
    }
    EngineOutput::new(out.resources, findings, out.ok)
}

/// Argo CD's `cleanSetParameters`: commas escaped (a value is one value), unless it is a
/// `{a,b}` list or the comma is escaped already.
fn clean_set_value(value: &str) -> String {
    if value.starts_with('{') && value.ends_with('}') {
        return value.to_string();
    }
    let mut out = String::with_capacity(value.len());
    let mut previous = None;
    for c in value.chars() {
        if c == ',' && previous != Some('\\') {
            out.push('\\');
        }
        out.push(c);
        previous = Some(c);
    }
    out
}

/// A notice, and an incomplete output, for source options kdelta renders without.
fn options_not_applied(
    out: &mut EngineOutput<()>,
    app: &str,
    kind: &str,
    names: &[&str],
    at: &str,
) {
    if names.is_empty() {
        return;
    }
    out.findings.push(incomplete(
        at,
        format!(
            "Application {app} sets {kind} options kdelta does not apply yet ({}); they are left out of the output",
            names.join(", ")
        ),
    ));
    out.complete = false;
}

fn directory(
    app: &str,
    options: &Json,
    files: &Files,
    dir: &RepoPath,
    at: &str,
) -> EngineOutput<()> {
    let mut out = crate::directory::render(files, dir);
    let unsupported: Vec<&str> = ["recurse", "include", "exclude", "jsonnet"]
        .into_iter()
        .filter(|k| match &options[*k] {
            Json::Null => false,
            Json::Bool(b) => *b,
            Json::String(s) => !s.is_empty(),
            Json::Object(m) => !m.is_empty(),
            _ => true,
        })
        .collect();
    options_not_applied(&mut out, app, "directory", &unsupported, at);
    out
}
