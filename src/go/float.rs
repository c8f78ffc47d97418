//! Go's float formatting (`strconv.FormatFloat` with shortest precision, and `encoding/json`'s
//! choice between `f` and `e`), which decides how numbers look in every kustomize and Helm
//! output.

/// Shortest round-trip decimal digits of `|f|` and the decimal exponent: `f = 0.d1d2… × 10^exp`.
fn shortest_digits(f: f64) -> (String, i32) {
    // Rust's `{:e}` prints the shortest round-trip digits, as Go's precision -1 does.
    split_e(&format!("{:e}", f.abs()))
}

/// [`shortest_digits`] for a float32: the fewest digits that read back as the same float32.
fn shortest_digits32(f: f32) -> (String, i32) {
    split_e(&format!("{:e}", f.abs()))
}

fn split_e(s: &str) -> (String, i32) {
    let (mantissa, exp) = s.split_once('e').unwrap_or((s, "0"));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    (digits, exp + 1)
}

fn fmt_e(neg: bool, digits: &str, dp: i32) -> String {
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    out.push_str(&digits[..1]);
    if digits.len() > 1 {
        out.push('.');
        out.push_str(&digits[1..]);
    }
    let exp = if digits == "0" { 0 } else { dp - 1 };
    out.push('e');
    out.push(if exp < 0 { '-' } else { '+' });
    let e = exp.unsigned_abs();
    if e < 10 {
        out.push('0');
    }
    out.push_str(&e.to_string());
    out
}

fn fmt_f(neg: bool, digits: &str, dp: i32) -> String {
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if dp <= 0 {
        out.push_str("0.");
        out.push_str(&"0".repeat((-dp) as usize));
        out.push_str(digits);
    } else if dp as usize >= digits.len() {
        out.push_str(digits);
        out.push_str(&"0".repeat(dp as usize - digits.len()));
    } else {
        out.push_str(&digits[..dp as usize]);
        out.push('.');
        out.push_str(&digits[dp as usize..]);
    }
    out
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)`, with YAML's `.inf`/`-.inf`/`.nan`.
pub fn format_g(f: f64) -> String {
    special(f).unwrap_or_else(|| {
        let (digits, dp) = shortest_digits(f);
        fmt_g(f < 0.0, &digits, dp)
    })
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 32)` (`f` rounded to a float32 first, then its
/// shortest digits), with YAML's `.inf`/`-.inf`/`.nan` as [`format_g`]. sigs.k8s.io/yaml's
/// `YAMLToJSON` writes a float mapping key so.
pub fn format_g32(f: f64) -> String {
    let f = f as f32;
    special(f64::from(f)).unwrap_or_else(|| {
        let (digits, dp) = shortest_digits32(f);
        fmt_g(f < 0.0, &digits, dp)
    })
}

/// The text of the values that have no digits: NaN, the infinities and the zeros.
fn special(f: f64) -> Option<String> {
    let text = if f.is_nan() {
        ".nan"
    } else if f.is_infinite() {
        if f > 0.0 {
            ".inf"
        } else {
            "-.inf"
        }
    } else if f == 0.0 {
        if f.is_sign_negative() {
            "-0"
        } else {
            "0"
        }
    } else {
        return None;
    };
    Some(text.to_string())
}

fn fmt_g(neg: bool, digits: &str, dp: i32) -> String {
    // With shortest precision Go switches to %e when the exponent is < -4 or >= 6.
    let exp = dp - 1;
    if !(-4..6).contains(&exp) {
        fmt_e(neg, digits, dp)
    } else {
        fmt_f(neg, digits, dp)
    }
}

/// Go's `encoding/json` text for a float64: `f` format for 1e-6 <= |f| < 1e21, else `e` with
/// the exponent's leading zero removed (`1e-07`→`1e-7`).
pub fn format_json(f: f64) -> String {
    let abs = f.abs();
    let neg = f.is_sign_negative() && f != 0.0;
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    let (digits, dp) = shortest_digits(f);
    if !(1e-6..1e21).contains(&abs) {
        let s = fmt_e(neg, &digits, dp);
        // e-07 → e-7
        let b = s.as_bytes();
        let n = b.len();
        if n >= 4 && b[n - 4] == b'e' && b[n - 3] == b'-' && b[n - 2] == b'0' {
            return format!("{}{}", &s[..n - 2], &s[n - 1..]);
        }
        return s;
    }
    fmt_f(neg, &digits, dp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_format_matches_go() {
        assert_eq!(format_g(1.0), "1");
        assert_eq!(format_g(0.5), "0.5");
        assert_eq!(format_g(1234567.5), "1.2345675e+06");
        assert_eq!(format_g(123456.0), "123456");
        assert_eq!(format_g(1e6), "1e+06");
        assert_eq!(format_g(0.000001), "1e-06");
        assert_eq!(format_g(0.0001), "0.0001");
        assert_eq!(format_g(-2.5e-5), "-2.5e-05");
        assert_eq!(format_g(1e21), "1e+21");
        assert_eq!(format_g(1.5e300), "1.5e+300");
        assert_eq!(format_g(f64::INFINITY), ".inf");
    }

    #[test]
    fn g_format_of_a_float32_matches_go() {
        assert_eq!(format_g32(1000.0), "1000");
        assert_eq!(format_g32(1.5), "1.5");
        assert_eq!(format_g32(0.1), "0.1");
        assert_eq!(format_g32(std::f64::consts::PI), "3.1415927");
        assert_eq!(format_g32(123456789.0), "1.2345679e+08");
        assert_eq!(format_g32(1e20), "1e+20");
        assert_eq!(format_g32(1e39), ".inf");
        assert_eq!(format_g32(-1e39), "-.inf");
        assert_eq!(format_g32(-0.0), "-0");
    }

    #[test]
    fn json_format_matches_go() {
        assert_eq!(format_json(1000.0), "1000");
        assert_eq!(format_json(1e20), "100000000000000000000");
        assert_eq!(format_json(1e21), "1e+21");
        assert_eq!(format_json(0.000001), "0.000001");
        assert_eq!(format_json(1e-7), "1e-7");
        assert_eq!(format_json(-1.5), "-1.5");
        assert_eq!(format_json(1234567.5), "1234567.5");
        assert_eq!(format_json(1.2e-10), "1.2e-10");
    }
}
