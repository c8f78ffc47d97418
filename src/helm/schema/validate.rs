//! Values checked against a compiled schema as gojsonschema's `validateRecursive` checks them:
//! the same keywords in the same order, the same errors, and the same scores, which pick the
//! errors `anyOf`, `oneOf` and `contains` report from their closest subschema.

use super::format;
use super::json::{Json, Map};
use super::messages::{Kind, Unusable, Violation};
use super::parse::{Additional, Dependency, Node, NodeId, Schema, Type};
use crate::fxhash::FxHashMap;

/// How deep subschemas may be read or applied inside one another before kdelta gives up
/// (helm's Go stack grows to a gigabyte; kdelta's check runs on a thread sized for this).
pub const MAX_DEPTH: usize = 10_000;

/// The violations of `value` against `schema`, in gojsonschema's order, applying subschemas
/// at most `limit` deep.
pub fn validate(schema: &Schema, value: &Json, limit: usize) -> Result<Vec<Violation>, Unusable> {
    let mut validator = Validator {
        schema,
        depth: 0,
        limit,
    };
    let mut result = Outcome::default();
    let root = Context {
        head: "(root)",
        tail: None,
    };
    validator.recursive(Schema::ROOT, value, &mut result, &root, 0)?;
    Ok(result.errors)
}

/// Where a value sits (gojsonschema's `JsonContext`): a name and the context around it.
struct Context<'a> {
    head: &'a str,
    tail: Option<&'a Context<'a>>,
}

impl Context<'_> {
    /// gojsonschema's `Field()`: the dotted path without its `(root).` prefix.
    fn field(&self) -> String {
        let mut parts = Vec::new();
        let mut at = Some(self);
        while let Some(c) = at {
            parts.push(c.head);
            at = c.tail;
        }
        parts.reverse();
        let full = parts.join(".");
        match full.strip_prefix("(root).") {
            Some(rest) => rest.to_string(),
            None => full,
        }
    }
}

/// gojsonschema's `Result`: the errors and the score.
#[derive(Default)]
struct Outcome {
    errors: Vec<Violation>,
    score: i64,
}

impl Outcome {
    fn add(&mut self, context: &Context, kind: Kind) {
        self.errors.push(Violation {
            field: context.field(),
            kind,
        });
        self.score -= 2;
    }

    fn merge(&mut self, other: Outcome) {
        self.errors.extend(other.errors);
        self.score += other.score;
    }

    fn valid(&self) -> bool {
        self.errors.is_empty()
    }
}

struct Validator<'s> {
    schema: &'s Schema,
    depth: usize,
    limit: usize,
}

