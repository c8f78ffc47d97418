//! BurntSushi/toml v1.4's lexer (`lex.go`) and the part of its parser (`parse.go`) that words
//! errors, so that `fromToml` fails with Go's text: `toml: line N (last key "k"): message`.
//! The values themselves are read by the `toml` crate (`super::toml`); this port only finds the
//! first error and the key the parser was at. It follows the Go state machine function by
//! function (one `State` per state function), with TOML 1.0 (no `BURNTSUSHI_TOML_110`).
//! Parser errors it does not port (keys defined twice, tables redefined, escapes) are left to
//! the caller.

use super::super::fmt::{go_quote, go_quote_rune};

/// Go's `eof` rune.
const EOF: char = '\0';

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ItemType {
    Eof,
    Text,
    String,
    StringEsc,
    RawString,
    MultilineString,
    RawMultilineString,
    Bool,
    Integer,
    Float,
    Datetime,
    Array,
    ArrayEnd,
    TableStart,
    TableEnd,
    ArrayTableStart,
    ArrayTableEnd,
    KeyStart,
    KeyEnd,
    CommentStart,
    InlineTableStart,
    InlineTableEnd,
}

#[derive(Clone, Debug)]
struct Item {
    typ: ItemType,
    val: String,
    line: usize,
}

/// The lexer's first error: its line (as Go's `Position.Line`) and message.
#[derive(Clone, Debug)]
struct LexError {
    line: usize,
    message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Top,
    TopEnd,
    TableStart,
    TableEnd,
    ArrayTableEnd,
    TableNameStart,
    TableNameEnd,
    BareName,
    QuotedName,
    KeyStart,
    KeyNameStart,
    KeyEnd,
    Value,
    ArrayValue,
    ArrayValueEnd,
    ArrayEnd,
    InlineTableValue,
    InlineTableValueEnd,
    InlineTableEnd,
    String,
    MultilineString,
    RawString,
    MultilineRawString,
    MultilineStringEscape,
    StringEscape,
    ShortUnicodeEscape,
    LongUnicodeEscape,
    NumberOrDateStart,
    NumberOrDate,
    Datetime,
    HexInteger,
    OctalInteger,
    BinaryInteger,
    DecimalNumber,
    DecimalNumberStart,
    BaseNumberOrDate,
    Float,
    Bool,
    CommentStart,
    Comment,
}

struct Lexer<'a> {
    input: &'a str,
    start: usize,
    pos: usize,
    line: usize,
    esc: bool,
    prev_widths: [usize; 4],
    nprev: usize,
    at_eof: bool,
    stack: Vec<State>,
    items: Vec<Item>,
    error: Option<LexError>,
}

fn is_whitespace(r: char) -> bool {
    r == '\t' || r == ' '
}
fn is_nl(r: char) -> bool {
    r == '\n' || r == '\r'
}
fn is_control(r: char) -> bool {
    !matches!(r, '\t' | '\r' | '\n') && (r <= '\u{1f}' || r == '\u{7f}')
}
fn is_digit(r: char) -> bool {
    r.is_ascii_digit()
}
fn is_binary(r: char) -> bool {
    r == '0' || r == '1'
}
fn is_octal(r: char) -> bool {
    ('0'..='7').contains(&r)
}
fn is_hex(r: char) -> bool {
    r.is_ascii_hexdigit()
}
fn is_bare_key_char(r: char) -> bool {
    r.is_ascii_alphanumeric() || r == '_' || r == '-'
}

/// Go's `%q` of a rune.
fn q(r: char) -> String {
    go_quote_rune(r)
}

/// Go's `runeOrEOF`.
fn rune_or_eof(r: char) -> String {
    if r == EOF {
        "end of file".into()
    } else {
        format!("'{r}'")
    }
}

