//! sigs.k8s.io/yaml's `YAMLToJSON`, which kustomize runs on a JSON 6902 patch written in YAML:
//! go-yaml v2 decodes the document into `interface{}` (YAML 1.1 typing), then every mapping key
//! becomes a JSON object key by its Go type: a string as it is, an int in decimal, a float with
//! `strconv.FormatFloat(f, 'g', -1, 32)`, a bool as `true`/`false`. Any other key (null, an
//! integer beyond int64, a collection) makes the conversion fail.

use super::node::{Node, NodeKind};
use super::resolve::{resolve_scalar, Dialect, Resolved};
use super::value::{to_value, ValueError};
use crate::go::float;
use serde_json::{Map, Value};

/// Why `YAMLToJSON` refuses a document. The words are sigs.k8s.io/yaml's and go-yaml v2's; the
/// Go values are printed as `%#v` does.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum YamlToJsonError {
    /// go-yaml v2 cannot decode a mapping whose key is a collection into `interface{}`.
    #[error("yaml: invalid map key: {key}")]
    CollectionKey { line: u32, key: String },
    /// A key JSON has no text for: null, or an integer that only fits a uint64.
    #[error("unsupported map key of type: {go_type}, key: {key}, value: {value}")]
    UnsupportedKey {
        line: u32,
        go_type: &'static str,
        key: String,
        value: String,
    },
    /// A value JSON cannot hold (NaN, infinity) or a tag that does not fit.
    #[error(transparent)]
    Value(#[from] ValueError),
}

impl YamlToJsonError {
    /// The line of the offending key or value (1-based; 0 when unknown).
    pub fn line(&self) -> u32 {
        match self {
            YamlToJsonError::CollectionKey { line, .. }
            | YamlToJsonError::UnsupportedKey { line, .. } => *line,
            YamlToJsonError::Value(ValueError::Tag { line, .. })
            | YamlToJsonError::Value(ValueError::NonFinite { line, .. }) => *line,
        }
    }
}

/// The JSON value `YAMLToJSON` makes of a parsed YAML document.
pub fn yaml_to_json(node: &Node) -> Result<Value, YamlToJsonError> {
    // go-yaml v2 fails on a collection key while decoding, before any key is converted.
    if let Some(key) = collection_key(node) {
        return Err(YamlToJsonError::CollectionKey {
            line: key.span.line,
            key: go_syntax(key, false),
        });
    }
    convert(node)
}

/// The error go-yaml v2 meets first in a document whose mapping has a collection key (it fails
/// while decoding, before any key is converted), if one does.
pub fn collection_key_error(node: &Node) -> Option<YamlToJsonError> {
    collection_key(node).map(|key| YamlToJsonError::CollectionKey {
        line: key.span.line,
        key: go_syntax(key, false),
    })
}

fn collection_key(node: &Node) -> Option<&Node> {
    match &node.kind {
        NodeKind::Scalar(_) => None,
        NodeKind::Seq(items) => items.iter().find_map(collection_key),
        NodeKind::Map(entries) => entries.iter().find_map(|(k, v)| {
            if k.is_scalar() {
                collection_key(v)
            } else {
                Some(k)
            }
        }),
    }
}

fn convert(node: &Node) -> Result<Value, YamlToJsonError> {
    match &node.kind {
        NodeKind::Scalar(_) => Ok(to_value(node, Dialect::Yaml11)?),
        NodeKind::Seq(items) => Ok(Value::Array(
            items.iter().map(convert).collect::<Result<_, _>>()?,
        )),
        NodeKind::Map(entries) => {
            let mut m = Map::with_capacity(entries.len());
            for (i, (_, v)) in entries.iter().enumerate() {
                m.insert(entry_key_string(entries, i)?, convert(v)?);
            }
            Ok(Value::Object(m))
        }
    }
}

