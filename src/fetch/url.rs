//! The little of RFC 3986 the fetch layer needs: split an absolute URL, resolve a reference
//! against a base as Go's `net/url` does (Helm's `ResolveReferenceURL`), and print a URL
//! without its credentials.

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

    /// Go's `URL.ResolveReference` (RFC 3986 section 5.2) of `reference` against `self`.
    pub fn join(&self, reference: &str) -> Result<Url, UrlError> {
        if reference.contains("://") {
            return Url::parse(reference);
        }
        let (reference, fragment) = match reference.split_once('#') {
            Some((r, f)) => (r, Some(f.to_string())),
            None => (reference, None),
        };
        let (ref_path, ref_query) = match reference.split_once('?') {
            Some((p, q)) => (p, Some(q.to_string())),
            None => (reference, None),
        };
        let mut out = Url {
            fragment,
            ..self.clone()
        };
        if let Some(authority) = ref_path.strip_prefix("//") {
            return Url::parse(&format!("{}://{authority}", self.scheme));
        }
        if ref_path.is_empty() {
            out.query = ref_query.or_else(|| self.query.clone());
            return Ok(out);
        }
        let merged = if ref_path.starts_with('/') {
            ref_path.to_string()
        } else {
            let dir = match self.path.rfind('/') {
                Some(i) => &self.path[..=i],
                None => "/",
            };
            format!("{dir}{ref_path}")
        };
        out.path = remove_dot_segments(&merged);
        out.query = ref_query;
        Ok(out)
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

fn remove_dot_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').collect();
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        match *seg {
            "." => {
                if last {
                    out.push("");
                }
            }
            ".." => {
                if out.len() > 1 {
                    out.pop();
                }
                if last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    let joined = out.join("/");
    if joined.starts_with('/') {
        joined
    } else {
        format!("/{joined}")
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(b) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

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
