//! Builds [`Node`] trees from libyaml events: multi-document streams, anchors and aliases
//! (expanded, under a budget), `<<` merge keys, and limits on depth and size.

use super::node::{Node, NodeKind, Scalar, ScalarStyle, Span};
use libyaml_safer::{EventData, Parser};
use std::collections::HashMap;

/// Limits that keep hostile input from exhausting memory or the stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Deepest nesting of collections.
    pub max_depth: usize,
    /// Total nodes that alias expansion may create in one stream ("billion laughs").
    pub max_alias_nodes: usize,
    /// Largest input accepted, in bytes.
    pub max_bytes: usize,
}

impl Limits {
    /// The limits kdelta applies everywhere.
    pub const DEFAULT: Limits = Limits {
        max_depth: 1000,
        max_alias_nodes: 1_000_000,
        // The largest file a snapshot reads (`source::MAX_FILE_SIZE`, checked by a test there).
        max_bytes: 16 * 1024 * 1024,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// How to parse.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ParseOptions {
    pub limits: Limits,
    pub duplicate_keys: DuplicateKeys,
    /// Comments as go-yaml v3 reads them (kyaml): the comment lines after a comment belong to
    /// it even when a tab starts them, where go-yaml v2 (and libyaml) fail.
    pub go_yaml_v3_comments: bool,
    /// The line of a syntax error as go-yaml v2 names it (sigs.k8s.io/yaml, so Helm's values,
    /// `fromYaml` and rendered manifests): the problem's line first, where v3 (kyaml) names
    /// the context's ([`YamlError::go_line`]).
    pub go_yaml_v2_errors: bool,
    /// Which reader reads the input.
    pub reader: Reader,
}

/// Which reader reads YAML. Both give the same nodes and errors; the choice is for tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Reader {
    /// The block subset without libyaml (`fast.rs`), libyaml for the rest.
    #[default]
    Fast,
    /// libyaml for everything.
    Libyaml,
}

/// What a mapping key that appears twice means.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DuplicateKeys {
    /// An error, as go-yaml reports when decoding into Go values (kustomize's resources).
    #[default]
    Error,
    /// The later value replaces the earlier one (go-yaml v2 into a map: kustomizations, Helm).
    LastWins,
    /// The first value counts (kyaml looking a key up in a node tree).
    FirstWins,
    /// Every entry stays in the mapping, as in a kyaml node tree (strategic-merge patches,
    /// whose merge finds the first and copies whole subtrees as they are).
    Keep,
    /// The later value wins in the mapping at `path` (keys from the document root), and two
    /// such mappings in one parent merge, the first's values winning; elsewhere `otherwise`
    /// applies.
    LastWinsAt {
        path: &'static [&'static str],
        otherwise: Otherwise,
    },
}

/// What a duplicate key means outside the path of [`DuplicateKeys::LastWinsAt`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Otherwise {
    Error,
    FirstWins,
}

/// What went wrong, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", location(*span))]
pub struct YamlError {
    pub kind: YamlErrorKind,
    pub message: String,
    pub span: Span,
    /// A syntax error as Go's yaml.v3 words it (`yaml: line 4: did not find expected key`),
    /// which is what kustomize and Helm print. Its line is go-yaml's, not always where the
    /// problem is: `span` is.
    pub go_message: Option<String>,
    /// The line `go_message` names, when it names one.
    pub go_line: Option<u32>,
    /// For a key given twice, the key and where its mapping first defines it.
    pub duplicate: Option<DuplicateKey>,
}

/// A key a mapping gives twice: the key and where it is first defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateKey {
    /// The key as written (`<complex key>` when it is not a scalar).
    pub key: String,
    /// Where the mapping first defines the key.
    pub first: Span,
}

impl DuplicateKey {
    fn message(&self) -> String {
        format!(
            "mapping key {:?} already defined at line {}",
            self.key, self.first.line
        )
    }
}

fn location(span: Span) -> String {
    if span.is_known() {
        format!("line {}, column {}: ", span.line, span.column)
    } else {
        String::new()
    }
}

/// The class of a YAML error, for finding rule ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YamlErrorKind {
    /// Not well-formed YAML (or not UTF-8).
    Syntax,
    /// A limit was exceeded: depth, alias expansion, or size.
    Limit,
    /// A mapping has the same key twice.
    DuplicateKey,
    /// An alias names an anchor that is not defined (yet).
    UnknownAnchor,
}

impl YamlError {
    fn new(kind: YamlErrorKind, span: Span, message: impl Into<String>) -> YamlError {
        YamlError {
            kind,
            message: message.into(),
            span,
            go_message: None,
            go_line: None,
            duplicate: None,
        }
    }

