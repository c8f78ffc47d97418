//! A resource during a kustomize build: the object node plus the build annotations kustomize
//! keeps on it (previous names, prefixes, suffixes, generator behavior…) and removes at the end.

use super::kid::{Gvk, KId};
use super::schema::BuildSchema;
use crate::resource::Origin;
use crate::yaml::{Node, NodeKind};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The build annotation keys (kustomize `utils.BuildAnnotation*`).
pub mod anno {
    pub const PREVIOUS_KINDS: &str = "internal.config.kubernetes.io/previousKinds";
    pub const PREVIOUS_NAMES: &str = "internal.config.kubernetes.io/previousNames";
    pub const PREVIOUS_NAMESPACES: &str = "internal.config.kubernetes.io/previousNamespaces";
    pub const PREFIXES: &str = "internal.config.kubernetes.io/prefixes";
    pub const SUFFIXES: &str = "internal.config.kubernetes.io/suffixes";
    pub const REF_BY: &str = "internal.config.kubernetes.io/refBy";
    pub const GEN_BEHAVIOR: &str = "internal.config.kubernetes.io/generatorBehavior";
    pub const NEEDS_HASH: &str = "internal.config.kubernetes.io/needsHashSuffix";
    pub const ALLOW_NAME_CHANGE: &str = "internal.config.kubernetes.io/allowNameChange";
    pub const ALLOW_KIND_CHANGE: &str = "internal.config.kubernetes.io/allowKindChange";
    pub const ORIGIN: &str = "config.kubernetes.io/origin";
    pub const TRANSFORMATIONS: &str = "alpha.config.kubernetes.io/transformations";
    /// kyaml's path/index bookkeeping annotations, also removed at the end.
    pub const KIO: &[&str] = &[
        "config.kubernetes.io/path",
        "config.kubernetes.io/index",
        "internal.config.kubernetes.io/seqindent",
        "internal.config.kubernetes.io/id",
        "internal.config.kubernetes.io/annotations-migration-resource-id",
        "internal.config.kubernetes.io/path",
        "internal.config.kubernetes.io/index",
        "config.k8s.io/id",
    ];
}

/// All annotations removed from the output (kustomize `BuildAnnotations`).
pub fn build_annotations() -> Vec<&'static str> {
    let mut v = vec![
        anno::PREVIOUS_KINDS,
        anno::PREVIOUS_NAMES,
        anno::PREFIXES,
        anno::SUFFIXES,
        anno::PREVIOUS_NAMESPACES,
        anno::ALLOW_NAME_CHANGE,
        anno::ALLOW_KIND_CHANGE,
        anno::REF_BY,
        anno::GEN_BEHAVIOR,
        anno::NEEDS_HASH,
    ];
    v.extend_from_slice(anno::KIO);
    v
}

/// One resource being built.
#[derive(Clone, Debug)]
pub struct Res {
    pub node: Node,
    pub origin: Origin,
    /// Names of vars whose objref is this resource.
    pub ref_var_names: Vec<String>,
    /// Generated objects only: data keys merged as structured data (`mergeValues`).
    pub merge_values: Vec<super::types::MergeValue>,
    /// The schema of the build the resource belongs to (scope lookups, merges).
    pub schema: Arc<BuildSchema>,
}

impl Res {
    /// Wraps an object node of the build with that schema.
    pub fn new(node: Node, origin: Origin, schema: Arc<BuildSchema>) -> Res {
        Res {
            node,
            origin,
            ref_var_names: Vec::new(),
            merge_values: Vec::new(),
            schema,
        }
    }

    /// `apiVersion`.
    pub fn api_version(&self) -> &str {
        self.node.str_at(&["apiVersion"]).unwrap_or("")
    }

    /// `kind`.
    pub fn kind(&self) -> &str {
        self.node.str_at(&["kind"]).unwrap_or("")
    }

    /// `metadata.name`.
    pub fn name(&self) -> &str {
        self.node.str_at(&["metadata", "name"]).unwrap_or("")
    }

