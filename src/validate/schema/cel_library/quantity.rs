//! The quantity library: `quantity()`, `isQuantity()` and the members of `kubernetes.Quantity`,
//! on a port of `resource.ParseQuantity` and `resource.Quantity`'s arithmetic.
//!
//! A quantity is exact: a decimal (an arbitrary-precision integer times a power of ten), so
//! comparisons never round. As in Go it is held in one of two forms, because the form decides
//! `isInteger`/`asInteger`: the small form (`int64Amount`, an `i64` and a scale) that short
//! numbers parse into and that arithmetic keeps while it does not overflow, and the big form
//! (`inf.Dec`) the rest takes; only a quantity of the small form with a scale of zero or more
//! that fits an `i64` converts to an integer.

use super::kubernetes_type;
use cel::common::types::{CelBool, CelDouble, CelInt, CelString};
use cel::{DeclarationError, Env, ExecutionError};
use num_bigint::{BigInt, Sign};
use std::cmp::Ordering;

/// `ErrFormatWrong`'s text.
const FORMAT_WRONG: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
/// `ErrNumeric`'s text.
const NUMERIC: &str = "unable to parse quantity's numeric value";
/// `ErrSuffix`'s text.
const SUFFIX: &str = "unable to parse quantity's suffix";

/// Exponents kdelta aligns when adding two quantities: past this, the sum's digits would be
/// too many to hold (the API server would work on, slowly); kdelta reports an error.
const MAX_ALIGN: u32 = 4096;

/// A `resource.Quantity`'s value.
#[derive(Clone, Debug)]
pub(super) enum Quantity {
    /// `int64Amount`: `value × 10^scale`.
    Small { value: i64, scale: i32 },
    /// `inf.Dec`: `unscaled × 10^scale`.
    Big { unscaled: BigInt, scale: i32 },
}

kubernetes_type!(Quantity, "kubernetes.Quantity");

impl PartialEq for Quantity {
    /// `Quantity.Equal`: equal values, whatever their form or suffix.
    fn eq(&self, other: &Quantity) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

/// True when `resource.ParseQuantity` accepts `s`.
pub fn is_quantity(s: &str) -> bool {
    Quantity::parse(s).is_ok()
}

#[derive(Clone, Copy, PartialEq)]
enum Format {
    DecimalExponent,
    DecimalSI,
    BinarySI,
}

/// `parseQuantityString`'s parts.
struct Parts<'a> {
    positive: bool,
    /// The number as written, sign included, suffix excluded.
    value: &'a str,
    num: &'a str,
    denom: &'a str,
    suffix: &'a str,
}

fn parse_parts(s: &str) -> Result<Parts<'_>, &'static str> {
    let b = s.as_bytes();
    let end = b.len();
    let mut pos = 0;
    let mut positive = true;
    match b.first() {
        Some(b'-') => {
            positive = false;
            pos += 1;
        }
        Some(b'+') => pos += 1,
        _ => {}
    }
    let zero = |value| Parts {
        positive,
        value,
        num: "0",
        denom: "",
        suffix: "",
    };
    while pos < end && b[pos] == b'0' {
        pos += 1;
    }
    if pos >= end {
        return Ok(zero(s));
    }
    let digits = |from: usize| from + b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let num_end = digits(pos);
    if num_end >= end {
        return Ok(Parts {
            num: &s[pos..],
            ..zero(s)
        });
    }
    let num = if num_end == pos {
        "0"
    } else {
        &s[pos..num_end]
    };
    pos = num_end;
    let mut denom = "";
    if b[pos] == b'.' {
        let denom_end = digits(pos + 1);
        denom = &s[pos + 1..denom_end];
        if denom_end >= end {
            return Ok(Parts {
                num,
                denom,
                ..zero(s)
            });
        }
        pos = denom_end;
    }
    let value = &s[..pos];
    let suffix_start = pos;
    while pos < end && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos < end && matches!(b[pos], b'+' | b'-') {
        pos += 1;
    }
    if digits(pos) < end {
        return Err(FORMAT_WRONG);
    }
    Ok(Parts {
        positive,
        value,
        num,
        denom,
        suffix: &s[suffix_start..],
    })
}

