//! The values templates work on, with the distinctions Go's reflection makes: an invalid value
//! (`<no value>`: a missing map key), a nil interface, bool, int64, float64 (YAML values files
//! give floats, `--set` gives ints), string, list and map (Go maps iterate and print in key
//! order, so a sorted map is exact).

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// A Go map: a reference, so `set $d "k" v` changes the map every holder of `$d` sees (sprig's
/// `set`, `unset`, `merge` mutate in place). Keys iterate in order, as Go prints them.
#[derive(Clone)]
pub struct Dict {
    entries: Arc<Entries>,
    ty: MapType,
}

/// A map's entries, and the isolated execution that made the map (0: none).
struct Entries {
    made_by: u32,
    /// A nil map ([`Dict::nil`]).
    nil: bool,
    map: RwLock<BTreeMap<String, Value>>,
    /// Where the entries come from when the map is first looked at ([`Dict::lazy`]).
    lazy: Option<Lazy>,
}

/// The source of a map's entries, made once, when the map is first read or written.
struct Lazy {
    filled: std::sync::Once,
    source: Arc<dyn LazyEntries>,
}

/// What makes the entries of a map made when first looked at ([`Dict::lazy`]): a chart's
/// `.Files`, whose contents are read only when a template asks for them. It runs once, and
/// every other reader of the map waits for it: it must not wait on other cores (a core that
/// waits may take up work that reads the same map).
pub trait LazyEntries: std::any::Any + Send + Sync {
    /// The map's entries.
    fn entries(&self) -> BTreeMap<String, Value>;
}

impl Default for Dict {
    fn default() -> Dict {
        Dict::new(BTreeMap::new())
    }
}

thread_local! {
    /// The isolated execution running on this thread (0: none); the maps made now are its own.
    static EXECUTION: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    /// Whether that execution wrote to a map it did not make.
    static WROTE_SHARED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// How that execution may become the run in order at its first such write.
    static COMMIT: std::cell::RefCell<Option<Commit>> = const { std::cell::RefCell::new(None) };
}

/// Asked at an isolated execution's first write to a map it did not make, with that map:
/// whether the execution may become the run in order from there on (every template Go runs
/// before it has run, none of them writing, so nothing it read would have been different).
/// Then it is no longer isolated and its writes are made.
pub(super) type Commit = Arc<dyn Fn(&Dict) -> bool + Send + Sync>;

/// The isolation of the execution on a thread, carried to the thread it continues on.
#[derive(Clone, Default)]
pub(super) struct Isolation {
    execution: u32,
    wrote_shared: bool,
    commit: Option<Commit>,
}

/// Notes that the isolated execution on this thread was refused a write.
fn refused() -> SharedWrite {
    WROTE_SHARED.with(|w| w.set(true));
    SharedWrite
}

/// True when `a` and `b` are the same scalar of the same Go type: writing one over the other
/// changes nothing a template can see (a map or list would change which object is there).
fn same_scalar(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Nil, Value::Nil) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) | (Value::Int64(x), Value::Int64(y)) => x == y,
        (Value::Uint64(x), Value::Uint64(y)) => x == y,
        (Value::Uint8(x), Value::Uint8(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::String(x), Value::String(y)) => x == y,
        _ => false,
    }
}

/// A write an isolated execution may not make ([`Dict::insert`]).
#[derive(Debug)]
pub struct SharedWrite;

impl From<SharedWrite> for super::FuncError {
    fn from(_: SharedWrite) -> super::FuncError {
        // Never shown: the execution is run again in order, where writes are allowed.
        super::FuncError::Plain("a map other templates see is written".to_string())
    }
}

/// Runs `f` as an isolated execution: maps made during it are its own, and a write to another
/// map (one another execution could see, so the order of executions would matter, as sprig's
/// `set` on `.Values` in one template is seen by the next) is refused, unless `commit` lets
/// the execution become the run in order there; the answer says whether one was refused.
pub(super) fn isolated<T>(commit: Option<Commit>, f: impl FnOnce() -> T) -> (T, bool) {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
    // 0 is none; ids repeat after 2^32 executions, when the maps of the first are long gone.
    let id = NEXT
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        .max(1);
    /// Puts the outer isolation back, also when the execution panics (the thread goes on to
    /// other work).
    struct Restore(Option<Isolation>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(outer) = self.0.take() {
                set_isolation(outer);
            }
        }
    }
    let restore = Restore(Some(isolation()));
    set_isolation(Isolation {
        execution: id,
        wrote_shared: false,
        commit,
    });
    let out = f();
    let wrote_shared = WROTE_SHARED.with(|w| w.get());
    drop(restore);
    (out, wrote_shared)
}

