//! kustomize's builtin plugins as kusttarget runs them. A kustomization's transforming fields
//! become builtin configs (`target/`, in kustomize's order); a plugin config with
//! `apiVersion: builtin` is read by its kind from the factory tables, [`TRANSFORMERS`] and
//! [`GENERATORS`], the only places listing builtin kinds; either way one function runs a
//! transformer ([`Builder::apply_transformer`]) and one makes a generator's objects
//! (`generate::generate` for ConfigMaps and Secrets). Each transformer's file owns its config.

use super::error::KError;
use super::fieldspec::plugin_specs;
use super::generate::{self, GenKind};
use super::res::Res;
use super::resmap::ResMap;
use super::target::{Acc, Builder, Kt};
use super::transform::{
    images, labels, namespace, prefix_suffix, replacement, replicas, value_add, SetError,
};
use super::types::{self, GeneratorArgs, PluginMeta, ReplacementField, Selector};
use crate::finding::{rules, Finding};
use crate::source::RepoPath;
use crate::yaml::{
    de::{from_node_go_json, from_node_go_yaml},
    Dialect, Span,
};
use serde::Deserialize;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// One builtin transformer with its config.
pub enum Transformer<'a> {
    /// LabelTransformer, AnnotationsTransformer.
    Pairs(labels::Config<'a>),
    /// PrefixSuffixTransformer, PrefixTransformer, SuffixTransformer.
    Affix(prefix_suffix::Config<'a>),
    Namespace(namespace::Config<'a>),
    ImageTag(images::Config<'a>),
    ReplicaCount(replicas::Config<'a>),
    Hash,
    ValueAdd(value_add::PluginConfig),
    Replacement(Vec<ReplacementField>),
    Patch(types::Patch),
    PatchJson6902(types::Patch),
    /// Paths or inline patches.
    PatchStrategicMerge(Vec<String>),
}

/// Why a builtin failed: a plain transformer's error, which the caller places (at the
/// kustomization field or the plugin config, unless it has a place of its own), or an error
/// placed already.
pub enum BuiltinError {
    Transform(TransformError),
    Placed(KError),
}

/// A plain transformer's error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TransformError {
    /// A label, annotation, prefix or suffix field cannot be set.
    #[error(transparent)]
    Set(#[from] SetError),
    #[error(transparent)]
    Namespace(#[from] namespace::NamespaceError),
    #[error(transparent)]
    Image(#[from] images::ImageError),
    #[error(transparent)]
    Replicas(#[from] replicas::ReplicasError),
    #[error(transparent)]
    ValueAdd(#[from] value_add::ValueAddError),
    /// A ValueAddTransformer's `targetFilePath` is not YAML.
    #[error("{error}")]
    TargetFileSyntax {
        /// `None`: a file read from a URL.
        file: Option<RepoPath>,
        error: crate::yaml::YamlError,
    },
    /// A ValueAddTransformer's `targetFilePath` does not hold targets.
    #[error("{error}")]
    TargetFileDecode {
        file: Option<RepoPath>,
        error: crate::yaml::de::DeError,
    },
    /// A ValueAddTransformer without targets.
    #[error("must specify at least one target")]
    NoTarget,
    /// A ValueAddTransformer target without `fieldPath`.
    #[error("fieldPath cannot be empty")]
    EmptyFieldPath,
}

impl TransformError {
    /// The file and place the error is about, when that is not the transformer's config (a
    /// ValueAddTransformer's `targetFilePath`).
    pub fn location(&self) -> Option<(&RepoPath, Span)> {
        match self {
            TransformError::TargetFileSyntax { file, error } => Some((file.as_ref()?, error.span)),
            TransformError::TargetFileDecode { file, error } => Some((file.as_ref()?, error.span)),
            _ => None,
        }
    }

    /// The error as kustomize reports it, as `rule`, at its own place when it has one.
    pub fn into_kerror(self, rule: crate::finding::Rule) -> KError {
        let e = KError::new(rule, self.to_string());
        match self.location() {
            Some((file, span)) => e.at(file, span),
            None => e,
        }
    }
}

impl From<TransformError> for BuiltinError {
    fn from(e: TransformError) -> Self {
        BuiltinError::Transform(e)
    }
}

impl From<KError> for BuiltinError {
    fn from(e: KError) -> Self {
        BuiltinError::Placed(e)
    }
}

/// A plain transformer's error as a [`BuiltinError`].
fn transform(e: impl Into<TransformError>) -> BuiltinError {
    BuiltinError::Transform(e.into())
}

type ReadConfig = fn(&Res) -> Result<Transformer<'static>, KError>;

/// Every builtin transformer kind and how its plugin config is read.
pub const TRANSFORMERS: &[(&str, ReadConfig)] = &[
    ("LabelTransformer", |cfg| {
        let c: labels::PluginConfig = read(cfg)?;
        Ok(Transformer::Pairs(labels::Config {
            pairs: Cow::Owned(c.labels),
            specs: Cow::Owned(plugin_specs(c.field_specs)),
        }))
    }),
    ("AnnotationsTransformer", |cfg| {
        let c: labels::PluginConfig = read(cfg)?;
        Ok(Transformer::Pairs(labels::Config {
            pairs: Cow::Owned(c.annotations),
            specs: Cow::Owned(plugin_specs(c.field_specs)),
        }))
    }),
    ("PrefixSuffixTransformer", |cfg| affix(cfg, true, true)),
    ("PrefixTransformer", |cfg| affix(cfg, true, false)),
    ("SuffixTransformer", |cfg| affix(cfg, false, true)),
    ("NamespaceTransformer", |cfg| {
        namespace::Config::from_plugin(read(cfg)?)
            .map(Transformer::Namespace)
            .map_err(|e| transform_error(cfg, e))
    }),
    ("HashTransformer", |_| Ok(Transformer::Hash)),
    ("ValueAddTransformer", |cfg| {
        read(cfg).map(Transformer::ValueAdd)
    }),
    ("ImageTagTransformer", |cfg| {
        let c: images::PluginConfig = read(cfg)?;
        Ok(Transformer::ImageTag(images::Config {
            image: Cow::Owned(c.image_tag),
            specs: Cow::Owned(plugin_specs(c.field_specs)),
        }))
    }),
    ("ReplicaCountTransformer", |cfg| {
        let c: replicas::PluginConfig = read(cfg)?;
        Ok(Transformer::ReplicaCount(replicas::Config {
            replica: Cow::Owned(c.replica),
            specs: Cow::Owned(plugin_specs(c.field_specs)),
        }))
    }),
    ("ReplacementTransformer", |cfg| {
        let c: ReplacementConfig = read(cfg)?;
        Ok(Transformer::Replacement(c.replacements))
    }),
    ("PatchTransformer", |cfg| {
        let c: PatchConfig = read(cfg)?;
        Ok(Transformer::Patch(types::Patch {
            path: c.path,
            patch: c.patch,
            target: c.target,
            options: c.options,
        }))
    }),
    ("PatchJson6902Transformer", |cfg| {
        let c: PatchConfig = read(cfg)?;
        Ok(Transformer::PatchJson6902(types::Patch {
            path: c.path,
            patch: c.json_op,
            target: c.target,
            options: BTreeMap::new(),
        }))
    }),
    ("PatchStrategicMergeTransformer", |cfg| {
        let c: PatchConfig = read(cfg)?;
        let mut entries = c.paths;
        if !c.patches.is_empty() {
            entries.push(c.patches);
        }
        Ok(Transformer::PatchStrategicMerge(entries))
    }),
];

/// The builtin transformer a plugin config (`apiVersion: builtin`) configures.
pub fn transformer_from_config(cfg: &Res) -> Result<Transformer<'static>, KError> {
    let kind = cfg.kind();
    match TRANSFORMERS.iter().find(|(k, _)| *k == kind) {
        Some((_, read_config)) => read_config(cfg),
        // kustomize's plugin loader makes a builtin generator too, and its LoadTransformer
        // then finds it transforms nothing.
        None if GENERATORS.iter().any(|(k, _)| *k == kind) => Err(unusable(
            cfg,
            format!("plugin {} not a transformer", cfg.org_id()),
            "a builtin generator belongs under generators:",
        )),
        None => Err(unknown_builtin(cfg, "transformer")),
    }
}

/// kustomize's `makeBuiltinPlugin`: no builtin generator or transformer has this kind.
fn unknown_builtin(cfg: &Res, role: &str) -> KError {
    let kinds = |table: &[&str]| table.join(", ");
    let known = if role == "generator" {
        kinds(&GENERATORS.iter().map(|(k, _)| *k).collect::<Vec<_>>())
    } else {
        kinds(&TRANSFORMERS.iter().map(|(k, _)| *k).collect::<Vec<_>>())
    };
    unusable(
        cfg,
        format!("unable to load builtin {}", cfg.gvk()),
        &format!("no builtin {role} has this kind; the builtin {role}s are {known}"),
    )
}

/// A plugin config kustomize's plugin loader cannot use, at the config.
fn unusable(cfg: &Res, message: String, help: &str) -> KError {
    KError::new(rules::KUSTOMIZE_PLUGIN_UNKNOWN, message)
        .with_help(help)
        .at(&cfg.origin.file, cfg.origin.span)
}

/// Reads a plugin config leniently, as kustomize's `yaml.Unmarshal` does. The config reaches
/// it as a resource kyaml read and printed (`AsYAML`), so its scalars have their YAML 1.2
/// types (`name: n` is a string, not a YAML 1.1 bool), and a string field takes a number or a
/// bool as its JSON text (`labels: {v: 1.50}` is "1.5").
pub fn read<T: for<'de> Deserialize<'de>>(cfg: &Res) -> Result<T, KError> {
    from_node_go_yaml(&cfg.node, Dialect::Yaml12).map_err(|e| {
        KError::new(
            rules::KUSTOMIZE_PLUGIN_CONFIG,
            format!(
                "trouble configuring builtin {} with config: {}",
                cfg.kind(),
                e.message
            ),
        )
        .at(&cfg.origin.file, e.span)
    })
}

fn transform_error(cfg: &Res, message: impl ToString) -> KError {
    KError::new(rules::KUSTOMIZE_TRANSFORM, message.to_string())
        .at(&cfg.origin.file, cfg.origin.span)
}

fn affix(cfg: &Res, prefix: bool, suffix: bool) -> Result<Transformer<'static>, KError> {
    let c: prefix_suffix::PluginConfig = read(cfg)?;
    Ok(Transformer::Affix(prefix_suffix::Config {
        prefix: Cow::Owned(if prefix { c.prefix } else { String::new() }),
        suffix: Cow::Owned(if suffix { c.suffix } else { String::new() }),
        specs: Cow::Owned(plugin_specs(c.field_specs)),
    }))
}

type Generate = fn(&mut Builder, &Kt, &Res) -> Result<ResMap, KError>;

/// Every builtin generator kind and how it runs from its plugin config.
pub const GENERATORS: &[(&str, Generate)] = &[
    ("ConfigMapGenerator", |b, kt, cfg| {
        data_generator(b, kt, cfg, GenKind::ConfigMap)
    }),
    ("SecretGenerator", |b, kt, cfg| {
        data_generator(b, kt, cfg, GenKind::Secret)
    }),
    ("IAMPolicyGenerator", |_, _, cfg| iam_policy_generator(cfg)),
    ("HelmChartInflationGenerator", |b, kt, cfg| {
        b.inflate_from_config(kt, cfg)
    }),
];

/// Runs the builtin generator a plugin config (`apiVersion: builtin`) configures.
pub fn generate_from_config(b: &mut Builder, kt: &Kt, cfg: &Res) -> Result<ResMap, KError> {
    let kind = cfg.kind();
    match GENERATORS.iter().find(|(k, _)| *k == kind) {
        Some((_, generate)) => generate(b, kt, cfg),
        None => {
            let e = if TRANSFORMERS.iter().any(|(k, _)| *k == kind) {
                // kustomize's loadAndConfigurePlugin configures the builtin transformer
                // first; LoadGenerator then finds it generates nothing.
                configure_transformer(cfg)?;
                unusable(
                    cfg,
                    format!("plugin {} not a generator", cfg.org_id()),
                    "a builtin transformer belongs under transformers:",
                )
            } else {
                unknown_builtin(cfg, "generator")
            };
            Err(e
                .context("failed to load generator")
                .context("loading generator plugins"))
        }
    }
}

/// Reads a builtin transformer's plugin config and checks it as the plugin's `Config` does
/// (only the PatchTransformer's choice of `patch` or `path` so far).
fn configure_transformer(cfg: &Res) -> Result<(), KError> {
    let fails = |why: &str| {
        let e = KError::new(
            rules::KUSTOMIZE_PLUGIN_CONFIG,
            format!("{why}\n{}", crate::yaml::emit::node_to_string(&cfg.node)),
        )
        .at(&cfg.origin.file, cfg.origin.span)
        .context(format!("plugin {} fails configuration", cfg.org_id()))
        .context("failed to load generator")
        .context("loading generator plugins");
        Err(e)
    };
    match transformer_from_config(cfg)? {
        Transformer::Patch(p) => match (p.patch.trim().is_empty(), p.path.is_empty()) {
            (true, true) => fails("must specify one of patch and path in"),
            (false, false) => fails("patch and path can't be set at the same time"),
            _ => Ok(()),
        },
        _ => Ok(()),
    }
}

/// ConfigMapGenerator and SecretGenerator: the same generator the fields use.
fn data_generator(b: &mut Builder, kt: &Kt, cfg: &Res, kind: GenKind) -> Result<ResMap, KError> {
    let at = |e: KError| e.at(&cfg.origin.file, cfg.origin.span);
    let c: GeneratorConfig = read(cfg)?;
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
    let origin = cfg.origin.clone();
    let mut warnings = Vec::new();
    let res = generate::generate(
        &kt.ldr,
        kind,
        &args,
        args.options.as_ref(),
        origin.clone(),
        &mut warnings,
    )
    .map_err(at)?;
    b.generator_warnings(&origin.file, origin.span, warnings);
    let mut rm = ResMap::new();
    rm.append(res).map_err(at)?;
    Ok(rm)
}

/// IAMPolicyGenerator: the GKE workload-identity ServiceAccount.
fn iam_policy_generator(cfg: &Res) -> Result<ResMap, KError> {
    let at = |e: KError| e.at(&cfg.origin.file, cfg.origin.span);
    let c: IamConfig = read(cfg)?;
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
    let mut rm = ResMap::new();
    rm.append(Res::new(node, cfg.origin.clone(), cfg.schema.clone()))
        .map_err(at)?;
    Ok(rm)
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
/// ConfigMapGenerator and SecretGenerator plugin configs.
struct GeneratorConfig {
    #[serde(default)]
    metadata: PluginMeta,
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

/// IAMPolicyGenerator's plugin config.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct IamConfig {
    #[serde(default)]
    cloud: String,
    #[serde(default)]
    kubernetes_service: PluginMeta,
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

/// ReplacementTransformer's plugin config.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ReplacementConfig {
    #[serde(default)]
    replacements: Vec<ReplacementField>,
}

/// The plugin config of the patch transformers (each reads its own fields).
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

impl Builder {
    /// Runs one builtin transformer over the accumulated resources. `file` and `span` place
    /// the warnings it makes (the plugin config, or the kustomization field).
    pub fn apply_transformer(
        &mut self,
        kt: &Kt,
        acc: &mut Acc,
        t: &Transformer<'_>,
        file: &RepoPath,
        span: Span,
    ) -> Result<(), BuiltinError> {
        let rm = &mut acc.rm;
        match t {
            Transformer::Pairs(c) => c.apply(rm).map_err(transform),
            Transformer::Affix(c) => c.apply(rm).map_err(transform),
            Transformer::Namespace(c) => c.apply(rm).map_err(transform),
            Transformer::ImageTag(c) => c.apply(rm).map_err(transform),
            Transformer::ReplicaCount(c) => c.apply(rm).map_err(transform),
            Transformer::Hash => {
                super::transform::hash::add_hash_suffixes(rm);
                Ok(())
            }
            Transformer::ValueAdd(c) => apply_value_add(kt, rm, c),
            Transformer::Replacement(list) => {
                for r in list {
                    let warnings = replacement::apply(rm, r)
                        .map_err(|e| KError::new(e.rule, e.message).at(file, span))?;
                    for w in warnings {
                        self.findings.push(
                            Finding::warning(rules::KUSTOMIZE_REPLACEMENT_VERSION_DIVERGENCE, w)
                                .at(file.to_string(), span.line, span.column),
                        );
                    }
                }
                Ok(())
            }
            Transformer::Patch(entry) => {
                let at = span.in_file(file.as_str());
                Ok(self.apply_patch_entry(kt, acc, entry, at)?)
            }
            Transformer::PatchJson6902(entry) => {
                let at = span.in_file(file.as_str());
                Ok(self.apply_legacy_json6902_entry(kt, acc, entry, at)?)
            }
            Transformer::PatchStrategicMerge(entries) => {
                let at = span.in_file(file.as_str());
                Ok(self.apply_psm_entries(kt, acc, entries, &|_| at)?)
            }
        }
    }
}

/// ValueAddTransformer: its targets (with those of `targetFilePath`) and its value.
fn apply_value_add(
    kt: &Kt,
    rm: &mut super::resmap::ResMap,
    c: &value_add::PluginConfig,
) -> Result<(), BuiltinError> {
    let mut more = Vec::new();
    if !c.target_file_path.is_empty() {
        let loaded = kt.ldr.load(&c.target_file_path)?;
        let file = loaded.path;
        let node = crate::yaml::parse_one(&loaded.bytes, &Default::default()).map_err(|error| {
            TransformError::TargetFileSyntax {
                file: file.clone(),
                error,
            }
        })?;
        let targets: value_add::PluginTargets = from_node_go_json(&node, Dialect::Yaml11)
            .map_err(|error| TransformError::TargetFileDecode { file, error })?;
        more = targets.targets;
    }
    let targets: Vec<&value_add::PluginTarget> = c.targets.iter().chain(&more).collect();
    if targets.is_empty() {
        return Err(TransformError::NoTarget.into());
    }
    if targets.iter().any(|t| t.field_path.is_empty()) {
        return Err(TransformError::EmptyFieldPath.into());
    }
    let value = match c.value.trim() {
        // kustomize uses the kustomization directory's name.
        "" => kt.ldr.root().file_name().to_string(),
        v => v.to_string(),
    };
    let targets: Vec<_> = targets
        .iter()
        .map(|t| value_add::Target {
            selector: t.selector.as_ref(),
            field_path: &t.field_path,
            file_path_position: t.file_path_position,
        })
        .collect();
    value_add::apply(rm, &value, &targets).map_err(transform)
}
