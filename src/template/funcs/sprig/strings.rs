//! sprig's `strings.go` and the string functions its `functions.go` takes from Go's `strings`
//! and from xstrings and goutils: case, trimming, quoting, indenting, splitting, joining,
//! abbreviating and wrapping, and `strval`, how sprig turns any value into text.

use super::{int, s, A, I, S};
use crate::go::unicode::{self, to_lower, to_title, to_upper};
use crate::template::fmt::{sprint_value, sprintf};
use crate::template::value::{Dict, MapType, Value};
use crate::template::{gostr, FuncDef, FuncError};

/// The string functions.
pub(super) const FUNCS: &[FuncDef] = &[
    FuncDef::new("hello", &[], |_, _| Ok(Value::str("Hello!"))),
    // Go maps each character on its own (simple mappings: `ß` stays, `İ` is `i`, no
    // final-sigma rule), and each byte that is not UTF-8 to U+FFFD.
    FuncDef::new("upper", &[S], |_, a| {
        Ok(Value::str(
            gostr::display(s(a, 0))
                .chars()
                .map(to_upper)
                .collect::<String>(),
        ))
    }),
    FuncDef::new("lower", &[S], |_, a| {
        Ok(Value::str(
            gostr::display(s(a, 0))
                .chars()
                .map(to_lower)
                .collect::<String>(),
        ))
    }),
    FuncDef::new("title", &[S], |_, a| Ok(Value::str(title(s(a, 0))))),
    FuncDef::new("untitle", &[S], |_, a| Ok(Value::str(untitle(s(a, 0))))),
    FuncDef::new("substr", &[I, I, S], |_, a| {
        substr(int(a, 0), int(a, 1), s(a, 2)).map(Value::str)
    }),
    FuncDef::new("repeat", &[I, S], |_, a| {
        let n = int(a, 0);
        if n < 0 {
            return Err(FuncError::Call("strings: negative Repeat count".into()));
        }
        Ok(Value::str(s(a, 1).repeat(n as usize)))
    }),
    FuncDef::new("trim", &[S], |_, a| {
        Ok(Value::str(s(a, 0).trim_matches(is_go_space)))
    }),
    FuncDef::new("trimAll", &[S, S], |_, a| {
        let cut: Vec<char> = s(a, 0).chars().collect();
        Ok(Value::str(s(a, 1).trim_matches(|c| cut.contains(&c))))
    }),
    FuncDef::new("trimSuffix", &[S, S], |_, a| {
        Ok(Value::str(s(a, 1).strip_suffix(s(a, 0)).unwrap_or(s(a, 1))))
    }),
    FuncDef::new("trimPrefix", &[S, S], |_, a| {
        Ok(Value::str(s(a, 1).strip_prefix(s(a, 0)).unwrap_or(s(a, 1))))
    }),
    FuncDef::new("nospace", &[S], |_, a| Ok(Value::str(nospace(s(a, 0))))),
    FuncDef::new("initials", &[S], |_, a| Ok(Value::str(initials(s(a, 0))))),
    FuncDef::new("swapcase", &[S], |_, a| Ok(Value::str(swapcase(s(a, 0))))),
    FuncDef::new("snakecase", &[S], |_, a| {
        Ok(Value::str(camel_case_to_lower_case(s(a, 0), '_')))
    }),
    FuncDef::new("kebabcase", &[S], |_, a| {
        Ok(Value::str(camel_case_to_lower_case(s(a, 0), '-')))
    }),
    FuncDef::new("camelcase", &[S], |_, a| Ok(Value::str(camelcase(s(a, 0))))),
    FuncDef::new("contains", &[S, S], |_, a| {
        Ok(Value::Bool(s(a, 1).contains(s(a, 0))))
    }),
    FuncDef::new("hasPrefix", &[S, S], |_, a| {
        Ok(Value::Bool(s(a, 1).starts_with(s(a, 0))))
    }),
    FuncDef::new("hasSuffix", &[S, S], |_, a| {
        Ok(Value::Bool(s(a, 1).ends_with(s(a, 0))))
    }),
    FuncDef::variadic("quote", &[], A, |_, a| {
        Ok(Value::str(
            a.iter()
                .filter(|v| !matches!(v, Value::Nil))
                .map(|v| crate::template::fmt::go_quote(&strval(v)))
                .collect::<Vec<_>>()
                .join(" "),
        ))
    }),
    FuncDef::variadic("squote", &[], A, |_, a| {
        Ok(Value::str(
            a.iter()
                .filter(|v| !matches!(v, Value::Nil))
                .map(|v| format!("'{}'", strval(v)))
                .collect::<Vec<_>>()
                .join(" "),
        ))
    }),
    FuncDef::variadic("cat", &[], A, |_, a| {
        Ok(Value::str(
            a.iter()
                .filter(|v| !matches!(v, Value::Nil))
                // `fmt.Sprintf("%v ...")`, not `strval`: a `[]byte` prints its numbers.
                .map(sprint_value)
                .collect::<Vec<_>>()
                .join(" "),
        ))
    }),
    FuncDef::new("indent", &[I, S], |_, a| {
        indent(int(a, 0), s(a, 1)).map(Value::str)
    }),
    FuncDef::new("nindent", &[I, S], |_, a| {
        indent(int(a, 0), s(a, 1)).map(|t| Value::str(format!("\n{t}")))
    }),
    FuncDef::new("replace", &[S, S, S], |_, a| {
        Ok(Value::str(go_replace(s(a, 2), s(a, 0), s(a, 1))))
    }),
    FuncDef::new("plural", &[S, S, I], |_, a| {
        Ok(Value::str(if int(a, 2) == 1 { s(a, 0) } else { s(a, 1) }))
    }),
    FuncDef::new("trunc", &[I, S], |_, a| {
        // Go slices the string's bytes, which may cut a character.
        let (c, text) = (int(a, 0), gostr::to_bytes(s(a, 1)));
        let len = text.len() as i64;
        Ok(if c < 0 && len + c > 0 {
            Value::str(gostr::from_bytes(&text[(len + c) as usize..]))
        } else if c >= 0 && len > c {
            Value::str(gostr::from_bytes(&text[..c as usize]))
        } else {
            Value::str(s(a, 1))
        })
    }),
    FuncDef::new("abbrevboth", &[I, I, S], |_, a| {
        let (left, right) = (int(a, 0), int(a, 1));
        if right < 4 || (left > 0 && right < 7) {
            return Ok(a[2].clone());
        }
        Ok(Value::str(abbrev_full(s(a, 2), left, right)))
    }),
    FuncDef::new("abbrev", &[I, S], |_, a| {
        Ok(Value::str(abbrev(int(a, 0), s(a, 1))))
    }),
    FuncDef::new("wrap", &[I, S], |_, a| {
        Ok(Value::str(wrap(int(a, 0), "", s(a, 1), false)))
    }),
    FuncDef::new("wrapWith", &[I, S, S], |_, a| {
        Ok(Value::str(wrap(int(a, 0), s(a, 1), s(a, 2), true)))
    }),
    FuncDef::new("join", &[S, A], |_, a| {
        Ok(Value::str(strslice(&a[1]).join(s(a, 0))))
    }),
    FuncDef::new("split", &[S, S], |_, a| {
        let parts = go_split(s(a, 1), s(a, 0), -1);
        Ok(string_map(parts))
    }),
    FuncDef::new("splitn", &[S, I, S], |_, a| {
        let parts = go_split(s(a, 2), s(a, 0), int(a, 1));
        Ok(string_map(parts))
    }),
    FuncDef::new("splitList", &[S, S], |_, a| {
        Ok(Value::strings(go_split(s(a, 1), s(a, 0), -1)))
    }),
    FuncDef::new("toStrings", &[A], |_, a| {
        if super::lists::is_nil_strings(&a[0]) {
            return Ok(a[0].clone());
        }
        Ok(Value::strings(strslice(&a[0])))
    }),
    FuncDef::new("toString", &[A], |_, a| Ok(Value::str(strval(&a[0])))),
    FuncDef::variadic("printf", &[S], A, |_, a| {
        Ok(Value::str(sprintf(s(a, 0), &a[1..])))
    }),
];

