//! The output emitter: writes a typed value exactly as Go's `sigs.k8s.io/yaml` (go-yaml v2)
//! writes it. That is the format of `kustomize build` and of Helm's `toYaml`: keys sorted with
//! go-yaml's natural order, 2-space indent, sequences not indented under their key, strings that
//! would read back as another type double-quoted, multi-line strings as `|`/`|-` blocks, long
//! scalars folded at 80 columns (libyaml's emitter, which go-yaml v2 ports, does the layout).

use super::resolve::{is_yaml_style_float, plain_tag, resolve_plain, Dialect, Resolved};
use crate::go::float;
use libyaml_safer::{Emitter, Encoding, Event, MappingStyle, ScalarStyle, SequenceStyle};
use serde_json::Value;
use std::borrow::Cow;
use std::cmp::Ordering;

/// Serialises one document (no `---`), ending in a newline.
pub fn to_string(value: &Value) -> String {
    write(value, true)
}

/// Serialises one document as go-yaml v3's encoder with `SetIndent(2)` writes it (Helm's
/// `toYamlPretty`): as [`to_string`], but a sequence under a key is indented.
pub fn to_string_v3(value: &Value) -> String {
    write(value, false)
}

fn write(value: &Value, indentless_sequences: bool) -> String {
    let escape_astral = can_escape_astral(value);
    let text = super::emitter::document(
        value,
        indentless_sequences,
        &|v| scalar_of(v, escape_astral),
        &sorted_keys,
        &|k| string(k, escape_astral),
    );
    finish_text(text, escape_astral)
}

/// [`to_string`] through libyaml-safer's emitter, which `emitter.rs` reimplements: for the
/// tests that compare the two.
#[doc(hidden)]
pub fn to_string_libyaml(value: &Value, indentless_sequences: bool) -> String {
    let escape_astral = can_escape_astral(value);
    let mut out = Vec::new();
    {
        let mut em = Emitter::new();
        em.set_output_string(&mut out);
        em.set_unicode(true);
        em.set_indentless_sequences(indentless_sequences);
        let mut emit = |e: Event| {
            em.emit(e)
                .expect("emitting well-formed events into a Vec cannot fail")
        };
        emit(Event::stream_start(Encoding::Utf8));
        emit(Event::document_start(None, &[], true));
        emit_value(value, escape_astral, &mut emit);
        emit(Event::document_end(true));
        emit(Event::stream_end());
    }
    let text = String::from_utf8(out).expect("the emitter writes UTF-8");
    finish_text(text, escape_astral)
}

/// The written text as go-yaml's encoder leaves it (see [`finish`]), astral characters
/// spelled.
fn finish_text(text: String, escape_astral: bool) -> String {
    let text = finish(text.into_bytes());
    if escape_astral {
        text.chars().map(from_placeholder).collect()
    } else {
        text
    }
}

/// The emitter's output as go-yaml's encoder leaves it: its `finish` clears `open_ended`, so the
/// `...` that libyaml writes at the end of a stream after a `|+` block never appears.
fn finish(mut out: Vec<u8>) -> String {
    if out.ends_with(b"\n...\n") {
        out.truncate(out.len() - 4);
    }
    String::from_utf8(out).expect("the emitter writes UTF-8")
}

/// Serialises documents the way kustomize joins them: `---\n` between documents.
pub fn to_stream<'a>(values: impl IntoIterator<Item = &'a Value>) -> String {
    let mut out = String::new();
    for (i, v) in values.into_iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        out.push_str(&to_string(v));
    }
    out
}

fn emit_value(value: &Value, escape_astral: bool, emit: &mut impl FnMut(Event)) {
    match value {
        Value::Array(items) => {
            emit(Event::sequence_start(
                None,
                None,
                true,
                SequenceStyle::Block,
            ));
            for item in items {
                emit_value(item, escape_astral, emit);
            }
            emit(Event::sequence_end());
        }
        Value::Object(map) => {
            emit(Event::mapping_start(None, None, true, MappingStyle::Block));
            for k in sorted_keys(map) {
                let (text, style) = string(k, escape_astral);
                emit(Event::scalar(None, None, &text, true, true, style));
                emit_value(&map[k.as_str()], escape_astral, emit);
            }
            emit(Event::mapping_end());
        }
        scalar => {
            let (text, style) = scalar_of(scalar, escape_astral);
            emit(Event::scalar(None, None, &text, true, true, style));
        }
    }
}

/// A mapping's keys in go-yaml's order.
fn sorted_keys(map: &serde_json::Map<String, Value>) -> Vec<&String> {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort_by(|a, b| go_key_order(a, b));
    keys
}