/// The isolation of the execution on this thread.
pub(super) fn isolation() -> Isolation {
    Isolation {
        execution: EXECUTION.with(|e| e.get()),
        wrote_shared: WROTE_SHARED.with(|w| w.get()),
        commit: COMMIT.with(|c| c.borrow().clone()),
    }
}

pub(super) fn set_isolation(isolation: Isolation) {
    EXECUTION.with(|e| e.set(isolation.execution));
    WROTE_SHARED.with(|w| w.set(isolation.wrote_shared));
    COMMIT.with(|c| *c.borrow_mut() = isolation.commit);
}

/// At an isolated execution's first write to `map`, which it did not make: true when the
/// execution became the run in order (it is not isolated any more; the write is to be
/// made). Asked once: a refused write ends the execution.
fn committed_at(map: &Dict) -> bool {
    let Some(commit) = COMMIT.with(|c| c.borrow_mut().take()) else {
        return false;
    };
    if commit(map) {
        EXECUTION.with(|e| e.set(0));
        return true;
    }
    false
}

/// A Go map type: sprig and Helm return more than `map[string]interface {}`, and `%T`,
/// `typeOf`, typed parameters and missing keys tell them apart.
#[derive(Clone, Copy, Debug, Default)]
pub enum MapType {
    /// `map[string]interface {}`.
    #[default]
    Any,
    /// `map[string]string` (sprig's `split`).
    String,
    /// A named map type with methods, such as Helm's `chartutil.Values`.
    Named(&'static NamedMap),
}

impl PartialEq for MapType {
    fn eq(&self, other: &MapType) -> bool {
        self.name() == other.name()
    }
}

/// A named Go map type (`type Values map[string]interface{}`) and its methods.
#[derive(Debug)]
pub struct NamedMap {
    /// `%T`: `chartutil.Values`.
    pub name: &'static str,
    /// The method names, for the executor to tell a method from a key.
    pub methods: &'static [&'static str],
    /// Its element type: `interface {}` makes it convert to `map[string]interface {}`, as
    /// `chartutil.Values` does; `engine.files` is a `map[string][]byte`.
    pub values: MapValues,
    /// Calls a method.
    pub call: fn(&Dict, &str, &[Value]) -> Result<Value, super::FuncError>,
}

/// The element type of a named map type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapValues {
    Interface,
    Bytes,
}

impl MapType {
    /// True when a `map[string]interface {}` parameter takes it.
    pub fn is_interface_map(self) -> bool {
        match self {
            MapType::Any => true,
            MapType::String => false,
            MapType::Named(n) => n.values == MapValues::Interface,
        }
    }

    /// `%T`.
    pub fn name(self) -> &'static str {
        match self {
            MapType::Any => "map[string]interface {}",
            MapType::String => "map[string]string",
            MapType::Named(n) => n.name,
        }
    }

    /// What a missing key gives under `missingkey=zero` and `index`: the element's zero value.
    pub fn zero(self) -> Value {
        match self {
            MapType::String => Value::str(""),
            // A nil `[]byte`.
            MapType::Named(NamedMap {
                values: MapValues::Bytes,
                ..
            }) => super::bytes::GoBytes::nil(),
            _ => Value::Nil,
        }
    }
}

/// The element type of a Go slice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ListType {
    /// `[]interface {}`.
    #[default]
    Any,
    /// `[]string` (`splitList`, `keys`, `sortAlpha`, `regexFindAll`, `toStrings`).
    String,
    /// `[]int` (`until`, `untilStep`).
    Int,
    /// A slice of another element type, by its whole name (Helm's `[]*chart.Maintainer`).
    Named(&'static str),
}

impl ListType {
    /// `%T`.
    pub fn name(self) -> &'static str {
        match self {
            ListType::Any => "[]interface {}",
            ListType::String => "[]string",
            ListType::Int => "[]int",
            ListType::Named(name) => name,
        }
    }
}

