//! A schema document read as gojsonschema's `SchemaLoader.Compile` reads it: the draft from
//! `$schema`, `$id`s and `$ref`s resolved within the document, and each keyword checked as it
//! is read, the first problem ending the parse with gojsonschema's words. Subschemas live in
//! an arena; a `$ref` points at the node made for its target, so cycles are indices.

use super::json::{Json, Map};
use super::messages::Unusable;
use super::number::{Decimal, Number};
use super::reference::Reference;

use crate::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use crate::go::regexp::GoRegex;

/// A subschema's index in [`Schema::nodes`].
pub type NodeId = usize;

/// The JSON Schema draft a subschema is read as; `Hybrid` (no known `$schema`) accepts what
/// any of them does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Draft {
    Draft4,
    Draft6,
    Draft7,
    Hybrid,
}

/// The JSON types a `type` keyword names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    Array,
    Boolean,
    Integer,
    Number,
    Null,
    Object,
    String,
}

impl Type {
    fn parse(name: &str) -> Option<Type> {
        Some(match name {
            "array" => Type::Array,
            "boolean" => Type::Boolean,
            "integer" => Type::Integer,
            "number" => Type::Number,
            "null" => Type::Null,
            "object" => Type::Object,
            "string" => Type::String,
            _ => return None,
        })
    }

    /// The name gojsonschema prints.
    pub fn name(self) -> &'static str {
        match self {
            Type::Array => "array",
            Type::Boolean => "boolean",
            Type::Integer => "integer",
            Type::Number => "number",
            Type::Null => "null",
            Type::Object => "object",
            Type::String => "string",
        }
    }
}

/// `additionalProperties` or `additionalItems`.
#[derive(Clone, Debug)]
pub enum Additional {
    Allowed(bool),
    Schema(NodeId),
}

/// One entry of `dependencies`.
#[derive(Clone, Debug)]
pub enum Dependency {
    Properties(Vec<String>),
    Schema(NodeId),
}

/// A compiled `pattern` or `patternProperties` key.
#[derive(Clone)]
pub struct Pattern {
    pub text: String,
    pub regex: GoRegex,
}

impl std::fmt::Debug for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// `enum`: the values as gojsonschema writes them, in order and as a set.
#[derive(Clone, Debug, Default)]
pub struct Enum {
    pub listed: Vec<String>,
    pub set: HashSet<String>,
}

/// One subschema (gojsonschema's `subSchema`): the keywords most subschemas use, and the
/// others apart, allocated only for a subschema that has one (a node with all of them inline
/// took 900 bytes; redis's schema has 900 nodes, and every byte of them is a fresh page).
#[derive(Clone, Debug, Default)]
pub struct Node {
    /// The property a child of `properties` checks.
    pub property: String,
    /// A boolean schema.
    pub pass: Option<bool>,
    pub types: Vec<Type>,
    /// The schema a `$ref` names; the node's other keywords are then not applied.
    pub reference: Option<NodeId>,
    pub items: Vec<NodeId>,
    pub items_single: bool,
    pub properties: Vec<NodeId>,
    pub property_set: HashSet<String>,
    pub additional_properties: Option<Additional>,
    pub required: Vec<String>,
    more: Option<Box<Keywords>>,
}

/// The keywords of a subschema that most subschemas do not use.
#[derive(Clone, Debug, Default)]
pub struct Keywords {
    pub additional_items: Option<Additional>,
    pub pattern_properties: Vec<(Pattern, NodeId)>,
    pub property_names: Option<NodeId>,
    pub dependencies: Vec<(String, Dependency)>,
    pub multiple_of: Option<Decimal>,
    pub minimum: Option<Decimal>,
    pub exclusive_minimum: Option<Decimal>,
    pub maximum: Option<Decimal>,
    pub exclusive_maximum: Option<Decimal>,
    pub min_length: Option<i64>,
    pub max_length: Option<i64>,
    pub pattern: Option<Pattern>,
    pub format: Option<String>,
    pub min_properties: Option<i64>,
    pub max_properties: Option<i64>,
    pub min_items: Option<i64>,
    pub max_items: Option<i64>,
    pub unique_items: bool,
    pub contains: Option<NodeId>,
    pub constant: Option<String>,
    pub enumeration: Option<Enum>,
    pub one_of: Vec<NodeId>,
    pub any_of: Vec<NodeId>,
    pub all_of: Vec<NodeId>,
    pub not: Option<NodeId>,
    pub if_: Option<NodeId>,
    pub then: Option<NodeId>,
    pub else_: Option<NodeId>,
}

