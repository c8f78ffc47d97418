//! Go's `net/url` as Go 1.23 has it (helm v3.17 and the Kubernetes API server are built with
//! it): `Parse` and `ParseRequestURI` with Go's errors, `(*URL).ResolveReference`, `String`,
//! `Hostname`, `Port`, `EscapedPath`, `Query`, `PathUnescape` and `QueryUnescape`, on one
//! `unescape` and one `shouldEscape` with Go's encoding modes.
//!
//! Go's strings are bytes; a Rust `String` is UTF-8. Where Go would keep an invalid sequence
//! (`%FF` decoded), the decoded text holds U+FFFD instead, as every caller did before.

use super::strconv::{quote, quote_bytes};
use std::collections::BTreeMap;
use std::fmt;

/// Go's `encoding`: which part of a URL a string is escaped for or unescaped from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Encoding {
    Path,
    PathSegment,
    Host,
    Zone,
    UserPassword,
    QueryComponent,
    Fragment,
}

/// Why a URL does not parse: the `Err` of Go's `*url.Error`, worded as Go words it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Cause {
    #[error("net/url: invalid control character in URL")]
    ControlCharacter,
    #[error("empty url")]
    Empty,
    #[error("missing protocol scheme")]
    MissingScheme,
    #[error("invalid URI for request")]
    NotForRequest,
    #[error("first path segment in URL cannot contain colon")]
    ColonInFirstSegment,
    #[error("net/url: invalid userinfo")]
    InvalidUserinfo,
    #[error("missing ']' in host")]
    MissingBracket,
    /// The text from the colon on.
    #[error("invalid port {} after host", quote(.0))]
    InvalidPort(String),
    /// Go's `EscapeError`: the bytes from the `%`, at most three (they may cut a character).
    #[error("invalid URL escape {}", quote_bytes(.0))]
    Escape(Vec<u8>),
    /// Go's `InvalidHostError`: the one ASCII character a host cannot hold.
    #[error("invalid character {} in host name", quote(.0))]
    InvalidHost(String),
}

/// Go's `*url.Error`: `parse "URL": cause`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{op} {}: {cause}", quote(.url))]
pub struct Error {
    /// Go's `Op`; `parse` for both parsers.
    pub op: &'static str,
    /// The text that failed: for `Parse`, without the fragment unless the fragment failed.
    pub url: String,
    pub cause: Cause,
}

/// Go's `Userinfo`: a user name and an optional password, both decoded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Userinfo {
    pub username: String,
    pub password: Option<String>,
}

impl fmt::Display for Userinfo {
    /// `Userinfo.String`: escaped for the userinfo part.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&escape(&self.username, Encoding::UserPassword))?;
        if let Some(password) = &self.password {
            write!(f, ":{}", escape(password, Encoding::UserPassword))?;
        }
        Ok(())
    }
}

/// Go's `url.URL`, field for field: `path` and `fragment` decoded, with the written form in
/// `raw_path` and `raw_fragment` only when it differs from the default escaping.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Url {
    pub scheme: String,
    /// Encoded opaque data (`mailto:a@b`'s `a@b`).
    pub opaque: String,
    pub user: Option<Userinfo>,
    /// `host` or `host:port`, decoded.
    pub host: String,
    pub path: String,
    pub raw_path: String,
    /// `scheme:/path`: no `//` and empty host written, so none printed.
    pub omit_host: bool,
    /// A `?` with nothing after it.
    pub force_query: bool,
    pub raw_query: String,
    pub fragment: String,
    pub raw_fragment: String,
}

impl Url {
    /// Go's `url.Parse`: the fragment cut off at the first `#`, any form of relative URL.
    pub fn parse(raw: &str) -> Result<Url, Error> {
        let (u, frag) = raw.split_once('#').unwrap_or((raw, ""));
        let error = |url: &str, cause| Error {
            op: "parse",
            url: url.to_string(),
            cause,
        };
        let mut url = parse(u, false).map_err(|cause| error(u, cause))?;
        if !frag.is_empty() {
            url.set_fragment(frag).map_err(|cause| error(raw, cause))?;
        }
        Ok(url)
    }

    /// Go's `url.ParseRequestURI`: an absolute URI or an absolute path; a `#` is no fragment.
    pub fn parse_request_uri(raw: &str) -> Result<Url, Error> {
        parse(raw, true).map_err(|cause| Error {
            op: "parse",
            url: raw.to_string(),
            cause,
        })
    }