/// `quantitySuffixer.interpret`: the base, the exponent and the format of a suffix.
fn interpret(suffix: &str) -> Option<(u32, i32, Format)> {
    let binary = |e| Some((2, e, Format::BinarySI));
    let decimal = |e| Some((10, e, Format::DecimalSI));
    match suffix {
        "Ki" => binary(10),
        "Mi" => binary(20),
        "Gi" => binary(30),
        "Ti" => binary(40),
        "Pi" => binary(50),
        "Ei" => binary(60),
        "n" => decimal(-9),
        "u" => decimal(-6),
        "m" => decimal(-3),
        "" => decimal(0),
        "k" => decimal(3),
        "M" => decimal(6),
        "G" => decimal(9),
        "T" => decimal(12),
        "P" => decimal(15),
        "E" => decimal(18),
        _ if suffix.len() > 1 && suffix.starts_with(['e', 'E']) => {
            // strconv.ParseInt(s, 10, 32): a sign, then digits.
            let exp = &suffix[1..];
            let digits = exp.strip_prefix(['+', '-']).unwrap_or(exp);
            if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            exp.parse::<i32>()
                .ok()
                .map(|e| (10, e, Format::DecimalExponent))
        }
        _ => None,
    }
}

fn pow10(n: u32) -> BigInt {
    BigInt::from(10u32).pow(n)
}

/// The number of decimal digits of a non-zero magnitude.
fn digit_count(n: &BigInt) -> i64 {
    n.magnitude().to_string().len() as i64
}

