//! kyaml's merge of associative lists (kyaml/yaml/walk/associative_sequence.go) with
//! `ListIncreaseDirection: Prepend`, as kustomize runs it.
//!
//! The walker collects the merge-key values of the patch's items, then of the resource's
//! (first occurrence wins), merges the items pairwise in that order into a new list, deletes
//! from the resource list what merged to nothing, and finally puts the resource's remaining
//! items into the new list by key (replacing the merged item in place, or appending). So the
//! patch's items come first. The odd results for items without a merge key, or with only some
//! of several keys, fall out of the exact filter semantics in `filters.rs`.

use std::collections::HashSet;

use super::arena::Id;
use super::walk::Merger;
use super::SmpError;
use crate::kustomize::openapi::SchemaRef;

impl<'s> Merger<'s> {
    /// kyaml `walkAssociativeSequence`.
    pub(super) fn walk_associative(
        &mut self,
        dest: Option<Id>,
        origin: Option<Id>,
        schema: SchemaRef<'s>,
    ) -> Result<Option<Id>, SmpError> {
        let Some(dest) = self.visit_associative_list(dest, origin)? else {
            return Ok(None);
        };
        let keys: Vec<String> = schema
            .list_strategy()
            .map(|l| l.keys.iter().map(|k| k.to_string()).collect())
            .unwrap_or_default();
        let values = self.element_values(&keys, dest, origin);
        if !values.is_empty() || !keys.is_empty() {
            return self.set_elements(values, keys, dest, origin, schema);
        }
        // A list of scalars (e.g. finalizers): merged by value.
        let values = self.primitive_values(dest, origin);
        self.set_elements(values, vec![String::new()], dest, origin, schema)
    }

    /// kyaml `elementValues`: the merge-key values of every item, patch first, without
    /// repeats (items of other kinds, or without the keys, give empty strings).
    fn element_values(&self, keys: &[String], dest: Id, origin: Option<Id>) -> Vec<Vec<String>> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for src in [origin, Some(dest)].into_iter().flatten() {
            for item in self.arena.items(src) {
                let values: Vec<String> = keys
                    .iter()
                    .map(|k| match self.arena.field(item, k) {
                        Some(v) if !self.arena.is_nil_or_empty(v) => {
                            self.arena.value(v).to_string()
                        }
                        _ => String::new(),
                    })
                    .collect();
                if !values.is_empty() && seen.insert(values.clone()) {
                    out.push(values);
                }
            }
        }
        out
    }

    /// kyaml `elementPrimitiveValues`: the texts of every item, patch first, without repeats.
    fn primitive_values(&self, dest: Id, origin: Option<Id>) -> Vec<Vec<String>> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for src in [origin, Some(dest)].into_iter().flatten() {
            for item in self.arena.items(src) {
                let text = self.arena.value(item).to_string();
                if seen.insert(text.clone()) {
                    out.push(vec![text]);
                }
            }
        }
        out
    }

    /// kyaml `setAssociativeSequenceElements`.
    fn set_elements(
        &mut self,
        mut values_list: Vec<Vec<String>>,
        keys: Vec<String>,
        dest: Id,
        origin: Option<Id>,
        schema: SchemaRef<'s>,
    ) -> Result<Option<Id>, SmpError> {
        let added = self.arena.new_seq();
        let item_schema = schema.elements();
        if keys.len() > 1 {
            merge_values(&mut values_list);
        }
        // As in kyaml, the keys of the last item are what the final pass matches on.
        let mut valid_keys = Vec::new();
        for values in &values_list {
            if values.is_empty() {
                continue;
            }
            let (vk, valid_values) = validate_keys(&values_list, values, &keys);
            valid_keys = vk;
            let (d, o) = self.element_sources(&valid_keys, &valid_values, dest, origin);
            self.path.push(item_label(&valid_keys, &valid_values));
            let merged = self.walk(d, o, item_schema);
            self.path.pop();
            let val = merged?;
            let gone = self.arena.missing_or_null(val) || self.arena.is_empty_map(val);
            let mut exit = false;
            for (key, value) in valid_keys.iter().zip(&valid_values) {
                if gone {
                    self.arena
                        .element_set(dest, None, &valid_keys, &valid_values)
                        .map_err(|e| self.kind_error(e))?;
                    exit = true;
                } else if let Some(v) = val {
                    if self.arena.field(v, key).is_none() && !value.is_empty() {
                        // The merged item lacks a key it was found by: set it.
                        let key_value = self.arena.new_plain(value);
                        self.arena
                            .set_field(v, key, Some(key_value))
                            .map_err(|e| self.kind_error(e))?;
                    }
                }
            }
            if exit {
                continue;
            }
            self.arena
                .element_set(added, val, &valid_keys, &valid_values)
                .map_err(|e| self.kind_error(e))?;
        }
        let result = if values_list.is_empty() {
            dest
        } else {
            self.append_items(added, dest, &valid_keys)?
        };
        Ok((!self.arena.missing_or_null(Some(result))).then_some(result))
    }

    /// kyaml `elementValueList`: the item matching the keys on each side.
    fn element_sources(
        &self,
        keys: &[String],
        values: &[String],
        dest: Id,
        origin: Option<Id>,
    ) -> (Option<Id>, Option<Id>) {
        let (keys, values) = validate_keys(&[values.to_vec()], values, keys);
        let find = |src: Id| self.arena.element_match(src, &keys, &values);
        (find(dest), origin.and_then(find))
    }

    /// kyaml `appendListNode(dst, src, keys)`: puts every item of `src` into `dst` by key.
    fn append_items(&mut self, dst: Id, src: Id, keys: &[String]) -> Result<Id, SmpError> {
        let primitive = keys.first().is_none_or(|k| k.is_empty());
        for item in self.arena.items(src) {
            if primitive {
                let text = self.arena.value(item).to_string();
                self.arena
                    .element_set(dst, Some(item), &[String::new()], &[text])
                    .map_err(|e| self.kind_error(e))?;
                continue;
            }
            let mut values = Vec::new();
            for key in keys {
                let found = self
                    .arena
                    .match_field(Some(item), key, None)
                    .map_err(|e| self.kind_error(e))?;
                match found {
                    Some(v) => values.push(self.arena.value(v).to_string()),
                    // kyaml appends the item once per missing key, then still sets it below.
                    None => self.arena.push_item(dst, item),
                }
            }
            if keys.len() > 1 {
                self.arena
                    .element_set(dst, None, keys, &values)
                    .map_err(|e| self.kind_error(e))?;
            }
            self.arena
                .element_set(dst, Some(item), keys, &values)
                .map_err(|e| self.kind_error(e))?;
        }
        Ok(dst)
    }
}

