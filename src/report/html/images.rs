//! The image changes section: one row per image change, whether in a changed field or in a
//! whole added or removed object, with links to the targets it changes in — the table an
//! auditor reads first.

use super::split::highlight_pair;
use crate::report::escape::html as esc;
use crate::report::overview::ImageChange;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Targets a row links before "and N more".
const TARGETS_LINKED: usize = 3;

pub(super) fn image_section(
    out: &mut String,
    images: &[ImageChange],
    anchors: &BTreeMap<String, String>,
) {
    let _ = writeln!(
        out,
        "<section id=\"images\">\n<h2>Image changes ({})</h2>\n<table class=\"images\">\n\
         <tr><th>Image</th><th>Old</th><th>New</th><th>Targets</th></tr>",
        images.len()
    );
    for i in images {
        let (old, new) = match (&i.old, &i.new) {
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
        let mut links: Vec<String> = i
            .targets
            .iter()
            .take(TARGETS_LINKED)
            .map(|t| {
                format!(
                    "<a href=\"#{}\"><code>{}</code></a>",
                    anchors.get(t).map(String::as_str).unwrap_or_default(),
                    esc(t)
                )
            })
            .collect();
        if i.targets.len() > TARGETS_LINKED {
            links.push(format!("and {} more", i.targets.len() - TARGETS_LINKED));
        }
        let _ = writeln!(
            out,
            "<tr><td><code>{}</code></td>{}{}<td>{} <span class=\"muted\">({})</span></td></tr>",
            esc(&i.image),
            cell("old", &old),
            cell("new", &new),
            links.join(", "),
            i.targets.len()
        );
    }
    out.push_str("</table>\n</section>\n");
}
