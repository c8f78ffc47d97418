//! Go's `strconv.ParseInt` and `ParseUint` with base 0, as YAML (go-yaml), Go templates and
//! sprig's `int`/`int64` (through spf13/cast) read integers: an optional sign, the base from
//! the prefix (`0x`, `0o`, `0b`, or a leading `0` for octal), and underscores only between
//! digits (a base prefix counts as a digit). And `strconv.Quote`, the Go syntax of a string.

use std::fmt;

/// Why a text is not a Go integer, worded as Go's `*strconv.NumError`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NumError {
    /// `ParseInt` or `ParseUint`.
    pub func: &'static str,
    pub num: String,
    /// True for a value out of range, false for invalid syntax.
    pub out_of_range: bool,
}

impl fmt::Display for NumError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "strconv.{}: parsing {}: {}",
            self.func,
            super::json::quote(&self.num),
            if self.out_of_range {
                "value out of range"
            } else {
                "invalid syntax"
            }
        )
    }
}

impl std::error::Error for NumError {}

/// `strconv.Atoi`: a decimal integer with an optional sign, nothing else (no prefix, no
/// underscores).
pub fn atoi(s: &str) -> Result<i64, NumError> {
    let err = |out_of_range| NumError {
        func: "Atoi",
        num: s.to_string(),
        out_of_range,
    };
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(err(false));
    }
    let magnitude = digits.bytes().try_fold(0u64, |n, b| {
        n.checked_mul(10)?.checked_add(u64::from(b - b'0'))
    });
    let magnitude = magnitude.ok_or_else(|| err(true))?;
    if s.starts_with('-') {
        0i64.checked_sub_unsigned(magnitude)
            .ok_or_else(|| err(true))
    } else {
        i64::try_from(magnitude).map_err(|_| err(true))
    }
}

/// `strconv.ParseUint(s, 0, 64)`.
pub fn parse_uint(s: &str) -> Result<u64, NumError> {
    parse_unsigned(s, "ParseUint")
}

/// `strconv.ParseInt(s, 0, 64)`.
pub fn parse_int(s: &str) -> Result<i64, NumError> {
    let err = |out_of_range| NumError {
        func: "ParseInt",
        num: s.to_string(),
        out_of_range,
    };
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let u = parse_unsigned(body, "ParseInt").map_err(|e| err(e.out_of_range))?;
    if neg {
        match u {
            u if u <= i64::MAX as u64 => Ok(-(u as i64)),
            u if u == 1 << 63 => Ok(i64::MIN),
            _ => Err(err(true)),
        }
    } else {
        i64::try_from(u).map_err(|_| err(true))
    }
}

fn parse_unsigned(s0: &str, func: &'static str) -> Result<u64, NumError> {
    let err = |out_of_range| NumError {
        func,
        num: s0.to_string(),
        out_of_range,
    };
    let b = s0.as_bytes();
    if b.is_empty() {
        return Err(err(false));
    }
    let lower = |c: u8| c | 0x20;
    let (base, digits): (u64, &[u8]) = if b[0] == b'0' {
        match b.get(1).map(|c| lower(*c)) {
            Some(b'b') if b.len() >= 3 => (2, &b[2..]),
            Some(b'o') if b.len() >= 3 => (8, &b[2..]),
            Some(b'x') if b.len() >= 3 => (16, &b[2..]),
            _ => (8, &b[1..]),
        }
    } else {
        (10, b)
    };
    let mut n: u64 = 0;
    let mut underscores = false;
    for &c in digits {
        let d = match c {
            b'_' => {
                underscores = true;
                continue;
            }
            b'0'..=b'9' => u64::from(c - b'0'),
            c if lower(c).is_ascii_lowercase() => u64::from(lower(c) - b'a') + 10,
            _ => return Err(err(false)),
        };
        if d >= base {
            return Err(err(false));
        }
        n = n
            .checked_mul(base)
            .and_then(|n| n.checked_add(d))
            .ok_or_else(|| err(true))?;
    }
    if underscores && !underscore_ok(s0) {
        return Err(err(false));
    }
    Ok(n)
}

