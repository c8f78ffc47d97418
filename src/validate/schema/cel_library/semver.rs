//! The semver library: `semver()`, `isSemver()` (each with the optional `normalize` flag) and
//! the members of `kubernetes.Semver`. The API server parses with blang/semver's strict
//! `Parse` (exactly `MAJOR.MINOR.PATCH`, no `v`, no leading zeros), unlike Helm's
//! Masterminds parser; the precedence is semver 2.0's, which `crate::semver` implements.

use super::kubernetes_type;
use crate::semver::Version;
use cel::common::types::{CelBool, CelInt, CelString};
use cel::{DeclarationError, Env, ExecutionError};
use std::cmp::Ordering;

/// A `kubernetes.Semver` value.
#[derive(Clone, Debug)]
pub(super) struct Semver(Version);

kubernetes_type!(Semver, "kubernetes.Semver");

impl PartialEq for Semver {
    /// `Version.EQ`: build metadata does not count.
    fn eq(&self, other: &Semver) -> bool {
        self.0.compare(&other.0) == Ordering::Equal
    }
}

/// blang/semver's `Parse`, with its error wording.
fn parse(s: &str) -> Result<Version, String> {
    if s.is_empty() {
        return Err("Version string empty".into());
    }
    let parts: Vec<&str> = s.splitn(3, '.').collect();
    let [major, minor, rest] = parts[..] else {
        return Err("No Major.Minor.Patch elements found".into());
    };
    let number = |p: &str, what: &str| -> Result<u64, String> {
        if !p.bytes().all(|c| c.is_ascii_digit()) {
            return Err(format!("Invalid character(s) found in {what} number {p:?}"));
        }
        if p.len() > 1 && p.starts_with('0') {
            return Err(format!(
                "{} number must not contain leading zeroes {p:?}",
                capital(what)
            ));
        }
        p.parse::<u64>()
            .map_err(|e| format!("strconv.ParseUint: parsing {p:?}: {e}"))
    };
    let major = number(major, "major")?;
    let minor = number(minor, "minor")?;
    let (rest, build) = match rest.split_once('+') {
        Some((r, b)) => (r, Some(b)),
        None => (rest, None),
    };
    let (patch, pre) = match rest.split_once('-') {
        Some((p, pre)) => (p, Some(pre)),
        None => (rest, None),
    };
    let patch = number(patch, "patch")?;
    let mut pre_ids = Vec::new();
    for id in pre
        .map(|p| p.split('.').collect::<Vec<_>>())
        .unwrap_or_default()
    {
        if id.is_empty() {
            return Err("Prerelease is empty".into());
        }
        if !id.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-') {
            return Err(format!("Invalid character(s) found in prerelease {id:?}"));
        }
        if id.bytes().all(|c| c.is_ascii_digit()) {
            if id.len() > 1 && id.starts_with('0') {
                return Err(format!(
                    "Version Prerelease must not contain leading zeroes {id:?}"
                ));
            }
            id.parse::<u64>().map_err(|e| e.to_string())?;
        }
        pre_ids.push(id.to_string());
    }
    for id in build
        .map(|b| b.split('.').collect::<Vec<_>>())
        .unwrap_or_default()
    {
        if id.is_empty() {
            return Err("Build meta data is empty".into());
        }
        if !id.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-') {
            return Err(format!(
                "Invalid character(s) found in build meta data {id:?}"
            ));
        }
    }
    Ok(Version {
        major,
        minor,
        patch,
        pre: pre_ids,
    })
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
        .unwrap_or_default()
}

/// `normalizeAndParse`: no `v`, missing minor and patch as 0, leading zeros dropped.
fn normalize_and_parse(s: &str) -> Result<Version, String> {
    let s = s.strip_prefix('v').unwrap_or(s);
    let mut parts: Vec<String> = s
        .splitn(3, '.')
        .map(|p| {
            if p.len() <= 1 {
                return p.to_string();
            }
            let t = p.trim_start_matches('0');
            if t.is_empty() || !t.starts_with(|c: char| c.is_ascii_digit()) {
                format!("0{t}")
            } else {
                t.to_string()
            }
        })
        .collect();
    if parts.len() < 3 {
        if parts.last().is_some_and(|p| p.contains(['+', '-'])) {
            return Err("short version cannot contain PreRelease/Build meta data".into());
        }
        parts.resize(3, "0".into());
    }
    parse(&parts.join("."))
}

fn semver_of(s: &str, normalize: bool) -> Result<Semver, ExecutionError> {
    let v = if normalize {
        normalize_and_parse(s)
    } else {
        parse(s)
    };
    v.map(Semver)
        .map_err(|e| ExecutionError::function_error("semver", e))
}

