//! sprig's `list.go`: building, slicing, searching and reordering lists (the `must` forms are
//! aliases, `super::ALIASES`).

use super::defaults::empty;
use super::numeric::to_int64;
use super::strings::strslice;
use super::{int, A, I};
use crate::template::value::{ListType, Value};
use crate::template::{FuncDef, FuncError};

/// The list functions.
pub(super) const FUNCS: &[FuncDef] = &[
    FuncDef::variadic("list", &[], A, |_, a| Ok(Value::list(a.to_vec()))),
    FuncDef::variadic("tuple", &[], A, |_, a| Ok(Value::list(a.to_vec()))),
    FuncDef::new("first", &[A], |_, a| {
        let l = list_of(&a[0], "find first")?;
        Ok(l.first().cloned().unwrap_or(Value::Nil))
    }),
    FuncDef::new("last", &[A], |_, a| {
        let l = list_of(&a[0], "find last")?;
        Ok(l.last().cloned().unwrap_or(Value::Nil))
    }),
    FuncDef::new("rest", &[A], |_, a| {
        // Of an empty list, nil (`null` in JSON); of one item, an empty list.
        let l = list_of(&a[0], "find rest")?;
        Ok(match l.get(1..) {
            Some(rest) => Value::list(rest.to_vec()),
            None => Value::nil_list(ListType::Any),
        })
    }),
    FuncDef::new("initial", &[A], |_, a| {
        let l = list_of(&a[0], "find initial")?;
        Ok(match l.len().checked_sub(1) {
            Some(n) => Value::list(l[..n].to_vec()),
            None => Value::nil_list(ListType::Any),
        })
    }),
    FuncDef::new("append", &[A, A], |_, a| {
        let mut l = list_of(&a[0], "push")?;
        l.push(a[1].clone());
        Ok(Value::list(l))
    }),
    FuncDef::new("push", &[A, A], |_, a| {
        let mut l = list_of(&a[0], "push")?;
        l.push(a[1].clone());
        Ok(Value::list(l))
    }),
    FuncDef::new("prepend", &[A, A], |_, a| {
        let mut l = list_of(&a[0], "prepend")?;
        l.insert(0, a[1].clone());
        Ok(Value::list(l))
    }),
    FuncDef::variadic("concat", &[], A, |_, a| {
        let mut out = Vec::new();
        for v in a {
            match v.slice_items() {
                Some(items) => out.extend(items.iter().cloned()),
                // `reflect.TypeOf(nil).Kind()`: a method call on a nil Type.
                None if matches!(v, Value::Nil | Value::NoValue) => {
                    return Err(FuncError::Call(
                        "runtime error: invalid memory address or nil pointer dereference".into(),
                    ))
                }
                None => {
                    return Err(FuncError::Call(format!(
                        "Cannot concat type {} as list",
                        v.kind_name()
                    )))
                }
            }
        }
        // sprig appends to a nil slice: nil when nothing was appended (`null` in JSON).
        Ok(if out.is_empty() {
            Value::nil_list(ListType::Any)
        } else {
            Value::list(out)
        })
    }),
    FuncDef::variadic("slice", &[A], A, |_, a| sprig_slice(a)),
    FuncDef::new("reverse", &[A], |_, a| {
        let mut l = list_of(&a[0], "find reverse")?;
        l.reverse();
        Ok(Value::list(l))
    }),
    FuncDef::new("uniq", &[A], |_, a| {
        let l = list_of(&a[0], "find uniq")?;
        let mut out: Vec<Value> = Vec::new();
        for v in l {
            if !out.contains(&v) {
                out.push(v);
            }
        }
        Ok(Value::list(out))
    }),
    FuncDef::variadic("without", &[A], A, |_, a| {
        let l = list_of(&a[0], "find without")?;
        Ok(Value::list(
            l.into_iter().filter(|v| !a[1..].contains(v)).collect(),
        ))
    }),
    FuncDef::new("has", &[A, A], |_, a| {
        if let Some(items) = a[1].slice_items() {
            return Ok(Value::Bool(items.contains(&a[0])));
        }
        Ok(Value::Bool(match &a[1] {
            Value::Nil => false,
            other => {
                return Err(FuncError::Call(format!(
                    "Cannot find has on type {}",
                    other.kind_name()
                )))
            }
        }))
    }),
    FuncDef::new("compact", &[A], |_, a| {
        let l = list_of(&a[0], "compact")?;
        Ok(Value::list(l.into_iter().filter(|v| !empty(v)).collect()))
    }),
    // sprig's arithmetic in floats: a size of zero or less gives Go's conversion of an
    // infinity or a negative count, which `make` refuses, or no chunks at all.
    FuncDef::new("chunk", &[I, A], |_, a| {
        let items = match &a[1] {
            Value::Nil | Value::NoValue => {
                return Err(FuncError::Call(
                    "runtime error: invalid memory address or nil pointer dereference".into(),
                ))
            }
            v if v.slice_items().is_some() => list_of(v, "chunk")?,
            other => {
                return Err(FuncError::Call(format!(
                    "Cannot chunk type {}",
                    other.kind_name()
                )))
            }
        };
        let (size, len) = (int(a, 0), items.len() as i64);
        let make_error = || FuncError::Call("runtime error: makeslice: len out of range".into());
        let count = go_int(((len - 1) as f64 / size as f64).floor() + 1.0);
        if count < 0 {
            return Err(make_error());
        }
        let mut chunks = Vec::new();
        for i in 0..count {
            let mut chunk_len = size;
            if i == count - 1 {
                chunk_len = go_int((len as f64 % size as f64).floor());
                if chunk_len == 0 {
                    chunk_len = size;
                }
            }
            if chunk_len < 0 {
                return Err(make_error());
            }
            let start = (i * size) as usize;
            chunks.push(Value::list(
                items[start..start + chunk_len as usize].to_vec(),
            ));
        }
        Ok(Value::list(chunks))
    }),
    // Anything but a list is a list of its `strval` (`[<nil>]` for nil).
    FuncDef::new("sortAlpha", &[A], |_, a| {
        if a[0].slice_items().is_none() {
            return Ok(Value::strings(vec![super::strings::strval(&a[0])]));
        }
        // A `[]string` is sorted in place: a nil one stays nil.
        if is_nil_strings(&a[0]) {
            return Ok(a[0].clone());
        }
        let mut v = strslice(&a[0]);
        v.sort();
        Ok(Value::strings(v))
    }),
];

