//! Helm's own template functions (helm v3.17.3 `pkg/engine/funcs.go` and `engine.go`):
//! `include` and `tpl` on the running template set, `required`, `fail`, YAML and JSON
//! conversions through kdelta's go-yaml-exact emitter, and `lookup`, which never reaches a
//! cluster. Helm removes sprig's `env`, `expandenv` (kdelta never had them).

use super::super::exec::Call;
use super::super::fmt;
use super::super::gostr;
use super::super::value::{Dict, ListType, MapType, MapValues, NamedMap, Value};
use super::super::{ErrorKind, FuncDef, FuncError, MissingKey, Param};
use super::json;
use crate::fxhash::FxHashMap;
use crate::yaml::{self, Dialect, NodeKind, Resolved, YamlToJsonError};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Arc;

/// How many times a template may include itself (Helm's `recursionMaxNums`).
const RECURSION_MAX: usize = 1000;

/// Helm wraps the messages of `required` and `fail` so that its engine can find them in an
/// error chain and print `execution error at (FILE:LINE:COL): MESSAGE`.
pub const WARN_START: &str = "HELM_ERR_START";
pub const WARN_END: &str = "HELM_ERR_END";

thread_local! {
    /// Helm's `includedNames`: how deep each template is included now, for the execution
    /// running on this thread (an execution that continues on another thread takes them
    /// along: `exec::on_new_segment`).
    static INCLUDED: RefCell<FxHashMap<String, usize>> = RefCell::new(FxHashMap::default());
}

const A: Param = Param::Any;
const S: Param = Param::String;

/// Helm's functions, on top of sprig's.
pub const FUNCS: &[FuncDef] = &[
    FuncDef::new("include", &[S, A], include),
    FuncDef::new("tpl", &[S, A], tpl),
    FuncDef::new("required", &[S, A], |_, a| {
        let missing = match &a[1] {
            Value::Nil | Value::NoValue => true,
            Value::String(s) => s.is_empty(),
            _ => false,
        };
        if missing {
            return Err(FuncError::Call(format!(
                "{WARN_START}{}{WARN_END}",
                str_arg(a, 0)
            )));
        }
        Ok(a[1].clone())
    }),
    FuncDef::new("fail", &[S], |_, a| {
        Err(FuncError::Call(format!(
            "{WARN_START}{}{WARN_END}",
            str_arg(a, 0)
        )))
    }),
    FuncDef::new("toYaml", &[A], |_, a| {
        Ok(Value::str(to_yaml(&a[0]).unwrap_or_default()))
    }),
    FuncDef::new("toToml", &[A], |_, a| {
        if matches!(a[0], Value::Nil | Value::NoValue) {
            // BurntSushi's encoder asks the invalid value for its type; the panic is not its
            // own, so it reaches the template as the call's error.
            return Err(FuncError::Call(
                "reflect: call of reflect.Value.Type on zero Value".into(),
            ));
        }
        Ok(Value::str(super::toml::to_toml(&a[0])))
    }),
    FuncDef::new("fromToml", &[S], |_, a| {
        Ok(super::toml::from_toml(str_arg(a, 0)))
    }),
    FuncDef::new("toYamlPretty", &[A], |_, a| {
        Ok(Value::str(to_yaml_pretty(&a[0])))
    }),
    FuncDef::new("fromYaml", &[S], |_, a| {
        Ok(match from_yaml(str_arg(a, 0)) {
            Ok(Value::Map(m)) => Value::Map(m),
            Ok(Value::Nil | Value::NoValue) => Value::map(BTreeMap::new()),
            Ok(other) => error_map(format!(
                "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                json_kind(&other)
            )),
            Err(e) => error_map(e.to_string()),
        })
    }),
    FuncDef::new("fromYamlArray", &[S], |_, a| {
        Ok(match from_yaml(str_arg(a, 0)) {
            Ok(Value::List(l)) => Value::List(l),
            Ok(Value::Nil | Value::NoValue) => Value::list(Vec::new()),
            Ok(other) => Value::list(vec![Value::str(format!(
                "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type []interface {{}}",
                json_kind(&other)
            ))]),
            Err(e) => Value::list(vec![Value::str(e.to_string())]),
        })
    }),
    FuncDef::new("fromJson", &[S], |_, a| {
        Ok(match json::decode(str_arg(a, 0)) {
            Ok(json::Decoded {
                value: Value::Map(m),
                number_error,
            }) => {
                if let Some(e) = number_error {
                    m.insert("Error".to_string(), Value::str(e))?;
                }
                Value::Map(m)
            }
            // JSON null leaves Go's map nil, with no error.
            Ok(json::Decoded {
                value: Value::Nil,
                number_error: None,
            }) => Value::Map(Dict::nil(MapType::Any)),
            Ok(other) => error_map(format!(
                "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                decoded_kind(&other)
            )),
            Err(e) => error_map(e),
        })
    }),
    FuncDef::new("fromJsonArray", &[S], |_, a| {
        Ok(match json::decode(str_arg(a, 0)) {
            Ok(json::Decoded {
                value: Value::List(l),
                number_error: None,
            }) => Value::List(l),
            Ok(json::Decoded {
                value: Value::List(_),
                number_error: Some(e),
            }) => Value::list(vec![Value::str(e)]),
            // JSON null leaves Go's slice nil too.
            Ok(json::Decoded {
                value: Value::Nil,
                number_error: None,
            }) => Value::nil_list(ListType::Any),
            Ok(other) => Value::list(vec![Value::str(format!(
                "json: cannot unmarshal {} into Go value of type []interface {{}}",
                decoded_kind(&other)
            ))]),
            Err(e) => Value::list(vec![Value::str(e)]),
        })
    }),
    // Offline, as `helm template` is: every lookup finds nothing.
    FuncDef::new("lookup", &[S, S, S, S], |_, _| {
        Ok(Value::map(BTreeMap::new()))
    }),
];

