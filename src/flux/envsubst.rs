//! Flux's `${var}` substitution (`fluxcd/pkg/envsubst`, a fork of drone/envsubst), as
//! kustomize-controller's `postBuild` runs it: the parser (`parse/scan.go`, `parse/parse.go`),
//! the evaluator (`template.go`) and the string functions (`funcs.go`, `path/match.go`).
//!
//! Go strings are bytes, and so are the values here while they are evaluated: `${#v}` counts
//! bytes, `${v:1:2}` cuts bytes (possibly inside a character), and the `%`/`%%` and case
//! functions go through runes, where a byte that is not UTF-8 becomes U+FFFD. Only the final
//! text must be UTF-8 again (Go hands its bytes to a YAML parser that refuses them).

use std::sync::LazyLock;

/// Why a text could not be substituted. The wording of the parse errors and of the strict-mode
/// error is envsubst's own.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// `ErrBadSubstitution`.
    #[error("bad substitution")]
    BadSubstitution,
    /// `ErrMissingClosingBrace`: `${v` or an operator envsubst does not know (`${v-d}`).
    #[error("missing closing brace")]
    MissingClosingBrace,
    /// `ErrParseVariableName`: no name after `${` (`${}`, `${ v}`, `${.v}`).
    #[error("unable to parse variable name")]
    VariableName,
    /// `ErrParseFuncSubstitution`: an argument that is empty or never closed.
    #[error("unable to parse substitution within function")]
    FuncSubstitution,
    /// `ErrParseDefaultFunction`.
    #[error("unable to parse default function")]
    DefaultFunction,
    /// Strict mode: a variable without a value, used other than through a default operator.
    #[error("variable not set (strict mode): {}", crate::go::strconv::quote(.0))]
    NotSet(String),
    /// `${v:off:len}` whose end falls before its start: Go's slice expression panics.
    #[error("runtime error: slice bounds out of range [{0}]")]
    SliceBounds(String),
    /// `${…}` nested deeper than kdelta follows (Go's stack would grow instead).
    #[error("substitutions are nested more than {MAX_DEPTH} deep")]
    TooDeep,
    /// The result is not UTF-8: a substring or a pattern cut a character in two. Go passes the
    /// bytes on, and the YAML parser reading them back fails.
    #[error("the substituted text is not valid UTF-8 (a substring or pattern cut a character)")]
    NotUtf8,
}

/// How deep `${…}` may nest inside defaults and arguments.
const MAX_DEPTH: usize = 100;

/// Substitutes every `${…}` in `text`. `lookup` gives a variable's value; in `strict` mode a
/// variable it does not know is an error unless a default operator (`=`, `:=`, `:-`, …)
/// covers it, and otherwise it is the empty string.
pub fn substitute(
    text: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
    strict: bool,
) -> Result<String, Error> {
    let nodes = parse(text)?;
    let mut out = Vec::with_capacity(text.len());
    let eval = Eval { lookup, strict };
    for node in &nodes {
        eval.node(node, &mut out)?;
    }
    String::from_utf8(out).map_err(|_| Error::NotUtf8)
}

/// Flux's check of a variable name, `^[_[:alpha:]][_[:alpha:][:digit:]]*$` (ASCII classes),
/// made on every key of `substitute` and `substituteFrom`.
pub fn valid_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b == b'_' || b.is_ascii_alphabetic())
        && bytes.all(|b| b == b'_' || b.is_ascii_alphanumeric())
}

// ---------------------------------------------------------------------------------------------
// Parse tree

#[derive(Clone, Debug, PartialEq, Eq)]
enum Node {
    /// Text as written, after `$$` and the escapes of arguments are undone.
    Text(Vec<u8>),
    Func(Func),
}

/// `${param}`, or `${param NAME args}`: `NAME` is the operator as written (`:-`, `//`, `#`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
struct Func {
    param: String,
    name: String,
    args: Vec<Node>,
}

// ---------------------------------------------------------------------------------------------
// Scanner: a port of envsubst's, including the way it edits its buffer to drop an escape
// character and steps back by the width of the *last* character read.

/// envsubst's end-of-input rune is NUL, so a NUL in the text ends it too.
const EOF: char = '\0';

const SCAN_IDENT: u8 = 1;
const SCAN_LBRACK: u8 = 2;
const SCAN_RBRACK: u8 = 4;
const SCAN_ESCAPE: u8 = 8;

const ESCAPE_DOLLAR: u8 = 1;
const ESCAPE_BACKSLASH: u8 = 2;

/// Which runes a token may hold; `i` is the byte offset after the rune within the token.
#[derive(Clone, Copy)]
enum Accept {
    Any,
    Ident,
    Colon,
    OneHash,
    NotClosing,
    HashFunc,
    PercentFunc,
    DefaultFunc,
    ReplaceFunc,
    OneEqual,
    OneColon,
    RejectColonClose,
    Slash,
    NotSlash,
    CasingFunc,
}

impl Accept {
    fn accepts(self, r: char, i: usize) -> bool {
        match self {
            Accept::Any => true,
            Accept::Ident => is_ident_rune(r),
            Accept::Colon => r == ':',
            Accept::OneHash => r == '#' && i == 1,
            Accept::NotClosing => r != '}',
            Accept::HashFunc => r == '#' && i < 3,
            Accept::PercentFunc => r == '%' && i < 3,
            Accept::DefaultFunc => {
                (i == 1 && r == ':') || (i == 2 && matches!(r, '=' | '-' | '?' | '+'))
            }
            Accept::ReplaceFunc => (i == 1 && r == '/') || (i == 2 && matches!(r, '/' | '#' | '%')),
            Accept::OneEqual => i == 1 && r == '=',
            Accept::OneColon => i == 1 && r == ':',
            Accept::RejectColonClose => r != ':' && r != '}',
            Accept::Slash => r == '/',
            Accept::NotSlash => r != '/',
            Accept::CasingFunc => (r == ',' || r == '^') && i < 3,
        }
    }
}

/// Go's `unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'`: categories L and Nd, which
/// `char::is_alphabetic`/`is_numeric` are not.
fn is_ident_rune(r: char) -> bool {
    static IDENT: LazyLock<regex::Regex> =
        LazyLock::new(|| regex::Regex::new(r"^[\p{L}\p{Nd}_]$").expect("a valid constant pattern"));
    if r.is_ascii() {
        return r.is_ascii_alphanumeric() || r == '_';
    }
    IDENT.is_match(r.encode_utf8(&mut [0; 4]))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    Illegal,
    Eof,
    Ident,
    Lbrack,
    Rbrack,
}

