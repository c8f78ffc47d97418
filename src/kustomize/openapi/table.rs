//! The shapes of the generated tables in `builtin.rs` (written by
//! scripts/gen-openapi-tables.py), and the lookups on them.

/// Where a property, array item or map value schema points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum T {
    /// A `$ref` to the definition at this index of the layer's `defs`. It is resolved by name
    /// through every layer in effect, so a custom schema can override it.
    Def(u16),
    /// An inline schema at this index of the layer's `schemas`.
    Inline(u16),
}

/// A `$ref` to definition `i` (keeps the generated file short).
pub const fn d(i: u16) -> T {
    T::Def(i)
}

/// Inline schema `i` (keeps the generated file short).
pub const fn s(i: u16) -> T {
    T::Inline(i)
}

/// One schema, reduced to what kyaml's strategic-merge walker reads.
#[derive(Debug)]
pub struct S {
    /// `type` is exactly `[array]` (kyaml only looks at items then).
    pub array: bool,
    /// The item schema of a list that merges (other lists are replaced without looking inside).
    pub items: Option<T>,
    /// Range `(start, len)` of this schema's properties in the layer's `props`, sorted by name.
    pub props: (u16, u16),
    /// The `additionalProperties` schema (map values).
    pub additional: Option<T>,
    /// `x-kubernetes-patch-strategy`.
    pub strategy: Option<&'static str>,
    /// The merge keys kyaml uses: `x-kubernetes-list-map-keys`, else
    /// `x-kubernetes-patch-merge-key`, else none.
    pub keys: &'static [&'static str],
}

/// A schema with nothing below it that strategic merge looks at (it still exists: a walker
/// standing on it does not look for another schema by apiVersion/kind).
pub const LEAF: S = S {
    array: false,
    items: None,
    props: (0, 0),
    additional: None,
    strategy: None,
    keys: &[],
};

/// An object with properties `start..start + len`.
pub const fn obj(start: u16, len: u16) -> S {
    S {
        props: (start, len),
        ..LEAF
    }
}

/// A map whose values have schema `additional`.
pub const fn map(additional: T) -> S {
    S {
        additional: Some(additional),
        ..LEAF
    }
}

/// A list with a patch strategy.
pub const fn list(strategy: &'static str, keys: &'static [&'static str], items: Option<T>) -> S {
    S {
        array: true,
        items,
        strategy: Some(strategy),
        keys,
        ..LEAF
    }
}

/// One schema document's tables (the Kubernetes API, or kustomize's own types).
#[derive(Debug)]
pub struct Layer {
    /// Definition names, sorted, with the index of their schema in `schemas`.
    pub defs: &'static [(&'static str, u16)],
    /// Schemas; index 0 is [`LEAF`].
    pub schemas: &'static [S],
    /// Properties of all schemas, in runs sorted by name.
    pub props: &'static [(&'static str, T)],
    /// (apiVersion, kind, definition index), sorted by apiVersion then kind.
    pub gvks: &'static [(&'static str, &'static str, u16)],
}

impl Layer {
    /// The index of the definition called `name`.
    pub fn def_index(&self, name: &str) -> Option<u16> {
        let i = self.defs.binary_search_by(|(n, _)| (*n).cmp(name)).ok()?;
        u16::try_from(i).ok()
    }

    /// The schema of definition `i`.
    pub fn def_schema(&'static self, i: u16) -> Option<&'static S> {
        let (_, schema) = self.defs.get(usize::from(i))?;
        self.schemas.get(usize::from(*schema))
    }

    /// The name of definition `i`.
    pub fn def_name(&self, i: u16) -> Option<&'static str> {
        self.defs.get(usize::from(i)).map(|(n, _)| *n)
    }

    /// The inline schema `i`.
    pub fn schema(&'static self, i: u16) -> Option<&'static S> {
        self.schemas.get(usize::from(i))
    }

    /// The definition registered for `apiVersion`/`kind`.
    pub fn gvk(&self, api_version: &str, kind: &str) -> Option<u16> {
        let i = self
            .gvks
            .binary_search_by(|(av, k, _)| (*av, *k).cmp(&(api_version, kind)))
            .ok()?;
        self.gvks.get(i).map(|(_, _, d)| *d)
    }

    /// Property `name` of `schema`.
    pub fn prop(&self, schema: &S, name: &str) -> Option<T> {
        let (start, len) = (usize::from(schema.props.0), usize::from(schema.props.1));
        let run = self.props.get(start..start + len)?;
        let i = run.binary_search_by(|(n, _)| (*n).cmp(name)).ok()?;
        run.get(i).map(|(_, t)| *t)
    }
}
