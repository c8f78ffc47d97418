//! Go's `time.Duration`: `time.ParseDuration` (sprig's `dateModify`), `Duration.String`
//! (`duration`, `ago`), sprig's `durationRound`, and the value `Time.Sub` gives, with its
//! methods.

use super::super::value::{MethodSig, Object, ObjectRef, Value};
use super::super::Param;
use super::dates::{time_of, time_quote};
use std::sync::Arc;

/// A `time.Duration`: nanoseconds, printed as Go's `Duration.String`.
#[derive(Debug)]
pub struct Duration(pub i64);

impl Duration {
    pub fn value(self) -> Value {
        Value::Object(ObjectRef(Arc::new(self)))
    }

    /// `Duration.Round(m)`: halves away from zero, saturating at the range's ends.
    fn round(&self, m: i64) -> i64 {
        let d = self.0;
        if m <= 0 {
            return d;
        }
        let r = (d % m).abs();
        let less_than_half = (r as u64).wrapping_add(r as u64) < m as u64;
        if d < 0 {
            if less_than_half {
                return d + r;
            }
            d.checked_sub(m - r).unwrap_or(i64::MIN)
        } else {
            if less_than_half {
                return d - r;
            }
            d.checked_add(m - r).unwrap_or(i64::MAX)
        }
    }

    /// Whole `unit`s and the rest as a fraction (`Hours`, `Minutes`, `Seconds`).
    fn float_of(&self, unit: i64) -> f64 {
        (self.0 / unit) as f64 + (self.0 % unit) as f64 / unit as f64
    }
}

impl Object for Duration {
    fn type_name(&self) -> &'static str {
        "time.Duration"
    }

    fn kind_name(&self) -> &'static str {
        "int64"
    }

    fn int(&self) -> Option<i64> {
        Some(self.0)
    }

    fn text(&self) -> String {
        duration_string(self.0)
    }

    fn signature(&self, method: &str) -> Option<MethodSig> {
        Some(MethodSig::Params(match method {
            "String" | "Hours" | "Minutes" | "Seconds" | "Milliseconds" | "Microseconds"
            | "Nanoseconds" | "Abs" => &[],
            "Round" | "Truncate" => &[Param::NamedInt("time.Duration")],
            _ => return None,
        }))
    }

    fn call(&self, method: &str, args: &[Value]) -> Option<Result<Value, String>> {
        let d = self.0;
        let m = || args.first().map_or(0, nanos_of);
        Some(Ok(match method {
            "String" => Value::str(duration_string(d)),
            "Hours" => Value::Float(self.float_of(3_600_000_000_000)),
            "Minutes" => Value::Float(self.float_of(60_000_000_000)),
            "Seconds" => Value::Float(self.float_of(1_000_000_000)),
            "Milliseconds" => Value::Int64(d / 1_000_000),
            "Microseconds" => Value::Int64(d / 1_000),
            "Nanoseconds" => Value::Int64(d),
            // The most negative duration has no opposite: Go gives the most positive.
            "Abs" => Duration(d.checked_abs().unwrap_or(i64::MAX)).value(),
            "Round" => Duration(self.round(m())).value(),
            "Truncate" => {
                let m = m();
                Duration(if m <= 0 { d } else { d - d % m }).value()
            }
            _ => return None,
        }))
    }
}

/// The nanoseconds of an argument for a `time.Duration` parameter (a literal comes as an
/// `Int`, as the executor types it).
pub(super) fn nanos_of(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        other => other.as_object::<Duration>().map_or(0, |d| d.0),
    }
}