    /// Moves the error `lines` lines down, for a document parsed on its own out of a larger
    /// file: its position and, for a duplicate key, the line of the first definition (both
    /// then count in the file). `go_message` keeps go-yaml's own lines, as the reference
    /// tools print them.
    pub fn shift_lines(&mut self, lines: u32) {
        if self.span.is_known() {
            self.span.line += lines;
        }
        if let Some(d) = &mut self.duplicate {
            if d.first.is_known() {
                d.first.line += lines;
            }
            self.message = d.message();
        }
    }
}

/// Parses every document of a stream. Empty documents come back as null scalars.
pub fn parse_stream(input: &[u8], opts: &ParseOptions) -> Result<Vec<Node>, YamlError> {
    parse_documents(input, opts, false)
}

/// The documents of `input` as the block-subset reader alone reads them (`fast.rs`); None
/// where it leaves the input to libyaml. For the tests that compare the two readers.
#[doc(hidden)]
pub fn parse_stream_subset(
    input: &[u8],
    opts: &ParseOptions,
) -> Option<Result<Vec<Node>, YamlError>> {
    let mut builder = Builder::new(opts);
    let mut sink = |event, span| builder.handle(event, span).is_ok();
    super::fast::read(input, false, &mut sink).ok()?;
    Some(builder.finish())
}

/// An event of the block-subset reader ([`read_subset`]), which reads no tags, anchors or
/// aliases.
#[derive(Debug, PartialEq)]
pub enum SubsetEvent {
    DocumentStart,
    MappingStart,
    SequenceStart,
    /// The end of the innermost mapping or sequence.
    CollectionEnd,
    Scalar(String, ScalarStyle),
}

/// Reads the whole stream `input` with the block-subset reader alone (`fast.rs`), handing
/// `sink` its events: for a caller that builds its own values in the common case and reads
/// the rest with [`parse_stream`], whose nodes and errors stay the definition. False when
/// the input is outside the subset (or over the size limit), or `sink` returned false.
pub fn read_subset(input: &[u8], sink: &mut dyn FnMut(SubsetEvent) -> bool) -> bool {
    if input.len() > Limits::DEFAULT.max_bytes {
        return false;
    }
    let mut each = |event: EventData, _: Span| {
        let event = match event {
            EventData::StreamStart { .. } | EventData::StreamEnd => return true,
            EventData::DocumentStart { .. } => SubsetEvent::DocumentStart,
            EventData::DocumentEnd { .. } => return true,
            EventData::MappingStart {
                anchor: None,
                tag: None,
                ..
            } => SubsetEvent::MappingStart,
            EventData::SequenceStart {
                anchor: None,
                tag: None,
                ..
            } => SubsetEvent::SequenceStart,
            EventData::MappingEnd | EventData::SequenceEnd => SubsetEvent::CollectionEnd,
            EventData::Scalar {
                value,
                style,
                anchor: None,
                tag: None,
                ..
            } => SubsetEvent::Scalar(value, scalar_style(style)),
            // Anchors, tags and aliases are not in the subset.
            _ => return false,
        };
        sink(event)
    };
    super::fast::read(input, false, &mut each).is_ok()
}

fn scalar_style(style: libyaml_safer::ScalarStyle) -> ScalarStyle {
    match style {
        libyaml_safer::ScalarStyle::SingleQuoted => ScalarStyle::SingleQuoted,
        libyaml_safer::ScalarStyle::DoubleQuoted => ScalarStyle::DoubleQuoted,
        libyaml_safer::ScalarStyle::Literal => ScalarStyle::Literal,
        libyaml_safer::ScalarStyle::Folded => ScalarStyle::Folded,
        _ => ScalarStyle::Plain,
    }
}

/// Parses only the first document of a stream, as one go-yaml `Decoder.Decode` call does: what
/// follows it is not read (`None` for an empty stream).
pub fn parse_first(input: &[u8], opts: &ParseOptions) -> Result<Option<Node>, YamlError> {
    Ok(parse_documents(input, opts, true)?.into_iter().next())
}

fn parse_documents(
    input: &[u8],
    opts: &ParseOptions,
    first_only: bool,
) -> Result<Vec<Node>, YamlError> {
    if input.len() > opts.limits.max_bytes {
        return Err(YamlError::new(
            YamlErrorKind::Limit,
            Span::default(),
            format!(
                "document is {} bytes, over the {}-byte limit",
                input.len(),
                opts.limits.max_bytes
            ),
        ));
    }
    if opts.reader == Reader::Fast {
        let mut builder = Builder::new(opts);
        let mut sink = |event, span| builder.handle(event, span).is_ok();
        if super::fast::read(input, first_only, &mut sink).is_ok() {
            return builder.finish();
        }
    }
    let mut builder = Builder::new(opts);
    let mut parser = Parser::new();
    parser.set_input(Chunked(input));
    parser.set_go_yaml_v3_comments(opts.go_yaml_v3_comments);
    loop {
        let event = parser
            .parse()
            .map_err(|e| syntax_error(&e, input, opts.go_yaml_v2_errors))?;
        let span = Span::new(
            event.start_mark.line as u32 + 1,
            event.start_mark.column as u32 + 1,
        );
        let document_end = matches!(event.data, EventData::DocumentEnd { .. });
        if builder.handle(event.data, span)? || (first_only && document_end) {
            break;
        }
    }
    builder.finish()
}

