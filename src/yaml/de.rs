//! serde deserialisation from a [`Node`], so typed models (`.kdelta.yaml`, Kustomization,
//! Chart.yaml) report errors with the line and column of the offending node.

use super::node::{Node, NodeKind, Span};
use super::resolve::{resolve_scalar, Dialect, Resolved};
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// A node that does not fit the expected type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeError {
    pub message: String,
    pub span: Span,
    /// The key, when the error is a field the type does not have (callers that word it as
    /// Go's `encoding/json` does: `json: unknown field "x"`).
    pub unknown_field: Option<String>,
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.span.is_known() {
            write!(
                f,
                "line {}, column {}: {}",
                self.span.line, self.span.column, self.message
            )
        } else {
            f.write_str(&self.message)
        }
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        // serde's own wording, with the key kept as data.
        let quoted = |n: &&str| format!("`{n}`");
        let expected = match expected {
            [] => "there are no fields".to_string(),
            [one] => format!("expected {}", quoted(one)),
            [a, b] => format!("expected {} or {}", quoted(a), quoted(b)),
            many => format!(
                "expected one of {}",
                many.iter().map(quoted).collect::<Vec<_>>().join(", ")
            ),
        };
        DeError {
            message: format!("unknown field `{field}`, {expected}"),
            span: Span::default(),
            unknown_field: Some(field.to_string()),
        }
    }

    fn custom<T: fmt::Display>(msg: T) -> Self {
        DeError {
            message: msg.to_string(),
            span: Span::default(),
            unknown_field: None,
        }
    }
}

/// Deserialises `T` from a node, typing scalars with `dialect`.
pub fn from_node<'de, T: serde::Deserialize<'de>>(
    node: &'de Node,
    dialect: Dialect,
) -> Result<T, DeError> {
    deserialize(node, dialect, Mode::Yaml)
}

/// Like [`from_node`], but struct fields match keys case-insensitively when no exact match
/// exists, as Go's `encoding/json` does (kustomize reads `nameprefix:` as `namePrefix:`).
pub fn from_node_go_json<'de, T: serde::Deserialize<'de>>(
    node: &'de Node,
    dialect: Dialect,
) -> Result<T, DeError> {
    deserialize(node, dialect, Mode::GoJson)
}

/// Like [`from_node_go_json`], but a string field takes any scalar as the JSON text of its
/// value (`1.50` is "1.5", `true` is "true"), as sigs.k8s.io/yaml's `Unmarshal` converts a
/// scalar for a string target: how kustomize reads a plugin config, which kyaml printed first.
pub fn from_node_go_yaml<'de, T: serde::Deserialize<'de>>(
    node: &'de Node,
    dialect: Dialect,
) -> Result<T, DeError> {
    deserialize(node, dialect, Mode::GoYamlTarget)
}

fn deserialize<'de, T: serde::Deserialize<'de>>(
    node: &'de Node,
    dialect: Dialect,
    mode: Mode,
) -> Result<T, DeError> {
    T::deserialize(NodeDe {
        node,
        dialect,
        mode,
    })
}

/// How keys and string fields are read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Keys exactly; a string field takes a scalar as written.
    Yaml,
    /// Go's `encoding/json`: keys case-insensitively when no exact match exists; a string
    /// field refuses a bool or a number.
    GoJson,
    /// Keys as Go's JSON; a string field takes a bool or number as its JSON text.
    GoYamlTarget,
}

#[derive(Clone, Copy)]
struct NodeDe<'a> {
    node: &'a Node,
    dialect: Dialect,
    mode: Mode,
}

impl<'a> NodeDe<'a> {
    fn at(&self, e: DeError) -> DeError {
        if e.span.is_known() {
            e
        } else {
            DeError {
                span: self.node.span,
                ..e
            }
        }
    }

    fn resolved(&self) -> Result<Resolved, DeError> {
        match &self.node.kind {
            NodeKind::Scalar(s) => resolve_scalar(s, self.dialect).map_err(|e| DeError {
                message: e.to_string(),
                span: self.node.span,
                unknown_field: None,
            }),
            _ => Err(DeError {
                message: "expected a scalar".into(),
                span: self.node.span,
                unknown_field: None,
            }),
        }
    }

