//! Where each line of a template's output was written ([`super::Options::positions`]): the
//! template file and line of the text or the action that wrote the line's first non-blank
//! character. Text is copied as it is, so its lines are the template's lines; an action's
//! value (an `include`, a `toYaml`) is placed at the action.

use super::parse::Tree;
use std::sync::Arc;

/// The template file, line and column (1-based) that wrote one line of output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// The name of the text the template was parsed from (`chart/templates/web.yaml`).
    pub template: Arc<str>,
    pub line: u32,
    pub column: u32,
}

/// What an execution wrote where, recorded as it goes.
#[derive(Default)]
pub(super) struct Marks {
    /// The templates written from: the name of the text, and the text.
    trees: Vec<(Arc<str>, Arc<str>)>,
    marks: Vec<Mark>,
}

struct Mark {
    /// Where in the output the write starts.
    out: usize,
    /// Which of [`Marks::trees`].
    tree: usize,
    /// Where in the template's text the text or action is.
    src: usize,
    /// The text itself was written (else an action's value).
    verbatim: bool,
}

impl Marks {
    /// A write starts at `out`, from the text (`verbatim`) or the action at `src` of `tree`.
    pub(super) fn push(&mut self, out: usize, tree: &Tree, src: usize, verbatim: bool) {
        let known = |(_, text): &(Arc<str>, Arc<str>)| Arc::ptr_eq(text, &tree.text);
        let tree = match self.trees.iter().rposition(known) {
            Some(i) => i,
            None => {
                let name: Arc<str> = Arc::from(tree.parse_name.as_str());
                self.trees.push((name, Arc::clone(&tree.text)));
                self.trees.len() - 1
            }
        };
        self.marks.push(Mark {
            out,
            tree,
            src,
            verbatim,
        });
    }

    /// For each line of `out` (the output the marks were recorded on), where it was written;
    /// None for a blank line.
    pub(super) fn lines(&self, out: &str) -> Vec<Option<Written>> {
        let mut newlines: Vec<Option<Vec<usize>>> = vec![None; self.trees.len()];
        let mut lines = Vec::new();
        let mut start = 0;
        for line in out.split('\n') {
            let blank = line.len() - line.trim_start_matches([' ', '\t']).len();
            let at = start + blank;
            start += line.len() + 1;
            if blank == line.len() {
                lines.push(None);
                continue;
            }
            let Some(mark) = self
                .marks
                .partition_point(|m| m.out <= at)
                .checked_sub(1)
                .map(|i| &self.marks[i])
            else {
                lines.push(None);
                continue;
            };
            let (name, text) = &self.trees[mark.tree];
            let src = if mark.verbatim {
                mark.src + (at - mark.out)
            } else {
                mark.src
            };
            let ends = newlines[mark.tree].get_or_insert_with(|| {
                text.bytes()
                    .enumerate()
                    .filter(|(_, b)| *b == b'\n')
                    .map(|(i, _)| i)
                    .collect()
            });
            let line = ends.partition_point(|&i| i < src);
            let line_start = line.checked_sub(1).map_or(0, |i| ends[i] + 1);
            lines.push(Some(Written {
                template: Arc::clone(name),
                line: u32::try_from(line + 1).unwrap_or(u32::MAX),
                column: u32::try_from(src.saturating_sub(line_start) + 1).unwrap_or(u32::MAX),
            }));
        }
        lines
    }
}
