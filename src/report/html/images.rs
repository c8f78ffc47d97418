//! The image changes section: every container image that changes, whether in a changed field
//! or in a whole added or removed object, in one table an auditor can read first.

use super::split::highlight_pair;
use crate::report::escape::html as esc;
use crate::report::{view, ChangeKind, TargetReport};
use std::borrow::Cow;
use std::fmt::Write;

/// One row of the image changes table.
pub(super) struct ImageRow<'a> {
    target: &'a str,
    resource: &'a str,
    path: Cow<'a, str>,
    old: Option<String>,
    new: Option<String>,
}

pub(super) fn image_rows<'a>(targets: &[&'a TargetReport]) -> Vec<ImageRow<'a>> {
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

pub(super) fn image_section(out: &mut String, rows: &[ImageRow]) {
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
