//! What an Application deploys, as Argo CD's repo-server renders it
//! (reference/argocd.md §6), for the sources in this repository: the source merged with the
//! path's `.argocd-source.yaml` and `.argocd-source-<app>.yaml`, its type detected (an
//! explicit `helm`/`kustomize`/`directory` block, else a kustomization in the path, else
//! `Chart.yaml`, else a directory), then the kustomize, Helm or plain-manifest engine with
//! the Application's options; `List` objects are expanded and every object but a CRD carries
//! Argo CD's tracking. Sources elsewhere, and what kdelta cannot do offline, are notices: the
//! output is then incomplete.

mod cmp;

use super::env::Env;
use super::{normalize_repo_url, Options};
use crate::config::Tracking;
use crate::engine::EngineOutput;
use crate::fetch::{ChartRequest, FetchedChart, Unavailable};
use crate::finding::{rules, Finding, Incomplete};
use crate::resource::Resource;
use crate::source::{EntryKind, Files, RepoPath};
use crate::yaml::{self, Dialect, Node, ParseOptions};
use serde_json::Value as Json;

/// The resources `app` deploys, and what kept some from being rendered.
pub fn deploy(
    app: &Json,
    files: &Files,
    opts: &Options,
    at: &str,
) -> (Vec<Resource>, Vec<Finding>, bool) {
    let spec = &app["spec"];
    let sources: Vec<&Json> = match spec["sources"].as_array() {
        Some(list) if !list.is_empty() => list.iter().collect(),
        _ => vec![&spec["source"]],
    };
    let refs: Vec<(String, &Json)> = sources
        .iter()
        .filter_map(|s| {
            let r = s["ref"].as_str().filter(|r| !r.is_empty())?;
            Some((format!("${r}"), *s))
        })
        .collect();
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
        let ctx = Source {
            app,
            name: app["metadata"]["name"].as_str().unwrap_or_default(),
            source,
            refs: &refs,
            env: Env::new(app, source),
            files,
            opts,
            at,
            foreign: None,
        };
        let out = ctx.deploy();
        resources.extend(out.resources);
        findings.extend(out.findings);
        ok &= out.ok;
    }
    let resources = expand_lists(resources);
    let resources = track(resources, app, opts);
    let resources = exclude(resources, app, opts, at, &mut findings);
    (resources, findings, ok)
}

/// The objects argocd-cm's `resource.exclusions`/`resource.inclusions` keep Argo CD from
/// managing, dropped as the controller drops them (`ExcludedResourceWarning`), with one
/// warning that names them.
fn exclude(
    resources: Vec<Resource>,
    app: &Json,
    opts: &Options,
    at: &str,
    findings: &mut Vec<Finding>,
) -> Vec<Resource> {
    let (filters, _) = opts.settings.resource_filters();
    let cluster = app["spec"]["destination"]["server"]
        .as_str()
        .filter(|s| !s.is_empty());
    let mut excluded = Vec::new();
    let kept = resources
        .into_iter()
        .filter(|r| {
            let id = r.id();
            let out = filters.excludes(&id.group, &id.kind, cluster);
            if out {
                excluded.push(format!("{}/{} {}", id.group, id.kind, id.name));
            }
            !out
        })
        .collect();
    if !excluded.is_empty() {
        let name = app["metadata"]["name"].as_str().unwrap_or_default();
        let shown = excluded.len().min(5);
        let more = match excluded.len() - shown {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        findings.push(
            Finding::warning(
                rules::APP_RESOURCE_EXCLUDED,
                format!(
                    "Application {name}: {}{more} excluded in the settings (argocd-cm resource.exclusions/resource.inclusions); Argo CD does not apply them",
                    excluded[..shown].join(", ")
                ),
            )
            .in_file(at.to_string()),
        );
    }
    kept
}

/// One source of an Application, with what rendering it needs.
struct Source<'a> {
    app: &'a Json,
    name: &'a str,
    source: &'a Json,
    /// The `ref` sources, as `$NAME`.
    refs: &'a [(String, &'a Json)],
    env: Env,
    files: &'a Files<'a>,
    opts: &'a Options,
    at: &'a str,
    /// The repository `files` reads when it is not this one (a source fetched from another).
    foreign: Option<&'a str>,
}

type Output = EngineOutput<()>;

/// Files as `(name, text)`.
type NamedTexts = Vec<(String, String)>;

