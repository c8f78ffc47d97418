//! Transformer configuration (kustomize `builtinconfig.TransformerConfig`): which fields each
//! builtin transformer touches and which fields refer to which kinds. The defaults are
//! kustomize's; `configurations:` files and CRDs extend them.

use super::fieldspec::{FieldSpec, StrictFieldSpec as RawFieldSpec};
use super::kid::Gvk;
use serde::Deserialize;
use std::sync::{Arc, OnceLock};

/// Fields of objects of `gvk` that other objects use to refer to them by name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct NameBackRefs {
    pub gvk: Gvk,
    pub referrers: Vec<FieldSpec>,
}

/// Every field list, by transformer.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TransformerConfig {
    pub name_prefix: Vec<FieldSpec>,
    pub name_suffix: Vec<FieldSpec>,
    pub namespace: Vec<FieldSpec>,
    pub common_labels: Vec<FieldSpec>,
    pub labels: Vec<FieldSpec>,
    pub template_labels: Vec<FieldSpec>,
    pub common_annotations: Vec<FieldSpec>,
    pub name_reference: Vec<NameBackRefs>,
    pub var_reference: Vec<FieldSpec>,
    pub images: Vec<FieldSpec>,
    pub replicas: Vec<FieldSpec>,
}

/// A field-spec list that cannot be merged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("conflicting fieldspecs")]
pub struct ConflictingFieldSpecs;

/// Two transformer configs that cannot be merged: the list (as kustomize names it) whose
/// field specs conflict.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("failed to merge {list} fieldSpec: {source}")]
pub struct MergeError {
    /// `NamePrefix`, `CommonLabels`, … or `NameReference`.
    pub list: &'static str,
    pub source: ConflictingFieldSpecs,
}

/// kustomize `FsSlice.MergeOne`.
pub fn merge_one(list: &mut Vec<FieldSpec>, fs: FieldSpec) -> Result<(), ConflictingFieldSpecs> {
    match list.iter().find(|x| x.effectively_equals(&fs)) {
        Some(existing) if existing.create != fs.create => Err(ConflictingFieldSpecs),
        Some(_) => Ok(()),
        None => {
            list.push(fs);
            Ok(())
        }
    }
}

/// kustomize `FsSlice.MergeAll`. kustomize looks for each new spec in the whole list; only
/// specs with the same path can be effectively equal, so an index by path finds the same
/// first match without the quadratic scan (merging into the defaults runs once per
/// kustomization with `configurations:`).
pub fn merge_all(
    list: &mut Vec<FieldSpec>,
    more: &[FieldSpec],
) -> Result<(), ConflictingFieldSpecs> {
    let hasher = std::collections::hash_map::RandomState::new();
    let hash = |path: &str| std::hash::BuildHasher::hash_one(&hasher, path);
    let mut by_path: std::collections::HashMap<u64, Vec<usize>> = Default::default();
    for (i, fs) in list.iter().enumerate() {
        by_path.entry(hash(&fs.path)).or_default().push(i);
    }
    for fs in more {
        let same_path = by_path.entry(hash(&fs.path)).or_default();
        match same_path
            .iter()
            .map(|&i| &list[i])
            .find(|x| x.effectively_equals(fs))
        {
            Some(existing) if existing.create != fs.create => return Err(ConflictingFieldSpecs),
            Some(_) => {}
            None => {
                same_path.push(list.len());
                list.push(fs.clone());
            }
        }
    }
    Ok(())
}

/// kyaml `Gvk.IsLessThan` as a sort key: legacy kind rank, then `group_version_kind`
/// (`~G`/`~V`/`~K` for empty parts).
fn gvk_sort_key(g: &Gvk) -> (i64, String) {
    use crate::resource::ordering::{DEFAULT_ORDER_FIRST, DEFAULT_ORDER_LAST};
    let rank = if let Some(i) = DEFAULT_ORDER_FIRST.iter().position(|x| *x == g.kind) {
        i as i64 - DEFAULT_ORDER_FIRST.len() as i64
    } else if let Some(i) = DEFAULT_ORDER_LAST.iter().position(|x| *x == g.kind) {
        1 + i as i64
    } else {
        0
    };
    let key = format!(
        "{}_{}_{}",
        or(&g.group, "~G"),
        or(&g.version, "~V"),
        or(&g.kind, "~K")
    );
    (rank, key)
}