impl Validator<'_> {
    /// `subValidateWithContext`: a fresh result.
    fn sub(
        &mut self,
        at: NodeId,
        value: &Json,
        context: &Context,
        in_place: usize,
    ) -> Result<Outcome, Unusable> {
        let mut result = Outcome::default();
        self.recursive(at, value, &mut result, context, in_place)?;
        Ok(result)
    }

    /// `validateRecursive`. `in_place` counts the subschemas applied to this very value in a
    /// row: more than there are nodes means one came back, and Go would recurse forever.
    fn recursive(
        &mut self,
        at: NodeId,
        value: &Json,
        result: &mut Outcome,
        context: &Context,
        in_place: usize,
    ) -> Result<(), Unusable> {
        if in_place > self.schema.nodes.len() {
            return Err(Unusable::Cycle);
        }
        if self.depth >= self.limit {
            return Err(Unusable::TooDeep(self.limit));
        }
        self.depth += 1;
        let outcome = self.apply(at, value, result, context, in_place);
        self.depth -= 1;
        outcome
    }

    fn apply(
        &mut self,
        at: NodeId,
        value: &Json,
        result: &mut Outcome,
        context: &Context,
        in_place: usize,
    ) -> Result<(), Unusable> {
        let node = &self.schema.nodes[at];
        if let Some(pass) = node.pass {
            if !pass {
                result.add(context, Kind::False);
            }
            return Ok(());
        }
        if let Some(target) = node.reference {
            return self.recursive(target, value, result, context, in_place + 1);
        }
        let given = match value {
            Json::Null => Type::Null,
            Json::Bool(_) => Type::Boolean,
            Json::Number(n) if n.is_integer() => Type::Integer,
            Json::Number(_) => Type::Number,
            Json::String(_) => Type::String,
            Json::Array(_) => Type::Array,
            Json::Object(_) => Type::Object,
        };
        let allowed = node.types.contains(&given)
            || (given == Type::Integer && node.types.contains(&Type::Number));
        if !node.types.is_empty() && !allowed {
            result.add(
                context,
                Kind::InvalidType {
                    expected: type_list(node),
                    given: given.name(),
                },
            );
            return Ok(());
        }
        self.combinators(node, value, result, context, in_place)?;
        match value {
            Json::Number(_) => number(node, value, result, context),
            Json::Array(items) => self.array(node, items, result, context)?,
            Json::Object(map) => self.object(node, map, result, context)?,
            _ => {}
        }
        common(node, value, result, context);
        match value {
            Json::String(s) => string(node, s, result, context),
            Json::Object(map) => {
                for &child in &node.properties {
                    let name = &self.schema.nodes[child].property;
                    if let Some(v) = map.get(name) {
                        let inner = Context {
                            head: name,
                            tail: Some(context),
                        };
                        self.recursive(child, v, result, &inner, 0)?;
                    }
                }
            }
            _ => {}
        }
        result.score += 1;
        Ok(())
    }

    /// `validateSchema`: anyOf, oneOf, allOf, not, dependencies, if/then/else.
    fn combinators(
        &mut self,
        node: &Node,
        value: &Json,
        result: &mut Outcome,
        context: &Context,
        in_place: usize,
    ) -> Result<(), Unusable> {
        let next = in_place + 1;
        if !node.more().any_of.is_empty() {
            let tries = node
                .more()
                .any_of
                .iter()
                .map(|&s| self.sub(s, value, context, next));
            if let Some(best) = closest_miss(tries)? {
                result.add(context, Kind::AnyOf);
                if let Some(b) = best {
                    result.merge(b);
                }
            }
        }
        if !node.more().one_of.is_empty() {
            let mut best: Option<Outcome> = None;
            let mut matched = 0;
            for &s in &node.more().one_of {
                let r = self.sub(s, value, context, next)?;
                if r.valid() {
                    matched += 1;
                } else if matched == 0 && best.as_ref().is_none_or(|b| r.score > b.score) {
                    best = Some(r);
                }
            }
            if matched != 1 {
                result.add(context, Kind::OneOf);
                if matched == 0 {
                    if let Some(b) = best {
                        result.merge(b);
                    }
                }
            }
        }
        if !node.more().all_of.is_empty() {
            let mut matched = 0;
            for &s in &node.more().all_of {
                let r = self.sub(s, value, context, next)?;
                if r.valid() {
                    matched += 1;
                }
                result.merge(r);
            }
            if matched != node.more().all_of.len() {
                result.add(context, Kind::AllOf);
            }
        }
        if let Some(not) = node.more().not {
            if self.sub(not, value, context, next)?.valid() {
                result.add(context, Kind::Not);
            }
        }
        if let Json::Object(map) = value {
            for (key, dependency) in &node.more().dependencies {
                if !map.contains_key(key) {
                    continue;
                }
                match dependency {
                    Dependency::Properties(names) => {
                        for name in names {
                            if !map.contains_key(name) {
                                result.add(context, Kind::MissingDependency(name.clone()));
                            }
                        }
                    }
                    Dependency::Schema(s) => self.recursive(*s, value, result, context, next)?,
                }
            }
        }
        if let Some(condition) = node.more().if_ {
            let holds = self.sub(condition, value, context, next)?.valid();
            let (branch, kind) = if holds {
                (node.more().then, Kind::Then)
            } else {
                (node.more().else_, Kind::Else)
            };
            if let Some(branch) = branch {
                let r = self.sub(branch, value, context, next)?;
                if !r.valid() {
                    result.add(context, kind);
                    result.merge(r);
                }
            }
        }
        result.score += 1;
        Ok(())
    }

    /// `validateArray`.
    fn array(
        &mut self,
        node: &Node,
        items: &[Json],
        result: &mut Outcome,
        context: &Context,
    ) -> Result<(), Unusable> {
        let at_index = |i: usize| i.to_string();
        if node.items_single {
            for (i, item) in items.iter().enumerate() {
                let head = at_index(i);
                let inner = Context {
                    head: &head,
                    tail: Some(context),
                };
                let r = self.sub(node.items[0], item, &inner, 0)?;
                result.merge(r);
            }
        } else if !node.items.is_empty() {
            for (i, (&s, item)) in node.items.iter().zip(items).enumerate() {
                let head = at_index(i);
                let inner = Context {
                    head: &head,
                    tail: Some(context),
                };
                let r = self.sub(s, item, &inner, 0)?;
                result.merge(r);
            }
            if node.items.len() < items.len() {
                match node.more().additional_items {
                    Some(Additional::Allowed(false)) => {
                        result.add(context, Kind::NoAdditionalItems)
                    }
                    Some(Additional::Schema(s)) => {
                        for (i, item) in items.iter().enumerate().skip(node.items.len()) {
                            let head = at_index(i);
                            let inner = Context {
                                head: &head,
                                tail: Some(context),
                            };
                            let r = self.sub(s, item, &inner, 0)?;
                            result.merge(r);
                        }
                    }
                    _ => {}
                }
            }
        }
        let n = items.len() as i64;
        if let Some(min) = node.more().min_items.filter(|&m| n < m) {
            result.add(context, Kind::MinItems(min));
        }
        if let Some(max) = node.more().max_items.filter(|&m| n > m) {
            result.add(context, Kind::MaxItems(max));
        }
        if node.more().unique_items {
            let mut seen: FxHashMap<String, usize> = FxHashMap::default();
            for (j, item) in items.iter().enumerate() {
                let text = item.canonical().unwrap_or_default();
                if let Some(&i) = seen.get(&text) {
                    result.add(context, Kind::Unique(i, j));
                }
                seen.insert(text, j);
            }
        }
        if let Some(contains) = node.more().contains {
            let tries = items.iter().enumerate().map(|(i, item)| {
                let head = at_index(i);
                let inner = Context {
                    head: &head,
                    tail: Some(context),
                };
                self.sub(contains, item, &inner, 0)
            });
            if let Some(best) = closest_miss(tries)? {
                result.add(context, Kind::Contains);
                if let Some(b) = best {
                    result.merge(b);
                }
            }
        }
        result.score += 1;
        Ok(())
    }

    /// `validateObject`.
    fn object(
        &mut self,
        node: &Node,
        map: &Map,
        result: &mut Outcome,
        context: &Context,
    ) -> Result<(), Unusable> {
        let n = map.len() as i64;
        if let Some(min) = node.more().min_properties.filter(|&m| n < m) {
            result.add(context, Kind::MinProperties(min));
        }
        if let Some(max) = node.more().max_properties.filter(|&m| n > m) {
            result.add(context, Kind::MaxProperties(max));
        }
        for name in &node.required {
            if map.contains_key(name) {
                result.score += 1;
            } else {
                result.add(context, Kind::Required(name.clone()));
            }
        }
        for (key, v) in map {
            let inner = Context {
                head: key,
                tail: Some(context),
            };
            let mut matched = false;
            for (pattern, s) in &node.more().pattern_properties {
                if pattern.regex.is_match(key) {
                    matched = true;
                    let r = self.sub(*s, v, &inner, 0)?;
                    result.merge(r);
                }
            }
            if matched {
                result.score += 1;
            }
            if matched || node.property_set.contains(key) {
                continue;
            }
            match node.additional_properties {
                Some(Additional::Allowed(false)) => {
                    result.add(context, Kind::AdditionalProperty(key.clone()))
                }
                Some(Additional::Schema(s)) => {
                    let r = self.sub(s, v, &inner, 0)?;
                    result.merge(r);
                }
                _ => {}
            }
        }
        if let Some(names) = node.more().property_names {
            for key in map.keys() {
                // The name is a value of its own: a fresh count of subschemas in a row.
                let r = self.sub(names, &Json::String(key.clone()), context, 0)?;
                if !r.valid() {
                    result.add(context, Kind::PropertyName(key.clone()));
                    result.merge(r);
                }
            }
        }
        result.score += 1;
        Ok(())
    }
}