/// The text and style a scalar value is written in (collections are not scalars).
fn scalar_of(value: &Value, escape_astral: bool) -> (Cow<'_, str>, ScalarStyle) {
    match value {
        Value::Null => ("null".into(), ScalarStyle::Plain),
        Value::Bool(b) => (
            (if *b { "true" } else { "false" }).into(),
            ScalarStyle::Plain,
        ),
        Value::Number(n) => (number_text(n).into(), ScalarStyle::Plain),
        Value::String(s) => string(s, escape_astral),
        Value::Array(_) | Value::Object(_) => unreachable!("a collection is not a scalar"),
    }
}

/// A number as it comes out of Go's JSON → go-yaml v2 round trip: floats are written by
/// `encoding/json`, re-read (so `1000.0` becomes the int `1000`) and printed with `%g`.
fn number_text(n: &serde_json::Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    let text = float::format_json(n.as_f64().unwrap_or(0.0));
    match resolve_plain(&text, Dialect::Yaml11) {
        Resolved::Int(i) => i.to_string(),
        Resolved::Uint(u) => u.to_string(),
        Resolved::Float(f) => float::format_g(f),
        _ => text,
    }
}

/// go-yaml v2 `stringv`: plain unless the text would resolve to another type (or is a base-60
/// float), literal block when it contains a newline; the emitter may still quote a plain scalar
/// that cannot be written plain. The string is first what go-yaml reads back from Go's JSON
/// (see [`fold_nel`]).
fn string(s: &str, escape_astral: bool) -> (Cow<'_, str>, ScalarStyle) {
    let s = fold_nel(s);
    // A value starting with U+FEFF is escaped throughout by the emitter itself (go-yaml's
    // `is_bom` looks at the start of the value), astral characters included.
    if escape_astral && !s.starts_with('\u{feff}') && s.chars().any(is_astral) {
        let spelled: String = s.chars().flat_map(spell_astral).collect();
        return (spelled.into(), ScalarStyle::DoubleQuoted);
    }
    let style = if s.contains('\n') {
        ScalarStyle::Literal
    } else if plain_is_string(&s) {
        ScalarStyle::Plain
    } else {
        ScalarStyle::DoubleQuoted
    };
    (s, style)
}

/// kustomize prints through Go's JSON and go-yaml v2 reading that JSON back. JSON leaves a NEL
/// (U+0085) raw inside its double-quoted strings, and go-yaml treats it as a line break there
/// and folds it: the spaces around a run of NELs go, one NEL becomes a space, n NELs become
/// n-1 newlines.
fn fold_nel(s: &str) -> std::borrow::Cow<'_, str> {
    const NEL: char = '\u{85}';
    if !s.contains(NEL) {
        return s.into();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != ' ' && c != NEL {
            out.push(c);
            continue;
        }
        let mut run = String::from(c);
        while let Some(&next) = chars.peek() {
            if next != ' ' && next != NEL {
                break;
            }
            run.push(next);
            chars.next();
        }
        match run.matches(NEL).count() {
            0 => out.push_str(&run),
            1 => out.push(' '),
            n => out.extend(std::iter::repeat_n('\n', n - 1)),
        }
    }
    out.into()
}

/// go-yaml v2 counts characters beyond U+FFFF as unprintable: it double-quotes the string and
/// writes each as `\UXXXXXXXX`. libyaml-safer would print them raw, so such a character is
/// handed to it spelled as ten placeholder characters — one column each, like the escape's ten,
/// so long lines fold where go-yaml folds them — which [`to_string`] turns into the escape.
const PLACEHOLDERS: std::ops::RangeInclusive<char> = '\u{f700}'..='\u{f77f}';

fn is_astral(c: char) -> bool {
    u32::from(c) > 0xFFFF
}

/// Placeholders can stand in only when no string holds one of those characters itself.
fn can_escape_astral(value: &Value) -> bool {
    fn text(s: &str, astral: &mut bool) -> bool {
        *astral |= s.chars().any(is_astral);
        !s.chars().any(|c| PLACEHOLDERS.contains(&c))
    }
    fn scan(value: &Value, astral: &mut bool) -> bool {
        match value {
            Value::String(s) => text(s, astral),
            Value::Array(items) => items.iter().all(|v| scan(v, astral)),
            Value::Object(map) => map.iter().all(|(k, v)| text(k, astral) && scan(v, astral)),
            _ => true,
        }
    }
    let mut astral = false;
    scan(value, &mut astral) && astral
}

