//! libyaml's emitter (which go-yaml ports) for the documents `emit.rs` writes: block mappings
//! and sequences, empty ones in flow style, scalars in the style asked for unless the text
//! rules it out, 2-space indent, lines folded past 80 columns.
//!
//! The same state (indent stack, column, whitespace and indention flags) and the same
//! decisions as libyaml-safer's `Emitter`, taken straight from the value instead of through
//! a queue of events, each scalar copied into an event and the output into a buffer: `toYaml`
//! is called thousands of times per chart. `tests/yaml_emitter.rs` compares the two on
//! every YAML file of `testdata/` and on generated strings.

use libyaml_safer::ScalarStyle;
use serde_json::Value;

const BEST_INDENT: i64 = 2;
const BEST_WIDTH: i64 = 80;

/// The text and the style asked for of a scalar value (`emit.rs` decides both).
pub(super) type Scalar<'a> = (std::borrow::Cow<'a, str>, ScalarStyle);

/// Writes `value` as one implicit document, as libyaml emits the events `emit.rs` makes for
/// it; `scalar` gives each scalar's text and style, `keys` a mapping's keys in order.
pub(super) fn document<'v>(
    value: &'v Value,
    indentless_sequences: bool,
    scalar: &dyn Fn(&'v Value) -> Scalar<'v>,
    keys: &dyn Fn(&'v serde_json::Map<String, Value>) -> Vec<&'v String>,
    key: &dyn Fn(&'v str) -> Scalar<'v>,
) -> String {
    let mut w = Writer {
        out: String::new(),
        column: 0,
        indent: -1,
        indents: Vec::new(),
        flow_level: 0,
        whitespace: true,
        indention: true,
        open_ended: 0,
        indentless_sequences,
        mapping_context: false,
        simple_key_context: false,
    };
    w.node(value, false, &Ctx { scalar, keys, key });
    // The implicit document end, then the stream's.
    w.write_indent();
    if w.open_ended == 0 {
        w.open_ended = 1;
    }
    if w.open_ended == 2 {
        w.write_indicator("...", true, false, false);
        w.write_indent();
    }
    w.out
}

struct Ctx<'c, 'v> {
    scalar: &'c dyn Fn(&'v Value) -> Scalar<'v>,
    keys: &'c dyn Fn(&'v serde_json::Map<String, Value>) -> Vec<&'v String>,
    key: &'c dyn Fn(&'v str) -> Scalar<'v>,
}

struct Writer {
    out: String,
    /// In characters, as libyaml counts.
    column: i64,
    indent: i64,
    indents: Vec<i64>,
    flow_level: u32,
    whitespace: bool,
    indention: bool,
    open_ended: u8,
    indentless_sequences: bool,
    mapping_context: bool,
    simple_key_context: bool,
}

