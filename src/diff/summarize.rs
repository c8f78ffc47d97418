//! Turns render outcomes into a [`Report`]: per-target status and changes, every finding
//! tagged with its side, and the summary counts.

use super::{diff_resources, DiffOptions};
use crate::render::{PairOutcome, Rendered, Target};
use crate::report::{
    Finding, Report, RevisionInfo, Severity, Side, Summary, TargetReport, TargetStatus,
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
            changes,
        });
    }
    finish(Some(base), head, targets, findings, summary)
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
            changes: Vec::new(),
        });
    }
    let summary = Summary {
        targets: targets.len(),
        rendered: rendered.len(),
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
