//! Line and character diffs of two texts, for the writers that show a multi-line value changing
//! (terminal, Markdown, HTML). This is the only module that knows the `similar` crate: every
//! writer diffs with the same algorithm and settings, so they all show the same changes.

/// Lines and characters of a diff: kept, or only in the old or the new text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tag {
    Same,
    Removed,
    Added,
}

/// A stretch of a line diff. Line numbers are 1-based and count lines of each whole text;
/// lines are given without their line break.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Run<'a> {
    /// Lines both texts have, from line `old` of the old text and line `new` of the new one.
    Same {
        old: usize,
        new: usize,
        lines: Vec<&'a str>,
    },
    /// Lines `removed` from the old text at line `old`, replaced by lines `added` at line `new`
    /// of the new text; either side may be empty.
    Changed {
        old: usize,
        removed: Vec<&'a str>,
        new: usize,
        added: Vec<&'a str>,
    },
}

/// The line diff of two texts.
pub struct LineDiff<'a> {
    diff: similar::TextDiff<'a, 'a, str>,
}

/// Diffs two texts line by line.
pub fn line_diff<'a>(old: &'a str, new: &'a str) -> LineDiff<'a> {
    LineDiff {
        diff: similar::TextDiff::from_lines(old, new),
    }
}

impl LineDiff<'_> {
    /// The whole diff as runs, in order.
    pub fn runs(&self) -> Vec<Run<'_>> {
        let old = |i: usize| line(self.diff.old_slice(i));
        let new = |i: usize| line(self.diff.new_slice(i));
        self.diff
            .ops()
            .iter()
            .map(|op| {
                let (tag, o, n) = op.as_tag_tuple();
                match tag {
                    similar::DiffTag::Equal => Run::Same {
                        old: o.start + 1,
                        new: n.start + 1,
                        lines: o.map(old).collect(),
                    },
                    _ => Run::Changed {
                        old: o.start + 1,
                        new: n.start + 1,
                        removed: o.map(old).collect(),
                        added: n.map(new).collect(),
                    },
                }
            })
            .collect()
    }

    /// A unified diff without file headers: for each hunk its `@@ -a,b +c,d @@` line, then its
    /// lines marked `-`, `+` or ` `, with `context` unchanged lines around each change.
    pub fn unified(&self, context: usize) -> Vec<String> {
        let mut lines = Vec::new();
        for hunk in self
            .diff
            .unified_diff()
            .context_radius(context)
            .iter_hunks()
        {
            lines.push(hunk.header().to_string());
            for change in hunk.iter_changes() {
                let sign = match change.tag() {
                    similar::ChangeTag::Delete => '-',
                    similar::ChangeTag::Insert => '+',
                    similar::ChangeTag::Equal => ' ',
                };
                lines.push(format!("{sign}{}", line(Some(change.value()))));
            }
        }
        lines
    }
}

/// A line without its line break (the diff keeps them; no writer shows them).
fn line(s: Option<&str>) -> &str {
    s.unwrap_or("").trim_end_matches('\n')
}

/// The character diff of two short texts (one line each, typically).
pub struct CharDiff<'a> {
    diff: similar::TextDiff<'a, 'a, str>,
}

/// Diffs two texts character by character.
pub fn char_diff<'a>(old: &'a str, new: &'a str) -> CharDiff<'a> {
    CharDiff {
        diff: similar::TextDiff::from_chars(old, new),
    }
}

impl CharDiff<'_> {
    /// How alike the texts are, from 0 (nothing in common) to 1 (equal).
    pub fn similarity(&self) -> f32 {
        self.diff.ratio()
    }

    /// Both texts as pieces, in order, consecutive characters with the same tag joined: the
    /// old text is the `Same` and `Removed` pieces, the new one the `Same` and `Added` pieces.
    pub fn pieces(&self) -> Vec<(Tag, String)> {
        let mut pieces: Vec<(Tag, String)> = Vec::new();
        for change in self.diff.iter_all_changes() {
            let tag = match change.tag() {
                similar::ChangeTag::Equal => Tag::Same,
                similar::ChangeTag::Delete => Tag::Removed,
                similar::ChangeTag::Insert => Tag::Added,
            };
            match pieces.last_mut() {
                Some((t, text)) if *t == tag => text.push_str(change.value()),
                _ => pieces.push((tag, change.value().to_string())),
            }
        }
        pieces
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_pair_replaced_lines_and_number_both_sides() {
        let d = line_diff("a\nb\nc\nd\n", "a\nB\nc\nd\ne\n");
        assert_eq!(
            d.runs(),
            [
                Run::Same {
                    old: 1,
                    new: 1,
                    lines: vec!["a"]
                },
                Run::Changed {
                    old: 2,
                    removed: vec!["b"],
                    new: 2,
                    added: vec!["B"]
                },
                Run::Same {
                    old: 3,
                    new: 3,
                    lines: vec!["c", "d"]
                },
                Run::Changed {
                    old: 5,
                    removed: vec![],
                    new: 5,
                    added: vec!["e"]
                },
            ]
        );
    }

    #[test]
    fn unified_hunks_keep_the_context_asked_for() {
        let old: String = (1..=10).map(|i| format!("{i}\n")).collect();
        let new = old.replace("5\n", "five\n");
        assert_eq!(
            line_diff(&old, &new).unified(1),
            ["@@ -4,3 +4,3 @@", " 4", "-5", "+five", " 6"]
        );
        assert!(line_diff("same\n", "same\n").unified(3).is_empty());
    }

    #[test]
    fn char_pieces_join_runs_of_one_tag() {
        let d = char_diff("image:1.26", "image:1.27");
        assert_eq!(
            d.pieces(),
            [
                (Tag::Same, "image:1.2".to_string()),
                (Tag::Removed, "6".to_string()),
                (Tag::Added, "7".to_string()),
            ]
        );
        assert!(d.similarity() > 0.8);
        assert_eq!(char_diff("", "").pieces(), []);
    }
}
