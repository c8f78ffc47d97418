//! An ApplicationSet target: its manifest read from the snapshot, the cluster Secrets of the
//! repository found, the Applications generated, and generation's problems as findings.

use super::generate::{self, Cluster, Context};
use super::{normalize_repo_url, Details, ManifestKind, Options, Spec};
use crate::engine;
use crate::engine::EngineOutput;
use crate::finding::{rules, Finding, Incomplete};
use crate::resource::{Origin, Resource};
use crate::source::{EntryKind, Files, RepoPath};
use crate::yaml::{self, Dialect, ParseOptions};

/// An ApplicationSet as `spec` names it: a manifest of a file, or one that a kustomization
/// lists, as it builds it.
struct AppSetDoc {
    node: crate::yaml::Node,
    /// The file and position of the manifest.
    file: RepoPath,
    at: crate::yaml::Span,
    /// What the kustomization that builds it went on without.
    incomplete: Vec<Finding>,
}

fn appset_doc(spec: &Spec, files: &Files, opts: &Options) -> Result<AppSetDoc, Finding> {
    match spec {
        Spec::AppSet { file, name } => {
            let node = manifest(files, file, "ApplicationSet", name)?;
            Ok(AppSetDoc {
                at: node.span,
                node,
                file: file.clone(),
                incomplete: Vec::new(),
            })
        }
        Spec::Built {
            dir,
            kind: ManifestKind::ApplicationSet,
            name,
        } => {
            let (m, incomplete) =
                super::kustomized::find(files, dir, ManifestKind::ApplicationSet, name, opts)?;
            Ok(AppSetDoc {
                node: m.node,
                file: m.file,
                at: m.at,
                incomplete,
            })
        }
        _ => Err(Finding::error(
            rules::APPSET_GENERATE,
            format!("{} is not an ApplicationSet", engine::Spec::id(spec)),
        )
        .in_file(spec.file().to_string())),
    }
}

