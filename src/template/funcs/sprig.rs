//! sprig v3.3.0's functions (`github.com/Masterminds/sprig`), as Helm and Argo CD load them:
//! strings, conversions, defaults, lists, dicts, integer and float math, encodings, regular
//! expressions and type tests. Each is written after sprig's Go source, with its signature.

use super::super::fmt::{sprint_value, sprintf};
use super::super::value::{Dict, ListType, MapType, SharedWrite, Value};
use super::super::{gostr, FuncDef, FuncError, Param};
use super::{dates, goregex, json};
use std::collections::BTreeMap;

const A: Param = Param::Any;
const S: Param = Param::String;
const I: Param = Param::Int;
const M: Param = Param::Map;

/// The deterministic sprig functions.
pub const FUNCS: &[FuncDef] = &[
    // Strings.
    FuncDef::new("hello", &[], |_, _| Ok(Value::str("Hello!"))),
    FuncDef::new("upper", &[S], |_, a| Ok(Value::str(s(a, 0).to_uppercase()))),
    // Go maps each character on its own (no final-sigma rule).
    FuncDef::new("lower", &[S], |_, a| {
        Ok(Value::str(
            s(a, 0)
                .chars()
                .flat_map(char::to_lowercase)
                .collect::<String>(),
        ))
    }),
    FuncDef::new("title", &[S], |_, a| Ok(Value::str(title(s(a, 0))))),
    FuncDef::new("untitle", &[S], |_, a| Ok(Value::str(untitle(s(a, 0))))),
    FuncDef::new("substr", &[I, I, S], |_, a| {
        substr(int(a, 0), int(a, 1), s(a, 2)).map(Value::str)
    }),
    FuncDef::new("repeat", &[I, S], |_, a| {
        let n = int(a, 0);
        if n < 0 {
            return Err(FuncError::Call("strings: negative Repeat count".into()));
        }
        Ok(Value::str(s(a, 1).repeat(n as usize)))
    }),
    FuncDef::new("trim", &[S], |_, a| {
        Ok(Value::str(s(a, 0).trim_matches(is_go_space)))
    }),
    FuncDef::new("trimAll", &[S, S], |_, a| {
        let cut: Vec<char> = s(a, 0).chars().collect();
        Ok(Value::str(s(a, 1).trim_matches(|c| cut.contains(&c))))
    }),
    FuncDef::new("trimSuffix", &[S, S], |_, a| {
        Ok(Value::str(s(a, 1).strip_suffix(s(a, 0)).unwrap_or(s(a, 1))))
    }),
    FuncDef::new("trimPrefix", &[S, S], |_, a| {
        Ok(Value::str(s(a, 1).strip_prefix(s(a, 0)).unwrap_or(s(a, 1))))
    }),
    FuncDef::new("nospace", &[S], |_, a| {
        Ok(Value::str(
            s(a, 0)
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect::<String>(),
        ))
    }),
    FuncDef::new("initials", &[S], |_, a| {
        Ok(Value::str(
            s(a, 0)
                .split_whitespace()
                .filter_map(|w| w.chars().next())
                .collect::<String>(),
        ))
    }),
    FuncDef::new("swapcase", &[S], |_, a| Ok(Value::str(swapcase(s(a, 0))))),
    FuncDef::new("snakecase", &[S], |_, a| {
        Ok(Value::str(delimited(s(a, 0), '_')))
    }),
    FuncDef::new("kebabcase", &[S], |_, a| {
        Ok(Value::str(delimited(s(a, 0), '-')))
    }),
    FuncDef::new("camelcase", &[S], |_, a| Ok(Value::str(camelcase(s(a, 0))))),
    FuncDef::new("contains", &[S, S], |_, a| {
        Ok(Value::Bool(s(a, 1).contains(s(a, 0))))
    }),
    FuncDef::new("hasPrefix", &[S, S], |_, a| {
        Ok(Value::Bool(s(a, 1).starts_with(s(a, 0))))
    }),
    FuncDef::new("hasSuffix", &[S, S], |_, a| {
        Ok(Value::Bool(s(a, 1).ends_with(s(a, 0))))
    }),
    FuncDef::variadic("quote", &[], A, |_, a| {
        Ok(Value::str(
            a.iter()
                .filter(|v| !matches!(v, Value::Nil))
                .map(|v| super::super::fmt::go_quote(&strval(v)))
                .collect::<Vec<_>>()
                .join(" "),
        ))
    }),
    FuncDef::variadic("squote", &[], A, |_, a| {
        Ok(Value::str(
            a.iter()
                .filter(|v| !matches!(v, Value::Nil))
                .map(|v| format!("'{}'", strval(v)))
                .collect::<Vec<_>>()
                .join(" "),
        ))
    }),
    FuncDef::variadic("cat", &[], A, |_, a| {
        Ok(Value::str(
            a.iter()
                .filter(|v| !matches!(v, Value::Nil))
                .map(strval)
                .collect::<Vec<_>>()
                .join(" "),
        ))
    }),
    FuncDef::new("indent", &[I, S], |_, a| {
        indent(int(a, 0), s(a, 1)).map(Value::str)
    }),
    FuncDef::new("nindent", &[I, S], |_, a| {
        indent(int(a, 0), s(a, 1)).map(|t| Value::str(format!("\n{t}")))
    }),
    FuncDef::new("replace", &[S, S, S], |_, a| {
        Ok(Value::str(go_replace(s(a, 2), s(a, 0), s(a, 1))))
    }),
    FuncDef::new("plural", &[S, S, I], |_, a| {
        Ok(Value::str(if int(a, 2) == 1 { s(a, 0) } else { s(a, 1) }))
    }),
    FuncDef::new("trunc", &[I, S], |_, a| {
        // Go slices the string's bytes, which may cut a character.
        let (c, text) = (int(a, 0), gostr::to_bytes(s(a, 1)));
        let len = text.len() as i64;
        Ok(if c < 0 && len + c > 0 {
            Value::str(gostr::from_bytes(&text[(len + c) as usize..]))
        } else if c >= 0 && len > c {
            Value::str(gostr::from_bytes(&text[..c as usize]))
        } else {
            Value::str(s(a, 1))
        })
    }),
    FuncDef::new("abbrevboth", &[I, I, S], |_, a| {
        let (left, right) = (int(a, 0), int(a, 1));
        if right < 4 || (left > 0 && right < 7) {
            return Ok(a[2].clone());
        }
        Ok(Value::str(abbrev_full(s(a, 2), left, right)))
    }),
    FuncDef::new("abbrev", &[I, S], |_, a| {
        Ok(Value::str(abbrev(int(a, 0), s(a, 1))))
    }),
    FuncDef::new("wrap", &[I, S], |_, a| {
        Ok(Value::str(wrap(int(a, 0), "", s(a, 1), false)))
    }),
    FuncDef::new("wrapWith", &[I, S, S], |_, a| {
        Ok(Value::str(wrap(int(a, 0), s(a, 1), s(a, 2), true)))
    }),
    FuncDef::new("join", &[S, A], |_, a| {
        Ok(Value::str(strslice(&a[1]).join(s(a, 0))))
    }),
    FuncDef::new("split", &[S, S], |_, a| {
        let parts = go_split(s(a, 1), s(a, 0), -1);
        Ok(string_map(parts))
    }),
    FuncDef::new("splitn", &[S, I, S], |_, a| {
        let parts = go_split(s(a, 2), s(a, 0), int(a, 1));
        Ok(string_map(parts))
    }),
    FuncDef::new("splitList", &[S, S], |_, a| {
        Ok(Value::strings(go_split(s(a, 1), s(a, 0), -1)))
    }),
    FuncDef::new("toStrings", &[A], |_, a| {
        Ok(Value::strings(strslice(&a[0])))
    }),
    FuncDef::new("sortAlpha", &[A], |_, a| {
        let mut v = strslice(&a[0]);
        v.sort();
        Ok(Value::strings(v))
    }),
    FuncDef::new("toString", &[A], |_, a| Ok(Value::str(strval(&a[0])))),
    FuncDef::variadic("printf", &[S], A, |_, a| {
        Ok(Value::str(sprintf(s(a, 0), &a[1..])))
    }),
    // Conversions.
    FuncDef::new("atoi", &[S], |_, a| {
        Ok(Value::Int(s(a, 0).parse().unwrap_or(0)))
    }),
    FuncDef::new("int", &[A], |_, a| Ok(Value::Int(to_int64(&a[0])))),
    FuncDef::new("int64", &[A], |_, a| Ok(Value::Int64(to_int64(&a[0])))),
    FuncDef::new("float64", &[A], |_, a| Ok(Value::Float(to_float64(&a[0])))),
    FuncDef::new("toDecimal", &[A], |_, a| {
        Ok(Value::Int64(
            i64::from_str_radix(&strval(&a[0]), 8).unwrap_or(0),
        ))
    }),
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
    // Types.
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
    // Integer and float math.
    FuncDef::new("add1", &[A], |_, a| {
        Ok(Value::Int64(to_int64(&a[0]).wrapping_add(1)))
    }),
    FuncDef::variadic("add", &[], A, |_, a| {
        Ok(Value::Int64(
            a.iter().fold(0i64, |acc, v| acc.wrapping_add(to_int64(v))),
        ))
    }),
    FuncDef::new("sub", &[A, A], |_, a| {
        Ok(Value::Int64(to_int64(&a[0]).wrapping_sub(to_int64(&a[1]))))
    }),
    FuncDef::new("div", &[A, A], |_, a| {
        let d = to_int64(&a[1]);
        if d == 0 {
            return Err(FuncError::Call(
                "runtime error: integer divide by zero".into(),
            ));
        }
        Ok(Value::Int64(to_int64(&a[0]).wrapping_div(d)))
    }),
    FuncDef::new("mod", &[A, A], |_, a| {
        let d = to_int64(&a[1]);
        if d == 0 {
            return Err(FuncError::Call(
                "runtime error: integer divide by zero".into(),
            ));
        }
        Ok(Value::Int64(to_int64(&a[0]).wrapping_rem(d)))
    }),
    FuncDef::variadic("mul", &[A], A, |_, a| {
        Ok(Value::Int64(
            a.iter().fold(1i64, |acc, v| acc.wrapping_mul(to_int64(v))),
        ))
    }),
    FuncDef::variadic("max", &[A], A, |_, a| {
        Ok(Value::Int64(a.iter().map(to_int64).max().unwrap_or(0)))
    }),
    FuncDef::variadic("biggest", &[A], A, |_, a| {
        Ok(Value::Int64(a.iter().map(to_int64).max().unwrap_or(0)))
    }),
    FuncDef::variadic("min", &[A], A, |_, a| {
        Ok(Value::Int64(a.iter().map(to_int64).min().unwrap_or(0)))
    }),
    FuncDef::new("floor", &[A], |_, a| {
        Ok(Value::Float(to_float64(&a[0]).floor()))
    }),
    FuncDef::new("ceil", &[A], |_, a| {
        Ok(Value::Float(to_float64(&a[0]).ceil()))
    }),
    FuncDef::variadic("round", &[A, I], Param::Float64, |_, a| {
        let round_on = match a.get(2) {
            Some(Value::Float(f)) => *f,
            _ => 0.5,
        };
        Ok(Value::Float(round(to_float64(&a[0]), int(a, 1), round_on)))
    }),
    FuncDef::new("until", &[I], |_, a| {
        let n = int(a, 0);
        let step = if n < 0 { -1 } else { 1 };
        Ok(until_step(0, n, step))
    }),
    FuncDef::new("untilStep", &[I, I, I], |_, a| {
        Ok(until_step(int(a, 0), int(a, 1), int(a, 2)))
    }),
    FuncDef::variadic("seq", &[], I, |_, a| Ok(Value::str(seq(a)))),
    // Lists.
    FuncDef::variadic("list", &[], A, |_, a| Ok(Value::list(a.to_vec()))),
    FuncDef::variadic("tuple", &[], A, |_, a| Ok(Value::list(a.to_vec()))),
    FuncDef::new("first", &[A], |_, a| {
        let l = list_of(&a[0], "find first")?;
        Ok(l.first().cloned().unwrap_or(Value::Nil))
    }),
    FuncDef::new("last", &[A], |_, a| {
        let l = list_of(&a[0], "find last")?;
        Ok(l.last().cloned().unwrap_or(Value::Nil))
    }),
    FuncDef::new("rest", &[A], |_, a| {
        let l = list_of(&a[0], "find rest")?;
        // An empty list gives a nil []interface {}, printed `[]`.
        Ok(Value::list(l.get(1..).unwrap_or_default().to_vec()))
    }),
    FuncDef::new("initial", &[A], |_, a| {
        let l = list_of(&a[0], "find initial")?;
        Ok(Value::list(l[..l.len().saturating_sub(1)].to_vec()))
    }),
    FuncDef::new("append", &[A, A], |_, a| {
        let mut l = list_of(&a[0], "push")?;
        l.push(a[1].clone());
        Ok(Value::list(l))
    }),
    FuncDef::new("push", &[A, A], |_, a| {
        let mut l = list_of(&a[0], "push")?;
        l.push(a[1].clone());
        Ok(Value::list(l))
    }),
    FuncDef::new("prepend", &[A, A], |_, a| {
        let mut l = list_of(&a[0], "prepend")?;
        l.insert(0, a[1].clone());
        Ok(Value::list(l))
    }),
    FuncDef::variadic("concat", &[], A, |_, a| {
        let mut out = Vec::new();
        for v in a {
            match v.slice_items() {
                Some(items) => out.extend(items.iter().cloned()),
                None => {
                    return Err(FuncError::Call(format!(
                        "Cannot concat type {} as list",
                        v.kind_name()
                    )))
                }
            }
        }
        Ok(Value::list(out))
    }),
    FuncDef::variadic("slice", &[A], A, |_, a| sprig_slice(a)),
    FuncDef::new("reverse", &[A], |_, a| {
        let mut l = list_of(&a[0], "find reverse")?;
        l.reverse();
        Ok(Value::list(l))
    }),
    FuncDef::new("uniq", &[A], |_, a| {
        let l = list_of(&a[0], "find uniq")?;
        let mut out: Vec<Value> = Vec::new();
        for v in l {
            if !out.contains(&v) {
                out.push(v);
            }
        }
        Ok(Value::list(out))
    }),
    FuncDef::variadic("without", &[A], A, |_, a| {
        let l = list_of(&a[0], "find without")?;
        Ok(Value::list(
            l.into_iter().filter(|v| !a[1..].contains(v)).collect(),
        ))
    }),
    FuncDef::new("has", &[A, A], |_, a| {
        if let Some(items) = a[1].slice_items() {
            return Ok(Value::Bool(items.contains(&a[0])));
        }
        Ok(Value::Bool(match &a[1] {
            Value::Nil => false,
            other => {
                return Err(FuncError::Call(format!(
                    "Cannot find has on type {}",
                    other.kind_name()
                )))
            }
        }))
    }),
    FuncDef::new("compact", &[A], |_, a| {
        let l = list_of(&a[0], "compact")?;
        Ok(Value::list(l.into_iter().filter(|v| !empty(v)).collect()))
    }),
    FuncDef::new("chunk", &[I, A], |_, a| {
        if int(a, 0) <= 0 {
            return Err(FuncError::Call(
                "runtime error: makeslice: len out of range".into(),
            ));
        }
        let size = int(a, 0) as usize;
        let l = match &a[1] {
            Value::Nil | Value::NoValue => list_of(&a[1], "chunk")?,
            v if v.slice_items().is_some() => list_of(v, "chunk")?,
            other => {
                return Err(FuncError::Call(format!(
                    "Cannot chunk type {}",
                    other.kind_name()
                )))
            }
        };
        Ok(Value::list(
            l.chunks(size).map(|c| Value::list(c.to_vec())).collect(),
        ))
    }),
    // Dicts.
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
        dict(a, 0)
            .write()?
            .insert(s(a, 1).to_string(), a[2].clone());
        Ok(a[0].clone())
    }),
    FuncDef::new("unset", &[M, S], |_, a| {
        dict(a, 0).write()?.remove(s(a, 1));
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
    FuncDef::variadic("merge", &[M], M, |_, a| {
        let dst = dict(a, 0);
        for src in &a[1..] {
            if let Value::Map(src) = src {
                merge_into(&dst, src, false)?;
            }
        }
        Ok(a[0].clone())
    }),
    FuncDef::variadic("mergeOverwrite", &[M], M, |_, a| {
        let dst = dict(a, 0);
        for src in &a[1..] {
            if let Value::Map(src) = src {
                merge_into(&dst, src, true)?;
            }
        }
        Ok(a[0].clone())
    }),
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
    // Dates (UTC).
    FuncDef::new("toDate", &[S, S], |_, a| {
        Ok(dates::Time::parse(s(a, 0), s(a, 1))
            .unwrap_or(dates::ZERO)
            .value())
    }),
    FuncDef::new("mustToDate", &[S, S], |_, a| {
        dates::Time::parse(s(a, 0), s(a, 1))
            .map(dates::Time::value)
            .map_err(FuncError::Call)
    }),
    FuncDef::new("date", &[S, A], |_, a| {
        Ok(Value::str(dates::time_of(&a[1]).format(s(a, 0))))
    }),
    FuncDef::new("dateInZone", &[S, A, S], |_, a| {
        Ok(Value::str(dates::time_of(&a[1]).format(s(a, 0))))
    }),
    FuncDef::new("htmlDate", &[A], |_, a| {
        Ok(Value::str(dates::time_of(&a[0]).format("2006-01-02")))
    }),
    FuncDef::new("htmlDateInZone", &[A, S], |_, a| {
        Ok(Value::str(dates::time_of(&a[0]).format("2006-01-02")))
    }),
    FuncDef::new("unixEpoch", &[A], |_, a| {
        Ok(Value::str(dates::time_of(&a[0]).unix.to_string()))
    }),
    FuncDef::new("dateModify", &[S, A], |_, a| {
        let t = dates::time_of(&a[1]);
        Ok(match dates::parse_duration(s(a, 0)) {
            Ok(ns) => shift(t, ns).value(),
            Err(_) => t.value(),
        })
    }),
    FuncDef::new("mustDateModify", &[S, A], |_, a| {
        let t = dates::time_of(&a[1]);
        dates::parse_duration(s(a, 0))
            .map(|ns| shift(t, ns).value())
            .map_err(FuncError::Call)
    }),
    FuncDef::new("duration", &[A], |_, a| {
        let secs = match &a[0] {
            Value::String(x) => x.parse::<i64>().unwrap_or(0),
            Value::Int64(i) => *i,
            _ => 0,
        };
        Ok(Value::str(dates::duration_string(
            secs.saturating_mul(1_000_000_000),
        )))
    }),
    FuncDef::new("durationRound", &[A], |_, a| {
        Ok(Value::str(dates::duration_round(&a[0])))
    }),
    // Non-deterministic: the time of the render.
    FuncDef::new("now", &[], |_, _| Ok(dates::time_of(&Value::Nil).value())).nondeterministic(),
    FuncDef::new("ago", &[A], |_, a| {
        let then = dates::time_of(&a[0]).unix;
        let now = dates::time_of(&Value::Nil).unix;
        Ok(Value::str(dates::duration_string(
            (now - then).saturating_mul(1_000_000_000),
        )))
    })
    .nondeterministic(),
    // Versions.
    FuncDef::new("semver", &[S], |_, a| {
        super::semver::SemverObject::parse(s(a, 0))
            .map(|o| Value::Object(super::super::value::ObjectRef(std::sync::Arc::new(o))))
            .map_err(FuncError::Call)
    }),
    FuncDef::new("semverCompare", &[S, S], |_, a| {
        crate::semver::satisfies(s(a, 0), s(a, 1))
            .map(Value::Bool)
            .map_err(FuncError::Call)
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
    FuncDef::new("toRawJson", &[A], |_, a| {
        Ok(or_empty(json::marshal(&a[0], false, None)))
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
    // Float math, on decimals as sprig computes it (0.1 + 0.2 is 0.3).
    FuncDef::variadic("addf", &[], A, |_, a| Ok(decimal_fold(a, Decimal::add))),
    FuncDef::new("add1f", &[A], |_, a| {
        Ok(Value::Float(
            Decimal::of(to_float64(&a[0]))
                .add(Decimal::of(1.0))
                .to_f64(),
        ))
    }),
    FuncDef::variadic("subf", &[A], A, |_, a| Ok(decimal_fold(a, Decimal::sub))),
    FuncDef::variadic("mulf", &[A], A, |_, a| Ok(decimal_fold(a, Decimal::mul))),
    FuncDef::variadic("divf", &[A], A, |_, a| {
        let mut acc = Decimal::of(to_float64(&a[0]));
        for v in &a[1..] {
            let d = Decimal::of(to_float64(v));
            if d.coef == 0 {
                return Err(FuncError::Call("decimal division by 0".into()));
            }
            acc = acc.div(d);
        }
        Ok(Value::Float(acc.to_f64()))
    }),
    FuncDef::variadic("maxf", &[A], A, |_, a| {
        Ok(Value::Float(
            a.iter().map(to_float64).fold(f64::NEG_INFINITY, f64::max),
        ))
    }),
    FuncDef::variadic("minf", &[A], A, |_, a| {
        Ok(Value::Float(
            a.iter().map(to_float64).fold(f64::INFINITY, f64::min),
        ))
    }),
    // Encodings and hashes.
    FuncDef::new("b64enc", &[S], |_, a| {
        use base64::Engine;
        Ok(Value::str(
            base64::engine::general_purpose::STANDARD.encode(bytes(a, 0)),
        ))
    }),
    FuncDef::new("b64dec", &[S], |_, a| {
        Ok(Value::str(match go_base64_decode(s(a, 0)) {
            Ok(b) => gostr::from_bytes(&b),
            Err(e) => e,
        }))
    }),
    FuncDef::new("b32enc", &[S], |_, a| {
        Ok(Value::str(base32_encode(&bytes(a, 0))))
    }),
    FuncDef::new("b32dec", &[S], |_, a| {
        Ok(Value::str(match base32_decode(s(a, 0)) {
            Ok(b) => gostr::from_bytes(&b),
            Err(at) => format!("illegal base32 data at input byte {at}"),
        }))
    }),
    FuncDef::new("sha1sum", &[S], |_, a| {
        use sha1::Digest;
        Ok(Value::str(hex(&sha1::Sha1::digest(bytes(a, 0)))))
    }),
    FuncDef::new("sha256sum", &[S], |_, a| {
        use sha2::Digest;
        Ok(Value::str(hex(&sha2::Sha256::digest(bytes(a, 0)))))
    }),
    FuncDef::new("sha512sum", &[S], |_, a| {
        use sha2::Digest;
        Ok(Value::str(hex(&sha2::Sha512::digest(bytes(a, 0)))))
    }),
    FuncDef::new("adler32sum", &[S], |_, a| {
        Ok(Value::str(adler32(&bytes(a, 0)).to_string()))
    }),
    // Regular expressions (Go's RE2 syntax, translated in `goregex`). The plain forms
    // panic on a bad pattern (`regexp.MustCompile`), the must forms return the error;
    // regexMatch alone reports a bad pattern as no match.
    FuncDef::new("regexMatch", &[S, S], |_, a| {
        Ok(Value::Bool(
            compile(s(a, 0)).is_ok_and(|r| r.re.is_match(s(a, 1))),
        ))
    }),
    FuncDef::new("mustRegexMatch", &[S, S], |_, a| {
        Ok(Value::Bool(re(a, 0, true)?.re.is_match(s(a, 1))))
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

/// A decimal number, as shopspring/decimal computes sprig's float math: `coef × 10^exp`.
#[derive(Clone, Copy, Debug)]
struct Decimal {
    coef: i128,
    exp: i32,
}

impl Decimal {
    /// The float's shortest decimal form (decimal.NewFromFloat).
    fn of(f: f64) -> Decimal {
        if !f.is_finite() || f == 0.0 {
            return Decimal { coef: 0, exp: 0 };
        }
        let text = format!("{:e}", f.abs());
        let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let coef: i128 = format!("{int}{frac}").parse().unwrap_or(0);
        Decimal {
            coef: if f < 0.0 { -coef } else { coef },
            exp: exp - frac.len() as i32,
        }
    }

    fn align(self, other: Decimal) -> (i128, i128, i32) {
        let exp = self.exp.min(other.exp);
        let scale = |d: Decimal| {
            d.coef
                .saturating_mul(10i128.saturating_pow((d.exp - exp) as u32))
        };
        (scale(self), scale(other), exp)
    }

    fn add(self, other: Decimal) -> Decimal {
        let (a, b, exp) = self.align(other);
        Decimal {
            coef: a.saturating_add(b),
            exp,
        }
    }

    fn sub(self, other: Decimal) -> Decimal {
        let (a, b, exp) = self.align(other);
        Decimal {
            coef: a.saturating_sub(b),
            exp,
        }
    }

    fn mul(self, other: Decimal) -> Decimal {
        Decimal {
            coef: self.coef.saturating_mul(other.coef),
            exp: self.exp + other.exp,
        }
    }

    /// Division rounded to 16 decimal places, half away from zero (decimal's
    /// DivisionPrecision).
    fn div(self, other: Decimal) -> Decimal {
        const PLACES: i32 = 16;
        // a×10^ea / (b×10^eb) with one digit more than PLACES, then rounded.
        let shift = PLACES + 1 + (self.exp - other.exp);
        let (num, den) = if shift >= 0 {
            (
                self.coef
                    .saturating_mul(10i128.saturating_pow(shift as u32)),
                other.coef,
            )
        } else {
            (
                self.coef,
                other
                    .coef
                    .saturating_mul(10i128.saturating_pow((-shift) as u32)),
            )
        };
        let q = num / den;
        let rounded = match q % 10 {
            r if r >= 5 => q / 10 + 1,
            r if r <= -5 => q / 10 - 1,
            _ => q / 10,
        };
        Decimal {
            coef: rounded,
            exp: -PLACES,
        }
    }

    /// decimal.InexactFloat64.
    fn to_f64(self) -> f64 {
        format!("{}e{}", self.coef, self.exp).parse().unwrap_or(0.0)
    }
}

fn decimal_fold(a: &[Value], op: fn(Decimal, Decimal) -> Decimal) -> Value {
    let mut it = a.iter().map(|v| Decimal::of(to_float64(v)));
    let first = it.next().unwrap_or(Decimal { coef: 0, exp: 0 });
    Value::Float(it.fold(first, op).to_f64())
}

/// Names sprig gives the same function under (the `must` forms return an error where the plain
/// ones panic; a template reports both as `error calling NAME: …`).
pub const ALIASES: &[(&str, &str)] = &[
    ("trimall", "trimAll"),
    ("mustFirst", "first"),
    ("mustLast", "last"),
    ("mustRest", "rest"),
    ("mustInitial", "initial"),
    ("mustAppend", "append"),
    ("mustPush", "push"),
    ("mustSlice", "slice"),
    ("mustPrepend", "prepend"),
    ("mustReverse", "reverse"),
    ("mustUniq", "uniq"),
    ("mustWithout", "without"),
    ("mustHas", "has"),
    ("mustCompact", "compact"),
    ("mustChunk", "chunk"),
    ("mustMerge", "merge"),
    ("mustMergeOverwrite", "mergeOverwrite"),
    ("mustDeepCopy", "deepCopy"),
];

fn shift(t: dates::Time, ns: i64) -> dates::Time {
    let total = t.unix as i128 * 1_000_000_000 + t.nanos as i128 + ns as i128;
    dates::Time {
        unix: total.div_euclid(1_000_000_000) as i64,
        nanos: total.rem_euclid(1_000_000_000) as u32,
    }
}

fn s(a: &[Value], i: usize) -> &str {
    a[i].as_str().unwrap_or_default()
}

/// The bytes of a string argument (see [`gostr`]).
fn bytes(a: &[Value], i: usize) -> std::borrow::Cow<'_, [u8]> {
    gostr::to_bytes(s(a, i))
}

fn int(a: &[Value], i: usize) -> i64 {
    a[i].as_int().unwrap_or_default()
}

fn dict(a: &[Value], i: usize) -> Dict {
    match &a[i] {
        Value::Map(m) => m.clone(),
        _ => Dict::default(),
    }
}

fn is_go_space(c: char) -> bool {
    c.is_whitespace()
}

/// sprig's `strval`: a string as it is, anything else as `%v` prints it.
pub fn strval(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        other => sprint_value(other),
    }
}

/// sprig's `strslice`: a list's elements as strings (nil elements dropped), a string as a
/// one-element list, nil as empty, anything else as its `%v` text.
fn strslice(v: &Value) -> Vec<String> {
    if let Some(items) = v.slice_items() {
        return items
            .iter()
            .filter(|x| !matches!(x, Value::Nil | Value::NoValue))
            .map(strval)
            .collect();
    }
    match v {
        Value::Nil | Value::NoValue => Vec::new(),
        other => vec![strval(other)],
    }
}

/// cast.ToInt64: numbers truncated, strings parsed (Go's base prefixes), bools 0/1, else 0.
pub fn to_int64(v: &Value) -> i64 {
    match v {
        Value::Int(i) | Value::Int64(i) => *i,
        Value::Uint64(u) => *u as i64,
        // Go's float-to-int conversion on amd64: out of range (and NaN) is the minimum.
        Value::Float(f)
            if f.is_nan()
                || *f >= 9_223_372_036_854_775_808.0
                || *f < -9_223_372_036_854_775_808.0 =>
        {
            i64::MIN
        }
        Value::Float(f) => *f as i64,
        Value::Bool(b) => i64::from(*b),
        // cast.ToInt64: strconv.ParseInt(s, 0, 0) after trimming a zero decimal part.
        Value::String(s) => crate::go::strconv::parse_int(trim_zero_decimal(s)).unwrap_or(0),
        _ => 0,
    }
}

/// cast's trimZeroDecimal: `3.0` and `3.` become `3`.
fn trim_zero_decimal(s: &str) -> &str {
    match s.split_once('.') {
        Some((int, frac)) if frac.bytes().all(|b| b == b'0') => int,
        _ => s,
    }
}

/// cast.ToFloat64.
pub fn to_float64(v: &Value) -> f64 {
    match v {
        Value::Int(i) | Value::Int64(i) => *i as f64,
        Value::Uint64(u) => *u as f64,
        Value::Float(f) => *f,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::String(s) => s.parse().unwrap_or(0.0),
        _ => 0.0,
    }
}

/// sprig's `empty`: nil, false, 0, "" and empty collections.
pub fn empty(v: &Value) -> bool {
    !v.truth()
}

/// Go's `base64.StdEncoding.DecodeString`, with its error wording: the offset of the first
/// bad byte (or of the incomplete group).
pub(super) fn go_base64_decode(text: &str) -> Result<Vec<u8>, String> {
    use base64::Engine;
    match base64::engine::general_purpose::STANDARD.decode(text) {
        Ok(b) => Ok(b),
        Err(base64::DecodeError::InvalidByte(at, _)) => {
            Err(format!("illegal base64 data at input byte {at}"))
        }
        Err(_) => Err(format!(
            "illegal base64 data at input byte {}",
            text.len() / 4 * 4
        )),
    }
}

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

/// The items of a list argument; `doing` is how sprig's error names the failed action
/// (`Cannot find first on type string`, `Cannot push on type string`).
fn list_of(v: &Value, doing: &str) -> Result<Vec<Value>, FuncError> {
    if let Some(items) = v.slice_items() {
        return Ok(items.into_owned());
    }
    match v {
        Value::Nil | Value::NoValue => Err(FuncError::Call(
            "runtime error: invalid memory address or nil pointer dereference".into(),
        )),
        other => Err(FuncError::Call(format!(
            "Cannot {doing} on type {}",
            other.kind_name()
        ))),
    }
}

/// sprig's `slice` (which replaces text/template's): `list[start:end]`, keeping the list's
/// type; an empty list gives nil.
fn sprig_slice(a: &[Value]) -> Result<Value, FuncError> {
    let (l, ty) = match &a[0] {
        Value::List(l) => (std::borrow::Cow::Borrowed(&l[..]), l.ty),
        // Go keeps the named slice type (`chartutil.VersionSet`); kdelta cannot build one of
        // another module's object types, so the slice is a plain list of its elements.
        v @ Value::Object(_) if v.slice_items().is_some() => {
            (v.slice_items().unwrap_or_default(), ListType::Any)
        }
        Value::Nil | Value::NoValue => {
            return Err(FuncError::Call(
                "runtime error: invalid memory address or nil pointer dereference".into(),
            ))
        }
        other => {
            return Err(FuncError::Call(format!(
                "list should be type of slice or array but {}",
                other.kind_name()
            )))
        }
    };
    if l.is_empty() {
        return Ok(Value::Nil);
    }
    let start = a.get(1).map_or(0, to_int64);
    let end = a.get(2).map_or(l.len() as i64, to_int64);
    if start < 0 || end < start || end > l.len() as i64 {
        return Err(FuncError::Call(
            "reflect.Value.Slice: slice index out of bounds".into(),
        ));
    }
    Ok(Value::typed_list(
        l[start as usize..end as usize].to_vec(),
        ty,
    ))
}

fn title(s: &str) -> String {
    // strings.Title: a letter after a non-letter (or at the start) is upper-cased.
    let mut out = String::with_capacity(s.len());
    let mut prev_letter = false;
    for c in s.chars() {
        if !prev_letter && c.is_alphabetic() {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        prev_letter = c.is_alphanumeric() || c == '_';
    }
    out
}

fn untitle(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut start = true;
    for c in s.chars() {
        if start && !c.is_whitespace() {
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
        start = c.is_whitespace();
    }
    out
}

/// sprig's `substr` with Go's slice bounds (a bad range is Go's runtime error).
fn substr(start: i64, end: i64, s: &str) -> Result<String, FuncError> {
    let b = gostr::to_bytes(s);
    let len = b.len() as i64;
    let oob = |lo: i64, hi: i64| {
        FuncError::Call(format!(
            "runtime error: slice bounds out of range [{lo}:{hi}]"
        ))
    };
    let slice = if start < 0 {
        if end < 0 || end > len {
            return Err(FuncError::Call(format!(
                "runtime error: slice bounds out of range [:{end}] with length {len}"
            )));
        }
        &b[..end as usize]
    } else if end < 0 || end > len {
        if start > len {
            return Err(oob(start, len));
        }
        &b[start as usize..]
    } else {
        if start > end {
            return Err(oob(start, end));
        }
        &b[start as usize..end as usize]
    };
    Ok(gostr::from_bytes(slice))
}

fn swapcase(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_uppercase() {
                c.to_lowercase().collect::<String>()
            } else {
                c.to_uppercase().collect()
            }
        })
        .collect()
}

/// xstrings' ToSnakeCase/ToKebabCase: words split at case changes and separators.
fn delimited(s: &str, sep: char) -> String {
    let mut out = String::new();
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c == '_' || c == '-' || c == ' ' || c == '.' {
            if !out.is_empty() && !out.ends_with(sep) {
                out.push(sep);
            }
            continue;
        }
        if c.is_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if (prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_lower))
                && !out.ends_with(sep)
            {
                out.push(sep);
            }
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// xstrings.ToCamelCase: leading connectors (`-`, `_`, spaces) stay, a character after a
/// connector is upper-cased and the connector dropped, runs of connectors stay but one.
fn camelcase(s: &str) -> String {
    let connector = |c: char| c == '-' || c == '_' || c.is_whitespace();
    let upper = |c: char| c.to_uppercase().next().unwrap_or(c);
    let mut out = String::new();
    let mut chars = s.chars();
    let mut r0 = None;
    for c in chars.by_ref() {
        if !connector(c) {
            r0 = Some(upper(c));
            break;
        }
        out.push(c);
        r0 = Some(c);
    }
    let Some(mut r0) = r0 else {
        return out;
    };
    for c in chars {
        let r1 = r0;
        r0 = c;
        if connector(r0) && connector(r1) {
            out.push(r1);
            continue;
        }
        if connector(r1) {
            r0 = upper(r0);
        } else {
            out.push(r1);
        }
    }
    out.push(r0);
    out
}

fn indent(n: i64, s: &str) -> Result<String, FuncError> {
    if n < 0 {
        return Err(FuncError::Call("strings: negative Repeat count".into()));
    }
    let pad = " ".repeat(n as usize);
    Ok(format!("{pad}{}", s.replace('\n', &format!("\n{pad}"))))
}

/// strings.Replace with n = -1 (an empty `old` inserts `new` around every character).
fn go_replace(s: &str, old: &str, new: &str) -> String {
    if old.is_empty() {
        let mut out = String::from(new);
        for c in s.chars() {
            out.push(c);
            out.push_str(new);
        }
        return out;
    }
    s.replace(old, new)
}

/// strings.SplitN (n < 0: all; an empty separator splits into characters).
fn go_split(s: &str, sep: &str, n: i64) -> Vec<String> {
    if n == 0 {
        return Vec::new();
    }
    if sep.is_empty() {
        let mut parts: Vec<String> = s.chars().map(String::from).collect();
        if n > 0 && parts.len() > n as usize {
            let rest: String = parts[n as usize - 1..].concat();
            parts.truncate(n as usize - 1);
            parts.push(rest);
        }
        return parts;
    }
    if n < 0 {
        s.split(sep).map(String::from).collect()
    } else {
        s.splitn(n as usize, sep).map(String::from).collect()
    }
}

/// goutils.AbbreviateFull, for sprig's `abbrevboth` (byte offsets, moved back to a character
/// boundary where Go would cut one).
fn abbrev_full(s: &str, offset: i64, width: i64) -> String {
    let len = s.len() as i64;
    if s.is_empty() || width < 4 {
        return String::new();
    }
    if len <= width {
        return s.to_string();
    }
    let mut offset = offset.min(len);
    if len - offset < width - 3 {
        offset = len - (width - 3);
    }
    let at = |i: i64| {
        let mut i = i.clamp(0, len) as usize;
        while !s.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    if offset <= 4 {
        return format!("{}...", &s[..at(width - 3)]);
    }
    if width < 7 {
        return String::new();
    }
    if offset + width - 3 < len {
        return format!("...{}", abbrev_full(&s[at(offset)..], 0, width - 3));
    }
    format!("...{}", &s[at(len - (width - 3))..])
}

fn abbrev(width: i64, s: &str) -> String {
    if width < 4 || (s.len() as i64) <= width {
        return s.to_string();
    }
    // Go cuts bytes; a Rust string can only be cut at a character boundary.
    let mut cut = (width - 3) as usize;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}...", &s[..cut])
}

/// goutils.WrapCustom with wrapLongWords = false.
/// goutils' `WrapCustom`, which sprig's `wrap` (long words kept whole) and `wrapWith` (long
/// words cut every `width` bytes) call. It works on bytes and knows only ' ' as a break, so a
/// cut long word may split a character and a '\n' in the text counts as a letter.
fn wrap(width: i64, sep: &str, s: &str, wrap_long_words: bool) -> String {
    let b = gostr::to_bytes(s);
    if b.is_empty() {
        return String::new();
    }
    let sep = if sep.is_empty() { "\n" } else { sep };
    let sep = gostr::to_bytes(sep);
    let width = width.max(1) as usize;
    let mut out = Vec::with_capacity(b.len());
    let mut offset = 0;
    while b.len() - offset > width {
        if b[offset] == b' ' {
            offset += 1;
            continue;
        }
        let window = &b[offset..offset + width + 1];
        if let Some(at) = window.iter().rposition(|&c| c == b' ') {
            out.extend_from_slice(&b[offset..offset + at]);
            out.extend_from_slice(&sep);
            offset += at + 1;
        } else if wrap_long_words {
            out.extend_from_slice(&b[offset..offset + width]);
            out.extend_from_slice(&sep);
            offset += width;
        } else {
            let end = offset + width;
            match b[end..].iter().position(|&c| c == b' ') {
                Some(at) => {
                    out.extend_from_slice(&b[offset..end + at]);
                    out.extend_from_slice(&sep);
                    offset = end + at + 1;
                }
                None => {
                    out.extend_from_slice(&b[offset..]);
                    offset = b.len();
                }
            }
        }
    }
    out.extend_from_slice(&b[offset..]);
    gostr::from_bytes(&out)
}

fn round(x: f64, precision: i64, round_on: f64) -> f64 {
    let pow = 10f64.powi(precision as i32);
    let digit = pow * x;
    // math.Modf's fractional part, then Ceil or Floor (so -2.5 rounds to -3).
    let rounded = if digit.fract() >= round_on {
        digit.ceil()
    } else {
        digit.floor()
    };
    rounded / pow
}

/// sprig's `split`: a `map[string]string` from `_0`, `_1`, … to the parts.
fn string_map(parts: Vec<String>) -> Value {
    let entries = parts
        .into_iter()
        .enumerate()
        .map(|(i, p)| (format!("_{i}"), Value::str(p)));
    Value::Map(Dict::typed(entries.collect(), MapType::String))
}

fn until_step(start: i64, stop: i64, step: i64) -> Value {
    let mut out = Vec::new();
    if step == 0 || (step > 0 && start >= stop) || (step < 0 && start <= stop) {
        return Value::typed_list(out, ListType::Int);
    }
    let mut i = start;
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        out.push(Value::Int(i));
        i += step;
    }
    Value::typed_list(out, ListType::Int)
}

/// sprig's `seq`, as GNU seq.
fn seq(a: &[Value]) -> String {
    let n: Vec<i64> = a.iter().filter_map(Value::as_int).collect();
    let (start, step, end) = match n.as_slice() {
        [] => return String::new(),
        [end] => (1, if *end >= 1 { 1 } else { -1 }, *end),
        [start, end] => (*start, if end >= start { 1 } else { -1 }, *end),
        [start, step, end, ..] => (*start, *step, *end),
    };
    let mut out = Vec::new();
    if step == 0 {
        return String::new();
    }
    let mut i = start;
    while (step > 0 && i <= end) || (step < 0 && i >= end) {
        out.push(i.to_string());
        i += step;
    }
    out.join(" ")
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
                dst.write()?.insert(k, Value::Nil);
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
            dst.write()?.insert(k, v);
        }
    }
    Ok(())
}

fn deep_copy(v: &Value) -> Value {
    match v {
        Value::List(l) => Value::list(l.iter().map(deep_copy).collect()),
        Value::Map(m) => Value::map(
            m.entries()
                .into_iter()
                .map(|(k, v)| (k, deep_copy(&v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

const BASE32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// base32.StdEncoding.EncodeToString.
fn base32_encode(data: &[u8]) -> String {
    let mut out = String::new();
    for chunk in data.chunks(5) {
        let mut buf = [0u8; 5];
        buf[..chunk.len()].copy_from_slice(chunk);
        let bits = u64::from_be_bytes([0, 0, 0, buf[0], buf[1], buf[2], buf[3], buf[4]]);
        let chars = match chunk.len() {
            1 => 2,
            2 => 4,
            3 => 5,
            4 => 7,
            _ => 8,
        };
        for i in 0..8 {
            if i < chars {
                out.push(BASE32[((bits >> (35 - 5 * i)) & 31) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// base32.StdEncoding.DecodeString; the error is the offset of the first bad byte.
fn base32_decode(text: &str) -> Result<Vec<u8>, usize> {
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(8) {
        return Err(bytes.len() / 8 * 8);
    }
    let mut out = Vec::new();
    for (c, chunk) in bytes.chunks(8).enumerate() {
        let mut bits = 0u64;
        let mut n = 0;
        for (i, &b) in chunk.iter().enumerate() {
            if b == b'=' {
                break;
            }
            let v = BASE32.iter().position(|&x| x == b).ok_or(c * 8 + i)? as u64;
            bits = (bits << 5) | v;
            n += 1;
        }
        let bytes_out = match n {
            8 => 5,
            7 => 4,
            5 => 3,
            4 => 2,
            2 => 1,
            0 => 0,
            _ => return Err(c * 8 + n),
        };
        bits <<= 5 * (8 - n);
        for i in 0..bytes_out {
            out.push((bits >> (32 - 8 * i)) as u8);
        }
    }
    Ok(out)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in data {
        a = (a + byte as u32) % 65521;
        b = (b + a) % 65521;
    }
    (b << 16) | a
}

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

/// A plain sprig function's result: the text, or empty when it failed.
fn or_empty(r: Result<String, String>) -> Value {
    Value::str(r.unwrap_or_default())
}

/// A `must` function's result: the text, or the error.
fn must(r: Result<String, String>) -> Result<Value, FuncError> {
    r.map(Value::str).map_err(FuncError::Call)
}

fn regex_find(a: &[Value], must: bool) -> Result<Value, FuncError> {
    let r = re(a, 0, must)?;
    Ok(Value::str(r.re.find(s(a, 1)).map_or("", |m| m.as_str())))
}

fn regex_find_all(a: &[Value], must: bool) -> Result<Value, FuncError> {
    let r = re(a, 0, must)?;
    let text = s(a, 1);
    let all = goregex::find_all(&r, text, int(a, 2));
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
    let parts = goregex::split(&r, s(a, 0), s(a, 1), int(a, 2));
    Ok(Value::strings(parts.unwrap_or_default()))
}
