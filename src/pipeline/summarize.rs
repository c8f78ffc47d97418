//! Turns render outcomes into a [`Report`]: per-target status and changes, every finding
//! tagged with its side, and the summary counts.

use crate::diff::{diff_resources, Body, DiffOptions};
use crate::engine::Coverage;
use crate::render::{PairOutcome, Rendered, Target};
use crate::report::{
    ChangeKind, Finding, Report, RevisionInfo, Severity, Side, Summary, TargetReport, TargetStatus,
    REPORT_SCHEMA,
};
use serde_json::Value;
use std::collections::HashMap;

/// What one target contributes to a two-revision report.
pub struct TargetSummary {
    report: TargetReport,
    /// Its findings, each tagged with its side.
    findings: Vec<Finding>,
    /// How many renders it took (0 to 2).
    rendered: usize,
    /// The summary's coverage count it adds to.
    coverage: Option<Coverage>,
}

/// Diffs one target's renders at both revisions into its part of the report.
pub fn summarize_pair(o: &PairOutcome, opts: &DiffOptions) -> TargetSummary {
    let mut findings = Vec::new();
    for (side, r) in [(Side::Base, &o.base), (Side::Head, &o.head)] {
        if let Some(r) = r {
            // A cached head repeats the base's findings (which then hold at head): report
            // them once.
            if side == Side::Head && o.cached {
                continue;
            }
            let side = if o.cached { Side::Head } else { side };
            findings.extend(r.findings.iter().cloned().map(|mut f| {
                f.revision = Some(side);
                f
            }));
        }
    }
    let (status, changes) = match (&o.base, &o.head) {
        (_, Some(h)) if !h.ok => (TargetStatus::Error, Vec::new()),
        (Some(_), Some(_)) if o.cached => (TargetStatus::Unchanged, Vec::new()),
        (Some(b), Some(h)) => {
            let mut c = match super::annotate::compared(&o.target, b, h) {
                Some((b, h)) => diff_resources(&b, &h, opts),
                None => diff_resources(&b.resources, &h.resources, opts),
            };
            let id = o.target.id();
            findings.extend(
                super::annotate::annotate(&o.target, b, h, &mut c, opts)
                    .into_iter()
                    .map(|f| Finding {
                        revision: Some(Side::Head),
                        ..f.for_target(id.clone())
                    }),
            );
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
    let mut changes = changes;
    super::annotate::reasons(
        &o.target,
        o.base.as_deref(),
        o.head.as_deref(),
        &mut changes,
    );
    let incomplete = o
        .head
        .as_ref()
        .or(o.base.as_ref())
        .is_some_and(|r| r.ok && !r.complete);
    TargetSummary {
        report: TargetReport {
            incomplete_reason: None,
            id: o.target.id(),
            kind: o.target.kind().to_string(),
            status,
            file: Some(
                o.head
                    .as_ref()
                    .or(o.base.as_ref())
                    .map(|r| &r.file)
                    .or(o.unrendered_file.as_ref())
                    .unwrap_or_else(|| o.target.path())
                    .to_string(),
            ),
            cached: o.cached,
            position: None,
            incomplete,
            changes,
            sources: crate::report::RemoteSources {
                base: o
                    .base
                    .as_ref()
                    .map(|r| r.read_set.remote_sources())
                    .unwrap_or_default(),
                head: o
                    .head
                    .as_ref()
                    .map(|r| r.read_set.remote_sources())
                    .unwrap_or_default(),
            },
        },
        findings,
        rendered: usize::from(o.base.is_some()) + usize::from(o.head.is_some() && !o.cached),
        coverage: o.target.coverage(),
    }
}

/// The report for a two-revision diff, from every target's summary (in target order).
pub fn pair_report(
    summaries: Vec<TargetSummary>,
    base: RevisionInfo,
    head: RevisionInfo,
    extra_findings: Vec<Finding>,
    opts: &DiffOptions,
) -> Report {
    let mut targets = Vec::new();
    let mut coverage = Vec::new();
    let mut findings = extra_findings;
    let mut summary = Summary::default();
    for s in summaries {
        summary.targets += 1;
        summary.cached += usize::from(s.report.cached);
        summary.rendered += s.rendered;
        summary.incomplete += usize::from(s.report.incomplete);
        match s.report.status {
            TargetStatus::Added => summary.added += 1,
            TargetStatus::Removed => summary.removed += 1,
            _ => {}
        }
        findings.extend(s.findings);
        targets.push(s.report);
        coverage.push(s.coverage);
    }
    detect_moves(&mut targets, opts);
    // Moves turn a removal and an addition into one change; count what changed after them.
    summary.modified = targets
        .iter()
        .filter(|t| t.status == TargetStatus::Modified)
        .count();
    finish(Some(base), head, targets, &coverage, findings, summary)
}

/// An object removed in one place and added in another (another namespace of the same target,
/// or another target) with the same content is one moved object, not a removal and an addition.
fn detect_moves(targets: &mut [TargetReport], opts: &DiffOptions) {
    // Removed bodies by a hash of their content without the namespace: each added body is
    // compared only with the removed ones of the same hash.
    let hashes: Vec<Vec<Option<u64>>> = targets
        .iter()
        .map(|t| {
            t.changes
                .iter()
                .map(|c| match c.change {
                    ChangeKind::Added | ChangeKind::Removed => {
                        c.body.as_ref().map(Body::hash_without_namespace)
                    }
                    _ => None,
                })
                .collect()
        })
        .collect();
    let mut removed: Vec<(usize, usize)> = Vec::new();
    let mut by_hash: HashMap<u64, Vec<usize>> = HashMap::new();
    for (ti, t) in targets.iter().enumerate() {
        for (ci, c) in t.changes.iter().enumerate() {
            if let (ChangeKind::Removed, Some(hash)) = (c.change, hashes[ti][ci]) {
                by_hash.entry(hash).or_default().push(removed.len());
                removed.push((ti, ci));
            }
        }
    }
    let mut used = vec![false; removed.len()];
    let mut drop: Vec<(usize, usize)> = Vec::new();
    for (ti, target_hashes) in hashes.iter().enumerate() {
        for (ci, hash) in target_hashes.iter().enumerate() {
            let c = &targets[ti].changes[ci];
            if c.change != ChangeKind::Added {
                continue;
            }
            let (Some(body), Some(hash)) = (c.body.as_ref(), hash) else {
                continue;
            };
            let candidates = by_hash.get(hash).map_or(&[][..], Vec::as_slice);
            if candidates.is_empty() {
                continue;
            }
            let body = body.value();
            let Some(&k) = candidates.iter().find(|&&k| {
                let (rt, rc) = removed[k];
                let old = &targets[rt].changes[rc];
                !used[k]
                    && (rt != ti || old.resource != c.resource)
                    && old
                        .body
                        .as_ref()
                        .is_some_and(|b| same_but_namespace(&b.value(), &body))
            }) else {
                continue;
            };
            used[k] = true;
            let (rt, rc) = &removed[k];
            let old = &targets[*rt].changes[*rc];
            let from = old.resource.clone();
            let old_body = old.body.as_ref().map(Body::value).unwrap_or_default();
            let from_target = (*rt != ti).then(|| targets[*rt].id.clone());
            drop.push((*rt, *rc));
            let mut fields = crate::diff::diff_values(&old_body, &body);
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

/// True when two objects are equal up to `metadata.namespace`.
fn same_but_namespace(a: &Value, b: &Value) -> bool {
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return a == b;
    };
    let without_namespace = |m: &serde_json::Map<String, Value>| {
        m.iter()
            .filter(|(k, _)| *k != "namespace")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<serde_json::Map<String, Value>>()
    };
    let metadata_equal = match (a.get("metadata"), b.get("metadata")) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            without_namespace(x) == without_namespace(y)
        }
        (x, y) => x == y,
    };
    metadata_equal
        && a.len() == b.len()
        && a.iter()
            .all(|(k, v)| k == "metadata" || b.get(k) == Some(v))
}

/// One target of a `check`: rendered, or left unrendered because the change since the
/// revision whose findings are known cannot affect it (the file that defines it).
pub enum Checked {
    Rendered(std::sync::Arc<Rendered>),
    Unaffected(crate::source::RepoPath),
}

/// The report for one revision (`check`): every target unchanged or in error.
pub fn single_report(
    targets: &[Target],
    checked: &[Checked],
    head: RevisionInfo,
    extra_findings: Vec<Finding>,
) -> Report {
    let mut findings = extra_findings;
    let mut reports = Vec::new();
    let mut coverage = Vec::new();
    for (t, c) in targets.iter().zip(checked) {
        coverage.push(t.coverage());
        let r = match c {
            Checked::Rendered(r) => r,
            Checked::Unaffected(file) => {
                reports.push(TargetReport {
                    incomplete_reason: None,
                    id: t.id(),
                    kind: t.kind().to_string(),
                    status: TargetStatus::Unchanged,
                    file: Some(file.to_string()),
                    cached: true,
                    position: None,
                    incomplete: false,
                    changes: Vec::new(),
                    sources: Default::default(),
                });
                continue;
            }
        };
        findings.extend(r.findings.iter().cloned());
        reports.push(TargetReport {
            incomplete_reason: None,
            id: t.id(),
            kind: t.kind().to_string(),
            status: if r.ok {
                TargetStatus::Unchanged
            } else {
                TargetStatus::Error
            },
            file: Some(r.file.to_string()),
            cached: false,
            position: None,
            incomplete: r.ok && !r.complete,
            changes: Vec::new(),
            sources: crate::report::RemoteSources {
                base: Default::default(),
                head: r.read_set.remote_sources(),
            },
        });
    }
    let rendered = checked
        .iter()
        .filter(|c| matches!(c, Checked::Rendered(_)))
        .count();
    let summary = Summary {
        targets: targets.len(),
        rendered,
        cached: checked.len() - rendered,
        incomplete: reports.iter().filter(|t| t.incomplete).count(),
        ..Summary::default()
    };
    finish(None, head, reports, &coverage, findings, summary)
}

/// The report: findings sorted and deduplicated, the reason each incomplete target gives, the
/// coverage counts (`targets[i]` adds to the count `coverage[i]` names) and the error count.
fn finish(
    base: Option<RevisionInfo>,
    head: RevisionInfo,
    targets: Vec<TargetReport>,
    coverage: &[Option<Coverage>],
    mut findings: Vec<Finding>,
    mut summary: Summary,
) -> Report {
    debug_assert_eq!(targets.len(), coverage.len(), "a coverage per target");
    findings.sort_by(|a, b| {
        (a.severity, &a.target, &a.file, a.line, &a.rule)
            .cmp(&(b.severity, &b.target, &b.file, b.line, &b.rule))
    });
    findings.dedup();
    let mut targets = targets;
    let mut apps = crate::report::AppCoverage::default();
    let mut flux = crate::report::AppCoverage::default();
    for (t, counted_in) in targets.iter_mut().zip(coverage) {
        let coverage = match counted_in {
            Some(Coverage::Applications) => Some(&mut apps),
            Some(Coverage::Flux) => Some(&mut flux),
            None => None,
        };
        if t.incomplete {
            let why = findings
                .iter()
                .find(|f| f.is_incomplete() && f.target.as_deref() == Some(t.id.as_str()));
            t.incomplete_reason =
                why.map(|f| f.message.lines().next().unwrap_or_default().to_string());
            if let Some(c) = coverage {
                c.incomplete += 1;
                let class = why.map_or("unknown", crate::report::incomplete_class);
                *c.reasons.entry(class.to_string()).or_default() += 1;
            }
        } else if let Some(c) = coverage.filter(|_| t.status != TargetStatus::Error) {
            c.complete += 1;
        }
    }
    if apps.complete + apps.incomplete > 0 {
        summary.applications = Some(apps);
    }
    if flux.complete + flux.incomplete > 0 {
        summary.flux = Some(flux);
    }
    summary.errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error && f.counts())
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
