//! The OpenAPI schema in effect for one build: kustomize's built-in Kubernetes v1.21.2 data
//! plus what `openapi:` and `crds:` add. kustomize keeps this in a process-global; kdelta keeps
//! it per thread for the duration of one build (a build never spans threads).

use std::cell::RefCell;
use std::collections::BTreeSet;

thread_local! {
    static CUSTOM_CLUSTER_SCOPED: RefCell<BTreeSet<(String, String)>> = const { RefCell::new(BTreeSet::new()) };
}

/// True when the custom schema of the current build declares this type cluster-scoped.
pub fn custom_cluster_scoped(api_version: &str, kind: &str) -> bool {
    CUSTOM_CLUSTER_SCOPED.with(|s| {
        let s = s.borrow();
        !s.is_empty() && s.contains(&(api_version.to_string(), kind.to_string()))
    })
}

/// Clears the per-build schema additions (at the start and end of every build).
pub fn reset() {
    CUSTOM_CLUSTER_SCOPED.with(|s| s.borrow_mut().clear());
}
