//! The seam between the patch transformers and the strategic-merge engine.

use crate::yaml::Node;

/// Merges `patch` into `target`; false when the patch deletes the whole object.
pub fn merge(_target: &mut Node, _patch: &Node) -> Result<bool, String> {
    Err("strategic merge patches are not supported by this kdelta version yet".to_string())
}
