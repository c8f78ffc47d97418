//! The report: what changed per target and every finding, independent of any output format.

use serde::Serialize;

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Notice,
}

impl Severity {
    /// `error`, `warning` or `notice`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Notice => "notice",
        }
    }
}

/// Which side of a diff a finding was made on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Base,
    Head,
}

/// A diagnostic with a stable rule id, pointing at the file and line that caused it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub severity: Severity,
    /// Stable dotted id, e.g. `kustomize.replacement.source-not-found` (docs/rules.md).
    pub rule: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<Side>,
    /// True when the finding means the target's output lacks something kdelta did not fetch or
    /// cannot render yet (a remote base, a chart not inflated): the output is incomplete.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub incomplete: bool,
}

impl Finding {
    /// A finding with no location yet.
    pub fn new(severity: Severity, rule: &str, message: impl Into<String>) -> Finding {
        Finding {
            severity,
            rule: rule.to_string(),
            target: None,
            file: None,
            line: None,
            column: None,
            message: message.into(),
            help: None,
            revision: None,
            incomplete: false,
        }
    }

    /// Marks the finding as one that leaves the target's output incomplete.
    pub fn incomplete(mut self) -> Finding {
        self.incomplete = true;
        self
    }

    /// An error finding.
    pub fn error(rule: &str, message: impl Into<String>) -> Finding {
        Finding::new(Severity::Error, rule, message)
    }

    /// A warning finding.
    pub fn warning(rule: &str, message: impl Into<String>) -> Finding {
        Finding::new(Severity::Warning, rule, message)
    }

    /// A notice finding.
    pub fn notice(rule: &str, message: impl Into<String>) -> Finding {
        Finding::new(Severity::Notice, rule, message)
    }

    /// Points the finding at a file (and a line and column when known, 0 meaning unknown).
    pub fn at(mut self, file: impl Into<String>, line: u32, column: u32) -> Finding {
        self.file = Some(file.into());
        self.line = (line > 0).then_some(line);
        self.column = (column > 0).then_some(column);
        self
    }

    /// Points the finding at a file without a line.
    pub fn in_file(mut self, file: impl Into<String>) -> Finding {
        self.file = Some(file.into());
        self
    }

    /// Attaches the target id.
    pub fn for_target(mut self, target: impl Into<String>) -> Finding {
        self.target = Some(target.into());
        self
    }

    /// Adds a hint on how to fix it.
    pub fn with_help(mut self, help: impl Into<String>) -> Finding {
        self.help = Some(help.into());
        self
    }

    /// `file:line:column` as far as known.
    pub fn location(&self) -> Option<String> {
        let file = self.file.as_ref()?;
        Some(match (self.line, self.column) {
            (Some(l), Some(c)) => format!("{file}:{l}:{c}"),
            (Some(l), None) => format!("{file}:{l}"),
            _ => file.clone(),
        })
    }
}

/// What happened to one resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    Added,
    Removed,
    Modified,
    Renamed,
}

/// One changed field: a kdelta path (`spec.template.spec.containers[name=app].image`) and the
/// values on each side; a side is absent when the field does not exist there.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldChange {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<serde_json::Value>,
}

/// A changed resource.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change {
    /// `group/version/Kind/namespace/name` at head (at base for removals).
    pub resource: String,
    pub change: ChangeKind,
    /// For renames and moves: the id at base.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// For a move from another target: that target's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_target: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldChange>,
    /// The whole object as added or removed (Secret values redacted), for writers that show it.
    #[serde(skip)]
    pub body: Option<serde_json::Value>,
}

impl Change {
    /// Where a renamed or moved object came from: its old id, prefixed by its old target when
    /// it moved between targets (`dir:one core/v1/ConfigMap/a/shared`).
    pub fn origin(&self) -> Option<String> {
        let from = self.from.as_ref()?;
        Some(match &self.from_target {
            Some(t) => format!("{t} {from}"),
            None => from.clone(),
        })
    }
}

/// The state of a target between the two revisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TargetStatus {
    Added,
    Removed,
    Modified,
    Unchanged,
    Error,
}

/// One target's result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TargetReport {
    pub id: String,
    pub kind: String,
    pub status: TargetStatus,
    /// The file that defines the target (kustomization, Chart.yaml, ApplicationSet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// True when the head render was skipped because every input had the same object id.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
    /// True when the output (at head; at base for a removed target) lacks something kdelta
    /// did not fetch or cannot render yet; the findings marked `incomplete` say what.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub incomplete: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<Change>,
}

/// A revision as the user named it and the commit it resolved to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RevisionInfo {
    pub rev: String,
    pub commit: Option<String>,
}

/// Counts for the summary line and table.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub targets: usize,
    pub rendered: usize,
    pub cached: usize,
    pub modified: usize,
    pub added: usize,
    pub removed: usize,
    pub errors: usize,
    /// Targets whose output is incomplete (see [`TargetReport::incomplete`]).
    #[serde(skip_serializing_if = "is_zero")]
    pub incomplete: usize,
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
    /// True when a finding that counts for the exit code is an error (head side, or no side).
    pub fn has_errors(&self) -> bool {
        self.findings
            .iter()
            .any(|f| f.severity == Severity::Error && f.revision != Some(Side::Base))
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