    /// `setPath`: `raw_path` kept only when `p` is not the default escaping of the path.
    fn set_path(&mut self, p: &str) -> Result<(), Cause> {
        self.path = unescape(p, Encoding::Path)?;
        self.raw_path = if escape(&self.path, Encoding::Path) == p {
            String::new()
        } else {
            p.to_string()
        };
        Ok(())
    }

    /// `setFragment`, as `set_path`.
    fn set_fragment(&mut self, f: &str) -> Result<(), Cause> {
        self.fragment = unescape(f, Encoding::Fragment)?;
        self.raw_fragment = if escape(&self.fragment, Encoding::Fragment) == f {
            String::new()
        } else {
            f.to_string()
        };
        Ok(())
    }

    /// `URL.EscapedPath`: `raw_path` when it is a valid escaping of `path`, else `path`
    /// escaped.
    pub fn escaped_path(&self) -> String {
        if !self.raw_path.is_empty()
            && valid_encoded(&self.raw_path, Encoding::Path)
            && unescape(&self.raw_path, Encoding::Path).is_ok_and(|p| p == self.path)
        {
            return self.raw_path.clone();
        }
        if self.path == "*" {
            return "*".to_string();
        }
        escape(&self.path, Encoding::Path)
    }

    /// `URL.EscapedFragment`, as `escaped_path`.
    pub fn escaped_fragment(&self) -> String {
        if !self.raw_fragment.is_empty()
            && valid_encoded(&self.raw_fragment, Encoding::Fragment)
            && unescape(&self.raw_fragment, Encoding::Fragment).is_ok_and(|f| f == self.fragment)
        {
            return self.raw_fragment.clone();
        }
        escape(&self.fragment, Encoding::Fragment)
    }

    /// `URL.Hostname`: the host without a valid port and without IPv6 brackets.
    pub fn hostname(&self) -> &str {
        split_host_port(&self.host).0
    }

    /// `URL.Port`: the digits after the host's last colon, or empty.
    pub fn port(&self) -> &str {
        split_host_port(&self.host).1
    }

    /// `URL.Query`: `ParseQuery` of the raw query, the pairs it cannot decode left out (and,
    /// since Go 1.17, those holding a `;`).
    pub fn query(&self) -> BTreeMap<String, Vec<String>> {
        let mut values: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for pair in self.raw_query.split('&') {
            if pair.is_empty() || pair.contains(';') {
                continue;
            }
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let (Ok(key), Ok(value)) = (query_unescape(key), query_unescape(value)) else {
                continue;
            };
            values.entry(key).or_default().push(value);
        }
        values
    }

    /// Go's `URL.ResolveReference` (RFC 3986 section 5.2): `reference` resolved against this
    /// URL as the base.
    pub fn resolve_reference(&self, reference: &Url) -> Url {
        let mut url = reference.clone();
        if reference.scheme.is_empty() {
            url.scheme = self.scheme.clone();
        }
        if !reference.scheme.is_empty() || !reference.host.is_empty() || reference.user.is_some() {
            // The "absoluteURI" or "net_path" cases; the path is validly escaped, so
            // `setPath` cannot fail (Go ignores its error too).
            let _ = url.set_path(&resolve_path(&reference.escaped_path(), ""));
            return url;
        }
        if !reference.opaque.is_empty() {
            url.user = None;
            url.host.clear();
            url.path.clear();
            return url;
        }
        if reference.path.is_empty() && !reference.force_query && reference.raw_query.is_empty() {
            url.raw_query = self.raw_query.clone();
            if reference.fragment.is_empty() {
                url.fragment = self.fragment.clone();
                url.raw_fragment = self.raw_fragment.clone();
            }
        }
        if reference.path.is_empty() && !self.opaque.is_empty() {
            url.opaque = self.opaque.clone();
            url.user = None;
            url.host.clear();
            url.path.clear();
            return url;
        }
        // The "abs_path" or "rel_path" cases.
        url.host = self.host.clone();
        url.user = self.user.clone();
        let _ = url.set_path(&resolve_path(
            &self.escaped_path(),
            &reference.escaped_path(),
        ));
        url
    }
}

