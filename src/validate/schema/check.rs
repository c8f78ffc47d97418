//! Validating a YAML node tree against a compiled type: what the API server would refuse when
//! it decodes and validates the object, each at the path, line and column of the offending
//! node, worded like the API server's field errors.

use super::catalog::Catalog;
use super::formats;
use super::model::{Additional, Flavor, Format, JsonTypes, JunctorKind, ListType, Type, TypeDef};
use crate::yaml::{resolve_scalar, Dialect, Node, NodeKind, Resolved, Scalar, Span};
use serde_json::Value;
use std::fmt::Write as _;

/// One thing the API server would refuse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The field path as the API server prints it: `spec.template.spec.containers[0].image`,
    /// map keys in brackets (`metadata.labels[app.kubernetes.io/name]`).
    pub path: String,
    /// Where the offending node is (for a missing field: the mapping that lacks it). Line 0
    /// when the node was made by kdelta rather than read from a file.
    pub span: Span,
    pub kind: ViolationKind,
    /// The whole message, path first: `spec.replica: unknown field "replica"`.
    pub message: String,
}

impl Violation {
    /// A violation at `path` (empty: the object itself), its message `path: what`.
    pub(super) fn new(path: String, span: Span, kind: ViolationKind, what: String) -> Violation {
        let message = if path.is_empty() {
            what
        } else {
            format!("{path}: {what}")
        };
        Violation {
            path,
            span,
            kind,
            message,
        }
    }
}

/// The class of a [`Violation`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ViolationKind {
    /// A field the schema does not declare (strict field validation).
    UnknownField,
    /// A value of the wrong JSON type (a string where an integer belongs).
    WrongType,
    /// A required field is missing or null.
    Required,
    /// A value not among the schema's `enum`.
    Enum,
    /// A value the API server cannot parse: int32/int64 range, quantity, RFC 3339 time, base64.
    Format,
    /// Two items of an `x-kubernetes-list-type` map or set with the same key.
    Duplicate,
    /// A YAML mapping with the same key twice.
    DuplicateKey,
    /// A bound: minimum/maximum, length, item or property count.
    Range,
    /// A string that does not match the schema's `pattern`.
    Pattern,
    /// An ObjectMeta rule: name, generateName, namespace, label and annotation syntax.
    Meta,
    /// A CRD's `x-kubernetes-validations` rule that evaluates to false or fails.
    Rule,
    /// A CRD's `anyOf`, `oneOf` or `not` that the value does not satisfy.
    Junctor,
}

/// Validates a whole object (a resource) against its type, with YAML 1.1 scalar typing (what
/// the API server's YAML decoder, and `kubectl`, use). Besides the schema, `metadata` follows
/// the API server's ObjectMeta rules: name per kind (or `generateName`), namespace, labels and
/// annotations.
pub fn validate(ty: Type<'_>, node: &Node) -> Vec<Violation> {
    validate_in(ty, node, Dialect::Yaml11)
}

/// [`validate`] with the given scalar typing.
pub fn validate_in(ty: Type<'_>, node: &Node, dialect: Dialect) -> Vec<Violation> {
    let mut w = Walker {
        dialect,
        path: Vec::with_capacity(16),
        out: Vec::new(),
    };
    w.check(ty, node);
    if node.is_map() {
        w.resource_meta(node, true);
    }
    // CEL rules see the values the schema types; on a value of the wrong type their verdict
    // would say nothing the type error does not.
    let typed = !w.out.iter().any(|v| v.kind == ViolationKind::WrongType);
    if ty.flavor() == Flavor::Structural && typed {
        w.out.extend(super::cel::evaluate(ty, node, dialect));
    }
    w.out
}

#[derive(Clone, Copy)]
pub(super) enum Seg<'n> {
    /// A declared property: `.name`.
    Field(&'n str),
    /// A key of a map: `[key]`.
    Key(&'n str),
    /// An array index: `[3]`.
    Index(usize),
}

pub(super) struct Walker<'n> {
    dialect: Dialect,
    pub(super) path: Vec<Seg<'n>>,
    out: Vec<Violation>,
}

