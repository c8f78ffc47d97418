//! The OpenAPI schema state of the build running on this thread. kustomize keeps it in
//! process globals that `openapi:` fields change as the build goes (see `openapi/state.rs`);
//! kdelta keeps one [`SchemaState`] per build, in a thread-local, because a build never spans
//! threads while different targets build in parallel.

use super::openapi::{Schema, SchemaState};
use std::cell::RefCell;
use std::sync::Arc;

thread_local! {
    static STATE: RefCell<SchemaState> = RefCell::new(SchemaState::new());
}

/// Runs `f` on the current build's schema state.
pub fn with_state<R>(f: impl FnOnce(&mut SchemaState) -> R) -> R {
    STATE.with(|s| f(&mut s.borrow_mut()))
}

/// The merge schema now.
pub fn current() -> Arc<Schema> {
    with_state(|s| s.schema())
}

/// True when the schema knows the type to be cluster-scoped (kyaml `IsCertainlyClusterScoped`).
pub fn cluster_scoped(api_version: &str, kind: &str) -> bool {
    with_state(|s| s.is_namespace_scoped(api_version, kind)) == Some(false)
}

/// A fresh state (at the start and end of every build).
pub fn reset() {
    STATE.with(|s| *s.borrow_mut() = SchemaState::new());
}
