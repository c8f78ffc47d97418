//! Numbers as gojsonschema sees them: a `json.Number` (the literal text) read as a `big.Rat`
//! for every comparison, `multipleOf` and the integer test, printed back as the `big.Float`
//! its messages hold.

use num_bigint::{BigInt, Sign};
use std::cmp::Ordering;

/// Go's `big.Rat.SetString` refuses a decimal exponent beyond this (math/big's guard against
/// huge allocations), and gojsonschema then has no number.
const MAX_EXPONENT: i64 = 1_000_000;

/// A JSON number: its text and, when `big.Rat` reads it, its exact value.
#[derive(Clone, Debug, PartialEq)]
pub struct Number {
    text: Box<str>,
    value: Option<Decimal>,
}

/// `mantissa × 10^exponent`, the mantissa without trailing zeros (zero has exponent 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decimal {
    mantissa: BigInt,
    exponent: i64,
}

impl Number {
    /// A number from its JSON text (the decoder has checked the syntax).
    pub fn from_json(text: &str) -> Number {
        Number {
            value: Decimal::parse(text),
            text: text.into(),
        }
    }

    /// The literal text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The exact value; `None` when `big.Rat` refuses the text.
    pub fn value(&self) -> Option<&Decimal> {
        self.value.as_ref()
    }

    /// `checkJSONInteger`: a whole number, however written (`1.0`, `1e3`).
    pub fn is_integer(&self) -> bool {
        self.value.as_ref().is_some_and(Decimal::is_integer)
    }

    /// `mustBeInteger`: whole, and written as an `int64` (`json.Number.Int64`).
    pub fn as_int(&self) -> Option<i64> {
        if !self.is_integer() {
            return None;
        }
        self.text.parse().ok()
    }

    /// `json.Unmarshal` of the text into a `float64`, as gojsonschema's `marshalWithoutNumber`
    /// reads it; `None` when it overflows (Go's `ErrRange`).
    pub fn as_f64(&self) -> Option<f64> {
        self.text.parse::<f64>().ok().filter(|f| f.is_finite())
    }
}

impl Decimal {
    /// `big.Rat.SetString` on a JSON number's text.
    fn parse(text: &str) -> Option<Decimal> {
        let (mantissa_text, exp_text) = match text.find(['e', 'E']) {
            Some(i) => (&text[..i], Some(&text[i + 1..])),
            None => (text, None),
        };
        let mut exponent: i64 = match exp_text {
            Some(e) => {
                let digits = e.trim_start_matches(['+', '-']);
                // Beyond the guard whatever its length: an exponent of more digits than an
                // i64 holds is refused all the same.
                let magnitude: i64 = if digits.len() > 12 {
                    MAX_EXPONENT * 10
                } else {
                    digits.parse().ok()?
                };
                if e.starts_with('-') {
                    -magnitude
                } else {
                    magnitude
                }
            }
            None => 0,
        };
        let (int_part, frac_part) = match mantissa_text.split_once('.') {
            Some((i, f)) => (i, f),
            None => (mantissa_text, ""),
        };
        exponent -= frac_part.len() as i64;
        if exponent.abs() > MAX_EXPONENT {
            return None;
        }
        let digits = format!("{int_part}{frac_part}");
        let mut mantissa: BigInt = digits.parse().ok()?;
        if mantissa.sign() == Sign::NoSign {
            return Some(Decimal {
                mantissa,
                exponent: 0,
            });
        }
        let ten = BigInt::from(10u8);
        while (&mantissa % &ten).sign() == Sign::NoSign {
            mantissa /= &ten;
            exponent += 1;
        }
        Some(Decimal { mantissa, exponent })
    }

    fn is_integer(&self) -> bool {
        self.exponent >= 0
    }

    /// How many digits the mantissa has.
    fn digits(&self) -> i64 {
        self.mantissa.magnitude().to_string().len() as i64
    }

    /// Whether `self / divisor` is a whole number (`big.Rat.Quo(...).IsInt()`); the divisor
    /// is not zero (the parser refuses `multipleOf: 0`).
    pub fn is_multiple_of(&self, divisor: &Decimal) -> bool {
        if self.mantissa.sign() == Sign::NoSign {
            return true;
        }
        let shift = self.exponent - divisor.exponent;
        if shift >= 0 {
            let scaled = &self.mantissa * pow10(shift);
            (scaled % &divisor.mantissa).sign() == Sign::NoSign
        } else {
            // A divisor with more decimals than the value divides it only if the value's
            // mantissa holds the divisor's scaled up; that needs at least as many digits.
            if self.digits() < divisor.digits() - shift {
                return false;
            }
            let scaled = &divisor.mantissa * pow10(-shift);
            (&self.mantissa % scaled).sign() == Sign::NoSign
        }
    }