/// The JSON text of a scalar key, by the Go type go-yaml v2 decodes it to.
pub fn key_string(key: &Node, value: &Node) -> Result<String, YamlToJsonError> {
    let unsupported = |go_type: &'static str, key_text: String| YamlToJsonError::UnsupportedKey {
        line: key.span.line,
        go_type,
        key: key_text,
        value: go_syntax(value, false),
    };
    let NodeKind::Scalar(s) = &key.kind else {
        return Err(YamlToJsonError::CollectionKey {
            line: key.span.line,
            key: go_syntax(key, false),
        });
    };
    let resolved = resolve_scalar(s, Dialect::Yaml11)
        .map_err(|source| ValueError::Tag {
            line: key.span.line,
            source,
        })
        .map_err(YamlToJsonError::from)?;
    resolved_key(resolved).map_err(|refused| match refused {
        Resolved::Uint(u) => unsupported("uint64", format!("{u:#x}")),
        // `reflect.TypeOf(nil)` printed with `%s`.
        _ => unsupported("%!s(<nil>)", "<nil>".into()),
    })
}

/// [`key_string`] of entry `i` of a mapping. go-yaml v2 decoded the mapping into a Go map,
/// which kept the last value of a key given twice (`~: a` then `null: b` is one nil key), so
/// an unsupported key's error names that value.
pub fn entry_key_string(entries: &[(Node, Node)], i: usize) -> Result<String, YamlToJsonError> {
    let (k, v) = &entries[i];
    key_string(k, v).map_err(|e| match e {
        YamlToJsonError::UnsupportedKey { .. } => {
            let key = GoKey::of(k);
            entries
                .iter()
                .rev()
                .find(|(other, _)| GoKey::of(other) == key)
                .and_then(|(k, v)| key_string(k, v).err())
                .unwrap_or(e)
        }
        e => e,
    })
}

/// [`key_string`] of a scalar key resolved: its text, or the key back when Go cannot make a
/// string of it (null, uint64).
pub fn resolved_key(resolved: Resolved) -> Result<String, Resolved> {
    Ok(match resolved {
        Resolved::Str(t) | Resolved::Timestamp(t) => t,
        Resolved::Int(i) => i.to_string(),
        Resolved::Float(f) => float::format_g32(f),
        Resolved::Bool(b) => b.to_string(),
        refused @ (Resolved::Null | Resolved::Uint(_)) => return Err(refused),
    })
}

/// A node as Go's `%#v` prints the value go-yaml v2 decodes it to: `"a"`, `1`, `<nil>`,
/// `[]interface {}{1, "a"}`, `map[interface {}]interface {}{"b":1}` (keys sorted, as `fmt`
/// sorts a map's keys; keys of different types by type, then value).
fn go_syntax(node: &Node, nested: bool) -> String {
    match &node.kind {
        NodeKind::Scalar(s) => match resolve_scalar(s, Dialect::Yaml11) {
            Ok(Resolved::Null) if nested => "interface {}(nil)".into(),
            Ok(Resolved::Null) => "<nil>".into(),
            Ok(Resolved::Bool(b)) => b.to_string(),
            Ok(Resolved::Int(i)) => i.to_string(),
            Ok(Resolved::Uint(u)) => format!("{u:#x}"),
            Ok(Resolved::Float(f)) => go_float(f),
            Ok(Resolved::Str(t) | Resolved::Timestamp(t))
            | Err(super::TagMismatch { text: t, .. }) => crate::go::strconv::quote(&t),
        },
        NodeKind::Seq(items) => {
            let inner: Vec<String> = items.iter().map(|n| go_syntax(n, true)).collect();
            format!("[]interface {{}}{{{}}}", inner.join(", "))
        }
        NodeKind::Map(entries) => {
            // A Go map: a key given twice (`~` and `null` are one nil key) keeps its last
            // value; `fmt` prints the keys sorted.
            let mut pairs: Vec<(GoKey, String, String)> = Vec::with_capacity(entries.len());
            for (k, v) in entries {
                let key = GoKey::of(k);
                let pair = (key, go_syntax(k, true), go_syntax(v, true));
                match pairs.iter_mut().find(|(other, ..)| *other == pair.0) {
                    Some(existing) => *existing = pair,
                    None => pairs.push(pair),
                }
            }
            pairs.sort_by(|a, b| a.0.cmp(&b.0));
            let inner: Vec<String> = pairs
                .into_iter()
                .map(|(_, k, v)| format!("{k}:{v}"))
                .collect();
            format!("map[interface {{}}]interface {{}}{{{}}}", inner.join(", "))
        }
    }
}