fn is_go_space(c: char) -> bool {
    c.is_whitespace()
}

/// sprig's `strval`: a string as it is, a `[]byte` as its text, anything else as `%v` prints
/// it.
pub fn strval(v: &Value) -> String {
    if let Some(bytes) = v.as_bytes() {
        return bytes.to_string();
    }
    match v {
        Value::String(s) => s.to_string(),
        other => sprint_value(other),
    }
}

/// sprig's `strslice`: a list's elements as strings (nil elements dropped), a string as a
/// one-element list, nil as empty, anything else as its `%v` text.
pub(super) fn strslice(v: &Value) -> Vec<String> {
    if let Some(items) = v.slice_items() {
        return items
            .iter()
            .filter(|x| !matches!(x, Value::Nil | Value::NoValue))
            .map(strval)
            .collect();
    }
    match v {
        Value::Nil | Value::NoValue => Vec::new(),
        other => vec![strval(other)],
    }
}

/// `strings.Title`: each rune after a separator (ASCII but letters, digits and `_`; beyond
/// ASCII, white space only) is mapped to title case, even one that is no letter.
fn title(s: &str) -> String {
    let separator = |c: char| {
        if c.is_ascii() {
            !(c.is_ascii_alphanumeric() || c == '_')
        } else {
            !(unicode::is_letter(c) || unicode::is_digit(c)) && unicode::is_space(c)
        }
    };
    let mut prev = ' ';
    gostr::display(s)
        .chars()
        .map(|c| {
            let mapped = if separator(prev) { to_title(c) } else { c };
            prev = c;
            mapped
        })
        .collect()
}