fn str_arg(a: &[Value], i: usize) -> &str {
    a[i].as_str().unwrap_or_default()
}

/// The JSON kind Go names when a decoded value has the wrong type: a nil that stands for a
/// number out of range was a number.
fn decoded_kind(d: &json::Decoded) -> &'static str {
    match (&d.value, &d.number_error) {
        (Value::Nil, Some(_)) => "number",
        (v, _) => json_kind(v),
    }
}

fn error_map(message: String) -> Value {
    Value::map(BTreeMap::from([("Error".to_string(), Value::str(message))]))
}

pub(super) fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "string",
        Value::Bool(_) => "bool",
        Value::Int(_) | Value::Int64(_) | Value::Uint64(_) | Value::Uint8(_) | Value::Float(_) => {
            "number"
        }
        Value::Complex(..) => "complex128",
        Value::List(_) => "array",
        Value::Map(_) | Value::Object(_) => "object",
        Value::Nil | Value::NoValue => "null",
    }
}

/// Runs `f` with template `name` counted as included once more; too deep is Helm's error.
fn counted<T>(name: &str, f: impl FnOnce() -> Result<T, FuncError>) -> Result<T, FuncError> {
    let over = INCLUDED.with(|m| {
        let mut m = m.borrow_mut();
        // A name is included again and again: its entry is made once.
        let n = match m.get_mut(name) {
            Some(n) => n,
            None => m.entry(name.to_string()).or_insert(0),
        };
        if *n > RECURSION_MAX {
            return true;
        }
        *n += 1;
        false
    });
    if over {
        return Err(FuncError::Call(format!(
            "rendering template has a nested reference name: {name}: unable to execute template"
        )));
    }
    let out = f();
    INCLUDED.with(|m| {
        if let Some(n) = m.borrow_mut().get_mut(name) {
            *n -= 1;
        }
    });
    out
}

fn include(call: &Call, a: &[Value]) -> Result<Value, FuncError> {
    let name = str_arg(a, 0);
    counted(name, || {
        call.set
            .execute_nested(name, &a[1], call.depth + 1)
            .map(Value::str)
            .map_err(|e| FuncError::Call(e.to_string()))
    })
}

fn tpl(call: &Call, a: &[Value]) -> Result<Value, FuncError> {
    let text = str_arg(a, 0);
    // The text is parsed into a copy of the running set, under the root template's name.
    let mut set = call.set.clone();
    let name = "gotpl";
    let shared = match &a[0] {
        Value::String(s) => s.clone(),
        _ => Arc::from(text),
    };
    let tree = set.parse_template(name, &shared).map_err(|e| {
        FuncError::Call(format!(
            "cannot parse template {}: {e}",
            fmt::go_quote(text)
        ))
    })?;
    let out = set
        .execute_tree_nested(&tree, &a[1], call.depth + 1)
        .map_err(|e| {
            // A panic passes Helm's wrapping by and ends at the function call.
            if matches!(e.kind(), ErrorKind::Panic { .. }) {
                return FuncError::Call(e.to_string());
            }
            FuncError::Call(format!(
                "error during tpl function execution for {}: {e}",
                fmt::go_quote(text)
            ))
        })?;
    if set.options().missing_key == MissingKey::Error {
        return Ok(Value::str(out));
    }
    Ok(Value::str(out.replace("<no value>", "")))
}

