//! How values and counts are presented, shared by the writers for people (Markdown, GitHub
//! annotations, HTML): Secret markers become a sentence, composite values become YAML, and the
//! per-target counts are computed once.

use super::{Change, ChangeKind, FieldChange, Report, TargetReport, TargetStatus};
use crate::redact::is_marker;
use serde_json::Value;

/// What the writers print for a Secret value that changed.
pub const SECRET_CHANGED: &str = "changed (sha256 digest prefix differs)";

/// A field change, classified for display.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldView {
    /// Both sides are redaction markers: the value changed, and that is all that is shown.
    SecretChanged,
    /// A redacted value appeared.
    SecretAdded,
    /// A redacted value disappeared.
    SecretRemoved,
    /// Both sides fit on one line.
    Inline { old: String, new: String },
    /// At least one side spans lines: shown as a line diff.
    Lines { old: String, new: String },
    /// The field appeared (the text may span lines).
    Added(String),
    /// The field disappeared (the text may span lines).
    Removed(String),
    /// Neither side has a value (not produced by the diff; kept total).
    Nothing,
}

/// True when a value is a Secret redaction marker.
pub fn is_secret(v: &Value) -> bool {
    v.as_str().is_some_and(is_marker)
}

/// A value as text: strings raw, other scalars as JSON, maps and lists as block YAML.
pub fn display(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) if a.is_empty() => "[]".to_string(),
        Value::Object(o) if o.is_empty() => "{}".to_string(),
        Value::Array(_) | Value::Object(_) => {
            let mut s = crate::yaml::emit::to_string(v);
            if s.ends_with('\n') {
                s.pop();
            }
            s
        }
        other => other.to_string(),
    }
}

/// Both values as text; when they read the same but differ in type (`50` and `"50"`), as
/// JSON, so the change is visible.
pub fn distinct_display(old: &Value, new: &Value) -> (String, String) {
    let (o, n) = (display(old), display(new));
    if o == n && old != new {
        (old.to_string(), new.to_string())
    } else {
        (o, n)
    }
}

/// True when the text needs more than one line (a carriage return counts: it would break a
/// line in Markdown and in annotations).
pub fn is_multiline(s: &str) -> bool {
    s.contains('\n') || s.contains('\r')
}

/// Classifies a field change.
pub fn field_view(f: &FieldChange) -> FieldView {
    match (&f.old, &f.new) {
        (Some(o), Some(n)) if is_secret(o) || is_secret(n) => FieldView::SecretChanged,
        (None, Some(n)) if is_secret(n) => FieldView::SecretAdded,
        (Some(o), None) if is_secret(o) => FieldView::SecretRemoved,
        (Some(o), Some(n)) => {
            let (old, new) = distinct_display(o, n);
            if is_multiline(&old) || is_multiline(&new) {
                FieldView::Lines { old, new }
            } else {
                FieldView::Inline { old, new }
            }
        }
        (None, Some(n)) => FieldView::Added(display(n)),
        (Some(o), None) => FieldView::Removed(display(o)),
        (None, None) => FieldView::Nothing,
    }
}

/// At most `max` characters of `s`, with an ellipsis and the count of what was cut.
pub fn clip(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    let head: String = s.chars().take(max).collect();
    format!("{head}… ({} more characters)", n - max)
}

/// The lines of a text for a line diff; a lone carriage return is made visible so it cannot
/// end a line early in the output.
pub fn visible_lines(s: &str) -> String {
    s.replace("\r\n", "\n").replace('\r', "␍")
}

/// The word for a change kind.
pub fn change_word(kind: ChangeKind) -> &'static str {
    match kind {
        ChangeKind::Added => "added",
        ChangeKind::Removed => "removed",
        ChangeKind::Modified => "modified",
        ChangeKind::Renamed => "renamed",
    }
}

/// The word for a target status.
pub fn status_word(status: TargetStatus) -> &'static str {
    match status {
        TargetStatus::Added => "added",
        TargetStatus::Removed => "removed",
        TargetStatus::Modified => "modified",
        TargetStatus::Unchanged => "unchanged",
        TargetStatus::Error => "error",
    }
}

/// The status word, with ", incomplete" when the target's output is incomplete.
pub fn status_label(t: &TargetReport) -> String {
    if t.incomplete {
        format!("{}, incomplete", status_word(t.status))
    } else {
        status_word(t.status).to_string()
    }
}

/// True for targets a reader wants to see: anything but unchanged and complete.
pub fn is_shown(t: &TargetReport) -> bool {
    t.status != TargetStatus::Unchanged || t.incomplete
}

