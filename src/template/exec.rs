//! The executor of Go's text/template (`text/template/exec.go`): walks a tree with a dot and
//! variables, evaluates pipelines, calls functions, and words errors as Go does
//! (`template: NAME:LINE:COL: executing "NAME" at <NODE>: MESSAGE`).

use super::fmt::print_action;
use super::parse::{
    arg_string, command_string, pipe_string, Arg, Branch, Command, Names, Node, Pipe, Tree,
};
use super::positions::{Marks, Read};
use super::value::{Dict, MapType, MethodSig, Value};
use super::{Error, ErrorKind, FuncError, MissingKey, Param, TemplateSet};
use crate::fxhash::FxHashMap;
use std::collections::BTreeSet;
use std::sync::Arc;

/// What a function gets besides its arguments: the running set (for `include`, `tpl`).
pub struct Call<'a> {
    pub set: &'a TemplateSet,
    /// How deep templates are nested now.
    pub depth: usize,
}

/// A template function: arguments in, a value or an error out.
pub type Func = fn(&Call, &[Value]) -> std::result::Result<Value, FuncError>;

thread_local! {
    /// Where the outermost execution on this thread started (for the stack budget).
    static STACK_BASE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// How many threads the execution running on this one continues (0 on the first).
    static SEGMENT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// The non-deterministic functions the outermost execution on this thread has called.
    static NONDETERMINISTIC: std::cell::RefCell<BTreeSet<&'static str>> =
        const { std::cell::RefCell::new(BTreeSet::new()) };
}

#[inline(never)]
fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// Stack used since the outermost execution on this thread began.
fn stack_used() -> usize {
    let base = STACK_BASE.with(|b| b.get());
    base.abs_diff(stack_address())
}

/// The stack of each thread deep recursion continues on, and what it may use of it.
const SEGMENT_STACK: usize = 64 << 20;
const SEGMENT_BUDGET: usize = 48 << 20;

/// True when this thread's stack budget is spent: the execution must continue on a new
/// thread ([`on_new_segment`]) or stop.
fn stack_spent(set: &TemplateSet) -> bool {
    let budget = match SEGMENT.with(std::cell::Cell::get) {
        0 => set.options.max_stack,
        _ => SEGMENT_BUDGET,
    };
    stack_used() > budget
}

/// The thread-local state of one execution, which goes with it to another thread.
struct Carried {
    nondeterministic: BTreeSet<&'static str>,
    included: FxHashMap<String, usize>,
    probing: bool,
    isolation: super::value::Isolation,
    segment: usize,
}

impl Carried {
    fn take() -> Carried {
        Carried {
            nondeterministic: NONDETERMINISTIC.with(|n| std::mem::take(&mut *n.borrow_mut())),
            included: super::funcs::helm::take_included(),
            probing: super::funcs::crypto::probing(),
            isolation: super::value::isolation(),
            segment: SEGMENT.with(std::cell::Cell::get),
        }
    }

    fn install(self) {
        NONDETERMINISTIC.with(|n| *n.borrow_mut() = self.nondeterministic);
        super::funcs::helm::restore_included(self.included);
        super::funcs::crypto::set_probing(self.probing);
        super::value::set_isolation(self.isolation);
        SEGMENT.with(|s| s.set(self.segment));
    }
}

