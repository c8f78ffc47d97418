//! The parser of Go's text/template (`text/template/parse/parse.go`): a tree of nodes per
//! template, `define`d templates collected beside it, and Go's parse errors
//! (`template: NAME:LINE: message`).
//!
//! Nodes borrow nothing and own little: text, names and literals as written are [`Span`]s of
//! the tree's shared text, and every list is allocated once at its final size (built on a
//! stack the parser reuses), since parsing a big chart is mostly allocating its nodes.

use super::lex::{Kind, Lexer, Token};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A byte range of a tree's text: a text node, a field or variable name, a literal as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    fn of_token(t: &Token) -> Span {
        Span {
            start: t.pos,
            end: t.pos + t.text.len(),
        }
    }

    /// The spanned text of `text` (the tree's).
    pub fn of(self, text: &str) -> &str {
        &text[self.start..self.end]
    }
}

/// A chain of names as written, `.a.b` (or `$x.a.b`: a variable, then field names): one span
/// of the text, cut at its dots when read (names have no dots), so a chain allocates nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Names(Span);

impl Names {
    /// The names, without dots: `a`, `b` of `.a.b`; `$x`, `a` of `$x.a`; none when empty.
    pub fn iter(self, text: &str) -> NamesIter<'_> {
        let s = self.0.of(text);
        NamesIter(s.strip_prefix('.').or((!s.is_empty()).then_some(s)))
    }

    pub fn is_empty(self) -> bool {
        self.0.start == self.0.end
    }

    /// The first name, and the chain after it.
    pub fn split_first(self, text: &str) -> (&str, Names) {
        let s = self.0.of(text);
        let from = usize::from(s.starts_with('.'));
        let end = (s.bytes().skip(from).position(|b| b == b'.')).map_or(s.len(), |i| from + i);
        let rest = Span {
            start: self.0.start + end,
            end: self.0.end,
        };
        (&s[from..end], Names(rest))
    }

    /// The chain but its last name, and that name: `.a` and `b` of `.a.b`; an empty chain
    /// and `a` of `.a`. None for a chain of no fields.
    pub fn split_last(self, text: &str) -> Option<(Names, &str)> {
        let s = self.0.of(text);
        let i = s.rfind('.')?;
        let init = Span {
            start: self.0.start,
            end: self.0.start + i,
        };
        Some((Names(init), &s[i + 1..]))
    }

    /// The chain as written.
    pub fn as_written(self, text: &str) -> &str {
        self.0.of(text)
    }
}

/// The names of a chain: the rest of it, without its leading dot.
pub struct NamesIter<'t>(Option<&'t str>);

impl<'t> Iterator for NamesIter<'t> {
    type Item = &'t str;

    fn next(&mut self) -> Option<&'t str> {
        let s = self.0?;
        // Names are short: a loop beats a searcher.
        match s.bytes().position(|b| b == b'.') {
            Some(i) => {
                self.0 = Some(&s[i + 1..]);
                Some(&s[..i])
            }
            None => {
                self.0 = None;
                Some(s)
            }
        }
    }
}

/// A node of a template body. The large, rarer nodes are boxed so that a list of mostly text
/// and actions stays small.
#[derive(Clone, Debug)]
pub enum Node {
    Text(Span),
    Action(Pipe),
    If(Box<Branch>),
    Range(Box<Branch>),
    With(Box<Branch>),
    Template(Box<Template>),
    Break,
    Continue,
}

/// `{{template "name" pipeline}}`.
#[derive(Clone, Debug)]
pub struct Template {
    pub pos: usize,
    pub name: String,
    pub pipe: Option<Pipe>,
}

/// The parts of `if`, `range` and `with`.
#[derive(Clone, Debug)]
pub struct Branch {
    pub pos: usize,
    pub pipe: Pipe,
    pub list: Box<[Node]>,
    pub else_list: Option<Box<[Node]>>,
}

/// A pipeline, with the variables it declares or assigns.
#[derive(Clone, Debug)]
pub struct Pipe {
    pub pos: usize,
    pub is_assign: bool,
    /// The variables' names, with `$`.
    pub decl: Box<[Span]>,
    pub cmds: Box<[Command]>,
}

/// One command of a pipeline: a function or value with its arguments.
#[derive(Clone, Debug)]
pub struct Command {
    pub pos: usize,
    pub args: Box<[Arg]>,
}

/// An operand.
#[derive(Clone, Debug)]
pub enum Arg {
    /// `.a.b`: field names.
    Field(usize, Names),
    /// `$x.a.b`: the variable (with `$`) then field names.
    Variable(usize, Names),
    Dot(usize),
    Nil(usize),
    Bool(usize, bool),
    Number(usize, Box<Number>),
    /// The quoted text as written (it starts at the operand) and its value.
    String(Span, Arc<str>),
    /// A function name (it starts at the operand).
    Identifier(Span),
    /// `(pipeline).a.b` or `fn.a` (a field chain on another operand).
    Chain(usize, Box<Arg>, Names),
    Pipe(Box<Pipe>),
}