/// libyaml's `yaml_emitter_analyze_scalar`: which styles the text allows.
#[derive(Debug, PartialEq)]
struct Analysis {
    multiline: bool,
    flow_plain_allowed: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

fn is_printable(ch: char) -> bool {
    match ch {
        '\u{feff}' | '\u{fffe}' | '\u{ffff}' => false,
        '\x0a'
        | '\x20'..='\x7e'
        | '\u{00a0}'..='\u{d7ff}'
        | '\u{e000}'..='\u{fffd}'
        | '\u{10000}'..='\u{10ffff}' => true,
        _ => false,
    }
}

fn is_break(ch: Option<char>) -> bool {
    matches!(ch, Some('\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}'))
}

fn is_space(ch: Option<char>) -> bool {
    ch == Some(' ')
}

fn is_blankz(ch: Option<char>) -> bool {
    matches!(ch, None | Some(' ' | '\t')) || is_break(ch)
}

fn analyze(value: &str) -> Analysis {
    if value.is_empty() {
        return Analysis {
            multiline: false,
            flow_plain_allowed: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    // Most scalars of a chart's values are names, versions and paths: ASCII letters, digits
    // and `_./-`, which allow every style (`-` first would be an indicator, and `...` an
    // end of document).
    let bytes = value.as_bytes();
    if bytes[0] != b'-'
        && bytes
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b'-'))
        && !value.starts_with("...")
    {
        return Analysis {
            multiline: false,
            flow_plain_allowed: true,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: true,
        };
    }
    analyze_chars(value)
}

/// [`analyze`], character by character.
fn analyze_chars(value: &str) -> Analysis {
    let mut block_indicators = value.starts_with("---") || value.starts_with("...");
    let mut flow_indicators = block_indicators;
    let (mut line_breaks, mut special_characters) = (false, false);
    let (mut leading_space, mut leading_break) = (false, false);
    let (mut trailing_space, mut trailing_break) = (false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_whitespace = true;
    let mut chars = value.chars().peekable();
    let mut first = true;
    while let Some(ch) = chars.next() {
        let next = chars.peek().copied();
        let followed_by_whitespace = is_blankz(next);
        if first {
            match ch {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                '?' | ':' => {
                    flow_indicators = true;
                    block_indicators |= followed_by_whitespace;
                }
                '-' if followed_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        } else {
            match ch {
                ',' | '?' | '[' | ']' | '{' | '}' => flow_indicators = true,
                ':' => {
                    flow_indicators = true;
                    block_indicators |= followed_by_whitespace;
                }
                '#' if preceded_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        }
        if !is_printable(ch) {
            special_characters = true;
        }
        let is_break_here = is_break(Some(ch));
        line_breaks |= is_break_here;
        if ch == ' ' {
            leading_space |= first;
            trailing_space |= next.is_none();
            break_space |= previous_break;
            (previous_space, previous_break) = (true, false);
        } else if is_break_here {
            leading_break |= first;
            trailing_break |= next.is_none();
            space_break |= previous_space;
            (previous_space, previous_break) = (false, true);
        } else {
            (previous_space, previous_break) = (false, false);
        }
        preceded_by_whitespace = is_blankz(Some(ch));
        first = false;
    }
    let mut a = Analysis {
        multiline: line_breaks,
        flow_plain_allowed: true,
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
    }
    if trailing_space {
        a.block_allowed = false;
    }
    if break_space {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if space_break || special_characters {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
        a.block_allowed = false;
    }
    if line_breaks {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
    }
    if flow_indicators {
        a.flow_plain_allowed = false;
    }
    if block_indicators {
        a.block_plain_allowed = false;
    }
    a
}

impl Writer {
    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    fn write_str(&mut self, s: &str) {
        self.out.push_str(s);
        self.column += if s.is_ascii() {
            s.len()
        } else {
            s.chars().count()
        } as i64;
    }

    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.put(c);
            self.column = 0;
        }
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0);
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(
        &mut self,
        indicator: &str,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        self.write_str(indicator);
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    fn node<'v>(&mut self, value: &'v Value, mapping: bool, ctx: &Ctx<'_, 'v>) {
        self.mapping_context = mapping;
        self.simple_key_context = false;
        match value {
            Value::Array(items) if items.is_empty() => self.empty_flow("[", "]"),
            Value::Object(map) if map.is_empty() => self.empty_flow("{", "}"),
            Value::Array(items) => {
                let indentless =
                    self.indentless_sequences && self.mapping_context && !self.indention;
                self.increase_indent(false, indentless);
                for item in items {
                    self.write_indent();
                    self.write_indicator("-", true, false, true);
                    self.node(item, false, ctx);
                }
                self.pop_indent();
            }
            Value::Object(map) => {
                self.increase_indent(false, false);
                for k in (ctx.keys)(map) {
                    self.write_indent();
                    let (text, style) = (ctx.key)(k);
                    let analysis = analyze(&text);
                    self.mapping_context = true;
                    if !analysis.multiline && text.len() <= 128 {
                        self.simple_key_context = true;
                        self.scalar(&text, style, &analysis);
                        self.write_indicator(":", false, false, false);
                    } else {
                        self.write_indicator("?", true, false, true);
                        self.simple_key_context = false;
                        self.scalar(&text, style, &analysis);
                        self.write_indent();
                        self.write_indicator(":", true, false, true);
                    }
                    self.node(&map[k.as_str()], true, ctx);
                }
                self.pop_indent();
            }
            scalar => {
                let (text, style) = (ctx.scalar)(scalar);
                let analysis = analyze(&text);
                self.scalar(&text, style, &analysis);
            }
        }
    }

    /// An empty sequence or mapping: libyaml writes it in flow style.
    fn empty_flow(&mut self, open: &str, close: &str) {
        self.write_indicator(open, true, true, false);
        self.increase_indent(true, false);
        self.pop_indent();
        self.write_indicator(close, false, false, false);
    }

    /// libyaml's `select_scalar_style` and `process_scalar`.
    fn scalar(&mut self, text: &str, asked: ScalarStyle, a: &Analysis) {
        let mut style = match asked {
            ScalarStyle::Any => ScalarStyle::Plain,
            s => s,
        };
        if self.simple_key_context && a.multiline {
            style = ScalarStyle::DoubleQuoted;
        }
        if style == ScalarStyle::Plain {
            let allowed = if self.flow_level != 0 {
                a.flow_plain_allowed
            } else {
                a.block_plain_allowed
            };
            if !allowed || (text.is_empty() && (self.flow_level != 0 || self.simple_key_context)) {
                style = ScalarStyle::SingleQuoted;
            }
        }
        if style == ScalarStyle::SingleQuoted && !a.single_quoted_allowed {
            style = ScalarStyle::DoubleQuoted;
        }
        if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded)
            && (!a.block_allowed || self.flow_level != 0 || self.simple_key_context)
        {
            style = ScalarStyle::DoubleQuoted;
        }
        self.increase_indent(true, false);
        let allow_breaks = !self.simple_key_context;
        match style {
            ScalarStyle::SingleQuoted => self.single_quoted(text, allow_breaks),
            ScalarStyle::DoubleQuoted => self.double_quoted(text, allow_breaks),
            ScalarStyle::Literal => self.literal(text),
            // `emit.rs` asks for no folded scalar.
            _ => self.plain(text, allow_breaks),
        }
        self.pop_indent();
    }

    fn plain(&mut self, value: &str, allow_breaks: bool) {
        let (mut spaces, mut breaks) = (false, false);
        if !self.whitespace && (!value.is_empty() || self.flow_level != 0) {
            self.put(' ');
        }
        let mut chars = value.chars().peekable();
        while let Some(ch) = chars.next() {
            let next = chars.peek().copied();
            if ch == ' ' {
                if allow_breaks && !spaces && self.column > BEST_WIDTH && !is_space(next) {
                    self.write_indent();
                } else {
                    self.put(ch);
                }
                spaces = true;
            } else if is_break(Some(ch)) {
                if !breaks && ch == '\n' {
                    self.put_break();
                }
                self.write_break(ch);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(ch);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn single_quoted(&mut self, value: &str, allow_breaks: bool) {
        let (mut spaces, mut breaks) = (false, false);
        self.write_indicator("'", true, false, false);
        let mut chars = value.chars().peekable();
        let mut first = true;
        while let Some(ch) = chars.next() {
            let next = chars.peek().copied();
            if ch == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && !first
                    && next.is_some()
                    && !is_space(next)
                {
                    self.write_indent();
                } else {
                    self.put(ch);
                }
                spaces = true;
            } else if is_break(Some(ch)) {
                if !breaks && ch == '\n' {
                    self.put_break();
                }
                self.write_break(ch);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if ch == '\'' {
                    self.put('\'');
                }
                self.put(ch);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
            first = false;
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn double_quoted(&mut self, value: &str, allow_breaks: bool) {
        let mut spaces = false;
        self.write_indicator("\"", true, false, false);
        let escape_all = value.starts_with('\u{feff}');
        let mut chars = value.chars().peekable();
        let mut first = true;
        while let Some(ch) = chars.next() {
            if !is_printable(ch) || escape_all || is_break(Some(ch)) || ch == '"' || ch == '\\' {
                self.put('\\');
                let short = match ch {
                    '\0' => Some('0'),
                    '\x07' => Some('a'),
                    '\x08' => Some('b'),
                    '\x09' => Some('t'),
                    '\x0A' => Some('n'),
                    '\x0B' => Some('v'),
                    '\x0C' => Some('f'),
                    '\x0D' => Some('r'),
                    '\x1B' => Some('e'),
                    '"' => Some('"'),
                    '\\' => Some('\\'),
                    '\u{85}' => Some('N'),
                    '\u{a0}' => Some('_'),
                    '\u{2028}' => Some('L'),
                    '\u{2029}' => Some('P'),
                    _ => None,
                };
                match short {
                    Some(c) => self.put(c),
                    None => {
                        let code = u32::from(ch);
                        let escape = if code <= 0xff {
                            format!("x{code:02X}")
                        } else if code <= 0xffff {
                            format!("u{code:04X}")
                        } else {
                            format!("U{code:08X}")
                        };
                        self.write_str(&escape);
                    }
                }
                spaces = false;
            } else if ch == ' ' {
                let next = chars.peek().copied();
                if allow_breaks && !spaces && self.column > BEST_WIDTH && !first && next.is_some() {
                    self.write_indent();
                    if is_space(next) {
                        self.put('\\');
                    }
                } else {
                    self.put(ch);
                }
                spaces = true;
            } else {
                self.put(ch);
                spaces = false;
            }
            first = false;
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    /// libyaml's `write_block_scalar_hints`.
    fn block_hints(&mut self, value: &str) {
        let first = value.chars().next();
        if is_space(first) || is_break(first) {
            self.write_indicator("2", false, false, false);
        }
        self.open_ended = 0;
        let mut back = value.chars().rev();
        let (last, before) = (back.next(), back.next());
        let chomp = if value.is_empty() || !is_break(last) {
            Some("-")
        } else if before.is_none() || is_break(before) {
            self.open_ended = 2;
            Some("+")
        } else {
            None
        };
        if let Some(chomp) = chomp {
            self.write_indicator(chomp, false, false, false);
        }
    }

    fn literal(&mut self, value: &str) {
        let mut breaks = true;
        self.write_indicator("|", true, false, false);
        self.block_hints(value);
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        for ch in value.chars() {
            if is_break(Some(ch)) {
                self.write_break(ch);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(ch);
                self.indention = false;
                breaks = false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_versions_and_paths_are_analyzed_as_the_full_analysis_does() {
        for value in [
            "a",
            "nginx",
            "v1.2.3",
            "1.20",
            "docker.io/bitnami/redis",
            "a-b_c",
            "..a",
            ".a",
            "a...",
            "a--",
            "0",
            "true",
            "null",
            "a/b/",
            "/",
        ] {
            assert_eq!(analyze(value), analyze_chars(value), "{value}");
        }
        // Outside the fast set, the full analysis answers.
        for value in ["-", "-a", "...", "---", "a b", "a:b"] {
            assert_eq!(analyze(value), analyze_chars(value), "{value}");
        }
    }
}
