//! The findings sections: pruned subcharts (the findings of one rule, as a table of reasons),
//! and every finding, errors first.

use crate::report::escape::html as esc;
use crate::report::{Finding, Side};
use std::fmt::Write;

pub(super) fn pruned_section(out: &mut String, pruned: &[&Finding]) {
    out.push_str(
        "<section id=\"pruned-subcharts\">\n<h2>Pruned subcharts</h2>\n<table>\n\
         <tr><th>Target</th><th>Location</th><th>Reason</th></tr>\n",
    );
    for f in pruned {
        let _ = writeln!(
            out,
            "<tr><td><code>{}</code></td><td><code>{}</code></td><td class=\"msg\">{}</td></tr>",
            esc(f.target.as_deref().unwrap_or("")),
            esc(&f.location().unwrap_or_default()),
            esc(&f.message),
        );
    }
    out.push_str("</table>\n</section>\n");
}

pub(super) fn findings_section(out: &mut String, findings: &[Finding]) {
    if findings.is_empty() {
        return;
    }
    let mut sorted: Vec<&Finding> = findings.iter().collect();
    sorted.sort_by_key(|f| f.severity);
    let _ = writeln!(
        out,
        "<section id=\"findings\">\n<h2>Findings ({})</h2>",
        findings.len()
    );
    findings_table(out, &sorted);
    out.push_str("</section>\n");
}

pub(super) fn findings_table(out: &mut String, findings: &[&Finding]) {
    out.push_str(
        "<table class=\"findings\">\n<tr><th>Severity</th><th>Rule</th><th>Location</th>\
         <th>Target</th><th>Message</th></tr>\n",
    );
    for f in findings {
        let sev = f.severity.as_str();
        let side = if f.revision == Some(Side::Base) {
            " <span class=\"muted\">(base)</span>"
        } else {
            ""
        };
        let _ = write!(
            out,
            "<tr class=\"sev-{sev}\"><td class=\"sev\">{sev}{side}{}</td><td><code>{}</code></td>\
             <td><code>{}</code></td><td><code>{}</code></td><td class=\"msg\">{}",
            esc(&f.baseline_label()),
            esc(f.rule.id),
            esc(&f.location().unwrap_or_default()),
            esc(f.target.as_deref().unwrap_or("")),
            esc(&f.message),
        );
        for c in &f.context {
            let _ = write!(out, "<div class=\"help\">note: {}</div>", esc(c));
        }
        if let Some(h) = &f.help {
            let _ = write!(out, "<div class=\"help\">help: {}</div>", esc(h));
        }
        out.push_str("</td></tr>\n");
    }
    out.push_str("</table>\n");
}