/// The keywords of a subschema that has none of them.
static NO_KEYWORDS: Keywords = Keywords {
    additional_items: None,
    pattern_properties: Vec::new(),
    property_names: None,
    dependencies: Vec::new(),
    multiple_of: None,
    minimum: None,
    exclusive_minimum: None,
    maximum: None,
    exclusive_maximum: None,
    min_length: None,
    max_length: None,
    pattern: None,
    format: None,
    min_properties: None,
    max_properties: None,
    min_items: None,
    max_items: None,
    unique_items: false,
    contains: None,
    constant: None,
    enumeration: None,
    one_of: Vec::new(),
    any_of: Vec::new(),
    all_of: Vec::new(),
    not: None,
    if_: None,
    then: None,
    else_: None,
};

impl Node {
    /// The node's less common keywords.
    pub fn more(&self) -> &Keywords {
        self.more.as_deref().unwrap_or(&NO_KEYWORDS)
    }

    /// The node's less common keywords, to set one.
    fn more_mut(&mut self) -> &mut Keywords {
        self.more.get_or_insert_with(Box::default)
    }
}

/// A compiled schema.
#[derive(Debug)]
pub struct Schema {
    pub nodes: Vec<Node>,
}

impl Schema {
    /// The root subschema.
    pub const ROOT: NodeId = 0;
}

/// `gojsonschema.NewSchema` on a decoded document, reading subschemas at most `limit` deep.
/// `remote` holds the documents at URLs its references name (fetched by the caller), each
/// with its URL: gojsonschema's pool, which loads them when a reference reaches them.
pub fn compile(
    mut document: Json,
    mut remote: Vec<(String, Json)>,
    limit: usize,
) -> Result<Schema, Unusable> {
    let draft = schema_draft(&document)?;
    // The bytes loader's reference is `#`, whose text is empty.
    let root = Reference::parse("#").map_err(Unusable::Go)?;
    rewrite_references(&mut document, &root);
    let mut scopes = Vec::with_capacity(remote.len());
    for (url, remote_document) in &mut remote {
        // The pool's `parseReferences` of a loaded document: its references are rewritten in
        // the scope of its own URL.
        let scope = Reference::parse(url).map_err(Unusable::Go)?;
        rewrite_references(remote_document, &scope);
        scopes.push(scope);
    }
    let mut documents: HashMap<String, (&Json, Option<Draft>)> = HashMap::default();
    register_ids(&document, &root, draft, &mut documents);
    documents.insert(root.text(), (&document, draft));
    for ((_, remote_document), scope) in remote.iter().zip(&scopes) {
        let draft = schema_draft(remote_document).unwrap_or(None);
        register_ids(remote_document, scope, draft, &mut documents);
        documents
            .entry(scope.text())
            .or_insert((remote_document, draft));
    }
    let mut compiler = Compiler {
        depth: 0,
        limit,
        nodes: vec![Node::default()],
        references: HashMap::default(),
        documents,
    };
    let context = Context {
        draft: draft.unwrap_or(Draft::Hybrid),
        id: std::rc::Rc::new(root),
        is_root: true,
    };
    compiler.parse(&document, Schema::ROOT, &context)?;
    Ok(Schema {
        nodes: compiler.nodes,
    })
}

/// `parseSchemaURL`: the draft `$schema` names, if it names one of gojsonschema's.
fn schema_draft(document: &Json) -> Result<Option<Draft>, Unusable> {
    let map = match document {
        Json::Bool(_) => return Ok(None),
        Json::Object(m) => m,
        _ => return Err(Unusable::NotASchema),
    };
    let Some(value) = map.get("$schema") else {
        return Ok(None);
    };
    let Json::String(text) = value else {
        return Err(Unusable::MustBeOfType {
            key: "$schema",
            ty: "string",
        });
    };
    let reference = Reference::parse(text).map_err(Unusable::Go)?;
    Ok(match reference.text().as_str() {
        "http://json-schema.org/draft-04/schema" => Some(Draft::Draft4),
        "http://json-schema.org/draft-06/schema" => Some(Draft::Draft6),
        "http://json-schema.org/draft-07/schema" => Some(Draft::Draft7),
        _ => None,
    })
}

/// The scope an object's `$id` (or `id`) opens, as `parseReferencesRecursive` reads it:
/// `None` when it has none or it does not parse.
fn scope_of(map: &Map, scope: &Reference) -> Option<Reference> {
    let key = if map.contains_key("id") { "id" } else { "$id" };
    match map.get(key) {
        Some(Json::String(id)) => Reference::parse(id).and_then(|r| scope.inherits(&r)).ok(),
        _ => None,
    }
}

