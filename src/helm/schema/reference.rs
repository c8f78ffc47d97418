//! JSON references as gojsonreference reads them: Go's `net/url` (parsing with its errors,
//! `ResolveReference`, `String`) and the fragment as a JSON pointer (gojsonpointer).

use super::json::Json;

/// A URL split as Go's `url.URL` holds it; path, query and fragment as written (escaped).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Url {
    pub scheme: String,
    opaque: String,
    /// `user@host:port` as written; `None` when the URL has no authority.
    authority: Option<String>,
    host: String,
    path: String,
    query: Option<String>,
    fragment: String,
}

/// A `$ref`, `$id` or `$schema`: the URL and the pointer its fragment holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    pub url: Url,
}

impl Reference {
    /// `gojsonreference.NewJsonReference`; `Err` holds `url.Parse`'s error text.
    pub fn parse(text: &str) -> Result<Reference, String> {
        Ok(Reference {
            url: Url::parse(text)?,
        })
    }

    /// `JsonReference.String()`.
    pub fn text(&self) -> String {
        self.url.to_string()
    }

    /// The reference without its fragment, as the document pool keys whole documents.
    pub fn document(&self) -> String {
        Url {
            fragment: String::new(),
            ..self.url.clone()
        }
        .to_string()
    }

    /// `IsCanonical`: an absolute URL, or a `file:` URL with an absolute path.
    pub fn is_canonical(&self) -> bool {
        if self.url.scheme == "file" {
            unescape(&self.url.path).is_ok_and(|p| p.starts_with('/'))
        } else {
            !self.url.scheme.is_empty() && !self.url.host.is_empty()
        }
    }

    /// `parent.Inherits(child)`: the child resolved against this reference.
    pub fn inherits(&self, child: &Reference) -> Result<Reference, String> {
        let base = Url {
            fragment: String::new(),
            ..self.url.clone()
        };
        Reference::parse(&base.resolve(&child.url).to_string())
    }

    /// The JSON pointer of the fragment, as tokens; empty (the whole document) when the
    /// fragment is not a pointer, as gojsonreference ignores the pointer's error.
    fn pointer(&self) -> Vec<String> {
        let fragment = unescape(&self.url.fragment).unwrap_or_default();
        match fragment.strip_prefix('/') {
            Some(rest) => rest.split('/').map(str::to_string).collect(),
            None => Vec::new(),
        }
    }

    /// `GetPointer().Get(document)`, with gojsonpointer's errors.
    pub fn resolve_in<'d>(&self, document: &'d Json) -> Result<&'d Json, String> {
        let mut node = document;
        for token in self.pointer() {
            node = match node {
                Json::Object(map) => {
                    let key = token.replace("~1", "/").replace("~0", "~");
                    map.get(&key)
                        .ok_or_else(|| format!("Object has no key '{key}'"))?
                }
                Json::Array(items) => {
                    let index: i64 = parse_atoi(&token)
                        .ok_or_else(|| format!("Invalid array index '{token}'"))?;
                    usize::try_from(index)
                        .ok()
                        .and_then(|i| items.get(i))
                        .ok_or_else(|| {
                            format!("Out of bound array[0,{}] index '{index}'", items.len())
                        })?
                }
                _ => return Err(format!("Invalid token reference '{token}'")),
            };
        }
        Ok(node)
    }
}

