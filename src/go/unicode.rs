//! Go's `unicode` package as the Go code kdelta mirrors uses it: the general categories
//! (`IsLetter` is category L, where `char::is_alphabetic` also takes marks and numerals;
//! `IsUpper` is Lu, where `char::is_uppercase` also takes Ⓐ) and the simple, one-rune case
//! mappings (`ToUpper('ß')` is `ß`, where Rust's full mapping gives `SS`).

use std::sync::LazyLock;

/// A predicate on general categories: ASCII answered directly, any other character by a
/// `\p{…}` class of the regex crate's Unicode tables (the ones this build already carries).
macro_rules! category {
    ($(#[$doc:meta])* $name:ident, $pattern:literal, $ascii:expr) => {
        $(#[$doc])*
        pub fn $name(c: char) -> bool {
            static CLASS: LazyLock<regex::Regex> =
                LazyLock::new(|| regex::Regex::new($pattern).expect("a valid constant pattern"));
            if c.is_ascii() {
                let ascii: fn(char) -> bool = $ascii;
                return ascii(c);
            }
            CLASS.is_match(c.encode_utf8(&mut [0; 4]))
        }
    };
}

category!(
    /// `unicode.IsLetter`: category L.
    is_letter, r"^\p{L}$", |c| c.is_ascii_alphabetic()
);
category!(
    /// `unicode.IsUpper`: category Lu.
    is_upper, r"^\p{Lu}$", |c| c.is_ascii_uppercase()
);
category!(
    /// `unicode.IsLower`: category Ll.
    is_lower, r"^\p{Ll}$", |c| c.is_ascii_lowercase()
);
category!(
    /// `unicode.IsTitle`: category Lt (`ǅ`).
    is_title, r"^\p{Lt}$", |_| false
);
category!(
    /// `unicode.IsPunct`: category P (ASCII's `$+<=>^`|~` are symbols).
    is_punct, r"^\p{P}$", |c| c.is_ascii_punctuation()
        && !matches!(c, '$' | '+' | '<' | '=' | '>' | '^' | '`' | '|' | '~')
);
category!(
    /// `unicode.IsNumber`: category N.
    is_number, r"^\p{N}$", |c| c.is_ascii_digit()
);
category!(
    /// `unicode.IsDigit`: category Nd.
    is_digit, r"^\p{Nd}$", |c| c.is_ascii_digit()
);
category!(
    /// `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space
    /// (no other space: U+00A0 is not printable, nor is a code point Unicode has not assigned).
    is_print, r"^[\p{L}\p{M}\p{N}\p{P}\p{S}]$", |c| (' '..='~').contains(&c)
);

/// `unicode.IsSpace`: Latin-1's `\t \n \v \f \r`, space, U+0085 and U+00A0, and the
/// White_Space property beyond (which is Rust's `char::is_whitespace`).
pub fn is_space(c: char) -> bool {
    c.is_whitespace()
}

/// `unicode.ToUpper`: Unicode's simple (one-rune) mapping; a rune whose uppercase is several
/// runes (`ß`) stays as it is.
pub fn to_upper(c: char) -> char {
    // Greek with ypogegrammeni: the full mapping is two runes (`ᾀ` → `ἈΙ`), the simple one
    // the title-case letter with prosgegrammeni (`ᾈ`).
    match c {
        '\u{1F80}'..='\u{1F87}' | '\u{1F90}'..='\u{1F97}' | '\u{1FA0}'..='\u{1FA7}' => {
            return char::from_u32(c as u32 + 8).unwrap_or(c)
        }
        '\u{1FB3}' => return '\u{1FBC}',
        '\u{1FC3}' => return '\u{1FCC}',
        '\u{1FF3}' => return '\u{1FFC}',
        _ => {}
    }
    let mut up = c.to_uppercase();
    match (up.next(), up.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

/// `unicode.ToLower`: the simple mapping (`İ` is `i`, where Rust's full mapping adds a dot).
pub fn to_lower(c: char) -> char {
    if c == '\u{130}' {
        return 'i';
    }
    let mut low = c.to_lowercase();
    match (low.next(), low.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

/// `unicode.ToTitle`: the upper case but for the digraphs (`ǆ` is `ǅ`) and Georgian letters,
/// whose title case is themselves.
pub fn to_title(c: char) -> char {
    match c {
        '\u{1C4}'..='\u{1C6}' => '\u{1C5}',
        '\u{1C7}'..='\u{1C9}' => '\u{1C8}',
        '\u{1CA}'..='\u{1CC}' => '\u{1CB}',
        '\u{1F1}'..='\u{1F3}' => '\u{1F2}',
        '\u{10D0}'..='\u{10FA}' | '\u{10FD}'..='\u{10FF}' => c,
        _ => to_upper(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_are_go_s() {
        // Go: unicode.IsLetter('Ⅻ') is false (Nl), IsUpper('Ⓐ') false (So), IsPunct('$')
        // false (Sc), IsNumber('Ⅻ') and IsNumber('½') true.
        assert!(!is_letter('Ⅻ') && 'Ⅻ'.is_alphabetic());
        assert!(is_letter('é') && is_letter('日') && !is_letter('1'));
        assert!(!is_upper('Ⓐ') && 'Ⓐ'.is_uppercase());
        assert!(is_upper('É') && !is_upper('ǅ') && !is_lower('ǅ') && is_title('ǅ'));
        assert!(!is_punct('$') && !is_punct('+') && is_punct('-') && is_punct('_'));
        assert!(is_punct('«') && is_punct('。') && !is_punct('✓'));
        assert!(is_number('Ⅻ') && is_number('½') && !is_digit('½') && is_digit('٣'));
        assert!(is_space('\u{85}') && is_space('\u{a0}') && is_space('\u{3000}'));
        assert!(!is_space('\u{200b}'));
        assert!(is_print(' ') && is_print('é') && is_print('\u{301}') && is_print('✓'));
        assert!(!is_print('\u{a0}') && !is_print('\u{2028}') && !is_print('\u{ad}'));
        assert!(!is_print('\u{378}') && !is_print('\u{e000}') && !is_print('\t'));
    }

    #[test]
    fn case_mappings_are_simple() {
        assert_eq!(to_upper('ß'), 'ß');
        assert_eq!(to_upper('é'), 'É');
        assert_eq!(to_upper('ǆ'), 'Ǆ');
        assert_eq!(to_upper('ᾀ'), 'ᾈ');
        assert_eq!(to_upper('ᾳ'), 'ᾼ');
        assert_eq!(to_upper('ᾈ'), 'ᾈ');
        assert_eq!(to_lower('ᾈ'), 'ᾀ');
        assert_eq!(to_title('ǆ'), 'ǅ');
        assert_eq!(to_title('ა'), 'ა');
        assert_eq!(to_title('ᾀ'), 'ᾈ');
        assert_eq!(to_lower('İ'), 'i');
        assert_eq!(to_lower('Σ'), 'σ');
    }
}
