//! Markdown for a pull-request comment and for `$GITHUB_STEP_SUMMARY` (`--format markdown`,
//! `--markdown FILE`): a summary table on top, one collapsible `<details>` block per changed
//! target, then the findings, errors first.
//!
//! The output follows GitHub's Markdown rules: a blank line between the `<summary>` line and
//! the Markdown inside a `<details>` block (an HTML block ends at a blank line), HTML-escaped
//! text inside `<summary>`, code spans and fences longer than any backtick run they contain.
//! When the whole report does not fit in the size limit (GitHub rejects comments over 65,536
//! characters), whole change entries are dropped from the end, never cutting a fence or a
//! `<details>` block, and a note at the top says what was left out.

use super::view::{self, FieldView};
use super::TargetStatus;
use super::{escape, revision, textdiff};
use super::{Change, ChangeKind, FieldChange, Finding, Report, Severity, Side, TargetReport};
use std::fmt::Write;

/// GitHub's limit for the body of an issue or pull-request comment, in characters.
pub const GITHUB_COMMENT_LIMIT: usize = 65_536;

/// The smallest limit honoured: below it the summary table alone might not fit.
pub const MIN_LIMIT: usize = 2_048;

/// An invisible first line, so a CI job can find and update its previous comment.
pub const COMMENT_MARKER: &str = "<!-- kdelta-report -->";

/// Longest value shown inline; longer ones are clipped with a count of what was cut.
const INLINE_MAX: usize = 200;

/// Most diff lines shown for one multi-line field.
const DIFF_LINES_MAX: usize = 200;

/// Longest diff line shown; longer ones are clipped with a count of what was cut.
const DIFF_LINE_MAX: usize = 1_000;

/// Room kept for the truncation note at the top.
const NOTE_RESERVE: usize = 700;

/// Room kept for an "… N more omitted" line.
const OMISSION_RESERVE: usize = 120;

/// Writer settings.
#[derive(Clone, Copy, Debug)]
pub struct MarkdownOptions {
    /// Largest output, in bytes (which is never less than GitHub's character count).
    pub max_len: usize,
}

impl Default for MarkdownOptions {
    fn default() -> Self {
        MarkdownOptions {
            max_len: GITHUB_COMMENT_LIMIT,
        }
    }
}

/// The report as Markdown, at most `opts.max_len` bytes long (or [`MIN_LIMIT`] if that is
/// larger).
pub fn to_string(report: &Report, opts: MarkdownOptions) -> String {
    let max = opts.max_len.max(MIN_LIMIT);
    let header = header(report);
    let shown: Vec<&TargetReport> = report
        .targets
        .iter()
        .filter(|t| view::is_shown(t))
        .collect();
    let mut findings: Vec<&Finding> = report.findings.iter().collect();
    // Errors first; the report's own order is kept within a severity.
    findings.sort_by_key(|f| f.severity);
    let finding_items: Vec<String> = findings.iter().map(|f| finding_item(f)).collect();
    let findings_len = findings_section_len(&finding_items);

    // Blocks are rendered only until they alone overflow the limit: what comes after is left
    // out anyway, so a huge report costs about as much as a full comment.
    let mut blocks: Vec<TargetBlock> = Vec::new();
    let mut targets_len = 0;
    for t in &shown {
        if targets_len > max {
            break;
        }
        let b = TargetBlock::new(t, max);
        targets_len += b.len();
        blocks.push(b);
    }
    let no_changes = if shown.is_empty() && report.base.is_some() {
        "No target changed.\n\n"
    } else {
        ""
    };
    if header.len() + no_changes.len() + targets_len + findings_len <= max {
        let mut out = header;
        out.push_str(no_changes);
        for b in &blocks {
            b.write_whole(&mut out);
        }
        write_findings(&mut out, &finding_items, finding_items.len(), 0);
        return end_with_one_newline(out);
    }

    // Too long: findings get at most half the room when targets need the rest; targets take
    // what is left, in order, until one does not fit.
    let avail = max.saturating_sub(header.len() + NOTE_RESERVE);
    let findings_budget = avail - targets_len.min(avail / 2);
    let shown_findings = fit_findings(&finding_items, findings_budget);
    let mut findings_out = String::new();
    write_findings(
        &mut findings_out,
        &finding_items,
        shown_findings,
        finding_items.len() - shown_findings,
    );
    let targets_budget = avail.saturating_sub(findings_out.len());
    let mut cut = Cut {
        findings_omitted: finding_items.len() - shown_findings,
        findings_total: finding_items.len(),
        targets_total: shown.len(),
        ..Cut::default()
    };
    let mut targets_out = String::new();
    for (i, b) in blocks.iter().enumerate() {
        let room = targets_budget.saturating_sub(targets_out.len());
        if b.len() <= room {
            b.write_whole(&mut targets_out);
            continue;
        }
        let fixed = b.open.len() + b.close.len() + OMISSION_RESERVE;
        let mut keep = 0;
        let mut used = fixed;
        while keep < b.items.len() && used + b.items[keep].len() <= room {
            used += b.items[keep].len();
            keep += 1;
        }
        let rest = &shown[i..];
        let changes_after: usize = rest.iter().skip(1).map(|t| t.changes.len()).sum();
        if keep > 0 {
            b.write_partial(&mut targets_out, keep);
            cut.targets_partial = 1;
            cut.changes_omitted = b.changes - b.changes_in(keep) + changes_after;
            cut.targets_omitted = rest.len() - 1;
        } else {
            cut.changes_omitted = b.changes + changes_after;
            cut.targets_omitted = rest.len();
        }
        break;
    }
    let mut out = header;
    out.push_str(&cut.note(max));
    out.push_str(&targets_out);
    out.push_str(&findings_out);
    debug_assert!(out.len() <= max, "{} > {max}", out.len());
    end_with_one_newline(out)
}

