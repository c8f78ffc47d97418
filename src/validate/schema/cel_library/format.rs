//! The format library: `format.named(name)`, `format.<name>()` and `<Format>.validate(s)`,
//! which gives `optional.none()` for a valid string and else the optional list of the API
//! server's errors. The name rules are `names.rs`'s, the API server's own.

use super::super::formats::{is_base64, is_date_time};
use super::super::names::{self, NameRule};
use super::{kubernetes_type, string_list};
use cel::common::types::{CelOptional, CelString};
use cel::{DeclarationError, Env};

/// The named formats, by the name `format.named` takes.
const FORMATS: &[&str] = &[
    "dns1123Label",
    "dns1123Subdomain",
    "dns1035Label",
    "qualifiedName",
    "dns1123LabelPrefix",
    "dns1123SubdomainPrefix",
    "dns1035LabelPrefix",
    "labelValue",
    "uri",
    "uuid",
    "byte",
    "date",
    "datetime",
];

/// A `kubernetes.NamedFormat` value: one of [`FORMATS`].
#[derive(Clone, Debug, PartialEq)]
pub(super) struct NamedFormat(&'static str);

kubernetes_type!(NamedFormat, "kubernetes.NamedFormat");

impl NamedFormat {
    /// The errors for `s`, empty when it is valid.
    fn validate(&self, s: &str) -> Vec<String> {
        let rule = |r: NameRule, prefix| r.check(s, prefix);
        let one = |ok: bool, e: &str| if ok { vec![] } else { vec![e.to_string()] };
        match self.0 {
            "dns1123Label" => rule(NameRule::Dns1123Label, false),
            "dns1123Subdomain" => rule(NameRule::Dns1123Subdomain, false),
            "dns1035Label" => rule(NameRule::Dns1035Label, false),
            "dns1123LabelPrefix" => rule(NameRule::Dns1123Label, true),
            "dns1123SubdomainPrefix" => rule(NameRule::Dns1123Subdomain, true),
            "dns1035LabelPrefix" => rule(NameRule::Dns1035Label, true),
            "qualifiedName" => names::qualified_name(s),
            "labelValue" => names::label_value(s),
            "uri" => super::url::validate_uri(s),
            "uuid" => one(is_uuid(s), "does not match the UUID format"),
            "byte" => one(is_base64(s), "invalid base64"),
            "date" => one(is_date(s), "invalid date"),
            // strfmt's date-time takes a few more layouts than RFC 3339; kdelta takes RFC 3339.
            _ => one(!s.is_empty() && is_date_time(s), "invalid datetime"),
        }
    }
}

/// strfmt's UUID: 32 hex digits, dashed 8-4-4-4-12 or not at all, any case.
fn is_uuid(s: &str) -> bool {
    let hex = |p: &str| p.bytes().all(|c| c.is_ascii_hexdigit());
    if s.len() == 32 {
        return hex(s);
    }
    let parts: Vec<&str> = s.split('-').collect();
    parts.iter().map(|p| p.len()).eq([8, 4, 4, 4, 12]) && parts.iter().all(|p| hex(p))
}

/// `time.Parse("2006-01-02", s)`: a real calendar day.
fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: std::ops::Range<usize>| s[r].parse::<u32>().ok();
    let (Some(y), Some(m), Some(d)) = (num(0..4), num(5..7), num(8..10)) else {
        return false;
    };
    if !b
        .iter()
        .enumerate()
        .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
    {
        return false;
    }
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

// The constructors are named as CEL spells them.
#[allow(non_snake_case)]
pub(super) fn extension(env: &mut Env) -> Result<(), DeclarationError> {
    cel::add_overload!(env, fn named: (CelString) -> CelOptional, name = "format.named")?;
    cel::add_member_overload!(env, fn validate: (NamedFormat, CelString) -> CelOptional)?;
    macro_rules! constant {
        ($($f:ident),*) => {$(
            fn $f() -> NamedFormat {
                let name = stringify!($f);
                NamedFormat(FORMATS.iter().find(|n| **n == name).expect("a listed format"))
            }
            cel::add_overload!(env, fn $f: () -> NamedFormat, name = concat!("format.", stringify!($f)))?;
        )*};
    }
    constant!(
        dns1123Label,
        dns1123Subdomain,
        dns1035Label,
        qualifiedName,
        dns1123LabelPrefix,
        dns1123SubdomainPrefix,
        dns1035LabelPrefix,
        labelValue,
        uri,
        uuid,
        byte,
        date,
        datetime
    );
    Ok(())
}

fn named(name: &CelString<'_>) -> CelOptional<'static> {
    match FORMATS.iter().find(|n| **n == name.inner()) {
        Some(n) => CelOptional::of(Box::new(NamedFormat(n))),
        None => CelOptional::none(),
    }
}

fn validate(format: &NamedFormat, s: &CelString<'_>) -> CelOptional<'static> {
    let errors = format.validate(s.inner());
    if errors.is_empty() {
        CelOptional::none()
    } else {
        CelOptional::of(Box::new(string_list(errors)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::assert_true;

    #[test]
    fn format_examples() {
        // format.go's documented examples and the apiserver's format tests.
        assert_true(&[
            "!format.dns1123Label().validate('my-label-name').hasValue()",
            "format.dns1123Label().validate('MY-LABEL').hasValue()",
            "format.dns1123Label().validate('MY-LABEL').value().size() == 1",
            "format.dns1123Subdomain().validate('apiextensions.k8s.io') == optional.none()",
            "format.dns1035Label().validate('1abc').hasValue() && !format.dns1035Label().validate('abc1').hasValue()",
            "format.qualifiedName().validate('example.com/name') == optional.none() && format.qualifiedName().validate('a/b/c').hasValue()",
            "format.dns1123LabelPrefix().validate('my-label-prefix-') == optional.none() && format.dns1123Label().validate('my-label-prefix-').hasValue()",
            "format.dns1123SubdomainPrefix().validate('mysubdomain.prefix.-') == optional.none()",
            "format.dns1035LabelPrefix().validate('my-label-prefix-') == optional.none()",
            "format.labelValue().validate('my-cool-label-Value') == optional.none() && format.labelValue().validate('-bad').hasValue()",
            "format.uri().validate('http://example.com') == optional.none() && format.uri().validate('example.com').hasValue()",
            "format.uuid().validate('123e4567-e89b-12d3-a456-426614174000') == optional.none() && format.uuid().validate('123e4567').hasValue()",
            "format.byte().validate('aGVsbG8=') == optional.none() && format.byte().validate('aGVsbG8').value() == ['invalid base64']",
            "format.date().validate('2000-02-29') == optional.none() && format.date().validate('2001-02-29').value() == ['invalid date']",
            "format.datetime().validate('2021-01-01T00:00:00Z') == optional.none() && format.datetime().validate('2021-01-01').hasValue()",
            "format.named('dns1123Label').hasValue() && !format.named('unknown').hasValue()",
            "format.named('dns1123Label').value().validate('x') == optional.none()",
            "format.named('dns1123Label').value() == format.dns1123Label()",
        ]);
    }
}