impl Quantity {
    /// `resource.ParseQuantity`.
    pub(super) fn parse(s: &str) -> Result<Quantity, &'static str> {
        if s.is_empty() {
            return Err(FORMAT_WRONG);
        }
        if s == "0" {
            return Ok(Quantity::Small { value: 0, scale: 0 });
        }
        let p = parse_parts(s)?;
        let (base, exponent, format) = interpret(p.suffix).ok_or(SUFFIX)?;
        let digits = (p.num.len() + p.denom.len()) as i64;
        let (mut scale, precision, mantissa) = match format {
            Format::DecimalExponent | Format::DecimalSI => (i64::from(exponent), 18 - digits, 1),
            Format::BinarySI if p.denom.is_empty() => (
                0,
                15 - p.num.len() as i64 - (exponent as f32 * 3.0 / 10.0) as i64 - 1,
                1i64 << exponent,
            ),
            Format::BinarySI => (0, -1, 1),
        };
        if precision >= 0 {
            scale -= p.denom.len() as i64;
            if scale >= -9 {
                let shifted = format!("{}{}", p.num, p.denom);
                let value: i64 = shifted.parse().map_err(|_| NUMERIC)?;
                if let Some(v) = value.checked_mul(mantissa) {
                    let scale = i32::try_from(scale).map_err(|_| NUMERIC)?;
                    let value = if p.positive { v } else { -v };
                    return Ok(Quantity::Small { value, scale });
                }
            }
        }
        // inf.Dec's SetString on the number as written.
        if !p.value.bytes().any(|c| c.is_ascii_digit()) {
            return Err(NUMERIC);
        }
        let digits = format!("{}{}", p.num, p.denom);
        let mut unscaled = BigInt::parse_bytes(digits.as_bytes(), 10).ok_or(NUMERIC)?;
        let mut scale = -(p.denom.len() as i64);
        if base == 10 {
            scale += i64::from(exponent);
        } else {
            unscaled <<= exponent as usize;
        }
        // Round a non-zero value away from zero to a whole nano.
        if scale < -9 && unscaled.sign() != Sign::NoSign {
            let shift = -9 - scale;
            unscaled = if shift >= digit_count(&unscaled) {
                BigInt::from(1)
            } else {
                let d = pow10(shift as u32);
                let (q, r) = (&unscaled / &d, &unscaled % &d);
                if r.sign() == Sign::NoSign {
                    q
                } else {
                    q + 1
                }
            };
            scale = -9;
        }
        let scale = i32::try_from(scale).map_err(|_| SUFFIX)?;
        let mut q = Quantity::Big { unscaled, scale };
        // Binary quantities are capped at 2^63-1 (compared before the sign is applied).
        let cap = Quantity::Small {
            value: i64::MAX,
            scale: 0,
        };
        if format == Format::BinarySI && q.cmp(&cap) == Ordering::Greater {
            q = cap.to_big();
        }
        if !p.positive {
            q = q.negated();
        }
        Ok(q)
    }

    fn to_big(&self) -> Quantity {
        let (unscaled, scale) = self.exact();
        Quantity::Big {
            unscaled,
            scale: scale as i32,
        }
    }

    fn negated(self) -> Quantity {
        match self {
            Quantity::Big { unscaled, scale } => Quantity::Big {
                unscaled: -unscaled,
                scale,
            },
            small => small.to_big().negated(),
        }
    }

    /// The exact value: `unscaled × 10^scale`.
    fn exact(&self) -> (BigInt, i64) {
        match self {
            Quantity::Small { value, scale } => (BigInt::from(*value), i64::from(*scale)),
            Quantity::Big { unscaled, scale } => (unscaled.clone(), i64::from(*scale)),
        }
    }

    fn sign(&self) -> i64 {
        match self {
            Quantity::Small { value, .. } => value.signum(),
            Quantity::Big { unscaled, .. } => match unscaled.sign() {
                Sign::Minus => -1,
                Sign::NoSign => 0,
                Sign::Plus => 1,
            },
        }
    }

    /// `Quantity.Cmp`: exact, without materializing large powers of ten.
    fn cmp(&self, other: &Quantity) -> Ordering {
        let (a, sa) = self.exact();
        let (b, sb) = other.exact();
        let (sign_a, sign_b) = (self.sign(), other.sign());
        if sign_a != sign_b || sign_a == 0 {
            return sign_a.cmp(&sign_b);
        }
        // Same sign, both non-zero: the magnitudes' leading digits' positions first.
        let (ma, mb) = (digit_count(&a) + sa, digit_count(&b) + sb);
        let by_magnitude = if ma != mb {
            ma.cmp(&mb)
        } else {
            // The exponents differ by less than the digits, so aligning is cheap.
            let s = sa.min(sb);
            let a = BigInt::from(a.magnitude().clone()) * pow10((sa - s) as u32);
            let b = BigInt::from(b.magnitude().clone()) * pow10((sb - s) as u32);
            a.cmp(&b)
        };
        if sign_a < 0 {
            by_magnitude.reverse()
        } else {
            by_magnitude
        }
    }

    /// `Quantity.Add` (and `Sub`, with `negate`).
    fn add(&self, other: &Quantity, negate: bool) -> Result<Quantity, ExecutionError> {
        if let (
            Quantity::Small { value, scale },
            Quantity::Small {
                value: v2,
                scale: s2,
            },
        ) = (self, other)
        {
            let v2 = if negate { v2.checked_neg() } else { Some(*v2) };
            if let Some(sum) = v2.and_then(|v2| small_add(*value, *scale, v2, *s2)) {
                return Ok(sum);
            }
        }
        let (a, sa) = self.exact();
        let (mut b, sb) = other.exact();
        if negate {
            b = -b;
        }
        let s = sa.min(sb);
        if (sa - s).max(sb - s) > i64::from(MAX_ALIGN) {
            return Err(ExecutionError::function_error(
                if negate { "sub" } else { "add" },
                "quantities too far apart in magnitude for kdelta to add exactly",
            ));
        }
        let sum = a * pow10((sa - s) as u32) + b * pow10((sb - s) as u32);
        Ok(Quantity::Big {
            unscaled: sum,
            scale: s as i32,
        })
    }

    /// `AsInt64`: only the small form converts.
    fn as_int64(&self) -> Option<i64> {
        match self {
            Quantity::Small { value, scale: 0 } => Some(*value),
            Quantity::Small { value, scale } if *scale > 0 => {
                scale_up(*value, u32::try_from(*scale).ok()?)
            }
            _ => None,
        }
    }

    /// `AsApproximateFloat64`.
    fn as_approximate_float(&self) -> f64 {
        let (base, exponent) = match self {
            Quantity::Small { value, scale } => (*value as f64, *scale),
            Quantity::Big { unscaled, scale } => {
                (unscaled.to_string().parse().unwrap_or(f64::NAN), *scale)
            }
        };
        if exponent == 0 {
            return base;
        }
        // math.Pow10: 0 and +Inf out of range.
        let pow = format!("1e{exponent}").parse::<f64>().unwrap_or(f64::NAN);
        base * pow
    }
}

/// `value × 10^n`, when it fits.
fn scale_up(value: i64, n: u32) -> Option<i64> {
    10i64.checked_pow(n).and_then(|p| value.checked_mul(p))
}

/// `int64Amount.Add`: `None` on overflow.
fn small_add(a: i64, sa: i32, b: i64, sb: i32) -> Option<Quantity> {
    let q = |value, scale| Some(Quantity::Small { value, scale });
    match () {
        _ if b == 0 => q(a, sa),
        _ if a == 0 => q(b, sb),
        _ if sa == sb => q(a.checked_add(b)?, sa),
        _ if sa > sb => q(
            scale_up(a, u32::try_from(i64::from(sa) - i64::from(sb)).ok()?)?.checked_add(b)?,
            sb,
        ),
        _ => q(
            a.checked_add(scale_up(
                b,
                u32::try_from(i64::from(sb) - i64::from(sa)).ok()?,
            )?)?,
            sa,
        ),
    }
}

