//! GitHub Actions workflow commands (`--format github`): an `::error`/`::warning`/`::notice`
//! annotation per finding at its file and line, and a `::notice` per changed target at the file
//! that defines it. Annotations name changed fields but never show values, so no Secret can
//! leak through them.
//!
//! Escaping follows the runner's rules: in the message `%`, `\r` and `\n` are percent-encoded;
//! in properties `:` and `,` are too. Every command is therefore exactly one line, and nothing a
//! value contains can start another command.

use super::view;
use super::{Change, ChangeKind, Finding, Report, Severity, Side, TargetReport, TargetStatus};
use std::fmt::Write;

/// Most changed resources listed in one target's notice.
const CHANGES_MAX: usize = 10;

/// Most field paths listed for one resource.
const FIELDS_MAX: usize = 5;

/// Annotations of one kind GitHub shows per step; the rest stay in the log only.
pub const SHOWN_PER_KIND: usize = 10;

/// The annotations for a report, one workflow command per line. Findings come first, errors
/// before warnings before notices, then a notice per changed target. GitHub shows only the
/// first [`SHOWN_PER_KIND`] of each kind, silently; when there are more, a first notice says
/// so, so nobody mistakes the annotations for the whole story.
pub fn to_string(report: &Report) -> String {
    let mut out = String::new();
    let mut findings: Vec<&Finding> = report.findings.iter().collect();
    findings.sort_by_key(|f| f.severity);
    let changed: Vec<&TargetReport> = report
        .targets
        .iter()
        .filter(|t| {
            matches!(
                t.status,
                TargetStatus::Added | TargetStatus::Removed | TargetStatus::Modified
            )
        })
        .collect();
    let (mut errors, mut warnings, mut notices) = (0, 0, changed.len());
    for f in &findings {
        match level(f) {
            "error" => errors += 1,
            "warning" => warnings += 1,
            _ => notices += 1,
        }
    }
    if errors.max(warnings).max(notices + 1) > SHOWN_PER_KIND {
        let message = format!(
            "kdelta wrote {}, {} and {}; GitHub shows {SHOWN_PER_KIND} of each kind per step. \
             All of them are in this step's log and in the step summary.",
            view::plural(errors, "error annotation"),
            view::plural(warnings, "warning annotation"),
            view::plural(notices, "notice annotation"),
        );
        command(
            &mut out,
            "notice",
            &[(
                "title",
                "kdelta: more annotations than GitHub shows".to_string(),
            )],
            &message,
        );
    }
    for f in findings {
        finding(&mut out, f);
    }
    for t in changed {
        target(&mut out, t);
    }
    out
}

/// The annotation level of a finding: its severity, except that findings at base are notices.
fn level(f: &Finding) -> &'static str {
    if f.revision == Some(Side::Base) {
        "notice"
    } else {
        f.severity.as_str()
    }
}

fn finding(out: &mut String, f: &Finding) {
    // A finding at base points at lines of the old revision, which the pull request's diff does
    // not show; it is reported as a notice on the file, without a line.
    let base = f.revision == Some(Side::Base);
    let level = level(f);
    let mut props = Vec::new();
    if let Some(file) = &f.file {
        props.push(("file", file.clone()));
        if !base {
            if let Some(l) = f.line {
                props.push(("line", l.to_string()));
                if let Some(c) = f.column {
                    props.push(("col", c.to_string()));
                }
            }
        }
    }
    let title = if base {
        format!("{} (base revision, {})", f.rule, f.severity.as_str())
    } else {
        format!("{}{}", f.rule, f.baseline_label())
    };
    props.push(("title", title));
    let mut message = f.message.clone();
    for c in &f.context {
        let _ = write!(message, "\nnote: {c}");
    }
    if let Some(h) = &f.help {
        let _ = write!(message, "\nhelp: {h}");
    }
    if let Some(t) = &f.target {
        let _ = write!(message, "\ntarget: {t}");
    }
    command(out, level, &props, &message);
}