/// Helm's `toYaml`: Go's JSON of the value, read back and written as go-yaml v2 writes it
/// (sigs.k8s.io/yaml), without the final newline.
pub fn to_yaml(v: &Value) -> Result<String, String> {
    let value = json_value(v, Nil::Null)?;
    if yaml_reader_refuses(&value) {
        return Err("yaml: control characters are not allowed".into());
    }
    let out = yaml::emit::to_string(&value);
    Ok(out.strip_suffix('\n').unwrap_or(&out).to_string())
}

/// Helm's `toYamlPretty`: go-yaml v3 with a 2-space indent, sequences indented under their
/// keys; "" when the value cannot be written.
fn to_yaml_pretty(v: &Value) -> String {
    // go-yaml v3 writes Go values directly; for the values templates hold (maps, lists,
    // strings, bools, numbers printed with 'g'), that is what Go's JSON read back gives.
    json_value(v, Nil::Empty)
        .map(|value| {
            let out = yaml::emit::to_string_v3(&value);
            out.strip_suffix('\n').unwrap_or(&out).to_string()
        })
        .unwrap_or_default()
}

/// What a nil slice or map becomes in [`json_value`].
#[derive(Clone, Copy)]
enum Nil {
    /// `null`, as Go's JSON encoder writes it.
    Null,
    /// Empty, as go-yaml v3 writes it (`[]`, `{}`).
    Empty,
}

/// What Go's JSON encoder writes of `v`, read back (Helm's `toYaml` goes through
/// sigs.k8s.io/yaml, which marshals to JSON first), with nil slices and maps as `nil` says.
/// Built directly for the values templates hold; objects, complex numbers and non-finite
/// floats go through the encoder's text.
fn json_value(v: &Value, nil: Nil) -> Result<serde_json::Value, String> {
    use serde_json::Value as J;
    Ok(match v {
        Value::NoValue | Value::Nil => J::Null,
        Value::List(l) if l.is_nil() && matches!(nil, Nil::Null) => J::Null,
        Value::Map(m) if m.is_nil() && matches!(nil, Nil::Null) => J::Null,
        Value::Bool(b) => J::Bool(*b),
        // go-yaml v3 writes a `time.Duration` as its text (JSON as its number).
        Value::Object(o) if matches!(nil, Nil::Empty) && o.0.type_name() == "time.Duration" => {
            J::String(o.0.text())
        }
        Value::Int(i) | Value::Int64(i) => J::from(*i),
        Value::Uint64(u) => J::from(*u),
        Value::Uint8(b) => J::from(*b),
        // The number as the text the encoder writes reads back (an integral float is an
        // integer then).
        Value::Float(f) if f.is_finite() => {
            serde_json::from_str(&crate::yaml::format_json(*f)).map_err(|e| e.to_string())?
        }
        // The encoder's escapes read back as the characters they stand for; it writes each
        // byte that is not UTF-8 as U+FFFD.
        Value::String(s) => J::String(gostr::display(s).into_owned()),
        Value::List(items) => J::Array(
            items
                .items()
                .iter()
                .map(|item| json_value(item, nil))
                .collect::<Result<_, _>>()?,
        ),
        Value::Map(m) => J::Object(
            m.entries()
                .into_iter()
                .map(|(k, v)| Ok((gostr::display(&k).into_owned(), json_value(&v, nil)?)))
                .collect::<Result<_, String>>()?,
        ),
        Value::Float(_) | Value::Complex(..) | Value::Object(_) => {
            let text = json::marshal(v, false, None)?;
            serde_json::from_str(&text).map_err(|e| e.to_string())?
        }
    })
}

/// True when Go's JSON text of `value` holds a character go-yaml's reader refuses
/// (sigs.k8s.io/yaml reads that text back to write it as YAML).
fn yaml_reader_refuses(value: &serde_json::Value) -> bool {
    use serde_json::Value as J;
    let refused = yaml::roundtrip::unreadable_from_json;
    match value {
        J::String(s) => refused(s),
        J::Array(items) => items.iter().any(yaml_reader_refuses),
        J::Object(m) => m.iter().any(|(k, v)| refused(k) || yaml_reader_refuses(v)),
        J::Null | J::Bool(_) | J::Number(_) => false,
    }
}

/// YAML text Helm cannot read, as sigs.k8s.io/yaml words it: `error converting YAML to JSON:
/// yaml: line 3: …`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("error converting YAML to JSON: {message}")]
pub struct HelmYamlError {
    /// The line the message names (go-yaml's, as Helm prints it), when it names one.
    pub line: Option<u32>,
    /// go-yaml's or encoding/json's message.
    pub message: String,
}

