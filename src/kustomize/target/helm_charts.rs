//! `helmCharts:` inflated through kdelta's Helm engine, as kustomize v5.5.0's
//! HelmChartInflationGenerator runs `helm template` (`--enable-helm` is always on): the chart
//! from `chartHome` (`charts/`, or `charts/NAME-VERSION/` when both `version` and `repo` are
//! set), the values file (default the chart's `values.yaml`, given to helm again as `-f`)
//! merged with `valuesInline` by `valuesMerge`, then `additionalValuesFiles`, and the output
//! read back as resources. A chart that would need `helm pull` is a notice: kdelta never
//! downloads one.

use super::accumulate::resources_from_bytes;
use super::{Acc, Builder, Kt};
use crate::fetch::{ChartRequest, Unavailable};
use crate::finding::{rules, Finding, Incomplete};
use crate::kustomize::error::KError;
use crate::kustomize::resmap::ResMap;
use crate::kustomize::types::HelmChart;
use crate::source::{EntryKind, RepoPath};
use crate::yaml::{self, Dialect, Span};

impl Builder {
    /// Inflates every `helmCharts:` entry into the accumulated resources.
    pub(super) fn inflate_helm_charts(&mut self, kt: &Kt, acc: &mut Acc) -> Result<(), KError> {
        let chart_home =
            kt.k.helm_globals
                .as_ref()
                .map(|g| g.chart_home.as_str())
                .filter(|h| !h.is_empty())
                .unwrap_or("charts");
        for (i, chart) in kt.k.helm_charts.iter().enumerate() {
            let at = |e: KError| kt.err_at(e, "helmCharts", Some(i));
            validate(chart).map_err(at)?;
            let span = kt.span("helmCharts", Some(i));
            let Some(rm) = self.inflate(kt, chart, chart_home, span).map_err(at)? else {
                continue;
            };
            acc.rm.absorb_all(rm).map_err(|e| {
                at(e.context(format!(
                    "merging from generator HelmChartInflationGenerator {}",
                    chart.name
                )))
            })?;
        }
        Ok(())
    }

    /// A `HelmChartInflationGenerator` plugin config (`generators: [chart.yaml]`): the
    /// `helmCharts` fields and `chartHome` at its top level, read leniently as kustomize
    /// unmarshals a plugin config.
    pub(crate) fn inflate_from_config(
        &mut self,
        kt: &Kt,
        cfg: &crate::kustomize::res::Res,
    ) -> Result<ResMap, KError> {
        let at = |e: KError| e.at(&cfg.origin.file, cfg.origin.span);
        let mut fields = match yaml::to_value(&cfg.node, Dialect::Yaml12) {
            Ok(serde_json::Value::Object(m)) => m,
            _ => serde_json::Map::new(),
        };
        let chart_home = fields
            .get("chartHome")
            .and_then(|v| v.as_str())
            .filter(|h| !h.is_empty())
            .unwrap_or("charts")
            .to_string();
        fields.retain(|k, _| HELM_CHART_FIELDS.contains(&k.as_str()));
        let chart: HelmChart =
            serde_json::from_value(serde_json::Value::Object(fields)).map_err(|e| {
                at(KError::new(
                    rules::KUSTOMIZE_PLUGIN_CONFIG,
                    format!("HelmChartInflationGenerator: {e}"),
                ))
            })?;
        validate(&chart).map_err(at)?;
        Ok(self
            .inflate(kt, &chart, &chart_home, cfg.origin.span)
            .map_err(at)?
            .unwrap_or_default())
    }