/// A scalar as the decoder types it.
#[derive(Clone, Copy)]
pub(super) enum ScalarValue<'n> {
    Str(&'n str),
    Int(i128),
    Float(f64),
    Bool(bool),
}

impl ScalarValue<'_> {
    fn describe(&self) -> String {
        match self {
            ScalarValue::Str(s) => format!("string {}", crate::go::json::quote(s)),
            ScalarValue::Int(i) => format!("integer {i}"),
            ScalarValue::Float(f) => format!("number {f}"),
            ScalarValue::Bool(b) => format!("boolean {b}"),
        }
    }
}

fn allows(def: &TypeDef, t: JsonTypes) -> bool {
    def.types.is_any() || def.types.contains(t)
}

fn expected(def: &TypeDef) -> String {
    def.types.describe()
}

impl<'n> Walker<'n> {
    fn path_with(&self, extra: Option<Seg<'_>>) -> String {
        let mut segs = self.path.clone();
        segs.extend(extra);
        format_path(&segs)
    }

    pub(super) fn report(
        &mut self,
        extra: Option<Seg<'_>>,
        span: Span,
        kind: ViolationKind,
        what: String,
    ) {
        let path = self.path_with(extra);
        self.out.push(Violation::new(path, span, kind, what));
    }

    fn check(&mut self, ty: Type<'_>, node: &'n Node) {
        let def = ty.def();
        if def.object_meta && ty.flavor() == Flavor::Structural {
            // A CRD's metadata is always ObjectMeta, whatever its schema says.
            if let Some(meta) = Catalog::latest().object_meta() {
                return self.check(meta, node);
            }
        }
        if node.is_null() {
            return self.null_value(ty, node);
        }
        let before = self.out.len();
        match &node.kind {
            NodeKind::Map(entries) => {
                if allows(def, JsonTypes::OBJECT) {
                    self.object(ty, node, entries);
                } else {
                    self.wrong_type(def, node.span, "object".to_string());
                }
            }
            NodeKind::Seq(items) => {
                if allows(def, JsonTypes::ARRAY) {
                    self.array(ty, node, items);
                } else {
                    self.wrong_type(def, node.span, "array".to_string());
                }
            }
            NodeKind::Scalar(s) => self.scalar(def, node.span, s),
        }
        // int-or-string's `anyOf` is its type, checked above; a value of the wrong type is
        // reported once.
        if !def.junctors.is_empty() && !def.int_or_string {
            let here = self.path_with(None);
            let wrong_type = self.out[before..]
                .iter()
                .any(|v| v.kind == ViolationKind::WrongType && v.path == here);
            if !wrong_type {
                self.junctors(ty, node);
            }
        }
    }

    /// A CRD's `allOf`, `anyOf`, `oneOf` and `not`, with the API server's (go-openapi's)
    /// words: `allOf` reports what its branches report; the others say how many branches
    /// the value satisfies, with the nearest branch's first problem.
    fn junctors(&mut self, ty: Type<'_>, node: &'n Node) {
        // The API server validates the defaulted object: a branch testing a field with a
        // default sees it.
        let defaulted = with_defaults(ty, node);
        for j in ty.def().junctors.iter() {
            let results: Vec<Vec<Violation>> = j
                .branches
                .iter()
                .map(|&id| {
                    self.trial(
                        Type {
                            model: ty.model,
                            id,
                        },
                        &defaulted,
                    )
                })
                .collect();
            let valid = results.iter().filter(|r| r.is_empty()).count();
            let nearest = || {
                results
                    .iter()
                    .filter(|r| !r.is_empty())
                    .min_by_key(|r| r.len())
                    .and_then(|r| r.first())
                    .map(|v| format!(" ({})", v.message))
                    .unwrap_or_default()
            };
            let what = match j.kind {
                JunctorKind::AllOf => {
                    for r in results {
                        self.out.extend(r);
                    }
                    continue;
                }
                JunctorKind::AnyOf if valid == 0 => {
                    format!("must validate at least one schema (anyOf){}", nearest())
                }
                JunctorKind::OneOf if valid == 0 => format!(
                    "must validate one and only one schema (oneOf). Found none valid{}",
                    nearest()
                ),
                JunctorKind::OneOf if valid > 1 => format!(
                    "must validate one and only one schema (oneOf). Found {valid} valid alternatives"
                ),
                JunctorKind::Not if valid == 1 => "must not validate the schema (not)".to_string(),
                _ => continue,
            };
            self.report(None, node.span, ViolationKind::Junctor, what);
        }
    }

