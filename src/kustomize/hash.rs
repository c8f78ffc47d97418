//! The content hash kustomize appends to generated names (api/hasher), and Go's
//! `encoding/json` output it hashes. Note the upstream quirk: the name is looked up with a
//! literal `metadata/name` key and is therefore always "".

use super::res::Res;
use crate::yaml::{to_value, Dialect, Node, NodeKind};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Go `json.Marshal`: keys sorted bytewise, no spaces, `<`, `>`, `&`, U+2028 and U+2029
/// escaped.
pub fn go_json(v: &Value) -> String {
    let mut out = String::new();
    write_json(v, &mut out);
    out
}

fn write_json(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&crate::yaml::number_text(n)),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(x, out);
            }
            out.push(']');
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(k, out);
                out.push(':');
                write_json(&m[k.as_str()], out);
            }
            out.push('}');
        }
    }
}

fn write_string(s: &str, out: &mut String) {
    crate::go::json::quote_into(out, s, true);
}

/// kustomize's `encode`: the first 10 hex digits of the sha256, with 0,1,3,a,e replaced so the
/// suffix cannot look like a number or a bad word.
pub fn encode(data: &str) -> String {
    let digest = Sha256::digest(data.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    hex[..10]
        .chars()
        .map(|c| match c {
            '0' => 'g',
            '1' => 'h',
            '3' => 'k',
            'a' => 'm',
            'e' => 't',
            c => c,
        })
        .collect()
}

/// The value kustomize's hasher sees at a top-level field: "" when missing, the mapping as
/// typed JSON, or a scalar's raw text.
fn field_value(node: &Node, field: &str) -> Value {
    match node.get(field) {
        None => Value::String(String::new()),
        Some(v) => match &v.kind {
            NodeKind::Scalar(s) => Value::String(s.text.clone()),
            _ => to_value(v, Dialect::Yaml12).unwrap_or(Value::Null),
        },
    }
}

/// The hash suffix of a resource.
pub fn hash_of(r: &Res) -> String {
    let node = &r.node;
    let encoded = match r.kind() {
        "ConfigMap" => {
            let mut m = serde_json::Map::new();
            m.insert("kind".into(), "ConfigMap".into());
            m.insert("name".into(), "".into());
            m.insert("data".into(), field_value(node, "data"));
            let bin = field_value(node, "binaryData");
            if bin.is_object() {
                m.insert("binaryData".into(), bin);
            }
            go_json(&Value::Object(m))
        }
        "Secret" => {
            let mut m = serde_json::Map::new();
            m.insert("kind".into(), "Secret".into());
            m.insert("type".into(), field_value(node, "type"));
            m.insert("name".into(), "".into());
            m.insert("data".into(), field_value(node, "data"));
            let sd = field_value(node, "stringData");
            if sd.is_object() {
                m.insert("stringData".into(), sd);
            }
            go_json(&Value::Object(m))
        }
        // Upstream marshals the yaml.Node struct itself for other kinds; the exact bytes are an
        // implementation detail of go-yaml, so kdelta hashes the object's JSON instead.
        _ => go_json(&to_value(node, Dialect::Yaml12).unwrap_or(Value::Null)),
    };
    encode(&encoded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_kustomize_reference_hash() {
        // kustomize.md section 7: {"data":{"a":"b"},"kind":"ConfigMap","name":""} → 4h2mbtbbt6
        let v: Value = serde_json::json!({"kind": "ConfigMap", "name": "", "data": {"a": "b"}});
        assert_eq!(
            go_json(&v),
            r#"{"data":{"a":"b"},"kind":"ConfigMap","name":""}"#
        );
        assert_eq!(encode(&go_json(&v)), "4h2mbtbbt6");
    }

    #[test]
    fn go_escapes() {
        assert_eq!(
            go_json(&Value::String("<a&b>\u{1}".into())),
            r#""\u003ca\u0026b\u003e\u0001""#
        );
    }
}
