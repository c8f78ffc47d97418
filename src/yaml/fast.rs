//! The block subset of YAML, read without libyaml.
//!
//! Nearly all YAML kdelta reads is block mappings and sequences of plain, quoted and block
//! scalars, as `toYaml`, kubebuilder and people write them; libyaml-safer reads it a character
//! at a time through a queue, and parsing a chart's CRDs was a third of its render. This reader takes
//! that subset a line at a time from the bytes and hands the builder the events libyaml would,
//! with the same positions: its scalar scanning is libyaml's (`scan_plain_scalar`,
//! `scan_flow_scalar`, `scan_block_scalar`), its structure the block rules of libyaml's scanner
//! and parser for the inputs it accepts.
//!
//! Flow collections of scalars and flow collections are read too, as are a root scalar and
//! a `---` with nothing after it. It gives up ([`Unsupported`]) on anything else: tabs,
//! carriage returns, control and non-printable characters, a byte order mark, anchors,
//! aliases, tags, directives, `...`, complex and multi-line keys, flow keys without a value,
//! and every syntax error. The caller then reads the input with libyaml from the
//! start, so libyaml stays the definition of what is YAML and of each error. The equivalence is
//! tested on every YAML file of `testdata/` and on mutations of them (`tests/yaml_fast.rs`).

use super::node::Span;
use libyaml_safer::{Encoding, EventData, MappingStyle, ScalarStyle, SequenceStyle};

/// The input is outside the subset (or not YAML): read it with libyaml.
#[derive(Debug)]
pub(super) struct Unsupported;

type Read<T> = Result<T, Unsupported>;

/// Nesting read here; deeper input goes to libyaml, which keeps no recursion.
const MAX_DEPTH: usize = 64;

/// The position given to the end of a collection, which the builder never reads (libyaml's
/// is that of the token that closes it).
const END: Span = Span {
    line: 0,
    column: 0,
    file: super::node::FileId::OWN,
};

/// libyaml forgets a simple key 1,024 characters after it starts; longer keys go to libyaml.
const MAX_KEY_BYTES: usize = 1000;

/// Hands `sink` the events of `input` (stopping after the first document when `first_only`),
/// each with the position libyaml gives it. `sink` returns false to stop (the builder's error,
/// which libyaml's reading then reports in its own order).
pub(super) fn read(
    input: &[u8],
    first_only: bool,
    sink: &mut dyn FnMut(EventData, Span) -> bool,
) -> Read<()> {
    let (text, ascii) = printable(input).ok_or(Unsupported)?;
    let mut reader = Reader {
        text,
        b: text.as_bytes(),
        pos: 0,
        line: 0,
        line_start: 0,
        ascii,
        depth: 0,
        sink,
    };
    reader.stream(first_only)
}

/// The input as text when every character is one libyaml reads as itself here: printable,
/// no tab or carriage return, no line break but `\n`, no byte order mark. Also whether it is
/// ASCII (columns are then byte offsets).
fn printable(input: &[u8]) -> Option<(&str, bool)> {
    let (control, ascii) = scan(input);
    if control {
        return None;
    }
    let text = std::str::from_utf8(input).ok()?;
    // U+10FF00 and up carry the bytes of a Go string that is not UTF-8 (`template::gostr`):
    // the reader over those bytes decides.
    let odd = |c: char| {
        matches!(
            c as u32,
            0x80..=0x9f | 0x2028 | 0x2029 | 0xfeff | 0xfffe | 0xffff | 0x10ff00..
        )
    };
    if !ascii && text.chars().any(odd) {
        return None;
    }
    Some((text, ascii))
}

