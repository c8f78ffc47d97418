//! Field specs: "this path in objects of this kind" (kustomize `types.FieldSpec`) and the walk
//! that applies a setter at every match (kustomize `filters/fieldspec`), creating missing
//! fields when the spec says so.

use super::kid::{Gvk, KId};
use crate::yaml::{Node, NodeKind, Span};
use std::fmt;

/// A path (`spec/template/metadata/labels`, `spec/containers[]/image`) in objects selected by
/// group/version/kind (empty parts match anything).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FieldSpec {
    pub gvk: Gvk,
    pub path: String,
    pub create: bool,
}

impl FieldSpec {
    /// A spec for any object.
    pub fn any(path: &str, create: bool) -> FieldSpec {
        FieldSpec {
            gvk: Gvk::default(),
            path: path.to_string(),
            create,
        }
    }

    /// kustomize `effectivelyEquals`: same path, and `other`'s gvk parts match this one's.
    pub fn effectively_equals(&self, other: &FieldSpec) -> bool {
        self.gvk.is_selected(&other.gvk) && self.path == other.path
    }

    /// True when the spec applies to an object node (kind, group and version, when set, match).
    pub fn matches(&self, obj: &Node) -> bool {
        let kind = obj.str_at(&["kind"]).unwrap_or("");
        let (group, version) =
            crate::resource::split_api_version(obj.str_at(&["apiVersion"]).unwrap_or(""));
        (self.gvk.kind.is_empty() || self.gvk.kind == kind)
            && (self.gvk.group.is_empty() || self.gvk.group == group)
            && (self.gvk.version.is_empty() || self.gvk.version == version)
    }
}

/// Splits a field-spec path on `/`, honouring `\/` escapes (kyaml `PathSplitter`).
pub fn split_path(path: &str) -> Vec<String> {
    let mut parts: Vec<&str> = path.split('/').collect();
    if parts.len() > 1 && parts[0].is_empty() {
        parts.remove(0);
    }
    let mut out: Vec<String> = Vec::new();
    for p in parts {
        match out.last_mut() {
            Some(last) if last.ends_with('\\') => {
                last.pop();
                last.push('/');
                last.push_str(p);
            }
            _ => out.push(p.to_string()),
        }
    }
    out
}

/// What to create at the end of the path when it is missing and the spec has `create`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CreateKind {
    /// Never create (kind 0 upstream).
    Nothing,
    Scalar,
    Map,
    Seq,
}

/// Why a field spec could not be applied to an object: the spec's path, the object, the
/// sequences the walk was inside (kustomize names the path still to walk at each), and the
/// cause, `E` being the setter's own errors. Displayed as kustomize wraps it.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldSpecError<E> {
    /// The field spec's path (`spec/template/metadata/labels`).
    pub field: String,
    /// The object, as kustomize prints its id.
    pub object: KId,
    /// The path left to walk below each sequence the walk went through, innermost first.
    pub traversal: Vec<Vec<String>>,
    pub cause: WalkError<E>,
}

/// What stopped the walk of a field spec's path.
#[derive(Debug, Clone, PartialEq)]
pub enum WalkError<E> {
    /// A scalar where the path goes on; `span` is where the scalar is written.
    NotACollection { span: Span },
    /// An empty element in the path (`a//b`).
    EmptyFieldName,
    /// `*` as an element, which kyaml's `PathGetter` does not allow.
    Wildcard,
    /// The setter failed at the end of the path.
    Set(E),
}

impl<E: fmt::Display> fmt::Display for WalkError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WalkError::NotACollection { .. } => f.write_str("expected sequence or mapping node"),
            WalkError::EmptyFieldName => f.write_str("cannot set or create an empty field name"),
            WalkError::Wildcard => {
                f.write_str("fieldName: *: wildcard is not supported in PathGetter")
            }
            WalkError::Set(e) => e.fmt(f),
        }
    }
}

impl<E: fmt::Display> fmt::Display for FieldSpecError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "considering field '{}' of object {}: ",
            self.field, self.object
        )?;
        for path in self.traversal.iter().rev() {
            write!(f, "visit traversal on path: [{}]: ", path.join(" "))?;
        }
        self.cause.fmt(f)
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for FieldSpecError<E> {}

