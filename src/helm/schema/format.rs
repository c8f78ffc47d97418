//! gojsonschema v1.2.0's default `format` checkers, with the Go functions they call: `time.Parse`
//! for dates and times, `net.ParseIP`, `net/mail.ParseAddress`, `net/url.Parse`, and its
//! regular expressions. A format it does not know always passes.

use crate::go::regexp::{compile as go_regex, GoRegex};
use crate::go::url::Url;
use std::sync::OnceLock;

/// Whether gojsonschema has a checker for `format`.
pub fn is_known(format: &str) -> bool {
    matches!(
        format,
        "date"
            | "time"
            | "date-time"
            | "hostname"
            | "email"
            | "idn-email"
            | "ipv4"
            | "ipv6"
            | "uri"
            | "uri-reference"
            | "iri"
            | "iri-reference"
            | "uri-template"
            | "uuid"
            | "regex"
            | "json-pointer"
            | "relative-json-pointer"
    )
}

/// `FormatCheckers.IsFormat(format, s)`.
pub fn is_format(format: &str, s: &str) -> bool {
    let parses = |layout: &str| crate::template::GoTime::parse(layout, s).is_ok();
    match format {
        "date" => parses("2006-01-02"),
        "time" => parses("15:04:05Z07:00") || parses("15:04:05"),
        "date-time" => [
            "15:04:05",
            "15:04:05Z07:00",
            "2006-01-02",
            "2006-01-02T15:04:05Z07:00",
            "2006-01-02T15:04:05.999999999Z07:00",
        ]
        .into_iter()
        .any(parses),
        "hostname" => matches(&HOSTNAME, HOSTNAME_PATTERN, s) && s.len() < 256,
        "email" | "idn-email" => is_mail_address(s),
        "ipv4" => s.parse::<std::net::IpAddr>().is_ok() && s.contains('.'),
        "ipv6" => s.parse::<std::net::IpAddr>().is_ok() && s.contains(':'),
        "uri" | "iri" => !s.contains('\\') && Url::parse(s).is_ok_and(|u| !u.scheme.is_empty()),
        "uri-reference" | "iri-reference" => !s.contains('\\') && Url::parse(s).is_ok(),
        "uri-template" => {
            !s.contains('\\')
                && Url::parse(s)
                    .is_ok_and(|u| matches(&URI_TEMPLATE, URI_TEMPLATE_PATTERN, &u.path))
        }
        "uuid" => matches(&UUID, UUID_PATTERN, s),
        "regex" => s.is_empty() || go_regex(s).is_ok(),
        "json-pointer" => matches(&JSON_POINTER, JSON_POINTER_PATTERN, s),
        "relative-json-pointer" => {
            matches(&RELATIVE_JSON_POINTER, RELATIVE_JSON_POINTER_PATTERN, s)
        }
        _ => true,
    }
}

const HOSTNAME_PATTERN: &str = r"^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\-]{0,61}[a-zA-Z0-9])(\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\-]{0,61}[a-zA-Z0-9]))*$";
const URI_TEMPLATE_PATTERN: &str = "^([^{]*({[^}]*})?)*$";
const UUID_PATTERN: &str = "^[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}$";
const JSON_POINTER_PATTERN: &str = "^(?:/(?:[^~/]|~0|~1)*)*$";
const RELATIVE_JSON_POINTER_PATTERN: &str = "^(?:0|[1-9][0-9]*)(?:#|(?:/(?:[^~/]|~0|~1)*)*)$";

static HOSTNAME: OnceLock<Option<GoRegex>> = OnceLock::new();
static URI_TEMPLATE: OnceLock<Option<GoRegex>> = OnceLock::new();
static UUID: OnceLock<Option<GoRegex>> = OnceLock::new();
static JSON_POINTER: OnceLock<Option<GoRegex>> = OnceLock::new();
static RELATIVE_JSON_POINTER: OnceLock<Option<GoRegex>> = OnceLock::new();

fn matches(cell: &OnceLock<Option<GoRegex>>, pattern: &str, s: &str) -> bool {
    cell.get_or_init(|| go_regex(pattern).ok())
        .as_ref()
        .is_some_and(|re| re.is_match(s))
}

/// `net/mail.ParseAddress` succeeds: one address, `addr-spec` or `[phrase] <addr-spec>`, with
/// comments and spaces around it. (Go's RFC 2047 encoded words and groups are not read.)
fn is_mail_address(s: &str) -> bool {
    let mut p = MailParser {
        s: s.as_bytes(),
        pos: 0,
    };
    let start = p.pos;
    if p.addr_spec() {
        p.skip_space();
        if p.peek() == Some(b'(') && !p.comment() {
            return false;
        }
    } else {
        p.pos = start;
        if p.peek() != Some(b'<') && !p.phrase() {
            return false;
        }
        p.skip_space();
        if !p.consume(b'<') || !p.addr_spec() || !p.consume(b'>') {
            return false;
        }
    }
    p.skip_cfws() && p.pos == p.s.len()
}

struct MailParser<'a> {
    s: &'a [u8],
    pos: usize,
}