/// A key of a `map[interface{}]interface{}` as go-yaml v2 decodes it, ordered as Go's
/// `fmt` (internal/fmtsort) orders the keys it prints: nil first; then by type, which Go
/// compares by the address of the type's descriptor (in helm v3.17.3's binary: string,
/// uint64, int, float64, bool); then by value.
#[derive(Debug, PartialEq)]
enum GoKey {
    Nil,
    Str(String),
    Uint(u64),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// A collection (go-yaml fails on it before anything prints it).
    Other(String),
}

impl GoKey {
    fn of(node: &Node) -> GoKey {
        match &node.kind {
            NodeKind::Scalar(s) => match resolve_scalar(s, Dialect::Yaml11) {
                Ok(Resolved::Null) => GoKey::Nil,
                Ok(Resolved::Bool(b)) => GoKey::Bool(b),
                Ok(Resolved::Int(i)) => GoKey::Int(i),
                Ok(Resolved::Uint(u)) => GoKey::Uint(u),
                Ok(Resolved::Float(f)) => GoKey::Float(f),
                Ok(Resolved::Str(t) | Resolved::Timestamp(t))
                | Err(super::TagMismatch { text: t, .. }) => GoKey::Str(t),
            },
            _ => GoKey::Other(go_syntax(node, true)),
        }
    }

    fn rank(&self) -> u8 {
        match self {
            GoKey::Nil => 0,
            GoKey::Str(_) => 1,
            GoKey::Uint(_) => 2,
            GoKey::Int(_) => 3,
            GoKey::Float(_) => 4,
            GoKey::Bool(_) => 5,
            GoKey::Other(_) => 6,
        }
    }

    fn cmp(&self, other: &GoKey) -> std::cmp::Ordering {
        use GoKey::*;
        match (self, other) {
            (Str(a), Str(b)) | (Other(a), Other(b)) => a.cmp(b),
            (Uint(a), Uint(b)) => a.cmp(b),
            (Int(a), Int(b)) => a.cmp(b),
            (Bool(a), Bool(b)) => a.cmp(b),
            // fmtsort: NaN before any number.
            (Float(a), Float(b)) => match (a.is_nan(), b.is_nan()) {
                (true, true) => std::cmp::Ordering::Equal,
                (true, false) => std::cmp::Ordering::Less,
                (false, true) => std::cmp::Ordering::Greater,
                _ => a.total_cmp(b),
            },
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

/// A float64 as `%#v` prints it: `%g` with the shortest digits, Go's names for infinities.
fn go_float(f: f64) -> String {
    if f.is_nan() {
        "NaN".into()
    } else if f.is_infinite() {
        if f > 0.0 { "+Inf" } else { "-Inf" }.into()
    } else {
        float::format_g(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::{parse_one, ParseOptions};

    fn json(s: &str) -> Result<Value, String> {
        let node = parse_one(s.as_bytes(), &ParseOptions::default()).unwrap();
        yaml_to_json(&node).map_err(|e| e.to_string())
    }

    /// Expected texts from kubectl kustomize v5.5.0 (testdata/kustomize/108 to 111).
    #[test]
    fn keys_become_strings_by_their_go_type() {
        assert_eq!(
            json(
                "{1: a, 0x10: b, 1e3: c, 1.5: d, yes: e, .inf: f, 2018-01-01: g, !!binary aGk=: h}"
            )
            .unwrap(),
            serde_json::json!({"1": "a", "16": "b", "1000": "c", "1.5": "d", "true": "e",
                ".inf": "f", "2018-01-01": "g", "hi": "h"})
        );
    }

    #[test]
    fn keys_json_cannot_hold_are_errors() {
        assert_eq!(
            json("{null: a}").unwrap_err(),
            "unsupported map key of type: %!s(<nil>), key: <nil>, value: \"a\""
        );
        assert_eq!(
            json("{~: {b: 1}}").unwrap_err(),
            "unsupported map key of type: %!s(<nil>), key: <nil>, value: map[interface {}]interface {}{\"b\":1}"
        );
        assert_eq!(
            json("{18446744073709551615: a}").unwrap_err(),
            "unsupported map key of type: uint64, key: 0xffffffffffffffff, value: \"a\""
        );
        assert_eq!(
            json("{[1]: a}").unwrap_err(),
            "yaml: invalid map key: []interface {}{1}"
        );
        assert_eq!(
            json("{{a: b}: a}").unwrap_err(),
            "yaml: invalid map key: map[interface {}]interface {}{\"a\":\"b\"}"
        );
    }
}
