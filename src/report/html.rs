//! The HTML audit report (`kdelta report BASE HEAD --html FILE`): one self-contained page with
//! the summary, an image changes table, every changed target with side-by-side (old | new)
//! diffs of its changed fields and of whole added or removed objects, pruned subcharts when
//! there are any, the findings, and the unchanged targets.
//!
//! The page loads nothing: CSS and a few lines of JavaScript (expand/collapse, a filter box)
//! are inline, and a Content-Security-Policy forbids every other source, so it works offline
//! and from a CI artifact. Every piece of report text is HTML-escaped.
//!
//! This file writes the page's frame (head, header, navigation); each section has its own
//! module, the side-by-side diff is in `split`, and the CSS and script are in `html/assets/`.

use super::escape::html as esc;
use super::{revision, view, Finding, Report, TargetReport};
use std::fmt::Write;

mod findings;
mod images;
mod split;
mod summary;
mod targets;
mod unchanged;

/// The rule id of the finding that says a Helm subchart was pruned (disabled by a condition or
/// tag); such findings also fill the "Pruned subcharts" section.
pub const PRUNED_SUBCHART_RULE: &str = crate::finding::rules::HELM_SUBCHART_PRUNED.id;

// The page's own style and script, inlined into every page (the page loads nothing).
const STYLE: &str = include_str!("html/assets/report.css");
const SCRIPT: &str = include_str!("html/assets/report.js");

/// The report as one self-contained HTML page.
pub fn to_string(report: &Report) -> String {
    let mut out = String::with_capacity(16 * 1024);
    let title = format!("kdelta report: {}", revision::names(report));
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n\
         <meta name=\"generator\" content=\"kdelta\">\n<title>{}</title>\n<style>\n{STYLE}</style>\n\
         </head>\n<body>\n",
        esc(&title)
    );
    header(&mut out, report);
    let shown: Vec<&TargetReport> = report
        .targets
        .iter()
        .filter(|t| view::is_shown(t))
        .collect();
    let pruned: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| f.rule == PRUNED_SUBCHART_RULE)
        .collect();
    let images = images::image_rows(&shown);
    nav(&mut out, !images.is_empty(), !pruned.is_empty(), report);
    summary::summary(&mut out, report);
    if !images.is_empty() {
        images::image_section(&mut out, &images);
    }
    targets::targets_section(&mut out, report, &shown);
    if !pruned.is_empty() {
        findings::pruned_section(&mut out, &pruned);
    }
    findings::findings_section(&mut out, &report.findings);
    unchanged::unchanged_section(&mut out, report);
    let _ = write!(out, "<script>\n{SCRIPT}</script>\n</body>\n</html>\n");
    out
}

fn header(out: &mut String, report: &Report) {
    out.push_str("<header>\n<h1>kdelta report</h1>\n<p class=\"revs\">");
    out.push_str(&revision::line(report, rev));
    let _ = writeln!(
        out,
        " <span class=\"muted\">· schema {}</span></p>\n</header>",
        esc(report.schema)
    );
}

/// A revision in `<code>`, its abbreviated commit beside it with the full id as a tooltip.
fn rev(name: &str, commit: Option<&str>) -> String {
    match commit {
        Some(c) => format!(
            "<code>{}</code> (<code title=\"{}\">{}</code>)",
            esc(name),
            esc(c),
            esc(revision::short_commit(c))
        ),
        None => format!("<code>{}</code>", esc(name)),
    }
}

fn nav(out: &mut String, images: bool, pruned: bool, report: &Report) {
    out.push_str("<nav>\n<a href=\"#summary\">Summary</a>");
    if images {
        out.push_str("<a href=\"#images\">Image changes</a>");
    }
    out.push_str("<a href=\"#targets\">Changed targets</a>");
    if pruned {
        out.push_str("<a href=\"#pruned-subcharts\">Pruned subcharts</a>");
    }
    if !report.findings.is_empty() {
        out.push_str("<a href=\"#findings\">Findings</a>");
    }
    out.push_str("<a href=\"#unchanged\">Unchanged targets</a>\n</nav>\n");
}