impl Source<'_> {
    fn incomplete(&self, why: Incomplete, message: String) -> Finding {
        Finding::notice(rules::APP_SOURCE_NOT_RENDERED, message)
            .in_file(self.at.to_string())
            .incomplete(why)
    }

    fn error(&self, rule: crate::finding::Rule, message: String) -> Finding {
        Finding::error(rule, format!("Application {}: {message}", self.name))
            .in_file(self.at.to_string())
    }

    fn is_this_repo(&self, url: &str) -> bool {
        self.opts.repo_urls.contains(&normalize_repo_url(url))
    }

    fn deploy(&self) -> Output {
        let source = self.source;
        let repo = source["repoURL"].as_str().unwrap_or_default();
        let revision = source["targetRevision"].as_str().unwrap_or("HEAD");
        if !source["chart"].is_null() {
            let mut out = self.repository_chart(repo, revision);
            if out.findings.iter().any(|f| f.is_incomplete()) {
                out.complete = false;
            }
            return out;
        }
        if self.foreign.is_none() && repo.starts_with("oci://") {
            let mut out = self.oci_source(repo, revision);
            if out.findings.iter().any(|f| f.is_incomplete()) {
                out.complete = false;
            }
            return out;
        }
        if self.foreign.is_none() && !self.is_this_repo(repo) {
            let mut out = self.other_repository(repo, revision);
            if out.findings.iter().any(|f| f.is_incomplete()) {
                out.complete = false;
            }
            return out;
        }
        if self.foreign.is_none() && pins_a_revision(revision) {
            return self.pinned_revision(repo, revision);
        }
        // A constraint pins the highest tag it admits; with none, it is a branch's name,
        // which follows the revision under test.
        if self.foreign.is_none() {
            if let Ok(Some(tag)) = constraint_tag(self.files, repo, revision) {
                return self.pinned_revision(repo, &tag);
            }
        }
        self.deploy_path()
    }

    /// A path source, read from `self.files`.
    fn deploy_path(&self) -> Output {
        let source = self.source;
        let app = self.name;
        let path = source["path"].as_str().unwrap_or(".").trim_matches('/');
        let dir = match RepoPath::new(if path.is_empty() { "." } else { path }) {
            Ok(d) => d,
            Err(e) => {
                return EngineOutput::failed(vec![self.error(
                    rules::SOURCE_OUTSIDE_REPOSITORY,
                    format!("source path {path}: {e}"),
                )])
            }
        };
        if self.files.kind(&dir) != EntryKind::Dir {
            return EngineOutput::failed(vec![self.error(
                rules::SOURCE_NOT_FOUND,
                format!("source path {path} is not a directory in this revision"),
            )]);
        }
        let source = match self.with_overrides(&dir) {
            Ok(s) => s,
            Err(f) => return EngineOutput::failed(vec![*f]),
        };
        // Argo CD's type names, in its order.
        let explicit: Vec<(&str, &str)> = [
            ("kustomize", "Kustomize"),
            ("helm", "Helm"),
            ("directory", "Directory"),
            ("plugin", "Plugin"),
        ]
        .into_iter()
        .filter(|(k, _)| !source[*k].is_null())
        .collect();
        if explicit.len() > 1 {
            let names: Vec<&str> = explicit.iter().map(|(_, n)| *n).collect();
            return EngineOutput::failed(vec![self.error(
                rules::APP_SOURCE_INVALID,
                format!("multiple application sources defined: {}", names.join(",")),
            )]);
        }
        let has = |f: &str| self.files.kind(&dir.child(f)) == EntryKind::File;
        let kind = match explicit.first() {
            Some((k, _)) => *k,
            None if crate::kustomize::KUSTOMIZATION_FILES.iter().any(|f| has(f)) => "kustomize",
            None if has("Chart.yaml") => "helm",
            None => "directory",
        };
        let mut out = match kind {
            "kustomize" => self.kustomize(&source["kustomize"], &dir),
            "helm" => self.helm(&source["helm"], &dir, None),
            "plugin" => self.plugin(&source["plugin"], &dir),
            _ => super::directory::render(app, &source["directory"], self.files, &dir),
        };
        if !out.complete || out.findings.iter().any(|f| f.is_incomplete()) {
            out.complete = false;
        }
        out
    }

    /// A `path` source in another git repository: that repository's commit from the fetch
    /// store, rendered as a source of this one would be. Findings point at the Application
    /// (their message names the file in the other repository); `$ref` value files of this
    /// repository are left out, as they are read from another checkout.
    fn other_repository(&self, repo: &str, revision: &str) -> Output {
        let path = self.source["path"].as_str().unwrap_or(".");
        let shown = crate::fetch::url::redact_text(repo);
        match git_snapshot(self.files, repo, revision) {
            Ok((snapshot, commit)) => {
                self.deploy_from(snapshot.as_ref(), &commit, &shown, revision)
            }
            Err(e) => self.unavailable(
                e,
                format!("deploys {path} from {shown} at {revision}, which is not this repository"),
                "run `kdelta fetch` (or add --fetch) to fetch it; if it is this repository, declare its URL in repoURLs of .kdelta.yaml",
            ),
        }
    }

    /// An OCI source (Argo CD 3: `repoURL: oci://…` without `chart:`): the artifact's content
    /// from the fetch store, rendered at `path` as a source of a repository would be.
    fn oci_source(&self, repo: &str, revision: &str) -> Output {
        let shown = crate::fetch::url::redact_text(repo);
        let pick = crate::fetch::oci::Pick::Argo(revision.to_string());
        match self.files.oci_snapshot(repo, &pick) {
            Ok((snapshot, digest)) => {
                self.deploy_from(snapshot.as_ref(), &digest, &shown, revision)
            }
            Err(e) => self.unavailable(
                e,
                format!("deploys the OCI artifact {shown} {revision}"),
                "run `kdelta fetch` (or add --fetch) to pull it",
            ),
        }
    }

    /// A source the fetch store does not give: not cached, a notice that the Application
    /// `deploys …`, with `help`; failed, an error with the reason. Either way the output lacks
    /// it.
    fn unavailable(&self, e: Unavailable, deploys: String, help: &str) -> Output {
        let finding = match e {
            Unavailable::NotCached(_) => {
                let mut f = self.incomplete(
                    Incomplete::NotFetched,
                    format!(
                        "Application {} {deploys}, and it is not in kdelta's cache",
                        self.name
                    ),
                );
                f.help = Some(help.into());
                f
            }
            Unavailable::Failed(e) => Finding::error(
                rules::FETCH_FAILED,
                format!("Application {}: {deploys}: {e}", self.name),
            )
            .in_file(self.at.to_string())
            .incomplete(Incomplete::FetchFailed),
        };
        EngineOutput::new(Vec::new(), vec![finding], true)
    }

    /// A path source of this repository pinned to a tag or a commit (`targetRevision:
    /// v1.2.0`): Argo CD deploys that revision, not the one under test, so it is read from the
    /// local repository (or the fetch store). When neither has it, the revision under test is
    /// rendered, and a notice says the output may not be what is deployed.
    fn pinned_revision(&self, repo: &str, revision: &str) -> Output {
        let shown = crate::fetch::url::redact_text(repo);
        let (reason, why) = match git_snapshot(self.files, repo, revision) {
            Ok((snapshot, commit)) => {
                let mut out = self.deploy_from(snapshot.as_ref(), &commit, &shown, revision);
                if out.findings.iter().any(|f| f.is_incomplete()) {
                    out.complete = false;
                }
                return out;
            }
            Err(e @ Unavailable::NotCached(_)) => (
                e.incomplete(),
                "neither the local repository nor kdelta's cache has it".to_string(),
            ),
            Err(e @ Unavailable::Failed(_)) => (e.incomplete(), e.to_string()),
        };
        let mut out = self.deploy_path();
        let mut f = self.incomplete(reason, format!(
            "Application {} deploys this repository at {revision}, but {why}; kdelta rendered the revision under test instead",
            self.name
        ));
        f.help =
            Some("fetch the tag (git fetch --tags), or run `kdelta fetch` (or add --fetch)".into());
        out.findings.push(f);
        out.complete = false;
        out
    }

    /// The source rendered from `snapshot` (a commit of another repository, or of this one at
    /// a pinned revision); findings point at the Application, their message naming the file
    /// in that commit.
    fn deploy_from(
        &self,
        snapshot: &dyn crate::source::Snapshot,
        commit: &str,
        shown: &str,
        revision: &str,
    ) -> Output {
        let files = self.files.sibling(snapshot);
        let foreign = Source {
            app: self.app,
            name: self.name,
            source: self.source,
            refs: self.refs,
            env: self.env.clone(),
            files: &files,
            opts: self.opts,
            at: self.at,
            foreign: Some(shown),
        };
        let mut out = foreign.deploy();
        let at = RepoPath::new(self.at).ok();
        for f in &mut out.findings {
            let place = match (&f.file, f.line) {
                (Some(file), Some(line)) => format!("{file}:{line}"),
                (Some(file), None) => file.clone(),
                _ => String::new(),
            };
            if !place.is_empty() && f.file.as_deref() != Some(self.at) {
                f.message = format!(
                    "{shown} at {} ({}), {place}: {}",
                    revision,
                    &commit[..commit.len().min(12)],
                    f.message
                );
            }
            f.file = Some(self.at.to_string());
            f.line = None;
            f.column = None;
        }
        if let Some(at) = at {
            for r in &mut out.resources {
                r.origin.file = at.clone();
            }
        }
        out
    }

    /// A `chart:` source: the chart from its Helm repository, through the fetch store.
    fn repository_chart(&self, repo: &str, revision: &str) -> Output {
        let app = self.name;
        let chart = self.source["chart"].as_str().unwrap_or_default();
        let shown = crate::fetch::url::redact_text(repo);
        let not_rendered = |reason: Incomplete, why: &str| {
            EngineOutput::new(
                Vec::new(),
                vec![self.incomplete(reason, format!(
                    "Application {app} deploys chart {chart} {revision} from the Helm repository {shown}; {why}"
                ))],
                true,
            )
        };
        let Some(request) = chart_request(self.source) else {
            return not_rendered(
                Incomplete::Other,
                "kdelta fetches charts over https, http and oci only",
            );
        };
        match self.files.helm_chart(&request) {
            Ok(fetched) => {
                let mut out = self.helm(&self.source["helm"], &self.dir(), Some(&fetched));
                out.findings
                    .extend(fetched.warnings.iter().map(|(rule, w)| {
                        Finding::warning(*rule, w.clone()).in_file(self.at.to_string())
                    }));
                out
            }
            Err(Unavailable::NotCached(_)) => {
                let mut out = not_rendered(Incomplete::NotFetched, "it is not in kdelta's cache");
                for f in &mut out.findings {
                    f.help = Some("run `kdelta fetch` (or add --fetch) to download it".into());
                }
                out
            }
            Err(Unavailable::Failed(e)) => EngineOutput::new(
                Vec::new(),
                vec![Finding::error(
                    rules::FETCH_FAILED,
                    format!("Application {app}: chart {chart}: {e}"),
                )
                .in_file(self.at.to_string())
                .incomplete(Incomplete::FetchFailed)],
                true,
            ),
        }
    }

    /// The directory of the file that defines the Application.
    fn dir(&self) -> RepoPath {
        RepoPath::new(self.at).map_or_else(|_| RepoPath::root(), |p| p.parent())
    }

    /// The value files of a chart fetched from a Helm repository, as `(name, text)`: a
    /// `$ref/…` path from this repository, any other path from the chart itself.
    fn fetched_value_files(
        &self,
        fetched: &FetchedChart,
        raw: &[&str],
        ignore_missing: bool,
    ) -> Result<(NamedTexts, Vec<String>), ValueFileError> {
        let archived = crate::helm::chart::Chart::archive_files(&fetched.bytes)
            .map_err(ValueFileError::Archive)?;
        let mut out = Vec::new();
        let mut skipped = Vec::new();
        for f in raw {
            // `$ref/…` and URLs are files outside the chart; anything else is in it.
            let value = self.env.subst(f);
            let outside = if f.starts_with('$') {
                Some(self.resolve(&RepoPath::root(), f)?)
            } else {
                self.resolve_url(f, &value).transpose()?
            };
            if let Some(resolved) = outside {
                match ValueFile::of(resolved, f) {
                    Ok(file) => match self.read_value_file(&file, ignore_missing)? {
                        Read::Text(name, text) => out.push((name, text)),
                        Read::Skipped => {}
                        Read::NotCached => skipped.push(f.to_string()),
                    },
                    Err(_) => skipped.push(f.to_string()),
                }
                continue;
            }
            let name = crate::template::go_path_clean(value.trim_start_matches('/'));
            match archived.iter().find(|(n, _)| *n == name) {
                Some((_, bytes)) => out.push((
                    format!("{}/{name}", fetched.url),
                    String::from_utf8_lossy(bytes).into_owned(),
                )),
                None if ignore_missing => {}
                None => {
                    return Err(ValueFileError::NotInChart {
                        raw: f.to_string(),
                        url: fetched.url.to_string(),
                    })
                }
            }
        }
        Ok((out, skipped))
    }

    /// The source with the path's `.argocd-source.yaml`, then `.argocd-source-<app>.yaml`,
    /// merged in (JSON merge patches); `path`, `repoURL`, `chart` and `targetRevision` stay.
    fn with_overrides(&self, dir: &RepoPath) -> Result<Json, Box<Finding>> {
        let mut merged = self.source.clone();
        for name in [
            ".argocd-source.yaml".to_string(),
            format!(".argocd-source-{}.yaml", self.name),
        ] {
            let file = dir.child(&name);
            if self.files.kind(&file) != EntryKind::File {
                continue;
            }
            let patch = self
                .files
                .yaml_documents(&file, &ParseOptions::default())
                .map_err(|e| Box::new(e.into_finding()))?;
            let docs = patch
                .as_ref()
                .as_ref()
                .map_err(|e| Box::new(crate::source::yaml_finding(e, &file)))?;
            let Some(doc) = docs.first() else { continue };
            let patch = yaml::to_value(doc, Dialect::Yaml11).map_err(|e| {
                Box::new(Finding::error(rules::APP_SOURCE_INVALID, e.to_string()).at(
                    file.to_string(),
                    doc.span.line,
                    doc.span.column,
                ))
            })?;
            merge_patch(&mut merged, &patch);
        }
        for key in ["chart", "path", "repoURL", "targetRevision"] {
            match &self.source[key] {
                Json::Null => {
                    if let Some(m) = merged.as_object_mut() {
                        m.remove(key);
                    }
                }
                v => merged[key] = v.clone(),
            }
        }
        Ok(merged)
    }

    /// The kustomize build options argocd-cm gives a source asking for kustomize `version`,
    /// with a finding for what kdelta cannot apply.
    fn kustomize_options(&self, options: &Json) -> (crate::kustomize::Options, Vec<Finding>) {
        let settings = &self.opts.settings;
        let version = options["version"].as_str().filter(|v| !v.is_empty());
        let mut findings = Vec::new();
        if let Some(v) = version {
            if !settings.cm.is_empty() && !settings.has_kustomize_version(v) {
                findings.push(self.error(
                    rules::APP_SOURCE_INVALID,
                    format!("kustomize version {v} is not configured in argocd-cm (kustomize.version.{v})"),
                ));
            }
        }
        let Some(sourced) = settings.kustomize_build_options(version) else {
            return (Default::default(), findings);
        };
        let (mut opts, unknown) = super::settings::kustomize_options(&sourced.value);
        // With --enable-helm, the repo-server appends --helm-kube-version with the destination
        // cluster's version (kustomize v5.3 and later), after the configured flags.
        let enables_helm = sourced
            .value
            .split_whitespace()
            .any(|w| w == "--enable-helm" || w == "--enable-helm=true");
        if enables_helm {
            if let Some(v) = self.cluster_version() {
                opts.helm_kube_version = Some(v);
            }
        }
        // The global options' unknown flags are said once per revision (`apply_settings`).
        if version.is_some() && !unknown.is_empty() {
            findings.push(super::settings::unknown_flags_finding(
                &unknown,
                &sourced.place,
            ));
        }
        (opts, findings)
    }

    /// The Kubernetes version of the Application's destination cluster, as the repo-server
    /// passes it to Helm: a `kubernetes.overrides` entry selecting the Application (by its
    /// file's path or its destination), else the run's.
    fn cluster_version(&self) -> Option<String> {
        let dest = |f: &str| {
            self.app["spec"]["destination"][f]
                .as_str()
                .unwrap_or_default()
        };
        let server = match dest("server") {
            "" if matches!(dest("name"), "" | "in-cluster") => "https://kubernetes.default.svc",
            s => s,
        };
        crate::config::kube_version_for(
            &self.opts.kube_overrides,
            self.at,
            Some((server, dest("name"))),
        )
        .map(str::to_string)
        .or_else(|| self.opts.kube_version.clone())
    }

    fn kustomize(&self, options: &Json, dir: &RepoPath) -> Output {
        let (build_opts, notes) = self.kustomize_options(options);
        self.kustomize_with(options, dir, &build_opts, notes)
    }

    fn kustomize_with(
        &self,
        options: &Json,
        dir: &RepoPath,
        build_opts: &crate::kustomize::Options,
        notes: Vec<Finding>,
    ) -> Output {
        let build = || {
            let mut out = crate::kustomize::build(self.files, dir, build_opts).map_details(|_| ());
            out.findings.extend(notes.iter().cloned());
            out
        };
        let edits: Vec<&str> = options
            .as_object()
            .map(|m| {
                m.keys()
                    .map(String::as_str)
                    .filter(|k| *k != "version")
                    .collect()
            })
            .unwrap_or_default();
        if edits.is_empty() {
            return build();
        }
        // Argo CD edits the kustomization in its checkout, then builds.
        let Some(file) = crate::kustomize::KUSTOMIZATION_FILES
            .iter()
            .map(|f| dir.child(f))
            .find(|f| self.files.kind(f) == EntryKind::File)
        else {
            return EngineOutput::failed(vec![self.error(
                rules::APP_SOURCE_INVALID,
                format!("kustomize edit: Missing kustomization file 'kustomization.yaml' in {dir}"),
            )]);
        };
        let mut k = match self
            .files
            .read(&file)
            .map(|b| yaml::parse_one(&b, &Default::default()))
        {
            Ok(Ok(k)) => k,
            // The build reports what is wrong with the file.
            _ => return build(),
        };
        let exists = |rel: &str| {
            dir.join(rel)
                .is_ok_and(|p| self.files.kind(&p) != EntryKind::Missing)
        };
        let checkout = super::kustomize_edit::Checkout { exists: &exists };
        if let Err(e) = super::kustomize_edit::apply(&mut k, options, &self.env, &checkout) {
            let mut f = self.error(rules::APP_SOURCE_INVALID, e.to_string());
            // An edit refused for what the kustomization holds points there.
            if let Some(span) = e.span() {
                f = f.at(file.to_string(), span.line, span.column);
            }
            return EngineOutput::failed(vec![f]);
        }
        let mut out = self.files.with_replaced(
            &file,
            yaml::emit::node_to_string(&k).into_bytes().into(),
            build,
        );
        self.revision_notice(&mut out, &super::generate::strings(&options["images"]));
        out
    }

    fn helm(&self, options: &Json, dir: &RepoPath, fetched: Option<&FetchedChart>) -> Output {
        let text = |k: &str| {
            options[k]
                .as_str()
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let mut chart = crate::helm::Spec::chart(dir.clone());
        let mut notices = Vec::new();
        let ignore_missing = options["ignoreMissingValueFiles"].as_bool() == Some(true);
        let raw = super::generate::strings(&options["valueFiles"]);
        let mut fetched_values = Vec::new();
        let value_files = match fetched {
            Some(c) => self
                .fetched_value_files(c, &raw, ignore_missing)
                .map(|(v, skipped)| {
                    fetched_values = v;
                    (Vec::new(), skipped)
                }),
            None => self.value_files(dir, &raw, ignore_missing),
        };
        match value_files {
            Ok((paths, skipped)) => {
                let all_local: Option<Vec<RepoPath>> = paths
                    .iter()
                    .map(|f| match f {
                        ValueFile::Local(p) => Some(p.clone()),
                        _ => None,
                    })
                    .collect();
                let mut skipped = skipped;
                match all_local {
                    Some(local) => {
                        chart.values_files = local.iter().map(|p| relative_to(dir, p)).collect()
                    }
                    // Files of another repository or at URLs among them: every file is
                    // passed as text, in the order listed.
                    None => {
                        for f in &paths {
                            match self.read_value_file(f, ignore_missing) {
                                Ok(Read::Text(name, text)) => fetched_values.push((name, text)),
                                Ok(Read::Skipped) => {}
                                Ok(Read::NotCached) => {
                                    skipped.extend(f.fetched_as().map(str::to_string))
                                }
                                Err(e) => {
                                    return EngineOutput::failed(vec![
                                        self.value_file_error("reading", e)
                                    ])
                                }
                            }
                        }
                    }
                }
                if !skipped.is_empty() {
                    let mut f = self.incomplete(Incomplete::NotFetched, format!(
                        "Application {}: value files at URLs or not in kdelta's cache ({}) were left out",
                        self.name,
                        skipped.join(", ")
                    ));
                    f.help = Some("a file of another repository or at an http(s) URL is read once `kdelta fetch` (or --fetch) has fetched it".into());
                    notices.push(f);
                }
            }
            Err(e) => return EngineOutput::failed(vec![self.value_file_error("resolving", e)]),
        }
        let mut helm_opts = crate::helm::Options {
            release_name: Some(text("releaseName").unwrap_or_else(|| self.name.to_string())),
            namespace: text("namespace").or_else(|| {
                self.app["spec"]["destination"]["namespace"]
                    .as_str()
                    .filter(|n| !n.is_empty())
                    .map(str::to_string)
            }),
            kube_version: text("kubeVersion").or_else(|| self.cluster_version()),
            api_versions: super::generate::strings(&options["apiVersions"])
                .into_iter()
                .map(str::to_string)
                .collect(),
            include_crds: options["skipCrds"].as_bool() != Some(true),
            skip_tests: options["skipTests"].as_bool() == Some(true),
            skip_schema_validation: options["skipSchemaValidation"].as_bool() == Some(true),
            ..Default::default()
        };
        helm_opts.values = fetched_values;
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
        // Argo CD keeps parameters in maps: one value per name, the last given.
        let mut set = std::collections::BTreeMap::new();
        let mut set_string = std::collections::BTreeMap::new();
        let mut substituted = Vec::new();
        for p in options["parameters"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            let (Some(name), Some(value)) = (p["name"].as_str(), p["value"].as_str()) else {
                continue;
            };
            substituted.push(value);
            let map = if p["forceString"].as_bool() == Some(true) {
                &mut set_string
            } else {
                &mut set
            };
            map.insert(name, clean_set_value(&self.env.subst(value)));
        }
        helm_opts.set = set.into_iter().map(|(n, v)| format!("{n}={v}")).collect();
        helm_opts.set_string = set_string
            .into_iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect();
        for p in options["fileParameters"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            let (Some(name), Some(path)) = (p["name"].as_str(), p["path"].as_str()) else {
                continue;
            };
            match self.resolve(dir, path).map(|r| ValueFile::of(r, path)) {
                Ok(Ok(ValueFile::Local(file))) => match self.files.read(&file) {
                    Ok(bytes) => helm_opts.set_file.push(file_parameter(
                        name,
                        path,
                        crate::template::gostr::from_bytes(&bytes),
                    )),
                    Err(e) => return EngineOutput::failed(vec![crate::source::source_finding(&e, &file)]),
                },
                Ok(Ok(file)) => {
                    match self.read_value_file(&file, false) {
                        Ok(Read::Text(_, text)) => helm_opts.set_file.push(file_parameter(name, path, text)),
                        Ok(_) => notices.push(self.incomplete(Incomplete::NotFetched, format!(
                            "Application {}: file parameter {name} reads a file of another repository or at a URL that is not in kdelta's cache; it is left out",
                            self.name
                        ))),
                        Err(e) => {
                            return EngineOutput::failed(vec![self
                                .error(rules::FETCH_FAILED, format!("file parameter {name}: {e}"))
                                .incomplete(Incomplete::FetchFailed)])
                        }
                    }
                }
                Ok(Err(what)) => notices.push(self.incomplete(Incomplete::Other, format!(
                    "Application {}: file parameter {name} reads {what}; kdelta does not fetch it, so it is left out",
                    self.name
                ))),
                Err(e) => {
                    return EngineOutput::failed(vec![self.error(
                        rules::HELM_VALUES,
                        format!("error resolving helm value file path: {e}"),
                    )])
                }
            }
        }
        let mut out: Output = {
            let rendered = match (fetched, RepoPath::new(self.at)) {
                (Some(c), Ok(at)) => {
                    crate::helm::target::render_fetched(&chart, c, &at, self.files, &helm_opts)
                }
                _ => crate::helm::target::render(&chart, self.files, &helm_opts),
            };
            EngineOutput::new(rendered.resources, rendered.findings, rendered.ok)
        };
        out.findings.extend(notices);
        self.revision_notice(&mut out, &substituted);
        out
    }

    /// `valueFiles` as Argo CD resolves them: relative to the app path (absolute paths to the
    /// repository root), `$ref/…` into the `ref` source, environment variables substituted,
    /// globs expanded in lexical order (an entry listed explicitly keeps its own place),
    /// missing files dropped with `ignoreMissingValueFiles`. Gives the files, and what was
    /// left out because it is in another repository or at a URL.
    fn value_files(
        &self,
        dir: &RepoPath,
        raw: &[&str],
        ignore_missing: bool,
    ) -> Result<(Vec<ValueFile>, Vec<String>), ValueFileError> {
        let resolved: Vec<Result<Resolved, ResolveError>> =
            raw.iter().map(|f| self.resolve(dir, f)).collect();
        let explicit: Vec<&RepoPath> = resolved
            .iter()
            .filter_map(|r| match r {
                Ok(Resolved::File(p)) if !is_glob(p.as_str()) => Some(p),
                _ => None,
            })
            .collect();
        let mut files: Vec<ValueFile> = Vec::new();
        let mut skipped = Vec::new();
        let push = |p: RepoPath, files: &mut Vec<ValueFile>| {
            let p = ValueFile::Local(p);
            if !files.contains(&p) {
                files.push(p);
            }
        };
        for (raw, r) in raw.iter().zip(resolved.iter()) {
            match r.clone()? {
                Resolved::Elsewhere(_) => skipped.push(raw.to_string()),
                fetched @ (Resolved::Url(_) | Resolved::Remote { .. }) => {
                    files.extend(ValueFile::of(fetched, raw).ok())
                }
                Resolved::File(p) if is_glob(p.as_str()) => {
                    let matches = self.glob(&p);
                    if matches.is_empty() {
                        if ignore_missing {
                            continue;
                        }
                        return Err(ValueFileError::NoMatch {
                            raw: raw.to_string(),
                        });
                    }
                    for m in matches {
                        if !explicit.contains(&&m) {
                            push(m, &mut files);
                        }
                    }
                }
                Resolved::File(p) => {
                    if ignore_missing && self.files.kind(&p) == EntryKind::Missing {
                        continue;
                    }
                    push(p, &mut files);
                }
            }
        }
        Ok((files, skipped))
    }

    /// A value file path: a file of this repository, or something kdelta does not fetch.
    fn resolve(&self, dir: &RepoPath, raw: &str) -> Result<Resolved, ResolveError> {
        if let Some((reference, rest)) = raw.split_once('/').filter(|(r, _)| r.starts_with('$')) {
            if let Some((_, src)) = self.refs.iter().find(|(r, _)| r == reference) {
                let repo = src["repoURL"].as_str().unwrap_or_default();
                let path = within(&RepoPath::root(), &self.env.subst(rest), raw)?;
                if !self.is_this_repo(repo) {
                    return Ok(Resolved::Remote {
                        repo: repo.to_string(),
                        rev: src["targetRevision"].as_str().unwrap_or("HEAD").to_string(),
                        path,
                    });
                }
                if self.foreign.is_some() {
                    return Ok(Resolved::Elsewhere(format!("{raw} in {repo}")));
                }
                return Ok(Resolved::File(path));
            }
        }
        let value = self.env.subst(raw);
        if let Some(at_url) = self.resolve_url(raw, &value) {
            return at_url;
        }
        match value.strip_prefix('/') {
            Some(abs) => within(&RepoPath::root(), abs, raw),
            None => within(dir, &value, raw),
        }
        .map(Resolved::File)
    }

    /// A value file at a URL (`value`, the environment substituted in `raw`), or `None`:
    /// argocd-cm's `helm.valuesFileSchemes` (default https and http) says which schemes are
    /// allowed, and helm reads an http(s) one with its getter (kdelta through the fetch
    /// store); another allowed scheme is not read.
    fn resolve_url(&self, raw: &str, value: &str) -> Option<Result<Resolved, ResolveError>> {
        let scheme = url_scheme(value)?;
        let allowed = self.opts.settings.values_file_schemes();
        Some(if !allowed.iter().any(|s| s == scheme) {
            Err(ResolveError::Scheme {
                raw: raw.to_string(),
                scheme: scheme.to_string(),
            })
        } else if matches!(scheme, "http" | "https") {
            Ok(Resolved::Url(value.to_string()))
        } else {
            Ok(Resolved::Elsewhere(value.to_string()))
        })
    }

    /// The files a value file glob matches, in lexical order (doublestar's `FilepathGlob`).
    fn glob(&self, pattern: &RepoPath) -> Vec<RepoPath> {
        // Only the part before the first wildcard needs walking.
        let parts: Vec<&str> = pattern.as_str().split('/').collect();
        let fixed = parts.iter().take_while(|p| !is_glob(p)).count();
        let Ok(base) = RepoPath::new(&parts[..fixed].join("/")) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut stack = vec![base];
        while let Some(d) = stack.pop() {
            for e in self.files.list(&d).unwrap_or_default() {
                let p = d.child(&e.name);
                match e.kind {
                    EntryKind::Dir => stack.push(p),
                    EntryKind::File | EntryKind::Symlink
                        if crate::helm::glob::doublestar(pattern.as_str(), p.as_str()) =>
                    {
                        out.push(p)
                    }
                    _ => {}
                }
            }
        }
        out.sort();
        out
    }

    /// A notice when an option uses a revision variable kdelta leaves as written.
    fn revision_notice(&self, out: &mut Output, values: &[&str]) {
        if let Some(var) = values.iter().find_map(|v| Env::revision_var(v)) {
            out.findings.push(self.incomplete(Incomplete::RevisionVariable, format!(
                "Application {}: ${{{var}}} is the commit Argo CD syncs; kdelta leaves it as written",
                self.name
            )));
            out.complete = false;
        }
    }
}