/// Whether `input` holds a control character other than `\n` (or DEL), and whether it is all
/// ASCII. Every values file and template output goes through here: the bytes are folded a
/// block at a time, without a branch per byte, which the compiler makes vector code (a
/// byte-wise `any` was 2% of a chart's render).
fn scan(input: &[u8]) -> (bool, bool) {
    const BLOCK: usize = 64;
    let fold = |bytes: &[u8]| {
        bytes.iter().fold((false, 0u8), |(control, high), &c| {
            (
                control | ((c < 0x20) & (c != b'\n')) | (c == 0x7f),
                high | c,
            )
        })
    };
    let mut ascii = true;
    let blocks = input.chunks_exact(BLOCK);
    let tail = blocks.remainder();
    for block in blocks.chain([tail]) {
        let (control, high) = fold(block);
        if control {
            return (true, false);
        }
        ascii &= high < 0x80;
    }
    (false, ascii)
}

/// What comes after a node, comments and blank lines skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Next {
    End,
    /// A `---` line.
    Document,
    /// The first content of a line, at this column.
    Line(usize),
    /// More content on the line of the node.
    Here,
}

/// A mapping key read, the cursor after its `:`.
struct Key {
    value: String,
    style: ScalarStyle,
    span: Span,
}

struct Reader<'a, 's> {
    text: &'a str,
    b: &'a [u8],
    pos: usize,
    /// 0-based, as libyaml's marks.
    line: u32,
    line_start: usize,
    ascii: bool,
    depth: usize,
    sink: &'s mut dyn FnMut(EventData, Span) -> bool,
}

fn blankz(c: u8) -> bool {
    matches!(c, b' ' | b'\n' | 0)
}

impl Reader<'_, '_> {
    /// The byte at the cursor, 0 at the end (the input holds no NUL).
    fn cur(&self) -> u8 {
        self.at(0)
    }

    fn at(&self, k: usize) -> u8 {
        self.b.get(self.pos + k).copied().unwrap_or(0)
    }

    fn newline(&mut self) {
        self.pos += 1;
        self.line += 1;
        self.line_start = self.pos;
    }

    /// libyaml's mark of the cursor: characters since the line start.
    fn span(&self) -> Span {
        let column = if self.ascii {
            self.pos - self.line_start
        } else {
            self.text[self.line_start..self.pos].chars().count()
        };
        Span::new(self.line + 1, column as u32 + 1)
    }

    fn emit(&mut self, event: EventData, span: Span) -> Read<()> {
        if (self.sink)(event, span) {
            Ok(())
        } else {
            Err(Unsupported)
        }
    }

    fn scalar(&mut self, value: String, style: ScalarStyle, span: Span) -> Read<()> {
        let plain = style == ScalarStyle::Plain;
        self.emit(
            EventData::Scalar {
                anchor: None,
                tag: None,
                value,
                plain_implicit: plain,
                quoted_implicit: !plain,
                style,
            },
            span,
        )
    }

    fn empty_scalar(&mut self, span: Span) -> Read<()> {
        self.scalar(String::new(), ScalarStyle::Plain, span)
    }