/// The values `parseReferencesRecursive` walks into: not `const` and `enum`, and the
/// members of `properties`, `dependencies` and `patternProperties` rather than those maps.
fn walked(map: &Map) -> impl Iterator<Item = (&String, &Json)> {
    map.iter().flat_map(|(k, v)| {
        let (members, own): (Option<&Map>, Option<&Json>) = match (k.as_str(), v) {
            ("const" | "enum", _) => (None, None),
            ("properties" | "dependencies" | "patternProperties", Json::Object(m)) => {
                (Some(m), None)
            }
            ("properties" | "dependencies" | "patternProperties", _) => (None, None),
            _ => (None, Some(v)),
        };
        members
            .into_iter()
            .flat_map(|m| m.iter())
            .chain(own.map(|v| (k, v)))
    })
}

/// `parseReferencesRecursive`'s rewrite: every `$ref` becomes the absolute reference it
/// means in its `$id` scope. Problems are left for the parse to report.
fn rewrite_references(node: &mut Json, scope: &Reference) {
    match node {
        Json::Array(items) => {
            for item in items {
                rewrite_references(item, scope);
            }
        }
        Json::Object(map) => {
            // Most objects have no `$id`: their scope is their parent's, not a copy of it.
            let own = scope_of(map, scope);
            let local = own.as_ref().unwrap_or(scope);
            if let Some(Json::String(reference)) = map.get_mut("$ref") {
                if let Ok(resolved) = Reference::parse(reference).and_then(|r| local.inherits(&r)) {
                    *reference = resolved.text();
                }
            }
            for (k, v) in map.iter_mut() {
                match (k.as_str(), v) {
                    ("const" | "enum", _) => {}
                    ("properties" | "dependencies" | "patternProperties", Json::Object(m)) => {
                        for child in m.values_mut() {
                            rewrite_references(child, local);
                        }
                    }
                    ("properties" | "dependencies" | "patternProperties", _) => {}
                    (_, v) => rewrite_references(v, local),
                }
            }
        }
        _ => {}
    }
}

/// `parseReferencesRecursive`'s registry: every `$id` under the URL it resolves to, with the
/// document's draft. A second `$id` of the same URL is gojsonschema's dropped "Reference
/// already exists" error, which skips the rest of its subtree.
fn register_ids<'d>(
    node: &'d Json,
    scope: &Reference,
    draft: Option<Draft>,
    documents: &mut HashMap<String, (&'d Json, Option<Draft>)>,
) {
    match node {
        Json::Array(items) => {
            for item in items {
                register_ids(item, scope, draft, documents);
            }
        }
        Json::Object(map) => {
            let own = scope_of(map, scope);
            if let Some(resolved) = &own {
                let text = resolved.text();
                if documents.contains_key(&text) {
                    return;
                }
                documents.insert(text, (node, draft));
            }
            let local = own.as_ref().unwrap_or(scope);
            for (_, v) in walked(map) {
                register_ids(v, local, draft, documents);
            }
        }
        _ => {}
    }
}

/// What a subschema inherits from where it sits.
struct Context {
    draft: Draft,
    /// The `$id` scope (only checked, as gojsonschema uses it for nothing else); shared, as
    /// nearly every subschema has its parent's.
    id: std::rc::Rc<Reference>,
    is_root: bool,
}

struct Compiler<'d> {
    /// How many subschemas are being read inside one another (nesting and `$ref` chains).
    depth: usize,
    /// How many may be.
    limit: usize,
    nodes: Vec<Node>,
    /// gojsonschema's `schemaReferencePool`: the node made for each `$ref` target.
    references: HashMap<String, NodeId>,
    /// gojsonschema's `schemaPool`: documents by the URL that names them, with their draft.
    documents: HashMap<String, (&'d Json, Option<Draft>)>,
}

/// The kind gojsonschema's `isKind` sees; a number `big.Rat` cannot read panics there.
fn kind(v: &Json) -> Result<&Json, Unusable> {
    match v {
        Json::Number(n) if n.value().is_none() => Err(Unusable::Panic(
            "runtime error: invalid memory address or nil pointer dereference".to_string(),
        )),
        _ => Ok(v),
    }
}

fn is_string(v: &Json) -> Result<bool, Unusable> {
    Ok(matches!(kind(v)?, Json::String(_)))
}

fn is_schema_like(v: &Json) -> Result<bool, Unusable> {
    Ok(matches!(kind(v)?, Json::Object(_) | Json::Bool(_)))
}

