//! Running many targets in parallel: the expand phase (targets that generate targets), and
//! rendering at one revision or at two with the content-addressed cache, where a target whose
//! every input has the same content at head is not rendered again.

use super::{panic_finding, render_target, ParseCache, ReadSet, RenderOptions, Rendered, Target};
use crate::finding::Finding;
use crate::source::{Files, RepoPath, Snapshot};
use rayon::prelude::*;
use std::cmp::Ordering;
use std::sync::Arc;

/// The targets to render at one revision: the discovered ones and those they generate.
#[derive(Debug, Default)]
pub struct Expansion {
    /// Sorted, without duplicates.
    pub targets: Vec<Target>,
    pub findings: Vec<Finding>,
    /// What each generating target read to expand, by its id.
    pub read_sets: Vec<(String, ReadSet)>,
}

/// The expand phase: asks every discovered target for the targets it generates (an
/// ApplicationSet's Applications, the Applications an Application deploys), then those for
/// theirs, so that all are rendered and diffed like the others.
pub fn expand(
    snapshot: &dyn Snapshot,
    discovered: Vec<Target>,
    opts: &RenderOptions,
    cache: &ParseCache,
) -> Expansion {
    /// What one target generated, and what it read to do so (when it generated anything).
    type Generated = (Vec<Target>, Vec<Finding>, Option<(String, ReadSet)>);
    let mut known: std::collections::BTreeSet<Target> = discovered.iter().cloned().collect();
    let mut out = Expansion::default();
    let mut frontier = discovered;
    // Each round expands the targets the previous one found; generated targets bound their
    // own depth (app of apps), the rounds bound it again.
    for _ in 0..MAX_EXPANSION_ROUNDS {
        let expanded: Vec<Generated> = frontier
            .par_iter()
            .map(|target| {
                let files = Files::new(snapshot, cache);
                let id = target.id();
                let (generated, findings) = crate::panic::catch(|| target.expand(&files, opts))
                    .unwrap_or_else(|caught| {
                        (
                            Vec::new(),
                            vec![panic_finding(&id, &caught, files.last_read())],
                        )
                    });
                let read_set = files.into_read_set();
                let read =
                    (!generated.is_empty() || !findings.is_empty()).then_some((id, read_set));
                (generated, findings, read)
            })
            .collect();
        out.targets.append(&mut frontier);
        for (generated, findings, read) in expanded {
            frontier.extend(generated.into_iter().filter(|t| known.insert(t.clone())));
            out.findings.extend(findings);
            out.read_sets.extend(read);
        }
        if frontier.is_empty() {
            break;
        }
    }
    out.targets.append(&mut frontier);
    out.targets.sort();
    out.targets.dedup();
    drop_duplicate_ids(&mut out);
    out
}

/// Two targets with one id (two ApplicationSets generating the same Application, two Flux
/// roots of one cluster applying the same Kustomization): only one can own it, so the first in target order is kept and a warning names both.
fn drop_duplicate_ids(out: &mut Expansion) {
    let mut first: std::collections::HashMap<String, usize> = Default::default();
    let mut keep = vec![true; out.targets.len()];
    for (i, t) in out.targets.iter().enumerate() {
        let id = t.id();
        match first.get(&id) {
            None => {
                first.insert(id, i);
            }
            Some(&kept) => {
                keep[i] = false;
                let (rule, owner) = t.duplicate_rule();
                out.findings.push(
                    Finding::warning(
                        rule,
                        format!(
                            "{id} is made by {} and by {}; {owner} lets only one own it, so kdelta renders the first",
                            out.targets[kept].path(),
                            t.path()
                        ),
                    )
                    .in_file(t.path().to_string())
                    .for_target(id.clone()),
                );
            }
        }
    }
    let mut flags = keep.into_iter();
    out.targets.retain(|_| flags.next().unwrap_or(true));
}

/// How many times the expand phase asks the targets found last for more.
const MAX_EXPANSION_ROUNDS: usize = 8;

/// Renders every target at one revision, in parallel, keeping the targets' order.
pub fn render_all(
    snapshot: &dyn Snapshot,
    targets: &[Target],
    opts: &RenderOptions,
    cache: &ParseCache,
) -> Vec<Rendered> {
    costliest_first(targets, |t| t, |t| render_target(snapshot, t, opts, cache))
}