    fn enter(&mut self) -> Read<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Unsupported);
        }
        Ok(())
    }

    /// `-` followed by a blank, a line break or the end: a block sequence entry.
    fn entry_indicator(&self) -> bool {
        self.cur() == b'-' && blankz(self.at(1))
    }

    /// `:` followed by a blank, a line break or the end: what ends a plain scalar in block
    /// context.
    fn value_indicator(&self) -> bool {
        self.cur() == b':' && blankz(self.at(1))
    }

    /// `---` or `...` at the cursor, followed by a blank, a line break or the end.
    fn document_indicator(&self, c: u8) -> bool {
        self.at(0) == c && self.at(1) == c && self.at(2) == c && blankz(self.at(3))
    }

    /// Skips blanks, comments and line breaks (libyaml's `scan_to_next_token`).
    fn next(&mut self) -> Read<Next> {
        let mut fresh = self.b[self.line_start..self.pos].iter().all(|&c| c == b' ');
        loop {
            while self.cur() == b' ' {
                self.pos += 1;
            }
            match self.cur() {
                0 => return Ok(Next::End),
                b'#' => {
                    self.pos = memchr::memchr(b'\n', &self.b[self.pos..])
                        .map_or(self.b.len(), |i| self.pos + i);
                }
                b'\n' => {
                    self.newline();
                    fresh = true;
                }
                _ if !fresh => return Ok(Next::Here),
                _ => {
                    let column = self.pos - self.line_start;
                    if column == 0 && self.document_indicator(b'-') {
                        return Ok(Next::Document);
                    }
                    if column == 0 && self.document_indicator(b'.') {
                        return Err(Unsupported);
                    }
                    return Ok(Next::Line(column));
                }
            }
        }
    }

    fn stream(&mut self, first_only: bool) -> Read<()> {
        let start = self.span();
        self.emit(
            EventData::StreamStart {
                encoding: Encoding::Utf8,
            },
            start,
        )?;
        let mut next = self.next()?;
        let mut explicit = false;
        if next == Next::Document {
            self.pos += 3;
            next = self.next()?;
            explicit = true;
        }
        loop {
            if next == Next::End && !explicit {
                // Nothing but comments and blank lines: no document.
                break;
            }
            let span = self.span();
            self.emit(
                EventData::DocumentStart {
                    version_directive: None,
                    tag_directives: Vec::new(),
                    implicit: !explicit,
                },
                span,
            )?;
            match next {
                Next::Line(column) => next = self.block_node(column, -1)?,
                // `---` and nothing: a null at the next token (the stream's end starts a line).
                Next::End => {
                    let line = self.line + u32::from(self.pos != self.line_start);
                    self.empty_scalar(Span::new(line + 1, 1))?;
                }
                Next::Document => self.empty_scalar(self.span())?,
                Next::Here => return Err(Unsupported),
            }
            // libyaml ends a document when it has read the token after it: anything but the
            // end or `---` is for libyaml to read (or to fail on), even when only the first
            // document is wanted.
            if !matches!(next, Next::End | Next::Document) {
                return Err(Unsupported);
            }
            let span = self.span();
            self.emit(EventData::DocumentEnd { implicit: true }, span)?;
            if first_only {
                return Ok(());
            }
            if next == Next::End {
                break;
            }
            self.pos += 3;
            next = self.next()?;
            explicit = true;
        }
        let span = self.span();
        self.emit(EventData::StreamEnd, span)
    }

    /// The block node starting at the cursor, at `column`, inside a collection indented
    /// `indent` (libyaml's `parser.indent`, -1 at the root). Returns what follows it.
    fn block_node(&mut self, column: usize, indent: i64) -> Read<Next> {
        if self.entry_indicator() {
            return self.sequence(column, false);
        }
        if let Some(key) = self.key()? {
            return self.mapping(column, key);
        }
        self.inline_node(indent)?;
        self.after_inline()
    }

    /// What follows a node that ended on its line: nothing more on that line.
    fn after_inline(&mut self) -> Read<Next> {
        match self.next()? {
            Next::Here => Err(Unsupported),
            next => Ok(next),
        }
    }

    fn mapping(&mut self, column: usize, first: Key) -> Read<Next> {
        self.enter()?;
        let style = MappingStyle::Block;
        let start = EventData::MappingStart {
            anchor: None,
            tag: None,
            implicit: true,
            style,
        };
        self.emit(start, first.span)?;
        let mut key = first;
        loop {
            self.scalar(key.value, key.style, key.span)?;
            let next = self.value(column)?;
            match next {
                Next::Line(c) if c == column => match self.key()? {
                    Some(k) => key = k,
                    None => return Err(Unsupported),
                },
                Next::Line(c) if c > column => return Err(Unsupported),
                Next::Here => return Err(Unsupported),
                _ => {
                    self.emit(EventData::MappingEnd, END)?;
                    self.depth -= 1;
                    return Ok(next);
                }
            }
        }
    }

    /// A mapping value, the cursor after the key's `:`; the mapping is at `column`.
    fn value(&mut self, column: usize) -> Read<Next> {
        // libyaml's empty value is at the end of the `:`.
        let empty = self.span();
        match self.next()? {
            Next::Here => {
                self.inline_node(column as i64)?;
                self.after_inline()
            }
            Next::Line(c) if c > column => self.block_node(c, column as i64),
            Next::Line(c) if c == column && self.entry_indicator() => self.sequence(c, true),
            next => {
                self.empty_scalar(empty)?;
                Ok(next)
            }
        }
    }

    /// A block sequence whose first `-` is at the cursor, at `column`. An indentless one (a
    /// mapping value at the mapping's own column) ends at the mapping's next key.
    fn sequence(&mut self, column: usize, indentless: bool) -> Read<Next> {
        self.enter()?;
        let span = self.span();
        let start = EventData::SequenceStart {
            anchor: None,
            tag: None,
            implicit: true,
            style: SequenceStyle::Block,
        };
        self.emit(start, span)?;
        loop {
            self.pos += 1;
            let empty = self.span();
            let next = match self.next()? {
                Next::Here => {
                    let inner = self.pos - self.line_start;
                    self.block_node(inner, column as i64)?
                }
                Next::Line(c) if c > column => self.block_node(c, column as i64)?,
                next => {
                    self.empty_scalar(empty)?;
                    next
                }
            };
            match next {
                Next::Line(c) if c == column && self.entry_indicator() => {}
                Next::Line(c) if c == column && indentless => return self.end_sequence(next),
                Next::Line(c) if c >= column => return Err(Unsupported),
                Next::Here => return Err(Unsupported),
                _ => return self.end_sequence(next),
            }
        }
    }

    fn end_sequence(&mut self, next: Next) -> Read<Next> {
        self.emit(EventData::SequenceEnd, END)?;
        self.depth -= 1;
        Ok(next)
    }

    /// A mapping key at the cursor (a plain or quoted scalar on one line followed by `:` and
    /// a blank), the cursor then after the `:`; None, the cursor unmoved, for anything else.
    fn key(&mut self) -> Read<Option<Key>> {
        let span = self.span();
        let start = self.pos;
        match self.cur() {
            b'"' | b'\'' => {
                let saved = (self.pos, self.line, self.line_start);
                let value = self.quoted()?;
                let quoted_on_one_line = self.line == saved.1;
                while self.cur() == b' ' {
                    self.pos += 1;
                }
                if quoted_on_one_line && self.cur() == b':' && blankz(self.at(1)) {
                    if self.pos - start > MAX_KEY_BYTES {
                        return Err(Unsupported);
                    }
                    self.pos += 1;
                    let style = if self.b[start] == b'"' {
                        ScalarStyle::DoubleQuoted
                    } else {
                        ScalarStyle::SingleQuoted
                    };
                    return Ok(Some(Key { value, style, span }));
                }
                (self.pos, self.line, self.line_start) = saved;
                Ok(None)
            }
            c if plain_start(c, self.at(1)) => {
                let mut i = start;
                loop {
                    match self.b.get(i).copied().unwrap_or(0) {
                        b'\n' | 0 => return Ok(None),
                        b':' if blankz(self.b.get(i + 1).copied().unwrap_or(0)) => break,
                        b'#' if self.b[i - 1] == b' ' => return Ok(None),
                        _ => i += 1,
                    }
                }
                if i - start > MAX_KEY_BYTES {
                    return Err(Unsupported);
                }
                let mut end = i;
                while self.b[end - 1] == b' ' {
                    end -= 1;
                }
                let value = self.text[start..end].to_string();
                self.pos = i + 1;
                Ok(Some(Key {
                    value,
                    style: ScalarStyle::Plain,
                    span,
                }))
            }
            _ => Ok(None),
        }
    }

    /// A scalar or a flow collection at the cursor, inside a block collection indented
    /// `indent`.
    fn inline_node(&mut self, indent: i64) -> Read<()> {
        let span = self.span();
        match self.cur() {
            b'[' | b'{' => self.flow_collection(),
            b'"' | b'\'' => self.quoted_scalar(span),
            b'|' | b'>' => {
                let literal = self.cur() == b'|';
                let value = self.block_scalar(literal, indent)?;
                let style = if literal {
                    ScalarStyle::Literal
                } else {
                    ScalarStyle::Folded
                };
                self.scalar(value, style, span)
            }
            c if plain_start(c, self.at(1)) => {
                let value = self.plain(indent, false)?;
                self.scalar(value, ScalarStyle::Plain, span)
            }
            _ => Err(Unsupported),
        }
    }

    /// A flow sequence or mapping at the cursor, up to its closing bracket. Its entries are
    /// scalars and flow collections; a mapping's keys are scalars on the line of their `:`,
    /// and every key has a value.
    fn flow_collection(&mut self) -> Read<()> {
        self.enter()?;
        let span = self.span();
        let sequence = self.cur() == b'[';
        let (start, end, close) = if sequence {
            let style = SequenceStyle::Flow;
            let start = EventData::SequenceStart {
                anchor: None,
                tag: None,
                implicit: true,
                style,
            };
            (start, EventData::SequenceEnd, b']')
        } else {
            let style = MappingStyle::Flow;
            let start = EventData::MappingStart {
                anchor: None,
                tag: None,
                implicit: true,
                style,
            };
            (start, EventData::MappingEnd, b'}')
        };
        self.emit(start, span)?;
        self.pos += 1;
        loop {
            self.flow_space()?;
            if self.cur() == close {
                break;
            }
            if sequence {
                self.flow_entry()?;
            } else {
                let (line, key) = (self.line, self.pos);
                if matches!(self.cur(), b'[' | b'{') {
                    return Err(Unsupported);
                }
                self.flow_entry()?;
                self.flow_space()?;
                if self.cur() != b':' || self.line != line || self.pos - key > MAX_KEY_BYTES {
                    return Err(Unsupported);
                }
                self.pos += 1;
                self.flow_space()?;
                if matches!(self.cur(), b',' | b'}') {
                    return Err(Unsupported);
                }
                self.flow_entry()?;
            }
            self.flow_space()?;
            match self.cur() {
                b',' => self.pos += 1,
                c if c == close => break,
                _ => return Err(Unsupported),
            }
        }
        self.pos += 1;
        self.emit(end, END)?;
        self.depth -= 1;
        Ok(())
    }

    /// A double- or single-quoted scalar at the cursor, which starts at `span`.
    fn quoted_scalar(&mut self, span: Span) -> Read<()> {
        let style = if self.cur() == b'"' {
            ScalarStyle::DoubleQuoted
        } else {
            ScalarStyle::SingleQuoted
        };
        let value = self.quoted()?;
        self.scalar(value, style, span)
    }

    /// A scalar or a flow collection inside a flow collection.
    fn flow_entry(&mut self) -> Read<()> {
        let span = self.span();
        match self.cur() {
            b'[' | b'{' => self.flow_collection(),
            b'"' | b'\'' => self.quoted_scalar(span),
            c if plain_start(c, self.at(1)) => {
                let value = self.plain(-1, true)?;
                self.scalar(value, ScalarStyle::Plain, span)
            }
            _ => Err(Unsupported),
        }
    }

    /// Blanks, line breaks and comments between the tokens of a flow collection.
    fn flow_space(&mut self) -> Read<()> {
        loop {
            match self.cur() {
                b' ' => self.pos += 1,
                b'\n' => self.newline(),
                b'#' => {
                    self.pos = memchr::memchr(b'\n', &self.b[self.pos..])
                        .map_or(self.b.len(), |i| self.pos + i);
                }
                _ if self.pos == self.line_start
                    && (self.document_indicator(b'-') || self.document_indicator(b'.')) =>
                {
                    return Err(Unsupported)
                }
                _ => return Ok(()),
            }
        }
    }

    /// libyaml's `scan_plain_scalar` in block context, the cursor at its first character.
    /// It stops where libyaml does: before `: `, a comment, a less indented line, a document
    /// indicator or the end.
    fn plain(&mut self, indent: i64, flow: bool) -> Read<String> {
        let min = indent + 1;
        let mut string = String::new();
        let mut trailing_breaks = 0usize;
        let mut whitespaces = 0usize;
        let mut leading_blanks = false;
        loop {
            if self.pos == self.line_start
                && (self.document_indicator(b'-') || self.document_indicator(b'.'))
            {
                break;
            }
            if self.cur() == b'#' || self.value_indicator() || (flow && flow_indicator(self.cur()))
            {
                break;
            }
            if !blankz(self.cur()) {
                if leading_blanks {
                    if trailing_breaks == 0 {
                        string.push(' ');
                    } else {
                        string.extend(std::iter::repeat_n('\n', trailing_breaks));
                        trailing_breaks = 0;
                    }
                    leading_blanks = false;
                } else if whitespaces > 0 {
                    string.extend(std::iter::repeat_n(' ', whitespaces));
                    whitespaces = 0;
                }
                let run = self.pos;
                while !blankz(self.cur()) && !self.value_indicator() {
                    if flow && flow_indicator(self.cur()) {
                        break;
                    }
                    // libyaml: "found unexpected ':'".
                    if flow
                        && self.cur() == b':'
                        && matches!(self.at(1), b',' | b'?' | b'[' | b']' | b'{' | b'}')
                    {
                        return Err(Unsupported);
                    }
                    self.pos += 1;
                }
                string.push_str(&self.text[run..self.pos]);
            }
            if !matches!(self.cur(), b' ' | b'\n') {
                break;
            }
            while matches!(self.cur(), b' ' | b'\n') {
                if self.cur() == b' ' {
                    if !leading_blanks {
                        whitespaces += 1;
                    }
                    self.pos += 1;
                } else {
                    if leading_blanks {
                        trailing_breaks += 1;
                    } else {
                        whitespaces = 0;
                        leading_blanks = true;
                    }
                    self.newline();
                }
            }
            // Only a line break moves the column below where the scalar started.
            if !flow && leading_blanks && ((self.pos - self.line_start) as i64) < min {
                break;
            }
        }
        Ok(string)
    }

    /// libyaml's `scan_flow_scalar`, the cursor at the opening quote; after it, the cursor is
    /// after the closing one.
    fn quoted(&mut self) -> Read<String> {
        let single = self.cur() == b'\'';
        let quote = if single { b'\'' } else { b'"' };
        let mut string = String::new();
        let mut leading_break = false;
        let mut trailing_breaks = 0usize;
        let mut whitespaces = 0usize;
        self.pos += 1;
        loop {
            if self.pos == self.line_start
                && (self.document_indicator(b'-') || self.document_indicator(b'.'))
            {
                return Err(Unsupported);
            }
            if self.cur() == 0 {
                return Err(Unsupported);
            }
            let mut leading_blanks = false;
            while !blankz(self.cur()) {
                let c = self.cur();
                if single && c == b'\'' && self.at(1) == b'\'' {
                    string.push('\'');
                    self.pos += 2;
                } else if c == quote {
                    break;
                } else if !single && c == b'\\' && self.at(1) == b'\n' {
                    self.pos += 1;
                    self.newline();
                    leading_blanks = true;
                    break;
                } else if !single && c == b'\\' {
                    self.escape(&mut string)?;
                } else {
                    let run = self.pos;
                    self.pos += 1;
                    while !blankz(self.cur()) && !matches!(self.cur(), b'\'' | b'"' | b'\\') {
                        self.pos += 1;
                    }
                    string.push_str(&self.text[run..self.pos]);
                }
            }
            if self.cur() == quote {
                break;
            }
            while matches!(self.cur(), b' ' | b'\n') {
                if self.cur() == b' ' {
                    if !leading_blanks {
                        whitespaces += 1;
                    }
                    self.pos += 1;
                } else if leading_blanks {
                    trailing_breaks += 1;
                    self.newline();
                } else {
                    whitespaces = 0;
                    leading_break = true;
                    leading_blanks = true;
                    self.newline();
                }
            }
            if leading_blanks {
                if leading_break {
                    if trailing_breaks == 0 {
                        string.push(' ');
                    } else {
                        string.extend(std::iter::repeat_n('\n', trailing_breaks));
                        trailing_breaks = 0;
                    }
                    leading_break = false;
                } else {
                    // An escaped line break: the breaks after it are kept as they are.
                    string.extend(std::iter::repeat_n('\n', trailing_breaks));
                    trailing_breaks = 0;
                }
            } else {
                string.extend(std::iter::repeat_n(' ', whitespaces));
                whitespaces = 0;
            }
        }
        self.pos += 1;
        Ok(string)
    }

    /// One escape of a double-quoted scalar, the cursor at its backslash.
    fn escape(&mut self, string: &mut String) -> Read<()> {
        let simple = match self.at(1) {
            b'0' => Some('\0'),
            b'a' => Some('\x07'),
            b'b' => Some('\x08'),
            b't' => Some('\t'),
            b'n' => Some('\n'),
            b'v' => Some('\x0B'),
            b'f' => Some('\x0C'),
            b'r' => Some('\r'),
            b'e' => Some('\x1B'),
            b' ' => Some(' '),
            b'"' => Some('"'),
            b'\'' => Some('\''),
            b'\\' => Some('\\'),
            b'N' => Some('\u{85}'),
            b'_' => Some('\u{a0}'),
            b'L' => Some('\u{2028}'),
            b'P' => Some('\u{2029}'),
            _ => None,
        };
        if let Some(c) = simple {
            string.push(c);
            self.pos += 2;
            return Ok(());
        }
        let digits = match self.at(1) {
            b'x' => 2,
            b'u' => 4,
            b'U' => 8,
            _ => return Err(Unsupported),
        };
        let hex = self
            .b
            .get(self.pos + 2..self.pos + 2 + digits)
            .ok_or(Unsupported)?;
        let mut value = 0u32;
        for &h in hex {
            value = (value << 4) + (h as char).to_digit(16).ok_or(Unsupported)?;
        }
        string.push(char::from_u32(value).ok_or(Unsupported)?);
        self.pos += 2 + digits;
        Ok(())
    }

    /// libyaml's `scan_block_scalar`, the cursor at `|` or `>`, inside a collection indented
    /// `indent`. The cursor ends at the first content of the line that ends it (or the end).
    fn block_scalar(&mut self, literal: bool, indent: i64) -> Read<String> {
        self.pos += 1;
        let mut chomping = 0i8;
        let mut increment = 0i64;
        let chomp = |c: u8| match c {
            b'+' => Some(1),
            b'-' => Some(-1),
            _ => None,
        };
        let digit = |c: u8| match c {
            b'1'..=b'9' => Ok(Some(i64::from(c - b'0'))),
            b'0' => Err(Unsupported),
            _ => Ok(None),
        };
        if let Some(c) = chomp(self.cur()) {
            chomping = c;
            self.pos += 1;
            if let Some(d) = digit(self.cur())? {
                increment = d;
                self.pos += 1;
            }
        } else if let Some(d) = digit(self.cur())? {
            increment = d;
            self.pos += 1;
            if let Some(c) = chomp(self.cur()) {
                chomping = c;
                self.pos += 1;
            }
        }
        while self.cur() == b' ' {
            self.pos += 1;
        }
        if self.cur() == b'#' {
            while !matches!(self.cur(), b'\n' | 0) {
                self.pos += 1;
            }
        }
        match self.cur() {
            b'\n' => self.newline(),
            0 => {}
            _ => return Err(Unsupported),
        }
        let mut block_indent = 0i64;
        if increment != 0 {
            block_indent = if indent >= 0 {
                indent + increment
            } else {
                increment
            };
        }
        let mut string = String::new();
        let mut leading_break = false;
        let mut trailing_breaks = self.block_scalar_breaks(&mut block_indent, indent);
        let mut leading_blank = false;
        while (self.pos - self.line_start) as i64 == block_indent && self.cur() != 0 {
            let trailing_blank = self.cur() == b' ';
            if !literal && leading_break && !leading_blank && !trailing_blank {
                if trailing_breaks == 0 {
                    string.push(' ');
                }
            } else if leading_break {
                string.push('\n');
            }
            leading_break = false;
            string.extend(std::iter::repeat_n('\n', trailing_breaks));
            leading_blank = self.cur() == b' ';
            let run = self.pos;
            self.pos = memchr::memchr(b'\n', &self.b[self.pos..]).map_or(self.b.len(), |i| run + i);
            string.push_str(&self.text[run..self.pos]);
            if self.cur() == b'\n' {
                self.newline();
                leading_break = true;
            }
            trailing_breaks = self.block_scalar_breaks(&mut block_indent, indent);
        }
        if chomping != -1 && leading_break {
            string.push('\n');
        }
        if chomping == 1 {
            string.extend(std::iter::repeat_n('\n', trailing_breaks));
        }
        Ok(string)
    }

    /// libyaml's `scan_block_scalar_breaks`: the empty lines before content at the block's
    /// indentation (found from the first content line when still 0), as a count of breaks.
    fn block_scalar_breaks(&mut self, block_indent: &mut i64, indent: i64) -> usize {
        let mut max_indent = 0i64;
        let mut breaks = 0;
        loop {
            while (*block_indent == 0 || ((self.pos - self.line_start) as i64) < *block_indent)
                && self.cur() == b' '
            {
                self.pos += 1;
            }
            max_indent = max_indent.max((self.pos - self.line_start) as i64);
            if self.cur() != b'\n' {
                break;
            }
            self.newline();
            breaks += 1;
        }
        if *block_indent == 0 {
            *block_indent = max_indent.max(indent + 1).max(1);
        }
        breaks
    }
}

