//! text/template's predefined functions (`text/template/funcs.go`) except `and` and `or`, which
//! the executor evaluates lazily.

use super::super::exec::Call;
use super::super::fmt::{sprint, sprintf, sprintln};
use super::super::value::Value;
use super::super::{FuncDef, FuncError, Param};

type R = Result<Value, FuncError>;

/// The builtin functions, with Go's signatures.
pub const FUNCS: &[FuncDef] = &[
    FuncDef::new("not", &[V], not),
    FuncDef::new("len", &[V], len),
    FuncDef::variadic("index", &[V], V, index),
    FuncDef::variadic("slice", &[V], V, slice),
    FuncDef::variadic("print", &[], Param::Any, |_, a| Ok(Value::str(sprint(a)))),
    FuncDef::variadic("println", &[], Param::Any, |_, a| {
        Ok(Value::str(sprintln(a)))
    }),
    FuncDef::variadic("printf", &[Param::String], Param::Any, printf),
    FuncDef::variadic("eq", &[V], V, eq),
    FuncDef::new("ne", &[V, V], ne),
    FuncDef::new("lt", &[V, V], |_, a| compare(a, "lt")),
    FuncDef::new("le", &[V, V], |_, a| compare(a, "le")),
    FuncDef::new("gt", &[V, V], |_, a| compare(a, "gt")),
    FuncDef::new("ge", &[V, V], |_, a| compare(a, "ge")),
    FuncDef::variadic("html", &[], Param::Any, |_, a| {
        Ok(Value::str(html_escape(&eval_args(a))))
    }),
    FuncDef::variadic("js", &[], Param::Any, |_, a| {
        Ok(Value::str(js_escape(&eval_args(a))))
    }),
    FuncDef::variadic("urlquery", &[], Param::Any, |_, a| {
        Ok(Value::str(query_escape(&eval_args(a))))
    }),
    FuncDef::variadic("call", &[V], V, |_, a| match a.first() {
        Some(Value::Nil | Value::NoValue) | None => Err(FuncError::Call("call of nil".into())),
        Some(v) => Err(FuncError::Call(format!(
            "non-function {} of type {}",
            super::super::fmt::sprint_value(v),
            v.type_name()
        ))),
    }),
];

const V: Param = Param::Value;

/// text/template's `evalArgs`: the arguments printed, a nil as `<no value>`.
fn eval_args(args: &[Value]) -> String {
    let printable: Vec<Value> = args
        .iter()
        .map(|v| match v {
            Value::Nil | Value::NoValue => Value::str("<no value>"),
            other => other.clone(),
        })
        .collect();
    sprint(&printable)
}

fn not(_: &Call, a: &[Value]) -> R {
    Ok(Value::Bool(!a[0].truth()))
}

fn len(_: &Call, a: &[Value]) -> R {
    match &a[0] {
        // A Go string's length in bytes: a carried byte is one.
        Value::String(s) => Ok(Value::Int(super::super::gostr::to_bytes(s).len() as i64)),
        Value::List(l) => Ok(Value::Int(l.len() as i64)),
        Value::Map(m) => Ok(Value::Int(m.len() as i64)),
        Value::Object(o) if o.0.slice_len().is_some() => {
            Ok(Value::Int(o.0.slice_len().unwrap_or(0) as i64))
        }
        // An invalid value (`nil`, a missing value piped or held by a variable): Go's
        // `length` asks it for its type, which panics.
        Value::NoValue => Err(FuncError::Call(
            "reflect: call of reflect.Value.Type on zero Value".into(),
        )),
        Value::Nil => Err(FuncError::Call("len of nil pointer".into())),
        // Go's `length` looks through pointers first (`*semver.Version` is `semver.Version`).
        other => Err(FuncError::Call(format!(
            "len of type {}",
            other.type_name().trim_start_matches('*')
        ))),
    }
}

