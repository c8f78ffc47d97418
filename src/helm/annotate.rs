//! What a chart's renders add to a diff: subcharts switched on or off between the revisions (a
//! warning naming the entry and the reason, and that reason on every object they add or
//! remove), and the fields the chart regenerates on every render (random passwords, generated
//! certificates and the checksums over them), which are not changes.

use super::tree::{Node, State};
use super::Details;
use crate::engine::{Annotations, Appearance, Reason, Regenerated, Render};
use crate::finding::{rules, Finding};
use crate::source::RepoPath;
use std::collections::{BTreeMap, HashSet};

/// The annotations of a diff between two renders of the chart at `chart_dir`.
pub fn annotate<'a>(
    chart_dir: &RepoPath,
    base: Render<'a, Details>,
    head: Render<'a, Details>,
) -> Annotations<'a> {
    let mut out = Annotations::default();
    if let (Some(bt), Some(ht)) = (&base.details.tree, &head.details.tree) {
        toggles(chart_dir, bt, ht, base, head, &mut out);
    }
    let renders: Vec<_> = [base, head]
        .into_iter()
        .filter(|r| !r.details.rerender.is_empty())
        .map(|r| (r.resources, r.details.rerender.as_slice()))
        .collect();
    if !renders.is_empty() {
        let mut by: Vec<&'static str> = base
            .details
            .nondeterministic
            .iter()
            .chain(&head.details.nondeterministic)
            .copied()
            .collect();
        by.sort_unstable();
        by.dedup();
        out.regenerated = Some(Regenerated {
            renders,
            by,
            rule: rules::HELM_REGENERATED,
        });
    }
    out
}

/// Subcharts enabled at one revision and pruned at the other.
fn toggles(
    chart_dir: &RepoPath,
    base_tree: &Node,
    head_tree: &Node,
    base: Render<'_, Details>,
    head: Render<'_, Details>,
    out: &mut Annotations,
) {
    let at_base: BTreeMap<String, &Node> = base_tree.paths().into_iter().collect();
    for (path, h) in head_tree.paths() {
        let Some(b) = at_base.get(&path) else {
            continue;
        };
        let (was, is) = (&b.state, &h.state);
        let (message, reason, appearance, node) = match (was, is) {
            (State::Enabled, State::Pruned(why)) => (
                format!("subchart {} is pruned at head ({why}) but was enabled at base: the objects it rendered are removed", h.name),
                format!("subchart {} pruned at head: {why}", h.name),
                Appearance::Removed,
                *b,
            ),
            (State::Pruned(why), State::Enabled) => (
                format!("subchart {} is enabled at head but was pruned at base ({why}): the objects it renders are added", h.name),
                format!("subchart {} enabled at head (pruned at base: {why})", h.name),
                Appearance::Added,
                h,
            ),
            _ => continue,
        };
        // A subtree pruned with its parent is told once, at the parent.
        if reason.contains(": parent ") || reason.contains("base: parent ") {
            continue;
        }
        // The objects of that subchart: those rendered from its directory (or archive).
        let Ok(dir) = chart_dir.join(&node.source) else {
            continue;
        };
        let side = match appearance {
            Appearance::Added => head,
            Appearance::Removed => base,
        };
        let ids: HashSet<String> = side
            .resources
            .iter()
            .filter(|r| !node.source.is_empty() && r.origin.file.starts_with(&dir))
            .map(|r| r.id().to_string())
            .collect();
        out.reasons.push(Reason {
            appearance,
            ids,
            why: reason,
        });
        let entry = h.entry.as_ref().or(b.entry.as_ref());
        let f = Finding::warning(rules::HELM_SUBCHART_TOGGLED, message);
        out.findings.push(match entry {
            Some((file, line, column)) => f.at(file.clone(), *line, *column),
            None => f.in_file(head.file.to_string()),
        });
    }
}