/// A walk's failure on the way up: the cause and the sequences passed through.
struct Failed<E> {
    traversal: Vec<Vec<String>>,
    cause: WalkError<E>,
}

impl<E> From<WalkError<E>> for Failed<E> {
    fn from(cause: WalkError<E>) -> Self {
        Failed {
            traversal: Vec::new(),
            cause,
        }
    }
}

/// Walks `obj` along the spec's path and calls `set` on every node found there. Missing fields
/// are created as the spec and `create` allow; a scalar in the middle of the path is an error
/// (as upstream: "expected sequence or mapping node").
pub fn apply<E>(
    obj: &mut Node,
    spec: &FieldSpec,
    create: CreateKind,
    set: &mut dyn FnMut(&mut Node) -> Result<(), E>,
) -> Result<(), FieldSpecError<E>> {
    if !spec.matches(obj) {
        return Ok(());
    }
    let path = split_path(&spec.path);
    walk(obj, &path, spec.create, create, set).map_err(|e| FieldSpecError {
        field: spec.path.clone(),
        object: KId::unscoped(obj),
        traversal: e.traversal,
        cause: e.cause,
    })
}

fn walk<E>(
    node: &mut Node,
    path: &[String],
    spec_create: bool,
    create: CreateKind,
    set: &mut dyn FnMut(&mut Node) -> Result<(), E>,
) -> Result<(), Failed<E>> {
    if path.is_empty() {
        return set(node).map_err(|e| WalkError::Set(e).into());
    }
    if node.is_null() {
        return Ok(());
    }
    match &mut node.kind {
        NodeKind::Seq(items) => {
            for item in items.iter_mut() {
                // kustomize wraps every error below a sequence with the path still to walk.
                walk(item, path, spec_create, create, set).map_err(|mut e| {
                    e.traversal.push(path.to_vec());
                    e
                })?;
            }
            Ok(())
        }
        NodeKind::Map(_) => walk_map(node, path, spec_create, create, set),
        NodeKind::Scalar(_) => Err(WalkError::NotACollection { span: node.span }.into()),
    }
}

fn walk_map<E>(
    node: &mut Node,
    path: &[String],
    spec_create: bool,
    create: CreateKind,
    set: &mut dyn FnMut(&mut Node) -> Result<(), E>,
) -> Result<(), Failed<E>> {
    let (name, is_seq) = match path[0].strip_suffix("[]") {
        Some(n) => (n, true),
        None => (path[0].as_str(), false),
    };
    if name.is_empty() {
        return Err(WalkError::EmptyFieldName.into());
    }
    if name == "*" {
        // kyaml's PathGetter, which looks the field up, has no wildcards.
        return Err(WalkError::Wildcard.into());
    }
    let last = path.len() <= 1;
    // What to create when missing, and what a null value is turned into.
    let (create_missing, kind) = if !spec_create || create == CreateKind::Nothing || is_seq {
        (None, if is_seq { Some(CreateKind::Seq) } else { None })
    } else if last {
        (Some(create), Some(create))
    } else {
        (Some(CreateKind::Map), Some(CreateKind::Map))
    };
    if node.get(name).is_none() {
        let Some(kind) = create_missing else {
            return Ok(());
        };
        node.set(name, empty(kind));
    }
    let field = node
        .get_mut(name)
        .expect("the field exists or was just created");
    if field.is_null()
        && field
            .as_scalar()
            .is_some_and(|s| s.tag.as_deref() != Some("!!str"))
    {
        if let Some(kind) = kind.filter(|k| *k != CreateKind::Nothing) {
            *field = empty(kind).at(field.span);
        }
    }
    walk(field, &path[1..], spec_create, create, set)
}

fn empty(kind: CreateKind) -> Node {
    match kind {
        CreateKind::Map => Node::map(),
        CreateKind::Seq => Node::seq(),
        // A created scalar starts empty; the setter gives it its value.
        CreateKind::Scalar | CreateKind::Nothing => Node::plain(""),
    }
}