/// A value file path Argo CD refuses, in its words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum ResolveError {
    /// A path that leaves the repository.
    #[error("file '{raw}' resolved to outside repository root")]
    Outside { raw: String },
    /// A URL whose scheme argocd-cm's `helm.valuesFileSchemes` does not list.
    #[error("the URL scheme '{scheme}' is not allowed")]
    Scheme { raw: String, scheme: String },
}

/// Why the value files of a Helm source cannot be read, in Argo CD's words.
#[derive(Debug, thiserror::Error)]
enum ValueFileError {
    #[error(transparent)]
    Resolve(#[from] ResolveError),
    /// A glob that matches nothing, without `ignoreMissingValueFiles`.
    #[error("values file glob {raw:?} matched no files")]
    NoMatch { raw: String },
    /// A path the fetched chart does not have.
    #[error("values file {raw:?} is not in chart {url}")]
    NotInChart { raw: String, url: String },
    /// The fetched chart's archive does not read.
    #[error("{0}")]
    Archive(crate::helm::chart::LoadError),
    /// A file of this repository that does not read.
    #[error("{error}")]
    Read {
        path: RepoPath,
        error: crate::source::SourceError,
    },
    /// Another repository's commit could not be fetched or used.
    #[error("{0}")]
    Fetch(crate::fetch::FetchError),
    /// A file of another repository that does not read.
    #[error("{shown} at {rev}: {error}")]
    RemoteRead {
        /// The repository's URL, without credentials.
        shown: String,
        rev: String,
        path: RepoPath,
        error: crate::source::SourceError,
    },
}

/// Where a value file is.
#[derive(Clone)]
enum Resolved {
    File(RepoPath),
    /// A `$ref/…` file in another repository: fetched through the store.
    Remote {
        repo: String,
        rev: String,
        path: RepoPath,
    },
    /// At an http(s) URL: fetched through the store.
    Url(String),
    /// At a URL kdelta does not read, or in this repository while rendering another: what
    /// it is.
    Elsewhere(String),
}

/// True when a `targetRevision` pins a revision rather than following a branch: a full
/// commit id, or a version tag (`v1.2.0`, `1.2`).
/// Commit `revision` of the git repository at `url` as Argo CD's repo-server resolves it
/// (`util/git/client.go`, `LsRemote`): a semver constraint (`~1.2`, `1.x`, `>=1.0.0`) names
/// the highest tag it admits, or, when none does, the branch or tag of that name; anything
/// else is a branch, a tag or a commit.
pub(crate) fn git_snapshot(
    files: &Files,
    url: &str,
    revision: &str,
) -> Result<(crate::source::RemoteSnapshot, String), Unavailable> {
    match constraint_tag(files, url, revision)? {
        Some(tag) => files.git_snapshot(url, &tag),
        None => files.git_snapshot(url, revision),
    }
}

/// The tag a `revision` that is a semver constraint picks among the repository's tags (Argo
/// CD's `versions.MaxVersion`); `None` when it is no constraint or no tag matches.
fn constraint_tag(files: &Files, url: &str, revision: &str) -> Result<Option<String>, Unavailable> {
    if !crate::fetch::tags::is_constraint(revision) {
        return Ok(None);
    }
    let listed = files.git_tags(url)?;
    Ok(crate::fetch::tags::argo_max_version(revision, &listed.tags, false).ok())
}

fn pins_a_revision(revision: &str) -> bool {
    let tag = revision.strip_prefix('v').unwrap_or(revision);
    crate::fetch::git::is_commit_id(revision)
        || (tag.starts_with(|c: char| c.is_ascii_digit())
            && tag.contains('.')
            && tag
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '_')))
}