fn spell_astral(c: char) -> Vec<char> {
    if !is_astral(c) {
        return vec![c];
    }
    format!("\\U{:08X}", u32::from(c))
        .bytes()
        .map(|b| char::from_u32(0xF700 + u32::from(b)).expect("a private-use character"))
        .collect()
}

fn from_placeholder(c: char) -> char {
    if PLACEHOLDERS.contains(&c) {
        char::from(u8::try_from(u32::from(c) - 0xF700).expect("placeholders map to ASCII"))
    } else {
        c
    }
}

/// Whether go-yaml's `stringv` (v2, and v3 with its `isOldBool`) may write `s` plain: it
/// would read back as a string, not as a YAML 1.1 bool, number, null or base-60 float.
pub(super) fn plain_is_string(s: &str) -> bool {
    plain_tag(s, Dialect::Yaml11) == "!!str" && !is_base60_float(s)
}

/// `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`
fn is_base60_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    if !b.get(i).is_some_and(u8::is_ascii_digit) || !s.contains(':') {
        return false;
    }
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
        i += 1;
    }
    let mut groups = 0;
    while b.get(i) == Some(&b':') {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() && i - start < 2 {
            i += 1;
        }
        let group = &b[start..i];
        let ok = match group.len() {
            1 => true,
            2 => group[0] <= b'5',
            _ => false,
        };
        if !ok {
            return false;
        }
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            i += 1;
        }
    }
    i == b.len()
}