/// `strconv.ParseFloat(s, 64)`: decimal or hexadecimal (`0x1.8p3`) text with an optional
/// sign and underscores between digits, or `inf`/`infinity`/`nan` in any case. `None` for a
/// syntax error and for a value out of range (where Go gives ±Inf with an error, which
/// every caller here treats as a failure).
pub fn parse_float(s: &str) -> Option<f64> {
    let (negative, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = body.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" {
        return Some(if negative {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    if lower == "nan" {
        // Go takes no sign before NaN.
        return (body.len() == s.len()).then_some(f64::NAN);
    }
    if body.contains('_') && !underscore_ok(s) {
        return None;
    }
    let digits: String = lower.chars().filter(|&c| c != '_').collect();
    let value = match digits.strip_prefix("0x") {
        Some(hex) => parse_hex_float(hex)?,
        None => {
            let valid = !digits.is_empty()
                && digits
                    .bytes()
                    .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'+' | b'-'));
            if !valid {
                return None;
            }
            digits.parse::<f64>().ok()?
        }
    };
    if value.is_infinite() {
        return None;
    }
    Some(if negative { -value } else { value })
}

/// The hexadecimal mantissa and binary exponent of a Go hex float after `0x` (`1.8p3`): the
/// `p` exponent is required. Rounded once, to nearest even, from the exact value.
fn parse_hex_float(text: &str) -> Option<f64> {
    let (mantissa, exponent) = text.split_once('p')?;
    let exponent: i64 = exponent.parse().ok()?;
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let digits = format!("{int}{frac}");
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let value = num_bigint::BigUint::parse_bytes(digits.as_bytes(), 16)?;
    // value × 2^(exponent − 4·|frac|), rounded once.
    // Saturating: the exponent is the input's, any i64 (the result is then 0 or out of range).
    let shift = exponent.saturating_sub(4 * frac.len() as i64);
    if value.bits() == 0 {
        return Some(0.0);
    }
    // Keep 63 significant bits and whether anything below them was set.
    let bits = value.bits() as i64;
    let (top, sticky, shift) = if bits > 63 {
        let cut = (bits - 63) as u64;
        let top: u64 = (&value >> cut).try_into().ok()?;
        let lost = value.trailing_zeros().unwrap_or(0) < cut;
        (top, lost, shift.saturating_add(cut as i64))
    } else {
        (value.try_into().ok()?, false, shift)
    };
    // The bits cut off only decide a rounding: one set bit below the kept ones says "more
    // than nothing was lost" (and makes no tie of it).
    let top = if sticky { (top << 1) | 1 } else { top << 1 };
    let exp = i32::try_from(shift.saturating_sub(1).clamp(-2000, 2000)).ok()?;
    Some(ldexp(top, exp))
}

/// `bits × 2^exp`, rounded once to nearest even at the precision of the result (53 bits,
/// fewer for a subnormal one).
fn ldexp(bits: u64, exp: i32) -> f64 {
    let width = 64 - bits.leading_zeros() as i32;
    let top_exp = width - 1 + exp; // the exponent of the leading bit
    let precision = if top_exp >= -1022 {
        53
    } else {
        (53 - (-1022 - top_exp)).max(0)
    };
    let drop = (width - precision).max(0);
    let mut m = if drop > 0 {
        let half = 1u128 << (drop - 1);
        let low = u128::from(bits) & ((1u128 << drop) - 1);
        let mut m = u128::from(bits) >> drop;
        if low > half || (low == half && m & 1 == 1) {
            m += 1;
        }
        m
    } else {
        u128::from(bits)
    };
    let mut e = exp + drop;
    while m > (1u128 << 53) {
        m >>= 1;
        e += 1;
    }
    let mut f = m as f64;
    // Scale by powers of two in steps that stay exact.
    while e > 0 {
        let step = e.min(1000);
        f *= 2f64.powi(step);
        e -= step;
    }
    while e < 0 {
        let step = (-e).min(1000);
        f /= 2f64.powi(step);
        e += step;
    }
    f
}

/// Go's `underscoreOK`: underscores only between digits, a base prefix counting as one (also
/// what `ParseFloat` checks).
pub fn underscore_ok(s: &str) -> bool {
    let mut b = s.as_bytes();
    if let Some(b'-' | b'+') = b.first() {
        b = &b[1..];
    }
    let lower = |c: u8| c | 0x20;
    // '^' start, '0' a digit or base prefix, '_' an underscore, '!' anything else.
    let mut saw = b'^';
    let mut i = 0;
    let mut hex = false;
    if b.len() >= 2 && b[0] == b'0' && matches!(lower(b[1]), b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = lower(b[1]) == b'x';
    }
    while i < b.len() {
        let c = b[i];
        i += 1;
        if c.is_ascii_digit() || (hex && (b'a'..=b'f').contains(&lower(c))) {
            saw = b'0';
            continue;
        }
        if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
            continue;
        }
        if saw == b'_' {
            return false;
        }
        saw = b'!';
    }
    saw != b'_'
}

/// Go's `strconv.Quote` (and `%q`, `%#v` of a string): Go syntax, with escapes for what is
/// not printable.
pub fn quote(s: &str) -> String {
    quote_bytes(s.as_bytes())
}

