//! Fitting the Markdown report into its size limit. A report that fits is written whole. One
//! that does not keeps, in this order: its header, the errors, the image changes, a table
//! naming every changed target, then as many whole entries as fit of the changes found in
//! several targets, the targets' details, and the other findings. Nothing is cut inside an
//! entry (a fence or a `<details>` block cut short would swallow what follows), and a note at
//! the top says what was left out and where the whole report is.

use crate::report::view::{self, thousands};
use crate::report::TargetReport;
use std::fmt::Write;

/// Room kept for the truncation note at the top.
const NOTE_RESERVE: usize = 900;

/// Room kept for an "… N more omitted" line.
const OMISSION_RESERVE: usize = 120;

/// The rendered pieces of a report, before fitting.
pub(super) struct Parts<'a> {
    /// The title, revision line and summary table.
    pub header: String,
    /// The sentence that says no target changed, or nothing.
    pub no_changes: &'static str,
    /// One list item per head error, subchart switched on or off, and Application added or
    /// removed: what is never left out.
    pub errors: Vec<String>,
    /// Their heading.
    pub errors_title: &'static str,
    /// The image changes section, or nothing.
    pub images: String,
    /// One `<details>` block per change found in several targets.
    pub groups: Vec<String>,
    /// How many occurrences each of those stands for.
    pub group_changes: Vec<usize>,
    /// Per target shown, how many of its changes are its own (not in a group).
    pub own_changes: Vec<usize>,
    /// One table row per target shown (the overview, written only when details are cut).
    pub overview: Vec<String>,
    /// The targets shown, in order.
    pub shown: &'a [&'a TargetReport],
    /// The blocks of the first targets shown: the rest would not fit in any case.
    pub blocks: Vec<TargetBlock>,
    /// One list item per other finding, in the order shown.
    pub findings: Vec<String>,
    /// Where the whole report is (a CI artifact), for the note.
    pub full_report: Option<&'a str>,
}