impl MailParser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn consume(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t') = self.peek() {
            self.pos += 1;
        }
    }

    /// Spaces and comments; false on an unclosed comment.
    fn skip_cfws(&mut self) -> bool {
        loop {
            self.skip_space();
            if self.peek() != Some(b'(') {
                return true;
            }
            if !self.comment() {
                return false;
            }
        }
    }

    /// A `(comment)`, nested comments and quoted pairs included.
    fn comment(&mut self) -> bool {
        let mut depth = 0;
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return true;
                    }
                }
                b'\\' => self.pos += 1,
                _ => {}
            }
        }
        false
    }

    /// Go's `isAtext`: a visible character other than the specials (`.` only in a dot-atom).
    fn is_atext(c: u8, dot: bool) -> bool {
        match c {
            b'.' => dot,
            b'(' | b')' | b'<' | b'>' | b'[' | b']' | b':' | b';' | b'@' | b'\\' | b',' | b'"' => {
                false
            }
            _ => (b'!'..=b'~').contains(&c) || c >= 0x80,
        }
    }

    /// An atom; a dot-atom when `dot`, strict (no leading, trailing or double dot) unless
    /// `permissive`.
    fn atom(&mut self, dot: bool, permissive: bool) -> bool {
        let start = self.pos;
        while self.peek().is_some_and(|c| Self::is_atext(c, dot)) {
            self.pos += 1;
        }
        let atom = &self.s[start..self.pos];
        if atom.is_empty() {
            return false;
        }
        permissive
            || !(atom.starts_with(b".")
                || atom.ends_with(b".")
                || atom.windows(2).any(|w| w == b".."))
    }

    fn quoted_string(&mut self) -> bool {
        if !self.consume(b'"') {
            return false;
        }
        let start = self.pos;
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                b'"' => return self.pos - 1 > start,
                b'\\' => {
                    if self.peek().is_none() {
                        return false;
                    }
                    self.pos += 1;
                }
                b'\t' | b' ' => {}
                c if (b'!'..=b'~').contains(&c) || c >= 0x80 => {}
                _ => return false,
            }
        }
        false
    }

    fn addr_spec(&mut self) -> bool {
        self.skip_space();
        let local = if self.peek() == Some(b'"') {
            self.quoted_string()
        } else {
            self.atom(true, false)
        };
        if !local || !self.consume(b'@') {
            return false;
        }
        self.skip_space();
        if self.peek() == Some(b'[') {
            self.pos += 1;
            while let Some(c) = self.peek() {
                self.pos += 1;
                if c == b']' {
                    return true;
                }
                if !((b'!'..=b'Z').contains(&c) || (b'^'..=b'~').contains(&c)) {
                    return false;
                }
            }
            false
        } else {
            self.atom(true, false)
        }
    }

    /// A display name: words (atoms, dots allowed, or quoted strings) with spaces between.
    fn phrase(&mut self) -> bool {
        let mut words = 0;
        loop {
            self.skip_space();
            let ok = match self.peek() {
                Some(b'"') => self.quoted_string(),
                Some(c) if Self::is_atext(c, true) => self.atom(true, true),
                _ => false,
            };
            if !ok {
                break;
            }
            words += 1;
        }
        words > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkers_follow_go() {
        let yes = [
            ("date", "2024-02-29"),
            ("time", "10:20:30"),
            ("time", "10:20:30+02:00"),
            ("date-time", "2024-01-02T03:04:05Z"),
            ("date-time", "2024-01-02T03:04:05.123+01:00"),
            ("date-time", "2024-01-02"),
            ("hostname", "a-b.example.com"),
            ("email", "a.b@example.com"),
            ("email", "Ann Smith <ann@example.com>"),
            ("ipv4", "10.0.0.1"),
            ("ipv6", "::1"),
            ("uri", "https://x.io/a?b#c"),
            ("uri-reference", "../a"),
            ("uri-template", "https://x.io/{id}"),
            ("uuid", "123e4567-e89b-12d3-a456-426614174000"),
            ("regex", "^a+$"),
            ("json-pointer", "/a/~1b"),
            ("relative-json-pointer", "1/a"),
            ("unknown-format", "anything"),
        ];
        for (f, s) in yes {
            assert!(is_format(f, s), "{f} {s}");
        }
        let no = [
            ("date", "2023-02-29"),
            ("date", "2024-1-02"),
            ("time", "25:00:00"),
            ("date-time", "yesterday"),
            ("hostname", "-a.com"),
            ("email", "a@"),
            ("email", "a..b@x.io"),
            ("ipv4", "256.0.0.1"),
            ("ipv4", "::1"),
            ("ipv6", "1.2.3.4"),
            ("uri", "relative/path"),
            ("uri", "http://x.io/a\\b"),
            ("uuid", "123E4567-E89B-12D3-A456-426614174000"),
            ("regex", "a(b"),
            ("json-pointer", "a/b"),
        ];
        for (f, s) in no {
            assert!(!is_format(f, s), "{f} {s}");
        }
    }
}