/// goutils' `Uncapitalize`: the first rune of each word (after white space) in lower case.
fn untitle(s: &str) -> String {
    let mut start = true;
    gostr::display(s)
        .chars()
        .map(|c| {
            let mapped = if start && !unicode::is_space(c) {
                to_lower(c)
            } else {
                c
            };
            start = unicode::is_space(c);
            mapped
        })
        .collect()
}

/// goutils' `Initials`, which walks bytes, not runes: the first byte of each word, as the
/// Latin-1 character of that value (`✓` gives `â`); U+0085 and U+00A0 are white space there,
/// so a continuation byte 0x85 or 0xA0 ends a word.
fn initials(s: &str) -> String {
    let mut gap = true;
    let mut out = String::new();
    for &b in gostr::to_bytes(s).iter() {
        let c = char::from(b);
        if unicode::is_space(c) {
            gap = true;
        } else if gap {
            out.push(c);
            gap = false;
        }
    }
    out
}

/// sprig's `substr` with Go's slice bounds (a bad range is Go's runtime error).
fn substr(start: i64, end: i64, s: &str) -> Result<String, FuncError> {
    let b = gostr::to_bytes(s);
    let len = b.len() as i64;
    let oob = |lo: i64, hi: i64| {
        FuncError::Call(format!(
            "runtime error: slice bounds out of range [{lo}:{hi}]"
        ))
    };
    let slice = if start < 0 {
        if end < 0 || end > len {
            return Err(FuncError::Call(format!(
                "runtime error: slice bounds out of range [:{end}] with length {len}"
            )));
        }
        &b[..end as usize]
    } else if end < 0 || end > len {
        if start > len {
            return Err(oob(start, len));
        }
        &b[start as usize..]
    } else {
        if start > end {
            return Err(oob(start, end));
        }
        &b[start as usize..end as usize]
    };
    Ok(gostr::from_bytes(slice))
}

/// goutils' `SwapCase`: upper (Lu) and title case (Lt) to lower, lower case (Ll) to upper.
fn swapcase(s: &str) -> String {
    gostr::display(s)
        .chars()
        .map(|c| {
            if unicode::is_upper(c) || unicode::is_title(c) {
                to_lower(c)
            } else if unicode::is_lower(c) {
                to_upper(c)
            } else {
                c
            }
        })
        .collect()
}

/// xstrings' word kinds (`nextWord`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Word {
    Invalid,
    Number,
    UpperCase,
    Alphabet,
    Connector,
    Punct,
    Other,
}

/// xstrings' `isConnector`.
fn is_connector(c: char) -> bool {
    c == '-' || c == '_' || unicode::is_space(c)
}

/// xstrings' `isAlphabet`: a letter, but not a CJK ideograph.
fn is_alphabet(c: char) -> bool {
    unicode::is_letter(c)
        && !matches!(c, '\u{4E00}'..='\u{9FCC}' | '\u{3400}'..='\u{4D85}' | '\u{20000}'..='\u{2B81D}')
}

