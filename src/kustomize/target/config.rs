//! The transformer config of one kustomization: the defaults, `configurations:` files and the
//! field specs `crds:` definitions add.

use super::{Builder, Kt};
use crate::finding::rules;
use crate::kustomize::error::KError;
use crate::kustomize::tconfig::TransformerConfig;
use crate::yaml::{self, Dialect, ParseOptions};
use std::sync::Arc;

impl Builder {
    pub(super) fn transformer_config(&mut self, kt: &Kt) -> Result<Arc<TransformerConfig>, KError> {
        if kt.k.configurations.is_empty() {
            return Ok(Arc::clone(TransformerConfig::defaults()));
        }
        let mut tc = TransformerConfig::clone(TransformerConfig::defaults());
        let mut extra = TransformerConfig::default();
        for (i, path) in kt.k.configurations.iter().enumerate() {
            let (file, bytes) = kt
                .ldr
                .load(path)
                .map_err(|e| kt.err_at(e, "configurations", Some(i)))?;
            let node = yaml::parse_one(&bytes, &ParseOptions::default())
                .map_err(|e| KError::new(rules::YAML_PARSE, e.message.clone()).at(&file, e.span))?;
            let t = TransformerConfig::from_yaml(&node).map_err(|e| {
                KError::new(rules::KUSTOMIZE_CONFIGURATIONS, e.message.clone()).at(&file, e.span)
            })?;
            extra = extra.merge(&t).map_err(|e| {
                kt.err_at(
                    KError::new(rules::KUSTOMIZE_CONFIGURATIONS, e),
                    "configurations",
                    Some(i),
                )
            })?;
        }
        if !kt.k.configurations.is_empty() {
            tc = tc.merge(&extra).map_err(|e| {
                kt.err_at(
                    KError::new(rules::KUSTOMIZE_CONFIGURATIONS, e),
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
        for (i, path) in kt.k.crds.iter().enumerate() {
            let at = |e: KError| kt.err_at(e, "crds", Some(i));
            let (file, bytes) = kt.ldr.load(path).map_err(at)?;
            let node = yaml::parse_one(&bytes, &ParseOptions::default())
                .map_err(|e| KError::new(rules::YAML_PARSE, e.message.clone()).at(&file, e.span))?;
            let value = yaml::to_value_lossy(&node, Dialect::Yaml12);
            let more = crate::kustomize::crds::config_from_definitions(&value).map_err(|e| {
                at(KError::new(
                    rules::KUSTOMIZE_CRDS,
                    format!("unable to parse open API definition from '{path}': {e}"),
                ))
            })?;
            tc = tc
                .merge(&more)
                .map_err(|e| at(KError::new(rules::KUSTOMIZE_CRDS, e)))?;
        }
        Ok(TransformerConfig::shared(tc))
    }
}
