//! Where each field of a rendered manifest was written: a node's line in its document is a line
//! of its template's output, which the execution recorded ([`template::Written`]), so the node
//! is placed at the template line that wrote it; the spans name the template as Helm prints its
//! path (`chart/templates/web.yaml`). A field whose text an action printed as it read it from
//! the chart's values ([`template::Printed`]) is placed at the values file line that set it
//! ([`Origins`]):
//!
//! - a scalar whose text is one such action's (with template text around it, as quotes or a
//!   unit: `"{{ .Values.tag }}"`, `{{ .Values.cpu }}m`) gets the value's line; a scalar made of
//!   several actions' text (`{{ .Values.repo }}:{{ .Values.tag }}`) has no one line that set
//!   it, and stays at its template;
//! - a map or list an action printed (`toYaml .Values.resources | nindent 12`) gets the line of
//!   the value it printed, and each node in it the line of the same key under that value, or
//!   where none sets it (a flag, a default of the template) the line of the nearest map above
//!   it that a file set; entries such an action adds to a map or list the template started
//!   (`{{- with .Values.podLabels }}{{ toYaml . | nindent 4 }}`) are that value's entries.

use super::origin::{Found, Origins, Placed};
use super::output;
use crate::template::{self, Printed};
use crate::yaml::{FileId, Node, NodeKind, ScalarStyle, Span};
use std::collections::{BTreeSet, HashMap};

/// The template output of each manifest template: what the execution recorded.
pub(super) struct Recorded {
    pub lines: Vec<Option<template::Written>>,
    pub printed: Vec<Printed>,
}

/// Places each manifest's nodes at the template lines, or values lines, that wrote them;
/// returns the values files the spans name (as the caller named them: not Helm's paths).
pub(super) fn place_manifests(
    manifests: &mut [output::Manifest],
    rendered: &[(String, String)],
    recorded: &HashMap<&str, Recorded>,
    origins: Option<&Origins>,
) -> BTreeSet<FileId> {
    let mut files: HashMap<*const u8, FileId> = HashMap::new();
    let mut placed: HashMap<String, Vec<Span>> = HashMap::new();
    let mut starts: HashMap<String, Vec<usize>> = HashMap::new();
    let texts: HashMap<&str, &str> = rendered
        .iter()
        .map(|(name, text)| (name.as_str(), text.as_str()))
        .collect();
    for m in manifests.iter_mut() {
        let Some(node) = m.node.as_mut() else {
            continue;
        };
        let Some(recorded) = recorded.get(m.source.as_str()) else {
            continue;
        };
        let Some(text) = texts.get(m.source.as_str()) else {
            continue;
        };
        // Each line of the template's output, placed; each file interned once.
        let spans = placed.entry(m.source.clone()).or_insert_with(|| {
            recorded
                .lines
                .iter()
                .map(|w| match w {
                    Some(w) => Span {
                        line: w.line,
                        column: w.column,
                        file: *files
                            .entry(w.template.as_ptr())
                            .or_insert_with(|| FileId::of(&w.template)),
                    },
                    None => Span::default(),
                })
                .collect()
        });
        let before = text.as_bytes().get(..m.offset).unwrap_or_default();
        let first_line = memchr::memchr_iter(b'\n', before).count();
        let at_template = |span: Span| {
            if !span.is_known() {
                return span;
            }
            spans
                .get(first_line + span.line as usize - 1)
                .copied()
                .unwrap_or_default()
        };
        let Some(origins) = origins.filter(|_| recorded.printed.iter().any(|p| p.read.is_some()))
        else {
            node.map_spans(&at_template);
            continue;
        };
        let starts = starts.entry(m.source.clone()).or_insert_with(|| {
            std::iter::once(0)
                .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
                .collect()
        });
        let doc = Doc {
            text,
            starts,
            first_line,
            printed: &recorded.printed,
            origins,
            at_template: &at_template,
        };
        doc.place(node, None);
    }
    origins.map(Origins::files_named).unwrap_or_default()
}

/// One document of a template's output, being placed.
struct Doc<'a> {
    /// The template's output, and where its lines start.
    text: &'a str,
    starts: &'a [usize],
    /// The output line the document starts on (0-based).
    first_line: usize,
    printed: &'a [Printed],
    origins: &'a Origins<'a>,
    at_template: &'a dyn Fn(Span) -> Span,
}