struct Scanner {
    buf: Vec<u8>,
    pos: usize,
    start: usize,
    /// The width of the last rune read: what `unread` steps back, whatever was read.
    width: usize,
    mode: u8,
    escapes: u8,
    accept: Accept,
}

impl Scanner {
    fn read(&mut self) -> char {
        let Some(rest) = self.buf.get(self.pos..).filter(|r| !r.is_empty()) else {
            self.width = 0;
            return EOF;
        };
        let (r, w) = decode_rune(rest);
        self.width = w;
        self.pos += w;
        r
    }

    fn unread(&mut self) {
        self.pos = self.pos.saturating_sub(self.width);
    }

    /// Drops the escape character just read; the position stays, so the escaped character
    /// is now behind it and joins the token unchecked.
    fn skip(&mut self) {
        self.buf.remove(self.pos - 1);
    }

    fn peek(&mut self) -> char {
        let r = self.read();
        self.unread();
        r
    }

    fn string(&self) -> Vec<u8> {
        self.buf
            .get(self.start..self.pos)
            .map(<[u8]>::to_vec)
            .unwrap_or_default()
    }

    fn scan(&mut self) -> Token {
        self.start = self.pos;
        let r = self.read();
        if r == EOF {
            Token::Eof
        } else if self.scan_lbrack(r) {
            Token::Lbrack
        } else if self.scan_rbrack(r) {
            Token::Rbrack
        } else if self.scan_ident(r) {
            Token::Ident
        } else {
            Token::Illegal
        }
    }

    fn scan_ident(&mut self, r: char) -> bool {
        if self.mode & SCAN_IDENT == 0 {
            return false;
        }
        if self.scan_escaped(r) {
            self.skip();
        } else if !self.accept.accepts(r, self.pos - self.start) {
            return false;
        }
        loop {
            let r = self.read();
            if r == EOF {
                self.unread();
                break;
            }
            if self.scan_lbrack(r) {
                self.unread();
                self.unread();
                break;
            }
            if self.scan_escaped(r) {
                self.skip();
                continue;
            }
            if !self.accept.accepts(r, self.pos - self.start) {
                self.unread();
                break;
            }
        }
        true
    }

    fn scan_lbrack(&mut self, r: char) -> bool {
        if self.mode & SCAN_LBRACK == 0 || r != '$' {
            return false;
        }
        if self.read() == '{' {
            return true;
        }
        self.unread();
        false
    }

    fn scan_rbrack(&self, r: char) -> bool {
        self.mode & SCAN_RBRACK != 0 && r == '}'
    }

    fn scan_escaped(&mut self, r: char) -> bool {
        if self.mode & SCAN_ESCAPE == 0 {
            return false;
        }
        if r == '$' && self.escapes & ESCAPE_DOLLAR != 0 && self.peek() == '$' {
            return true;
        }
        r == '\\' && self.escapes & ESCAPE_BACKSLASH != 0 && matches!(self.peek(), '/' | '\\')
    }
}

// ---------------------------------------------------------------------------------------------
// Parser

fn parse(text: &str) -> Result<Vec<Node>, Error> {
    let mut p = Parser {
        s: Scanner {
            buf: text.as_bytes().to_vec(),
            pos: 0,
            start: 0,
            width: 0,
            mode: 0,
            escapes: 0,
            accept: Accept::Any,
        },
        depth: 0,
    };
    // `parseAny` recurses once per token; a loop gives the same sequence.
    let mut nodes = Vec::new();
    loop {
        p.s.accept = Accept::Any;
        p.s.mode = SCAN_IDENT | SCAN_LBRACK | SCAN_ESCAPE;
        p.s.escapes = ESCAPE_DOLLAR;
        match p.s.scan() {
            Token::Ident => nodes.push(Node::Text(p.s.string())),
            Token::Eof => return Ok(nodes),
            Token::Lbrack => nodes.push(Node::Func(p.func()?)),
            _ => return Err(Error::BadSubstitution),
        }
    }
}

struct Parser {
    s: Scanner,
    depth: usize,
}

impl Parser {
    /// `parseFunc`: what follows `${`.
    fn func(&mut self) -> Result<Func, Error> {
        if self.depth >= MAX_DEPTH {
            return Err(Error::TooDeep);
        }
        self.depth += 1;
        let f = self.func_body();
        self.depth -= 1;
        f
    }

    fn func_body(&mut self) -> Result<Func, Error> {
        self.s.escapes = ESCAPE_DOLLAR | ESCAPE_BACKSLASH;
        if self.s.peek() == '#' {
            return self.length();
        }
        self.s.accept = Accept::Ident;
        self.s.mode = SCAN_IDENT;
        let param = match self.s.scan() {
            Token::Ident => String::from_utf8_lossy(&self.s.string()).into_owned(),
            _ => return Err(Error::VariableName),
        };
        match self.s.peek() {
            ':' => self.default_or_substring(param),
            '=' => self.default(param),
            ',' | '^' => self.casing(param),
            '/' => self.replace(param),
            '#' => self.remove(param, Accept::HashFunc),
            '%' => self.remove(param, Accept::PercentFunc),
            _ => {
                self.s.accept = Accept::Ident;
                self.s.mode = SCAN_RBRACK;
                match self.s.scan() {
                    Token::Rbrack => Ok(Func {
                        param,
                        ..Func::default()
                    }),
                    _ => Err(Error::MissingClosingBrace),
                }
            }
        }
    }

    /// Scans the operator of a function into `f.name`.
    fn operator(&mut self, f: &mut Func, accept: Accept, err: Error) -> Result<(), Error> {
        self.s.accept = accept;
        self.s.mode = SCAN_IDENT;
        match self.s.scan() {
            Token::Ident => {
                f.name = String::from_utf8_lossy(&self.s.string()).into_owned();
                Ok(())
            }
            _ => Err(err),
        }
    }

