//! Scalar typing, exactly as go-yaml resolves plain scalars: YAML 1.1 rules (go-yaml v2, used by
//! Helm values, `fromYaml` and by the output emitter's quoting decision) and YAML 1.2 rules
//! (go-yaml v3 as used by kyaml/kustomize and Argo CD).

use super::node::Scalar;

/// Which YAML typing rules apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// go-yaml v2: `yes`/`no`/`on`/`off`/`y`/`n` are booleans; timestamps decode as strings.
    Yaml11,
    /// go-yaml v3 (kyaml): only `true`/`false` are booleans; timestamps decode as times.
    Yaml12,
}

/// The typed value of a scalar.
#[derive(Clone, Debug, PartialEq)]
pub enum Resolved {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    Str(String),
    /// A timestamp, already formatted as Go's RFC 3339 (nanosecond) text.
    Timestamp(String),
}

/// A scalar whose explicit tag does not fit its text (`!!int abc`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot decode {found} `{text}` as a {tag}")]
pub struct TagMismatch {
    pub text: String,
    pub found: &'static str,
    pub tag: String,
}

/// Resolves a parsed scalar: quoted and block scalars are strings unless explicitly tagged.
pub fn resolve_scalar(s: &Scalar, dialect: Dialect) -> Result<Resolved, TagMismatch> {
    let plain = s.style == super::node::ScalarStyle::Plain;
    match s.tag.as_deref() {
        None | Some("!") if !plain => Ok(Resolved::Str(s.text.clone())),
        // go-yaml v3 reads the non-specific tag `!` as no tag at all (`! 12` is an int);
        // go-yaml v2 leaves it unresolved, a string.
        Some("!") if dialect == Dialect::Yaml12 => resolve_tagged("", &s.text, dialect),
        tag => resolve_tagged(tag.unwrap_or(""), &s.text, dialect),
    }
}

/// What a plain scalar with this text resolves to (no tag).
pub fn resolve_plain(text: &str, dialect: Dialect) -> Resolved {
    resolve_tagged("", text, dialect).unwrap_or_else(|_| Resolved::Str(text.to_string()))
}

/// The tag go-yaml v2/v3 resolves an untagged plain scalar to (`!!str`, `!!int`, `!!timestamp`…).
pub fn plain_tag(text: &str, dialect: Dialect) -> &'static str {
    resolve_untagged(text, dialect, "").0
}

/// go-yaml's `resolve(tag, in)`, followed by its decode rules for an `interface{}` target.
fn resolve_tagged(tag: &str, text: &str, dialect: Dialect) -> Result<Resolved, TagMismatch> {
    let resolvable = matches!(
        tag,
        "" | "!!str" | "!!bool" | "!!int" | "!!float" | "!!null" | "!!timestamp"
    );
    if tag == "!!binary" {
        use base64::Engine;
        return base64::engine::general_purpose::STANDARD
            .decode(text.split_whitespace().collect::<String>())
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .map(Resolved::Str)
            .ok_or_else(|| TagMismatch {
                text: text.to_string(),
                found: "!!str",
                tag: tag.to_string(),
            });
    }
    if !resolvable || tag == "!!str" {
        return Ok(Resolved::Str(text.to_string()));
    }
    let (found, value) = resolve_untagged(text, dialect, tag);
    if tag.is_empty() || tag == found {
        return Ok(value);
    }
    // go-yaml lets an int be read as a float when tagged so.
    if tag == "!!float" {
        if let Resolved::Int(i) = value {
            return Ok(Resolved::Float(i as f64));
        }
    }
    Err(TagMismatch {
        text: text.to_string(),
        found,
        tag: tag.to_string(),
    })
}

