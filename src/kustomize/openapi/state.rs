//! Which schema layers a build ends up with. kyaml holds the schema in process globals that
//! kustomize sets from the `openapi:` field of each kustomization (`SetSchema`: the top one
//! first with reset, then each sub-kustomization as it is accumulated, only while nothing is
//! set yet) and parses lazily on first use (`initSchema`), adding layers without ever removing
//! any. So the order of events in a build decides the result: a custom schema set before the
//! first use replaces the Kubernetes types; one set after a merge already needed the schema is
//! laid on top of them. [`SchemaState`] replays those rules for one build.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{builtin, builtin_namespaced, CustomSchema, CustomSchemaError, LayerRef, Schema};

/// The only Kubernetes version whose schema kustomize v5.5.0 has built in.
pub const DEFAULT_VERSION: &str = "v1.21.2";

/// An `openapi:` field kustomize rejects.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenApiError {
    #[error("builtin version and custom schema provided, cannot use both")]
    VersionAndPath,
    #[error("the specified OpenAPI version is not built in")]
    NotBuiltIn { version: String },
    #[error(transparent)]
    Custom(#[from] CustomSchemaError),
}

/// Parse status of the built-in Kubernetes layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Builtin {
    NotParsed,
    /// A scope query wanted it; it is parsed with the next initialisation.
    Delayed,
    Parsed,
}

/// The schema of one build, following kyaml's `SetSchema`/`initSchema`/`IsNamespaceScoped`.
#[derive(Debug)]
pub struct SchemaState {
    /// `kubernetesOpenAPIVersion`: empty when unset, `custom` with a custom schema.
    version: String,
    /// The custom document waiting to be (or already) parsed.
    custom: Option<Arc<CustomSchema>>,
    /// `schemaInit`: the current settings have been parsed.
    initialised: bool,
    builtin: Builtin,
    /// Every layer parsed so far, in order.
    schema: Arc<Schema>,
    /// Scope of types named in custom documents' `paths`.
    namespaced: BTreeMap<(String, String), bool>,
}

impl Default for SchemaState {
    fn default() -> Self {
        SchemaState::new()
    }
}

impl SchemaState {
    /// The state at the start of a build: nothing set, nothing parsed.
    pub fn new() -> SchemaState {
        SchemaState {
            version: String::new(),
            custom: None,
            initialised: false,
            builtin: Builtin::NotParsed,
            schema: Arc::new(Schema::empty()),
            namespaced: BTreeMap::new(),
        }
    }

    /// kustomize's `openapi.SetSchema` for one kustomization: `openapi` is its `openapi:`
    /// field, `custom` the file named by `openapi.path` (name for messages, bytes), and
    /// `top_level` is true for the kustomization being built (kyaml's `reset`). Call it for
    /// the top kustomization after loading it, and for each sub-kustomization (resource or
    /// component) right after loading it, before accumulating it.
    pub fn set(
        &mut self,
        openapi: &BTreeMap<String, String>,
        custom: Option<(&str, &[u8])>,
        top_level: bool,
    ) -> Result<(), OpenApiError> {
        let already_set = !self.version.is_empty() || self.custom.is_some();
        if already_set && !top_level {
            return Ok(());
        }
        let version = openapi.get("version");
        if let Some((file, bytes)) = custom {
            if version.is_some() {
                return Err(OpenApiError::VersionAndPath);
            }
            self.custom = Some(Arc::new(CustomSchema::parse(file, bytes)?));
            self.version = "custom".to_string();
            self.initialised = false;
            return Ok(());
        }
        self.version = version.cloned().unwrap_or_default();
        if self.version.is_empty() {
            return Ok(());
        }
        if self.version != DEFAULT_VERSION {
            return Err(OpenApiError::NotBuiltIn {
                version: self.version.clone(),
            });
        }
        self.custom = None;
        self.initialised = false;
        Ok(())
    }

    /// The schema for a strategic merge now (kyaml `initSchema` then the global schema).
    pub fn schema(&mut self) -> Arc<Schema> {
        self.initialise();
        Arc::clone(&self.schema)
    }

    /// kyaml `IsNamespaceScoped`: `Some(true)` namespaced, `Some(false)` cluster-scoped,
    /// `None` unknown. Like kyaml it may parse the schema, or mark the built-in one to be
    /// parsed later, so call it where kustomize does (whenever it computes a resource's
    /// group/version/kind scope), not speculatively.
    pub fn is_namespace_scoped(&mut self, api_version: &str, kind: &str) -> Option<bool> {
        if let Some(n) = builtin_namespaced(api_version, kind) {
            return Some(n);
        }
        if self.needs_initialising_for_scope() {
            self.initialise();
        }
        // Without custom schemas the map is empty: no key to make.
        if self.namespaced.is_empty() {
            return None;
        }
        self.namespaced
            .get(&(api_version.to_string(), kind.to_string()))
            .copied()
    }

    /// kyaml `isInitSchemaNeededForNamespaceScopeCheck`.
    fn needs_initialising_for_scope(&mut self) -> bool {
        if self.initialised {
            return false;
        }
        if self.custom.is_some() {
            return true;
        }
        if self.version.is_empty() || self.version == DEFAULT_VERSION {
            if self.builtin == Builtin::NotParsed {
                self.builtin = Builtin::Delayed;
            }
            return false;
        }
        true
    }

    /// kyaml `initSchema`: adds the layers of the current settings.
    fn initialise(&mut self) {
        if self.initialised {
            return;
        }
        self.initialised = true;
        let mut layers = Vec::new();
        if let Some(custom) = &self.custom {
            for (tm, namespaced) in &custom.namespaced {
                if *namespaced {
                    self.namespaced.insert(tm.clone(), true);
                } else {
                    self.namespaced.entry(tm.clone()).or_insert(false);
                }
            }
            layers.push(LayerRef::Custom(Arc::clone(custom)));
        } else {
            layers.push(LayerRef::Static(&builtin::KUBERNETES));
            self.builtin = Builtin::Parsed;
        }
        if self.builtin == Builtin::Delayed {
            layers.push(LayerRef::Static(&builtin::KUBERNETES));
            self.builtin = Builtin::Parsed;
        }
        layers.push(LayerRef::Static(&builtin::KUSTOMIZE));
        let schema = Arc::make_mut(&mut self.schema);
        for layer in layers {
            schema.push(layer);
        }
    }
}
