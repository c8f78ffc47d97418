//! Turns render outcomes into a [`Report`]: per-target status and changes, every finding
//! tagged with its side, and the summary counts.

use super::{diff_resources, DiffOptions};
use crate::render::{PairOutcome, Rendered, Target};
use crate::report::{
    ChangeKind, Finding, Report, RevisionInfo, Severity, Side, Summary, TargetReport, TargetStatus,
    REPORT_SCHEMA,
};

/// The report for a two-revision diff.
pub fn pair_report(
    outcomes: &[PairOutcome],
    base: RevisionInfo,
    head: RevisionInfo,
    extra_findings: Vec<Finding>,
    opts: &DiffOptions,
) -> Report {
    let mut targets = Vec::new();
    let mut findings = extra_findings;
    let mut summary = Summary::default();
    for o in outcomes {
        summary.targets += 1;
        if o.cached {
            summary.cached += 1;
        }
        summary.rendered +=
            usize::from(o.base.is_some()) + usize::from(o.head.is_some() && !o.cached);
        for (side, r) in [(Side::Base, &o.base), (Side::Head, &o.head)] {
            if let Some(r) = r {
                // A cached head repeats the base's findings; report them once.
                if side == Side::Head && o.cached {
                    continue;
                }
                findings.extend(r.findings.iter().cloned().map(|mut f| {
                    f.revision = Some(side);
                    f
                }));
            }
        }
        if o.cached {
            // Same inputs: the base's findings hold at head too.
            for f in findings.iter_mut() {
                if f.target.as_deref() == Some(&o.target.id()) && f.revision == Some(Side::Base) {
                    f.revision = Some(Side::Head);
                }
            }
        }
        let (status, changes) = match (&o.base, &o.head) {
            (_, Some(h)) if !h.ok => (TargetStatus::Error, Vec::new()),
            (Some(_), Some(_)) if o.cached => (TargetStatus::Unchanged, Vec::new()),
            (Some(b), Some(h)) => {
                let c = diff_resources(&b.resources, &h.resources, opts);
                let status = if c.is_empty() {
                    TargetStatus::Unchanged
                } else {
                    TargetStatus::Modified
                };
                (status, c)
            }
            (None, Some(h)) => (TargetStatus::Added, diff_resources(&[], &h.resources, opts)),
            (Some(b), None) => (
                TargetStatus::Removed,
                diff_resources(&b.resources, &[], opts),
            ),
            (None, None) => (TargetStatus::Unchanged, Vec::new()),
        };
        let incomplete = o
            .head
            .as_ref()
            .or(o.base.as_ref())
            .is_some_and(|r| r.ok && !r.complete);
        summary.incomplete += usize::from(incomplete);
        match status {
            TargetStatus::Modified => summary.modified += 1,
            TargetStatus::Added => summary.added += 1,
            TargetStatus::Removed => summary.removed += 1,
            _ => {}
        }
        targets.push(TargetReport {
            id: o.target.id(),
            kind: o.target.kind().to_string(),
            status,
            file: Some(
                o.head
                    .as_ref()
                    .or(o.base.as_ref())
                    .map(|r| r.file.to_string())
                    .unwrap_or_else(|| o.target.path().to_string()),
            ),
            cached: o.cached,
            incomplete,
            changes,
        });
    }
    detect_moves(&mut targets, opts);
    // Moves turn a removal and an addition into one change; recount what changed.
    summary.modified = targets
        .iter()
        .filter(|t| t.status == TargetStatus::Modified)
        .count();
    finish(Some(base), head, targets, findings, summary)
}

