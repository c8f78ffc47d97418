//! String and number constants as Go's template parser reads them: `strconv.Unquote` for the
//! three quote forms, `parse.newNumber` for ints, floats, hex floats, characters and complex
//! constants.

use super::nodes::{Number, Span};
use std::sync::Arc;

/// [`unquote`] as a shared string, copied once from the template when nothing is escaped.
pub(super) fn unquote_shared(text: &str) -> Result<Arc<str>, String> {
    let inside = |q: char| text.strip_prefix(q).and_then(|t| t.strip_suffix(q));
    let plain = match (inside('"'), inside('`')) {
        (Some(body), _) if !has_escape(body) => Some(body),
        (_, Some(raw)) if !raw.contains('\r') => Some(raw),
        _ => None,
    };
    match plain {
        Some(body) => Ok(Arc::from(body)),
        None => unquote(text).map(Arc::from),
    }
}

/// Whether a quoted string's body holds a backslash (memchr's search, not `str::contains`'s
/// char searcher: every string constant of a template asks).
fn has_escape(body: &str) -> bool {
    memchr::memchr(b'\\', body.as_bytes()).is_some()
}

/// Go's `strconv.Unquote` for the three quote forms.
pub(super) fn unquote(text: &str) -> Result<String, String> {
    let bad = || "invalid syntax".to_string();
    if let Some(raw) = text.strip_prefix('`').and_then(|t| t.strip_suffix('`')) {
        return Ok(raw.replace('\r', ""));
    }
    let quote = text.chars().next().ok_or_else(bad)?;
    let body = text
        .strip_prefix(quote)
        .and_then(|t| t.strip_suffix(quote))
        .ok_or_else(bad)?;
    // A name (`define`, `template`) has no escape: what the loop below would copy char by char.
    if quote == '"' && !has_escape(body) {
        return Ok(body.to_string());
    }
    // A double-quoted string's `\x` and octal escapes are bytes (`"\xc3\xa9"` is `é`, `"\xff"`
    // not UTF-8); a quoted character's are code points.
    let mut out: Vec<u8> = Vec::with_capacity(body.len());
    let push_char = |out: &mut Vec<u8>, c: char| {
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    };
    let push_byte = |out: &mut Vec<u8>, v: u32| -> Result<(), String> {
        if quote == '\'' {
            push_char(out, char::from_u32(v).ok_or_else(bad)?);
        } else {
            out.push(u8::try_from(v).map_err(|_| bad())?);
        }
        Ok(())
    };
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            push_char(&mut out, c);
            continue;
        }
        let e = chars.next().ok_or_else(bad)?;
        match e {
            'a' => out.push(0x07),
            'b' => out.push(0x08),
            'f' => out.push(0x0c),
            'n' => out.push(b'\n'),
            'r' => out.push(b'\r'),
            't' => out.push(b'\t'),
            'v' => out.push(0x0b),
            '\\' => out.push(b'\\'),
            '\'' if quote == '\'' => out.push(b'\''),
            '"' if quote == '"' => out.push(b'"'),
            // Exactly 2, 4 or 8 hex digits; a `\u`/`\U` code point must be a valid one.
            'x' | 'u' | 'U' => {
                let n = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let mut v = 0u32;
                for _ in 0..n {
                    let d = chars.next().and_then(|c| c.to_digit(16)).ok_or_else(bad)?;
                    v = v * 16 + d;
                }
                if e == 'x' {
                    push_byte(&mut out, v)?;
                } else {
                    push_char(&mut out, char::from_u32(v).ok_or_else(bad)?);
                }
            }
            // Three octal digits, at most 255.
            '0'..='7' => {
                let mut v = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    let d = chars.next().and_then(|c| c.to_digit(8)).ok_or_else(bad)?;
                    v = v * 8 + d;
                }
                push_byte(&mut out, v)?;
            }
            _ => return Err(bad()),
        }
    }
    let out = super::super::gostr::from_bytes(&out);
    if quote == '\'' && out.chars().count() != 1 {
        return Err(bad());
    }
    Ok(out)
}

/// The span of a number read from a token's text alone, which the caller sets.
const NO_SPAN: Span = Span { start: 0, end: 0 };

