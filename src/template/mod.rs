//! Go's text/template, natively: lexer, parser and executor with Go's semantics (Go 1.23),
//! Go's `fmt` printing, and function sets the caller picks. A library module: it knows nothing
//! of Helm or Argo CD, which add their functions on top.

pub mod bytes;
mod exec;
mod fmt;
mod funcs;
pub mod gostr;
mod lex;
mod parse;
mod positions;
mod value;

pub use crate::semver::satisfies as semver_satisfies;
pub use exec::{Call, Func};
pub use fmt::{format_float_shortest, sprint, sprint_value, sprintf};
pub use funcs::crypto::probe;
pub use funcs::dates::Time as GoTime;
pub use funcs::helm::{
    chart_values, check_json as helm_check_json, from_yaml as helm_values,
    from_yaml_events as helm_values_by_events, from_yaml_nodes as helm_values_by_nodes, helm_error,
    plain_key_may_fail as helm_plain_key_may_fail,
    plain_may_be_non_finite as helm_plain_may_be_non_finite, to_yaml as helm_to_yaml,
    yaml_node as helm_yaml_node, yaml_to_json as sigs_yaml_to_json, HelmYamlError, CHART_VALUES,
};
pub use funcs::json_scan::check_valid as go_json_check_valid;
pub use funcs::paths::clean as go_path_clean;
pub use positions::{Printed, Read, Written};
pub use value::{
    Dict, Field, GoStruct, LazyEntries, List, ListType, MapType, MapValues, MethodSig, NamedMap,
    Object, ObjectRef, Value,
};

use crate::fxhash::FxHashMap;
use crate::once::Shared;
use parse::Tree;
use std::sync::Arc;

/// What a missing map key gives (`missingkey=`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MissingKey {
    /// `<no value>` (Go's default).
    #[default]
    Default,
    /// The zero value of the map's element type: nil for Helm's `map[string]interface{}`.
    Zero,
    /// An error.
    Error,
}

/// Execution options and limits.
#[derive(Clone, Debug)]
pub struct Options {
    pub missing_key: MissingKey,
    /// Deepest nesting of `template` (Go's limit is 100000).
    pub max_depth: usize,
    /// Stack bytes nested templates may use on the thread that runs them (keep it well under
    /// that thread's stack: 8 MiB for kdelta's workers). Go grows its stacks; a Rust thread
    /// cannot, so deeper recursion continues on new threads with stacks of their own, up to
    /// `max_stack_segments` of them, then ends with an error rather than in an overflow.
    pub max_stack: usize,
    /// Threads deep recursion may continue on, each with a 64 MiB stack of which it uses
    /// 48 MiB (reserved, not committed: only the recursion's depth costs memory). The default
    /// lets Go's depth limit (100000 `template` calls) be reached first.
    pub max_stack_segments: usize,
    /// Evaluation steps before execution stops with an error.
    pub max_steps: u64,
    /// Largest output in bytes.
    pub max_output: usize,
    pub left_delim: String,
    pub right_delim: String,
    /// The set's own name (Go's `template.New(name)`), which errors about a missing template
    /// name: Helm's is `gotpl`. Empty: the first template parsed.
    pub root_name: String,
    /// Record where each line of a rendered template's output was written
    /// ([`Rendered::lines`]).
    pub positions: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            missing_key: MissingKey::Default,
            max_depth: 100_000,
            max_stack: 1024 * 1024,
            max_stack_segments: 16,
            max_steps: 50_000_000,
            max_output: 256 * 1024 * 1024,
            left_delim: "{{".into(),
            right_delim: "}}".into(),
            root_name: String::new(),
            positions: false,
        }
    }
}

/// Where in a template's text an error is, as Go's messages name it: the name of the text
/// parsed (a `define`d template's is its file's), the line, and for execution errors the
/// column (the byte offset in the line; Go's parse errors give none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub template: String,
    pub line: usize,
    pub column: Option<usize>,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.template, self.line)?;
        match self.column {
            Some(column) => write!(f, ":{column}"),
            None => Ok(()),
        }
    }
}