fn must_be_number(v: &Json) -> Option<Decimal> {
    match v {
        Json::Number(n) => n.value().cloned(),
        _ => None,
    }
}

fn must_be_integer(v: &Json) -> Option<i64> {
    match v {
        Json::Number(n) => n.as_int(),
        _ => None,
    }
}

fn regex(pattern: &str) -> Option<GoRegex> {
    crate::go::regexp::compile(pattern).ok()
}

impl<'d> Compiler<'d> {
    fn child(&mut self, property: &str) -> NodeId {
        self.nodes.push(Node {
            property: property.to_string(),
            ..Node::default()
        });
        self.nodes.len() - 1
    }

    /// Parses `value` as a new child subschema of a node read in `context`.
    fn sub(
        &mut self,
        value: &'d Json,
        property: &str,
        context: &Context,
    ) -> Result<NodeId, Unusable> {
        let id = self.child(property);
        let inner = Context {
            draft: context.draft,
            id: context.id.clone(),
            is_root: false,
        };
        self.parse(value, id, &inner)?;
        Ok(id)
    }

    /// gojsonschema's `parseSchema`, within kdelta's depth limit (Go's stack grows as far as
    /// a chain of references goes; this thread's is sized for the limit).
    fn parse(&mut self, document: &'d Json, at: NodeId, context: &Context) -> Result<(), Unusable> {
        if self.depth >= self.limit {
            return Err(Unusable::TooDeep(self.limit));
        }
        self.depth += 1;
        let parsed = self.parse_keywords(document, at, context);
        self.depth -= 1;
        parsed
    }

