//! The HTML audit report (`kdelta report BASE HEAD --html FILE`): one self-contained page with
//! the summary, an image changes table, every changed target with side-by-side (old | new)
//! diffs of its changed fields and of whole added or removed objects, pruned subcharts when
//! there are any, the findings, and the unchanged targets.
//!
//! The page loads nothing: CSS and a few lines of JavaScript (expand/collapse, a filter box)
//! are inline, and a Content-Security-Policy forbids every other source, so it works offline
//! and from a CI artifact. Every piece of report text is HTML-escaped.

use super::escape::html as esc;
use super::revision;
use super::view::{self, FieldView};
use super::TargetStatus;
use super::{Change, ChangeKind, FieldChange, Finding, Report, Severity, Side, TargetReport};
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fmt::Write;

mod split;
use split::{highlight_pair, split_diff};

/// The rule id of the finding that says a Helm subchart was pruned (disabled by a condition or
/// tag); such findings also fill the "Pruned subcharts" section.
pub const PRUNED_SUBCHART_RULE: &str = "helm.subchart.pruned";

/// Unchanged lines kept around each change in a multi-line diff; longer unchanged runs fold.
const CONTEXT: usize = 3;

const STYLE: &str = r#"
:root{--fg:#1f2328;--muted:#59636e;--bg:#fff;--panel:#f6f8fa;--border:#d1d9e0;
--del:#ffebe9;--del-mark:#ffcecb;--ins:#dafbe1;--ins-mark:#aceebb;--err:#cf222e;--warn:#9a6700;--note:#0969da}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--panel:#151b23;
--border:#3d444d;--del:#3c1618;--del-mark:#8e1519;--ins:#12261e;--ins-mark:#1a7f37;--err:#ff7b72;--warn:#d29922;--note:#4493f8}}
*{box-sizing:border-box}
body{font:14px/1.5 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:var(--fg);background:var(--bg);margin:0 auto;max-width:1400px;padding:1.5em}
code,pre,.diff td{font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{margin:0;white-space:pre-wrap;word-break:break-all}
h1{font-size:1.6em;margin:0 0 .2em}h2{border-bottom:1px solid var(--border);padding-bottom:.2em;margin-top:1.6em}
h3{font-size:1em;margin:1em 0 .4em}
.muted{color:var(--muted)}
nav a{margin-right:1em}
table{border-collapse:collapse;margin:.4em 0}
th,td{border:1px solid var(--border);padding:.25em .6em;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:var(--panel)}
table.summary td{text-align:right;font-size:1.3em;min-width:5em}
.badge{display:inline-block;border-radius:1em;padding:0 .6em;font-size:.85em;border:1px solid var(--border);background:var(--panel)}
.badge.added{color:#1a7f37}.badge.removed,.badge.error{color:var(--err)}.badge.modified,.badge.renamed,.badge.incomplete{color:var(--warn)}
details.target{border:1px solid var(--border);border-radius:6px;margin:.8em 0;padding:0 .8em}
details.target>summary{cursor:pointer;padding:.5em 0;font-weight:600}
details.target>summary .file{font-weight:normal}
.change{margin:.6em 0 1em}
table.fields{width:100%;table-layout:fixed}
table.fields col.path{width:22%}
table.diff{width:100%;table-layout:fixed;margin:0}
table.diff td{border:none;padding:0 .5em;white-space:pre-wrap;word-break:break-all}
table.diff td.ln{width:3.5em;text-align:right;color:var(--muted);user-select:none}
table.diff td.del{background:var(--del)}table.diff td.ins{background:var(--ins)}
td.del mark,td.old mark{background:var(--del-mark);color:inherit}td.ins mark,td.new mark{background:var(--ins-mark);color:inherit}
table.diff tr.fold td{background:var(--panel);color:var(--muted);text-align:center}
td.old{background:var(--del)}td.new{background:var(--ins)}
td.secret{font-style:italic}
tr.sev-error td.sev{color:var(--err);font-weight:600}tr.sev-warning td.sev{color:var(--warn);font-weight:600}
tr.sev-notice td.sev{color:var(--note)}
.help{color:var(--muted)}
td.msg{white-space:pre-line}
#filter{padding:.3em .5em;min-width:20em}
.hidden{display:none}
@media print{nav,.controls{display:none}details.target{break-inside:avoid-page}}
"#;

const SCRIPT: &str = r#"
(function(){
  var targets=Array.prototype.slice.call(document.querySelectorAll('details.target'));
  function all(open){targets.forEach(function(d){d.open=open;});}
  var e=document.getElementById('expand-all'),c=document.getElementById('collapse-all'),f=document.getElementById('filter');
  if(e){e.addEventListener('click',function(){all(true);});}
  if(c){c.addEventListener('click',function(){all(false);});}
  if(f){f.addEventListener('input',function(){
    var q=f.value.toLowerCase();
    targets.forEach(function(d){d.classList.toggle('hidden',q!==''&&d.getAttribute('data-target').toLowerCase().indexOf(q)<0);});
  });}
  document.documentElement.setAttribute('data-script','ready');
})();
"#;

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
         <meta name=\"generator\" content=\"kdelta\">\n<title>{}</title>\n<style>{STYLE}</style>\n\
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
    let images = image_rows(&shown);
    nav(&mut out, !images.is_empty(), !pruned.is_empty(), report);
    summary(&mut out, report);
    if !images.is_empty() {
        image_section(&mut out, &images);
    }
    targets_section(&mut out, report, &shown);
    if !pruned.is_empty() {
        pruned_section(&mut out, &pruned);
    }
    findings_section(&mut out, &report.findings);
    unchanged_section(&mut out, report);
    let _ = write!(out, "<script>{SCRIPT}</script>\n</body>\n</html>\n");
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

fn summary(out: &mut String, report: &Report) {
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

/// One row of the image changes table.
struct ImageRow<'a> {
    target: &'a str,
    resource: &'a str,
    path: Cow<'a, str>,
    old: Option<String>,
    new: Option<String>,
}

fn image_rows<'a>(targets: &[&'a TargetReport]) -> Vec<ImageRow<'a>> {
    let mut rows = Vec::new();
    for t in targets {
        for c in &t.changes {
            if let Some(body) = &c.body {
                for (path, image) in view::images_in(body) {
                    let removed = c.change == ChangeKind::Removed;
                    rows.push(ImageRow {
                        target: &t.id,
                        resource: &c.resource,
                        path: Cow::Owned(path),
                        old: removed.then(|| image.clone()),
                        new: (!removed).then_some(image),
                    });
                }
            }
            for f in &c.fields {
                if view::is_image_path(&f.path) {
                    rows.push(ImageRow {
                        target: &t.id,
                        resource: &c.resource,
                        path: Cow::Borrowed(&f.path),
                        old: f.old.as_ref().map(view::display),
                        new: f.new.as_ref().map(view::display),
                    });
                }
            }
        }
    }
    rows
}