/// The types a node allows, as gojsonschema lists them: one name, or `[a,b]`.
fn type_list(node: &Node) -> String {
    let names: Vec<&str> = node.types.iter().map(|t| t.name()).collect();
    if names.len() == 1 {
        names[0].to_string()
    } else {
        format!("[{}]", names.join(","))
    }
}

/// `validateCommon`: const and enum, compared as gojsonschema writes values.
fn common(node: &Node, value: &Json, result: &mut Outcome, context: &Context) {
    if node.more().constant.is_some() || node.more().enumeration.is_some() {
        let text = value.canonical().unwrap_or_default();
        if let Some(constant) = node.more().constant.as_ref().filter(|c| **c != text) {
            result.add(context, Kind::Const(constant.clone()));
        }
        if let Some(e) = node
            .more()
            .enumeration
            .as_ref()
            .filter(|e| !e.set.contains(&text))
        {
            result.add(context, Kind::Enum(e.listed.join(", ")));
        }
    }
    result.score += 1;
}

/// `validateString`.
fn string(node: &Node, s: &str, result: &mut Outcome, context: &Context) {
    let runes = || s.chars().count() as i64;
    if let Some(min) = node.more().min_length.filter(|&m| runes() < m) {
        result.add(context, Kind::MinLength(min));
    }
    if let Some(max) = node.more().max_length.filter(|&m| runes() > m) {
        result.add(context, Kind::MaxLength(max));
    }
    if let Some(p) = node
        .more()
        .pattern
        .as_ref()
        .filter(|p| !p.regex.is_match(s))
    {
        result.add(context, Kind::Pattern(p.text.clone()));
    }
    if let Some(f) = node
        .more()
        .format
        .as_ref()
        .filter(|f| !format::is_format(f, s))
    {
        result.add(context, Kind::Format(f.clone()));
    }
    result.score += 1;
}