/// A node inside the text of an action that printed a value: which of [`Doc::printed`], the
/// node's path in the values, and where the nearest value above it was set.
#[derive(Clone)]
struct Within {
    write: usize,
    path: Vec<String>,
    above: Option<Placed>,
}

impl Within {
    /// The entry `key` of this node, in the same action's text.
    fn child(&self, key: String, placed: Option<Placed>) -> Within {
        let mut path = self.path.clone();
        path.push(key);
        Within {
            write: self.write,
            path,
            above: placed.or(self.above),
        }
    }
}

impl Doc<'_> {
    /// Places `node` (a value: a document, a map's value, a list's item) and what it holds;
    /// `inherited` is its place in the action that printed its parent.
    fn place(&self, node: &mut Node, inherited: Option<Within>) {
        let template = (self.at_template)(node.span);
        let at = self.position(node.span);
        let within = match (inherited, at) {
            (Some(w), Some(at)) if self.covers(w.write, at) => Some(w),
            (_, Some(at)) => self.printed_alone(node, at),
            _ => None,
        };
        let found = within.as_ref().map(|w| self.origins.found(&w.path));
        let placed = found.and_then(Found::placed);
        node.span = self
            .span_of(found, within.as_ref())
            .map_or(template, |p| p.value);
        match &mut node.kind {
            NodeKind::Scalar(_) => {}
            NodeKind::Map(entries) => {
                for (key, value) in entries.iter_mut() {
                    let name = key.as_text().unwrap_or_default().to_string();
                    let key_at = self.position(key.span);
                    let entry = match (&within, key_at) {
                        (Some(w), Some(at)) if self.covers(w.write, at) => {
                            Some(w.child(name, placed))
                        }
                        // Entries an action printed into a map the template started.
                        (_, Some(at)) => {
                            self.continued(at, value.span).map(|w| w.child(name, None))
                        }
                        _ => None,
                    };
                    let key_template = (self.at_template)(key.span);
                    let found = entry.as_ref().map(|e| self.origins.found(&e.path));
                    key.span = self
                        .span_of(found, entry.as_ref())
                        .map_or(key_template, |p| p.key);
                    self.place(value, entry);
                }
            }
            NodeKind::Seq(items) => {
                let mut continued: Option<(usize, usize)> = None;
                for (i, item) in items.iter_mut().enumerate() {
                    let item_at = self.position(item.span);
                    let entry = match (&within, item_at) {
                        (Some(w), Some(at)) if self.covers(w.write, at) => {
                            Some(w.child(i.to_string(), placed))
                        }
                        // Items an action printed into a list the template started.
                        (_, Some(at)) => self.continued_item(at).map(|w| {
                            let n = match continued {
                                Some((write, n)) if write == w.write => n + 1,
                                _ => 0,
                            };
                            continued = Some((w.write, n));
                            w.child(n.to_string(), None)
                        }),
                        _ => None,
                    };
                    self.place(item, entry);
                }
            }
        }
    }

    /// Where a node found at `found` is placed: the file that set it, or when none says (a
    /// value the template made), the nearest value above that a file set; a flag's value
    /// stays at its template.
    fn span_of(&self, found: Option<Found>, within: Option<&Within>) -> Option<Placed> {
        match found? {
            Found::File(p) => Some(p),
            Found::Flag => None,
            Found::Nowhere => within?.above,
        }
    }

    /// The action that printed `node` by itself, when it printed a value read from the values:
    /// for a map or list, the action whose text it starts (blank text before it); for a
    /// scalar, the one action whose text is in the rest of its line (its first content line,
    /// for a block scalar).
    fn printed_alone(&self, node: &Node, at: (u32, u32)) -> Option<Within> {
        let write = match &node.kind {
            NodeKind::Scalar(s) => {
                let at = match s.style {
                    ScalarStyle::Literal | ScalarStyle::Folded => self.next_line_content(at.0)?,
                    _ => at,
                };
                let end = (at.0, self.line_len(at.0));
                let mut found = self.overlapping(at, end);
                let write = found.next()?;
                if found.next().is_some() {
                    return None;
                }
                write
            }
            _ => {
                let write = self.covering(at)?;
                if !self.blank_between(self.printed[write].start, at) {
                    return None;
                }
                write
            }
        };
        self.root(write)
    }

    /// A map entry whose key is at `key` in the text of an action that started before it and
    /// printed its value too (at `value`): the action printed entries of a map the template
    /// started.
    fn continued(&self, key: (u32, u32), value: Span) -> Option<Within> {
        let write = self.covering(key)?;
        let value = self.position(value)?;
        if !self.covers(write, value) {
            return None;
        }
        self.root(write)
    }

    /// A list item at `at` in the text of an action that printed its `-` too.
    fn continued_item(&self, at: (u32, u32)) -> Option<Within> {
        let write = self.covering(at)?;
        let start = self.offset(self.printed[write].start)?;
        let text = self.text.get(start..self.offset(at)?)?;
        if !text.contains('-') {
            return None;
        }
        self.root(write)
    }

    /// The values path of what action `write` printed, when it read the values.
    fn root(&self, write: usize) -> Option<Within> {
        let read = self.printed[write].read.as_ref()?;
        Some(Within {
            write,
            path: self.origins.path_of(read)?,
            above: None,
        })
    }

    /// Where a node's span is in the template's output: line (0-based) and byte column.
    fn position(&self, span: Span) -> Option<(u32, u32)> {
        if !span.is_known() {
            return None;
        }
        let line = self.first_line + span.line as usize - 1;
        let start = *self.starts.get(line)?;
        let end = self.starts.get(line + 1).map_or(self.text.len(), |e| e - 1);
        let text = self.text.get(start..end)?;
        let column = text
            .char_indices()
            .nth(span.column.saturating_sub(1) as usize)
            .map_or(text.len(), |(i, _)| i);
        Some((u32::try_from(line).ok()?, u32::try_from(column).ok()?))
    }

    /// The byte offset of a position in the output.
    fn offset(&self, (line, column): (u32, u32)) -> Option<usize> {
        Some(self.starts.get(line as usize)? + column as usize)
    }

    fn line_len(&self, line: u32) -> u32 {
        let line = line as usize;
        let (Some(start), end) = (
            self.starts.get(line),
            self.starts.get(line + 1).map_or(self.text.len(), |e| e - 1),
        ) else {
            return 0;
        };
        u32::try_from(end.saturating_sub(*start)).unwrap_or(u32::MAX)
    }

    /// The first non-blank character of the lines after `line`.
    fn next_line_content(&self, line: u32) -> Option<(u32, u32)> {
        let next = line + 1;
        let start = *self.starts.get(next as usize)?;
        let rest = self.text.get(start..)?;
        let blank = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        Some((next, u32::try_from(blank).ok()?))
    }

    /// True when only blanks and line breaks are between two positions.
    fn blank_between(&self, from: (u32, u32), to: (u32, u32)) -> bool {
        let (Some(a), Some(b)) = (self.offset(from), self.offset(to)) else {
            return false;
        };
        self.text
            .get(a..b)
            .is_some_and(|t| t.chars().all(char::is_whitespace))
    }

    fn covers(&self, write: usize, at: (u32, u32)) -> bool {
        let p = &self.printed[write];
        p.start <= at && at < p.end
    }

    /// The action whose text holds `at`.
    fn covering(&self, at: (u32, u32)) -> Option<usize> {
        let after = self.printed.partition_point(|p| p.start <= at);
        (0..after)
            .rev()
            .take_while(|&i| self.printed[i].end > at || self.printed[i].start == at)
            .find(|&i| self.covers(i, at))
    }

    /// The actions whose text overlaps `from`..`to`.
    fn overlapping(&self, from: (u32, u32), to: (u32, u32)) -> impl Iterator<Item = usize> + '_ {
        let after = self.printed.partition_point(|p| p.start < to);
        (0..after)
            .rev()
            .take_while(move |&i| self.printed[i].end > from || self.printed[i].start >= from)
            .filter(move |&i| {
                let p = &self.printed[i];
                p.start < p.end && p.end > from && p.start < to
            })
    }
}

