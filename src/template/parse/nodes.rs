//! The nodes of a parsed template (Go's `text/template/parse/node.go`): the tree, its
//! pipelines and operands as spans of the text, and the text Go prints for them in errors.

use super::super::lex::Token;
use super::super::Location;
use std::sync::Arc;

/// A byte range of a tree's text: a text node, a field or variable name, a literal as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub(super) fn of_token(t: &Token) -> Span {
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
pub struct Names(pub(super) Span);

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
    pub fn location(&self, pos: usize) -> Location {
        let before = &self.text[..pos.min(self.text.len())];
        let line = 1 + before.matches('\n').count();
        let column = match before.rfind('\n') {
            Some(i) => pos - i - 1,
            None => pos,
        };
        Location {
            template: self.parse_name.clone(),
            line,
            column: Some(column),
        }
    }

    /// True when the tree has nothing but whitespace text (Go's `IsEmptyTree`).
    pub fn is_empty(&self) -> bool {
        is_empty_tree(&self.root, &self.text)
    }
}

/// True when nodes of `text` are nothing but whitespace text (Go's `IsEmptyTree`).
pub(super) fn is_empty_tree(nodes: &[Node], text: &str) -> bool {
    nodes.iter().all(|n| match n {
        Node::Text(t) => t.of(text).trim().is_empty(),
        _ => false,
    })
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
