//! Output order (SortOrderTransformer and the CLI's `--reorder`): `sortOptions` in the
//! kustomization wins; otherwise legacy kind order unless `--reorder none` keeps input order.

use super::super::resmap::ResMap;
use super::super::types::SortOptions;
use crate::resource::ordering::{DEFAULT_ORDER_FIRST, DEFAULT_ORDER_LAST};
use crate::resource::{LegacyOrder, ResId};

/// Sorts the final resources.
pub fn sort(
    rm: &mut ResMap,
    options: Option<&SortOptions>,
    reorder_none: bool,
) -> Result<(), String> {
    let order = match options {
        Some(o) => {
            match o.order.as_str() {
                "fifo" if o.legacy_sort_options.is_some() => {
                    return Err("the field 'sortOptions.legacySortOptions' is set but the selected sort order is 'fifo', not 'legacy'".into())
                }
                "fifo" => return Ok(()),
                "legacy" => {}
                _ => return Err("the field 'sortOptions.order' must be one of [fifo, legacy]".into()),
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