    /// `parseParam`: one argument, a nested `${…}` or text.
    fn param(&mut self, accept: Accept, mode: u8) -> Result<Node, Error> {
        self.s.accept = accept;
        self.s.mode = mode | SCAN_LBRACK;
        match self.s.scan() {
            Token::Lbrack => Ok(Node::Func(self.func()?)),
            Token::Ident | Token::Rbrack => Ok(Node::Text(self.s.string())),
            _ => Err(Error::FuncSubstitution),
        }
    }

    fn default_or_substring(&mut self, param: String) -> Result<Func, Error> {
        // Steps over the `:` to look at what follows, then back by the width of *that* rune
        // (Go's `unread`): after a multi-byte rune the substring scan starts too early and
        // fails.
        self.s.read();
        let r = self.s.peek();
        self.s.unread();
        match r {
            '=' | '-' | '?' | '+' => self.default(param),
            _ => self.substring(param),
        }
    }

    /// `${v:offset}`, `${v:offset:length}`.
    fn substring(&mut self, param: String) -> Result<Func, Error> {
        let mut f = Func {
            param,
            ..Func::default()
        };
        self.operator(&mut f, Accept::OneColon, Error::BadSubstitution)?;
        f.args
            .push(self.param(Accept::RejectColonClose, SCAN_IDENT)?);
        self.s.accept = Accept::Colon;
        self.s.mode = SCAN_IDENT | SCAN_RBRACK;
        match self.s.scan() {
            Token::Rbrack => return Ok(f),
            Token::Ident => {}
            _ => return Err(Error::BadSubstitution),
        }
        f.args.push(self.param(Accept::NotClosing, SCAN_IDENT)?);
        self.close()?;
        Ok(f)
    }

    /// `${v#p}`, `${v##p}`, `${v%p}`, `${v%%p}`.
    fn remove(&mut self, param: String, accept: Accept) -> Result<Func, Error> {
        let mut f = Func {
            param,
            ..Func::default()
        };
        self.operator(&mut f, accept, Error::BadSubstitution)?;
        f.args.push(self.param(Accept::NotClosing, SCAN_IDENT)?);
        self.close()?;
        Ok(f)
    }

    /// `${v/p/r}`, `${v//p/r}`, `${v/#p/r}`, `${v/%p/r}`, the replacement optional.
    fn replace(&mut self, param: String) -> Result<Func, Error> {
        let mut f = Func {
            param,
            ..Func::default()
        };
        self.operator(&mut f, Accept::ReplaceFunc, Error::BadSubstitution)?;
        f.args
            .push(self.param(Accept::NotSlash, SCAN_IDENT | SCAN_ESCAPE)?);
        self.s.accept = Accept::Slash;
        self.s.mode = SCAN_IDENT;
        if self.s.scan() != Token::Ident {
            return Err(Error::BadSubstitution);
        }
        if self.s.peek() != '}' {
            f.args
                .push(self.param(Accept::NotClosing, SCAN_IDENT | SCAN_ESCAPE)?);
        }
        self.close()?;
        Ok(f)
    }

    /// `${v=d}`, `${v:=d}`, `${v:-d}`, `${v:?d}`, `${v:+d}`: the default is any number of
    /// texts and nested `${…}`.
    fn default(&mut self, param: String) -> Result<Func, Error> {
        let mut f = Func {
            param,
            ..Func::default()
        };
        let accept = if self.s.peek() == '=' {
            Accept::OneEqual
        } else {
            Accept::DefaultFunc
        };
        self.operator(&mut f, accept, Error::DefaultFunction)?;
        while self.s.peek() != '}' {
            f.args.push(self.param(Accept::NotClosing, SCAN_IDENT)?);
        }
        self.close()?;
        Ok(f)
    }

    /// `${v,}`, `${v,,}`, `${v^}`, `${v^^}` (and mixes such as `${v,^}`, which change nothing).
    fn casing(&mut self, param: String) -> Result<Func, Error> {
        let mut f = Func {
            param,
            ..Func::default()
        };
        self.operator(&mut f, Accept::CasingFunc, Error::BadSubstitution)?;
        self.close()?;
        Ok(f)
    }

    /// `${#v}`.
    fn length(&mut self) -> Result<Func, Error> {
        let mut f = Func::default();
        self.operator(&mut f, Accept::OneHash, Error::BadSubstitution)?;
        self.s.accept = Accept::Ident;
        self.s.mode = SCAN_IDENT;
        if self.s.scan() != Token::Ident {
            return Err(Error::BadSubstitution);
        }
        f.param = String::from_utf8_lossy(&self.s.string()).into_owned();
        self.close()?;
        Ok(f)
    }