/// The input as go-yaml's reader takes it, 512 bytes at a time (`input_raw_buffer_size`).
/// go-yaml checks the characters of each chunk as it decodes it, so a control character well
/// past the end of the only document that is read is never seen: kustomize accepts it.
struct Chunked<'a>(&'a [u8]);

const GO_YAML_CHUNK: usize = 512;

impl std::io::Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.0.len()).min(GO_YAML_CHUNK);
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

impl std::io::BufRead for Chunked<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        Ok(&self.0[..self.0.len().min(GO_YAML_CHUNK)])
    }

    fn consume(&mut self, n: usize) {
        self.0 = &self.0[n.min(self.0.len())..];
    }
}

/// Parses a stream that must hold at most one document (empty input gives a null node).
pub fn parse_one(input: &[u8], opts: &ParseOptions) -> Result<Node, YamlError> {
    let mut docs = parse_stream(input, opts)?;
    match docs.len() {
        0 => Ok(Node::null()),
        1 => Ok(docs.remove(0)),
        _ => {
            let span = docs[1].span;
            Err(YamlError::new(
                YamlErrorKind::Syntax,
                span,
                "expected a single document, found several",
            ))
        }
    }
}

fn syntax_error(e: &libyaml_safer::Error, input: &[u8], go_yaml_v2: bool) -> YamlError {
    let span = match e.problem_mark() {
        Some(m) => Span::new(m.line as u32 + 1, m.column as u32 + 1),
        None => Span::default(),
    };
    let mut message = e.problem().to_string();
    if let Some(ctx) = e.context() {
        if !ctx.is_empty() {
            message = format!("{message} {ctx}");
        }
    }
    if e.kind() == libyaml_safer::ErrorKind::Reader {
        message = format!("{message} (the file is not valid UTF-8 text)");
    }
    let mut error = YamlError::new(YamlErrorKind::Syntax, span, message);
    let (mut go_line, mut go_message) = go_yaml_message(e, go_yaml_v2);
    // libyaml-safer says "invalid UTF-8" of a bad sequence, and fails to read the rest of one
    // the input cuts short (an I/O error).
    let utf8 = match e.kind() {
        libyaml_safer::ErrorKind::Reader => e.problem() == "invalid UTF-8",
        libyaml_safer::ErrorKind::Io => std::str::from_utf8(input).is_err(),
        _ => false,
    };
    if utf8 {
        go_message = format!("yaml: {}", go_utf8_problem(input));
        go_line = None;
    }
    error.go_message = Some(go_message);
    error.go_line = go_line;
    error
}

/// How go-yaml's reader words the first sequence of `input` that is not UTF-8 (libyaml-safer
/// says "invalid UTF-8" of all of them): it takes the width from the leading octet, then
/// checks that the input holds that many, the trailing octets, the shortest form, the range.
fn go_utf8_problem(input: &[u8]) -> &'static str {
    let Err(e) = std::str::from_utf8(input) else {
        return "invalid UTF-8";
    };
    let rest = &input[e.valid_up_to()..];
    let lead = rest[0];
    let (width, mut value) = match lead {
        b if b & 0xE0 == 0xC0 => (2, u32::from(b & 0x1F)),
        b if b & 0xF0 == 0xE0 => (3, u32::from(b & 0x0F)),
        b if b & 0xF8 == 0xF0 => (4, u32::from(b & 0x07)),
        _ => return "invalid leading UTF-8 octet",
    };
    if rest.len() < width {
        return "incomplete UTF-8 octet sequence";
    }
    for &octet in &rest[1..width] {
        if octet & 0xC0 != 0x80 {
            return "invalid trailing UTF-8 octet";
        }
        value = (value << 6) | u32::from(octet & 0x3F);
    }
    let shortest = match width {
        2 => value >= 0x80,
        3 => value >= 0x800,
        _ => value >= 0x10000,
    };
    if !shortest {
        return "invalid length of a UTF-8 sequence";
    }
    if (0xD800..=0xDFFF).contains(&value) || value > 0x10FFFF {
        return "invalid Unicode character";
    }
    "invalid UTF-8"
}

