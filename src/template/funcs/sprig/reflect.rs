//! sprig's `reflect.go`: `typeOf`, `typeIs`, `typeIsLike`, `kindOf`, `kindIs`, and `deepEqual`
//! (Go's `reflect.DeepEqual`).

use super::{s, A, S};
use crate::template::value::Value;
use crate::template::FuncDef;

/// The type tests.
pub(super) const FUNCS: &[FuncDef] = &[
    FuncDef::new("typeOf", &[A], |_, a| Ok(Value::str(a[0].type_name()))),
    FuncDef::new("typeIs", &[S, A], |_, a| {
        Ok(Value::Bool(s(a, 0) == a[1].type_name()))
    }),
    FuncDef::new("typeIsLike", &[S, A], |_, a| {
        // sprig: `target == t || "*"+target == t`.
        let t = a[1].type_name();
        Ok(Value::Bool(s(a, 0) == t || format!("*{}", s(a, 0)) == t))
    }),
    FuncDef::new("kindOf", &[A], |_, a| Ok(Value::str(a[0].kind_name()))),
    FuncDef::new("kindIs", &[S, A], |_, a| {
        Ok(Value::Bool(s(a, 0) == a[1].kind_name()))
    }),
    FuncDef::new("deepEqual", &[A, A], |_, a| Ok(Value::Bool(a[0] == a[1]))),
];
