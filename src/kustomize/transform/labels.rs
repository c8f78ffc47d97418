//! commonLabels / labels (LabelTransformer) and commonAnnotations (AnnotationsTransformer):
//! set each pair at every configured field, creating the maps where the spec allows.
//!
//! kustomize's `SetEntry` makes one value node per resource and key and puts that same Go
//! object at every path where it creates the entry (`metadata.labels`, `spec.selector`, the
//! pod template…). A later in-place write to any of them — an overlay's `labels` changing the
//! value in `metadata.labels`, a replacement, a strategic-merge patch — shows at all of them.
//! The nodes carry that identity in [`Node::shared`] so kdelta prints what kustomize prints.

use super::super::fieldspec::{apply, CreateKind, FieldSpec, PluginFieldSpec};
use super::super::resmap::ResMap;
use super::{set_entry, SetError};
use crate::yaml::{Node, NodeKind, Scalar, ScalarStyle};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// Sets every pair (sorted by key) at every field spec of every resource.
pub fn set_pairs(
    rm: &mut ResMap,
    pairs: &BTreeMap<String, String>,
    specs: &[FieldSpec],
) -> Result<(), SetError> {
    if pairs.is_empty() {
        return Ok(());
    }
    for r in &mut rm.list {
        for (k, v) in pairs {
            let created = Node::next_shared_id();
            let mut overwritten = Vec::new();
            for fs in specs {
                apply(&mut r.node, fs, CreateKind::Map, &mut |n| {
                    let identity = set_entry(n, k, v, Some("!!str"), created)?;
                    if identity != 0 {
                        overwritten.push(identity);
                    }
                    Ok(())
                })?;
            }
            let value = NodeKind::Scalar(Scalar {
                text: v.clone(),
                style: ScalarStyle::Plain,
                tag: Some("!!str".into()),
            });
            for identity in overwritten {
                r.node.write_shared(identity, &value);
            }
        }
    }
    Ok(())
}

/// LabelTransformer and AnnotationsTransformer: pairs set at the field specs.
pub struct Config<'a> {
    pub pairs: Cow<'a, BTreeMap<String, String>>,
    pub specs: Cow<'a, [FieldSpec]>,
}

impl Config<'_> {
    pub fn apply(&self, rm: &mut ResMap) -> Result<(), SetError> {
        set_pairs(rm, &self.pairs, &self.specs)
    }
}

/// Their plugin config.
#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct PluginConfig {
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
    #[serde(default)]
    pub field_specs: Vec<PluginFieldSpec>,
}
