//! The transformer config of one kustomization: the defaults, `configurations:` files and the
//! field specs `crds:` definitions add.

use super::{Builder, Kt};
use crate::finding::rules;
use crate::kustomize::error::KError;
use crate::kustomize::gotype::{self, GoType};
use crate::kustomize::tconfig::TransformerConfig;
use crate::yaml::{self, Dialect};
use std::sync::Arc;

impl Builder {
    pub(super) fn transformer_config(&mut self, kt: &Kt) -> Result<Arc<TransformerConfig>, KError> {
        if kt.k.configurations.is_empty() {
            return Ok(Arc::clone(TransformerConfig::defaults()));
        }
        let mut tc = TransformerConfig::clone(TransformerConfig::defaults());
        let mut extra = TransformerConfig::default();
        for (i, path) in kt.k.configurations.iter().enumerate() {
            let at = |e: KError| kt.err_at(e, "configurations", Some(i));
            let file = kt.ldr.load(path).map_err(at)?;
            let node = file.yaml(at)?;
            // kustomize's makeTransformerConfigFromBytes: sigs.k8s.io/yaml's strict Unmarshal.
            let decoder = gotype::Decoder::SigsYaml { strict: true };
            if let Some(m) = gotype::check(&node, &TRANSFORMER_CONFIG, decoder) {
                let e = KError::new(
                    rules::KUSTOMIZE_CONFIGURATIONS,
                    format!(
                        "error unmarshaling JSON: while decoding JSON: {}",
                        m.message
                    ),
                )
                .with_cause(m.message, &[]);
                return Err(file.locate(e, m.span, at));
            }
            let t = TransformerConfig::from_yaml(&node).map_err(|e| {
                file.locate(
                    KError::new(rules::KUSTOMIZE_CONFIGURATIONS, e.message.clone()),
                    e.span,
                    at,
                )
            })?;
            extra = extra
                .merge(&t)
                .map_err(|e| at(KError::new(rules::KUSTOMIZE_CONFIGURATIONS, e.to_string())))?;
        }
        if !kt.k.configurations.is_empty() {
            tc = tc.merge(&extra).map_err(|e| {
                kt.err_at(
                    KError::new(rules::KUSTOMIZE_CONFIGURATIONS, e.to_string()),
                    "configurations",
                    None,
                )
            })?;
        }
        Ok(TransformerConfig::shared(tc))
    }

    /// `crds:` files: transformer config from their OpenAPI definitions.
    pub(super) fn crd_config(&mut self, kt: &Kt) -> Result<Arc<TransformerConfig>, KError> {
        if kt.k.crds.is_empty() {
            return Ok(Arc::clone(TransformerConfig::empty()));
        }
        let mut tc = TransformerConfig::default();
        // kustomize's Build wraps every error of LoadConfigFromCRDs.
        let loading = format!("loading CRDs [{}]", kt.k.crds.join(" "));
        for (i, path) in kt.k.crds.iter().enumerate() {
            let at = |e: KError| kt.err_at(e.context(&loading), "crds", Some(i));
            let file = kt.ldr.load(path).map_err(at)?;
            let bytes = &file.bytes;
            let node = file
                .yaml(|e| kt.err_at(e, "crds", Some(i)))
                .map_err(|e| e.context(&loading))?;
            // makeNameToApiMap: json.Unmarshal for a file starting with `{`, else
            // sigs.k8s.io/yaml's Unmarshal, which wraps the JSON error.
            let (decoder, wrap) = if bytes.first() == Some(&b'{') {
                (gotype::Decoder::Json, "")
            } else {
                (
                    gotype::Decoder::SigsYaml { strict: false },
                    "error unmarshaling JSON: while decoding JSON: ",
                )
            };
            if let Some(m) = gotype::check(&node, &NAME_TO_API_MAP, decoder) {
                let e = KError::new(
                    rules::KUSTOMIZE_CRDS,
                    format!(
                        "unable to parse open API definition from '{path}': {wrap}{}",
                        m.message
                    ),
                )
                .with_cause(m.message, &[]);
                return Err(at(file.locate(e, m.span, |e| e)));
            }
            let value = yaml::to_value_lossy(&node, Dialect::Yaml12);
            let more = crate::kustomize::crds::config_from_definitions(&value).map_err(|e| {
                at(KError::new(
                    rules::KUSTOMIZE_CRDS,
                    format!("unable to parse open API definition from '{path}': {e}"),
                ))
            })?;
            tc = tc
                .merge(&more)
                .map_err(|e| at(KError::new(rules::KUSTOMIZE_CRDS, e.to_string())))?;
        }
        Ok(TransformerConfig::shared(tc))
    }
}

/// kustomize's `types.FieldSpec` (the `resid.Gvk` fields promoted).
static FIELD_SPEC: GoType = GoType::Struct(
    "types.FieldSpec",
    &[
        ("group", &GoType::String),
        ("version", &GoType::String),
        ("kind", &GoType::String),
        ("path", &GoType::String),
        ("create", &GoType::Bool),
    ],
);

static FS_SLICE: GoType = GoType::Slice("types.FsSlice", &FIELD_SPEC);

/// `builtinconfig.NameBackReferences` (the `resid.Gvk` fields promoted).
static NAME_BACK_REFS: GoType = GoType::Struct(
    "builtinconfig.NameBackReferences",
    &[
        ("group", &GoType::String),
        ("version", &GoType::String),
        ("kind", &GoType::String),
        ("fieldSpecs", &FS_SLICE),
    ],
);

/// `builtinconfig.TransformerConfig`, what a `configurations:` file decodes into.
static TRANSFORMER_CONFIG: GoType = GoType::Struct(
    "builtinconfig.TransformerConfig",
    &[
        ("namePrefix", &FS_SLICE),
        ("nameSuffix", &FS_SLICE),
        ("namespace", &FS_SLICE),
        ("commonLabels", &FS_SLICE),
        ("templateLabels", &FS_SLICE),
        ("commonAnnotations", &FS_SLICE),
        (
            "nameReference",
            &GoType::Slice("builtinconfig.nbrSlice", &NAME_BACK_REFS),
        ),
        ("varReference", &FS_SLICE),
        ("images", &FS_SLICE),
        ("replicas", &FS_SLICE),
        ("labels", &FS_SLICE),
    ],
);

/// `accumulator.nameToApiMap`, what a `crds:` file decodes into (`spec.Schema` has its own
/// decoder, not checked here).
static NAME_TO_API_MAP: GoType = GoType::Map(
    "accumulator.nameToApiMap",
    &GoType::Struct(
        "accumulator.OpenAPIDefinition",
        &[
            ("Schema", &GoType::Opaque),
            ("Dependencies", &GoType::Slice("[]string", &GoType::String)),
        ],
    ),
);
