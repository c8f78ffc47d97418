//! The seam between the patch transformers and the strategic-merge engine: the schema of the
//! build the patched resource belongs to.

use super::schema::BuildSchema;
use super::smp::{self, Merged, SmpError};
use crate::yaml::Node;

/// Merges `patch` into `target` with the build's schema; false when the patch deletes the
/// whole object.
pub fn merge(target: &mut Node, patch: &Node, schema: &BuildSchema) -> Result<bool, SmpError> {
    let schema = schema.current();
    smp::merge(target, patch, &schema).map(|m| m == Merged::Patched)
}