    /// The value as gojsonschema prints a limit: `new(big.Float).SetRat(r)` with `%v`, the
    /// shortest text at a precision of at least 64 bits, `%g`-style with Go's exponent
    /// threshold of 6 for shortest output.
    pub fn go_text(&self) -> String {
        if self.mantissa.sign() == Sign::NoSign {
            return "0".to_string();
        }
        let mut digits = self.mantissa.magnitude().to_string();
        let mut exponent = self.exponent;
        // 64 bits tell apart every decimal of up to 19 digits; a longer one is shown as the
        // float rounds it (to 19 digits here, a close approximation of Go's binary rounding).
        if digits.len() > 19 {
            let cut = digits.len() - 19;
            let round_up = digits.as_bytes()[19] >= b'5';
            let mut kept: BigInt = digits[..19].parse().unwrap_or_default();
            if round_up {
                kept += 1;
            }
            exponent += cut as i64;
            digits = kept.to_string();
            let trimmed = digits.trim_end_matches('0');
            exponent += (digits.len() - trimmed.len()) as i64;
            digits = trimmed.to_string();
        }
        let neg = self.mantissa.sign() == Sign::Minus;
        // The decimal exponent of the first digit.
        let x = exponent + digits.len() as i64 - 1;
        let mut out = String::new();
        if neg {
            out.push('-');
        }
        if !(-4..6).contains(&x) {
            out.push_str(&digits[..1]);
            if digits.len() > 1 {
                out.push('.');
                out.push_str(&digits[1..]);
            }
            out.push('e');
            out.push(if x < 0 { '-' } else { '+' });
            out.push_str(&format!("{:02}", x.abs()));
        } else if exponent >= 0 {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', exponent as usize));
        } else if x >= 0 {
            let point = (x + 1) as usize;
            out.push_str(&digits[..point]);
            out.push('.');
            out.push_str(&digits[point..]);
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-x - 1) as usize));
            out.push_str(&digits);
        }
        out
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Decimal) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Decimal) -> Ordering {
        let (a, b) = (self.mantissa.sign(), other.mantissa.sign());
        if a != b || a == Sign::NoSign {
            return a.cmp(&b);
        }
        // Same sign, neither zero: compare magnitudes by their leading digit's place first.
        let magnitude = (self.exponent + self.digits()).cmp(&(other.exponent + other.digits()));
        let by_magnitude = if magnitude != Ordering::Equal {
            magnitude
        } else {
            let shift = self.exponent - other.exponent;
            let (x, y) = if shift >= 0 {
                (
                    self.mantissa.magnitude() * pow10(shift).magnitude(),
                    other.mantissa.magnitude().clone(),
                )
            } else {
                (
                    self.mantissa.magnitude().clone(),
                    other.mantissa.magnitude() * pow10(-shift).magnitude(),
                )
            };
            x.cmp(&y)
        };
        if a == Sign::Minus {
            by_magnitude.reverse()
        } else {
            by_magnitude
        }
    }
}

/// `10^n`; `n` is at most twice [`MAX_EXPONENT`] plus a mantissa's length.
fn pow10(n: i64) -> BigInt {
    BigInt::from(10u8).pow(u32::try_from(n.max(0)).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        Number::from_json(s).value.unwrap()
    }

    #[test]
    fn integers_are_whole_numbers_however_written() {
        for s in ["1", "1.0", "1e3", "1.5e1", "-0", "100000000000000000000000"] {
            assert!(Number::from_json(s).is_integer(), "{s}");
        }
        for s in ["1.5", "1e-1", "0.001"] {
            assert!(!Number::from_json(s).is_integer(), "{s}");
        }
        assert_eq!(Number::from_json("12").as_int(), Some(12));
        assert_eq!(Number::from_json("1.0").as_int(), None);
        assert_eq!(Number::from_json("1e2").as_int(), None);
        assert!(Number::from_json("1e1000001").value().is_none());
    }

    #[test]
    fn comparisons_and_multiples_are_exact() {
        assert!(d("0.3").is_multiple_of(&d("0.1")));
        assert!(!d("0.35").is_multiple_of(&d("0.1")));
        assert!(d("10").is_multiple_of(&d("2.5")));
        assert!(!d("1").is_multiple_of(&d("0.3")));
        assert!(d("0").is_multiple_of(&d("7")));
        assert!(d("1.5") > d("1.25"));
        assert!(d("-2") < d("-1.5"));
        assert!(d("1e3") == d("1000.0"));
        assert!(d("100") > d("99.999"));
    }

    #[test]
    fn limits_print_as_big_float_does() {
        for (s, want) in [
            ("65535", "65535"),
            ("1000000", "1e+06"),
            ("1234567", "1.234567e+06"),
            ("0.25", "0.25"),
            ("0.0001", "0.0001"),
            ("0.00001", "1e-05"),
            ("-3.50", "-3.5"),
            ("0", "0"),
            ("1e30", "1e+30"),
        ] {
            assert_eq!(d(s).go_text(), want, "{s}");
        }
    }
}