/// A Go slice: its items and its element type.
#[derive(Clone, Debug, PartialEq)]
pub struct List {
    items: Arc<Vec<Value>>,
    pub ty: ListType,
    /// A nil slice ([`Value::nil_list`]): empty, but `null` in JSON (and unequal to an empty
    /// one for `deepEqual`, as Go's `reflect.DeepEqual` has it).
    nil: bool,
}

impl List {
    /// Whether this is a nil slice.
    pub fn is_nil(&self) -> bool {
        self.nil
    }

    /// The items, shared.
    pub fn items(&self) -> &Arc<Vec<Value>> {
        &self.items
    }

    /// The list's identity while it lives: the same for every copy of it (see [`Dict::id`]).
    pub fn id(&self) -> usize {
        Arc::as_ptr(&self.items) as usize
    }
}

impl std::ops::Deref for List {
    type Target = [Value];
    fn deref(&self) -> &[Value] {
        &self.items
    }
}

impl Dict {
    /// A map holding `entries`.
    pub fn new(entries: BTreeMap<String, Value>) -> Dict {
        Dict::typed(entries, MapType::Any)
    }

    /// A map of type `ty` holding `entries`.
    pub fn typed(entries: BTreeMap<String, Value>, ty: MapType) -> Dict {
        Dict::made(entries, ty, false)
    }

    fn made(entries: BTreeMap<String, Value>, ty: MapType, nil: bool) -> Dict {
        Dict {
            entries: Arc::new(Entries {
                made_by: EXECUTION.with(|e| e.get()),
                nil,
                map: RwLock::new(entries),
                lazy: None,
            }),
            ty,
        }
    }

    /// A nil map of type `ty`: what a Go struct holds in a map field nothing set
    /// (`.Chart.Annotations` when Chart.yaml has none). Empty to every function; `null` in
    /// JSON. (Go panics on a write to one; the only nil maps made, `map[string]string`
    /// fields, are refused by `set` and `merge` for their type first.)
    pub fn nil(ty: MapType) -> Dict {
        Dict::made(BTreeMap::new(), ty, true)
    }

    /// Whether this is a nil map.
    pub fn is_nil(&self) -> bool {
        self.entries.nil
    }

    /// A map of type `ty` whose entries `source` makes when the map is first read or written.
    /// A method of the type may answer from the source without them ([`Dict::source`]).
    pub fn lazy(source: Arc<dyn LazyEntries>, ty: MapType) -> Dict {
        Dict {
            entries: Arc::new(Entries {
                made_by: EXECUTION.with(|e| e.get()),
                nil: false,
                map: RwLock::new(BTreeMap::new()),
                lazy: Some(Lazy {
                    filled: std::sync::Once::new(),
                    source,
                }),
            }),
            ty,
        }
    }

    /// The source of a [`Dict::lazy`] map, when it is a `T`.
    pub fn source<T: LazyEntries>(&self) -> Option<Arc<T>> {
        let source: Arc<dyn std::any::Any + Send + Sync> =
            self.entries.lazy.as_ref()?.source.clone();
        source.downcast::<T>().ok()
    }

    /// Makes a lazy map's entries, once.
    fn fill(&self) {
        if let Some(lazy) = &self.entries.lazy {
            lazy.filled.call_once(|| {
                let entries = lazy.source.entries();
                *self.entries.map.write().unwrap_or_else(|p| p.into_inner()) = entries;
            });
        }
    }

    /// The map's Go type.
    pub fn ty(&self) -> MapType {
        self.ty
    }

    /// The same map seen as another type (Go's conversion `map[string]interface{}(v)`).
    pub fn retyped(&self, ty: MapType) -> Dict {
        Dict {
            entries: Arc::clone(&self.entries),
            ty,
        }
    }