/// Go's `strconv.Atoi` (an optional sign, decimal digits).
fn parse_atoi(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

impl Url {
    /// The path as written (escaped); empty for an opaque URL.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Go's `url.Parse`.
    pub fn parse(raw: &str) -> Result<Url, String> {
        let (rest, fragment) = match raw.split_once('#') {
            Some((r, f)) => (r, Some(f)),
            None => (raw, None),
        };
        let error = |subject: &str, why: String| format!("parse {}: {why}", go_quote(subject));
        let mut url = Url::parse_without_fragment(rest).map_err(|why| error(rest, why))?;
        if let Some(f) = fragment {
            unescape(f).map_err(|why| error(raw, why))?;
            url.fragment = f.to_string();
        }
        Ok(url)
    }

    fn parse_without_fragment(raw: &str) -> Result<Url, String> {
        if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
            return Err("net/url: invalid control character in URL".to_string());
        }
        let mut url = Url::default();
        if raw == "*" {
            url.path = "*".to_string();
            return Ok(url);
        }
        let (scheme, mut rest) = scheme(raw)?;
        url.scheme = scheme.to_ascii_lowercase();
        if rest.ends_with('?') && rest.matches('?').count() == 1 {
            rest = &rest[..rest.len() - 1];
            url.query = Some(String::new());
        } else if let Some((r, q)) = rest.split_once('?') {
            rest = r;
            url.query = Some(q.to_string());
        }
        if !rest.starts_with('/') {
            if !url.scheme.is_empty() {
                url.opaque = rest.to_string();
                return Ok(url);
            }
            if rest.split('/').next().is_some_and(|s| s.contains(':')) {
                return Err("first path segment in URL cannot contain colon".to_string());
            }
        }
        if (!url.scheme.is_empty() || !rest.starts_with("///")) && rest.starts_with("//") {
            let after = &rest[2..];
            let (authority, path) = match after.find('/') {
                Some(i) => (&after[..i], &after[i..]),
                None => (after, ""),
            };
            url.host = host(authority)?;
            url.authority = Some(authority.to_string());
            rest = path;
        }
        unescape(rest)?;
        url.path = rest.to_string();
        Ok(url)
    }

    /// Go's `URL.ResolveReference` (RFC 3986 section 5.2), on escaped paths.
    pub fn resolve(&self, r: &Url) -> Url {
        let mut url = r.clone();
        if r.scheme.is_empty() {
            url.scheme = self.scheme.clone();
        }
        if !r.scheme.is_empty() || r.authority.as_deref().is_some_and(|a| !a.is_empty()) {
            url.path = resolve_path(&r.path, "");
            return url;
        }
        if !r.opaque.is_empty() {
            url.authority = None;
            url.host.clear();
            url.path.clear();
            return url;
        }
        if r.path.is_empty() && r.query.is_none() {
            url.query = self.query.clone();
            if r.fragment.is_empty() {
                url.fragment = self.fragment.clone();
            }
        }
        if r.path.is_empty() && !self.opaque.is_empty() {
            url.opaque = self.opaque.clone();
            url.authority = None;
            url.host.clear();
            url.path.clear();
            return url;
        }
        url.authority = self.authority.clone();
        url.host = self.host.clone();
        url.path = resolve_path(&self.path, &r.path);
        url
    }
}

impl std::fmt::Display for Url {
    /// Go's `URL.String`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut out = String::new();
        if !self.scheme.is_empty() {
            out.push_str(&self.scheme);
            out.push(':');
        }
        if !self.opaque.is_empty() {
            out.push_str(&self.opaque);
        } else {
            if let Some(authority) = &self.authority {
                if !authority.is_empty() || !self.path.is_empty() {
                    out.push_str("//");
                }
                out.push_str(authority);
            }
            if !self.path.is_empty() && !self.path.starts_with('/') && !self.host.is_empty() {
                out.push('/');
            }
            if out.is_empty() && self.path.split('/').next().is_some_and(|s| s.contains(':')) {
                out.push_str("./");
            }
            out.push_str(&self.path);
        }
        if let Some(q) = &self.query {
            out.push('?');
            out.push_str(q);
        }
        if !self.fragment.is_empty() {
            out.push('#');
            out.push_str(&self.fragment);
        }
        f.write_str(&out)
    }
}

