//! Strategic merge patch, exactly as kustomize v5.5.0 applies it: kyaml's `merge2.Merge` with
//! `ListIncreaseDirection: Prepend` (api/filters/patchstrategicmerge), which is the `walk`
//! package's walker driving merge2's `Merger` visitor.
//!
//! What that means, beyond "maps merge, scalars are replaced":
//! * `null` (or an empty value) in the patch deletes the field. An explicit `null`/`~` in the
//!   resource that the patch does not touch is kept; an empty value is dropped.
//! * A list merges item by item only when the [`Schema`] gives its field a patch strategy
//!   containing `merge`; its merge keys are `x-kubernetes-list-map-keys`, else
//!   `x-kubernetes-patch-merge-key` (a list of scalars, like `finalizers`, merges by value).
//!   The patch's items come first, in patch order, then the resource's other items. Every
//!   other list (no schema: custom resources) is replaced by the patch's list as written.
//! * `$patch: delete` deletes a map or a list item, `$patch: replace` on a map replaces it
//!   (on a list item it has no effect: kyaml puts the resource's item back), and a
//!   `- $patch: replace|delete` item deletes or replaces a merged list. `$patch: delete` on the
//!   whole patch deletes the resource ([`Merged::Deleted`]); `$patch: replace` there does
//!   nothing.
//! * `$setElementOrder/…`, `$deleteFromPrimitiveList/…` and `$retainKeys` are not acted on:
//!   they are ordinary fields, copied into the result (kustomize-extra case 31).
//! * Where a field has no schema, an object with `apiVersion` and `kind` takes the schema of
//!   that type (kyaml's walker does this at every level).
//!
//! The name, namespace and kind reset that kustomize's `Resource.ApplySmPatch` does after the
//! merge is left to the caller.

mod arena;
mod aside;
mod assoc;
mod filters;
mod walk;

#[cfg(test)]
mod tests;

use crate::kustomize::openapi::Schema;
use crate::yaml::Node;
use arena::KindName;
use walk::Merger;

/// Deepest nesting the merge follows (the YAML parser already refuses deeper documents).
const MAX_DEPTH: usize = 1000;

/// What a merge did to the resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Merged {
    /// The resource was patched in place.
    Patched,
    /// The patch deleted the whole resource (`$patch: delete` at its top); drop it.
    Deleted,
}

/// Why a strategic merge failed. Messages follow kyaml's wording, with the field path added.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SmpError {
    #[error("wrong node kind: expected {expected} but got {found}{}", at(path))]
    WrongKind {
        path: String,
        expected: &'static str,
        found: &'static str,
    },
    #[error("unknown patch strategy '{value}'{}", at(path))]
    UnknownDirective { path: String, value: String },
    #[error(
        "no implemented strategic merge patch strategy for '{tag}' ('{value}'){}",
        at(path)
    )]
    ScalarDirective {
        path: String,
        tag: String,
        value: String,
    },
    #[error("the patch nests deeper than {limit} levels{}", at(path))]
    TooDeep { path: String, limit: usize },
}

fn at(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!(" (at {path})")
    }
}

/// Merges `patch` into the resource `dest` (kyaml `merge2.Merge(patch, dest, Prepend)`).
/// `schema` gives the merge keys; kustomize's is `SchemaState::schema()` of the build, usually
/// [`Schema::builtin`]. kustomize deep-copies the patch for every resource it applies to; here
/// `patch` is only read, so one patch can be applied to many resources.
pub fn merge(dest: &mut Node, patch: &Node, schema: &Schema) -> Result<Merged, SmpError> {
    match aside::set_aside(dest, patch, 0) {
        None => merge_walked(dest, patch, schema),
        Some(aside) => {
            let merged = merge_walked(dest, patch, schema);
            aside::restore(dest, aside);
            merged
        }
    }
}

/// [`merge`], walking every field of `dest`.
fn merge_walked(dest: &mut Node, patch: &Node, schema: &Schema) -> Result<Merged, SmpError> {
    let mut m = Merger::new(schema);
    let root = m.arena.import(dest);
    let origin = m.arena.import(patch);
    if m.walk(Some(root), Some(origin), None)?.is_none() {
        return Ok(Merged::Deleted);
    }
    // The resource is the node that was merged into, whatever the walk returned: kustomize
    // ignores the returned node (so a top-level `$patch: replace` changes nothing).
    *dest = m
        .arena
        .export(root, 2 * MAX_DEPTH)
        .ok_or(SmpError::TooDeep {
            path: String::new(),
            limit: MAX_DEPTH,
        })?;
    Ok(Merged::Patched)
}

impl SmpError {
    fn wrong_kind(path: String, expected: KindName, found: KindName) -> SmpError {
        SmpError::WrongKind {
            path,
            expected: expected.go_name(),
            found: found.go_name(),
        }
    }
}
