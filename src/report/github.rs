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

/// The annotations for a report, one workflow command per line. Findings come first, errors
/// before warnings before notices, because GitHub shows a limited number per step.
pub fn to_string(report: &Report) -> String {
    let mut out = String::new();
    let mut findings: Vec<&Finding> = report.findings.iter().collect();
    findings.sort_by_key(|f| f.severity);
    for f in findings {
        finding(&mut out, f);
    }
    for t in &report.targets {
        if matches!(
            t.status,
            TargetStatus::Added | TargetStatus::Removed | TargetStatus::Modified
        ) {
            target(&mut out, t);
        }
    }
    out
}

fn finding(out: &mut String, f: &Finding) {
    // A finding at base points at lines of the old revision, which the pull request's diff does
    // not show; it is reported as a notice on the file, without a line.
    let base = f.revision == Some(Side::Base);
    let level = if base { "notice" } else { f.severity.as_str() };
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
        f.rule.clone()
    };
    props.push(("title", title));
    let mut message = f.message.clone();
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
        format!("kdelta: {} {}", t.id, view::status_word(t.status)),
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
    let mut line = match (c.change, &c.from) {
        (ChangeKind::Renamed, Some(from)) => format!("~ {from} → {}", c.resource),
        (ChangeKind::Added, _) => format!("+ {}", c.resource),
        (ChangeKind::Removed, _) => format!("- {}", c.resource),
        _ => format!("~ {}", c.resource),
    };
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