    /// `metadata.namespace`.
    pub fn namespace(&self) -> &str {
        self.node.str_at(&["metadata", "namespace"]).unwrap_or("")
    }

    /// The gvk.
    pub fn gvk(&self) -> Gvk {
        Gvk::of(&self.node, &self.schema)
    }

    /// The current id.
    pub fn cur_id(&self) -> KId {
        KId::of(&self.node, &self.schema)
    }

    /// Ids the resource had before renames (empty when never renamed).
    pub fn prev_ids(&self) -> Vec<KId> {
        let a = self.annotations();
        let Some(names) = a.get(anno::PREVIOUS_NAMES) else {
            return Vec::new();
        };
        let names: Vec<&str> = names.split(',').collect();
        let nss: Vec<&str> = a
            .get(anno::PREVIOUS_NAMESPACES)
            .map(|s| s.split(',').collect())
            .unwrap_or_default();
        let kinds: Vec<&str> = a
            .get(anno::PREVIOUS_KINDS)
            .map(|s| s.split(',').collect())
            .unwrap_or_default();
        if names.len() != nss.len() || names.len() != kinds.len() {
            return Vec::new();
        }
        let (group, version) = crate::resource::split_api_version(self.api_version());
        names
            .iter()
            .zip(&nss)
            .zip(&kinds)
            .map(|((n, ns), k)| KId {
                gvk: Gvk {
                    group: group.to_string(),
                    version: version.to_string(),
                    kind: k.to_string(),
                    cluster_scoped: false,
                },
                name: n.to_string(),
                namespace: ns.to_string(),
            })
            .collect()
    }

    /// The id the resource was first loaded with.
    pub fn org_id(&self) -> KId {
        self.prev_ids()
            .into_iter()
            .next()
            .unwrap_or_else(|| self.cur_id())
    }

    /// Records the current id as a previous id (before a rename).
    pub fn store_previous_id(&mut self) {
        let id = self.cur_id();
        let ns = id.effective_namespace().to_string();
        self.set_previous_id(&ns, &id.name, &id.gvk.kind);
    }

    /// Appends a previous id.
    pub fn set_previous_id(&mut self, ns: &str, name: &str, kind: &str) {
        self.append_csv(anno::PREVIOUS_NAMES, name);
        self.append_csv(anno::PREVIOUS_NAMESPACES, ns);
        self.append_csv(anno::PREVIOUS_KINDS, kind);
    }

    /// `metadata.annotations` as a map (values as written).
    pub fn annotations(&self) -> BTreeMap<String, String> {
        string_map(self.node.get_path(&["metadata", "annotations"]))
    }

    /// `metadata.labels` as a map.
    pub fn labels(&self) -> BTreeMap<String, String> {
        string_map(self.node.get_path(&["metadata", "labels"]))
    }

    /// Replaces `metadata.annotations` (removed when empty), like kyaml `SetAnnotations`.
    pub fn set_annotations(&mut self, m: &BTreeMap<String, String>) {
        set_string_map(&mut self.node, "annotations", m);
    }

    /// Replaces `metadata.labels` (removed when empty).
    pub fn set_labels(&mut self, m: &BTreeMap<String, String>) {
        set_string_map(&mut self.node, "labels", m);
    }

    /// Sets one annotation.
    pub fn set_annotation(&mut self, key: &str, value: &str) {
        let mut a = self.annotations();
        a.insert(key.to_string(), value.to_string());
        self.set_annotations(&a);
    }

    fn csv(&self, key: &str) -> Vec<String> {
        match self.annotations().get(key) {
            Some(v) => v.split(',').map(str::to_string).collect(),
            None => Vec::new(),
        }
    }

    fn append_csv(&mut self, key: &str, value: &str) {
        if value.is_empty() {
            return;
        }
        let mut cur = self.csv(key);
        cur.push(value.to_string());
        self.set_one_annotation(key, &cur.join(","));
    }