/// Helm's reading of YAML text, for `fromYaml` and values files alike (sigs.k8s.io/yaml:
/// go-yaml v2 typing, then JSON, so every number is a float64 and keys are strings).
pub fn from_yaml(text: &str) -> Result<Value, HelmYamlError> {
    match subset_value(text) {
        Some(value) => Ok(value),
        None => from_yaml_nodes(text),
    }
}

/// sigs.k8s.io/yaml's `YAMLToJSON` of `text` (its first document) as JSON, for Go code that
/// unmarshals YAML into `map[string]interface{}` and the like (Argo CD's git files and
/// `elementsYaml`): go-yaml v2 typing (`yes` is true), every number a float64.
pub fn yaml_to_json(text: &str) -> Result<serde_json::Value, HelmYamlError> {
    json_value(&from_yaml(text)?, Nil::Null).map_err(|message| HelmYamlError {
        line: None,
        message,
    })
}

/// [`from_yaml`] through the node tree alone (the tests check the way without it against it).
#[doc(hidden)]
pub fn from_yaml_nodes(text: &str) -> Result<Value, HelmYamlError> {
    match yaml_node(text)? {
        None => Ok(Value::Nil),
        Some(node) => helm_json_value(&node),
    }
}

/// [`from_yaml`] by the block-subset reader's events alone: `None` where it leaves the text to
/// the nodes (the tests check that it is taken, and agrees, where it should be).
#[doc(hidden)]
pub fn from_yaml_events(text: &str) -> Option<Value> {
    subset_value(text)
}

/// [`from_yaml`] of the common case, built from the block-subset reader's events without a
/// node tree (a chart's `values.yaml` was a tenth of its render). `None` where the way
/// through nodes could give anything else, which then decides: input outside the subset, a
/// key given twice (which of them wins depends on the nodes' order), a merge key, a key Go
/// cannot make a string of (null, uint64, a collection), a scalar its resolution refuses, a
/// float JSON cannot hold (an error there).
fn subset_value(text: &str) -> Option<Value> {
    enum Frame {
        Map(BTreeMap<String, Value>, Option<String>),
        Seq(Vec<Value>),
    }
    let mut stack: Vec<Frame> = Vec::new();
    let mut first: Option<Value> = None;
    let mut documents = 0;
    let mut second_document = false;
    let mut unsupported = false;
    let mut sink = |event: yaml::SubsetEvent| {
        if let yaml::SubsetEvent::DocumentStart = event {
            documents += 1;
        }
        // sigs.k8s.io/yaml decodes one document and never reads what follows it: stop there.
        if documents > 1 {
            second_document = true;
            return false;
        }
        let key_expected = matches!(stack.last(), Some(Frame::Map(_, None)));
        let value = match event {
            yaml::SubsetEvent::DocumentStart => return true,
            yaml::SubsetEvent::MappingStart | yaml::SubsetEvent::SequenceStart if key_expected => {
                unsupported = true;
                return false;
            }
            yaml::SubsetEvent::MappingStart => {
                stack.push(Frame::Map(BTreeMap::new(), None));
                return true;
            }
            yaml::SubsetEvent::SequenceStart => {
                stack.push(Frame::Seq(Vec::new()));
                return true;
            }
            yaml::SubsetEvent::CollectionEnd => match stack.pop() {
                Some(Frame::Map(map, _)) => Value::map(map),
                Some(Frame::Seq(items)) => Value::list(items),
                None => return true,
            },
            yaml::SubsetEvent::Scalar(text, style) if key_expected => {
                let Some(Frame::Map(map, key)) = stack.last_mut() else {
                    unreachable!("a key is expected in a mapping");
                };
                match subset_key(text, style) {
                    Some(k) if !map.contains_key(&k) => {
                        *key = Some(k);
                        return true;
                    }
                    _ => {
                        unsupported = true;
                        return false;
                    }
                }
            }
            yaml::SubsetEvent::Scalar(text, style) => match subset_scalar(text, style) {
                Some(v) => v,
                None => {
                    unsupported = true;
                    return false;
                }
            },
        };
        match stack.last_mut() {
            None => first = Some(value),
            Some(Frame::Seq(items)) => items.push(value),
            Some(Frame::Map(map, key)) => {
                if let Some(key) = key.take() {
                    map.insert(key, value);
                }
            }
        }
        true
    };
    let read = yaml::read_subset(text.as_bytes(), &mut sink);
    ((read || second_document) && !unsupported).then(|| first.unwrap_or(Value::Nil))
}

