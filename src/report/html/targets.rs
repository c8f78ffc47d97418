//! The changed targets section: one collapsible block per target, with a side-by-side diff of
//! each changed field and of each whole added or removed object.

use super::findings::findings_table;
use super::split::{highlight_pair, split_diff};
use crate::report::escape::html as esc;
use crate::report::view::{self, FieldView};
use crate::report::{Change, ChangeKind, FieldChange, Finding, Report, TargetReport, TargetStatus};
use std::collections::BTreeSet;
use std::fmt::Write;

/// Unchanged lines kept around each change in a multi-line diff; longer unchanged runs fold.
const CONTEXT: usize = 3;

pub(super) fn targets_section(out: &mut String, report: &Report, shown: &[&TargetReport]) {
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
    if let Some(reason) = &c.reason {
        let _ = writeln!(out, "<p class=\"reason\">{}</p>", esc(reason));
    }
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
