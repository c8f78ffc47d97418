//! cel-go's sets extension (`ext.Sets()`, in the API server's environment since 1.29):
//! `sets.contains`, `sets.equivalent` and `sets.intersects` on two lists, elements compared
//! with CEL's `==`.

use cel::common::traits::Iterable;
use cel::common::types::{CelBool, LIST_TYPE};
use cel::common::value::{CowVal, Val};
use cel::{DeclarationError, Env, ExecutionError};

pub(super) fn extension(env: &mut Env) -> Result<(), DeclarationError> {
    let lists = || vec![LIST_TYPE, LIST_TYPE];
    env.add_overload(
        "sets.contains",
        "list_sets_contains_list",
        lists(),
        contains,
    )?;
    env.add_overload(
        "sets.equivalent",
        "list_sets_equivalent_list",
        lists(),
        equivalent,
    )?;
    env.add_overload(
        "sets.intersects",
        "list_sets_intersects_list",
        lists(),
        intersects,
    )?;
    Ok(())
}

/// The two lists of a call.
fn pair<'b, 'v>(
    function: &str,
    args: &'b [CowVal<'_, 'v>],
) -> Result<(&'b (dyn Iterable + 'v), &'b (dyn Iterable + 'v)), ExecutionError> {
    let list = |i: usize| {
        args.get(i)
            .and_then(|l| l.as_iterable())
            .ok_or_else(|| ExecutionError::function_error(function, "expects two lists"))
    };
    Ok((list(0)?, list(1)?))
}

/// True when every element of `sub` equals some element of `set`.
fn includes(set: &dyn Iterable, sub: &dyn Iterable) -> bool {
    let mut wanted = sub.iter();
    while let Some(w) = wanted.next() {
        if !any_equal(set, w) {
            return false;
        }
    }
    true
}

fn any_equal(set: &dyn Iterable, item: &dyn Val) -> bool {
    let mut it = set.iter();
    while let Some(v) = it.next() {
        if v.equals(item) {
            return true;
        }
    }
    false
}

fn contains<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let (set, sub) = pair("sets.contains", &args)?;
    Ok(CowVal::owned(CelBool::from(includes(set, sub))))
}

fn equivalent<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let (a, b) = pair("sets.equivalent", &args)?;
    Ok(CowVal::owned(CelBool::from(
        includes(a, b) && includes(b, a),
    )))
}

fn intersects<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let (a, b) = pair("sets.intersects", &args)?;
    let mut it = b.iter();
    while let Some(v) = it.next() {
        if any_equal(a, v) {
            return Ok(CowVal::owned(CelBool::from(true)));
        }
    }
    Ok(CowVal::owned(CelBool::from(false)))
}