    /// One chart's resources; `None` when the chart is not in the repository (a notice says so).
    fn inflate(
        &mut self,
        kt: &Kt,
        chart: &HelmChart,
        chart_home: &str,
        span: Span,
    ) -> Result<Option<ResMap>, KError> {
        if chart_home.starts_with('/') {
            return Err(KError::new(
                rules::KUSTOMIZE_HELM_INVALID,
                format!("chartHome '{chart_home}' is absolute; kdelta reads charts from the repository only, so give a path relative to the kustomization"),
            ));
        }
        // kustomize's absChartHome.
        let home = if !chart.version.is_empty() && !chart.repo.is_empty() {
            format!("{chart_home}/{}-{}", chart.name, chart.version)
        } else {
            chart_home.to_string()
        };
        let chart_rel = format!("{home}/{}", chart.name);
        let dir = kt.ldr.resolve(&chart_rel)?;
        let files = kt.ldr.files;
        let mut fetched = None;
        if files.kind(&dir) != EntryKind::Dir && crate::fetch::is_chart_repository(&chart.repo) {
            // What `helm pull --repo REPO NAME --version V` would download, from the cache.
            let request = ChartRequest {
                repo: chart.repo.clone(),
                name: chart.name.clone(),
                version: chart.version.clone(),
                oci: crate::fetch::OciVersion::Helm,
            };
            match files.helm_chart(&request) {
                Ok(c) => {
                    self.findings.extend(c.warnings.iter().map(|(rule, w)| {
                        Finding::warning(*rule, w.clone()).at(
                            kt.file.to_string(),
                            span.line,
                            span.column,
                        )
                    }));
                    fetched = Some(c);
                }
                Err(Unavailable::Failed(e)) => {
                    self.findings.push(
                        Finding::error(
                            rules::FETCH_FAILED,
                            format!("helm chart '{}': {e}", chart.name),
                        )
                        .at(kt.file.to_string(), span.line, span.column)
                        .incomplete(Incomplete::FetchFailed),
                    );
                    return Ok(None);
                }
                Err(Unavailable::NotCached(_)) => {}
            }
        }
        if files.kind(&dir) != EntryKind::Dir && fetched.is_none() {
            if chart.repo.is_empty() {
                // kustomize names no path here: its lookup returns an empty one.
                return Err(KError::new(
                    rules::KUSTOMIZE_HELM_INVALID,
                    "no repo specified for pull, no chart found at ''",
                ));
            }
            let version = if chart.version.is_empty() {
                String::new()
            } else {
                format!(" {}", chart.version)
            };
            self.findings.push(
                Finding::notice(
                    rules::KUSTOMIZE_HELM_NOT_FETCHED,
                    format!(
                        "helm chart '{}'{version} from {} is neither in {chart_rel} nor in kdelta's cache, so its resources are missing from the output",
                        chart.name, crate::fetch::url::redact_text(&chart.repo)
                    ),
                )
                .with_help(format!("run `kdelta fetch` (or add --fetch) to download it, or vendor it: helm pull --untar --untardir {home} {} --repo {}", chart.name, crate::fetch::url::redact_text(&chart.repo)))
                .at(kt.file.to_string(), span.line, span.column)
                .incomplete(Incomplete::NotFetched),
            );
            return Ok(None);
        }
        // A fetched chart's own values.yaml is what kustomize reads from the pulled copy.
        let archived_values = match &fetched {
            Some(c) => crate::helm::chart::Chart::archive_files(&c.bytes)
                .ok()
                .and_then(|files| files.into_iter().find(|(n, _)| n == "values.yaml"))
                .map(|(_, bytes)| String::from_utf8_lossy(&bytes).into_owned())
                .or(Some(String::new())),
            None => None,
        };
        let values = values_text(kt, chart, &chart_rel, archived_values)?;
        let mut options = crate::helm::Options {
            release_name: Some(release_name(chart)?),
            namespace: (!chart.namespace.is_empty()).then(|| chart.namespace.clone()),
            // The build's --helm-kube-version and --helm-api-versions win over the entry's.
            kube_version: self
                .helm_kube_version
                .clone()
                .or_else(|| (!chart.kube_version.is_empty()).then(|| chart.kube_version.clone())),
            api_versions: if self.helm_api_versions.is_empty() {
                chart.api_versions.clone()
            } else {
                self.helm_api_versions.clone()
            },
            include_crds: chart.include_crds,
            skip_tests: chart.skip_tests,
            no_hooks: chart.skip_hooks,
            ..Default::default()
        };
        if let Some(v) = values {
            options
                .values
                .push((format!("{}-kustomize-values.yaml", chart.name), v));
        }
        for f in &chart.additional_values_files {
            let file = kt
                .ldr
                .load(f)
                .map_err(|e| e.context("could not load additionalValuesFile"))?;
            let Some(path) = file.path else {
                return Err(additional_values_at_url(kt, f));
            };
            options.values.push((
                path.to_string(),
                String::from_utf8_lossy(&file.bytes).into_owned(),
            ));
        }
        let templated = match &fetched {
            Some(c) => crate::helm::target::template_fetched(files, c, &kt.file, &options),
            None => crate::helm::target::template(files, &dir, &options),
        };
        let (output, notices) = templated.map_err(|f| {
            let file = f.file.as_deref().and_then(|p| RepoPath::new(p).ok());
            KError {
                rule: f.rule,
                message: f.reference_text().to_string(),
                cause: f.message,
                located: f.context.len(),
                chain: f.context,
                file,
                span: Span::new(f.line.unwrap_or(0), f.column.unwrap_or(0)),
                help: f.help,
            }
        })?;
        self.findings.extend(notices);
        resources_from_bytes(kt, &dir, &chart_rel, output.as_bytes()).map(Some)
    }
}

/// The fields of a `helmCharts` entry (types.HelmChart's JSON names).
const HELM_CHART_FIELDS: &[&str] = &[
    "name",
    "version",
    "repo",
    "releaseName",
    "namespace",
    "additionalValuesFiles",
    "valuesFile",
    "valuesInline",
    "valuesMerge",
    "includeCRDs",
    "skipHooks",
    "apiVersions",
    "kubeVersion",
    "nameTemplate",
    "skipTests",
    "debug",
];

