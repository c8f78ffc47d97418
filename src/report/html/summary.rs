//! The summary section: target counts by status and finding counts by severity.

use crate::report::{view, Report, Severity};
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
        "</tr>\n</table>\n<p class=\"muted\">{} rendered, {} from cache · {}, {}, {}</p>\n</section>",
        report.summary.rendered,
        report.summary.cached,
        view::plural(count(Severity::Error), "error finding"),
        view::plural(count(Severity::Warning), "warning"),
        view::plural(count(Severity::Notice), "notice"),
    );
}