/// A parse or execution error, worded as Go words it. Boxed: the parser and the executor
/// recurse with it in every result, and their frames stay small.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(transparent)]
pub struct Error(Box<ErrorKind>);

/// What went wrong, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    /// A text that does not parse (`at` has no column).
    #[error("template: {at}: {message}")]
    Parse { at: Location, message: String },
    /// Execution failed at a node of template `executing` (Go's `ErrorContext`): a function's
    /// error, a nil pointer, a missing template, kdelta's step budget.
    #[error("template: {at}: executing \"{executing}\" at <{node}>: {message}")]
    Exec {
        at: Location,
        executing: String,
        /// The node as Go prints it.
        node: String,
        message: String,
    },
    /// The output grew past [`Options::max_output`].
    #[error("template: {at}: output larger than {limit} bytes")]
    OutputLimit { at: Location, limit: usize },
    /// Nested executions outgrew the stack segments [`Options::max_stack_segments`] allows.
    #[error(
        "template: {template}: templates nested deeper than kdelta's stack allows ({depth} levels)"
    )]
    StackLimit { template: String, depth: usize },
    /// A Go runtime panic in the executor itself, outside any function (`{{ x | call }}`
    /// indexes an empty argument list). It unwinds every execution up to the nearest
    /// function call (`include`, `tpl`), whose error it becomes, or out of the render.
    #[error("runtime error: {message}")]
    Panic { at: Location, message: String },
    /// No template of that name (Go's `ExecuteTemplate`).
    #[error("template: no template \"{name}\" associated with template \"{root}\"")]
    NoTemplate { name: String, root: String },
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Error {
        Error(Box::new(kind))
    }
}

impl Error {
    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0
    }

    /// Where the error is, when its message says: the outermost position, which nested
    /// executions (`include`, `tpl`) wrap their own errors in.
    pub fn location(&self) -> Option<&Location> {
        match self.kind() {
            ErrorKind::Parse { at, .. }
            | ErrorKind::Exec { at, .. }
            | ErrorKind::OutputLimit { at, .. }
            | ErrorKind::Panic { at, .. } => Some(at),
            ErrorKind::StackLimit { .. } | ErrorKind::NoTemplate { .. } => None,
        }
    }
}

/// How a function fails.
#[derive(Clone, Debug)]
pub enum FuncError {
    /// Worded `error calling NAME: MESSAGE` at the call.
    Call(String),
    /// A message of the executor itself at the call (wrong number of arguments…).
    Plain(String),
    /// An error of a nested execution, passed on as it is.
    Raw(Error),
}