    /// gojsonschema's `parseSchema`, keyword by keyword in its order.
    fn parse_keywords(
        &mut self,
        document: &'d Json,
        at: NodeId,
        context: &Context,
    ) -> Result<(), Unusable> {
        let draft = context.draft;
        if draft >= Draft::Draft6 {
            if let Json::Bool(b) = document {
                self.nodes[at].pass = Some(*b);
                return Ok(());
            }
        }
        let Json::Object(m) = kind(document)? else {
            return Err(Unusable::NotAValidSchema);
        };
        let m = &Members::of(m);
        let key_id = match draft {
            Draft::Draft4 => "id",
            Draft::Hybrid if m.contains_key("id") => "id",
            _ => "$id",
        };
        let mut scope = context.id.clone();
        if let Some(id) = m.get(key_id) {
            let Json::String(text) = kind(id)? else {
                return Err(Unusable::InvalidType {
                    expected: "string",
                    given: key_id,
                });
            };
            let reference = Reference::parse(text).map_err(Unusable::Go)?;
            scope = std::rc::Rc::new(if context.is_root {
                reference
            } else {
                context.id.inherits(&reference).map_err(Unusable::Go)?
            });
        }
        let here = Context {
            draft,
            id: scope,
            is_root: false,
        };
        let here = &here;

        if let Some(definitions) = m.get("definitions") {
            match kind(definitions)? {
                Json::Object(defs) => {
                    for dv in defs.values() {
                        if !is_schema_like(dv)? {
                            return Err(Unusable::InvalidType {
                                expected: "array of schemas",
                                given: "definitions",
                            });
                        }
                        self.sub(dv, "definitions", here)?;
                    }
                }
                Json::Bool(_) => {
                    return Err(Unusable::Panic(
                        "interface conversion: interface {} is bool, not map[string]interface {}"
                            .to_string(),
                    ))
                }
                _ => {
                    return Err(Unusable::InvalidType {
                        expected: "array of schemas",
                        given: "definitions",
                    })
                }
            }
        }
        for key in ["title", "description"] {
            if let Some(v) = m.get(key) {
                if !is_string(v)? {
                    return Err(Unusable::InvalidType {
                        expected: "string",
                        given: key,
                    });
                }
            }
        }
        if let Some(r) = m.get("$ref") {
            let Json::String(text) = kind(r)? else {
                return Err(Unusable::InvalidType {
                    expected: "string",
                    given: "$ref",
                });
            };
            let reference = Reference::parse(text).map_err(Unusable::Go)?;
            match self.references.get(&reference.text()) {
                Some(&target) => self.nodes[at].reference = Some(target),
                None => {
                    // The first use of a reference parses its target, and the keywords
                    // beside the `$ref` are not read.
                    let target = self.resolve(&reference, draft)?;
                    self.nodes[at].reference = Some(target);
                    return Ok(());
                }
            }
        }
        if let Some(t) = m.get("type") {
            match kind(t)? {
                Json::String(name) => self.add_type(at, name)?,
                Json::Array(names) => {
                    for name in names {
                        match name {
                            Json::String(name) => self.add_type(at, name)?,
                            // A json.Number is a string kind to reflect, and the type
                            // assertion that follows panics.
                            Json::Number(_) => {
                                return Err(Unusable::Panic(
                                    "interface conversion: interface {} is json.Number, not string"
                                        .to_string(),
                                ))
                            }
                            _ => {
                                return Err(Unusable::InvalidType {
                                    expected: "string/array of strings",
                                    given: "type",
                                })
                            }
                        }
                    }
                }
                _ => {
                    return Err(Unusable::InvalidType {
                        expected: "string/array of strings",
                        given: "type",
                    })
                }
            }
        }
        if let Some(p) = m.get("properties") {
            let Json::Object(props) = kind(p)? else {
                return Err(Unusable::MustBeOfType {
                    key: "properties",
                    ty: "object",
                });
            };
            for (name, v) in props {
                let child = self.sub(v, name, here)?;
                self.nodes[at].properties.push(child);
                self.nodes[at].property_set.insert(name.clone());
            }
        }
        if let Some(a) = m.get("additionalProperties") {
            let additional = self.additional(a, "additionalProperties", here)?;
            self.nodes[at].additional_properties = Some(additional);
        }
        if let Some(p) = m.get("patternProperties") {
            let Json::Object(patterns) = kind(p)? else {
                return Err(Unusable::InvalidType {
                    expected: "valid schema",
                    given: "patternProperties",
                });
            };
            for (pattern, v) in patterns {
                let Some(regex) = regex(pattern) else {
                    return Err(Unusable::PatternProperty(pattern.clone()));
                };
                let child = self.sub(v, pattern, here)?;
                let pattern = Pattern {
                    text: pattern.clone(),
                    regex,
                };
                self.nodes[at]
                    .more_mut()
                    .pattern_properties
                    .push((pattern, child));
            }
        }
        if let Some(p) = m.get("propertyNames").filter(|_| draft >= Draft::Draft6) {
            if !is_schema_like(p)? {
                return Err(Unusable::InvalidType {
                    expected: "valid schema",
                    given: "patternProperties",
                });
            }
            let child = self.sub(p, "propertyNames", here)?;
            self.nodes[at].more_mut().property_names = Some(child);
        }
        if let Some(d) = m.get("dependencies") {
            self.dependencies(d, at, here)?;
        }
        if let Some(items) = m.get("items") {
            match kind(items)? {
                Json::Array(list) => {
                    for item in list {
                        if !is_schema_like(item)? {
                            return Err(Unusable::InvalidType {
                                expected: "valid schema/array of schemas",
                                given: "items",
                            });
                        }
                        let child = self.sub(item, "items", here)?;
                        self.nodes[at].items.push(child);
                    }
                }
                Json::Object(_) | Json::Bool(_) => {
                    let child = self.sub(items, "items", here)?;
                    self.nodes[at].items.push(child);
                    self.nodes[at].items_single = true;
                }
                _ => {
                    return Err(Unusable::InvalidType {
                        expected: "valid schema/array of schemas",
                        given: "items",
                    })
                }
            }
        }
        if let Some(a) = m.get("additionalItems") {
            let additional = self.additional(a, "additionalItems", here)?;
            self.nodes[at].more_mut().additional_items = Some(additional);
        }
        self.numbers(m, at, draft)?;
        self.strings(m, at)?;
        self.objects(m, at)?;
        self.arrays(m, at, here)?;
        if let Some(c) = m.get("const").filter(|_| draft >= Draft::Draft6) {
            self.nodes[at].more_mut().constant = Some(c.canonical().map_err(Unusable::Go)?);
        }
        if let Some(e) = m.get("enum") {
            let Json::Array(values) = kind(e)? else {
                return Err(Unusable::MustBeOfAn {
                    x: "enum",
                    y: "array",
                });
            };
            // An empty list sets nothing: gojsonschema then checks no value against it.
            let mut listed = Enum::default();
            for v in values {
                let text = v.canonical().map_err(Unusable::Go)?;
                if !listed.set.insert(text.clone()) {
                    return Err(Unusable::ItemsMustBeUnique("enum"));
                }
                listed.listed.push(text);
            }
            if !listed.listed.is_empty() {
                self.nodes[at].more_mut().enumeration = Some(listed);
            }
        }
        for (key, error_key) in [("oneOf", "oneOf"), ("anyOf", "anyOf"), ("allOf", "anyOf")] {
            if let Some(list) = m.get(key) {
                let Json::Array(list) = kind(list)? else {
                    // gojsonschema names anyOf in allOf's error too.
                    return Err(Unusable::MustBeOfAn {
                        x: error_key,
                        y: "array",
                    });
                };
                for v in list {
                    let child = self.sub(v, key, here)?;
                    let node = &mut self.nodes[at];
                    match key {
                        "oneOf" => node.more_mut().one_of.push(child),
                        "anyOf" => node.more_mut().any_of.push(child),
                        _ => node.more_mut().all_of.push(child),
                    }
                }
            }
        }
        if let Some(n) = m.get("not") {
            if !is_schema_like(n)? {
                return Err(Unusable::MustBeOfAn {
                    x: "not",
                    y: "object",
                });
            }
            let child = self.sub(n, "not", here)?;
            self.nodes[at].more_mut().not = Some(child);
        }
        if draft >= Draft::Draft7 {
            for key in ["if", "then", "else"] {
                if let Some(v) = m.get(key) {
                    if !is_schema_like(v)? {
                        return Err(Unusable::MustBeOfAn {
                            x: key,
                            y: "object",
                        });
                    }
                    let child = self.sub(v, key, here)?;
                    let node = &mut self.nodes[at];
                    match key {
                        "if" => node.more_mut().if_ = Some(child),
                        "then" => node.more_mut().then = Some(child),
                        _ => node.more_mut().else_ = Some(child),
                    }
                }
            }
        }
        Ok(())
    }