/// `strconv.Quote` of a Go string that may not be UTF-8: each byte of an invalid sequence
/// as `\xNN`, as Go writes the bytes `net/url` cuts out of a multi-byte character.
pub fn quote_bytes(s: &[u8]) -> String {
    let mut out = String::from("\"");
    for chunk in s.utf8_chunks() {
        for c in chunk.valid().chars() {
            push_quoted(&mut out, c);
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out.push('"');
    out
}

fn push_quoted(out: &mut String, c: char) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        '\u{7}' => out.push_str("\\a"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        '\u{b}' => out.push_str("\\v"),
        c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
        c if is_printable(c) => out.push(c),
        c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
        c => out.push_str(&format!("\\U{:08x}", c as u32)),
    }
}

/// `strconv.IsPrint`, which is `unicode.IsPrint`.
pub use super::unicode::is_print as is_printable;

#[cfg(test)]
mod tests {
    use super::*;

    /// What Go's `strconv.ParseFloat(s, 64)` gives (None where Go returns an error).
    #[test]
    fn parse_float_is_go_s() {
        let cases: &[(&str, Option<f64>)] = &[
            ("1_000", Some(1000.0)),
            ("1__0", None),
            ("_1", None),
            ("1_", None),
            ("+.5e1", Some(5.0)),
            ("0x1p4", Some(16.0)),
            ("0x1.8p1", Some(3.0)),
            ("0x_1p0", Some(1.0)),
            ("0x1", None),
            ("0x.8p0", Some(0.5)),
            ("0x1p-1074", Some(f64::from_bits(1))),
            ("0x1.fffffffffffff8p1023", None),
            ("1e400", None),
            ("-Infinity", Some(f64::NEG_INFINITY)),
            ("inF", Some(f64::INFINITY)),
            ("infin", None),
            ("", None),
            ("1e", None),
            ("0x", None),
            ("0x1p-9223372036854775808", Some(0.0)),
            ("0x1p9223372036854775807", None),
        ];
        for (text, want) in cases {
            assert_eq!(parse_float(text), *want, "{text}");
        }
        assert!(parse_float("NaN").unwrap().is_nan());
        assert_eq!(parse_float("-nan"), None);
        // 2^53 + 1 rounds to even; + a sticky bit far below rounds up.
        assert_eq!(parse_float("0x20000000000001p0"), Some(9007199254740992.0));
        assert_eq!(
            parse_float("0x20000000000001000000000001p-48"),
            Some(9007199254740994.0)
        );
    }

    /// What Go's `strconv.Atoi` gives: decimal only, and its error names `Atoi`.
    #[test]
    fn atoi_is_decimal_only() {
        assert_eq!(atoi("+1"), Ok(1));
        assert_eq!(atoi("01"), Ok(1));
        assert_eq!(atoi("-9223372036854775808"), Ok(i64::MIN));
        for (text, why) in [
            ("", "invalid syntax"),
            ("-", "invalid syntax"),
            ("0x1", "invalid syntax"),
            ("1_0", "invalid syntax"),
            (" 1", "invalid syntax"),
            ("9223372036854775808", "value out of range"),
            ("99999999999999999999", "value out of range"),
        ] {
            let e = atoi(text).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("strconv.Atoi: parsing {text:?}: {why}")
            );
        }
    }

    /// What Go 1.23's `strconv.ParseInt(s, 0, 64)` gives (`None`: an error).
    #[test]
    fn as_go_parses_integers() {
        let cases: &[(&str, Option<i64>)] = &[
            ("0", Some(0)),
            ("42", Some(42)),
            ("+42", Some(42)),
            ("-42", Some(-42)),
            ("0x1F", Some(31)),
            ("0X_1f", Some(31)),
            ("0o17", Some(15)),
            ("017", Some(15)),
            ("0b101", Some(5)),
            ("1_000", Some(1000)),
            ("1__0", None),
            ("_10", None),
            ("10_", None),
            ("08", None),
            ("0x", None),
            ("", None),
            ("-", None),
            ("1e3", None),
            (" 1", None),
            ("9223372036854775807", Some(i64::MAX)),
            ("9223372036854775808", None),
            ("-9223372036854775808", Some(i64::MIN)),
            ("-9223372036854775809", None),
            ("-0x8000000000000000", Some(i64::MIN)),
        ];
        for (s, want) in cases {
            assert_eq!(parse_int(s).ok(), *want, "{s:?}");
        }
        assert_eq!(parse_uint("18446744073709551615"), Ok(u64::MAX));
        assert!(parse_uint("-1").is_err());
        assert_eq!(
            parse_int("1__0").unwrap_err().to_string(),
            r#"strconv.ParseInt: parsing "1__0": invalid syntax"#
        );
        assert_eq!(
            parse_int("9223372036854775808").unwrap_err().to_string(),
            r#"strconv.ParseInt: parsing "9223372036854775808": value out of range"#
        );
    }
}
