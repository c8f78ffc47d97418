//! The summary section: target counts by status, finding counts by severity, and charts of
//! the changes per kind and per top-level directory.

use crate::report::escape::html as esc;
use crate::report::{view, Report, Severity, TargetReport};
use std::collections::BTreeMap;
use std::fmt::Write;

/// The summary table; each count cell names what it counts (`data-count`) for scripts and tests.
pub(super) fn summary(out: &mut String, report: &Report) {
    let c = view::counts(report);
    let cells = [
        ("targets", "Targets", c.targets),
        ("modified", "Modified", c.modified),
        ("added", "Added", c.added),
        ("removed", "Removed", c.removed),
        ("unchanged", "Unchanged", c.unchanged),
        ("failed", "Failed to render", c.failed),
        ("errors", "Errors", report.summary.errors),
    ];
    out.push_str("<section id=\"summary\">\n<h2>Summary</h2>\n<table class=\"summary\">\n<tr>");
    for (_, label, _) in &cells {
        let _ = write!(out, "<th>{label}</th>");
    }
    out.push_str("</tr>\n<tr>");
    for (key, _, n) in &cells {
        let _ = write!(out, "<td data-count=\"{key}\">{n}</td>");
    }
    let count = |s: Severity| report.findings.iter().filter(|f| f.severity == s).count();
    let _ = writeln!(
        out,
        "</tr>\n</table>\n<p class=\"muted\">{} rendered, {} from cache · {}, {}, {}</p>",
        report.summary.rendered,
        report.summary.cached,
        view::plural(count(Severity::Error), "error finding"),
        view::plural(count(Severity::Warning), "warning"),
        view::plural(count(Severity::Notice), "notice"),
    );
    // The section's closing tag is written by the caller, after the charts.
}

/// Bars a chart shows before the rest is summed up as "other".
const BARS: usize = 12;

/// Two small bar charts: resource changes per kind, and per top-level directory of the
/// targets' files.
pub(super) fn charts(out: &mut String, shown: &[&TargetReport]) {
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    let mut dirs: BTreeMap<&str, usize> = BTreeMap::new();
    for t in shown {
        let file = t.file.as_deref().unwrap_or(&t.id);
        let dir = file.split('/').next().unwrap_or(file);
        for c in &t.changes {
            *kinds
                .entry(super::targets::resource_kind(&c.resource))
                .or_default() += 1;
            *dirs.entry(dir).or_default() += 1;
        }
    }
    if kinds.is_empty() {
        return;
    }
    out.push_str("<div class=\"charts\">\n");
    chart(out, "Changes per kind", kinds);
    chart(out, "Changes per top-level directory", dirs);
    out.push_str("</div>\n");
}

fn chart(out: &mut String, title: &str, counts: BTreeMap<&str, usize>) {
    let mut rows: Vec<(&str, usize)> = counts.into_iter().collect();
    rows.sort_by_key(|(k, n)| (std::cmp::Reverse(*n), *k));
    let other: usize = rows.iter().skip(BARS).map(|(_, n)| n).sum();
    rows.truncate(BARS);
    let max = rows.first().map_or(1, |(_, n)| (*n).max(1));
    let _ = writeln!(
        out,
        "<figure class=\"chart\"><figcaption>{title}</figcaption><table>"
    );
    let mut bar = |label: &str, n: usize| {
        let _ = writeln!(
            out,
            "<tr><th>{}</th><td class=\"bar\"><span style=\"width:{}%\"></span></td><td class=\"n\">{n}</td></tr>",
            esc(label),
            (n * 100).div_ceil(max)
        );
    };
    for (k, n) in &rows {
        bar(k, *n);
    }
    if other > 0 {
        bar("other", other);
    }
    out.push_str("</table></figure>\n");
}