#[cfg(test)]
mod tests {
    use super::super::chart::Chart;
    use super::super::origin::{Placed, ValuesFiles};
    use super::super::render::{render_with, RenderOptions};
    use crate::yaml::{parse_one, Node, ParseOptions, Span};

    const VALUES: &str = "labels:\n  tier: web\nrepo: nginx\ntag: \"1.27\"\ncpu: 250\n\
                          text: \"a\\nb\"\nitems:\n- one\n- two\n";

    /// The chart's `values.yaml`, read with positions.
    struct Own(Node);

    impl ValuesFiles for Own {
        fn user(&self, _: usize, _: &[&str]) -> Option<Placed> {
            None
        }
        fn chart(&self, _: &str, path: &[&str]) -> Option<Placed> {
            let mut node = &self.0;
            let mut key = node.span;
            for step in path {
                (key, node) = match node.as_seq() {
                    Some(items) => {
                        let item = items.get(step.parse::<usize>().ok()?)?;
                        (item.span, item)
                    }
                    None => node.get_entry(step).map(|(k, v)| (k.span, v))?,
                };
            }
            let file = |s: Span| s.in_file("values.yaml");
            Some(Placed {
                key: file(key),
                value: file(node.span),
            })
        }
    }

    /// Where `path` of the rendered ConfigMap was placed: file and line.
    fn at(node: &Node, path: &[&str]) -> (String, u32) {
        let mut n = node;
        for step in path {
            n = match n.as_seq() {
                Some(items) => &items[step.parse::<usize>().unwrap()],
                None => n.get(step).unwrap_or_else(|| panic!("{step} in {path:?}")),
            };
        }
        let file = n
            .span
            .file
            .name()
            .map(|f| f.to_string())
            .unwrap_or_default();
        (file, n.span.line)
    }