    /// The named type's method `name`, if it has one.
    pub fn method(&self, name: &str) -> Option<&'static NamedMap> {
        match self.ty {
            MapType::Named(n) if n.methods.contains(&name) => Some(n),
            _ => None,
        }
    }

    /// Read access (a panic elsewhere never leaves the map unusable).
    pub fn read(&self) -> RwLockReadGuard<'_, BTreeMap<String, Value>> {
        self.fill();
        self.entries.map.read().unwrap_or_else(|p| p.into_inner())
    }

    /// Sets `key` to `value`. An isolated execution may not write to a map it did not make
    /// (another execution may read it, so the write must wait for a run in order): the write is
    /// refused, and noted, unless it changes nothing (the same scalar is there already, as when
    /// bitnami's charts set a password every template computes alike).
    pub fn insert(&self, key: String, value: Value) -> Result<(), SharedWrite> {
        if self.shared_with_others() {
            let unchanged = self
                .read()
                .get(&key)
                .is_some_and(|old| same_scalar(old, &value));
            if unchanged {
                return Ok(());
            }
            if !committed_at(self) {
                return Err(refused());
            }
        }
        self.write().insert(key, value);
        Ok(())
    }

    /// Removes `key`; refused as [`Dict::insert`] is, unless the key is not there.
    pub fn remove(&self, key: &str) -> Result<(), SharedWrite> {
        if self.shared_with_others() {
            if !self.read().contains_key(key) {
                return Ok(());
            }
            if !committed_at(self) {
                return Err(refused());
            }
        }
        self.write().remove(key);
        Ok(())
    }

    /// True in an isolated execution when the map is not its own.
    fn shared_with_others(&self) -> bool {
        let execution = EXECUTION.with(|e| e.get());
        execution != 0 && self.entries.made_by != execution
    }

    fn write(&self) -> RwLockWriteGuard<'_, BTreeMap<String, Value>> {
        self.fill();
        self.entries.map.write().unwrap_or_else(|p| p.into_inner())
    }

    /// The value at `key`.
    pub fn get(&self, key: &str) -> Option<Value> {
        self.read().get(key).cloned()
    }

    /// The entries, copied (values are cheap to clone).
    pub fn entries(&self) -> Vec<(String, Value)> {
        self.read()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.read().len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.read().is_empty()
    }

    /// True when both are the same map.
    pub fn same(&self, other: &Dict) -> bool {
        Arc::ptr_eq(&self.entries, &other.entries)
    }

    /// The map's identity while it lives: the same for every holder and every type it is seen
    /// as ([`Dict::retyped`]), so that what a template read can be traced back to a map the
    /// caller made (a chart's values).
    pub fn id(&self) -> usize {
        Arc::as_ptr(&self.entries) as usize
    }
}

impl std::fmt::Debug for Dict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.read().iter()).finish()
    }
}

impl PartialEq for Dict {
    fn eq(&self, other: &Dict) -> bool {
        self.ty == other.ty && (self.same(other) || *self.read() == *other.read())
    }
}

/// A Go value with methods that a template can call (`(semver "1.2.3").Major`), such as the
/// `*semver.Version` sprig returns.
pub trait Object: std::any::Any + std::fmt::Debug + Send + Sync {
    /// `%T`: `*semver.Version`.
    fn type_name(&self) -> &'static str;
    /// `kindOf`: `ptr`, `struct`.
    fn kind_name(&self) -> &'static str;
    /// Reads a field or calls a method, with the arguments its [`Object::signature`] typed;
    /// `None` when there is no such member.
    fn call(&self, method: &str, args: &[Value]) -> Option<Result<Value, String>>;
    /// `%v`: the value's `String()`.
    fn text(&self) -> String;
    /// What an action (`{{ . }}`) prints: text/template uses a `String` method of the
    /// value's pointer too (a struct field is addressable), where `fmt` prints the fields.
    fn action_text(&self) -> String {
        self.text()
    }
    /// The elements of a value whose Go type is a slice (`len` and `range` use them).
    fn items(&self) -> Option<Vec<Value>> {
        None
    }
    /// The number of elements of a slice, without making them.
    fn slice_len(&self) -> Option<usize> {
        self.items().map(|items| items.len())
    }
    /// A nil slice (JSON `null`, `%#v` `T(nil)`, unequal to an empty one).
    fn slice_is_nil(&self) -> bool {
        false
    }
    /// The bytes of a `[]byte`, as a Go string (`crate::template::bytes`).
    fn bytes(&self) -> Option<&Arc<str>> {
        None
    }
    /// The string `encoding/json` writes for a type with its own `MarshalJSON` (a `time.Time`
    /// as RFC 3339), or its error; `None` for the others.
    fn json_string(&self) -> Option<Result<String, String>> {
        None
    }
    /// A struct's members as Go's `encoding/json` writes them, in field order (`None`: the
    /// value marshals as its text).
    fn json_fields(&self) -> Option<Vec<(String, Value)>> {
        None
    }
    /// The number of a named integer type (`time.Duration`, `time.Month`), which `%d`, JSON,
    /// comparisons and `index` use; its `String` is its text.
    fn int(&self) -> Option<i64> {
        None
    }
    /// `%#v`, where it is not the text: a `GoString` method (`time.Time`) or the fields of a
    /// struct (`&semver.Version{major:0x1, …}`).
    fn go_syntax(&self) -> Option<String> {
        None
    }
    /// A member's Go signature, for the executor to count and type its arguments as Go's
    /// `evalCall` does before [`Object::call`]; `None`: the type has no such method or field.
    fn signature(&self, _method: &str) -> Option<MethodSig> {
        None
    }
    /// Go's `==` with another object (`reflect.DeepEqual` when `deep`), where that is not
    /// having the same type and text.
    fn go_eq(&self, _other: &dyn Object, _deep: bool) -> Option<bool> {
        None
    }
}