impl fmt::Display for Url {
    /// Go's `URL.String`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = String::new();
        if !self.scheme.is_empty() {
            buf.push_str(&self.scheme);
            buf.push(':');
        }
        if !self.opaque.is_empty() {
            buf.push_str(&self.opaque);
        } else {
            let omitted = self.omit_host && self.host.is_empty() && self.user.is_none();
            if (!self.scheme.is_empty() || !self.host.is_empty() || self.user.is_some()) && !omitted
            {
                if !self.host.is_empty() || !self.path.is_empty() || self.user.is_some() {
                    buf.push_str("//");
                }
                if let Some(user) = &self.user {
                    buf.push_str(&user.to_string());
                    buf.push('@');
                }
                buf.push_str(&escape(&self.host, Encoding::Host));
            }
            let path = self.escaped_path();
            if !path.is_empty() && !path.starts_with('/') && !self.host.is_empty() {
                buf.push('/');
            }
            // RFC 3986 section 4.2: a first segment with a colon would read as a scheme.
            if buf.is_empty() && first_segment_has_colon(&path) {
                buf.push_str("./");
            }
            buf.push_str(&path);
        }
        if self.force_query || !self.raw_query.is_empty() {
            buf.push('?');
            buf.push_str(&self.raw_query);
        }
        if !self.fragment.is_empty() {
            buf.push('#');
            buf.push_str(&self.escaped_fragment());
        }
        f.write_str(&buf)
    }
}

/// Go's `url.PathUnescape`: `%XX` decoded, `+` kept.
pub fn path_unescape(s: &str) -> Result<String, Cause> {
    unescape(s, Encoding::PathSegment)
}

/// Go's `url.QueryUnescape`: `%XX` decoded, `+` a space.
pub fn query_unescape(s: &str) -> Result<String, Cause> {
    unescape(s, Encoding::QueryComponent)
}

/// `parse(rawURL, viaRequest)`.
fn parse(raw: &str, via_request: bool) -> Result<Url, Cause> {
    if raw.bytes().any(|b| b < b' ' || b == 0x7f) {
        return Err(Cause::ControlCharacter);
    }
    if raw.is_empty() && via_request {
        return Err(Cause::Empty);
    }
    let mut url = Url::default();
    if raw == "*" {
        url.path = "*".to_string();
        return Ok(url);
    }
    let (scheme, mut rest) = get_scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        url.force_query = true;
        rest = &rest[..rest.len() - 1];
    } else if let Some((r, q)) = rest.split_once('?') {
        rest = r;
        url.raw_query = q.to_string();
    }
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            // Rootless paths per RFC 3986 are opaque.
            url.opaque = rest.to_string();
            return Ok(url);
        }
        if via_request {
            return Err(Cause::NotForRequest);
        }
        // golang.org/issue/16822: `cache_object:foo/bar` is no relative path.
        if first_segment_has_colon(rest) {
            return Err(Cause::ColonInFirstSegment);
        }
    }
    if (!url.scheme.is_empty() || !via_request && !rest.starts_with("///"))
        && rest.starts_with("//")
    {
        let after = &rest[2..];
        let (authority, path) = match after.find('/') {
            Some(i) => (&after[..i], &after[i..]),
            None => (after, ""),
        };
        (url.user, url.host) = parse_authority(authority)?;
        rest = path;
    } else if !url.scheme.is_empty() && rest.starts_with('/') {
        // golang.org/issue/46059: `file:/x` prints back without `//`.
        url.omit_host = true;
    }
    url.set_path(rest)?;
    Ok(url)
}

fn first_segment_has_colon(path: &str) -> bool {
    path.split('/').next().is_some_and(|s| s.contains(':'))
}

/// `getScheme`: the scheme and the rest, or no scheme (`[a-zA-Z][a-zA-Z0-9+-.]*:`).
fn get_scheme(raw: &str) -> Result<(&str, &str), Cause> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err(Cause::MissingScheme),
            b':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

/// `parseAuthority`: the host checked first, then the userinfo.
fn parse_authority(authority: &str) -> Result<(Option<Userinfo>, String), Cause> {
    let at = authority.rfind('@');
    let host = parse_host(at.map_or(authority, |i| &authority[i + 1..]))?;
    let Some(i) = at else {
        return Ok((None, host));
    };
    let userinfo = &authority[..i];
    if !valid_userinfo(userinfo) {
        return Err(Cause::InvalidUserinfo);
    }
    let user = match userinfo.split_once(':') {
        None => Userinfo {
            username: unescape(userinfo, Encoding::UserPassword)?,
            password: None,
        },
        Some((username, password)) => Userinfo {
            username: unescape(username, Encoding::UserPassword)?,
            password: Some(unescape(password, Encoding::UserPassword)?),
        },
    };
    Ok((Some(user), host))
}