/// The Go type of a function parameter, which decides how the executor converts an argument
/// (Go's `evalArg`): literals are typed from the parameter, other values must already have it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// `interface{}`: anything; a missing value is passed as nil.
    Any,
    /// `reflect.Value` (the builtins): anything but a missing value.
    Value,
    String,
    /// Go's `int`.
    Int,
    Int64,
    Float64,
    Bool,
    /// `map[string]interface{}`.
    Map,
    /// A struct or pointer type of an [`value::Object`] (`time.Time`, `*semver.Version`): a
    /// literal is refused, a value must be an object of that type.
    Object(&'static str),
    /// A named integer type of an object (`time.Duration`): an integer literal is taken as
    /// an `Int`, a value must be an object of that type.
    NamedInt(&'static str),
}

/// A function with its Go signature.
#[derive(Clone, Copy)]
pub struct FuncDef {
    pub name: &'static str,
    pub params: &'static [Param],
    /// The type of `...` parameters, for a variadic function.
    pub variadic: Option<Param>,
    pub f: Func,
    /// Gives another result on every call (`now`, `randAlpha`, `genCA`): an execution that
    /// calls it says so ([`Rendered::nondeterministic`]).
    pub nondeterministic: bool,
}

impl FuncDef {
    /// A function of fixed arity.
    pub const fn new(name: &'static str, params: &'static [Param], f: Func) -> FuncDef {
        FuncDef {
            name,
            params,
            variadic: None,
            f,
            nondeterministic: false,
        }
    }

    /// A variadic function.
    pub const fn variadic(
        name: &'static str,
        params: &'static [Param],
        rest: Param,
        f: Func,
    ) -> FuncDef {
        FuncDef {
            name,
            params,
            variadic: Some(rest),
            f,
            nondeterministic: false,
        }
    }

    /// The same function, marked as giving another result on every call.
    pub const fn nondeterministic(self) -> FuncDef {
        FuncDef {
            nondeterministic: true,
            ..self
        }
    }
}

/// A set of named functions.
#[derive(Clone, Default)]
pub struct Funcs {
    /// By name; the names are the tables' own (no chart chooses them), so FxHash: every
    /// call of a function in a template looks its name up here, as the parser does.
    map: FxHashMap<&'static str, FuncDef>,
}

impl Funcs {
    /// text/template's predefined functions (`and`, `or`, `not`, `len`, `index`, `slice`,
    /// `print*`, comparisons, `html`, `js`, `urlquery`, `call`).
    pub fn builtin() -> Funcs {
        let mut f = Funcs::default();
        f.extend(funcs::builtin::FUNCS);
        f
    }

    /// The builtins and sprig's functions, as Helm and Argo CD start from.
    pub fn sprig() -> Funcs {
        let mut f = Funcs::builtin();
        for table in funcs::sprig::TABLES {
            f.extend(table);
        }
        f.extend(funcs::random::FUNCS);
        f.extend(funcs::paths::FUNCS);
        f.extend(funcs::crypto::FUNCS);
        for (alias, name) in funcs::sprig::ALIASES {
            if let Some(def) = f.get(name).copied() {
                f.map.insert(alias, FuncDef { name: alias, ..def });
            }
        }
        f
    }

    /// Helm's function set: sprig's and Helm's own (`include`, `tpl`, `required`, `toYaml`…).
    pub fn helm() -> Funcs {
        let mut f = Funcs::sprig();
        f.extend(funcs::helm::FUNCS);
        f
    }

    /// Argo CD's function set for goTemplate ApplicationSets: sprig's without `env`,
    /// `expandenv` and `getHostByName`, plus `normalize`, `slugify`, `toYaml`, `fromYaml` and
    /// `fromYamlArray`.
    pub fn argo() -> Funcs {
        let mut f = Funcs::sprig();
        for name in funcs::argo::REMOVED {
            f.map.remove(name);
        }
        f.extend(funcs::argo::FUNCS);
        f
    }

    /// Adds or replaces functions (a caller's function replaces a builtin of the same name,
    /// as a Go FuncMap does).
    pub fn extend(&mut self, more: &[FuncDef]) {
        for def in more {
            self.map.insert(def.name, *def);
        }
    }

    fn get(&self, name: &str) -> Option<&FuncDef> {
        self.map.get(name)
    }

    fn has(&self, name: &str) -> bool {
        name == "and" || name == "or" || self.map.contains_key(name)
    }
}

/// What an execution produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendered {
    pub text: String,
    /// The non-deterministic functions it called (sorted): its text changes on every run.
    pub nondeterministic: Vec<&'static str>,
    /// With [`Options::positions`], where each line of `text` was written (None for a blank
    /// line); empty otherwise.
    pub lines: Vec<Option<Written>>,
    /// With [`Options::positions`], the actions that printed a value as they read it, and the
    /// actions beside them ([`Printed`]), in order; empty otherwise.
    pub printed: Vec<Printed>,
}

/// Parsed templates by name, sharing one function table and options; a later definition of a
/// name replaces an earlier one (Go's `AddParseTree`).
#[derive(Clone)]
pub struct TemplateSet {
    trees: Trees,
    funcs: Arc<Funcs>,
    /// Which function names the set knows (they decide what parses), for the parse cache.
    funcs_fingerprint: u64,
    options: Options,
    root: String,
}