    /// What checking `node` against `ty` would report, without reporting it.
    fn trial(&self, ty: Type<'_>, node: &Node) -> Vec<Violation> {
        let mut w = Walker {
            dialect: self.dialect,
            path: self.path.clone(),
            out: Vec::new(),
        };
        w.check(ty, node);
        w.out
    }

    /// `null` where a value of this type is (an array item, a map value, the root).
    fn null_value(&mut self, ty: Type<'_>, node: &'n Node) {
        let def = ty.def();
        if def.types.is_any() {
            return;
        }
        match ty.flavor() {
            // The Go decoder leaves the zero value, whatever the JSON schema's nullability (its
            // generator makes every optional type nullable): an object then lacks its
            // required fields.
            Flavor::BuiltIn => {
                if def.types.contains(JsonTypes::OBJECT) {
                    self.object(ty, node, &[]);
                }
            }
            Flavor::Structural if def.nullable => {}
            Flavor::Structural => self.wrong_type(def, node.span, "null".to_string()),
        }
    }

    fn wrong_type(&mut self, def: &TypeDef, span: Span, got: String) {
        let what = format!("expected {}, got {got}", expected(def));
        self.report(None, span, ViolationKind::WrongType, what);
    }

    fn object(&mut self, ty: Type<'_>, node: &'n Node, entries: &'n [(Node, Node)]) {
        let def = ty.def();
        if !Node::keys_distinct(entries) {
            self.duplicate_keys(entries);
        }
        for (k, v) in entries {
            let Some(key) = k.as_str().filter(|_| k.is_scalar()) else {
                continue;
            };
            if let Some(prop) = ty.property(key) {
                // An optional field given as null is accepted: the decoder leaves it unset (a
                // structural schema prunes it). A required one is reported below.
                if v.is_null() {
                    continue;
                }
                self.path.push(Seg::Field(key));
                self.check(prop, v);
                self.path.pop();
                continue;
            }
            if def.embedded_resource && matches!(key, "apiVersion" | "kind" | "metadata") {
                self.path.push(Seg::Field(key));
                self.embedded_field(key, v);
                self.path.pop();
                continue;
            }
            match def.additional {
                Additional::Typed(id) => {
                    if !v.is_null() {
                        self.path.push(Seg::Key(key));
                        self.check(ty.at(id), v);
                        self.path.pop();
                    }
                }
                Additional::Any => {}
                Additional::Closed if def.preserve_unknown => {}
                Additional::Closed => self.report(
                    Some(Seg::Field(key)),
                    k.span,
                    ViolationKind::UnknownField,
                    format!("unknown field {}", crate::go::json::quote(key)),
                ),
            }
        }
        for name in def.required.iter() {
            // A structural schema's nullable field holds null as a value; elsewhere null
            // leaves the field unset.
            let null_is_value = ty.flavor() == Flavor::Structural
                && ty.property(name).is_some_and(|p| p.def().nullable);
            let present = entries
                .iter()
                .any(|(k, v)| k.as_str() == Some(name) && (null_is_value || !v.is_null()));
            if !present {
                self.report(
                    Some(Seg::Field(name)),
                    node.span,
                    ViolationKind::Required,
                    "Required value".to_string(),
                );
            }
        }
        if def.embedded_resource {
            self.embedded_resource(node, entries);
        }
        let b = &def.bounds;
        let n = entries.len() as u64;
        if let Some(min) = b.min_properties.filter(|m| n < *m) {
            let what = format!("should have at least {min} properties");
            self.report(None, node.span, ViolationKind::Range, what);
        }
        if let Some(max) = b.max_properties.filter(|m| n > *m) {
            let what = format!("should have at most {max} properties");
            self.report(None, node.span, ViolationKind::Range, what);
        }
        if def.object_meta {
            self.labels_and_annotations(node);
        }
    }

