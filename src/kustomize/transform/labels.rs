//! commonLabels / labels (LabelTransformer) and commonAnnotations (AnnotationsTransformer):
//! set each pair at every configured field, creating the maps where the spec allows.

use super::super::fieldspec::{apply, CreateKind, FieldSpec};
use super::super::resmap::ResMap;
use super::set_entry;
use std::collections::BTreeMap;

/// Sets every pair (sorted by key) at every field spec of every resource.
pub fn set_pairs(
    rm: &mut ResMap,
    pairs: &BTreeMap<String, String>,
    specs: &[FieldSpec],
) -> Result<(), String> {
    if pairs.is_empty() {
        return Ok(());
    }
    for r in &mut rm.list {
        for (k, v) in pairs {
            for fs in specs {
                apply(&mut r.node, fs, CreateKind::Map, &mut |n| {
                    set_entry(n, k, v, Some("!!str"))
                })?;
            }
        }
    }
    Ok(())
}