/// `validUserinfo` (RFC 3986 section 3.2.1): ASCII only; escapes are checked by `unescape`.
fn valid_userinfo(s: &str) -> bool {
    s.bytes()
        .all(|c| c.is_ascii_alphanumeric() || b"-._:~!$&'()*+,;=%@".contains(&c))
}

/// `parseHost`: `host[:port]`, an IP literal in brackets with an RFC 6874 zone after `%25`.
fn parse_host(host: &str) -> Result<String, Cause> {
    if host.starts_with('[') {
        let i = host.rfind(']').ok_or(Cause::MissingBracket)?;
        let colon_port = &host[i + 1..];
        if !valid_optional_port(colon_port) {
            return Err(Cause::InvalidPort(colon_port.to_string()));
        }
        // The zone may escape what the host may not.
        if let Some(zone) = host[..i].find("%25") {
            let mut out = unescape(&host[..zone], Encoding::Host)?;
            out.push_str(&unescape(&host[zone..i], Encoding::Zone)?);
            out.push_str(&unescape(&host[i..], Encoding::Host)?);
            return Ok(out);
        }
    } else if let Some(i) = host.rfind(':') {
        let colon_port = &host[i..];
        if !valid_optional_port(colon_port) {
            return Err(Cause::InvalidPort(colon_port.to_string()));
        }
    }
    unescape(host, Encoding::Host)
}

/// `validOptionalPort`: empty, or `:` and digits.
fn valid_optional_port(port: &str) -> bool {
    port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|p| p.bytes().all(|c| c.is_ascii_digit()))
}

/// `splitHostPort`: a port only when valid; brackets around the host removed.
fn split_host_port(host_port: &str) -> (&str, &str) {
    let (mut host, port) = match host_port.rfind(':') {
        Some(i) if valid_optional_port(&host_port[i..]) => (&host_port[..i], &host_port[i + 1..]),
        _ => (host_port, ""),
    };
    if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        host = inner;
    }
    (host, port)
}

/// `shouldEscape`: whether `c` is escaped in the part `mode` names.
fn should_escape(c: u8, mode: Encoding) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if matches!(mode, Encoding::Host | Encoding::Zone) && b"!$&'()*+,;=:[]<>\"".contains(&c) {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Encoding::Path => c == b'?',
            Encoding::PathSegment => matches!(c, b'/' | b';' | b',' | b'?'),
            Encoding::UserPassword => matches!(c, b'@' | b'/' | b'?' | b':'),
            Encoding::QueryComponent => true,
            Encoding::Fragment => false,
            Encoding::Host | Encoding::Zone => true,
        },
        b'!' | b'(' | b')' | b'*' if mode == Encoding::Fragment => false,
        _ => true,
    }
}

/// `unescape`: `%XX` decoded (a bad escape is Go's `EscapeError`), `+` a space in a query
/// component; a host may escape only non-ASCII bytes and `%25`, a zone what a host could
/// hold anyway and the space.
fn unescape(s: &str, mode: Encoding) -> Result<String, Cause> {
    let b = s.as_bytes();
    let is_host = matches!(mode, Encoding::Host | Encoding::Zone);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let Some(v) = b.get(i + 1..i + 3).and_then(hex_byte) else {
                    return Err(Cause::Escape(b[i..b.len().min(i + 3)].to_vec()));
                };
                let percent = &b[i..i + 3] == b"%25";
                if mode == Encoding::Host && v < 0x80 && !percent {
                    return Err(Cause::Escape(b[i..i + 3].to_vec()));
                }
                if mode == Encoding::Zone
                    && !percent
                    && v != b' '
                    && should_escape(v, Encoding::Host)
                {
                    return Err(Cause::Escape(b[i..i + 3].to_vec()));
                }
                out.push(v);
                i += 3;
            }
            b'+' => {
                out.push(if mode == Encoding::QueryComponent {
                    b' '
                } else {
                    b'+'
                });
                i += 1;
            }
            c => {
                if is_host && c < 0x80 && should_escape(c, mode) {
                    return Err(Cause::InvalidHost((c as char).to_string()));
                }
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// Two hex digits as a byte.
fn hex_byte(h: &[u8]) -> Option<u8> {
    let digit = |c: u8| (c as char).to_digit(16);
    Some((digit(h[0])? * 16 + digit(h[1])?) as u8)
}

/// `escape`: what `mode` escapes as `%XX` (upper-case hex), a space as `+` in a query.
fn escape(s: &str, mode: Encoding) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = Vec::with_capacity(s.len());
    for &c in s.as_bytes() {
        if c == b' ' && mode == Encoding::QueryComponent {
            out.push(b'+');
        } else if should_escape(c, mode) {
            out.extend([b'%', HEX[usize::from(c >> 4)], HEX[usize::from(c & 15)]]);
        } else {
            out.push(c);
        }
    }
    String::from_utf8(out).expect("escaping leaves only ASCII and the unescaped bytes of s")
}

