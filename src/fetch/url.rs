//! The URLs the fetch layer requests: absolute `http`/`https` only, split into what requests,
//! credentials and the loopback rule need; a reference resolved against a base as Go's
//! `net/url` does (Helm's `ResolveReferenceURL`, redirects) through [`crate::go::url`]; and
//! printed without credentials.

use std::fmt;

/// An absolute URL split into its parts (`scheme://userinfo@host:port/path?query#fragment`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Url {
    pub scheme: String,
    /// `user:password`, as written (percent-encoded).
    pub userinfo: Option<String>,
    /// Lower-cased; an IPv6 address keeps its brackets.
    pub host: String,
    pub port: Option<u16>,
    pub path: String,
    pub query: Option<String>,
    pub fragment: Option<String>,
}

/// Why a text is not a URL the fetch layer can use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not an absolute http(s) URL: {why}")]
pub struct UrlError {
    /// The text without its credentials.
    pub text: String,
    pub why: &'static str,
}

impl Url {
    /// Parses an absolute `http`/`https` URL.
    pub fn parse(text: &str) -> Result<Url, UrlError> {
        let err = |why| UrlError {
            text: redact_text(text),
            why,
        };
        let (scheme, rest) = text.split_once("://").ok_or_else(|| err("no scheme"))?;
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return Err(err("only http and https are fetched"));
        }
        let (rest, fragment) = match rest.split_once('#') {
            Some((r, f)) => (r, Some(f.to_string())),
            None => (rest, None),
        };
        let (rest, query) = match rest.split_once('?') {
            Some((r, q)) => (r, Some(q.to_string())),
            None => (rest, None),
        };
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        let (userinfo, hostport) = match authority.rsplit_once('@') {
            Some((u, h)) => (Some(u.to_string()), h),
            None => (None, authority),
        };
        let (host, port) = if let Some(v6) = hostport.strip_prefix('[') {
            let (addr, after) = v6
                .split_once(']')
                .ok_or_else(|| err("unclosed IPv6 address"))?;
            (format!("[{addr}]"), after.strip_prefix(':'))
        } else {
            match hostport.rsplit_once(':') {
                Some((h, p)) => (h.to_string(), Some(p)),
                None => (hostport.to_string(), None),
            }
        };
        if host.is_empty() || host.contains(|c: char| c.is_whitespace() || c == '/') {
            return Err(err("no host"));
        }
        let port = match port {
            Some("") | None => None,
            Some(p) => Some(p.parse().map_err(|_| err("bad port"))?),
        };
        Ok(Url {
            scheme,
            userinfo,
            host: host.to_ascii_lowercase(),
            port,
            path: path.to_string(),
            query,
            fragment,
        })
    }

    /// `scheme://host:port`, what credentials are scoped to.
    pub fn origin(&self) -> String {
        match self.port {
            Some(p) => format!("{}://{}:{p}", self.scheme, self.host),
            None => format!("{}://{}", self.scheme, self.host),
        }
    }

    /// True when the host is a loopback address or `localhost` (where plain HTTP is allowed).
    pub fn is_loopback(&self) -> bool {
        let h = self.host.trim_start_matches('[').trim_end_matches(']');
        h == "localhost"
            || h.parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    }

    /// The URL without userinfo and fragment, as it is requested.
    pub fn without_credentials(&self) -> Url {
        Url {
            userinfo: None,
            fragment: None,
            ..self.clone()
        }
    }

    /// The user and password of the userinfo, percent-decoded.
    pub fn credentials(&self) -> Option<(String, String)> {
        let info = self.userinfo.as_deref()?;
        let (u, p) = info.split_once(':').unwrap_or((info, ""));
        Some((percent_decode(u), percent_decode(p)))
    }

    /// Go's `URL.ResolveReference` (RFC 3986 section 5.2) of `reference` against `self`, as
    /// a redirect's `Location` is followed: through [`crate::go::url`], the one port of Go's
    /// `net/url`.
    pub fn join(&self, reference: &str) -> Result<Url, UrlError> {
        let err = |why| UrlError {
            text: redact_text(reference),
            why,
        };
        let base = crate::go::url::Url::parse(&self.written()).map_err(|_| err("no base"))?;
        let reference =
            crate::go::url::Url::parse(reference).map_err(|_| err("not a URL reference"))?;
        Url::parse(&base.resolve_reference(&reference).to_string())
    }

    /// The URL as written, credentials and fragment too: what [`Url::join`] resolves
    /// against. Never printed.
    fn written(&self) -> String {
        let mut text = format!("{}://", self.scheme);
        if let Some(info) = &self.userinfo {
            text.push_str(info);
            text.push('@');
        }
        text.push_str(&self.host);
        if let Some(p) = self.port {
            text.push_str(&format!(":{p}"));
        }
        text.push_str(&self.path);
        if let Some(q) = &self.query {
            text.push('?');
            text.push_str(q);
        }
        if let Some(f) = &self.fragment {
            text.push('#');
            text.push_str(f);
        }
        text
    }
}