fn int_index(v: &Value, len: usize, cap: usize) -> Result<usize, String> {
    let i = match v {
        Value::Int(i) | Value::Int64(i) => *i,
        // Go's `indexArg` takes unsigned integers too (converted to int64).
        Value::Uint64(u) => *u as i64,
        Value::Uint8(b) => i64::from(*b),
        Value::Object(o) if o.0.int().is_some() => o.0.int().unwrap_or_default(),
        Value::NoValue | Value::Nil => return Err("cannot index slice/array with nil".into()),
        other => {
            return Err(format!(
                "cannot index slice/array with type {}",
                other.type_name()
            ))
        }
    };
    if i < 0 || i as usize > cap {
        return Err(format!("index out of range: {i}"));
    }
    let _ = len;
    Ok(i as usize)
}

fn index(_: &Call, a: &[Value]) -> R {
    if a.is_empty() {
        return Err(FuncError::Plain(
            "wrong number of args for index: want at least 1 got 0".into(),
        ));
    }
    let mut item = a[0].clone();
    if matches!(item, Value::NoValue | Value::Nil) {
        return Err(FuncError::Call("index of untyped nil".into()));
    }
    for key in &a[1..] {
        item = match &item {
            // Index `len` passes Go's range check and then panics in reflect.
            Value::List(_) | Value::Object(_) if item.slice_items().is_some() => {
                let l = item.slice_items().unwrap_or_default();
                let i = int_index(key, l.len(), l.len()).map_err(FuncError::Call)?;
                if i >= l.len() {
                    return Err(FuncError::Call("reflect: slice index out of range".into()));
                }
                l[i].clone()
            }
            // A byte of the Go string (a carried byte is one).
            Value::String(s) => {
                let bytes = crate::template::gostr::to_bytes(s);
                let i = int_index(key, bytes.len(), bytes.len()).map_err(FuncError::Call)?;
                if i >= bytes.len() {
                    return Err(FuncError::Call("reflect: string index out of range".into()));
                }
                Value::Uint8(bytes[i])
            }
            // A missing key gives the element type's zero value.
            Value::Map(m) => match key {
                Value::String(k) => m.get(k).unwrap_or_else(|| m.ty().zero()),
                Value::NoValue | Value::Nil => {
                    return Err(FuncError::Call(
                        "value is nil; should be of type string".into(),
                    ))
                }
                other => {
                    return Err(FuncError::Call(format!(
                        "value has type {}; should be string",
                        other.type_name()
                    )))
                }
            },
            // A nil found on the way (a missing key's zero value).
            Value::NoValue | Value::Nil => {
                return Err(FuncError::Call("index of nil pointer".into()))
            }
            other => {
                // Go's `indirectInterface` looks through pointers first.
                return Err(FuncError::Call(format!(
                    "can't index item of type {}",
                    other.type_name().trim_start_matches('*')
                )));
            }
        };
    }
    Ok(item)
}

fn slice(_: &Call, a: &[Value]) -> R {
    if a.is_empty() {
        return Err(FuncError::Plain(
            "wrong number of args for slice: want at least 1 got 0".into(),
        ));
    }
    let item = &a[0];
    let idx = &a[1..];
    if idx.len() > 3 {
        return Err(FuncError::Call(format!(
            "too many slice indexes: {}",
            idx.len()
        )));
    }
    let len = match item {
        Value::String(s) => {
            if idx.len() == 3 {
                return Err(FuncError::Call("cannot 3-index slice a string".into()));
            }
            s.len()
        }
        Value::List(l) => l.len(),
        Value::NoValue | Value::Nil => return Err(FuncError::Call("slice of untyped nil".into())),
        other => {
            return Err(FuncError::Call(format!(
                "can't slice item of type {}",
                other.type_name()
            )))
        }
    };
    let mut bounds = [0usize, len, len];
    for (i, v) in idx.iter().enumerate() {
        bounds[i] = int_index(v, len, len).map_err(FuncError::Call)?;
    }
    if bounds[0] > bounds[1] {
        return Err(FuncError::Call(format!(
            "invalid slice index: {} > {}",
            bounds[0], bounds[1]
        )));
    }
    if idx.len() == 3 && bounds[1] > bounds[2] {
        return Err(FuncError::Call(format!(
            "invalid slice index: {} > {}",
            bounds[1], bounds[2]
        )));
    }
    Ok(match item {
        Value::String(s) => match s.get(bounds[0]..bounds[1]) {
            Some(sub) => Value::str(sub),
            None => Value::str(
                String::from_utf8_lossy(&s.as_bytes()[bounds[0]..bounds[1]]).into_owned(),
            ),
        },
        Value::List(l) => Value::list(l[bounds[0]..bounds[1]].to_vec()),
        _ => unreachable!("checked above"),
    })
}