/// `validEncoded`: no byte that escaping would change, beyond the sub-delimiters, `:`, `@`,
/// brackets and `%`.
fn valid_encoded(s: &str, mode: Encoding) -> bool {
    s.bytes()
        .all(|c| b"!$&'()*+,;=:@[]%".contains(&c) || !should_escape(c, mode))
}

/// `resolvePath`: the reference's path merged with the base's, dot segments removed, always
/// with a leading `/`.
fn resolve_path(base: &str, reference: &str) -> String {
    let full = if reference.is_empty() {
        base.to_string()
    } else if !reference.starts_with('/') {
        let keep = base.rfind('/').map_or(0, |i| i + 1);
        format!("{}{reference}", &base[..keep])
    } else {
        reference.to_string()
    };
    if full.is_empty() {
        return String::new();
    }
    let mut dst = String::from("/");
    let mut first = true;
    let mut last = "";
    for elem in full.split('/') {
        last = elem;
        match elem {
            "." => first = false,
            ".." => match dst[1..].rfind('/') {
                Some(i) => dst.truncate(i + 1),
                None => {
                    dst.truncate(1);
                    first = true;
                }
            },
            _ => {
                if !first {
                    dst.push('/');
                }
                dst.push_str(elem);
                first = false;
            }
        }
    }
    if last == "." || last == ".." {
        dst.push('/');
    }
    if dst.len() > 1 && dst.as_bytes()[1] == b'/' {
        dst.remove(0);
    }
    dst
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Url, String> {
        Url::parse(s).map_err(|e| e.to_string())
    }

    fn request(s: &str) -> Result<Url, String> {
        Url::parse_request_uri(s).map_err(|e| e.to_string())
    }

    /// What `url.ParseRequestURI` accepts and the fields it gives, as the CEL library's
    /// `isURL`, `url()` and the `uri` format read them.
    #[test]
    fn request_uris_parse_as_go() {
        for ok in [
            "https://user:pass@example.com:80/path?query=val#fragment",
            "/absolute-path",
            "https://example.com/path with spaces/",
            "mailto:a@example.com",
            "*",
        ] {
            assert!(request(ok).is_ok(), "{ok}");
        }
        for (bad, why) in [
            (
                "https://a:b:c/",
                r#"parse "https://a:b:c/": invalid port ":c" after host"#,
            ),
            (
                "../relative-path",
                r#"parse "../relative-path": invalid URI for request"#,
            ),
            (
                "example.com",
                r#"parse "example.com": invalid URI for request"#,
            ),
            ("", r#"parse "": empty url"#),
            (
                "https://a b/",
                r#"parse "https://a b/": invalid character " " in host name"#,
            ),
            (
                "https://x/%zz",
                r#"parse "https://x/%zz": invalid URL escape "%zz""#,
            ),
            (
                "https://x/%a",
                r#"parse "https://x/%a": invalid URL escape "%a""#,
            ),
            // %q, not JSON: `&` as is, control characters as `\x01`.
            (
                "https://a b/?x&y",
                r#"parse "https://a b/?x&y": invalid character " " in host name"#,
            ),
            (
                "/a\u{1}",
                r#"parse "/a\x01": net/url: invalid control character in URL"#,
            ),
            // The escape cut inside a character is quoted byte by byte.
            ("/%aé", r#"parse "/%aé": invalid URL escape "%a\xc3""#),
            ("/%é", r#"parse "/%é": invalid URL escape "%é""#),
            (":x", r#"parse ":x": missing protocol scheme"#),
            (
                "https://[::1/",
                r#"parse "https://[::1/": missing ']' in host"#,
            ),
            (
                "https://[::1]x/",
                r#"parse "https://[::1]x/": invalid port "x" after host"#,
            ),
            // A host escapes only non-ASCII bytes.
            (
                "https://%41/",
                r#"parse "https://%41/": invalid URL escape "%41""#,
            ),
            (
                "https://é@x/",
                r#"parse "https://é@x/": net/url: invalid userinfo"#,
            ),
            // Brackets hold a host that is checked like any other.
            (
                "http://[a b]/",
                r#"parse "http://[a b]/": invalid character " " in host name"#,
            ),
            // The host is checked before the userinfo.
            (
                "https://é@a b/",
                r#"parse "https://é@a b/": invalid character " " in host name"#,
            ),
        ] {
            assert_eq!(request(bad).err().as_deref(), Some(why), "{bad}");
        }
        let u = request("HTTPS://u%41:p@[::1]:80/a%2Fb/c d?k=v#f").unwrap();
        assert_eq!(u.scheme, "https");
        assert_eq!(u.host, "[::1]:80");
        assert_eq!((u.hostname(), u.port()), ("::1", "80"));
        assert_eq!(u.path, "/a/b/c d");
        // The written path is no valid escaping (a space), so the decoded one is escaped.
        assert_eq!(u.escaped_path(), "/a/b/c%20d");
        assert_eq!(
            request("/a%2Fb/c%20d").unwrap().escaped_path(),
            "/a%2Fb/c%20d"
        );
        assert_eq!(u.raw_query, "k=v#f");
        assert_eq!(
            u.user,
            Some(Userinfo {
                username: "uA".into(),
                password: Some("p".into())
            })
        );
        let u = request("https://example.com:x/").err();
        assert_eq!(
            u.as_deref(),
            Some(r#"parse "https://example.com:x/": invalid port ":x" after host"#)
        );
        assert_eq!(request("https://example.com").unwrap().escaped_path(), "");
        // The last `]` closes the literal.
        assert_eq!(request("http://[::1]]/").unwrap().host, "[::1]]");
        assert_eq!(request("https://h:/").unwrap().port(), "");
        assert_eq!(request("https://h:/").unwrap().hostname(), "h");
        // RFC 6874 zones may escape what a host may not.
        assert_eq!(
            request("http://[fe80::1%25en%200]/").unwrap().host,
            "[fe80::1%en 0]"
        );
        assert_eq!(
            request("http://[fe80::1%25%41]/").unwrap().host,
            "[fe80::1%A]"
        );
        assert_eq!(
            request("http://[fe80::1%25a%2F]/").err().as_deref(),
            Some(r#"parse "http://[fe80::1%25a%2F]/": invalid URL escape "%2F""#)
        );
    }

    #[test]
    fn queries_parse_as_go() {
        let q = |s: &str| parse(s).unwrap().query();
        let pairs = |p: &[(&str, &[&str])]| {
            p.iter()
                .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
                .collect::<BTreeMap<String, Vec<String>>>()
        };
        assert_eq!(
            q("https://x/p?k1=a&k2=b&k2=c"),
            pairs(&[("k1", &["a"]), ("k2", &["b", "c"])])
        );
        assert_eq!(
            q("https://x/p?key with spaces=v+w%21"),
            pairs(&[("key with spaces", &["v w!"])])
        );
        assert_eq!(
            q("https://x/p?a;b=1&c&=d&e=%zz&%zz=f"),
            pairs(&[("", &["d"]), ("c", &[""])])
        );
        assert_eq!(q("https://x/p?"), pairs(&[]));
        assert_eq!(q("https://x/p?q=val#frag"), pairs(&[("q", &["val"])]));
        assert_eq!(query_unescape("a+b%20c"), Ok("a b c".to_string()));
        assert_eq!(path_unescape("a+b%20c"), Ok("a+b c".to_string()));
        assert_eq!(
            path_unescape("%g0").map_err(|e| e.to_string()),
            Err(r#"invalid URL escape "%g0""#.to_string())
        );
    }

    /// `url.Parse`: the fragment split off first, and which text an error names.
    #[test]
    fn parse_splits_the_fragment_as_go() {
        let u = parse("https://x/p?q#a%20b").unwrap();
        assert_eq!((u.raw_query.as_str(), u.fragment.as_str()), ("q", "a b"));
        assert_eq!(
            parse("a:b/c%zz"),
            Ok(Url {
                scheme: "a".into(),
                opaque: "b/c%zz".into(),
                ..Url::default()
            })
        );
        // The URL without its fragment when the rest fails, the whole when the fragment does.
        assert_eq!(
            parse("//a b#/").err().as_deref(),
            Some(r#"parse "//a b": invalid character " " in host name"#)
        );
        assert_eq!(
            parse("https://x/p?q#%zz").err().as_deref(),
            Some(r#"parse "https://x/p?q#%zz": invalid URL escape "%zz""#)
        );
        assert_eq!(
            parse("/a%zz").err().as_deref(),
            Some(r#"parse "/a%zz": invalid URL escape "%zz""#)
        );
        assert_eq!(parse("a:b").ok().map(|u| u.opaque), Some("b".to_string()));
        assert_eq!(
            parse("cache_object:foo/bar").err().as_deref(),
            Some(r#"parse "cache_object:foo/bar": first path segment in URL cannot contain colon"#)
        );
        assert_eq!(parse("x:y/z").ok().map(|u| u.scheme), Some("x".to_string()));
        assert_eq!(
            parse("a/b:c").ok().map(|u| u.path),
            Some("a/b:c".to_string())
        );
        assert_eq!(
            parse("1a:b").err().as_deref(),
            Some(r#"parse "1a:b": first path segment in URL cannot contain colon"#)
        );
    }

    /// `URL.String`, as gojsonreference prints references.
    #[test]
    fn urls_print_as_go() {
        for (text, printed) in [
            (
                "http://json-schema.org/draft-07/schema#",
                "http://json-schema.org/draft-07/schema",
            ),
            ("#", ""),
            ("#/definitions/a", "#/definitions/a"),
            ("file:/x", "file:/x"),
            ("file:///x", "file:///x"),
            ("http:", "http:"),
            ("http://h", "http://h"),
            ("http://h?", "http://h?"),
            ("//h/p", "//h/p"),
            ("a%20b", "a%20b"),
            ("a b/é", "a%20b/%C3%A9"),
            ("/a%2fb", "/a%2fb"),
            ("#a b", "#a%20b"),
            ("#a%2fb", "#a%2fb"),
            ("http://u%41:p%40@h/", "http://uA:p%40@h/"),
            ("http://%C3%A9/", "http://%C3%A9/"),
            ("./a:b", "./a:b"),
            ("mailto:a@b?s#f", "mailto:a@b?s#f"),
            ("*", "*"),
        ] {
            assert_eq!(parse(text).unwrap().to_string(), printed, "{text}");
        }
    }

    /// RFC 3986 section 5.4's examples, which Go's tests resolve too, and gojsonschema's
    /// cases.
    #[test]
    fn references_resolve_as_go() {
        let resolve = |base: &str, r: &str| {
            parse(base)
                .unwrap()
                .resolve_reference(&parse(r).unwrap())
                .to_string()
        };
        for (r, resolved) in [
            ("g:h", "g:h"),
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q#s"),
            ("g#s", "http://a/b/c/g#s"),
            ("", "http://a/b/c/d;p?q"),
            (".", "http://a/b/c/"),
            ("./", "http://a/b/c/"),
            ("..", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../g", "http://a/g"),
            ("../../../g", "http://a/g"),
            ("/./g", "http://a/g"),
            ("g.", "http://a/b/c/g."),
            ("g;x=1/../y", "http://a/b/c/y"),
        ] {
            assert_eq!(resolve("http://a/b/c/d;p?q", r), resolved, "{r}");
        }
        assert_eq!(resolve("", "#/definitions/a"), "#/definitions/a");
        assert_eq!(
            resolve("http://x.io/a/b.json", "c.json#/d"),
            "http://x.io/a/c.json#/d"
        );
        assert_eq!(
            resolve("http://x.io/a/b.json", "../c.json"),
            "http://x.io/c.json"
        );
        // A base without authority gains `//` once resolved: the reference's `OmitHost`
        // is what is kept.
        assert_eq!(resolve("file:/a/b", "c"), "file:///a/c");
        assert_eq!(resolve("file:/a/b", "file:/c"), "file:/c");
        // An opaque base keeps its opaque part when the reference has no path.
        assert_eq!(resolve("mailto:a@b", "#f"), "mailto:a@b#f");
        assert_eq!(resolve("http://a/b", "mailto:c"), "mailto:c");
        assert_eq!(resolve("http://u@a/b", "c d"), "http://u@a/c%20d");
        assert_eq!(resolve("http://a/b%2Fc/d", "e"), "http://a/b%2Fc/e");
    }
}
