// Fields of features implemented in later steps (patches, replacements, vars) are read there.
#![allow(dead_code)]

//! The Kustomization file model (kustomize's `types.Kustomization`), read strictly: an unknown
//! field is an error with its line, as in kustomize.

use serde::Deserialize;
use std::collections::BTreeMap;

/// `apiVersion` of a Kustomization.
pub const KUSTOMIZATION_VERSION: &str = "kustomize.config.k8s.io/v1beta1";
/// `apiVersion` of a Component.
pub const COMPONENT_VERSION: &str = "kustomize.config.k8s.io/v1alpha1";

/// A kustomization file as written (after kustomize's `FixKustomization` normalisation).
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Kustomization {
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub metadata: Option<ObjectMeta>,
    #[serde(default, rename = "openapi")]
    pub openapi: BTreeMap<String, String>,
    #[serde(default)]
    pub name_prefix: String,
    #[serde(default)]
    pub name_suffix: String,
    #[serde(default)]
    pub namespace: String,
    #[serde(default)]
    pub common_labels: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub labels: Vec<Label>,
    #[serde(default)]
    pub common_annotations: BTreeMap<String, String>,
    #[serde(default)]
    pub patches_strategic_merge: Option<Vec<String>>,
    #[serde(default, rename = "patchesJson6902")]
    pub patches_json6902: Option<Vec<Patch>>,
    #[serde(default)]
    pub patches: Vec<Patch>,
    #[serde(default)]
    pub images: Vec<Image>,
    #[serde(default)]
    pub image_tags: Option<Vec<Image>>,
    #[serde(default)]
    pub replacements: Vec<ReplacementField>,
    #[serde(default)]
    pub replicas: Vec<Replica>,
    #[serde(default)]
    pub vars: Option<Vec<Var>>,
    #[serde(default)]
    pub sort_options: Option<SortOptions>,
    #[serde(default)]
    pub resources: Vec<String>,
    #[serde(default)]
    pub components: Vec<String>,
    #[serde(default)]
    pub crds: Vec<String>,
    #[serde(default)]
    pub bases: Option<Vec<String>>,
    #[serde(default)]
    pub config_map_generator: Vec<GeneratorArgs>,
    #[serde(default)]
    pub secret_generator: Vec<GeneratorArgs>,
    #[serde(default)]
    pub helm_globals: Option<HelmGlobals>,
    #[serde(default)]
    pub helm_charts: Vec<HelmChart>,
    #[serde(default)]
    pub helm_chart_inflation_generator: Vec<serde_json::Value>,
    #[serde(default)]
    pub generator_options: Option<GeneratorOptions>,
    #[serde(default)]
    pub configurations: Vec<String>,
    #[serde(default)]
    pub generators: Vec<String>,
    #[serde(default)]
    pub transformers: Vec<String>,
    #[serde(default)]
    pub validators: Vec<String>,
    #[serde(default)]
    pub build_metadata: Vec<String>,
}

/// `helmGlobals:`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct HelmGlobals {
    #[serde(default)]
    pub chart_home: String,
    #[serde(default)]
    pub config_home: String,
}

/// A `helmCharts:` entry.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct HelmChart {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub repo: String,
    #[serde(default)]
    pub release_name: String,
    #[serde(default)]
    pub namespace: String,
    #[serde(default)]
    pub additional_values_files: Vec<String>,
    #[serde(default)]
    pub values_file: String,
    #[serde(default)]
    pub values_inline: Option<serde_json::Value>,
    #[serde(default)]
    pub values_merge: String,
    #[serde(default, rename = "includeCRDs")]
    pub include_crds: bool,
    #[serde(default)]
    pub skip_hooks: bool,
    #[serde(default)]
    pub api_versions: Vec<String>,
    #[serde(default)]
    pub kube_version: String,
    #[serde(default)]
    pub name_template: String,
    #[serde(default)]
    pub skip_tests: bool,
    #[serde(default)]
    pub debug: bool,
}

/// `metadata` of a builtin plugin config: only the name and namespace are read.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PluginMeta {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub namespace: String,
}

/// `metadata` of a Kustomization or of a plugin config.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMeta {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub namespace: String,
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
}

/// An entry of `labels:`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Label {
    #[serde(default)]
    pub pairs: BTreeMap<String, String>,
    #[serde(default)]
    pub include_selectors: bool,
    #[serde(default)]
    pub include_templates: bool,
    #[serde(default, rename = "fields")]
    pub field_specs: Vec<FieldSpecArgs>,
}

/// A field spec as written in configurations and `labels[].fields`.
#[derive(Debug, Default, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FieldSpecArgs {
    #[serde(default)]
    pub group: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub path: String,
    #[serde(default)]
    pub create: bool,
}

/// An entry of `patches:` / `patchesJson6902:`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Patch {
    #[serde(default)]
    pub path: String,
    #[serde(default)]
    pub patch: String,
    #[serde(default)]
    pub target: Option<Selector>,
    #[serde(default)]
    pub options: BTreeMap<String, bool>,
}

/// A resource selector (patch targets, replacement select/reject).
#[derive(Debug, Default, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Selector {
    #[serde(default)]
    pub group: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub namespace: String,
    #[serde(default)]
    pub annotation_selector: String,
    #[serde(default)]
    pub label_selector: String,
}

/// An entry of `images:`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Image {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub new_name: String,
    #[serde(default)]
    pub tag_suffix: String,
    #[serde(default)]
    pub new_tag: String,
    #[serde(default)]
    pub digest: String,
}