/// The chart a `chart:` source names, as the fetch store takes it: a `repoURL` without a
/// scheme is an OCI registry (Argo CD's `IsHelmOciRepo`; its repository Secret says
/// `enableOCI: "true"`). None for a scheme kdelta does not fetch from.
pub(super) fn chart_request(source: &Json) -> Option<ChartRequest> {
    let repo = source["repoURL"].as_str().unwrap_or_default();
    let repo = if repo.contains("://") {
        repo.to_string()
    } else {
        format!("oci://{repo}")
    };
    crate::fetch::is_chart_repository(&repo).then(|| ChartRequest {
        repo,
        name: source["chart"].as_str().unwrap_or_default().to_string(),
        version: source["targetRevision"]
            .as_str()
            .unwrap_or("HEAD")
            .to_string(),
        oci: crate::fetch::OciVersion::Helm,
    })
}

/// A value file as resolved: a file of the repository being read, or of another one.
#[derive(Clone, Debug, PartialEq, Eq)]
enum ValueFile {
    Local(RepoPath),
    Remote {
        repo: String,
        rev: String,
        path: RepoPath,
        /// As written (`$values/env/prod.yaml`).
        raw: String,
    },
    /// At an http(s) URL.
    Url {
        url: String,
        /// As written (`https://…/values-${ENV}.yaml`).
        raw: String,
    },
}

