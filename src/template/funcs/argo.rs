//! Argo CD's additions to sprig for goTemplate ApplicationSets (`applicationset/utils`
//! `init`): `normalize` (SanitizeName), `slugify` (SlugifyName over gosimple/slug), and YAML
//! conversions that fail with an error instead of Helm's error map. Argo CD removes `env`,
//! `expandenv` and `getHostByName` from sprig's map.

use super::super::value::Value;
use super::super::{FuncDef, FuncError, Param};
use std::collections::BTreeMap;

const A: Param = Param::Any;
const S: Param = Param::String;

/// Argo CD's functions, on top of sprig's.
pub const FUNCS: &[FuncDef] = &[
    FuncDef::new("normalize", &[S], |_, a| {
        Ok(Value::str(sanitize_name(a[0].as_str().unwrap_or_default())))
    }),
    FuncDef::variadic("slugify", &[], A, |_, a| slugify(a)),
    FuncDef::new("toYaml", &[A], |_, a| {
        super::helm::to_yaml(&a[0])
            .map(Value::str)
            .map_err(FuncError::Call)
    }),
    FuncDef::new("fromYaml", &[S], |_, a| {
        match super::helm::from_yaml(a[0].as_str().unwrap_or_default()) {
            Ok(Value::Map(m)) => Ok(Value::Map(m)),
            Ok(Value::Nil | Value::NoValue) => Ok(Value::map(BTreeMap::new())),
            Ok(other) => Err(FuncError::Call(format!(
                "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                super::helm::json_kind(&other)
            ))),
            Err(e) => Err(FuncError::Call(e.to_string())),
        }
    }),
    FuncDef::new("fromYamlArray", &[S], |_, a| {
        match super::helm::from_yaml(a[0].as_str().unwrap_or_default()) {
            Ok(Value::List(l)) => Ok(Value::List(l)),
            Ok(Value::Nil | Value::NoValue) => Ok(Value::list(Vec::new())),
            Ok(other) => Err(FuncError::Call(format!(
                "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type []interface {{}}",
                super::helm::json_kind(&other)
            ))),
            Err(e) => Err(FuncError::Call(e.to_string())),
        }
    }),
];

/// sprig functions Argo CD takes out.
pub const REMOVED: &[&str] = &["env", "expandenv", "getHostByName"];

/// `SanitizeName`: lower case, anything but `[-a-z0-9.]` replaced by `-`, at most 253
/// bytes, without leading or trailing `-` and `.`.
pub fn sanitize_name(name: &str) -> String {
    let lower = name.to_lowercase();
    let mut out: String = lower
        .chars()
        .map(|c| match c {
            'a'..='z' | '0'..='9' | '-' | '.' => c,
            _ => '-',
        })
        .collect();
    // Only ASCII remains, so cutting at a byte is cutting at a character.
    out.truncate(253);
    out.trim_matches(|c| c == '-' || c == '.').to_string()
}

/// `SlugifyName(args...)`: `[maxSize int] [smartTruncate bool] name`, each asserted to its
/// type as Go does (a wrong one panics, which the template reports).
fn slugify(a: &[Value]) -> Result<Value, FuncError> {
    let (mut max, mut smart, mut name) = (50i64, true, String::new());
    let conversion = |v: &Value, want: &str| {
        let got = match v {
            Value::Nil | Value::NoValue => "nil",
            other => other.type_name(),
        };
        FuncError::Call(format!(
            "interface conversion: interface {{}} is {got}, not {want}"
        ))
    };
    for (i, arg) in a.iter().enumerate() {
        if i == a.len() - 1 {
            name = match arg {
                Value::String(s) => s.to_string(),
                other => return Err(conversion(other, "string")),
            };
        } else if i == 0 {
            max = match arg {
                Value::Int(n) => *n,
                other => return Err(conversion(other, "int")),
            };
        } else if i == 1 {
            smart = match arg {
                Value::Bool(b) => *b,
                other => return Err(conversion(other, "bool")),
            };
        }
    }
    Ok(Value::str(slug(&sanitize_name(&name), max, smart)))
}

/// gosimple/slug's `Make` on an already sanitized name (`[-a-z0-9.]`): other characters
/// become `-`, runs of `-` one, `-` and `_` trimmed, then cut to `max` (at the last `-` before
/// it with smart truncation).
fn slug(name: &str, max: i64, smart: bool) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.trim().chars() {
        let c = if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
            c
        } else {
            '-'
        };
        if c == '-' && out.ends_with('-') {
            continue;
        }
        out.push(c);
    }
    let mut out = out.trim_matches(|c| c == '-' || c == '_').to_string();
    if max > 0 && out.len() > max as usize {
        let max = max as usize;
        if smart {
            match out.as_bytes()[..=max].iter().rposition(|&b| b == b'-') {
                Some(i) => out.truncate(i),
                None => out.truncate(max),
            }
        } else {
            out.truncate(max);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sanitized_as_argo_cd_does() {
        assert_eq!(sanitize_name("Engineering_Dev"), "engineering-dev");
        assert_eq!(sanitize_name("-a.b-"), "a.b");
        assert_eq!(sanitize_name(&"x".repeat(300)).len(), 253);
    }

    #[test]
    fn slugs_truncate_at_a_word() {
        assert_eq!(slug("hello.world-again", 50, true), "hello-world-again");
        assert_eq!(slug("hello-world-again", 12, true), "hello-world");
        assert_eq!(slug("hello-world-again", 12, false), "hello-world-");
        assert_eq!(slug("helloworld", 5, true), "hello");
    }

    #[test]
    fn argo_cd_set_adds_and_removes() {
        use super::super::super::{Funcs, Options, TemplateSet};
        let run = |text: &str| {
            let mut set = TemplateSet::new(Funcs::argo(), Options::default());
            set.parse("t", text).map_err(|e| e.to_string())?;
            set.execute("t", &Value::Nil).map_err(|e| e.to_string())
        };
        assert_eq!(
            run(r#"{{ normalize "Engineering_Dev" }}|{{ slugify 5 "ab cd ef" }}"#).unwrap(),
            "engineering-dev|ab-cd"
        );
        assert_eq!(run(r#"{{ toYaml (list 1 "a") }}"#).unwrap(), "- 1\n- a");
        let err = run(r#"{{ fromYaml "a: [" }}"#).unwrap_err();
        assert!(
            err.contains("error calling fromYaml: error converting YAML to JSON"),
            "{err}"
        );
        let err = run(r#"{{ slugify 1.5 "x" }}"#).unwrap_err();
        assert!(
            err.contains("interface conversion: interface {} is float64, not int"),
            "{err}"
        );
        let err = run(r#"{{ getHostByName "localhost" }}"#).unwrap_err();
        assert!(
            err.contains(r#"function "getHostByName" not defined"#),
            "{err}"
        );
    }
}
