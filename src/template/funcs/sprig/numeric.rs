//! sprig's `numeric.go`: conversions (cast's `ToInt64`, `ToFloat64`), integer math, float math
//! on decimals as shopspring/decimal computes it, and `until`, `untilStep`, `seq`.

use super::strings::strval;
use super::{int, s, A, I, S};
use crate::template::value::{ListType, Value};
use crate::template::{FuncDef, FuncError, Param};
use num_bigint::BigInt;

/// The conversion and math functions.
pub(super) const FUNCS: &[FuncDef] = &[
    // Conversions.
    // `strconv.Atoi` with its error dropped: 0 for what is no number, the nearest int for
    // one out of range (Go returns the clamped value with ErrRange).
    FuncDef::new("atoi", &[S], |_, a| {
        let text = s(a, 0);
        Ok(Value::Int(match crate::go::strconv::atoi(text) {
            Ok(i) => i,
            Err(e) if e.out_of_range && text.starts_with('-') => i64::MIN,
            Err(e) if e.out_of_range => i64::MAX,
            Err(_) => 0,
        }))
    }),
    FuncDef::new("int", &[A], |_, a| Ok(Value::Int(to_int64(&a[0])))),
    FuncDef::new("int64", &[A], |_, a| Ok(Value::Int64(to_int64(&a[0])))),
    FuncDef::new("float64", &[A], |_, a| Ok(Value::Float(to_float64(&a[0])))),
    FuncDef::new("toDecimal", &[A], |_, a| {
        Ok(Value::Int64(
            i64::from_str_radix(&strval(&a[0]), 8).unwrap_or(0),
        ))
    }),
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
    // Float math, on decimals as sprig computes it (0.1 + 0.2 is 0.3).
    FuncDef::variadic("addf", &[], A, |_, a| {
        decimal_fold(&Value::Float(0.0), a, |x, y| Ok(x.add(y)))
    }),
    FuncDef::new("add1f", &[A], |_, a| {
        decimal_fold(&a[0], &[Value::Float(1.0)], |x, y| Ok(x.add(y)))
    }),
    FuncDef::variadic("subf", &[A], A, |_, a| {
        decimal_fold(&a[0], &a[1..], |x, y| Ok(x.sub(y)))
    }),
    FuncDef::variadic("mulf", &[A], A, |_, a| {
        decimal_fold(&a[0], &a[1..], |x, y| Ok(x.mul(y)))
    }),
    FuncDef::variadic("divf", &[A], A, |_, a| {
        decimal_fold(&a[0], &a[1..], |x, y| {
            if y.coef == BigInt::ZERO {
                return Err(FuncError::Call("decimal division by 0".into()));
            }
            Ok(x.div(y))
        })
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
];

/// cast.ToInt64: numbers truncated, strings parsed (Go's base prefixes), bools 0/1, else 0.
pub fn to_int64(v: &Value) -> i64 {
    match v {
        Value::Int(i) | Value::Int64(i) => *i,
        Value::Uint64(u) => *u as i64,
        Value::Uint8(b) => i64::from(*b),
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
        v => cast_named_int(v).unwrap_or(0),
    }
}

/// cast's `toInt`, which takes the two named integer types it knows (not `time.Duration`).
fn cast_named_int(v: &Value) -> Option<i64> {
    match v {
        Value::Object(o) if matches!(o.0.type_name(), "time.Month" | "time.Weekday") => o.0.int(),
        _ => None,
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
        Value::Uint8(b) => f64::from(*b),
        Value::Float(f) => *f,
        Value::Bool(b) => f64::from(u8::from(*b)),
        // cast: strconv.ParseFloat, and 0 on any error (out of range too).
        Value::String(s) => crate::go::strconv::parse_float(s).unwrap_or(0.0),
        v => cast_named_int(v).map_or(0.0, |i| i as f64),
    }
}

/// A decimal number, as shopspring/decimal computes sprig's float math: `coef × 10^exp`,
/// the coefficient a big integer (1e308 + 1 is exact there).
#[derive(Clone, Debug)]
struct Decimal {
    coef: BigInt,
    exp: i32,
}

impl Decimal {
    fn zero() -> Decimal {
        Decimal {
            coef: BigInt::ZERO,
            exp: 0,
        }
    }

    /// The float's shortest decimal form (decimal.NewFromFloat, which panics on NaN and
    /// infinities).
    fn of(f: f64) -> Result<Decimal, FuncError> {
        if !f.is_finite() {
            let shown = if f.is_nan() {
                "NaN"
            } else if f > 0.0 {
                "+Inf"
            } else {
                "-Inf"
            };
            return Err(FuncError::Call(format!(
                "Cannot create a Decimal from {shown}"
            )));
        }
        if f == 0.0 {
            return Ok(Decimal::zero());
        }
        let text = format!("{:e}", f);
        let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        Ok(Decimal {
            coef: format!("{int}{frac}").parse().unwrap_or_default(),
            exp: exp - frac.len() as i32,
        })
    }

    /// Both coefficients at the smaller exponent.
    fn align(self, other: Decimal) -> (BigInt, BigInt, i32) {
        let exp = self.exp.min(other.exp);
        let scale = |d: Decimal| d.coef * BigInt::from(10u8).pow((d.exp - exp) as u32);
        (scale(self), scale(other), exp)
    }

    fn add(self, other: Decimal) -> Decimal {
        let (a, b, exp) = self.align(other);
        Decimal { coef: a + b, exp }
    }

    fn sub(self, other: Decimal) -> Decimal {
        let (a, b, exp) = self.align(other);
        Decimal { coef: a - b, exp }
    }

    fn mul(self, other: Decimal) -> Decimal {
        Decimal {
            coef: self.coef * other.coef,
            exp: self.exp + other.exp,
        }
    }

    /// Division rounded to 16 decimal places, half away from zero (decimal's
    /// DivisionPrecision).
    fn div(self, other: Decimal) -> Decimal {
        const PLACES: i32 = 16;
        // a×10^ea / (b×10^eb) with one digit more than PLACES, then rounded on that digit
        // (the quotient truncates toward zero, so a dropped remainder never makes a tie).
        let shift = PLACES + 1 + (self.exp - other.exp);
        let ten = |n: i32| BigInt::from(10u8).pow(n.unsigned_abs());
        let (num, den) = if shift >= 0 {
            (self.coef * ten(shift), other.coef)
        } else {
            (self.coef, other.coef * ten(shift))
        };
        let q = num / den;
        let digit = &q % 10;
        let q = q / 10;
        let coef = if digit >= BigInt::from(5) {
            q + 1
        } else if digit <= BigInt::from(-5) {
            q - 1
        } else {
            q
        };
        Decimal { coef, exp: -PLACES }
    }

    /// decimal.InexactFloat64: the nearest float (±Inf beyond the range).
    fn to_f64(&self) -> f64 {
        format!("{}e{}", self.coef, self.exp).parse().unwrap_or(0.0)
    }
}

/// sprig's `execDecimalOp`: `first` and then each of `rest` made decimals in turn (a NaN or
/// infinity is NewFromFloat's panic where it comes) and folded with `op`.
fn decimal_fold(
    first: &Value,
    rest: &[Value],
    op: fn(Decimal, Decimal) -> Result<Decimal, FuncError>,
) -> Result<Value, FuncError> {
    let mut acc = Decimal::of(to_float64(first))?;
    for v in rest {
        acc = op(acc, Decimal::of(to_float64(v))?)?;
    }
    Ok(Value::Float(acc.to_f64()))
}

fn round(x: f64, precision: i64, round_on: f64) -> f64 {
    // math.Pow10: +Inf past 308, 0 below -323 (then 0 × Inf is NaN, as in Go).
    let pow = match precision {
        309.. => f64::INFINITY,
        ..=-324 => 0.0,
        n => format!("1e{n}").parse().unwrap_or(0.0),
    };
    let digit = pow * x;
    // math.Modf's fractional part, then Ceil or Floor (so -2.5 rounds to -3).
    let rounded = if digit.fract() >= round_on {
        digit.ceil()
    } else {
        digit.floor()
    };
    rounded / pow
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