pub(super) fn extension(env: &mut Env) -> Result<(), DeclarationError> {
    cel::add_overload!(env, fn quantity: (CelString) -> Result<Quantity>)?;
    cel::add_overload!(env, fn is_quantity_string: (CelString) -> CelBool, name = "isQuantity")?;
    // The API server declares `sign` global: `sign(q)`, not `q.sign()`.
    cel::add_overload!(env, fn quantity_sign: (Quantity) -> CelInt, name = "sign")?;
    cel::add_member_overload!(env, fn is_integer: (Quantity) -> CelBool)?;
    cel::add_member_overload!(env, fn as_integer: (Quantity) -> Result<CelInt>)?;
    cel::add_member_overload!(env, fn as_approximate_float: (Quantity) -> CelDouble)?;
    cel::add_member_overload!(env, fn add: (Quantity, Quantity) -> Result<Quantity>)?;
    cel::add_member_overload!(env, fn add_int: (Quantity, CelInt) -> Result<Quantity>,
        name = "add")?;
    cel::add_member_overload!(env, fn sub: (Quantity, Quantity) -> Result<Quantity>)?;
    cel::add_member_overload!(env, fn sub_int: (Quantity, CelInt) -> Result<Quantity>,
        name = "sub")?;
    cel::add_member_overload!(env, fn is_greater_than: (Quantity, Quantity) -> CelBool)?;
    cel::add_member_overload!(env, fn is_less_than: (Quantity, Quantity) -> CelBool)?;
    cel::add_member_overload!(env, fn compare_to: (Quantity, Quantity) -> CelInt)?;
    Ok(())
}

fn quantity(s: &CelString<'_>) -> Result<Quantity, ExecutionError> {
    Quantity::parse(s.inner()).map_err(|e| ExecutionError::function_error("quantity", e))
}

fn is_quantity_string(s: &CelString<'_>) -> CelBool {
    CelBool::from(is_quantity(s.inner()))
}

fn quantity_sign(q: &Quantity) -> CelInt {
    CelInt::from(q.sign())
}

fn is_integer(q: &Quantity) -> CelBool {
    CelBool::from(q.as_int64().is_some())
}

fn as_integer(q: &Quantity) -> Result<CelInt, ExecutionError> {
    q.as_int64().map(CelInt::from).ok_or_else(|| {
        ExecutionError::function_error("asInteger", "cannot convert value to integer")
    })
}

fn as_approximate_float(q: &Quantity) -> CelDouble {
    CelDouble::from(q.as_approximate_float())
}

fn add(q: &Quantity, other: &Quantity) -> Result<Quantity, ExecutionError> {
    q.add(other, false)
}

fn add_int(q: &Quantity, n: &CelInt) -> Result<Quantity, ExecutionError> {
    q.add(
        &Quantity::Small {
            value: *n.inner(),
            scale: 0,
        },
        false,
    )
}

fn sub(q: &Quantity, other: &Quantity) -> Result<Quantity, ExecutionError> {
    q.add(other, true)
}

fn sub_int(q: &Quantity, n: &CelInt) -> Result<Quantity, ExecutionError> {
    q.add(
        &Quantity::Small {
            value: *n.inner(),
            scale: 0,
        },
        true,
    )
}

fn is_greater_than(q: &Quantity, other: &Quantity) -> CelBool {
    CelBool::from(q.cmp(other) == Ordering::Greater)
}

fn is_less_than(q: &Quantity, other: &Quantity) -> CelBool {
    CelBool::from(q.cmp(other) == Ordering::Less)
}