    fn duplicate_keys(&mut self, entries: &'n [(Node, Node)]) {
        for (i, (k, _)) in entries.iter().enumerate() {
            let Some(t) = k.as_str() else { continue };
            if let Some((first, _)) = entries[..i].iter().find(|(o, _)| o.as_str() == Some(t)) {
                let what = format!(
                    "duplicate key {} (first at line {})",
                    crate::go::json::quote(t),
                    first.span.line
                );
                self.report(
                    Some(Seg::Field(t)),
                    k.span,
                    ViolationKind::DuplicateKey,
                    what,
                );
            }
        }
    }

    /// apiVersion, kind and metadata of an `x-kubernetes-embedded-resource` the schema does
    /// not declare.
    fn embedded_field(&mut self, key: &str, v: &'n Node) {
        if v.is_null() {
            return;
        }
        if key == "metadata" {
            if let Some(meta) = Catalog::latest().object_meta() {
                self.check(meta, v);
            }
            return;
        }
        if !v.is_scalar()
            || self
                .scalar_value(v.as_scalar())
                .is_none_or(|s| !matches!(s, ScalarValue::Str(_)))
        {
            let got = describe_node(v, self);
            self.report(
                None,
                v.span,
                ViolationKind::WrongType,
                format!("expected string, got {got}"),
            );
        }
    }

    fn embedded_resource(&mut self, node: &'n Node, entries: &'n [(Node, Node)]) {
        for key in ["apiVersion", "kind"] {
            let ok = entries.iter().any(|(k, v)| {
                k.as_str() == Some(key) && v.as_text().is_some_and(|t| !t.is_empty())
            });
            if !ok {
                self.report(
                    Some(Seg::Field(key)),
                    node.span,
                    ViolationKind::Required,
                    "Required value".to_string(),
                );
            }
        }
        self.resource_meta(node, false);
    }

