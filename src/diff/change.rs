//! The diff's result types: what happened to a resource and to each of its fields.

use serde::{Deserialize, Serialize};

/// What happened to one resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    Added,
    Removed,
    Modified,
    Renamed,
}

/// One changed field: a kdelta path (`spec.template.spec.containers[name=app].image`) and the
/// values on each side; a side is absent when the field does not exist there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FieldChange {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<serde_json::Value>,
}

/// A changed resource.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// `group/version/Kind/namespace/name` at head (at base for removals).
    pub resource: String,
    pub change: ChangeKind,
    /// For renames and moves: the id at base.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// For a move from another target: that target's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_target: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldChange>,
    /// Why the object appears or disappears, when kdelta knows more than the diff (a Helm
    /// subchart switched on or off: `subchart redis pruned at head: condition redis.enabled=false`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The whole object as added or removed (Secret values redacted), for writers that show it.
    #[serde(skip)]
    pub body: Option<super::Body>,
}

impl Change {
    /// Where a renamed or moved object came from: its old id, prefixed by its old target when
    /// it moved between targets (`dir:one core/v1/ConfigMap/a/shared`).
    pub fn origin(&self) -> Option<String> {
        let from = self.from.as_ref()?;
        Some(match &self.from_target {
            Some(t) => format!("{t} {from}"),
            None => from.clone(),
        })
    }
}