/// go-yaml's resolve table: what the first byte says a plain scalar may be (`N` null, `S` a
/// signed number, `D` a number or timestamp, `M` a special word, `.` a float; 0 a string).
fn hint(text: &str) -> u8 {
    match text.as_bytes().first() {
        None => b'N',
        Some(b'+' | b'-') => b'S',
        Some(b'0'..=b'9') => b'D',
        Some(b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~') => b'M',
        Some(b'.') => b'.',
        Some(_) => 0,
    }
}

/// True when an untagged plain scalar with this text surely resolves to a string, known
/// without resolving it (which copies the text): it cannot start a number or timestamp, and
/// it is no special word (`true`, `null`…). False for some strings too (`-a`, `1x`).
pub fn plain_is_surely_string(text: &str, dialect: Dialect) -> bool {
    match hint(text) {
        0 => true,
        b'M' => lookup_special(text, dialect).is_none(),
        _ => false,
    }
}

fn resolve_untagged(text: &str, dialect: Dialect, tag: &str) -> (&'static str, Resolved) {
    let hint = hint(text);
    let string = || ("!!str", Resolved::Str(text.to_string()));
    if hint == 0 {
        return string();
    }
    if let Some(v) = lookup_special(text, dialect) {
        return v;
    }
    match hint {
        b'.' => {
            if let Some(f) = parse_go_float(text) {
                return ("!!float", Resolved::Float(f));
            }
        }
        b'D' | b'S' => {
            if tag.is_empty() || tag == "!!timestamp" {
                if let Some(ts) = parse_timestamp(text) {
                    return match dialect {
                        Dialect::Yaml12 => ("!!timestamp", Resolved::Timestamp(ts)),
                        Dialect::Yaml11 => ("!!timestamp", Resolved::Str(text.to_string())),
                    };
                }
            }
            let plain: String = text.chars().filter(|&c| c != '_').collect();
            if let Ok(i) = crate::go::strconv::parse_int(&plain) {
                return ("!!int", Resolved::Int(i));
            }
            if let Ok(u) = crate::go::strconv::parse_uint(&plain) {
                return ("!!int", Resolved::Uint(u));
            }
            if is_yaml_style_float(&plain) {
                if let Some(f) = parse_go_float(&plain) {
                    return ("!!float", Resolved::Float(f));
                }
            }
        }
        _ => {}
    }
    string()
}

fn lookup_special(text: &str, dialect: Dialect) -> Option<(&'static str, Resolved)> {
    let v = match text {
        "true" | "True" | "TRUE" => ("!!bool", Resolved::Bool(true)),
        "false" | "False" | "FALSE" => ("!!bool", Resolved::Bool(false)),
        "" | "~" | "null" | "Null" | "NULL" => ("!!null", Resolved::Null),
        ".nan" | ".NaN" | ".NAN" => ("!!float", Resolved::Float(f64::NAN)),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            ("!!float", Resolved::Float(f64::INFINITY))
        }
        "-.inf" | "-.Inf" | "-.INF" => ("!!float", Resolved::Float(f64::NEG_INFINITY)),
        _ if dialect == Dialect::Yaml11 => match text {
            "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => {
                ("!!bool", Resolved::Bool(true))
            }
            "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => {
                ("!!bool", Resolved::Bool(false))
            }
            _ => return None,
        },
        _ => return None,
    };
    Some(v)
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`, go-yaml's float syntax.
pub(crate) fn is_yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Go's `strconv.ParseFloat(s, 64)` for decimal syntax: overflow is an error, not infinity.
fn parse_go_float(s: &str) -> Option<f64> {
    if !is_yaml_style_float(s) {
        return None;
    }
    let f: f64 = s.parse().ok()?;
    f.is_finite().then_some(f)
}

/// Parses the timestamp forms go-yaml accepts (`2006-1-2`, `2006-1-2T15:4:5.999999999Z07:00`,
/// lower-case `t`, or a space and no zone) and formats it as Go's `time.RFC3339Nano`.
pub(crate) fn parse_timestamp(s: &str) -> Option<String> {
    let b = s.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return None;
    }
    let mut p = Cursor { s: b, i: 0 };
    let year = p.fixed(4)?;
    p.expect(b'-')?;
    let month = p.num12()?;
    p.expect(b'-')?;
    let day = p.num12()?;
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    if p.done() {
        return Some(format!("{year:04}-{month:02}-{day:02}T00:00:00Z"));
    }
    let sep = p.next()?;
    if !matches!(sep, b'T' | b't' | b' ') {
        return None;
    }
    let hour = p.num12()?;
    p.expect(b':')?;
    let minute = p.num12()?;
    p.expect(b':')?;
    let second = p.num12()?;
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let mut frac = String::new();
    if matches!(p.peek(), Some(b'.' | b',')) && p.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
        p.i += 1;
        while let Some(c) = p.peek().filter(u8::is_ascii_digit) {
            frac.push(c as char);
            p.i += 1;
        }
        frac.truncate(9);
    }
    let zone = if sep == b' ' {
        if !p.done() {
            return None;
        }
        "Z".to_string()
    } else {
        match p.next()? {
            b'Z' => "Z".to_string(),
            c @ (b'+' | b'-') => {
                let hh = p.fixed(2)?;
                p.expect(b':')?;
                let mm = p.fixed(2)?;
                if hh == 0 && mm == 0 {
                    "Z".to_string()
                } else {
                    format!("{}{hh:02}:{mm:02}", c as char)
                }
            }
            _ => return None,
        }
    };
    if !p.done() {
        return None;
    }
    let frac = frac.trim_end_matches('0');
    let frac = if frac.is_empty() {
        String::new()
    } else {
        format!(".{frac}")
    };
    Some(format!(
        "{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}{frac}{zone}"
    ))
}

struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn peek_at(&self, k: usize) -> Option<u8> {
        self.s.get(self.i + k).copied()
    }
    fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }
    fn done(&self) -> bool {
        self.i == self.s.len()
    }
    fn expect(&mut self, c: u8) -> Option<()> {
        (self.next()? == c).then_some(())
    }
    fn fixed(&mut self, n: usize) -> Option<u32> {
        let mut v = 0;
        for _ in 0..n {
            let c = self.next().filter(u8::is_ascii_digit)?;
            v = v * 10 + u32::from(c - b'0');
        }
        Some(v)
    }
    /// One or two digits (Go's non-zero-padded layout fields).
    fn num12(&mut self) -> Option<u32> {
        let mut v = u32::from(self.next().filter(u8::is_ascii_digit)? - b'0');
        if let Some(c) = self.peek().filter(u8::is_ascii_digit) {
            self.i += 1;
            v = v * 10 + u32::from(c - b'0');
        }
        Some(v)
    }
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 if (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400) => {
            29
        }
        2 => 28,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Resolved::*;

    fn r12(s: &str) -> Resolved {
        resolve_plain(s, Dialect::Yaml12)
    }
    fn r11(s: &str) -> Resolved {
        resolve_plain(s, Dialect::Yaml11)
    }

    /// Expected values from kubectl kustomize (testdata/kustomize/81-non-specific-tag).
    #[test]
    fn the_non_specific_tag() {
        let scalar = |text: &str, style| super::super::node::Scalar {
            text: text.to_string(),
            style,
            tag: Some("!".into()),
        };
        use super::super::node::ScalarStyle::{DoubleQuoted, Plain};
        assert_eq!(
            resolve_scalar(&scalar("12", Plain), Dialect::Yaml12),
            Ok(Int(12))
        );
        assert_eq!(
            resolve_scalar(&scalar("0x1F", Plain), Dialect::Yaml12),
            Ok(Int(31))
        );
        assert_eq!(
            resolve_scalar(&scalar("12", DoubleQuoted), Dialect::Yaml12),
            Ok(Str("12".into()))
        );
        assert_eq!(
            resolve_scalar(&scalar("12", Plain), Dialect::Yaml11),
            Ok(Str("12".into()))
        );
    }

    #[test]
    fn booleans_differ_between_dialects() {
        assert_eq!(r11("yes"), Bool(true));
        assert_eq!(r11("Off"), Bool(false));
        assert_eq!(r11("y"), Bool(true));
        assert_eq!(r12("yes"), Str("yes".into()));
        assert_eq!(r12("on"), Str("on".into()));
        assert_eq!(r12("True"), Bool(true));
        assert_eq!(r12("tRUE"), Str("tRUE".into()));
    }

    #[test]
    fn integers_follow_go_base_zero_parsing() {
        assert_eq!(r12("0755"), Int(493));
        assert_eq!(r12("0x1F"), Int(31));
        assert_eq!(r12("0o17"), Int(15));
        assert_eq!(r12("0b101"), Int(5));
        assert_eq!(r12("-0b11"), Int(-3));
        assert_eq!(r12("+12"), Int(12));
        assert_eq!(r12("1_000"), Int(1000));
        assert_eq!(r12("12345678901234567890"), Uint(12345678901234567890));
        assert_eq!(r12("-9223372036854775808"), Int(i64::MIN));
        // "08" is not octal, but it is a float.
        assert_eq!(r12("08"), Float(8.0));
        assert_eq!(r12("0x"), Str("0x".into()));
    }

    #[test]
    fn floats_and_overflow() {
        assert_eq!(r12("1e3"), Float(1000.0));
        assert_eq!(r12(".5"), Float(0.5));
        assert_eq!(r12("1."), Float(1.0));
        assert_eq!(r12("1e400"), Str("1e400".into()));
        assert_eq!(r12("-.inf"), Float(f64::NEG_INFINITY));
        assert!(matches!(r12(".nan"), Float(f) if f.is_nan()));
        assert_eq!(r12("1.2.3"), Str("1.2.3".into()));
        assert_eq!(r12("-"), Str("-".into()));
    }

    #[test]
    fn nulls_and_strings() {
        assert_eq!(r12(""), Null);
        assert_eq!(r12("~"), Null);
        assert_eq!(r12("nullx"), Str("nullx".into()));
        assert_eq!(r12("hello"), Str("hello".into()));
    }

    #[test]
    fn timestamps() {
        assert_eq!(r12("2020-01-01"), Timestamp("2020-01-01T00:00:00Z".into()));
        assert_eq!(r11("2020-01-01"), Str("2020-01-01".into()));
        assert_eq!(
            r12("2001-12-14t21:59:43.10-05:00"),
            Timestamp("2001-12-14T21:59:43.1-05:00".into())
        );
        assert_eq!(
            r12("2001-12-14 21:59:43.10"),
            Timestamp("2001-12-14T21:59:43.1Z".into())
        );
        assert_eq!(
            r12("2001-2-3T4:05:06+00:00"),
            Timestamp("2001-02-03T04:05:06Z".into())
        );
        assert_eq!(r12("2020-02-30"), Str("2020-02-30".into()));
        assert_eq!(r12("2020-13-01"), Str("2020-13-01".into()));
    }

    #[test]
    fn tags() {
        let s = |text: &str, tag: Option<&str>, style| Scalar {
            text: text.into(),
            style,
            tag: tag.map(Box::from),
        };
        use crate::yaml::node::ScalarStyle::*;
        assert_eq!(
            resolve_scalar(&s("5", Some("!!str"), Plain), Dialect::Yaml12),
            Ok(Str("5".into()))
        );
        assert_eq!(
            resolve_scalar(&s("5", None, DoubleQuoted), Dialect::Yaml12),
            Ok(Str("5".into()))
        );
        assert_eq!(
            resolve_scalar(&s("5", Some("!!int"), DoubleQuoted), Dialect::Yaml12),
            Ok(Int(5))
        );
        assert_eq!(
            resolve_scalar(&s("5", Some("!!float"), Plain), Dialect::Yaml12),
            Ok(Float(5.0))
        );
        assert!(resolve_scalar(&s("abc", Some("!!int"), Plain), Dialect::Yaml12).is_err());
        assert_eq!(
            resolve_scalar(&s("x", Some("!custom"), Plain), Dialect::Yaml12),
            Ok(Str("x".into()))
        );
        assert_eq!(
            resolve_scalar(&s("aGk=", Some("!!binary"), Plain), Dialect::Yaml12),
            Ok(Str("hi".into()))
        );
    }
}