    fn kind_name(&self) -> &'static str {
        match &self.node.kind {
            NodeKind::Scalar(_) if self.node.is_null() => "null",
            NodeKind::Scalar(_) => "a scalar",
            NodeKind::Seq(_) => "a sequence",
            NodeKind::Map(_) => "a mapping",
        }
    }

    fn invalid(&self, expected: &str) -> DeError {
        let found = match &self.node.kind {
            NodeKind::Scalar(s) if !self.node.is_null() => format!("{:?}", s.text),
            _ => self.kind_name().to_string(),
        };
        DeError {
            message: format!("expected {expected}, found {found}"),
            span: self.node.span,
            unknown_field: None,
        }
    }
}

macro_rules! forward_scalar {
    ($($method:ident)*) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
            self.deserialize_any(visitor)
        })*
    };
}

impl<'de> de::Deserializer<'de> for NodeDe<'de> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let r = match &self.node.kind {
            NodeKind::Seq(items) => visitor.visit_seq(Seq {
                items: items.iter(),
                dialect: self.dialect,
                mode: self.mode,
            }),
            NodeKind::Map(entries) => visitor.visit_map(Map {
                entries: entries.iter(),
                value: None,
                dialect: self.dialect,
                mode: self.mode,
                fields: None,
            }),
            NodeKind::Scalar(_) => match self.resolved()? {
                Resolved::Null => visitor.visit_unit(),
                Resolved::Bool(b) => visitor.visit_bool(b),
                Resolved::Int(i) => visitor.visit_i64(i),
                Resolved::Uint(u) => visitor.visit_u64(u),
                Resolved::Float(f) => visitor.visit_f64(f),
                Resolved::Str(s) | Resolved::Timestamp(s) => visitor.visit_string(s),
            },
        };
        r.map_err(|e| self.at(e))
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_string(visitor)
    }

    /// Strings accept any non-null scalar as written (`version: 1.10` stays "1.10"), like
    /// go-yaml decoding into a string field. Go's JSON (kustomize reads YAML through it) is
    /// strict: a scalar that reads as a bool or a number is an error there.
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match &self.node.kind {
            NodeKind::Scalar(s) if !self.node.is_null() => {
                if self.mode == Mode::GoYamlTarget {
                    let text = match self.resolved()? {
                        Resolved::Bool(b) => b.to_string(),
                        Resolved::Int(i) => i.to_string(),
                        Resolved::Uint(u) => u.to_string(),
                        Resolved::Float(f) => crate::go::float::format_json(f),
                        Resolved::Str(_) | Resolved::Timestamp(_) | Resolved::Null => {
                            s.text.clone()
                        }
                    };
                    return visitor.visit_string(text).map_err(|e| self.at(e));
                }
                if self.mode == Mode::GoJson {
                    let found = match self.resolved()? {
                        Resolved::Bool(_) => Some("bool"),
                        Resolved::Int(_) | Resolved::Uint(_) | Resolved::Float(_) => Some("number"),
                        _ => None,
                    };
                    if let Some(found) = found {
                        return Err(DeError {
                            message: format!("json: cannot unmarshal {found} into Go value of type string ({:?} reads as a {found}; quote it)", s.text),
                            span: self.node.span,
                            unknown_field: None,
                        });
                    }
                }
                visitor.visit_str(&s.text).map_err(|e| self.at(e))
            }
            NodeKind::Scalar(_) => visitor.visit_str("").map_err(|e| self.at(e)),
            _ => Err(self.invalid("a string")),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        if self.node.is_null() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match &self.node.kind {
            NodeKind::Seq(_) => self.deserialize_any(visitor),
            _ if self.node.is_null() => visitor
                .visit_seq(Seq {
                    items: [].iter(),
                    dialect: self.dialect,
                    mode: self.mode,
                })
                .map_err(|e| self.at(e)),
            _ => Err(self.invalid("a sequence")),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match &self.node.kind {
            NodeKind::Map(_) => self.deserialize_any(visitor),
            _ if self.node.is_null() => visitor
                .visit_map(Map {
                    entries: [].iter(),
                    value: None,
                    dialect: self.dialect,
                    mode: self.mode,
                    fields: None,
                })
                .map_err(|e| self.at(e)),
            _ => Err(self.invalid("a mapping")),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        match &self.node.kind {
            NodeKind::Map(entries) if self.mode != Mode::Yaml => visitor
                .visit_map(Map {
                    entries: entries.iter(),
                    value: None,
                    dialect: self.dialect,
                    mode: self.mode,
                    fields: Some(fields),
                })
                .map_err(|e| self.at(e)),
            _ => self.deserialize_map(visitor),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.resolved() {
            Ok(Resolved::Bool(b)) => visitor.visit_bool(b),
            _ => Err(self.invalid("a boolean")),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        match &self.node.kind {
            NodeKind::Scalar(s) => visitor
                .visit_enum(s.text.as_str().into_deserializer())
                .map_err(|e: DeError| self.at(e)),
            _ => Err(self.invalid("a string")),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }

    forward_scalar! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64 deserialize_char deserialize_bytes deserialize_byte_buf
        deserialize_unit deserialize_identifier
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_any(visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_seq(visitor)
    }
}

struct Seq<'a> {
    items: std::slice::Iter<'a, Node>,
    dialect: Dialect,
    mode: Mode,
}

impl<'de> SeqAccess<'de> for Seq<'de> {
    type Error = DeError;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        match self.items.next() {
            None => Ok(None),
            Some(node) => {
                let de = NodeDe {
                    node,
                    dialect: self.dialect,
                    mode: self.mode,
                };
                seed.deserialize(de).map(Some).map_err(|e| de.at(e))
            }
        }
    }
}

struct Map<'a> {
    entries: std::slice::Iter<'a, (Node, Node)>,
    value: Option<&'a Node>,
    dialect: Dialect,
    mode: Mode,
    /// A struct's field names, for case-insensitive key matching.
    fields: Option<&'static [&'static str]>,
}