impl Arg {
    /// Where the operand starts.
    pub fn pos(&self) -> usize {
        match self {
            Arg::Field(p, _)
            | Arg::Variable(p, _)
            | Arg::Dot(p)
            | Arg::Nil(p)
            | Arg::Bool(p, _)
            | Arg::Number(p, _)
            | Arg::Chain(p, _, _) => *p,
            Arg::String(s, _) | Arg::Identifier(s) => s.start,
            Arg::Pipe(p) => p.pos,
        }
    }
}

/// A number constant.
#[derive(Clone, Debug)]
pub struct Number {
    /// As written.
    pub text: Span,
    pub int: Option<i64>,
    pub float: Option<f64>,
    /// Written as a float (`.`, an exponent) and not a hex or char constant.
    pub is_float: bool,
    /// A hexadecimal integer (`0x1F`, not the hex float `0x1p4`).
    pub hex_int: bool,
    /// The real and imaginary parts of a complex constant (`1i`, `1+2i`); `int` and `float`
    /// hold the real part too when the imaginary one is zero (Go's `simplifyComplex`).
    pub complex: Option<(f64, f64)>,
}

/// A parsed template: its body and the text it came from (for error positions).
#[derive(Clone, Debug)]
pub struct Tree {
    /// The template's name (a `define`d name, or the file's).
    pub name: String,
    /// The name of the text it was parsed from (error positions name it).
    pub parse_name: String,
    /// The text parsed, which the nodes' spans index.
    pub text: Arc<str>,
    /// Shared: the same text parsed under another name (a library chart vendored into
    /// several subcharts) reuses the nodes.
    pub root: Arc<[Node]>,
}

impl Tree {
    /// `NAME:LINE:COL` of a byte position (Go's ErrorContext: the column is the byte offset in
    /// the line).
    pub fn location(&self, pos: usize) -> String {
        let before = &self.text[..pos.min(self.text.len())];
        let line = 1 + before.matches('\n').count();
        let col = match before.rfind('\n') {
            Some(i) => pos - i - 1,
            None => pos,
        };
        format!("{}:{line}:{col}", self.parse_name)
    }

    /// True when the tree has nothing but whitespace text (Go's `IsEmptyTree`).
    pub fn is_empty(&self) -> bool {
        is_empty_tree(&self.root, &self.text)
    }
}

/// What parsing one text gives: the main tree and every `define`d or `block` tree.
pub struct Parsed {
    pub trees: BTreeMap<String, Tree>,
}

/// A parse error, worded as Go words it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError(pub String);

/// Parses `text` as template `name`. `is_function` says which identifiers are functions.
pub fn parse<'a>(
    name: &'a str,
    text: &'a str,
    left: &'a str,
    right: &'a str,
    is_function: &'a dyn Fn(&str) -> bool,
) -> Result<Parsed, ParseError> {
    let mut p = Parser {
        name,
        lex: Lexer::new(text, left, right, AHEAD + 64),
        at: 0,
        vars: vec!["$"],
        vars_visible: 0,
        range_depth: 0,
        is_function,
        trees: BTreeMap::new(),
        source: text,
        text: text.into(),
        depth: 0,
        action_line: 0,
        nodes: Vec::new(),
        cmds: Vec::new(),
        args: Vec::new(),
    };
    p.refill();
    let root = p.parse_top()?;
    let eof = *p.peek();
    p.add_tree(name.to_string(), root, &eof)?;
    let trees = p.trees;
    Ok(Parsed { trees })
}

/// True when nodes of `text` are nothing but whitespace text (Go's `IsEmptyTree`).
fn is_empty_tree(nodes: &[Node], text: &str) -> bool {
    nodes.iter().all(|n| match n {
        Node::Text(t) => t.of(text).trim().is_empty(),
        _ => false,
    })
}

struct Parser<'a> {
    name: &'a str,
    /// The tokens lexed ahead, from the action being parsed on; `at` indexes them.
    lex: Lexer<'a>,
    at: usize,
    /// Variables in scope, innermost last: a scope ends by truncating to its start.
    vars: Vec<&'a str>,
    /// Where the variables a `define` or `block` body sees start (only its own `$`).
    vars_visible: usize,
    range_depth: usize,
    is_function: &'a dyn Fn(&str) -> bool,
    trees: BTreeMap<String, Tree>,
    source: &'a str,
    /// `source`, shared by the trees.
    text: Arc<str>,
    /// Nesting of blocks and parentheses now.
    depth: usize,
    /// The line of the action being parsed (Go's `actionLine`), named by lexer errors found
    /// on a later line; 0 outside actions.
    action_line: usize,
    /// Stacks the lists being built grow on, each taken off as one exact allocation when
    /// complete (an inner list completes before the outer one goes on).
    nodes: Vec<Node>,
    cmds: Vec<Command>,
    args: Vec<Arg>,
}

/// Deepest nesting of blocks and parenthesised pipelines (Go allows 10000; kdelta's parser
/// and executor recurse, so a hostile template stops here instead of overflowing the stack).
const MAX_PARSE_DEPTH: usize = 200;

/// Tokens lexed at a time (and then a piece more): enough to keep the lexer's loop hot, few
/// enough to stay in the cache, where a whole template's tokens would not.
const AHEAD: usize = 256;

