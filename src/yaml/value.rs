//! Conversion between the node tree and typed JSON-like values (`serde_json::Value`), following
//! how go-yaml decodes into `interface{}` in each dialect.

use super::node::{Node, NodeKind, Scalar};
use super::resolve::{resolve_scalar, Dialect, Resolved};
use crate::go::float;
use serde_json::{Map, Number, Value};

/// A node that has no JSON equivalent.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ValueError {
    #[error("{}{source}", at_line(*line))]
    Tag {
        line: u32,
        source: super::resolve::TagMismatch,
    },
    #[error("{}unsupported value {text} (JSON has no NaN or infinity)", at_line(*line))]
    NonFinite { line: u32, text: String },
}

/// `line N: ` for a node read from a file; nothing for one kdelta made.
fn at_line(line: u32) -> String {
    if line > 0 {
        format!("line {line}: ")
    } else {
        String::new()
    }
}

/// The typed value of a node under the given dialect.
pub fn to_value(node: &Node, dialect: Dialect) -> Result<Value, ValueError> {
    Ok(match &node.kind {
        NodeKind::Scalar(s) => scalar_value(s, node.span.line, dialect)?,
        NodeKind::Seq(items) => Value::Array(
            items
                .iter()
                .map(|n| to_value(n, dialect))
                .collect::<Result<_, _>>()?,
        ),
        NodeKind::Map(entries) => {
            let mut m = Map::with_capacity(entries.len());
            for (k, v) in entries {
                m.insert(key_text(k), to_value(v, dialect)?);
            }
            Value::Object(m)
        }
    })
}

/// Why [`to_value`] would fail on `node` (the first scalar in document order that cannot be
/// typed: a tag that does not fit, NaN, infinity), without building the value.
pub fn typing_error(node: &Node, dialect: Dialect) -> Option<ValueError> {
    match &node.kind {
        NodeKind::Scalar(s) => match resolve_scalar(s, dialect) {
            Err(source) => Some(ValueError::Tag {
                line: node.span.line,
                source,
            }),
            Ok(Resolved::Float(f)) if !f.is_finite() => Some(ValueError::NonFinite {
                line: node.span.line,
                text: s.text.clone(),
            }),
            Ok(_) => None,
        },
        NodeKind::Seq(items) => items.iter().find_map(|n| typing_error(n, dialect)),
        NodeKind::Map(entries) => entries.iter().find_map(|(_, v)| typing_error(v, dialect)),
    }
}

/// Like [`to_value`], but never fails: a scalar that cannot be typed (a tag that does not fit,
/// NaN, infinity) becomes its text. For diffs and redaction, where every value must be seen.
pub fn to_value_lossy(node: &Node, dialect: Dialect) -> Value {
    match &node.kind {
        NodeKind::Scalar(s) => scalar_value(s, node.span.line, dialect)
            .unwrap_or_else(|_| Value::String(s.text.clone())),
        NodeKind::Seq(items) => {
            Value::Array(items.iter().map(|n| to_value_lossy(n, dialect)).collect())
        }
        NodeKind::Map(entries) => {
            let mut m = Map::with_capacity(entries.len());
            for (k, v) in entries {
                m.insert(key_text(k), to_value_lossy(v, dialect));
            }
            Value::Object(m)
        }
    }
}

/// The first mapping key under `node` that go-yaml v3 does not read as a string (`1`, `true`,
/// `null`, a collection), with what it reads as. Such a key makes go-yaml decode its map as
/// `map[interface{}]interface{}`, which Go's JSON cannot encode: kustomize fails on it.
pub fn non_string_key(node: &Node) -> Option<(&Node, &'static str)> {
    match &node.kind {
        NodeKind::Scalar(_) => None,
        NodeKind::Seq(items) => items.iter().find_map(non_string_key),
        NodeKind::Map(entries) => entries.iter().find_map(|(k, v)| {
            let reads_as = match &k.kind {
                NodeKind::Scalar(s) => match resolve_scalar(s, Dialect::Yaml12) {
                    Ok(Resolved::Str(_) | Resolved::Timestamp(_)) => None,
                    Ok(Resolved::Null) => Some("null"),
                    Ok(Resolved::Bool(_)) => Some("a bool"),
                    Ok(Resolved::Int(_) | Resolved::Uint(_)) => Some("an int"),
                    Ok(Resolved::Float(_)) => Some("a float"),
                    Err(_) => Some("a mistyped value"),
                },
                _ => Some("a collection"),
            };
            match reads_as {
                Some(r) => Some((k, r)),
                None => non_string_key(v),
            }
        }),
    }
}