/// `validateNumber`.
fn number(node: &Node, value: &Json, result: &mut Outcome, context: &Context) {
    let Json::Number(n) = value else { return };
    let Some(v) = n.value() else { return };
    if let Some(m) = node
        .more()
        .multiple_of
        .as_ref()
        .filter(|m| !v.is_multiple_of(m))
    {
        result.add(context, Kind::MultipleOf(m.go_text()));
    }
    if let Some(m) = node.more().maximum.as_ref().filter(|m| v > *m) {
        result.add(context, Kind::Maximum(m.go_text()));
    }
    if let Some(m) = node.more().exclusive_maximum.as_ref().filter(|m| v >= *m) {
        result.add(context, Kind::ExclusiveMaximum(m.go_text()));
    }
    if let Some(m) = node.more().minimum.as_ref().filter(|m| v < *m) {
        result.add(context, Kind::Minimum(m.go_text()));
    }
    if let Some(m) = node.more().exclusive_minimum.as_ref().filter(|m| v <= *m) {
        result.add(context, Kind::ExclusiveMinimum(m.go_text()));
    }
    // gojsonschema v1.2.0 hands the number to the string checkers, which refuse it.
    if let Some(f) = node.more().format.as_ref().filter(|f| format::is_known(f)) {
        result.add(context, Kind::Format(f.clone()));
    }
    result.score += 1;
}

/// gojsonschema's `anyOf` and `contains`: None when a try passes (the tries after it are not
/// made), else the miss with the best score (the first of equals), which the error reports.
fn closest_miss(
    tries: impl Iterator<Item = Result<Outcome, Unusable>>,
) -> Result<Option<Option<Outcome>>, Unusable> {
    let mut best: Option<Outcome> = None;
    for r in tries {
        let r = r?;
        if r.valid() {
            return Ok(None);
        }
        if best.as_ref().is_none_or(|b| r.score > b.score) {
            best = Some(r);
        }
    }
    Ok(Some(best))
}
