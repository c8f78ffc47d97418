//! The schema model both the bundled API schemas and CRD `openAPIV3Schema`s compile into: an
//! arena of [`TypeDef`]s addressed by [`TypeId`], so a recursive schema (`JSONSchemaProps`) is
//! a cycle of ids, patterns are compiled once, and validating allocates nothing per node.

use regex::Regex;
use serde_json::Value;
use std::collections::HashMap;

/// An index into a [`Model`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TypeId(pub(crate) u32);

/// The JSON types a value may have (a bit set; empty means any type).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JsonTypes(u8);

impl JsonTypes {
    pub const OBJECT: JsonTypes = JsonTypes(1);
    pub const ARRAY: JsonTypes = JsonTypes(2);
    pub const STRING: JsonTypes = JsonTypes(4);
    pub const INTEGER: JsonTypes = JsonTypes(8);
    pub const NUMBER: JsonTypes = JsonTypes(16);
    pub const BOOLEAN: JsonTypes = JsonTypes(32);

    /// True when no type is named: every value fits.
    pub fn is_any(self) -> bool {
        self.0 == 0
    }

    /// True when `other`'s types are all among these.
    pub fn contains(self, other: JsonTypes) -> bool {
        self.0 & other.0 == other.0
    }

    fn with(self, other: JsonTypes) -> JsonTypes {
        JsonTypes(self.0 | other.0)
    }

    fn named(name: &str) -> Option<JsonTypes> {
        Some(match name {
            "object" => JsonTypes::OBJECT,
            "array" => JsonTypes::ARRAY,
            "string" => JsonTypes::STRING,
            "integer" => JsonTypes::INTEGER,
            "number" => JsonTypes::NUMBER,
            "boolean" => JsonTypes::BOOLEAN,
            _ => return None,
        })
    }

    /// The names, as a schema writes them (`integer or string`).
    pub fn describe(self) -> String {
        let names = [
            (JsonTypes::OBJECT, "object"),
            (JsonTypes::ARRAY, "array"),
            (JsonTypes::STRING, "string"),
            (JsonTypes::INTEGER, "integer"),
            (JsonTypes::NUMBER, "number"),
            (JsonTypes::BOOLEAN, "boolean"),
        ];
        let parts: Vec<&str> = names
            .iter()
            .filter(|(t, _)| self.contains(*t))
            .map(|(_, n)| *n)
            .collect();
        parts.join(" or ")
    }
}

/// A string or number format the validator checks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    #[default]
    None,
    Int32,
    Int64,
    /// RFC 3339 (`metav1.Time`).
    DateTime,
    /// Standard base64 (`[]byte` fields such as a Secret's `data`).
    Byte,
    /// Kubernetes quantity syntax (`resource.Quantity`: `500m`, `1Gi`, `1e3`).
    Quantity,
}

impl Format {
    fn named(name: &str) -> Format {
        match name {
            "int32" => Format::Int32,
            "int64" => Format::Int64,
            "date-time" => Format::DateTime,
            "byte" => Format::Byte,
            "quantity" => Format::Quantity,
            _ => Format::None,
        }
    }
}

/// What keys an object takes besides its properties.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Additional {
    /// Any key, any value.
    #[default]
    Any,
    /// No other key (a strict built-in schema; a structural schema with properties).
    Closed,
    /// Any key, values of this type (a map: labels, `data`).
    Typed(TypeId),
}

/// `x-kubernetes-list-type`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ListType {
    #[default]
    Atomic,
    /// Items are unique scalars.
    Set,
    /// Items are objects unique by these keys.
    Map(Box<[Box<str>]>),
}

/// Numeric and size bounds (`minimum`, `maxLength`, …), present only where a schema says so.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bounds {
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    pub exclusive_minimum: bool,
    pub exclusive_maximum: bool,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    pub min_properties: Option<u64>,
    pub max_properties: Option<u64>,
}

