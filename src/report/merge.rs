//! `kdelta merge-reports`: the JSON reports of the shards of one run (`--shard i/n`) joined
//! into the report one unsharded run would have made, from which every writer can work.

use super::{Finding, Report, RevisionInfo, Severity, Side, Summary, TargetReport, REPORT_SCHEMA};
use serde::Deserialize;

/// A JSON report as written (`groups` and `images` are derived, and left out).
#[derive(Deserialize)]
struct Written {
    schema: String,
    base: Option<RevisionInfo>,
    head: RevisionInfo,
    targets: Vec<TargetReport>,
    findings: Vec<Finding>,
    summary: Summary,
}

/// Why reports cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// The text is no report (serde's message has the line and column).
    #[error("{0}")]
    NotJson(#[from] serde_json::Error),
    #[error("schema {found:?} is not {REPORT_SCHEMA:?}")]
    Schema { found: String },
    #[error("no report to merge")]
    Nothing,
    /// Two reports of different runs; each described by its revisions.
    #[error("the reports compare different revisions ({0} and {1}); only shards of one run can be merged")]
    Revisions(String, String),
}

/// A JSON report read back; it must be of schema `kdelta/report/v1`.
pub fn from_json(text: &str) -> Result<Report, MergeError> {
    let w: Written = serde_json::from_str(text)?;
    if w.schema != REPORT_SCHEMA {
        return Err(MergeError::Schema { found: w.schema });
    }
    Ok(Report {
        schema: REPORT_SCHEMA,
        base: w.base,
        head: w.head,
        targets: w.targets,
        findings: w.findings,
        summary: w.summary,
    })
}

/// The shards' reports as one: the same revisions, every target in its unsharded place, the
/// findings joined (those every shard made, such as configuration errors, once), the counts
/// summed.
pub fn merge(reports: Vec<Report>) -> Result<Report, MergeError> {
    let mut reports = reports.into_iter();
    let Some(mut out) = reports.next() else {
        return Err(MergeError::Nothing);
    };
    for r in reports {
        if r.base != out.base || r.head != out.head {
            return Err(MergeError::Revisions(describe(&out), describe(&r)));
        }
        out.targets.extend(r.targets);
        out.findings.extend(r.findings);
        let (a, b) = (&mut out.summary, &r.summary);
        a.targets += b.targets;
        a.rendered += b.rendered;
        a.cached += b.cached;
        a.modified += b.modified;
        a.added += b.added;
        a.removed += b.removed;
        a.incomplete += b.incomplete;
        if let Some(apps) = &b.applications {
            a.applications
                .get_or_insert_with(Default::default)
                .add(apps);
        }
        if let Some(flux) = &b.flux {
            a.flux.get_or_insert_with(Default::default).add(flux);
        }
    }
    // Unsharded order; reports without positions keep theirs, after.
    out.targets
        .sort_by_key(|t| (t.position.is_none(), t.position, t.id.clone()));
    for t in &mut out.targets {
        t.position = None;
    }
    out.findings.sort_by(|a, b| {
        (a.severity, &a.target, &a.file, a.line, &a.rule)
            .cmp(&(b.severity, &b.target, &b.file, b.line, &b.rule))
    });
    out.findings.dedup();
    out.summary = Summary {
        errors: out
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error && f.revision != Some(Side::Base))
            .count(),
        ..out.summary
    };
    Ok(out)
}

fn describe(r: &Report) -> String {
    match &r.base {
        Some(b) => format!("{} → {}", b.rev, r.head.rev),
        None => r.head.rev.clone(),
    }
}
