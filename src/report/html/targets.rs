//! The changed targets section: one collapsible block per target (its id, status and counts,
//! with the kinds, namespaces and resources it changes for the filter), whose detail — a
//! side-by-side diff of each changed field, each whole added or removed object, a link for a
//! change shown once among the changes in several targets — is a chunk the page turns into
//! DOM when the block opens.

use super::findings::findings_table;
use super::split::{highlight_pair, split_diff};
use crate::report::escape::html as esc;
use crate::report::overview::{ChangeGroup, Overview};
use crate::report::view::{self, FieldView};
use crate::report::{Change, ChangeKind, FieldChange, Finding, Report, TargetReport, TargetStatus};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Unchanged lines kept around each change in a multi-line diff; longer unchanged runs fold.
const CONTEXT: usize = 3;

/// The detail of targets and groups, written once and embedded as data: the page turns a
/// chunk into DOM when its block is opened, so a release with thousands of changes opens at
/// once.
#[derive(Default)]
pub(super) struct Chunks(pub Vec<String>);

impl Chunks {
    pub(super) fn add_chunk(&mut self, html: String) -> usize {
        self.0.push(html);
        self.0.len() - 1
    }
}

/// At most this many changes in the whole report, and the targets start open.
const OPEN_UP_TO: usize = 50;

pub(super) fn targets_section(
    out: &mut String,
    report: &Report,
    shown: &[&TargetReport],
    overview: &Overview,
    anchors: &BTreeMap<String, String>,
    chunks: &mut Chunks,
) {
    let _ = writeln!(
        out,
        "<section id=\"targets\">\n<h2>Changed targets ({})</h2>",
        shown.len()
    );
    if shown.is_empty() {
        out.push_str("<p>No target changed.</p>\n</section>\n");
        return;
    }
    let kinds: BTreeSet<&str> = shown
        .iter()
        .flat_map(|t| t.changes.iter().map(|c| resource_kind(&c.resource)))
        .collect();
    let namespaces: BTreeSet<&str> = shown
        .iter()
        .flat_map(|t| t.changes.iter().map(|c| resource_namespace(&c.resource)))
        .collect();
    out.push_str(
        "<p class=\"controls\"><button type=\"button\" id=\"expand-all\">Expand all</button> \
         <button type=\"button\" id=\"collapse-all\">Collapse all</button> \
         <input type=\"search\" id=\"filter\" placeholder=\"Filter by target, resource or text\" aria-label=\"Filter by target, resource or text\"> ",
    );
    options(out, "filter-kind", "every kind", &kinds);
    out.push(' ');
    options(out, "filter-namespace", "every namespace", &namespaces);
    out.push_str(" <span id=\"filter-count\" class=\"muted\"></span></p>\n");
    let open = shown.iter().map(|t| t.changes.len()).sum::<usize>() <= OPEN_UP_TO;
    for t in shown {
        target(out, report, t, overview, anchors, chunks, open);
    }
    out.push_str("</section>\n");
}

fn options(out: &mut String, id: &str, all: &str, values: &BTreeSet<&str>) {
    let _ = write!(
        out,
        "<select id=\"{id}\" aria-label=\"{all}\"><option value=\"\">{all}</option>"
    );
    for v in values {
        let _ = write!(out, "<option>{}</option>", esc(v));
    }
    out.push_str("</select>");
}

/// The kind of a resource id (`group/version/Kind/namespace/name`).
pub(super) fn resource_kind(id: &str) -> &str {
    id.split('/').nth(2).unwrap_or_default()
}

/// The namespace of a resource id (`_` for a cluster-scoped object).
pub(super) fn resource_namespace(id: &str) -> &str {
    id.split('/').nth(3).unwrap_or_default()
}

fn target(
    out: &mut String,
    report: &Report,
    t: &TargetReport,
    overview: &Overview,
    anchors: &BTreeMap<String, String>,
    chunks: &mut Chunks,
    open: bool,
) {
    let anchor = anchors.get(&t.id).cloned().unwrap_or_default();
    let status = view::status_word(t.status);
    let mut detail = String::new();
    if t.status == TargetStatus::Error {
        detail.push_str("<p>The target could not be rendered at head.</p>\n");
        let own: Vec<&Finding> = report
            .findings
            .iter()
            .filter(|f| f.target.as_deref() == Some(t.id.as_str()))
            .collect();
        if !own.is_empty() {
            findings_table(&mut detail, &own);
        }
    }
    for c in &t.changes {
        match overview.group_index(&t.id, c) {
            Some(i) => grouped(&mut detail, c, i, &overview.groups[i]),
            None => change(&mut detail, c),
        }
    }
    let chunk = chunks.add_chunk(detail);
    let set = |f: &dyn Fn(&str) -> &str| -> String {
        let values: BTreeSet<&str> = t.changes.iter().map(|c| f(&c.resource)).collect();
        let v: Vec<&str> = values.into_iter().collect();
        format!(" {} ", v.join(" "))
    };
    let resources: Vec<String> = t
        .changes
        .iter()
        .map(|c| c.resource.to_lowercase())
        .collect();
    let _ = write!(
        out,
        "<details class=\"target status-{status}\" id=\"{anchor}\" data-target=\"{}\" data-kinds=\"{}\" data-namespaces=\"{}\" data-resources=\"{}\" data-chunk=\"{chunk}\"{}>\n\
         <summary><code>{}</code> <span class=\"badge {status}\">{status}</span> {}",
        esc(&t.id),
        esc(&set(&resource_kind)),
        esc(&set(&resource_namespace)),
        esc(&resources.join(" ")),
        if open { " open" } else { "" },
        esc(&t.id),
        esc(&view::change_counts(&t.changes)),
    );
    if t.incomplete {
        out.push_str(" <span class=\"badge incomplete\">incomplete</span>");
    }
    if let Some(file) = &t.file {
        let _ = write!(out, " <span class=\"file muted\">· {}</span>", esc(file));
    }
    out.push_str("</summary>\n<div class=\"detail\"></div>\n</details>\n");
}

/// A change that is the same in several targets: its heading, and a link to where it is shown.
fn grouped(out: &mut String, c: &Change, index: usize, g: &ChangeGroup) {
    let word = view::change_word(c.change);
    let _ = writeln!(
        out,
        "<div class=\"change change-{word} grouped\">\n<h3><span class=\"badge {word}\">{word}</span> <code>{}</code></h3>\n\
         <p class=\"muted\">The same change as in <a href=\"#group-{index}\">{}</a>.</p>\n</div>",
        esc(&c.resource),
        view::plural(g.targets().len(), "target")
    );
}

pub(super) fn unique_anchor(id: &str, taken: &mut BTreeSet<String>) -> String {
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

pub(super) fn change(out: &mut String, c: &Change) {
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
    if let Some(reason) = &c.reason {
        let _ = writeln!(out, "<p class=\"reason\">{}</p>", esc(reason));
    }
    if let Some(body) = &c.body {
        // A whole object is one side only: plain text, not a diff table.
        let text = view::visible_lines(&view::display(&body.value()));
        let side = if c.change == ChangeKind::Removed {
            "old"
        } else {
            "new"
        };
        let _ = writeln!(
            out,
            "<p class=\"muted\">{}</p>\n<pre class=\"object {side}\">{}</pre>",
            view::plural(text.lines().count(), "line"),
            esc(&text)
        );
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