/// A member's Go signature ([`Object::signature`]).
#[derive(Clone, Copy, Debug)]
pub enum MethodSig {
    /// A struct field: read without arguments, refused with them.
    Field,
    /// Callable: the types of its parameters.
    Params(&'static [super::Param]),
    /// A method text/template refuses to call, with its error (`function Date has 3 return
    /// values; should be 1 or 2`), once the arguments are counted: it takes `params`.
    Unusable { params: usize, error: &'static str },
}

impl MethodSig {
    /// Go's `evalCall` error for a call with `given` arguments that cannot be made: their
    /// number, else the signature's own.
    pub fn error(&self, name: &str, given: usize) -> String {
        match *self {
            MethodSig::Field => format!("{name} has arguments but cannot be invoked as function"),
            MethodSig::Params(params) if params.len() != given => {
                format!(
                    "wrong number of args for {name}: want {} got {given}",
                    params.len()
                )
            }
            MethodSig::Unusable { params, .. } if params != given => {
                format!("wrong number of args for {name}: want {params} got {given}")
            }
            MethodSig::Unusable { error, .. } => error.to_string(),
            MethodSig::Params(_) => String::new(),
        }
    }

    /// Whether a call without arguments fails.
    pub fn refuses_none(&self) -> bool {
        !matches!(self, MethodSig::Field)
            && !matches!(self, MethodSig::Params(params) if params.is_empty())
    }
}

/// A field of a [`GoStruct`].
#[derive(Clone, Debug)]
pub struct Field {
    /// The Go name templates use (`.Chart.AppVersion`).
    pub name: &'static str,
    /// The JSON tag's name (`appVersion`); `""` is the Go name.
    pub json: &'static str,
    /// `omitempty`: left out of JSON when empty.
    pub omit_empty: bool,
    /// An embedded struct: its fields are the outer struct's too.
    pub embedded: bool,
    pub value: Value,
}

/// A Go struct value (Helm's `chart.Metadata`, `version.BuildInfo`): fields by name, `%v` as
/// `{a b c}`, JSON by tags. A type name starting with `*` makes it a pointer to the struct
/// (Helm's `*chartutil.Capabilities`): kind `ptr`, `%v` as `&{a b c}`.
#[derive(Debug)]
pub struct GoStruct {
    pub type_name: &'static str,
    pub fields: Vec<Field>,
}

impl GoStruct {
    /// A struct as a template value.
    pub fn value(self) -> Value {
        Value::Object(ObjectRef(Arc::new(self)))
    }

    /// A field of its own named `name`, else the embedded struct that has such a member.
    fn member(&self, name: &str) -> Option<Member<'_>> {
        if let Some(f) = self.fields.iter().find(|f| f.name == name) {
            return Some(Member::Own(&f.value));
        }
        self.fields
            .iter()
            .filter(|f| f.embedded)
            .find_map(|f| match &f.value {
                Value::Object(o) if o.0.signature(name).is_some() => Some(Member::Promoted(o)),
                _ => None,
            })
    }
}

/// Where a [`GoStruct`]'s member is: its own field, or promoted from an embedded struct (Go
/// promotes its fields and methods).
enum Member<'a> {
    Own(&'a Value),
    Promoted(&'a ObjectRef),
}

impl Object for GoStruct {
    fn type_name(&self) -> &'static str {
        self.type_name
    }

    fn kind_name(&self) -> &'static str {
        if self.type_name.starts_with('*') {
            "ptr"
        } else {
            "struct"
        }
    }

