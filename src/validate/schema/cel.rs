//! A CRD's `x-kubernetes-validations` (CEL) rules evaluated on a custom resource, as the API
//! server does on create: after structural defaulting, each rule of a schema node runs with
//! `self` bound to that node's value, typed by the schema (an `integer` is a CEL int, a
//! `number` a double, an `int-or-string` what was written).
//!
//! - Transition rules (those naming `oldSelf`) are skipped: on create there is no old object;
//!   under `optionalOldSelf` they run, with `oldSelf` an empty optional.
//! - A rule that does not compile is a problem of the CRD ([`rule_problems`]), reported once
//!   where the CRD is rendered, never per object; so is a rule calling a function kdelta's CEL
//!   lacks (cel-go's two-variable comprehensions, `transformList`, `transformMap`…): it is not
//!   evaluated rather than guessed. The Kubernetes libraries (`quantity()`, `url()`, `ip()`,
//!   `cidr()`, `format.*`, `semver()`, the lists functions, `sets.*`, `cel.bind`) are
//!   `cel_library.rs`'s; `base64.*` is the `cel` crate's encoders extension.
//! - Cost: the API server bounds a rule's cost; kdelta bounds an expression's nesting when it
//!   compiles, and before evaluating estimates the work of nested comprehensions (the size of
//!   `self` to the power of their depth) and refuses a rule past [`COST_LIMIT`], so a hostile
//!   rule cannot hang a run.

use super::check::{format_path, Seg, ViolationKind};
use super::model::{Flavor, JsonTypes, Model, Type};
use super::Violation;
use crate::go::json::quote;
use crate::yaml::{Dialect, Node, NodeKind, Span};
use cel::common::ast::Expr;
use cel::common::types::CelOptional;
use cel::objects::Key;
use cel::{Context, Env, ExecutionError, Program, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The most work (in comprehension iterations, estimated) one rule may take on one value; the
/// API server's per-call limit is a million cost units.
pub const COST_LIMIT: u64 = 1_000_000;

/// The deepest an expression may nest (parentheses, calls, operators); cel-go's parser stops
/// at 250, and rules that nest past a few dozen are made to hurt.
const MAX_NESTING: usize = 64;

/// A rule's compiled form, made on first use and shared by every object its CRD validates.
#[derive(Clone, Default)]
pub struct RuleCell(Arc<OnceLock<Compiled>>);

impl std::fmt::Debug for RuleCell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RuleCell")
    }
}

impl PartialEq for RuleCell {
    /// Compiling is a cache: two rules are equal by their text.
    fn eq(&self, _: &RuleCell) -> bool {
        true
    }
}

impl Eq for RuleCell {}

/// What compiling a rule gave.
enum Compiled {
    /// A rule to evaluate; `depth` is how deep its comprehensions nest; `old_self` when it
    /// names `oldSelf` under `optionalOldSelf` (bound to `optional.none()` on create).
    Ready {
        program: Program,
        depth: u32,
        old_self: bool,
    },
    /// A transition rule (names `oldSelf`, without `optionalOldSelf`): skipped on create.
    Transition,
    /// The rule does not compile.
    Invalid(String),
    /// The rule calls functions kdelta's CEL lacks (their names, sorted, comma-separated).
    Unsupported(String),
}

/// A problem with a CRD's rule, found when compiling it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleProblem {
    pub rule: String,
    pub kind: RuleProblemKind,
}

/// The class of a [`RuleProblem`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleProblemKind {
    /// The rule does not compile (the API server refuses such a CRD).
    Invalid(String),
    /// The rule calls these functions (sorted, comma-separated), which kdelta does not
    /// implement: it is not evaluated.
    Unsupported(String),
}

impl std::fmt::Display for RuleProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            RuleProblemKind::Invalid(e) => write!(
                f,
                "x-kubernetes-validations rule {} does not compile: {e}",
                quote(&self.rule)
            ),
            RuleProblemKind::Unsupported(funcs) => {
                let s = if funcs.contains(", ") { "s" } else { "" };
                write!(
                    f,
                    "x-kubernetes-validations rule {} is not evaluated: kdelta lacks the CEL function{s} {funcs}",
                    quote(&self.rule)
                )
            }
        }
    }
}

