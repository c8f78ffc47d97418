//! The ordered list of resources a build accumulates (kustomize's `resWrangler`): appending with
//! duplicate-id detection, and absorbing generated objects by their `behavior`.

use super::error::KError;
use super::kid::KId;
use super::res::Res;
use crate::finding::rules;
use std::collections::HashSet;

/// A set of resource ids where two ids are the same when [`KId::equals`] says so: same
/// group, version, kind and name, and the same effective namespace.
#[derive(Default)]
pub struct IdSet(HashSet<IdKey>);

impl IdSet {
    /// Adds `id`; false when an equal id is already in the set.
    pub fn insert(&mut self, id: &KId) -> bool {
        self.0.insert(IdKey::of(id))
    }
}

/// What [`KId::equals`] compares: group, version, kind, name and effective namespace; equal
/// keys are equal ids, so ids can be hashed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IdKey(String, String, String, String, String);

impl IdKey {
    /// The key of an id.
    pub fn of(id: &KId) -> IdKey {
        IdKey(
            id.gvk.group.clone(),
            id.gvk.version.clone(),
            id.gvk.kind.clone(),
            id.name.clone(),
            id.effective_namespace().to_string(),
        )
    }
}

/// Two resources with the same current id, as kustomize's resource map refuses them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("may not add resource with an already registered id: {id}")]
pub struct DuplicateId {
    /// The id the second resource has.
    pub id: KId,
}

fn duplicate(id: &KId) -> KError {
    KError::new(
        rules::KUSTOMIZE_DUPLICATE_RESOURCE,
        DuplicateId { id: id.clone() }.to_string(),
    )
}

/// Resources in accumulation order.
#[derive(Clone, Debug, Default)]
pub struct ResMap {
    pub list: Vec<Res>,
}

impl ResMap {
    /// An empty map.
    pub fn new() -> ResMap {
        ResMap::default()
    }

    /// Number of resources.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Fails when two resources have the same current id (after a patch renamed one), as
    /// kustomize does when it rebuilds its resource map.
    pub fn check_unique_ids(&self) -> Result<(), DuplicateId> {
        let mut seen = IdSet::default();
        for r in &self.list {
            let id = r.cur_id();
            if !seen.insert(&id) {
                return Err(DuplicateId { id });
            }
        }
        Ok(())
    }

    /// The current ids of the resources, for appending many (see [`ResMap::append_to`]).
    pub fn ids(&self) -> IdSet {
        let mut ids = IdSet::default();
        for r in &self.list {
            ids.insert(&r.cur_id());
        }
        ids
    }

    /// Appends, failing when a resource with the same current id exists.
    pub fn append(&mut self, r: Res) -> Result<(), KError> {
        let id = r.cur_id();
        if self.list.iter().any(|x| x.cur_id().equals(&id)) {
            return Err(duplicate(&id));
        }
        self.list.push(r);
        Ok(())
    }

    /// [`ResMap::append`] in a loop without comparing each resource with all the others:
    /// `ids` holds the current ids of the list (from [`ResMap::ids`], kept up to date by
    /// every call).
    pub fn append_to(&mut self, r: Res, ids: &mut IdSet) -> Result<(), KError> {
        let id = r.cur_id();
        if !ids.insert(&id) {
            return Err(duplicate(&id));
        }
        self.list.push(r);
        Ok(())
    }

    /// Appends every resource of `other`.
    pub fn append_all(&mut self, other: ResMap) -> Result<(), KError> {
        let mut ids = self.ids();
        for r in other.list {
            self.append_to(r, &mut ids)?;
        }
        Ok(())
    }

    /// Indices of resources whose current or any previous id matches.
    pub fn matching_any_id(&self, matches: impl Fn(&KId) -> bool) -> Vec<usize> {
        self.list
            .iter()
            .enumerate()
            .filter(|(_, r)| r.prev_ids().iter().any(&matches) || matches(&r.cur_id()))
            .map(|(i, _)| i)
            .collect()
    }

    /// Indices of resources whose current id matches.
    pub fn matching_current_id(&self, matches: impl Fn(&KId) -> bool) -> Vec<usize> {
        self.list
            .iter()
            .enumerate()
            .filter(|(_, r)| matches(&r.cur_id()))
            .map(|(i, _)| i)
            .collect()
    }

    /// Adds generated resources: `create` appends, `merge` and `replace` update the existing
    /// object with the same id (kustomize `AbsorbAll`).
    pub fn absorb_all(&mut self, other: ResMap) -> Result<(), KError> {
        for r in other.list {
            self.append_replace_or_merge(r)?;
        }
        Ok(())
    }

