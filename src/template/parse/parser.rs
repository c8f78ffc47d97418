//! The parser (Go's `text/template/parse/parse.go`): the lexer's tokens read into trees, each
//! `define`d or `block` template collected beside the main one, and Go's parse errors.

use super::super::lex::{Kind, Lexer, Token};
use super::super::{Error, ErrorKind, Location};
use super::literals::{parse_complex, parse_number, unquote, unquote_shared};
use super::nodes::{
    arg_string, is_empty_tree, Arg, Branch, Command, Names, Node, Number, Pipe, Span, Template,
    Tree,
};
use std::collections::BTreeMap;
use std::sync::Arc;

/// What parsing one text gives: the main tree and every `define`d or `block` tree.
pub struct Parsed {
    pub trees: BTreeMap<String, Tree>,
}

/// Parses `text` as template `name`. `is_function` says which identifiers are functions.
pub fn parse<'a>(
    name: &'a str,
    text: &'a Arc<str>,
    left: &'a str,
    right: &'a str,
    is_function: &'a dyn Fn(&str) -> bool,
) -> Result<Parsed, Error> {
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
        text: text.clone(),
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

    fn error_at(&self, line: usize, message: impl std::fmt::Display) -> Error {
        ErrorKind::Parse {
            at: Location {
                template: self.name.to_string(),
                line,
                column: None,
            },
            message: message.to_string(),
        }
        .into()
    }

    fn error(&self, t: &Token, message: impl std::fmt::Display) -> Error {
        self.error_at(t.line, message)
    }

    fn unexpected(&self, t: &Token, context: &str) -> Error {
        if t.kind == Kind::Error {
            return self.lex_error(t);
        }
        self.error(t, format!("unexpected {} in {context}", describe(t)))
    }

    /// A lexer error; one found after the line its action started on says where that was.
    fn lex_error(&self, t: &Token) -> Error {
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
        take_from(&mut self.nodes, base)
    }

    fn parse_top(&mut self) -> Result<Box<[Node]>, Error> {
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

    fn parse_define(&mut self, kw: &Token) -> Result<(), Error> {
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
        let list = self.parse_body("define clause", None)?;
        self.add_tree(name, list, kw)
    }

    /// The body of a `define` or `block` (`context`), up to its `{{end}}`, with only `$` in
    /// scope. An `{{else}}` ending it is reported at `else_at`, else at the else.
    fn parse_body(
        &mut self,
        context: &str,
        else_at: Option<Token<'a>>,
    ) -> Result<Box<[Node]>, Error> {
        let (outer_visible, outer_len) = (self.vars_visible, self.vars.len());
        self.vars_visible = outer_len;
        self.vars.push("$");
        let (list, end) = self.parse_list()?;
        self.vars.truncate(outer_len);
        self.vars_visible = outer_visible;
        match end {
            Stop::End => Ok(list),
            Stop::Else => {
                let at = else_at.unwrap_or_else(|| self.else_end());
                Err(self.error(&at, format!("unexpected {{{{else}}}} in {context}")))
            }
            Stop::Eof => Err(self.error(self.peek(), "unexpected EOF")),
        }
    }

    /// Go's `Tree.add`: within one text, a second non-empty definition of a name is an error;
    /// an empty one is ignored.
    fn add_tree(&mut self, name: String, list: Box<[Node]>, at: &Token) -> Result<(), Error> {
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
    fn parse_list(&mut self) -> Result<(Box<[Node]>, Stop), Error> {
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
                        // An `{{end}}` or `{{else}}` is an action of its own line, as every
                        // action is in Go's `textOrAction` (a lexer error in it says so).
                        match kw.text {
                            "end" => {
                                self.action_line = t.line;
                                self.end_control()?;
                                self.action_line = 0;
                                return Ok((self.take_nodes(base), Stop::End));
                            }
                            "else" => {
                                self.action_line = t.line;
                                self.else_control()?;
                                self.action_line = 0;
                                // The caller reads the else again.
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

    /// At the `{{` of an `{{else}}` that ends a list: the token Go's `elseControl` read last,
    /// where an error about that else stands (its `}}`, or the `if`/`with` it chains).
    fn else_end(&mut self) -> Token<'a> {
        self.next();
        self.next_non_space();
        self.peek_non_space()
    }

    /// Go's `elseControl`, after an `else`: `else if`/`else with` leave the keyword for the
    /// caller, any other else ends its action. Only looks: the caller reads the else again,
    /// and consuming its right delimiter would let the token buffer be refilled.
    fn else_control(&self) -> Result<(), Error> {
        let after = self.peek_non_space();
        let chained = after.kind == Kind::Keyword && matches!(after.text, "if" | "with");
        if !chained && after.kind != Kind::RightDelim {
            return Err(self.unexpected(&after, "else"));
        }
        Ok(())
    }

    /// Go's `endControl`, after an `end`: the action ends there.
    fn end_control(&mut self) -> Result<Token<'a>, Error> {
        self.end_of("end")
    }

    /// The right delimiter that must follow a keyword (`context`).
    fn end_of(&mut self, context: &str) -> Result<Token<'a>, Error> {
        let close = self.next_non_space();
        if close.kind != Kind::RightDelim {
            return Err(self.unexpected(&close, context));
        }
        Ok(close)
    }

    /// A text, comment or action, its node (if any) pushed on the node stack.
    fn parse_text_or_action(&mut self) -> Result<(), Error> {
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

    fn parse_action(&mut self) -> Result<Node, Error> {
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
                    let close = self.next_non_space();
                    if close.kind != Kind::RightDelim {
                        return Err(self.unexpected(&close, &format!("{{{{{}}}}}", t.text)));
                    }
                    if self.range_depth == 0 {
                        return Err(
                            self.error(&t, format!("{{{{{}}}}} outside {{{{range}}}}", t.text))
                        );
                    }
                    Ok(if t.text == "break" {
                        Node::Break
                    } else {
                        Node::Continue
                    })
                }
                // Reported where Go's parser stands after the keyword's action: at its `}}`
                // (or the `if`/`with` an else chains).
                "else" => {
                    self.else_control()?;
                    Err(self.error(&self.peek_non_space(), "unexpected {{else}}"))
                }
                "end" => {
                    let close = self.end_control()?;
                    Err(self.error(&close, "unexpected {{end}}"))
                }
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

    fn enter(&mut self, t: &Token) -> Result<(), Error> {
        self.depth += 1;
        if self.depth > MAX_PARSE_DEPTH {
            return Err(self.error(t, "max expression depth exceeded"));
        }
        Ok(())
    }

    fn parse_branch(&mut self, kw: &Token, context: &str) -> Result<Branch, Error> {
        self.enter(kw)?;
        let branch = self.parse_branch_inner(kw, context);
        self.depth -= 1;
        branch
    }

    fn parse_branch_inner(&mut self, kw: &Token, context: &str) -> Result<Branch, Error> {
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
                        let at = self.else_end();
                        return Err(self.error(&at, "expected end; found {{else}}"));
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

    fn parse_template(&mut self, kw: &Token, block: bool) -> Result<Node, Error> {
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
        // Go reports an `{{else}}` ending a block's body from the outer tree, which stands at
        // the block action's `}}` (still lexed ahead: pieces end with an action).
        let close = if block {
            self.lex.tokens[self.at.min(self.lex.tokens.len())..]
                .iter()
                .find(|t| t.kind == Kind::RightDelim)
                .copied()
        } else {
            None
        };
        let pipe = if block || self.peek_non_space().kind != Kind::RightDelim {
            Some(self.parse_pipeline(context, Kind::RightDelim)?)
        } else {
            self.next_non_space();
            None
        };
        if block {
            let list = self.parse_body(context, close)?;
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
    fn parse_pipeline(&mut self, context: &str, end: Kind) -> Result<Pipe, Error> {
        let start = self.peek_non_space();
        let mut is_assign = false;
        // Declarations, as Go's `pipeline` reads them: `$x :=`, `$x =`, and in a range
        // `$i, $v :=`, whose second variable is read again as a first (a `$v` not followed by
        // `:=` or `=` is then the pipeline's operand, and `$i` its only declaration).
        let mut vars: Vec<Span> = Vec::new();
        while self.peek_non_space().kind == Kind::Variable {
            let save = self.at;
            let v = self.next_non_space();
            let after = self.peek_non_space();
            match after.kind {
                Kind::Declare | Kind::Assign => {
                    self.next_non_space();
                    is_assign = after.kind == Kind::Assign;
                    vars.push(Span::of_token(&v));
                    // Go's parser puts an assigned variable in scope too; assigning one never
                    // declared fails when it runs ("undefined variable: $x").
                    self.vars.push(v.text);
                    break;
                }
                Kind::Comma => {
                    self.next_non_space();
                    vars.push(Span::of_token(&v));
                    self.vars.push(v.text);
                    if context == "range" && vars.len() < 2 {
                        let next = self.peek_non_space();
                        if matches!(
                            next.kind,
                            Kind::Variable | Kind::RightDelim | Kind::RightParen
                        ) {
                            continue;
                        }
                        return Err(self.error(&next, "range can only initialize variables"));
                    }
                    return Err(self.error(&after, format!("too many declarations in {context}")));
                }
                _ => {
                    self.at = save;
                    break;
                }
            }
        }
        let decl = vars.into_boxed_slice();
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
        let cmds = take_from(&mut self.cmds, base);
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
    fn parse_command(&mut self, end: Kind) -> Result<Command, Error> {
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
            args: take_from(&mut self.args, base),
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

    fn parse_operand(&mut self) -> Result<Arg, Error> {
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
                        super::super::fmt::go_quote(&arg_string(&term, self.source))
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

    fn parse_term(&mut self) -> Result<Arg, Error> {
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

/// The items of a parser's stack from `base` on, taken off it: moved in one copy, where
/// collecting a drain moves them one at a time (a twentieth of parsing a chart's templates). The
/// stack keeps its capacity for the next node.
fn take_from<T>(stack: &mut Vec<T>, base: usize) -> Box<[T]> {
    if base == 0 {
        // `split_off(0)` would hand over the stack's whole capacity and allocate it anew.
        let mut taken = Vec::with_capacity(stack.len());
        taken.append(stack);
        taken.into_boxed_slice()
    } else {
        stack.split_off(base).into_boxed_slice()
    }
}

/// A token as Go's `item.String` prints it: keywords in angle brackets, the rest quoted (cut
/// after 10 characters). An error token is never described: its message is the error.
fn describe(t: &Token) -> String {
    match t.kind {
        Kind::Eof => "EOF".into(),
        Kind::Keyword | Kind::Nil | Kind::Dot => format!("<{}>", t.text),
        _ if t.text.chars().count() > 10 => {
            let cut: String = t.text.chars().take(10).collect();
            format!("{}...", super::super::fmt::go_quote(&cut))
        }
        _ => super::super::fmt::go_quote(t.text),
    }
}
