//! The URL library: `url()`, `isURL()` and the members of `kubernetes.URL`, on Go's
//! `net/url` (`crate::go::url`): `ParseRequestURI` decides validity (an absolute URI or an
//! absolute path; a `#` is not a fragment there), then `Parse` (which splits the fragment
//! off) gives the components.

use super::{kubernetes_type, string_list};
use crate::go::url as go;
use cel::common::types::{CelBool, CelMap, CelMapKey, CelString};
use cel::common::value::Val;
use cel::{DeclarationError, Env, ExecutionError};
use std::collections::HashMap;

/// A `kubernetes.URL` value: Go's `url.URL`. Two are equal when they print the same, as
/// the API server's `URL.Equal` compares `String()`s.
#[derive(Clone, Debug)]
pub(super) struct Url(go::Url);

impl PartialEq for Url {
    fn eq(&self, other: &Url) -> bool {
        self.0.to_string() == other.0.to_string()
    }
}

kubernetes_type!(Url, "kubernetes.URL");

/// True when `url.ParseRequestURI` accepts `s`.
pub(super) fn is_url_string(s: &CelString<'_>) -> CelBool {
    CelBool::from(go::Url::parse_request_uri(s.inner()).is_ok())
}

/// The `uri` format's check: `url.ParseRequestURI`'s error, if any.
pub(super) fn validate_uri(s: &str) -> Vec<String> {
    go::Url::parse_request_uri(s)
        .err()
        .map(|e| e.to_string())
        .into_iter()
        .collect()
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
    let fail = |e: go::Error| {
        ExecutionError::function_error(
            "url",
            format!("URL parse error during conversion from string: {e}"),
        )
    };
    go::Url::parse_request_uri(s.inner()).map_err(fail)?;
    go::Url::parse(s.inner()).map(Url).map_err(fail)
}

fn get_scheme(u: &Url) -> CelString<'static> {
    CelString::from(u.0.scheme.clone())
}

fn get_host(u: &Url) -> CelString<'static> {
    CelString::from(u.0.host.clone())
}

fn get_hostname(u: &Url) -> CelString<'static> {
    CelString::from(u.0.hostname().to_string())
}

fn get_port(u: &Url) -> CelString<'static> {
    CelString::from(u.0.port().to_string())
}

fn get_escaped_path(u: &Url) -> CelString<'static> {
    CelString::from(u.0.escaped_path())
}

/// `URL.Query()`.
fn get_query(u: &Url) -> CelMap<'static> {
    let map: HashMap<CelMapKey<'static>, Box<dyn Val>> =
        u.0.query()
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
            // Equal compares what the URLs print: the user name decoded, a lone `?` kept.
            "url('https://u%41@example.com/') == url('https://uA@example.com/')",
            "url('https://example.com/p?') != url('https://example.com/p')",
        ]);
        assert_error(&[
            ("url('https://a:b:c/')", "invalid port \":c\" after host"),
            ("url('../relative-path')", "invalid URI for request"),
            ("url('https://example.com/%zz')", "invalid URL escape"),
            (
                "url('https://a b/?x&y')",
                r#"URL parse error during conversion from string: parse "https://a b/?x&y": invalid character " " in host name"#,
            ),
            (
                "url('https://x/p?q#%zz')",
                r#"parse "https://x/p?q#%zz": invalid URL escape "%zz""#,
            ),
        ]);
    }
}