/// An entry of `replicas:`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Replica {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub count: i64,
}

/// `sortOptions:`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SortOptions {
    #[serde(default)]
    pub order: String,
    #[serde(default)]
    pub legacy_sort_options: Option<LegacySortOptions>,
}

/// `sortOptions.legacySortOptions`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LegacySortOptions {
    #[serde(default)]
    pub order_first: Vec<String>,
    #[serde(default)]
    pub order_last: Vec<String>,
}

/// A `vars:` entry.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Var {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub objref: VarTarget,
    #[serde(default)]
    pub fieldref: FieldSelector,
}

/// `vars[].objref`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct VarTarget {
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub group: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub namespace: String,
}

/// `vars[].fieldref`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FieldSelector {
    #[serde(default)]
    pub field_path: String,
}

/// A `replacements:` entry: inline, or `path:` to a file of replacements.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReplacementField {
    #[serde(default)]
    pub path: String,
    #[serde(default)]
    pub source: Option<SourceSelector>,
    #[serde(default)]
    pub targets: Vec<TargetSelector>,
    /// v5.7: a static value instead of a source.
    #[serde(default)]
    pub source_value: Option<String>,
}

/// `replacements[].source`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SourceSelector {
    #[serde(default)]
    pub group: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub namespace: String,
    #[serde(default)]
    pub field_path: String,
    #[serde(default)]
    pub options: Option<FieldOptions>,
}

/// `replacements[].targets[]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TargetSelector {
    #[serde(default)]
    pub select: Option<Selector>,
    #[serde(default)]
    pub reject: Vec<Selector>,
    #[serde(default)]
    pub field_paths: Vec<String>,
    #[serde(default)]
    pub options: Option<FieldOptions>,
}

/// Replacement field options.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FieldOptions {
    #[serde(default)]
    pub delimiter: String,
    #[serde(default)]
    pub index: i64,
    #[serde(default)]
    pub encoding: String,
    #[serde(default)]
    pub create: bool,
}

/// `configMapGenerator` / `secretGenerator` entries.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GeneratorArgs {
    #[serde(default)]
    pub namespace: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub behavior: String,
    #[serde(default, rename = "literals")]
    pub literal_sources: Vec<String>,
    #[serde(default, rename = "files")]
    pub file_sources: Vec<String>,
    #[serde(default, rename = "envs")]
    pub env_sources: Vec<String>,
    #[serde(default, rename = "env")]
    pub env_source: String,
    #[serde(default)]
    pub options: Option<GeneratorOptions>,
    /// Secrets only.
    #[serde(default, rename = "type")]
    pub secret_type: String,
    /// kdelta extension (proposal 22-03): keys whose values merge as structured data.
    #[serde(default)]
    pub merge_values: Vec<MergeValue>,
}

/// One `mergeValues` entry.
#[derive(Debug, Default, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MergeValue {
    pub key: String,
    #[serde(default)]
    pub format: String,
}

/// `generatorOptions` and `options` of a generator.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GeneratorOptions {
    #[serde(default)]
    pub labels: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub annotations: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub disable_name_suffix_hash: bool,
    #[serde(default)]
    pub immutable: bool,
}

impl GeneratorOptions {
    /// kustomize's `MergeGlobalOptionsIntoLocal`: global labels and annotations fill keys the
    /// local options lack; the flags are or-ed.
    pub fn merge_global(
        local: Option<&GeneratorOptions>,
        global: Option<&GeneratorOptions>,
    ) -> Option<GeneratorOptions> {
        let Some(global) = global else {
            return local.cloned();
        };
        let mut out = local.cloned().unwrap_or_default();
        for (mine, theirs) in [
            (&mut out.labels, &global.labels),
            (&mut out.annotations, &global.annotations),
        ] {
            match (mine.as_mut(), theirs) {
                (None, Some(g)) => *mine = Some(g.clone()),
                (Some(m), Some(g)) => {
                    for (k, v) in g {
                        m.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                }
                _ => {}
            }
        }
        out.disable_name_suffix_hash |= global.disable_name_suffix_hash;
        out.immutable |= global.immutable;
        Some(out)
    }
}

/// Deprecation warnings kustomize prints for this kustomization (to stderr, in this order).
pub fn deprecation_warnings(k: &Kustomization) -> Vec<(&'static str, String)> {
    const FIX: &str = "Run 'kustomize edit fix' to update your Kustomization automatically.";
    const FIX_EXP: &str =
        "[EXPERIMENTAL] Run 'kustomize edit fix' to update your Kustomization automatically.";
    let mut out = Vec::new();
    let mut warn = |field: &'static str, instead: &str, fix: &str| {
        out.push((
            field,
            format!("# Warning: '{field}' is deprecated. Please use '{instead}' instead. {fix}"),
        ));
    };
    if k.bases.is_some() {
        warn("bases", "resources", FIX);
    }
    if k.common_labels.is_some() {
        warn("commonLabels", "labels", FIX);
    }
    if k.image_tags.is_some() {
        warn("imageTags", "images", FIX);
    }
    if k.patches_json6902.is_some() {
        warn("patchesJson6902", "patches", FIX);
    }
    if k.patches_strategic_merge.is_some() {
        warn("patchesStrategicMerge", "patches", FIX);
    }
    if k.vars.is_some() {
        warn("vars", "replacements", FIX_EXP);
    }
    out
}