/// A rune as `utf8.DecodeRuneInString` gives it: a byte that is not UTF-8 is `RuneError`,
/// like U+FFFD itself.
fn rune(c: char) -> char {
    if gostr::is_carried(c) {
        '\u{FFFD}'
    } else {
        c
    }
}

/// xstrings' `nextValidRune`: the next rune that is not `RuneError` and the number of runes
/// to it (`prev` when there is none).
fn next_valid_rune(s: &[char], prev: char) -> (char, usize) {
    match s.iter().position(|&c| rune(c) != '\u{FFFD}') {
        Some(i) => (s[i], i + 1),
        None => (prev, s.len()),
    }
}

/// xstrings' `nextWord`: the kind and length (in runes) of the word `s` starts with.
fn next_word(s: &[char]) -> (Word, usize) {
    if s.is_empty() {
        return (Word::Invalid, 0);
    }
    let (r, size) = next_valid_rune(s, '\u{FFFD}');
    let mut offset = size;
    if rune(r) == '\u{FFFD}' {
        return (Word::Invalid, offset);
    }
    // Extends the word over the runes `more` takes; `offset` is where the word ends.
    let extend = |offset: &mut usize, mut r: char, more: &dyn Fn(char) -> bool| {
        while *offset < s.len() {
            let (next, size) = next_valid_rune(&s[*offset..], r);
            r = next;
            if !more(r) {
                break;
            }
            *offset += size;
        }
    };
    let kind = if is_connector(r) {
        extend(&mut offset, r, &is_connector);
        Word::Connector
    } else if unicode::is_punct(r) {
        extend(&mut offset, r, &unicode::is_punct);
        Word::Punct
    } else if unicode::is_upper(r) {
        if offset < s.len() {
            let (next, size) = next_valid_rune(&s[offset..], r);
            if unicode::is_upper(next) {
                // "HTTPStatus" is "HTTP" and "Status": the last upper-case rune before a
                // letter starts the next word.
                let mut prev_size = size;
                offset += size;
                let mut r = next;
                while offset < s.len() {
                    let (next, size) = next_valid_rune(&s[offset..], r);
                    r = next;
                    if !unicode::is_upper(r) {
                        break;
                    }
                    prev_size = size;
                    offset += size;
                }
                if offset < s.len() && is_alphabet(r) {
                    offset -= prev_size;
                }
            } else if is_alphabet(next) {
                offset += size;
                extend(&mut offset, next, &|c| {
                    is_alphabet(c) && !unicode::is_upper(c)
                });
            }
        }
        Word::UpperCase
    } else if is_alphabet(r) {
        extend(&mut offset, r, &|c| is_alphabet(c) && !unicode::is_upper(c));
        Word::Alphabet
    } else if unicode::is_number(r) {
        extend(&mut offset, r, &unicode::is_number);
        Word::Number
    } else {
        extend(&mut offset, r, &|c| {
            !(is_connector(c) || is_alphabet(c) || unicode::is_number(c) || unicode::is_punct(c))
        });
        Word::Other
    };
    (kind, offset)
}

/// xstrings' `toLower`: an upper-case or connector word is written rune by rune, connectors
/// as `connector` and upper case in lower case; any other word as it is.
fn write_lower(out: &mut String, kind: Word, word: &[char], connector: char) {
    if kind != Word::UpperCase && kind != Word::Connector {
        out.extend(word);
        return;
    }
    for &c in word {
        let c = rune(c);
        out.push(if is_connector(c) {
            connector
        } else if unicode::is_upper(c) {
            to_lower(c)
        } else {
            c
        });
    }
}

/// The next word of `rest`, taken off it.
fn take<'a>(rest: &mut &'a [char]) -> (Word, &'a [char]) {
    let (kind, len) = next_word(rest);
    let (word, tail) = rest.split_at(len);
    *rest = tail;
    (kind, word)
}