impl ValueFile {
    /// The file `resolved` names (`raw` as written), or what it is when kdelta cannot read it.
    fn of(resolved: Resolved, raw: &str) -> Result<ValueFile, String> {
        let raw = raw.to_string();
        match resolved {
            Resolved::File(p) => Ok(ValueFile::Local(p)),
            Resolved::Remote { repo, rev, path } => Ok(ValueFile::Remote {
                repo,
                rev,
                path,
                raw,
            }),
            Resolved::Url(url) => Ok(ValueFile::Url { url, raw }),
            Resolved::Elsewhere(what) => Err(what),
        }
    }

    /// A file the fetch step reads, as written.
    fn fetched_as(&self) -> Option<&str> {
        match self {
            ValueFile::Local(_) => None,
            ValueFile::Remote { raw, .. } | ValueFile::Url { raw, .. } => Some(raw),
        }
    }
}

/// What reading a value file gave.
enum Read {
    /// Its name (for messages) and text.
    Text(String, String),
    /// Missing, and `ignoreMissingValueFiles` is set.
    Skipped,
    /// In another repository, or at a URL, that is not in the cache.
    NotCached,
}

impl Source<'_> {
    /// The finding for value files that cannot be read (`doing`: resolving or reading them):
    /// a fetch that failed is `fetch.failed`, anything else Argo CD's error.
    fn value_file_error(&self, doing: &str, e: ValueFileError) -> Finding {
        let message = format!("error {doing} helm value files: {e}");
        match e {
            ValueFileError::Fetch(_) => self
                .error(rules::FETCH_FAILED, message)
                .incomplete(Incomplete::FetchFailed),
            _ => self.error(rules::HELM_VALUES, message),
        }
    }

    /// Reads a value file; a file of another repository or at a URL comes from the fetch
    /// store.
    fn read_value_file(
        &self,
        file: &ValueFile,
        ignore_missing: bool,
    ) -> Result<Read, ValueFileError> {
        match file {
            ValueFile::Local(p) => match self.files.read(p) {
                Ok(bytes) => Ok(Read::Text(
                    p.to_string(),
                    String::from_utf8_lossy(&bytes).into_owned(),
                )),
                Err(_) if ignore_missing => Ok(Read::Skipped),
                Err(error) => Err(ValueFileError::Read {
                    path: p.clone(),
                    error,
                }),
            },
            ValueFile::Remote {
                repo, rev, path, ..
            } => {
                let shown = crate::fetch::url::redact_text(repo);
                let (snapshot, _) = match git_snapshot(self.files, repo, rev) {
                    Ok(found) => found,
                    Err(Unavailable::NotCached(_)) => return Ok(Read::NotCached),
                    Err(Unavailable::Failed(e)) => return Err(ValueFileError::Fetch(e)),
                };
                let files = self.files.sibling(snapshot.as_ref());
                match files.read(path) {
                    Ok(bytes) => Ok(Read::Text(
                        format!("{shown}@{rev}:{path}"),
                        String::from_utf8_lossy(&bytes).into_owned(),
                    )),
                    Err(_) if ignore_missing => Ok(Read::Skipped),
                    Err(error) => Err(ValueFileError::RemoteRead {
                        shown,
                        rev: rev.clone(),
                        path: path.clone(),
                        error,
                    }),
                }
            }
            // Argo CD never skips a URL (only files it can stat), so a failure is an error
            // whatever `ignoreMissingValueFiles` says.
            ValueFile::Url { url, .. } => match self.files.remote_file(url) {
                Ok(bytes) => Ok(Read::Text(
                    crate::fetch::url::redact_text(url),
                    String::from_utf8_lossy(&bytes).into_owned(),
                )),
                Err(Unavailable::NotCached(_)) => Ok(Read::NotCached),
                Err(Unavailable::Failed(e)) => Err(ValueFileError::Fetch(e)),
            },
        }
    }
}

