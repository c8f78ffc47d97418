//! The parts of the Kubernetes CEL libraries (`k8s.io/apiserver/pkg/cel/library`) that CRD
//! rules use and the `cel` crate lacks: regex `find`/`findAll` and the `isURL`, `isIP` and
//! `isCIDR` checks. Functions returning Kubernetes types (`quantity()`, `url()`, `ip()`,
//! `cidr()`, `format.*`) are not here: a rule calling them is not evaluated.

use cel::common::types::{CelBool, CelInt, CelList, CelString};
use cel::common::value::Val;
use cel::{DeclarationError, Env, ExecutionError};
use std::net::IpAddr;

/// Registers the functions on `env`.
pub(super) fn extension(env: &mut Env) -> Result<(), DeclarationError> {
    cel::add_member_overload!(env, fn find: (CelString, CelString) -> Result<CelString>)?;
    cel::add_member_overload!(env, fn find_all: (CelString, CelString) -> Result<CelList>,
        name = "findAll")?;
    cel::add_member_overload!(env, fn find_all_n: (CelString, CelString, CelInt) -> Result<CelList>,
        name = "findAll")?;
    cel::add_overload!(env, fn is_url: (CelString) -> CelBool, name = "isURL")?;
    cel::add_overload!(env, fn is_ip: (CelString) -> CelBool, name = "isIP")?;
    cel::add_overload!(env, fn is_cidr: (CelString) -> CelBool, name = "isCIDR")?;
    Ok(())
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
    Ok(re
        .find_iter(this.inner())
        .take(limit)
        .map(|m| Box::new(CelString::from(m.as_str().to_string())) as Box<dyn Val>)
        .collect::<Vec<_>>()
        .into())
}

/// Go's `url.ParseRequestURI` succeeds: an absolute URL (`https://host/path`) or an absolute
/// path, no fragment, no space or control character.
fn is_url(s: &CelString<'_>) -> CelBool {
    let s = s.inner();
    if s.is_empty() || s.chars().any(|c| c.is_control() || c == ' ') || s.contains('#') {
        return CelBool::from(false);
    }
    if s.starts_with('/') {
        return CelBool::from(true);
    }
    let ok = match s.split_once(':') {
        Some((scheme, _)) => {
            let mut chars = scheme.chars();
            chars.next().is_some_and(|c| c.is_ascii_alphabetic())
                && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        }
        None => false,
    };
    CelBool::from(ok)
}

/// An IPv4 or IPv6 address as Kubernetes parses one: no leading zeros in IPv4, no zone.
fn is_ip(s: &CelString<'_>) -> CelBool {
    CelBool::from(s.inner().parse::<IpAddr>().is_ok())
}

/// An address and prefix length (`10.0.0.0/8`, `fd00::/64`); host bits may be set.
fn is_cidr(s: &CelString<'_>) -> CelBool {
    let ok = s.inner().split_once('/').is_some_and(|(ip, bits)| {
        let max = match ip.parse::<IpAddr>() {
            Ok(IpAddr::V4(_)) => 32,
            Ok(IpAddr::V6(_)) => 128,
            Err(_) => return false,
        };
        !bits.starts_with('+')
            && (bits == "0" || !bits.starts_with('0'))
            && bits.parse::<u8>().is_ok_and(|b| b <= max)
    });
    CelBool::from(ok)
}

#[cfg(test)]
mod tests {
    use cel::{Context, Value};

    fn eval(expr: &str) -> Value {
        let env = super::super::cel::env();
        let program = env.compile(expr).expect("compiles");
        program
            .execute(&Context::with_env(env.clone()))
            .expect("evaluates")
    }

    #[test]
    fn kubernetes_library_functions() {
        for expr in [
            "'a1b22c333'.find('[0-9]+') == '1'",
            "'abc'.find('[0-9]+') == ''",
            "'a1b22c333'.findAll('[0-9]+') == ['1', '22', '333']",
            "'a1b22c333'.findAll('[0-9]+', 2) == ['1', '22']",
            "isURL('https://example.com/a?b=c') && isURL('/path') && !isURL('example.com') && !isURL('https://a b')",
            "isIP('10.0.0.1') && isIP('fd00::1') && !isIP('10.0.0.01') && !isIP('1.1.1') && !isIP('fe80::1%eth0')",
            "isCIDR('10.0.0.0/8') && isCIDR('10.1.2.3/8') && isCIDR('fd00::/64') && !isCIDR('10.0.0.0/33') && !isCIDR('10.0.0.0') && !isCIDR('10.0.0.0/08')",
            // Gateway API's timeouts compare Go durations.
            "duration('1h30m') > duration('10s') && duration('500ms') < duration('1s') && duration('0s') == duration('0s')",
            "'Hello'.lowerAscii() == 'hello' && 'a,b'.split(',') == ['a', 'b'] && ['a', 'b'].join('-') == 'a-b' && 'abc'.indexOf('c') == 2",
        ] {
            assert_eq!(eval(expr), Value::Bool(true), "{expr}");
        }
    }
}
