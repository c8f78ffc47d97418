//! The lexer of Go's text/template (`text/template/parse/lex.go`): text, delimiters with trim
//! markers, comments, and the tokens inside actions, each with its byte position.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Text,
    LeftDelim,
    RightDelim,
    Space,
    Identifier,
    Keyword,
    Field,
    Variable,
    Dot,
    Bool,
    Nil,
    Number,
    /// A complex constant, `1+2i` (Go's `itemComplex`).
    Complex,
    String,
    RawString,
    Char,
    Pipe,
    LeftParen,
    RightParen,
    Declare,
    Assign,
    Comma,
    Comment,
    /// A printable ASCII character with no meaning in an action (Go's `itemChar`).
    Punct,
    Eof,
    Error,
}

/// One token: its kind, text and byte offset in the template. Borrowed from the template
/// and `Copy`, so the parser's lookahead copies no text.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Token<'a> {
    pub kind: Kind,
    /// The token as written; empty for an `Error` token (its message is [`Lexer::error`]).
    pub text: &'a str,
    pub pos: usize,
    pub line: usize,
}

/// Splits a template into tokens, a piece at a time ([`Lexer::lex_more`]): the parser keeps
/// only the tokens of the action it is in, not a whole template's. An error ends the stream
/// with an `Error` token, its message (`unclosed action`, `unterminated quoted string`…) in
/// [`Lexer::error`].
pub struct Lexer<'a> {
    input: &'a str,
    left: &'a str,
    right: &'a str,
    pos: usize,
    line: usize,
    /// The tokens lexed, which the parser clears when it has consumed them.
    pub tokens: Vec<Token<'a>>,
    pub error: String,
    paren_depth: usize,
    /// The stream has ended (EOF or an error).
    done: bool,
}

/// Where `delim` first occurs in `s` (a left delimiter is rare in a template's text, as `*` in
/// a comment: looking for its first byte is the fast part).
fn find(s: &str, delim: &str) -> Option<usize> {
    let Some(&first) = delim.as_bytes().first() else {
        return Some(0);
    };
    let bytes = s.as_bytes();
    let mut from = 0;
    while let Some(i) = memchr::memchr(first, &bytes[from..]) {
        if starts_with(&bytes[from + i..], delim.as_bytes()) {
            return Some(from + i);
        }
        from += i + 1;
    }
    None
}

/// `s.starts_with(delim)`, comparing the first byte inline: it is asked at every token.
fn at_delim(s: &str, delim: &str) -> bool {
    match delim.as_bytes().first() {
        Some(first) => {
            s.as_bytes().first() == Some(first) && starts_with(s.as_bytes(), delim.as_bytes())
        }
        None => true,
    }
}

/// `hay.starts_with(needle)` for a delimiter (two bytes, usually): compared inline, where
/// the slice method calls `memcmp`.
#[inline(always)]
fn starts_with(hay: &[u8], needle: &[u8]) -> bool {
    hay.len() >= needle.len() && hay.iter().zip(needle).all(|(a, b)| a == b)
}

/// What a name is: a keyword, `true`, `false`, `nil` or an identifier. Its length and first
/// byte leave at most two words it could be, so a function name is compared with one word at
/// most (a `match` on the whole name compares it with every word of its length).
fn word_kind(word: &[u8]) -> Kind {
    let (candidate, kind) = match (word.len(), word.first()) {
        (2, Some(b'i')) => ("if", Kind::Keyword),
        (3, Some(b'e')) => ("end", Kind::Keyword),
        (3, Some(b'n')) => ("nil", Kind::Nil),
        (4, Some(b'e')) => ("else", Kind::Keyword),
        (4, Some(b't')) => ("true", Kind::Bool),
        (4, Some(b'w')) => ("with", Kind::Keyword),
        (5, Some(b'b')) if word == b"break" => ("break", Kind::Keyword),
        (5, Some(b'b')) => ("block", Kind::Keyword),
        (5, Some(b'f')) => ("false", Kind::Bool),
        (5, Some(b'r')) => ("range", Kind::Keyword),
        (6, Some(b'd')) => ("define", Kind::Keyword),
        (8, Some(b'c')) => ("continue", Kind::Keyword),
        (8, Some(b't')) => ("template", Kind::Keyword),
        _ => return Kind::Identifier,
    };
    if word == candidate.as_bytes() {
        kind
    } else {
        Kind::Identifier
    }
}