fn image_section(out: &mut String, rows: &[ImageRow]) {
    out.push_str(
        "<section id=\"images\">\n<h2>Image changes</h2>\n<table class=\"images\">\n\
         <tr><th>Target</th><th>Resource</th><th>Field</th><th>Old</th><th>New</th></tr>\n",
    );
    for r in rows {
        let (old, new) = match (&r.old, &r.new) {
            (Some(o), Some(n)) => highlight_pair(o, n),
            (o, n) => (
                o.as_deref().map(esc).unwrap_or_default(),
                n.as_deref().map(esc).unwrap_or_default(),
            ),
        };
        let cell = |class: &str, html: &str| {
            if html.is_empty() {
                "<td></td>".to_string()
            } else {
                format!("<td class=\"{class}\"><code>{html}</code></td>")
            }
        };
        let _ = writeln!(
            out,
            "<tr><td><code>{}</code></td><td><code>{}</code></td><td><code>{}</code></td>{}{}</tr>",
            esc(r.target),
            esc(r.resource),
            esc(&r.path),
            cell("old", &old),
            cell("new", &new),
        );
    }
    out.push_str("</table>\n</section>\n");
}

fn targets_section(out: &mut String, report: &Report, shown: &[&TargetReport]) {
    let _ = writeln!(
        out,
        "<section id=\"targets\">\n<h2>Changed targets ({})</h2>",
        shown.len()
    );
    if shown.is_empty() {
        out.push_str("<p>No target changed.</p>\n</section>\n");
        return;
    }
    out.push_str(
        "<p class=\"controls\"><button type=\"button\" id=\"expand-all\">Expand all</button> \
         <button type=\"button\" id=\"collapse-all\">Collapse all</button> \
         <input type=\"search\" id=\"filter\" placeholder=\"Filter targets by id\" aria-label=\"Filter targets by id\"></p>\n",
    );
    let mut ids = BTreeSet::new();
    for t in shown {
        target(out, report, t, &mut ids);
    }
    out.push_str("</section>\n");
}

fn target(out: &mut String, report: &Report, t: &TargetReport, ids: &mut BTreeSet<String>) {
    let anchor = unique_anchor(&t.id, ids);
    let status = view::status_word(t.status);
    let _ = write!(
        out,
        "<details class=\"target status-{status}\" id=\"{anchor}\" data-target=\"{}\" open>\n\
         <summary><code>{}</code> <span class=\"badge {status}\">{status}</span> {}",
        esc(&t.id),
        esc(&t.id),
        esc(&view::change_counts(&t.changes)),
    );
    if t.incomplete {
        out.push_str(" <span class=\"badge incomplete\">incomplete</span>");
    }
    if let Some(file) = &t.file {
        let _ = write!(out, " <span class=\"file muted\">· {}</span>", esc(file));
    }
    out.push_str("</summary>\n");
    if t.status == TargetStatus::Error {
        out.push_str("<p>The target could not be rendered at head.</p>\n");
        let own: Vec<&Finding> = report
            .findings
            .iter()
            .filter(|f| f.target.as_deref() == Some(t.id.as_str()))
            .collect();
        if !own.is_empty() {
            findings_table(out, &own);
        }
    }
    for c in &t.changes {
        change(out, c);
    }
    out.push_str("</details>\n");
}