impl<'de> MapAccess<'de> for Map<'de> {
    type Error = DeError;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        match self.entries.next() {
            None => Ok(None),
            Some((k, v)) => {
                self.value = Some(v);
                let de = NodeDe {
                    node: k,
                    dialect: self.dialect,
                    mode: self.mode,
                };
                // Keys are read as written: `1: x` has the key "1".
                let key = match &k.kind {
                    NodeKind::Scalar(s) => {
                        let text = match self.fields {
                            Some(fields) if !fields.contains(&s.text.as_str()) => fields
                                .iter()
                                .find(|f| f.to_lowercase() == s.text.to_lowercase())
                                .copied()
                                .unwrap_or(s.text.as_str()),
                            _ => s.text.as_str(),
                        };
                        seed.deserialize(text.into_deserializer())
                    }
                    _ => seed.deserialize(de),
                };
                key.map(Some).map_err(|e| de.at(e))
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        let node = self
            .value
            .take()
            .ok_or_else(|| <DeError as de::Error>::custom("value requested before key"))?;
        let de = NodeDe {
            node,
            dialect: self.dialect,
            mode: self.mode,
        };
        seed.deserialize(de).map_err(|e| de.at(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{parse_one, ParseOptions};
    use serde::Deserialize;

    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    struct Conf {
        name: String,
        #[serde(default)]
        replicas: Option<i64>,
        #[serde(default)]
        tags: Vec<String>,
        #[serde(default)]
        enabled: bool,
    }

    fn conf(s: &str) -> Result<Conf, DeError> {
        let node = parse_one(s.as_bytes(), &ParseOptions::default()).unwrap();
        from_node(&node, Dialect::Yaml12)
    }

    #[test]
    fn reads_typed_structs() {
        let c = conf("name: 1.10\nreplicas: 3\ntags: [a, 2]\nenabled: true\n").unwrap();
        assert_eq!(c.name, "1.10");
        assert_eq!(c.replicas, Some(3));
        assert_eq!(c.tags, vec!["a", "2"]);
        assert!(c.enabled);
        let c = conf("name: x\ntags:\n").unwrap();
        assert!(c.tags.is_empty());
    }

    #[test]
    fn go_json_folds_case() {
        let node = parse_one(b"NAME: x\nReplicas: 2\n", &ParseOptions::default()).unwrap();
        let c: Conf = from_node_go_json(&node, Dialect::Yaml12).unwrap();
        assert_eq!(c.name, "x");
        assert_eq!(c.replicas, Some(2));
        assert!(from_node::<Conf>(&node, Dialect::Yaml12).is_err());
    }

    #[test]
    fn errors_point_at_the_node() {
        let e = conf("name: x\nreplicas: many\n").unwrap_err();
        assert_eq!(e.span.line, 2, "{e}");
        let e = conf("name: x\nbogus: 1\n").unwrap_err();
        assert!(e.message.contains("unknown field `bogus`"), "{e}");
        assert_eq!(e.span.line, 2);
        let e = conf("name: [x]\n").unwrap_err();
        assert_eq!(e.span.line, 1);
        assert!(e.message.contains("expected a string"), "{e}");
        let e = conf("tags: []\n").unwrap_err();
        assert!(e.message.contains("missing field `name`"), "{e}");
    }
}