/// Newlines in a token (most are short: a call to memchr costs more than a loop over them).
fn count_newlines(text: &str) -> usize {
    if text.len() < 32 {
        text.bytes().filter(|&b| b == b'\n').count()
    } else {
        memchr::memchr_iter(b'\n', text.as_bytes()).count()
    }
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

fn is_space_byte(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

impl<'a> Lexer<'a> {
    /// A lexer of `input` whose token buffer starts with room for `ahead` tokens.
    pub fn new(input: &'a str, left: &'a str, right: &'a str, ahead: usize) -> Lexer<'a> {
        Lexer {
            input,
            left,
            right,
            pos: 0,
            line: 1,
            // No more than a text has bytes, about.
            tokens: Vec::with_capacity(ahead.min(input.len() + 1)),
            error: String::new(),
            paren_depth: 0,
            done: false,
        }
    }

    /// True once the stream has ended (EOF or an error).
    pub fn ended(&self) -> bool {
        self.done
    }

    fn rest(&self) -> &'a str {
        &self.input[self.pos..]
    }

    #[inline]
    fn emit(&mut self, kind: Kind, start: usize) {
        let text = &self.input[start..self.pos];
        let line = self.line;
        // Only these may span lines: names, numbers, quoted strings and punctuation cannot.
        if matches!(
            kind,
            Kind::Text | Kind::Space | Kind::RawString | Kind::LeftDelim | Kind::RightDelim
        ) {
            self.line += count_newlines(text);
        }
        self.tokens.push(Token {
            kind,
            text,
            pos: start,
            line,
        });
    }

    fn error(&mut self, message: impl Into<String>) {
        self.error = message.into();
        self.tokens.push(Token {
            kind: Kind::Error,
            text: "",
            pos: self.pos,
            line: self.line,
        });
    }

    /// Appends the next piece of the stream to `tokens`: the text up to the next action or
    /// comment and then its tokens, up to and including its right delimiter; or the last text
    /// and EOF. False when the stream had ended already.
    pub fn lex_more(&mut self) -> bool {
        if self.done {
            return false;
        }
        // Text up to the next left delimiter.
        let start = self.pos;
        match find(self.rest(), self.left) {
            None => {
                self.pos = self.input.len();
                if self.pos > start {
                    self.emit(Kind::Text, start);
                }
                self.tokens.push(Token {
                    kind: Kind::Eof,
                    text: "",
                    pos: self.pos,
                    line: self.line,
                });
                self.done = true;
            }
            Some(i) => {
                let delim_at = self.pos + i;
                let after = &self.input[delim_at + self.left.len()..];
                let trim = after.starts_with('-') && after[1..].starts_with(is_space);
                let mut text_end = delim_at;
                if trim {
                    text_end = start + self.input[start..delim_at].trim_end_matches(is_space).len();
                }
                self.pos = text_end;
                if text_end > start {
                    self.emit(Kind::Text, start);
                }
                // Count the trimmed whitespace's lines.
                self.line += count_newlines(&self.input[text_end..delim_at]);
                self.pos = delim_at;
                if !self.lex_left_delim(trim) {
                    self.done = true;
                }
            }
        }
        true
    }

    /// At a left delimiter: a comment, or an action up to its right delimiter. False when an
    /// error ended the stream.
    fn lex_left_delim(&mut self, trim: bool) -> bool {
        let start = self.pos;
        self.pos += self.left.len();
        if trim {
            self.pos += 2; // "- " (the space is skipped, not part of a token)
        }
        if self.rest().starts_with("/*") {
            return self.lex_comment(start);
        }
        let end = start + self.left.len();
        self.tokens.push(Token {
            kind: Kind::LeftDelim,
            text: &self.input[start..end],
            pos: start,
            line: self.line,
        });
        if trim {
            self.line += count_newlines(&self.input[end..self.pos]);
        }
        self.paren_depth = 0;
        self.lex_inside_action()
    }

    fn lex_comment(&mut self, start: usize) -> bool {
        let body_start = self.pos;
        // Go counts the newline of a `{{-` marker but not those inside the comment (its lexer
        // moves past the comment without counting), so later parse errors name a line that
        // many lines too early.
        self.line += count_newlines(&self.input[start..body_start]);
        let Some(close) = find(self.rest(), "*/") else {
            self.error("unclosed comment");
            return false;
        };
        self.pos += close + 2;
        // The comment must end at the right delimiter (with an optional trim marker).
        let rest = self.rest();
        let trim_right = rest.starts_with(is_space)
            && rest[1..].starts_with('-')
            && at_delim(&rest[2..], self.right);
        let (trim_after, delim_len) = if trim_right {
            (true, 2 + self.right.len())
        } else if at_delim(self.rest(), self.right) {
            (false, self.right.len())
        } else {
            self.error("comment ends before closing delimiter");
            return false;
        };
        let comment_end = self.pos;
        self.tokens.push(Token {
            kind: Kind::Comment,
            text: &self.input[body_start..comment_end],
            pos: body_start,
            line: self.line,
        });
        self.pos += delim_len;
        if trim_after {
            self.skip_leading_space();
        }
        true
    }

    /// ` -}}` at `start`: its space, the delimiter, and the trimmed text after it.
    fn trim_right_marker(&mut self, start: usize) {
        let delim = start + 2;
        self.pos = delim + self.right.len();
        for (kind, text, pos) in [
            (Kind::Space, " ", start),
            (Kind::RightDelim, self.right, delim),
        ] {
            self.tokens.push(Token {
                kind,
                text,
                pos,
                line: self.line,
            });
        }
        self.skip_leading_space();
    }

    fn skip_leading_space(&mut self) {
        let rest = self.rest();
        let skipped = rest.len() - rest.trim_start_matches(is_space).len();
        self.line += count_newlines(&rest[..skipped]);
        self.pos += skipped;
    }

    /// Go's `atRightDelim` at `pos`: whether the right delimiter is there, and whether with a
    /// trim marker before it (one space character, `-`). Asked before every token: by bytes,
    /// and the delimiter compared only where its first byte is.
    #[inline(always)]
    fn at_right_delim(&self, pos: usize) -> (bool, bool) {
        let bytes = self.input.as_bytes();
        let right = self.right.as_bytes();
        let at = |pos: usize| {
            bytes
                .get(pos..)
                .is_some_and(|rest| starts_with(rest, right))
        };
        match (bytes.get(pos), right.first()) {
            (Some(&b), _) if is_space_byte(b) => {
                let trim = bytes.get(pos + 1) == Some(&b'-') && at(pos + 2);
                (trim || at(pos), trim)
            }
            (Some(&b), Some(&first)) if b != first => (false, false),
            _ => (at(pos), false),
        }
    }

    /// Tokens inside an action, up to and including the right delimiter (Go's
    /// `lexInsideAction`, one byte at a time: every token starts with an ASCII byte but a name
    /// in another script, and only then is a character decoded).
    fn lex_inside_action(&mut self) -> bool {
        let bytes = self.input.as_bytes();
        loop {
            let start = self.pos;
            let (delim, trim) = self.at_right_delim(start);
            if delim {
                if self.paren_depth > 0 {
                    self.error("unclosed left paren");
                    return false;
                }
                if trim {
                    self.trim_right_marker(start);
                } else {
                    self.pos += self.right.len();
                    self.emit(Kind::RightDelim, start);
                }
                return true;
            }
            let Some(&b) = bytes.get(start) else {
                self.error("unclosed action");
                return false;
            };
            match b {
                b' ' | b'\t' | b'\r' | b'\n' => {
                    let mut end = start + 1;
                    while bytes.get(end).is_some_and(|&b| is_space_byte(b)) {
                        end += 1;
                    }
                    self.pos = end;
                    // The last space of a run before `-}}` belongs to the trim marker (Go's
                    // `lexSpace`): a run of one is the marker's alone.
                    if self.at_right_delim(end - 1).1 {
                        self.pos -= 1;
                        if end - start == 1 {
                            continue;
                        }
                    }
                    self.emit(Kind::Space, start);
                }
                b'=' => self.punctuation(Kind::Assign),
                b':' => {
                    if bytes.get(start + 1) != Some(&b'=') {
                        self.error("expected :=");
                        return false;
                    }
                    self.pos += 2;
                    self.emit(Kind::Declare, start);
                }
                b'|' => self.punctuation(Kind::Pipe),
                b',' => self.punctuation(Kind::Comma),
                b'(' => {
                    self.paren_depth += 1;
                    self.punctuation(Kind::LeftParen);
                }
                b')' => {
                    if self.paren_depth == 0 {
                        self.error("unexpected right paren");
                        return false;
                    }
                    self.paren_depth -= 1;
                    self.punctuation(Kind::RightParen);
                }
                b'"' => {
                    if !self.lex_quoted(b'"', Kind::String, "unterminated quoted string") {
                        return false;
                    }
                }
                b'`' => match memchr::memchr(b'`', &bytes[start + 1..]) {
                    Some(i) => {
                        self.pos += i + 2;
                        self.emit(Kind::RawString, start);
                    }
                    None => {
                        self.error("unterminated raw quoted string");
                        return false;
                    }
                },
                b'\'' => {
                    if !self.lex_quoted(b'\'', Kind::Char, "unterminated character constant") {
                        return false;
                    }
                }
                b'$' => {
                    if !self.lex_field_or_variable(start, Kind::Variable) {
                        return false;
                    }
                }
                // A dot at the end of the input is a number to Go (a bad one, the parser says).
                b'.' if matches!(bytes.get(start + 1), None | Some(b'0'..=b'9')) => {
                    if !self.lex_number() {
                        return false;
                    }
                }
                b'.' => {
                    if !self.lex_field_or_variable(start, Kind::Field) {
                        return false;
                    }
                }
                b'+' | b'-' | b'0'..=b'9' => {
                    if !self.lex_number() {
                        return false;
                    }
                }
                b if b == b'_' || b.is_ascii_alphabetic() => {
                    if !self.lex_word(start) {
                        return false;
                    }
                }
                // Other printable ASCII is a token of its own that the parser rejects.
                b if b.is_ascii_graphic() => self.punctuation(Kind::Punct),
                _ => {
                    let c = self.input[start..].chars().next().unwrap_or_default();
                    if is_alphanumeric(c) {
                        if !self.lex_word(start) {
                            return false;
                        }
                    } else {
                        self.error(format!(
                            "unrecognized character in action: {}",
                            super::fmt::sharp_u(c)
                        ));
                        return false;
                    }
                }
            }
        }
    }

    /// A one-byte token.
    fn punctuation(&mut self, kind: Kind) {
        let start = self.pos;
        self.pos += 1;
        self.emit(kind, start);
    }

    /// A name at `start`: a keyword, `true`, `false`, `nil` or an identifier. False when a
    /// bad character follows it.
    fn lex_word(&mut self, start: usize) -> bool {
        self.take_alphanumeric();
        if !self.at_terminator() {
            return self.bad_character();
        }
        let kind = word_kind(&self.input.as_bytes()[start..self.pos]);
        self.emit(kind, start);
        true
    }

    /// Go's `lexFieldOrVariable` at a `$` or `.`: alone (`Dot` for `.`) when a terminator
    /// follows, else with the name after it. False when a bad character follows.
    fn lex_field_or_variable(&mut self, start: usize, kind: Kind) -> bool {
        self.pos = start + 1;
        if self.at_terminator() {
            let alone = if kind == Kind::Field { Kind::Dot } else { kind };
            self.emit(alone, start);
            return true;
        }
        self.take_alphanumeric();
        if !self.at_terminator() {
            return self.bad_character();
        }
        self.emit(kind, start);
        true
    }

    /// Go's `atTerminator`: whether what follows a name may follow it (space, the end, `.`,
    /// `,`, `|`, `:`, a parenthesis or the right delimiter); `$x+2` and `f"a"` are errors.
    fn at_terminator(&self) -> bool {
        match self.input.as_bytes().get(self.pos) {
            None | Some(b' ' | b'\t' | b'\r' | b'\n' | b'.' | b',' | b'|' | b':' | b')' | b'(') => {
                true
            }
            _ => self.rest().starts_with(self.right),
        }
    }

    fn bad_character(&mut self) -> bool {
        let c = self.rest().chars().next().unwrap_or_default();
        self.error(format!("bad character {}", super::fmt::sharp_u(c)));
        false
    }

    #[inline]
    fn take_alphanumeric(&mut self) {
        let bytes = &self.input.as_bytes()[self.pos..];
        // ASCII first (nearly every name), then characters from the first other byte.
        let mut ascii = 0;
        while ascii < bytes.len() && ASCII_WORD[usize::from(bytes[ascii])] {
            ascii += 1;
        }
        let n = match bytes.get(ascii) {
            Some(b) if !b.is_ascii() => {
                let rest = &self.input[self.pos + ascii..];
                rest.char_indices()
                    .find(|(_, c)| !is_alphanumeric(*c))
                    .map_or(ascii + rest.len(), |(i, _)| ascii + i)
            }
            _ => ascii,
        };
        self.pos += n;
    }

    /// A `"…"` string or `'…'` character constant (escapes allowed, no newline). Read by bytes:
    /// the quote, `\\` and newline are ASCII, never part of another character's bytes.
    fn lex_quoted(&mut self, quote: u8, kind: Kind, unterminated: &str) -> bool {
        let bytes = self.input.as_bytes();
        let start = self.pos;
        let mut i = start + 1;
        loop {
            match bytes.get(i) {
                Some(&b) if b == quote => {
                    self.pos = i + 1;
                    self.emit(kind, start);
                    return true;
                }
                Some(b'\\') if !matches!(bytes.get(i + 1), None | Some(b'\n')) => i += 2,
                Some(b'\\' | b'\n') | None => {
                    self.error(unterminated);
                    return false;
                }
                Some(_) => i += 1,
            }
        }
    }

    /// A number as Go's lexer scans it (validated later by the parser); a second signed number
    /// ending in `i` right after it makes a complex constant (`1+2i`, no spaces).
    fn lex_number(&mut self) -> bool {
        let start = self.pos;
        let mut end = match self.scan_number(start) {
            Ok(end) => end,
            Err(bad) => return self.bad_number(start, bad),
        };
        let mut kind = Kind::Number;
        if matches!(self.input.as_bytes().get(end), Some(b'+' | b'-')) {
            end = match self.scan_number(end) {
                Ok(end) if self.input.as_bytes()[end - 1] == b'i' => end,
                Ok(end) | Err(end) => return self.bad_number(start, end),
            };
            kind = Kind::Complex;
        }
        self.pos = end;
        self.emit(kind, start);
        true
    }

    fn bad_number(&mut self, start: usize, end: usize) -> bool {
        self.pos = end;
        let text = &self.input[start..end];
        self.error(format!("bad number syntax: \"{text}\""));
        false
    }

    /// Go's `scanNumber` from `i`: the end of the number, or the end of the bad text when
    /// something alphanumeric follows it.
    fn scan_number(&self, mut i: usize) -> Result<usize, usize> {
        let bytes = self.input.as_bytes();
        if i < bytes.len() && (bytes[i] == b'+' || bytes[i] == b'-') {
            i += 1;
        }
        let mut digits: &[u8] = b"0123456789_";
        if i + 1 < bytes.len() && bytes[i] == b'0' {
            match bytes[i + 1] {
                b'x' | b'X' => {
                    i += 2;
                    digits = b"0123456789abcdefABCDEF_";
                }
                b'o' | b'O' => {
                    i += 2;
                    digits = b"01234567_";
                }
                b'b' | b'B' => {
                    i += 2;
                    digits = b"01_";
                }
                _ => {}
            }
        }
        let take = |i: &mut usize, set: &[u8]| {
            while *i < bytes.len() && set.contains(&bytes[*i]) {
                *i += 1;
            }
        };
        take(&mut i, digits);
        if i < bytes.len() && bytes[i] == b'.' {
            i += 1;
            take(&mut i, digits);
        }
        let hex = digits.len() > 12;
        if i < bytes.len()
            && (if hex {
                b"pP".contains(&bytes[i])
            } else {
                b"eE".contains(&bytes[i])
            })
        {
            i += 1;
            if i < bytes.len() && (bytes[i] == b'+' || bytes[i] == b'-') {
                i += 1;
            }
            take(&mut i, b"0123456789_");
        }
        if i < bytes.len() && bytes[i] == b'i' {
            i += 1;
        }
        // Something alphanumeric right after a number is a bad number.
        match self.input[i..]
            .chars()
            .next()
            .filter(|c| is_alphanumeric(*c))
        {
            Some(c) => Err(i + c.len_utf8()),
            None => Ok(i),
        }
    }
}

/// The ASCII bytes of names: letters, digits and `_`.
static ASCII_WORD: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 128 {
        table[b] = b == b'_' as usize || (b as u8).is_ascii_alphanumeric();
        b += 1;
    }
    table
};

fn is_alphanumeric(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_keywords_only_when_they_are_the_word() {
        for (word, kind) in [
            ("if", Kind::Keyword),
            ("end", Kind::Keyword),
            ("nil", Kind::Nil),
            ("else", Kind::Keyword),
            ("true", Kind::Bool),
            ("with", Kind::Keyword),
            ("break", Kind::Keyword),
            ("block", Kind::Keyword),
            ("false", Kind::Bool),
            ("range", Kind::Keyword),
            ("define", Kind::Keyword),
            ("continue", Kind::Keyword),
            ("template", Kind::Keyword),
        ] {
            assert_eq!(word_kind(word.as_bytes()), kind, "{word}");
            // The same length and first letter, another word: a function's name.
            let mut other = word.to_string();
            other.replace_range(word.len() - 1.., "X");
            assert_eq!(word_kind(other.as_bytes()), Kind::Identifier, "{other}");
            assert_eq!(
                word_kind(word.to_uppercase().as_bytes()),
                Kind::Identifier,
                "{word}"
            );
        }
        for name in [
            "in", "empty", "trunc", "default", "include", "tpl", "i", "é", "",
        ] {
            assert_eq!(word_kind(name.as_bytes()), Kind::Identifier, "{name}");
        }
    }

    #[test]
    fn a_comment_ends_at_the_first_star_slash() {
        let mut lexer = Lexer::new("a{{/* b * c / d */}}e{{/* f */ -}} g", "{{", "}}", 16);
        while lexer.lex_more() {}
        let comments: Vec<&str> = lexer
            .tokens
            .iter()
            .filter(|t| t.kind == Kind::Comment)
            .map(|t| t.text)
            .collect();
        assert_eq!(comments, ["/* b * c / d */", "/* f */"]);
        let mut open = Lexer::new("{{/* a * / b }}", "{{", "}}", 16);
        while open.lex_more() {}
        assert_eq!(open.error, "unclosed comment");
    }
}