    #[test]
    fn fields_printed_from_the_values_are_placed_at_their_lines() {
        let template = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    \
                        app: x\n    {{- with .Values.labels }}\n    {{- toYaml . | nindent 4 }}\n    \
                        {{- end }}\ndata:\n  image: {{ .Values.repo }}:{{ .Values.tag }}\n  \
                        quoted: \"{{ .Values.tag }}\"\n  unit: {{ .Values.cpu }}m\n  block: |\n    \
                        {{- .Values.text | nindent 4 }}\n  list:\n  - fixed\n  \
                        {{- toYaml .Values.items | nindent 2 }}\n";
        let chart = Chart::from_files(
            [
                ("Chart.yaml", "apiVersion: v2\nname: c\nversion: 1.0.0\n"),
                ("values.yaml", VALUES),
                ("templates/cm.yaml", template),
            ]
            .map(|(p, t)| (p.to_string(), t.as_bytes().to_vec())),
        )
        .unwrap();
        let own = Own(parse_one(VALUES.as_bytes(), &ParseOptions::default()).unwrap());
        let options = RenderOptions {
            positions: true,
            ..RenderOptions::default()
        };
        let rendered = render_with(&chart, &options, Some(&own)).unwrap();
        let node = rendered.nodes.values().next().expect("one document");
        let values = |line: u32| ("values.yaml".to_string(), line);
        let template = |line: u32| ("c/templates/cm.yaml".to_string(), line);
        // Entries a `with` block adds to a map the template started: their keys' lines.
        assert_eq!(at(node, &["metadata", "labels", "tier"]), values(2));
        assert_eq!(at(node, &["metadata", "labels", "app"]), template(6));
        // Two actions make one scalar: no one line set it.
        assert_eq!(at(node, &["data", "image"]), template(11));
        // One action's text, with the template's quotes or unit around it.
        assert_eq!(at(node, &["data", "quoted"]), values(4));
        assert_eq!(at(node, &["data", "unit"]), values(5));
        // A block scalar's content.
        assert_eq!(at(node, &["data", "block"]), values(6));
        // Items an action adds to a list the template started, counted from its first.
        assert_eq!(at(node, &["data", "list", "0"]), template(17));
        assert_eq!(at(node, &["data", "list", "1"]), values(8));
        assert_eq!(at(node, &["data", "list", "2"]), values(9));
        assert_eq!(
            rendered
                .values_files
                .iter()
                .map(|f| f.name().unwrap().to_string())
                .collect::<Vec<_>>(),
            ["values.yaml"]
        );
    }
}