    /// kyaml `SetAnnotation`: sets one annotation and leaves the others as written (an empty
    /// annotation map is dropped first). Unlike [`Res::set_annotations`], values such as `0x1F`
    /// stay untyped, so a later JSON patch still sees them as go-yaml reads them.
    fn set_one_annotation(&mut self, key: &str, value: &str) {
        let meta = self.node.map_at("metadata");
        if meta.get("annotations").is_some_and(Node::is_nil_or_empty) {
            meta.remove("annotations");
        }
        meta.map_at("annotations").set(key, Node::string(value));
    }

    /// Name prefixes added so far, outermost last.
    pub fn prefixes(&self) -> Vec<String> {
        self.csv(anno::PREFIXES)
    }

    /// Name suffixes added so far.
    pub fn suffixes(&self) -> Vec<String> {
        self.csv(anno::SUFFIXES)
    }

    /// Records a prefix.
    pub fn add_name_prefix(&mut self, p: &str) {
        self.append_csv(anno::PREFIXES, p);
    }

    /// Records a suffix.
    pub fn add_name_suffix(&mut self, s: &str) {
        self.append_csv(anno::SUFFIXES, s);
    }

    /// Records which resource refers to this one.
    pub fn append_ref_by(&mut self, id: &KId) {
        self.append_csv(anno::REF_BY, &id.to_string());
    }

    /// The generator behavior (`create` when unset).
    pub fn behavior(&self) -> String {
        self.annotations()
            .get(anno::GEN_BEHAVIOR)
            .cloned()
            .unwrap_or_else(|| "create".to_string())
    }

    fn is_enabled(&self, key: &str) -> bool {
        self.annotations().get(key).map(String::as_str) == Some("enabled")
    }

    /// True for generated objects that get a content-hash suffix.
    pub fn needs_hash_suffix(&self) -> bool {
        self.is_enabled(anno::NEEDS_HASH)
    }

    /// True when a patch may rename the object.
    pub fn name_change_allowed(&self) -> bool {
        self.is_enabled(anno::ALLOW_NAME_CHANGE)
    }

    /// True when a patch may change the object's kind.
    pub fn kind_change_allowed(&self) -> bool {
        self.is_enabled(anno::ALLOW_KIND_CHANGE)
    }

    /// The name prefixes and suffixes added so far.
    pub fn affixes(&self) -> Affixes {
        Affixes {
            prefixes: self.prefixes(),
            suffixes: self.suffixes(),
        }
    }

    /// Sets `metadata.name` as kyaml's `SetName` does (a string scalar).
    pub fn set_name(&mut self, name: &str) {
        set_meta_string(&mut self.node, "name", name);
    }

    /// Sets `metadata.namespace` (removed when empty, like kyaml `SetNamespace("")`).
    pub fn set_namespace(&mut self, ns: &str) {
        if ns.is_empty() {
            if let Some(m) = self.node.get_mut("metadata") {
                m.remove("namespace");
            }
        } else {
            set_meta_string(&mut self.node, "namespace", ns);
        }
    }

    /// kustomize `CopyMergeMetaDataFieldsFrom(self)`: labels and annotations rewritten as sorted
    /// string maps (an empty or null map disappears), the name as a string, an empty
    /// namespace removed.
    pub fn rewrite_metadata_as_strings(&mut self) {
        let labels = self.labels();
        self.set_labels(&labels);
        let annotations = self.annotations();
        self.set_annotations(&annotations);
        let name = self.name().to_string();
        self.set_name(&name);
        let ns = self.namespace().to_string();
        self.set_namespace(&ns);
    }

    /// Sets `kind`.
    pub fn set_kind(&mut self, kind: &str) {
        // kyaml's SetKind writes an untagged scalar (`NewScalarRNode`), unlike SetName: a
        // replacement that later writes `true` into it writes a bool.
        self.node.set("kind", Node::plain(kind));
    }