/// What ended a list of nodes.
enum Stop {
    Eof,
    End,
    Else,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> &Token<'a> {
        let tokens = &self.lex.tokens;
        &tokens[self.at.min(tokens.len() - 1)]
    }

    fn next(&mut self) -> Token<'a> {
        let t = *self.peek();
        if self.at < self.lex.tokens.len() {
            self.at += 1;
            if self.at == self.lex.tokens.len() {
                self.refill();
            }
        }
        t
    }

    /// Replaces the tokens, all consumed, with the next ones (unless the stream has ended: its
    /// last token stays next). The lexer's pieces end with an action's right delimiter (or a
    /// comment): no one goes back past one, nor looks past spaces beyond the last piece.
    fn refill(&mut self) {
        if self.lex.ended() {
            return;
        }
        self.lex.tokens.clear();
        self.at = 0;
        while self.lex.tokens.len() < AHEAD && self.lex.lex_more() {}
    }

    /// The next token that is not a space.
    fn next_non_space(&mut self) -> Token<'a> {
        loop {
            let t = self.next();
            if t.kind != Kind::Space {
                return t;
            }
        }
    }

    fn peek_non_space(&self) -> Token<'a> {
        let tokens = &self.lex.tokens;
        match tokens[self.at.min(tokens.len())..]
            .iter()
            .find(|t| t.kind != Kind::Space)
        {
            Some(t) => *t,
            // Past the end: what `next` gives there.
            None => *tokens.last().expect("the lexer ends with EOF or an error"),
        }
    }

    fn error_at(&self, line: usize, message: impl std::fmt::Display) -> ParseError {
        ParseError(format!("template: {}:{line}: {message}", self.name))
    }

    fn error(&self, t: &Token, message: impl std::fmt::Display) -> ParseError {
        self.error_at(t.line, message)
    }

    fn unexpected(&self, t: &Token, context: &str) -> ParseError {
        if t.kind == Kind::Error {
            return self.lex_error(t);
        }
        self.error(t, format!("unexpected {} in {context}", describe(t)))
    }

    /// A lexer error; one found after the line its action started on says where that was.
    fn lex_error(&self, t: &Token) -> ParseError {
        let message = &self.lex.error;
        if self.action_line == 0 || self.action_line == t.line {
            return self.error(t, message);
        }
        let started = format!("started at {}:{}", self.name, self.action_line);
        if message.ends_with(" action") {
            return self.error(t, format!("{message} {started}"));
        }
        self.error(t, format!("{message} in action {started}"))
    }

    /// The nodes pushed on the node stack since `base`, taken off it.
    fn take_nodes(&mut self, base: usize) -> Box<[Node]> {
        self.nodes.drain(base..).collect()
    }

    fn parse_top(&mut self) -> Result<Box<[Node]>, ParseError> {
        let base = self.nodes.len();
        loop {
            let t = *self.peek();
            match t.kind {
                Kind::Eof => return Ok(self.take_nodes(base)),
                Kind::LeftDelim => {
                    // `define` is only allowed at the top.
                    let save = self.at;
                    self.next();
                    let kw = self.next_non_space();
                    if kw.kind == Kind::Keyword && kw.text == "define" {
                        self.parse_define(&kw)?;
                        continue;
                    }
                    self.at = save;
                    self.parse_text_or_action()?;
                }
                _ => self.parse_text_or_action()?,
            }
        }
    }

    fn parse_define(&mut self, kw: &Token) -> Result<(), ParseError> {
        let name_tok = self.next_non_space();
        let name = match name_tok.kind {
            Kind::String | Kind::RawString => {
                unquote(name_tok.text).map_err(|e| self.error(&name_tok, e))?
            }
            _ => return Err(self.unexpected(&name_tok, "define clause")),
        };
        let close = self.next_non_space();
        if close.kind != Kind::RightDelim {
            return Err(self.unexpected(&close, "define clause"));
        }
        let list = self.parse_body(kw)?;
        self.add_tree(name, list, kw)
    }

    /// The body of a `define` or `block`, up to its `{{end}}`, with only `$` in scope.
    fn parse_body(&mut self, kw: &Token) -> Result<Box<[Node]>, ParseError> {
        let (outer_visible, outer_len) = (self.vars_visible, self.vars.len());
        self.vars_visible = outer_len;
        self.vars.push("$");
        let (list, end) = self.parse_list()?;
        self.vars.truncate(outer_len);
        self.vars_visible = outer_visible;
        match end {
            Stop::End => Ok(list),
            Stop::Else => Err(self.error(kw, "unexpected {{else}}")),
            Stop::Eof => Err(self.error(kw, "unexpected EOF")),
        }
    }

    /// Go's `Tree.add`: within one text, a second non-empty definition of a name is an error;
    /// an empty one is ignored.
    fn add_tree(&mut self, name: String, list: Box<[Node]>, at: &Token) -> Result<(), ParseError> {
        if let Some(old) = self.trees.get(&name) {
            if is_empty_tree(&list, self.source) {
                return Ok(());
            }
            if !old.is_empty() {
                return Err(self.error(
                    at,
                    format!("template: multiple definition of template \"{name}\""),
                ));
            }
        }
        self.trees.insert(
            name.clone(),
            Tree {
                name,
                parse_name: self.name.to_string(),
                text: self.text.clone(),
                root: list.into(),
            },
        );
        Ok(())
    }

    /// Nodes up to `{{end}}`, `{{else}}` or the end of input.
    fn parse_list(&mut self) -> Result<(Box<[Node]>, Stop), ParseError> {
        let base = self.nodes.len();
        loop {
            let t = *self.peek();
            match t.kind {
                Kind::Eof => return Ok((self.take_nodes(base), Stop::Eof)),
                Kind::LeftDelim => {
                    let save = self.at;
                    self.next();
                    let kw = self.next_non_space();
                    if kw.kind == Kind::Keyword {
                        match kw.text {
                            "end" => {
                                let close = self.next_non_space();
                                if close.kind != Kind::RightDelim {
                                    return Err(self.unexpected(&close, "end"));
                                }
                                return Ok((self.take_nodes(base), Stop::End));
                            }
                            "else" => {
                                // `else if`/`else with` keep the else token for the caller.
                                self.at = save;
                                return Ok((self.take_nodes(base), Stop::Else));
                            }
                            "define" => {
                                return Err(self.error(&kw, "unexpected <define> in command"));
                            }
                            _ => {}
                        }
                    }
                    self.at = save;
                    self.parse_text_or_action()?;
                }
                _ => self.parse_text_or_action()?,
            }
        }
    }

    /// A text, comment or action, its node (if any) pushed on the node stack.
    fn parse_text_or_action(&mut self) -> Result<(), ParseError> {
        let t = self.next();
        let node = match t.kind {
            Kind::Text => Node::Text(Span::of_token(&t)),
            Kind::Comment => return Ok(()),
            Kind::LeftDelim => {
                self.action_line = t.line;
                let action = self.parse_action();
                self.action_line = 0;
                action?
            }
            Kind::Error => return Err(self.lex_error(&t)),
            _ => return Err(self.unexpected(&t, "input")),
        };
        self.nodes.push(node);
        Ok(())
    }

    fn parse_action(&mut self) -> Result<Node, ParseError> {
        let t = self.peek_non_space();
        if t.kind == Kind::Keyword {
            self.next_non_space();
            return match t.text {
                "if" => Ok(Node::If(Box::new(self.parse_branch(&t, "if")?))),
                "range" => Ok(Node::Range(Box::new(self.parse_branch(&t, "range")?))),
                "with" => Ok(Node::With(Box::new(self.parse_branch(&t, "with")?))),
                "template" => self.parse_template(&t, false),
                "block" => self.parse_template(&t, true),
                "break" | "continue" => {
                    if self.range_depth == 0 {
                        return Err(
                            self.error(&t, format!("{{{{{}}}}} outside {{{{range}}}}", t.text))
                        );
                    }
                    let close = self.next_non_space();
                    if close.kind != Kind::RightDelim {
                        return Err(self.unexpected(&close, &format!("{{{{{}}}}}", t.text)));
                    }
                    Ok(if t.text == "break" {
                        Node::Break
                    } else {
                        Node::Continue
                    })
                }
                "else" => Err(self.error(&t, "unexpected {{else}}")),
                "end" => Err(self.error(&t, "unexpected {{end}}")),
                "nil" => {
                    // `nil` is a keyword token only in the lexer's list; treat as an operand.
                    self.at -= 1;
                    let pipe = self.parse_pipeline("command", Kind::RightDelim)?;
                    Ok(Node::Action(pipe))
                }
                other => Err(self.error(&t, format!("unexpected <{other}> in command"))),
            };
        }
        let pipe = self.parse_pipeline("command", Kind::RightDelim)?;
        Ok(Node::Action(pipe))
    }

    fn enter(&mut self, t: &Token) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_PARSE_DEPTH {
            return Err(self.error(t, "max expression depth exceeded"));
        }
        Ok(())
    }

    fn parse_branch(&mut self, kw: &Token, context: &str) -> Result<Branch, ParseError> {
        self.enter(kw)?;
        let branch = self.parse_branch_inner(kw, context);
        self.depth -= 1;
        branch
    }

    fn parse_branch_inner(&mut self, kw: &Token, context: &str) -> Result<Branch, ParseError> {
        // The branch's variables (its pipeline's and its lists') end with it.
        let vars_mark = self.vars.len();
        let pipe = self.parse_pipeline(context, Kind::RightDelim)?;
        if context == "range" {
            self.range_depth += 1;
        }
        let (list, end) = self.parse_list()?;
        if context == "range" {
            self.range_depth -= 1;
        }
        let else_list = match end {
            Stop::End => None,
            Stop::Eof => return Err(self.error(self.peek(), "unexpected EOF")),
            Stop::Else => {
                // At `{{ else`: `else if …` / `else with …` chain into a nested branch.
                self.next(); // left delim
                self.next_non_space(); // else
                let after = self.peek_non_space();
                if (context == "if" && after.kind == Kind::Keyword && after.text == "if")
                    || (context == "with" && after.kind == Kind::Keyword && after.text == "with")
                {
                    let kw2 = self.next_non_space();
                    let nested = Box::new(self.parse_branch(&kw2, context)?);
                    let node = if context == "if" {
                        Node::If(nested)
                    } else {
                        Node::With(nested)
                    };
                    self.vars.truncate(vars_mark);
                    return Ok(Branch {
                        pos: kw.pos,
                        pipe,
                        list,
                        else_list: Some(Box::new([node])),
                    });
                }
                let close = self.next_non_space();
                if close.kind != Kind::RightDelim {
                    return Err(self.unexpected(&close, "input"));
                }
                // The else of a range is not inside the loop, but it is in the branch's scope.
                let (else_list, end) = self.parse_list()?;
                match end {
                    Stop::End => Some(else_list),
                    Stop::Else => {
                        return Err(self.error(self.peek(), "expected end; found {{else}}"))
                    }
                    Stop::Eof => return Err(self.error(self.peek(), "unexpected EOF")),
                }
            }
        };
        self.vars.truncate(vars_mark);
        Ok(Branch {
            pos: kw.pos,
            pipe,
            list,
            else_list,
        })
    }

    fn parse_template(&mut self, kw: &Token, block: bool) -> Result<Node, ParseError> {
        let context = if block {
            "block clause"
        } else {
            "template clause"
        };
        let name_tok = self.next_non_space();
        let name = match name_tok.kind {
            Kind::String | Kind::RawString => {
                unquote(name_tok.text).map_err(|e| self.error(&name_tok, e))?
            }
            _ => return Err(self.unexpected(&name_tok, context)),
        };
        let pipe = if block || self.peek_non_space().kind != Kind::RightDelim {
            Some(self.parse_pipeline(context, Kind::RightDelim)?)
        } else {
            self.next_non_space();
            None
        };
        if block {
            let list = self.parse_body(kw)?;
            self.add_tree(name.clone(), list, kw)?;
        }
        Ok(Node::Template(Box::new(Template {
            pos: name_tok.pos,
            name,
            pipe,
        })))
    }

    fn lookup_var(&self, name: &str) -> bool {
        self.vars[self.vars_visible..].contains(&name)
    }

    /// A pipeline up to `end` (a right delimiter or a right paren), consumed.
    fn parse_pipeline(&mut self, context: &str, end: Kind) -> Result<Pipe, ParseError> {
        let start = self.peek_non_space();
        let mut is_assign = false;
        let mut decl: Box<[Span]> = Box::new([]);
        // Declarations: `$x :=`, `$x =`, `$i, $v :=`.
        if start.kind == Kind::Variable {
            let save = self.at;
            let v = self.next_non_space();
            let after = self.peek_non_space();
            match after.kind {
                Kind::Declare | Kind::Assign => {
                    self.next_non_space();
                    is_assign = after.kind == Kind::Assign;
                    decl = Box::new([Span::of_token(&v)]);
                    if !is_assign {
                        self.vars.push(v.text);
                    }
                }
                Kind::Comma if context == "range" => {
                    self.next_non_space();
                    let v2 = self.next_non_space();
                    if v2.kind != Kind::Variable {
                        return Err(self.error(&v2, "range can only initialize variables"));
                    }
                    let op = self.next_non_space();
                    if op.kind == Kind::Comma {
                        return Err(self.error(&op, format!("too many declarations in {context}")));
                    }
                    if op.kind != Kind::Declare && op.kind != Kind::Assign {
                        return Err(self.unexpected(&op, context));
                    }
                    is_assign = op.kind == Kind::Assign;
                    decl = Box::new([Span::of_token(&v), Span::of_token(&v2)]);
                    if !is_assign {
                        self.vars.push(v.text);
                        self.vars.push(v2.text);
                    }
                }
                Kind::Comma => {
                    return Err(self.error(&after, format!("too many declarations in {context}")));
                }
                _ => self.at = save,
            }
        }
        let base = self.cmds.len();
        loop {
            let t = self.peek_non_space();
            if t.kind == end {
                self.next_non_space();
                break;
            }
            match t.kind {
                Kind::Bool
                | Kind::Char
                | Kind::Dot
                | Kind::Field
                | Kind::Identifier
                | Kind::Number
                | Kind::Complex
                | Kind::Nil
                | Kind::RawString
                | Kind::String
                | Kind::Variable
                | Kind::LeftParen => {
                    let cmd = self.parse_command(end)?;
                    self.cmds.push(cmd);
                }
                Kind::Keyword if t.text == "nil" => {
                    let cmd = self.parse_command(end)?;
                    self.cmds.push(cmd);
                }
                Kind::Eof => return Err(self.error(&t, "unclosed action")),
                Kind::Error => return Err(self.lex_error(&t)),
                _ => return Err(self.unexpected(&t, context)),
            }
        }
        let cmds: Box<[Command]> = self.cmds.drain(base..).collect();
        if cmds.is_empty() {
            return Err(self.error(&start, format!("missing value for {context}")));
        }
        for (i, c) in cmds.iter().enumerate().skip(1) {
            if matches!(
                c.args[0],
                Arg::Bool(..) | Arg::Dot(_) | Arg::Nil(_) | Arg::Number(..) | Arg::String(..)
            ) {
                return Err(self.error(
                    &start,
                    format!("non executable command in pipeline stage {}", i + 1),
                ));
            }
        }
        Ok(Pipe {
            pos: start.pos,
            is_assign,
            decl,
            cmds,
        })
    }

    /// Operands up to `|` (consumed) or the pipeline's end (not consumed).
    fn parse_command(&mut self, end: Kind) -> Result<Command, ParseError> {
        let first = self.peek_non_space();
        let base = self.args.len();
        loop {
            self.skip_spaces();
            let t = *self.peek();
            if t.kind == end {
                break;
            }
            match t.kind {
                Kind::Pipe => {
                    self.next();
                    if self.args.len() == base {
                        return Err(self.error(&t, "missing value for command"));
                    }
                    break;
                }
                Kind::Error => return Err(self.lex_error(&t)),
                Kind::RightDelim | Kind::RightParen => {
                    return Err(self.unexpected(&t, "operand"));
                }
                _ => {}
            }
            let operand = self.parse_operand()?;
            self.args.push(operand);
            // Operands are separated by spaces.
            let after = *self.peek();
            match after.kind {
                Kind::Space | Kind::Pipe => {}
                k if k == end => {}
                Kind::RightDelim | Kind::RightParen => {}
                Kind::Error => return Err(self.lex_error(&after)),
                _ => return Err(self.unexpected(&after, "operand")),
            }
        }
        if self.args.len() == base {
            return Err(self.error(&first, "empty command"));
        }
        Ok(Command {
            pos: first.pos,
            args: self.args.drain(base..).collect(),
        })
    }

    fn skip_spaces(&mut self) {
        while self.peek().kind == Kind::Space {
            self.next();
        }
    }

    /// How many field tokens come next (`.a.b` after an operand).
    fn fields_ahead(&self) -> usize {
        let tokens = &self.lex.tokens;
        tokens[self.at.min(tokens.len())..]
            .iter()
            .take_while(|t| t.kind == Kind::Field)
            .count()
    }

    /// The chain of `first` and the next `n` field tokens (which adjoin it, as a chain is
    /// written), consumed.
    fn take_fields(&mut self, first: Span, n: usize) -> Names {
        let end = match n {
            0 => first.end,
            _ => {
                let last = self.lex.tokens[self.at + n - 1];
                last.pos + last.text.len()
            }
        };
        self.at += n;
        Names(Span {
            start: first.start,
            end,
        })
    }

    fn parse_operand(&mut self) -> Result<Arg, ParseError> {
        let term = self.parse_term()?;
        let n = self.fields_ahead();
        if n == 0 {
            return Ok(term);
        }
        let chain_pos = self.peek().pos;
        Ok(match term {
            Arg::Bool(..) | Arg::String(..) | Arg::Number(..) | Arg::Nil(_) | Arg::Dot(_) => {
                self.at += n;
                let t = self.lex.tokens[self.at - 1];
                return Err(self.error(
                    &t,
                    format!(
                        "unexpected . after term {}",
                        super::fmt::go_quote(&arg_string(&term, self.source))
                    ),
                ));
            }
            other => {
                let at = Span {
                    start: chain_pos,
                    end: chain_pos,
                };
                Arg::Chain(chain_pos, Box::new(other), self.take_fields(at, n))
            }
        })
    }

    fn parse_term(&mut self) -> Result<Arg, ParseError> {
        let t = self.next_non_space();
        Ok(match t.kind {
            Kind::Identifier => {
                if !(self.is_function)(t.text) {
                    return Err(self.error(&t, format!("function \"{}\" not defined", t.text)));
                }
                Arg::Identifier(Span::of_token(&t))
            }
            Kind::Dot => Arg::Dot(t.pos),
            Kind::Nil => Arg::Nil(t.pos),
            Kind::Keyword if t.text == "nil" => Arg::Nil(t.pos),
            // A field or variable takes the fields after it (`.a.b`, `$x.a`), and then is
            // where its second field is.
            Kind::Variable | Kind::Field => {
                let is_var = t.kind == Kind::Variable;
                if is_var && !self.lookup_var(t.text) {
                    return Err(self.error(&t, format!("undefined variable \"{}\"", t.text)));
                }
                let n = self.fields_ahead();
                let pos = if n > 0 { self.peek().pos } else { t.pos };
                let names = self.take_fields(Span::of_token(&t), n);
                if is_var {
                    Arg::Variable(pos, names)
                } else {
                    Arg::Field(pos, names)
                }
            }
            Kind::Bool => Arg::Bool(t.pos, t.text == "true"),
            Kind::Char | Kind::Number | Kind::Complex => {
                let n = if t.kind == Kind::Complex {
                    parse_complex(t.text)
                } else {
                    parse_number(t.text, t.kind == Kind::Char)
                }
                .map_err(|e| self.error(&t, e))?;
                let text = Span::of_token(&t);
                Arg::Number(t.pos, Box::new(Number { text, ..n }))
            }
            Kind::String | Kind::RawString => {
                let value = unquote_shared(t.text).map_err(|e| self.error(&t, e))?;
                Arg::String(Span::of_token(&t), value)
            }
            Kind::LeftParen => {
                self.enter(&t)?;
                let pipe = self.parse_pipeline("parenthesized pipeline", Kind::RightParen);
                self.depth -= 1;
                Arg::Pipe(Box::new(pipe?))
            }
            Kind::Error => return Err(self.lex_error(&t)),
            _ => return Err(self.unexpected(&t, "operand")),
        })
    }
}

