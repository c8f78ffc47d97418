//! The list generator (`generators/list.go`): its elements as parameter sets.

use super::*;

/// The list generator (`generators/list.go`).
pub(super) fn list(body: &Json, mode: &Mode) -> Result<Vec<Params>, GenerateError> {
    let mut out = Vec::new();
    for e in body["elements"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let Json::Object(m) = e else {
            return Err(GenerateError::ListElement);
        };
        if mode.go_template {
            out.push(m.clone());
            continue;
        }
        let mut p = Params::new();
        for (k, v) in m {
            match (k.as_str(), v) {
                (_, Json::String(s)) => {
                    p.insert(k.clone(), Json::String(s.clone()));
                }
                ("values", Json::Object(values)) => {
                    for (vk, vv) in values {
                        let Json::String(s) = vv else {
                            return Err(GenerateError::NotAString {
                                key: format!("values.{vk}"),
                            });
                        };
                        p.insert(format!("values.{vk}"), Json::String(s.clone()));
                    }
                }
                _ => return Err(GenerateError::NotAString { key: k.clone() }),
            }
        }
        out.push(p);
    }
    if let Some(text) = body["elementsYaml"]
        .as_str()
        .filter(|t| !t.trim().is_empty())
    {
        // sigs.k8s.io/yaml into `[]map[string]interface{}`: null is no elements, anything
        // but a list of mappings is an error.
        let value =
            crate::template::sigs_yaml_to_json(text).map_err(GenerateError::ElementsYamlSyntax)?;
        let refused = |v: &Json, want| GenerateError::ElementsYamlType {
            got: super::json_type(v),
            want,
        };
        match &value {
            Json::Null => {}
            Json::Array(items) => {
                for e in items {
                    match e {
                        Json::Object(m) => out.push(m.clone()),
                        Json::Null => out.push(Params::new()),
                        other => return Err(refused(other, "map[string]interface {}")),
                    }
                }
            }
            other => return Err(refused(other, "[]map[string]interface {}")),
        }
    }
    Ok(out)
}