pub(super) fn extension(env: &mut Env) -> Result<(), DeclarationError> {
    cel::add_overload!(env, fn semver: (CelString) -> Result<Semver>)?;
    cel::add_overload!(env, fn semver_normalize: (CelString, CelBool) -> Result<Semver>,
        name = "semver")?;
    cel::add_overload!(env, fn is_semver: (CelString) -> CelBool)?;
    cel::add_overload!(env, fn is_semver_normalize: (CelString, CelBool) -> CelBool,
        name = "isSemver")?;
    cel::add_member_overload!(env, fn major: (Semver) -> CelInt)?;
    cel::add_member_overload!(env, fn minor: (Semver) -> CelInt)?;
    cel::add_member_overload!(env, fn patch: (Semver) -> CelInt)?;
    cel::add_member_overload!(env, fn is_greater_than: (Semver, Semver) -> CelBool)?;
    cel::add_member_overload!(env, fn is_less_than: (Semver, Semver) -> CelBool)?;
    cel::add_member_overload!(env, fn compare_to: (Semver, Semver) -> CelInt)?;
    Ok(())
}

fn semver(s: &CelString<'_>) -> Result<Semver, ExecutionError> {
    semver_of(s.inner(), false)
}

fn semver_normalize(s: &CelString<'_>, normalize: &CelBool) -> Result<Semver, ExecutionError> {
    semver_of(s.inner(), *normalize.inner())
}

fn is_semver(s: &CelString<'_>) -> CelBool {
    CelBool::from(parse(s.inner()).is_ok())
}

fn is_semver_normalize(s: &CelString<'_>, normalize: &CelBool) -> CelBool {
    CelBool::from(semver_of(s.inner(), *normalize.inner()).is_ok())
}

/// The API server's int is an int64: a larger number wraps as Go's conversion does.
fn int(n: u64) -> CelInt {
    CelInt::from(n as i64)
}

fn major(v: &Semver) -> CelInt {
    int(v.0.major)
}

fn minor(v: &Semver) -> CelInt {
    int(v.0.minor)
}

fn patch(v: &Semver) -> CelInt {
    int(v.0.patch)
}

fn is_greater_than(v: &Semver, o: &Semver) -> CelBool {
    CelBool::from(v.0.compare(&o.0) == Ordering::Greater)
}

fn is_less_than(v: &Semver, o: &Semver) -> CelBool {
    CelBool::from(v.0.compare(&o.0) == Ordering::Less)
}

fn compare_to(v: &Semver, o: &Semver) -> CelInt {
    CelInt::from(v.0.compare(&o.0) as i64)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{assert_error, assert_true};

    #[test]
    fn semver_examples() {
        // semver_test.go's table.
        assert_true(&[
            "isSemver('1.2.3-beta.1+build.1') && !isSemver('') && !isSemver('v1.0.0')",
            "!isSemver(' 1.0.0') && !isSemver('1. 0.0') && !isSemver('1.0.0 ') && !isSemver('01.01.01')",
            "!isSemver('1') && !isSemver('1.1')",
            "!isSemver('', true) && !isSemver(' 1.0.0', true) && !isSemver('1. 0.0', true) && !isSemver('1.0.0 ', true)",
            "isSemver('v1.0.0', true) && isSemver('01.01.01', true) && isSemver('1', true) && isSemver('1.1', true)",
            "semver('v01.01', true) == semver('1.1.0')",
            "semver('1.2.3') == semver('1.2.3') && semver('1.2.3') != semver('1.0.0')",
            "semver('1.0.0').isLessThan(semver('1.2.3')) && !semver('1.0.0').isLessThan(semver('1.0.0'))",
            "semver('1.2.3').isGreaterThan(semver('1.0.0')) && !semver('1.0.0').isGreaterThan(semver('1.0.0'))",
            "semver('1.2.3').compareTo(semver('1.2.3')) == 0 && semver('1.0.0').compareTo(semver('1.2.3')) == -1 && semver('1.2.3').compareTo(semver('1.0.0')) == 1",
            "semver('1.2.3').major() == 1 && semver('1.2.3').minor() == 2 && semver('1.2.3').patch() == 3",
            // Precedence: a prerelease is lower, numeric identifiers below alphanumeric ones.
            "semver('1.0.0-alpha').isLessThan(semver('1.0.0')) && semver('1.0.0-alpha.1').isLessThan(semver('1.0.0-alpha.beta'))",
            "semver('1.0.0-2').isLessThan(semver('1.0.0-10')) && semver('1.0.0+a') == semver('1.0.0+b')",
            "!isSemver('1.0.0-01') && !isSemver('1.0.0-') && !isSemver('1.0.0+') && isSemver('1.0', true)",
        ]);
        assert_error(&[
            (
                "semver('v1.0.0')",
                "Invalid character(s) found in major number",
            ),
            ("semver('v1.0')", "No Major.Minor.Patch elements found"),
            ("semver('1.2')", "No Major.Minor.Patch elements found"),
            (
                "semver('1.2-rc', true)",
                "short version cannot contain PreRelease/Build meta data",
            ),
        ]);
    }
}