fn target(out: &mut String, t: &TargetReport) {
    let mut props = Vec::new();
    if let Some(file) = &t.file {
        props.push(("file", file.clone()));
    }
    props.push((
        "title",
        format!("kdelta: {} {}", t.id, view::status_label(t)),
    ));
    let mut message = if t.changes.is_empty() {
        "no resource changes".to_string()
    } else {
        format!(
            "{}: {}",
            view::resources(t.changes.len()),
            view::change_counts(&t.changes)
        )
    };
    for c in t.changes.iter().take(CHANGES_MAX) {
        message.push('\n');
        message.push_str(&change_line(c));
    }
    if t.changes.len() > CHANGES_MAX {
        let _ = write!(
            message,
            "\n… and {} more",
            view::resources(t.changes.len() - CHANGES_MAX)
        );
    }
    command(out, Severity::Notice.as_str(), &props, &message);
}

/// `~ resource: path, path (+3 more)` — names only, never values.
fn change_line(c: &Change) -> String {
    let mut line = match (c.change, c.origin()) {
        (ChangeKind::Renamed, Some(from)) => format!("~ {from} → {}", c.resource),
        (ChangeKind::Added, _) => format!("+ {}", c.resource),
        (ChangeKind::Removed, _) => format!("- {}", c.resource),
        _ => format!("~ {}", c.resource),
    };
    if let Some(reason) = &c.reason {
        let _ = write!(line, " ({reason})");
    }
    if !c.fields.is_empty() {
        let paths: Vec<&str> = c
            .fields
            .iter()
            .take(FIELDS_MAX)
            .map(|f| f.path.as_str())
            .collect();
        let _ = write!(line, ": {}", paths.join(", "));
        if c.fields.len() > FIELDS_MAX {
            let _ = write!(line, " (+{} more)", c.fields.len() - FIELDS_MAX);
        }
    }
    line
}

/// One workflow command line: `::level prop=value,prop=value::message`.
fn command(out: &mut String, level: &str, props: &[(&str, String)], message: &str) {
    out.push_str("::");
    out.push_str(level);
    for (i, (k, v)) in props.iter().enumerate() {
        out.push(if i == 0 { ' ' } else { ',' });
        out.push_str(k);
        out.push('=');
        out.push_str(&escape_property(v));
    }
    out.push_str("::");
    out.push_str(&escape_data(message));
    out.push('\n');
}

/// Escapes a command's message (`%`, `\r`, `\n`).
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a command property's value (the message escapes, plus `:` and `,`).
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_follow_the_runner() {
        assert_eq!(escape_data("50%\r\nx::y"), "50%25%0D%0Ax::y");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }

    #[test]
    fn more_than_github_shows_is_announced_first() {
        let mut report = crate::report::Report {
            schema: crate::report::REPORT_SCHEMA,
            base: None,
            head: crate::report::RevisionInfo {
                rev: "WORKTREE".into(),
                commit: None,
            },
            targets: Vec::new(),
            findings: Vec::new(),
            summary: Default::default(),
        };
        for i in 0..10 {
            report.findings.push(Finding::warning(
                crate::finding::Rule::example("w"),
                format!("w{i}"),
            ));
        }
        assert!(!to_string(&report).contains("more annotations"));
        report.findings.push(Finding::warning(
            crate::finding::Rule::example("w"),
            "one too many",
        ));
        let out = to_string(&report);
        let first = out.lines().next().unwrap_or_default();
        assert!(
            first.starts_with("::notice title=kdelta%3A more annotations"),
            "{out}"
        );
        assert!(first.contains("11 warning annotations"), "{first}");
    }

    #[test]
    fn every_command_is_one_line() {
        let mut out = String::new();
        command(
            &mut out,
            "error",
            &[("file", "a,b:c.yaml".into()), ("title", "t".into())],
            "line one\n::error::injected",
        );
        assert_eq!(
            out,
            "::error file=a%2Cb%3Ac.yaml,title=t::line one%0A::error::injected\n"
        );
    }
}
