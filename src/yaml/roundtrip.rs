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
    let flow = node.flow;
    let fix = |n: &mut Node| match &mut n.kind {
        NodeKind::Scalar(s) => {
            if flow && s.text.is_empty() && s.tag.is_none() && s.style == ScalarStyle::Plain {
                s.tag = Some("!!str".to_string());
            } else if s.style == ScalarStyle::Folded {
                s.text = folded_round_trip(&s.text);
            }
        }
        _ => through_go_yaml_v3(n),
    };
    match &mut node.kind {
        NodeKind::Scalar(_) => {}
        NodeKind::Seq(items) => items.iter_mut().for_each(fix),
        NodeKind::Map(entries) => entries.iter_mut().for_each(|(_, v)| fix(v)),
    }
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

    /// Expected values from kubectl kustomize (testdata/kustomize/66-go-yaml-v3-round-trip).
    #[test]
    fn folded_values_after_the_round_trip() {
        assert_eq!(folded_round_trip("a\n b\nc"), "a\n\n b\nc");
        assert_eq!(folded_round_trip("keep\n\n"), "keep\n\n\n");
        // Plain folding reads back unchanged.
        assert_eq!(folded_round_trip("one two\nthree\n"), "one two\nthree\n");
        assert_eq!(folded_round_trip("a\n\nb"), "a\n\nb");
        assert_eq!(folded_round_trip("single line"), "single line");
    }
}
