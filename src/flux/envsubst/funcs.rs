//! envsubst's functions (`funcs.go`) on Go's bytes and runes, and its patterns
//! (`path/match.go`).

use super::*;
use crate::go::unicode::{to_lower, to_upper};

/// `lookupFunc` and the function it picks. Every default operator, and any operator it does
/// not know, is `toDefault`: "empty or unset gives the default".
pub(super) fn apply(name: &str, s: Vec<u8>, args: &[Vec<u8>]) -> Result<Vec<u8>, Error> {
    let arg = |i: usize| args.get(i).map(Vec::as_slice);
    Ok(match name {
        "," => map_first(&s, to_lower),
        ",," => map_runes(&s, to_lower),
        "^" => map_first(&s, to_upper),
        "^^" => map_runes(&s, to_upper),
        "#" if args.is_empty() => s.len().to_string().into_bytes(),
        "#" => trim_prefix(&s, args[0].as_slice(), false),
        "##" => match arg(0) {
            Some(p) => trim_prefix(&s, p, true),
            None => s,
        },
        "%" | "%%" => match arg(0) {
            Some(p) => trim_suffix(&s, p, name == "%%"),
            None => s,
        },
        ":" => substring(s, args)?,
        "/#" => match (arg(0), arg(1), args.len()) {
            (Some(p), Some(r), 2) if s.starts_with(p) => replace(&s, p, r, Some(1)),
            _ => s,
        },
        "/%" => match (arg(0), arg(1), args.len()) {
            (Some(p), Some(r), 2) if s.ends_with(p) => [&s[..s.len() - p.len()], r].concat(),
            _ => s,
        },
        "/" | "//" => {
            let n = if name == "/" { Some(1) } else { None };
            match arg(0) {
                Some(p) => replace(&s, p, arg(1).unwrap_or(b""), n),
                None => s,
            }
        }
        _ if s.is_empty() && !args.is_empty() => args.concat(),
        _ => s,
    })
}

/// `toSubstr`, on bytes. An offset or length that is not a number gives the value unchanged
/// (so `${env:FOO}` is `${env}`).
pub(super) fn substring(s: Vec<u8>, args: &[Vec<u8>]) -> Result<Vec<u8>, Error> {
    let Some(first) = args.first() else {
        return Ok(s);
    };
    let Some(mut pos) = atoi(first) else {
        return Ok(s);
    };
    let n = s.len() as i64;
    if pos < 0 {
        pos = (n + pos).max(0);
    }
    let rest = |pos: i64| {
        if pos < n {
            s[pos as usize..].to_vec()
        } else {
            Vec::new()
        }
    };
    let Some(second) = args.get(1) else {
        return Ok(rest(pos));
    };
    let Some(length) = atoi(second) else {
        return Ok(s);
    };
    // Go's int arithmetic wraps.
    let end = pos.wrapping_add(length);
    if end >= n {
        return Ok(rest(pos));
    }
    if end < 0 {
        return Err(Error::SliceBounds(format!(":{end}")));
    }
    if end < pos {
        return Err(Error::SliceBounds(format!("{pos}:{end}")));
    }
    Ok(s[pos as usize..end as usize].to_vec())
}

/// Go's `strconv.Atoi`: an optional sign and decimal digits that fit an int64.
pub(super) fn atoi(b: &[u8]) -> Option<i64> {
    std::str::from_utf8(b).ok()?.parse().ok()
}

/// `trimShortest`/`trimLongest`: the shortest or longest prefix the pattern matches (never
/// the empty one) removed; a bad pattern leaves the value as it is.
pub(super) fn trim_prefix(s: &[u8], pattern: &[u8], longest: bool) -> Vec<u8> {
    let mut cut = 0;
    for end in (1..=s.len()).rev() {
        match glob_match(pattern, &s[..end]) {
            Err(BadPattern) => return s.to_vec(),
            Ok(true) => {
                cut = end;
                if longest {
                    break;
                }
            }
            Ok(false) => {}
        }
    }
    s[cut..].to_vec()
}

/// `%` and `%%`: the prefix functions on the value and the pattern both reversed rune by rune
/// (so `%.*` is `#*.` on the reversed value, and the value goes through runes).
pub(super) fn trim_suffix(s: &[u8], pattern: &[u8], longest: bool) -> Vec<u8> {
    reverse(&trim_prefix(&reverse(s), &reverse(pattern), longest))
}

/// Go's `strings.Replace` with `n` replacements (`None`: all). An empty pattern matches
/// before every rune and at the end.
pub(super) fn replace(s: &[u8], old: &[u8], new: &[u8], n: Option<usize>) -> Vec<u8> {
    if old == new || n == Some(0) {
        return s.to_vec();
    }
    let count = if old.is_empty() {
        runes(s).len() + 1
    } else {
        memchr::memmem::find_iter(s, old).count()
    };
    if count == 0 {
        return s.to_vec();
    }
    let n = n.map_or(count, |n| n.min(count));
    let mut out = Vec::with_capacity(s.len());
    let mut start = 0;
    for i in 0..n {
        let mut j = start;
        if old.is_empty() {
            if i > 0 {
                j += decode_rune(&s[start..]).1;
            }
        } else {
            j += memchr::memmem::find(&s[start..], old).expect("counted above");
        }
        out.extend_from_slice(&s[start..j]);
        out.extend_from_slice(new);
        start = j + old.len();
    }
    out.extend_from_slice(&s[start..]);
    out
}

// ---------------------------------------------------------------------------------------------
// Go's view of bytes as runes