/// go-yaml's `parser.fail`. yaml.v3: the line is the context mark's (0-based, so usually the
/// line before the one with the problem), else the problem mark's; scanner errors add one.
/// yaml.v2: the problem mark's, scanner errors adding one, else the context mark's as it is
/// (a simple key left without its `:` is named at the line after it: `a: b\nc` is line 3).
/// Line 0 is left out. The context ("while parsing a block mapping") is not part of the
/// message. Returns the line with the message.
fn go_yaml_message(e: &libyaml_safer::Error, go_yaml_v2: bool) -> (Option<u32>, String) {
    let zero_based = |m: Option<libyaml_safer::Mark>| m.map_or(0, |m| m.line);
    let (context, problem) = (zero_based(e.context_mark()), zero_based(e.problem_mark()));
    // "Scanner errors don't iterate line before returning error" (go-yaml).
    let scanner = e.kind() == libyaml_safer::ErrorKind::Scanner;
    let plus = |line: u64| if scanner { line + 1 } else { line };
    let line = if go_yaml_v2 {
        if problem != 0 {
            plus(problem)
        } else {
            context
        }
    } else if context != 0 {
        plus(context)
    } else if problem != 0 {
        plus(problem)
    } else {
        0
    };
    match line {
        0 => (None, format!("yaml: {}", e.problem())),
        l => (
            u32::try_from(l).ok(),
            format!("yaml: line {l}: {}", e.problem()),
        ),
    }
}

enum Frame {
    Seq {
        items: Vec<Node>,
        span: Span,
        anchor: Option<String>,
        flow: bool,
    },
    Map {
        entries: Vec<(Node, Node)>,
        pending_key: Option<Node>,
        /// Where each scalar key's text first appears in `entries`, so that finding a
        /// duplicate does not compare every key with every other.
        keys: KeyIndex,
        span: Span,
        anchor: Option<String>,
        flow: bool,
    },
}

/// The positions of a mapping's scalar keys by text, built once the mapping has a few
/// entries. `<<` merge keys are compared by more than their text: a mapping with one falls
/// back to comparing keys one by one.
#[derive(Default)]
struct KeyIndex {
    positions: HashMap<String, usize>,
    /// False once a merge key (or a complex key) was added.
    usable: bool,
    built: bool,
}

/// Entries below which a linear scan is cheaper than the index.
const KEY_INDEX_FROM: usize = 16;

impl KeyIndex {
    /// The first entry whose key equals `key` and is not a merge key, as
    /// `entries.iter().position(|(k, _)| same_key(k, key) && !is_merge_key(k))` finds it.
    fn find(&mut self, entries: &[(Node, Node)], key: &Node) -> Option<usize> {
        if !self.built && entries.len() >= KEY_INDEX_FROM {
            self.built = true;
            self.usable = true;
            for (i, (k, _)) in entries.iter().enumerate() {
                self.note(k, i);
            }
        }
        match (&key.kind, self.usable) {
            (NodeKind::Scalar(s), true) => self.positions.get(&s.text).copied(),
            _ => entries
                .iter()
                .position(|(k, _)| same_key(k, key) && !is_merge_key(k)),
        }
    }

    /// Records the key of entry `i` (just appended).
    fn note(&mut self, k: &Node, i: usize) {
        if !self.built || !self.usable {
            return;
        }
        match &k.kind {
            NodeKind::Scalar(s) if !is_merge_key(k) && s.text != "<<" => {
                self.positions.entry(s.text.clone()).or_insert(i);
            }
            _ => {
                self.usable = false;
                self.positions = HashMap::new();
            }
        }
    }
}

struct Builder<'o> {
    opts: &'o ParseOptions,
    stack: Vec<Frame>,
    /// Anchor name → (node, node count, nesting height).
    anchors: HashMap<String, (Node, usize, usize)>,
    alias_nodes: usize,
    docs: Vec<Node>,
    /// The first duplicate key. Reported once the whole stream parsed, as go-yaml finds
    /// duplicates only when decoding a parsed tree (a syntax error further down wins).
    duplicate: Option<YamlError>,
}

impl<'o> Builder<'o> {
    fn new(opts: &'o ParseOptions) -> Self {
        Builder {
            opts,
            stack: Vec::new(),
            anchors: HashMap::new(),
            alias_nodes: 0,
            duplicate: None,
            docs: Vec::new(),
        }
    }

    /// The documents read, or the first duplicate key.
    fn finish(self) -> Result<Vec<Node>, YamlError> {
        match self.duplicate {
            Some(error) => Err(error),
            None => Ok(self.docs),
        }
    }