/// "2 modified, 1 added" for a target's changes, in a fixed order, zero counts left out.
pub fn change_counts(changes: &[Change]) -> String {
    let mut parts = Vec::new();
    for kind in [
        ChangeKind::Modified,
        ChangeKind::Renamed,
        ChangeKind::Added,
        ChangeKind::Removed,
    ] {
        let n = changes.iter().filter(|c| c.change == kind).count();
        if n > 0 {
            parts.push(format!("{n} {}", change_word(kind)));
        }
    }
    parts.join(", ")
}

/// "3 resources" / "1 resource".
pub fn resources(n: usize) -> String {
    plural(n, "resource")
}

/// `n` and the noun, with an `s` unless `n` is 1.
pub fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Target counts by status, taken from the targets themselves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub targets: usize,
    pub modified: usize,
    pub added: usize,
    pub removed: usize,
    pub unchanged: usize,
    pub failed: usize,
}

/// Counts the report's targets; `targets` is the summary's total when that is larger (a
/// report may summarise targets it does not list).
pub fn counts(report: &Report) -> Counts {
    let mut c = Counts::default();
    for t in &report.targets {
        match t.status {
            TargetStatus::Modified => c.modified += 1,
            TargetStatus::Added => c.added += 1,
            TargetStatus::Removed => c.removed += 1,
            TargetStatus::Unchanged => c.unchanged += 1,
            TargetStatus::Error => c.failed += 1,
        }
    }
    c.targets = report.summary.targets.max(report.targets.len());
    c
}

/// Objects longer than this are summarised by their line count where they are listed.
pub const LARGE_OBJECT_LINES: usize = 100;

/// The line count of a whole added or removed object, when it is large (` (5,123 lines)`).
pub fn large_object(c: &Change) -> Option<String> {
    let n = c
        .body
        .as_ref()
        .map(|b| display(&b.value()).lines().count())?;
    (n > LARGE_OBJECT_LINES).then(|| format!(" ({} lines)", thousands(n)))
}

/// A count with thousands separators (`65,536`).
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// True for the findings a reader needs right after the errors: a Helm subchart switched on
/// or off between the revisions.
pub fn is_toggle(f: &super::Finding) -> bool {
    f.rule == crate::finding::rules::HELM_SUBCHART_TOGGLED
}

/// The Applications that appear or disappear (with why, when known), by target: as important
/// as the errors, since each brings or takes away a whole deployment.
pub fn applications(report: &Report) -> Vec<(&str, &Change)> {
    let mut out = Vec::new();
    for t in report.targets.iter().filter(|t| is_shown(t)) {
        for c in &t.changes {
            let app =
                c.resource.starts_with("argoproj.io/") && c.resource.contains("/Application/");
            if app && matches!(c.change, ChangeKind::Added | ChangeKind::Removed) {
                out.push((t.id.as_str(), c));
            }
        }
    }
    out
}

/// True when a field path names a container image (`…containers[name=app].image`).
pub fn is_image_path(path: &str) -> bool {
    path == "image" || path.ends_with(".image")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secrets_and_shapes_are_classified() {
        let marker = crate::redact::marker(&json!("s3cr3t"));
        let f = |old: Option<Value>, new: Option<Value>| FieldChange {
            path: "data.pw".into(),
            old,
            new,
        };
        assert_eq!(
            field_view(&f(Some(json!(marker.clone())), Some(json!(marker.clone())))),
            FieldView::SecretChanged
        );
        assert_eq!(
            field_view(&f(None, Some(json!(marker.clone())))),
            FieldView::SecretAdded
        );
        assert_eq!(
            field_view(&f(Some(json!(1)), Some(json!(2)))),
            FieldView::Inline {
                old: "1".into(),
                new: "2".into()
            }
        );
        assert!(matches!(
            field_view(&f(Some(json!("a\nb")), Some(json!("a")))),
            FieldView::Lines { .. }
        ));
        assert_eq!(
            field_view(&f(None, Some(json!({"a": [1, 2]})))),
            FieldView::Added("a:\n- 1\n- 2".into())
        );
        assert_eq!(
            field_view(&f(Some(json!(50)), Some(json!("50")))),
            FieldView::Inline {
                old: "50".into(),
                new: "\"50\"".into()
            }
        );
        assert_eq!(clip("abcdef", 3), "abc… (3 more characters)");
        assert_eq!(thousands(65536), "65,536");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert!(is_image_path("spec.containers[name=app].image"));
        assert!(!is_image_path("spec.imagePullPolicy"));
    }
}