fn unique_anchor(id: &str, taken: &mut BTreeSet<String>) -> String {
    let mut slug = String::from("target-");
    let mut dash = false;
    for ch in id.chars() {
        if ch.is_ascii_alphanumeric() {
            slug.push(ch.to_ascii_lowercase());
            dash = false;
        } else if !dash {
            slug.push('-');
            dash = true;
        }
    }
    let slug = slug.trim_end_matches('-').to_string();
    let mut candidate = slug.clone();
    let mut n = 2;
    while taken.contains(&candidate) {
        candidate = format!("{slug}-{n}");
        n += 1;
    }
    taken.insert(candidate.clone());
    candidate
}

fn change(out: &mut String, c: &Change) {
    let word = view::change_word(c.change);
    let _ = write!(
        out,
        "<div class=\"change change-{word}\">\n<h3><span class=\"badge {word}\">{word}</span> "
    );
    match (c.change, c.origin()) {
        (ChangeKind::Renamed, Some(from)) => {
            let _ = write!(
                out,
                "<code>{}</code> → <code>{}</code>",
                esc(&from),
                esc(&c.resource)
            );
        }
        _ => {
            let _ = write!(out, "<code>{}</code>", esc(&c.resource));
        }
    }
    out.push_str("</h3>\n");
    if let Some(body) = &c.body {
        let text = view::visible_lines(&view::display(body));
        let (old, new) = match c.change {
            ChangeKind::Removed => (text.as_str(), ""),
            _ => ("", text.as_str()),
        };
        split_diff(out, old, new, usize::MAX);
    }
    if !c.fields.is_empty() {
        out.push_str(
            "<table class=\"fields\"><colgroup><col class=\"path\"><col><col></colgroup>\n\
             <tr><th>Field</th><th>Old</th><th>New</th></tr>\n",
        );
        for f in &c.fields {
            field_row(out, f);
        }
        out.push_str("</table>\n");
    }
    out.push_str("</div>\n");
}

fn field_row(out: &mut String, f: &FieldChange) {
    let _ = write!(out, "<tr><td><code>{}</code></td>", esc(&f.path));
    match view::field_view(f) {
        FieldView::SecretChanged => {
            let _ = write!(
                out,
                "<td colspan=\"2\" class=\"secret\">{}</td>",
                esc(view::SECRET_CHANGED)
            );
        }
        FieldView::SecretAdded => {
            out.push_str("<td></td><td class=\"new secret\">added (value redacted)</td>");
        }
        FieldView::SecretRemoved => {
            out.push_str("<td class=\"old secret\">removed (value redacted)</td><td></td>");
        }
        FieldView::Inline { old, new } => {
            let (o, n) = highlight_pair(&old, &new);
            let _ = write!(
                out,
                "<td class=\"old\"><pre>{o}</pre></td><td class=\"new\"><pre>{n}</pre></td>"
            );
        }
        FieldView::Lines { old, new } => {
            out.push_str("<td colspan=\"2\">");
            split_diff(
                out,
                &view::visible_lines(&old),
                &view::visible_lines(&new),
                CONTEXT,
            );
            out.push_str("</td>");
        }
        FieldView::Added(v) => {
            let _ = write!(
                out,
                "<td></td><td class=\"new\"><pre>{}</pre></td>",
                esc(&v)
            );
        }
        FieldView::Removed(v) => {
            let _ = write!(
                out,
                "<td class=\"old\"><pre>{}</pre></td><td></td>",
                esc(&v)
            );
        }
        FieldView::Nothing => out.push_str("<td></td><td></td>"),
    }
    out.push_str("</tr>\n");
}

fn pruned_section(out: &mut String, pruned: &[&Finding]) {
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

fn findings_section(out: &mut String, findings: &[Finding]) {
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

fn findings_table(out: &mut String, findings: &[&Finding]) {
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
            "<tr class=\"sev-{sev}\"><td class=\"sev\">{sev}{side}</td><td><code>{}</code></td>\
             <td><code>{}</code></td><td><code>{}</code></td><td class=\"msg\">{}",
            esc(&f.rule),
            esc(&f.location().unwrap_or_default()),
            esc(f.target.as_deref().unwrap_or("")),
            esc(&f.message),
        );
        if let Some(h) = &f.help {
            let _ = write!(out, "<div class=\"help\">help: {}</div>", esc(h));
        }
        out.push_str("</td></tr>\n");
    }
    out.push_str("</table>\n");
}

fn unchanged_section(out: &mut String, report: &Report) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_are_unique_slugs() {
        let mut ids = BTreeSet::new();
        assert_eq!(
            unique_anchor("kustomize:apps/web/overlays/prod", &mut ids),
            "target-kustomize-apps-web-overlays-prod"
        );
        assert_eq!(
            unique_anchor("kustomize:apps/web/overlays/prod", &mut ids),
            "target-kustomize-apps-web-overlays-prod-2"
        );
    }
}