/// xstrings' `camelCaseToLowerCase` (`ToSnakeCase`, `ToKebabCase`): words split at case
/// changes, numbers and connectors, joined with `connector`; punctuation stays.
fn camel_case_to_lower_case(s: &str, connector: char) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut rest = &chars[..];
    let (mut kind, mut word) = take(&mut rest);
    while !rest.is_empty() {
        if kind != Word::Connector {
            write_lower(&mut out, kind, word, connector);
        }
        let (prev, last) = (kind, word);
        (kind, word) = take(&mut rest);
        match prev {
            Word::Number => {
                while kind == Word::Alphabet || kind == Word::Number {
                    write_lower(&mut out, kind, word, connector);
                    (kind, word) = take(&mut rest);
                }
                if !matches!(kind, Word::Invalid | Word::Punct | Word::Connector) {
                    out.push(connector);
                }
            }
            Word::Connector => write_lower(&mut out, prev, last, connector),
            Word::Punct => {}
            _ => {
                if kind != Word::Number {
                    if kind != Word::Connector && kind != Word::Punct {
                        out.push(connector);
                    }
                    continue;
                }
                if rest.is_empty() {
                    continue;
                }
                let number = word;
                (kind, word) = take(&mut rest);
                // A number is part of the word before it ("Bld4Floor" is "bld4_floor")
                // unless lower-case letters follow it ("HTTP2xx" is "http_2xx").
                if kind != Word::Alphabet {
                    write_lower(&mut out, Word::Number, number, connector);
                    if kind != Word::Connector && kind != Word::Punct {
                        out.push(connector);
                    }
                    continue;
                }
                out.push(connector);
                write_lower(&mut out, Word::Number, number, connector);
                while kind == Word::Alphabet || kind == Word::Number {
                    write_lower(&mut out, kind, word, connector);
                    (kind, word) = take(&mut rest);
                }
                if !matches!(kind, Word::Invalid | Word::Connector | Word::Punct) {
                    out.push(connector);
                }
            }
        }
    }
    write_lower(&mut out, kind, word, connector);
    out
}

/// xstrings v1.5.0's `ToCamelCase`: connectors (`-`, `_`, spaces) dropped and the letter after
/// each upper-cased, a run of capitals that starts a word lower-cased after its first
/// (`GOLANG_IS_GREAT` is `GolangIsGreat`); leading connectors, and all but the last of a run,
/// kept.
fn camelcase(s: &str) -> String {
    let (connector, upper) = (is_connector, to_upper);
    let s = gostr::display(s);
    let mut out = String::new();
    let mut chars = s.chars();
    let mut r0 = None;
    // Whether the word so far is capitals only (its first letter was one).
    let mut capitals = false;
    for c in chars.by_ref() {
        if !connector(c) {
            capitals = unicode::is_upper(c);
            r0 = Some(upper(c));
            break;
        }
        out.push(c);
        r0 = Some(c);
    }
    let Some(mut r0) = r0 else {
        return out;
    };
    for c in chars {
        let r1 = r0;
        r0 = c;
        if connector(r0) && connector(r1) {
            out.push(r1);
            continue;
        }
        if connector(r1) {
            capitals = unicode::is_upper(r0);
            r0 = upper(r0);
        } else {
            if capitals {
                if unicode::is_upper(r0) {
                    r0 = to_lower(r0);
                } else {
                    capitals = false;
                }
            }
            out.push(r1);
        }
    }
    out.push(r0);
    out
}

fn indent(n: i64, s: &str) -> Result<String, FuncError> {
    if n < 0 {
        return Err(FuncError::Call("strings: negative Repeat count".into()));
    }
    let pad = " ".repeat(n as usize);
    Ok(format!("{pad}{}", s.replace('\n', &format!("\n{pad}"))))
}

/// strings.Replace with n = -1 (an empty `old` inserts `new` around every character).
fn go_replace(s: &str, old: &str, new: &str) -> String {
    if old.is_empty() {
        let mut out = String::from(new);
        for c in s.chars() {
            out.push(c);
            out.push_str(new);
        }
        return out;
    }
    s.replace(old, new)
}

/// strings.SplitN (n < 0: all; an empty separator splits into characters).
fn go_split(s: &str, sep: &str, n: i64) -> Vec<String> {
    if n == 0 {
        return Vec::new();
    }
    if sep.is_empty() {
        let mut parts: Vec<String> = s.chars().map(String::from).collect();
        if n > 0 && parts.len() > n as usize {
            let rest: String = parts[n as usize - 1..].concat();
            parts.truncate(n as usize - 1);
            parts.push(rest);
        }
        return parts;
    }
    if n < 0 {
        s.split(sep).map(String::from).collect()
    } else {
        s.splitn(n as usize, sep).map(String::from).collect()
    }
}

