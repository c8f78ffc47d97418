//! `crds:` — OpenAPI definition maps (name → `{Schema, Dependencies}`, as kube-openapi writes
//! them) whose `x-kubernetes-*` extensions add name references, label, annotation and prefix
//! fields to the transformer configuration (kustomize's LoadConfigFromCRDs).

use super::fieldspec::FieldSpec;
use super::kid::Gvk;
use super::tconfig::{ConflictingFieldSpecs, MergeError, NameBackRefs, TransformerConfig};
use serde_json::Value;

/// Why a `crds:` file's definitions give no transformer configuration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CrdError {
    /// The file is not a map of definitions.
    #[error("expected a map of OpenAPI definitions")]
    NotAMap,
    /// A definition that is not an object, as Go's `encoding/json` refuses it.
    #[error("error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {found} into Go value of type accumulator.OpenAPIDefinition")]
    NotADefinition {
        /// The definition's name.
        name: String,
        /// The JSON type found (`string`, `bool`, `number`, `array`).
        found: &'static str,
    },
    /// A property's extension adds a field spec that conflicts with another one.
    #[error("{source}")]
    Conflicting {
        /// The definition and the property path (`/`-separated).
        definition: String,
        field: String,
        source: ConflictingFieldSpecs,
    },
    /// The configs of two definitions conflict.
    #[error(transparent)]
    Merge(#[from] MergeError),
}

/// The transformer configuration a CRD definitions file contributes.
pub fn config_from_definitions(defs: &Value) -> Result<TransformerConfig, CrdError> {
    let Value::Object(map) = defs else {
        return Err(CrdError::NotAMap);
    };
    // Go decodes the file into map[string]OpenAPIDefinition: every value must be an object
    // (a CustomResourceDefinition manifest is not such a file).
    if let Some((name, bad)) = map.iter().find(|(_, v)| !v.is_object() && !v.is_null()) {
        let found = match bad {
            Value::String(_) => "string",
            Value::Bool(_) => "bool",
            Value::Number(_) => "number",
            _ => "array",
        };
        return Err(CrdError::NotADefinition {
            name: name.clone(),
            found,
        });
    }
    let mut result = TransformerConfig::default();
    let mut names: Vec<&String> = map.keys().collect();
    names.sort();
    for name in names {
        let props = properties(&map[name.as_str()]);
        let looks_like_type = ["kind", "apiVersion", "metadata"]
            .iter()
            .all(|k| props.is_some_and(|p| p.contains_key(*k)));
        if !looks_like_type {
            continue;
        }
        let kind = name.rsplit('.').next().unwrap_or(name).to_string();
        let gvk = Gvk {
            kind,
            ..Gvk::default()
        };
        let mut tc = TransformerConfig::default();
        load_type(&mut tc, &gvk, map, name, &mut Vec::new(), 0)?;
        result = result.merge(&tc)?;
    }
    Ok(result)
}

fn properties(def: &Value) -> Option<&serde_json::Map<String, Value>> {
    def.get("Schema")?.get("properties")?.as_object()
}

fn spec(gvk: &Gvk, path: &[String]) -> FieldSpec {
    FieldSpec {
        gvk: gvk.clone(),
        path: path.join("/"),
        create: false,
    }
}

fn load_type(
    tc: &mut TransformerConfig,
    gvk: &Gvk,
    defs: &serde_json::Map<String, Value>,
    type_name: &str,
    path: &mut Vec<String>,
    depth: usize,
) -> Result<(), CrdError> {
    // Definitions can refer to each other in cycles; kustomize would recurse forever.
    if depth > 32 {
        return Ok(());
    }
    let Some(props) = defs.get(type_name).and_then(properties) else {
        return Ok(());
    };
    let mut names: Vec<&String> = props.keys().collect();
    names.sort();
    for prop in names {
        let p = &props[prop.as_str()];
        let ext = |k: &str| p.get(k).and_then(Value::as_str);
        path.push(prop.clone());
        let merge = |list: &mut Vec<FieldSpec>, fs: FieldSpec| {
            let field = fs.path.clone();
            super::tconfig::merge_one(list, fs).map_err(|source| CrdError::Conflicting {
                definition: type_name.to_string(),
                field,
                source,
            })
        };
        if ext("x-kubernetes-annotation").is_some() {
            merge(&mut tc.common_annotations, spec(gvk, path))?;
        }
        if ext("x-kubernetes-label-selector").is_some() {
            merge(&mut tc.common_labels, spec(gvk, path))?;
        }
        if ext("x-kubernetes-identity").is_some() {
            merge(&mut tc.name_prefix, spec(gvk, path))?;
        }
        if let (Some(version), Some(kind)) = (
            ext("x-kubernetes-object-ref-api-version"),
            ext("x-kubernetes-object-ref-kind"),
        ) {
            let name_key = ext("x-kubernetes-object-ref-name-key").unwrap_or("name");
            let mut field = path.clone();
            field.push(name_key.to_string());
            let referral = Gvk {
                kind: kind.to_string(),
                version: version.to_string(),
                ..Gvk::default()
            };
            let more = TransformerConfig {
                name_reference: vec![NameBackRefs {
                    gvk: referral,
                    referrers: vec![spec(gvk, &field)],
                }],
                ..TransformerConfig::default()
            };
            *tc = tc.merge(&more)?;
        }
        if let Some(r) = p.get("$ref").and_then(Value::as_str) {
            load_type(tc, gvk, defs, r, path, depth + 1)?;
        }
        path.pop();
    }
    Ok(())
}