/// The text a mapping key becomes in JSON (scalars as written; other keys as flow YAML).
pub fn key_text(k: &Node) -> String {
    match &k.kind {
        NodeKind::Scalar(s) => s.text.clone(),
        _ => serde_json::to_string(&to_value(k, Dialect::Yaml12).unwrap_or(Value::Null))
            .unwrap_or_default(),
    }
}

fn scalar_value(s: &Scalar, line: u32, dialect: Dialect) -> Result<Value, ValueError> {
    let resolved = resolve_scalar(s, dialect).map_err(|source| ValueError::Tag { line, source })?;
    resolved_value(resolved, &s.text, line)
}

fn resolved_value(r: Resolved, text: &str, line: u32) -> Result<Value, ValueError> {
    Ok(match r {
        Resolved::Null => Value::Null,
        Resolved::Bool(b) => Value::Bool(b),
        Resolved::Int(i) => Value::Number(i.into()),
        Resolved::Uint(u) => Value::Number(u.into()),
        Resolved::Float(f) => {
            Value::Number(Number::from_f64(f).ok_or_else(|| ValueError::NonFinite {
                line,
                text: text.to_string(),
            })?)
        }
        Resolved::Str(s) | Resolved::Timestamp(s) => Value::String(s),
    })
}

/// The node kyaml makes of a resource that went through Go's JSON (`RNode.UnmarshalJSON`, after a
/// JSON patch): `encoding/json` reads every number as a float64 (integers beyond 2^53 lose
/// precision), go-yaml v3 writes it with `%g` and parses it back, so every scalar carries the
/// tag it resolved to — a later replacement keeps that tag, like on any parsed node.
pub fn from_go_json(v: &Value) -> Node {
    let tagged = |text: String, tag: &str| {
        Node::new(NodeKind::Scalar(Scalar {
            text,
            style: super::node::ScalarStyle::Plain,
            tag: Some(tag.into()),
        }))
    };
    match v {
        Value::Null => Node::null(),
        Value::Bool(b) => tagged(b.to_string(), "!!bool"),
        Value::Number(n) => {
            let text = float::format_g(n.as_f64().unwrap_or(0.0));
            let tag = super::resolve::plain_tag(&text, Dialect::Yaml12);
            tagged(text, tag)
        }
        // go-yaml v3's encoder writes a string with a line break as a literal block.
        Value::String(s) if s.contains('\n') => Node::new(NodeKind::Scalar(Scalar {
            text: s.clone(),
            style: super::node::ScalarStyle::Literal,
            tag: Some("!!str".into()),
        })),
        // Double-quoted where plain text would read as another type (`"1"`, `"yes"`), which
        // the replicas transformer keeps when it writes a count there.
        Value::String(s) if !super::emit::plain_is_string(s) => {
            Node::new(NodeKind::Scalar(Scalar {
                text: s.clone(),
                style: super::node::ScalarStyle::DoubleQuoted,
                tag: Some("!!str".into()),
            }))
        }
        Value::String(s) => Node::string(s.clone()),
        Value::Array(items) => Node::new(NodeKind::Seq(items.iter().map(from_go_json).collect())),
        Value::Object(m) => Node::new(NodeKind::Map(
            m.iter()
                .map(|(k, v)| (Node::string(k.clone()), from_go_json(v)))
                .collect(),
        )),
    }
}