/// `,`, `[`, `]`, `{` or `}`: what ends a plain scalar in a flow collection.
fn flow_indicator(c: u8) -> bool {
    matches!(c, b',' | b'[' | b']' | b'{' | b'}')
}

/// Whether `c` (followed by `next`) starts a plain scalar in block context. `?` and `:`
/// followed by a non-blank also do in libyaml; they are left to it.
fn plain_start(c: u8, next: u8) -> bool {
    match c {
        b' ' | b'\n' | 0 => false,
        b'-' => !blankz(next),
        b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|'
        | b'>' | b'\'' | b'"' | b'%' | b'@' | b'`' => false,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::scan;

    /// The block scan against the byte-wise definition, for every byte value at positions
    /// inside, at the edges of and after the 64-byte blocks.
    #[test]
    fn the_scan_finds_control_characters_and_non_ascii_bytes_anywhere() {
        let expected = |bytes: &[u8]| {
            (
                bytes.iter().any(|&c| (c < 0x20 && c != b'\n') || c == 0x7f),
                bytes.is_ascii(),
            )
        };
        for len in [1, 63, 64, 65, 130, 200] {
            for at in [0, len / 2, len - 1].into_iter().filter(|&i| i < len) {
                for byte in 0..=255u8 {
                    let mut input = vec![b'a'; len];
                    input[at] = byte;
                    let (control, ascii) = scan(&input);
                    let want = expected(&input);
                    assert_eq!(control, want.0, "byte {byte:#x} at {at} of {len}");
                    // Past a control character the rest is not read.
                    if !control {
                        assert_eq!(ascii, want.1, "byte {byte:#x} at {at} of {len}");
                    }
                }
            }
        }
        assert_eq!(scan(b""), (false, true));
        assert_eq!(scan(b"a: 1\n"), (false, true));
    }
}