fn is_glob(path: &str) -> bool {
    path.contains(['*', '?', '['])
}

/// `rel` joined to `dir`, refused when it leaves the repository.
fn within(dir: &RepoPath, rel: &str, raw: &str) -> Result<RepoPath, ResolveError> {
    dir.join(rel).map_err(|_| ResolveError::Outside {
        raw: raw.to_string(),
    })
}

/// The scheme of a URL (`https` of `https://…`), as Go's `url.Parse` finds one.
fn url_scheme(s: &str) -> Option<&str> {
    let (scheme, _) = s.split_once(':')?;
    let mut chars = scheme.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then_some(scheme)
}

/// `path` relative to `dir` (`../../envs/prod.yaml`), as the Helm target takes value files.
fn relative_to(dir: &RepoPath, path: &RepoPath) -> String {
    let d: Vec<&str> = dir.components().collect();
    let p: Vec<&str> = path.components().collect();
    let common = d.iter().zip(&p).take_while(|(a, b)| a == b).count();
    let mut parts = vec![".."; d.len() - common];
    parts.extend(&p[common..]);
    parts.join("/")
}

/// RFC 7386 JSON merge patch, as `jsonpatch.MergePatch` applies it.
fn merge_patch(target: &mut Json, patch: &Json) {
    let Json::Object(p) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Json::Object(Default::default());
    }
    let Json::Object(t) = target else { return };
    for (k, v) in p {
        if v.is_null() {
            t.remove(k);
        } else {
            merge_patch(t.entry(k.clone()).or_insert(Json::Null), v);
        }
    }
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