/// go-yaml v2's key order (`keyList.Less`): letters compare by code point, non-letters sort
/// before letters, and runs of digits compare by numeric value.
pub fn go_key_order(a: &str, b: &str) -> Ordering {
    if go_key_less(a, b) {
        Ordering::Less
    } else if go_key_less(b, a) {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

fn go_key_less(a: &str, b: &str) -> bool {
    // Most keys are ASCII, whose bytes are its runes: compared without collecting them (a
    // chart's `toYaml` sorts every map it prints).
    if a.is_ascii() && b.is_ascii() {
        runes_less(a.as_bytes(), b.as_bytes())
    } else {
        let ar: Vec<char> = a.chars().collect();
        let br: Vec<char> = b.chars().collect();
        runes_less(&ar, &br)
    }
}

/// A rune as `keyList.Less` asks about it: a byte of ASCII text, or a char.
trait Rune: Copy + PartialEq + PartialOrd {
    fn is_letter(self) -> bool;
    /// The value of an ASCII digit; None for any other rune.
    fn digit(self) -> Option<i64>;
}

impl Rune for u8 {
    fn is_letter(self) -> bool {
        self.is_ascii_alphabetic()
    }
    fn digit(self) -> Option<i64> {
        self.is_ascii_digit().then(|| i64::from(self - b'0'))
    }
}

impl Rune for char {
    fn is_letter(self) -> bool {
        self.is_alphabetic()
    }
    fn digit(self) -> Option<i64> {
        self.is_ascii_digit().then(|| i64::from(self as u8 - b'0'))
    }
}

/// `keyList.Less` on two keys' runes.
fn runes_less<R: Rune>(ar: &[R], br: &[R]) -> bool {
    let mut i = 0;
    while i < ar.len() && i < br.len() {
        if ar[i] == br[i] {
            i += 1;
            continue;
        }
        let al = ar[i].is_letter();
        let bl = br[i].is_letter();
        if al && bl {
            return ar[i] < br[i];
        }
        if al || bl {
            return bl;
        }
        let (mut an, mut bn): (i64, i64) = (0, 0);
        if ar[i].digit() == Some(0) || br[i].digit() == Some(0) {
            let mut j = i;
            while j > 0 && ar[j - 1].digit().is_some() {
                j -= 1;
                if ar[j].digit() != Some(0) {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while let Some(d) = ar.get(ai).and_then(|r| r.digit()) {
            an = an.wrapping_mul(10).wrapping_add(d);
            ai += 1;
        }
        let mut bi = i;
        while let Some(d) = br.get(bi).and_then(|r| r.digit()) {
            bn = bn.wrapping_mul(10).wrapping_add(d);
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar[i] < br[i];
    }
    ar.len() < br.len()
}

/// Re-exported for callers that check the float syntax.
pub fn looks_like_float(s: &str) -> bool {
    is_yaml_style_float(s)
}

/// Writes a node the way kyaml (go-yaml v3 with 2-space indent and compact sequences) writes
/// it: key order, scalar styles and flow collections kept. Used for YAML held inside strings.
pub fn node_to_string(node: &super::Node) -> String {
    let mut out = Vec::new();
    {
        let mut em = Emitter::new();
        em.set_output_string(&mut out);
        em.set_unicode(true);
        em.set_indent(2);
        let mut emit = |e: Event| {
            em.emit(e)
                .expect("emitting well-formed events into a Vec cannot fail")
        };
        emit(Event::stream_start(Encoding::Utf8));
        emit(Event::document_start(None, &[], true));
        emit_node(node, &mut emit);
        emit(Event::document_end(true));
        emit(Event::stream_end());
    }
    finish(out)
}

fn emit_node(node: &super::Node, emit: &mut impl FnMut(Event)) {
    use super::node::{NodeKind, ScalarStyle as S};
    match &node.kind {
        NodeKind::Scalar(s) => {
            let standard = matches!(
                s.tag.as_deref(),
                None | Some(
                    "!" | "!!str"
                        | "!!int"
                        | "!!bool"
                        | "!!float"
                        | "!!null"
                        | "!!timestamp"
                        | "!!binary"
                        | "!!merge"
                )
            );
            let mut style = match s.style {
                S::Plain => ScalarStyle::Plain,
                S::SingleQuoted => ScalarStyle::SingleQuoted,
                S::DoubleQuoted => ScalarStyle::DoubleQuoted,
                S::Literal => ScalarStyle::Literal,
                S::Folded => ScalarStyle::Folded,
            };
            // A string that would read back as another type must be quoted (go-yaml v3), the
            // merge key `<<` too.
            if s.tag.as_deref() == Some("!!str")
                && s.style == S::Plain
                && (plain_tag(&s.text, Dialect::Yaml12) != "!!str" || s.text == "<<")
            {
                style = ScalarStyle::DoubleQuoted;
            }
            let tag = if standard { None } else { s.tag.as_deref() };
            emit(Event::scalar(
                None,
                tag,
                &s.text,
                tag.is_none(),
                tag.is_none(),
                style,
            ));
        }
        NodeKind::Seq(items) => {
            let style = if node.flow() {
                SequenceStyle::Flow
            } else {
                SequenceStyle::Block
            };
            emit(Event::sequence_start(None, None, true, style));
            for item in items {
                emit_node(item, emit);
            }
            emit(Event::sequence_end());
        }
        NodeKind::Map(entries) => {
            let style = if node.flow() {
                MappingStyle::Flow
            } else {
                MappingStyle::Block
            };
            emit(Event::mapping_start(None, None, true, style));
            for (k, v) in entries {
                emit_node(k, emit);
                emit_node(v, emit);
            }
            emit(Event::mapping_end());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// ASCII keys compared as bytes order as they do compared as chars, on every key of up
    /// to three runes from an alphabet of letters, digits (zeros too) and punctuation.
    #[test]
    fn ascii_keys_order_as_their_runes_do() {
        let alphabet = ["a", "Z", "0", "1", "9", "-", "_", "."];
        let mut keys = vec![String::new()];
        for _ in 0..3 {
            let longer: Vec<String> = keys
                .iter()
                .flat_map(|k| alphabet.iter().map(move |c| format!("{k}{c}")))
                .collect();
            keys.extend(longer);
        }
        keys.sort();
        keys.dedup();
        for a in &keys {
            let ar: Vec<char> = a.chars().collect();
            for b in &keys {
                let br: Vec<char> = b.chars().collect();
                assert_eq!(
                    runes_less(a.as_bytes(), b.as_bytes()),
                    runes_less(&ar, &br),
                    "{a:?} < {b:?}"
                );
            }
        }
    }

    fn y(v: Value) -> String {
        to_string(&v)
    }

    #[test]
    fn quotes_strings_that_would_change_type() {
        assert_eq!(
            y(json!({"a": "yes", "b": "on", "c": "0755", "d": "1e3", "e": "~", "f": "", "g": "null", "h": "2020-01-01", "i": "1:20", "j": "plain", "k": "123", "l": "1.10", "m": "y"})),
            "a: \"yes\"\nb: \"on\"\nc: \"0755\"\nd: \"1e3\"\ne: \"~\"\nf: \"\"\ng: \"null\"\nh: \"2020-01-01\"\ni: \"1:20\"\nj: plain\nk: \"123\"\nl: \"1.10\"\nm: \"y\"\n"
        );
    }

    #[test]
    fn keys_that_need_quotes() {
        assert_eq!(
            y(json!({"yes": 1, "n": 2, "123": 3})),
            "\"123\": 3\n\"n\": 2\n\"yes\": 1\n"
        );
    }

    #[test]
    fn special_starts_are_single_quoted() {
        assert_eq!(
            y(json!(["*x", "%x", "- x", "a #b", "a: b", "  lead", "trailing  ", "a:b", "@x", "`x", "!x", "&x", "|x", ">x", "'x", "\"x", "-", "?", "{x", "[x", "#x", "x,y"])),
            "- '*x'\n- '%x'\n- '- x'\n- 'a #b'\n- 'a: b'\n- '  lead'\n- 'trailing  '\n- a:b\n- '@x'\n- '`x'\n- '!x'\n- '&x'\n- '|x'\n- '>x'\n- '''x'\n- '\"x'\n- '-'\n- '?'\n- '{x'\n- '[x'\n- '#x'\n- x,y\n"
        );
    }

    #[test]
    fn multi_line_strings_use_literal_blocks() {
        assert_eq!(y(json!({"a": "x\ny\n"})), "a: |\n  x\n  y\n");
        assert_eq!(y(json!({"a": "x\ny"})), "a: |-\n  x\n  y\n");
        assert_eq!(
            y(json!({"a": "line one  \nline two\n"})),
            "a: \"line one  \\nline two\\n\"\n"
        );
        assert_eq!(y(json!(["x\n"])), "- |\n  x\n");
        // Kept trailing newlines, last in the document: no `...` end marker (kubectl kustomize).
        assert_eq!(y(json!({"z": "ends\n\n"})), "z: |+\n  ends\n\n");
    }

    /// Expected outputs from kubectl kustomize (testdata/kustomize/54-unicode-astral-and-nel).
    #[test]
    fn astral_characters_are_escaped_and_nel_folded() {
        assert_eq!(y(json!({"e": "party 🎉"})), "e: \"party \\U0001F389\"\n");
        assert_eq!(y(json!({"k🎉": "v"})), "\"k\\U0001F389\": v\n");
        assert_eq!(
            y(json!({"nels": "a \u{85} b\u{85}\u{85}c \u{85}\u{85}\u{85} d\u{85}"})),
            "nels: \"a b\\nc\\n\\nd \"\n"
        );
        assert_eq!(y(json!({"lead": "\u{85}x"})), "lead: ' x'\n");
        // A document holding a character of the placeholder range itself is printed without
        // the escapes (go-yaml would write `"\u{f720}\U0001F389"`), never corrupted.
        assert_eq!(y(json!({"p": "\u{f720}🎉"})), "p: \u{f720}🎉\n");
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(y(json!("a\tb")), "\"a\\tb\"\n");
        assert_eq!(y(json!("a\u{7}b")), "\"a\\ab\"\n");
        assert_eq!(y(json!("héllo ✓")), "héllo ✓\n");
    }

    #[test]
    fn long_strings_fold_at_80_columns() {
        let s = "word ".repeat(30).trim_end().to_string();
        let out = y(json!({ "k": s }));
        assert!(out.lines().count() > 1, "{out}");
        assert!(out.lines().all(|l| l.len() <= 84), "{out}");
        assert_eq!(out.split_whitespace().filter(|w| *w == "word").count(), 30);
    }

    #[test]
    fn nested_sequences_and_empty_collections() {
        assert_eq!(y(json!([[1, 2], [3]])), "- - 1\n  - 2\n- - 3\n");
        assert_eq!(
            y(json!({"a": [], "b": {}, "c": [{"x": 1, "y": [true]}]})),
            "a: []\nb: {}\nc:\n- x: 1\n  \"y\":\n  - true\n"
        );
    }

    #[test]
    fn numbers() {
        assert_eq!(
            y(json!([
                1.0,
                0.5,
                1234567.5,
                1e21,
                0.000001,
                12345678901234567890u64,
                -3
            ])),
            "- 1\n- 0.5\n- 1.2345675e+06\n- 1e+21\n- 1e-06\n- 12345678901234567890\n- -3\n"
        );
    }

    #[test]
    fn natural_key_order() {
        let mut keys = vec![
            "a10", "a9", "b", "A", "_x", "a", "1", "10", "2", "a.b", "a0",
        ];
        keys.sort_by(|a, b| go_key_order(a, b));
        assert_eq!(
            keys,
            vec!["_x", "1", "2", "10", "A", "a", "a.b", "a0", "a9", "a10", "b"]
        );
    }

    #[test]
    fn base60() {
        assert!(is_base60_float("1:20"));
        assert!(is_base60_float("190:20:30.15"));
        assert!(!is_base60_float("1:60"));
        assert!(!is_base60_float("a:1"));
        assert!(!is_base60_float("1:"));
    }
}
