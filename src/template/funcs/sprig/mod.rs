//! sprig v3.3.0's functions (`github.com/Masterminds/sprig`), as Helm and Argo CD load them:
//! strings, conversions, defaults, lists, dicts, integer and float math, encodings, regular
//! expressions and type tests. Each is written after sprig's Go source, with its signature.
//!
//! One file per sprig source file, each with its table; sprig's random, path and crypto
//! functions are sets of their own beside this module (`random.rs`, `paths.rs`, `crypto.rs`).

use crate::template::value::{Dict, Value};
use crate::template::{gostr, FuncDef, Param};

mod date;
mod defaults;
mod dicts;
pub(super) mod encoding;
mod lists;
mod numeric;
mod reflect;
mod regex;
mod semver;
mod strings;

const A: Param = Param::Any;
const S: Param = Param::String;
const I: Param = Param::Int;
const M: Param = Param::Map;

/// sprig's functions, one table per sprig source file, in the order they are registered.
pub const TABLES: &[&[FuncDef]] = &[
    strings::FUNCS,
    numeric::FUNCS,
    defaults::FUNCS,
    reflect::FUNCS,
    lists::FUNCS,
    dicts::FUNCS,
    date::FUNCS,
    semver::FUNCS,
    encoding::FUNCS,
    regex::FUNCS,
];

/// Names sprig gives the same function under (the `must` forms return an error where the plain
/// ones panic; a template reports both as `error calling NAME: …`).
pub const ALIASES: &[(&str, &str)] = &[
    ("trimall", "trimAll"),
    ("mustFirst", "first"),
    ("mustLast", "last"),
    ("mustRest", "rest"),
    ("mustInitial", "initial"),
    ("mustAppend", "append"),
    ("mustPush", "push"),
    ("mustSlice", "slice"),
    ("mustPrepend", "prepend"),
    ("mustReverse", "reverse"),
    ("mustUniq", "uniq"),
    ("mustWithout", "without"),
    ("mustHas", "has"),
    ("mustCompact", "compact"),
    ("mustChunk", "chunk"),
    ("mustMerge", "merge"),
    ("mustMergeOverwrite", "mergeOverwrite"),
    ("mustDeepCopy", "deepCopy"),
];

fn s(a: &[Value], i: usize) -> &str {
    a[i].as_str().unwrap_or_default()
}

/// The bytes of a string argument (see [`gostr`]).
fn bytes(a: &[Value], i: usize) -> std::borrow::Cow<'_, [u8]> {
    gostr::to_bytes(s(a, i))
}

fn int(a: &[Value], i: usize) -> i64 {
    a[i].as_int().unwrap_or_default()
}

fn dict(a: &[Value], i: usize) -> Dict {
    match &a[i] {
        Value::Map(m) => m.clone(),
        _ => Dict::default(),
    }
}
