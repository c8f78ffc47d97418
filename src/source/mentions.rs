//! Which files mention a marker (`argoproj.io/`, `kustomize.toolkit.fluxcd.io`): discovery asks
//! of every YAML file at both revisions, and the blobs known not to mention it (large CRD
//! bundles, which the blob store does not keep) are not inflated again to be searched again.

use super::{Bytes, ObjectId, RepoPath, Snapshot};
use std::collections::HashSet;
use std::sync::{Mutex, MutexGuard, OnceLock};

/// How many (marker, id) pairs are kept before the memory starts again (about 30 bytes each).
const KEPT: usize = 200_000;

fn known_without() -> MutexGuard<'static, HashSet<(&'static str, ObjectId)>> {
    static IDS: OnceLock<Mutex<HashSet<(&'static str, ObjectId)>>> = OnceLock::new();
    IDS.get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// The file's content when it mentions `marker`; `None` when it does not (remembered by blob
/// id across snapshots) or cannot be read.
pub fn read_if_mentions(
    snapshot: &dyn Snapshot,
    path: &RepoPath,
    marker: &'static str,
) -> Option<Bytes> {
    let id = snapshot.stored_id(path);
    if id.is_some_and(|id| known_without().contains(&(marker, id))) {
        return None;
    }
    let bytes = snapshot.read(path).ok()?;
    if memchr::memmem::find(&bytes, marker.as_bytes()).is_some() {
        return Some(bytes);
    }
    if let Some(id) = id {
        let mut known = known_without();
        if known.len() >= KEPT {
            known.clear();
        }
        known.insert((marker, id));
    }
    None
}
