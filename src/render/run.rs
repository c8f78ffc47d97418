//! Rendering many targets in parallel, at one revision or at two with the content-addressed
//! cache: a target whose every input has the same content at head is not rendered again.

use super::{render_target, ParseCache, RenderOptions, Rendered, Target};
use crate::source::Snapshot;
use rayon::prelude::*;

/// Renders every target at one revision, in parallel, keeping the targets' order.
pub fn render_all(
    snapshot: &dyn Snapshot,
    targets: &[Target],
    opts: &RenderOptions,
    cache: &ParseCache,
) -> Vec<Rendered> {
    targets
        .par_iter()
        .map(|t| render_target(snapshot, t, opts, cache))
        .collect()
}

/// One target at both revisions.
#[derive(Debug)]
pub struct PairOutcome {
    pub target: Target,
    /// None when the target does not exist at base.
    pub base: Option<Rendered>,
    /// None when the target does not exist at head.
    pub head: Option<Rendered>,
    /// True when head reused the base render because no input changed.
    pub cached: bool,
}

/// Renders the union of both revisions' targets. `base_targets` and `head_targets` are each
/// sorted; the result follows the sorted union.
pub fn render_pair(
    base: &dyn Snapshot,
    head: &dyn Snapshot,
    base_targets: &[Target],
    head_targets: &[Target],
    opts: &RenderOptions,
    cache: &ParseCache,
) -> Vec<PairOutcome> {
    let mut all: Vec<&Target> = base_targets.iter().chain(head_targets).collect();
    all.sort();
    all.dedup();
    all.par_iter()
        .map(|&target| {
            let in_base = base_targets.binary_search(target).is_ok();
            let in_head = head_targets.binary_search(target).is_ok();
            let base_out = in_base.then(|| render_target(base, target, opts, cache));
            let reusable = base_out
                .as_ref()
                .filter(|b| in_head && b.read_set.unchanged_in(head));
            let (head_out, cached) = match reusable {
                Some(b) => (Some(b.clone()), true),
                None => (
                    in_head.then(|| render_target(head, target, opts, cache)),
                    false,
                ),
            };
            PairOutcome {
                target: target.clone(),
                base: base_out,
                head: head_out,
                cached,
            }
        })
        .collect()
}
