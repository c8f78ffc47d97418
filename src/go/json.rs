//! `encoding/json`'s string encoding (Go 1.22 and later, as helm v3.17 and kustomize v5.5 are
//! built): `\b`, `\f`, `\n`, `\r`, `\t` by name, other control characters as `\u00XX`, U+2028
//! and U+2029 escaped, and with HTML escaping (`json.Marshal`'s default) `<`, `>`, `&` too;
//! and a string decoded into a `[]byte` (a Secret's `data`).

/// A JSON string decoded into a `[]byte` as `encoding/json` decodes it: standard base64 with
/// padding, its line breaks skipped (Go's decoder ignores `\r` and `\n`; kustomize wraps a
/// generated Secret's values at 70 characters). `None` when it is not base64.
pub fn decode_bytes(s: &str) -> Option<Vec<u8>> {
    use base64::Engine;
    let engine = &base64::engine::general_purpose::STANDARD;
    if !s.contains(['\r', '\n']) {
        return engine.decode(s).ok();
    }
    let compact: String = s.chars().filter(|c| !matches!(c, '\r' | '\n')).collect();
    engine.decode(compact).ok()
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends `s` as a JSON string; `escape_html` as `json.Marshal` (on) or an encoder with
/// `SetEscapeHTML(false)`.
pub fn quote_into(out: &mut String, s: &str, escape_html: bool) {
    out.push('"');
    escape_into(out, s, escape_html);
    out.push('"');
}

/// Appends the characters of `s` as they appear inside a JSON string.
pub fn escape_into(out: &mut String, s: &str, escape_html: bool) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' if escape_html => push_u00(out, c as u8),
            c if (c as u32) < 0x20 => push_u00(out, c as u8),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
}

/// `s` as a JSON string, HTML-escaped as `json.Marshal` writes it.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    quote_into(&mut out, s, true);
    out
}

fn push_u00(out: &mut String, b: u8) {
    out.push_str("\\u00");
    out.push(HEX[(b >> 4) as usize] as char);
    out.push(HEX[(b & 0xf) as usize] as char);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_decode_with_line_breaks_skipped_as_go_decodes_them() {
        // `aGVsbG8gd29ybGQ=` is "hello world", wrapped as kustomize wraps generated values.
        assert_eq!(
            decode_bytes("aGVsbG8gd29ybGQ=").as_deref(),
            Some(&b"hello world"[..])
        );
        assert_eq!(
            decode_bytes("aGVsbG8g\nd29y\r\nbGQ=\n").as_deref(),
            Some(&b"hello world"[..])
        );
        for bad in ["aGVsbG8", "aGVs bG8=", "a\tGVsbG8="] {
            assert_eq!(decode_bytes(bad), None, "{bad:?}");
        }
    }

    /// What Go 1.23's `json.Marshal` prints for these strings.
    #[test]
    fn as_go_marshals_strings() {
        let cases = [
            ("a\u{8}b\u{c}c", r#""a\bb\fc""#),
            ("\u{1}\u{1f}", r#""\u0001\u001f""#),
            ("<a&b>", r#""\u003ca\u0026b\u003e""#),
            ("\u{2028}\u{2029}", r#""\u2028\u2029""#),
            ("tab\tnl\ncr\r\"\\", r#""tab\tnl\ncr\r\"\\""#),
            ("é\u{7f}", "\"é\u{7f}\""),
        ];
        for (input, want) in cases {
            assert_eq!(quote(input), want, "{input:?}");
        }
        let mut plain = String::new();
        quote_into(&mut plain, "<&>", false);
        assert_eq!(plain, r#""<&>""#);
    }
}
