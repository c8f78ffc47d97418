//! The changes found in several targets: each once, collapsible, with links to the targets it
//! occurs in; its detail is a chunk like a target's.

use super::targets::{change, Chunks};
use crate::report::escape::html as esc;
use crate::report::overview::Overview;
use crate::report::view;
use std::collections::BTreeMap;
use std::fmt::Write;

pub(super) fn groups_section(
    out: &mut String,
    overview: &Overview,
    anchors: &BTreeMap<String, String>,
    chunks: &mut Chunks,
) {
    if overview.groups.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<section id=\"groups\">\n<h2>Changes in several targets ({})</h2>",
        overview.groups.len()
    );
    for (i, g) in overview.groups.iter().enumerate() {
        let targets = g.targets();
        let mut detail = String::new();
        change(&mut detail, &g.change());
        detail.push_str("<p>In ");
        let links: Vec<String> = g
            .occurrences
            .iter()
            .map(|o| {
                format!(
                    "<a href=\"#{}\"><code>{}</code></a> <span class=\"muted\">({})</span>",
                    anchors
                        .get(&o.target)
                        .map(String::as_str)
                        .unwrap_or_default(),
                    esc(&o.target),
                    esc(&o.resource)
                )
            })
            .collect();
        detail.push_str(&links.join(", "));
        detail.push_str("</p>\n");
        let chunk = chunks.add_chunk(detail);
        let word = view::change_word(g.change);
        let _ = writeln!(
            out,
            "<details class=\"group\" id=\"group-{i}\" data-chunk=\"{chunk}\">\n<summary><span class=\"badge {word}\">{word}</span> <code>{}</code> · in {}</summary>\n<div class=\"detail\"></div>\n</details>",
            esc(&g.resource),
            view::plural(targets.len(), "target")
        );
    }
    out.push_str("</section>\n");
}