impl<'a> Lexer<'a> {
    fn new(input: &'a str) -> Lexer<'a> {
        Lexer {
            input,
            start: 0,
            pos: 0,
            line: 1,
            esc: false,
            prev_widths: [0; 4],
            nprev: 0,
            at_eof: false,
            stack: Vec::new(),
            items: Vec::new(),
            error: None,
        }
    }

    fn current(&self) -> &str {
        self.input.get(self.start..self.pos).unwrap_or("")
    }

    fn emit(&mut self, typ: ItemType) {
        let val = self.current().to_string();
        self.items.push(Item {
            typ,
            val,
            line: self.line,
        });
        self.start = self.pos;
    }

    fn emit_trim(&mut self, typ: ItemType) {
        let val = self.current().trim().to_string();
        self.items.push(Item {
            typ,
            val,
            line: self.line,
        });
        self.start = self.pos;
    }

    fn next(&mut self) -> char {
        if self.pos >= self.input.len() {
            self.at_eof = true;
            return EOF;
        }
        if self.input.as_bytes()[self.pos] == b'\n' {
            self.line += 1;
        }
        self.prev_widths[3] = self.prev_widths[2];
        self.prev_widths[2] = self.prev_widths[1];
        self.prev_widths[1] = self.prev_widths[0];
        if self.nprev < 4 {
            self.nprev += 1;
        }
        let r = self.input[self.pos..].chars().next().unwrap_or(EOF);
        let crlf = self.input.as_bytes().get(self.pos + 1) == Some(&b'\n');
        if is_control(r) || (r == '\r' && !crlf) {
            // errorControlChar: the position of the previous character (Go's `lx.pos-1`).
            self.fail_at_line(format!(
                "TOML files cannot contain control characters: '0x{:02x}'",
                r as u32
            ));
            return char::REPLACEMENT_CHARACTER;
        }
        self.prev_widths[0] = r.len_utf8();
        self.pos += r.len_utf8();
        r
    }

    fn ignore(&mut self) {
        self.start = self.pos;
    }

    fn backup(&mut self) {
        if self.at_eof {
            self.at_eof = false;
            return;
        }
        if self.nprev < 1 {
            return;
        }
        let w = self.prev_widths[0];
        self.prev_widths[0] = self.prev_widths[1];
        self.prev_widths[1] = self.prev_widths[2];
        self.prev_widths[2] = self.prev_widths[3];
        self.nprev -= 1;
        self.pos -= w;
        if self.input.as_bytes().get(self.pos) == Some(&b'\n') {
            self.line -= 1;
        }
    }

    fn accept(&mut self, valid: char) -> bool {
        if self.next() == valid {
            return true;
        }
        self.backup();
        false
    }

    fn peek(&mut self) -> char {
        let r = self.next();
        self.backup();
        r
    }

    fn skip(&mut self, pred: fn(char) -> bool) {
        loop {
            let r = self.next();
            if self.error.is_some() {
                return;
            }
            if pred(r) {
                continue;
            }
            self.backup();
            self.ignore();
            return;
        }
    }

    fn fail_at_line(&mut self, message: String) {
        if self.error.is_none() {
            self.error = Some(LexError {
                line: self.line,
                message,
            });
        }
    }

    /// `errorf` and `error`: at the end of the input the error is put on the previous line.
    fn errorf(&mut self, message: String) -> Option<State> {
        let line = if self.at_eof {
            self.line.saturating_sub(1)
        } else {
            self.line
        };
        if self.error.is_none() {
            self.error = Some(LexError { line, message });
        }
        None
    }

    /// `errorPrevLine`.
    fn error_prev_line(&mut self, message: String) -> Option<State> {
        let line = self.line.saturating_sub(1);
        if self.error.is_none() {
            self.error = Some(LexError { line, message });
        }
        None
    }

    fn push(&mut self, s: State) {
        self.stack.push(s);
    }

    fn pop(&mut self) -> Option<State> {
        match self.stack.pop() {
            Some(s) => Some(s),
            None => self.errorf("BUG in lexer: no states to pop".into()),
        }
    }

    fn run(&mut self) {
        let mut state = Some(State::Top);
        while let Some(s) = state {
            if self.error.is_some() {
                return;
            }
            state = self.step(s);
        }
    }

    fn step(&mut self, s: State) -> Option<State> {
        use State as S;
        match s {
            S::Top => {
                let r = self.next();
                if is_whitespace(r) || is_nl(r) {
                    self.ignore();
                    return Some(S::Top);
                }
                match r {
                    '#' => {
                        self.push(S::Top);
                        return Some(S::CommentStart);
                    }
                    '[' => return Some(S::TableStart),
                    EOF => {
                        if self.pos > self.start {
                            return self.errorf("unexpected EOF".into());
                        }
                        self.emit(ItemType::Eof);
                        return None;
                    }
                    _ => {}
                }
                self.backup();
                self.push(S::TopEnd);
                Some(S::KeyStart)
            }
            S::TopEnd => {
                let r = self.next();
                match r {
                    '#' => {
                        self.push(S::Top);
                        Some(S::CommentStart)
                    }
                    r if is_whitespace(r) => Some(S::TopEnd),
                    r if is_nl(r) => {
                        self.ignore();
                        Some(S::Top)
                    }
                    EOF => {
                        self.emit(ItemType::Eof);
                        None
                    }
                    r => self.errorf(format!(
                        "expected a top-level item to end with a newline, comment, or EOF, but got {} instead",
                        q(r)
                    )),
                }
            }
            S::TableStart => {
                if self.peek() == '[' {
                    self.next();
                    self.emit(ItemType::ArrayTableStart);
                    self.push(S::ArrayTableEnd);
                } else {
                    self.emit(ItemType::TableStart);
                    self.push(S::TableEnd);
                }
                Some(S::TableNameStart)
            }
            S::TableEnd => {
                self.emit(ItemType::TableEnd);
                Some(S::TopEnd)
            }
            S::ArrayTableEnd => {
                let r = self.next();
                if r != ']' {
                    return self.errorf(format!(
                        "expected end of table array name delimiter ']', but got {} instead",
                        q(r)
                    ));
                }
                self.emit(ItemType::ArrayTableEnd);
                Some(S::TopEnd)
            }
            S::TableNameStart => {
                self.skip(is_whitespace);
                match self.peek() {
                    ']' | EOF => self.errorf(
                        "unexpected end of table name (table names cannot be empty)".into(),
                    ),
                    '.' => self
                        .errorf("unexpected table separator (table names cannot be empty)".into()),
                    '"' | '\'' => {
                        self.ignore();
                        self.push(S::TableNameEnd);
                        Some(S::QuotedName)
                    }
                    _ => {
                        self.push(S::TableNameEnd);
                        Some(S::BareName)
                    }
                }
            }
            S::TableNameEnd => {
                self.skip(is_whitespace);
                match self.next() {
                    r if is_whitespace(r) => Some(S::TableNameEnd),
                    '.' => {
                        self.ignore();
                        Some(S::TableNameStart)
                    }
                    ']' => self.pop(),
                    r => self.errorf(format!(
                        "expected '.' or ']' to end table name, but got {} instead",
                        q(r)
                    )),
                }
            }
            S::BareName => {
                let r = self.next();
                if is_bare_key_char(r) {
                    return Some(S::BareName);
                }
                self.backup();
                self.emit(ItemType::Text);
                self.pop()
            }
            S::QuotedName => match self.next() {
                r if is_whitespace(r) => {
                    self.ignore();
                    Some(S::Value)
                }
                '"' => {
                    self.ignore();
                    Some(S::String)
                }
                '\'' => {
                    self.ignore();
                    Some(S::RawString)
                }
                EOF => self.errorf("unexpected EOF; expected value".into()),
                r => self.errorf(format!("expected value but found {} instead", q(r))),
            },
            S::KeyStart => {
                self.skip(is_whitespace);
                match self.peek() {
                    '=' | EOF => self.errorf("unexpected '=': key name appears blank".into()),
                    '.' => self.errorf("unexpected '.': keys cannot start with a '.'".into()),
                    r => {
                        if r == '"' || r == '\'' {
                            self.ignore();
                        }
                        self.emit(ItemType::KeyStart);
                        Some(S::KeyNameStart)
                    }
                }
            }
            S::KeyNameStart => {
                self.skip(is_whitespace);
                match self.peek() {
                    '=' | EOF => self.errorf("unexpected '='".into()),
                    '.' => self.errorf("unexpected '.'".into()),
                    '"' | '\'' => {
                        self.ignore();
                        self.push(S::KeyEnd);
                        Some(S::QuotedName)
                    }
                    _ => {
                        self.push(S::KeyEnd);
                        Some(S::BareName)
                    }
                }
            }
            S::KeyEnd => {
                self.skip(is_whitespace);
                match self.next() {
                    r if is_whitespace(r) => {
                        self.ignore();
                        Some(S::KeyEnd)
                    }
                    EOF => self.errorf("unexpected EOF; expected key separator '='".into()),
                    '.' => {
                        self.ignore();
                        Some(S::KeyNameStart)
                    }
                    '=' => {
                        self.emit(ItemType::KeyEnd);
                        self.ignore();
                        Some(S::Value)
                    }
                    r => self.errorf(format!("expected '.' or '=', but got {} instead", q(r))),
                }
            }
            S::Value => self.lex_value(),
            S::ArrayValue => {
                let r = self.next();
                match r {
                    r if is_whitespace(r) || is_nl(r) => {
                        self.ignore();
                        Some(S::ArrayValue)
                    }
                    '#' => {
                        self.push(S::ArrayValue);
                        Some(S::CommentStart)
                    }
                    ',' => self.errorf("unexpected comma".into()),
                    ']' => Some(S::ArrayEnd),
                    _ => {
                        self.backup();
                        self.push(S::ArrayValueEnd);
                        Some(S::Value)
                    }
                }
            }
            S::ArrayValueEnd => match self.next() {
                r if is_whitespace(r) || is_nl(r) => {
                    self.ignore();
                    Some(S::ArrayValueEnd)
                }
                '#' => {
                    self.push(S::ArrayValueEnd);
                    Some(S::CommentStart)
                }
                ',' => {
                    self.ignore();
                    Some(S::ArrayValue)
                }
                ']' => Some(S::ArrayEnd),
                r => self.errorf(format!(
                    "expected a comma (',') or array terminator (']'), but got {}",
                    rune_or_eof(r)
                )),
            },
            S::ArrayEnd => {
                self.ignore();
                self.emit(ItemType::ArrayEnd);
                self.pop()
            }
            S::InlineTableValue => match self.next() {
                r if is_whitespace(r) => {
                    self.ignore();
                    Some(S::InlineTableValue)
                }
                r if is_nl(r) => {
                    self.error_prev_line("newlines not allowed within inline tables".into())
                }
                '#' => {
                    self.push(S::InlineTableValue);
                    Some(S::CommentStart)
                }
                ',' => self.errorf("unexpected comma".into()),
                '}' => Some(S::InlineTableEnd),
                _ => {
                    self.backup();
                    self.push(S::InlineTableValueEnd);
                    Some(S::KeyStart)
                }
            },
            S::InlineTableValueEnd => match self.next() {
                r if is_whitespace(r) => {
                    self.ignore();
                    Some(S::InlineTableValueEnd)
                }
                r if is_nl(r) => {
                    self.error_prev_line("newlines not allowed within inline tables".into())
                }
                '#' => {
                    self.push(S::InlineTableValueEnd);
                    Some(S::CommentStart)
                }
                ',' => {
                    self.ignore();
                    self.skip(is_whitespace);
                    if self.peek() == '}' {
                        return self.errorf("trailing comma not allowed in inline tables".into());
                    }
                    Some(S::InlineTableValue)
                }
                '}' => Some(S::InlineTableEnd),
                r => self.errorf(format!(
                    "expected a comma or an inline table terminator '}}', but got {} instead",
                    rune_or_eof(r)
                )),
            },
            S::InlineTableEnd => {
                self.ignore();
                self.emit(ItemType::InlineTableEnd);
                self.pop()
            }
            S::String => match self.next() {
                EOF => self.errorf("unexpected EOF; expected '\"'".into()),
                r if is_nl(r) => self.error_prev_line("strings cannot contain newlines".into()),
                '\\' => {
                    self.push(S::String);
                    Some(S::StringEscape)
                }
                '"' => {
                    self.backup();
                    if self.esc {
                        self.esc = false;
                        self.emit(ItemType::StringEsc);
                    } else {
                        self.emit(ItemType::String);
                    }
                    self.next();
                    self.ignore();
                    self.pop()
                }
                _ => Some(S::String),
            },
            S::MultilineString => match self.next() {
                EOF => self.errorf("unexpected EOF; expected '\"\"\"'".into()),
                '\\' => Some(S::MultilineStringEscape),
                '"' => {
                    if self.accept('"') {
                        if self.accept('"') {
                            if self.peek() == '"' {
                                let cur = self.current();
                                if cur.ends_with("\"\"\"\"\"") && !cur.ends_with("\\\"\"\"\"\"") {
                                    return self.errorf("unexpected '\"\"\"\"\"\"'".into());
                                }
                                self.backup();
                                self.backup();
                                return Some(S::MultilineString);
                            }
                            self.backup();
                            self.backup();
                            self.backup();
                            self.esc = false;
                            self.emit(ItemType::MultilineString);
                            self.next();
                            self.next();
                            self.next();
                            self.ignore();
                            return self.pop();
                        }
                        self.backup();
                    }
                    Some(S::MultilineString)
                }
                _ => Some(S::MultilineString),
            },
            S::RawString => match self.next() {
                EOF => self.errorf("unexpected EOF; expected \"'\"".into()),
                r if is_nl(r) => self.error_prev_line("strings cannot contain newlines".into()),
                '\'' => {
                    self.backup();
                    self.emit(ItemType::RawString);
                    self.next();
                    self.ignore();
                    self.pop()
                }
                _ => Some(S::RawString),
            },
            S::MultilineRawString => match self.next() {
                EOF => self.errorf("unexpected EOF; expected \"'''\"".into()),
                '\'' => {
                    if self.accept('\'') {
                        if self.accept('\'') {
                            if self.peek() == '\'' {
                                if self.current().ends_with("'''''") {
                                    return self.errorf("unexpected \"''''''\"".into());
                                }
                                self.backup();
                                self.backup();
                                return Some(S::MultilineRawString);
                            }
                            self.backup();
                            self.backup();
                            self.backup();
                            self.emit(ItemType::RawMultilineString);
                            self.next();
                            self.next();
                            self.next();
                            self.ignore();
                            return self.pop();
                        }
                        self.backup();
                    }
                    Some(S::MultilineRawString)
                }
                _ => Some(S::MultilineRawString),
            },
            S::MultilineStringEscape => {
                if is_nl(self.next()) {
                    return Some(S::MultilineString);
                }
                self.backup();
                self.push(S::MultilineString);
                self.step(S::StringEscape)
            }
            S::StringEscape => {
                self.esc = true;
                let r = self.next();
                match r {
                    'b' | 't' | 'n' | 'f' | 'r' | '"' | ' ' | '\t' | '\\' => self.pop(),
                    'u' => Some(S::ShortUnicodeEscape),
                    'U' => Some(S::LongUnicodeEscape),
                    r => self.errorf(format!("invalid escape in string '\\{r}'")),
                }
            }
            S::ShortUnicodeEscape | S::LongUnicodeEscape => {
                let (n, word, letter) = if s == S::ShortUnicodeEscape {
                    (4, "four", 'u')
                } else {
                    (8, "eight", 'U')
                };
                for _ in 0..n {
                    if !is_hex(self.next()) {
                        let cur = go_quote(self.current());
                        return self.errorf(format!(
                            "expected {word} hexadecimal digits after '\\{letter}', but got {cur} instead"
                        ));
                    }
                }
                self.pop()
            }
            S::NumberOrDateStart => {
                let r = self.next();
                if r == '0' {
                    return Some(S::BaseNumberOrDate);
                }
                if !is_digit(r) {
                    return self.errorf(format!("expected a digit but got {}", q(r)));
                }
                Some(S::NumberOrDate)
            }
            S::NumberOrDate => {
                let r = self.next();
                if is_digit(r) {
                    return Some(S::NumberOrDate);
                }
                match r {
                    '-' | ':' => Some(S::Datetime),
                    '_' => Some(S::DecimalNumber),
                    '.' | 'e' | 'E' => Some(S::Float),
                    _ => {
                        self.backup();
                        self.emit(ItemType::Integer);
                        self.pop()
                    }
                }
            }
            S::Datetime => {
                let r = self.next();
                if is_digit(r) || matches!(r, '-' | ':' | 'T' | 't' | ' ' | '.' | 'Z' | 'z' | '+') {
                    return Some(S::Datetime);
                }
                self.backup();
                self.emit_trim(ItemType::Datetime);
                self.pop()
            }
            S::HexInteger | S::OctalInteger | S::BinaryInteger => {
                let r = self.next();
                let digit = match s {
                    S::HexInteger => is_hex(r),
                    S::OctalInteger => is_octal(r),
                    _ => is_binary(r),
                };
                if digit || r == '_' {
                    return Some(s);
                }
                self.backup();
                self.emit(ItemType::Integer);
                self.pop()
            }
            S::DecimalNumber => {
                let r = self.next();
                if is_digit(r) || r == '_' {
                    return Some(S::DecimalNumber);
                }
                if matches!(r, '.' | 'e' | 'E') {
                    return Some(S::Float);
                }
                self.backup();
                self.emit(ItemType::Integer);
                self.pop()
            }
            S::DecimalNumberStart => {
                let r = self.next();
                match r {
                    'i' => {
                        if !self.accept('n') || !self.accept('f') {
                            let cur = self.current().to_string();
                            return self.errorf(format!("invalid float: '{cur}'"));
                        }
                        self.emit(ItemType::Float);
                        return self.pop();
                    }
                    'n' => {
                        if !self.accept('a') || !self.accept('n') {
                            let cur = self.current().to_string();
                            return self.errorf(format!("invalid float: '{cur}'"));
                        }
                        self.emit(ItemType::Float);
                        return self.pop();
                    }
                    '0' => {
                        let p = self.peek();
                        if matches!(p, 'b' | 'o' | 'x') {
                            let cur = self.current().to_string();
                            return self.errorf(format!(
                                "cannot use sign with non-decimal numbers: '{cur}{p}'"
                            ));
                        }
                    }
                    '.' => return self.errorf("floats must start with a digit, not '.'".into()),
                    _ => {}
                }
                if is_digit(r) {
                    return Some(S::DecimalNumber);
                }
                self.errorf(format!("expected a digit but got {}", q(r)))
            }
            S::BaseNumberOrDate => {
                let r = self.next();
                if is_digit(r) {
                    return Some(S::NumberOrDate);
                }
                match r {
                    '_' => Some(S::DecimalNumber),
                    '.' | 'e' | 'E' => Some(S::Float),
                    'b' | 'o' | 'x' => {
                        let p = self.peek();
                        let (ok, what, next) = match r {
                            'b' => (is_binary(p), "a binary", S::BinaryInteger),
                            'o' => (is_octal(p), "an octal", S::OctalInteger),
                            _ => (is_hex(p), "a hexidecimal", S::HexInteger),
                        };
                        if !ok {
                            // Go ignores the state errorf returns; the error item stops the
                            // parser all the same.
                            let cur = self.current().to_string();
                            self.errorf(format!("not {what} number: '{cur}{p}'"));
                        }
                        Some(next)
                    }
                    _ => {
                        self.backup();
                        self.emit(ItemType::Integer);
                        self.pop()
                    }
                }
            }
            S::Float => {
                let r = self.next();
                if is_digit(r) || matches!(r, '_' | '.' | '-' | '+' | 'e' | 'E') {
                    return Some(S::Float);
                }
                self.backup();
                self.emit(ItemType::Float);
                self.pop()
            }
            S::Bool => {
                let mut word = String::new();
                loop {
                    let r = self.next();
                    if !r.is_alphabetic() {
                        self.backup();
                        break;
                    }
                    word.push(r);
                }
                if word == "true" || word == "false" {
                    self.emit(ItemType::Bool);
                    return self.pop();
                }
                self.errorf(format!(
                    "expected value but found {} instead",
                    go_quote(&word)
                ))
            }
            S::CommentStart => {
                self.ignore();
                self.emit(ItemType::CommentStart);
                Some(S::Comment)
            }
            S::Comment => {
                let r = self.next();
                if is_nl(r) || r == EOF {
                    self.backup();
                    self.emit(ItemType::Text);
                    return self.pop();
                }
                Some(S::Comment)
            }
        }
    }

    /// `lexValue`.
    fn lex_value(&mut self) -> Option<State> {
        use State as S;
        let r = self.next();
        if is_whitespace(r) {
            self.ignore();
            return Some(S::Value);
        }
        if is_digit(r) {
            self.backup();
            return Some(S::NumberOrDateStart);
        }
        match r {
            '[' => {
                self.ignore();
                self.emit(ItemType::Array);
                return Some(S::ArrayValue);
            }
            '{' => {
                self.ignore();
                self.emit(ItemType::InlineTableStart);
                return Some(S::InlineTableValue);
            }
            '"' => {
                if self.accept('"') {
                    if self.accept('"') {
                        self.ignore();
                        return Some(S::MultilineString);
                    }
                    self.backup();
                }
                self.ignore();
                return Some(S::String);
            }
            '\'' => {
                if self.accept('\'') {
                    if self.accept('\'') {
                        self.ignore();
                        return Some(S::MultilineRawString);
                    }
                    self.backup();
                }
                self.ignore();
                return Some(S::RawString);
            }
            '.' => return self.errorf("floats must start with a digit, not '.'".into()),
            // `inf` or `nan` (the guard reads on: Go's `accept`s).
            'i' | 'n'
                if (self.accept('n') && self.accept('f'))
                    || (self.accept('a') && self.accept('n')) =>
            {
                self.emit(ItemType::Float);
                return self.pop();
            }
            '-' | '+' => return Some(S::DecimalNumberStart),
            _ => {}
        }
        if r.is_alphabetic() {
            self.backup();
            return Some(S::Bool);
        }
        if r == EOF {
            return self.errorf("unexpected EOF; expected value".into());
        }
        self.errorf(format!("expected value but found {} instead", q(r)))
    }
}

/// The parser's view: the key path it is at (`parser.current()`), and the checks of values
/// it makes on the way (numbers).
struct Parser {
    items: std::vec::IntoIter<Item>,
    error: Option<LexError>,
    context: Vec<String>,
    current_key: String,
}

/// Why the parser stops: the line and Go's `ParseError` text.
struct Stop(usize, String);

impl Parser {
    fn current(&self) -> String {
        let context = key_string(&self.context);
        if self.current_key.is_empty() {
            context
        } else if self.context.is_empty() {
            self.current_key.clone()
        } else {
            format!("{context}.{}", self.current_key)
        }
    }

