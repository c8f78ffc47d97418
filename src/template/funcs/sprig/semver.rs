//! sprig's `semver.go`: `semver` (the object is `funcs/semver.rs`) and `semverCompare` (on
//! [`crate::semver`]).

use super::{s, S};
use crate::template::value::Value;
use crate::template::{FuncDef, FuncError};

/// The version functions.
pub(super) const FUNCS: &[FuncDef] = &[
    FuncDef::new("semver", &[S], |_, a| {
        super::super::semver::SemverObject::parse(s(a, 0))
            .map(|o| Value::Object(crate::template::value::ObjectRef(std::sync::Arc::new(o))))
            .map_err(FuncError::Call)
    }),
    FuncDef::new("semverCompare", &[S, S], |_, a| {
        crate::semver::satisfies(s(a, 0), s(a, 1))
            .map(Value::Bool)
            .map_err(|e| FuncError::Call(e.to_string()))
    }),
];
