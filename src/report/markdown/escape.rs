//! Text made safe for GitHub's Markdown: code spans that hold any text literally, prose with
//! every markup character escaped, and text for the HTML elements the report embeds.

use crate::report::escape;

/// A code span that holds `s` literally: its delimiter is longer than any backtick run in
/// `s`, and it is padded when `s` starts or ends with a backtick or a space (CommonMark strips
/// one space from each side).
pub fn code(s: &str) -> String {
    let s = s.replace(['\n', '\r'], " ");
    if s.is_empty() {
        return "` `".to_string();
    }
    let delim = "`".repeat(backtick_run(&s) + 1);
    let pad = s.starts_with('`')
        || s.ends_with('`')
        || (s.starts_with(' ') && s.ends_with(' ') && !s.trim().is_empty());
    if pad {
        format!("{delim} {s} {delim}")
    } else {
        format!("{delim}{s}{delim}")
    }
}

/// The longest run of backticks in `s`: a code span's delimiter or a fence must be longer.
pub(super) fn backtick_run(s: &str) -> usize {
    let (mut longest, mut run) = (0, 0);
    for c in s.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    longest
}

/// Prose for inline Markdown: every character that could start markup is backslash-escaped
/// (CommonMark allows that for any ASCII punctuation), line breaks become spaces, and `|` is
/// escaped so the text is also safe in a table cell.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~' | '#' | '&' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

/// Text for inside an HTML element (`<summary>`), where Markdown is not processed. It stays on
/// one line: a blank line would end the HTML block early.
pub fn html(s: &str) -> String {
    escape::html(&s.replace(['\n', '\r'], " "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_survive_backticks_and_spaces() {
        assert_eq!(code("a"), "`a`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x`"), "`` `x` ``");
        assert_eq!(code(" x "), "`  x  `");
        assert_eq!(code("a\nb"), "`a b`");
    }

    #[test]
    fn prose_is_escaped() {
        assert_eq!(text("a|b <c> *d*\n"), "a\\|b \\<c\\> \\*d\\* ");
        assert_eq!(html("<b>&\"</b>"), "&lt;b&gt;&amp;&quot;&lt;/b&gt;");
        assert_eq!(html("a\r\nb"), "a  b");
    }
}