fn compare_to(q: &Quantity, other: &Quantity) -> CelInt {
    CelInt::from(q.cmp(other) as i64)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{assert_error, assert_true};
    use super::*;

    #[test]
    fn kubernetes_examples() {
        // quantity_test.go's table and the library's documented examples.
        assert_true(&[
            "isQuantity('20') && isQuantity('20M') && isQuantity('20Mi') && !isQuantity('20Mo') && !isQuantity('10Mm')",
            "isQuantity('1.3G') && isQuantity('1.3Gi') && !isQuantity('1,3G') && isQuantity('10000k') && !isQuantity('200K') && !isQuantity('Three')",
            "quantity('200M') == quantity('200M')",
            "quantity('200M') == quantity('0.2G') && quantity('0.2G') == quantity('200M')",
            "quantity('2M') == quantity('0.002G') && quantity('2000k') == quantity('2M') && quantity('0.002G') == quantity('2000k')",
            "quantity('200M') != quantity('0.3G')",
            "quantity('50M').isLessThan(quantity('50Mi'))",
            "quantity('50M').isLessThan(quantity('100M'))",
            "!quantity('100M').isLessThan(quantity('50M'))",
            "quantity('50Mi').isGreaterThan(quantity('50M'))",
            "quantity('150Mi').isGreaterThan(quantity('100Mi'))",
            "!quantity('50M').isGreaterThan(quantity('100M'))",
            "quantity('200M').compareTo(quantity('0.2G')) == 0",
            "quantity('50M').compareTo(quantity('50Mi')) == -1",
            "quantity('50Mi').compareTo(quantity('50M')) == 1",
            "quantity('50k').add(quantity('20')) == quantity('50.02k')",
            "!quantity('50k').add(20).isLessThan(quantity('50020'))",
            "quantity('50k').sub(quantity('20')) == quantity('49.98k')",
            "quantity('50k').sub(20) == quantity('49980')",
            "quantity('50k').add(20).sub(quantity('100k')).asInteger() == -49980",
            "quantity('50k').add(20).sub(quantity('100k')).sub(-50000).asInteger() == 20",
            "quantity('50k').add(20).sub(quantity('100k')).sub(-50000) == quantity('20')",
            "quantity('50k').asInteger() == 50000",
            "!quantity('9999999999999999999999999999999999999G').isInteger()",
            "quantity('50').isInteger() && quantity('50000000G').isInteger() && quantity('50k').isInteger()",
            "quantity('50.703k').asApproximateFloat() == 50703.0",
            "quantity('50k').sub(20000).asApproximateFloat() == 30000.0",
            "[quantity('9999999999999999999999999999999999999')].all(x, x.add(quantity('1')).compareTo(x.add(quantity('2'))) == -1)",
            "sign(quantity('-1m')) == -1 && sign(quantity('0')) == 0 && sign(quantity('3Ki')) == 1",
        ]);
        assert_error(&[
            (
                "quantity('10Mo')",
                "quantities must match the regular expression",
            ),
            ("quantity('10Mm')", "unable to parse quantity's suffix"),
            ("quantity('200K')", "unable to parse quantity's suffix"),
            (
                "quantity('9999999999999999999999999999999999999G').asInteger()",
                "cannot convert value to integer",
            ),
            ("isQuantity([1, 2, 3])", "isQuantity"),
        ]);
    }

    #[test]
    fn exact_comparisons_and_forms() {
        assert_true(&[
            // Exponents, fractions below a nano (rounded up), huge and tiny values.
            "quantity('1e3') == quantity('1k') && quantity('1E-3') == quantity('1m')",
            "quantity('0.5n') == quantity('1n') && quantity('-0.5n') == quantity('-1n')",
            "quantity('1e100').isGreaterThan(quantity('9999999999999999999999999E75'))",
            "quantity('1e2000000000').isGreaterThan(quantity('1e1999999999'))",
            "quantity('-1e30').isLessThan(quantity('-1e29')) && quantity('-1').isLessThan(quantity('1n'))",
            "quantity('1Ki') == quantity('1024') && quantity('1.5Gi') == quantity('1536Mi')",
            // A fractional binary quantity takes the big form: not an integer in Go either.
            "!quantity('1.5Gi').isInteger() && quantity('1Gi').asInteger() == 1073741824",
            "!quantity('500m').isInteger() && quantity('0.5').asApproximateFloat() == 0.5",
            // Binary quantities are capped at 2^63-1, decimal ones are not.
            "quantity('16Ei') == quantity('9223372036854775807') && quantity('16E').isGreaterThan(quantity('16Ei'))",
            // Overflowing the small form moves to the big one, exactly.
            "quantity('9223372036854775807').add(1) == quantity('9223372036854775808') && !quantity('9223372036854775807').add(1).isInteger()",
        ]);
        for ok in [
            "0", "+1", "-1", ".5", "5.", "1.G", ".", "Gi", ".Ki", "-.5Ki",
        ] {
            assert!(is_quantity(ok), "{ok}");
        }
        for bad in [
            "", "1GB", "1gi", "1.2.3", "1e", "one", "1 Gi", " 1", "1Ki1", "1ee3",
        ] {
            assert!(!is_quantity(bad), "{bad}");
        }
    }
}