/// Blocks end in a blank line; the document ends in a single newline so that reports appended
/// one after another (a step summary) are separated by exactly one blank line.
fn end_with_one_newline(mut s: String) -> String {
    while s.ends_with("\n\n") {
        s.pop();
    }
    s
}

/// What truncation left out, for the note.
#[derive(Default)]
struct Cut {
    targets_total: usize,
    targets_omitted: usize,
    targets_partial: usize,
    changes_omitted: usize,
    findings_total: usize,
    findings_omitted: usize,
}

impl Cut {
    fn note(&self, max: usize) -> String {
        let mut parts = Vec::new();
        if self.targets_omitted > 0 {
            parts.push(format!(
                "{} of {} targets left out",
                thousands(self.targets_omitted),
                thousands(self.targets_total)
            ));
        }
        if self.targets_partial > 0 {
            parts.push("1 target cut short".to_string());
        }
        if self.changes_omitted > 0 {
            parts.push(format!(
                "{} resource change{} not shown",
                thousands(self.changes_omitted),
                if self.changes_omitted == 1 { "" } else { "s" }
            ));
        }
        if self.findings_omitted > 0 {
            parts.push(format!(
                "{} of {} findings left out",
                thousands(self.findings_omitted),
                thousands(self.findings_total)
            ));
        }
        if parts.is_empty() {
            parts.push("nothing left out".to_string());
        }
        format!(
            "> [!WARNING]\n> This report was truncated to fit in {} characters: {}. \
             Run `kdelta diff` locally, or write the whole report with `--json FILE` or \
             `kdelta report --html FILE`, to see everything.\n\n",
            thousands(max),
            parts.join("; ")
        )
    }
}

/// One collapsible target, kept in pieces so it can be cut between entries.
struct TargetBlock {
    open: String,
    items: Vec<String>,
    close: &'static str,
    /// How many resource changes the items stand for.
    changes: usize,
    /// Whether the items are one per change (an error target has a single sentence instead).
    per_change: bool,
}

impl TargetBlock {
    /// The block for a target; items stop once they exceed `cap` bytes (such a block can only
    /// be shown cut short, and the items after the cap would never be shown).
    fn new(t: &TargetReport, cap: usize) -> TargetBlock {
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
        let (items, per_change) = if t.status == TargetStatus::Error && t.changes.is_empty() {
            (
                vec![
                    "The target could not be rendered at head; its errors are listed under \
                      **Findings**.\n"
                        .to_string(),
                ],
                false,
            )
        } else {
            let mut items = Vec::new();
            let mut len = 0;
            for c in &t.changes {
                if len > cap {
                    break;
                }
                let item = change_item(c);
                len += item.len();
                items.push(item);
            }
            (items, true)
        };
        TargetBlock {
            open,
            items,
            close: "\n</details>\n\n",
            changes: t.changes.len(),
            per_change,
        }
    }

    fn len(&self) -> usize {
        self.open.len() + self.items.iter().map(String::len).sum::<usize>() + self.close.len()
    }

    fn changes_in(&self, items: usize) -> usize {
        if self.per_change {
            items
        } else {
            0
        }
    }

    fn write_whole(&self, out: &mut String) {
        out.push_str(&self.open);
        for i in &self.items {
            out.push_str(i);
        }
        out.push_str(self.close);
    }