/// kustomize's checks of an entry, in its words (kustomize puts them after "trouble
/// configuring builtin HelmChartInflationGenerator with config:" and the entry).
fn validate(chart: &HelmChart) -> Result<(), KError> {
    if chart.name.is_empty() {
        return Err(KError::new(
            rules::KUSTOMIZE_HELM_INVALID,
            "chart name cannot be empty",
        ));
    }
    if !["", "merge", "override", "replace"].contains(&chart.values_merge.as_str()) {
        return Err(KError::new(
            rules::KUSTOMIZE_HELM_INVALID,
            format!(
                "valuesMerge must be one of [merge override replace] (it is '{}')",
                chart.values_merge
            ),
        ));
    }
    Ok(())
}

/// `helm template`'s release name as kustomize asks for it: `releaseName`, else
/// `--name-template` rendered, else `--generate-name` (the chart's name and the time, as Helm
/// makes one — different on every run).
fn release_name(chart: &HelmChart) -> Result<String, KError> {
    if !chart.release_name.is_empty() {
        if !chart.name_template.is_empty() {
            return Err(KError::new(
                rules::KUSTOMIZE_HELM_INVALID,
                "cannot set --name-template and also specify a name",
            ));
        }
        return Ok(chart.release_name.clone());
    }
    if !chart.name_template.is_empty() {
        let mut set = crate::template::TemplateSet::new(
            crate::template::Funcs::helm(),
            crate::template::Options::default(),
        );
        return set
            .parse("name-template", &chart.name_template)
            .and_then(|()| set.execute("name-template", &crate::template::Value::Nil))
            .map_err(|e| KError::new(rules::KUSTOMIZE_HELM_INVALID, e.to_string()));
    }
    let base = chart.name.split('.').next().unwrap_or("chart");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    Ok(format!("{base}-{now}"))
}

/// An `additionalValuesFiles` entry at an http(s) URL: kustomize loads it, then hands helm
/// the URL joined to the kustomization's directory as a path (Go's `filepath.Join` cleans
/// `https://` to `https:/`), which helm cannot open.
fn additional_values_at_url(kt: &Kt, url: &str) -> KError {
    let shown = crate::fetch::url::redact_text(url);
    let mut joined = format!("{}/{shown}", kt.ldr.root());
    while let Some(i) = joined.find("//") {
        joined.replace_range(i..i + 2, "/");
    }
    KError::new(
        rules::KUSTOMIZE_HELM_INVALID,
        format!("additionalValuesFile '{shown}': open {joined}: no such file or directory"),
    )
    .with_help("kustomize passes additionalValuesFiles to helm as paths below the kustomization: vendor the file, or use valuesFile, which may be a URL")
}

/// The values file kustomize writes for helm: the values file as it is, or merged with
/// `valuesInline` (`override`: inline wins; `merge`: the file wins; `replace`: inline alone),
/// printed as sigs.k8s.io/yaml prints a map.
fn values_text(
    kt: &Kt,
    chart: &HelmChart,
    chart_rel: &str,
    archived_values: Option<String>,
) -> Result<Option<String>, KError> {
    let values_file = if chart.values_file.is_empty() {
        format!("{chart_rel}/values.yaml")
    } else {
        chart.values_file.clone()
    };
    let inline = chart
        .values_inline
        .as_ref()
        .filter(|v| v.as_object().is_some_and(|m| !m.is_empty()));
    // The file's path, for errors (`None`: a URL, placed at the entry by the caller).
    let read_file = || -> Result<(Option<RepoPath>, String), KError> {
        if let (true, Some(text)) = (chart.values_file.is_empty(), &archived_values) {
            return Ok((Some(kt.file.clone()), text.clone()));
        }
        let file = kt.ldr.load(&values_file)?;
        Ok((file.path, String::from_utf8_lossy(&file.bytes).into_owned()))
    };
    let Some(inline) = inline else {
        return read_file().map(|(_, text)| Some(text));
    };
    let inline_node = yaml::from_go_json(inline);
    let merged = match chart.values_merge.as_str() {
        "replace" => inline_node,
        mode => {
            let (path, text) = read_file()?;
            let file_node = yaml::parse_one(text.as_bytes(), &Default::default()).map_err(|e| {
                let k = KError::new(
                    rules::KUSTOMIZE_HELM_INVALID,
                    format!("could not parse values file into rnode: {}", e.message),
                );
                match &path {
                    Some(path) => k.at(path, e.span),
                    None => k,
                }
            })?;
            let (mut dest, patch) = if mode == "merge" {
                (inline_node, file_node)
            } else {
                (file_node, inline_node)
            };
            crate::kustomize::smp::merge(
                &mut dest,
                &patch,
                crate::kustomize::openapi::Schema::builtin(),
            )
            .map_err(|e| {
                KError::new(
                    rules::KUSTOMIZE_HELM_INVALID,
                    format!("could not merge values: {e}"),
                )
            })?;
            dest
        }
    };
    let value = yaml::to_value(&merged, Dialect::Yaml12).map_err(|e| {
        KError::new(
            rules::KUSTOMIZE_HELM_INVALID,
            format!("could not parse merged values into map: {e}"),
        )
    })?;
    Ok(Some(yaml::emit::to_string(&value)))
}
