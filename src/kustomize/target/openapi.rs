//! `openapi:`: the schema a kustomization sets for its build.

use super::{Builder, Kt};
use crate::finding::rules;
use crate::kustomize::error::KError;

impl Builder {
    /// kustomize `openapi.SetSchema` for a kustomization just loaded.
    pub fn set_openapi(&mut self, kt: &Kt, top_level: bool) -> Result<(), KError> {
        let custom = match kt.k.openapi.get("path") {
            Some(path) => {
                let bytes = kt
                    .ldr
                    .load(path)
                    .map_err(|e| kt.err_at(e, "openapi", None))?
                    .bytes;
                Some((path.clone(), bytes))
            }
            None => None,
        };
        kt.ldr
            .schema
            .with_state(|s| {
                s.set(
                    &kt.k.openapi,
                    custom.as_ref().map(|(p, b)| (p.as_str(), &b[..])),
                    top_level,
                )
            })
            .map_err(|e| {
                kt.err_at(
                    KError::new(rules::KUSTOMIZE_OPENAPI, e.to_string()),
                    "openapi",
                    None,
                )
            })
    }
}