/// Go's `getScheme`.
fn scheme(raw: &str) -> Result<(&str, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err("missing protocol scheme".to_string()),
            b':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

/// Go's `parseAuthority` and `parseHost`: the host, lower-cased as written, checked.
fn host(authority: &str) -> Result<String, String> {
    let (userinfo, host) = match authority.rfind('@') {
        Some(i) => (Some(&authority[..i]), &authority[i + 1..]),
        None => (None, authority),
    };
    if let Some(u) = userinfo {
        if !u
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=%@".contains(c) || !c.is_ascii())
        {
            return Err("net/url: invalid userinfo".to_string());
        }
        unescape(u)?;
    }
    let port = if let Some(v6) = host.strip_prefix('[') {
        let end = v6
            .find(']')
            .ok_or_else(|| "missing ']' in host".to_string())?;
        &v6[end + 1..]
    } else {
        match host.rfind(':') {
            Some(i) => &host[i..],
            None => "",
        }
    };
    let valid_port =
        port.is_empty() || (port.starts_with(':') && port[1..].bytes().all(|b| b.is_ascii_digit()));
    if !valid_port {
        return Err(format!("invalid port {} after host", go_quote(port)));
    }
    let name = host.strip_prefix('[').map_or(host, |_| "");
    for c in name.chars() {
        let ok =
            c.is_ascii_alphanumeric() || "-._~!$&'()*+,;=:[]<>\"%".contains(c) || !c.is_ascii();
        if !ok {
            return Err(format!(
                "invalid character {} in host name",
                go_quote(&c.to_string())
            ));
        }
    }
    unescape(host)
}

/// Go's `unescape`: `%XX` decoded; a bad escape is Go's `EscapeError`.
pub fn unescape(s: &str) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = |j: usize| b.get(j).is_some_and(u8::is_ascii_hexdigit);
            if !hex(i + 1) || !hex(i + 2) {
                let end = (i + 3).min(b.len());
                let bad = String::from_utf8_lossy(&b[i..end]);
                return Err(format!("invalid URL escape {}", go_quote(&bad)));
            }
            let v = u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap_or(0);
            out.push(v);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// Go's `resolvePath`: the reference's path merged with the base's, dot segments removed,
/// always with a leading `/`.
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
            ".." => {
                let kept = dst[1..].rfind('/');
                match kept {
                    Some(i) => dst.truncate(i + 1),
                    None => {
                        dst.truncate(1);
                        first = true;
                    }
                }
            }
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

/// Go's `%q` of a string (`strconv.Quote`).
fn go_quote(s: &str) -> String {
    crate::go::strconv::quote(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_resolve_and_print_as_go() {
        let r = |base: &str, rel: &str| {
            Reference::parse(base)
                .unwrap()
                .inherits(&Reference::parse(rel).unwrap())
                .unwrap()
                .text()
        };
        assert_eq!(Reference::parse("#").unwrap().text(), "");
        assert_eq!(r("#", "#/definitions/a"), "#/definitions/a");
        assert_eq!(r("#", "#"), "");
        assert_eq!(
            r("http://x.io/a/b.json", "c.json#/d"),
            "http://x.io/a/c.json#/d"
        );
        assert_eq!(r("http://x.io/a/b.json", "../c.json"), "http://x.io/c.json");
        assert_eq!(
            Reference::parse("http://json-schema.org/draft-07/schema#")
                .unwrap()
                .text(),
            "http://json-schema.org/draft-07/schema"
        );
        assert_eq!(
            Url::parse(":x"),
            Err(r#"parse ":x": missing protocol scheme"#.to_string())
        );
        assert_eq!(
            Url::parse("a:b/c%zz"),
            Ok(Url {
                scheme: "a".into(),
                opaque: "b/c%zz".into(),
                ..Url::default()
            })
        );
        assert_eq!(
            Url::parse("/a%zz"),
            Err(r#"parse "/a%zz": invalid URL escape "%zz""#.to_string())
        );
        assert!(Reference::parse("http://x.io/s.json")
            .unwrap()
            .is_canonical());
        assert!(!Reference::parse("s.json").unwrap().is_canonical());
        assert!(Reference::parse("file:///s.json").unwrap().is_canonical());
    }
}
