//! The Kubernetes lists library's members the `cel` crate's lists extension lacks: `isSorted`,
//! `sum`, `min`, `max`, `indexOf` and `lastIndexOf`. They take any list, as the crate's own
//! list functions do, so they are registered by hand.

use cel::common::traits::Iterable;
use cel::common::types::{CelBool, CelInt, DYN_TYPE, LIST_TYPE};
use cel::common::value::{CowVal, Val};
use cel::{DeclarationError, Env, ExecutionError};
use std::cmp::Ordering;

pub(super) fn extension(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_member_overload("isSorted", "list.isSorted()", LIST_TYPE, vec![], is_sorted)?;
    env.add_member_overload("sum", "list.sum()", LIST_TYPE, vec![], sum)?;
    env.add_member_overload("min", "list.min()", LIST_TYPE, vec![], min)?;
    env.add_member_overload("max", "list.max()", LIST_TYPE, vec![], max)?;
    env.add_member_overload(
        "indexOf",
        "list.indexOf(dyn)",
        LIST_TYPE,
        vec![DYN_TYPE],
        index_of,
    )?;
    env.add_member_overload(
        "lastIndexOf",
        "list.lastIndexOf(dyn)",
        LIST_TYPE,
        vec![DYN_TYPE],
        last_index_of,
    )?;
    Ok(())
}

fn list<'b, 'v>(
    function: &str,
    args: &'b [CowVal<'_, 'v>],
) -> Result<&'b (dyn Iterable + 'v), ExecutionError> {
    args.first()
        .and_then(|l| l.as_iterable())
        .ok_or_else(|| ExecutionError::function_error(function, "expects a list"))
}

/// How `a` orders against `b`, as `<` would.
fn compare(function: &str, a: &dyn Val, b: &dyn Val) -> Result<Ordering, ExecutionError> {
    let not_comparable = || {
        ExecutionError::function_error(
            function,
            format!(
                "no such overload: {} and {}",
                a.get_type().name(),
                b.get_type().name()
            ),
        )
    };
    a.as_comparer()
        .ok_or_else(not_comparable)?
        .compare(b)
        .map_err(|_| not_comparable())
}

fn is_sorted<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let mut it = list("isSorted", &args)?.iter();
    let mut prev = it.next();
    while let Some(next) = it.next() {
        if let Some(p) = prev {
            if compare("isSorted", p, next)? == Ordering::Greater {
                return Ok(CowVal::owned(CelBool::from(false)));
            }
        }
        prev = Some(next);
    }
    Ok(CowVal::owned(CelBool::from(true)))
}

/// The sum of the elements (ints, uints, doubles or durations); 0 for an empty list.
fn sum<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let mut it = list("sum", &args)?.iter();
    let mut acc: Option<Box<dyn Val + 'v>> = None;
    while let Some(next) = it.next() {
        acc = Some(match acc {
            None => next.clone_as_boxed(),
            Some(a) => {
                let adder = a.as_adder().ok_or_else(|| {
                    ExecutionError::function_error("sum", "elements cannot be added")
                })?;
                adder.add(next)?.into_owned()
            }
        });
    }
    Ok(match acc {
        Some(v) => CowVal::Owned(v),
        None => CowVal::owned(CelInt::from(0)),
    })
}

/// The element `prefer` orders first: the least for `min`, the greatest for `max`.
fn extreme<'b, 'v>(
    function: &str,
    args: Vec<CowVal<'b, 'v>>,
    prefer: Ordering,
) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let mut it = list(function, &args)?.iter();
    let mut best: Option<&(dyn Val + 'v)> = None;
    while let Some(next) = it.next() {
        best = match best {
            Some(b) if compare(function, b, next)? != prefer.reverse() => Some(b),
            _ => Some(next),
        };
    }
    let best = best.ok_or_else(|| {
        ExecutionError::function_error(function, format!("{function} called on empty list"))
    })?;
    Ok(CowVal::Owned(best.clone_as_boxed()))
}

fn min<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    extreme("min", args, Ordering::Less)
}

fn max<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    extreme("max", args, Ordering::Greater)
}

/// The positions of the elements equal to the argument.
fn positions(function: &str, args: &[CowVal<'_, '_>]) -> Result<Vec<i64>, ExecutionError> {
    let item = args
        .get(1)
        .ok_or_else(|| ExecutionError::invalid_argument_count(2, args.len()))?;
    let mut it = list(function, args)?.iter();
    let mut out = Vec::new();
    let mut i = 0i64;
    while let Some(next) = it.next() {
        if next.equals(item.as_ref()) {
            out.push(i);
        }
        i += 1;
    }
    Ok(out)
}

fn index_of<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let found = positions("indexOf", &args)?.first().copied().unwrap_or(-1);
    Ok(CowVal::owned(CelInt::from(found)))
}

fn last_index_of<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let found = positions("lastIndexOf", &args)?
        .last()
        .copied()
        .unwrap_or(-1);
    Ok(CowVal::owned(CelInt::from(found)))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{assert_error, assert_true};

    #[test]
    fn list_examples() {
        // lists.go's documented examples.
        assert_true(&[
            "[1, 2, 3].isSorted() && !['z', 'a'].isSorted() && [].isSorted() && [1, 1].isSorted()",
            "[1, 3].sum() == 4 && [1.0, 3.5].sum() == 4.5 && ['1s', '1ms'].map(d, duration(d)).sum() == duration('1001ms') && [].sum() == 0",
            "[1, 2].min() == 1 && [1, 2].max() == 2 && ['b', 'a', 'c'].min() == 'a' && [1.5, 0.5].max() == 1.5",
            "[1, 2, 2, 3].indexOf(2) == 1 && ['a', 'b'].indexOf('z') == -1 && [1, 2, 2, 3].lastIndexOf(2) == 2 && [].lastIndexOf(1) == -1",
            "[[1], [2]].indexOf([2]) == 1",
        ]);
        assert_error(&[
            ("[].min()", "min called on empty list"),
            ("[].max()", "max called on empty list"),
            ("[1, 'a'].isSorted()", "no such overload"),
        ]);
    }
}