    fn write_partial(&self, out: &mut String, keep: usize) {
        out.push_str(&self.open);
        for i in &self.items[..keep] {
            out.push_str(i);
        }
        let left = self.changes - self.changes_in(keep);
        let _ = writeln!(
            out,
            "- *… {} in this target not shown (report truncated)*",
            view::plural(left, "more resource change")
        );
        out.push_str(self.close);
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
            let _ = writeln!(out, "- **{word}** {}", code(&c.resource));
        }
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
    let mut out = format!("- {icon} **{}** {}", f.severity.as_str(), code(&f.rule));
    if let Some(loc) = f.location() {
        let _ = write!(out, " at {}", code(&loc));
    }
    if let Some(t) = &f.target {
        let _ = write!(out, " in {}", code(t));
    }
    if f.revision == Some(Side::Base) {
        out.push_str(" (base revision)");
    }
    let _ = writeln!(out, ": {}", text(&f.message));
    if let Some(h) = &f.help {
        let _ = writeln!(out, "  - help: {}", text(h));
    }
    out
}

fn findings_section_len(items: &[String]) -> usize {
    let mut s = String::new();
    write_findings(&mut s, items, items.len(), 0);
    s.len()
}

fn findings_heading(total: usize) -> String {
    format!("### Findings ({total})\n\n")
}

/// How many findings fit in `budget` together with the heading and an omission line.
fn fit_findings(items: &[String], budget: usize) -> usize {
    if findings_section_len(items) <= budget {
        return items.len();
    }
    let mut used = findings_heading(items.len()).len() + 1 + OMISSION_RESERVE;
    let mut n = 0;
    while n < items.len() && used + items[n].len() <= budget {
        used += items[n].len();
        n += 1;
    }
    n
}

fn write_findings(out: &mut String, items: &[String], shown: usize, omitted: usize) {
    if items.is_empty() || (shown == 0 && omitted == 0) {
        return;
    }
    out.push_str(&findings_heading(items.len()));
    for i in &items[..shown] {
        out.push_str(i);
    }
    if omitted > 0 {
        let _ = writeln!(
            out,
            "- *… {} not shown (report truncated)*",
            view::plural(omitted, "more finding")
        );
    }
    out.push('\n');
}

/// A value as a code span, clipped; the empty string is named rather than shown as nothing.
fn value_code(v: &str) -> String {
    if v.is_empty() {
        "*(empty string)*".to_string()
    } else {
        code(&view::clip(v, INLINE_MAX))
    }
}

/// A code span that holds `s` literally: its delimiter is longer than any backtick run in
/// `s`, and it is padded when `s` starts or ends with a backtick or a space (CommonMark strips
/// one space from each side).
pub fn code(s: &str) -> String {
    let s = s.replace(['\n', '\r'], " ");
    if s.is_empty() {
        return "` `".to_string();
    }
    let delim = "`".repeat(backtick_run(&s) + 1);
    let pad = s.starts_with('`')
        || s.ends_with('`')
        || (s.starts_with(' ') && s.ends_with(' ') && !s.trim().is_empty());
    if pad {
        format!("{delim} {s} {delim}")
    } else {
        format!("{delim}{s}{delim}")
    }
}

fn backtick_run(s: &str) -> usize {
    let (mut longest, mut run) = (0, 0);
    for c in s.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    longest
}

/// Prose for inline Markdown: every character that could start markup is backslash-escaped
/// (CommonMark allows that for any ASCII punctuation), line breaks become spaces, and `|` is
/// escaped so the text is also safe in a table cell.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~' | '#' | '&' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

/// Text for inside an HTML element (`<summary>`), where Markdown is not processed. It stays on
/// one line: a blank line would end the HTML block early.
pub fn html(s: &str) -> String {
    escape::html(&s.replace(['\n', '\r'], " "))
}

fn thousands(n: usize) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_survive_backticks_and_spaces() {
        assert_eq!(code("a"), "`a`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x`"), "`` `x` ``");
        assert_eq!(code(" x "), "`  x  `");
        assert_eq!(code("a\nb"), "`a b`");
    }

    #[test]
    fn prose_is_escaped() {
        assert_eq!(text("a|b <c> *d*\n"), "a\\|b \\<c\\> \\*d\\* ");
        assert_eq!(html("<b>&\"</b>"), "&lt;b&gt;&amp;&quot;&lt;/b&gt;");
        assert_eq!(html("a\r\nb"), "a  b");
        assert_eq!(thousands(65536), "65,536");
        assert_eq!(thousands(999), "999");
    }

    #[test]
    fn fences_outgrow_backticks_in_values() {
        let mut out = String::new();
        fenced_diff(&mut out, &["-a ```` b".to_string(), "+c".to_string()]);
        assert!(out.starts_with("    `````diff\n"), "{out}");
        assert!(out.ends_with("    `````\n"), "{out}");
    }
}