    fn stop(&self, line: usize, message: &str) -> Stop {
        let last = self.current();
        Stop(
            line,
            if last.is_empty() {
                format!("toml: line {line}: {message}")
            } else {
                format!(
                    "toml: line {line} (last key {}): {message}",
                    go_quote(&last)
                )
            },
        )
    }

    fn next(&mut self) -> Result<Item, Stop> {
        match self.items.next() {
            Some(it) => Ok(it),
            None => {
                let e = self.error.clone().unwrap_or(LexError {
                    line: 0,
                    message: "unexpected EOF".into(),
                });
                Err(self.stop(e.line, &e.message))
            }
        }
    }

    fn key(&mut self, end: ItemType) -> Result<Vec<String>, Stop> {
        let mut key = Vec::new();
        loop {
            let it = self.next()?;
            if it.typ == end || it.typ == ItemType::Eof {
                return Ok(key);
            }
            key.push(it.val);
        }
    }

    fn top_level(&mut self) -> Result<(), Stop> {
        loop {
            let it = self.next()?;
            match it.typ {
                ItemType::Eof => return Ok(()),
                ItemType::CommentStart => {
                    self.next()?;
                }
                ItemType::TableStart => self.context = self.key(ItemType::TableEnd)?,
                ItemType::ArrayTableStart => self.context = self.key(ItemType::ArrayTableEnd)?,
                ItemType::KeyStart => {
                    let outer = self.context.clone();
                    let mut key = self.key(ItemType::KeyEnd)?;
                    self.current_key = key.pop().unwrap_or_default();
                    self.context.extend(key);
                    let v = self.next()?;
                    self.value(v)?;
                    self.context = outer;
                    self.current_key.clear();
                }
                _ => {}
            }
        }
    }