    fn signature(&self, name: &str) -> Option<MethodSig> {
        match self.member(name)? {
            Member::Own(_) => Some(MethodSig::Field),
            Member::Promoted(embedded) => embedded.0.signature(name),
        }
    }

    fn call(&self, name: &str, args: &[Value]) -> Option<Result<Value, String>> {
        match self.member(name)? {
            Member::Own(v) => Some(Ok(v.clone())),
            Member::Promoted(embedded) => embedded.0.call(name, args),
        }
    }

    fn text(&self) -> String {
        let parts: Vec<String> = self
            .fields
            .iter()
            .map(|f| super::fmt::sprint_value(&f.value))
            .collect();
        let pointer = if self.type_name.starts_with('*') {
            "&"
        } else {
            ""
        };
        format!("{pointer}{{{}}}", parts.join(" "))
    }

    /// text/template prints what a pointer points to (`printableValue` indirects it), so an
    /// action prints `*chartutil.Capabilities` as `{…}` where `%v` prints `&{…}`.
    fn action_text(&self) -> String {
        let text = self.text();
        match text.strip_prefix('&') {
            Some(pointee) => pointee.to_string(),
            None => text,
        }
    }

    fn json_fields(&self) -> Option<Vec<(String, Value)>> {
        let mut out = Vec::new();
        for f in &self.fields {
            if f.embedded {
                if let Value::Object(o) = &f.value {
                    out.extend(o.0.json_fields().unwrap_or_default());
                }
                continue;
            }
            if f.omit_empty && !f.value.truth() {
                continue;
            }
            let key = if f.json.is_empty() { f.name } else { f.json };
            out.push((key.to_string(), f.value.clone()));
        }
        Some(out)
    }
}

/// A shared [`Object`]; equal when of the same type and text.
#[derive(Clone, Debug)]
pub struct ObjectRef(pub Arc<dyn Object>);

impl PartialEq for ObjectRef {
    fn eq(&self, other: &ObjectRef) -> bool {
        if let Some(same) = self.0.go_eq(&*other.0, true) {
            return same;
        }
        self.0.type_name() == other.0.type_name()
            && self.0.slice_is_nil() == other.0.slice_is_nil()
            && self.0.text() == other.0.text()
    }
}

/// A template value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// Go's invalid `reflect.Value`: a missing key (printed `<no value>`).
    NoValue,
    /// A nil interface (printed `<nil>` by `print`, `<no value>` by an action).
    Nil,
    Bool(bool),
    /// Go's `int`: number constants in templates, `len`, `atoi`, `int`.
    Int(i64),
    /// Go's `int64`: `--set` values, sprig's `int64`, its integer math.
    Int64(i64),
    /// Go's `uint64` (Masterminds' `Version.Major`, `Minor`, `Patch`).
    Uint64(u64),
    /// Go's `uint8`, a byte: `index` of a string, the elements of a `[]byte`.
    Uint8(u8),
    Float(f64),
    /// Go's `complex128` (imaginary number constants in templates: `1i`, `1+2i`).
    Complex(f64, f64),
    String(Arc<str>),
    List(List),
    Map(Dict),
    /// A value with methods.
    Object(ObjectRef),
}

impl Value {
    /// A string value.
    pub fn str(s: impl Into<Arc<str>>) -> Value {
        Value::String(s.into())
    }

    /// A list value.
    pub fn list(items: Vec<Value>) -> Value {
        Value::typed_list(items, ListType::Any)
    }

    /// A list value of element type `ty`.
    pub fn typed_list(items: Vec<Value>, ty: ListType) -> Value {
        Value::List(List {
            items: Arc::new(items),
            ty,
            nil: false,
        })
    }

    /// A nil slice of element type `ty`: what a Go struct holds in a slice field nothing set
    /// (`.Chart.Keywords` when Chart.yaml has none). Empty to every function; `null` in JSON.
    pub fn nil_list(ty: ListType) -> Value {
        Value::List(List {
            items: Arc::new(Vec::new()),
            ty,
            nil: true,
        })
    }