/// A mapping key as sigs.k8s.io/yaml makes a string of it (`yaml::to_json::key_string`);
/// `None` for a merge key and the keys that are errors there.
fn subset_key(text: String, style: yaml::ScalarStyle) -> Option<String> {
    if style == yaml::ScalarStyle::Plain && text == "<<" {
        return None;
    }
    yaml::to_json::resolved_key(subset_resolved(text, style)?).ok()
}

/// A scalar as [`helm_value`] reads it; `None` where that is an error (a float JSON cannot
/// hold is one later).
fn subset_scalar(text: String, style: yaml::ScalarStyle) -> Option<Value> {
    Some(helm_scalar(subset_resolved(text, style)?)).filter(|v| match v {
        Value::Float(f) => f.is_finite(),
        _ => true,
    })
}

/// An untagged scalar resolved as go-yaml v2 does; `None` where that fails.
fn subset_resolved(text: String, style: yaml::ScalarStyle) -> Option<Resolved> {
    let scalar = yaml::Scalar {
        text,
        style,
        tag: None,
    };
    yaml::resolve_scalar(&scalar, Dialect::Yaml11).ok()
}

/// A resolved scalar as Helm's values hold it (every number a float64).
fn helm_scalar(resolved: Resolved) -> Value {
    match resolved {
        Resolved::Null => Value::Nil,
        Resolved::Bool(b) => Value::Bool(b),
        Resolved::Int(i) => Value::Float(i as f64),
        Resolved::Uint(u) => Value::Float(u as f64),
        Resolved::Float(f) => Value::Float(f),
        Resolved::Str(s) | Resolved::Timestamp(s) => Value::str(s),
    }
}

/// Whether sigs.k8s.io/yaml makes JSON of a parsed document, as Helm's `SortManifests` asks
/// of every rendered one: its error when it cannot. Only the scalars and keys that might fail
/// are resolved, and the document is converted whole (for `encoding/json`'s order) only when
/// it holds a float JSON cannot: a big CRD is checked without a copy of its text.
pub fn check_json(node: &yaml::Node) -> Result<(), HelmYamlError> {
    if !might_fail_json(node) {
        return Ok(());
    }
    if let Some(e) = yaml::to_json::collection_key_error(node) {
        return Err(e.into());
    }
    let mut non_finite = false;
    first_conversion_error(node, &mut non_finite)?;
    if non_finite {
        helm_json_value(node)?;
    }
    Ok(())
}

/// The first error [`helm_value`] meets in `node` (a tag its scalar does not fit, a null or
/// uint64 key), in its order, without building the value; `non_finite` is set when a scalar
/// is an infinite or NaN float.
fn first_conversion_error(node: &yaml::Node, non_finite: &mut bool) -> Result<(), HelmYamlError> {
    match &node.kind {
        NodeKind::Scalar(s) => {
            if scalar_may_fail(s) {
                match yaml::resolve_scalar(s, Dialect::Yaml11) {
                    Ok(Resolved::Float(f)) => *non_finite |= !f.is_finite(),
                    Ok(_) => {}
                    Err(source) => {
                        return Err(HelmYamlError {
                            line: Some(node.span.line),
                            message: format!("yaml: {source}"),
                        })
                    }
                }
            }
        }
        NodeKind::Seq(items) => {
            for item in items {
                first_conversion_error(item, non_finite)?;
            }
        }
        NodeKind::Map(entries) => {
            for (i, (k, v)) in entries.iter().enumerate() {
                if !matches!(&k.kind, NodeKind::Scalar(s) if !key_may_fail(s)) {
                    yaml::to_json::entry_key_string(entries, i)?;
                }
                first_conversion_error(v, non_finite)?;
            }
        }
    }
    Ok(())
}

/// A document's value as sigs.k8s.io/yaml gives it, or its error: a collection key first (go-yaml
/// v2 fails on it while decoding), then tags and keys, then a float JSON cannot hold.
fn helm_json_value(node: &yaml::Node) -> Result<Value, HelmYamlError> {
    if let Some(e) = yaml::to_json::collection_key_error(node) {
        return Err(e.into());
    }
    let value = helm_value(node)?;
    // JSON has no infinity or NaN: encoding/json refuses the first one it meets (maps in
    // key order).
    match unsupported_float(&value) {
        Some(f) => Err(HelmYamlError {
            line: None,
            message: format!(
                "json: unsupported value: {}",
                // strconv.FormatFloat's own spelling, not YAML's.
                if f.is_nan() {
                    "NaN"
                } else if f > 0.0 {
                    "+Inf"
                } else {
                    "-Inf"
                }
            ),
        }),
        None => Ok(value),
    }
}