/// A `fileParameters` entry as the repo-server passes it to Helm: `--set-file NAME=PATH`,
/// PATH's commas escaped as a parameter's, with the file's text (read already).
fn file_parameter(name: &str, path: &str, text: String) -> crate::helm::strvals::SetFile {
    let flag = format!("{name}={}", clean_set_value(path));
    crate::helm::strvals::SetFile::read(flag, |_| Ok(text.clone()))
}

/// Objects with an `items` list replaced by the items; lists of nothing (`items: null`,
/// no `spec` or `status`) dropped — as the repo-server does for every source type.
fn expand_lists(resources: Vec<Resource>) -> Vec<Resource> {
    let mut out = Vec::with_capacity(resources.len());
    for r in resources {
        match r.node.get("items") {
            Some(items) if items.is_seq() => {
                for item in items.as_seq().into_iter().flatten() {
                    out.push(Resource {
                        node: item.clone(),
                        origin: r.origin.clone(),
                    });
                }
            }
            Some(items)
                if items.is_null()
                    && r.node.get("spec").is_none()
                    && r.node.get("status").is_none() => {}
            _ => out.push(r),
        }
    }
    out
}

/// Argo CD's resource tracking on every object but a CRD (`SetAppInstance`): the
/// `argocd.argoproj.io/tracking-id` annotation `APP:GROUP/KIND:NAMESPACE/NAME`, the
/// instance label, or both, as `.kdelta.yaml` or the repository's argocd-cm configures
/// (default: the annotation).
fn track(mut resources: Vec<Resource>, app: &Json, opts: &Options) -> Vec<Resource> {
    let tracking = opts.settings.tracking();
    if tracking == Tracking::None {
        return resources;
    }
    let name = app["metadata"]["name"].as_str().unwrap_or_default();
    // Outside Argo CD's namespace an Application is known as `NAMESPACE_NAME`.
    let instance = match app["metadata"]["namespace"].as_str() {
        Some(ns) if !ns.is_empty() && ns != opts.argocd.namespace => format!("{ns}_{name}"),
        _ => name.to_string(),
    };
    let destination = app["spec"]["destination"]["namespace"]
        .as_str()
        .unwrap_or_default();
    for r in &mut resources {
        let id = r.id();
        if id.kind == "CustomResourceDefinition"
            && matches!(id.group.as_str(), "apiextensions.k8s.io")
        {
            continue;
        }
        if !r.node.is_map() {
            continue;
        }
        if matches!(
            tracking,
            Tracking::Annotation | Tracking::AnnotationAndLabel
        ) {
            let ns = if id.namespace.is_empty() {
                destination
            } else {
                &id.namespace
            };
            let value = format!("{instance}:{}/{}:{ns}/{}", id.group, id.kind, id.name);
            let annotations = r.node.map_at_path(&["metadata", "annotations"]);
            annotations.remove("argocd.argoproj.io/installation-id");
            annotations.set("argocd.argoproj.io/tracking-id", Node::string(value));
        }
        if matches!(tracking, Tracking::Label | Tracking::AnnotationAndLabel) {
            let mut value = instance.clone();
            // Only annotation+label truncates the label to a label value's 63 characters.
            if tracking == Tracking::AnnotationAndLabel && value.len() > 63 {
                value.truncate(63);
                while value.ends_with(|c: char| !c.is_ascii_alphanumeric()) {
                    value.pop();
                }
            }
            r.node
                .map_at_path(&["metadata", "labels"])
                .set(opts.settings.instance_label_key(), Node::string(value));
        }
    }
    resources
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merge_patches_replace_and_delete() {
        let mut t =
            json!({"helm": {"valueFiles": ["a.yaml"], "parameters": [{"name": "x"}]}, "path": "p"});
        merge_patch(
            &mut t,
            &json!({"helm": {"valueFiles": ["b.yaml"], "parameters": null}}),
        );
        assert_eq!(t, json!({"helm": {"valueFiles": ["b.yaml"]}, "path": "p"}));
    }

    #[test]
    fn relative_paths_climb_out_of_the_chart() {
        let p = |s: &str| RepoPath::new(s).unwrap();
        assert_eq!(
            relative_to(&p("apps/web"), &p("envs/prod.yaml")),
            "../../envs/prod.yaml"
        );
        assert_eq!(relative_to(&p("apps/web"), &p("apps/web/v.yaml")), "v.yaml");
        assert_eq!(url_scheme("https://x/v.yaml"), Some("https"));
        assert_eq!(url_scheme("values-prod.yaml"), None);
    }
}
