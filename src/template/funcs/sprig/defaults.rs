//! sprig's `defaults.go`: `default`, `empty`, `coalesce`, `all`, `any`, `ternary`, and the JSON
//! functions sprig keeps there (on [`json`]); with `fail` from its flow control.

use super::super::json;
use super::{s, A, S};
use crate::template::value::Value;
use crate::template::{FuncDef, FuncError, Param};

/// The default and JSON functions.
pub(super) const FUNCS: &[FuncDef] = &[
    // Defaults.
    FuncDef::variadic("default", &[A], A, |_, a| {
        Ok(match a.get(1) {
            Some(given) if !empty(given) => given.clone(),
            _ => a[0].clone(),
        })
    }),
    FuncDef::new("empty", &[A], |_, a| Ok(Value::Bool(empty(&a[0])))),
    FuncDef::variadic("coalesce", &[], A, |_, a| {
        Ok(a.iter().find(|v| !empty(v)).cloned().unwrap_or(Value::Nil))
    }),
    FuncDef::variadic("all", &[], A, |_, a| {
        Ok(Value::Bool(a.iter().all(|v| !empty(v))))
    }),
    FuncDef::variadic("any", &[], A, |_, a| {
        Ok(Value::Bool(a.iter().any(|v| !empty(v))))
    }),
    FuncDef::new("ternary", &[A, A, Param::Bool], |_, a| {
        Ok(if matches!(a[2], Value::Bool(true)) {
            a[0].clone()
        } else {
            a[1].clone()
        })
    }),
    FuncDef::new("fail", &[S], |_, a| {
        Err(FuncError::Call(s(a, 0).to_string()))
    }),
    // JSON.
    FuncDef::new("toJson", &[A], |_, a| {
        Ok(or_empty(json::marshal(&a[0], true, None)))
    }),
    FuncDef::new("mustToJson", &[A], |_, a| {
        must(json::marshal(&a[0], true, None))
    }),
    FuncDef::new("toPrettyJson", &[A], |_, a| {
        Ok(or_empty(json::marshal(&a[0], true, Some("  "))))
    }),
    FuncDef::new("mustToPrettyJson", &[A], |_, a| {
        must(json::marshal(&a[0], true, Some("  ")))
    }),
    // Unlike toJson, sprig's toRawJson panics on an encoding error (NaN, ±Inf).
    FuncDef::new("toRawJson", &[A], |_, a| {
        must(json::marshal(&a[0], false, None))
    }),
    FuncDef::new("mustToRawJson", &[A], |_, a| {
        must(json::marshal(&a[0], false, None))
    }),
    FuncDef::new("fromJson", &[S], |_, a| {
        Ok(json::unmarshal(s(a, 0)).unwrap_or(Value::Nil))
    }),
    FuncDef::new("mustFromJson", &[S], |_, a| {
        json::unmarshal(s(a, 0)).map_err(FuncError::Call)
    }),
];

/// sprig's `empty`: nil, false, 0, "" and empty collections.
pub fn empty(v: &Value) -> bool {
    !v.truth()
}

/// A plain sprig function's result: the text, or empty when it failed.
fn or_empty(r: Result<String, String>) -> Value {
    Value::str(r.unwrap_or_default())
}

/// A `must` function's result: the text, or the error.
fn must(r: Result<String, String>) -> Result<Value, FuncError> {
    r.map(Value::str).map_err(FuncError::Call)
}