/// time.ParseDuration, in nanoseconds.
pub fn parse_duration(s: &str) -> Result<i64, String> {
    const LIMIT: u64 = 1 << 63;
    let bad = || format!("time: invalid duration {}", time_quote(s));
    let (neg, mut rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(bad());
    }
    let mut total: u64 = 0;
    while !rest.is_empty() {
        if !rest.starts_with(|c: char| c == '.' || c.is_ascii_digit()) {
            return Err(bad());
        }
        // Go's `leadingInt`: the whole part, an error beyond 2^63.
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let mut whole: u64 = 0;
        for b in rest[..digits].bytes() {
            if whole > LIMIT / 10 {
                return Err(bad());
            }
            whole = whole * 10 + u64::from(b - b'0');
            if whole > LIMIT {
                return Err(bad());
            }
        }
        rest = &rest[digits..];
        // `leadingFraction`: digits past what fits are read and dropped.
        let (mut fraction, mut scale) = (0u64, 1f64);
        if let Some(after) = rest.strip_prefix('.') {
            let fraction_digits = after.bytes().take_while(u8::is_ascii_digit).count();
            let mut overflow = false;
            for b in after[..fraction_digits].bytes() {
                if overflow || fraction > (LIMIT - 1) / 10 {
                    overflow = true;
                    continue;
                }
                let next = fraction * 10 + u64::from(b - b'0');
                if next > LIMIT {
                    overflow = true;
                    continue;
                }
                fraction = next;
                scale *= 10.0;
            }
            rest = &after[fraction_digits..];
            if digits == 0 && fraction_digits == 0 {
                return Err(bad());
            }
        }
        let u = rest
            .bytes()
            .take_while(|b| !(b.is_ascii_digit() || *b == b'.'))
            .count();
        if u == 0 {
            return Err(format!("time: missing unit in duration {}", time_quote(s)));
        }
        let unit: u64 = match &rest[..u] {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            other => {
                return Err(format!(
                    "time: unknown unit {} in duration {}",
                    time_quote(other),
                    time_quote(s)
                ))
            }
        };
        rest = &rest[u..];
        if whole > LIMIT / unit {
            return Err(bad());
        }
        let mut v = whole * unit;
        if fraction > 0 {
            // Go adds the fraction through float64 (nanosecond-exact for hours).
            v += (fraction as f64 * (unit as f64 / scale)) as u64;
            if v > LIMIT {
                return Err(bad());
            }
        }
        // Go's uint64 sum wraps (two terms of 2^63 make 0) rather than failing.
        total = total.wrapping_add(v);
        if total > LIMIT {
            return Err(bad());
        }
    }
    if neg {
        return Ok((total as i64).wrapping_neg());
    }
    i64::try_from(total).map_err(|_| bad())
}

/// Go's `Duration.String` for nanoseconds.
pub fn duration_string(ns: i64) -> String {
    if ns == 0 {
        return "0s".into();
    }
    let neg = ns < 0;
    let u = ns.unsigned_abs();
    let mut out = String::new();
    if u < 1_000_000_000 {
        let (v, unit) = if u < 1_000 {
            (u as f64, "ns")
        } else if u < 1_000_000 {
            (u as f64 / 1e3, "µs")
        } else {
            (u as f64 / 1e6, "ms")
        };
        out.push_str(&format!(
            "{}{unit}",
            super::super::fmt::format_float_shortest(v)
        ));
    } else {
        let h = u / 3_600_000_000_000;
        let m = u / 60_000_000_000 % 60;
        let s = (u % 60_000_000_000) as f64 / 1e9;
        if h > 0 {
            out.push_str(&format!("{h}h"));
        }
        if h > 0 || m > 0 {
            out.push_str(&format!("{m}m"));
        }
        out.push_str(&format!("{}s", super::super::fmt::format_float_shortest(s)));
    }
    if neg {
        format!("-{out}")
    } else {
        out
    }
}

/// sprig's `durationRound`: of a duration written as text or held in an int64, or the
/// time since a time (a `time.Duration` is neither: zero).
pub fn duration_round(v: &Value) -> String {
    let d: i64 = match v {
        Value::String(s) => parse_duration(s).unwrap_or(0),
        Value::Int64(i) => *i,
        Value::Object(_) if v.as_object::<super::dates::Time>().is_some() => {
            let now = time_of(&Value::Nil);
            now.sub(&time_of(v))
        }
        _ => 0,
    };
    let u = d.unsigned_abs();
    let (second, minute, hour) = (1_000_000_000u64, 60_000_000_000u64, 3_600_000_000_000u64);
    let (day, month, year) = (hour * 24, hour * 24 * 30, hour * 24 * 365);
    let out = if u > year {
        format!("{}y", u / year)
    } else if u > month {
        format!("{}mo", u / month)
    } else if u > day {
        format!("{}d", u / day)
    } else if u > hour {
        format!("{}h", u / hour)
    } else if u > minute {
        format!("{}m", u / minute)
    } else if u > second {
        format!("{}s", u / second)
    } else {
        return "0s".into();
    };
    if d < 0 {
        format!("-{out}")
    } else {
        out
    }
}