/// An object removed in one place and added in another (another namespace of the same target,
/// or another target) with the same content is one moved object, not a removal and an addition.
fn detect_moves(targets: &mut [TargetReport], opts: &DiffOptions) {
    let strip = |body: &serde_json::Value| {
        let mut b = body.clone();
        if let Some(meta) = b.get_mut("metadata").and_then(|m| m.as_object_mut()) {
            meta.remove("namespace");
        }
        b
    };
    let removed: Vec<(usize, usize, serde_json::Value)> = targets
        .iter()
        .enumerate()
        .flat_map(|(ti, t)| {
            t.changes.iter().enumerate().filter_map(move |(ci, c)| {
                (c.change == ChangeKind::Removed)
                    .then(|| c.body.as_ref().map(|b| (ti, ci, b.clone())))?
            })
        })
        .map(|(ti, ci, b)| (ti, ci, strip(&b)))
        .collect();
    let mut used = vec![false; removed.len()];
    let mut drop: Vec<(usize, usize)> = Vec::new();
    for ti in 0..targets.len() {
        for ci in 0..targets[ti].changes.len() {
            let c = &targets[ti].changes[ci];
            if c.change != ChangeKind::Added {
                continue;
            }
            let Some(body) = c.body.as_ref() else {
                continue;
            };
            let stripped = strip(body);
            let Some(k) = removed.iter().enumerate().position(|(k, (rt, rc, rb))| {
                !used[k]
                    && *rb == stripped
                    && (*rt != ti || targets[*rt].changes[*rc].resource != c.resource)
            }) else {
                continue;
            };
            used[k] = true;
            let (rt, rc, _) = &removed[k];
            let old = &targets[*rt].changes[*rc];
            let from = old.resource.clone();
            let old_body = old.body.clone().unwrap_or_default();
            let from_target = (*rt != ti).then(|| targets[*rt].id.clone());
            drop.push((*rt, *rc));
            let mut fields = super::diff_values(&old_body, body);
            fields.retain(|f| !opts.hides(&c.resource, &f.path));
            let c = &mut targets[ti].changes[ci];
            c.change = ChangeKind::Renamed;
            c.from = Some(from);
            c.from_target = from_target;
            c.fields = fields;
            c.body = None;
        }
    }
    drop.sort();
    for (ti, ci) in drop.into_iter().rev() {
        targets[ti].changes.remove(ci);
    }
    for t in targets.iter_mut() {
        if t.status == TargetStatus::Modified && t.changes.is_empty() {
            t.status = TargetStatus::Unchanged;
        }
    }
}

/// The report for one revision (`check`): every target unchanged or in error.
pub fn single_report(
    targets: &[Target],
    rendered: &[Rendered],
    head: RevisionInfo,
    extra_findings: Vec<Finding>,
) -> Report {
    let mut findings = extra_findings;
    let mut reports = Vec::new();
    for (t, r) in targets.iter().zip(rendered) {
        findings.extend(r.findings.iter().cloned());
        reports.push(TargetReport {
            id: t.id(),
            kind: t.kind().to_string(),
            status: if r.ok {
                TargetStatus::Unchanged
            } else {
                TargetStatus::Error
            },
            file: Some(r.file.to_string()),
            cached: false,
            incomplete: r.ok && !r.complete,
            changes: Vec::new(),
        });
    }
    let summary = Summary {
        targets: targets.len(),
        rendered: rendered.len(),
        incomplete: reports.iter().filter(|t| t.incomplete).count(),
        ..Summary::default()
    };
    finish(None, head, reports, findings, summary)
}

fn finish(
    base: Option<RevisionInfo>,
    head: RevisionInfo,
    targets: Vec<TargetReport>,
    mut findings: Vec<Finding>,
    mut summary: Summary,
) -> Report {
    findings.sort_by(|a, b| {
        (a.severity, &a.target, &a.file, a.line, &a.rule)
            .cmp(&(b.severity, &b.target, &b.file, b.line, &b.rule))
    });
    findings.dedup();
    summary.errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error && f.revision != Some(Side::Base))
        .count();
    Report {
        schema: REPORT_SCHEMA,
        base,
        head,
        targets,
        findings,
        summary,
    }
}