    fn add_type(&mut self, at: NodeId, name: &str) -> Result<(), Unusable> {
        let t = Type::parse(name).ok_or_else(|| Unusable::UnknownType(name.to_string()))?;
        let types = &mut self.nodes[at].types;
        if types.contains(&t) {
            return Err(Unusable::DuplicatedType(name.to_string()));
        }
        types.push(t);
        Ok(())
    }

    fn additional(
        &mut self,
        value: &'d Json,
        key: &'static str,
        context: &Context,
    ) -> Result<Additional, Unusable> {
        match kind(value)? {
            Json::Bool(b) => Ok(Additional::Allowed(*b)),
            Json::Object(_) => Ok(Additional::Schema(self.sub(value, key, context)?)),
            _ => Err(Unusable::InvalidType {
                expected: "boolean/valid schema",
                given: key,
            }),
        }
    }

    fn dependencies(
        &mut self,
        value: &'d Json,
        at: NodeId,
        context: &Context,
    ) -> Result<(), Unusable> {
        let Json::Object(deps) = kind(value)? else {
            return Err(Unusable::MustBeOfType {
                key: "dependencies",
                ty: "object",
            });
        };
        let bad = Unusable::MustBeOfType {
            key: "dependency",
            ty: "schema or array of strings",
        };
        for (name, dep) in deps {
            match dep {
                Json::Array(list) => {
                    let mut keys = Vec::new();
                    for v in list {
                        let Json::String(k) = kind(v)? else {
                            return Err(bad);
                        };
                        keys.push(k.clone());
                    }
                    // An empty list registers nothing.
                    if !keys.is_empty() {
                        self.nodes[at]
                            .more_mut()
                            .dependencies
                            .push((name.clone(), Dependency::Properties(keys)));
                    }
                }
                Json::Object(_) | Json::Bool(_) => {
                    let child = self.sub(dep, name, context)?;
                    self.nodes[at]
                        .more_mut()
                        .dependencies
                        .push((name.clone(), Dependency::Schema(child)));
                }
                _ => return Err(bad),
            }
        }
        Ok(())
    }

