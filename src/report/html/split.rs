//! The side-by-side (old | new) line diff of the HTML report, with character-level highlights
//! of what changed inside a line and long unchanged runs folded.

use crate::report::escape::html as esc;
use crate::report::textdiff::{self, Run, Tag};
use crate::report::view;
use std::fmt::Write;

/// Lines longer than this get no character-level highlight (it would cost more than it shows).
const HIGHLIGHT_MAX: usize = 1_000;

/// One row of a side-by-side diff: a line number and text on each side, either side empty.
struct Row<'a> {
    old: Option<(usize, &'a str)>,
    new: Option<(usize, &'a str)>,
}

/// A side-by-side line diff as a table; unchanged runs longer than `2 * context + 1` lines fold
/// into one row (`usize::MAX` keeps everything).
pub(super) fn split_diff(out: &mut String, old: &str, new: &str, context: usize) {
    let diff = textdiff::line_diff(old, new);
    let runs = diff.runs();
    let mut rows: Vec<Row> = Vec::new();
    let mut folds: Vec<(usize, usize)> = Vec::new(); // (row index, lines folded)
    for (i, run) in runs.iter().enumerate() {
        match run {
            Run::Same { old, new, lines } => {
                let len = lines.len();
                let keep_all = context == usize::MAX || len <= 2 * context + 1;
                // The first run has no change before it, the last none after: no context there.
                let (first, last) = (i == 0, i + 1 == runs.len());
                for (k, &line) in lines.iter().enumerate() {
                    let keep = keep_all || (!first && k < context) || (!last && k + context >= len);
                    if keep {
                        rows.push(Row {
                            old: Some((old + k, line)),
                            new: Some((new + k, line)),
                        });
                    } else if folds.last().is_some_and(|f| f.0 == rows.len()) {
                        if let Some(f) = folds.last_mut() {
                            f.1 += 1;
                        }
                    } else {
                        folds.push((rows.len(), 1));
                    }
                }
            }
            Run::Changed {
                old,
                removed,
                new,
                added,
            } => {
                // Replaced lines side by side, the k-th old one beside the k-th new one.
                for k in 0..removed.len().max(added.len()) {
                    rows.push(Row {
                        old: removed.get(k).map(|&l| (old + k, l)),
                        new: added.get(k).map(|&l| (new + k, l)),
                    });
                }
            }
        }
    }
    out.push_str("<table class=\"diff\"><colgroup><col style=\"width:3.5em\"><col><col style=\"width:3.5em\"><col></colgroup>\n");
    let mut fold = folds.iter().peekable();
    for (i, r) in rows.iter().enumerate() {
        while let Some((_, n)) = fold.next_if(|f| f.0 == i) {
            fold_row(out, *n);
        }
        let equal = matches!((&r.old, &r.new), (Some(a), Some(b)) if a.1 == b.1);
        let (o, n) = match (&r.old, &r.new) {
            (Some(a), Some(b)) if !equal => highlight_pair(a.1, b.1),
            (a, b) => (
                a.map(|x| esc(x.1)).unwrap_or_default(),
                b.map(|x| esc(x.1)).unwrap_or_default(),
            ),
        };
        let class = |present: bool, side: &str| {
            if equal || !present {
                String::new()
            } else {
                format!(" class=\"{side}\"")
            }
        };
        let num = |s: &Option<(usize, &str)>| s.map(|x| x.0.to_string()).unwrap_or_default();
        let _ = writeln!(
            out,
            "<tr><td class=\"ln\">{}</td><td{}>{o}</td><td class=\"ln\">{}</td><td{}>{n}</td></tr>",
            num(&r.old),
            class(r.old.is_some(), "del"),
            num(&r.new),
            class(r.new.is_some(), "ins"),
        );
    }
    for (_, n) in fold {
        fold_row(out, *n);
    }
    out.push_str("</table>\n");
}

fn fold_row(out: &mut String, n: usize) {
    let _ = writeln!(
        out,
        "<tr class=\"fold\"><td colspan=\"4\">⋯ {}</td></tr>",
        view::plural(n, "unchanged line")
    );
}

/// Two versions of a line, escaped, with the characters that differ wrapped in `<mark>` when
/// the lines are similar enough for that to help.
pub(super) fn highlight_pair(old: &str, new: &str) -> (String, String) {
    if old.len() > HIGHLIGHT_MAX || new.len() > HIGHLIGHT_MAX {
        return (esc(old), esc(new));
    }
    let diff = textdiff::char_diff(old, new);
    if diff.similarity() < 0.4 {
        return (esc(old), esc(new));
    }
    let (mut o, mut n) = (String::new(), String::new());
    let (mut o_mark, mut n_mark) = (false, false);
    for (tag, text) in diff.pieces() {
        let v = esc(&text);
        match tag {
            Tag::Same => {
                close_mark(&mut o, &mut o_mark);
                close_mark(&mut n, &mut n_mark);
                o.push_str(&v);
                n.push_str(&v);
            }
            Tag::Removed => {
                open_mark(&mut o, &mut o_mark);
                o.push_str(&v);
            }
            Tag::Added => {
                open_mark(&mut n, &mut n_mark);
                n.push_str(&v);
            }
        }
    }
    close_mark(&mut o, &mut o_mark);
    close_mark(&mut n, &mut n_mark);
    (o, n)
}

fn open_mark(s: &mut String, open: &mut bool) {
    if !*open {
        s.push_str("<mark>");
        *open = true;
    }
}

fn close_mark(s: &mut String, open: &mut bool) {
    if *open {
        s.push_str("</mark>");
        *open = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_unchanged_runs_fold() {
        let old: String = (1..=20).map(|i| format!("line {i}\n")).collect();
        let new = old.replace("line 10\n", "line ten\n");
        let mut out = String::new();
        split_diff(&mut out, &old, &new, 3);
        assert!(out.contains("⋯ 6 unchanged lines"), "{out}");
        assert!(out.contains("⋯ 7 unchanged lines"), "{out}");
        assert!(
            out.contains("<mark>10</mark>") || out.contains("<mark>"),
            "{out}"
        );
        assert_eq!(out.matches("<tr>").count(), 7, "{out}");
    }
}
