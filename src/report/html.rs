//! The HTML audit report (`kdelta report BASE HEAD --html FILE`): one self-contained page with
//! the summary and charts of the changes per kind and per directory, the image changes (one
//! row per image change), the changes found in several targets (once each), every changed
//! target, pruned subcharts when there are any, the findings, and the unchanged targets.
//!
//! A release audit can have thousands of changes, so the page is built to open at once: the
//! detail of each target and group (side-by-side diffs of its changed fields, whole added or
//! removed objects) is written once into a gzip-compressed, base64-encoded JSON array at the
//! end of the page, and the script turns a block's chunk into DOM when the block is opened
//! (all of them before printing). A filter hides targets by id, resource, kind, namespace or
//! text.
//!
//! The page loads nothing: CSS and the script are inline, the data is decompressed with the
//! browser's own `DecompressionStream`, and a Content-Security-Policy forbids every other
//! source, so it works offline and from a CI artifact. Every piece of report text is
//! HTML-escaped.
//!
//! This file writes the page's frame (head, header, navigation, embedded data); each section
//! has its own module, the side-by-side diff is in `split`, and the CSS and script are in
//! `html/assets/`.

use super::escape::html as esc;
use super::overview::Overview;
use super::{revision, Finding, Report};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

mod findings;
mod groups;
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

/// How the details are embedded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Embed {
    /// gzip and base64: what `kdelta report` writes.
    Compressed,
    /// Plain JSON (for tests and for reading the page's source).
    Plain,
}

/// The report as one self-contained HTML page.
pub fn to_string(report: &Report) -> String {
    render(report, Embed::Compressed)
}

/// The page, with its details embedded as `embed` says.
pub fn render(report: &Report, embed: Embed) -> String {
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
    let shown = super::text::by_importance(report);
    let pruned: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| f.rule == PRUNED_SUBCHART_RULE)
        .collect();
    let overview = Overview::of(report);
    let mut taken = BTreeSet::new();
    let anchors: BTreeMap<String, String> = shown
        .iter()
        .map(|t| (t.id.clone(), targets::unique_anchor(&t.id, &mut taken)))
        .collect();
    nav(&mut out, &overview, !pruned.is_empty(), report);
    summary::summary(&mut out, report);
    summary::charts(&mut out, &shown);
    out.push_str("</section>\n");
    if !overview.images.is_empty() {
        images::image_section(&mut out, &overview.images, &anchors);
    }
    let mut chunks = targets::Chunks::default();
    groups::groups_section(&mut out, &overview, &anchors, &mut chunks);
    targets::targets_section(&mut out, report, &shown, &overview, &anchors, &mut chunks);
    if !pruned.is_empty() {
        findings::pruned_section(&mut out, &pruned);
    }
    findings::findings_section(&mut out, &report.findings);
    unchanged::unchanged_section(&mut out, report);
    embed_chunks(&mut out, &chunks.0, embed);
    let _ = write!(out, "<script>\n{SCRIPT}</script>\n</body>\n</html>\n");
    out
}

/// The details as a JSON array of HTML strings in a data block (never run as script: its type
/// is not JavaScript).
fn embed_chunks(out: &mut String, chunks: &[String], embed: Embed) {
    let json = serde_json::to_string(chunks).expect("strings serialise");
    match embed {
        Embed::Plain => {
            // `</` cannot end the block early.
            let _ = writeln!(
                out,
                "<script type=\"application/json\" id=\"kdelta-data\">{}</script>",
                json.replace("</", "<\\/")
            );
        }
        Embed::Compressed => {
            use base64::Engine as _;
            use std::io::Write as _;
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            let bytes = gz
                .write_all(json.as_bytes())
                .and_then(|()| gz.finish())
                .expect("writing into memory does not fail");
            let _ = writeln!(
                out,
                "<script type=\"application/gzip;base64\" id=\"kdelta-data\">{}</script>",
                base64::engine::general_purpose::STANDARD.encode(bytes)
            );
        }
    }
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

fn nav(out: &mut String, overview: &Overview, pruned: bool, report: &Report) {
    out.push_str("<nav>\n<a href=\"#summary\">Summary</a>");
    if !overview.images.is_empty() {
        out.push_str("<a href=\"#images\">Image changes</a>");
    }
    if !overview.groups.is_empty() {
        out.push_str("<a href=\"#groups\">Changes in several targets</a>");
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