    /// Handles one event; returns true at the end of the stream.
    fn handle(&mut self, event: EventData, span: Span) -> Result<bool, YamlError> {
        match event {
            EventData::StreamStart { .. } => {}
            EventData::StreamEnd => return Ok(true),
            EventData::DocumentStart { .. } => self.anchors.clear(),
            EventData::DocumentEnd { .. } => {}
            EventData::Alias { anchor } => {
                let Some((node, count, height)) = self.anchors.get(&anchor) else {
                    let message = format!("unknown anchor '{anchor}' referenced");
                    let mut error = YamlError::new(YamlErrorKind::UnknownAnchor, span, &message);
                    error.go_message = Some(format!("yaml: {message}"));
                    return Err(error);
                };
                self.alias_nodes += count;
                if self.alias_nodes > self.opts.limits.max_alias_nodes {
                    return Err(YamlError::new(
                        YamlErrorKind::Limit,
                        span,
                        format!(
                            "alias expansion exceeds {} nodes (is this a \"billion laughs\" document?)",
                            self.opts.limits.max_alias_nodes
                        ),
                    ));
                }
                // An alias repeats its anchor's whole depth where it stands: nesting built
                // from aliases counts against the depth limit like written nesting.
                if self.stack.len() + height > self.opts.limits.max_depth {
                    return Err(YamlError::new(
                        YamlErrorKind::Limit,
                        span,
                        format!(
                            "nesting deeper than {} levels (through the alias *{anchor})",
                            self.opts.limits.max_depth
                        ),
                    ));
                }
                let node = node.clone();
                self.push_value(node.at(span))?;
            }
            EventData::Scalar {
                anchor,
                tag,
                value,
                style,
                ..
            } => {
                let node = Node::new(NodeKind::Scalar(Scalar {
                    text: value,
                    style: scalar_style(style),
                    tag: tag.map(|t| short_tag(t).into_boxed_str()),
                }))
                .at(span);
                self.register(anchor, &node);
                self.push_value(node)?;
            }
            EventData::SequenceStart { anchor, style, .. } => {
                self.check_depth(span)?;
                self.stack.push(Frame::Seq {
                    items: Vec::new(),
                    span,
                    anchor,
                    flow: style == libyaml_safer::SequenceStyle::Flow,
                });
            }
            EventData::MappingStart { anchor, style, .. } => {
                self.check_depth(span)?;
                self.stack.push(Frame::Map {
                    entries: Vec::new(),
                    pending_key: None,
                    keys: KeyIndex::default(),
                    span,
                    anchor,
                    flow: style == libyaml_safer::MappingStyle::Flow,
                });
            }
            EventData::SequenceEnd => {
                if let Some(Frame::Seq {
                    items,
                    span,
                    anchor,
                    flow,
                }) = self.stack.pop()
                {
                    let node = Node::from_parts(NodeKind::Seq(items), span, flow, 0);
                    self.register(anchor, &node);
                    self.push_value(node)?;
                }
            }
            EventData::MappingEnd => {
                if let Some(Frame::Map {
                    entries,
                    span,
                    anchor,
                    flow,
                    ..
                }) = self.stack.pop()
                {
                    let entries = apply_merge_keys(entries)?;
                    let node = Node::from_parts(NodeKind::Map(entries), span, flow, 0);
                    self.register(anchor, &node);
                    self.push_value(node)?;
                }
            }
        }
        Ok(false)
    }

    fn check_depth(&self, span: Span) -> Result<(), YamlError> {
        if self.stack.len() >= self.opts.limits.max_depth {
            return Err(YamlError::new(
                YamlErrorKind::Limit,
                span,
                format!("nesting deeper than {} levels", self.opts.limits.max_depth),
            ));
        }
        Ok(())
    }

    fn register(&mut self, anchor: Option<String>, node: &Node) {
        if let Some(name) = anchor {
            self.anchors
                .insert(name, (node.clone(), node.count(), height(node)));
        }
    }