/// The report in at most `max` bytes.
pub(super) fn fit(parts: Parts, max: usize) -> String {
    let errors_all = list(
        &heading(parts.errors_title, parts.errors.len()),
        &parts.errors,
        parts.errors.len(),
    );
    let groups_all = blocks_section(
        &heading("Changes in several targets", parts.groups.len()),
        &parts.groups,
        parts.groups.len(),
    );
    let targets_heading = if parts.shown.is_empty() {
        String::new()
    } else {
        heading("Changed targets", parts.shown.len())
    };
    let blocks_len: usize = parts.blocks.iter().map(TargetBlock::len).sum();
    let findings_all = list(
        &heading("Findings", parts.findings.len()),
        &parts.findings,
        parts.findings.len(),
    );
    let whole_len = parts.header.len()
        + parts.no_changes.len()
        + errors_all.len()
        + parts.images.len()
        + groups_all.len()
        + targets_heading.len()
        + blocks_len
        + findings_all.len();
    if whole_len <= max && parts.blocks.len() == parts.shown.len() {
        let mut out = parts.header;
        for s in [
            parts.no_changes,
            &errors_all,
            &parts.images,
            &groups_all,
            &targets_heading,
        ] {
            out.push_str(s);
        }
        for b in &parts.blocks {
            b.write_whole(&mut out);
        }
        out.push_str(&findings_all);
        return end_with_one_newline(out);
    }

    let mut room = max.saturating_sub(parts.header.len() + NOTE_RESERVE);
    let mut cut = Cut {
        targets_total: parts.shown.len(),
        findings_total: parts.findings.len(),
        errors_total: parts.errors.len(),
        groups_total: parts.groups.len(),
        ..Cut::default()
    };
    // Errors first, in at most half the room.
    let errors_shown = fitting(&parts.errors, room / 2);
    let errors_out = list(
        &heading(parts.errors_title, parts.errors.len()),
        &parts.errors,
        errors_shown,
    );
    cut.errors_omitted = parts.errors.len() - errors_shown;
    room = room.saturating_sub(errors_out.len());
    // The image changes, in at most half of what is left.
    let images_out = if parts.images.len() <= room / 2 {
        parts.images.clone()
    } else {
        cut.images_cut = !parts.images.is_empty();
        clip_table(&parts.images, room / 2)
    };
    room = room.saturating_sub(images_out.len());
    // Every changed target named, as far as the room allows.
    let (overview_out, named) = overview(&targets_heading, &parts.overview, room);
    cut.targets_unnamed = parts.overview.len() - named;
    room = room.saturating_sub(overview_out.len());
    // Then whole groups, whole details, whole findings, as long as they fit.
    let groups_shown = fitting(&parts.groups, room);
    let groups_out = blocks_section(
        &heading("Changes in several targets", parts.groups.len()),
        &parts.groups,
        groups_shown,
    );
    cut.groups_omitted = parts.groups.len() - groups_shown;
    cut.changes_omitted += parts.group_changes[groups_shown..].iter().sum::<usize>();
    room = room.saturating_sub(groups_out.len());
    let mut details_out = String::new();
    let mut detailed = 0;
    let details_heading = "### Details\n\n";
    if !parts.blocks.is_empty() && room > details_heading.len() + OMISSION_RESERVE {
        details_out.push_str(details_heading);
        for (i, b) in parts.blocks.iter().enumerate() {
            let left = room.saturating_sub(details_out.len());
            if b.len() <= left {
                b.write_whole(&mut details_out);
                detailed += 1;
                continue;
            }
            let fixed = b.open.len() + b.close.len() + OMISSION_RESERVE;
            let mut keep = 0;
            let mut used = fixed;
            while keep < b.items.len() && used + b.items[keep].len() <= left {
                used += b.items[keep].len();
                keep += 1;
            }
            if keep > 0 {
                b.write_partial(&mut details_out, keep);
                cut.targets_partial = 1;
                cut.changes_omitted += b.changes - b.changes_in(keep);
                detailed = i + 1;
            }
            break;
        }
        if detailed == 0 {
            details_out.clear();
        }
    }
    // A target left out leaves out its own changes; those it shares are in the groups.
    cut.changes_omitted += parts.own_changes[detailed..].iter().sum::<usize>();
    cut.targets_undetailed = parts.shown.len() - detailed;
    room = room.saturating_sub(details_out.len());
    let findings_shown = fitting(&parts.findings, room.saturating_sub(OMISSION_RESERVE));
    let findings_out = list(
        &heading("Findings", parts.findings.len()),
        &parts.findings,
        findings_shown,
    );
    cut.findings_omitted = parts.findings.len() - findings_shown;

    let mut out = parts.header;
    out.push_str(&cut.note(max, parts.full_report));
    for s in [
        &errors_out,
        &images_out,
        &overview_out,
        &groups_out,
        &details_out,
        &findings_out,
    ] {
        out.push_str(s);
    }
    debug_assert!(out.len() <= max, "{} > {max}", out.len());
    end_with_one_newline(out)
}

fn heading(title: &str, n: usize) -> String {
    format!("### {title} ({n})\n\n")
}

/// How many of `items` fit in `budget` with a heading and an omission line.
fn fitting(items: &[String], budget: usize) -> usize {
    // The heading's room; the omission line's too unless everything fits.
    const HEADING: usize = 60;
    if items.iter().map(String::len).sum::<usize>() + HEADING <= budget {
        return items.len();
    }
    let mut used = HEADING + OMISSION_RESERVE;
    let mut n = 0;
    while n < items.len() && used + items[n].len() <= budget {
        used += items[n].len();
        n += 1;
    }
    n
}

/// A list section: its heading, the first `shown` items, and a line for the others.
fn list(heading: &str, items: &[String], shown: usize) -> String {
    if items.is_empty() {
        return String::new();
    }
    let mut out = heading.to_string();
    for i in &items[..shown] {
        out.push_str(i);
    }
    if shown < items.len() {
        let _ = writeln!(
            out,
            "- *… {} not shown (report truncated)*",
            items.len() - shown
        );
    }
    out.push('\n');
    out
}

/// A section of `<details>` blocks, the first `shown` of them.
fn blocks_section(heading: &str, items: &[String], shown: usize) -> String {
    if items.is_empty() || shown == 0 {
        return String::new();
    }
    let mut out = heading.to_string();
    for i in &items[..shown] {
        out.push_str(i);
    }
    if shown < items.len() {
        let _ = writeln!(
            out,
            "*… {} more not shown (report truncated)*\n",
            items.len() - shown
        );
    }
    out
}

