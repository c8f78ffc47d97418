//! sprig's `dict.go`: building, reading and changing dicts, mergo's merges, `deepCopy` and `dig`.

use super::defaults::empty;
use super::strings::strval;
use super::{dict, s, A, M, S};
use crate::template::value::{Dict, MapType, SharedWrite, Value};
use crate::template::{FuncDef, FuncError};
use std::collections::BTreeMap;

/// The dict functions.
pub(super) const FUNCS: &[FuncDef] = &[
    FuncDef::variadic("dict", &[], A, |_, a| {
        let mut m = BTreeMap::new();
        for pair in a.chunks(2) {
            let v = pair.get(1).cloned().unwrap_or(Value::str(""));
            m.insert(strval(&pair[0]), v);
        }
        Ok(Value::map(m))
    }),
    FuncDef::new("get", &[M, S], |_, a| {
        Ok(dict(a, 0).get(s(a, 1)).unwrap_or(Value::str("")))
    }),
    FuncDef::new("set", &[M, S, A], |_, a| {
        let d = dict(a, 0);
        if d.is_nil() {
            // Go's runtime panics, and text/template reports the panic as the call's error.
            return Err(FuncError::Call("assignment to entry in nil map".into()));
        }
        d.insert(s(a, 1).to_string(), a[2].clone())?;
        Ok(a[0].clone())
    }),
    FuncDef::new("unset", &[M, S], |_, a| {
        dict(a, 0).remove(s(a, 1))?;
        Ok(a[0].clone())
    }),
    FuncDef::new("hasKey", &[M, S], |_, a| {
        Ok(Value::Bool(dict(a, 0).get(s(a, 1)).is_some()))
    }),
    FuncDef::variadic("pluck", &[S], M, |_, a| {
        Ok(Value::list(
            a[1..]
                .iter()
                .filter_map(|d| match d {
                    Value::Map(m) => m.get(s(a, 0)),
                    _ => None,
                })
                .collect(),
        ))
    }),
    FuncDef::variadic("keys", &[], M, |_, a| {
        let mut out = Vec::new();
        for d in a {
            if let Value::Map(m) = d {
                out.extend(m.read().keys().cloned());
            }
        }
        Ok(Value::strings(out))
    }),
    FuncDef::new("values", &[M], |_, a| {
        Ok(Value::list(dict(a, 0).read().values().cloned().collect()))
    }),
    FuncDef::variadic("pick", &[M], S, |_, a| {
        let d = dict(a, 0);
        let m = a[1..]
            .iter()
            .filter_map(|k| {
                let k = k.as_str()?;
                d.get(k).map(|v| (k.to_string(), v))
            })
            .collect();
        Ok(Value::map(m))
    }),
    FuncDef::variadic("omit", &[M], S, |_, a| {
        let keys: Vec<&str> = a[1..].iter().filter_map(Value::as_str).collect();
        let m = dict(a, 0)
            .entries()
            .into_iter()
            .filter(|(k, _)| !keys.contains(&k.as_str()))
            .collect();
        Ok(Value::map(m))
    }),
    FuncDef::variadic("merge", &[M], M, |_, a| merge(a, false)),
    FuncDef::variadic("mergeOverwrite", &[M], M, |_, a| merge(a, true)),
    FuncDef::new("deepCopy", &[A], |_, a| {
        if matches!(a[0], Value::Nil | Value::NoValue) {
            // copystructure reflects on the nil interface and panics.
            return Err(FuncError::Call(
                "reflect: call of reflect.Value.Type on zero Value".into(),
            ));
        }
        Ok(deep_copy(&a[0]))
    }),
    FuncDef::variadic("dig", &[], A, |_, a| {
        if a.len() < 3 {
            return Err(FuncError::Call("dig needs at least three arguments".into()));
        }
        let default = a[a.len() - 2].clone();
        let mut m = dig_map(&a[a.len() - 1])?;
        let keys = &a[..a.len() - 2];
        // `ps[i].(string)` for every key before the walk.
        for k in keys {
            if !matches!(k, Value::String(_)) {
                let ty = match k {
                    Value::Nil | Value::NoValue => "nil",
                    o => o.type_name(),
                };
                return Err(FuncError::Call(format!(
                    "interface conversion: interface {{}} is {ty}, not string"
                )));
            }
        }
        for (i, k) in keys.iter().enumerate() {
            let Some(v) = m.get(&strval(k)) else {
                return Ok(default);
            };
            if i == keys.len() - 1 {
                return Ok(v);
            }
            m = dig_map(&v)?;
        }
        Ok(default)
    }),
];

/// `v.(map[string]interface{})`, as `dig` asserts it: a named map type fails too.
fn dig_map(v: &Value) -> Result<Dict, FuncError> {
    match v {
        Value::Map(m) if m.ty() == MapType::Any => Ok(m.clone()),
        other => {
            let ty = match other {
                Value::Nil | Value::NoValue => "nil",
                o => o.type_name(),
            };
            Err(FuncError::Call(format!(
                "interface conversion: interface {{}} is {ty}, not map[string]interface {{}}"
            )))
        }
    }
}

/// sprig's `merge` and `mergeOverwrite`: `mergo.Merge(&dst, src)` for each source. mergo
/// gives a nil `dst` a new map of its own, so the caller's nil map stays nil and the result
/// is the new one.
fn merge(a: &[Value], overwrite: bool) -> Result<Value, FuncError> {
    let given = dict(a, 0);
    let dst = if given.is_nil()
        && a[1..]
            .iter()
            .any(|v| matches!(v, Value::Map(m) if !m.is_nil()))
    {
        Dict::typed(BTreeMap::new(), given.ty())
    } else {
        given
    };
    for src in &a[1..] {
        if let Value::Map(src) = src {
            merge_into(&dst, src, overwrite)?;
        }
    }
    Ok(Value::Map(dst))
}

/// mergo.Merge: keys missing in `dst` (or, with `overwrite`, every non-empty key) taken from
/// `src`, maps merged recursively.
/// mergo's map merge, as sprig's `merge` (fill what `dst` lacks or holds empty) and
/// `mergeOverwrite` (replace, even with an empty value; a nil value too) call it. Maps on
/// both sides merge recursively.
fn merge_into(dst: &Dict, src: &Dict, overwrite: bool) -> Result<(), SharedWrite> {
    for (k, v) in src.entries() {
        let existing = dst.get(&k);
        if matches!(v, Value::Nil | Value::NoValue) {
            if overwrite {
                dst.insert(k, Value::Nil)?;
            }
            continue;
        }
        if let (Some(Value::Map(d)), Value::Map(s)) = (&existing, &v) {
            if !d.same(s) {
                merge_into(d, s, overwrite)?;
            }
            if !d.is_empty() {
                continue;
            }
        }
        let keep = existing.is_some_and(|old| !overwrite && !empty(&old));
        if !keep {
            dst.insert(k, v)?;
        }
    }
    Ok(())
}

fn deep_copy(v: &Value) -> Value {
    match v {
        // copystructure keeps a nil map or slice nil.
        Value::Map(m) if m.is_nil() => Value::Map(Dict::nil(m.ty())),
        Value::List(l) if l.is_nil() => Value::nil_list(l.ty),
        // Of the same type (`[]string`, `chartutil.Values`, `engine.files`).
        Value::List(l) => Value::typed_list(l.iter().map(deep_copy).collect(), l.ty),
        Value::Map(m) => Value::Map(Dict::typed(
            m.entries()
                .into_iter()
                .map(|(k, v)| (k, deep_copy(&v)))
                .collect(),
            m.ty(),
        )),
        other => other.clone(),
    }
}