impl fmt::Display for Url {
    /// The URL without its password (a user name stays: it says which account was used).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://", self.scheme)?;
        if let Some(info) = &self.userinfo {
            let user = info.split_once(':').map_or(info.as_str(), |(u, _)| u);
            write!(f, "{user}@")?;
        }
        write!(f, "{}", self.host)?;
        if let Some(p) = self.port {
            write!(f, ":{p}")?;
        }
        write!(f, "{}", self.path)?;
        if let Some(q) = &self.query {
            write!(f, "?{q}")?;
        }
        Ok(())
    }
}

/// True for an `http://` or `https://` URL (the scheme in any case): what the fetch store's
/// files are read from.
pub fn is_http(s: &str) -> bool {
    let lower = s.get(..8).unwrap_or(s).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// Helm's `ResolveReferenceURL`: `reference` against `base` with a trailing `/` added to the
/// base path, and the base's query string kept (signed repository URLs carry their token
/// there).
pub fn resolve_reference(base: &str, reference: &str) -> Result<Url, UrlError> {
    if reference.contains("://") {
        return Url::parse(reference);
    }
    let mut b = Url::parse(base)?;
    b.path = format!("{}/", b.path.trim_end_matches('/'));
    let mut out = b.join(reference)?;
    out.query = b.query.clone();
    Ok(out)
}

/// A repository URL in the form kdelta compares: host and path, lower-case host, no scheme,
/// user, `.git` suffix or trailing `/` (`git@github.com:org/repo.git`,
/// `https://github.com/org/repo` and `ssh://git@github.com/org/repo` are one repository).
pub fn normalize_repo_url(url: &str) -> String {
    let url = url.trim().trim_end_matches('/');
    let url = url.strip_suffix(".git").unwrap_or(url);
    let rest = match url.split_once("://") {
        Some((_, rest)) => rest.to_string(),
        // scp-like `user@host:path`.
        None => url.replacen(':', "/", 1),
    };
    let rest = rest.rsplit_once('@').map_or(rest.as_str(), |(_, r)| r);
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let host = host.split(':').next().unwrap_or(host).to_lowercase();
    format!("{host}/{path}")
}

/// `text` with the password of anything URL-like cut, for messages about input that did not
/// parse.
pub fn redact_text(text: &str) -> String {
    let Some((scheme, rest)) = text.split_once("://") else {
        return text.to_string();
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..end].rsplit_once('@') {
        Some((info, host)) => {
            let user = info.split_once(':').map_or(info, |(u, _)| u);
            format!("{scheme}://{user}@{host}{}", &rest[end..])
        }
        None => text.to_string(),
    }
}

/// Userinfo percent-decoded as Go's `url.User` holds it; an escape Go refuses stays as written.
fn percent_decode(s: &str) -> String {
    crate::go::url::path_unescape(s).unwrap_or_else(|_| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_urls_in_any_case() {
        for (s, is) in [
            ("https://x/y.yaml", true),
            ("HTTP://x", true),
            ("http:/x", false),
            ("git@github.com:o/r", false),
            ("é://", false),
            ("", false),
        ] {
            assert_eq!(is_http(s), is, "{s}");
        }
    }

    #[test]
    fn helm_resolves_chart_urls_against_the_repository() {
        let r =
            |base: &str, reference: &str| resolve_reference(base, reference).unwrap().to_string();
        assert_eq!(
            r("https://charts.example.com/stable", "index.yaml"),
            "https://charts.example.com/stable/index.yaml"
        );
        assert_eq!(
            r("https://charts.example.com/stable/", "index.yaml"),
            "https://charts.example.com/stable/index.yaml"
        );
        assert_eq!(
            r("https://x.io/a/b", "charts/web-1.0.0.tgz"),
            "https://x.io/a/b/charts/web-1.0.0.tgz"
        );
        assert_eq!(
            r("https://x.io/a/b", "/dl/web-1.0.0.tgz"),
            "https://x.io/dl/web-1.0.0.tgz"
        );
        assert_eq!(
            r("https://x.io/a/b", "../web-1.0.0.tgz"),
            "https://x.io/a/web-1.0.0.tgz"
        );
        assert_eq!(
            r("https://x.io/a?sig=1", "web-1.0.0.tgz"),
            "https://x.io/a/web-1.0.0.tgz?sig=1"
        );
        assert_eq!(
            r("https://x.io/a", "https://cdn.io/web.tgz"),
            "https://cdn.io/web.tgz"
        );
    }

    /// A redirect's `Location` resolved as Go's `ResolveReference` resolves it.
    #[test]
    fn redirects_resolve_as_go_does() {
        let base = Url::parse("https://x.io/v2/a/blobs/sha256:1?n=1").unwrap();
        let j = |reference: &str| base.join(reference).unwrap().to_string();
        assert_eq!(j("https://cdn.io/b/../c?s=2"), "https://cdn.io/c?s=2");
        assert_eq!(j("//cdn.io/x"), "https://cdn.io/x");
        assert_eq!(j("/y/./z"), "https://x.io/y/z");
        assert_eq!(j("../c"), "https://x.io/v2/a/c");
        assert_eq!(j("?m=3"), "https://x.io/v2/a/blobs/sha256:1?m=3");
        assert_eq!(j(""), "https://x.io/v2/a/blobs/sha256:1?n=1");
        assert!(base.join("http://[bad").is_err());
        assert!(base.join("ftp://x.io/y").is_err());
    }

    #[test]
    fn credentials_never_print() {
        let u = Url::parse("https://bob:s3cr%21t@Charts.Example.com:8443/x?y=1#f").unwrap();
        assert_eq!(u.to_string(), "https://bob@charts.example.com:8443/x?y=1");
        assert_eq!(u.credentials(), Some(("bob".into(), "s3cr!t".into())));
        assert_eq!(u.origin(), "https://charts.example.com:8443");
        assert_eq!(redact_text("https://bob:pw@h/x"), "https://bob@h/x");
        assert!(!Url::parse("ftp://bob:pw@h/x")
            .unwrap_err()
            .to_string()
            .contains("pw"));
    }

    #[test]
    fn repository_urls_compare_without_scheme_user_or_suffix() {
        let same = [
            "https://github.com/Org/repo",
            "https://github.com/Org/repo.git",
            "git@github.com:Org/repo.git",
            "ssh://git@GitHub.com/Org/repo/",
        ];
        for u in same {
            assert_eq!(normalize_repo_url(u), "github.com/Org/repo", "{u}");
        }
    }

    #[test]
    fn loopback_hosts() {
        for u in [
            "http://127.0.0.1:80/x",
            "http://localhost/",
            "http://[::1]:5000/v2/",
        ] {
            assert!(Url::parse(u).unwrap().is_loopback(), "{u}");
        }
        for u in [
            "http://10.0.0.1/",
            "http://example.com/",
            "http://127.example.com/",
        ] {
            assert!(!Url::parse(u).unwrap().is_loopback(), "{u}");
        }
    }
}