/// True when a node holds something sigs.k8s.io/yaml might refuse: a tag, a collection key, a
/// plain key that may be null or a uint64, a plain value that may be infinite or NaN.
fn might_fail_json(node: &yaml::Node) -> bool {
    match &node.kind {
        NodeKind::Scalar(s) => scalar_may_fail(s),
        NodeKind::Seq(items) => items.iter().any(might_fail_json),
        NodeKind::Map(entries) => entries.iter().any(|(k, v)| {
            let key_may_fail = match &k.kind {
                NodeKind::Scalar(s) => key_may_fail(s),
                _ => true,
            };
            key_may_fail || might_fail_json(v)
        }),
    }
}

/// A scalar value JSON might refuse: a tag it may not fit, or a plain one that may be an
/// infinite or NaN float.
fn scalar_may_fail(s: &yaml::Scalar) -> bool {
    s.tag.is_some() || (s.style == yaml::ScalarStyle::Plain && plain_may_be_non_finite(&s.text))
}

/// A plain scalar that may be an infinite or NaN float (`.inf`, `-.NaN`).
pub fn plain_may_be_non_finite(text: &str) -> bool {
    text.trim_start_matches(['+', '-']).starts_with('.')
}

/// A scalar key Go might not make a string of: tagged, or plain and maybe null or a uint64.
fn key_may_fail(s: &yaml::Scalar) -> bool {
    s.tag.is_some() || (s.style == yaml::ScalarStyle::Plain && plain_key_may_fail(&s.text))
}

/// A plain key that may be null or a uint64, which Go cannot make a string of.
pub fn plain_key_may_fail(text: &str) -> bool {
    matches!(text, "" | "~" | "null" | "Null" | "NULL")
        || text.starts_with(|c: char| c.is_ascii_digit() || c == '+')
}

impl From<YamlToJsonError> for HelmYamlError {
    fn from(e: YamlToJsonError) -> HelmYamlError {
        HelmYamlError {
            line: Some(e.line()).filter(|&l| l > 0),
            message: e.to_string(),
        }
    }
}

/// The first float JSON cannot hold, in `encoding/json`'s order.
fn unsupported_float(v: &Value) -> Option<f64> {
    match v {
        Value::Float(f) if !f.is_finite() => Some(*f),
        Value::List(l) => l.items().iter().find_map(unsupported_float),
        Value::Map(m) => m.read().values().find_map(unsupported_float),
        _ => None,
    }
}

/// The first document of `text` as sigs.k8s.io/yaml reads it (go-yaml v2: a key given twice
/// keeps its last value), or its error as Helm prints it (`error converting YAML to JSON: …`).
pub fn yaml_node(text: &str) -> Result<Option<yaml::Node>, HelmYamlError> {
    let options = yaml::ParseOptions {
        duplicate_keys: yaml::DuplicateKeys::LastWins,
        go_yaml_v2_errors: true,
        ..yaml::ParseOptions::default()
    };
    // Go's reader sees a Go string's bytes: one that is not UTF-8 fails as go-yaml's does.
    // sigs.k8s.io/yaml decodes one document: what follows it is never read.
    match yaml::parse_first(&gostr::to_bytes(text), &options) {
        Ok(doc) => Ok(doc),
        Err(e) => Err(match e.go_message {
            Some(message) => HelmYamlError {
                line: e.go_line,
                message,
            },
            None => HelmYamlError {
                line: Some(e.span.line),
                message: format!("yaml: line {}: {}", e.span.line, e.message),
            },
        }),
    }
}

/// A YAML node as Helm's values see it: go-yaml v2's types, then sigs.k8s.io/yaml's JSON
/// (every number a float64; a key by its Go type: `1.20:` is `"1.2"`, `0x1F:` is `"31"`; a
/// null, uint64 or collection key, or a tag its value does not fit, is an error). Collection
/// keys are found first ([`yaml::to_json::collection_key_error`]).
fn helm_value(node: &yaml::Node) -> Result<Value, HelmYamlError> {
    Ok(match &node.kind {
        NodeKind::Scalar(s) => match yaml::resolve_scalar(s, Dialect::Yaml11) {
            Ok(resolved) => helm_scalar(resolved),
            // go-yaml v2 words it without a line.
            Err(source) => {
                return Err(HelmYamlError {
                    line: Some(node.span.line),
                    message: format!("yaml: {source}"),
                })
            }
        },
        NodeKind::Seq(items) => {
            Value::list(items.iter().map(helm_value).collect::<Result<_, _>>()?)
        }
        NodeKind::Map(entries) => {
            let mut m = BTreeMap::new();
            for (i, (_, v)) in entries.iter().enumerate() {
                m.insert(yaml::to_json::entry_key_string(entries, i)?, helm_value(v)?);
            }
            Value::map(m)
        }
    })
}

