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
    /// The kind matches in any case: a schema of a catalog in the CRDs-catalog layout, whose
    /// file name holds the kind in lower case ([`catalog_crd`]).
    pub any_case: bool,
}

/// The annotation kdelta sets on the CRD it makes of a catalog schema ([`catalog_crd`]).
pub const CATALOG_ANNOTATION: &str = "kdelta.dev/crds-catalog";

/// The CRD a schema of a catalog in the CRDs-catalog layout (datreeio/CRDs-catalog,
/// kubeconform's `{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json`) stands for:
/// `GROUP/KIND_VERSION.json` holding the version's openAPIV3Schema as JSON Schema, with the
/// kind in lower case (so objects match it in any case). None for a file of another name.
pub fn catalog_crd(group: &str, file_name: &str, schema: Value) -> Option<Node> {
    let stem = file_name.strip_suffix(".json")?;
    let (kind, version) = stem.rsplit_once('_')?;
    schema_crd(group, kind, version, schema)
}

/// The CRD that stands for a JSON Schema of `kind` (matched in any case) at `group`'s
/// `version`, as a catalog's or a schema location's ([`catalog_crd`]). None without a group
/// of its own (a Kubernetes API group has no dot).
pub fn schema_crd(group: &str, kind: &str, version: &str, schema: Value) -> Option<Node> {
    if kind.is_empty() || version.is_empty() || !group.contains('.') {
        return None;
    }
    let crd = serde_json::json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": format!("{kind}s.{group}"),
            "annotations": {CATALOG_ANNOTATION: "true"},
        },
        "spec": {
            "group": group,
            "names": {"kind": kind, "plural": format!("{kind}s")},
            "scope": "Namespaced",
            "versions": [{
                "name": version,
                "served": true,
                "storage": true,
                "schema": {"openAPIV3Schema": schema},
            }],
        },
    });
    Some(crate::yaml::from_go_json(&crd))
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
        let any_case = value["metadata"]["annotations"][CATALOG_ANNOTATION] == "true";
        Ok(Crd {
            name,
            group,
            kind,
            plural,
            scope,
            versions,
            any_case,
        })
    }

    /// The problems of its versions' CEL rules: those that do not compile, and those kdelta
    /// cannot evaluate (each rule once).
    pub fn rule_problems(&self) -> Vec<super::RuleProblem> {
        let mut out: Vec<super::RuleProblem> = Vec::new();
        for v in &self.versions {
            for p in super::cel::rule_problems(&v.model) {
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
        out
    }

    /// True when objects of `kind` are this CRD's.
    pub fn is_kind(&self, kind: &str) -> bool {
        kind == self.kind || (self.any_case && kind.eq_ignore_ascii_case(&self.kind))
    }

    /// The version that defines objects of `apiVersion` and `kind`.
    pub fn lookup(&self, api_version: &str, kind: &str) -> CrdMatch<'_> {
        let (group, version) = split_api_version(api_version);
        if group != self.group || !self.is_kind(kind) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::schema::{validate, ViolationKind};
    use crate::yaml::{parse_one, ParseOptions};

    const CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Cluster
  names: {kind: Widget, plural: widgets}
  versions:
  - name: v1beta1
    served: false
    storage: false
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: self.min <= self.max
              message: min must not exceed max
            required: [owner, size]
            properties:
              min: {type: integer, minimum: 0, default: 1}
              max: {type: integer, maximum: 10}
              note: {type: string, nullable: true, maxLength: 5}
              owner: {type: string, nullable: true}
              size: {type: integer}
              tags:
                type: array
                x-kubernetes-list-type: set
                items: {type: string}
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [port, protocol]
                items:
                  type: object
                  required: [port]
                  properties:
                    port: {type: integer}
                    protocol: {type: string}
              template:
                type: object
                x-kubernetes-embedded-resource: true
                x-kubernetes-preserve-unknown-fields: true
              free:
                type: object
                x-kubernetes-preserve-unknown-fields: true
              closed:
                type: object
"#;

    fn kinds_and_paths(instance: &str) -> Vec<(ViolationKind, String)> {
        let crd =
            Crd::from_node(&parse_one(CRD.as_bytes(), &ParseOptions::default()).unwrap()).unwrap();
        let node = parse_one(instance.as_bytes(), &ParseOptions::default()).unwrap();
        let CrdMatch::Found(version) = crd.lookup("example.com/v1", "Widget") else {
            panic!("v1 is served");
        };
        validate(version.root(), &node)
            .into_iter()
            .map(|v| (v.kind, v.path))
            .collect()
    }

    fn widget(spec: &str) -> String {
        format!("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n{spec}")
    }

    #[test]
    fn reads_versions_scope_and_rules() {
        let crd =
            Crd::from_node(&parse_one(CRD.as_bytes(), &ParseOptions::default()).unwrap()).unwrap();
        assert_eq!(
            (crd.group.as_str(), crd.kind.as_str()),
            ("example.com", "Widget")
        );
        assert_eq!(crd.scope, Scope::Cluster);
        assert!(matches!(
            crd.lookup("example.com/v1beta1", "Widget"),
            CrdMatch::VersionNotServed
        ));
        assert!(matches!(
            crd.lookup("example.com/v1", "Gadget"),
            CrdMatch::Other
        ));
        let CrdMatch::Found(v) = crd.lookup("example.com/v1", "Widget") else {
            panic!("served");
        };
        let spec = v.root().property("spec").unwrap();
        assert_eq!(spec.rules()[0].rule, "self.min <= self.max");
        assert_eq!(
            spec.property("min").unwrap().default_value(),
            Some(&serde_json::json!(1))
        );
    }

    #[test]
    fn a_valid_widget_and_nulls() {
        let ok = widget(
            "  owner: null\n  size: 1\n  min: 0\n  max: 10\n  note: null\n  tags: [a, b]\n  ports:\n  - {port: 80, protocol: TCP}\n  - {port: 80, protocol: UDP}\n  template:\n    apiVersion: v1\n    kind: Pod\n    metadata: {name: p, labels: {a: b}}\n    spec: {anything: 1}\n  free: {x: {y: z}}\n  closed: null\n",
        );
        assert_eq!(kinds_and_paths(&ok), vec![]);
    }

    #[test]
    fn structural_rules() {
        let bad = widget(
            "  owner: x\n  size: null\n  min: -1\n  max: 11\n  note: toolong\n  tags: [a, a]\n  ports:\n  - {port: 80, protocol: TCP}\n  - {port: 80, protocol: TCP}\n  - null\n  template:\n    kind: Pod\n    metadata: {labelz: {}}\n  closed: {x: 1}\n  extra: 1\n",
        );
        let got = kinds_and_paths(&bad);
        let want = [
            (ViolationKind::Required, "spec.size"),
            (ViolationKind::Range, "spec.min"),
            (ViolationKind::Range, "spec.max"),
            (ViolationKind::Range, "spec.note"),
            (ViolationKind::Duplicate, "spec.tags[1]"),
            (ViolationKind::WrongType, "spec.ports[2]"),
            (ViolationKind::Duplicate, "spec.ports[1]"),
            (ViolationKind::UnknownField, "spec.template.metadata.labelz"),
            (ViolationKind::Required, "spec.template.apiVersion"),
            (ViolationKind::UnknownField, "spec.closed.x"),
            (ViolationKind::UnknownField, "spec.extra"),
        ];
        for (kind, path) in want {
            assert!(
                got.iter().any(|(k, p)| *k == kind && p == path),
                "missing {kind:?} {path} in {got:?}"
            );
        }
        assert_eq!(got.len(), want.len(), "{got:?}");
    }

    #[test]
    fn not_crds() {
        let node = parse_one(
            b"apiVersion: v1\nkind: ConfigMap\n",
            &ParseOptions::default(),
        )
        .unwrap();
        assert!(matches!(
            Crd::from_node(&node),
            Err(CrdError::NotACrd { .. })
        ));
        let old = CRD.replace("apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1");
        let node = parse_one(old.as_bytes(), &ParseOptions::default()).unwrap();
        assert!(matches!(
            Crd::from_node(&node),
            Err(CrdError::UnsupportedApiVersion { .. })
        ));
    }
}