/// A table cut to whole rows within `budget`, with a line for the rows left out.
fn clip_table(table: &str, budget: usize) -> String {
    let lines: Vec<&str> = table.lines().collect();
    let mut out = String::new();
    let mut rows: usize = 0;
    let total_rows = lines
        .iter()
        .filter(|l| l.starts_with('|'))
        .count()
        .saturating_sub(2);
    for l in &lines {
        if out.len() + l.len() + 1 + OMISSION_RESERVE > budget {
            break;
        }
        if l.starts_with('|') {
            rows += 1;
        }
        out.push_str(l);
        out.push('\n');
    }
    let shown_rows = rows.saturating_sub(2);
    if shown_rows < total_rows {
        if out.ends_with("\n\n") {
            out.pop();
        }
        let _ = writeln!(
            out,
            "\n*… {} more not shown (report truncated)*\n",
            total_rows - shown_rows
        );
    }
    out
}

/// The table naming every changed target (as many as fit), and how many it names.
fn overview(heading: &str, rows: &[String], budget: usize) -> (String, usize) {
    if rows.is_empty() {
        return (String::new(), 0);
    }
    let head = "| Target | Status | Changes |\n| --- | --- | --- |\n";
    let mut out = format!("{heading}{head}");
    if out.len() + OMISSION_RESERVE > budget {
        return (String::new(), 0);
    }
    let mut named = 0;
    for r in rows {
        if out.len() + r.len() + OMISSION_RESERVE > budget {
            break;
        }
        out.push_str(r);
        named += 1;
    }
    if named < rows.len() {
        let _ = writeln!(
            out,
            "\n*… {} more changed targets not named (report truncated)*",
            rows.len() - named
        );
    }
    out.push('\n');
    (out, named)
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
    /// The entries: resource changes, the line for those shared with other targets, or the
    /// one sentence of an error target.
    pub items: Vec<String>,
    /// How many resource changes each entry stands for.
    pub item_changes: Vec<usize>,
    /// What closes the block.
    pub close: &'static str,
    /// How many resource changes the target has.
    pub changes: usize,
}

impl TargetBlock {
    /// Its length written whole.
    pub fn len(&self) -> usize {
        self.open.len() + self.items.iter().map(String::len).sum::<usize>() + self.close.len()
    }

    fn changes_in(&self, items: usize) -> usize {
        self.item_changes[..items].iter().sum()
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
    targets_undetailed: usize,
    targets_unnamed: usize,
    targets_partial: usize,
    changes_omitted: usize,
    errors_total: usize,
    errors_omitted: usize,
    groups_total: usize,
    groups_omitted: usize,
    images_cut: bool,
    findings_total: usize,
    findings_omitted: usize,
}

impl Cut {
    fn note(&self, max: usize, full_report: Option<&str>) -> String {
        let mut parts = Vec::new();
        if self.targets_undetailed > 0 {
            let named = if self.targets_unnamed == 0 {
                " (every changed target is named in the table)".to_string()
            } else {
                format!(", {} not even named", thousands(self.targets_unnamed))
            };
            parts.push(format!(
                "the details of {} of {} targets left out{named}",
                thousands(self.targets_undetailed),
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
        if self.groups_omitted > 0 {
            parts.push(format!(
                "{} of {} changes found in several targets left out",
                thousands(self.groups_omitted),
                thousands(self.groups_total)
            ));
        }
        if self.images_cut {
            parts.push("the image changes cut short".to_string());
        }
        if self.errors_omitted > 0 {
            parts.push(format!(
                "{} of {} errors left out",
                thousands(self.errors_omitted),
                thousands(self.errors_total)
            ));
        }
        if self.findings_omitted > 0 {
            parts.push(format!(
                "{} of {} other findings left out",
                thousands(self.findings_omitted),
                thousands(self.findings_total)
            ));
        }
        if parts.is_empty() {
            parts.push("nothing left out".to_string());
        }
        let whole = match full_report {
            Some(name) => format!(
                "The whole report is in the artifact `{}`; `kdelta diff` shows it locally.",
                name.replace('`', "'")
            ),
            None => "Run `kdelta diff` locally, or write the whole report with `--json FILE` or \
                     `kdelta report --html FILE`, to see everything."
                .to_string(),
        };
        format!(
            "> [!WARNING]\n> This report was truncated to fit in {} characters: {}. {whole}\n\n",
            thousands(max),
            parts.join("; ")
        )
    }
}
