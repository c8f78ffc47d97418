//! Markdown for a pull-request comment and for `$GITHUB_STEP_SUMMARY` (`--format markdown`,
//! `--markdown FILE`): a summary table on top, the errors, the image changes (one row per
//! image), the changes found in several targets (once each), one collapsible `<details>` block
//! per changed target (failed, removed, added, modified first), then the other findings.
//!
//! The output follows GitHub's Markdown rules: a blank line between the `<summary>` line and
//! the Markdown inside a `<details>` block (an HTML block ends at a blank line), HTML-escaped
//! text inside `<summary>`, code spans and fences longer than any backtick run they contain.
//! When the whole report does not fit in the size limit (GitHub rejects comments over 65,536
//! characters), every changed target is still named in a table, every error and image change
//! is kept, and whole entries are dropped from the end of the rest, never cutting a fence or a
//! `<details>` block; a note at the top says what was left out and where the whole report is.
//!
//! This file writes the sections; `budget` fits them into the limit and `escape` makes text
//! safe in each Markdown context.

use super::overview::{ChangeGroup, ImageChange, Overview};
use super::view::{self, FieldView};
use super::TargetStatus;
use super::{revision, textdiff};
use super::{Change, ChangeKind, FieldChange, Finding, Report, Severity, Side, TargetReport};
use budget::{Parts, TargetBlock};
use escape::backtick_run;
use std::fmt::Write;

mod budget;
mod escape;
pub use escape::{code, html, text};

/// GitHub's limit for the body of an issue or pull-request comment, in characters.
pub const GITHUB_COMMENT_LIMIT: usize = 65_536;

/// The smallest limit honoured: below it the summary table alone might not fit.
pub const MIN_LIMIT: usize = 2_048;

/// An invisible first line, so a CI job can find and update its previous comment.
pub const COMMENT_MARKER: &str = "<!-- kdelta-report -->";

/// Grouped changes a target's block names before "and N more".
const GROUPED_NAMED: usize = 5;

/// Targets a change found in several targets names before "and N more".
const GROUP_TARGETS_NAMED: usize = 10;

/// Longest value shown inline; longer ones are clipped with a count of what was cut.
const INLINE_MAX: usize = 200;

/// Most diff lines shown for one multi-line field.
const DIFF_LINES_MAX: usize = 200;

/// Longest diff line shown; longer ones are clipped with a count of what was cut.
const DIFF_LINE_MAX: usize = 1_000;

/// Writer settings.
#[derive(Clone, Debug)]
pub struct MarkdownOptions {
    /// Largest output, in bytes (which is never less than GitHub's character count).
    pub max_len: usize,
    /// Where the whole report is when this one is cut (a CI artifact's name), for the note.
    pub full_report: Option<String>,
}

impl Default for MarkdownOptions {
    fn default() -> Self {
        MarkdownOptions {
            max_len: GITHUB_COMMENT_LIMIT,
            full_report: None,
        }
    }
}

/// The report as Markdown, at most `opts.max_len` bytes long (or [`MIN_LIMIT`] if that is
/// larger): the summary, the errors, the image changes, the changes found in several targets,
/// each changed target (failed, removed, added, modified), the other findings.
pub fn to_string(report: &Report, opts: &MarkdownOptions) -> String {
    let max = opts.max_len.max(MIN_LIMIT);
    let shown = super::text::by_importance(report);
    let overview = Overview::of(report);
    // Errors and subcharts switched on or off are never left out; the rest may be.
    let (mut errors, mut others): (Vec<&Finding>, Vec<&Finding>) =
        report.findings.iter().partition(|f| {
            (f.severity == Severity::Error && f.revision != Some(Side::Base)) || view::is_toggle(f)
        });
    // Most severe first; the report's own order is kept within a severity.
    errors.sort_by_key(|f| f.severity);
    others.sort_by_key(|f| f.severity);

    // Blocks are rendered only until they alone overflow the limit: what comes after is left
    // out anyway, so a huge report costs about as much as a full comment.
    let mut blocks: Vec<TargetBlock> = Vec::new();
    let mut targets_len = 0;
    for t in &shown {
        if targets_len > max {
            break;
        }
        let b = target_block(t, &overview, max);
        targets_len += b.len();
        blocks.push(b);
    }
    let no_changes = if shown.is_empty() && report.base.is_some() {
        "No target changed.\n\n"
    } else {
        ""
    };
    budget::fit(
        Parts {
            header: header(report),
            no_changes,
            errors_title: if errors.iter().all(|f| f.severity == Severity::Error)
                && view::applications(report).is_empty()
            {
                "Errors"
            } else {
                "Errors, subcharts and Applications"
            },
            errors: errors
                .iter()
                .map(|f| finding_item(f))
                .chain(view::applications(report).into_iter().map(application_item))
                .collect(),
            images: images_section(&overview.images),
            groups: overview.groups.iter().map(group_item).collect(),
            group_changes: overview
                .groups
                .iter()
                .map(|g| g.occurrences.len())
                .collect(),
            own_changes: shown
                .iter()
                .map(|t| {
                    t.changes
                        .iter()
                        .filter(|c| overview.group_of(&t.id, c).is_none())
                        .count()
                })
                .collect(),
            overview: shown.iter().map(|t| overview_row(t)).collect(),
            shown: &shown,
            blocks,
            findings: others.iter().map(|f| finding_item(f)).collect(),
            full_report: opts.full_report.as_deref(),
        },
        max,
    )
}