/// How Helm's engine words an execution error: one that a `fail` or `required` caused as
/// `execution error at (FILE:LINE:COL): MESSAGE`, at the outermost location of the chain; a
/// panic that reached the top as its recover does; any other as Go words it.
pub fn helm_error(e: &super::super::Error) -> String {
    if matches!(e.kind(), ErrorKind::Panic { .. }) {
        return format!("rendering template failed: {e}");
    }
    fail_message(&e.to_string())
}

/// [`helm_error`] of the text of an error that is not a panic.
fn fail_message(message: &str) -> String {
    let (Some(start), Some(end)) = (message.find(WARN_START), message.find(WARN_END)) else {
        return message.to_string();
    };
    let Some(text) = message.get(start + WARN_START.len()..end) else {
        return message.to_string();
    };
    let location = message.split(": ").nth(1).unwrap_or_default();
    format!("execution error at ({location}): {text}")
}

/// Helm's `chartutil.Values`, the type of `.Values` and of a chart's values: a
/// `map[string]interface{}` with methods (`.Values.AsMap`, `.Values.Table "a.b"`).
pub static CHART_VALUES: NamedMap = NamedMap {
    name: "chartutil.Values",
    methods: &["AsMap", "Encode", "PathValue", "Table", "YAML"],
    values: MapValues::Interface,
    call: values_method,
};

/// `v` as a `chartutil.Values` when it is a map.
pub fn chart_values(v: Value) -> Value {
    match v {
        Value::Map(m) => Value::Map(m.retyped(MapType::Named(&CHART_VALUES))),
        other => other,
    }
}

fn values_method(m: &Dict, name: &str, a: &[Value]) -> Result<Value, FuncError> {
    let want = usize::from(matches!(name, "Encode" | "PathValue" | "Table"));
    if a.len() != want {
        return Err(FuncError::Plain(format!(
            "wrong number of args for {name}: want {want} got {}",
            a.len()
        )));
    }
    let path = || match &a[0] {
        Value::String(s) => Ok(s.to_string()),
        other => Err(FuncError::Plain(format!(
            "wrong type for value; expected string; got {}",
            match other {
                Value::Nil | Value::NoValue => "interface {}",
                v => v.type_name(),
            }
        ))),
    };
    match name {
        "AsMap" => Ok(Value::Map(m.retyped(MapType::Any))),
        "YAML" => to_yaml(&Value::Map(m.clone()))
            .map(|y| Value::str(y + "\n"))
            .map_err(FuncError::Call),
        "Table" => values_table(m, &path()?)
            .map(|t| Value::Map(t.retyped(MapType::Named(&CHART_VALUES))))
            .map_err(FuncError::Call),
        "PathValue" => values_path(m, &path()?).map_err(FuncError::Call),
        _ => Err(FuncError::Plain(format!(
            "wrong type for value; expected io.Writer; got {}",
            a[0].type_name()
        ))),
    }
}

/// `Values.Table`: the table at a dotted path.
fn values_table(m: &Dict, path: &str) -> Result<Dict, String> {
    let mut table = m.clone();
    for key in path.split('.') {
        match table.get(key) {
            Some(Value::Map(next)) if next.ty() != MapType::String => table = next,
            _ => return Err(format!("{} is not a table", fmt::go_quote(key))),
        }
    }
    Ok(table)
}

/// `Values.PathValue`: the value (not a table) at a dotted path.
fn values_path(m: &Dict, path: &str) -> Result<Value, String> {
    if path.is_empty() {
        return Err("YAML path cannot be empty".to_string());
    }
    let (table, key) = match path.rsplit_once('.') {
        Some((tables, key)) => (values_table(m, tables).ok(), key),
        None => (Some(m.clone()), path),
    };
    match table.and_then(|t| t.get(key)) {
        Some(Value::Map(t)) if t.ty() != MapType::String => {
            Err(format!("{} is not a value", fmt::go_quote(key)))
        }
        Some(v) => Ok(v),
        None => Err(format!("{} is not a value", fmt::go_quote(key))),
    }
}

/// Resets the include counts (at the start of an outermost execution).
pub(in crate::template) fn reset() {
    INCLUDED.with(|m| m.borrow_mut().clear());
}