/// The ApplicationSet `spec` generated, with its manifest; or the finding that stops it.
fn generated(
    files: &Files,
    spec: &Spec,
    opts: &Options,
) -> Result<(generate::Generated, AppSetDoc), Finding> {
    let doc = appset_doc(spec, files, opts)?;
    let (file, at) = (&doc.file, doc.at);
    let appset = yaml::to_value(&doc.node, Dialect::Yaml12).map_err(|e| {
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
        .map(|c| {
            // A cluster Secret always has this label, and selectors use it.
            let mut labels = c.labels.clone();
            labels
                .entry("argocd.argoproj.io/secret-type".to_string())
                .or_insert_with(|| "cluster".to_string());
            Cluster {
                name: c.name.clone(),
                server: c.server.clone(),
                project: c.project.clone(),
                labels,
                annotations: c.annotations.clone(),
            }
        })
        .collect();
    if uses_clusters(&appset["spec"]["generators"]) {
        clusters.extend(cluster_secrets(files, &opts.argocd.namespace));
    }
    let is_this_repo = |url: &str| opts.repo_urls.contains(&normalize_repo_url(url));
    let ctx = Context {
        files: Some(files),
        is_this_repo: &is_this_repo,
        clusters: &clusters,
        namespace: &opts.argocd.namespace,
        new_git_file_globbing: opts.new_git_file_globbing,
    };
    let generated = generate::generate(&appset, &ctx).map_err(|e| {
        Finding::error(rules::APPSET_GENERATE, e.to_string()).at(
            file.to_string(),
            at.line,
            at.column,
        )
    })?;
    Ok((generated, doc))
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
pub fn render_appset(spec: &Spec, files: &Files, opts: &Options) -> EngineOutput<Details> {
    let (generated, doc) = match generated(files, spec, opts) {
        Ok(g) => g,
        Err(f) => return EngineOutput::failed(vec![f]),
    };
    let (file, at) = (&doc.file, doc.at);
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
    findings.extend(generated.notices.iter().map(|gap| {
        match gap {
            generate::Gap::Offline(n) => {
                Finding::notice(rules::APPSET_GENERATOR_OFFLINE, n.clone())
                    .incomplete(Incomplete::OfflineGenerator)
            }
            generate::Gap::FetchFailed(n) => {
                Finding::error(rules::FETCH_FAILED, n.clone()).incomplete(Incomplete::FetchFailed)
            }
        }
        .at(file.to_string(), at.line, at.column)
    }));
    findings.extend(doc.incomplete);
    let mut out = EngineOutput::new(Vec::new(), findings, true);
    out.printed = Some(crate::yaml::emit::to_stream(generated.apps.iter()));
    out.details = Details {
        made_by: generated.made_by.into_iter().collect(),
        ..Default::default()
    };
    out
}

/// The Applications an ApplicationSet generates, as targets (`app:NAMESPACE/NAME`), with the
/// Applications each deploys from a chart or a kustomization. Problems are reported by the
/// ApplicationSet's own render.
pub fn expand_appset(appset: &Spec, files: &Files, opts: &Options) -> Vec<Spec> {
    let Ok((generated, doc)) = generated(files, appset, opts) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for app in generated.apps {
        let spec = Spec::Generated {
            appset: Box::new(appset.clone()),
            namespace: app["metadata"]["namespace"]
                .as_str()
                .unwrap_or(&opts.argocd.namespace)
                .to_string(),
            name: app["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        };
        let doc = AppDoc {
            app,
            file: doc.file.clone(),
            at: doc.at,
            made_by: None,
            incomplete: Vec::new(),
        };
        out.extend(child_specs(&spec, &doc, files, opts));
        out.push(spec);
    }
    out
}

/// An Application as a target sees it: the document, where it is defined, and what makes
/// it (an ApplicationSet's generator, or the Application that deploys it).
struct AppDoc {
    app: serde_json::Value,
    file: RepoPath,
    at: crate::yaml::Span,
    made_by: Option<String>,
    /// What the kustomization that builds it (or its ApplicationSet) went on without.
    incomplete: Vec<Finding>,
}

/// The Application `spec` names, or the finding that says why it is not there.
fn app_doc(spec: &Spec, files: &Files, opts: &Options) -> Result<AppDoc, Finding> {
    match spec {
        Spec::Application { file, name } => {
            let node = manifest(files, file, "Application", name)?;
            let app = yaml::to_value(&node, Dialect::Yaml12).map_err(|e| {
                Finding::error(rules::APP_SOURCE_INVALID, e.to_string()).at(
                    file.to_string(),
                    node.span.line,
                    node.span.column,
                )
            })?;
            Ok(AppDoc {
                app,
                file: file.clone(),
                at: node.span,
                made_by: None,
                incomplete: Vec::new(),
            })
        }
        Spec::Built {
            dir,
            kind: ManifestKind::Application,
            name,
        } => {
            let (m, incomplete) =
                super::kustomized::find(files, dir, ManifestKind::Application, name, opts)?;
            let app = yaml::to_value(&m.node, Dialect::Yaml12).map_err(|e| {
                Finding::error(rules::APP_SOURCE_INVALID, e.to_string()).at(
                    m.file.to_string(),
                    m.at.line,
                    m.at.column,
                )
            })?;
            Ok(AppDoc {
                app,
                file: m.file,
                at: m.at,
                made_by: None,
                incomplete,
            })
        }
        Spec::Generated {
            appset: appset_spec,
            name,
            ..
        } => {
            let (generated, doc) = generated(files, appset_spec, opts)?;
            let appset = doc.node.str_at(&["metadata", "name"]).unwrap_or_default();
            let app = generated
                .apps
                .into_iter()
                .find(|a| a["metadata"]["name"] == name.as_str())
                .ok_or_else(|| {
                    Finding::error(
                        rules::APPSET_GENERATE,
                        format!("ApplicationSet {appset} no longer generates Application {name}"),
                    )
                    .at(doc.file.to_string(), doc.at.line, doc.at.column)
                })?;
            let made_by = generated
                .made_by
                .into_iter()
                .find(|(n, _)| n == name)
                .map(|(_, m)| m);
            Ok(AppDoc {
                app,
                file: doc.file,
                at: doc.at,
                made_by,
                incomplete: doc.incomplete,
            })
        }
        Spec::Child {
            parent,
            namespace,
            name,
        } => {
            let parent_doc = app_doc(parent, files, opts)?;
            children(&parent_doc, files, opts)
                .into_iter()
                .find(|(ns, doc)| ns == namespace && doc.app["metadata"]["name"] == name.as_str())
                .map(|(_, doc)| doc)
                .ok_or_else(|| {
                    Finding::error(
                        rules::APP_SOURCE_INVALID,
                        format!(
                            "Application {} no longer deploys Application {namespace}/{name}",
                            parent_doc.app["metadata"]["name"]
                                .as_str()
                                .unwrap_or_default()
                        ),
                    )
                    .at(
                        parent_doc.file.to_string(),
                        parent_doc.at.line,
                        parent_doc.at.column,
                    )
                })
        }
        Spec::AppSet { .. }
        | Spec::Kustomized { .. }
        | Spec::Built {
            kind: ManifestKind::ApplicationSet,
            ..
        } => Err(Finding::error(
            rules::APPSET_GENERATE,
            format!("{} is not an Application", engine::Spec::id(spec)),
        )
        .in_file(spec.file().to_string())),
    }
}

/// The Applications `parent` deploys from a chart or a kustomization, with their namespace:
/// not those that come from manifest files of the repository, which are targets of their own
/// (`app:FILE#NAME`, or `app:DIR#NAME` through the kustomization that lists the file).
fn children(parent: &AppDoc, files: &Files, opts: &Options) -> Vec<(String, AppDoc)> {
    let (deployed, _, _) = super::deploy::deploy(&parent.app, files, opts, parent.file.as_str());
    let parent_name = parent.app["metadata"]["name"].as_str().unwrap_or_default();
    let destination = parent.app["spec"]["destination"]["namespace"]
        .as_str()
        .filter(|n| !n.is_empty())
        .unwrap_or(&opts.argocd.namespace);
    deployed
        .into_iter()
        .filter(|r| {
            r.node.str_at(&["kind"]) == Some("Application")
                && r.node
                    .str_at(&["apiVersion"])
                    .is_some_and(|v| v.starts_with("argoproj.io/"))
        })
        .filter(|r| !super::is_manifest_document(files, &r.origin.file, r.origin.span))
        .filter_map(|r| {
            let app = yaml::to_value(&r.node, Dialect::Yaml12).ok()?;
            let namespace = app["metadata"]["namespace"]
                .as_str()
                .filter(|n| !n.is_empty())
                .unwrap_or(destination)
                .to_string();
            Some((
                namespace,
                AppDoc {
                    app,
                    file: r.origin.file.clone(),
                    at: r.origin.span,
                    made_by: Some(format!("deployed by the Application {parent_name}")),
                    incomplete: Vec::new(),
                },
            ))
        })
        .collect()
}

/// How deep Applications deploying Applications are followed.
const MAX_APP_OF_APPS_DEPTH: usize = 5;

/// The Applications an Application deploys from a chart or a kustomization, as targets
/// (`app:NAMESPACE/NAME`). Only sources of this repository that mention `argoproj.io` are
/// rendered for it; problems are reported by the Application's own render.
pub fn expand_children(spec: &Spec, files: &Files, opts: &Options) -> Vec<Spec> {
    // A generated Application's children come with it from the ApplicationSet's expansion.
    if matches!(spec, Spec::Generated { .. }) {
        return Vec::new();
    }
    match app_doc(spec, files, opts) {
        Ok(doc) => child_specs(spec, &doc, files, opts),
        Err(_) => Vec::new(),
    }
}

/// The children of the Application `doc` (the target `spec`), as targets.
fn child_specs(spec: &Spec, doc: &AppDoc, files: &Files, opts: &Options) -> Vec<Spec> {
    // The Applications above this one, by namespace (when known) and name: an Application
    // that deploys itself (a root managing its own manifest) or an ancestor is not its child.
    let own_namespace = doc.app["metadata"]["namespace"]
        .as_str()
        .filter(|n| !n.is_empty())
        .unwrap_or(&opts.argocd.namespace);
    let own_name = doc.app["metadata"]["name"].as_str().unwrap_or_default();
    let mut lineage: Vec<(Option<&str>, &str)> = vec![(Some(own_namespace), own_name)];
    let mut ancestor = spec;
    loop {
        match ancestor {
            Spec::Child {
                parent,
                namespace,
                name,
            } => {
                lineage.push((Some(namespace), name));
                ancestor = parent;
            }
            Spec::Generated {
                namespace, name, ..
            } => {
                lineage.push((Some(namespace), name));
                break;
            }
            Spec::Application { name, .. } | Spec::Built { name, .. } => {
                lineage.push((None, name));
                break;
            }
            Spec::AppSet { .. } | Spec::Kustomized { .. } => break,
        }
    }
    let depth = lineage.len().saturating_sub(2);
    if depth >= MAX_APP_OF_APPS_DEPTH || !mentions_applications(&doc.app, files, opts) {
        return Vec::new();
    }
    let is_ancestor = |namespace: &str, name: &str| {
        lineage
            .iter()
            .any(|(ns, n)| *n == name && ns.is_none_or(|ns| ns == namespace))
    };
    children(doc, files, opts)
        .into_iter()
        .filter(|(namespace, child)| {
            !is_ancestor(
                namespace,
                child.app["metadata"]["name"].as_str().unwrap_or_default(),
            )
        })
        .map(|(namespace, child)| Spec::Child {
            parent: Box::new(spec.clone()),
            namespace,
            name: child.app["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        })
        .collect()
}

/// True when a source of `app` in this repository has a file that mentions `argoproj.io`:
/// only such a source can deploy Applications (a cheap test before rendering it).
fn mentions_applications(app: &serde_json::Value, files: &Files, opts: &Options) -> bool {
    let spec = &app["spec"];
    let sources: Vec<&serde_json::Value> = match spec["sources"].as_array() {
        Some(list) if !list.is_empty() => list.iter().collect(),
        _ => vec![&spec["source"]],
    };
    sources.into_iter().any(|s| {
        // A chart from a repository: its files, when the fetch store has it.
        if s["chart"].is_string() {
            return super::deploy::chart_request(s)
                .and_then(|request| files.helm_chart(&request).ok())
                .and_then(|chart| crate::helm::chart::Chart::archive_files(&chart.bytes).ok())
                .is_some_and(|archived| {
                    archived
                        .iter()
                        .any(|(_, b)| memchr::memmem::find(b, b"argoproj.io/").is_some())
                });
        }
        let url = s["repoURL"].as_str().unwrap_or_default();
        if url.starts_with("oci://") {
            let (Some(dir), Some(rev)) = (s["path"].as_str(), s["targetRevision"].as_str()) else {
                return false;
            };
            let Ok(dir) = RepoPath::new(dir.trim_matches('/')) else {
                return false;
            };
            return files
                .oci_snapshot(url, &crate::fetch::oci::Pick::Argo(rev.to_string()))
                .is_ok_and(|(snapshot, _)| mentions_in(&files.sibling(snapshot.as_ref()), dir));
        }
        let this_repo = opts.repo_urls.contains(&normalize_repo_url(url));
        let Some(dir) = s["path"]
            .as_str()
            .and_then(|p| RepoPath::new(p.trim_matches('/')).ok())
        else {
            return false;
        };
        if !this_repo {
            // Another repository: its commit, when the fetch store has it.
            let rev = s["targetRevision"].as_str().unwrap_or("HEAD");
            return super::deploy::git_snapshot(files, url, rev)
                .is_ok_and(|(snapshot, _)| mentions_in(&files.sibling(snapshot.as_ref()), dir));
        }
        mentions_in(files, dir)
    })
}

/// True when a file under `dir` mentions `argoproj.io/`.
fn mentions_in(files: &Files, dir: RepoPath) -> bool {
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for e in files.list(&d).unwrap_or_default() {
            let path = d.child(&e.name);
            match e.kind {
                EntryKind::Dir => stack.push(path),
                EntryKind::File | EntryKind::Symlink => {
                    let mentions = files
                        .read(&path)
                        .is_ok_and(|b| memchr::memmem::find(&b, b"argoproj.io/").is_some());
                    if mentions {
                        return true;
                    }
                }
                EntryKind::Missing => {}
            }
        }
    }
    false
}

/// An Application's render — an Application manifest, a generated one, or one another
/// deploys: itself, then what it deploys.
pub fn render_app(spec: &Spec, files: &Files, opts: &Options) -> EngineOutput<Details> {
    let doc = match app_doc(spec, files, opts) {
        Ok(d) => d,
        Err(f) => return EngineOutput::failed(vec![f]),
    };
    let mut out = application(&doc.app, files, &doc.file, doc.at, opts);
    if !doc.incomplete.is_empty() {
        out.findings.extend(doc.incomplete);
        out.complete = false;
    }
    if let Some(m) = doc.made_by {
        let name = doc.app["metadata"]["name"].as_str().unwrap_or_default();
        out.details.made_by.insert(name.to_string(), m);
    }
    out
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
    if let Some(first) = unsupported.first() {
        // At the first expression where the manifest writes it, else at the manifest.
        let written = written_at(files, file, at, first).unwrap_or(at);
        findings.push(
            Finding::notice(
                rules::APP_IGNORE_DIFFERENCES,
                format!(
                    "Application {}: ignoreDifferences jq expressions kdelta cannot apply (only plain paths): {}",
                    app["metadata"]["name"].as_str().unwrap_or_default(),
                    unsupported.join(", ")
                ),
            )
            .at(file.to_string(), written.line, written.column),
        );
    }
    let mut out: EngineOutput<Details> = EngineOutput::new(resources, findings, ok);
    out.details.ignore_differences = ignore_differences;
    out
}

/// Where the document of `file` at `at` writes the scalar `text` (the first place, depth
/// first), if it does.
fn written_at(
    files: &Files,
    file: &RepoPath,
    at: crate::yaml::Span,
    text: &str,
) -> Option<crate::yaml::Span> {
    fn find(n: &yaml::Node, text: &str) -> Option<crate::yaml::Span> {
        match &n.kind {
            yaml::NodeKind::Scalar(s) => (s.text == text).then_some(n.span),
            yaml::NodeKind::Seq(items) => items.iter().find_map(|i| find(i, text)),
            yaml::NodeKind::Map(entries) => entries.iter().find_map(|(_, v)| find(v, text)),
        }
    }
    let parsed = files
        .yaml_stream(file, &yaml::ParseOptions::default())
        .ok()?;
    let docs = parsed.as_ref().as_ref().ok()?;
    let doc = docs.iter().find(|d| d.span.line == at.line)?;
    find(doc, text)
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
/// cluster`), from every YAML file that mentions the label; only those in Argo CD's namespace
/// (or without one) count, as the controller lists Secrets there.
fn cluster_secrets(files: &Files, namespace: &str) -> Vec<Cluster> {
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
                        .filter(|d| {
                            d["metadata"]["namespace"]
                                .as_str()
                                .is_none_or(|ns| ns.is_empty() || ns == namespace)
                        })
                        .collect();
                    out.extend(generate::clusters_from_manifests(&values));
                }
                _ => {}
            }
        }
    }
    out
}
