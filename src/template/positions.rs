//! Where each line of a template's output was written ([`super::Options::positions`]): the
//! template file and line of the text or the action that wrote the line's first non-blank
//! character. Text is copied as it is, so its lines are the template's lines; an action's
//! value (an `include`, a `toYaml`) is placed at the action. An action that printed a value
//! as it read it from a map or list ([`Read`]) says so, with where its text is ([`Printed`]),
//! so that the caller can place that text at the file that set the value.

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

/// Where an action's value was read: the entry `key` of a map or list (a list's by its index
/// in decimal), or with no key the map or list itself; the container by its identity
/// ([`super::Dict::id`], [`super::List::id`]), which is only meaningful while it lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Read {
    pub container: usize,
    pub key: Option<Arc<str>>,
}

/// An action's text in the output, from `start` to `end` (0-based line and byte column), and
/// where its value was read when it printed one as read. Given for the actions that printed a
/// value read so, and for the other actions on the lines such an action starts or ends on (a
/// scalar made of several actions' text is not one value's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Printed {
    pub start: (u32, u32),
    pub end: (u32, u32),
    pub read: Option<Read>,
}

/// What an execution wrote where, recorded as it goes.
#[derive(Default)]
pub(super) struct Marks {
    /// The templates written from: the name of the text, and the text.
    trees: Vec<(Arc<str>, Arc<str>)>,
    marks: Vec<Mark>,
    /// The actions whose value was read as it is printed: which of [`Marks::marks`], and where.
    reads: Vec<(usize, Read)>,
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

    /// The last write pushed was an action's value as `read` gave it.
    pub(super) fn read(&mut self, read: Read) {
        if let Some(last) = self.marks.len().checked_sub(1) {
            self.reads.push((last, read));
        }
    }

    /// The actions of [`Printed`] in `out` (the output the marks were recorded on), in order.
    pub(super) fn printed(&self, out: &str) -> Vec<Printed> {
        if self.reads.is_empty() {
            return Vec::new();
        }
        let newlines: Vec<usize> = memchr::memchr_iter(b'\n', out.as_bytes()).collect();
        let position = |at: usize| {
            let line = newlines.partition_point(|&i| i < at);
            let start = line.checked_sub(1).map_or(0, |i| newlines[i] + 1);
            let n = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
            (n(line), n(at - start))
        };
        let end_of = |i: usize| self.marks.get(i + 1).map_or(out.len(), |m| m.out);
        // The lines a read action starts or ends on.
        let mut lines: Vec<u32> = self
            .reads
            .iter()
            .flat_map(|(i, _)| [position(self.marks[*i].out).0, position(end_of(*i)).0])
            .collect();
        lines.sort_unstable();
        lines.dedup();
        let mut reads = self.reads.iter().peekable();
        let mut printed = Vec::new();
        for (i, mark) in self.marks.iter().enumerate() {
            let read = match reads.peek() {
                Some((at, read)) if *at == i => {
                    reads.next();
                    Some(read.clone())
                }
                _ => None,
            };
            if mark.verbatim {
                continue;
            }
            let (start, end) = (position(mark.out), position(end_of(i)));
            let on_lines = |line: u32| lines.binary_search(&line).is_ok();
            if read.is_none() && !on_lines(start.0) && !on_lines(end.0) {
                continue;
            }
            printed.push(Printed { start, end, read });
        }
        printed
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
