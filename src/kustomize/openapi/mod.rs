//! The OpenAPI schema as kustomize v5.5.0 uses it for strategic merge: per field, which lists
//! merge (and by which keys) and which are replaced.
//!
//! kyaml keeps one process-global schema built from layers of definitions: the Kubernetes
//! v1.21.2 API compiled into it ([`builtin`], generated tables), kustomize's own types, and a
//! custom document from `openapi: {path: …}` ([`CustomSchema`]). Definitions are merged by
//! name, later layers winning, and `$ref`s are resolved by name through all layers. A
//! [`Schema`] is one such stack of layers; [`SchemaState`] reproduces how a build decides which
//! layers are in it (see `state.rs`). `crds:` does not take part: in v5.5.0 it only feeds
//! transformer configurations (name references and the like), never merge keys.

// Generated; its layout is the generator's (scripts/gen-openapi-tables.py).
#[rustfmt::skip]
mod builtin;
mod custom;
mod state;
mod table;

use std::sync::{Arc, OnceLock};

pub use custom::{CustomNode, CustomSchema, CustomSchemaError};
pub use state::{OpenApiError, SchemaState};
use table::{Layer, S, T};

/// The layers kyaml's `initSchema` adds, in order.
#[derive(Clone, Debug)]
enum LayerRef {
    /// Compiled-in tables: the Kubernetes API or kustomize's own types.
    Static(&'static Layer),
    /// A custom document.
    Custom(Arc<CustomSchema>),
}

/// A stack of schema layers; lookups go from the last layer to the first.
#[derive(Clone, Debug)]
pub struct Schema {
    layers: Vec<LayerRef>,
}

/// The layers of the default schema: Kubernetes v1.21.2, then kustomize's types.
fn default_layers() -> [LayerRef; 2] {
    [
        LayerRef::Static(&builtin::KUBERNETES),
        LayerRef::Static(&builtin::KUSTOMIZE),
    ]
}

impl Schema {
    /// The schema kustomize uses when no `openapi:` field changes it.
    pub fn builtin() -> &'static Schema {
        static BUILTIN: OnceLock<Schema> = OnceLock::new();
        BUILTIN.get_or_init(|| Schema {
            layers: default_layers().to_vec(),
        })
    }

    /// A schema with nothing in it: every list is replaced, every map merged.
    pub fn empty() -> Schema {
        Schema { layers: Vec::new() }
    }

    /// The builtin schema with `custom` on top (its definitions win by name).
    pub fn with_custom(custom: Arc<CustomSchema>) -> Schema {
        let mut layers = default_layers().to_vec();
        layers.push(LayerRef::Custom(custom));
        Schema { layers }
    }

    /// Only `custom` (and kustomize's own types): what kustomize uses when a build sets
    /// `openapi: {path: …}` before anything needed the schema.
    pub fn custom_only(custom: Arc<CustomSchema>) -> Schema {
        Schema {
            layers: vec![
                LayerRef::Custom(custom),
                LayerRef::Static(&builtin::KUSTOMIZE),
            ],
        }
    }

    /// The schema of a top-level type (kyaml `SchemaForResourceType`).
    pub fn for_type(&self, api_version: &str, kind: &str) -> Option<SchemaRef<'_>> {
        self.layers.iter().rev().find_map(|layer| {
            let node = match layer {
                LayerRef::Static(l) => Node::Static(l, l.def_schema(l.gvk(api_version, kind)?)?),
                LayerRef::Custom(c) => {
                    let name = c.gvks.get(&(api_version.to_string(), kind.to_string()))?;
                    Node::Custom(c.defs.get(name)?)
                }
            };
            Some(SchemaRef { schema: self, node })
        })
    }

    /// Definition `name`, from the last layer that has it.
    fn definition(&self, name: &str) -> Option<Node<'_>> {
        self.layers.iter().rev().find_map(|layer| match layer {
            LayerRef::Static(l) => Some(Node::Static(l, l.def_schema(l.def_index(name)?)?)),
            LayerRef::Custom(c) => c.defs.get(name).map(Node::Custom),
        })
    }

    /// True when only compiled-in layers are present, so a static `$ref` can be followed by
    /// index instead of by name.
    fn static_only(&self) -> bool {
        self.layers.iter().all(|l| matches!(l, LayerRef::Static(_)))
    }

    /// Appends a layer (kyaml's `AddDefinitions`).
    fn push(&mut self, layer: LayerRef) {
        self.layers.push(layer);
    }
}

/// A schema node inside one layer.
#[derive(Clone, Copy, Debug)]
enum Node<'a> {
    Static(&'static Layer, &'static S),
    Custom(&'a CustomNode),
}