    /// Removes kustomize's build annotations. Like kustomize, this rewrites a non-empty
    /// annotation map, which turns every annotation value into a string.
    pub fn remove_build_annotations(&mut self) {
        let mut a = self.annotations();
        if a.is_empty() {
            return;
        }
        for k in build_annotations() {
            a.remove(k);
        }
        self.set_annotations(&a);
    }
}

/// kustomize `utils.SameEndingSubSlice`: the shorter list is a suffix of the longer one (an
/// empty list matches only an empty list).
/// The name prefixes and suffixes a resource was given.
#[derive(Clone, Debug, Default)]
pub struct Affixes {
    pub prefixes: Vec<String>,
    pub suffixes: Vec<String>,
}

impl Affixes {
    /// True when prefixes and suffixes agree with `other`'s (kustomize
    /// `PrefixesSuffixesEquals`); with `allow_empty`, an empty list on either side matches.
    pub fn equal(&self, other: &Affixes, allow_empty: bool) -> bool {
        let (p1, p2) = (&self.prefixes, &other.prefixes);
        let (s1, s2) = (&self.suffixes, &other.suffixes);
        if allow_empty {
            (p1.is_empty() || p2.is_empty() || same_ending(p1, p2))
                && (s1.is_empty() || s2.is_empty() || same_ending(s1, s2))
        } else {
            same_ending(p1, p2) && same_ending(s1, s2)
        }
    }
}

fn same_ending(a: &[String], b: &[String]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.is_empty() {
        return long.is_empty();
    }
    let offset = long.len() - short.len();
    short.iter().zip(&long[offset..]).all(|(x, y)| x == y)
}

/// A mapping as a map of strings: scalar values as written, anything else as "".
pub fn string_map(node: Option<&Node>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let Some(entries) = node.and_then(Node::as_map) {
        // kyaml's getMapFromMeta takes each value node's text: a mapping or a sequence has
        // none, so it becomes "".
        for (k, v) in entries {
            if let Some(k) = k.as_str() {
                out.insert(k.to_string(), v.as_str().unwrap_or_default().to_string());
            }
        }
    }
    out
}

fn set_string_map(node: &mut Node, field: &str, m: &BTreeMap<String, String>) {
    let meta = node.map_at("metadata");
    meta.remove(field);
    if m.is_empty() {
        return;
    }
    let entries = m
        .iter()
        .map(|(k, v)| (Node::plain(k.clone()), Node::string(v.clone())))
        .collect();
    meta.set(field, Node::new(NodeKind::Map(entries)));
}

fn set_meta_string(node: &mut Node, field: &str, value: &str) {
    node.map_at("metadata").set(field, Node::string(value));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{parse_one, ParseOptions};

    fn res(s: &str) -> Res {
        Res::new(
            parse_one(s.as_bytes(), &ParseOptions::default()).unwrap(),
            Origin::default(),
            BuildSchema::new(),
        )
    }

    #[test]
    fn previous_ids_round_trip() {
        let mut r = res("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n");
        assert!(r.prev_ids().is_empty());
        assert_eq!(r.org_id().name, "cm");
        r.store_previous_id();
        r.set_name("p-cm");
        r.store_previous_id();
        let prev = r.prev_ids();
        assert_eq!(prev.len(), 2);
        assert_eq!(prev[0].name, "cm");
        assert_eq!(prev[0].namespace, "default");
        assert_eq!(r.org_id().name, "cm");
        r.remove_build_annotations();
        assert!(r.node.get_path(&["metadata", "annotations"]).is_none());
    }

    #[test]
    fn same_ending_sub_slice() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(same_ending(&s(&["a", "b"]), &s(&["b"])));
        assert!(!same_ending(&s(&["a", "b"]), &s(&["a"])));
        assert!(!same_ending(&s(&[]), &s(&["a"])));
        assert!(same_ending(&s(&[]), &s(&[])));
    }
}