    /// A `[]string`.
    pub fn strings(items: impl IntoIterator<Item = impl Into<Arc<str>>>) -> Value {
        Value::typed_list(
            items.into_iter().map(|s| Value::String(s.into())).collect(),
            ListType::String,
        )
    }

    /// A map value.
    pub fn map(entries: BTreeMap<String, Value>) -> Value {
        Value::Map(Dict::new(entries))
    }

    /// Go's `reflect.Kind` name as `kindOf` prints it.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::NoValue => "invalid",
            Value::Nil => "invalid",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Int64(_) => "int64",
            Value::Uint64(_) => "uint64",
            Value::Uint8(_) => "uint8",
            Value::Float(_) => "float64",
            Value::Complex(..) => "complex128",
            Value::String(_) => "string",
            Value::List(_) => "slice",
            Value::Map(_) => "map",
            Value::Object(o) => o.0.kind_name(),
        }
    }

    /// The Go type as `%T` and error messages print it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::NoValue | Value::Nil => "<nil>",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Int64(_) => "int64",
            Value::Uint64(_) => "uint64",
            Value::Uint8(_) => "uint8",
            Value::Float(_) => "float64",
            Value::Complex(..) => "complex128",
            Value::String(_) => "string",
            Value::List(l) => l.ty.name(),
            Value::Map(m) => m.ty.name(),
            Value::Object(o) => o.0.type_name(),
        }
    }

    /// text/template's truth: false, 0, "", nil and empty collections are false.
    pub fn truth(&self) -> bool {
        match self {
            Value::NoValue | Value::Nil => false,
            Value::Bool(b) => *b,
            Value::Int(i) | Value::Int64(i) => *i != 0,
            Value::Uint64(u) => *u != 0,
            Value::Uint8(b) => *b != 0,
            Value::Float(f) => *f != 0.0,
            Value::Complex(re, im) => *re != 0.0 || *im != 0.0,
            Value::String(s) => !s.is_empty(),
            Value::List(l) => !l.is_empty(),
            Value::Map(m) => !m.is_empty(),
            // A named integer type is true when it is not zero, a slice type when it has
            // elements.
            Value::Object(o) => match o.0.int() {
                Some(n) => n != 0,
                None => o.0.slice_len().is_none_or(|len| len > 0),
            },
        }
    }

    /// The elements of a value Go's reflection sees as a slice: a list, or an object whose type
    /// is a slice (Helm's `chartutil.VersionSet`); `None` for anything else.
    pub fn slice_items(&self) -> Option<std::borrow::Cow<'_, [Value]>> {
        match self {
            Value::List(l) => Some(std::borrow::Cow::Borrowed(&l.items[..])),
            Value::Object(o) => o.0.items().map(std::borrow::Cow::Owned),
            _ => None,
        }
    }

    /// The bytes of a `[]byte` value, as a Go string.
    pub fn as_bytes(&self) -> Option<&Arc<str>> {
        match self {
            Value::Object(o) => o.0.bytes(),
            _ => None,
        }
    }

    /// The object inside, if it is a `T`.
    pub fn as_object<T: Object>(&self) -> Option<&T> {
        match self {
            Value::Object(o) => {
                let any: &dyn std::any::Any = &*o.0;
                any.downcast_ref::<T>()
            }
            _ => None,
        }
    }

    /// The integer inside, if an int or int64.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) | Value::Int64(i) => Some(*i),
            Value::Uint8(b) => Some(i64::from(*b)),
            _ => None,
        }
    }

    /// The string inside, if a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::str(s)
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::str(s)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::Int(i)
    }
}

impl From<f64> for Value {
    fn from(f: f64) -> Value {
        Value::Float(f)
    }
}

impl From<serde_json::Value> for Value {
    /// As Go's `encoding/json` decodes into `interface{}`: every number a float64.
    fn from(v: serde_json::Value) -> Value {
        match v {
            serde_json::Value::Null => Value::Nil,
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::Number(n) => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
            serde_json::Value::String(s) => Value::str(s),
            serde_json::Value::Array(items) => {
                Value::list(items.into_iter().map(Value::from).collect())
            }
            serde_json::Value::Object(m) => {
                Value::map(m.into_iter().map(|(k, v)| (k, Value::from(v))).collect())
            }
        }
    }
}