/// An Application that appears or disappears, with why.
fn application_item((target, c): (&str, &Change)) -> String {
    let (word, at) = match c.change {
        ChangeKind::Added => ("added", "in"),
        _ => ("removed", "from"),
    };
    let why = c
        .reason
        .as_deref()
        .map(|r| format!(": {}", text(r)))
        .unwrap_or_default();
    format!(
        "- 🚀 **Application {word}** {} {at} {}{why}\n",
        code(&c.resource),
        code(target)
    )
}

/// The image changes as a table, one row per image change.
fn images_section(images: &[ImageChange]) -> String {
    if images.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "### Image changes ({})\n\n| Image | Change | Targets |\n| --- | --- | ---: |\n",
        images.len()
    );
    for i in images {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            cell(&code(&i.image)),
            cell(&text(&i.transition())),
            i.targets.len()
        );
    }
    out.push('\n');
    out
}

/// Text made safe in a table cell (a `|` would split it).
fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// A change found in several targets: collapsible, its field changes and where it occurs.
fn group_item(g: &ChangeGroup) -> String {
    let targets = g.targets();
    let mut out = format!(
        "<details>\n<summary><b>{}</b> <code>{}</code> · in {}</summary>\n\n",
        view::change_word(g.change),
        html(&g.resource),
        view::plural(targets.len(), "target")
    );
    out.push_str(&change_item(&g.change()));
    let names: Vec<String> = targets
        .iter()
        .take(GROUP_TARGETS_NAMED)
        .map(|t| code(t))
        .collect();
    let more = match targets.len().saturating_sub(GROUP_TARGETS_NAMED) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    let _ = writeln!(out, "- in {}{more}", names.join(", "));
    out.push_str("\n</details>\n\n");
    out
}

/// A changed target as a row of the overview table (shown when the details do not all fit).
fn overview_row(t: &TargetReport) -> String {
    let detail = match t.status {
        TargetStatus::Error => "could not be rendered".to_string(),
        _ if t.changes.is_empty() => "no resource changes".to_string(),
        _ => view::change_counts(&t.changes),
    };
    format!(
        "| {} | {} | {} |\n",
        cell(&code(&t.id)),
        view::status_label(t),
        cell(&text(&detail))
    )
}