/// How kyaml merges a list: its patch strategy and merge keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListStrategy<'a> {
    /// `x-kubernetes-patch-strategy`, e.g. `merge` or `merge,retainKeys`.
    pub strategy: &'a str,
    /// `x-kubernetes-list-map-keys`, else `[x-kubernetes-patch-merge-key]`, else empty (a
    /// list of scalars that merges, like `finalizers`).
    pub keys: Vec<&'a str>,
}

impl ListStrategy<'_> {
    /// True when the strategy includes `merge` (kyaml merges the list element by element).
    pub fn merges(&self) -> bool {
        self.strategy.split(',').any(|s| s == "merge")
    }
}

/// A position in a [`Schema`]: the schema of one field, list item or map value.
#[derive(Clone, Copy, Debug)]
pub struct SchemaRef<'a> {
    schema: &'a Schema,
    node: Node<'a>,
}

/// Longest chain of `$ref`s followed before giving up (kyaml would loop forever).
const MAX_REF_CHAIN: usize = 64;

impl<'a> SchemaRef<'a> {
    /// The schema of field `name` (a property, else the map value schema), with `$ref`s
    /// resolved (kyaml `ResourceSchema.Field`).
    pub fn field(self, name: &str) -> Option<SchemaRef<'a>> {
        match self.node {
            Node::Static(layer, s) => {
                let t = layer.prop(s, name).or(s.additional)?;
                self.resolve_static(layer, t)
            }
            Node::Custom(c) => {
                let sub = c.props.get(name).or(c.additional.as_deref())?;
                self.resolve_custom(sub)
            }
        }
    }

    /// The schema of the items of an array (kyaml `ResourceSchema.Elements`).
    pub fn elements(self) -> Option<SchemaRef<'a>> {
        match self.node {
            Node::Static(layer, s) if s.array => self.resolve_static(layer, s.items?),
            Node::Custom(c) if c.array => self.resolve_custom(c.items.as_deref()?),
            _ => None,
        }
    }

    /// Follows a path of field names, `[]` standing for the items of a list (kyaml
    /// `ResourceSchema.Lookup`).
    pub fn lookup(self, path: &[&str]) -> Option<SchemaRef<'a>> {
        path.iter().try_fold(
            self,
            |s, p| {
                if *p == "[]" {
                    s.elements()
                } else {
                    s.field(p)
                }
            },
        )
    }

    /// The patch strategy and merge keys, when the schema has a patch strategy (kyaml
    /// `PatchStrategyAndKeyList`).
    pub fn list_strategy(self) -> Option<ListStrategy<'a>> {
        match self.node {
            Node::Static(_, s) => Some(ListStrategy {
                strategy: s.strategy?,
                keys: s.keys.to_vec(),
            }),
            Node::Custom(c) => Some(ListStrategy {
                strategy: c.strategy.as_deref()?,
                keys: c.keys.iter().map(String::as_str).collect(),
            }),
        }
    }

    /// True when a list with this schema is merged element by element (kyaml
    /// `schema.IsAssociative` with a schema: the strategy includes `merge`).
    pub fn is_associative(self) -> bool {
        self.list_strategy().is_some_and(|l| l.merges())
    }

    fn resolve_static(self, layer: &'static Layer, t: T) -> Option<SchemaRef<'a>> {
        match t {
            T::Inline(i) => self.follow(Node::Static(layer, layer.schema(i)?)),
            T::Def(i) if self.schema.static_only() => {
                self.follow(Node::Static(layer, layer.def_schema(i)?))
            }
            T::Def(i) => self.follow(self.schema.definition(layer.def_name(i)?)?),
        }
    }

    fn resolve_custom(self, c: &'a CustomNode) -> Option<SchemaRef<'a>> {
        self.follow(Node::Custom(c))
    }

    /// Follows `$ref`s until a schema that is not a reference (kyaml's `for s.Ref != ""`).
    fn follow(self, mut node: Node<'a>) -> Option<SchemaRef<'a>> {
        for _ in 0..MAX_REF_CHAIN {
            match node {
                Node::Custom(CustomNode {
                    reference: Some(name),
                    ..
                }) => node = self.schema.definition(name)?,
                _ => return Some(SchemaRef { node, ..self }),
            }
        }
        None
    }
}

/// kyaml's precomputed scope of the built-in types: `Some(true)` namespaced, `Some(false)`
/// cluster-scoped, `None` when the type is not built in.
pub fn builtin_namespaced(api_version: &str, kind: &str) -> Option<bool> {
    let i = builtin::NAMESPACED
        .binary_search_by(|(av, k, _)| (*av, *k).cmp(&(api_version, kind)))
        .ok()?;
    builtin::NAMESPACED.get(i).map(|(_, _, n)| *n)
}

#[cfg(test)]
mod tests;