    fn push_value(&mut self, node: Node) -> Result<(), YamlError> {
        let last_wins = match self.opts.duplicate_keys {
            DuplicateKeys::LastWins => true,
            DuplicateKeys::LastWinsAt { path, .. } => map_path_is(&self.stack, path),
            _ => false,
        };
        // The key of `LastWinsAt`'s mapping, when this is the mapping that holds it.
        let merged_key = match self.opts.duplicate_keys {
            DuplicateKeys::LastWinsAt { path, .. } => path
                .split_last()
                .filter(|(_, parent)| map_path_is(&self.stack, parent))
                .map(|(key, _)| *key),
            _ => None,
        };
        match self.stack.last_mut() {
            None => self.docs.push(node),
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map {
                entries,
                pending_key,
                keys,
                ..
            }) => match pending_key.take() {
                None => *pending_key = Some(node),
                Some(key) => {
                    let keep = self.opts.duplicate_keys == DuplicateKeys::Keep;
                    let found = if keep { None } else { keys.find(entries, &key) };
                    if let Some(found) = found {
                        let i = if keys.usable {
                            found
                        } else {
                            // Without merge keys the first equal key is the one found.
                            entries
                                .iter()
                                .position(|(k, _)| same_key(k, &key))
                                .expect("the key was found just above")
                        };
                        if merged_key.is_some_and(|k| key.as_str() == Some(k))
                            && entries[i].1.as_map().is_some()
                            && node.as_map().is_some()
                        {
                            // kyaml reads the first of two such mappings, clears it and sets
                            // its entries in the next one: both merge, the first's values win.
                            let first = std::mem::replace(&mut entries[i].1, node);
                            merge_first_wins(&mut entries[i].1, first);
                            return Ok(());
                        }
                        let first = &entries[found].0;
                        let error = matches!(
                            self.opts.duplicate_keys,
                            DuplicateKeys::Error
                                | DuplicateKeys::LastWinsAt {
                                    otherwise: Otherwise::Error,
                                    ..
                                }
                        ) && !last_wins;
                        if error && self.duplicate.is_none() {
                            let duplicate = DuplicateKey {
                                key: key.as_str().unwrap_or("<complex key>").to_string(),
                                first: first.span,
                            };
                            let mut e = YamlError::new(
                                YamlErrorKind::DuplicateKey,
                                key.span,
                                duplicate.message(),
                            );
                            e.duplicate = Some(duplicate);
                            self.duplicate = Some(e);
                        }
                        if last_wins {
                            entries[i].1 = node;
                        }
                    } else {
                        keys.note(&key, entries.len());
                        entries.push((key, node));
                    }
                }
            },
        }
        Ok(())
    }
}

/// Sets each entry of the mapping `first` in the mapping `into`, replacing an equal key's
/// value or appending (kyaml's `SetField`).
fn merge_first_wins(into: &mut Node, first: Node) {
    let (Some(into), NodeKind::Map(first)) = (into.as_map_mut(), first.kind) else {
        return;
    };
    for (k, v) in first {
        match into.iter_mut().find(|(key, _)| same_key(key, &k)) {
            Some(entry) => entry.1 = v,
            None => into.push((k, v)),
        }
    }
}

/// Whether the innermost frame is the mapping reached from the document root by `path`.
fn map_path_is(stack: &[Frame], path: &[&str]) -> bool {
    let Some((_, parents)) = stack.split_last() else {
        return false;
    };
    parents.len() == path.len()
        && parents.iter().zip(path).all(|(frame, want)| match frame {
            Frame::Map { pending_key, .. } => {
                pending_key.as_ref().and_then(Node::as_str) == Some(*want)
            }
            Frame::Seq { .. } => false,
        })
}

/// Levels of collections in `node` (0 for a scalar). Bounded by the depth limit, which every
/// node the builder makes respects.
fn height(node: &Node) -> usize {
    match &node.kind {
        NodeKind::Scalar(_) => 0,
        NodeKind::Seq(items) => 1 + items.iter().map(height).max().unwrap_or(0),
        NodeKind::Map(entries) => {
            1 + entries
                .iter()
                .map(|(k, v)| height(k).max(height(v)))
                .max()
                .unwrap_or(0)
        }
    }
}

fn short_tag(tag: String) -> String {
    match tag.strip_prefix("tag:yaml.org,2002:") {
        Some(rest) => format!("!!{rest}"),
        None => tag,
    }
}

fn same_key(a: &Node, b: &Node) -> bool {
    match (&a.kind, &b.kind) {
        (NodeKind::Scalar(x), NodeKind::Scalar(y)) => x.text == y.text,
        _ => a.kind == b.kind,
    }
}

fn is_merge_key(k: &Node) -> bool {
    match &k.kind {
        NodeKind::Scalar(s) => match s.tag.as_deref() {
            Some("!!merge") => true,
            None => s.style == ScalarStyle::Plain && s.text == "<<",
            _ => false,
        },
        _ => false,
    }
}

/// A `<<` whose value is not a mapping (or a sequence of them): go-yaml's `failf`, which
/// names no line.
fn merge_error(span: Span) -> YamlError {
    const MESSAGE: &str = "map merge requires map or sequence of maps as the value";
    let mut error = YamlError::new(YamlErrorKind::Syntax, span, MESSAGE);
    error.go_message = Some(format!("yaml: {MESSAGE}"));
    error
}

