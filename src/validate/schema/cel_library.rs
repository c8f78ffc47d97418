//! The Kubernetes CEL libraries (`k8s.io/apiserver/pkg/cel/library`) that CRD rules use and
//! the `cel` crate lacks, one library per file: regex `find`/`findAll` (here), quantities
//! (`quantity.rs`), URLs (`url.rs`), IP addresses and CIDRs (`net.rs`), named formats
//! (`format.rs`), semantic versions (`semver.rs`), the list functions (`lists.rs`) and
//! cel-go's sets extension (`sets.rs`) and `cel.bind` (`bind.rs`); base64 is the `cel`
//! crate's encoders extension.
//!
//! The Kubernetes types (`kubernetes.Quantity`, `net.IP`…) are opaque `cel` values of their
//! own CEL type, so overloads are picked on them and `==` compares them as the API server
//! does (quantities by value). The strings extension of the `cel` crate already has the
//! Kubernetes strings library (`charAt`, `indexOf`, `lowerAscii`, `split`, `join`…).

mod bind;
mod format;
mod lists;
mod net;
mod quantity;
mod semver;
mod sets;
mod url;

pub use quantity::is_quantity;

use cel::common::types::{CelInt, CelList, CelString};
use cel::common::value::Val;
use cel::{DeclarationError, Env, ExecutionError};

/// Registers the functions on `env`.
pub(super) fn extension(env: &mut Env) -> Result<(), DeclarationError> {
    cel::add_member_overload!(env, fn find: (CelString, CelString) -> Result<CelString>)?;
    cel::add_member_overload!(env, fn find_all: (CelString, CelString) -> Result<CelList>,
        name = "findAll")?;
    cel::add_member_overload!(env, fn find_all_n: (CelString, CelString, CelInt) -> Result<CelList>,
        name = "findAll")?;
    quantity::extension(env)?;
    url::extension(env)?;
    net::extension(env)?;
    format::extension(env)?;
    semver::extension(env)?;
    lists::extension(env)?;
    sets::extension(env)?;
    bind::extension(env)?;
    Ok(())
}

/// Implements `Val` for a Kubernetes library type: a `'static` opaque value of CEL type
/// `$name`, equal by its `PartialEq`.
macro_rules! kubernetes_type {
    ($ty:ty, $name:literal) => {
        impl cel::common::value::Val for $ty {
            fn get_type(&self) -> &cel::common::types::Type {
                <Self as cel::common::value::Val>::cel_type()
            }
            fn cel_type() -> &'static cel::common::types::Type {
                static TYPE: cel::common::types::Type =
                    cel::common::types::Type::new_unspecified_type($name);
                &TYPE
            }
            fn equals(&self, other: &dyn cel::common::value::Val) -> bool {
                other.downcast_ref::<$ty>().is_some_and(|o| o == self)
            }
            fn clone_as_boxed<'v>(&self) -> Box<dyn cel::common::value::Val + 'v> {
                Box::new(self.clone())
            }
            fn as_any(&self) -> Option<&dyn std::any::Any> {
                Some(self)
            }
        }
        impl cel::common::value::StaticVal for $ty {}
    };
}
use kubernetes_type;

/// A list of strings as a CEL value.
fn string_list(items: impl IntoIterator<Item = String>) -> CelList<'static> {
    items
        .into_iter()
        .map(|s| Box::new(CelString::from(s)) as Box<dyn Val>)
        .collect::<Vec<_>>()
        .into()
}

fn regex(function: &str, re: &str) -> Result<regex::Regex, ExecutionError> {
    regex::Regex::new(re).map_err(|e| ExecutionError::function_error(function, e))
}

/// The first match, or the empty string.
fn find(this: &CelString<'_>, re: &CelString<'_>) -> Result<CelString<'static>, ExecutionError> {
    let re = regex("find", re.inner())?;
    let found = re
        .find(this.inner())
        .map(|m| m.as_str())
        .unwrap_or_default();
    Ok(CelString::from(found.to_string()))
}

fn find_all(this: &CelString<'_>, re: &CelString<'_>) -> Result<CelList<'static>, ExecutionError> {
    find_all_n(this, re, &CelInt::from(-1))
}

/// At most `n` matches (all when `n` is negative), as Go's `FindAllString`.
fn find_all_n(
    this: &CelString<'_>,
    re: &CelString<'_>,
    n: &CelInt,
) -> Result<CelList<'static>, ExecutionError> {
    let re = regex("findAll", re.inner())?;
    let limit = usize::try_from(*n.inner()).unwrap_or(usize::MAX);
    Ok(string_list(
        re.find_iter(this.inner())
            .take(limit)
            .map(|m| m.as_str().to_string()),
    ))
}

#[cfg(test)]
mod tests {
    use cel::{Context, ExecutionError, Value};

    fn run(expr: &str) -> Result<Value, ExecutionError> {
        let env = super::super::cel::env();
        let program = env.compile(expr).expect("compiles");
        program.execute(&Context::with_env(env.clone()))
    }

    /// Asserts that each expression evaluates to true.
    pub(super) fn assert_true(exprs: &[&str]) {
        for expr in exprs {
            assert_eq!(run(expr), Ok(Value::Bool(true)), "{expr}");
        }
    }

    /// Asserts that each expression fails with an error whose text contains the given words.
    pub(super) fn assert_error(cases: &[(&str, &str)]) {
        for (expr, want) in cases {
            match run(expr) {
                Err(e) => assert!(e.to_string().contains(want), "{expr}: {e}"),
                Ok(v) => panic!("{expr} gave {v:?}, not an error"),
            }
        }
    }

    #[test]
    fn regex_and_crate_functions() {
        assert_true(&[
            "'a1b22c333'.find('[0-9]+') == '1'",
            "'abc'.find('[0-9]+') == ''",
            "'a1b22c333'.findAll('[0-9]+') == ['1', '22', '333']",
            "'a1b22c333'.findAll('[0-9]+', 2) == ['1', '22']",
            // Gateway API's timeouts compare Go durations.
            "duration('1h30m') > duration('10s') && duration('500ms') < duration('1s') && duration('0s') == duration('0s')",
            // The Kubernetes strings library, from the crate's strings extension.
            "'Hello'.lowerAscii() == 'hello' && 'hello'.upperAscii() == 'HELLO'",
            "'a,b'.split(',') == ['a', 'b'] && ['a', 'b'].join('-') == 'a-b' && ['a', 'b'].join() == 'ab'",
            "'abc'.indexOf('c') == 2 && 'abca'.lastIndexOf('a') == 3 && 'abc'.charAt(1) == 'b'",
            "'abc'.replace('b', 'x') == 'axc' && 'abc'.substring(1) == 'bc' && ' a '.trim() == 'a'",
            "'abc'.indexOf('c', 1) == 2 && 'abc'.substring(0, 2) == 'ab' && 'a-b-c'.split('-', 2) == ['a', 'b-c']",
        ]);
    }
}