    fn value(&mut self, it: Item) -> Result<(), Stop> {
        match it.typ {
            ItemType::Integer => self.integer(&it),
            ItemType::Float => self.float(&it),
            ItemType::Datetime => self.datetime(&it),
            ItemType::Array => loop {
                let it = self.next()?;
                match it.typ {
                    ItemType::ArrayEnd => return Ok(()),
                    ItemType::CommentStart => {
                        self.next()?;
                    }
                    _ => self.value(it)?,
                }
            },
            ItemType::InlineTableStart => {
                let (outer_context, outer_key) = (self.context.clone(), self.current_key.clone());
                self.context.push(std::mem::take(&mut self.current_key));
                let prev = self.context.clone();
                loop {
                    let it = self.next()?;
                    match it.typ {
                        ItemType::InlineTableEnd => break,
                        ItemType::CommentStart => {
                            self.next()?;
                            continue;
                        }
                        _ => {}
                    }
                    let mut key = self.key(ItemType::KeyEnd)?;
                    self.current_key = key.pop().unwrap_or_default();
                    self.context.extend(key);
                    let v = self.next()?;
                    self.value(v)?;
                    self.context = prev.clone();
                }
                self.context = outer_context;
                self.current_key = outer_key;
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// `valueInteger`'s checks.
    fn integer(&self, it: &Item) -> Result<(), Stop> {
        let v = &it.val;
        if !underscores_ok(v) {
            return Err(self.stop(
                it.line,
                &format!(
                    "Invalid integer {}: underscores must be surrounded by digits",
                    go_quote(v)
                ),
            ));
        }
        if has_leading_zero(v) {
            return Err(self.stop(
                it.line,
                &format!(
                    "Invalid integer {}: cannot have leading zeroes",
                    go_quote(v)
                ),
            ));
        }
        if crate::go::strconv::parse_int(v).is_err() {
            return Err(self.stop(it.line, &format!("{v} is out of range for int64")));
        }
        Ok(())
    }

    /// `valueDatetime`: the value (`z`, `t` and a space read as `Z`, `T`, `T`) must parse
    /// with one of TOML 1.0's layouts, its numbers with their leading zeros.
    fn datetime(&self, it: &Item) -> Result<(), Stop> {
        const LAYOUTS: [&str; 4] = [
            "2006-01-02T15:04:05.999999999Z07:00",
            "2006-01-02T15:04:05.999999999",
            "2006-01-02",
            "15:04:05.999999999",
        ];
        let v: String = it
            .val
            .chars()
            .map(|c| match c {
                'z' => 'Z',
                't' | ' ' => 'T',
                c => c,
            })
            .collect();
        // `missingLeadingZero`: Go's parse takes `1979-5-27`; each separator of the layout
        // before its fraction or zone must stand where the layout has it.
        let missing_leading_zero = |layout: &str| {
            layout
                .bytes()
                .take_while(|&c| c != b'.' && c != b'Z')
                .enumerate()
                .any(|(i, c)| !c.is_ascii_digit() && v.as_bytes().get(i) != Some(&c))
        };
        match LAYOUTS
            .iter()
            .find(|layout| super::dates::Time::parse(layout, &v).is_ok())
        {
            Some(layout) if !missing_leading_zero(layout) => Ok(()),
            _ => Err(self.stop(it.line, &format!("invalid datetime: {}", go_quote(&v)))),
        }
    }

    /// `valueFloat`'s checks.
    fn float(&self, it: &Item) -> Result<(), Stop> {
        let v = &it.val;
        let parts: Vec<&str> = v.split(['.', 'e', 'E']).filter(|p| !p.is_empty()).collect();
        if parts.iter().any(|p| !underscores_ok(p)) {
            return Err(self.stop(
                it.line,
                &format!(
                    "Invalid float {}: underscores must be surrounded by digits",
                    go_quote(v)
                ),
            ));
        }
        if parts.first().is_some_and(|p| has_leading_zero(p)) {
            return Err(self.stop(
                it.line,
                &format!("Invalid float {}: cannot have leading zeroes", go_quote(v)),
            ));
        }
        if !periods_ok(v) {
            return Err(self.stop(
                it.line,
                &format!(
                    "Invalid float {}: '.' must be followed by one or more digits",
                    go_quote(v)
                ),
            ));
        }
        let plain = v.replace('_', "");
        let special = matches!(
            plain.as_str(),
            "nan" | "+nan" | "-nan" | "inf" | "+inf" | "-inf"
        );
        if !special && plain.parse::<f64>().is_err() {
            return Err(self.stop(it.line, &format!("Invalid float value: {}", go_quote(v))));
        }
        Ok(())
    }
}

/// `Key.String()`: parts joined by `.`, quoted when not bare.
fn key_string(key: &[String]) -> String {
    key.iter()
        .map(|k| {
            if k.is_empty() {
                "\"\"".to_string()
            } else if k.chars().all(is_bare_key_char) {
                k.clone()
            } else {
                format!("\"{}\"", k.replace('\\', "\\\\").replace('"', "\\\""))
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

fn underscores_ok(s: &str) -> bool {
    if matches!(s, "nan" | "+nan" | "-nan" | "inf" | "-inf" | "+inf") {
        return true;
    }
    let mut accept = false;
    for r in s.chars() {
        if r == '_' && !accept {
            return false;
        }
        accept = is_hex(r);
    }
    accept
}

fn has_leading_zero(s: &str) -> bool {
    let b = s.as_bytes();
    (b.len() > 1 && b[0] == b'0' && !matches!(b[1], b'b' | b'o' | b'x'))
        || (b.len() > 2 && matches!(b[0], b'-' | b'+') && b[1] == b'0')
}

fn periods_ok(s: &str) -> bool {
    let mut period = false;
    for r in s.chars() {
        if period && !is_digit(r) {
            return false;
        }
        period = r == '.';
    }
    !period
}

/// The error BurntSushi/toml v1.4 gives for `text` and its line, when its lexer or its number
/// checks find one (`None` otherwise: the text lexes, or its error is one this port does not
/// make).
pub fn error(text: &str) -> Option<(usize, String)> {
    // BurntSushi reads over a byte order mark first.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lx = Lexer::new(text);
    lx.run();
    let mut p = Parser {
        items: std::mem::take(&mut lx.items).into_iter(),
        error: lx.error,
        context: Vec::new(),
        current_key: String::new(),
    };
    p.top_level()
        .err()
        .map(|Stop(line, message)| (line, message))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected texts from helm v3.17.3's `fromToml` (testdata/template/helm).
    #[test]
    fn errors_as_burntsushi_words_them() {
        let cases = [
            (
                "a = ",
                "toml: line 0 (last key \"a\"): unexpected EOF; expected value",
            ),
            (
                "a = 1\nb = ",
                "toml: line 1 (last key \"b\"): unexpected EOF; expected value",
            ),
            (
                "[t]\nb.c = [1, , 2]",
                "toml: line 2 (last key \"t.b.c\"): unexpected comma",
            ),
            (
                "a = {b = 1,}",
                "toml: line 1 (last key \"a.b\"): trailing comma not allowed in inline tables",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(error(text).map(|e| e.1).as_deref(), Some(want), "{text:?}");
        }
        assert_eq!(error("a = 1\n[t]\nb = [1, {c = 2}]\n"), None);
    }
}

#[cfg(test)]
mod robustness {
    use super::*;

    /// Short texts over TOML's punctuation: the port ends on each with a result, never a
    /// panic or a loop.
    #[test]
    fn any_text_ends_with_a_result() {
        let alphabet: Vec<char> = "ab1_.-+=[]{}\"'#,\n\r\t \\ux0e:TZ\u{1}é".chars().collect();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 24) as usize;
            let text: String = (0..len)
                .map(|i| alphabet[((x >> (i % 8 * 8)) as usize + i * 7) % alphabet.len()])
                .collect();
            let _ = error(&text);
        }
    }
}
