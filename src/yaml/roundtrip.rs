//! What a go-yaml v3 encode and decode does to values. kyaml's `MarshalJSON` writes an object
//! with go-yaml v3 (keeping the styles it was read with) and reads it back, and kustomize does
//! that to every object it prints and before every JSON patch. Two things change on the way:
//!
//! - the emitter cannot leave an empty plain scalar inside `{}`/`[]` and writes `''`, so
//!   `{k: , l}` reads back as empty strings, not nulls;
//! - go-yaml v3's folded-scalar writer adds a line break after a line whenever the value does
//!   not start with a blank (its look-ahead reads from the start of the value, not from the
//!   current line), so a `>` block gains an empty line before a more-indented line, and a `>+`
//!   block gains a trailing newline.

use super::node::{Node, NodeKind, ScalarStyle};

/// Applies the round trip to every value under `node`.
pub fn through_go_yaml_v3(node: &mut Node) {
    // go-yaml v3 writes everything inside a flow collection in flow style, whatever style a
    // nested collection had (a patch can merge a block mapping into a flow one).
    fn walk(node: &mut Node, in_flow: bool) {
        let flow = in_flow || node.flow();
        let fix = |n: &mut Node| match &mut n.kind {
            NodeKind::Scalar(s) => {
                if flow && s.text.is_empty() && s.tag.is_none() && s.style == ScalarStyle::Plain {
                    s.tag = Some("!!str".into());
                } else if s.style == ScalarStyle::Folded && !flow && block_allowed(&s.text) {
                    // Otherwise go-yaml v3 writes it double-quoted and the value is kept.
                    s.text = folded_round_trip(&s.text);
                }
            }
            _ => walk(n, flow),
        };
        match &mut node.kind {
            NodeKind::Scalar(_) => {}
            NodeKind::Seq(items) => items.iter_mut().for_each(fix),
            NodeKind::Map(entries) => entries.iter_mut().for_each(|(_, v)| fix(v)),
        }
    }
    walk(node, false);
}

/// A scalar (key or value) that go-yaml v3 writes as a block and cannot read back: its
/// value starts with a tab, which the writer gives no indentation indicator, so the reader
/// takes the tab for indentation ("found a tab character where an indentation space is
/// expected").
pub fn unreadable_block(node: &Node) -> Option<&Node> {
    // Inside a flow collection, at any depth, go-yaml v3 writes no block scalar.
    if node.flow() {
        return None;
    }
    fn bad(n: &Node) -> Option<&Node> {
        match &n.kind {
            NodeKind::Scalar(s) => {
                // go-yaml v3 writes a plain (unstyled) scalar with a line break as a literal.
                let block = matches!(s.style, ScalarStyle::Literal | ScalarStyle::Folded)
                    || (s.style == ScalarStyle::Plain && s.text.contains('\n'));
                let tab = s.text.starts_with('\t');
                (block && tab && block_allowed(&s.text)).then_some(n)
            }
            _ => unreadable_block(n),
        }
    }
    match &node.kind {
        NodeKind::Scalar(_) => None,
        NodeKind::Seq(items) => items.iter().find_map(bad),
        NodeKind::Map(entries) => entries.iter().find_map(|(k, v)| bad(k).or_else(|| bad(v))),
    }
}

