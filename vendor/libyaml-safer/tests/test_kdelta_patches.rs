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

/// go-yaml reads `,`, `[` and `]` as part of a shorthand tag, in flow collections too.
#[test]
fn a_comma_after_a_tag_belongs_to_the_tag() {
    assert_eq!(scalars("[!foo, b]").unwrap(), vec!["b"]);
    assert_eq!(scalars("a: !foo,b x").unwrap(), vec!["a", "x"]);
    assert_eq!(scalars("[!a[b], c]").unwrap(), vec!["c"]);
    assert!(scalars("[!foo,]").is_err());
    assert!(scalars("[!<x>, b]").is_err());
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
fn escapes_as_go_yaml_reads_them() {
    assert_eq!(scalars(r#"a: "it\'s""#).unwrap()[1], "it's");
    let err = scalars(r#"a: "a\/b""#).unwrap_err();
    assert_eq!(err, "found unknown escape character");
}

fn emit(value: &str, style: libyaml_safer::ScalarStyle) -> String {
    use libyaml_safer::{Emitter, Encoding, Event, MappingStyle};
    let mut out = Vec::new();
    {
        let mut em = Emitter::new();
        em.set_output_string(&mut out);
        em.set_unicode(true);
        for e in [
            Event::stream_start(Encoding::Utf8),
            Event::document_start(None, &[], true),
            Event::mapping_start(None, None, true, MappingStyle::Block),
            Event::scalar(None, None, "a", true, true, libyaml_safer::ScalarStyle::Plain),
            Event::scalar(None, None, value, true, true, style),
            Event::mapping_end(),
            Event::document_end(true),
            Event::stream_end(),
        ] {
            em.emit(e).unwrap();
        }
    }
    String::from_utf8(out).unwrap()
}

/// go-yaml's `is_bom` looks at the start of the value, so a value starting with U+FEFF has
/// every character escaped; U+FEFF elsewhere is escaped alone (it is not printable).
#[test]
fn a_value_starting_with_a_bom_is_escaped_throughout() {
    let dq = libyaml_safer::ScalarStyle::DoubleQuoted;
    assert_eq!(emit("\u{feff}hi x", dq), "a: \"\\uFEFF\\x68\\x69\\x20\\x78\"\n");
    assert_eq!(emit("x\u{feff}y", dq), "a: \"x\\uFEFFy\"\n");
    assert_eq!(emit("\u{7eff}", dq), "a: \"\u{7eff}\"\n");
}

/// go-yaml writes no indentation after a line break that ends a single-quoted value.
#[test]
fn a_single_quoted_value_ending_in_a_line_separator() {
    let sq = libyaml_safer::ScalarStyle::SingleQuoted;
    assert_eq!(emit("x\u{2028}", sq), "a: 'x\u{2028}'\n");
}

#[test]
fn utf16_input_with_a_bom() {
    for bytes in [
        "\u{feff}a: b\r\nc: d\r\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect::<Vec<u8>>(),
        "\u{feff}a: b\nc: d\n"
            .encode_utf16()
            .flat_map(u16::to_be_bytes)
            .collect(),
    ] {
        let mut input = bytes.as_slice();
        let mut parser = Parser::new();
        parser.set_input_string(&mut input);
        let mut out = Vec::new();
        loop {
            match parser.parse().unwrap().data {
                EventData::StreamEnd => break,
                EventData::Scalar { value, .. } => out.push(value),
                _ => {}
            }
        }
        assert_eq!(out, ["a", "b", "c", "d"]);
    }
}

#[test]
fn an_unpaired_surrogate_in_utf16_is_an_error() {
    let mut input: &[u8] = &[0xff, 0xfe, 0x00, 0xd8, b'a', 0, b':', 0, b' ', 0, b'b', 0];
    let mut parser = Parser::new();
    parser.set_input_string(&mut input);
    let failed = (0..10).any(|_| parser.parse().is_err());
    assert!(failed);
}

fn scalars_v3(input: &str) -> Result<Vec<String>, String> {
    let mut bytes = input.as_bytes();
    let mut parser = Parser::new();
    parser.set_input_string(&mut bytes);
    parser.set_go_yaml_v3_comments(true);
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

/// go-yaml v3 takes the comment lines after a comment with it, tabs and all; a comment on the
/// line of a token (a line comment) takes nothing more. libyaml and go-yaml v2 fail on a tab
/// starting a line.
#[test]
fn comment_lines_after_a_comment_as_go_yaml_v3_reads_them() {
    let tabbed = "a: >\n  hello\n# ok\n\t# tab\n \t\n\t # more\nb: x\n";
    assert_eq!(scalars_v3(tabbed).unwrap(), ["a", "hello\n", "b", "x"]);
    assert!(scalars(tabbed).is_err());
    assert!(scalars_v3("a: x # line comment\n\t# tab\nb: y\n").is_err());
    assert!(scalars_v3("a: x\n\t# no comment before\n").is_err());
    assert_eq!(scalars_v3("# x\n\t# c\na: b\n").unwrap(), ["a", "b"]);
    assert_eq!(scalars_v3("- # x\n\t# c\n  y\n").unwrap(), ["y"]);
}

/// go-yaml counts a simple key's 1,024-character limit in characters, not bytes.
#[test]
fn simple_key_length_in_characters() {
    let key = |n: usize| format!("{}: v\n", "\u{e9}".repeat(n));
    assert!(scalars(&key(1024)).is_ok());
    assert!(scalars(&key(1025)).is_err());
}

#[test]
fn a_first_character_in_u_f000_to_u_ffff_is_not_a_byte_order_mark() {
    // U+FFFD and U+FF46 start with 0xEF, as the UTF-8 BOM does.
    assert_eq!(scalars("\u{fffd}pec: 1").unwrap(), ["\u{fffd}pec", "1"]);
    assert_eq!(scalars("\u{ff46}").unwrap(), ["\u{ff46}"]);
    // A real BOM is still skipped.
    assert_eq!(scalars("\u{feff}a: b").unwrap(), ["a", "b"]);
}

/// go-yaml v3 indents a sequence under its key; libyaml (the default) does not.
#[test]
fn sequences_indented_under_their_key_on_request() {
    use libyaml_safer::{Emitter, Encoding, Event, MappingStyle, ScalarStyle, SequenceStyle};
    let write = |indentless: bool| {
        let mut out = Vec::new();
        {
            let mut em = Emitter::new();
            em.set_output_string(&mut out);
            em.set_indent(2);
            em.set_indentless_sequences(indentless);
            let scalar = |v: &str| Event::scalar(None, None, v, true, false, ScalarStyle::Plain);
            for e in [
                Event::stream_start(Encoding::Utf8),
                Event::document_start(None, &[], true),
                Event::mapping_start(None, None, true, MappingStyle::Block),
                scalar("k"),
                Event::sequence_start(None, None, true, SequenceStyle::Block),
                scalar("a"),
                Event::sequence_start(None, None, true, SequenceStyle::Block),
                scalar("b"),
                Event::sequence_end(),
                Event::sequence_end(),
                Event::mapping_end(),
                Event::document_end(true),
                Event::stream_end(),
            ] {
                em.emit(e).unwrap();
            }
        }
        String::from_utf8(out).unwrap()
    };
    assert_eq!(write(true), "k:\n- a\n- - b\n");
    assert_eq!(write(false), "k:\n  - a\n  - - b\n");
}

/// A reader that hands the input over one byte at a time, so that the scanner's buffer holds
/// a character or two when the fast runs (patch 12) look at it.
struct ByteByByte<'a>(&'a [u8]);

impl std::io::Read for ByteByByte<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.0.len()).min(1);
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

impl std::io::BufRead for ByteByByte<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        Ok(&self.0[..self.0.len().min(1)])
    }

    fn consume(&mut self, n: usize) {
        self.0 = &self.0[n.min(self.0.len())..];
    }
}

/// Every event with its marks, or the error, as text.
fn events<R: std::io::BufRead>(input: R) -> Vec<String> {
    let mut parser = Parser::new();
    parser.set_input(input);
    parser.set_go_yaml_v3_comments(true);
    let mut out = Vec::new();
    loop {
        match parser.parse() {
            Ok(event) => {
                let end = matches!(event.data, EventData::StreamEnd);
                out.push(format!("{event:?}"));
                if end {
                    return out;
                }
            }
            Err(e) => {
                out.push(format!("{e:?}"));
                return out;
            }
        }
    }
}

/// Runs of ordinary characters, spaces and comments are read at once from what the buffer
/// holds (patch 12): the events, their marks and the errors are those of reading the same
/// input a byte at a time, when the buffer never holds a run.
#[test]
fn characters_read_in_runs_give_the_events_of_reading_them_one_by_one() {
    let inputs = [
        "a: b\n",
        "key: value with spaces  and  more\nnext: 1\n",
        "url: http://example.com:8080/path#frag\nimage: repo/app:v1.2 # comment\n",
        "multi: first line\n  second line\n\n  after blank\nz: end\n",
        "flow: {a: b, c: [d, e:f, 'g'], h: i}\n",
        "flow: [a:b, c]\n",
        "bad: [a:, b]\n",
        "- item # comment   \n-   spaced\n- \"quoted\"\n",
        "# only a comment with trailing   \n\n# another\na: b\n",
        "a: b\r\nc: d e\r\n",
        "text: caf\u{e9} \u{2603} na\u{ef}ve\nnext: \u{1F389}\n",
        "---\ndoc: one\n...\n--- two\n...\n",
        "a:\tb\n\tc: d\n",
        "key:    \t  value\n",
        "a: b:c:d\n  e\n",
        "? complex key\n: value\n",
        "anchor: &x value\nref: *x\n",
        "a: b\n  # indented comment\nc: d\n",
        "long: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
        "lit: |\n  line one: {x}\n    more indented\n\n  # not a comment\nnext: 1\n",
        "fold: >-\n  a b\n  c\n\n   d\n  e \u{2028}f\r\n  g\n",
        "keep: |+\n  \ttab\n  caf\u{e9} \u{1F389}\n\n\n",
        "last: |\n  no final break",
        "bad: |\n  a\n b\n",
        "plain: first words\n        continued here\n\n          after a blank\n\t  \tand tabs\nnext: 2\n",
        "- a plain\n    scalar in a list\n  \t  with tabs\n- b\n",
        "k:\n  a\n \tb\n",
        "words: x \t  y\t\tz   \n  then  \t more\n",
        "deep:\n  k: a\n       \t   \n        b\n  bad: a\n  \t b\n",
    ];
    for input in inputs {
        let whole = events(input.as_bytes());
        let by_byte = events(ByteByByte(input.as_bytes()));
        assert_eq!(whole, by_byte, "{input:?}");
    }
    // The same on an input longer than the 512-byte chunks kdelta reads.
    let long: String = (0..200)
        .map(|i| format!("key{i}: value number {i} with text # and a comment\n"))
        .chain((0..50).map(|i| format!("block{i}: |\n  line {i} of a block scalar\n  another: one\n")))
        .collect();
    assert_eq!(
        events(long.as_bytes()),
        events(ByteByByte(long.as_bytes()))
    );
}

/// go-yaml does not skip a byte order mark that starts a later line (its `is_bom` looks at the
/// start of its buffer): the mark is the first character of the scalar. Only the stream's first
/// character is read as a byte order mark.
#[test]
fn a_byte_order_mark_after_the_first_character_is_text() {
    assert_eq!(
        scalars("---\n\u{feff}a: b\n").unwrap(),
        ["\u{feff}a", "b"]
    );
    assert_eq!(
        scalars("---\n# c\n\u{feff}a: b\n").unwrap(),
        ["\u{feff}a", "b"]
    );
    assert_eq!(scalars("\u{feff}---\na: b\n").unwrap(), ["a", "b"]);
}