/// Replaces `<<` entries by the entries of the merged mapping(s). Keys written in the mapping
/// itself win; among several merged mappings the earlier one wins (go-yaml semantics).
fn apply_merge_keys(entries: Vec<(Node, Node)>) -> Result<Vec<(Node, Node)>, YamlError> {
    if !entries.iter().any(|(k, _)| is_merge_key(k)) {
        return Ok(entries);
    }
    let explicit: Vec<Node> = entries
        .iter()
        .filter(|(k, _)| !is_merge_key(k))
        .map(|(k, _)| k.clone())
        .collect();
    let mut out: Vec<(Node, Node)> = Vec::with_capacity(entries.len());
    for (k, v) in entries {
        if !is_merge_key(&k) {
            out.push((k, v));
            continue;
        }
        let sources: Vec<Node> = match v.kind {
            NodeKind::Map(_) => vec![v],
            NodeKind::Seq(items) => items,
            _ => return Err(merge_error(v.span)),
        };
        for src in sources {
            let NodeKind::Map(src_entries) = src.kind else {
                return Err(merge_error(src.span));
            };
            for (mk, mv) in src_entries {
                let taken = explicit.iter().any(|e| same_key(e, &mk))
                    || out.iter().any(|(e, _)| same_key(e, &mk));
                if !taken {
                    out.push((mk, mv));
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Vec<Node>, YamlError> {
        parse_stream(s.as_bytes(), &ParseOptions::default())
    }

    #[test]
    fn multi_document_stream_with_spans() {
        let docs = parse("a: 1\n---\nb:\n  - x\n  - 'y'\n---\n").unwrap();
        assert_eq!(docs.len(), 3);
        assert_eq!(docs[0].str_at(&["a"]), Some("1"));
        let b = docs[1].get("b").unwrap();
        assert_eq!(b.span, Span::new(4, 3));
        assert_eq!(
            b.as_seq().unwrap()[1].as_scalar().unwrap().style,
            ScalarStyle::SingleQuoted
        );
        assert!(docs[2].is_null());
    }

    #[test]
    fn aliases_and_merge_keys() {
        let docs = parse(
            "base: &b {x: 1, y: 2}\nother: *b\nmerged:\n  <<: *b\n  y: 3\nmulti:\n  <<: [{a: 1}, {a: 2, c: 3}]\n",
        )
        .unwrap();
        let d = &docs[0];
        assert_eq!(d.str_at(&["other", "x"]), Some("1"));
        assert_eq!(d.str_at(&["merged", "x"]), Some("1"));
        assert_eq!(d.str_at(&["merged", "y"]), Some("3"));
        assert!(d.get_path(&["merged", "<<"]).is_none());
        assert_eq!(d.str_at(&["multi", "a"]), Some("1"));
        assert_eq!(d.str_at(&["multi", "c"]), Some("3"));
    }

    #[test]
    fn billion_laughs_stops_at_the_alias_limit() {
        let mut s = String::from(
            "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
        );
        let names = ["b", "c", "d", "e", "f", "g", "h", "i"];
        let mut prev = "a";
        for n in names {
            s.push_str(&format!(
                "{n}: &{n} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"
            ));
            prev = n;
        }
        // 9^9 nodes if expanded: the limit error says expansion stopped at the budget.
        let err = parse(&s).unwrap_err();
        assert_eq!(err.kind, YamlErrorKind::Limit);
        assert!(err.message.contains("alias expansion"), "{err}");
    }

    #[test]
    fn deep_nesting_is_limited() {
        let s = "[".repeat(5000);
        let err = parse(&s).unwrap_err();
        assert_eq!(err.kind, YamlErrorKind::Limit);
        let s = "- ".repeat(2000) + "x\n";
        assert_eq!(parse(&s).unwrap_err().kind, YamlErrorKind::Limit);
    }

    #[test]
    fn size_limit() {
        let opts = ParseOptions {
            limits: Limits {
                max_bytes: 10,
                ..Limits::default()
            },
            ..ParseOptions::default()
        };
        let err = parse_stream(b"a: 1234567890\n", &opts).unwrap_err();
        assert_eq!(err.kind, YamlErrorKind::Limit);
    }

    #[test]
    fn syntax_errors_have_positions() {
        let err = parse("a: 1\nb: [1, 2\n").unwrap_err();
        assert_eq!(err.kind, YamlErrorKind::Syntax);
        assert!(err.span.line >= 2, "{err:?}");
        let err = parse("a: b: c\n").unwrap_err();
        assert_eq!(err.span.line, 1);
        assert!(err.to_string().starts_with("line 1, column"), "{err}");
    }

    /// go-yaml's wording, as kustomize prints it (checked with kubectl kustomize): the line
    /// of the context mark, 0-based, where there is one; the problem's otherwise.
    #[test]
    fn syntax_errors_in_go_yamls_words() {
        let go = |text: &str| parse(text).unwrap_err().go_message.unwrap_or_default();
        let bad_indent = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\n data:\n";
        assert_eq!(go(bad_indent), "yaml: line 4: did not find expected key");
        assert_eq!(parse(bad_indent).unwrap_err().span.line, 5);
        assert_eq!(
            go("a: 1\nb: [1, 2\nc: d\n"),
            "yaml: line 1: did not find expected ',' or ']'"
        );
        assert_eq!(
            go("a: 1\nb: b: c\n"),
            "yaml: line 2: mapping values are not allowed in this context"
        );
        assert_eq!(
            go("a: &x 1\nb: *y\n"),
            "yaml: unknown anchor 'y' referenced"
        );
    }

    /// go-yaml's reader names the first sequence that is not UTF-8 (each checked with helm
    /// v3.17.3 on a template that prints the bytes).
    #[test]
    fn bytes_that_are_not_utf8_in_go_yamls_words() {
        let go = |bytes: &[u8]| {
            parse_stream(bytes, &ParseOptions::default())
                .unwrap_err()
                .go_message
                .unwrap_or_default()
        };
        let cases: [(&[u8], &str); 7] = [
            (b"a: |\n  ab\xffcd\n", "invalid leading UTF-8 octet"),
            (b"a: |\n  a\xc3(b\n", "invalid trailing UTF-8 octet"),
            (b"a: |\n  a\xe2\x82", "incomplete UTF-8 octet sequence"),
            (
                b"a: |\n  a\xc0\x80b\n",
                "invalid length of a UTF-8 sequence",
            ),
            (b"a: |\n  a\xed\xa0\x80b\n", "invalid Unicode character"),
            (b"a: |\n  a\xf5\x80\x80\x80b\n", "invalid Unicode character"),
            (
                b"a: |\n  a\x7f\xffb\n",
                "control characters are not allowed",
            ),
        ];
        for (bytes, problem) in cases {
            assert_eq!(go(bytes), format!("yaml: {problem}"), "{bytes:?}");
        }
    }

    /// go-yaml finds duplicate keys only after parsing, so a syntax error later in the stream
    /// is the one reported.
    #[test]
    fn a_syntax_error_wins_over_an_earlier_duplicate_key() {
        let err = parse("a: 1\na: 2\nb: [1\n").unwrap_err();
        assert_eq!(err.kind, YamlErrorKind::Syntax);
    }

    #[test]
    fn binary_input_is_an_error() {
        let err = parse_stream(
            &[0x61, 0x3a, 0x20, 0xff, 0xfe, 0x00, 0x01],
            &ParseOptions::default(),
        )
        .unwrap_err();
        assert_eq!(err.kind, YamlErrorKind::Syntax);
    }

    #[test]
    fn duplicate_keys() {
        let err = parse("a: 1\na: 2\n").unwrap_err();
        assert_eq!(err.kind, YamlErrorKind::DuplicateKey);
        assert_eq!(err.span.line, 2);
        assert!(err.message.contains("already defined at line 1"));
        let opts = ParseOptions {
            duplicate_keys: DuplicateKeys::LastWins,
            ..ParseOptions::default()
        };
        let d = parse_stream(b"a: 1\na: 2\n", &opts).unwrap();
        assert_eq!(d[0].str_at(&["a"]), Some("2"));
        let opts = ParseOptions {
            duplicate_keys: DuplicateKeys::LastWinsAt {
                path: &["m", "a"],
                otherwise: Otherwise::Error,
            },
            ..ParseOptions::default()
        };
        let d = parse_stream(b"m:\n  a:\n    x: 1\n    x: 2\n", &opts).unwrap();
        assert_eq!(d[0].str_at(&["m", "a", "x"]), Some("2"));
        for elsewhere in ["m:\n  b:\n    x: 1\n    x: 2\n", "m:\n  x: 1\n  x: 2\n"] {
            let err = parse_stream(elsewhere.as_bytes(), &opts).unwrap_err();
            assert_eq!(err.kind, YamlErrorKind::DuplicateKey, "{elsewhere}");
        }
    }

    #[test]
    fn unknown_anchor() {
        assert_eq!(
            parse("a: *nope\n").unwrap_err().kind,
            YamlErrorKind::UnknownAnchor
        );
    }

    #[test]
    fn tags_are_shortened() {
        let d = parse("a: !!str 5\nb: !custom x\n").unwrap();
        assert_eq!(
            d[0].get("a").unwrap().as_scalar().unwrap().tag.as_deref(),
            Some("!!str")
        );
        assert_eq!(
            d[0].get("b").unwrap().as_scalar().unwrap().tag.as_deref(),
            Some("!custom")
        );
    }
}