/// Takes this thread's include counts (an execution continuing on another thread).
pub(in crate::template) fn take_included() -> FxHashMap<String, usize> {
    INCLUDED.with(|m| std::mem::take(&mut *m.borrow_mut()))
}

/// Gives this thread the include counts of the execution it continues.
pub(in crate::template) fn restore_included(counts: FxHashMap<String, usize>) {
    INCLUDED.with(|m| *m.borrow_mut() = counts);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The encoder's text read back, as `json_value` stood before it was built directly.
    fn through_text(v: &Value) -> Result<serde_json::Value, String> {
        let text = json::marshal(v, false, None)?;
        serde_json::from_str(&text).map_err(|e| e.to_string())
    }

    #[test]
    fn json_values_are_what_the_encoders_text_reads_back_as() {
        let floats = [
            0.0,
            -0.0,
            1.0,
            -3.0,
            1.5,
            0.1 + 0.2,
            1e20,
            1e21,
            -1e21,
            123456789012345678.0,
            5e-324,
            1.7976931348623157e308,
            2f64.powi(63),
            2f64.powi(64),
            f64::NAN,
            f64::INFINITY,
        ];
        let strings = [
            "",
            "a",
            "\"quoted\" \\ back",
            "line\nbreak\ttab\r",
            "\u{1}\u{1f}\u{7f}",
            "\u{2028}\u{2029}",
            "<html> & co",
            "é𝄞",
            "\u{10ff80}bytes",
        ];
        let mut values: Vec<Value> = floats.iter().map(|f| Value::Float(*f)).collect();
        values.extend(strings.iter().map(|s| Value::str(*s)));
        values.extend([
            Value::NoValue,
            Value::Nil,
            Value::Bool(true),
            Value::Int(-7),
            Value::Int64(i64::MIN),
            Value::Uint64(u64::MAX),
            Value::Complex(1.0, 2.0),
        ]);
        let mut map = BTreeMap::new();
        for (i, v) in values.iter().enumerate() {
            if !matches!(v, Value::Float(f) if !f.is_finite()) && !matches!(v, Value::Complex(..)) {
                map.insert(format!("k{i}"), v.clone());
            }
        }
        map.insert(
            "nil_slice".into(),
            Value::nil_list(crate::template::ListType::String),
        );
        map.insert(
            "nil_map".into(),
            Value::Map(Dict::nil(crate::template::MapType::String)),
        );
        let nested = Value::map(map);
        values.push(Value::list(vec![nested.clone(), Value::list(vec![])]));
        values.push(nested);
        values.push(Value::list(vec![Value::Int(1), Value::Float(f64::NAN)]));
        for v in &values {
            assert_eq!(json_value(v, Nil::Null), through_text(v), "{v:?}");
        }
    }

    /// The check of a rendered document gives what converting it whole gives, on documents
    /// that mix every part that can fail (tags, null, uint64 and collection keys, infinite
    /// floats in and out of key order, keys given twice) with parts that cannot.
    #[test]
    fn checking_a_document_is_converting_it_whole() {
        let parts = [
            "a: 1",
            "b: .inf",
            "c: -.Inf",
            "d: .nan",
            "e: '.inf'",
            "f: !!float 1",
            "g: !!int x",
            "h: !!str 1",
            "~: 1",
            "null: 2",
            "'null': 3",
            "0xFFFFFFFFFFFFFFFF: 4",
            "1: 5",
            "+1: 6",
            "[x]: 7",
            "{k: v}: 8",
            "i: [1, .inf, !!bool yes]",
            "j: {z: .inf, a: -.inf}",
            "a: .nan",
            ".5: x",
            "k: .description text",
            "!!int 5: v",
            "!!int x: v",
        ];
        let options = yaml::ParseOptions {
            duplicate_keys: yaml::DuplicateKeys::LastWins,
            ..yaml::ParseOptions::default()
        };
        let (mut checked, mut failed) = (0, 0);
        for (i, first) in parts.iter().enumerate() {
            for second in &parts[i..] {
                for (x, y) in [(first, second), (second, first)] {
                    let doc = format!("{x}\nl:\n  - n: 1\n    {y}\n");
                    let Ok(docs) = yaml::parse_stream(doc.as_bytes(), &options) else {
                        continue;
                    };
                    let node = &docs[0];
                    let whole = helm_json_value(node).map(|_| ());
                    assert_eq!(check_json(node), whole, "{doc}");
                    checked += 1;
                    failed += usize::from(whole.is_err());
                }
            }
        }
        assert!(
            checked > 400 && failed > 200 && checked - failed > 50,
            "{checked} documents, {failed} failed"
        );
    }
}
