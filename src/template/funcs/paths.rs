//! sprig's path functions (Go's `path` package: `base`, `dir`, `ext`, `clean`, `isAbs`, and
//! `path/filepath`'s `osBase`…, the same on Unix) and its URL functions (`urlParse`,
//! `urlJoin`, on Go's `net/url` rules). Plus `getHostByName`, which would resolve a name on the
//! network: kdelta never does, so it gives "" as it does offline.

use super::super::value::Value;
use super::super::{FuncDef, FuncError, Param};
use std::collections::BTreeMap;

const S: Param = Param::String;
const M: Param = Param::Map;

/// The path and URL functions.
pub const FUNCS: &[FuncDef] = &[
    FuncDef::new("base", &[S], |_, a| Ok(Value::str(base(s(a))))),
    FuncDef::new("dir", &[S], |_, a| Ok(Value::str(dir(s(a))))),
    FuncDef::new("ext", &[S], |_, a| Ok(Value::str(ext(s(a))))),
    FuncDef::new("clean", &[S], |_, a| Ok(Value::str(clean(s(a))))),
    FuncDef::new("isAbs", &[S], |_, a| Ok(Value::Bool(s(a).starts_with('/')))),
    FuncDef::new("osBase", &[S], |_, a| Ok(Value::str(base(s(a))))),
    FuncDef::new("osDir", &[S], |_, a| Ok(Value::str(dir(s(a))))),
    FuncDef::new("osExt", &[S], |_, a| Ok(Value::str(ext(s(a))))),
    FuncDef::new("osClean", &[S], |_, a| Ok(Value::str(clean(s(a))))),
    FuncDef::new("osIsAbs", &[S], |_, a| {
        Ok(Value::Bool(s(a).starts_with('/')))
    }),
    // Helm resolves the name where it runs; the result depends on the machine.
    FuncDef::new("getHostByName", &[S], |_, _| Ok(Value::str(""))).nondeterministic(),
    FuncDef::new("urlParse", &[S], |_, a| {
        let u =
            Url::parse(s(a)).map_err(|e| FuncError::Call(format!("unable to parse url: {e}")))?;
        let hostname = u.hostname().to_string();
        let userinfo = u.user.as_ref().map(|u| u.to_string()).unwrap_or_default();
        let entries = [
            ("scheme", u.scheme),
            ("host", u.host),
            ("hostname", hostname),
            ("path", u.path),
            ("query", u.raw_query),
            ("opaque", u.opaque),
            ("fragment", u.fragment),
            ("userinfo", userinfo),
        ];
        Ok(Value::map(
            entries
                .into_iter()
                .map(|(k, v)| (k.to_string(), Value::str(v)))
                .collect::<BTreeMap<_, _>>(),
        ))
    }),
    FuncDef::new("urlJoin", &[M], |_, a| {
        let Value::Map(d) = &a[0] else {
            return Ok(Value::str(""));
        };
        // sprig's metaStr: a missing key is "", anything else its fmt.Sprint.
        let field = |k: &str| match d.get(k) {
            None | Some(Value::Nil) | Some(Value::NoValue) => String::new(),
            Some(v) => super::super::fmt::sprint(&[v]),
        };
        let userinfo = field("userinfo");
        let user = if userinfo.is_empty() {
            None
        } else {
            Url::parse(&format!("proto://{userinfo}@host"))
                .map_err(|e| FuncError::Call(format!("unable to parse url: {e}")))?
                .user
        };
        let u = Url {
            scheme: field("scheme"),
            opaque: field("opaque"),
            user,
            host: field("host"),
            path: field("path"),
            raw_query: field("query"),
            fragment: field("fragment"),
        };
        Ok(Value::str(u.to_string()))
    }),
];

fn s(a: &[Value]) -> &str {
    a[0].as_str().unwrap_or_default()
}

/// Go's `path.Clean`: the shortest equivalent path, by lexical processing.
pub fn clean(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let rooted = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in p.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".into(),
        (false, false) => joined,
    }
}