    fn numbers(&mut self, m: &Members, at: NodeId, draft: Draft) -> Result<(), Unusable> {
        if let Some(v) = m.get("multipleOf") {
            let n = must_be_number(v).ok_or(Unusable::InvalidType {
                expected: "number",
                given: "multipleOf",
            })?;
            if n <= zero() {
                return Err(Unusable::NotPositive("multipleOf"));
            }
            self.nodes[at].more_mut().multiple_of = Some(n);
        }
        for (bound, exclusive) in [
            ("minimum", "exclusiveMinimum"),
            ("maximum", "exclusiveMaximum"),
        ] {
            let mut limit = None;
            if let Some(v) = m.get(bound) {
                limit = Some(must_be_number(v).ok_or(Unusable::MustBeOfA {
                    x: bound,
                    y: "number",
                })?);
            }
            let mut exclusive_limit = None;
            if let Some(v) = m.get(exclusive) {
                let boolean = |limit: &mut Option<Decimal>, b: bool| {
                    if limit.is_none() {
                        return Err(Unusable::CannotBeUsedWithout {
                            x: exclusive,
                            y: bound,
                        });
                    }
                    Ok(if b { limit.take() } else { None })
                };
                exclusive_limit = match (draft, kind(v)?) {
                    (Draft::Draft4 | Draft::Hybrid, Json::Bool(b)) => boolean(&mut limit, *b)?,
                    (Draft::Draft4, _) => {
                        return Err(Unusable::InvalidType {
                            expected: "boolean",
                            given: exclusive,
                        })
                    }
                    (_, Json::Number(n)) => n.value().cloned(),
                    (Draft::Hybrid, _) => {
                        return Err(Unusable::InvalidType {
                            expected: "boolean/number",
                            given: exclusive,
                        })
                    }
                    _ => {
                        return Err(Unusable::InvalidType {
                            expected: "number",
                            given: exclusive,
                        })
                    }
                };
            }
            if limit.is_none() && exclusive_limit.is_none() {
                continue;
            }
            let keywords = self.nodes[at].more_mut();
            if bound == "minimum" {
                keywords.minimum = limit;
                keywords.exclusive_minimum = exclusive_limit;
            } else {
                keywords.maximum = limit;
                keywords.exclusive_maximum = exclusive_limit;
            }
        }
        Ok(())
    }

    fn strings(&mut self, m: &Members, at: NodeId) -> Result<(), Unusable> {
        let min = count(m, "minLength")?;
        let max = count(m, "maxLength")?;
        if let (Some(a), Some(b)) = (min, max) {
            if a > b {
                return Err(Unusable::CannotBeGreaterThan {
                    x: "minLength",
                    y: "maxLength",
                });
            }
        }
        let node = &mut self.nodes[at];
        if min.is_some() || max.is_some() {
            let keywords = node.more_mut();
            keywords.min_length = min;
            keywords.max_length = max;
        }
        if let Some(p) = m.get("pattern") {
            let Json::String(text) = kind(p)? else {
                return Err(Unusable::MustBeOfA {
                    x: "pattern",
                    y: "string",
                });
            };
            let regex = regex(text).ok_or(Unusable::Regex("pattern"))?;
            node.more_mut().pattern = Some(Pattern {
                text: text.clone(),
                regex,
            });
        }
        if let Some(f) = m.get("format") {
            let Json::String(text) = f else {
                return Err(Unusable::MustBeOfType {
                    key: "format",
                    ty: "string",
                });
            };
            // An empty format is no format to gojsonschema.
            if !text.is_empty() {
                node.more_mut().format = Some(text.clone());
            }
        }
        Ok(())
    }

    fn objects(&mut self, m: &Members, at: NodeId) -> Result<(), Unusable> {
        let min = count(m, "minProperties")?;
        let max = count(m, "maxProperties")?;
        if let (Some(a), Some(b)) = (min, max) {
            if a > b {
                return Err(Unusable::CannotBeGreaterThan {
                    x: "minProperties",
                    y: "maxProperties",
                });
            }
        }
        let node = &mut self.nodes[at];
        if min.is_some() || max.is_some() {
            let keywords = node.more_mut();
            keywords.min_properties = min;
            keywords.max_properties = max;
        }
        if let Some(r) = m.get("required") {
            let Json::Array(list) = kind(r)? else {
                return Err(Unusable::MustBeOfAn {
                    x: "required",
                    y: "array",
                });
            };
            let mut seen = HashSet::default();
            for v in list {
                let Json::String(name) = kind(v)? else {
                    return Err(Unusable::ItemsMustBeOfType {
                        key: "required",
                        ty: "string",
                    });
                };
                if !seen.insert(name.as_str()) {
                    return Err(Unusable::ItemsMustBeUnique("required"));
                }
                node.required.push(name.clone());
            }
        }
        Ok(())
    }

    fn arrays(&mut self, m: &Members<'d>, at: NodeId, context: &Context) -> Result<(), Unusable> {
        let min = count(m, "minItems")?;
        let max = count(m, "maxItems")?;
        if min.is_some() || max.is_some() {
            let keywords = self.nodes[at].more_mut();
            keywords.min_items = min;
            keywords.max_items = max;
        }
        if let Some(u) = m.get("uniqueItems") {
            let Json::Bool(b) = kind(u)? else {
                return Err(Unusable::MustBeOfA {
                    x: "uniqueItems",
                    y: "boolean",
                });
            };
            if *b {
                self.nodes[at].more_mut().unique_items = true;
            }
        }
        if let Some(c) = m.get("contains").filter(|_| context.draft >= Draft::Draft6) {
            let child = self.sub(c, "contains", context)?;
            self.nodes[at].more_mut().contains = Some(child);
        }
        Ok(())
    }

