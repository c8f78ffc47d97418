//! Inputs that made libyaml-safer 0.3.0 panic; each must parse (or fail) as libyaml does.

use libyaml_safer::{EventData, Parser};

/// Every scalar value in the stream, or the parser's error message.
fn scalars(input: &str) -> Result<Vec<String>, String> {
    let mut bytes = input.as_bytes();
    let mut parser = Parser::new();
    parser.set_input_string(&mut bytes);
    let mut out = Vec::new();
    loop {
        match parser.parse() {
            Ok(event) => match event.data {
                EventData::StreamEnd => return Ok(out),
                EventData::Scalar { value, .. } => out.push(value),
                _ => {}
            },
            Err(e) => return Err(e.problem().to_string()),
        }
    }
}

#[test]
fn block_scalars_ending_the_input_without_a_line_break() {
    for (input, value) in [
        ("a: |-\n  hello", "hello"),
        ("a: |\n  hello", "hello"),
        ("a: |+\n  hello", "hello"),
        ("a: >\n  hello", "hello"),
        ("a: >-\n  hello", "hello"),
        ("a: >+\n  hello", "hello"),
        ("a: |2\n   hello", " hello"),
        ("a: |\n  one\n  two", "one\ntwo"),
        ("a: >\n  one\n  two", "one two"),
        ("a: |+\n  one\n\n  two", "one\n\ntwo"),
        ("- |\n hello", "hello"),
    ] {
        let got = scalars(input).unwrap_or_else(|e| panic!("{input:?}: {e}"));
        assert_eq!(got.last().map(String::as_str), Some(value), "{input:?}");
    }
}

#[test]
fn block_scalar_ending_in_blank_lines_keeps_them_with_keep_chomping() {
    assert_eq!(scalars("a: |+\n  x\n\n").unwrap()[1], "x\n\n");
    assert_eq!(scalars("a: |\n  x\n\n").unwrap()[1], "x\n");
}

#[test]
fn a_tag_followed_by_a_comma_in_a_flow_collection() {
    assert_eq!(scalars("[!foo, b]").unwrap(), vec!["", "b"]);
}

#[test]
fn a_backslash_ending_the_input_is_an_unknown_escape() {
    let err = scalars("\"\\").unwrap_err();
    assert_eq!(err, "found unknown escape character");
}

#[test]
fn uri_escapes_in_tags_decode_as_utf8() {
    let mut bytes: &[u8] = b"!<tag:x,2000:%C3%A9> v";
    let mut parser = Parser::new();
    parser.set_input_string(&mut bytes);
    let tag = loop {
        match parser.parse().unwrap().data {
            EventData::Scalar { tag, .. } => break tag,
            EventData::StreamEnd => panic!("no scalar"),
            _ => {}
        }
    };
    assert_eq!(tag.as_deref(), Some("tag:x,2000:\u{e9}"));
    let mut bad: &[u8] = b"!<%C3%28> v";
    let mut parser = Parser::new();
    parser.set_input_string(&mut bad);
    let failed = (0..10).any(|_| parser.parse().is_err());
    assert!(failed, "an invalid UTF-8 sequence in a tag must be an error");
}

#[test]
fn a_first_character_in_u_f000_to_u_ffff_is_not_a_byte_order_mark() {
    // U+FFFD and U+FF46 start with 0xEF, as the UTF-8 BOM does.
    assert_eq!(scalars("\u{fffd}pec: 1").unwrap(), ["\u{fffd}pec", "1"]);
    assert_eq!(scalars("\u{ff46}").unwrap(), ["\u{ff46}"]);
    // A real BOM is still skipped.
    assert_eq!(scalars("\u{feff}a: b").unwrap(), ["a", "b"]);
}
