//! The report: what changed per target and every finding, independent of any output format.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use crate::diff::{Change, ChangeKind, FieldChange};
pub use crate::finding::{Baseline, Finding, Severity, Side};

/// The state of a target between the two revisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TargetStatus {
    Added,
    Removed,
    Modified,
    Unchanged,
    Error,
}

/// One target's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TargetReport {
    pub id: String,
    pub kind: String,
    pub status: TargetStatus,
    /// The file that defines the target (kustomization, Chart.yaml, ApplicationSet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// True when the head render was skipped because every input had the same object id.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
    /// True when the output (at head; at base for a removed target) lacks something kdelta
    /// did not fetch or cannot render yet; the findings marked `incomplete` say what.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub incomplete: bool,
    /// Why the output is incomplete, in one line: the first such finding's message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<Change>,
    /// The remote sources the target rendered from (charts from Helm repositories), per
    /// revision: what was asked for, and the version and digest it resolved to.
    #[serde(default, skip_serializing_if = "RemoteSources::is_empty")]
    pub sources: RemoteSources,
    /// In a sharded run (`--shard`), the target's place among all targets, so that
    /// `merge-reports` puts the shards' targets back in the order one run would have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<usize>,
}

/// Remote sources by revision: source (`helm REPO NAME`) → what it resolved to
/// (`VERSION sha256:…`). A single-revision report fills `head`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoteSources {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub base: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub head: BTreeMap<String, String>,
}

impl RemoteSources {
    /// True when the target read nothing remote.
    pub fn is_empty(&self) -> bool {
        self.base.is_empty() && self.head.is_empty()
    }

    /// The sources whose resolution differs between the revisions: `(request, base, head)`,
    /// with `None` where a revision did not ask for it.
    pub fn changed(&self) -> Vec<(&str, Option<&str>, Option<&str>)> {
        let mut keys: Vec<&String> = self.base.keys().chain(self.head.keys()).collect();
        keys.sort();
        keys.dedup();
        keys.into_iter()
            .filter_map(|k| {
                let (b, h) = (self.base.get(k), self.head.get(k));
                (b != h).then(|| (k.as_str(), b.map(String::as_str), h.map(String::as_str)))
            })
            .collect()
    }
}

pub use crate::source::RevisionInfo;

/// Counts for the summary line and table.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub targets: usize,
    pub rendered: usize,
    pub cached: usize,
    pub modified: usize,
    pub added: usize,
    pub removed: usize,
    pub errors: usize,
    /// Targets whose output is incomplete (see [`TargetReport::incomplete`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub incomplete: usize,
    /// How many Argo CD Applications rendered completely, and why the others did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applications: Option<AppCoverage>,
    /// The same for Flux's Kustomizations and HelmReleases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flux: Option<AppCoverage>,
}

/// The Applications (or Flux objects) of a report: complete, and incomplete by reason.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppCoverage {
    pub complete: usize,
    pub incomplete: usize,
    /// Incomplete Applications by reason (`not fetched`, `config management plugin`, …).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub reasons: BTreeMap<String, usize>,
}

impl AppCoverage {
    /// Both counts and reasons added up (shards of one run).
    pub fn add(&mut self, other: &AppCoverage) {
        self.complete += other.complete;
        self.incomplete += other.incomplete;
        for (k, v) in &other.reasons {
            *self.reasons.entry(k.clone()).or_default() += v;
        }
    }

    /// `40 complete, 10 incomplete (6 not fetched, 4 config management plugin)`.
    pub fn line(&self) -> String {
        let mut out = format!("{} complete, {} incomplete", self.complete, self.incomplete);
        if !self.reasons.is_empty() {
            let mut reasons: Vec<(&String, &usize)> = self.reasons.iter().collect();
            reasons.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let parts: Vec<String> = reasons.iter().map(|(k, v)| format!("{v} {k}")).collect();
            out.push_str(&format!(" ({})", parts.join(", ")));
        }
        out
    }
}

/// The reason class of a finding that makes an output incomplete, for the coverage counts.
pub fn incomplete_class(f: &Finding) -> &'static str {
    f.incomplete.map_or(f.rule.id, |why| why.class(f.rule))
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Everything one run found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub schema: &'static str,
    pub base: Option<RevisionInfo>,
    pub head: RevisionInfo,
    pub targets: Vec<TargetReport>,
    pub findings: Vec<Finding>,
    pub summary: Summary,
}

/// The JSON schema id of [`Report`].
pub const REPORT_SCHEMA: &str = "kdelta/report/v1";

impl Report {
    /// True when a finding that counts for the exit code is an error (head side, or no side;
    /// not a validation finding the base revision has too).
    pub fn has_errors(&self) -> bool {
        self.findings
            .iter()
            .any(|f| f.severity == Severity::Error && f.counts())
    }

    /// True when any target changed.
    pub fn has_changes(&self) -> bool {
        self.targets.iter().any(|t| {
            matches!(
                t.status,
                TargetStatus::Added | TargetStatus::Removed | TargetStatus::Modified
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::{rules, Incomplete};

    #[test]
    fn incomplete_findings_are_counted_by_reason() {
        let class = |rule, why| incomplete_class(&Finding::notice(rule, "…").incomplete(why));
        assert_eq!(
            class(rules::KUSTOMIZE_HELM_NOT_FETCHED, Incomplete::NotFetched),
            "remote source not fetched"
        );
        assert_eq!(
            class(rules::APP_SOURCE_NOT_RENDERED, Incomplete::Plugin),
            "config management plugin"
        );
        assert_eq!(
            class(rules::FLUX_NOT_RENDERED, Incomplete::FluxOutside),
            "Flux source or object not in the repository"
        );
        // Another reason counts under its rule; a finding that is not one, under its rule too.
        assert_eq!(
            class(rules::FLUX_INVALID, Incomplete::Other),
            "flux.invalid"
        );
        assert_eq!(
            incomplete_class(&Finding::notice(rules::FLUX_INVALID, "…")),
            "flux.invalid"
        );
    }
}