/// The environment rules compile and run in: the standard library and the strings, lists
/// and math extensions (the Kubernetes libraries' `lowerAscii`, `split`, `join`, `indexOf`,
/// `replace`, `substring`, `sort`, `reverse`… come from them), and the Kubernetes functions of
/// `cel_library.rs`.
pub(super) fn env() -> &'static Arc<Env> {
    static ENV: OnceLock<Arc<Env>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Env::stdlib();
        for ext in [
            cel::extensions::strings as fn(&mut Env) -> Result<(), cel::DeclarationError>,
            cel::extensions::lists,
            cel::extensions::math,
            cel::extensions::encoders,
            super::cel_library::extension,
        ] {
            // An extension that clashes with the standard library is left out, not fatal.
            let _ = env.add_extension(ext);
        }
        Arc::new(env)
    })
}

fn compile(rule: &str, optional_old_self: bool) -> Compiled {
    if nesting(rule) > MAX_NESTING {
        return Compiled::Invalid(format!("nested more than {MAX_NESTING} deep"));
    }
    let program = match env().compile(rule) {
        Ok(p) => p,
        Err(e) => {
            // `ERROR: <input>:1:10: Syntax error: …` and the rule with a caret below: the
            // first line, without the file name.
            let text = e.to_string();
            let first = text.lines().next().unwrap_or_default();
            let first = first
                .trim_start_matches("ERROR: ")
                .trim_start_matches("<input>:");
            return Compiled::Invalid(first.trim().to_string());
        }
    };
    let mut shape = Shape::default();
    shape.walk(&program.expression().expr, 0, 0);
    if shape.too_deep {
        return Compiled::Invalid(format!("nested more than {MAX_NESTING} deep"));
    }
    let old_self = program.references().has_variable("oldSelf");
    if old_self && !optional_old_self {
        return Compiled::Transition;
    }
    let mut missing: Vec<&str> = shape
        .calls
        .iter()
        .map(String::as_str)
        .filter(|f| !known_function(f))
        .collect();
    if !missing.is_empty() {
        missing.sort_unstable();
        return Compiled::Unsupported(missing.join(", "));
    }
    Compiled::Ready {
        program,
        depth: shape.depth,
        old_self,
    }
}

fn compiled(rule: &super::model::CelRule) -> &Compiled {
    rule.compiled
        .0
        .get_or_init(|| compile(&rule.rule, rule.optional_old_self))
}

