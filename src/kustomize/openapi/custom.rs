//! A schema document given with `openapi: {path: FILE}`: OpenAPI v2 JSON or YAML whose
//! `definitions` carry `x-kubernetes-group-version-kind` and the `x-kubernetes-patch-*`
//! extensions, read the way kyaml's `openapi.parse` reads it.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use crate::yaml::{parse_one, to_value, Dialect, ParseOptions};

/// Why a custom schema could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CustomSchemaError {
    #[error("invalid schema file {file}: {message}")]
    Parse { file: String, message: String },
}

/// One schema of a custom document, kept whole (custom documents are small).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct CustomNode {
    /// The `$ref` target name (`#/definitions/NAME`), or the whole reference when it has
    /// another form (it then resolves to nothing, as kyaml fails to resolve it).
    pub reference: Option<String>,
    /// `type` is exactly `[array]`.
    pub array: bool,
    /// `items`, when it is a single schema.
    pub items: Option<Box<CustomNode>>,
    /// `properties`.
    pub props: BTreeMap<String, CustomNode>,
    /// `additionalProperties`, when it is a schema.
    pub additional: Option<Box<CustomNode>>,
    /// `x-kubernetes-patch-strategy`, when it is a string.
    pub strategy: Option<String>,
    /// `x-kubernetes-list-map-keys`, else `[x-kubernetes-patch-merge-key]`, else empty.
    pub keys: Vec<String>,
}

/// A parsed custom schema document.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct CustomSchema {
    /// Definitions by name.
    pub(super) defs: HashMap<String, CustomNode>,
    /// (apiVersion, kind) to definition name.
    pub(super) gvks: HashMap<(String, String), String>,
    /// (apiVersion, kind) to namespaced or not, from the document's `paths`.
    pub(super) namespaced: BTreeMap<(String, String), bool>,
}

impl CustomSchema {
    /// Parses `bytes` (JSON when it starts with `{`, YAML otherwise, as kyaml decides).
    /// `file` names the document in errors.
    pub fn parse(file: &str, bytes: &[u8]) -> Result<CustomSchema, CustomSchemaError> {
        let err = |message: String| CustomSchemaError::Parse {
            file: file.to_string(),
            message,
        };
        let doc: Value = if bytes.first() == Some(&b'{') {
            serde_json::from_slice(bytes).map_err(|e| err(e.to_string()))?
        } else {
            // sigs.k8s.io/yaml's YAMLToJSON decodes with go-yaml v2 (YAML 1.1).
            let node = parse_one(bytes, &ParseOptions::default()).map_err(|e| err(e.message))?;
            to_value(&node, Dialect::Yaml11).map_err(|e| err(e.to_string()))?
        };
        let Value::Object(doc) = doc else {
            return Err(err(
                "not an OpenAPI document (expected a mapping)".to_string()
            ));
        };
        let mut schema = CustomSchema::default();
        if let Some(Value::Object(defs)) = doc.get("definitions") {
            for (name, def) in defs {
                for tm in gvk_list(def.get("x-kubernetes-group-version-kind")) {
                    schema.gvks.insert(tm, name.clone());
                }
                schema.defs.insert(name.clone(), node(def));
            }
        }
        if let Some(Value::Object(paths)) = doc.get("paths") {
            for (path, item) in paths {
                let gvk = item
                    .get("get")
                    .and_then(|op| op.get("x-kubernetes-group-version-kind"));
                let Some(tm) = gvk.and_then(type_meta) else {
                    continue;
                };
                if path.contains("namespaces/{namespace}") {
                    schema.namespaced.insert(tm, true);
                } else {
                    schema.namespaced.entry(tm).or_insert(false);
                }
            }
        }
        Ok(schema)
    }

    /// True when the document defines no types at all.
    pub fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }
}