/// A token as Go's `item.String` prints it: keywords in angle brackets, the rest quoted (cut
/// after 10 characters). An error token is never described: its message is the error.
fn describe(t: &Token) -> String {
    match t.kind {
        Kind::Eof => "EOF".into(),
        Kind::Keyword | Kind::Nil => format!("<{}>", t.text),
        _ if t.text.chars().count() > 10 => {
            let cut: String = t.text.chars().take(10).collect();
            format!("{}...", super::fmt::go_quote(&cut))
        }
        _ => super::fmt::go_quote(t.text),
    }
}

/// [`unquote`] as a shared string, copied once from the template when nothing is escaped.
fn unquote_shared(text: &str) -> Result<Arc<str>, String> {
    let inside = |q: char| text.strip_prefix(q).and_then(|t| t.strip_suffix(q));
    let plain = match (inside('"'), inside('`')) {
        (Some(body), _) if !body.contains('\\') => Some(body),
        (_, Some(raw)) if !raw.contains('\r') => Some(raw),
        _ => None,
    };
    match plain {
        Some(body) => Ok(Arc::from(body)),
        None => unquote(text).map(Arc::from),
    }
}

/// Go's `strconv.Unquote` for the three quote forms.
pub fn unquote(text: &str) -> Result<String, String> {
    let bad = || "invalid syntax".to_string();
    if let Some(raw) = text.strip_prefix('`').and_then(|t| t.strip_suffix('`')) {
        return Ok(raw.replace('\r', ""));
    }
    let quote = text.chars().next().ok_or_else(bad)?;
    let body = text
        .strip_prefix(quote)
        .and_then(|t| t.strip_suffix(quote))
        .ok_or_else(bad)?;
    let mut out = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let e = chars.next().ok_or_else(bad)?;
        match e {
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\u{b}'),
            '\\' => out.push('\\'),
            '\'' if quote == '\'' => out.push('\''),
            '"' if quote == '"' => out.push('"'),
            'x' | 'u' | 'U' => {
                let n = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let hex: String = (0..n).filter_map(|_| chars.next()).collect();
                let v = u32::from_str_radix(&hex, 16).map_err(|_| bad())?;
                if e == 'x' {
                    // A byte; in a string it may form UTF-8 with others. Keep it simple: as a char.
                    out.push(char::from_u32(v).ok_or_else(bad)?);
                } else {
                    out.push(char::from_u32(v).ok_or_else(bad)?);
                }
            }
            '0'..='7' => {
                let mut v = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    let d = chars.next().and_then(|c| c.to_digit(8)).ok_or_else(bad)?;
                    v = v * 8 + d;
                }
                out.push(char::from_u32(v).ok_or_else(bad)?);
            }
            _ => return Err(bad()),
        }
    }
    if quote == '\'' && out.chars().count() != 1 {
        return Err(bad());
    }
    Ok(out)
}