/// Go's `path.Base`: the last element, without trailing slashes.
pub fn base(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let trimmed = p.trim_end_matches('/');
    if trimmed.is_empty() {
        return "/".into();
    }
    trimmed.rsplit('/').next().unwrap_or(trimmed).to_string()
}

/// Go's `path.Dir`: all but the last element, cleaned.
pub fn dir(p: &str) -> String {
    let cut = p.rfind('/').map_or(0, |i| i + 1);
    clean(&p[..cut])
}

/// Go's `path.Ext`: the suffix from the last dot of the last element.
pub fn ext(p: &str) -> String {
    for (i, c) in p.char_indices().rev() {
        match c {
            '/' => break,
            '.' => return p[i..].to_string(),
            _ => {}
        }
    }
    String::new()
}

/// The parts of a URL that sprig reads and writes, on Go's `net/url` rules.
#[derive(Default)]
struct Url {
    scheme: String,
    opaque: String,
    user: Option<UserInfo>,
    host: String,
    path: String,
    raw_query: String,
    fragment: String,
}

struct UserInfo {
    name: String,
    password: Option<String>,
}

impl std::fmt::Display for UserInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&escape(&self.name, Part::UserPassword))?;
        if let Some(p) = &self.password {
            write!(f, ":{}", escape(p, Part::UserPassword))?;
        }
        Ok(())
    }
}

/// Where a string goes in a URL, which decides what is escaped (Go's `encoding` modes).
#[derive(Clone, Copy, PartialEq)]
enum Part {
    Path,
    Host,
    UserPassword,
    Fragment,
}

/// Go's `shouldEscape`.
fn should_escape(c: u8, part: Part) -> bool {
    if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.' | b'~') {
        return false;
    }
    if part == Part::Host
        && matches!(
            c,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'['
                | b']'
                | b'<'
                | b'>'
                | b'"'
        )
    {
        return false;
    }
    match c {
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match part {
            Part::Path => c == b'?',
            Part::UserPassword => matches!(c, b'@' | b'/' | b'?' | b':'),
            Part::Fragment | Part::Host => false,
        },
        b'!' | b'(' | b')' | b'*' if part == Part::Fragment => false,
        _ => true,
    }
}

fn escape(s: &str, part: Part) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if should_escape(b, part) {
            out.push_str(&format!("%{b:02X}"));
        } else {
            out.push(b as char);
        }
    }
    out
}

/// Go's `unescape`: `%XX` decoded; a bad escape is an error.
fn unescape(s: &str) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s
                .get(i + 1..i + 3)
                .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()));
            let Some(hex) = hex else {
                let bad = s.get(i..(i + 3).min(s.len())).unwrap_or("%");
                return Err(format!(
                    "invalid URL escape {}",
                    super::super::fmt::go_quote(bad)
                ));
            };
            out.push(u8::from_str_radix(hex, 16).unwrap_or(0));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