/// The schema `v` as the walker sees it. Malformed parts (a string where a schema belongs, an
/// extension of the wrong type) are left out: kyaml would ignore them or panic.
fn node(v: &Value) -> CustomNode {
    let Value::Object(m) = v else {
        return CustomNode::default();
    };
    let reference = m.get("$ref").and_then(Value::as_str).map(|r| {
        r.strip_prefix("#/definitions/")
            .map(unescape_pointer)
            .unwrap_or_else(|| r.to_string())
    });
    let array = match m.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(ts)) => ts.len() == 1 && ts[0].as_str() == Some("array"),
        _ => false,
    };
    let items = match m.get("items") {
        Some(item @ Value::Object(_)) => Some(Box::new(node(item))),
        _ => None,
    };
    let props = match m.get("properties") {
        Some(Value::Object(ps)) => ps.iter().map(|(k, p)| (k.clone(), node(p))).collect(),
        _ => BTreeMap::new(),
    };
    let additional = match m.get("additionalProperties") {
        Some(a @ Value::Object(_)) => Some(Box::new(node(a))),
        _ => None,
    };
    let strategy = m
        .get("x-kubernetes-patch-strategy")
        .and_then(Value::as_str)
        .map(str::to_string);
    let keys = match (
        m.get("x-kubernetes-list-map-keys"),
        m.get("x-kubernetes-patch-merge-key"),
    ) {
        (Some(Value::Array(ks)), _) => ks
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        (_, Some(Value::String(k))) => vec![k.clone()],
        _ => Vec::new(),
    };
    CustomNode {
        reference,
        array,
        items,
        props,
        additional,
        strategy,
        keys,
    }
}

/// A JSON pointer token: `~1` is `/`, `~0` is `~`.
fn unescape_pointer(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// The types named by an `x-kubernetes-group-version-kind` value (a list, or one object).
fn gvk_list(v: Option<&Value>) -> Vec<(String, String)> {
    match v {
        Some(Value::Array(items)) => items.iter().filter_map(type_meta).collect(),
        Some(one @ Value::Object(_)) => type_meta(one).into_iter().collect(),
        _ => Vec::new(),
    }
}

/// (apiVersion, kind) of one `{group, version, kind}` object.
fn type_meta(v: &Value) -> Option<(String, String)> {
    let version = v.get("version")?.as_str()?;
    let kind = v.get("kind")?.as_str()?;
    let api_version = match v.get("group").and_then(Value::as_str) {
        Some(g) if !g.is_empty() => format!("{g}/{version}"),
        _ => version.to_string(),
    };
    Some((api_version, kind.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_definitions_gvks_and_paths() {
        let doc = br##"{
          "definitions": {
            "v1.Foo": {
              "properties": {
                "items": {"type": "array", "items": {"$ref": "#/definitions/v1.Item"},
                          "x-kubernetes-patch-strategy": "merge",
                          "x-kubernetes-patch-merge-key": "id"}
              },
              "x-kubernetes-group-version-kind": [{"group": "ex.com", "version": "v1", "kind": "Foo"}]
            },
            "v1.Item": {"properties": {"id": {"type": "string"}}}
          },
          "paths": {
            "/apis/ex.com/v1/foos": {"get": {"x-kubernetes-group-version-kind":
                {"group": "ex.com", "version": "v1", "kind": "Foo"}}}
          }
        }"##;
        let s = CustomSchema::parse("s.json", doc).unwrap();
        assert_eq!(
            s.gvks
                .get(&("ex.com/v1".into(), "Foo".into()))
                .map(String::as_str),
            Some("v1.Foo")
        );
        let items = &s.defs["v1.Foo"].props["items"];
        assert!(items.array);
        assert_eq!(items.strategy.as_deref(), Some("merge"));
        assert_eq!(items.keys, vec!["id".to_string()]);
        assert_eq!(
            items.items.as_ref().unwrap().reference.as_deref(),
            Some("v1.Item")
        );
        assert_eq!(
            s.namespaced.get(&("ex.com/v1".into(), "Foo".into())),
            Some(&false)
        );
    }

    #[test]
    fn yaml_documents_and_errors() {
        let doc = b"definitions:\n  a:\n    type: array\n    x-kubernetes-list-map-keys: [a, b]\n    x-kubernetes-patch-merge-key: a\n";
        let s = CustomSchema::parse("s.yaml", doc).unwrap();
        assert_eq!(s.defs["a"].keys, vec!["a".to_string(), "b".to_string()]);
        assert!(CustomSchema::parse("bad.json", b"{nope").is_err());
        assert!(CustomSchema::parse("list.yaml", b"- 1\n").is_err());
    }
}