/// Go's float-to-int conversion on amd64: NaN and values out of range are the minimum.
fn go_int(f: f64) -> i64 {
    if f.is_nan() || !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) {
        i64::MIN
    } else {
        f as i64
    }
}

/// The items of a list argument; `doing` is how sprig's error names the failed action
/// (`Cannot find first on type string`, `Cannot push on type string`).
/// A nil `[]string`, which sprig's `strslice` hands back as it is.
pub(super) fn is_nil_strings(v: &Value) -> bool {
    matches!(v, Value::List(l) if l.is_nil() && l.ty == ListType::String)
}

fn list_of(v: &Value, doing: &str) -> Result<Vec<Value>, FuncError> {
    if let Some(items) = v.slice_items() {
        return Ok(items.into_owned());
    }
    match v {
        Value::Nil | Value::NoValue => Err(FuncError::Call(
            "runtime error: invalid memory address or nil pointer dereference".into(),
        )),
        other => Err(FuncError::Call(format!(
            "Cannot {doing} on type {}",
            other.kind_name()
        ))),
    }
}

/// sprig's `slice` (which replaces text/template's): `list[start:end]`, keeping the list's
/// type; an empty list gives nil.
fn sprig_slice(a: &[Value]) -> Result<Value, FuncError> {
    let (l, ty) = match &a[0] {
        Value::List(l) => (std::borrow::Cow::Borrowed(&l[..]), l.ty),
        // Go keeps the named slice type (`chartutil.VersionSet`); kdelta cannot build one of
        // another module's object types, so the slice is a plain list of its elements.
        v @ Value::Object(_) if v.slice_items().is_some() => {
            (v.slice_items().unwrap_or_default(), ListType::Any)
        }
        Value::Nil | Value::NoValue => {
            return Err(FuncError::Call(
                "runtime error: invalid memory address or nil pointer dereference".into(),
            ))
        }
        other => {
            return Err(FuncError::Call(format!(
                "list should be type of slice or array but {}",
                other.kind_name()
            )))
        }
    };
    if l.is_empty() {
        return Ok(Value::Nil);
    }
    let start = a.get(1).map_or(0, to_int64);
    let end = a.get(2).map_or(l.len() as i64, to_int64);
    if start < 0 || end < start || end > l.len() as i64 {
        return Err(FuncError::Call(
            "reflect.Value.Slice: slice index out of bounds".into(),
        ));
    }
    Ok(Value::typed_list(
        l[start as usize..end as usize].to_vec(),
        ty,
    ))
}