/// Configs kept once per content (hash-consing), and the merges made between them: the
/// builds of a repository merge the same few configurations again and again (kubeflow/manifests'
/// two releases: 3,787 merges of 112 pairs). With equal configs one `Arc`, a merge is found
/// by the two addresses; comparing configs by content on every merge cost as much as merging.
#[derive(Default)]
struct Shared {
    /// By a hash of the content: configs with that hash.
    configs: std::collections::HashMap<u64, Vec<Arc<TransformerConfig>>>,
    /// By the addresses of both inputs: the inputs and the result. An entry holds its inputs,
    /// so neither address can be reused by another config while the entry is here.
    merges: std::collections::HashMap<(usize, usize), [Arc<TransformerConfig>; 3]>,
}

/// How many configs and merges [`Shared`] keeps before it starts again (each config is tens
/// of kilobytes). Starting again only costs speed: an equal config made later is another
/// `Arc`, and a merge with it is made again, to an equal result.
const SHARED_ENTRIES: usize = 256;

impl Shared {
    fn lock() -> std::sync::MutexGuard<'static, Shared> {
        static SHARED: OnceLock<std::sync::Mutex<Shared>> = OnceLock::new();
        let shared = SHARED.get_or_init(Default::default);
        shared.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The kept config equal to `tc`, or `tc` kept from now on.
    fn config(tc: TransformerConfig) -> Arc<TransformerConfig> {
        let hash = tc.fingerprint();
        let mut shared = Shared::lock();
        if let Some(kept) = shared
            .configs
            .get(&hash)
            .and_then(|same_hash| same_hash.iter().find(|kept| ***kept == tc))
        {
            return Arc::clone(kept);
        }
        // Counted by hash: configs with the same hash but other content are rare.
        if shared.configs.len() >= SHARED_ENTRIES {
            shared.configs.clear();
        }
        let tc = Arc::new(tc);
        shared
            .configs
            .entry(hash)
            .or_default()
            .push(Arc::clone(&tc));
        tc
    }

    fn merged(
        this: &Arc<TransformerConfig>,
        other: &Arc<TransformerConfig>,
    ) -> Result<Arc<TransformerConfig>, MergeError> {
        let key = (Arc::as_ptr(this) as usize, Arc::as_ptr(other) as usize);
        let known = Shared::lock()
            .merges
            .get(&key)
            .map(|[_, _, merged]| Arc::clone(merged));
        if let Some(merged) = known {
            return Ok(merged);
        }
        // Merged outside the lock; two threads may both merge the same pair once.
        let merged = Shared::config(this.merge(other)?);
        let mut shared = Shared::lock();
        if shared.merges.len() >= SHARED_ENTRIES {
            shared.merges.clear();
        }
        shared.merges.insert(
            key,
            [Arc::clone(this), Arc::clone(other), Arc::clone(&merged)],
        );
        Ok(merged)
    }
}

fn or<'a>(s: &'a str, d: &'a str) -> &'a str {
    if s.is_empty() {
        d
    } else {
        s
    }
}

/// Stable, like kustomize's sort of these lists; each key made once.
fn sort_specs(list: &mut [FieldSpec]) {
    list.sort_by_cached_key(|fs| gvk_sort_key(&fs.gvk));
}