    fn array(&mut self, ty: Type<'_>, node: &'n Node, items: &'n [Node]) {
        let def = ty.def();
        let n = items.len() as u64;
        if let Some(min) = def.bounds.min_items.filter(|m| n < *m) {
            let what = format!("should have at least {min} items");
            self.report(None, node.span, ViolationKind::Range, what);
        }
        if let Some(max) = def.bounds.max_items.filter(|m| n > *m) {
            let what = format!("must have at most {max} items");
            self.report(None, node.span, ViolationKind::Range, what);
        }
        if let Some(item_ty) = ty.items() {
            for (i, item) in items.iter().enumerate() {
                self.path.push(Seg::Index(i));
                self.check(item_ty, item);
                self.path.pop();
            }
        }
        match &def.list_type {
            ListType::Atomic => {}
            ListType::Set => {
                for i in 1..items.len() {
                    if !items[i].is_scalar() || items[i].is_null() {
                        continue;
                    }
                    if items[..i]
                        .iter()
                        .any(|o| o.is_scalar() && o.as_str() == items[i].as_str())
                    {
                        let what = format!(
                            "Duplicate value: {}",
                            go_value(&items[i], self.scalar_value(items[i].as_scalar()))
                        );
                        self.report(
                            Some(Seg::Index(i)),
                            items[i].span,
                            ViolationKind::Duplicate,
                            what,
                        );
                    }
                }
            }
            ListType::Map(keys) if !keys.is_empty() => {
                let key_of = |item: &'n Node| -> Option<Vec<Option<&'n Node>>> {
                    item.as_map()?;
                    let values: Vec<Option<&'n Node>> = keys
                        .iter()
                        .map(|k| item.get(k).filter(|v| v.as_text().is_some()))
                        .collect();
                    values.iter().any(Option::is_some).then_some(values)
                };
                let same = |a: &[Option<&Node>], b: &[Option<&Node>]| {
                    a.iter().zip(b).all(|(x, y)| match (x, y) {
                        (Some(x), Some(y)) => x.as_text() == y.as_text(),
                        (None, None) => true,
                        _ => false,
                    })
                };
                let mut seen: Vec<Vec<Option<&'n Node>>> = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let Some(key) = key_of(item) else { continue };
                    if seen.iter().any(|s| same(s, &key)) {
                        self.duplicate_key(ty.flavor(), keys, &key, i, item);
                    } else {
                        seen.push(key);
                    }
                }
            }
            ListType::Map(_) => {}
        }
    }

    /// The duplicate item `i` of a list-type map, worded as the API server words it. A CRD's
    /// structural schema validation (apiextensions-apiserver's `listtype.validateListMap`)
    /// reports the item with its key as a Go map, `%#v`:
    /// `spec.ports[1]: Duplicate value: map[string]interface {}{"name":"web"}`. A built-in
    /// kind's core validation reports the key field of the item with its value
    /// (`validateContainers`: `field.Duplicate(path.Child("name"), ctr.Name)`):
    /// `spec.containers[1].name: Duplicate value: "web"`. Core validation has no common
    /// wording for keys of several fields (a Service's ports print Go's `core.ServicePort`
    /// struct; container ports are refused by name, not by port and protocol), so kdelta says
    /// those in JSON at the item: `Duplicate value: {"containerPort":80,"protocol":"TCP"}`.
    fn duplicate_key(
        &mut self,
        flavor: Flavor,
        keys: &[Box<str>],
        key: &[Option<&'n Node>],
        i: usize,
        item: &'n Node,
    ) {
        let value = |v: &'n Node| go_value(v, self.scalar_value(v.as_scalar()));
        match (flavor, keys, key) {
            (Flavor::Structural, _, _) => {
                // Go prints a map's keys sorted; an absent key field is no entry.
                let mut present: Vec<(&str, &'n Node)> = keys
                    .iter()
                    .zip(key)
                    .filter_map(|(name, v)| Some((&**name, (*v)?)))
                    .collect();
                present.sort_by(|a, b| a.0.cmp(b.0));
                let mut shown = String::from("map[string]interface {}{");
                for (j, (name, v)) in present.iter().enumerate() {
                    if j > 0 {
                        shown.push_str(", ");
                    }
                    let _ = write!(shown, "{}:{}", crate::go::strconv::quote(name), value(v));
                }
                shown.push('}');
                let what = format!("Duplicate value: {shown}");
                self.report(
                    Some(Seg::Index(i)),
                    item.span,
                    ViolationKind::Duplicate,
                    what,
                );
            }
            (Flavor::BuiltIn, [name], [Some(v)]) => {
                let what = format!("Duplicate value: {}", value(v));
                self.path.push(Seg::Index(i));
                self.report(
                    Some(Seg::Field(name)),
                    v.span,
                    ViolationKind::Duplicate,
                    what,
                );
                self.path.pop();
            }
            (Flavor::BuiltIn, _, _) => {
                let mut shown = String::from("{");
                for (j, (name, v)) in keys.iter().zip(key).enumerate() {
                    if j > 0 {
                        shown.push(',');
                    }
                    let _ = write!(shown, "{}:", crate::go::json::quote(name));
                    match v.map(|v| (v, self.scalar_value(v.as_scalar()))) {
                        Some((_, Some(ScalarValue::Str(t)))) => {
                            shown.push_str(&crate::go::json::quote(t))
                        }
                        Some((v, _)) => shown.push_str(v.as_text().unwrap_or("null")),
                        None => shown.push_str("null"),
                    }
                }
                shown.push('}');
                let what = format!("Duplicate value: {shown}");
                self.report(
                    Some(Seg::Index(i)),
                    item.span,
                    ViolationKind::Duplicate,
                    what,
                );
            }
        }
    }

    pub(super) fn scalar_value(&self, s: Option<&'n Scalar>) -> Option<ScalarValue<'n>> {
        scalar_value_in(s?, self.dialect)
    }

    fn scalar(&mut self, def: &TypeDef, span: Span, s: &'n Scalar) {
        let Some(value) = self.scalar_value(Some(s)) else {
            return;
        };
        let fits = match value {
            ScalarValue::Str(_) => allows(def, JsonTypes::STRING),
            ScalarValue::Int(_) => {
                allows(def, JsonTypes::INTEGER) || allows(def, JsonTypes::NUMBER)
            }
            // An integral float (`1.0`) is an integer to JSON schema and to the API server's
            // unstructured decoding.
            ScalarValue::Float(f) => {
                allows(def, JsonTypes::NUMBER)
                    || (allows(def, JsonTypes::INTEGER) && f.is_finite() && f.fract() == 0.0)
            }
            ScalarValue::Bool(_) => allows(def, JsonTypes::BOOLEAN),
        };
        if !fits {
            return self.wrong_type(def, span, value.describe());
        }
        if !def.enum_values.is_empty() && !def.enum_values.iter().any(|e| enum_matches(e, value)) {
            let mut supported = String::new();
            for (i, e) in def.enum_values.iter().enumerate() {
                if i > 0 {
                    supported.push_str(", ");
                }
                supported.push_str(&e.to_string());
            }
            let what = format!(
                "Unsupported value: {}: supported values: {supported}",
                scalar_json(value)
            );
            self.report(None, span, ViolationKind::Enum, what);
        }
        self.format(def.format, span, value);
        let b = &def.bounds;
        match value {
            ScalarValue::Str(text) => {
                if b.min_length.is_some() || b.max_length.is_some() {
                    let len = text.chars().count() as u64;
                    if let Some(max) = b.max_length.filter(|m| len > *m) {
                        let what = format!("Too long: may not be more than {max} bytes");
                        self.report(None, span, ViolationKind::Range, what);
                    }
                    if let Some(min) = b.min_length.filter(|m| len < *m) {
                        let what = format!(
                            "Invalid value: {}: should be at least {min} chars long",
                            crate::go::json::quote(text)
                        );
                        self.report(None, span, ViolationKind::Range, what);
                    }
                }
                if let Some(re) = &def.pattern {
                    if !re.is_match(text) {
                        let what = format!(
                            "Invalid value: {}: should match '{}'",
                            crate::go::json::quote(text),
                            re.as_str()
                        );
                        self.report(None, span, ViolationKind::Pattern, what);
                    }
                }
            }
            ScalarValue::Int(_) | ScalarValue::Float(_) => {
                let x = match value {
                    ScalarValue::Int(i) => i as f64,
                    ScalarValue::Float(f) => f,
                    _ => unreachable!("matched above"),
                };
                if let Some(min) = b.minimum {
                    if x < min || (b.exclusive_minimum && x == min) {
                        let op = if b.exclusive_minimum {
                            "greater than"
                        } else {
                            "greater than or equal to"
                        };
                        let what = format!(
                            "Invalid value: {}: should be {op} {min}",
                            scalar_json(value)
                        );
                        self.report(None, span, ViolationKind::Range, what);
                    }
                }
                if let Some(max) = b.maximum {
                    if x > max || (b.exclusive_maximum && x == max) {
                        let op = if b.exclusive_maximum {
                            "less than"
                        } else {
                            "less than or equal to"
                        };
                        let what = format!(
                            "Invalid value: {}: should be {op} {max}",
                            scalar_json(value)
                        );
                        self.report(None, span, ViolationKind::Range, what);
                    }
                }
            }
            ScalarValue::Bool(_) => {}
        }
    }

    fn format(&mut self, format: Format, span: Span, value: ScalarValue<'_>) {
        let problem = match (format, value) {
            (Format::Int32, ScalarValue::Int(i)) if i32::try_from(i).is_err() => {
                Some(format!("value {i} does not fit in int32"))
            }
            (Format::Int64, ScalarValue::Int(i)) if i64::try_from(i).is_err() => {
                Some(format!("value {i} does not fit in int64"))
            }
            (Format::Int32 | Format::Int64, ScalarValue::Float(f)) if !float_fits(format, f) => {
                let name = if format == Format::Int32 { "int32" } else { "int64" };
                Some(format!("value {f} does not fit in {name}"))
            }
            (Format::Quantity, ScalarValue::Str(t)) if !formats::is_quantity(t) => Some(format!(
                "Invalid value: {}: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
                crate::go::json::quote(t)
            )),
            (Format::DateTime, ScalarValue::Str(t)) if !formats::is_date_time(t) => Some(format!(
                "Invalid value: {}: not an RFC 3339 date-time",
                crate::go::json::quote(t)
            )),
            (Format::Byte, ScalarValue::Str(t)) if !formats::is_base64(t) => Some(format!(
                "Invalid value: {}: not base64 (illegal base64 data)",
                crate::go::json::quote(truncate(t))
            )),
            _ => None,
        };
        if let Some(what) = problem {
            self.report(None, span, ViolationKind::Format, what);
        }
    }
}

/// A field path as the API server prints it: `spec.containers[0].image`, map keys in brackets.
/// A mapping with the defaults of its properties it lacks set (one level: what a junctor's
/// branches test).
fn with_defaults(ty: Type<'_>, node: &Node) -> Node {
    let mut out = node.clone();
    if !node.is_map() {
        return out;
    }
    for (name, id) in ty.def().properties.iter() {
        if node.get(name).is_some() {
            continue;
        }
        if let Some(default) = (Type {
            model: ty.model,
            id: *id,
        })
        .default_value()
        {
            out.set(name, crate::yaml::from_go_json(default));
        }
    }
    out
}

pub(super) fn format_path(segs: &[Seg<'_>]) -> String {
    let mut s = String::new();
    for seg in segs {
        match *seg {
            Seg::Field(f) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(f);
            }
            Seg::Key(k) => {
                let _ = write!(s, "[{k}]");
            }
            Seg::Index(i) => {
                let _ = write!(s, "[{i}]");
            }
        }
    }
    s
}

/// A scalar as the decoder types it with `dialect`; `None` for null.
/// A scalar as Go's `%#v` prints the value the API server decoded from it (`field.Error`
/// prints a duplicate so): a string quoted, an integer (int64) and a float (float64) as
/// numbers, null as a nil interface.
fn go_value(node: &Node, value: Option<ScalarValue<'_>>) -> String {
    match value {
        Some(ScalarValue::Str(s)) => crate::go::strconv::quote(s),
        Some(ScalarValue::Int(i)) => i.to_string(),
        Some(ScalarValue::Float(f)) => crate::go::float::format_g(f),
        Some(ScalarValue::Bool(b)) => b.to_string(),
        None if node.is_null() => "interface {}(nil)".to_string(),
        None => node.as_text().unwrap_or_default().to_string(),
    }
}

pub(super) fn scalar_value_in(s: &Scalar, dialect: Dialect) -> Option<ScalarValue<'_>> {
    if s.is_string_literal() || crate::yaml::plain_is_surely_string(&s.text, dialect) {
        return Some(ScalarValue::Str(&s.text));
    }
    Some(match resolve_scalar(s, dialect) {
        Ok(Resolved::Null) => return None,
        Ok(Resolved::Bool(b)) => ScalarValue::Bool(b),
        Ok(Resolved::Int(i)) => ScalarValue::Int(i as i128),
        Ok(Resolved::Uint(u)) => ScalarValue::Int(u as i128),
        Ok(Resolved::Float(f)) => ScalarValue::Float(f),
        Ok(Resolved::Str(_)) | Ok(Resolved::Timestamp(_)) | Err(_) => ScalarValue::Str(&s.text),
    })
}

fn describe_node(n: &Node, w: &Walker<'_>) -> String {
    match &n.kind {
        NodeKind::Map(_) => "object".to_string(),
        NodeKind::Seq(_) => "array".to_string(),
        NodeKind::Scalar(s) => match w.scalar_value(Some(s)) {
            Some(v) => v.describe(),
            None => "null".to_string(),
        },
    }
}

/// An integral float's range check for an integer format (a fraction is a type error).
fn float_fits(format: Format, f: f64) -> bool {
    let (lo, past_hi) = if format == Format::Int32 {
        (i32::MIN as f64, i32::MAX as f64 + 1.0)
    } else {
        // 2^63, the first float past i64::MAX.
        (i64::MIN as f64, 9_223_372_036_854_775_808.0)
    };
    let range = lo..past_hi;
    f.fract() != 0.0 || range.contains(&f)
}

fn truncate(s: &str) -> &str {
    match s.char_indices().nth(40) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

fn scalar_json(v: ScalarValue<'_>) -> String {
    match v {
        ScalarValue::Str(s) => crate::go::json::quote(s),
        ScalarValue::Int(i) => i.to_string(),
        ScalarValue::Float(f) => f.to_string(),
        ScalarValue::Bool(b) => b.to_string(),
    }
}

fn enum_matches(e: &Value, v: ScalarValue<'_>) -> bool {
    match (e, v) {
        (Value::String(a), ScalarValue::Str(b)) => a == b,
        (Value::Bool(a), ScalarValue::Bool(b)) => *a == b,
        (Value::Number(n), ScalarValue::Int(i)) => n.as_f64() == Some(i as f64),
        (Value::Number(n), ScalarValue::Float(f)) => n.as_f64() == Some(f),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::schema::{Catalog, KubeVersion, Lookup};
    use crate::yaml::{parse_one, DuplicateKeys, ParseOptions};

    fn deployment() -> Type<'static> {
        let c = Catalog::bundled(KubeVersion::new(1, 30)).unwrap();
        match c.lookup("apps/v1", "Deployment") {
            Lookup::Found(t) => t,
            _ => panic!("Deployment is bundled"),
        }
    }

    #[test]
    fn duplicate_yaml_keys_kept_by_the_parser_are_reported() {
        let opts = ParseOptions {
            duplicate_keys: DuplicateKeys::Keep,
            ..ParseOptions::default()
        };
        let text = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a\n  name: b\nspec:\n  selector: {}\n  template: {spec: {containers: [{name: c, image: i}]}}\n";
        let node = parse_one(text.as_bytes(), &opts).unwrap();
        let v = validate(deployment(), &node);
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].kind, ViolationKind::DuplicateKey);
        assert_eq!((v[0].span.line, v[0].span.column), (5, 3));
        assert_eq!(
            v[0].message,
            "metadata.name: duplicate key \"name\" (first at line 4)"
        );
    }

    #[test]
    fn scalar_typing_follows_the_dialect() {
        // `yes` is a boolean in YAML 1.1 (the API server's decoder) and a string in YAML 1.2.
        let text = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec:\n  paused: yes\n  selector: {}\n  template: {spec: {containers: [{name: c, image: i}]}}\n";
        let node = parse_one(text.as_bytes(), &ParseOptions::default()).unwrap();
        assert_eq!(validate(deployment(), &node), vec![]);
        let v = validate_in(deployment(), &node, Dialect::Yaml12);
        assert_eq!(v.len(), 1);
        assert_eq!(
            v[0].message,
            "spec.paused: expected boolean, got string \"yes\""
        );
    }
}