    /// `parseReference`: the node for a `$ref`'s target, registered before it is parsed so
    /// that a reference back to it finds it.
    fn resolve(&mut self, reference: &Reference, draft: Draft) -> Result<NodeId, Unusable> {
        let target = self.child("$ref");
        self.references.insert(reference.text(), target);
        let (document, document_draft) = self.document(reference)?;
        if !is_schema_like(document)? {
            return Err(Unusable::MustBeOfType {
                key: "valid schema",
                ty: "object",
            });
        }
        let context = Context {
            draft: document_draft.unwrap_or(draft),
            id: std::rc::Rc::new(reference.clone()),
            is_root: false,
        };
        self.parse(document, target, &context)?;
        Ok(target)
    }

    /// `schemaPool.GetDocument`: a document by its full reference, or by the document part
    /// and the fragment's pointer; anything else would be fetched, which kdelta never does.
    fn document(&mut self, reference: &Reference) -> Result<(&'d Json, Option<Draft>), Unusable> {
        let text = reference.text();
        if let Some(&found) = self.documents.get(&text) {
            return Ok(found);
        }
        if let Some(&(whole, draft)) = self.documents.get(&reference.document()) {
            let node = reference.resolve_in(whole).map_err(Unusable::Go)?;
            self.documents.insert(text, (node, draft));
            return Ok((node, draft));
        }
        if !reference.is_canonical() {
            return Err(Unusable::NotCanonical(text));
        }
        Err(Unusable::Remote(text))
    }
}

/// The members of one schema object, with a bit for each keyword `parseSchema` reads set
/// in one pass over the object's keys: most of the forty it asks for are absent, and a miss
/// is then a bit test rather than a hash of the name (a third of compiling bitnami's schemas).
struct Members<'d> {
    map: &'d Map,
    present: u64,
}

impl<'d> Members<'d> {
    fn of(map: &'d Map) -> Self {
        let present = map.keys().fold(0, |bits, key| bits | keyword_bit(key));
        Members { map, present }
    }

    fn get(&self, key: &str) -> Option<&'d Json> {
        let bit = keyword_bit(key);
        if bit != 0 && self.present & bit == 0 {
            return None;
        }
        self.map.get(key)
    }

    fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }
}

/// The bit of a keyword `parseSchema` reads, 0 for any other key.
#[inline]
fn keyword_bit(key: &str) -> u64 {
    let index = match key {
        "id" => 0,
        "$id" => 1,
        "definitions" => 2,
        "title" => 3,
        "description" => 4,
        "$ref" => 5,
        "type" => 6,
        "properties" => 7,
        "additionalProperties" => 8,
        "patternProperties" => 9,
        "propertyNames" => 10,
        "dependencies" => 11,
        "items" => 12,
        "additionalItems" => 13,
        "const" => 14,
        "enum" => 15,
        "oneOf" => 16,
        "anyOf" => 17,
        "allOf" => 18,
        "not" => 19,
        "if" => 20,
        "then" => 21,
        "else" => 22,
        "multipleOf" => 23,
        "minimum" => 24,
        "maximum" => 25,
        "exclusiveMinimum" => 26,
        "exclusiveMaximum" => 27,
        "minLength" => 28,
        "maxLength" => 29,
        "pattern" => 30,
        "format" => 31,
        "minProperties" => 32,
        "maxProperties" => 33,
        "required" => 34,
        "minItems" => 35,
        "maxItems" => 36,
        "uniqueItems" => 37,
        "contains" => 38,
        _ => return 0,
    };
    1 << index
}

fn zero() -> Decimal {
    Number::from_json("0")
        .value()
        .cloned()
        .unwrap_or_else(|| unreachable!())
}

/// A non-negative integer keyword (`minLength`, `maxItems`, …).
fn count(m: &Members, key: &'static str) -> Result<Option<i64>, Unusable> {
    let Some(v) = m.get(key) else {
        return Ok(None);
    };
    let n = must_be_integer(v).ok_or(Unusable::MustBeOfAn {
        x: key,
        y: "integer",
    })?;
    if n < 0 {
        return Err(Unusable::Negative(key));
    }
    Ok(Some(n))
}