/// A path segment naming a list item, for error messages: `[name=web]`.
fn item_label(keys: &[String], values: &[String]) -> String {
    let pairs: Vec<String> = keys
        .iter()
        .zip(values)
        .map(|(k, v)| {
            if k.is_empty() {
                format!("={v}")
            } else {
                format!("{k}={v}")
            }
        })
        .collect();
    format!("[{}]", pairs.join(","))
}

/// kyaml `validateKeys`: keeps the keys that have a value in some item (all keys when none
/// has), and the values that are set or belong to a kept key.
fn validate_keys(
    values_list: &[Vec<String>],
    values: &[String],
    keys: &[String],
) -> (Vec<String>, Vec<String>) {
    let with_value: HashSet<&str> = values_list
        .iter()
        .flat_map(|vs| {
            vs.iter()
                .enumerate()
                .filter(|(_, v)| !v.is_empty())
                .filter_map(|(i, _)| keys.get(i).map(String::as_str))
        })
        .collect();
    if with_value.is_empty() {
        return (keys.to_vec(), values.to_vec());
    }
    let valid_keys = keys
        .iter()
        .filter(|k| with_value.contains(k.as_str()))
        .cloned()
        .collect();
    let valid_values = values
        .iter()
        .enumerate()
        .filter(|(i, v)| {
            !v.is_empty()
                || keys
                    .get(*i)
                    .is_some_and(|k| with_value.contains(k.as_str()))
        })
        .map(|(_, v)| v.clone())
        .collect();
    (valid_keys, valid_values)
}

/// kyaml `mergeValues`: key tuples that agree where both are set are made equal (so a port
/// without a protocol matches the same port with one).
fn merge_values(values_list: &mut [Vec<String>]) {
    for i in 0..values_list.len() {
        let first = values_list[i].clone();
        for j in 0..values_list.len() {
            if let Some(merged) = match_values(&first, &values_list[j]) {
                values_list[i] = merged.clone();
                values_list[j] = merged;
            }
        }
    }
}

/// kyaml `match`: two tuples match when they share a value at some position and differ only
/// where one of them is empty; the result takes the set value at each position.
fn match_values(a: &[String], b: &[String]) -> Option<Vec<String>> {
    if a.len() != b.len() {
        return None;
    }
    let mut common = false;
    let mut out = Vec::with_capacity(a.len());
    for (x, y) in a.iter().zip(b) {
        if x == y {
            common = true;
            out.push(x.clone());
        } else if !x.is_empty() && !y.is_empty() {
            return None;
        } else if !x.is_empty() {
            out.push(x.clone());
        } else {
            out.push(y.clone());
        }
    }
    common.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn merge_values_fills_missing_protocols() {
        let mut list = vec![v(&["8080", ""]), v(&["8080", "TCP"]), v(&["9090", "UDP"])];
        merge_values(&mut list);
        assert_eq!(
            list,
            vec![
                v(&["8080", "TCP"]),
                v(&["8080", "TCP"]),
                v(&["9090", "UDP"])
            ]
        );
    }

    #[test]
    fn validate_keys_drops_keys_nobody_sets() {
        let list = vec![v(&["8080", ""]), v(&["9090", ""])];
        assert_eq!(
            validate_keys(&list, &list[0], &v(&["containerPort", "protocol"])),
            (v(&["containerPort"]), v(&["8080"]))
        );
        let none = vec![v(&["", ""])];
        assert_eq!(
            validate_keys(&none, &none[0], &v(&["a", "b"])),
            (v(&["a", "b"]), v(&["", ""]))
        );
    }
}