/// A set's trees by name: the ones it shares with the set it was cloned from, and its own,
/// which come first. `tpl` clones the running set for every call, and a chart with a
/// library vendored into each subchart has thousands of definitions: a clone copies none.
#[derive(Clone, Default)]
struct Trees {
    shared: Arc<FxHashMap<String, Arc<Tree>>>,
    own: FxHashMap<String, Arc<Tree>>,
}

impl Trees {
    fn get(&self, name: &str) -> Option<&Arc<Tree>> {
        self.own.get(name).or_else(|| self.shared.get(name))
    }

    fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    fn insert(&mut self, name: String, tree: Arc<Tree>) {
        self.own.insert(name, tree);
    }

    /// Moves the set's own trees into the shared ones, when there are enough to be worth it,
    /// so that its clones start empty.
    fn share(&mut self) {
        if self.own.len() < 16 {
            return;
        }
        let own = std::mem::take(&mut self.own);
        Arc::make_mut(&mut self.shared).extend(own);
    }
}

/// What parsing one template text gave: its trees, or Go's error.
type ParseResult = Result<Vec<(String, Arc<Tree>)>, Error>;

/// What [`TemplateSet::render_independent`] gives: the outcomes of the prefix of the
/// templates that running them in order would give too.
pub struct Independent<T> {
    pub outcomes: Vec<Result<(Rendered, T), Error>>,
    /// When the prefix's last template wrote to a map it did not make (its run went on in
    /// order), the dot that run had (`dot_of`'s copy): a write to it after the run went on
    /// (`set $ "Values" …` after a `set` on `.Values`) is the caller's to make where the
    /// templates after it see it.
    pub last_wrote: Option<Value>,
}

/// Parses shared by every set of the process, so that a chart rendered with several values
/// sets, or at both revisions of a diff, is parsed once, and a text that several charts
/// vendor (bitnami's `common` in each subchart) once for all of them. Keyed by everything a
/// parse depends on but the name; the text itself is compared on a hit.
#[derive(Default)]
struct ParseCache {
    /// The parses of the texts whose key is the same (a key samples its text).
    map: FxHashMap<ParseKey, Vec<CachedParse>>,
    bytes: usize,
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct ParseKey {
    text_hash: u64,
    left: String,
    right: String,
    funcs: u64,
}

/// One cached parse: the text, the name it is parsed as, and what it gave once parsed (the
/// entry is made before the parse, so that a parse ahead on another core skips the text).
struct CachedParse {
    text: Arc<str>,
    name: String,
    result: Shared<Arc<ParseResult>>,
}

/// A text's entry in the parse cache, taken out of the lock: the name it is parsed as, and
/// the parse, done or under way.
struct CacheCell {
    name: String,
    result: Shared<Arc<ParseResult>>,
    /// True when the caller made the entry (no other core has parsed or is parsing it).
    claimed: bool,
}

impl CacheCell {
    /// The parse as if of `name`: the same trees, the main one under `name`, all naming it as
    /// their text's name. None when the name changes what parses (an error names the
    /// template; a `define` of either name collides with the main tree).
    fn renamed(&self, result: &Arc<ParseResult>, name: &str) -> Option<Arc<ParseResult>> {
        if self.name == name {
            return Some(result.clone());
        }
        let trees = result.as_ref().as_ref().ok()?;
        if trees.iter().filter(|(n, _)| *n == self.name).count() != 1
            || trees.iter().any(|(n, _)| n == name)
        {
            return None;
        }
        let renamed = trees
            .iter()
            .map(|(n, tree)| {
                let own = if *n == self.name { name } else { n.as_str() };
                let tree = Tree {
                    name: own.to_string(),
                    parse_name: name.to_string(),
                    text: tree.text.clone(),
                    root: tree.root.clone(),
                };
                (own.to_string(), Arc::new(tree))
            })
            .collect();
        Some(Arc::new(Ok(renamed)))
    }
}

/// Text the parse cache holds at most; beyond it, templates are parsed every time.
const PARSE_CACHE_BYTES: usize = 256 << 20;

static PARSE_CACHE: std::sync::LazyLock<std::sync::Mutex<ParseCache>> =
    std::sync::LazyLock::new(Default::default);

/// The text's part of a parse cache key: its length and three samples, not the whole text (a
/// big chart's templates are megabytes, each looked up twice); a hit compares the text.
fn text_key(text: &str) -> u64 {
    const SAMPLE: usize = 512;
    let bytes = text.as_bytes();
    let middle = bytes.len() / 2;
    let samples = [
        &bytes[..bytes.len().min(SAMPLE)],
        &bytes[middle.saturating_sub(SAMPLE / 2)..(middle + SAMPLE / 2).min(bytes.len())],
        &bytes[bytes.len().saturating_sub(SAMPLE)..],
    ];
    std::hash::BuildHasher::hash_one(
        &crate::fxhash::FxBuildHasher::default(),
        (bytes.len(), samples),
    )
}

fn hash_of(value: &impl std::hash::Hash) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(value)
}

