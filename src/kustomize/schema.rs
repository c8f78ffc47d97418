//! The OpenAPI schema state of one build. kustomize keeps it in process globals that `openapi:`
//! fields change as the build goes (see `openapi/state.rs`); kdelta gives every build its own
//! [`BuildSchema`], which the build's loader and every resource it makes hold, so that scope
//! lookups and merges see their own build's schema on any thread.

use super::openapi::{Schema, SchemaState};
use std::sync::{Arc, Mutex, MutexGuard};

/// The schema state of one build, shared by everything the build makes.
#[derive(Debug, Default)]
pub struct BuildSchema(Mutex<SchemaState>);

impl BuildSchema {
    /// The state at the start of a build: nothing set, nothing parsed.
    pub fn new() -> Arc<BuildSchema> {
        Arc::new(BuildSchema::default())
    }

    fn state(&self) -> MutexGuard<'_, SchemaState> {
        // A poisoned lock means a panic mid-update; that build is reported as crashed anyway.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `f` on the state (a lookup may parse a schema layer lazily, as kyaml does).
    pub fn with_state<R>(&self, f: impl FnOnce(&mut SchemaState) -> R) -> R {
        f(&mut self.state())
    }

    /// The merge schema now.
    pub fn current(&self) -> Arc<Schema> {
        self.state().schema()
    }

    /// True when the schema knows the type to be cluster-scoped (kyaml
    /// `IsCertainlyClusterScoped`).
    pub fn cluster_scoped(&self, api_version: &str, kind: &str) -> bool {
        self.state().is_namespace_scoped(api_version, kind) == Some(false)
    }
}
