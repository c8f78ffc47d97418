//! `replacements:`: inline entries and files of them, applied in order.

use super::{Acc, Builder, Kt};
use crate::finding::rules;
use crate::kustomize::error::KError;
use crate::kustomize::types::{self};

impl Builder {
    /// `replacements:` — inline entries and `path:` files, applied in order.
    pub(super) fn run_replacements(&mut self, kt: &Kt, acc: &mut Acc) -> Result<(), KError> {
        use crate::kustomize::transform::replacement;
        let mut list: Vec<(usize, types::ReplacementField)> = Vec::new();
        for (i, r) in kt.k.replacements.iter().enumerate() {
            let at = |e: KError| kt.err_at(e, "replacements", Some(i));
            if r.path.is_empty() {
                list.push((i, r.clone()));
                continue;
            }
            if r.source.is_some() || !r.targets.is_empty() || r.source_value.is_some() {
                return Err(at(KError::new(
                    rules::KUSTOMIZE_REPLACEMENT_INVALID,
                    "cannot specify both path and inline replacement",
                )));
            }
            let file = kt.ldr.load(&r.path).map_err(at)?;
            let node = file.yaml(at)?;
            let loaded = replacement::parse_file(&node).map_err(|e| {
                file.locate(
                    KError::new(rules::KUSTOMIZE_REPLACEMENT_INVALID, e.to_string()),
                    e.span(),
                    at,
                )
            })?;
            list.extend(loaded.into_iter().map(|r| (i, r)));
        }
        for (i, r) in &list {
            // A replacement looks up its source and targets.
            self.lookup_step(acc, |b, acc| {
                let warnings = replacement::apply(&mut acc.rm, r).map_err(|e| {
                    kt.err_at(KError::new(e.rule, e.message), "replacements", Some(*i))
                })?;
                let span = kt.span("replacements", Some(*i));
                for w in warnings {
                    b.findings.push(
                        crate::finding::Finding::warning(
                            rules::KUSTOMIZE_REPLACEMENT_VERSION_DIVERGENCE,
                            w,
                        )
                        .at(kt.file.to_string(), span.line, span.column),
                    );
                }
                Ok(())
            })?;
        }
        Ok(())
    }
}
