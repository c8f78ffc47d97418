//! The unchanged targets section, so a reader sees what was checked and found the same.

use crate::report::escape::html as esc;
use crate::report::{Report, TargetReport, TargetStatus};
use std::fmt::Write;

pub(super) fn unchanged_section(out: &mut String, report: &Report) {
    let unchanged: Vec<&TargetReport> = report
        .targets
        .iter()
        .filter(|t| t.status == TargetStatus::Unchanged)
        .collect();
    let _ = writeln!(
        out,
        "<section id=\"unchanged\">\n<h2>Unchanged targets ({})</h2>",
        unchanged.len()
    );
    if !unchanged.is_empty() {
        out.push_str("<ul class=\"unchanged\">\n");
        for t in unchanged {
            let _ = writeln!(
                out,
                "<li><code>{}</code>{}</li>",
                esc(&t.id),
                if t.cached {
                    " <span class=\"muted\">(inputs identical, not re-rendered)</span>"
                } else {
                    ""
                }
            );
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</section>\n");
}
