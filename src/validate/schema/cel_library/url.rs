//! The URL library: `url()`, `isURL()` and the members of `kubernetes.URL`, on a port of the
//! parts of Go's `net/url` the API server uses: `ParseRequestURI` decides validity (an
//! absolute URI or an absolute path; a `#` is not a fragment there), then `Parse` (which
//! splits the fragment off) gives the components.

use super::{kubernetes_type, string_list};
use cel::common::types::{CelBool, CelMap, CelMapKey, CelString};
use cel::common::value::Val;
use cel::{DeclarationError, Env, ExecutionError};
use std::collections::HashMap;

/// A `kubernetes.URL` value: `url.URL`'s fields.
#[derive(Clone, Debug, PartialEq, Default)]
pub(super) struct Url {
    scheme: String,
    opaque: String,
    /// The userinfo as written (it only takes part in equality).
    user: Option<String>,
    host: String,
    path: String,
    raw_path: String,
    raw_query: String,
    fragment: String,
}

kubernetes_type!(Url, "kubernetes.URL");

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Path,
    Host,
    UserPassword,
    QueryComponent,
    Fragment,
}

/// `shouldEscape`.
fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if mode == Mode::Host && b"!$&'()*+,;=:[]<>\"".contains(&c) {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Mode::Path => c == b'?',
            Mode::UserPassword => matches!(c, b'@' | b'/' | b'?' | b':'),
            Mode::QueryComponent => true,
            Mode::Fragment => false,
            Mode::Host => true,
        },
        b'!' | b'(' | b')' | b'*' if mode == Mode::Fragment => false,
        _ => true,
    }
}

/// `unescape`: `%XX` decoded (an invalid escape is an error), `+` a space in a query.
fn unescape(s: &str, mode: Mode) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = b
                    .get(i + 1..i + 3)
                    .filter(|h| h.iter().all(u8::is_ascii_hexdigit));
                let Some(hex) = hex else {
                    let end = (i + 3).min(b.len());
                    return Err(format!(
                        "invalid URL escape {:?}",
                        String::from_utf8_lossy(&b[i..end])
                    ));
                };
                let v = u8::from_str_radix(std::str::from_utf8(hex).unwrap_or("00"), 16)
                    .unwrap_or_default();
                if mode == Mode::Host && v < 0x80 && &b[i..i + 3] != b"%25" {
                    return Err(format!("invalid URL escape {:?}", &s[i..i + 3]));
                }
                out.push(v);
                i += 3;
            }
            b'+' if mode == Mode::QueryComponent => {
                out.push(b' ');
                i += 1;
            }
            c => {
                if mode == Mode::Host && c < 0x80 && should_escape(c, mode) {
                    return Err(format!("invalid character {:?} in host name", c as char));
                }
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// `escape` in path mode.
fn escape_path(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &c in s.as_bytes() {
        if should_escape(c, Mode::Path) {
            out.push_str(&format!("%{c:02X}"));
        } else {
            out.push(c as char);
        }
    }
    out
}

/// `validEncoded` in path mode.
fn valid_encoded_path(s: &str) -> bool {
    s.bytes()
        .all(|c| b"!$&'()*+,;=:@[]%".contains(&c) || !should_escape(c, Mode::Path))
}

/// `getScheme`: the scheme and the rest, or no scheme.
fn scheme(raw: &str) -> Result<(&str, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err("missing protocol scheme".into()),
            b':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

/// `validOptionalPort`.
fn valid_optional_port(port: &str) -> bool {
    port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|p| p.bytes().all(|c| c.is_ascii_digit()))
}

/// `parseHost`.
fn parse_host(host: &str) -> Result<String, String> {
    if host.starts_with('[') {
        let i = host.rfind(']').ok_or("missing ']' in host")?;
        let port = &host[i + 1..];
        if !valid_optional_port(port) {
            return Err(format!("invalid port {port:?} after host"));
        }
    } else if let Some(i) = host.rfind(':') {
        let port = &host[i..];
        if !valid_optional_port(port) {
            return Err(format!("invalid port {port:?} after host"));
        }
    }
    unescape(host, Mode::Host)
}

/// `parse(rawURL, viaRequest)`.
fn parse(raw: &str, via_request: bool) -> Result<Url, String> {
    if raw.bytes().any(|c| c < 0x20 || c == 0x7f) {
        return Err("net/url: invalid control character in URL".into());
    }
    if raw.is_empty() && via_request {
        return Err("empty url".into());
    }
    let mut url = Url::default();
    if raw == "*" {
        url.path = "*".into();
        return Ok(url);
    }
    let (scheme, mut rest) = scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        rest = &rest[..rest.len() - 1];
    } else if let Some((r, q)) = rest.split_once('?') {
        rest = r;
        url.raw_query = q.to_string();
    }
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            url.opaque = rest.to_string();
            return Ok(url);
        }
        if via_request {
            return Err("invalid URI for request".into());
        }
        if rest.split('/').next().is_some_and(|seg| seg.contains(':')) {
            return Err("first path segment in URL cannot contain colon".into());
        }
    }
    if (!url.scheme.is_empty() || !via_request && !rest.starts_with("///"))
        && rest.starts_with("//")
    {
        let (authority, path) = match rest[2..].find('/') {
            Some(i) => (&rest[2..2 + i], &rest[2 + i..]),
            None => (&rest[2..], ""),
        };
        let (user, host) = match authority.rfind('@') {
            Some(i) => (Some(&authority[..i]), &authority[i + 1..]),
            None => (None, authority),
        };
        url.host = parse_host(host)?;
        if let Some(user) = user {
            let valid = user
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || b"-._:~!$&'()*+,;=%@".contains(&c));
            if !valid {
                return Err("net/url: invalid userinfo".into());
            }
            unescape(user, Mode::UserPassword)?;
            url.user = Some(user.to_string());
        }
        rest = path;
    }
    url.path = unescape(rest, Mode::Path)?;
    url.raw_path = if escape_path(&url.path) == rest {
        String::new()
    } else {
        rest.to_string()
    };
    Ok(url)
}