/// One `x-kubernetes-validations` rule (evaluated by `cel.rs`, compiled on first use).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CelRule {
    pub rule: String,
    pub message: Option<String>,
    pub message_expression: Option<String>,
    pub reason: Option<String>,
    pub field_path: Option<String>,
    pub optional_old_self: bool,
    pub(crate) compiled: super::cel::RuleCell,
}

/// One compiled schema node.
#[derive(Clone, Debug, Default)]
pub struct TypeDef {
    pub types: JsonTypes,
    /// `null` fits (`nullable: true`, or `null` among a JSON schema's types).
    pub nullable: bool,
    /// `x-kubernetes-int-or-string`: an integer or a string.
    pub int_or_string: bool,
    pub format: Format,
    /// Sorted by name, for binary search.
    pub properties: Box<[(Box<str>, TypeId)]>,
    pub required: Box<[Box<str>]>,
    pub additional: Additional,
    pub items: Option<TypeId>,
    pub enum_values: Box<[Value]>,
    pub list_type: ListType,
    /// `x-kubernetes-preserve-unknown-fields`: unknown keys are kept, not errors.
    pub preserve_unknown: bool,
    /// `x-kubernetes-embedded-resource`: an object with apiVersion, kind and metadata.
    pub embedded_resource: bool,
    /// ObjectMeta: labels, annotations (and at a resource's root, name and namespace) follow
    /// the API server's metadata rules.
    pub object_meta: bool,
    pub bounds: Bounds,
    pub pattern: Option<Regex>,
    pub default: Option<Value>,
    pub rules: Box<[CelRule]>,
    /// A CRD's `allOf`, `anyOf`, `oneOf` and `not`: value validations the node must also
    /// pass (structural schemas allow no types or properties of their own in them).
    pub junctors: Box<[Junctor]>,
}

/// One `allOf`/`anyOf`/`oneOf`/`not` of a CRD's schema, its branches compiled as value
/// validations (objects open: a branch constrains, it does not declare).
#[derive(Clone, Debug)]
pub struct Junctor {
    pub kind: JunctorKind,
    pub branches: Box<[TypeId]>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JunctorKind {
    AllOf,
    AnyOf,
    OneOf,
    Not,
}

/// Where a model's schemas come from: what `null` and an object without properties mean
/// differ between the two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// A built-in kind (JSON schema from OpenAPI v2, strict): `null` decodes to Go's zero
    /// value; an object without properties or `additionalProperties` takes anything
    /// (`RawExtension`).
    BuiltIn,
    /// A CRD's structural schema: an object without properties is closed unless it preserves
    /// unknown fields; a `null` that is not nullable is dropped from an object (pruned) and an
    /// error elsewhere.
    Structural,
}

/// An arena of compiled types.
#[derive(Debug)]
pub struct Model {
    pub(crate) defs: Vec<TypeDef>,
    pub(crate) flavor: Flavor,
    /// Some type has `x-kubernetes-validations` rules (most CRDs have none).
    pub(crate) has_rules: bool,
}

/// A type in a model: what the validator walks.
#[derive(Clone, Copy, Debug)]
pub struct Type<'a> {
    pub(crate) model: &'a Model,
    pub(crate) id: TypeId,
}

impl<'a> Type<'a> {
    /// The compiled schema node.
    pub fn def(&self) -> &'a TypeDef {
        &self.model.defs[self.id.0 as usize]
    }

    /// Where the model's schemas come from.
    pub fn flavor(&self) -> Flavor {
        self.model.flavor
    }

    /// The type of a declared property.
    pub fn property(&self, name: &str) -> Option<Type<'a>> {
        let props = &self.def().properties;
        props
            .binary_search_by(|(n, _)| (**n).cmp(name))
            .ok()
            .map(|i| self.at(props[i].1))
    }

    /// The type of a map's values (`additionalProperties` with a schema).
    pub fn values(&self) -> Option<Type<'a>> {
        match self.def().additional {
            Additional::Typed(id) => Some(self.at(id)),
            _ => None,
        }
    }

    /// The type of an array's items.
    pub fn items(&self) -> Option<Type<'a>> {
        self.def().items.map(|id| self.at(id))
    }

    /// The `default` value, kept for defaulting before CEL.
    pub fn default_value(&self) -> Option<&'a Value> {
        self.def().default.as_ref()
    }

    /// The `x-kubernetes-validations` rules of this node (the CEL seam).
    pub fn rules(&self) -> &'a [CelRule] {
        &self.def().rules
    }

    pub(crate) fn at(&self, id: TypeId) -> Type<'a> {
        Type {
            model: self.model,
            id,
        }
    }
}