fn printf(_: &Call, a: &[Value]) -> R {
    let format = a[0].as_str().unwrap_or_default().to_string();
    Ok(Value::str(sprintf(&format, &a[1..])))
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum Basic {
    Invalid,
    Bool,
    /// Signed or unsigned: Go compares them by value across the sign.
    Int,
    Float,
    Complex,
    String,
    Other,
}

/// An integer of any Go integer type, for comparisons across signedness.
fn wide_int(v: &Value) -> Option<i128> {
    match v {
        Value::Int(i) | Value::Int64(i) => Some(i128::from(*i)),
        Value::Uint64(u) => Some(i128::from(*u)),
        Value::Uint8(b) => Some(i128::from(*b)),
        Value::Object(o) => o.0.int().map(i128::from),
        _ => None,
    }
}

fn basic(v: &Value) -> Basic {
    match v {
        Value::NoValue | Value::Nil => Basic::Invalid,
        Value::Bool(_) => Basic::Bool,
        Value::Int(_) | Value::Int64(_) | Value::Uint64(_) | Value::Uint8(_) => Basic::Int,
        Value::Object(o) if o.0.int().is_some() => Basic::Int,
        Value::Float(_) => Basic::Float,
        Value::Complex(..) => Basic::Complex,
        Value::String(_) => Basic::String,
        _ => Basic::Other,
    }
}

const BAD_COMPARISON: &str = "incompatible types for comparison";

fn eq(_: &Call, a: &[Value]) -> R {
    let Some(first) = a.first() else {
        return Err(FuncError::Plain(
            "wrong number of args for eq: want at least 1 got 0".into(),
        ));
    };
    if a.len() < 2 {
        return Err(FuncError::Call("missing argument for comparison".into()));
    }
    // Go's `basicKind` gives a nil and a value of no basic kind (a list, a map) one kind.
    let kind = |v: &Value| match basic(v) {
        Basic::Invalid => Basic::Other,
        k => k,
    };
    let valid = |v: &Value| !matches!(v, Value::Nil | Value::NoValue);
    let k1 = kind(first);
    for arg in &a[1..] {
        let k2 = kind(arg);
        let truth = if k1 != k2 {
            if valid(first) && valid(arg) {
                return Err(FuncError::Call(BAD_COMPARISON.into()));
            }
            false
        } else {
            match (first, arg) {
                (Value::Bool(x), Value::Bool(y)) => x == y,
                (Value::Float(x), Value::Float(y)) => x == y,
                (Value::Complex(a, b), Value::Complex(c, d)) => a == c && b == d,
                (x, y) if k1 == Basic::Int => wide_int(x) == wide_int(y),
                (Value::String(x), Value::String(y)) => x == y,
                (x, y) => compare_others(x, y)?,
            }
        };
        if truth {
            return Ok(Value::Bool(true));
        }
    }
    Ok(Value::Bool(false))
}

/// `eq`'s last case, for values of no basic kind (and nil): Go's `canCompare` wants one
/// kind or a nil; a nil equals only a nil; else the second value's type must be comparable
/// (no slice or map is), and pointers are equal when they are one pointer.
fn compare_others(x: &Value, y: &Value) -> Result<bool, FuncError> {
    let show = |v: &Value| super::super::fmt::sprintf("%s", std::slice::from_ref(v));
    let (kx, ky) = (x.kind_name(), y.kind_name());
    if kx != ky && kx != "invalid" && ky != "invalid" {
        return Err(FuncError::Call(format!(
            "non-comparable types {}: {}, {}: {}",
            show(x),
            x.type_name(),
            y.type_name(),
            super::super::fmt::sprint_value(y)
        )));
    }
    let is_nil = |v: &Value| match v {
        Value::Nil | Value::NoValue => true,
        Value::List(l) => l.is_nil(),
        Value::Map(m) => m.is_nil(),
        _ => false,
    };
    if is_nil(x) || is_nil(y) {
        return Ok(is_nil(x) == is_nil(y));
    }
    match (x, y) {
        (_, Value::List(_) | Value::Map(_)) => Err(FuncError::Call(format!(
            "non-comparable type {}: {}",
            show(y),
            y.type_name()
        ))),
        (Value::Object(a), Value::Object(b)) => Ok(match a.0.go_eq(&*b.0, false) {
            Some(same) => same,
            None if ky == "ptr" => std::sync::Arc::ptr_eq(&a.0, &b.0),
            None => x == y,
        }),
        _ => Ok(x == y),
    }
}

fn ne(c: &Call, a: &[Value]) -> R {
    match eq(c, a)? {
        Value::Bool(b) => Ok(Value::Bool(!b)),
        other => Ok(other),
    }
}

fn compare(a: &[Value], name: &str) -> R {
    let (x, y) = (&a[0], &a[1]);
    let (kx, ky) = (basic(x), basic(y));
    let invalid = |k: Basic| matches!(k, Basic::Invalid | Basic::Other);
    if invalid(kx) || invalid(ky) {
        return Err(FuncError::Call("invalid type for comparison".into()));
    }
    if kx != ky {
        return Err(FuncError::Call(BAD_COMPARISON.into()));
    }
    let ord = match (x, y) {
        (Value::Float(p), Value::Float(q)) => p.partial_cmp(q),
        (p, q) if kx == Basic::Int => wide_int(p).partial_cmp(&wide_int(q)),
        // Go compares the bytes (a carried byte is one).
        (Value::String(p), Value::String(q)) => {
            use crate::template::gostr::to_bytes;
            to_bytes(p).partial_cmp(&to_bytes(q))
        }
        _ => return Err(FuncError::Call("invalid type for comparison".into())),
    };
    use std::cmp::Ordering::*;
    // Go's `le` is `lt || eq`, `gt` is `!le` and `ge` is `!lt`: with a NaN (no order) both
    // `gt` and `ge` are true.
    let (lt, eq) = (ord == Some(Less), ord == Some(Equal));
    let truth = match name {
        "lt" => lt,
        "le" => lt || eq,
        "gt" => !(lt || eq),
        _ => !lt,
    };
    Ok(Value::Bool(truth))
}

/// `template.HTMLEscapeString`.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\0' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// text/template's `JSEscapeString`: quotes, `\\` and the HTML specials escaped, ASCII
/// controls as `\\u00XX`, any other character Go does not print (`unicode.IsPrint`: U+00A0,
/// U+2028, format characters) as `\\uXXXX`. A byte that is not UTF-8 stays as it is.
pub fn js_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '<' => out.push_str("\\u003C"),
            '>' => out.push_str("\\u003E"),
            '&' => out.push_str("\\u0026"),
            '=' => out.push_str("\\u003D"),
            c if c < ' ' => out.push_str(&format!("\\u{:04X}", c as u32)),
            c if c.is_ascii() || crate::template::gostr::is_carried(c) => out.push(c),
            c if crate::go::unicode::is_print(c) => out.push(c),
            c => out.push_str(&format!("\\u{:04X}", c as u32)),
        }
    }
    out
}

/// `url.QueryEscape`.
pub fn query_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in crate::template::gostr::to_bytes(s).iter() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}