/// `url.ParseRequestURI`'s error, as Go words it.
fn parse_request_uri(s: &str) -> Result<Url, String> {
    parse(s, true).map_err(|e| format!("parse {}: {e}", crate::go::json::quote(s)))
}

/// `url.Parse`: the fragment split off first.
fn parse_url(s: &str) -> Result<Url, String> {
    let (u, frag) = s.split_once('#').unwrap_or((s, ""));
    let mut url =
        parse(u, false).map_err(|e| format!("parse {}: {e}", crate::go::json::quote(s)))?;
    url.fragment = unescape(frag, Mode::Fragment)?;
    Ok(url)
}

impl Url {
    /// `URL.EscapedPath`.
    fn escaped_path(&self) -> String {
        if !self.raw_path.is_empty()
            && valid_encoded_path(&self.raw_path)
            && unescape(&self.raw_path, Mode::Path).is_ok_and(|p| p == self.path)
        {
            return self.raw_path.clone();
        }
        if self.path == "*" {
            return "*".into();
        }
        escape_path(&self.path)
    }

    /// `URL.Hostname`: without the port and the brackets of an IPv6 address.
    fn hostname(&self) -> &str {
        let (host, _) = split_host_port(&self.host);
        host.strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host)
    }

    fn port(&self) -> &str {
        split_host_port(&self.host).1
    }
}

/// Go's `splitHostPort`: a port only when what follows the last `:` is digits.
fn split_host_port(host: &str) -> (&str, &str) {
    match host.rfind(':') {
        Some(i) if valid_optional_port(&host[i..]) && !host[i..].contains(']') => {
            (&host[..i], &host[i + 1..])
        }
        _ => (host, ""),
    }
}

/// True when `url.ParseRequestURI` accepts `s`.
pub(super) fn is_url_string(s: &CelString<'_>) -> CelBool {
    CelBool::from(parse_request_uri(s.inner()).is_ok())
}

pub(super) fn validate_uri(s: &str) -> Vec<String> {
    parse_request_uri(s).err().into_iter().collect()
}

pub(super) fn extension(env: &mut Env) -> Result<(), DeclarationError> {
    cel::add_overload!(env, fn url: (CelString) -> Result<Url>)?;
    cel::add_overload!(env, fn is_url_string: (CelString) -> CelBool, name = "isURL")?;
    cel::add_member_overload!(env, fn get_scheme: (Url) -> CelString)?;
    cel::add_member_overload!(env, fn get_host: (Url) -> CelString)?;
    cel::add_member_overload!(env, fn get_hostname: (Url) -> CelString)?;
    cel::add_member_overload!(env, fn get_port: (Url) -> CelString)?;
    cel::add_member_overload!(env, fn get_escaped_path: (Url) -> CelString)?;
    cel::add_member_overload!(env, fn get_query: (Url) -> CelMap)?;
    Ok(())
}

