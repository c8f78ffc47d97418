//! `generators:` and `transformers:` entries: plugin configs (inline YAML, files, or
//! kustomization directories producing configs). Builtin kinds (`apiVersion: builtin`) run
//! natively; exec plugins run only with `--enable-exec-plugins`; KRM functions never run.

use super::error::KError;
use super::exec;
use super::fieldspec::FieldSpec;
use super::generate::{self, GenKind};
use super::origin::{self, Origin};
use super::res::Res;
use super::resmap::ResMap;
use super::target::{Acc, Builder, Kt};
use super::transform::{self, patch};
use super::types::{self, GeneratorArgs, Image, ReplacementField, Replica, Selector};
use crate::finding::rules;
use crate::finding::{Finding, Severity};
use crate::yaml::{de::from_node_go_json, Dialect};
use serde::Deserialize;
use std::collections::BTreeMap;

/// Generator or transformer.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Generator,
    Transformer,
}

impl Role {
    fn field(self) -> &'static str {
        match self {
            Role::Generator => "generators",
            Role::Transformer => "transformers",
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Meta {
    #[serde(default)]
    name: String,
    #[serde(default)]
    namespace: String,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct GeneratorConfig {
    #[serde(default)]
    metadata: Meta,
    #[serde(flatten)]
    args: GeneratorArgsLenient,
}

/// GeneratorArgs without `deny_unknown_fields` (plugin configs are read leniently).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct GeneratorArgsLenient {
    #[serde(default)]
    name: String,
    #[serde(default)]
    namespace: String,
    #[serde(default)]
    behavior: String,
    #[serde(default)]
    literals: Vec<String>,
    #[serde(default)]
    files: Vec<String>,
    #[serde(default)]
    envs: Vec<String>,
    #[serde(default)]
    env: String,
    #[serde(default)]
    options: Option<types::GeneratorOptions>,
    #[serde(default, rename = "type")]
    secret_type: String,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct PairsConfig {
    #[serde(default)]
    labels: BTreeMap<String, String>,
    #[serde(default)]
    annotations: BTreeMap<String, String>,
    #[serde(default)]
    field_specs: Vec<RawFieldSpec>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct AffixConfig {
    #[serde(default)]
    prefix: String,
    #[serde(default)]
    suffix: String,
    #[serde(default)]
    field_specs: Vec<RawFieldSpec>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct NamespaceConfig {
    #[serde(default)]
    metadata: Meta,
    #[serde(default)]
    field_specs: Vec<RawFieldSpec>,
    #[serde(default)]
    unset_only: bool,
    #[serde(default)]
    set_role_binding_subjects: String,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ImageConfig {
    #[serde(default)]
    image_tag: Image,
    #[serde(default)]
    field_specs: Vec<RawFieldSpec>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ReplicaConfig {
    #[serde(default)]
    replica: Replica,
    #[serde(default)]
    field_specs: Vec<RawFieldSpec>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct PatchConfig {
    #[serde(default)]
    path: String,
    #[serde(default)]
    patch: String,
    #[serde(default)]
    target: Option<Selector>,
    #[serde(default)]
    options: BTreeMap<String, bool>,
    #[serde(default)]
    json_op: String,
    #[serde(default)]
    paths: Vec<String>,
    #[serde(default)]
    patches: String,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ValueAddConfig {
    #[serde(default)]
    value: String,
    #[serde(default)]
    targets: Vec<ValueAddTarget>,
    #[serde(default)]
    target_file_path: String,
}

#[derive(Deserialize, Default)]
struct ValueAddTargets {
    #[serde(default)]
    targets: Vec<ValueAddTarget>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ValueAddTarget {
    #[serde(default)]
    selector: Option<Selector>,
    #[serde(default)]
    field_path: String,
    #[serde(default)]
    file_path_position: i64,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ReplacementConfig {
    #[serde(default)]
    replacements: Vec<ReplacementField>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct IamConfig {
    #[serde(default)]
    cloud: String,
    #[serde(default)]
    kubernetes_service: Meta,
    #[serde(default)]
    service_account: IamAccount,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct IamAccount {
    #[serde(default)]
    name: String,
    #[serde(default)]
    project_id: String,
}

/// A field spec in a plugin config (read leniently, as kustomize's yaml.Unmarshal does).
#[derive(Deserialize, Default, Clone)]
#[serde(rename_all = "camelCase")]
struct RawFieldSpec {
    #[serde(default)]
    group: String,
    #[serde(default)]
    version: String,
    #[serde(default)]
    kind: String,
    #[serde(default)]
    path: String,
    #[serde(default)]
    create: bool,
}

fn specs(raw: Vec<RawFieldSpec>) -> Vec<FieldSpec> {
    raw.into_iter()
        .map(|r| FieldSpec {
            gvk: super::kid::Gvk {
                group: r.group,
                version: r.version,
                kind: r.kind,
                cluster_scoped: false,
            },
            path: r.path,
            create: r.create,
        })
        .collect()
}

fn config<T: for<'de> Deserialize<'de>>(r: &Res) -> Result<T, KError> {
    from_node_go_json(&r.node, Dialect::Yaml11).map_err(|e| {
        KError::new(
            rules::KUSTOMIZE_PLUGIN_CONFIG,
            format!(
                "trouble configuring builtin {} with config: {}",
                r.kind(),
                e.message
            ),
        )
        .at(&r.origin.file, e.span)
    })
}

impl Builder {
    /// Loads the plugin configs of `generators:` or `transformers:`.
    fn plugin_configs(&mut self, kt: &Kt, role: Role) -> Result<Vec<Res>, KError> {
        let entries = match role {
            Role::Generator => &kt.k.generators,
            Role::Transformer => &kt.k.transformers,
        };
        let mut inline = ResMap::new();
        let mut paths: Vec<(usize, &str)> = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            let parsed = patch::parse_smp(entry, &kt.ldr.schema);
            if let Some(e) = parsed.as_ref().err().and_then(|_| patch::yaml_limit(entry)) {
                return Err(kt.err_at(e, role.field(), Some(i)));
            }
            match parsed {
                Ok(rs) if !rs.is_empty() => {
                    for mut r in rs {
                        r.origin = crate::resource::Origin {
                            file: kt.file.clone(),
                            span: kt.span(role.field(), Some(i)),
                        };
                        if let Some(prefix) = &kt.origin {
                            let o = Origin {
                                path: origin::join(prefix, kt.file.file_name()),
                                ..Origin::default()
                            };
                            r.set_annotation(super::res::anno::ORIGIN, &o.to_yaml());
                        }
                        inline.append(r).map_err(|e| {
                            kt.err_at(
                                e.context("configuring external plugin"),
                                role.field(),
                                Some(i),
                            )
                        })?;
                    }
                }
                _ => paths.push((i, entry)),
            }
        }
        let mut acc = Acc::new();
        acc.rm = inline;
        let acc = self.accumulate_paths(kt, acc, role.field(), &paths)?;
        Ok(acc.rm.list)
    }

    /// Runs `generators:`.
    pub fn run_generator_plugins(&mut self, kt: &Kt, acc: &mut Acc) -> Result<(), KError> {
        if kt.k.generators.is_empty() {
            return Ok(());
        }
        for cfg in self.plugin_configs(kt, Role::Generator)? {
            let mut produced = match builtin_kind(&cfg) {
                Some(kind) => self.builtin_generator(kt, &cfg, kind)?,
                None => match self.external(kt, &cfg, Role::Generator, None)? {
                    Some(rm) => rm,
                    None => continue,
                },
            };
            if let Some(o) = plugin_origin(&cfg) {
                origin::add_origin(&mut produced, &o);
            }
            acc.rm.absorb_all(produced).map_err(|e| {
                e.context(format!("merging from generator {}", cfg.cur_id()))
                    .at(&cfg.origin.file, cfg.origin.span)
            })?;
        }
        Ok(())
    }

    /// Runs `transformers:`.
    pub fn run_transformer_plugins(&mut self, kt: &Kt, acc: &mut Acc) -> Result<(), KError> {
        if kt.k.transformers.is_empty() {
            return Ok(());
        }
        for cfg in self.plugin_configs(kt, Role::Transformer)? {
            match builtin_kind(&cfg) {
                Some(kind) => self.builtin_transformer(kt, acc, &cfg, kind)?,
                None => {
                    let input = std::mem::take(&mut acc.rm);
                    match self.external(kt, &cfg, Role::Transformer, Some(&input))? {
                        Some(rm) => acc.rm = rm,
                        None => acc.rm = input,
                    }
                }
            }
            if let Some(o) = plugin_origin(&cfg) {
                origin::add_transformation(&mut acc.rm, &o);
            }
        }
        Ok(())
    }

    fn builtin_generator(&mut self, kt: &Kt, cfg: &Res, kind: &str) -> Result<ResMap, KError> {
        let at = |e: KError| e.at(&cfg.origin.file, cfg.origin.span);
        let mut rm = ResMap::new();
        match kind {
            "ConfigMapGenerator" | "SecretGenerator" => {
                let c: GeneratorConfig = config(cfg)?;
                let a = c.args;
                let args = GeneratorArgs {
                    name: if a.name.is_empty() {
                        c.metadata.name
                    } else {
                        a.name
                    },
                    namespace: if a.namespace.is_empty() {
                        c.metadata.namespace
                    } else {
                        a.namespace
                    },
                    behavior: a.behavior,
                    literal_sources: a.literals,
                    file_sources: a.files,
                    env_sources: a.envs,
                    env_source: a.env,
                    options: a.options,
                    secret_type: a.secret_type,
                    merge_values: Vec::new(),
                };
                let gk = if kind == "SecretGenerator" {
                    GenKind::Secret
                } else {
                    GenKind::ConfigMap
                };
                let origin = cfg.origin.clone();
                let mut warnings = Vec::new();
                let res = generate::generate(
                    &kt.ldr,
                    gk,
                    &args,
                    args.options.as_ref(),
                    origin.clone(),
                    &mut warnings,
                )
                .map_err(at)?;
                self.generator_warnings(&origin.file, origin.span, warnings);
                rm.append(res).map_err(at)?;
            }
            "IAMPolicyGenerator" => {
                let c: IamConfig = config(cfg)?;
                if c.cloud != "gke" {
                    return Err(at(KError::new(
                        rules::KUSTOMIZE_PLUGIN_CONFIG,
                        format!("cloud provider {} not supported yet", c.cloud),
                    )));
                }
                let mut text = format!(
                    "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  annotations:\n    iam.gke.io/gcp-service-account: {}@{}.iam.gserviceaccount.com\n  name: {}\n",
                    c.service_account.name, c.service_account.project_id, c.kubernetes_service.name
                );
                if !c.kubernetes_service.namespace.is_empty() {
                    text.push_str(&format!(
                        "  namespace: {}\n",
                        c.kubernetes_service.namespace
                    ));
                }
                let node = crate::yaml::parse_one(text.as_bytes(), &Default::default())
                    .map_err(|e| at(KError::new(rules::KUSTOMIZE_PLUGIN_CONFIG, e.message)))?;
                rm.append(Res::new(node, cfg.origin.clone(), cfg.schema.clone()))
                    .map_err(at)?;
            }
            "HelmChartInflationGenerator" => {
                self.findings.push(
                    Finding::notice(rules::KUSTOMIZE_HELM_NOT_RENDERED_YET, "HelmChartInflationGenerator charts are not inflated by this kdelta version yet")
                        .at(cfg.origin.file.to_string(), cfg.origin.span.line, cfg.origin.span.column)
                        .incomplete(),
                );
            }
            _ => {
                return Err(at(KError::new(
                    rules::KUSTOMIZE_PLUGIN_UNKNOWN,
                    format!(
                        "unable to load builtin {}: it is not a builtin generator",
                        cfg.gvk()
                    ),
                )))
            }
        }
        Ok(rm)
    }

    fn builtin_transformer(
        &mut self,
        kt: &Kt,
        acc: &mut Acc,
        cfg: &Res,
        kind: &str,
    ) -> Result<(), KError> {
        let at = |e: String| {
            KError::new(rules::KUSTOMIZE_TRANSFORM, e).at(&cfg.origin.file, cfg.origin.span)
        };
        let rm = &mut acc.rm;
        match kind {
            "LabelTransformer" => {
                let c: PairsConfig = config(cfg)?;
                transform::labels::set_pairs(rm, &c.labels, &specs(c.field_specs)).map_err(at)
            }
            "AnnotationsTransformer" => {
                let c: PairsConfig = config(cfg)?;
                transform::labels::set_pairs(rm, &c.annotations, &specs(c.field_specs)).map_err(at)
            }
            "PrefixSuffixTransformer" | "PrefixTransformer" | "SuffixTransformer" => {
                use transform::prefix_suffix::{apply_affix, Affix};
                let c: AffixConfig = config(cfg)?;
                let fs = specs(c.field_specs);
                if kind != "SuffixTransformer" && !c.prefix.is_empty() {
                    apply_affix(rm, Affix::Prefix, &c.prefix, &fs).map_err(at)?;
                }
                if kind != "PrefixTransformer" && !c.suffix.is_empty() {
                    apply_affix(rm, Affix::Suffix, &c.suffix, &fs).map_err(at)?;
                }
                Ok(())
            }
            "NamespaceTransformer" => {
                use transform::namespace::{apply_namespace, SubjectMode};
                let c: NamespaceConfig = config(cfg)?;
                let mode = match c.set_role_binding_subjects.as_str() {
                    "" | "defaultOnly" => SubjectMode::DefaultOnly,
                    "allServiceAccounts" => SubjectMode::AllServiceAccounts,
                    "none" => SubjectMode::None,
                    other => {
                        return Err(at(format!(
                            "invalid value \"{other}\" for setRoleBindingSubjects: must be one of \"defaultOnly\", \"none\" or \"allServiceAccounts\""
                        )))
                    }
                };
                apply_namespace(
                    rm,
                    &c.metadata.namespace,
                    &specs(c.field_specs),
                    c.unset_only,
                    mode,
                )
                .map_err(at)
            }
            "HashTransformer" => {
                transform::hash::add_hash_suffixes(rm);
                Ok(())
            }
            "ValueAddTransformer" => {
                let c: ValueAddConfig = config(cfg)?;
                let mut targets = c.targets;
                if !c.target_file_path.is_empty() {
                    let (_, bytes) = kt.ldr.load(&c.target_file_path)?;
                    let node = crate::yaml::parse_one(&bytes, &Default::default())
                        .map_err(|e| at(e.to_string()))?;
                    let more: ValueAddTargets =
                        crate::yaml::de::from_node_go_json(&node, crate::yaml::Dialect::Yaml11)
                            .map_err(|e| at(e.to_string()))?;
                    targets.extend(more.targets);
                }
                if targets.is_empty() {
                    return Err(at("must specify at least one target".into()));
                }
                if targets.iter().any(|t| t.field_path.is_empty()) {
                    return Err(at("fieldPath cannot be empty".into()));
                }
                let value = match c.value.trim() {
                    // kustomize uses the kustomization directory's name.
                    "" => kt.ldr.root().file_name().to_string(),
                    v => v.to_string(),
                };
                let targets: Vec<_> = targets
                    .iter()
                    .map(|t| transform::value_add::Target {
                        selector: t.selector.as_ref(),
                        field_path: &t.field_path,
                        file_path_position: t.file_path_position,
                    })
                    .collect();
                transform::value_add::apply(rm, &value, &targets).map_err(at)
            }
            "ImageTagTransformer" => {
                let c: ImageConfig = config(cfg)?;
                transform::images::apply_image(rm, &c.image_tag, &specs(c.field_specs)).map_err(at)
            }
            "ReplicaCountTransformer" => {
                let c: ReplicaConfig = config(cfg)?;
                transform::replicas::set_replicas(
                    rm,
                    &c.replica.name,
                    c.replica.count,
                    &specs(c.field_specs),
                )
                .map_err(at)
            }
            "ReplacementTransformer" => {
                let c: ReplacementConfig = config(cfg)?;
                for r in &c.replacements {
                    let warnings = transform::replacement::apply(rm, r).map_err(|e| {
                        KError::new(e.rule, e.message).at(&cfg.origin.file, cfg.origin.span)
                    })?;
                    for w in warnings {
                        self.findings.push(
                            Finding::warning(rules::KUSTOMIZE_REPLACEMENT_VERSION_DIVERGENCE, w)
                                .at(
                                    cfg.origin.file.to_string(),
                                    cfg.origin.span.line,
                                    cfg.origin.span.column,
                                ),
                        );
                    }
                }
                Ok(())
            }
            "PatchTransformer" => {
                let c: PatchConfig = config(cfg)?;
                let entry = types::Patch {
                    path: c.path,
                    patch: c.patch,
                    target: c.target,
                    options: c.options,
                };
                self.apply_patch_entry(kt, acc, &entry)
                    .map_err(|e| e.at(&cfg.origin.file, cfg.origin.span))
            }
            "PatchJson6902Transformer" => {
                let c: PatchConfig = config(cfg)?;
                let entry = types::Patch {
                    path: c.path,
                    patch: c.json_op,
                    target: c.target,
                    options: BTreeMap::new(),
                };
                self.apply_legacy_json6902_entry(kt, acc, &entry)
                    .map_err(|e| e.at(&cfg.origin.file, cfg.origin.span))
            }
            "PatchStrategicMergeTransformer" => {
                let c: PatchConfig = config(cfg)?;
                let mut entries = c.paths;
                if !c.patches.is_empty() {
                    entries.push(c.patches);
                }
                self.apply_psm_entries(kt, acc, &entries)
                    .map_err(|e| e.at(&cfg.origin.file, cfg.origin.span))
            }
            _ => Err(at(format!(
                "unable to load builtin {}: it is not a builtin transformer",
                cfg.gvk()
            ))),
        }
    }

    /// A non-builtin plugin: a KRM function is reported and skipped, an exec plugin runs only
    /// when enabled. `None` means "skipped".
    fn external(
        &mut self,
        kt: &Kt,
        cfg: &Res,
        role: Role,
        input: Option<&ResMap>,
    ) -> Result<Option<ResMap>, KError> {
        let id = cfg.cur_id();
        let annotations = cfg.annotations();
        if let Some(f) = annotations.get("config.kubernetes.io/function") {
            let mut finding = Finding::notice(
                rules::KUSTOMIZE_PLUGIN_KRM_FUNCTION,
                format!(
                    "KRM function {} ({}) is not run by kdelta; its output is missing",
                    id,
                    f.lines().next().unwrap_or("")
                ),
            )
            .at(
                cfg.origin.file.to_string(),
                cfg.origin.span.line,
                cfg.origin.span.column,
            );
            finding.severity = Severity::Notice;
            self.findings.push(finding);
            return Ok(None);
        }
        let input = if role == Role::Transformer {
            input
        } else {
            None
        };
        exec::run_plugin(&kt.ldr, cfg, input, self.exec_plugins)
            .map(Some)
            .map_err(|e| e.at(&cfg.origin.file, cfg.origin.span))
    }
}

/// The builtin kind of a plugin config (`apiVersion: builtin`).
fn builtin_kind(cfg: &Res) -> Option<&str> {
    (cfg.api_version() == "builtin").then(|| cfg.kind())
}

/// kustomize `OriginFromCustomPlugin`: when the config itself has an origin, the plugin is
/// recorded as configured in that file.
fn plugin_origin(cfg: &Res) -> Option<Origin> {
    let text = cfg.annotations().get(super::res::anno::ORIGIN)?.clone();
    let path = text
        .lines()
        .find_map(|l| l.strip_prefix("path: "))
        .unwrap_or("")
        .to_string();
    Some(Origin {
        path: String::new(),
        configured_in: path,
        configured_by: Some(origin::ConfiguredBy {
            api_version: cfg.api_version().to_string(),
            kind: cfg.kind().to_string(),
            name: cfg.name().to_string(),
            namespace: cfg.namespace().to_string(),
        }),
    })
}