/// Compiles schema JSON into a [`Model`]; `$ref: NAME` resolves through `definitions`.
pub(crate) struct Compiler<'d> {
    defs: Vec<TypeDef>,
    flavor: Flavor,
    definitions: &'d dyn Fn(&str) -> Option<&'d Value>,
    named: HashMap<&'d str, TypeId>,
    regexes: HashMap<String, Option<Regex>>,
    /// Definitions (by name) that get [`TypeDef::object_meta`].
    object_meta_name: Option<&'static str>,
    /// Compiling a junctor's branch of a CRD: its own junctors count too.
    in_junctor: bool,
}

/// The name of ObjectMeta among the bundled definitions.
pub(crate) const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

impl<'d> Compiler<'d> {
    pub(crate) fn new(
        flavor: Flavor,
        definitions: &'d dyn Fn(&str) -> Option<&'d Value>,
    ) -> Compiler<'d> {
        Compiler {
            defs: Vec::new(),
            flavor,
            definitions,
            named: HashMap::new(),
            regexes: HashMap::new(),
            object_meta_name: (flavor == Flavor::BuiltIn).then_some(OBJECT_META),
            in_junctor: false,
        }
    }

    pub(crate) fn finish(self) -> Model {
        Model {
            has_rules: self.defs.iter().any(|d| !d.rules.is_empty()),
            defs: self.defs,
            flavor: self.flavor,
        }
    }

    fn push(&mut self, def: TypeDef) -> TypeId {
        self.defs.push(def);
        TypeId(self.defs.len() as u32 - 1)
    }

    /// The type of a named definition (compiled once).
    pub(crate) fn named(&mut self, name: &'d str) -> Option<TypeId> {
        if let Some(id) = self.named.get(name) {
            return Some(*id);
        }
        let body = (self.definitions)(name)?;
        let id = self.push(TypeDef::default());
        self.named.insert(name, id);
        let mut def = self.build(body, 0);
        if self.object_meta_name == Some(name) {
            def.object_meta = true;
        }
        self.defs[id.0 as usize] = def;
        Some(id)
    }

    /// Compiles one schema node.
    pub(crate) fn compile(&mut self, v: &'d Value) -> TypeId {
        self.compile_at(v, 0)
    }

    /// A type that takes anything (an unresolved reference, a schema nested too deep).
    pub(crate) fn any(&mut self) -> TypeId {
        self.push(TypeDef::default())
    }

    /// Adds a type built by hand.
    pub(crate) fn add(&mut self, def: TypeDef) -> TypeId {
        self.push(def)
    }

    fn compile_at(&mut self, v: &'d Value, depth: usize) -> TypeId {
        if let Some(name) = v.get("$ref").and_then(Value::as_str) {
            return self.named(name).unwrap_or_else(|| self.any());
        }
        if depth > 64 {
            return self.any();
        }
        let def = self.build(v, depth);
        self.push(def)
    }

    /// A structural schema's junctors, each branch compiled with open objects and no
    /// junctors of its own taken as types (a branch of `x-kubernetes-int-or-string`'s
    /// `anyOf: [{type: integer}, {type: string}]` is a type test like any other).
    fn junctors(
        &mut self,
        obj: &'d serde_json::Map<String, Value>,
        depth: usize,
    ) -> Box<[Junctor]> {
        let mut out = Vec::new();
        let mut add = |c: &mut Self, kind: JunctorKind, schemas: Vec<&'d Value>| {
            let saved = (c.flavor, c.in_junctor);
            (c.flavor, c.in_junctor) = (Flavor::BuiltIn, true);
            let branches = schemas
                .into_iter()
                .map(|b| c.compile_at(b, depth + 1))
                .collect();
            (c.flavor, c.in_junctor) = saved;
            out.push(Junctor { kind, branches });
        };
        for (key, kind) in [
            ("allOf", JunctorKind::AllOf),
            ("anyOf", JunctorKind::AnyOf),
            ("oneOf", JunctorKind::OneOf),
        ] {
            if let Some(Value::Array(branches)) = obj.get(key) {
                add(self, kind, branches.iter().collect());
            }
        }
        if let Some(not @ Value::Object(_)) = obj.get("not") {
            add(self, JunctorKind::Not, vec![not]);
        }
        out.into()
    }

    fn build(&mut self, v: &'d Value, depth: usize) -> TypeDef {
        let mut def = TypeDef::default();
        let Some(obj) = v.as_object() else {
            return def;
        };
        if let Some(name) = obj.get("$ref").and_then(Value::as_str) {
            // A definition that is only a reference: the referenced type, copied.
            if let Some(id) = self.named(name) {
                return self.defs[id.0 as usize].clone();
            }
            return def;
        }
        match obj.get("type") {
            Some(Value::String(t)) => def.types = JsonTypes::named(t).unwrap_or_default(),
            Some(Value::Array(ts)) => {
                for t in ts.iter().filter_map(Value::as_str) {
                    match t {
                        "null" => def.nullable = true,
                        t => def.types = def.types.with(JsonTypes::named(t).unwrap_or_default()),
                    }
                }
            }
            _ => {}
        }
        // A JSON schema union of plain types (IntOrString, Quantity): the union of the types.
        if def.types.is_any() {
            for key in ["oneOf", "anyOf"] {
                if let Some(Value::Array(branches)) = obj.get(key) {
                    if self.flavor == Flavor::BuiltIn {
                        for b in branches {
                            let sub = self.build(b, depth + 1);
                            def.types = def.types.with(sub.types);
                            def.nullable |= sub.nullable;
                        }
                    }
                }
            }
        }
        if self.flavor == Flavor::Structural || self.in_junctor {
            def.junctors = self.junctors(obj, depth);
        }
        if obj.get("nullable") == Some(&Value::Bool(true)) {
            def.nullable = true;
        }
        let flag = |k: &str| obj.get(k) == Some(&Value::Bool(true));
        def.int_or_string = flag("x-kubernetes-int-or-string");
        def.preserve_unknown = flag("x-kubernetes-preserve-unknown-fields");
        def.embedded_resource = flag("x-kubernetes-embedded-resource");
        if def.int_or_string {
            def.types = JsonTypes::INTEGER.with(JsonTypes::STRING);
        }
        if let Some(f) = obj.get("format").and_then(Value::as_str) {
            def.format = Format::named(f);
        }
        if let Some(Value::Object(props)) = obj.get("properties") {
            let mut list: Vec<(Box<str>, TypeId)> = props
                .iter()
                .map(|(k, p)| (k.as_str().into(), self.compile_at(p, depth + 1)))
                .collect();
            list.sort_by(|a, b| a.0.cmp(&b.0));
            def.properties = list.into();
        }
        if let Some(Value::Array(req)) = obj.get("required") {
            def.required = req
                .iter()
                .filter_map(Value::as_str)
                .map(Into::into)
                .collect();
        }
        def.additional = match obj.get("additionalProperties") {
            Some(Value::Bool(false)) => Additional::Closed,
            Some(Value::Bool(true)) => Additional::Any,
            Some(s @ Value::Object(_)) => Additional::Typed(self.compile_at(s, depth + 1)),
            _ => match self.flavor {
                Flavor::BuiltIn => Additional::Any,
                // Structural: unknown fields are pruned, which strict field validation (kubectl's
                // default since 1.25) reports; an object with no schema for its fields is
                // closed too, unless it preserves them.
                Flavor::Structural if def.preserve_unknown => Additional::Any,
                Flavor::Structural => Additional::Closed,
            },
        };
        if let Some(items) = obj.get("items") {
            def.items = Some(self.compile_at(items, depth + 1));
        }
        if let Some(Value::Array(values)) = obj.get("enum") {
            def.enum_values = values.clone().into();
        }
        match obj.get("x-kubernetes-list-type").and_then(Value::as_str) {
            Some("set") => def.list_type = ListType::Set,
            Some("map") => {
                let keys = obj
                    .get("x-kubernetes-list-map-keys")
                    .and_then(Value::as_array)
                    .map(|ks| {
                        ks.iter()
                            .filter_map(Value::as_str)
                            .map(Into::into)
                            .collect()
                    })
                    .unwrap_or_default();
                def.list_type = ListType::Map(keys);
            }
            _ => {}
        }
        let num = |k: &str| obj.get(k).and_then(Value::as_f64);
        let count = |k: &str| obj.get(k).and_then(Value::as_u64);
        def.bounds = Bounds {
            minimum: num("minimum"),
            maximum: num("maximum"),
            exclusive_minimum: flag("exclusiveMinimum"),
            exclusive_maximum: flag("exclusiveMaximum"),
            min_length: count("minLength"),
            max_length: count("maxLength"),
            min_items: count("minItems"),
            max_items: count("maxItems"),
            min_properties: count("minProperties"),
            max_properties: count("maxProperties"),
        };
        if let Some(p) = obj.get("pattern").and_then(Value::as_str) {
            def.pattern = self
                .regexes
                .entry(p.to_string())
                .or_insert_with(|| Regex::new(p).ok())
                .clone();
        }
        def.default = obj.get("default").cloned();
        if let Some(Value::Array(rules)) = obj.get("x-kubernetes-validations") {
            def.rules = rules
                .iter()
                .filter_map(|r| {
                    let text = |k: &str| r.get(k).and_then(Value::as_str).map(str::to_string);
                    Some(CelRule {
                        rule: text("rule")?,
                        message: text("message"),
                        message_expression: text("messageExpression"),
                        reason: text("reason"),
                        field_path: text("fieldPath"),
                        optional_old_self: r.get("optionalOldSelf") == Some(&Value::Bool(true)),
                        compiled: Default::default(),
                    })
                })
                .collect();
        }
        def
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The model, with the root at the end (children are compiled first).
    fn compile(flavor: Flavor, v: &Value) -> Model {
        let none = |_: &str| None;
        let mut c = Compiler::new(flavor, &none);
        let root = c.compile(v);
        let mut m = c.finish();
        let def = m.defs.remove(root.0 as usize);
        m.defs.insert(0, def);
        m
    }

    #[test]
    fn structural_objects_without_properties_are_closed_unless_they_preserve_fields() {
        let m = compile(Flavor::Structural, &serde_json::json!({"type": "object"}));
        assert_eq!(m.defs[0].additional, Additional::Closed);
        let m = compile(
            Flavor::Structural,
            &serde_json::json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}),
        );
        assert_eq!(m.defs[0].additional, Additional::Any);
        let m = compile(
            Flavor::BuiltIn,
            &serde_json::json!({"type": ["object", "null"]}),
        );
        assert_eq!(m.defs[0].additional, Additional::Any);
        assert!(m.defs[0].nullable);
    }

    #[test]
    fn unions_of_plain_types_and_int_or_string() {
        let m = compile(
            Flavor::BuiltIn,
            &serde_json::json!({"oneOf": [{"type": ["string", "null"]}, {"type": ["integer", "null"]}]}),
        );
        assert_eq!(m.defs[0].types, JsonTypes::STRING.with(JsonTypes::INTEGER));
        let m = compile(
            Flavor::Structural,
            &serde_json::json!({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]}),
        );
        assert_eq!(m.defs[0].types.describe(), "string or integer");
    }

    #[test]
    fn properties_are_sorted_for_lookup() {
        let m = compile(
            Flavor::Structural,
            &serde_json::json!({"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "integer"}}}),
        );
        let names: Vec<&str> = m.defs[0].properties.iter().map(|(n, _)| &**n).collect();
        assert_eq!(names, ["a", "b"]);
    }
}