/// A field spec as written in YAML. kustomize reads the same fields two ways, both checked
/// with `kubectl kustomize`: strictly in `configurations:` files (an unknown key is an error,
/// `json: unknown field`) and leniently in builtin plugin configs (unknown keys are ignored).
/// `STRICT` picks the way; the deserializer behaves as serde's derive would with and without
/// `deny_unknown_fields`.
#[derive(Default, Clone)]
pub struct RawFieldSpec<const STRICT: bool> {
    group: String,
    version: String,
    kind: String,
    path: String,
    create: bool,
}

/// A field spec of a `configurations:` file.
pub type StrictFieldSpec = RawFieldSpec<true>;
/// A field spec of a builtin plugin config.
pub type PluginFieldSpec = RawFieldSpec<false>;

impl<const STRICT: bool> RawFieldSpec<STRICT> {
    /// The spec.
    pub fn into_spec(self) -> FieldSpec {
        FieldSpec {
            gvk: Gvk {
                group: self.group,
                version: self.version,
                kind: self.kind,
                cluster_scoped: false,
            },
            path: self.path,
            create: self.create,
        }
    }
}

/// The field specs of a plugin config.
pub fn plugin_specs(raw: Vec<PluginFieldSpec>) -> Vec<FieldSpec> {
    raw.into_iter().map(RawFieldSpec::into_spec).collect()
}

const RAW_FIELDS: &[&str] = &["group", "version", "kind", "path", "create"];

impl<'de, const STRICT: bool> serde::Deserialize<'de> for RawFieldSpec<STRICT> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_struct("RawFieldSpec", RAW_FIELDS, RawVisitor::<STRICT>)
    }
}

/// A key of a field spec: one of [`RAW_FIELDS`] by index, or another (ignored when lenient).
struct RawKey<const STRICT: bool>(Option<usize>);

impl<'de, const STRICT: bool> serde::Deserialize<'de> for RawKey<STRICT> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor<const STRICT: bool>;
        impl<const STRICT: bool> serde::de::Visitor<'_> for KeyVisitor<STRICT> {
            type Value = RawKey<STRICT>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("field identifier")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RawKey<STRICT>, E> {
                match RAW_FIELDS.iter().position(|f| *f == v) {
                    Some(i) => Ok(RawKey(Some(i))),
                    None if STRICT => Err(E::unknown_field(v, RAW_FIELDS)),
                    None => Ok(RawKey(None)),
                }
            }
        }
        d.deserialize_identifier(KeyVisitor::<STRICT>)
    }
}

struct RawVisitor<const STRICT: bool>;

