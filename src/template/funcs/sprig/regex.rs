//! sprig's `regex.go`, on Go's `regexp` as [`crate::go::regexp`] translates it.

use super::{int, s, I, S};
use crate::go::regexp as goregex;
use crate::template::value::{ListType, Value};
use crate::template::{FuncDef, FuncError};

/// The regular-expression functions.
pub(super) const FUNCS: &[FuncDef] = &[
    // Regular expressions (Go's RE2 syntax, translated in `go::regexp`). The plain forms
    // panic on a bad pattern (`regexp.MustCompile`), the must forms return the error;
    // regexMatch alone reports a bad pattern as no match.
    FuncDef::new("regexMatch", &[S, S], |_, a| {
        Ok(Value::Bool(
            compile(s(a, 0)).is_ok_and(|r| r.is_match(s(a, 1))),
        ))
    }),
    FuncDef::new("mustRegexMatch", &[S, S], |_, a| {
        Ok(Value::Bool(re(a, 0, true)?.is_match(s(a, 1))))
    }),
    FuncDef::new("regexFind", &[S, S], |_, a| regex_find(a, false)),
    FuncDef::new("mustRegexFind", &[S, S], |_, a| regex_find(a, true)),
    FuncDef::new("regexFindAll", &[S, S, I], |_, a| regex_find_all(a, false)),
    FuncDef::new("mustRegexFindAll", &[S, S, I], |_, a| {
        regex_find_all(a, true)
    }),
    FuncDef::new("regexReplaceAll", &[S, S, S], |_, a| {
        regex_replace(a, false, false)
    }),
    FuncDef::new("mustRegexReplaceAll", &[S, S, S], |_, a| {
        regex_replace(a, true, false)
    }),
    FuncDef::new("regexReplaceAllLiteral", &[S, S, S], |_, a| {
        regex_replace(a, false, true)
    }),
    FuncDef::new("mustRegexReplaceAllLiteral", &[S, S, S], |_, a| {
        regex_replace(a, true, true)
    }),
    FuncDef::new("regexSplit", &[S, S, I], |_, a| regex_split(a, false)),
    FuncDef::new("mustRegexSplit", &[S, S, I], |_, a| regex_split(a, true)),
    FuncDef::new("regexQuoteMeta", &[S], |_, a| {
        Ok(Value::str(goregex::quote_meta(s(a, 0))))
    }),
];

fn compile(pattern: &str) -> Result<goregex::GoRegex, String> {
    goregex::compile(pattern)
}

/// A pattern compiled, or the error as Go's `regexp.Compile` (must forms) or `MustCompile`
/// (the others, which panic) words it.
fn re(a: &[Value], i: usize, must: bool) -> Result<goregex::GoRegex, FuncError> {
    let pattern = s(a, i);
    compile(pattern).map_err(|e| {
        FuncError::Call(if must {
            e
        } else {
            format!("regexp: Compile(`{pattern}`): {e}")
        })
    })
}

fn regex_find(a: &[Value], must: bool) -> Result<Value, FuncError> {
    let r = re(a, 0, must)?;
    let text = s(a, 1);
    Ok(Value::str(
        r.find_at(text, 0)
            .map_or("", |(start, end)| &text[start..end]),
    ))
}

fn regex_find_all(a: &[Value], must: bool) -> Result<Value, FuncError> {
    let r = re(a, 0, must)?;
    let text = s(a, 1);
    let all = goregex::find_all(&r, text, int(a, 2));
    // Go's FindAllString gives nil without a match: `null` in JSON and YAML.
    if all.is_empty() {
        return Ok(Value::nil_list(ListType::String));
    }
    Ok(Value::strings(all.into_iter().map(|(b, e)| &text[b..e])))
}

fn regex_replace(a: &[Value], must: bool, literal: bool) -> Result<Value, FuncError> {
    let r = re(a, 0, must)?;
    Ok(Value::str(goregex::replace_all(
        &r,
        s(a, 1),
        s(a, 2),
        literal,
    )))
}

fn regex_split(a: &[Value], must: bool) -> Result<Value, FuncError> {
    let r = re(a, 0, must)?;
    Ok(match goregex::split(&r, s(a, 0), s(a, 1), int(a, 2)) {
        Some(parts) => Value::strings(parts),
        None => Value::nil_list(ListType::String),
    })
}