impl TransformerConfig {
    /// kustomize's default configuration.
    pub fn defaults() -> &'static Arc<TransformerConfig> {
        static DEFAULTS: OnceLock<Arc<TransformerConfig>> = OnceLock::new();
        DEFAULTS.get_or_init(|| Arc::new(parse_table(DEFAULT_TABLE)))
    }

    /// The empty config, shared.
    pub fn empty() -> &'static Arc<TransformerConfig> {
        static EMPTY: OnceLock<Arc<TransformerConfig>> = OnceLock::new();
        EMPTY.get_or_init(|| Shared::config(TransformerConfig::default()))
    }

    /// The one shared `Arc` of a config with this content (while few enough configs are
    /// kept), so that merges with it are found again.
    pub fn shared(tc: TransformerConfig) -> Arc<TransformerConfig> {
        Shared::config(tc)
    }

    /// True when no list has an entry.
    pub fn is_empty(&self) -> bool {
        *self == TransformerConfig::default()
    }

    /// The defaults merged into an empty config (what every kustomization without
    /// `configurations:` contributes), computed once.
    fn merged_defaults() -> &'static Arc<TransformerConfig> {
        static MERGED: OnceLock<Arc<TransformerConfig>> = OnceLock::new();
        MERGED.get_or_init(|| {
            Shared::config(
                TransformerConfig::default()
                    .merge(TransformerConfig::defaults())
                    .expect("the default field specs do not conflict"),
            )
        })
    }

    /// `self` merged with `other`, sharing rather than recomputing in the common cases: a
    /// config merged with itself (a base and an overlay that both use the defaults), and the
    /// defaults merged into an empty config. `self` must be a merge result or empty.
    pub fn merged(
        this: &Arc<TransformerConfig>,
        other: &Arc<TransformerConfig>,
    ) -> Result<Arc<TransformerConfig>, MergeError> {
        let defaults = TransformerConfig::defaults();
        // A merge result merged with itself or with nothing is itself (every spec is already
        // there, the lists are sorted).
        if Arc::ptr_eq(this, other) || other.is_empty() {
            return Ok(Arc::clone(this));
        }
        if Arc::ptr_eq(other, defaults) && this.is_empty() {
            return Ok(Arc::clone(TransformerConfig::merged_defaults()));
        }
        if Arc::ptr_eq(other, defaults) && Arc::ptr_eq(this, TransformerConfig::merged_defaults()) {
            return Ok(Arc::clone(this));
        }
        Shared::merged(this, other)
    }

    /// A hash of the whole config, for [`Shared`] (which compares the configs on a match).
    fn fingerprint(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = crate::fxhash::FxHasher::default();
        self.hash(&mut h);
        h.finish()
    }

    /// kustomize `TransformerConfig.Merge`: every list merged, then sorted by gvk.
    pub fn merge(&self, other: &TransformerConfig) -> Result<TransformerConfig, MergeError> {
        let mut m = self.clone();
        let lists: [(&mut Vec<FieldSpec>, &Vec<FieldSpec>, &'static str); 10] = [
            (&mut m.name_prefix, &other.name_prefix, "NamePrefix"),
            (&mut m.name_suffix, &other.name_suffix, "NameSuffix"),
            (&mut m.namespace, &other.namespace, "NameSpace"),
            (
                &mut m.common_annotations,
                &other.common_annotations,
                "CommonAnnotations",
            ),
            (&mut m.common_labels, &other.common_labels, "CommonLabels"),
            (&mut m.labels, &other.labels, "Labels"),
            (
                &mut m.template_labels,
                &other.template_labels,
                "TemplateLabels",
            ),
            (&mut m.var_reference, &other.var_reference, "VarReference"),
            (&mut m.images, &other.images, "Images"),
            (&mut m.replicas, &other.replicas, "Replicas"),
        ];
        for (mine, theirs, name) in lists {
            merge_all(mine, theirs).map_err(|source| MergeError { list: name, source })?;
            sort_specs(mine);
        }
        for nbr in &other.name_reference {
            match m.name_reference.iter_mut().find(|c| c.gvk.equals(&nbr.gvk)) {
                Some(c) => {
                    merge_all(&mut c.referrers, &nbr.referrers).map_err(|source| MergeError {
                        list: "NameReference",
                        source,
                    })?
                }
                None => m.name_reference.push(nbr.clone()),
            }
        }
        m.name_reference
            .sort_by_cached_key(|r| gvk_sort_key(&r.gvk));
        Ok(m)
    }

    /// Parses a `configurations:` file (strict, like kustomize's `UnmarshalStrict`).
    pub fn from_yaml(
        node: &crate::yaml::Node,
    ) -> Result<TransformerConfig, crate::yaml::de::DeError> {
        let raw: RawConfig =
            crate::yaml::de::from_node_go_json(node, crate::yaml::Dialect::Yaml11)?;
        let conv = |v: Vec<RawFieldSpec>| -> Vec<FieldSpec> {
            v.into_iter().map(RawFieldSpec::into_spec).collect()
        };
        let mut t = TransformerConfig {
            name_prefix: conv(raw.name_prefix),
            name_suffix: conv(raw.name_suffix),
            namespace: conv(raw.namespace),
            common_labels: conv(raw.common_labels),
            labels: conv(raw.labels),
            template_labels: conv(raw.template_labels),
            common_annotations: conv(raw.common_annotations),
            name_reference: raw
                .name_reference
                .into_iter()
                .map(|n| NameBackRefs {
                    gvk: Gvk {
                        group: n.group,
                        version: n.version,
                        kind: n.kind,
                        cluster_scoped: false,
                    },
                    referrers: conv(n.field_specs),
                })
                .collect(),
            var_reference: conv(raw.var_reference),
            images: conv(raw.images),
            replicas: conv(raw.replicas),
        };
        for l in [
            &mut t.name_prefix,
            &mut t.name_suffix,
            &mut t.namespace,
            &mut t.common_labels,
            &mut t.labels,
            &mut t.template_labels,
            &mut t.common_annotations,
            &mut t.var_reference,
            &mut t.images,
            &mut t.replicas,
        ] {
            sort_specs(l);
        }
        t.name_reference
            .sort_by_cached_key(|r| gvk_sort_key(&r.gvk));
        Ok(t)
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawConfig {
    #[serde(default)]
    name_prefix: Vec<RawFieldSpec>,
    #[serde(default)]
    name_suffix: Vec<RawFieldSpec>,
    #[serde(default)]
    namespace: Vec<RawFieldSpec>,
    #[serde(default)]
    common_labels: Vec<RawFieldSpec>,
    #[serde(default)]
    labels: Vec<RawFieldSpec>,
    #[serde(default)]
    template_labels: Vec<RawFieldSpec>,
    #[serde(default)]
    common_annotations: Vec<RawFieldSpec>,
    #[serde(default)]
    name_reference: Vec<RawNameBackRef>,
    #[serde(default)]
    var_reference: Vec<RawFieldSpec>,
    #[serde(default)]
    images: Vec<RawFieldSpec>,
    #[serde(default)]
    replicas: Vec<RawFieldSpec>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawNameBackRef {
    #[serde(default)]
    group: String,
    #[serde(default)]
    version: String,
    #[serde(default)]
    kind: String,
    #[serde(default)]
    field_specs: Vec<RawFieldSpec>,
}

impl From<&super::types::FieldSpecArgs> for FieldSpec {
    fn from(a: &super::types::FieldSpecArgs) -> FieldSpec {
        FieldSpec {
            gvk: Gvk {
                group: a.group.clone(),
                version: a.version.clone(),
                kind: a.kind.clone(),
                cluster_scoped: false,
            },
            path: a.path.clone(),
            create: a.create,
        }
    }
}

/// Parses kdelta's compact table of the defaults: `[section]` lines, then one field spec per
/// line as `group/version/kind path [create]` (`-` for "any kind"); under `[nameReference]`,
/// `=> group/version/kind` starts the referred kind.
fn parse_table(table: &str) -> TransformerConfig {
    let mut t = TransformerConfig::default();
    let mut section = "";
    for line in table
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        if let Some(s) = line.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            section = s;
            continue;
        }
        if let Some(gvk) = line.strip_prefix("=> ") {
            t.name_reference.push(NameBackRefs {
                gvk: parse_gvk(gvk),
                referrers: Vec::new(),
            });
            continue;
        }
        let mut parts = line.split_whitespace();
        let gvk = parts.next().map(parse_gvk).unwrap_or_default();
        let path = parts.next().unwrap_or_default().to_string();
        let create = parts.next() == Some("create");
        let spec = FieldSpec { gvk, path, create };
        let list = match section {
            "namePrefix" => &mut t.name_prefix,
            "nameSuffix" => &mut t.name_suffix,
            "namespace" => &mut t.namespace,
            "commonLabels" => &mut t.common_labels,
            "templateLabels" => &mut t.template_labels,
            "commonAnnotations" => &mut t.common_annotations,
            "varReference" => &mut t.var_reference,
            "images" => &mut t.images,
            "replicas" => &mut t.replicas,
            "nameReference" => match t.name_reference.last_mut() {
                Some(n) => &mut n.referrers,
                None => continue,
            },
            _ => continue,
        };
        list.push(spec);
    }
    // kustomize's accumulator merges the defaults into an empty config, which sorts them.
    TransformerConfig::default()
        .merge(&t)
        .expect("the default table has no conflicts")
}

fn parse_gvk(s: &str) -> Gvk {
    if s == "-" {
        return Gvk::default();
    }
    let mut it = s.rsplitn(3, '/');
    let kind = it.next().unwrap_or("").to_string();
    let version = it.next().unwrap_or("").to_string();
    let group = it.next().unwrap_or("").to_string();
    Gvk {
        group,
        version,
        kind,
        cluster_scoped: false,
    }
}

/// The fields kustomize's builtin transformers touch by default (kustomize v5.5.0,
/// api/internal/konfig/builtinpluginconsts), in kdelta's compact notation.
const DEFAULT_TABLE: &str = include_str!("default_fieldspecs.txt");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_parse() {
        let d = TransformerConfig::defaults();
        assert_eq!(d.name_prefix.len(), 1);
        assert!(d
            .common_labels
            .iter()
            .any(|f| f.path == "spec/selector/matchLabels"
                && f.gvk.kind == "Deployment"
                && f.create));
        let cm = d
            .name_reference
            .iter()
            .find(|n| n.gvk.kind == "ConfigMap")
            .unwrap();
        assert!(cm
            .referrers
            .iter()
            .any(|f| f.path == "spec/template/spec/volumes/configMap/name"));
        assert!(d.images.iter().all(|f| f.create));
    }

    #[test]
    fn equal_configs_are_shared_merges_are_reused_and_conflicts_still_fail() {
        let custom = |path: &str, create: bool| TransformerConfig {
            images: vec![FieldSpec {
                gvk: Gvk {
                    kind: "MemoTest".into(),
                    ..Gvk::default()
                },
                path: path.into(),
                create,
            }],
            ..TransformerConfig::default()
        };
        let base = TransformerConfig::merged_defaults();
        let one = TransformerConfig::shared(custom("spec/memo", true));
        let first = TransformerConfig::merged(base, &one).unwrap();
        assert_eq!(*first, base.merge(&one).unwrap());
        // An equal config made separately is the same Arc, and the merge is answered again.
        let same = TransformerConfig::shared(custom("spec/memo", true));
        assert!(Arc::ptr_eq(&one, &same));
        assert!(Arc::ptr_eq(
            &first,
            &TransformerConfig::merged(base, &same).unwrap()
        ));
        // An equal config not shared is merged again, to an equal config.
        let unshared = Arc::new(custom("spec/memo", true));
        assert_eq!(*TransformerConfig::merged(base, &unshared).unwrap(), *first);
        // A merge result merged with itself or with nothing is itself.
        assert!(Arc::ptr_eq(
            &TransformerConfig::merged(&first, &first).unwrap(),
            &first
        ));
        let empty = TransformerConfig::empty();
        assert!(Arc::ptr_eq(
            &TransformerConfig::merged(&first, empty).unwrap(),
            &first
        ));
        // The same spec with another `create` conflicts, memo or not.
        let conflict = TransformerConfig::shared(custom("spec/memo", false));
        assert!(TransformerConfig::merged(&first, &conflict).is_err());
        assert!(TransformerConfig::merged(&first, &conflict).is_err());
    }
}