/// Runs `f` on a new thread with a stack of its own, as the continuation of this thread's
/// execution (its include counts, non-deterministic calls and probing go along and come
/// back). `None` when the segments allowed are used up or the thread cannot start.
fn on_new_segment<T: Send>(set: &TemplateSet, f: impl FnOnce() -> T + Send) -> Option<T> {
    let segment = SEGMENT.with(std::cell::Cell::get);
    if segment >= set.options.max_stack_segments {
        return None;
    }
    let carried = Carried::take();
    let (restore, outcome) = std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("kdelta-template-stack".into())
            .stack_size(SEGMENT_STACK)
            .spawn_scoped(scope, move || {
                Carried {
                    segment: carried.segment + 1,
                    ..carried
                }
                .install();
                STACK_BASE.with(|b| b.set(stack_address()));
                let out = f();
                (out, Carried::take())
            });
        match spawned {
            Ok(handle) => match handle.join() {
                Ok((out, back)) => (Some(back), Ok(Some(out))),
                // Carried state is lost with the thread; the panic goes on up.
                Err(panic) => (None, Err(panic)),
            },
            Err(_) => (None, Ok(None)),
        }
    });
    match outcome {
        Ok(out) => {
            let back = restore.unwrap_or(Carried {
                nondeterministic: BTreeSet::new(),
                included: FxHashMap::default(),
                probing: false,
                isolation: super::value::isolation(),
                segment,
            });
            Carried { segment, ..back }.install();
            out
        }
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// Ends the outermost execution even when it unwinds.
struct OutermostGuard;

impl Drop for OutermostGuard {
    fn drop(&mut self) {
        STACK_BASE.with(|b| b.set(0));
    }
}

/// Runs `f` as an outermost execution (the stack budget counts from here) and returns, with
/// its result, the non-deterministic functions it called; nested executions report nothing.
pub(super) fn outermost<T>(f: impl FnOnce() -> T) -> (T, BTreeSet<&'static str>) {
    if STACK_BASE.with(|b| b.get()) != 0 {
        return (f(), BTreeSet::new());
    }
    STACK_BASE.with(|b| b.set(stack_address()));
    let _guard = OutermostGuard;
    super::funcs::helm::reset();
    NONDETERMINISTIC.with(|n| n.borrow_mut().clear());
    let out = f();
    (
        out,
        NONDETERMINISTIC.with(|n| std::mem::take(&mut *n.borrow_mut())),
    )
}

/// A `template` action of a tree of `text` as Go prints the node in errors.
fn template_node(name: &str, pipe: Option<&Pipe>, text: &str) -> String {
    match pipe {
        Some(p) => format!("{{{{template \"{name}\" {}}}}}", pipe_string(p, text)),
        None => format!("{{{{template \"{name}\"}}}}"),
    }
}

/// Control flow out of a list.
enum Flow {
    Normal,
    Break,
    Continue,
}

pub(super) struct State<'a> {
    set: &'a TemplateSet,
    tree: &'a Tree,
    /// Variables by name (the names are the tree's text, or `$`).
    vars: Vec<(&'a str, Value)>,
    out: &'a mut String,
    /// Where each write to `out` came from, when the set records positions.
    marks: Option<&'a mut Marks>,
    depth: usize,
    steps: &'a mut u64,
    /// Dot's static type is `interface {}`: it is an element of a `[]interface {}` or a value
    /// of a `map[string]interface {}` that `range` gives (Go words field errors with it).
    dot_interface: bool,
    /// Where dot was read, when positions are recorded and `with` or `range` made it a scalar
    /// read from a map or list (a map or list is known by its identity).
    dot_read: Option<Read>,
}

type Result<T> = std::result::Result<T, Error>;

/// Runs `tree` with `dot`, appending to `out` (and to `marks` where each write came from).
pub(super) fn execute(
    set: &TemplateSet,
    tree: &Tree,
    dot: &Value,
    out: &mut String,
    mut marks: Option<&mut Marks>,
    depth: usize,
    steps: &mut u64,
) -> Result<()> {
    // Nested executions (include, tpl) share the stack budget with `template`.
    if stack_spent(set) {
        let marks = marks.as_deref_mut();
        return on_new_segment(set, || execute(set, tree, dot, out, marks, depth, steps))
            .unwrap_or_else(|| {
                Err(ErrorKind::StackLimit {
                    template: tree.name.clone(),
                    depth,
                }
                .into())
            });
    }
    let mut state = State {
        set,
        tree,
        vars: vec![("$", dot.clone())],
        out,
        marks,
        depth,
        steps,
        dot_interface: false,
        dot_read: None,
    };
    state.walk_list(dot, &tree.root).map(|_| ())
}

impl<'a> State<'a> {
    fn error_at(&self, pos: usize, node: &str, message: impl std::fmt::Display) -> Error {
        ErrorKind::Exec {
            at: self.tree.location(pos),
            executing: self.tree.name.clone(),
            node: node.to_string(),
            message: message.to_string(),
        }
        .into()
    }

    fn step(&mut self, pos: usize) -> Result<()> {
        *self.steps += 1;
        if *self.steps > self.set.options.max_steps {
            return Err(self.error_at(pos, "", "execution budget exceeded"));
        }
        if self.out.len() > self.set.options.max_output {
            return Err(ErrorKind::OutputLimit {
                at: self.tree.location(pos),
                limit: self.set.options.max_output,
            }
            .into());
        }
        Ok(())
    }

    fn walk_list(&mut self, dot: &Value, list: &[Node]) -> Result<Flow> {
        for node in list {
            match self.walk(dot, node)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn walk(&mut self, dot: &Value, node: &Node) -> Result<Flow> {
        match node {
            Node::Text(t) => {
                if let Some(marks) = self.marks.as_deref_mut() {
                    marks.push(self.out.len(), self.tree, t.start, true);
                }
                self.out.push_str(t.of(&self.tree.text));
                Ok(Flow::Normal)
            }
            Node::Action(pipe) => {
                self.step(pipe.pos)?;
                let v = self.eval_pipeline(dot, pipe)?;
                if pipe.decl.is_empty() {
                    if self.marks.is_some() {
                        let read = self.read_of(dot, pipe);
                        if let Some(marks) = self.marks.as_deref_mut() {
                            marks.push(self.out.len(), self.tree, pipe.pos, false);
                            if let Some(read) = read {
                                marks.read(read);
                            }
                        }
                    }
                    self.out.push_str(&print_action(&v));
                }
                Ok(Flow::Normal)
            }
            Node::If(b) => self.walk_if_or_with(dot, b, false),
            Node::With(b) => self.walk_if_or_with(dot, b, true),
            Node::Range(b) => self.walk_range(dot, b),
            Node::Template(t) => {
                let (pos, name, pipe) = (&t.pos, t.name.as_str(), &t.pipe);
                let text = &self.tree.text;
                self.step(*pos)?;
                let Some(tree) = self.set.trees.get(name) else {
                    let node = template_node(name, pipe.as_ref(), text);
                    return Err(self.error_at(
                        *pos,
                        &node,
                        format!("template \"{name}\" not defined"),
                    ));
                };
                if self.depth + 1 >= self.set.options.max_depth {
                    let node = template_node(name, pipe.as_ref(), text);
                    return Err(self.error_at(
                        *pos,
                        &node,
                        format!(
                            "exceeded maximum template depth ({})",
                            self.set.options.max_depth
                        ),
                    ));
                }
                let new_dot = match pipe {
                    Some(p) => self.eval_pipeline(dot, p)?,
                    None => Value::Nil,
                };
                let tree = tree.clone();
                let (set, depth) = (self.set, self.depth + 1);
                let (out, steps) = (&mut *self.out, &mut *self.steps);
                let mut marks = self.marks.as_deref_mut();
                let mut run = || {
                    execute(
                        set,
                        &tree,
                        &new_dot,
                        out,
                        marks.as_deref_mut(),
                        depth,
                        steps,
                    )
                };
                if !stack_spent(set) {
                    run()?;
                } else if let Some(r) = on_new_segment(set, run) {
                    r?;
                } else {
                    return Err(self.error_at(
                        *pos,
                        &template_node(name, pipe.as_ref(), text),
                        format!(
                            "templates nested deeper than kdelta's stack allows ({depth} levels)"
                        ),
                    ));
                }
                Ok(Flow::Normal)
            }
            Node::Break => Ok(Flow::Break),
            Node::Continue => Ok(Flow::Continue),
        }
    }

    fn walk_if_or_with(&mut self, dot: &Value, b: &Branch, with: bool) -> Result<Flow> {
        self.step(b.pos)?;
        let mark = self.vars.len();
        let v = self.eval_pipeline(dot, &b.pipe)?;
        let flow = if v.truth() {
            if with {
                let outer = std::mem::replace(&mut self.dot_interface, false);
                let read = match self.marks.is_some() && !is_container(&v) {
                    true => self.read_of(dot, &b.pipe),
                    false => None,
                };
                let outer_read = std::mem::replace(&mut self.dot_read, read);
                let flow = self.walk_list(&v, &b.list);
                self.dot_interface = outer;
                self.dot_read = outer_read;
                flow?
            } else {
                self.walk_list(dot, &b.list)?
            }
        } else if let Some(else_list) = &b.else_list {
            self.walk_list(dot, else_list)?
        } else {
            Flow::Normal
        };
        self.vars.truncate(mark);
        Ok(flow)
    }

    fn walk_range(&mut self, dot: &Value, b: &Branch) -> Result<Flow> {
        self.step(b.pos)?;
        let mark = self.vars.len();
        let v = self.eval_pipeline_no_decl(dot, &b.pipe)?;
        // Go's `evalPipeline` first gives each variable the whole value: an empty range's else
        // sees them, and `=` assigns them (or fails on an undeclared one) even when nothing
        // iterates.
        let text: &'a str = &self.tree.text;
        // (after any its parentheses declared, which stay until the range ends)
        let decl_base = self.vars.len();
        for d in b.pipe.decl.iter() {
            self.bind(&b.pipe, d.of(text), v.clone())?;
        }
        let body_mark = self.vars.len();
        // What Go's `reflect` gives for each element: an `interface {}` for the elements of a
        // `[]interface {}` and the values of a `map[string]interface {}`.
        let elements_interface = match &v {
            Value::List(l) => l.ty == super::value::ListType::Any,
            Value::Map(m) => m.ty().is_interface_map(),
            _ => false,
        };
        let items: Vec<(Value, Value)> = match &v {
            Value::List(l) => l
                .iter()
                .enumerate()
                .map(|(i, x)| (Value::Int(i as i64), x.clone()))
                .collect(),
            Value::Map(m) => m
                .entries()
                .into_iter()
                .map(|(k, x)| (Value::str(k), x))
                .collect(),
            Value::NoValue | Value::Nil => Vec::new(),
            Value::Object(o) if o.0.items().is_some() => {
                o.0.items()
                    .unwrap_or_default()
                    .into_iter()
                    .enumerate()
                    .map(|(i, x)| (Value::Int(i as i64), x))
                    .collect()
            }
            other => {
                // Go's error names the node it evaluated last (`"1.2.3"` in
                // `range (semver "1.2.3")`).
                let (pos, at) = self.pipe_last_evaluated(&b.pipe);
                return Err(self.error_at(
                    pos,
                    &at,
                    format!(
                        "range can't iterate over {}",
                        super::fmt::sprint_value(other)
                    ),
                ));
            }
        };
        if items.is_empty() {
            let flow = match &b.else_list {
                Some(list) => self.walk_list(dot, list)?,
                None => Flow::Normal,
            };
            self.vars.truncate(mark);
            return Ok(match flow {
                Flow::Normal => Flow::Normal,
                // break/continue in a range's else belong to an outer range.
                other => other,
            });
        }
        // Where the items are, for the scalars among them, when positions are recorded.
        let container = match &v {
            Value::List(l) if self.marks.is_some() => Some(l.id()),
            Value::Map(m) if self.marks.is_some() => Some(m.id()),
            _ => None,
        };
        let outer_read = self.dot_read.take();
        for (key, item) in items {
            self.dot_read = match container {
                Some(container) if !is_container(&item) => Some(Read {
                    container,
                    key: Some(match &key {
                        Value::String(k) => Arc::clone(k),
                        k => Arc::from(super::fmt::sprint_value(k).as_str()),
                    }),
                }),
                _ => None,
            };
            self.step(b.pos)?;
            // The element (and first the index, with two variables) replaces the value each
            // variable was given: the ones declared here in place, assigned ones by name.
            let values: &[Value] = match *b.pipe.decl {
                [_] => std::slice::from_ref(&item),
                [_, _] => &[key, item.clone()],
                _ => &[],
            };
            for (i, (d, value)) in b.pipe.decl.iter().zip(values).enumerate() {
                if b.pipe.is_assign {
                    self.set_or_push(d.of(text), value.clone(), true);
                } else {
                    self.vars[decl_base + i].1 = value.clone();
                }
            }
            let outer = std::mem::replace(&mut self.dot_interface, elements_interface);
            let flow = self.walk_list(&item, &b.list);
            self.dot_interface = outer;
            // Variables of one iteration do not leak into the next.
            self.vars.truncate(body_mark);
            match flow? {
                Flow::Break => break,
                Flow::Continue | Flow::Normal => {}
            }
        }
        self.dot_read = outer_read;
        self.vars.truncate(mark);
        Ok(Flow::Normal)
    }

    /// Where the value of `pipe`, evaluated with `dot`, was read, when it is a value read from
    /// a map or list and printed as it is (only asked when positions are recorded). What is
    /// followed: field chains on dot or a variable (`.Values.a.b`, `$.Values.a`, `$v.a`),
    /// dot itself (a map or list by identity; a scalar `with` or `range` read), parenthesized
    /// pipelines, and the functions in [`passes_value`]; `default` follows the side that won.
    /// The chains are read again, without calling anything: a chain through a method or an
    /// object, a function's result or a variable holding a scalar is not followed.
    fn read_of(&self, dot: &Value, pipe: &Pipe) -> Option<Read> {
        let scope = ReadScope {
            tree: self.tree,
            dollar: None,
            dot_read: self.dot_read.clone(),
            includes: 0,
        };
        self.read_of_pipe(&scope, dot, pipe).map(|(read, _)| read)
    }

    /// [`Self::read_of`], with the value read when it is printed unchanged so far (`default`
    /// needs it to know which side won).
    fn read_of_pipe(
        &self,
        scope: &ReadScope,
        dot: &Value,
        pipe: &Pipe,
    ) -> Option<(Read, Option<Value>)> {
        if !pipe.decl.is_empty() {
            return None;
        }
        let mut carried = None;
        for (i, cmd) in pipe.cmds.iter().enumerate() {
            let piped = match i {
                0 => None,
                _ => Some(carried.take()?),
            };
            carried = Some(self.read_of_command(scope, dot, cmd, piped)?);
        }
        carried
    }

    fn read_of_command(
        &self,
        scope: &ReadScope,
        dot: &Value,
        cmd: &Command,
        piped: Option<(Read, Option<Value>)>,
    ) -> Option<(Read, Option<Value>)> {
        let first = cmd.args.first()?;
        let Arg::Identifier(name) = first else {
            // A value as a command takes no argument.
            if cmd.args.len() > 1 || piped.is_some() {
                return None;
            }
            return self.read_of_arg(scope, dot, first);
        };
        let given = &cmd.args[1..];
        let n = given.len() + usize::from(piped.is_some());
        let name = name.of(&scope.tree.text);
        if name == "include" {
            return self.read_of_include(scope, dot, given, piped);
        }
        let (arity, keeps) = passes_value(name)?;
        if n != arity {
            return None;
        }
        let mut piped = piped;
        let mut arg = |i: usize| match given.get(i) {
            Some(a) => self.read_of_arg(scope, dot, a),
            None => piped.take(),
        };
        match keeps {
            Passes::Default => {
                // sprig's `default DEFAULT GIVEN`: GIVEN unless it is empty.
                let given = arg(1);
                match given.as_ref().and_then(|(_, v)| v.as_ref()) {
                    Some(v) if !v.truth() => arg(0),
                    Some(_) => given,
                    None => None,
                }
            }
            Passes::Last { unchanged } => {
                let (read, value) = arg(n - 1)?;
                Some((read, value.filter(|_| unchanged)))
            }
        }
    }

    /// `include "NAME" ARG` whose template prints one action and nothing else (a helper such
    /// as `{{- .Values.namespaceOverride | default .Release.Namespace -}}`): where that
    /// action's value was read, the helper run with ARG as dot and `$`.
    fn read_of_include(
        &self,
        scope: &ReadScope,
        dot: &Value,
        given: &[Arg],
        piped: Option<(Read, Option<Value>)>,
    ) -> Option<(Read, Option<Value>)> {
        // Helpers that include helpers are followed a few levels, not without end.
        if scope.includes >= 8 {
            return None;
        }
        let (name, arg) = match (given, piped) {
            ([Arg::String(_, name), arg], None) => (name, self.arg_value(scope, dot, arg)?),
            ([Arg::String(_, name)], Some((read, Some(value)))) => (name, (Some(read), value)),
            _ => return None,
        };
        let tree = self.set.trees.get(name)?;
        let mut actions = tree.root.iter().filter(|n| match n {
            Node::Text(span) => !span.of(&tree.text).is_empty(),
            _ => true,
        });
        let (Some(Node::Action(pipe)), None) = (actions.next(), actions.next()) else {
            return None;
        };
        let (dot_read, dot) = arg;
        let inner = ReadScope {
            tree,
            dollar: Some(dot.clone()),
            dot_read: dot_read.filter(|_| !is_container(&dot)),
            includes: scope.includes + 1,
        };
        let (read, value) = self.read_of_pipe(&inner, &dot, pipe)?;
        // What the helper printed is a string: the value as read only when it was one.
        Some((read, value.filter(|v| matches!(v, Value::String(_)))))
    }

    /// An operand's value when it is read without calling anything (dot, `$`, a variable, a
    /// field chain through maps), with where it was read when it is a scalar read so.
    fn arg_value(
        &self,
        scope: &ReadScope,
        dot: &Value,
        arg: &Arg,
    ) -> Option<(Option<Read>, Value)> {
        match arg {
            Arg::Dot(_) => Some((scope.dot_read.clone(), dot.clone())),
            _ => {
                let (read, value) = self.read_of_arg(scope, dot, arg)?;
                let value = value?;
                let read = (!is_container(&value)).then_some(read);
                Some((read, value))
            }
        }
    }

    /// Where an operand's value was read, and the value.
    fn read_of_arg(
        &self,
        scope: &ReadScope,
        dot: &Value,
        arg: &Arg,
    ) -> Option<(Read, Option<Value>)> {
        let text: &str = &scope.tree.text;
        match arg {
            Arg::Dot(_) => {
                let read = container_read(dot).or_else(|| scope.dot_read.clone())?;
                Some((read, Some(dot.clone())))
            }
            Arg::Field(_, names) => read_fields(dot.clone(), *names, text),
            Arg::Variable(_, names) => {
                let (var, fields) = names.split_first(text);
                let v = match &scope.dollar {
                    // In an included helper only `$` is set: its dot.
                    Some(dollar) if var == "$" => dollar.clone(),
                    Some(_) => return None,
                    None => self.var(var),
                };
                if fields.is_empty() {
                    return Some((container_read(&v)?, Some(v)));
                }
                read_fields(v, fields, text)
            }
            Arg::Pipe(p) => self.read_of_pipe(scope, dot, p),
            _ => None,
        }
    }

    fn set_or_push(&mut self, name: &'a str, v: Value, assign: bool) {
        if assign {
            if let Some(slot) = self.vars.iter_mut().rev().find(|(n, _)| *n == name) {
                slot.1 = v;
                return;
            }
        }
        self.vars.push((name, v));
    }

    fn var(&self, name: &str) -> Value {
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or(Value::NoValue)
    }

    /// A range's pipeline: its variables are bound per iteration, not to the pipeline's value.
    fn eval_pipeline_no_decl(&mut self, dot: &Value, pipe: &Pipe) -> Result<Value> {
        let mut value = Value::NoValue;
        let mut first = true;
        for cmd in &pipe.cmds {
            let last = if first { None } else { Some(value.clone()) };
            value = self.eval_command(dot, pipe, cmd, last)?;
            first = false;
        }
        // Go unwraps the interface a pipeline yields: a nil becomes "no value".
        if value == Value::Nil {
            value = Value::NoValue;
        }
        Ok(value)
    }

    fn eval_pipeline(&mut self, dot: &Value, pipe: &Pipe) -> Result<Value> {
        let value = self.eval_pipeline_no_decl(dot, pipe)?;
        let text: &'a str = &self.tree.text;
        if let Some(name) = pipe.decl.first().map(|v| v.of(text)) {
            self.bind(pipe, name, value.clone())?;
        }
        Ok(value)
    }

    /// Declares (`:=`) or assigns (`=`) a variable of `pipe`. Assigning one never declared
    /// (the parser lets `$x = 1` through) fails at the node Go evaluated last.
    fn bind(&mut self, pipe: &Pipe, name: &'a str, value: Value) -> Result<()> {
        if pipe.is_assign && !self.vars.iter().any(|(n, _)| *n == name) {
            let (pos, at) = self.pipe_last_evaluated(pipe);
            return Err(self.error_at(pos, &at, format!("undefined variable: {name}")));
        }
        self.set_or_push(name, value, pipe.is_assign);
        Ok(())
    }

    /// Where Go's executor stood after evaluating `pipe`: the last argument of its last
    /// command (see [`last_evaluated`]).
    fn pipe_last_evaluated(&self, pipe: &Pipe) -> (usize, String) {
        match pipe.cmds.last().and_then(|c| c.args.last()) {
            Some(arg) => last_evaluated(arg, &self.tree.text),
            None => (pipe.pos, String::new()),
        }
    }

    fn eval_command(
        &mut self,
        dot: &Value,
        pipe: &Pipe,
        cmd: &Command,
        last: Option<Value>,
    ) -> Result<Value> {
        let first = &cmd.args[0];
        let has_args = cmd.args.len() > 1 || last.is_some();
        let text: &'a str = &self.tree.text;
        // The operand's text, for errors only.
        let node = || arg_string(first, text);
        match first {
            Arg::Identifier(name) => self.eval_function(dot, name.start, name.of(text), cmd, last),
            Arg::Field(pos, names) => {
                if let (true, Some((init, name))) = (has_args, names.split_last(text)) {
                    let reached =
                        self.reach_fields(*pos, dot.clone(), self.dot_interface, init, &node)?;
                    return self.call_method(dot, *pos, first, reached, Some(name), cmd, last);
                }
                self.eval_dot_fields(*pos, dot, *names, &node)
            }
            Arg::Variable(pos, names) => {
                let (var, fields) = names.split_first(text);
                let v = self.var(var);
                if fields.is_empty() {
                    self.not_a_function(first, has_args)?;
                } else if let (true, Some((init, name))) = (has_args, fields.split_last(text)) {
                    // `$.Files.Get "x"`: a method of what the variable's fields lead to.
                    let reached = self.reach_fields(*pos, v, false, init, &node)?;
                    return self.call_method(dot, *pos, first, reached, Some(name), cmd, last);
                }
                self.eval_fields(*pos, v, fields, &node)
            }
            Arg::Chain(pos, base, fields) => {
                let v = self.eval_arg(dot, base)?;
                // Go reports a field error at the node it evaluated last, inside the base
                // (also on the way to a method given arguments).
                let (at, at_node) = last_evaluated(base, text);
                if let (true, Some((init, name))) = (has_args, fields.split_last(text)) {
                    let reached = self.reach_fields(at, v, false, init, &|| at_node.clone())?;
                    return self.call_method(dot, *pos, first, reached, Some(name), cmd, last);
                }
                self.eval_fields(at, v, *fields, &|| at_node.clone())
            }
            Arg::Pipe(p) => {
                if has_args {
                    return Err(self.error_at(
                        pipe.pos,
                        &pipe_string(pipe, text),
                        format!(
                            "can't give argument to non-function {}",
                            pipe_string(p, text)
                        ),
                    ));
                }
                // A variable declared in the parentheses stays, as in Go, until the block
                // around the action ends.
                self.eval_pipeline(dot, p)
            }
            Arg::Nil(pos) => {
                self.not_a_function(first, has_args)?;
                Err(self.error_at(*pos, "nil", "nil is not a command"))
            }
            other => {
                self.not_a_function(other, has_args)?;
                self.eval_arg(dot, other)
            }
        }
    }

    /// A value used as a command cannot take arguments.
    fn not_a_function(&self, word: &Arg, has_args: bool) -> Result<()> {
        if has_args {
            let node = arg_string(word, &self.tree.text);
            return Err(self.error_at(
                word.pos(),
                &node,
                format!("can't give argument to non-function {node}"),
            ));
        }
        Ok(())
    }

    /// A field given arguments: a method of an object, called with them; an error on a map
    /// (maps have no methods).
    #[allow(clippy::too_many_arguments)]
    fn call_method(
        &mut self,
        dot: &Value,
        pos: usize,
        word: &Arg,
        (receiver, from_map): (Value, bool),
        name: Option<&str>,
        cmd: &Command,
        last: Option<Value>,
    ) -> Result<Value> {
        let Some(name) = name else {
            return self.eval_arg(dot, word);
        };
        let text: &'a str = &self.tree.text;
        // Go's evalCall stands at the field node to report a failed call; a field it cannot
        // evaluate is reported where it stood last, inside the base of a chain.
        let word_text = || arg_string(word, text);
        let (field_pos, field_node) = match word {
            Arg::Chain(_, base, _) => last_evaluated(base, text),
            _ => (pos, word_text()),
        };
        let mut args = Vec::new();
        let object = match &receiver {
            Value::Object(o) => o,
            Value::Map(m) if m.method(name).is_some() => {
                for a in &cmd.args[1..] {
                    args.push(self.eval_typed_arg(dot, a, Param::Any)?);
                }
                args.extend(last);
                return self.call_map_method(pos, &word_text, m, name, &args);
            }
            Value::Map(_) => {
                return Err(self.error_at(
                    field_pos,
                    &field_node,
                    format!("{name} is not a method but has arguments"),
                ));
            }
            // No value at all (Go's invalid reflect.Value): a field of it is no value, whatever
            // the arguments.
            Value::NoValue => {
                if self.set.options.missing_key == MissingKey::Error {
                    return Err(self.error_at(
                        field_pos,
                        &field_node,
                        format!("nil data; no entry for key \"{name}\""),
                    ));
                }
                return Ok(Value::NoValue);
            }
            Value::Nil => {
                return Err(self.error_at(
                    field_pos,
                    &field_node,
                    format!("nil pointer evaluating interface {{}}.{name}"),
                ));
            }
            // Neither a map nor a value with methods: Go names the type it reached, which is
            // `interface {}` for anything found in a map.
            other => {
                let ty = if from_map {
                    "interface {}"
                } else {
                    other.type_name()
                };
                return Err(self.error_at(
                    field_pos,
                    &field_node,
                    format!("can't evaluate field {name} in type {ty}"),
                ));
            }
        };
        let o = object;
        let no_such_field = || {
            let ty = if from_map {
                "interface {}"
            } else {
                o.0.type_name()
            };
            format!("can't evaluate field {name} in type {ty}")
        };
        // Go looks the member up before it evaluates the arguments, counts them, checks the
        // signature, then types each argument from its parameter (a piped value is validated
        // last); a field given arguments is refused where it stands.
        let given = cmd.args.len() - 1 + usize::from(last.is_some());
        let params = match o.0.signature(name) {
            None => return Err(self.error_at(field_pos, &field_node, no_such_field())),
            Some(MethodSig::Field) => {
                let error = MethodSig::Field.error(name, given);
                return Err(self.error_at(field_pos, &field_node, error));
            }
            Some(MethodSig::Params(params)) if params.len() == given => params,
            Some(sig) => return Err(self.error_at(pos, &word_text(), sig.error(name, given))),
        };
        for (a, param) in cmd.args[1..].iter().zip(params) {
            args.push(self.eval_typed_arg(dot, a, *param)?);
        }
        if let Some(last) = last {
            let param = params[params.len() - 1];
            args.push(self.validate(|| (pos, word_text()), last, param)?);
        }
        match o.0.call(name, &args) {
            Some(r) => r.map_err(|e| {
                self.error_at(pos, &word_text(), format!("error calling {name}: {e}"))
            }),
            None => Err(self.error_at(field_pos, &field_node, no_such_field())),
        }
    }

    /// A method of a named map type (Helm's `.Values.AsMap`).
    fn call_map_method(
        &self,
        pos: usize,
        node: &dyn Fn() -> String,
        m: &Dict,
        name: &str,
        args: &[Value],
    ) -> Result<Value> {
        let named = m.method(name).expect("called only for a method");
        (named.call)(m, name, args).map_err(|e| match e {
            FuncError::Call(e) => self.error_at(pos, &node(), format!("error calling {name}: {e}")),
            FuncError::Plain(e) => self.error_at(pos, &node(), e),
            FuncError::Raw(e) => e,
        })
    }

    fn eval_arg(&mut self, dot: &Value, arg: &Arg) -> Result<Value> {
        let text: &'a str = &self.tree.text;
        // The operand's text, for errors only.
        let node = || arg_string(arg, text);
        Ok(match arg {
            Arg::Dot(_) => dot.clone(),
            Arg::Nil(_) => Value::Nil,
            Arg::Bool(_, b) => Value::Bool(*b),
            Arg::String(_, s) => Value::String(s.clone()),
            Arg::Number(pos, n) => {
                // A complex constant is a complex128 wherever it is not converted.
                if let Some((re, im)) = n.complex {
                    return Ok(Value::Complex(re, im));
                }
                let written = n.text.of(text);
                if n.is_float && !n.hex_int && !written.starts_with('\'') {
                    Value::Float(n.float.unwrap_or_default())
                } else if let Some(i) = n.int {
                    Value::Int(i)
                } else {
                    return Err(self.error_at(*pos, written, format!("{written} overflows int")));
                }
            }
            Arg::Field(pos, names) => self.eval_dot_fields(*pos, dot, *names, &node)?,
            Arg::Variable(pos, names) => {
                let (var, fields) = names.split_first(text);
                let v = self.var(var);
                self.eval_fields(*pos, v, fields, &node)?
            }
            Arg::Chain(_, base, fields) => {
                let v = self.eval_arg(dot, base)?;
                // As a command's chain: a field error is at the node evaluated last.
                let (at, at_node) = last_evaluated(base, &self.tree.text);
                self.eval_fields(at, v, *fields, &|| at_node.clone())?
            }
            Arg::Pipe(p) => {
                // A variable declared in the parentheses stays, as in Go, until the block
                // around the action ends.
                self.eval_pipeline(dot, p)?
            }
            Arg::Identifier(name) => {
                // A function used as an argument is called without arguments.
                let cmd = Command {
                    pos: name.start,
                    args: Box::new([arg.clone()]),
                };
                self.eval_function(dot, name.start, name.of(text), &cmd, None)?
            }
        })
    }

    /// An argument for a parameter of type `param` (Go's `evalArg`): a literal takes the
    /// parameter's type, any other value must have it.
    fn eval_typed_arg(&mut self, dot: &Value, arg: &Arg, param: Param) -> Result<Value> {
        // The argument's text, for errors only.
        let node = || arg_string(arg, &self.tree.text);
        let pos = arg.pos();
        let literal_error = |what: &str| format!("expected {what}; found {}", node());
        match (param, arg) {
            (Param::String, Arg::String(_, s)) => return Ok(Value::String(s.clone())),
            // Go's `evalArg` takes `nil` first: only a map, slice or interface can hold it.
            (
                Param::String | Param::Int | Param::Int64 | Param::Float64 | Param::Bool,
                Arg::Nil(_),
            ) => {
                let ty = match param {
                    Param::String => "string",
                    Param::Int => "int",
                    Param::Int64 => "int64",
                    Param::Float64 => "float64",
                    _ => "bool",
                };
                return Err(self.error_at(pos, &node(), format!("cannot assign nil to {ty}")));
            }
            (Param::String, Arg::Number(..) | Arg::Bool(..)) => {
                return Err(self.error_at(pos, &node(), literal_error("string")))
            }
            (Param::Int | Param::Int64, Arg::Number(_, n)) => {
                return match n.int {
                    Some(i) if param == Param::Int => Ok(Value::Int(i)),
                    Some(i) => Ok(Value::Int64(i)),
                    None => Err(self.error_at(pos, &node(), literal_error("integer"))),
                }
            }
            (Param::Int | Param::Int64, Arg::String(..) | Arg::Bool(..)) => {
                return Err(self.error_at(pos, &node(), literal_error("integer")))
            }
            (Param::Float64, Arg::Number(_, n)) => {
                return match n.float {
                    Some(f) => Ok(Value::Float(f)),
                    None => Err(self.error_at(pos, &node(), literal_error("float"))),
                }
            }
            (Param::Float64, Arg::String(..) | Arg::Bool(..)) => {
                return Err(self.error_at(pos, &node(), literal_error("float")))
            }
            (Param::Bool, Arg::Bool(_, b)) => return Ok(Value::Bool(*b)),
            (Param::Bool, Arg::String(..) | Arg::Number(..)) => {
                return Err(self.error_at(pos, &node(), literal_error("bool")))
            }
            (Param::Map, Arg::String(..) | Arg::Number(..) | Arg::Bool(..)) => {
                return Err(self.error_at(
                    pos,
                    &node(),
                    format!(
                        "can't handle {} for arg of type map[string]interface {{}}",
                        node()
                    ),
                ))
            }
            (Param::Object(ty), Arg::String(..) | Arg::Number(..) | Arg::Bool(..)) => {
                return Err(self.error_at(
                    pos,
                    &node(),
                    format!("can't handle {} for arg of type {ty}", node()),
                ))
            }
            // Only a pointer or a slice can be nil.
            (Param::Object(ty), Arg::Nil(_)) if can_be_nil(ty) => return Ok(Value::Nil),
            (Param::Object(ty) | Param::NamedInt(ty), Arg::Nil(_)) => {
                return Err(self.error_at(pos, &node(), format!("cannot assign nil to {ty}")))
            }
            (Param::NamedInt(_), Arg::Number(_, n)) => {
                return match n.int {
                    Some(i) => Ok(Value::Int(i)),
                    None => Err(self.error_at(pos, &node(), literal_error("integer"))),
                }
            }
            (Param::NamedInt(_), Arg::String(..) | Arg::Bool(..)) => {
                return Err(self.error_at(pos, &node(), literal_error("integer")))
            }
            (Param::Any, Arg::Nil(_)) => return Ok(Value::Nil),
            // `reflect.Zero` of a map type: a nil map.
            (Param::Map, Arg::Nil(_)) => return Ok(Value::Map(Dict::nil(MapType::Any))),
            // `reflect.Zero` of `reflect.Value`: the builtin gets an invalid value (`len nil`
            // is Go's "call of reflect.Value.Type on zero Value").
            (Param::Value, Arg::Nil(_)) => return Ok(Value::NoValue),
            _ => {}
        }
        let v = self.eval_arg(dot, arg)?;
        self.validate(|| last_evaluated(arg, &self.tree.text), v, param)
    }

    /// Go's `validateType`: a value for a typed parameter.
    fn validate(&self, at: impl Fn() -> (usize, String), v: Value, param: Param) -> Result<Value> {
        // Where the value came from is only worded when it does not fit.
        let fail = |message: String| {
            let (pos, node) = at();
            self.error_at(pos, &node, message)
        };
        let go = match param {
            Param::Any => {
                return Ok(match v {
                    Value::NoValue => Value::Nil,
                    other => other,
                })
            }
            // Go's `canBeNil` accepts an invalid value for a `reflect.Value` parameter: the
            // function receives it as is (`not (or .missing)` is true).
            Param::Value => return Ok(v),
            Param::String => "string",
            Param::Int => "int",
            Param::Int64 => "int64",
            Param::Float64 => "float64",
            Param::Bool => "bool",
            Param::Object(ty) | Param::NamedInt(ty) => {
                return match v {
                    Value::Object(ref o) if o.0.type_name() == ty => Ok(v),
                    Value::NoValue if can_be_nil(ty) => Ok(Value::Nil),
                    Value::NoValue => Err(fail(format!("invalid value; expected {ty}"))),
                    Value::Nil => Err(fail(format!(
                        "wrong type for value; expected {ty}; got interface {{}}"
                    ))),
                    other => Err(fail(format!(
                        "wrong type for value; expected {ty}; got {}",
                        other.type_name()
                    ))),
                };
            }
            Param::Map => {
                return match v {
                    // A named map type converts (`chartutil.Values`), `map[string]string` not.
                    Value::Map(ref m) if m.ty().is_interface_map() => Ok(v),
                    // A missing value is a nil map.
                    Value::NoValue => Ok(Value::map(Default::default())),
                    Value::Nil => Err(fail(
                        "wrong type for value; expected map[string]interface {}; got interface {}"
                            .to_string(),
                    )),
                    other => Err(fail(format!(
                        "wrong type for value; expected map[string]interface {{}}; got {}",
                        other.type_name()
                    ))),
                };
            }
        };
        let fits = matches!(
            (param, &v),
            (Param::String, Value::String(_))
                | (Param::Int, Value::Int(_))
                | (Param::Int64, Value::Int64(_))
                | (Param::Float64, Value::Float(_))
                | (Param::Bool, Value::Bool(_))
        );
        if fits {
            return Ok(v);
        }
        let got = match &v {
            Value::NoValue => return Err(fail(format!("invalid value; expected {go}"))),
            Value::Nil => "interface {}",
            other => other.type_name(),
        };
        Err(fail(format!(
            "wrong type for value; expected {go}; got {got}"
        )))
    }

    /// Follows `.a.b` from `receiver`. The receiver has its own type; what a map gives is an
    /// `interface {}` (which is how Go words the errors).
    fn eval_fields(
        &mut self,
        pos: usize,
        receiver: Value,
        names: Names,
        node: &dyn Fn() -> String,
    ) -> Result<Value> {
        self.reach_fields(pos, receiver, false, names, node)
            .map(|(v, _)| v)
    }

    /// [`Self::eval_fields`] on dot, whose static type may be `interface {}`.
    fn eval_dot_fields(
        &mut self,
        pos: usize,
        dot: &Value,
        names: Names,
        node: &dyn Fn() -> String,
    ) -> Result<Value> {
        self.reach_fields(pos, dot.clone(), self.dot_interface, names, node)
            .map(|(v, _)| v)
    }

    /// Follows `.a.b` from `receiver`: the value reached, and whether its static type is
    /// `interface {}` (it was found in a map; or no field was followed and the receiver's is).
    fn reach_fields(
        &mut self,
        pos: usize,
        receiver: Value,
        receiver_interface: bool,
        names: Names,
        node: &dyn Fn() -> String,
    ) -> Result<(Value, bool)> {
        let text: &'a str = &self.tree.text;
        let mut v = receiver;
        // Whether the value at hand has the static type `interface {}` (it was found in a map,
        // or is such a dot): Go names that type, not the value's, when it has no such field.
        let mut via_interface = receiver_interface;
        for (hop, name) in names.iter(text).enumerate() {
            let from_map = matches!(&v, Value::Map(m) if m.method(name).is_none());
            let named = |type_name: &'static str| {
                if via_interface {
                    "interface {}"
                } else {
                    type_name
                }
            };
            v = match v {
                Value::Map(m) if m.method(name).is_some() => {
                    self.call_map_method(pos, node, &m, name, &[])?
                }
                Value::Map(m) => match m.get(name) {
                    Some(x) => x,
                    None => match self.set.options.missing_key {
                        MissingKey::Default => Value::NoValue,
                        MissingKey::Zero => m.ty().zero(),
                        MissingKey::Error => {
                            return Err(self.error_at(
                                pos,
                                &node(),
                                format!("map has no entry for key \"{name}\""),
                            ))
                        }
                    },
                },
                Value::NoValue => {
                    if self.set.options.missing_key == MissingKey::Error {
                        return Err(self.error_at(
                            pos,
                            &node(),
                            format!("nil data; no entry for key \"{name}\""),
                        ));
                    }
                    Value::NoValue
                }
                Value::Object(o) => {
                    // A method reached as a field is called without arguments.
                    let sig = o.0.signature(name);
                    if let Some(sig) = sig.filter(MethodSig::refuses_none) {
                        return Err(self.error_at(pos, &node(), sig.error(name, 0)));
                    }
                    match sig.and_then(|_| o.0.call(name, &[])) {
                        Some(r) => r.map_err(|e| {
                            self.error_at(pos, &node(), format!("error calling {name}: {e}"))
                        })?,
                        None => {
                            let ty = named(o.0.type_name());
                            return Err(self.error_at(
                                pos,
                                &node(),
                                format!("can't evaluate field {name} in type {ty}"),
                            ));
                        }
                    }
                }
                Value::Nil if hop == 0 => Value::NoValue,
                Value::Nil => {
                    return Err(self.error_at(
                        pos,
                        &node(),
                        format!("nil pointer evaluating interface {{}}.{name}"),
                    ))
                }
                other => {
                    return Err(self.error_at(
                        pos,
                        &node(),
                        format!(
                            "can't evaluate field {name} in type {}",
                            named(other.type_name())
                        ),
                    ));
                }
            };
            via_interface = from_map;
        }
        Ok((v, via_interface))
    }

    fn eval_function(
        &mut self,
        dot: &Value,
        pos: usize,
        name: &str,
        cmd: &Command,
        last: Option<Value>,
    ) -> Result<Value> {
        // The command's text, for errors only.
        let node = || command_string(cmd, &self.tree.text);
        // `and` and `or` evaluate their arguments only as far as needed.
        if name == "and" || name == "or" {
            let mut args: Vec<&Arg> = cmd.args[1..].iter().collect();
            let n = args.len() + usize::from(last.is_some());
            if n < 1 {
                return Err(self.error_at(
                    pos,
                    &node(),
                    format!("wrong number of args for {name}: want at least 1 got 0"),
                ));
            }
            let mut value = Value::NoValue;
            for a in args.drain(..) {
                value = self.eval_arg(dot, a)?;
                if value.truth() == (name == "or") {
                    return Ok(value);
                }
            }
            if let Some(l) = last {
                value = l;
            }
            return Ok(value);
        }
        let Some(def) = self.set.funcs.get(name).copied() else {
            return Err(self.error_at(
                pos,
                &node(),
                format!("\"{name}\" is not a defined function"),
            ));
        };
        let given = &cmd.args[1..];
        let n = given.len() + usize::from(last.is_some());
        let fixed = def.params.len();
        if def.variadic.is_some() {
            // Go reports an arity error at the function's identifier, not the command.
            if n < fixed {
                return Err(self.error_at(
                    pos,
                    name,
                    format!(
                        "wrong number of args for {name}: want at least {fixed} got {}",
                        given.len()
                    ),
                ));
            }
        } else if n != fixed {
            return Err(self.error_at(
                pos,
                name,
                format!("wrong number of args for {name}: want {fixed} got {n}"),
            ));
        }
        let param = |i: usize| {
            def.params
                .get(i)
                .copied()
                .or(def.variadic)
                .unwrap_or(Param::Any)
        };
        let mut args = Vec::with_capacity(n);
        for (i, a) in given.iter().enumerate() {
            let v = self.eval_typed_arg(dot, a, param(i))?;
            args.push(v);
        }
        if let Some(l) = last {
            // Go's pipeline makes a nil interface an invalid value between commands (`invalid
            // value; expected string`, where an argument's nil is `got interface {}`), and the
            // error names the node evaluated last: the last argument, else the function.
            let l = match (l, param(given.len())) {
                (
                    Value::Nil,
                    Param::String
                    | Param::Int
                    | Param::Int64
                    | Param::Float64
                    | Param::Bool
                    | Param::Map
                    | Param::Value,
                ) => Value::NoValue,
                (l, _) => l,
            };
            let text = &self.tree.text;
            let at = || match given.last() {
                Some(a) => last_evaluated(a, text),
                None => (cmd.pos, node()),
            };
            let v = self.validate(at, l, param(given.len()))?;
            args.push(v);
        }
        if name == "call" {
            // Go 1.23 names the callee by its argument node, which a piped callee does not
            // have: the index panics.
            if given.is_empty() && !args.is_empty() {
                return Err(ErrorKind::Panic {
                    at: self.tree.location(cmd.pos),
                    message: "index out of range [0] with length 0".into(),
                }
                .into());
            }
            if let (Some(v), Some(a)) = (args.first(), given.first()) {
                if !matches!(v, Value::Nil | Value::NoValue) {
                    return Err(self.error_at(
                        cmd.pos,
                        &node(),
                        format!(
                            "error calling call: non-function {} of type {}",
                            arg_string(a, &self.tree.text),
                            v.type_name()
                        ),
                    ));
                }
            }
        }
        if def.nondeterministic {
            NONDETERMINISTIC.with(|n| n.borrow_mut().insert(def.name));
        }
        let f = def.f;
        let call = Call {
            set: self.set,
            depth: self.depth,
        };
        f(&call, &args).map_err(|e| match e {
            FuncError::Call(m) => {
                self.error_at(cmd.pos, &node(), format!("error calling {name}: {m}"))
            }
            FuncError::Plain(m) => self.error_at(cmd.pos, &node(), m),
            FuncError::Raw(e) => e,
        })
    }
}

/// The template whose operands [`State::read_of`] reads: the running one, or a helper an
/// `include` runs.
struct ReadScope<'t> {
    tree: &'t Tree,
    /// `$` of an included helper (its dot); None in the running template, whose variables
    /// are the state's.
    dollar: Option<Value>,
    /// Where dot was read, when it is a scalar read from a map or list.
    dot_read: Option<Read>,
    /// How many includes deep.
    includes: usize,
}

/// True for a map or a list: a value known by its identity.
fn is_container(v: &Value) -> bool {
    matches!(v, Value::Map(_) | Value::List(_))
}

/// A map or list read as itself.
fn container_read(v: &Value) -> Option<Read> {
    let container = match v {
        Value::Map(m) => m.id(),
        Value::List(l) => l.id(),
        _ => return None,
    };
    Some(Read {
        container,
        key: None,
    })
}

/// Follows the field chain `names` from `v` through maps only (no method, no object), as
/// [`State::eval_fields`] would: the entry reached and its value; None when a step is not a
/// map's entry.
fn read_fields(v: Value, names: Names, text: &str) -> Option<(Read, Option<Value>)> {
    let mut v = v;
    let mut last = None;
    for name in names.iter(text) {
        let next = match &v {
            Value::Map(m) if m.method(name).is_none() => {
                let next = m.get(name)?;
                last = Some((m.id(), name));
                next
            }
            _ => return None,
        };
        v = next;
    }
    let (container, key) = last?;
    Some((
        Read {
            container,
            key: Some(Arc::from(key)),
        },
        Some(v),
    ))
}

/// How a function passes a value on to what it prints.
enum Passes {
    /// Its last argument's value, as it is (`unchanged`) or in another form (quoted, as YAML,
    /// indented, cut short).
    Last { unchanged: bool },
    /// `default`: the given value, or the default when it is empty.
    Default,
}

/// The functions whose result is their argument's value in printed form, with the number of
/// arguments they take: a field they print is the field read. Others (`include`, `tpl`,
/// `printf`, `b64enc`, `upper`…) make new text, which stays at the template.
fn passes_value(name: &str) -> Option<(usize, Passes)> {
    let changed = Passes::Last { unchanged: false };
    Some(match name {
        "quote" | "squote" | "toString" | "toYaml" | "toYamlPretty" | "toJson" | "mustToJson"
        | "toRawJson" | "mustToRawJson" | "toPrettyJson" | "mustToPrettyJson" | "int" | "int64"
        | "float64" | "trim" => (1, changed),
        "nindent" | "indent" | "trunc" | "trimSuffix" | "trimPrefix" => (2, changed),
        "required" => (2, Passes::Last { unchanged: true }),
        "default" => (2, Passes::Default),
        _ => return None,
    })
}

/// The node Go's executor last stood at after evaluating `arg`, which its type errors name:
/// for a parenthesized pipeline, the last argument of its last command (or that command's name).
fn last_evaluated(arg: &Arg, text: &str) -> (usize, String) {
    match arg {
        Arg::Pipe(p) => match p.cmds.last() {
            Some(cmd) => match cmd.args.last() {
                Some(a) => last_evaluated(a, text),
                None => (p.pos, pipe_string(p, text)),
            },
            None => (p.pos, pipe_string(p, text)),
        },
        other => (other.pos(), arg_string(other, text)),
    }
}

/// Go's `canBeNil` for the type of an object parameter: a pointer or a slice.
fn can_be_nil(ty: &str) -> bool {
    ty.starts_with('*') || ty.starts_with("[]")
}
