//! JSON references as gojsonreference reads them: the URL as Go's `net/url` parses, resolves
//! and prints it (`crate::go::url`), and the fragment as a JSON pointer (gojsonpointer).

use super::json::Json;
use crate::go::url::Url;

/// A `$ref`, `$id` or `$schema`: the URL and the pointer its fragment holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    pub url: Url,
}

impl Reference {
    /// `gojsonreference.NewJsonReference`; `Err` holds `url.Parse`'s error text.
    pub fn parse(text: &str) -> Result<Reference, String> {
        let url = Url::parse(text).map_err(|e| e.to_string())?;
        Ok(Reference { url })
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
            self.url.path.starts_with('/')
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
        Reference::parse(&base.resolve_reference(&child.url).to_string())
    }

    /// The JSON pointer of the fragment, as tokens; empty (the whole document) when the
    /// fragment is not a pointer, as gojsonreference ignores the pointer's error.
    fn pointer(&self) -> Vec<String> {
        match self.url.fragment.strip_prefix('/') {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_resolve_and_print_as_go() {
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
            Reference::parse(":x"),
            Err(r#"parse ":x": missing protocol scheme"#.to_string())
        );
        assert!(Reference::parse("http://x.io/s.json")
            .unwrap()
            .is_canonical());
        assert!(!Reference::parse("s.json").unwrap().is_canonical());
        assert!(Reference::parse("file:///s.json").unwrap().is_canonical());
    }
}
