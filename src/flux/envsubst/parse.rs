//! envsubst's parse tree, scanner and parser (`parse/scan.go`, `parse/parse.go`).

use super::*;

// ---------------------------------------------------------------------------------------------
// Parse tree

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Node {
    /// Text as written, after `$$` and the escapes of arguments are undone.
    Text(Vec<u8>),
    Func(Func),
}

/// `${param}`, or `${param NAME args}`: `NAME` is the operator as written (`:-`, `//`, `#`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(super) struct Func {
    pub(super) param: String,
    pub(super) name: String,
    pub(super) args: Vec<Node>,
}

// ---------------------------------------------------------------------------------------------
// Scanner: a port of envsubst's, including the way it edits its buffer to drop an escape
// character and steps back by the width of the *last* character read.

/// envsubst's end-of-input rune is NUL, so a NUL in the text ends it too.
pub(super) const EOF: char = '\0';

pub(super) const SCAN_IDENT: u8 = 1;
pub(super) const SCAN_LBRACK: u8 = 2;
pub(super) const SCAN_RBRACK: u8 = 4;
pub(super) const SCAN_ESCAPE: u8 = 8;

pub(super) const ESCAPE_DOLLAR: u8 = 1;
pub(super) const ESCAPE_BACKSLASH: u8 = 2;

/// Which runes a token may hold; `i` is the byte offset after the rune within the token.
#[derive(Clone, Copy)]
pub(super) enum Accept {
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
pub(super) fn is_ident_rune(r: char) -> bool {
    crate::go::unicode::is_letter(r) || crate::go::unicode::is_digit(r) || r == '_'
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Token {
    Illegal,
    Eof,
    Ident,
    Lbrack,
    Rbrack,
}

pub(super) struct Scanner {
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

pub(super) fn parse(text: &str) -> Result<Vec<Node>, Error> {
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

pub(super) struct Parser {
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
