//! What the engines know adds to the plain object diff, through `engine::Spec`: the objects
//! compared (an Application's `ignoreDifferences` leave fields out), findings that explain the
//! diff (a Helm subchart switched on or off between the revisions), why objects appear or
//! disappear (that subchart; the generator and parameters behind an Application), and fields
//! regenerated on every render (a chart's random passwords and generated certificates), which
//! are not changes.

use crate::diff::{diff_resources, Change, ChangeKind, DiffOptions};
use crate::engine::{Appearance, Regenerated, Render};
use crate::finding::Finding;
use crate::render::{Details, Rendered, Target};
use crate::resource::Resource;
use std::collections::HashSet;

/// A render as the engines' diff hooks see it (none when it crashed).
fn render(r: &Rendered) -> Option<Render<'_, Details>> {
    Some(Render {
        resources: &r.resources,
        details: r.details.as_ref()?,
        file: &r.file,
    })
}

/// Adjusts `changes` between two renders of `target` as its engine says; returns the findings
/// that explain what was adjusted.
pub fn annotate(
    target: &Target,
    base: &Rendered,
    head: &Rendered,
    changes: &mut Vec<Change>,
    opts: &DiffOptions,
) -> Vec<Finding> {
    let (Some(b), Some(h)) = (render(base), render(head)) else {
        return Vec::new();
    };
    let annotations = target.annotate(b, h);
    for reason in &annotations.reasons {
        let kind = match reason.appearance {
            Appearance::Added => ChangeKind::Added,
            Appearance::Removed => ChangeKind::Removed,
        };
        for c in changes
            .iter_mut()
            .filter(|c| c.change == kind && reason.ids.contains(&c.resource))
        {
            c.reason = Some(reason.why.clone());
        }
    }
    let mut findings = annotations.findings;
    if let Some(regenerated) = annotations.regenerated {
        findings.extend(hide_regenerated(&regenerated, head, changes, opts));
    }
    findings
}

/// Leaves out of `changes` the fields that differ between two renders of one revision; the
/// notice that says which.
fn hide_regenerated(
    regenerated: &Regenerated,
    head: &Rendered,
    changes: &mut Vec<Change>,
    opts: &DiffOptions,
) -> Option<Finding> {
    let unstable: HashSet<(String, String)> = regenerated
        .renders
        .iter()
        .flat_map(|(first, again)| unstable_fields(first, again, opts))
        .collect();
    if unstable.is_empty() {
        return None;
    }
    let mut hidden = Vec::new();
    for c in changes
        .iter_mut()
        .filter(|c| c.change == ChangeKind::Modified)
    {
        c.fields.retain(|f| {
            let unstable = unstable.contains(&(c.resource.clone(), f.path.clone()));
            if unstable {
                hidden.push(format!("{} {}", c.resource, f.path));
            }
            !unstable
        });
    }
    changes.retain(|c| c.change != ChangeKind::Modified || !c.fields.is_empty());
    if hidden.is_empty() {
        return None;
    }
    let shown: Vec<&str> = hidden.iter().take(5).map(String::as_str).collect();
    let more = match hidden.len() {
        n if n > 5 => format!(" and {} more", n - 5),
        _ => String::new(),
    };
    Some(
        Finding::notice(
            regenerated.rule,
            format!(
                "{} field(s) are regenerated on every render ({}), so they are not shown as changes: {}{more}",
                hidden.len(),
                regenerated.by.join(", "),
                shown.join(", ")
            ),
        )
        .in_file(head.file.to_string()),
    )
}

/// Both sides of a diff without the fields the target's engine leaves out (as the head's
/// render says); `None` when there is nothing to leave out.
pub fn compared(
    target: &Target,
    base: &Rendered,
    head: &Rendered,
) -> Option<(Vec<Resource>, Vec<Resource>)> {
    target.compared(head.details.as_ref()?, &base.resources, &head.resources)
}

/// Objects that appear or disappear say why, when the engine knows (the generator and
/// parameters that make, or made, a generated Application).
pub fn reasons(
    target: &Target,
    base: Option<&Rendered>,
    head: Option<&Rendered>,
    changes: &mut [Change],
) {
    let at_base = base.and_then(|r| r.details.as_ref());
    let at_head = head.and_then(|r| r.details.as_ref());
    for c in changes.iter_mut() {
        let why = match (c.change, at_base, at_head) {
            (ChangeKind::Added, _, Some(d)) => target.reason(d, &c.resource, Appearance::Added),
            (ChangeKind::Removed, Some(d), _) => target.reason(d, &c.resource, Appearance::Removed),
            _ => None,
        };
        if why.is_some() {
            c.reason = why;
        }
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