fn url(s: &CelString<'_>) -> Result<Url, ExecutionError> {
    let fail = |e| {
        ExecutionError::function_error(
            "url",
            format!("URL parse error during conversion from string: {e}"),
        )
    };
    parse_request_uri(s.inner()).map_err(fail)?;
    parse_url(s.inner()).map_err(fail)
}

fn get_scheme(u: &Url) -> CelString<'static> {
    CelString::from(u.scheme.clone())
}

fn get_host(u: &Url) -> CelString<'static> {
    CelString::from(u.host.clone())
}

fn get_hostname(u: &Url) -> CelString<'static> {
    CelString::from(u.hostname().to_string())
}

fn get_port(u: &Url) -> CelString<'static> {
    CelString::from(u.port().to_string())
}

fn get_escaped_path(u: &Url) -> CelString<'static> {
    CelString::from(u.escaped_path())
}

/// `URL.Query()`: `url.ParseQuery`, skipping the pairs it cannot decode (and, since Go 1.17,
/// those with a `;`).
fn get_query(u: &Url) -> CelMap<'static> {
    let mut query: HashMap<String, Vec<String>> = HashMap::new();
    for pair in u.raw_query.split('&') {
        if pair.is_empty() || pair.contains(';') {
            continue;
        }
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let (Ok(k), Ok(v)) = (
            unescape(k, Mode::QueryComponent),
            unescape(v, Mode::QueryComponent),
        ) else {
            continue;
        };
        query.entry(k).or_default().push(v);
    }
    let map: HashMap<CelMapKey<'static>, Box<dyn Val>> = query
        .into_iter()
        .map(|(k, v)| (CelMapKey::from(k), Box::new(string_list(v)) as Box<dyn Val>))
        .collect();
    CelMap::from(map)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{assert_error, assert_true};

    #[test]
    fn url_examples() {
        // urls.go's documented examples.
        assert_true(&[
            "isURL('https://user:pass@example.com:80/path?query=val#fragment') && isURL('/absolute-path')",
            "!isURL('https://a:b:c/') && !isURL('../relative-path') && !isURL('example.com') && !isURL('')",
            "isURL('https://example.com/path with spaces/') && !isURL('https://a b/') && isURL('mailto:a@example.com')",
            "url('/path').getScheme() == '' && url('https://example.com/').getScheme() == 'https'",
            "url('HTTPS://example.com/').getScheme() == 'https'",
            "url('https://example.com:80/').getHost() == 'example.com:80' && url('https://example.com/').getHost() == 'example.com'",
            "url('https://[::1]:80/').getHost() == '[::1]:80' && url('https://[::1]/').getHost() == '[::1]' && url('/path').getHost() == ''",
            "url('https://example.com:80/').getHostname() == 'example.com' && url('https://127.0.0.1:80/').getHostname() == '127.0.0.1'",
            "url('https://[::1]:80/').getHostname() == '::1' && url('/path').getHostname() == ''",
            "url('https://example.com:80/').getPort() == '80' && url('https://example.com/').getPort() == '' && url('/path').getPort() == ''",
            "url('https://example.com/path').getEscapedPath() == '/path' && url('https://example.com').getEscapedPath() == ''",
            "url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/'",
            "url('https://example.com/a%2Fb').getEscapedPath() == '/a%2Fb'",
            "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}",
            "url('https://example.com/path?key with spaces=value with spaces').getQuery() == {'key with spaces': ['value with spaces']}",
            "url('https://example.com/path?').getQuery() == {} && url('https://example.com/path').getQuery() == {}",
            "url('https://example.com/p?q=val#frag').getQuery() == {'q': ['val']}",
            "url('https://example.com/a') == url('https://example.com/a') && url('https://example.com/a') != url('https://example.com/b')",
        ]);
        assert_error(&[
            ("url('https://a:b:c/')", "invalid port \":c\" after host"),
            ("url('../relative-path')", "invalid URI for request"),
            ("url('https://example.com/%zz')", "invalid URL escape"),
        ]);
    }
}
