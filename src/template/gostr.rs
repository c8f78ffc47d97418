//! Go strings are byte strings; kdelta's are UTF-8. A Go string that is not UTF-8 (a binary
//! file read with `.Files.Get`, `b64dec` of random bytes) keeps its bytes here: each byte of
//! an invalid sequence becomes one character of Unicode's last private use plane
//! (U+10FF00 + the byte), which the functions that work on bytes (`b64enc`, the hashes) turn
//! back into that byte, and which output shows as U+FFFD, as a UTF-8 reader of Go's output
//! would see it.

use std::borrow::Cow;
use std::sync::Arc;

/// The character that carries byte 0.
const BASE: u32 = 0x10FF00;

/// Whether `c` carries a byte that is not UTF-8.
pub fn is_carried(c: char) -> bool {
    u32::from(c) >= BASE
}

/// The Go string of `bytes`: valid UTF-8 as it is, other bytes carried one by one.
pub fn from_bytes(bytes: &[u8]) -> String {
    // `from_utf8` checks a word at a time; the chunks below, a character at a time.
    if let Ok(text) = std::str::from_utf8(bytes) {
        return text.to_owned();
    }
    // Each byte that is not ASCII may become a four-byte character: sized once, not grown
    // (a binary file is megabytes of them).
    let high = bytes.iter().filter(|&&b| b >= 0x80).count();
    let mut out = String::with_capacity(bytes.len() + 3 * high);
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for &b in chunk.invalid() {
            out.push(char::from_u32(BASE + u32::from(b)).expect("a valid code point"));
        }
    }
    out
}

/// The Go string of shared bytes, without a copy when they are UTF-8 (as nearly all files
/// are): a chart's files are megabytes, and each copy costs fresh pages as well.
pub fn from_shared(bytes: Arc<[u8]>) -> Arc<str> {
    shared_utf8(bytes).unwrap_or_else(|bytes| Arc::from(from_bytes(&bytes)))
}

/// The shared bytes as a string without a copy when they are UTF-8; the bytes back otherwise.
pub fn shared_utf8(bytes: Arc<[u8]>) -> Result<Arc<str>, Arc<[u8]>> {
    if std::str::from_utf8(&bytes).is_err() {
        return Err(bytes);
    }
    // SAFETY: the bytes were just checked to be UTF-8, and `str` has the layout of `[u8]`, so
    // the allocation is a valid `Arc<str>` (what `Arc<str>: From<String>` relies on too).
    Ok(unsafe { Arc::from_raw(Arc::into_raw(bytes) as *const str) })
}

/// True when `s` carries bytes that are not UTF-8 (their characters encode as F4 8F BC..BF).
/// Every template's output is asked: the lead byte is looked for with memchr, which skips
/// text without it many bytes at a time.
fn carries_bytes(s: &str) -> bool {
    let b = s.as_bytes();
    memchr::memchr_iter(0xF4, b)
        .any(|i| b.get(i + 1) == Some(&0x8F) && matches!(b.get(i + 2), Some(0xBC..=0xBF)))
}

/// The bytes of a Go string.
pub fn to_bytes(s: &str) -> Cow<'_, [u8]> {
    if !carries_bytes(s) {
        return Cow::Borrowed(s.as_bytes());
    }
    let mut out = Vec::with_capacity(s.len());
    let mut buf = [0u8; 4];
    for c in s.chars() {
        match u32::from(c).checked_sub(BASE) {
            Some(b) => out.push(b as u8),
            None => out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes()),
        }
    }
    Cow::Owned(out)
}

/// `s` in runs: text, or a single carried byte (`true`). A string that carries no byte is one
/// run.
pub fn runs(s: &str) -> impl Iterator<Item = (&str, bool)> {
    let whole = !carries_bytes(s);
    let mut rest = s;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        if whole {
            return Some((std::mem::take(&mut rest), false));
        }
        let carried = |c: char| u32::from(c) >= BASE;
        let first = rest.chars().next()?;
        let end = if carried(first) {
            first.len_utf8()
        } else {
            rest.find(carried).unwrap_or(rest.len())
        };
        let (run, tail) = rest.split_at(end);
        rest = tail;
        Some((run, carried(first)))
    })
}

/// The text of a Go string for output: carried bytes shown as U+FFFD.
pub fn display(s: &str) -> Cow<'_, str> {
    if !carries_bytes(s) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.chars()
            .map(|c| if u32::from(c) >= BASE { '\u{FFFD}' } else { c })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_utf8_bytes_become_a_string_without_a_copy() {
        let bytes: Arc<[u8]> = Arc::from(&b"caf\xc3\xa9\n"[..]);
        let at = bytes.as_ptr();
        let s = from_shared(bytes);
        assert_eq!(&*s, "café\n");
        assert_eq!(s.as_ptr(), at, "the allocation is shared");
        let binary = from_shared(Arc::from(&b"BZh\xff"[..]));
        assert_eq!(to_bytes(&binary).as_ref(), b"BZh\xff");
    }

    #[test]
    fn runs_part_text_from_carried_bytes() {
        let s = from_bytes(b"ab\xff\xd8c\xc3(");
        let parts = runs_of(&s);
        let carried = |b: u8| char::from_u32(BASE + u32::from(b)).unwrap().to_string();
        let (ff, d8, c3) = (carried(0xff), carried(0xd8), carried(0xc3));
        let want = [
            ("ab", false),
            (ff.as_str(), true),
            (d8.as_str(), true),
            ("c", false),
            (c3.as_str(), true),
            ("(", false),
        ];
        assert_eq!(parts, want);
        assert_eq!(runs_of("plain text"), [("plain text", false)]);
        assert!(runs_of("").is_empty());
    }

    fn runs_of(s: &str) -> Vec<(&str, bool)> {
        runs(s).collect()
    }

    #[test]
    fn only_the_carrying_characters_are_carried_bytes() {
        assert!(carries_bytes(&from_bytes(b"\xff")));
        assert!(carries_bytes(&from_bytes(b"text \xf4 then \x80")));
        // Other characters of the plane, and of the lead byte F4: real text.
        for real in ["\u{10FE00}", "\u{100000}", "\u{10FEFF} é", "plain", ""] {
            assert!(!carries_bytes(real), "{real:?}");
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_survive_a_round_trip() {
        let raw = b"BZh9\xff\x00ok \xc3\xa9 \xe2\x82";
        let s = from_bytes(raw);
        assert_eq!(&*to_bytes(&s), raw);
        assert_eq!(display(&s), "BZh9\u{FFFD}\u{0}ok é \u{FFFD}\u{FFFD}");
        assert!(matches!(to_bytes("plain é"), Cow::Borrowed(_)));
    }
}