/// goutils' `AbbreviateFull`, on bytes as Go slices strings (a cut may split a character).
fn abbrev_full(s: &str, offset: i64, width: i64) -> String {
    let b = gostr::to_bytes(s);
    let len = b.len() as i64;
    if b.is_empty() || width < 4 {
        return String::new();
    }
    if len <= width {
        return s.to_string();
    }
    let mut offset = offset.min(len);
    if len - offset < width - 3 {
        offset = len - (width - 3);
    }
    let at = |i: i64| i.clamp(0, len) as usize;
    let text = |bytes: &[u8]| gostr::from_bytes(bytes);
    if offset <= 4 {
        return format!("{}...", text(&b[..at(width - 3)]));
    }
    if width < 7 {
        return String::new();
    }
    if offset + width - 3 < len {
        return format!("...{}", abbrev_full(&text(&b[at(offset)..]), 0, width - 3));
    }
    format!("...{}", text(&b[at(len - (width - 3))..]))
}

/// sprig's `abbrev`: the first `width - 3` bytes and `...` (Go cuts bytes, so a character may
/// be split).
fn abbrev(width: i64, s: &str) -> String {
    let b = gostr::to_bytes(s);
    if width < 4 || (b.len() as i64) <= width {
        return s.to_string();
    }
    format!("{}...", gostr::from_bytes(&b[..(width - 3) as usize]))
}

/// goutils.WrapCustom with wrapLongWords = false.
/// goutils' `WrapCustom`, which sprig's `wrap` (long words kept whole) and `wrapWith` (long
/// words cut every `width` bytes) call. It works on bytes and knows only ' ' as a break, so a
/// cut long word may split a character and a '\n' in the text counts as a letter.
fn wrap(width: i64, sep: &str, s: &str, wrap_long_words: bool) -> String {
    let b = gostr::to_bytes(s);
    if b.is_empty() {
        return String::new();
    }
    let sep = if sep.is_empty() { "\n" } else { sep };
    let sep = gostr::to_bytes(sep);
    let width = width.max(1) as usize;
    let mut out = Vec::with_capacity(b.len());
    let mut offset = 0;
    while b.len() - offset > width {
        if b[offset] == b' ' {
            offset += 1;
            continue;
        }
        let window = &b[offset..offset + width + 1];
        if let Some(at) = window.iter().rposition(|&c| c == b' ') {
            out.extend_from_slice(&b[offset..offset + at]);
            out.extend_from_slice(&sep);
            offset += at + 1;
        } else if wrap_long_words {
            out.extend_from_slice(&b[offset..offset + width]);
            out.extend_from_slice(&sep);
            offset += width;
        } else {
            let end = offset + width;
            match b[end..].iter().position(|&c| c == b' ') {
                Some(at) => {
                    out.extend_from_slice(&b[offset..end + at]);
                    out.extend_from_slice(&sep);
                    offset = end + at + 1;
                }
                None => {
                    out.extend_from_slice(&b[offset..]);
                    offset = b.len();
                }
            }
        }
    }
    out.extend_from_slice(&b[offset..]);
    gostr::from_bytes(&out)
}

/// sprig's `split`: a `map[string]string` from `_0`, `_1`, … to the parts.
fn string_map(parts: Vec<String>) -> Value {
    let entries = parts
        .into_iter()
        .enumerate()
        .map(|(i, p)| (format!("_{i}"), Value::str(p)));
    Value::Map(Dict::typed(entries.collect(), MapType::String))
}

/// goutils' `DeleteWhiteSpace`, which sprig's `nospace` calls: it reads the string a byte at a
/// time, drops the bytes `unicode.IsSpace` holds for spaces as runes (U+0085 and U+00A0 too),
/// and writes every other byte back as the rune of its value, so a multi-byte character comes
/// out as its bytes' Latin-1 characters. A string without such a byte is returned as it is.
fn nospace(text: &str) -> String {
    let is_space = |b: u8| matches!(b, b'\t'..=b'\r' | b' ' | 0x85 | 0xA0);
    let bytes = gostr::to_bytes(text);
    if !bytes.iter().any(|&b| is_space(b)) {
        return text.to_string();
    }
    bytes
        .iter()
        .filter(|&&b| !is_space(b))
        .map(|&b| char::from(b))
        .collect()
}
