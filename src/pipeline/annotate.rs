//! What the engines know adds to the plain object diff. Helm: subcharts switched on or off
//! between the revisions (a warning naming the entry and the reason, and that reason on every
//! object they add or remove), and fields a chart regenerates on every render (random
//! passwords, generated certificates and the checksums over them), which are not changes.
//! ApplicationSets: the generator and parameters behind each Application that appears or
//! disappears. Applications: the fields their `ignoreDifferences` leave out.

use crate::diff::{diff_resources, Change, ChangeKind, DiffOptions};
use crate::finding::{rules, Finding};
use crate::helm::tree::{Node, State};
use crate::render::{Details, Rendered};
use crate::resource::Resource;
use crate::source::RepoPath;
use std::collections::{BTreeMap, HashSet};

/// Adjusts `changes` between two renders of the chart at `chart_dir` (none for other
/// renders); returns the findings that explain what was adjusted.
pub fn annotate(
    chart_dir: &RepoPath,
    base: &Rendered,
    head: &Rendered,
    changes: &mut Vec<Change>,
    opts: &DiffOptions,
) -> Vec<Finding> {
    let (Some(Details::Helm(b)), Some(Details::Helm(h))) = (&base.details, &head.details) else {
        return Vec::new();
    };
    let mut findings = Vec::new();
    if let (Some(bt), Some(ht)) = (&b.tree, &h.tree) {
        findings.extend(toggles(chart_dir, bt, ht, base, head, changes));
    }
    let regenerated: HashSet<(String, String)> = [(base, &b.rerender), (head, &h.rerender)]
        .into_iter()
        .filter(|(_, again)| !again.is_empty())
        .flat_map(|(r, again)| unstable_fields(&r.resources, again, opts))
        .collect();
    if !regenerated.is_empty() {
        let mut hidden = Vec::new();
        for c in changes
            .iter_mut()
            .filter(|c| c.change == ChangeKind::Modified)
        {
            c.fields.retain(|f| {
                let unstable = regenerated.contains(&(c.resource.clone(), f.path.clone()));
                if unstable {
                    hidden.push(format!("{} {}", c.resource, f.path));
                }
                !unstable
            });
        }
        changes.retain(|c| c.change != ChangeKind::Modified || !c.fields.is_empty());
        if !hidden.is_empty() {
            let mut funcs: Vec<&str> = b
                .nondeterministic
                .iter()
                .chain(&h.nondeterministic)
                .copied()
                .collect();
            funcs.sort_unstable();
            funcs.dedup();
            let shown: Vec<&str> = hidden.iter().take(5).map(String::as_str).collect();
            let more = match hidden.len() {
                n if n > 5 => format!(" and {} more", n - 5),
                _ => String::new(),
            };
            findings.push(
                Finding::notice(
                    rules::HELM_REGENERATED,
                    format!(
                        "{} field(s) are regenerated on every render ({}), so they are not shown as changes: {}{more}",
                        hidden.len(),
                        funcs.join(", "),
                        shown.join(", ")
                    ),
                )
                .in_file(head.file.to_string()),
            );
        }
    }
    findings
}

/// Both sides of an Application's diff without the fields its `ignoreDifferences` names (the
/// head's Application decides, as the live one does in Argo CD); `None` when there is nothing
/// to leave out.
pub fn ignored_differences(
    base: &Rendered,
    head: &Rendered,
) -> Option<(Vec<Resource>, Vec<Resource>)> {
    let Some(Details::Argo(d)) = &head.details else {
        return None;
    };
    if d.ignore_differences.is_empty() {
        return None;
    }
    let rules = &d.ignore_differences;
    let b = crate::argocd::ignore::normalized(&base.resources, rules);
    let h = crate::argocd::ignore::normalized(&head.resources, rules);
    if b.is_none() && h.is_none() {
        return None;
    }
    Some((
        b.unwrap_or_else(|| base.resources.clone()),
        h.unwrap_or_else(|| head.resources.clone()),
    ))
}

/// Generated Applications that appear or disappear say which generator and parameters make
/// (or made) them (in the renders of Argo CD targets; others are left as they are).
pub fn explain_applications(
    base: Option<&Rendered>,
    head: Option<&Rendered>,
    changes: &mut [Change],
) {
    let argo =
        |r: Option<&Rendered>| matches!(r.and_then(|r| r.details.as_ref()), Some(Details::Argo(_)));
    if !argo(base) && !argo(head) {
        return;
    }
    let made_by = |r: Option<&Rendered>| match r.and_then(|r| r.details.as_ref()) {
        Some(Details::Argo(d)) => d.made_by.clone(),
        _ => Default::default(),
    };
    let (at_base, at_head) = (made_by(base), made_by(head));
    // Only the Applications themselves: an object an Application deploys may share its name.
    for c in changes
        .iter_mut()
        .filter(|c| c.resource.starts_with("argoproj.io/") && c.resource.contains("/Application/"))
    {
        let name = c.resource.rsplit('/').next().unwrap_or_default();
        c.reason = match c.change {
            ChangeKind::Added => at_head.get(name).cloned(),
            ChangeKind::Removed => at_base.get(name).map(|m| format!("no longer {m}")),
            _ => c.reason.take(),
        };
    }
}

/// `(resource, field path)` of every field that differs between two renders of one revision.
fn unstable_fields(
    first: &[Resource],
    again: &[Resource],
    opts: &DiffOptions,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for c in diff_resources(first, again, opts) {
        for f in c.fields {
            out.push((c.resource.clone(), f.path));
        }
    }
    out
}

/// Subcharts enabled at one revision and pruned at the other.
fn toggles(
    chart_dir: &RepoPath,
    base_tree: &Node,
    head_tree: &Node,
    base: &Rendered,
    head: &Rendered,
    changes: &mut [Change],
) -> Vec<Finding> {
    let at_base: BTreeMap<String, &Node> = base_tree.paths().into_iter().collect();
    let mut findings = Vec::new();
    for (path, h) in head_tree.paths() {
        let Some(b) = at_base.get(&path) else {
            continue;
        };
        let (was, is) = (&b.state, &h.state);
        let (message, reason, side, node) = match (was, is) {
            (State::Enabled, State::Pruned(why)) => (
                format!("subchart {} is pruned at head ({why}) but was enabled at base: the objects it rendered are removed", h.name),
                format!("subchart {} pruned at head: {why}", h.name),
                base,
                *b,
            ),
            (State::Pruned(why), State::Enabled) => (
                format!("subchart {} is enabled at head but was pruned at base ({why}): the objects it renders are added", h.name),
                format!("subchart {} enabled at head (pruned at base: {why})", h.name),
                head,
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
        let ids: HashSet<String> = side
            .resources
            .iter()
            .filter(|r| !node.source.is_empty() && r.origin.file.starts_with(&dir))
            .map(|r| r.id().to_string())
            .collect();
        let kind = if std::ptr::eq(side, head) {
            ChangeKind::Added
        } else {
            ChangeKind::Removed
        };
        for c in changes
            .iter_mut()
            .filter(|c| c.change == kind && ids.contains(&c.resource))
        {
            c.reason = Some(reason.clone());
        }
        let entry = h.entry.as_ref().or(b.entry.as_ref());
        let f = Finding::warning(rules::HELM_SUBCHART_TOGGLED, message);
        findings.push(match entry {
            Some((file, line, column)) => f.at(file.clone(), *line, *column),
            None => f.in_file(head.file.to_string()),
        });
    }
    findings
}