/// `utf8.DecodeRune`: the rune at the start and its width; a byte that does not start a valid
/// sequence is U+FFFD of width 1 (width 0 for no bytes).
pub(super) fn decode_rune(b: &[u8]) -> (char, usize) {
    let Some(&first) = b.first() else {
        return (char::REPLACEMENT_CHARACTER, 0);
    };
    let n = match first {
        0x00..=0x7f => 1,
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return (char::REPLACEMENT_CHARACTER, 1),
    };
    match b.get(..n).and_then(|s| std::str::from_utf8(s).ok()) {
        Some(s) => (s.chars().next().expect("n bytes of UTF-8 hold a rune"), n),
        None => (char::REPLACEMENT_CHARACTER, 1),
    }
}

/// `[]rune(s)`.
pub(super) fn runes(mut b: &[u8]) -> Vec<char> {
    let mut out = Vec::with_capacity(b.len());
    while !b.is_empty() {
        let (r, w) = decode_rune(b);
        out.push(r);
        b = &b[w..];
    }
    out
}

pub(super) fn reverse(b: &[u8]) -> Vec<u8> {
    runes(b).into_iter().rev().collect::<String>().into_bytes()
}

/// `strings.Map`: every rune mapped, bytes that are not UTF-8 become U+FFFD.
pub(super) fn map_runes(b: &[u8], f: fn(char) -> char) -> Vec<u8> {
    runes(b).into_iter().map(f).collect::<String>().into_bytes()
}

/// The first rune mapped, the rest left as bytes.
pub(super) fn map_first(b: &[u8], f: fn(char) -> char) -> Vec<u8> {
    if b.is_empty() {
        return Vec::new();
    }
    let (r, w) = decode_rune(b);
    let mut out = f(r).to_string().into_bytes();
    out.extend_from_slice(&b[w..]);
    out
}

// ---------------------------------------------------------------------------------------------
// Patterns (`envsubst/path/match.go`): Go's `path.Match` where `*` and `?` also match `/` and
// a trailing `*` matches everything left.

pub(super) struct BadPattern;

pub(super) fn glob_match(mut pattern: &[u8], mut name: &[u8]) -> Result<bool, BadPattern> {
    'pattern: while !pattern.is_empty() {
        let (star, chunk, rest) = scan_chunk(pattern);
        pattern = rest;
        if star && chunk.is_empty() {
            return Ok(true);
        }
        match match_chunk(chunk, name)? {
            // The last chunk must use up the name, or a star may still find a later match.
            Some(t) if t.is_empty() || !pattern.is_empty() => {
                name = t;
                continue;
            }
            _ => {}
        }
        if star {
            for i in 0..name.len() {
                if let Some(t) = match_chunk(chunk, &name[i + 1..])? {
                    if pattern.is_empty() && !t.is_empty() {
                        continue;
                    }
                    name = t;
                    continue 'pattern;
                }
            }
        }
        return Ok(false);
    }
    Ok(name.is_empty())
}

/// The next chunk: leading stars, then the text up to a star outside `[…]`.
pub(super) fn scan_chunk(mut pattern: &[u8]) -> (bool, &[u8], &[u8]) {
    let mut star = false;
    while let Some(rest) = pattern.strip_prefix(b"*") {
        pattern = rest;
        star = true;
    }
    let mut in_range = false;
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            b'\\' if i + 1 < pattern.len() => i += 1,
            b'[' => in_range = true,
            b']' => in_range = false,
            b'*' if !in_range => break,
            _ => {}
        }
        i += 1;
    }
    (star, &pattern[..i], &pattern[i..])
}

/// Matches a chunk at the start of `s`: the rest of `s` when it does, `None` when it does not.
pub(super) fn match_chunk<'s>(
    mut chunk: &[u8],
    mut s: &'s [u8],
) -> Result<Option<&'s [u8]>, BadPattern> {
    while let Some(&c) = chunk.first() {
        if s.is_empty() {
            return Ok(None);
        }
        match c {
            b'[' => {
                let (r, n) = decode_rune(s);
                s = &s[n..];
                chunk = &chunk[1..];
                let negated = chunk.first() == Some(&b'^');
                if negated {
                    chunk = &chunk[1..];
                }
                let mut matched = false;
                let mut ranges = 0;
                loop {
                    if ranges > 0 && chunk.first() == Some(&b']') {
                        chunk = &chunk[1..];
                        break;
                    }
                    let (lo, rest) = class_char(chunk)?;
                    chunk = rest;
                    let mut hi = lo;
                    if chunk[0] == b'-' {
                        (hi, chunk) = class_char(&chunk[1..])?;
                    }
                    if lo <= r && r <= hi {
                        matched = true;
                    }
                    ranges += 1;
                }
                if matched == negated {
                    return Ok(None);
                }
            }
            b'?' => {
                s = &s[decode_rune(s).1..];
                chunk = &chunk[1..];
            }
            _ => {
                if c == b'\\' {
                    chunk = &chunk[1..];
                    if chunk.is_empty() {
                        return Err(BadPattern);
                    }
                }
                if chunk[0] != s[0] {
                    return Ok(None);
                }
                s = &s[1..];
                chunk = &chunk[1..];
            }
        }
    }
    Ok(Some(s))
}

/// `getEsc`: a possibly escaped character of a class; the class may not end after it.
pub(super) fn class_char(mut chunk: &[u8]) -> Result<(char, &[u8]), BadPattern> {
    match chunk.first() {
        None | Some(b'-') | Some(b']') => return Err(BadPattern),
        Some(b'\\') => {
            chunk = &chunk[1..];
            if chunk.is_empty() {
                return Err(BadPattern);
            }
        }
        _ => {}
    }
    let (r, n) = decode_rune(chunk);
    let rest = &chunk[n..];
    if (r == char::REPLACEMENT_CHARACTER && n == 1) || rest.is_empty() {
        return Err(BadPattern);
    }
    Ok((r, rest))
}