/// The span of a number read from a token's text alone, which the caller sets.
const NO_SPAN: Span = Span { start: 0, end: 0 };

/// A number constant as Go's parser reads it (`parse.newNumber`).
fn parse_number(text: &str, is_char: bool) -> Result<Number, String> {
    if is_char {
        // strconv.UnquoteChar on what follows the quote, then only the closing quote may be
        // left.
        let inner = &text[1..];
        let first_len = match inner.strip_prefix('\\') {
            Some(rest) => {
                1 + match rest.chars().next() {
                    Some('x') => 3,
                    Some('u') => 5,
                    Some('U') => 9,
                    Some('0'..='7') => 3,
                    Some(c) => c.len_utf8(),
                    None => 0,
                }
            }
            None => inner.chars().next().map_or(0, char::len_utf8),
        };
        let (first, tail) = inner.split_at(first_len.min(inner.len()));
        if first.is_empty() || first == "'" {
            return Err("invalid syntax".into());
        }
        let c = unquote(&format!("'{first}'"))?
            .chars()
            .next()
            .ok_or("invalid syntax")? as i64;
        if tail != "'" {
            return Err(format!("malformed character constant: {text}"));
        }
        return Ok(Number {
            text: NO_SPAN,
            int: Some(c),
            float: Some(c as f64),
            is_float: false,
            hex_int: false,
            complex: None,
        });
    }
    // An imaginary constant, if what precedes the `i` is a float.
    if let Some(im) = text.strip_suffix('i').and_then(go_parse_float) {
        return Ok(complex_number(0.0, im));
    }
    let int = crate::go::strconv::parse_int(text).ok();
    let float = match int {
        Some(i) => Some(i as f64),
        None => go_parse_float(text),
    };
    let Some(f) = float else {
        return Err(format!(
            "illegal number syntax: {}",
            super::fmt::go_quote(text)
        ));
    };
    if int.is_none() && !text.contains(['.', 'e', 'E', 'p', 'P']) {
        return Err(format!("integer overflow: {}", super::fmt::go_quote(text)));
    }
    // An integral float is also an int (Go marks it so).
    let int = int.or_else(|| (f.fract() == 0.0 && f.abs() < 9.2e18).then_some(f as i64));
    let lower = text.to_ascii_lowercase();
    let hex = lower.trim_start_matches(['+', '-']).starts_with("0x");
    Ok(Number {
        text: NO_SPAN,
        int,
        float,
        is_float: if hex {
            lower.contains('p')
        } else {
            lower.contains(['.', 'e'])
        },
        hex_int: hex && !lower.contains('p'),
        complex: None,
    })
}