    fn append_replace_or_merge(&mut self, mut r: Res) -> Result<(), KError> {
        let id = r.cur_id();
        let matches = self.matching_any_id(|x| x.equals(&id));
        let behavior = r.behavior();
        match matches.as_slice() {
            [] => match behavior.as_str() {
                "merge" | "replace" => Err(KError::new(
                    rules::KUSTOMIZE_GENERATOR_NO_BASE,
                    format!(
                        "id {} does not exist; cannot merge or replace",
                        go_struct_id(&id)
                    ),
                )),
                _ => self.append(r),
            },
            [i] => {
                let old = self.list[*i].clone();
                match behavior.as_str() {
                    "replace" => copy_merge_metadata(&mut r, &old),
                    "merge" => {
                        let origin = old.annotations().get(super::res::anno::ORIGIN).cloned();
                        copy_merge_metadata(&mut r, &old);
                        merge_structured_values(&mut r, &old)?;
                        merge_data_map(&mut r, &old, "data");
                        merge_data_map(&mut r, &old, "binaryData");
                        if let Some(o) = origin {
                            r.set_annotation(super::res::anno::ORIGIN, &o);
                        }
                    }
                    _ => {
                        return Err(KError::new(
                            rules::KUSTOMIZE_GENERATOR_EXISTS,
                            format!(
                                "id {} exists; behavior must be merge or replace",
                                go_struct_id(&id)
                            ),
                        ))
                    }
                }
                r.origin = old.origin.clone();
                self.list[*i] = r;
                Ok(())
            }
            _ => Err(KError::new(
                rules::KUSTOMIZE_GENERATOR_AMBIGUOUS,
                format!("found multiple objects that could accept merge of {id}"),
            )),
        }
    }
}

/// Go's `%#v` of a ResId, as kustomize prints it in generator errors.
fn go_struct_id(id: &KId) -> String {
    format!(
        "resid.ResId{{Gvk:resid.Gvk{{Group:\"{}\", Version:\"{}\", Kind:\"{}\", isClusterScoped:{}}}, Name:\"{}\", Namespace:\"{}\"}}",
        id.gvk.group, id.gvk.version, id.gvk.kind, id.gvk.cluster_scoped, id.name, id.namespace
    )
}

/// kustomize `CopyMergeMetaDataFieldsFrom`: labels and annotations merged (the new object's
/// win), build annotations taken from the old object only (the hash suffix only when both
/// want it), name and namespace from the old.
fn copy_merge_metadata(r: &mut Res, old: &Res) {
    let mut labels = old.labels();
    labels.extend(r.labels());
    r.set_labels(&labels);
    let mine = r.annotations();
    let needs_hash = mine.contains_key(super::res::anno::NEEDS_HASH);
    let theirs = old.annotations();
    let mut merged = theirs.clone();
    merged.extend(mine);
    for k in super::res::build_annotations() {
        match theirs.get(k) {
            Some(v) => {
                merged.insert(k.to_string(), v.clone());
            }
            None => {
                merged.remove(k);
            }
        }
    }
    if !needs_hash {
        merged.remove(super::res::anno::NEEDS_HASH);
    }
    r.set_annotations(&merged);
    let (name, ns) = (old.name().to_string(), old.namespace().to_string());
    r.set_name(&name);
    r.set_namespace(&ns);
    r.ref_var_names = old.ref_var_names.clone();
}

/// `mergeValues`: the listed keys present on both sides are merged as structured data before
/// the usual key-by-key merge (Secret values are decoded and re-encoded).
fn merge_structured_values(r: &mut Res, old: &Res) -> Result<(), KError> {
    use base64::Engine;
    let secret = r.kind() == "Secret";
    for mv in r.merge_values.clone() {
        let (Some(new), Some(base)) = (
            r.node
                .get_path(&["data", &mv.key])
                .and_then(|n| n.as_str())
                .map(str::to_string),
            old.node
                .get_path(&["data", &mv.key])
                .and_then(|n| n.as_str())
                .map(str::to_string),
        ) else {
            continue;
        };
        let decode = |s: &str| -> Result<String, KError> {
            if !secret {
                return Ok(s.to_string());
            }
            let compact: String = s.split_whitespace().collect();
            base64::engine::general_purpose::STANDARD
                .decode(compact)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .ok_or_else(|| {
                    KError::new(
                        rules::KUSTOMIZE_GENERATOR_MERGE_VALUES,
                        format!("value of '{}' is not base64 text", mv.key),
                    )
                })
        };
        let format = if mv.format.is_empty() {
            "json"
        } else {
            mv.format.as_str()
        };
        let merged =
            super::transform::merge_values::merge_value(&decode(&base)?, &decode(&new)?, format)
                .map_err(|e| {
                    KError::new(
                        rules::KUSTOMIZE_GENERATOR_MERGE_VALUES,
                        format!("mergeValues of key '{}': {e}", mv.key),
                    )
                })?;
        let text = if secret {
            super::generate::encode_base64_lines(merged.as_bytes())
        } else {
            merged
        };
        r.node
            .map_at("data")
            .set(&mv.key, crate::yaml::Node::string(text));
    }
    Ok(())
}

/// Merges `field` (`data`/`binaryData`) of the old object under the new one's.
fn merge_data_map(r: &mut Res, old: &Res, field: &str) {
    let old_map = super::res::string_map(old.node.get(field));
    let new_map = super::res::string_map(r.node.get(field));
    let mut merged = old_map;
    merged.extend(new_map);
    if merged.is_empty() {
        r.node.remove(field);
        return;
    }
    let entries = merged
        .into_iter()
        .map(|(k, v)| (crate::yaml::Node::string(k), crate::yaml::Node::string(v)))
        .collect();
    r.node.set(
        field,
        crate::yaml::Node::new(crate::yaml::NodeKind::Map(entries)),
    );
}