impl Url {
    /// Go's `url.Parse`.
    fn parse(raw: &str) -> Result<Url, String> {
        let quoted = super::super::fmt::go_quote(raw);
        let fail = |e: String| format!("parse {quoted}: {e}");
        let (rest, fragment) = match raw.split_once('#') {
            Some((r, f)) => (r, unescape(f).map_err(fail)?),
            None => (raw, String::new()),
        };
        if rest.bytes().any(|b| b < 0x20 || b == 0x7f) {
            return Err(fail("net/url: invalid control character in URL".into()));
        }
        let mut u = Url {
            fragment,
            ..Url::default()
        };
        let mut rest = rest;
        // The scheme: a letter, then letters, digits, `+`, `-`, `.`, up to a colon.
        for (i, c) in rest.char_indices() {
            match c {
                'a'..='z' | 'A'..='Z' => {}
                '0'..='9' | '+' | '-' | '.' if i > 0 => {}
                ':' if i == 0 => return Err(fail("missing protocol scheme".into())),
                ':' => {
                    u.scheme = rest[..i].to_ascii_lowercase();
                    rest = &rest[i + 1..];
                    break;
                }
                _ => break,
            }
        }
        if let Some((r, q)) = rest.split_once('?') {
            u.raw_query = q.to_string();
            rest = r;
        }
        if !rest.starts_with('/') && !u.scheme.is_empty() {
            u.opaque = rest.to_string();
            return Ok(u);
        }
        if u.scheme.is_empty() {
            // A colon before the first slash would be read as a scheme.
            let first = rest.split('/').next().unwrap_or_default();
            if first.contains(':') {
                return Err(fail(
                    "first path segment in URL cannot contain colon".into(),
                ));
            }
        }
        if let Some(after) = rest.strip_prefix("//") {
            let end = after.find('/').unwrap_or(after.len());
            let (authority, path) = after.split_at(end);
            let host = match authority.rsplit_once('@') {
                Some((userinfo, host)) => {
                    u.user = Some(match userinfo.split_once(':') {
                        Some((n, p)) => UserInfo {
                            name: unescape(n).map_err(fail)?,
                            password: Some(unescape(p).map_err(fail)?),
                        },
                        None => UserInfo {
                            name: unescape(userinfo).map_err(fail)?,
                            password: None,
                        },
                    });
                    host
                }
                None => authority,
            };
            u.host = unescape(host).map_err(fail)?;
            rest = path;
        }
        u.path = unescape(rest).map_err(fail)?;
        Ok(u)
    }

    /// `Hostname()`: the host without its port and IPv6 brackets.
    fn hostname(&self) -> &str {
        let host = &self.host;
        if let Some(inner) = host.strip_prefix('[') {
            return inner.split(']').next().unwrap_or(inner);
        }
        match host.rsplit_once(':') {
            Some((h, port)) if port.bytes().all(|b| b.is_ascii_digit()) => h,
            _ => host,
        }
    }
}

impl std::fmt::Display for Url {
    /// Go's `URL.String`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.scheme.is_empty() {
            write!(f, "{}:", self.scheme)?;
        }
        if !self.opaque.is_empty() {
            f.write_str(&self.opaque)?;
        } else {
            if !self.scheme.is_empty() || !self.host.is_empty() || self.user.is_some() {
                if !self.host.is_empty() || !self.path.is_empty() || self.user.is_some() {
                    f.write_str("//")?;
                }
                if let Some(user) = &self.user {
                    write!(f, "{user}@")?;
                }
                f.write_str(&escape(&self.host, Part::Host))?;
            }
            let path = escape(&self.path, Part::Path);
            if !path.is_empty() && !path.starts_with('/') && !self.host.is_empty() {
                f.write_str("/")?;
            }
            f.write_str(&path)?;
        }
        if !self.raw_query.is_empty() {
            write!(f, "?{}", self.raw_query)?;
        }
        if !self.fragment.is_empty() {
            write!(f, "#{}", escape(&self.fragment, Part::Fragment))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_follow_go() {
        assert_eq!(clean("a/../../b"), "../b");
        assert_eq!(clean("/../x"), "/x");
        assert_eq!(clean("./"), ".");
        assert_eq!(dir("a"), ".");
        assert_eq!(dir("/a"), "/");
        assert_eq!(base("a/b/"), "b");
        assert_eq!(ext("a.b/c"), "");
    }

    #[test]
    fn urls_round_trip() {
        let u = Url::parse("https://u:p@h.io:8080/a%20b?x=1#f").unwrap();
        assert_eq!((u.host.as_str(), u.hostname()), ("h.io:8080", "h.io"));
        assert_eq!(u.path, "/a b");
        assert_eq!(u.to_string(), "https://u:p@h.io:8080/a%20b?x=1#f");
        assert_eq!(Url::parse("mailto:a@b").unwrap().opaque, "a@b");
        assert!(Url::parse("a:b/c:d").is_ok());
        assert!(Url::parse("%zz").is_err());
    }
}
