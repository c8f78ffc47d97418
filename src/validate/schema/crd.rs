//! A CustomResourceDefinition (`apiextensions.k8s.io/v1`) compiled into the same model as the
//! bundled schemas: one type per version that has an `openAPIV3Schema`, with the structural
//! schema rules (closed objects, `nullable`, `x-kubernetes-*`), `metadata` as ObjectMeta.

use super::catalog::split_api_version;
use super::model::{Compiler, Flavor, JsonTypes, Model, Type, TypeDef, TypeId};
use crate::yaml::{Dialect, Node};
use serde_json::Value;

/// Why a document is not a CRD kdelta can use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CrdError {
    #[error("not a CustomResourceDefinition (kind {kind:?})")]
    NotACrd { kind: String },
    #[error("CustomResourceDefinition {api_version} is not supported (apiextensions.k8s.io/v1beta1 was removed in Kubernetes 1.22): convert it to apiextensions.k8s.io/v1")]
    UnsupportedApiVersion { api_version: String },
    #[error("CustomResourceDefinition {name:?} has no {field}")]
    Missing { name: String, field: &'static str },
    #[error("line {line}: CustomResourceDefinition is not plain data: {message}")]
    Value { line: u32, message: String },
}

/// Whether the custom resources live in a namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Namespaced,
    Cluster,
}

/// A compiled CRD.
#[derive(Debug)]
pub struct Crd {
    /// `metadata.name` (`certificates.cert-manager.io`).
    pub name: String,
    pub group: String,
    pub kind: String,
    pub plural: String,
    pub scope: Scope,
    pub versions: Vec<CrdVersion>,
}

/// One version of a CRD.
#[derive(Debug)]
pub struct CrdVersion {
    pub name: String,
    pub served: bool,
    pub storage: bool,
    pub deprecated: bool,
    pub deprecation_warning: Option<String>,
    model: Model,
    root: TypeId,
}

impl CrdVersion {
    /// The type of this version's objects.
    pub fn root(&self) -> Type<'_> {
        Type {
            model: &self.model,
            id: self.root,
        }
    }
}

/// What a CRD says of an object's apiVersion and kind.
#[derive(Clone, Copy, Debug)]
pub enum CrdMatch<'a> {
    /// This CRD defines the object, at a served version.
    Found(&'a CrdVersion),
    /// This CRD's group and kind, but a version it does not serve (the API server answers
    /// "no matches for kind").
    VersionNotServed,
    /// Another group or kind.
    Other,
}

impl Crd {
    /// Reads a CRD document.
    pub fn from_node(node: &Node) -> Result<Crd, CrdError> {
        let kind = node.str_at(&["kind"]).unwrap_or_default();
        if kind != "CustomResourceDefinition" {
            return Err(CrdError::NotACrd {
                kind: kind.to_string(),
            });
        }
        let api_version = node.str_at(&["apiVersion"]).unwrap_or_default();
        if api_version != "apiextensions.k8s.io/v1" {
            return Err(CrdError::UnsupportedApiVersion {
                api_version: api_version.to_string(),
            });
        }
        let value = crate::yaml::to_value(node, Dialect::Yaml12).map_err(|e| CrdError::Value {
            line: node.span.line,
            message: e.to_string(),
        })?;
        let name = value["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let text = |v: &Value, field: &'static str| -> Result<String, CrdError> {
            v.as_str().map(str::to_string).ok_or(CrdError::Missing {
                name: name.clone(),
                field,
            })
        };
        let spec = &value["spec"];
        let group = text(&spec["group"], "spec.group")?;
        let kind = text(&spec["names"]["kind"], "spec.names.kind")?;
        let plural = text(&spec["names"]["plural"], "spec.names.plural")?;
        let scope = match spec["scope"].as_str() {
            Some("Cluster") => Scope::Cluster,
            _ => Scope::Namespaced,
        };
        let mut versions = Vec::new();
        for v in spec["versions"].as_array().into_iter().flatten() {
            let vname = text(&v["name"], "spec.versions[].name")?;
            let (model, root) = compile_version(v["schema"].get("openAPIV3Schema"));
            versions.push(CrdVersion {
                name: vname,
                served: v["served"].as_bool().unwrap_or(false),
                storage: v["storage"].as_bool().unwrap_or(false),
                deprecated: v["deprecated"].as_bool().unwrap_or(false),
                deprecation_warning: v["deprecationWarning"].as_str().map(str::to_string),
                model,
                root,
            });
        }
        if versions.is_empty() {
            return Err(CrdError::Missing {
                name,
                field: "spec.versions",
            });
        }
        Ok(Crd {
            name,
            group,
            kind,
            plural,
            scope,
            versions,
        })
    }

    /// The version that defines objects of `apiVersion` and `kind`.
    pub fn lookup(&self, api_version: &str, kind: &str) -> CrdMatch<'_> {
        let (group, version) = split_api_version(api_version);
        if group != self.group || kind != self.kind {
            return CrdMatch::Other;
        }
        match self.versions.iter().find(|v| v.name == version && v.served) {
            Some(v) => CrdMatch::Found(v),
            None => CrdMatch::VersionNotServed,
        }
    }
}

/// Compiles one version's schema; a version without one takes any object.
fn compile_version(schema: Option<&Value>) -> (Model, TypeId) {
    let none = |_: &str| None;
    let mut c = Compiler::new(Flavor::Structural, &none);
    let root = match schema {
        Some(s) => c.compile(s),
        None => c.add(TypeDef {
            types: JsonTypes::OBJECT,
            preserve_unknown: true,
            ..TypeDef::default()
        }),
    };
    let mut model = c.finish();
    // apiVersion, kind and metadata are implicit at the root and in embedded resources;
    // metadata is ObjectMeta there whatever the schema says.
    resource_fields(&mut model, root);
    let embedded: Vec<TypeId> = (0..model.defs.len())
        .map(|i| TypeId(i as u32))
        .filter(|id| model.defs[id.0 as usize].embedded_resource)
        .collect();
    for id in embedded {
        resource_fields(&mut model, id);
    }
    (model, root)
}

fn resource_fields(model: &mut Model, id: TypeId) {
    let mut props: Vec<(Box<str>, TypeId)> = model.defs[id.0 as usize].properties.to_vec();
    for (name, types, meta) in [
        ("apiVersion", JsonTypes::STRING, false),
        ("kind", JsonTypes::STRING, false),
        ("metadata", JsonTypes::OBJECT, true),
    ] {
        match props.iter().find(|(n, _)| &**n == name) {
            Some((_, pid)) if meta => {
                let def = &mut model.defs[pid.0 as usize];
                def.object_meta = true;
            }
            Some(_) => {}
            None => {
                model.defs.push(TypeDef {
                    types,
                    object_meta: meta,
                    ..TypeDef::default()
                });
                props.push((name.into(), TypeId(model.defs.len() as u32 - 1)));
            }
        }
    }
    props.sort_by(|a, b| a.0.cmp(&b.0));
    model.defs[id.0 as usize].properties = props.into();
}