impl<'de, const STRICT: bool> serde::de::Visitor<'de> for RawVisitor<STRICT> {
    type Value = RawFieldSpec<STRICT>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("struct RawFieldSpec")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        use serde::de::Error;
        let mut out = RawFieldSpec::<STRICT>::default();
        let mut seen = [false; 5];
        while let Some(RawKey(key)) = map.next_key::<RawKey<STRICT>>()? {
            let Some(i) = key else {
                map.next_value::<serde::de::IgnoredAny>()?;
                continue;
            };
            if std::mem::replace(&mut seen[i], true) {
                return Err(A::Error::duplicate_field(RAW_FIELDS[i]));
            }
            match i {
                0 => out.group = map.next_value()?,
                1 => out.version = map.next_value()?,
                2 => out.kind = map.next_value()?,
                3 => out.path = map.next_value()?,
                _ => out.create = map.next_value()?,
            }
        }
        Ok(out)
    }

    /// As serde's derive: a sequence gives the fields in order.
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = RawFieldSpec::<STRICT>::default();
        macro_rules! next {
            ($field:ident) => {
                match seq.next_element()? {
                    Some(v) => out.$field = v,
                    None => return Ok(out),
                }
            };
        }
        next!(group);
        next!(version);
        next!(kind);
        next!(path);
        next!(create);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{parse_one, ParseOptions};

    fn node(s: &str) -> Node {
        parse_one(s.as_bytes(), &ParseOptions::default()).unwrap()
    }

    #[test]
    fn splits_escaped_slashes() {
        assert_eq!(
            split_path("metadata/annotations/nginx.ingress.kubernetes.io\\/auth-secret"),
            vec![
                "metadata",
                "annotations",
                "nginx.ingress.kubernetes.io/auth-secret"
            ]
        );
        assert_eq!(split_path("/a/b"), vec!["a", "b"]);
    }

    #[test]
    fn creates_and_walks_sequences() {
        let mut n = node("kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - image: a\n      - image: b\n");
        let mut seen = Vec::new();
        apply::<String>(
            &mut n,
            &FieldSpec::any("spec/template/spec/containers[]/image", true),
            CreateKind::Scalar,
            &mut |v| {
                seen.push(v.as_str().unwrap_or("").to_string());
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, ["a", "b"]);
        apply::<String>(
            &mut n,
            &FieldSpec::any("metadata/labels", true),
            CreateKind::Map,
            &mut |v| {
                v.set("app", Node::string("x"));
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(n.str_at(&["metadata", "labels", "app"]), Some("x"));
        // Without create nothing is added.
        let mut called = false;
        apply::<String>(
            &mut n,
            &FieldSpec::any("spec/selector", false),
            CreateKind::Map,
            &mut |_| {
                called = true;
                Ok(())
            },
        )
        .unwrap();
        assert!(!called);
    }

    #[test]
    fn scalars_mid_path_are_errors() {
        let mut n = node("kind: X\nspec: oops\n");
        let err = apply::<String>(
            &mut n,
            &FieldSpec::any("spec/selector", true),
            CreateKind::Map,
            &mut |_| Ok(()),
        )
        .unwrap_err();
        assert_eq!(
            err.cause,
            WalkError::NotACollection {
                span: Span::new(2, 7)
            }
        );
        assert_eq!(
            err.to_string(),
            "considering field 'spec/selector' of object X.[noVer].[noGrp]/[noName].[noNs]: expected sequence or mapping node"
        );
        let mut n = node("kind: X\nspec:\n  list:\n  - a: 1\n  - oops\n");
        let err = apply::<String>(
            &mut n,
            &FieldSpec::any("spec/list/a", true),
            CreateKind::Scalar,
            &mut |_| Ok(()),
        )
        .unwrap_err();
        assert_eq!(err.traversal, [vec!["a".to_string()]]);
        assert!(
            err.to_string()
                .ends_with(": visit traversal on path: [a]: expected sequence or mapping node"),
            "{err}"
        );
    }
}

#[cfg(test)]
mod raw_tests {
    use super::*;
    use crate::yaml::{de::from_node_go_json, parse_one, Dialect, ParseOptions};

    fn read<T: for<'de> serde::Deserialize<'de>>(text: &str) -> Result<T, String> {
        let node = parse_one(text.as_bytes(), &ParseOptions::default()).unwrap();
        from_node_go_json(&node, Dialect::Yaml11).map_err(|e| e.to_string())
    }

    #[test]
    fn strict_rejects_unknown_keys_at_the_key_and_lenient_ignores_them() {
        let text = "kind: Deployment\nbogus: 1\npath: spec/replicas\n";
        let e = read::<StrictFieldSpec>(text).err().expect("strict fails");
        assert_eq!(
            e,
            "line 2, column 1: unknown field `bogus`, expected one of `group`, `version`, `kind`, `path`, `create`"
        );
        let spec = read::<PluginFieldSpec>(text)
            .expect("lenient reads")
            .into_spec();
        assert_eq!(
            (spec.gvk.kind.as_str(), spec.path.as_str()),
            ("Deployment", "spec/replicas")
        );
    }

    #[test]
    fn keys_fold_case_and_defaults_fill_the_rest() {
        let spec = read::<StrictFieldSpec>("Path: a/b\ncreate: true\n")
            .expect("reads")
            .into_spec();
        assert_eq!(
            (spec.path.as_str(), spec.create, spec.gvk.group.as_str()),
            ("a/b", true, "")
        );
    }
}
