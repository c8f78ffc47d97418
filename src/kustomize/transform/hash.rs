//! Appends the content hash to the names of generated objects (HashTransformer); runs once, at
//! the top of the build, after every transformer.

use super::super::resmap::ResMap;

/// Renames every resource that asked for a hash suffix.
pub fn add_hash_suffixes(rm: &mut ResMap) {
    for r in &mut rm.list {
        if r.needs_hash_suffix() {
            let h = super::super::hash::hash_of(r);
            r.store_previous_id();
            let name = format!("{}-{h}", r.name());
            r.set_name(&name);
        }
    }
}