    /// `consumeRbrack`.
    fn close(&mut self) -> Result<(), Error> {
        self.s.mode = SCAN_RBRACK;
        match self.s.scan() {
            Token::Rbrack => Ok(()),
            _ => Err(Error::BadSubstitution),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Evaluation

struct Eval<'a> {
    lookup: &'a dyn Fn(&str) -> Option<String>,
    strict: bool,
}

impl Eval<'_> {
    fn node(&self, node: &Node, out: &mut Vec<u8>) -> Result<(), Error> {
        match node {
            Node::Text(t) => out.extend_from_slice(t),
            Node::Func(f) => out.extend_from_slice(&self.func(f)?),
        }
        Ok(())
    }

    fn func(&self, f: &Func) -> Result<Vec<u8>, Error> {
        // Arguments first: an error inside a default surfaces before the variable's own.
        let mut args = Vec::with_capacity(f.args.len());
        for a in &f.args {
            let mut buf = Vec::new();
            self.node(a, &mut buf)?;
            args.push(buf);
        }
        let value = match (self.lookup)(&f.param) {
            Some(v) => v.into_bytes(),
            None if self.strict && !is_default_op(&f.name) => {
                return Err(Error::NotSet(f.param.clone()))
            }
            None => Vec::new(),
        };
        apply(&f.name, value, &args)
    }
}

/// The operators that supply their own value for an unset variable, exempt from strict mode.
fn is_default_op(name: &str) -> bool {
    matches!(name, "-" | "+" | "=" | "?" | ":-" | ":+" | ":=" | ":?")
}

/// `lookupFunc` and the function it picks. Every default operator, and any operator it does
/// not know, is `toDefault`: "empty or unset gives the default".
fn apply(name: &str, s: Vec<u8>, args: &[Vec<u8>]) -> Result<Vec<u8>, Error> {
    let arg = |i: usize| args.get(i).map(Vec::as_slice);
    Ok(match name {
        "," => map_first(&s, simple_lower),
        ",," => map_runes(&s, simple_lower),
        "^" => map_first(&s, simple_upper),
        "^^" => map_runes(&s, simple_upper),
        "#" if args.is_empty() => s.len().to_string().into_bytes(),
        "#" => trim_prefix(&s, args[0].as_slice(), false),
        "##" => match arg(0) {
            Some(p) => trim_prefix(&s, p, true),
            None => s,
        },
        "%" | "%%" => match arg(0) {
            Some(p) => trim_suffix(&s, p, name == "%%"),
            None => s,
        },
        ":" => substring(s, args)?,
        "/#" => match (arg(0), arg(1), args.len()) {
            (Some(p), Some(r), 2) if s.starts_with(p) => replace(&s, p, r, Some(1)),
            _ => s,
        },
        "/%" => match (arg(0), arg(1), args.len()) {
            (Some(p), Some(r), 2) if s.ends_with(p) => [&s[..s.len() - p.len()], r].concat(),
            _ => s,
        },
        "/" | "//" => {
            let n = if name == "/" { Some(1) } else { None };
            match arg(0) {
                Some(p) => replace(&s, p, arg(1).unwrap_or(b""), n),
                None => s,
            }
        }
        _ if s.is_empty() && !args.is_empty() => args.concat(),
        _ => s,
    })
}

/// `toSubstr`, on bytes. An offset or length that is not a number gives the value unchanged
/// (so `${env:FOO}` is `${env}`).
fn substring(s: Vec<u8>, args: &[Vec<u8>]) -> Result<Vec<u8>, Error> {
    let Some(first) = args.first() else {
        return Ok(s);
    };
    let Some(mut pos) = atoi(first) else {
        return Ok(s);
    };
    let n = s.len() as i64;
    if pos < 0 {
        pos = (n + pos).max(0);
    }
    let rest = |pos: i64| {
        if pos < n {
            s[pos as usize..].to_vec()
        } else {
            Vec::new()
        }
    };
    let Some(second) = args.get(1) else {
        return Ok(rest(pos));
    };
    let Some(length) = atoi(second) else {
        return Ok(s);
    };
    // Go's int arithmetic wraps.
    let end = pos.wrapping_add(length);
    if end >= n {
        return Ok(rest(pos));
    }
    if end < 0 {
        return Err(Error::SliceBounds(format!(":{end}")));
    }
    if end < pos {
        return Err(Error::SliceBounds(format!("{pos}:{end}")));
    }
    Ok(s[pos as usize..end as usize].to_vec())
}

/// Go's `strconv.Atoi`: an optional sign and decimal digits that fit an int64.
fn atoi(b: &[u8]) -> Option<i64> {
    std::str::from_utf8(b).ok()?.parse().ok()
}

/// `trimShortest`/`trimLongest`: the shortest or longest prefix the pattern matches (never
/// the empty one) removed; a bad pattern leaves the value as it is.
fn trim_prefix(s: &[u8], pattern: &[u8], longest: bool) -> Vec<u8> {
    let mut cut = 0;
    for end in (1..=s.len()).rev() {
        match glob_match(pattern, &s[..end]) {
            Err(BadPattern) => return s.to_vec(),
            Ok(true) => {
                cut = end;
                if longest {
                    break;
                }
            }
            Ok(false) => {}
        }
    }
    s[cut..].to_vec()
}

/// `%` and `%%`: the prefix functions on the value and the pattern both reversed rune by rune
/// (so `%.*` is `#*.` on the reversed value, and the value goes through runes).
fn trim_suffix(s: &[u8], pattern: &[u8], longest: bool) -> Vec<u8> {
    reverse(&trim_prefix(&reverse(s), &reverse(pattern), longest))
}

/// Go's `strings.Replace` with `n` replacements (`None`: all). An empty pattern matches
/// before every rune and at the end.
fn replace(s: &[u8], old: &[u8], new: &[u8], n: Option<usize>) -> Vec<u8> {
    if old == new || n == Some(0) {
        return s.to_vec();
    }
    let count = if old.is_empty() {
        runes(s).len() + 1
    } else {
        memchr::memmem::find_iter(s, old).count()
    };
    if count == 0 {
        return s.to_vec();
    }
    let n = n.map_or(count, |n| n.min(count));
    let mut out = Vec::with_capacity(s.len());
    let mut start = 0;
    for i in 0..n {
        let mut j = start;
        if old.is_empty() {
            if i > 0 {
                j += decode_rune(&s[start..]).1;
            }
        } else {
            j += memchr::memmem::find(&s[start..], old).expect("counted above");
        }
        out.extend_from_slice(&s[start..j]);
        out.extend_from_slice(new);
        start = j + old.len();
    }
    out.extend_from_slice(&s[start..]);
    out
}

// ---------------------------------------------------------------------------------------------
// Go's view of bytes as runes

/// `utf8.DecodeRune`: the rune at the start and its width; a byte that does not start a valid
/// sequence is U+FFFD of width 1 (width 0 for no bytes).
fn decode_rune(b: &[u8]) -> (char, usize) {
    let Some(&first) = b.first() else {
        return (char::REPLACEMENT_CHARACTER, 0);
    };
    let n = match first {
        0x00..=0x7f => 1,
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return (char::REPLACEMENT_CHARACTER, 1),
    };
    match b.get(..n).and_then(|s| std::str::from_utf8(s).ok()) {
        Some(s) => (s.chars().next().expect("n bytes of UTF-8 hold a rune"), n),
        None => (char::REPLACEMENT_CHARACTER, 1),
    }
}

/// `[]rune(s)`.
fn runes(mut b: &[u8]) -> Vec<char> {
    let mut out = Vec::with_capacity(b.len());
    while !b.is_empty() {
        let (r, w) = decode_rune(b);
        out.push(r);
        b = &b[w..];
    }
    out
}

fn reverse(b: &[u8]) -> Vec<u8> {
    runes(b).into_iter().rev().collect::<String>().into_bytes()
}

/// `strings.Map`: every rune mapped, bytes that are not UTF-8 become U+FFFD.
fn map_runes(b: &[u8], f: fn(char) -> char) -> Vec<u8> {
    runes(b).into_iter().map(f).collect::<String>().into_bytes()
}

/// The first rune mapped, the rest left as bytes.
fn map_first(b: &[u8], f: fn(char) -> char) -> Vec<u8> {
    if b.is_empty() {
        return Vec::new();
    }
    let (r, w) = decode_rune(b);
    let mut out = f(r).to_string().into_bytes();
    out.extend_from_slice(&b[w..]);
    out
}

/// `unicode.ToUpper`: Unicode's simple (one-rune) mapping; a rune whose uppercase is several
/// runes (`ß`) stays as it is.
fn simple_upper(c: char) -> char {
    let mut up = c.to_uppercase();
    match (up.next(), up.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

/// `unicode.ToLower`: the simple mapping (`İ` is `i`, where Rust's full mapping adds a dot).
fn simple_lower(c: char) -> char {
    if c == '\u{130}' {
        return 'i';
    }
    let mut low = c.to_lowercase();
    match (low.next(), low.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

// ---------------------------------------------------------------------------------------------
// Patterns (`envsubst/path/match.go`): Go's `path.Match` where `*` and `?` also match `/` and
// a trailing `*` matches everything left.

struct BadPattern;

fn glob_match(mut pattern: &[u8], mut name: &[u8]) -> Result<bool, BadPattern> {
    'pattern: while !pattern.is_empty() {
        let (star, chunk, rest) = scan_chunk(pattern);
        pattern = rest;
        if star && chunk.is_empty() {
            return Ok(true);
        }
        match match_chunk(chunk, name)? {
            // The last chunk must use up the name, or a star may still find a later match.
            Some(t) if t.is_empty() || !pattern.is_empty() => {
                name = t;
                continue;
            }
            _ => {}
        }
        if star {
            for i in 0..name.len() {
                if let Some(t) = match_chunk(chunk, &name[i + 1..])? {
                    if pattern.is_empty() && !t.is_empty() {
                        continue;
                    }
                    name = t;
                    continue 'pattern;
                }
            }
        }
        return Ok(false);
    }
    Ok(name.is_empty())
}

/// The next chunk: leading stars, then the text up to a star outside `[…]`.
fn scan_chunk(mut pattern: &[u8]) -> (bool, &[u8], &[u8]) {
    let mut star = false;
    while let Some(rest) = pattern.strip_prefix(b"*") {
        pattern = rest;
        star = true;
    }
    let mut in_range = false;
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            b'\\' if i + 1 < pattern.len() => i += 1,
            b'[' => in_range = true,
            b']' => in_range = false,
            b'*' if !in_range => break,
            _ => {}
        }
        i += 1;
    }
    (star, &pattern[..i], &pattern[i..])
}

/// Matches a chunk at the start of `s`: the rest of `s` when it does, `None` when it does not.
fn match_chunk<'s>(mut chunk: &[u8], mut s: &'s [u8]) -> Result<Option<&'s [u8]>, BadPattern> {
    while let Some(&c) = chunk.first() {
        if s.is_empty() {
            return Ok(None);
        }
        match c {
            b'[' => {
                let (r, n) = decode_rune(s);
                s = &s[n..];
                chunk = &chunk[1..];
                let negated = chunk.first() == Some(&b'^');
                if negated {
                    chunk = &chunk[1..];
                }
                let mut matched = false;
                let mut ranges = 0;
                loop {
                    if ranges > 0 && chunk.first() == Some(&b']') {
                        chunk = &chunk[1..];
                        break;
                    }
                    let (lo, rest) = class_char(chunk)?;
                    chunk = rest;
                    let mut hi = lo;
                    if chunk[0] == b'-' {
                        (hi, chunk) = class_char(&chunk[1..])?;
                    }
                    if lo <= r && r <= hi {
                        matched = true;
                    }
                    ranges += 1;
                }
                if matched == negated {
                    return Ok(None);
                }
            }
            b'?' => {
                s = &s[decode_rune(s).1..];
                chunk = &chunk[1..];
            }
            _ => {
                if c == b'\\' {
                    chunk = &chunk[1..];
                    if chunk.is_empty() {
                        return Err(BadPattern);
                    }
                }
                if chunk[0] != s[0] {
                    return Ok(None);
                }
                s = &s[1..];
                chunk = &chunk[1..];
            }
        }
    }
    Ok(Some(s))
}