/// go-yaml v3's `block_allowed`: no space before a line break or at the end, no character it
/// must escape. Its `is_printable` knows no 4-byte UTF-8, so a character outside the Basic
/// Multilingual Plane (an emoji) is one to escape: such a value is written double-quoted.
fn block_allowed(text: &str) -> bool {
    let special = |c: char| {
        !matches!(c, '\t' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
            && (c < ' '
                || ('\u{7f}'..='\u{9f}').contains(&c)
                || matches!(c, '\u{feff}' | '\u{fffe}' | '\u{ffff}')
                || c > '\u{ffff}')
    };
    !text.ends_with(' ') && !text.contains(" \n") && !text.chars().any(special)
}

/// Whether go-yaml cannot read `t` back from Go's JSON text: the encoder escapes control
/// characters but leaves DEL, the C1 controls but NEL, U+FFFE and U+FFFF as they are, and the
/// reader refuses them ("control characters are not allowed"). In UTF-8: 7F, C2 80–C2 9F but
/// C2 85, EF BF BE, EF BF BF.
pub fn unreadable_from_json(t: &str) -> bool {
    let b = t.as_bytes();
    memchr::memchr3_iter(0x7F, 0xC2, 0xEF, b).any(|i| match b[i] {
        0x7F => true,
        0xC2 => matches!(b.get(i + 1), Some(&c) if (0x80..=0x9F).contains(&c) && c != 0x85),
        _ => b.get(i + 1) == Some(&0xBF) && matches!(b.get(i + 2), Some(0xBE | 0xBF)),
    })
}

/// A mapping key that go-yaml cannot read back from Go's JSON: a flow key is no longer a
/// simple key when more than 1,024 characters lie between its start and the `:` after it, so
/// a key whose JSON string (quotes included) is longer fails ("did not find expected ',' or
/// '}'"). kustomize prints every object that way.
pub fn key_too_long_for_json(node: &Node) -> Option<&Node> {
    match &node.kind {
        NodeKind::Scalar(_) => None,
        NodeKind::Seq(items) => items.iter().find_map(key_too_long_for_json),
        NodeKind::Map(entries) => entries.iter().find_map(|(k, v)| {
            let long = k.as_str().is_some_and(|t| go_json_quoted_chars(t) > 1024);
            if long {
                Some(k)
            } else {
                key_too_long_for_json(v)
            }
        }),
    }
}

/// The characters of `s` as Go's `json.Marshal` writes it, quotes included.
fn go_json_quoted_chars(s: &str) -> usize {
    crate::go::json::quote(s).chars().count()
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// A folded scalar's value after go-yaml v3 writes it in folded style and reads it back.
fn folded_round_trip(value: &str) -> String {
    // What the writer puts out (indentation and 80-column folds read back unchanged).
    let starts_blank = value.chars().find(|&c| c != '\n').is_none_or(is_blank);
    let mut written = String::with_capacity(value.len() + 8);
    let (mut breaks, mut leading_spaces) = (true, true);
    for c in value.chars() {
        if c == '\n' {
            if !breaks && !leading_spaces && !starts_blank {
                written.push('\n');
            }
            breaks = true;
        } else {
            if breaks {
                leading_spaces = is_blank(c);
            }
            breaks = false;
        }
        written.push(c);
    }
    // The chomping indicator the writer chose from the value.
    let keep = value == "\n" || value.ends_with("\n\n");
    let strip = !value.ends_with('\n');
    // How the scanner folds the lines back.
    let mut out = String::with_capacity(written.len());
    let (mut leading_break, mut trailing_breaks) = (false, 0usize);
    let (mut started, mut previous_blank) = (false, false);
    let body = written.strip_suffix('\n').unwrap_or(&written);
    for line in body.split('\n') {
        if line.is_empty() {
            trailing_breaks += 1;
            continue;
        }
        let blank = line.starts_with(is_blank);
        if started && leading_break {
            if previous_blank || blank {
                out.push('\n');
            } else if trailing_breaks == 0 {
                out.push(' ');
            }
        }
        out.extend(std::iter::repeat_n('\n', trailing_breaks));
        trailing_breaks = 0;
        out.push_str(line);
        (started, leading_break, previous_blank) = (true, true, blank);
    }
    if !strip && leading_break {
        out.push('\n');
    }
    if keep {
        out.extend(std::iter::repeat_n('\n', trailing_breaks));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte search finds exactly the characters YAML refuses that JSON leaves as they are,
    /// alone and between others, over the Basic Multilingual Plane and beyond.
    #[test]
    fn unreadable_from_json_is_the_refused_characters() {
        let refused = |c: char| matches!(c, '\u{7f}'..='\u{84}' | '\u{86}'..='\u{9f}' | '\u{fffe}' | '\u{ffff}');
        for c in (0..0x11000).filter_map(char::from_u32) {
            assert_eq!(unreadable_from_json(&c.to_string()), refused(c), "{c:?}");
            assert_eq!(
                unreadable_from_json(&format!("a\u{c2}{c}é")),
                refused(c),
                "{c:?}"
            );
        }
    }

    /// Expected values from kubectl kustomize (testdata/kustomize/66-go-yaml-v3-round-trip).
    #[test]
    fn what_go_yaml_cannot_read_back() {
        use crate::yaml::{parse_one, ParseOptions};
        let node = |s: &str| parse_one(s.as_bytes(), &ParseOptions::default()).unwrap();
        assert!(unreadable_block(&node("a: |2\n  \thello\n")).is_some());
        assert!(unreadable_block(&node("? >2\n  \tk\n: v\n")).is_some());
        assert!(unreadable_block(&node("a: |\n  x\n  \thello\n")).is_none());
        assert!(unreadable_block(&node("a: \"\\thello\\nx\"\n")).is_none());
        assert!(unreadable_block(&node("a: |2\n  \thello \n")).is_none());
        let key = |n: usize, tail: &str| node(&format!("? {}{tail}\n: v\n", "k".repeat(n)));
        assert!(key_too_long_for_json(&key(1022, "")).is_none());
        assert!(key_too_long_for_json(&key(1023, "")).is_some());
        assert!(key_too_long_for_json(&key(1016, "<")).is_none());
        assert!(key_too_long_for_json(&key(1017, "<")).is_some());
        assert!(key_too_long_for_json(&key(1020, "\u{e9}\u{e9}")).is_none());
    }

    #[test]
    fn folded_values_after_the_round_trip() {
        assert_eq!(folded_round_trip("a\n b\nc"), "a\n\n b\nc");
        assert_eq!(folded_round_trip("keep\n\n"), "keep\n\n\n");
        // Plain folding reads back unchanged.
        assert_eq!(folded_round_trip("one two\nthree\n"), "one two\nthree\n");
        assert_eq!(folded_round_trip("a\n\nb"), "a\n\nb");
        assert_eq!(folded_round_trip("single line"), "single line");
        // Written double-quoted (a space before a line break), so kept as it is.
        let mut node =
            crate::yaml::parse_one(b"a: >\n  hello \n    more\n", &Default::default()).unwrap();
        through_go_yaml_v3(&mut node);
        assert_eq!(node.str_at(&["a"]), Some("hello \n  more\n"));
        // Written double-quoted too: go-yaml v3 escapes a character outside the BMP
        // (testdata/kustomize/112).
        let mut node = crate::yaml::parse_one(
            "a: >-\n  \u{1f680}\n    x\n".as_bytes(),
            &Default::default(),
        )
        .unwrap();
        through_go_yaml_v3(&mut node);
        assert_eq!(node.str_at(&["a"]), Some("\u{1f680}\n  x"));
    }
}