/// A number constant as Go's parser reads it (`parse.newNumber`).
pub(super) fn parse_number(text: &str, is_char: bool) -> Result<Number, String> {
    if is_char {
        // strconv.UnquoteChar on what follows the quote, then only the closing quote may be
        // left.
        let inner = &text[1..];
        let first_len = match inner.strip_prefix('\\') {
            Some(rest) => {
                1 + match rest.chars().next() {
                    Some('x') => 3,
                    Some('u') => 5,
                    Some('U') => 9,
                    Some('0'..='7') => 3,
                    Some(c) => c.len_utf8(),
                    None => 0,
                }
            }
            None => inner.chars().next().map_or(0, char::len_utf8),
        };
        let (first, tail) = inner.split_at(first_len.min(inner.len()));
        if first.is_empty() || first == "'" {
            return Err("invalid syntax".into());
        }
        let c = unquote(&format!("'{first}'"))?
            .chars()
            .next()
            .ok_or("invalid syntax")? as i64;
        if tail != "'" {
            return Err(format!("malformed character constant: {text}"));
        }
        return Ok(Number {
            text: NO_SPAN,
            int: Some(c),
            float: Some(c as f64),
            is_float: false,
            hex_int: false,
            complex: None,
        });
    }
    // An imaginary constant, if what precedes the `i` is a float.
    if let Some(im) = text.strip_suffix('i').and_then(go_parse_float) {
        return Ok(complex_number(0.0, im));
    }
    let int = crate::go::strconv::parse_int(text).ok();
    // An unsigned integer beyond int64 is a constant too (one that overflows int when used).
    let uint = match int {
        Some(_) => None,
        None => crate::go::strconv::parse_uint(text).ok(),
    };
    let float = match (int, uint) {
        (Some(i), _) => Some(i as f64),
        (None, Some(u)) => Some(u as f64),
        (None, None) => go_parse_float(text),
    };
    let Some(f) = float else {
        return Err(format!(
            "illegal number syntax: {}",
            super::super::fmt::go_quote(text)
        ));
    };
    if int.is_none() && uint.is_none() && !text.contains(['.', 'e', 'E', 'p', 'P']) {
        return Err(format!(
            "integer overflow: {}",
            super::super::fmt::go_quote(text)
        ));
    }
    // A float that is integral is also an int (Go marks it so).
    let int = match uint {
        Some(_) => None,
        None => int.or_else(|| (f.fract() == 0.0 && f.abs() < 9.2e18).then_some(f as i64)),
    };
    let lower = text.to_ascii_lowercase();
    let hex = lower.trim_start_matches(['+', '-']).starts_with("0x");
    Ok(Number {
        text: NO_SPAN,
        int,
        float,
        is_float: if hex {
            lower.contains('p')
        } else {
            lower.contains(['.', 'e'])
        },
        hex_int: hex && !lower.contains('p'),
        complex: None,
    })
}

/// A complex constant `RE±IMi`, as Go's parser reads it with `fmt.Sscan`.
pub(super) fn parse_complex(text: &str) -> Result<Number, String> {
    let bytes = text.as_bytes();
    let split = (1..bytes.len()).find(|&i| {
        matches!(bytes[i], b'+' | b'-') && !matches!(bytes[i - 1], b'e' | b'E' | b'p' | b'P')
    });
    let parts = split.and_then(|at| {
        let (re, im) = (&text[..at], text[at..].strip_suffix('i')?);
        let float = |s: &str| {
            go_parse_float(s).or_else(|| crate::go::strconv::parse_int(s).ok().map(|i| i as f64))
        };
        Some((float(re)?, float(im)?))
    });
    match parts {
        Some((re, im)) => Ok(complex_number(re, im)),
        None => Err("syntax error scanning complex number".into()),
    }
}

/// Go's `simplifyComplex`: a complex constant whose imaginary part is zero is also a float,
/// and an int when integral.
fn complex_number(re: f64, im: f64) -> Number {
    let real = im == 0.0;
    Number {
        text: NO_SPAN,
        int: (real && re.fract() == 0.0 && re.abs() < 9.2e18).then_some(re as i64),
        float: real.then_some(re),
        is_float: real,
        hex_int: false,
        complex: Some((re, im)),
    }
}

/// strconv.ParseFloat(text, 64) for decimal and hex floats.
fn go_parse_float(text: &str) -> Option<f64> {
    let (neg, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let lower = body.to_ascii_lowercase();
    let v = if let Some(hex) = lower.strip_prefix("0x") {
        parse_hex_float(&hex.replace('_', ""))?
    } else {
        if lower.contains('_') && !crate::go::strconv::underscore_ok(&lower) {
            return None;
        }
        let clean = lower.replace('_', "");
        if clean.starts_with(['i', 'n']) {
            return None;
        }
        clean.parse::<f64>().ok()?
    };
    // strconv.ParseFloat's ErrRange: a finite text whose value is beyond float64 is no
    // number (its exponent may be any size; one below the smallest is 0, no error).
    v.is_finite().then_some(if neg { -v } else { v })
}

fn parse_hex_float(s: &str) -> Option<f64> {
    let (mantissa, exp) = s.split_once('p')?;
    let exp: i32 = exp.parse().ok()?;
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut v = u64::from_str_radix(if int.is_empty() { "0" } else { int }, 16).ok()? as f64;
    for (i, c) in frac.chars().enumerate() {
        v += c.to_digit(16)? as f64 / 16f64.powi(i as i32 + 1);
    }
    Some(v * 2f64.powi(exp))
}
