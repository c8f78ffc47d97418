//! replicas (ReplicaCountTransformer): sets the replica count of the named workloads.

use super::super::fieldspec::{apply, CreateKind, FieldSpec, PluginFieldSpec};
use super::super::kid::Gvk;
use super::super::resmap::ResMap;
use super::super::types::Replica;
use super::{set_scalar, SetError};
use std::borrow::Cow;

/// Why the replica count cannot be set.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReplicasError {
    /// No resource of a field spec's kinds has the name.
    #[error("resource with name {name} does not match a config with the following GVK [{}]", gvks.iter().map(Gvk::to_string).collect::<Vec<_>>().join(" "))]
    NoMatch { name: String, gvks: Vec<Gvk> },
    #[error(transparent)]
    Set(#[from] SetError),
}

/// Sets `count` on every resource named `name` (by any of its ids) selected by a field spec.
pub fn set_replicas(
    rm: &mut ResMap,
    name: &str,
    count: i64,
    specs: &[FieldSpec],
) -> Result<(), ReplicasError> {
    let mut found = false;
    for fs in specs {
        let idx = rm.matching_any_id(|id| id.name == name && id.gvk.is_selected(&fs.gvk));
        if idx.is_empty() {
            continue;
        }
        found = true;
        for i in idx {
            apply(&mut rm.list[i].node, fs, CreateKind::Scalar, &mut |n| {
                set_scalar(n, &count.to_string(), Some("!!int"))
            })?;
        }
    }
    if !found {
        return Err(ReplicasError::NoMatch {
            name: name.to_string(),
            gvks: specs.iter().map(|f| f.gvk.clone()).collect(),
        });
    }
    Ok(())
}

/// ReplicaCountTransformer.
pub struct Config<'a> {
    pub replica: Cow<'a, Replica>,
    pub specs: Cow<'a, [FieldSpec]>,
}

impl Config<'_> {
    pub fn apply(&self, rm: &mut ResMap) -> Result<(), ReplicasError> {
        set_replicas(rm, &self.replica.name, self.replica.count, &self.specs)
    }
}

/// Its plugin config.
#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct PluginConfig {
    #[serde(default)]
    pub replica: Replica,
    #[serde(default)]
    pub field_specs: Vec<PluginFieldSpec>,
}