/// Maps `items` in parallel, the costliest targets first ([`Target::cost`]), keeping the
/// items' order in the result.
fn costliest_first<I: Sync, T: Send>(
    items: &[I],
    target: impl Fn(&I) -> &Target + Sync,
    f: impl Fn(&I) -> T + Sync,
) -> Vec<T> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    // rayon's first thread takes the items from the start of the list.
    order.sort_by_key(|&i| std::cmp::Reverse(target(&items[i]).cost()));
    let mut done: Vec<(usize, T)> = order.into_par_iter().map(|i| (i, f(&items[i]))).collect();
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, t)| t).collect()
}

/// One target at both revisions.
#[derive(Debug)]
pub struct PairOutcome {
    pub target: Target,
    /// None when the target does not exist at base.
    pub base: Option<Arc<Rendered>>,
    /// None when the target does not exist at head.
    pub head: Option<Arc<Rendered>>,
    /// True when head reused the base render because no input changed.
    pub cached: bool,
    /// The file that defines the target, for a target not rendered (the renders say it
    /// otherwise).
    pub unrendered_file: Option<RepoPath>,
}

/// Renders the union of both revisions' targets and hands each target's outcome to `summarize`
/// (a target present at both for which `unchanged` holds is not rendered: its outcome has no
/// renders and is `cached`)
/// as soon as it is rendered, so the renders of all targets are never held at once (only what
/// `summarize` keeps of them). `base_targets` and `head_targets` are each sorted and without
/// duplicates; the result follows the sorted union.
pub fn render_pair<T: Send>(
    (base, head): (&dyn Snapshot, &dyn Snapshot),
    (base_targets, head_targets): (&[Target], &[Target]),
    (base_opts, head_opts): (&RenderOptions, &RenderOptions),
    cache: &ParseCache,
    unchanged: impl Fn(&Target) -> bool + Sync,
    summarize: impl Fn(PairOutcome) -> T + Sync,
) -> Vec<T> {
    let pairs = union(base_targets, head_targets);
    // Settings that differ between the revisions (argocd-cm) make every render differ.
    let same_opts = base_opts == head_opts;
    costliest_first(
        &pairs,
        |(target, _, _)| target,
        |&(target, in_base, in_head)| {
            // Known not to change (impact analysis): neither side is rendered.
            if in_base && in_head && same_opts && unchanged(target) {
                return summarize(PairOutcome {
                    target: target.clone(),
                    base: None,
                    head: None,
                    cached: true,
                    unrendered_file: Some(target.defining_file(head)),
                });
            }
            // Telling regenerated values from changes takes a second render, which only a
            // target at both revisions can use.
            let one_sided = |opts: &RenderOptions| {
                if (in_base && in_head) || !opts.helm.detect_regenerated {
                    opts.clone()
                } else {
                    opts.without_regenerated_probe()
                }
            };
            let base_out = in_base
                .then(|| Arc::new(render_target(base, target, &one_sided(base_opts), cache)));
            let reusable = base_out
                .as_ref()
                .filter(|b| in_head && same_opts && b.read_set.unchanged_in(head));
            let (head_out, cached) = match reusable {
                // The same render, shared rather than copied.
                Some(b) => (Some(Arc::clone(b)), true),
                None => (
                    in_head.then(|| {
                        Arc::new(render_target(head, target, &one_sided(head_opts), cache))
                    }),
                    false,
                ),
            };
            summarize(PairOutcome {
                target: target.clone(),
                base: base_out,
                head: head_out,
                cached,
                unrendered_file: None,
            })
        },
    )
}

/// The sorted union of two sorted lists, with where each target occurs.
fn union<'a>(base: &'a [Target], head: &'a [Target]) -> Vec<(&'a Target, bool, bool)> {
    let mut out = Vec::with_capacity(base.len().max(head.len()));
    let (mut b, mut h) = (base.iter().peekable(), head.iter().peekable());
    loop {
        let next = match (b.peek(), h.peek()) {
            (None, None) => break,
            (Some(x), None) => (*x, true, false),
            (None, Some(y)) => (*y, false, true),
            (Some(x), Some(y)) => match x.cmp(y) {
                Ordering::Less => (*x, true, false),
                Ordering::Greater => (*y, false, true),
                Ordering::Equal => (*x, true, true),
            },
        };
        if next.1 {
            b.next();
        }
        if next.2 {
            h.next();
        }
        out.push(next);
    }
    out
}
