//! Output order (SortOrderTransformer and the CLI's `--reorder`): `sortOptions` in the
//! kustomization wins; otherwise legacy kind order unless `--reorder none` keeps input order.

use super::super::resmap::ResMap;
use super::super::types::SortOptions;
use crate::resource::ordering::{DEFAULT_ORDER_FIRST, DEFAULT_ORDER_LAST};
use crate::resource::{LegacyOrder, ResId};

/// `sortOptions` that kustomize refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SortError {
    /// `legacySortOptions` with `order: fifo`.
    #[error("the field 'sortOptions.legacySortOptions' is set but the selected sort order is 'fifo', not 'legacy'")]
    LegacyOptionsWithFifo,
    /// An order other than `fifo` or `legacy`.
    #[error("the field 'sortOptions.order' must be one of [fifo, legacy]")]
    UnknownOrder { order: String },
}

/// Sorts the final resources.
pub fn sort(
    rm: &mut ResMap,
    options: Option<&SortOptions>,
    reorder_none: bool,
) -> Result<(), SortError> {
    let order = match options {
        Some(o) => {
            match o.order.as_str() {
                "fifo" if o.legacy_sort_options.is_some() => {
                    return Err(SortError::LegacyOptionsWithFifo)
                }
                "fifo" => return Ok(()),
                "legacy" => {}
                other => {
                    return Err(SortError::UnknownOrder {
                        order: other.to_string(),
                    })
                }
            }
            match &o.legacy_sort_options {
                Some(l) => LegacyOrder::new(&l.order_first, &l.order_last),
                None => LegacyOrder::new(DEFAULT_ORDER_FIRST, DEFAULT_ORDER_LAST),
            }
        }
        None if reorder_none => return Ok(()),
        None => LegacyOrder::default(),
    };
    let mut keyed: Vec<(ResId, super::super::res::Res)> = rm
        .list
        .drain(..)
        .map(|r| (crate::resource::ResId::of(&r.node), r))
        .collect();
    keyed.sort_by(|a, b| order.compare(&a.0, &b.0));
    rm.list = keyed.into_iter().map(|(_, r)| r).collect();
    Ok(())
}
