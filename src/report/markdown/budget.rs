//! Fitting the Markdown report into its size limit. A report that fits is written whole; one
//! that does not keeps its header, gives the findings at most half the room when the targets
//! need the rest, and keeps whole change entries, in order, until one does not fit. Nothing is
//! cut inside an entry (a fence or a `<details>` block cut short would swallow what follows),
//! and a note at the top says what was left out.

use crate::report::{view, TargetReport};
use std::fmt::Write;

/// Room kept for the truncation note at the top.
const NOTE_RESERVE: usize = 700;

/// Room kept for an "… N more omitted" line.
const OMISSION_RESERVE: usize = 120;

/// The rendered pieces of a report, before fitting.
pub(super) struct Parts<'a> {
    /// The title, revision line and summary table.
    pub header: String,
    /// The sentence that says no target changed, or nothing.
    pub no_changes: &'static str,
    /// The targets shown, in order.
    pub shown: &'a [&'a TargetReport],
    /// The blocks of the first targets shown: the rest would not fit in any case.
    pub blocks: Vec<TargetBlock>,
    /// One list item per finding, in the order shown.
    pub findings: Vec<String>,
}

/// The report in at most `max` bytes.
pub(super) fn fit(parts: Parts, max: usize) -> String {
    let Parts {
        header,
        no_changes,
        shown,
        blocks,
        findings,
    } = parts;
    let targets_len: usize = blocks.iter().map(TargetBlock::len).sum();
    let findings_len = findings_section_len(&findings);
    if header.len() + no_changes.len() + targets_len + findings_len <= max {
        let mut out = header;
        out.push_str(no_changes);
        for b in &blocks {
            b.write_whole(&mut out);
        }
        write_findings(&mut out, &findings, findings.len(), 0);
        return end_with_one_newline(out);
    }

    // Too long: findings get at most half the room when targets need the rest; targets take
    // what is left, in order, until one does not fit.
    let avail = max.saturating_sub(header.len() + NOTE_RESERVE);
    let findings_budget = avail - targets_len.min(avail / 2);
    let shown_findings = fit_findings(&findings, findings_budget);
    let mut findings_out = String::new();
    write_findings(
        &mut findings_out,
        &findings,
        shown_findings,
        findings.len() - shown_findings,
    );
    let targets_budget = avail.saturating_sub(findings_out.len());
    let mut cut = Cut {
        findings_omitted: findings.len() - shown_findings,
        findings_total: findings.len(),
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

/// One collapsible target, kept in pieces so it can be cut between entries.
pub(super) struct TargetBlock {
    /// `<details>` and the summary line.
    pub open: String,
    /// The entries, one per resource change (or the one sentence of an error target).
    pub items: Vec<String>,
    /// What closes the block.
    pub close: &'static str,
    /// How many resource changes the items stand for.
    pub changes: usize,
    /// Whether the items are one per change (an error target has a single sentence instead).
    pub per_change: bool,
}

impl TargetBlock {
    /// Its length written whole.
    pub fn len(&self) -> usize {
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

/// The findings section: its heading, the first `shown` items, and a line for the `omitted`.
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

/// A count for the note, with thousands separators (`65,536`).
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
    fn counts_have_thousands_separators() {
        assert_eq!(thousands(65536), "65,536");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000_000), "1,000,000");
    }
}
