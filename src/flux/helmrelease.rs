//! One HelmRelease rendered as helm-controller installs it: the chart its `chart.spec` or
//! `chartRef` names (a HelmRepository's through the fetch store, a GitRepository's from its
//! artifact), `valuesFiles` in place of the chart's `values.yaml` (source-controller's
//! packaging), `valuesFrom` and `values` composed (`fluxcd/pkg/chartutil`), the release name
//! and namespace (`internal/release/name.go`), CRDs per `install.crds`, then the
//! post-renderers in helm-controller's order (`internal/postrender/build.go`): each
//! `kustomize` one, `commonMetadata`, and the origin labels.

use super::graph::Walked;
use super::sources::{self, Artifact, Missing, Ref};
use super::{values, Details, Options};
use crate::engine::EngineOutput;
use crate::fetch::ChartRequest;
use crate::finding::{rules, Finding, Incomplete};
use crate::resource::Resource;
use crate::source::{EntryKind, Files, MemorySnapshot, RepoPath};
use crate::yaml::{self, Node};
use serde_json::{Map, Value as Json};

type Output = EngineOutput<Details>;

/// Renders the HelmRelease `hr` (as the walk applied it).
pub fn render(hr: &Resource, walked: &Walked, files: &Files, opts: &Options) -> Output {
    let r = Release::new(hr, walked, files, opts);
    let mut notes = Vec::new();
    if hr
        .node
        .get_path(&["spec", "suspend"])
        .and_then(Node::as_scalar)
        .is_some_and(|s| s.text == "true")
    {
        notes.push(r.finding(Finding::notice(
            rules::FLUX_SUSPENDED,
            format!(
                "HelmRelease {} is suspended: Flux installs none of this until it is resumed",
                r.id
            ),
        )));
    }
    let mut out = match r.values() {
        Ok((values, mut found)) => {
            notes.append(&mut found);
            r.chart_and_render(&values)
        }
        Err(f) => EngineOutput::failed(vec![f]),
    };
    if out.ok {
        r.post_render(&mut out);
    }
    out.findings.splice(0..0, notes);
    out.complete = !out.findings.iter().any(|f| f.is_incomplete());
    out
}

struct Release<'a> {
    node: &'a Node,
    at: RepoPath,
    line: u32,
    namespace: &'a str,
    name: &'a str,
    id: String,
    walked: &'a Walked,
    files: &'a Files<'a>,
    opts: &'a Options,
}