/// The deepest bracket nesting of a rule's text, counted before parsing: the parser recurses
/// on brackets.
fn nesting(rule: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    let mut quote: Option<char> = None;
    for c in rule.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(' | '[' | '{') => {
                depth += 1;
                max = max.max(depth);
            }
            (None, ')' | ']' | '}') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// What a compiled expression calls and how deep its comprehensions nest.
#[derive(Default)]
struct Shape {
    calls: Vec<String>,
    /// The comprehension variables in scope.
    bound: Vec<String>,
    depth: u32,
    too_deep: bool,
}

impl Shape {
    fn walk(&mut self, e: &Expr, level: usize, comprehensions: u32) {
        if level > MAX_NESTING * 4 {
            self.too_deep = true;
            return;
        }
        let next = level + 1;
        match e {
            Expr::Call(call) => {
                // An operator (`_==_`, `@in`, `!_`) is never missing.
                if call
                    .func_name
                    .chars()
                    .next()
                    .is_some_and(char::is_alphabetic)
                {
                    let name = match call.target.as_deref().map(|t| &t.expr) {
                        // A namespaced function: `format.dns1123Label()`, `math.abs()`;
                        // not a member call on a variable (`oldSelf.hasValue()`, `n.size()`).
                        Some(Expr::Ident(ns))
                            if !matches!(ns.as_str(), "self" | "oldSelf")
                                && !self.bound.contains(ns) =>
                        {
                            format!("{ns}.{}", call.func_name)
                        }
                        _ => call.func_name.clone(),
                    };
                    if !self.calls.contains(&name) {
                        self.calls.push(name);
                    }
                }
                if let Some(t) = &call.target {
                    self.walk(&t.expr, next, comprehensions);
                }
                for a in &call.args {
                    self.walk(&a.expr, next, comprehensions);
                }
            }
            Expr::Comprehension(c) => {
                let inner = comprehensions + 1;
                self.depth = self.depth.max(inner);
                self.walk(&c.iter_range.expr, next, comprehensions);
                self.walk(&c.accu_init.expr, next, comprehensions);
                let vars = [Some(&c.iter_var), c.iter_var2.as_ref(), Some(&c.accu_var)];
                let before = self.bound.len();
                self.bound.extend(vars.into_iter().flatten().cloned());
                self.walk(&c.loop_cond.expr, next, inner);
                self.walk(&c.loop_step.expr, next, inner);
                self.walk(&c.result.expr, next, comprehensions);
                self.bound.truncate(before);
            }
            Expr::List(l) => {
                for x in &l.elements {
                    self.walk(&x.expr, next, comprehensions);
                }
            }
            Expr::Map(m) => {
                for entry in &m.entries {
                    if let cel::common::ast::EntryExpr::MapEntry(me) = &entry.expr {
                        self.walk(&me.key.expr, next, comprehensions);
                        self.walk(&me.value.expr, next, comprehensions);
                    }
                }
            }
            Expr::Select(s) => self.walk(&s.operand.expr, next, comprehensions),
            Expr::Struct(s) => {
                for entry in &s.entries {
                    if let cel::common::ast::EntryExpr::StructField(f) = &entry.expr {
                        self.walk(&f.value.expr, next, comprehensions);
                    }
                }
            }
            Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
        }
    }
}

/// True when kdelta's CEL environment has a function of this name: probed once per name, by
/// calling it without arguments (an unknown function is an undeclared reference; a known one
/// fails on its arguments instead).
fn known_function(name: &str) -> bool {
    static PROBED: OnceLock<Mutex<HashMap<String, bool>>> = OnceLock::new();
    let probed = PROBED.get_or_init(Default::default);
    let cached = || probed.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(known) = cached().get(name) {
        return *known;
    }
    // A member function (`lowerAscii`) is declared only on a target; a namespaced one
    // (`sets.contains`) never is, and on a target would fail on the select instead.
    let mut probes = vec![format!("{name}()")];
    if !name.contains('.') {
        probes.push(format!("''.{name}()"));
    }
    let known = probes.iter().any(|probe| {
        env().compile(probe).is_ok_and(|p| {
            let ctx = Context::with_env(env().clone());
            !matches!(p.execute(&ctx), Err(ExecutionError::UndeclaredReference(_)))
        })
    });
    cached().insert(name.to_string(), known);
    known
}

/// The problems of a model's rules (compiling every rule, once).
pub(super) fn rule_problems(model: &Model) -> Vec<RuleProblem> {
    let mut out: Vec<RuleProblem> = Vec::new();
    for def in &model.defs {
        for r in def.rules.iter() {
            let kind = match compiled(r) {
                Compiled::Invalid(e) => RuleProblemKind::Invalid(e.clone()),
                Compiled::Unsupported(f) => RuleProblemKind::Unsupported(f.clone()),
                Compiled::Ready { .. } | Compiled::Transition => continue,
            };
            let p = RuleProblem {
                rule: r.rule.clone(),
                kind,
            };
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// Evaluates the rules of a custom resource's schema on it, defaults applied first.
pub(super) fn evaluate(ty: Type<'_>, node: &Node, dialect: Dialect) -> Vec<Violation> {
    if ty.flavor() != Flavor::Structural || !ty.model.has_rules {
        return Vec::new();
    }
    let mut e = Eval {
        dialect,
        path: Vec::new(),
        out: Vec::new(),
    };
    e.value(Some(ty), Src::Yaml(node), node.span);
    e.out
}

/// A value to convert: read from the object, or a schema's `default`.
#[derive(Clone, Copy)]
enum Src<'s> {
    Yaml(&'s Node),
    Json(&'s serde_json::Value),
}

struct Eval<'s> {
    dialect: Dialect,
    path: Vec<Seg<'s>>,
    out: Vec<Violation>,
}

impl<'s> Eval<'s> {
    /// The CEL value of `src` typed by `ty` (`None`: no schema, as written), its rules and its
    /// descendants' evaluated on the way. `span` is where a defaulted value is reported.
    fn value(&mut self, ty: Option<Type<'s>>, src: Src<'s>, span: Span) -> Value {
        let span = match src {
            Src::Yaml(n) if n.span.line > 0 => n.span,
            _ => span,
        };
        // metadata is ObjectMeta whatever the CRD says, and carries no rules.
        let ty = ty.filter(|t| !t.def().object_meta);
        let v = match src {
            Src::Yaml(n) => match &n.kind {
                NodeKind::Map(entries) => {
                    let items = entries.iter().filter_map(|(k, v)| {
                        Some((k.as_str().filter(|_| k.is_scalar())?, Src::Yaml(v)))
                    });
                    self.object(ty, items.collect(), span)
                }
                NodeKind::Seq(items) => self.list(ty, items.iter().map(Src::Yaml).collect(), span),
                NodeKind::Scalar(s) => match super::check::scalar_value_in(s, self.dialect) {
                    None => Value::Null,
                    Some(super::check::ScalarValue::Str(t)) => {
                        Value::String(Arc::new(t.to_string()))
                    }
                    Some(super::check::ScalarValue::Bool(b)) => Value::Bool(b),
                    Some(super::check::ScalarValue::Int(i)) => number(ty, Num::Int(i)),
                    Some(super::check::ScalarValue::Float(f)) => number(ty, Num::Float(f)),
                },
            },
            Src::Json(j) => match j {
                serde_json::Value::Object(m) => {
                    let items = m.iter().map(|(k, v)| (k.as_str(), Src::Json(v)));
                    self.object(ty, items.collect(), span)
                }
                serde_json::Value::Array(a) => {
                    self.list(ty, a.iter().map(Src::Json).collect(), span)
                }
                serde_json::Value::String(t) => Value::String(Arc::new(t.clone())),
                serde_json::Value::Bool(b) => Value::Bool(*b),
                serde_json::Value::Number(n) => match (n.as_i64(), n.as_f64()) {
                    (Some(i), _) => number(ty, Num::Int(i as i128)),
                    (None, Some(f)) => number(ty, Num::Float(f)),
                    (None, None) => Value::Null,
                },
                serde_json::Value::Null => Value::Null,
            },
        };
        if let Some(t) = ty {
            if !t.rules().is_empty() && !matches!(v, Value::Null) {
                self.rules(t, &v, span);
            }
        }
        v
    }

    fn object(
        &mut self,
        ty: Option<Type<'s>>,
        entries: Vec<(&'s str, Src<'s>)>,
        span: Span,
    ) -> Value {
        let mut map: HashMap<Key, Value> = HashMap::with_capacity(entries.len());
        for (key, src) in entries {
            let prop = ty.and_then(|t| t.property(key));
            if prop.is_none() && ty.is_some_and(|t| prunes(t, key)) {
                continue;
            }
            let (child, seg) = match prop {
                Some(p) => (Some(p), Seg::Field(key)),
                None => (ty.and_then(|t| t.values()), Seg::Key(key)),
            };
            // A structural schema prunes a null that is not nullable: the field is unset (and
            // takes its default).
            if is_null(src) && !child.is_some_and(|c| c.def().nullable) {
                continue;
            }
            self.path.push(seg);
            let v = self.value(child, src, span);
            self.path.pop();
            map.insert(Key::String(Arc::new(key.to_string())), v);
        }
        if let Some(t) = ty {
            for (name, id) in t.def().properties.iter() {
                let prop = t.at(*id);
                let Some(default) = prop.default_value() else {
                    continue;
                };
                let key = Key::String(Arc::new(name.to_string()));
                if map.contains_key(&key) {
                    continue;
                }
                self.path.push(Seg::Field(name));
                let v = self.value(Some(prop), Src::Json(default), span);
                self.path.pop();
                map.insert(key, v);
            }
        }
        Value::Map(map.into())
    }

    fn list(&mut self, ty: Option<Type<'s>>, items: Vec<Src<'s>>, span: Span) -> Value {
        let item_ty = ty.and_then(|t| t.items());
        let mut out = Vec::with_capacity(items.len());
        for (i, src) in items.into_iter().enumerate() {
            self.path.push(Seg::Index(i));
            out.push(self.value(item_ty, src, span));
            self.path.pop();
        }
        Value::List(Arc::new(out))
    }

    fn rules(&mut self, ty: Type<'s>, value: &Value, span: Span) {
        // The schema's `type`, as the API server quotes it: empty for int-or-string.
        let def = ty.def();
        let type_name = match def.types {
            _ if def.int_or_string => "",
            t if t == JsonTypes::OBJECT => "object",
            t if t == JsonTypes::ARRAY => "array",
            t if t == JsonTypes::STRING => "string",
            t if t == JsonTypes::INTEGER => "integer",
            t if t == JsonTypes::NUMBER => "number",
            t if t == JsonTypes::BOOLEAN => "boolean",
            _ => "",
        };
        for rule in ty.rules() {
            let Compiled::Ready {
                program,
                depth,
                old_self,
            } = compiled(rule)
            else {
                continue;
            };
            if exceeds_budget(value, *depth) {
                let what = format!(
                    "Invalid value: {}: no further validation rules will be run due to call cost exceeds limit for rule: {} (kdelta's estimate)",
                    quote(type_name),
                    error_string(rule)
                );
                self.report(None, span, what);
                return;
            }
            let mut ctx = Context::with_env(env().clone());
            ctx.add_variable_from_value("self", value.clone());
            if *old_self {
                // On create there is no old object: `oldSelf.hasValue()` is false.
                ctx.add_variable_as_val("oldSelf", Box::new(CelOptional::none()));
            }
            let message = match program.execute(&ctx) {
                Ok(Value::Bool(true)) => continue,
                Ok(Value::Bool(false)) => failure_message(rule, &ctx),
                Ok(other) => format!(
                    "rule did not evaluate to a bool but to {:?}: {}",
                    other.type_of(),
                    error_string(rule)
                ),
                Err(e) => format!("{e} evaluating rule: {}", error_string(rule)),
            };
            let field_path = rule.field_path.as_deref().unwrap_or("");
            let what = match rule.reason.as_deref() {
                Some("FieldValueForbidden") => format!("Forbidden: {message}"),
                Some("FieldValueRequired") => format!("Required value: {message}"),
                // The API server's field.Duplicate shows the type, not the message.
                Some("FieldValueDuplicate") => format!("Duplicate value: {}", quote(type_name)),
                _ => format!("Invalid value: {}: {message}", quote(type_name)),
            };
            self.report(Some(field_path), span, what);
        }
    }

    fn report(&mut self, field_path: Option<&str>, span: Span, what: String) {
        let mut path = format_path(&self.path);
        if let Some(fp) = field_path.filter(|f| !f.is_empty()) {
            // `fieldPath` is relative to the rule's node: `.spec.x`, `['key']`.
            if path.is_empty() {
                path = fp.trim_start_matches('.').to_string();
            } else {
                path.push_str(fp);
            }
        }
        self.out
            .push(Violation::new(path, span, ViolationKind::Rule, what));
    }
}

/// The message of a rule that evaluated to false: its `messageExpression`'s when that gives a
/// non-empty string of one line, else its `message`, else `failed rule: RULE` (the API
/// server's order).
fn failure_message(rule: &super::model::CelRule, ctx: &Context<'_, '_>) -> String {
    if let Some(expr) = &rule.message_expression {
        if nesting(expr) <= MAX_NESTING {
            if let Ok(p) = env().compile(expr) {
                let mut shape = Shape::default();
                shape.walk(&p.expression().expr, 0, 0);
                if !shape.too_deep && shape.depth <= 1 {
                    if let Ok(Value::String(s)) = p.execute(ctx) {
                        if !s.trim().is_empty() && !s.contains('\n') {
                            return s.to_string();
                        }
                    }
                }
            }
        }
    }
    match &rule.message {
        Some(m) if !m.trim().is_empty() => m.clone(),
        _ => format!("failed rule: {}", error_string(rule)),
    }
}

/// How the API server names a rule in an error: its message, else its text.
fn error_string(rule: &super::model::CelRule) -> &str {
    match &rule.message {
        Some(m) if !m.trim().is_empty() => m.trim(),
        _ => rule.rule.trim(),
    }
}

/// True when comprehensions nested `depth` deep over a value of this size would take more
/// than [`COST_LIMIT`] iterations.
fn exceeds_budget(value: &Value, depth: u32) -> bool {
    if depth == 0 {
        return false;
    }
    let n = size(value, COST_LIMIT).max(1);
    n.checked_pow(depth).is_none_or(|c| c > COST_LIMIT)
}

/// The number of values in `v` (strings count their length, as a comprehension over
/// `split` or characters could), stopping past `cap`.
fn size(v: &Value, cap: u64) -> u64 {
    match v {
        Value::List(l) => {
            let mut n = 1u64;
            for x in l.iter() {
                n = n.saturating_add(size(x, cap));
                if n > cap {
                    break;
                }
            }
            n
        }
        Value::Map(m) => {
            let mut n = 1u64;
            for x in m.map.values() {
                n = n.saturating_add(1 + size(x, cap));
                if n > cap {
                    break;
                }
            }
            n
        }
        Value::String(s) => 1 + s.len() as u64,
        _ => 1,
    }
}

/// True when a structural schema drops `key`, a field it does not declare, before rules
/// see the object (the unknown field is reported on its own).
fn prunes(ty: Type<'_>, key: &str) -> bool {
    let def = ty.def();
    if def.preserve_unknown || def.additional != super::model::Additional::Closed {
        return false;
    }
    !(def.embedded_resource && matches!(key, "apiVersion" | "kind" | "metadata"))
}

fn is_null(src: Src<'_>) -> bool {
    match src {
        Src::Yaml(n) => n.is_null(),
        Src::Json(j) => j.is_null(),
    }
}

enum Num {
    Int(i128),
    Float(f64),
}

/// A number as the schema types it: an `integer` is an int (`1.0` too), a `number` a double.
fn number(ty: Option<Type<'_>>, n: Num) -> Value {
    let types = ty.map(|t| t.def().types).unwrap_or_default();
    let wants_double = types.contains(JsonTypes::NUMBER) && !types.contains(JsonTypes::INTEGER);
    match n {
        Num::Int(i) if wants_double => Value::Float(i as f64),
        Num::Int(i) => match i64::try_from(i) {
            Ok(i) => Value::Int(i),
            Err(_) => match u64::try_from(i) {
                Ok(u) => Value::UInt(u),
                Err(_) => Value::Float(i as f64),
            },
        },
        Num::Float(f)
            if types.contains(JsonTypes::INTEGER)
                && !types.contains(JsonTypes::NUMBER)
                && f.fract() == 0.0
                && f.abs() < 9.2e18 =>
        {
            Value::Int(f as i64)
        }
        Num::Float(f) => Value::Float(f),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::schema::{validate, Crd};
    use crate::yaml::{parse_one, ParseOptions};

    /// A CRD of kind Widget whose `spec` has this schema (indented for `spec:`).
    fn crd(spec_schema: &str) -> Crd {
        let text = format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: widgets.example.com}}\nspec:\n  group: example.com\n  scope: Namespaced\n  names: {{kind: Widget, plural: widgets}}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n{spec_schema}"
        );
        let node = parse_one(text.as_bytes(), &ParseOptions::default()).expect("test CRD parses");
        Crd::from_node(&node).expect("test CRD compiles")
    }

    /// The rule violations' messages for a Widget with this spec (flow YAML).
    fn check(crd: &Crd, spec: &str) -> Vec<String> {
        let text = format!(
            "apiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: w, namespace: ns}}\nspec: {spec}\n"
        );
        let node = parse_one(text.as_bytes(), &ParseOptions::default()).expect("widget parses");
        validate(crd.versions[0].root(), &node)
            .into_iter()
            .map(|v| v.message)
            .collect()
    }

    const MIN_MAX: &str = "            type: object
            x-kubernetes-validations:
            - rule: self.min <= self.max
              message: min must not exceed max
            properties:
              min: {type: integer, default: 5}
              max: {type: integer}
";

    #[test]
    fn rules_run_after_defaults() {
        let c = crd(MIN_MAX);
        assert_eq!(check(&c, "{min: 1, max: 3}"), Vec::<String>::new());
        assert_eq!(
            check(&c, "{min: 4, max: 3}"),
            ["spec: Invalid value: \"object\": min must not exceed max"]
        );
        // min defaults to 5, which exceeds 3.
        assert_eq!(
            check(&c, "{max: 3}"),
            ["spec: Invalid value: \"object\": min must not exceed max"]
        );
        assert_eq!(check(&c, "{max: 7}"), Vec::<String>::new());
    }

    #[test]
    fn unknown_fields_are_pruned_before_rules() {
        let c = crd("            type: object
            x-kubernetes-validations:
            - rule: self.size() == 1
              reason: FieldValueDuplicate
            properties:
              a: {type: integer}
");
        assert_eq!(check(&c, "{a: 1, b: 2}"), ["spec.b: unknown field \"b\""]);
        assert_eq!(check(&c, "{}"), ["spec: Duplicate value: \"object\""]);
    }

    #[test]
    fn nested_defaults_and_rules_of_items() {
        let c = crd("            type: object
            properties:
              items:
                type: array
                items:
                  type: object
                  x-kubernetes-validations:
                  - rule: self.mode == 'fast' || self.depth < 3
                  properties:
                    mode: {type: string, default: slow}
                    depth: {type: integer}
              limits:
                type: object
                default: {}
                x-kubernetes-validations:
                - rule: self.cpu == 2
                  message: cpu is not the default
                properties:
                  cpu: {type: integer, default: 2}
");
        assert_eq!(
            check(&c, "{items: [{mode: fast, depth: 5}, {depth: 5}]}"),
            ["spec.items[1]: Invalid value: \"object\": failed rule: self.mode == 'fast' || self.depth < 3"]
        );
        // limits defaults to {}, whose cpu defaults to 2.
        assert_eq!(check(&c, "{}"), Vec::<String>::new());
        assert_eq!(
            check(&c, "{limits: {cpu: 3}}"),
            ["spec.limits: Invalid value: \"object\": cpu is not the default"]
        );
    }

    #[test]
    fn transition_rules_are_skipped_on_create() {
        let c = crd("            type: object
            x-kubernetes-validations:
            - rule: self.name == oldSelf.name
              message: name is immutable
            - rule: \"!oldSelf.hasValue() || self.x == oldSelf.value().x\"
              optionalOldSelf: true
            - rule: \"oldSelf.hasValue() || self.x == 1\"
              message: x starts at 1
              optionalOldSelf: true
            properties:
              name: {type: string}
              x: {type: integer}
");
        // Under optionalOldSelf a rule runs on create, with no old value.
        assert_eq!(check(&c, "{name: a, x: 1}"), Vec::<String>::new());
        assert_eq!(
            check(&c, "{name: a, x: 2}"),
            ["spec: Invalid value: \"object\": x starts at 1"]
        );
        assert!(c.rule_problems().is_empty());
    }

    #[test]
    fn message_expression_field_path_and_reason() {
        let c = crd("            type: object
            x-kubernetes-validations:
            - rule: self.replicas <= 5
              messageExpression: \"'replicas must be at most 5, got ' + string(self.replicas)\"
              fieldPath: .replicas
              reason: FieldValueForbidden
            - rule: self.name.startsWith('w-')
              messageExpression: self.replicas
              message: name must start with w-
            properties:
              replicas: {type: integer}
              name: {type: string}
");
        assert_eq!(
            check(&c, "{replicas: 7, name: x}"),
            [
                "spec.replicas: Forbidden: replicas must be at most 5, got 7",
                // A messageExpression that gives no string falls back to message.
                "spec: Invalid value: \"object\": name must start with w-",
            ]
        );
    }

    #[test]
    fn string_list_and_map_functions() {
        let c = crd("            type: object
            x-kubernetes-validations:
            - rule: self.names.all(n, n.matches('^[a-z]+$') && n.lowerAscii() == n)
              message: names
            - rule: self.names.exists_one(n, n == 'a')
              message: one a
            - rule: \"'k' in self.labels && self.labels.k.endsWith('z')\"
              message: labels
            - rule: self.port.split(':').size() == 2 && self.names.map(n, size(n)).filter(x, x > 3).size() == 0
              message: port
            - rule: \"self.ratio < 1.5 && (has(self.opt) ? self.opt : true)\"
              message: ratio
            properties:
              names: {type: array, items: {type: string}}
              labels: {type: object, additionalProperties: {type: string}}
              port: {type: string}
              ratio: {type: number}
              opt: {type: boolean}
");
        assert_eq!(
            check(
                &c,
                "{names: [a, b], labels: {k: xz}, port: 'h:1', ratio: 1}"
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            check(
                &c,
                "{names: [a, a, Bcdef], labels: {k: xy}, port: 'h', ratio: 2, opt: false}"
            ),
            [
                "spec: Invalid value: \"object\": names",
                "spec: Invalid value: \"object\": one a",
                "spec: Invalid value: \"object\": labels",
                "spec: Invalid value: \"object\": port",
                "spec: Invalid value: \"object\": ratio",
            ]
        );
    }

    #[test]
    fn runtime_errors_are_violations() {
        let c = crd("            type: object
            x-kubernetes-validations:
            - rule: self.a / self.b > 1
            properties:
              a: {type: integer}
              b: {type: integer}
");
        assert_eq!(
            check(&c, "{a: 1, b: 0}"),
            ["spec: Invalid value: \"object\": Division by zero of Int(1) evaluating rule: self.a / self.b > 1"]
        );
    }

    #[test]
    fn the_sets_base64_and_bind_libraries_evaluate() {
        let c = crd("            type: object
            x-kubernetes-validations:
            - rule: cel.bind(n, self.allowed.size(), n > 0 && n < 3)
              message: one or two
            - rule: cel.bind(cel, 1, cel == 1)
            - rule: sets.contains(self.allowed, self.used)
              message: uses what is not allowed
            - rule: sets.equivalent(self.allowed, ['a', 'b']) || sets.intersects(self.used, ['z'])
              message: neither
            - rule: base64.decode(self.token) == b'hello' && base64.encode(b'hi') == 'aGk='
              message: token
            properties:
              allowed: {type: array, items: {type: string}}
              used: {type: array, items: {type: string}}
              token: {type: string}
");
        assert!(c.rule_problems().is_empty(), "{:?}", c.rule_problems());
        assert_eq!(
            check(&c, "{allowed: [b, a], used: [a], token: aGVsbG8}"),
            Vec::<String>::new()
        );
        assert_eq!(
            check(&c, "{allowed: [a], used: [a, c], token: aGVsbG8=}"),
            [
                "spec: Invalid value: \"object\": uses what is not allowed",
                "spec: Invalid value: \"object\": neither"
            ]
        );
        assert_eq!(
            check(&c, "{allowed: [a, b, c], used: [], token: aGk}"),
            [
                "spec: Invalid value: \"object\": one or two",
                "spec: Invalid value: \"object\": neither",
                "spec: Invalid value: \"object\": token"
            ]
        );
    }

    #[test]
    fn rules_that_do_not_compile_or_call_missing_functions_are_crd_problems() {
        let c = crd("            type: object
            x-kubernetes-validations:
            - rule: self.a ==
            - rule: cel.bind(self.a, 1, true)
            - rule: self.l.size() == 0 || self.l.transformList(i, v, v + 'x') == self.l
            - rule: self.u.lowerAscii() == self.u
            properties:
              a: {type: integer}
              u: {type: string}
              l: {type: array, items: {type: string}}
");
        let problems = c.rule_problems();
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(matches!(problems[0].kind, RuleProblemKind::Invalid(_)));
        assert!(
            problems[1]
                .to_string()
                .contains("cel.bind() variable names must be simple identifiers"),
            "{}",
            problems[1]
        );
        assert_eq!(
            problems[2].to_string(),
            "x-kubernetes-validations rule \"self.l.size() == 0 || self.l.transformList(i, v, v + 'x') == self.l\" is not evaluated: kdelta lacks the CEL function transformList"
        );
        // Neither is evaluated on objects, so neither is an error there.
        assert_eq!(
            check(&c, "{a: 1, u: HTTP}"),
            ["spec: Invalid value: \"object\": failed rule: self.u.lowerAscii() == self.u"]
        );
    }

    #[test]
    fn hostile_rules_stop() {
        let deep = format!("{}true{}", "(".repeat(5000), ")".repeat(5000));
        let nested =
            "self.l.all(a, self.l.all(b, self.l.all(c, self.l.all(d, a + b + c + d >= 0))))";
        let c = crd(&format!(
            "            type: object
            x-kubernetes-validations:
            - rule: \"{deep}\"
            - rule: \"{nested}\"
            properties:
              l: {{type: array, items: {{type: integer}}}}
"
        ));
        let problems = c.rule_problems();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(
            problems[0].kind,
            RuleProblemKind::Invalid(format!("nested more than {MAX_NESTING} deep"))
        );
        // Small lists evaluate; 100 items nested 4 deep (10^8 iterations) are refused.
        assert_eq!(check(&c, "{l: [1, 2, 3]}"), Vec::<String>::new());
        let big: Vec<String> = (0..100).map(|i| i.to_string()).collect();
        let v = check(&c, &format!("{{l: [{}]}}", big.join(", ")));
        assert_eq!(v.len(), 1, "{v:?}");
        assert!(
            v[0].ends_with("call cost exceeds limit for rule: self.l.all(a, self.l.all(b, self.l.all(c, self.l.all(d, a + b + c + d >= 0)))) (kdelta's estimate)"),
            "{v:?}"
        );
    }
}