/// The block for a target; items stop once they exceed `cap` bytes (such a block can only be
/// shown cut short, and the items after the cap would never be shown).
fn target_block(t: &TargetReport, overview: &Overview, cap: usize) -> TargetBlock {
    let detail = match t.status {
        TargetStatus::Error => "could not be rendered".to_string(),
        _ if t.changes.is_empty() => "no resource changes".to_string(),
        _ => view::change_counts(&t.changes),
    };
    let open = format!(
        "<details>\n<summary><code>{}</code> · <b>{}</b> · {}</summary>\n\n",
        html(&t.id),
        view::status_label(t),
        html(&detail)
    );
    let mut items = Vec::new();
    if t.status == TargetStatus::Error && t.changes.is_empty() {
        items.push((
            "The target could not be rendered at head; its errors are listed under \
             **Errors**.\n"
                .to_string(),
            0,
        ));
    } else {
        // The changes it shares with other targets are one line; its own follow.
        let (shared, own): (Vec<&Change>, Vec<&Change>) = t
            .changes
            .iter()
            .partition(|c| overview.group_of(&t.id, c).is_some());
        if !shared.is_empty() {
            let names: Vec<String> = shared
                .iter()
                .take(GROUPED_NAMED)
                .map(|c| code(&c.resource))
                .collect();
            let more = match shared.len().saturating_sub(GROUPED_NAMED) {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            items.push((
                format!(
                    "- {} also in other targets, under *Changes in several targets*: {}{more}\n",
                    view::plural(shared.len(), "change"),
                    names.join(", ")
                ),
                shared.len(),
            ));
        }
        let mut len = 0;
        for c in own {
            if len > cap {
                break;
            }
            let item = change_item(c);
            len += item.len();
            items.push((item, 1));
        }
    }
    TargetBlock {
        open,
        items: items.iter().map(|(i, _)| i.clone()).collect(),
        item_changes: items.iter().map(|(_, n)| *n).collect(),
        close: "\n</details>\n\n",
        changes: t.changes.len(),
    }
}

fn header(report: &Report) -> String {
    let c = view::counts(report);
    let changed = c.modified + c.added + c.removed;
    let mut out = String::new();
    let _ = writeln!(out, "{COMMENT_MARKER}");
    let what = if report.base.is_some() {
        if changed == 0 {
            "no target changed".to_string()
        } else {
            format!("{} changed", view::plural(changed, "target"))
        }
    } else {
        format!("{} checked", view::plural(c.targets, "target"))
    };
    let errors = if report.summary.errors > 0 {
        format!(", {}", view::plural(report.summary.errors, "error"))
    } else {
        String::new()
    };
    let _ = writeln!(out, "## kdelta: {what}{errors}\n");
    let _ = writeln!(out, "{}\n", revision::line(report, rev));
    let _ = writeln!(
        out,
        "| Targets | Modified | Added | Removed | Unchanged | Errors |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: |\n\
         | {} | {} | {} | {} | {} | {} |\n",
        c.targets, c.modified, c.added, c.removed, c.unchanged, report.summary.errors
    );
    let mut notes = vec![format!(
        "{} rendered, {} from cache",
        report.summary.rendered, report.summary.cached
    )];
    if c.failed > 0 {
        notes.push(format!(
            "{} could not be rendered",
            view::plural(c.failed, "target")
        ));
    }
    let warnings = count(report, Severity::Warning);
    let notices = count(report, Severity::Notice);
    if warnings + notices > 0 {
        notes.push(format!(
            "{}, {}",
            view::plural(warnings, "warning"),
            view::plural(notices, "notice")
        ));
    }
    if let Some(apps) = &report.summary.applications {
        notes.push(format!("Argo CD Applications: {}", apps.line()));
    }
    if let Some(flux) = &report.summary.flux {
        notes.push(format!(
            "Flux Kustomizations and HelmReleases: {}",
            flux.line()
        ));
    }
    let _ = writeln!(out, "{}\n", notes.join(" · "));
    out
}

fn count(report: &Report, severity: Severity) -> usize {
    report
        .findings
        .iter()
        .filter(|f| f.severity == severity)
        .count()
}

/// A revision as a code span, its abbreviated commit beside it.
fn rev(name: &str, commit: Option<&str>) -> String {
    match commit {
        Some(c) => format!("{} ({})", code(name), code(revision::short_commit(c))),
        None => code(name),
    }
}

/// One resource change as a list item, its field changes nested under it.
fn change_item(c: &Change) -> String {
    let mut out = String::new();
    let word = view::change_word(c.change);
    match (c.change, c.origin()) {
        (ChangeKind::Renamed, Some(from)) => {
            let _ = writeln!(out, "- **{word}** {} → {}", code(&from), code(&c.resource));
        }
        _ => {
            let size = view::large_object(c).unwrap_or_default();
            let _ = writeln!(out, "- **{word}** {}{size}", code(&c.resource));
        }
    }
    if let Some(reason) = &c.reason {
        let _ = writeln!(out, "  - {}", escape::text(reason));
    }
    for f in &c.fields {
        field_item(&mut out, f);
    }
    out
}

/// A field change as a nested list item: `path`: `old` → `new`, or a fenced diff under it.
fn field_item(out: &mut String, f: &FieldChange) {
    let path = code(&f.path);
    match view::field_view(f) {
        FieldView::SecretChanged => {
            let _ = writeln!(out, "  - {path}: {}", view::SECRET_CHANGED);
        }
        FieldView::SecretAdded => {
            let _ = writeln!(out, "  - {path}: added (value redacted)");
        }
        FieldView::SecretRemoved => {
            let _ = writeln!(out, "  - {path}: removed (value redacted)");
        }
        FieldView::Inline { old, new } => {
            let _ = writeln!(
                out,
                "  - {path}: {} → {}",
                value_code(&old),
                value_code(&new)
            );
        }
        FieldView::Lines { old, new } => {
            let _ = writeln!(out, "  - {path}:");
            fenced_diff(out, &unified(&old, &new));
        }
        FieldView::Added(v) if view::is_multiline(&v) => {
            let _ = writeln!(out, "  - {path}: added");
            fenced_diff(out, &prefixed(&v, '+'));
        }
        FieldView::Added(v) => {
            let _ = writeln!(out, "  - {path}: added {}", value_code(&v));
        }
        FieldView::Removed(v) if view::is_multiline(&v) => {
            let _ = writeln!(out, "  - {path}: removed");
            fenced_diff(out, &prefixed(&v, '-'));
        }
        FieldView::Removed(v) => {
            let _ = writeln!(out, "  - {path}: removed (was {})", value_code(&v));
        }
        FieldView::Nothing => {}
    }
}

/// A unified diff of two texts, three lines of context, without file headers.
fn unified(old: &str, new: &str) -> Vec<String> {
    let (old, new) = (view::visible_lines(old), view::visible_lines(new));
    textdiff::line_diff(&old, &new).unified(3)
}

fn prefixed(text: &str, sign: char) -> Vec<String> {
    view::visible_lines(text)
        .lines()
        .map(|l| format!("{sign}{l}"))
        .collect()
}

/// A ```diff fence at the indentation of a nested list item's content, its fence longer than
/// any backtick run inside, at most [`DIFF_LINES_MAX`] lines.
fn fenced_diff(out: &mut String, lines: &[String]) {
    let shown = &lines[..lines.len().min(DIFF_LINES_MAX)];
    let longest = shown.iter().map(|l| backtick_run(l)).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let _ = writeln!(out, "    {fence}diff");
    for l in shown {
        let _ = writeln!(out, "    {}", view::clip(l, DIFF_LINE_MAX));
    }
    let _ = writeln!(out, "    {fence}");
    if lines.len() > shown.len() {
        let _ = writeln!(
            out,
            "    *… {} not shown*",
            view::plural(lines.len() - shown.len(), "more diff line")
        );
    }
}

fn finding_item(f: &Finding) -> String {
    let icon = match f.severity {
        Severity::Error => "❌",
        Severity::Warning => "⚠️",
        Severity::Notice => "ℹ️",
    };
    let mut out = format!("- {icon} **{}** {}", f.severity.as_str(), code(f.rule.id));
    if let Some(loc) = f.location() {
        let _ = write!(out, " at {}", code(&loc));
    }
    if let Some(t) = &f.target {
        let _ = write!(out, " in {}", code(t));
    }
    if f.revision == Some(Side::Base) && f.baseline.is_none() {
        out.push_str(" (base revision)");
    }
    out.push_str(&f.baseline_label());
    let _ = writeln!(out, ": {}", text(&f.message));
    for c in &f.context {
        let _ = writeln!(out, "  - note: {}", text(c));
    }
    if let Some(h) = &f.help {
        let _ = writeln!(out, "  - help: {}", text(h));
    }
    out
}

/// A value as a code span, clipped; the empty string is named rather than shown as nothing.
fn value_code(v: &str) -> String {
    if v.is_empty() {
        "*(empty string)*".to_string()
    } else {
        code(&view::clip(v, INLINE_MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_outgrow_backticks_in_values() {
        let mut out = String::new();
        fenced_diff(&mut out, &["-a ```` b".to_string(), "+c".to_string()]);
        assert!(out.starts_with("    `````diff\n"), "{out}");
        assert!(out.ends_with("    `````\n"), "{out}");
    }
}