impl<'a> Release<'a> {
    fn new(
        hr: &'a Resource,
        walked: &'a Walked,
        files: &'a Files<'a>,
        opts: &'a Options,
    ) -> Release<'a> {
        let namespace = hr
            .node
            .str_at(&["metadata", "namespace"])
            .unwrap_or("default");
        let name = hr.node.str_at(&["metadata", "name"]).unwrap_or_default();
        Release {
            node: &hr.node,
            at: hr.origin.file.clone(),
            line: hr.origin.span.line,
            namespace,
            name,
            id: format!("{namespace}/{name}"),
            walked,
            files,
            opts,
        }
    }

    fn finding(&self, f: Finding) -> Finding {
        f.at(self.at.to_string(), self.line, 0)
    }

    fn text(&self, path: &[&str]) -> Option<&'a str> {
        self.node.str_at(path).filter(|s| !s.is_empty())
    }

    /// `valuesFrom` then `values`, composed as helm-controller does. An object the
    /// repository does not hold (it may exist in the cluster only) is left out with a notice.
    fn values(&self) -> Result<(Map<String, Json>, Vec<Finding>), Finding> {
        let mut notes = Vec::new();
        let mut texts: Vec<(String, Option<&str>, bool)> = Vec::new();
        // Where each reference read is written, for its errors.
        let mut entries: Vec<crate::yaml::Span> = Vec::new();
        let empty = Vec::new();
        let from = self
            .node
            .get_path(&["spec", "valuesFrom"])
            .and_then(Node::as_seq)
            .unwrap_or(&empty);
        for entry in from {
            let kind = entry.str_at(&["kind"]).unwrap_or_default();
            let name = entry.str_at(&["name"]).unwrap_or_default();
            let key = entry
                .str_at(&["valuesKey"])
                .filter(|k| !k.is_empty())
                .unwrap_or("values.yaml");
            let optional = flag(entry, "optional");
            if kind != "ConfigMap" && kind != "Secret" {
                return Err(self.finding(Finding::error(
                    rules::FLUX_INVALID,
                    format!(
                        "HelmRelease {}: unsupported ValuesReference kind '{kind}'",
                        self.id
                    ),
                )));
            }
            let Some(object) = self.walked.objects.get(kind, self.namespace, name) else {
                if !optional {
                    notes.push(self.finding(Finding::notice(
                        rules::FLUX_NOT_RENDERED,
                        format!("HelmRelease {}: valuesFrom {kind} {}/{name} is not among the objects this cluster's Kustomizations apply; its values are left out", self.id, self.namespace),
                    ).incomplete(Incomplete::FluxOutside)));
                }
                continue;
            };
            let Some(text) = super::object_data(object)
                .into_iter()
                .find_map(|(k, v)| (k == key).then_some(v))
            else {
                if optional {
                    continue;
                }
                return Err(self.finding(Finding::error(
                    rules::FLUX_INVALID,
                    format!(
                        "HelmRelease {}: could not find key '{key}' in {kind} '{}/{name}'",
                        self.id, self.namespace
                    ),
                )));
            };
            entries.push(entry.span);
            texts.push((
                text,
                entry.str_at(&["targetPath"]).filter(|p| !p.is_empty()),
                flag(entry, "literal"),
            ));
        }
        let inline = match self.node.get_path(&["spec", "values"]) {
            Some(v) if v.is_map() => match yaml::yaml_to_json(v) {
                Ok(Json::Object(m)) => m,
                Ok(_) => Map::new(),
                Err(e) => {
                    return Err(self.finding(Finding::error(
                        rules::FLUX_INVALID,
                        format!("HelmRelease {}: spec.values: {e}", self.id),
                    )))
                }
            },
            _ => Map::new(),
        };
        let refs: Vec<values::ValuesRef> = texts
            .iter()
            .map(|(text, target_path, literal)| values::ValuesRef {
                text,
                target_path: *target_path,
                literal: *literal,
            })
            .collect();
        values::compose(&refs, &inline)
            .map(|v| (v, notes))
            .map_err(|e| {
                let f =
                    Finding::error(rules::FLUX_INVALID, format!("HelmRelease {}: {e}", self.id));
                match entries.get(e.index()).filter(|s| s.is_known()) {
                    Some(span) => {
                        let file = span
                            .file
                            .name()
                            .map_or_else(|| self.at.to_string(), |name| name.to_string());
                        f.at(file, span.line, span.column)
                    }
                    None => self.finding(f),
                }
            })
    }

    /// The Helm options of the release.
    fn helm_options(&self, values: &Map<String, Json>) -> crate::helm::Options {
        let target = self.text(&["spec", "targetNamespace"]);
        let crds = self.text(&["spec", "install", "crds"]).unwrap_or("Create");
        crate::helm::Options {
            release_name: Some(values::release_name(
                self.name,
                target,
                self.text(&["spec", "releaseName"]),
            )),
            namespace: Some(target.unwrap_or(self.namespace).to_string()),
            kube_version: crate::config::kube_version_for(
                &self.opts.kube_overrides,
                self.at.as_str(),
                None,
            )
            .map(str::to_string)
            .or_else(|| self.opts.kube_version.clone()),
            api_versions: self.opts.api_versions.clone(),
            include_crds: crds != "Skip",
            skip_schema_validation: self
                .node
                .get_path(&["spec", "install", "disableSchemaValidation"])
                .is_some_and(|n| n.as_scalar().is_some_and(|s| s.text == "true")),
            values: vec![(
                "values".to_string(),
                yaml::emit::to_string(&Json::Object(values.clone())),
            )],
            ..Default::default()
        }
    }

    /// Finds the chart and renders it.
    fn chart_and_render(&self, values: &Map<String, Json>) -> Output {
        let helm = self.helm_options(values);
        let chart = match self.chart() {
            Ok(c) => c,
            Err(Missing::Incomplete(reason, why)) => {
                return EngineOutput::new(
                    Vec::new(),
                    vec![self.finding(sources::not_rendered(
                        reason,
                        format!("HelmRelease {}: {why}", self.id),
                    ))],
                    true,
                )
            }
            Err(Missing::Invalid(why)) => {
                return EngineOutput::failed(vec![self.finding(Finding::error(
                    rules::FLUX_INVALID,
                    format!("HelmRelease {}: {why}", self.id),
                ))])
            }
        };
        let spec = crate::helm::Spec::chart(self.at.parent());
        let Chart {
            location,
            values_files,
            ignore_missing,
        } = chart;
        let rendered = match location {
            Location::Repository(request) => {
                let fetched = match self.files.helm_chart(&request) {
                    Ok(f) => f,
                    Err(e) => {
                        let mut finding = sources::not_rendered(
                            e.incomplete(),
                            format!("HelmRelease {}: chart {}: {e}", self.id, request.describe()),
                        );
                        if matches!(e, crate::fetch::Unavailable::NotCached(_)) {
                            finding = finding.with_help(
                                "`kdelta fetch` (or --fetch) fetches the charts HelmReleases name",
                            );
                        }
                        return EngineOutput::new(Vec::new(), vec![self.finding(finding)], true);
                    }
                };
                let mut archive = match crate::helm::chart::Chart::archive_files(&fetched.bytes) {
                    Ok(files) => files,
                    Err(e) => {
                        return EngineOutput::failed(vec![self.finding(Finding::error(
                            rules::FETCH_FAILED,
                            format!("{}: the chart archive cannot be loaded: {e}", fetched.url),
                        ))])
                    }
                };
                if !values_files.is_empty() {
                    let read = |name: &str| {
                        archive
                            .iter()
                            .find(|(n, _)| n == name)
                            .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
                    };
                    match self.merge_values_files(&values_files, ignore_missing, &read) {
                        Ok(text) => {
                            archive.retain(|(n, _)| n != "values.yaml");
                            archive.push(("values.yaml".into(), text.into_bytes()));
                        }
                        Err(f) => return EngineOutput::failed(vec![f]),
                    }
                }
                match crate::helm::target::load_fetched(archive) {
                    Ok(mut c) => {
                        // A chartRef to an OCIRepository: helm-controller marks the version
                        // with the artifact's digest.
                        if let (crate::fetch::OciVersion::Flux(_), Some(revision)) =
                            (&request.oci, &fetched.revision)
                        {
                            match version_with_revision(&c.version(), revision) {
                                Ok(v) => {
                                    c.metadata
                                        .insert("version".into(), crate::template::Value::str(v));
                                }
                                Err(why) => {
                                    return EngineOutput::failed(vec![self.finding(
                                        Finding::error(
                                            rules::FLUX_INVALID,
                                            format!("HelmRelease {}: {why}", self.id),
                                        ),
                                    )])
                                }
                            }
                        }
                        crate::helm::target::render_outside(&spec, c, &self.at, self.files, &helm)
                    }
                    Err(e) => {
                        return EngineOutput::failed(vec![self.finding(Finding::error(
                            rules::FETCH_FAILED,
                            format!("{}: the chart cannot be loaded: {e}", fetched.url),
                        ))])
                    }
                }
            }
            Location::Artifact(Artifact::Local, dir) => {
                self.render_dir(&values_files, ignore_missing, &dir, self.files, &helm)
            }
            Location::Artifact(Artifact::Remote { snapshot, shown }, dir) => {
                let remote = self.files.sibling(&*snapshot);
                let mut out = self.render_dir(&values_files, ignore_missing, &dir, &remote, &helm);
                for f in &mut out.findings {
                    f.message = format!("{shown}: {}", f.message);
                    f.file = Some(self.at.to_string());
                    f.line = (self.line > 0).then_some(self.line);
                    f.column = None;
                }
                for r in &mut out.resources {
                    r.origin.file = self.at.clone();
                }
                out
            }
        };
        let crds = rendered.printed.as_deref().map(crd_ids).unwrap_or_default();
        let mut out: Output = EngineOutput::new(rendered.resources, rendered.findings, rendered.ok);
        out.details.crds = crds;
        out.details.steps.push(format!(
            "release {} in namespace {}",
            helm.release_name.unwrap_or_default(),
            helm.namespace.unwrap_or_default()
        ));
        out
    }

    /// A chart directory of an artifact, with `valuesFiles` (paths in the artifact) in place
    /// of its `values.yaml`.
    fn render_dir(
        &self,
        values_files: &[String],
        ignore_missing: bool,
        dir: &RepoPath,
        files: &Files,
        helm: &crate::helm::Options,
    ) -> EngineOutput<crate::helm::Details> {
        let spec = crate::helm::Spec::chart(dir.clone());
        if files.kind(&dir.child("Chart.yaml")) != EntryKind::File {
            return EngineOutput::failed(vec![self.finding(Finding::error(
                rules::FLUX_INVALID,
                format!(
                    "HelmRelease {}: no chart at {} (no Chart.yaml)",
                    self.id,
                    sources::shown_path(dir)
                ),
            ))]);
        }
        if values_files.is_empty() {
            return crate::helm::target::render(&spec, files, helm);
        }
        let read = |name: &str| {
            let path = sources::clean_path(name)?;
            files
                .read(&path)
                .ok()
                .map(|b| String::from_utf8_lossy(&b).into_owned())
        };
        match self.merge_values_files(values_files, ignore_missing, &read) {
            Ok(text) => {
                files.with_replaced(&dir.child("values.yaml"), text.into_bytes().into(), || {
                    crate::helm::target::render(&spec, files, helm)
                })
            }
            Err(f) => EngineOutput::failed(vec![f]),
        }
    }

    /// `valuesFiles` merged left to right (`transform.MergeMaps`) into the text that takes
    /// `values.yaml`'s place.
    fn merge_values_files(
        &self,
        names: &[String],
        ignore_missing: bool,
        read: &dyn Fn(&str) -> Option<String>,
    ) -> Result<String, Finding> {
        let mut merged = Map::new();
        for name in names {
            let Some(text) = read(name) else {
                if ignore_missing {
                    continue;
                }
                return Err(self.finding(Finding::error(
                    rules::FLUX_INVALID,
                    format!("HelmRelease {}: values file {name} not found", self.id),
                )));
            };
            let node = yaml::parse_one(text.as_bytes(), &Default::default()).map_err(|e| {
                self.finding(Finding::error(
                    rules::FLUX_INVALID,
                    format!("HelmRelease {}: values file {name}: {e}", self.id),
                ))
            })?;
            if let Ok(Json::Object(m)) = yaml::yaml_to_json(&node) {
                values::merge_maps(&mut merged, &m);
            }
        }
        Ok(yaml::emit::to_string(&Json::Object(merged)))
    }

    /// The chart the HelmRelease names: `chart.spec`, or `chartRef` (an OCIRepository, or a
    /// HelmChart whose spec says the same as `chart.spec`).
    fn chart(&self) -> Result<Chart, Missing> {
        if let Some(chart_ref) = self.node.get_path(&["spec", "chartRef"]) {
            let r = Ref::at(chart_ref, "", self.namespace)
                .ok_or_else(|| Missing::Invalid("chartRef names nothing".into()))?;
            let Some(object) = self.walked.objects.get(&r.kind, &r.namespace, &r.name) else {
                return Err(Missing::Incomplete(Incomplete::FluxOutside, format!(
                    "{r} is not among the objects this cluster's Kustomizations apply; its chart is not rendered"
                )));
            };
            return match r.kind.as_str() {
                "OCIRepository" => Ok(Chart {
                    location: Location::Repository(sources::oci_chart_request(object)?),
                    values_files: Vec::new(),
                    ignore_missing: false,
                }),
                "HelmChart" => {
                    let spec = object
                        .get("spec")
                        .ok_or_else(|| Missing::Invalid(format!("{r} has no spec")))?;
                    self.chart_spec(spec, &r.namespace)
                }
                other => Err(Missing::Incomplete(
                    Incomplete::FluxOutside,
                    format!("a chartRef of kind {other} is not rendered by kdelta"),
                )),
            };
        }
        match self.node.get_path(&["spec", "chart", "spec"]) {
            Some(spec) => self.chart_spec(spec, self.namespace),
            None => Err(Missing::Invalid(
                "neither spec.chart nor spec.chartRef is set".into(),
            )),
        }
    }

    /// A chart template's spec (`chart.spec`, or a HelmChart's): `chart`, `version`,
    /// `sourceRef`, `valuesFiles`.
    fn chart_spec(&self, spec: &Node, namespace: &str) -> Result<Chart, Missing> {
        let name = spec.str_at(&["chart"]).unwrap_or_default();
        let source = spec
            .get("sourceRef")
            .and_then(|r| Ref::at(r, "HelmRepository", namespace))
            .ok_or_else(|| Missing::Invalid("chart.spec.sourceRef names nothing".into()))?;
        let mut values_files: Vec<String> = spec
            .get("valuesFiles")
            .and_then(Node::as_seq)
            .map(|l| {
                l.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        // v2beta1's deprecated `valuesFile` comes first, as source-controller lists it.
        if let Some(file) = spec.str_at(&["valuesFile"]).filter(|f| !f.is_empty()) {
            values_files.insert(0, file.to_string());
        }
        // A list of `values.yaml` alone changes nothing.
        if values_files.len() == 1 && values_files[0] == "values.yaml" {
            values_files.clear();
        }
        let ignore_missing = flag(spec, "ignoreMissingValuesFiles");
        let location = match source.kind.as_str() {
            "HelmRepository" => {
                let Some(repo) =
                    self.walked
                        .objects
                        .get(&source.kind, &source.namespace, &source.name)
                else {
                    return Err(Missing::Incomplete(Incomplete::FluxOutside, format!(
                        "{source} is not among the objects this cluster's Kustomizations apply; its chart is not rendered"
                    )));
                };
                let url = repo
                    .str_at(&["spec", "url"])
                    .unwrap_or_default()
                    .trim_end_matches('/');
                Location::Repository(ChartRequest {
                    repo: url.to_string(),
                    name: name.to_string(),
                    version: match spec.str_at(&["version"]).unwrap_or("*") {
                        "" | "*" => String::new(),
                        v => v.to_string(),
                    },
                    oci: crate::fetch::OciVersion::FluxChart,
                })
            }
            _ => {
                let objects = &self.walked.objects;
                let (source, name) =
                    sources::included(&source, objects, name).unwrap_or((source, name.to_string()));
                let artifact = sources::artifact(&source, objects, self.files, self.opts)?;
                let dir = sources::clean_path(&name).ok_or_else(|| {
                    Missing::Invalid(format!("chart path {name:?} cannot be read"))
                })?;
                Location::Artifact(artifact, dir)
            }
        };
        Ok(Chart {
            location,
            values_files,
            ignore_missing,
        })
    }

    /// The post-renderers, in helm-controller's order. The CRDs of the charts' `crds/`
    /// directories are applied by helm-controller itself before the release
    /// (`internal/action/crds.go`): they get the origin labels only, and come first.
    fn post_render(&self, out: &mut Output) {
        let crd_ids = std::mem::take(&mut out.details.crds);
        let (mut crds, rest): (Vec<Resource>, Vec<Resource>) = std::mem::take(&mut out.resources)
            .into_iter()
            .partition(|r| r.kind() == "CustomResourceDefinition" && crd_ids.contains(r.name()));
        out.resources = rest;
        self.post_render_release(out);
        for r in &mut crds {
            self.origin_labels(r);
        }
        if out.ok {
            crds.append(&mut out.resources);
            out.resources = crds;
        }
    }

    fn origin_labels(&self, r: &mut Resource) {
        let labels = r.node.map_at("metadata").map_at("labels");
        labels.set("helm.toolkit.fluxcd.io/name", Node::string(self.name));
        labels.set(
            "helm.toolkit.fluxcd.io/namespace",
            Node::string(self.namespace),
        );
    }

    fn post_render_release(&self, out: &mut Output) {
        let empty = Vec::new();
        let renderers = self
            .node
            .get_path(&["spec", "postRenderers"])
            .and_then(Node::as_seq)
            .unwrap_or(&empty);
        for (i, renderer) in renderers.iter().enumerate() {
            let Some(k) = renderer.get("kustomize").filter(|k| k.is_map()) else {
                continue;
            };
            match self.kustomize_post_render(k, &out.resources) {
                Ok(resources) => {
                    out.resources = resources;
                    out.details
                        .steps
                        .push(format!("post-renderer {} (kustomize)", i + 1));
                }
                Err(mut findings) => {
                    out.findings.append(&mut findings);
                    out.ok = false;
                    out.resources.clear();
                    return;
                }
            }
        }
        let common = self.node.get_path(&["spec", "commonMetadata"]);
        for r in &mut out.resources {
            super::set_common_metadata(&mut r.node, common);
            self.origin_labels(r);
        }
    }

    /// One `kustomize` post-renderer: a kustomization of the release's objects with its
    /// `patches` and `images`, built in memory.
    fn kustomize_post_render(
        &self,
        k: &Node,
        resources: &[Resource],
    ) -> Result<Vec<Resource>, Vec<Finding>> {
        let mut kustomization = Node::map();
        kustomization.set(
            "apiVersion",
            Node::string("kustomize.config.k8s.io/v1beta1"),
        );
        kustomization.set("kind", Node::string("Kustomization"));
        let mut list = Node::seq();
        if let Some(items) = list.as_seq_mut() {
            items.push(Node::string("helm-output.yaml"));
        }
        kustomization.set("resources", list);
        // `patchesStrategicMerge` and `patchesJson6902` are v2beta1's.
        for key in [
            "patches",
            "patchesStrategicMerge",
            "patchesJson6902",
            "images",
        ] {
            if let Some(v) = k.get(key).filter(|v| v.is_seq()) {
                kustomization.set(key, v.clone());
            }
        }
        let stream: Vec<String> = resources
            .iter()
            .map(|r| yaml::emit::node_to_string(&r.node))
            .collect();
        let mut memory = MemorySnapshot::new();
        memory.add_file(
            &RepoPath::new("kustomization.yaml").expect("a path"),
            yaml::emit::node_to_string(&kustomization).as_bytes(),
        );
        memory.add_file(
            &RepoPath::new("helm-output.yaml").expect("a path"),
            stream.join("---\n").as_bytes(),
        );
        let files = self.files.sibling(&memory);
        let built = crate::kustomize::build(&files, &RepoPath::root(), &Default::default());
        if !built.ok {
            return Err(built
                .findings
                .into_iter()
                .map(|mut f| {
                    f.message = format!("HelmRelease {} post-renderer: {}", self.id, f.message);
                    f.file = Some(self.at.to_string());
                    f.line = (self.line > 0).then_some(self.line);
                    f.column = None;
                    f
                })
                .collect());
        }
        Ok(built
            .resources
            .into_iter()
            .map(|mut r| {
                r.origin.file = self.at.clone();
                r
            })
            .collect())
    }
}

/// Where a chart is, and what replaces its `values.yaml`.
struct Chart {
    location: Location,
    values_files: Vec<String>,
    ignore_missing: bool,
}

enum Location {
    /// In a Helm repository (HTTP or OCI), fetched by the fetch store.
    Repository(ChartRequest),
    /// A directory of an artifact.
    Artifact(Artifact, RepoPath),
}

/// helm-controller's `mutateChartWithSourceRevision` for a chart from an OCIRepository whose
/// artifact `revision` is `TAG@sha256:HEX` or `sha256:HEX`: the chart's version gets the
/// first 12 hex digits as build metadata (so that a tag pushed again shows as a change), and a
/// tag that is a version must be the chart's.
fn version_with_revision(version: &str, revision: &str) -> Result<String, String> {
    use crate::semver::Version;
    let chart = Version::parse(version).map_err(|_| format!("invalid chart version {version}"))?;
    let invalid = || format!("invalid artifact revision {revision}");
    let digest = match revision.split_once('@') {
        Some((tag, digest)) => {
            // An OCI tag writes a version's `+` as `_`.
            if let Ok(tagged) = Version::parse(&tag.replace('_', "+")) {
                if tagged.compare(&chart) != std::cmp::Ordering::Equal || digest.contains('@') {
                    return Err(format!(
                        "artifact revision {tag} does not match chart version {version}"
                    ));
                }
                digest
            } else {
                revision
            }
        }
        None => revision,
    };
    let hex = match digest.split(':').collect::<Vec<_>>().as_slice() {
        [_, hex] => hex.get(..12).ok_or_else(invalid)?,
        _ => return Err(invalid()),
    };
    Ok(chart.text_with_metadata(hex))
}

/// The names of the CustomResourceDefinitions `helm template` printed from a `crds/`
/// directory (their `# Source:` is `CHART/crds/…` or a subchart's `…/charts/SUB/crds/…`).
fn crd_ids(printed: &str) -> std::collections::BTreeSet<String> {
    crate::helm::output::split_manifests(printed)
        .iter()
        .filter_map(|doc| {
            let rest = doc.strip_prefix("# Source: ")?;
            let (source, body) = rest.split_once('\n')?;
            if !source.split('/').any(|part| part == "crds") {
                return None;
            }
            let node = yaml::parse_one(body.as_bytes(), &Default::default()).ok()?;
            Some(node.str_at(&["metadata", "name"])?.to_string())
        })
        .collect()
}

fn flag(node: &Node, key: &str) -> bool {
    node.get(key)
        .and_then(Node::as_scalar)
        .is_some_and(|s| s.text == "true")
}

#[cfg(test)]
mod tests {
    use super::version_with_revision;

    #[test]
    fn an_oci_chart_s_version_carries_its_digest_as_helm_controller_writes_it() {
        let hex = "0123456789abcdef".repeat(4);
        let digest = format!("sha256:{hex}");
        let marked = Ok("1.2.0-rc.1+0123456789ab".to_string());
        assert_eq!(version_with_revision("v1.2.0-rc.1", &digest), marked);
        let tagged = |tag: &str| version_with_revision("1.2.0-rc.1", &format!("{tag}@{digest}"));
        assert_eq!(tagged("1.2.0-rc.1"), marked);
        assert_eq!(tagged("latest"), marked);
        // Build metadata never counts, and a tag writes `+` as `_`.
        assert_eq!(tagged("1.2.0-rc.1_build.7"), marked);
        assert_eq!(
            tagged("1.2.0"),
            Err("artifact revision 1.2.0 does not match chart version 1.2.0-rc.1".into())
        );
        assert_eq!(
            version_with_revision("one", &digest),
            Err("invalid chart version one".into())
        );
        assert_eq!(
            version_with_revision("1.0.0", "sha256:0123"),
            Err("invalid artifact revision sha256:0123".into())
        );
    }
}