/// The node kyaml reads from the JSON text of a value that Go decoded from YAML and encoded
/// with `encoding/json` (kustomize's expansion of a `List` that kyaml did not unwrap itself):
/// unlike [`from_go_json`], integers stay integers, and every scalar is typed as its JSON text
/// reads.
pub fn from_json_text(v: &Value) -> Node {
    let tagged = |text: String| {
        let tag = super::resolve::plain_tag(&text, Dialect::Yaml12);
        Node::new(NodeKind::Scalar(Scalar {
            text,
            style: super::node::ScalarStyle::Plain,
            tag: Some(tag.into()),
        }))
    };
    match v {
        Value::Null => Node::null(),
        Value::Bool(b) => tagged(b.to_string()),
        Value::Number(n) => tagged(number_text(n)),
        Value::String(s) => Node::string(s.clone()),
        Value::Array(items) => Node::new(NodeKind::Seq(items.iter().map(from_json_text).collect())),
        Value::Object(m) => Node::new(NodeKind::Map(
            m.iter()
                .map(|(k, v)| (Node::string(k.clone()), from_json_text(v)))
                .collect(),
        )),
    }
}

/// The text Go's `encoding/json` writes for a number.
pub fn number_text(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        i.to_string()
    } else if let Some(u) = n.as_u64() {
        u.to_string()
    } else {
        float::format_json(n.as_f64().unwrap_or(0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::{parse_one, ParseOptions};

    fn v(s: &str, d: Dialect) -> Value {
        to_value(
            &parse_one(s.as_bytes(), &ParseOptions::default()).unwrap(),
            d,
        )
        .unwrap()
    }

    #[test]
    fn dialects_type_scalars_differently() {
        let y12 = v(
            "a: yes\nb: 2020-01-01\nc: '1'\nd: 1.5\ne: ~\n",
            Dialect::Yaml12,
        );
        assert_eq!(
            y12,
            serde_json::json!({"a": "yes", "b": "2020-01-01T00:00:00Z", "c": "1", "d": 1.5, "e": null})
        );
        let y11 = v("a: yes\nb: 2020-01-01\n", Dialect::Yaml11);
        assert_eq!(y11, serde_json::json!({"a": true, "b": "2020-01-01"}));
    }

    #[test]
    fn non_finite_floats_are_errors() {
        let n = parse_one(b"a: .inf\n", &ParseOptions::default()).unwrap();
        assert!(matches!(
            to_value(&n, Dialect::Yaml12),
            Err(ValueError::NonFinite { line: 1, .. })
        ));
    }

    #[test]
    fn typing_error_says_what_to_value_fails_on() {
        for (doc, fails) in [
            ("a: 1\nb: [x, {c: .5}]\n", false),
            ("a: 1\nb: [x, {c: !!int three}]\n", true),
            ("a: {b: -.inf}\n", true),
            ("? [k]\n: v\n", false),
        ] {
            let n = parse_one(doc.as_bytes(), &ParseOptions::default()).unwrap();
            let want = to_value(&n, Dialect::Yaml12).err().map(|e| e.to_string());
            let got = typing_error(&n, Dialect::Yaml12).map(|e| e.to_string());
            assert_eq!(got, want, "{doc}");
            assert_eq!(got.is_some(), fails, "{doc}");
        }
    }

    #[test]
    fn go_json_round_trip_keeps_types() {
        let val =
            serde_json::json!({"s": "123", "i": 5, "f": 0.5, "b": true, "n": null, "l": ["x"]});
        assert_eq!(to_value(&from_go_json(&val), Dialect::Yaml12).unwrap(), val);
    }

    /// What kubectl kustomize prints after a JSON patch: float64 precision, `%g` text.
    #[test]
    fn go_json_numbers_are_float64() {
        let node = from_go_json(&serde_json::json!({"a": 9007199254740993_u64, "b": 10000000}));
        assert_eq!(node.str_at(&["a"]), Some("9.007199254740992e+15"));
        assert_eq!(node.str_at(&["b"]), Some("1e+07"));
        let int = node.get("b").and_then(Node::as_scalar).unwrap();
        assert_eq!(int.tag.as_deref(), Some("!!float"));
    }
}