/// A complex constant `RE±IMi`, as Go's parser reads it with `fmt.Sscan`.
fn parse_complex(text: &str) -> Result<Number, String> {
    let bytes = text.as_bytes();
    let split = (1..bytes.len()).find(|&i| {
        matches!(bytes[i], b'+' | b'-') && !matches!(bytes[i - 1], b'e' | b'E' | b'p' | b'P')
    });
    let parts = split.and_then(|at| {
        let (re, im) = (&text[..at], text[at..].strip_suffix('i')?);
        let float = |s: &str| {
            go_parse_float(s).or_else(|| crate::go::strconv::parse_int(s).ok().map(|i| i as f64))
        };
        Some((float(re)?, float(im)?))
    });
    match parts {
        Some((re, im)) => Ok(complex_number(re, im)),
        None => Err("syntax error scanning complex number".into()),
    }
}

/// Go's `simplifyComplex`: a complex constant whose imaginary part is zero is also a float,
/// and an int when integral.
fn complex_number(re: f64, im: f64) -> Number {
    let real = im == 0.0;
    Number {
        text: NO_SPAN,
        int: (real && re.fract() == 0.0 && re.abs() < 9.2e18).then_some(re as i64),
        float: real.then_some(re),
        is_float: real,
        hex_int: false,
        complex: Some((re, im)),
    }
}