/// `getEsc`: a possibly escaped character of a class; the class may not end after it.
fn class_char(mut chunk: &[u8]) -> Result<(char, &[u8]), BadPattern> {
    match chunk.first() {
        None | Some(b'-') | Some(b']') => return Err(BadPattern),
        Some(b'\\') => {
            chunk = &chunk[1..];
            if chunk.is_empty() {
                return Err(BadPattern);
            }
        }
        _ => {}
    }
    let (r, n) = decode_rune(chunk);
    let rest = &chunk[n..];
    if (r == char::REPLACEMENT_CHARACTER && n == 1) || rest.is_empty() {
        return Err(BadPattern);
    }
    Ok((r, rest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn vars(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn run(input: &str, pairs: &[(&str, &str)], strict: bool) -> Result<String, Error> {
        let vars = vars(pairs);
        substitute(input, &|name| vars.get(name).cloned(), strict)
    }

    fn eval(input: &str, pairs: &[(&str, &str)]) -> String {
        run(input, pairs, false).unwrap_or_else(|e| panic!("{input}: {e}"))
    }

    /// `eval_test.go: TestExpand`, whose mapper reports every variable as set.
    #[test]
    fn upstream_expand() {
        let z = [("stringZ", "abcABC123ABCabc")];
        let file = [("filename", "bash.string.txt")];
        let path = [("path_name", "/home/bozo/ideas/thoughts.for.today")];
        let lower = [("var01", "abcdEFGH28ij")];
        let upper = [("var01", "ABCDEFGH28IJ")];
        type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str);
        let cases: &[Case] = &[
            ("abcdEFGH28ij", &[], "abcdEFGH28ij"),
            ("${#var01}", &lower, "12"),
            ("${var01^}", &lower, "AbcdEFGH28ij"),
            ("${var01^^}", &lower, "ABCDEFGH28IJ"),
            ("${var01,}", &upper, "aBCDEFGH28IJ"),
            ("${var01,,}", &upper, "abcdefgh28ij"),
            ("${path_name:11}", &path, "ideas/thoughts.for.today"),
            ("${path_name:11:5}", &path, "ideas"),
            ("${var=xyz}", &[("var", "abc")], "abc"),
            ("${var=xyz}", &[], "xyz"),
            (
                "something ${var=${default_var}}",
                &[("default_var", "foo")],
                "something foo",
            ),
            (
                "foo: ${var=${default_var}-suffix}",
                &[("default_var", "foo1")],
                "foo: foo1-suffix",
            ),
            (
                "foo: ${var=prefix${default_var}-suffix}",
                &[("default_var", "foo1")],
                "foo: prefixfoo1-suffix",
            ),
            ("${var:=xyz}", &[], "xyz"),
            ("${stringZ/%abc/XYZ}", &z, "abcABC123ABCXYZ"),
            ("${stringZ/#abc/XYZ}", &z, "XYZABC123ABCabc"),
            ("${stringZ//abc/xyz}", &z, "xyzABC123ABCxyz"),
            ("${stringZ/abc/xyz}", &z, "xyzABC123ABCabc"),
            ("${filename#*.}", &file, "string.txt"),
            ("${filename#*/}", &[("filename", "path/to/file")], "to/file"),
            (
                "${filename#*/}",
                &[("filename", "/path/to/file")],
                "path/to/file",
            ),
            ("${filename##*.}", &file, "txt"),
            ("${filename##*/}", &[("filename", "path/to/file")], "file"),
            ("${filename##*/}", &[("filename", "/path/to/file")], "file"),
            ("${filename%.*}", &file, "bash.string"),
            ("${filename%%.*}", &file, "bash"),
            ("${var=${var01^^}}", &lower, "ABCDEFGH28IJ"),
            ("$${var01}", &lower, "${var01}"),
            (
                "some text ${var01}$${var$${var01}$var01${var01}",
                &lower,
                "some text abcdEFGH28ij${var${var01}$var01abcdEFGH28ij",
            ),
            (
                "something $${var=${default_var}}",
                &[("default_var", "foo")],
                "something ${var=foo}",
            ),
            (r"${stringZ/\//-}", &[("stringZ", "foo/bar")], "foo-bar"),
            (
                r"${stringZ//\//-}",
                &[("stringZ", "foo/bar/baz")],
                "foo-bar-baz",
            ),
            (
                "\\\\something ${var=${default_var}}",
                &[("default_var", "foo")],
                "\\\\something foo",
            ),
            ("${stringZ/./}", &[("stringZ", "foo.bar")], "foobar"),
        ];
        for (input, pairs, want) in cases {
            assert_eq!(eval(input, pairs), *want, "{input}");
        }
    }

    /// `eval_test.go: TestExpandStrict`.
    #[test]
    fn upstream_expand_strict() {
        assert_eq!(run("abcdEFGH28ij", &[], true).unwrap(), "abcdEFGH28ij");
        assert_eq!(run("${foo}", &[("foo", "bar")], true).unwrap(), "bar");
        assert_eq!(run("${foo}", &[("foo", "")], true).unwrap(), "");
        for input in [
            "${missing}",
            "${#missing}",
            "${missing^}",
            "${missing^^}",
            "${missing,}",
            "${missing,,}",
            "${missing:0}",
            "${missing:0:10}",
            "${missing/pattern/replacement}",
            "${missing//pattern/replacement}",
            "${missing/#pattern/replacement}",
            "${missing/%pattern/replacement}",
            "${missing#pattern}",
            "${missing##pattern}",
            "${missing%pattern}",
            "${missing%%pattern}",
        ] {
            assert_eq!(
                run(input, &[], true),
                Err(Error::NotSet("missing".into())),
                "{input}"
            );
        }
        assert_eq!(
            run("${missing}", &[], true).unwrap_err().to_string(),
            r#"variable not set (strict mode): "missing""#
        );
        for (input, want) in [
            ("${missing:=default}", "default"),
            ("${missing:-fallback}", "fallback"),
            ("${missing:=assigned}", "assigned"),
            ("${missing=assigned}", "assigned"),
            // `:+` and `:?` parse, and behave as `:-`.
            ("${missing:+alt}", "alt"),
            ("${missing:?msg}", "msg"),
        ] {
            assert_eq!(
                run(input, &[("foo", "bar")], true).unwrap(),
                want,
                "{input}"
            );
        }
        // The default is evaluated first, so its own missing variable is the one reported.
        assert_eq!(run("${a:-${b}}", &[], true), Err(Error::NotSet("b".into())));
    }

    fn text(s: &str) -> Node {
        Node::Text(s.as_bytes().to_vec())
    }

    fn func(param: &str, name: &str, args: Vec<Node>) -> Node {
        Node::Func(Func {
            param: param.into(),
            name: name.into(),
            args,
        })
    }

    /// `parse/parse_test.go` (its `ListNode`s flattened).
    #[test]
    fn upstream_parse() {
        let one = |s: &str| vec![text(s)];
        let var = |p: &str| func(p, "", vec![]);
        let cases: Vec<(&str, Vec<Node>)> = vec![
            ("text", one("text")),
            ("}text", one("}text")),
            ("http://github.com", one("http://github.com")),
            ("$${string}", one("${string}")),
            ("$$string", one("$string")),
            (r"\\.\pipe\pipename", one(r"\\.\pipe\pipename")),
            ("${string}", vec![var("string")]),
            ("${string,}", vec![func("string", ",", vec![])]),
            ("${string,,}", vec![func("string", ",,", vec![])]),
            ("${string^}", vec![func("string", "^", vec![])]),
            ("${string^^}", vec![func("string", "^^", vec![])]),
            (
                "${string:position}",
                vec![func("string", ":", one("position"))],
            ),
            (
                "${string:position:length}",
                vec![func("string", ":", vec![text("position"), text("length")])],
            ),
            (
                "${string#substring}",
                vec![func("string", "#", one("substring"))],
            ),
            (
                "${string##substring}",
                vec![func("string", "##", one("substring"))],
            ),
            (
                "${string%substring}",
                vec![func("string", "%", one("substring"))],
            ),
            (
                "${string%%substring}",
                vec![func("string", "%%", one("substring"))],
            ),
            (
                "${string/substring/replacement}",
                vec![func(
                    "string",
                    "/",
                    vec![text("substring"), text("replacement")],
                )],
            ),
            (
                "${string//substring/replacement}",
                vec![func(
                    "string",
                    "//",
                    vec![text("substring"), text("replacement")],
                )],
            ),
            (
                "${string/#substring/replacement}",
                vec![func(
                    "string",
                    "/#",
                    vec![text("substring"), text("replacement")],
                )],
            ),
            (
                "${string/%substring/replacement}",
                vec![func(
                    "string",
                    "/%",
                    vec![text("substring"), text("replacement")],
                )],
            ),
            (
                "${string=default}",
                vec![func("string", "=", one("default"))],
            ),
            (
                "${string:=default}",
                vec![func("string", ":=", one("default"))],
            ),
            (
                "${string:-default}",
                vec![func("string", ":-", one("default"))],
            ),
            (
                "${string:?default}",
                vec![func("string", ":?", one("default"))],
            ),
            (
                "${string:+default}",
                vec![func("string", ":+", one("default"))],
            ),
            ("${#string}", vec![func("string", "#", vec![])]),
            ("${string#$%:*{}", vec![func("string", "#", one("$%:*{"))]),
            (
                "hello ${#string} world",
                vec![text("hello "), func("string", "#", vec![]), text(" world")],
            ),
            (
                r"\\ hello ${#string} world \\",
                vec![
                    text(r"\\ hello "),
                    func("string", "#", vec![]),
                    text(r" world \\"),
                ],
            ),
            (
                r"${string/\/position/length}",
                vec![func("string", "/", vec![text("/position"), text("length")])],
            ),
            (
                r"${string/\/position\\/length}",
                vec![func(
                    "string",
                    "/",
                    vec![text(r"/position\"), text("length")],
                )],
            ),
            (
                r"${string/position/\/length}",
                vec![func("string", "/", vec![text("position"), text("/length")])],
            ),
            (
                r"${string/position/\/length\\}",
                vec![func(
                    "string",
                    "/",
                    vec![text("position"), text(r"/length\")],
                )],
            ),
            (
                r"${string/position/\/leng\\th}",
                vec![func(
                    "string",
                    "/",
                    vec![text("position"), text(r"/leng\th")],
                )],
            ),
            (
                "${string:${position}}",
                vec![func("string", ":", vec![var("position")])],
            ),
            (
                "${string:${stringy:position:length}:${stringz,,}}",
                vec![func(
                    "string",
                    ":",
                    vec![
                        func("stringy", ":", vec![text("position"), text("length")]),
                        func("stringz", ",,", vec![]),
                    ],
                )],
            ),
            (
                "${string#${stringz}}",
                vec![func("string", "#", vec![var("stringz")])],
            ),
            (
                "${string=${stringz}}",
                vec![func("string", "=", vec![var("stringz")])],
            ),
            (
                "${string=prefix-${var}}",
                vec![func("string", "=", vec![text("prefix-"), var("var")])],
            ),
            (
                "${string=${var}-suffix}",
                vec![func("string", "=", vec![var("var"), text("-suffix")])],
            ),
            (
                "${string=prefix-${var}-suffix}",
                vec![func(
                    "string",
                    "=",
                    vec![text("prefix-"), var("var"), text("-suffix")],
                )],
            ),
            (
                "${string=prefix${var} suffix}",
                vec![func(
                    "string",
                    "=",
                    vec![text("prefix"), var("var"), text(" suffix")],
                )],
            ),
            (
                "${string//${stringy}/${stringz}}",
                vec![func("string", "//", vec![var("stringy"), var("stringz")])],
            ),
        ];
        for (input, want) in cases {
            assert_eq!(parse(input).unwrap(), want, "{input}");
        }
    }

    /// `funcs_test.go`.
    #[test]
    fn upstream_funcs() {
        let sub = |s: &str, args: &[&str]| {
            let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
            String::from_utf8(substring(s.as_bytes().to_vec(), &args).unwrap()).unwrap()
        };
        let digits = "123456789123456789";
        assert_eq!(sub(digits, &["0", "8"]), "12345678");
        assert_eq!(sub(digits, &["1", "8"]), "23456789");
        assert_eq!(sub(digits, &["9"]), "123456789");
        assert_eq!(sub(digits, &["9", "50"]), "123456789");
        assert_eq!(sub(digits, &["-3", "2"]), "78");
        assert_eq!(sub(digits, &["-300", "3"]), "123");
        assert_eq!(sub("12345678", &["9", "1"]), "");
        assert_eq!(eval("${v,}${v^}", &[("v", "")]), "");
        let hola = apply(
            ":-",
            Vec::new(),
            &[b"Hola Mundo".to_vec(), b"-Bonjour".to_vec()],
        )
        .unwrap();
        assert_eq!(hola, b"Hola Mundo-Bonjour");
    }

    #[test]
    fn defaults_treat_empty_as_unset() {
        for op in ["=", ":=", ":-", ":+", ":?"] {
            let input = format!("${{v{op}d}}");
            assert_eq!(eval(&input, &[("v", "")]), "d", "{input}");
            assert_eq!(eval(&input, &[("v", "x")]), "x", "{input}");
            assert_eq!(eval(&input, &[]), "d", "{input}");
        }
        // Without strict mode an unset variable is empty.
        assert_eq!(eval("a${v}b", &[]), "ab");
    }

    #[test]
    fn only_braces_substitute() {
        let v = [("v", "x")];
        assert_eq!(eval("$v ${v} $", &v), "$v x $");
        assert_eq!(eval("$$v $${v} $$$", &v), "$v ${v} $$");
        assert_eq!(eval("$$${v}", &v), "$x");
        // Inside a default `$$` is not an escape; inside a replacement it is.
        assert_eq!(eval("${u:-$$}", &v), "$$");
        assert_eq!(eval("${v/x/$$}", &v), "$");
        assert_eq!(eval(r"a\b \${v}", &v), r"a\b \x");
        // A NUL is envsubst's end of input: the rest of the text is dropped.
        assert_eq!(eval("a${v}\0b${v}", &v), "ax");
    }

    #[test]
    fn parse_errors() {
        for (input, want) in [
            ("${", Error::VariableName),
            ("${}", Error::VariableName),
            ("${ v}", Error::VariableName),
            ("${.v}", Error::VariableName),
            ("${v", Error::MissingClosingBrace),
            ("${v-d}", Error::MissingClosingBrace),
            ("${v+d}", Error::MissingClosingBrace),
            ("${v?d}", Error::MissingClosingBrace),
            ("${v.x}", Error::MissingClosingBrace),
            ("${v:-d", Error::FuncSubstitution),
            ("${v:}", Error::FuncSubstitution),
            ("${v#}", Error::FuncSubstitution),
            ("${v/a}", Error::BadSubstitution),
            ("${v//x}", Error::BadSubstitution),
            ("${v^x}", Error::BadSubstitution),
            ("${v#a${b}}", Error::BadSubstitution),
            ("${v:1${p}}", Error::BadSubstitution),
            ("${v:", Error::BadSubstitution),
            ("${##v}", Error::BadSubstitution),
            // The `:` lookahead steps back by the width of the rune after it.
            ("${v:é}", Error::BadSubstitution),
        ] {
            assert_eq!(
                run(input, &[("v", "x")], false),
                Err(want.clone()),
                "{input}"
            );
        }
        assert_eq!(
            Error::VariableName.to_string(),
            "unable to parse variable name"
        );
        assert_eq!(
            Error::MissingClosingBrace.to_string(),
            "missing closing brace"
        );
        let deep = "${a:-".repeat(MAX_DEPTH + 1);
        assert_eq!(run(&deep, &[], false), Err(Error::TooDeep));
        let deepest = "${a:-".repeat(MAX_DEPTH) + "x" + &"}".repeat(MAX_DEPTH);
        assert_eq!(eval(&deepest, &[]), "x");
    }

    #[test]
    fn quirks_of_the_operators() {
        let v = [("v", "abcabc")];
        // A non-numeric offset leaves the value as it is: `${env:FOO}` is `${env}`.
        assert_eq!(eval("${env:FOO}", &[("env", "prod")]), "prod");
        assert_eq!(eval("${v:1:2}", &v), "bc");
        // `:-` is a default, so a negative offset needs another spelling, and Atoi refuses
        // a space.
        assert_eq!(eval("${v:-2}", &v), "abcabc");
        assert_eq!(eval("${v:${n}}", &[("v", "abcabc"), ("n", "-2")]), "bc");
        assert_eq!(eval("${v: -2}", &v), "abcabc");
        assert_eq!(eval("${v:+3:1}", &v), "abcabc");
        assert_eq!(eval("${v:${n}:1}", &[("v", "abcabc"), ("n", "+3")]), "a");
        assert_eq!(eval("${v:2::2}", &v), "ca");
        assert_eq!(eval("${v:10}", &v), "");
        assert_eq!(
            run("${v:4:-2}", &v, false),
            Err(Error::SliceBounds("4:2".into()))
        );
        assert_eq!(
            run("${v:0:-1}", &v, false),
            Err(Error::SliceBounds(":-1".into()))
        );
        // `/#` and `/%` need a replacement; `/` and `//` do not.
        assert_eq!(eval("${v/#abc/}", &v), "abcabc");
        assert_eq!(eval("${v/%abc/}", &v), "abcabc");
        assert_eq!(eval("${v/abc/}", &v), "abc");
        assert_eq!(eval("${v//abc/}", &v), "");
        // Several slashes between the arguments are one delimiter.
        assert_eq!(eval("${v/a//b}", &v), "bbcabc");
        // Patterns of `/` are plain text, those of `#` and `%` globs.
        assert_eq!(eval("${v/a*/x}", &v), "abcabc");
        assert_eq!(eval("${v#a?c}", &v), "abc");
        assert_eq!(eval("${v##*[b]}", &v), "c");
        assert_eq!(eval("${v#[^x]}", &v), "bcabc");
        // `%` reverses the pattern too, so a class must be written backwards.
        assert_eq!(eval("${v%[^x]}", &v), "abcabc");
        assert_eq!(eval("${w%]b[}", &[("w", "abcab")]), "abca");
        assert_eq!(eval("${v#[}", &v), "abcabc");
        // `*` crosses `/`.
        assert_eq!(eval("${p%/*}", &[("p", "a/b/c")]), "a/b");
        assert_eq!(eval("${p%%/*}", &[("p", "a/b/c")]), "a");
        // An empty pattern (from a variable) matches before every rune.
        assert_eq!(eval("${v//${e}/-}", &v), "-a-b-c-a-b-c-");
        assert_eq!(eval("${v/${e}/-}", &v), "-abcabc");
        // Mixed casing operators are a plain reference.
        assert_eq!(eval("${v,^}", &v), "abcabc");
        assert_eq!(eval("${v:=a}${v=}", &v), "abcabcabcabc");
        assert_eq!(eval("${u:=a${w:-b}c}", &[]), "abc");
    }

    #[test]
    fn bytes_as_go_sees_them() {
        let v = [("v", "héllo")];
        assert_eq!(eval("${#v}", &v), "6");
        assert_eq!(eval("${v:0:3}", &v), "hé");
        // Halves of a character joined again are text again.
        assert_eq!(eval("${v:0:2}${v:2}", &v), "héllo");
        assert_eq!(run("${v:0:2}", &v, false), Err(Error::NotUtf8));
        // `%` goes through runes: a cut character becomes U+FFFD.
        assert_eq!(eval("${w%x}", &[("w", "é")]), "é");
        assert_eq!(eval("${v^^}", &v), "HÉLLO");
        assert_eq!(eval("${s^^}", &[("s", "straße")]), "STRAßE");
        assert_eq!(eval("${s,,}", &[("s", "İ")]), "i");
        assert_eq!(eval("${ü}", &[("ü", "x")]), "x");
        assert_eq!(eval("${x٣}", &[("x٣", "y")]), "y");
        // `?` matches one byte that is not UTF-8, and `#` keeps the shortest match: Go cuts
        // `é` in two here.
        assert_eq!(run("${v#h?}", &v, false), Err(Error::NotUtf8));
        assert_eq!(eval("${v##h?}", &v), "llo");
    }

    #[test]
    fn names() {
        assert!(valid_name("_a1"));
        assert!(valid_name("cluster_env"));
        assert!(!valid_name(""));
        assert!(!valid_name("1a"));
        assert!(!valid_name("a-b"));
        assert!(!valid_name("é"));
    }
}