impl TemplateSet {
    /// An empty set.
    pub fn new(funcs: Funcs, options: Options) -> TemplateSet {
        let mut names: Vec<&str> = funcs.map.keys().copied().collect();
        names.sort_unstable();
        TemplateSet {
            trees: Trees::default(),
            funcs_fingerprint: hash_of(&names),
            funcs: Arc::new(funcs),
            options,
            root: String::new(),
        }
    }

    /// The options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Parses `text` as template `name`, adding it and the templates it defines.
    pub fn parse(&mut self, name: &str, text: &str) -> Result<(), Error> {
        self.parse_template(name, &Arc::from(text)).map(|_| ())
    }

    /// [`TemplateSet::parse`] of a text already shared: the trees and the parse cache keep it
    /// without a copy (a big chart's templates are megabytes).
    pub fn parse_shared(&mut self, name: &str, text: &Arc<str>) -> Result<(), Error> {
        self.parse_template(name, text).map(|_| ())
    }

    /// Parses `text` as a new template `name` (Go's `t.New(name).Parse(text)`) and returns that
    /// template's own tree. It is the parsed tree even when the parse was empty and the set kept
    /// its earlier, non-empty `name`: Go's `Execute` runs the new template, not the set's entry.
    pub(crate) fn parse_template(
        &mut self,
        name: &str,
        text: &Arc<str>,
    ) -> Result<Arc<Tree>, Error> {
        let parsed = self.parse_cached(name, text);
        let trees = parsed.as_ref().as_ref().map_err(Error::clone)?;
        if self.root.is_empty() {
            self.root = name.to_string();
        }
        for (n, tree) in trees {
            // An empty definition does not replace a non-empty one.
            if let Some(old) = self.trees.get(n) {
                if tree.is_empty() && !old.is_empty() {
                    continue;
                }
            }
            self.trees.insert(n.clone(), tree.clone());
        }
        self.trees.share();
        let own = trees
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, tree)| tree.clone());
        Ok(own.expect("a parse always gives the tree of the name it parsed"))
    }

    /// `text` parsed as `name`, from the process's parse cache when it was parsed before (a
    /// parse under way on another core is done again: [`Shared`]).
    fn parse_cached(&self, name: &str, text: &Arc<str>) -> Arc<ParseResult> {
        let Some(cell) = self.cache_cell(name, text) else {
            return self.parse_result(name, text);
        };
        let result = cell
            .result
            .get_or_make(|| self.parse_result(&cell.name, text));
        cell.renamed(&result, name)
            .unwrap_or_else(|| self.parse_result(name, text))
    }

    /// Parses `text` as `name` into the parse cache, unless it is there (parsed, or being
    /// parsed on another core) already.
    pub(crate) fn parse_unclaimed(&self, name: &str, text: &Arc<str>) {
        if let Some(cell) = self.cache_cell(name, text).filter(|c| c.claimed) {
            cell.result
                .get_or_make(|| self.parse_result(&cell.name, text));
        }
    }

    /// The parse cache's key of `text` parsed with this set's delimiters and functions.
    fn parse_key(&self, text: &str) -> ParseKey {
        ParseKey {
            text_hash: text_key(text),
            left: self.options.left_delim.clone(),
            right: self.options.right_delim.clone(),
            funcs: self.funcs_fingerprint,
        }
    }

    /// Whether the process's parse cache holds a finished parse of `text` with this set's
    /// delimiters and functions (what a parse ahead leaves there).
    #[cfg(test)]
    pub(crate) fn has_parsed(&self, text: &Arc<str>) -> bool {
        let key = self.parse_key(text);
        let cache = PARSE_CACHE.lock().unwrap_or_else(|p| p.into_inner());
        cache.map.get(&key).is_some_and(|entries| {
            entries
                .iter()
                .any(|c| c.text == *text && c.result.get().is_some())
        })
    }

    /// The parse cache's entry for `text`, made (as `name`'s) if there is none; None when the
    /// cache is full.
    fn cache_cell(&self, name: &str, text: &Arc<str>) -> Option<CacheCell> {
        let key = self.parse_key(text);
        let mut cache = PARSE_CACHE.lock().unwrap_or_else(|p| p.into_inner());
        // A chart's own text is found by its address: the parse ahead and the ordered adds
        // look up the same shared text.
        let same = |c: &&CachedParse| Arc::ptr_eq(&c.text, text) || c.text == *text;
        if let Some(hit) = cache
            .map
            .get(&key)
            .and_then(|entries| entries.iter().find(same))
        {
            return Some(CacheCell {
                name: hit.name.clone(),
                result: hit.result.clone(),
                claimed: false,
            });
        }
        if cache.bytes + text.len() > PARSE_CACHE_BYTES {
            return None;
        }
        cache.bytes += text.len();
        let result = Shared::default();
        cache.map.entry(key).or_default().push(CachedParse {
            text: text.clone(),
            name: name.to_string(),
            result: result.clone(),
        });
        Some(CacheCell {
            name: name.to_string(),
            result,
            claimed: true,
        })
    }

    /// `text` parsed as `name`, without the cache.
    fn parse_result(&self, name: &str, text: &Arc<str>) -> Arc<ParseResult> {
        Arc::new(
            self.parse_fresh(name, text)
                .map(|p| p.trees.into_iter().map(|(n, t)| (n, Arc::new(t))).collect()),
        )
    }

    /// Parses `text` as `name` without the parse cache and keeps nothing: what parsing costs,
    /// for the parser's benchmark (the cache makes every parse after the first a lookup).
    #[doc(hidden)]
    pub fn parse_uncached(&self, name: &str, text: &str) -> Result<usize, Error> {
        self.parse_fresh(name, &Arc::from(text))
            .map(|p| p.trees.len())
    }

    /// `text` parsed as `name` with the set's delimiters and functions.
    fn parse_fresh(&self, name: &str, text: &Arc<str>) -> Result<parse::Parsed, Error> {
        let funcs = self.funcs.clone();
        parse::parse(
            name,
            text,
            &self.options.left_delim,
            &self.options.right_delim,
            &|f| funcs.has(f),
        )
    }

    /// Parses `texts` (name and text) into the process's parse cache on every core, so that
    /// adding them one by one, in the order Go adds them, finds each parsed.
    pub(crate) fn parse_ahead<'t>(
        &self,
        texts: impl rayon::iter::ParallelIterator<Item = (&'t str, &'t Arc<str>)>,
    ) {
        texts.for_each(|(name, text)| {
            self.parse_cached(name, text);
        });
    }

    /// A set that parses as this one does, without its templates: for parsing ahead on
    /// another thread.
    pub(crate) fn parser(&self) -> TemplateSet {
        TemplateSet {
            trees: Trees::default(),
            funcs: self.funcs.clone(),
            funcs_fingerprint: self.funcs_fingerprint,
            options: self.options.clone(),
            root: String::new(),
        }
    }

    /// True when a template of that name exists.
    pub fn has(&self, name: &str) -> bool {
        self.trees.contains_key(name)
    }

    /// Runs template `name` with `dot`.
    pub fn execute(&self, name: &str, dot: &Value) -> Result<String, Error> {
        self.render(name, dot).map(|r| r.text)
    }

    /// Runs template `name` with `dot`, saying which non-deterministic functions it called.
    pub fn render(&self, name: &str, dot: &Value) -> Result<Rendered, Error> {
        let mut marks = self.options.positions.then(positions::Marks::default);
        let (text, called) = exec::outermost(|| self.run(name, dot, 0, marks.as_mut()));
        let text = text?;
        let (lines, printed) =
            marks.map_or_else(Default::default, |m| (m.lines(&text), m.printed(&text)));
        Ok(Rendered {
            text,
            nondeterministic: called.into_iter().collect(),
            lines,
            printed,
        })
    }

    /// Runs the templates `names` (in the order Go would run them, each with the dot
    /// `dot_of` its index makes) side by side on every core, each an isolated execution, and
    /// gives the outcomes of the longest prefix that running them in order would give too,
    /// and whether its last template wrote to a map it did not make.
    ///
    /// A write to a map the execution did not make (`dot_of` runs before the execution, so
    /// the dot and what it holds are not its own) could change what the templates after it
    /// read. At the first, the execution waits for the templates before it: when all ran
    /// without writing or failing, nothing it read would have been different in order, so it
    /// goes on as the run in order, its writes made (not to the dot itself, which is a copy),
    /// and the prefix ends with it. Otherwise the write is refused (no run changes a shared
    /// map) and the prefix ends before it; the caller runs it in order. The prefix also ends
    /// at the first error. Templates past the end of the prefix found so far are not started;
    /// those running meanwhile are void. `then` makes what the caller wants of each output
    /// (taking what it needs of it) on the core that rendered it, while the others still run.
    pub fn render_independent<T: Send>(
        &self,
        names: &[&str],
        dot_of: impl Fn(usize) -> Value + Sync,
        then: impl Fn(usize, &mut Rendered) -> T + Sync,
    ) -> Independent<T> {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        use std::sync::{Mutex, PoisonError};
        /// What the runs of one call share.
        struct Round {
            /// The next template to start: each core takes the next in order (not a half of
            /// the list, as a parallel iterator splits it), so when one writes, the others are
            /// a template or two past it, not half a chart of runs that its write makes void.
            next: AtomicUsize,
            /// The prefix ends at or before this template.
            end: AtomicUsize,
            /// Each template's run has ended (its outcome is stored, `end` updated).
            ended: Vec<AtomicBool>,
            /// The template that went on as the run in order, if one did.
            committed: AtomicUsize,
        }
        let round = Arc::new(Round {
            next: AtomicUsize::new(0),
            end: AtomicUsize::new(usize::MAX),
            ended: names.iter().map(|_| AtomicBool::new(false)).collect(),
            committed: AtomicUsize::new(usize::MAX),
        });
        let commit_at = |i: usize, dot: &Value| -> value::Commit {
            let round = round.clone();
            let dot = match dot {
                Value::Map(d) => Some(d.clone()),
                _ => None,
            };
            Arc::new(move |written: &Dict| {
                if dot.as_ref().is_some_and(|d| d.same(written)) {
                    return false;
                }
                // The templates before this one have all started (they are taken in order):
                // each ends soon, on another core.
                while !round.ended[..i].iter().all(|e| e.load(Ordering::Acquire)) {
                    if round.end.load(Ordering::Acquire) < i {
                        return false;
                    }
                    std::thread::yield_now();
                }
                if round.end.load(Ordering::Acquire) < i {
                    return false;
                }
                round.end.fetch_min(i, Ordering::AcqRel);
                round.committed.store(i, Ordering::Release);
                true
            })
        };
        // Probing is this render's: each execution sets it, on whichever thread runs it.
        let probing = funcs::crypto::probing();
        /// One template's run: refused a write (it runs again in order), or done.
        enum Run<T> {
            Wrote,
            Done(Result<(Rendered, T), Error>),
        }
        let runs: Vec<Mutex<Option<Run<T>>>> = names.iter().map(|_| Mutex::new(None)).collect();
        let committed_dot = Mutex::new(None);
        let work = || loop {
            let i = round.next.fetch_add(1, Ordering::Relaxed);
            if i >= names.len() || i > round.end.load(Ordering::Acquire) {
                return;
            }
            let name = names[i];
            let dot = dot_of(i);
            let commit = commit_at(i, &dot);
            let run = || value::isolated(Some(commit), || self.render(name, &dot));
            let (out, wrote_shared) = funcs::crypto::with_probing(probing, run);
            if wrote_shared || out.is_err() {
                round.end.fetch_min(i, Ordering::AcqRel);
            }
            if round.committed.load(Ordering::Acquire) == i {
                *committed_dot.lock().unwrap_or_else(PoisonError::into_inner) = Some(dot);
            }
            let run = if wrote_shared {
                Run::Wrote
            } else {
                Run::Done(out.map(|mut r| {
                    let made = then(i, &mut r);
                    (r, made)
                }))
            };
            *runs[i].lock().unwrap_or_else(PoisonError::into_inner) = Some(run);
            round.ended[i].store(true, Ordering::Release);
        };
        rayon::scope(|s| {
            for _ in 1..rayon::current_num_threads().min(names.len()) {
                s.spawn(|_| work());
            }
            work();
        });
        let committed = round.committed.load(Ordering::Acquire);
        let mut prefix = Vec::new();
        for (i, run) in runs.into_iter().enumerate() {
            match run.into_inner().unwrap_or_else(PoisonError::into_inner) {
                None | Some(Run::Wrote) => break,
                Some(Run::Done(out)) => {
                    let failed = out.is_err();
                    prefix.push(out);
                    if failed || i == committed {
                        break;
                    }
                }
            }
        }
        let last_wrote = committed != usize::MAX && prefix.len() == committed + 1;
        Independent {
            last_wrote: committed_dot
                .into_inner()
                .unwrap_or_else(PoisonError::into_inner)
                .filter(|_| last_wrote),
            outcomes: prefix,
        }
    }

    /// Runs template `name` from a function at nesting `depth` (for `include`).
    pub fn execute_nested(&self, name: &str, dot: &Value, depth: usize) -> Result<String, Error> {
        exec::outermost(|| self.run(name, dot, depth, None)).0
    }

    /// Runs `tree`, a template of this set, from a function at nesting `depth` (for `tpl`).
    pub(crate) fn execute_tree_nested(
        &self,
        tree: &Tree,
        dot: &Value,
        depth: usize,
    ) -> Result<String, Error> {
        exec::outermost(|| {
            let mut out = String::new();
            let mut steps = 0;
            exec::execute(self, tree, dot, &mut out, None, depth, &mut steps)?;
            Ok(out)
        })
        .0
    }

    fn run(
        &self,
        name: &str,
        dot: &Value,
        depth: usize,
        marks: Option<&mut positions::Marks>,
    ) -> Result<String, Error> {
        let Some(tree) = self.trees.get(name) else {
            return Err(ErrorKind::NoTemplate {
                name: name.to_string(),
                root: self.root_name().to_string(),
            }
            .into());
        };
        let mut out = String::new();
        let mut steps = 0;
        exec::execute(self, tree, dot, &mut out, marks, depth, &mut steps)?;
        Ok(out)
    }

    fn root_name(&self) -> &str {
        if self.options.root_name.is_empty() {
            &self.root
        } else {
            &self.options.root_name
        }
    }
}

#[cfg(test)]
mod tests;