/// strconv.ParseFloat(text, 64) for decimal and hex floats.
fn go_parse_float(text: &str) -> Option<f64> {
    let (neg, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let lower = body.to_ascii_lowercase();
    let v = if let Some(hex) = lower.strip_prefix("0x") {
        parse_hex_float(&hex.replace('_', ""))?
    } else {
        if lower.contains('_') && !crate::go::strconv::underscore_ok(&lower) {
            return None;
        }
        let clean = lower.replace('_', "");
        if clean.starts_with(['i', 'n']) {
            return None;
        }
        clean.parse::<f64>().ok()?
    };
    Some(if neg { -v } else { v })
}

fn parse_hex_float(s: &str) -> Option<f64> {
    let (mantissa, exp) = s.split_once('p')?;
    let exp: i32 = exp.parse().ok()?;
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut v = u64::from_str_radix(if int.is_empty() { "0" } else { int }, 16).ok()? as f64;
    for (i, c) in frac.chars().enumerate() {
        v += c.to_digit(16)? as f64 / 16f64.powi(i as i32 + 1);
    }
    Some(v * 2f64.powi(exp))
}

/// An operand of a tree of `text` as Go's `String()` prints it (for `at <…>` in errors).
pub fn arg_string(a: &Arg, text: &str) -> String {
    let mut s = String::new();
    write_arg(&mut s, a, text);
    s
}

fn write_arg(s: &mut String, a: &Arg, text: &str) {
    match a {
        Arg::Field(_, names) | Arg::Variable(_, names) => s.push_str(names.as_written(text)),
        Arg::Dot(_) => s.push('.'),
        Arg::Nil(_) => s.push_str("nil"),
        Arg::Bool(_, b) => s.push_str(if *b { "true" } else { "false" }),
        Arg::Number(_, n) => s.push_str(n.text.of(text)),
        Arg::String(quoted, _) => s.push_str(quoted.of(text)),
        Arg::Identifier(name) => s.push_str(name.of(text)),
        Arg::Chain(_, node, names) => {
            write_arg(s, node, text);
            s.push_str(names.as_written(text));
        }
        Arg::Pipe(p) => {
            s.push('(');
            write_pipe(s, p, text);
            s.push(')');
        }
    }
}

/// A command of a tree of `text` as Go prints it.
pub fn command_string(c: &Command, text: &str) -> String {
    let mut s = String::new();
    write_command(&mut s, c, text);
    s
}

fn write_command(s: &mut String, c: &Command, text: &str) {
    for (i, a) in c.args.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        write_arg(s, a, text);
    }
}

/// A pipeline of a tree of `text` as Go prints it.
pub fn pipe_string(p: &Pipe, text: &str) -> String {
    let mut s = String::new();
    write_pipe(&mut s, p, text);
    s
}

fn write_pipe(s: &mut String, p: &Pipe, text: &str) {
    for (i, v) in p.decl.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str(v.of(text));
    }
    if !p.decl.is_empty() {
        s.push_str(if p.is_assign { " = " } else { " := " });
    }
    for (i, c) in p.cmds.iter().enumerate() {
        if i > 0 {
            s.push_str(" | ");
        }
        write_command(s, c, text);
    }
}
