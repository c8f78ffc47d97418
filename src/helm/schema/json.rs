//! JSON documents as gojsonschema holds them: decoded by `json.Decoder` with `UseNumber` (the
//! first value of the input, numbers kept as their text, a repeated key's last value), and
//! written back as its `marshalWithoutNumber` writes them for `enum`, `const` and
//! `uniqueItems` (numbers through `float64`, keys sorted, HTML escaped).

use super::number::Number;
use crate::fxhash::FxBuildHasher;

/// An object's members, in document order.
pub type Map = indexmap::IndexMap<String, Json, FxBuildHasher>;

/// Go's `maxNestingDepth`.
pub const GO_MAX_DEPTH: usize = 10000;

/// A decoded JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<Json>),
    /// In document order (gojsonschema's Go map has none; document order is kdelta's choice).
    Object(Map),
}

impl Json {
    /// The object's members, if it is one.
    #[cfg(test)]
    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Json::Object(m) => Some(m),
            _ => None,
        }
    }

    /// `marshalWithoutNumber`: the value as `json.Marshal` writes it after a round trip
    /// through `interface{}` with `float64` numbers; `Err` holds Go's error for a number no
    /// `float64` holds.
    pub fn canonical(&self) -> Result<String, String> {
        let mut out = String::new();
        self.write_canonical(&mut out)?;
        Ok(out)
    }

    fn write_canonical(&self, out: &mut String) -> Result<(), String> {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(n) => match n.as_f64() {
                Some(f) => out.push_str(&crate::go::float::format_json(f)),
                None => {
                    return Err(format!(
                        "json: cannot unmarshal number {} into Go value of type float64",
                        n.text()
                    ))
                }
            },
            Json::String(s) => crate::go::json::quote_into(out, s, true),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_canonical(out)?;
                }
                out.push(']');
            }
            Json::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                out.push('{');
                for (i, k) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    crate::go::json::quote_into(out, k, true);
                    out.push(':');
                    map[k].write_canonical(out)?;
                }
                out.push('}');
            }
        }
        Ok(())
    }
}

/// `json.NewDecoder(r).Decode(&v)` with `UseNumber`: the first JSON value of `text`; what
/// follows it is not read. `Err` holds Go's error text.
#[cfg(test)]
pub fn decode(text: &str) -> Result<Json, String> {
    decode_within(text, GO_MAX_DEPTH).map_err(|e| e.unwrap_or_default())
}

/// [`decode`] nesting at most `max_depth` deep: `Err(None)` when the document nests deeper
/// (below Go's own limit, which is Go's error).
pub fn decode_within(text: &str, max_depth: usize) -> Result<Json, Option<String>> {
    let max_depth = max_depth.min(GO_MAX_DEPTH);
    let mut reader = Reader {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        depth: 0,
        max_depth,
    };
    reader.skip_space();
    if reader.pos == reader.bytes.len() {
        return Err(Some("EOF".to_string()));
    }
    match reader.value() {
        Ok(v) => Ok(v),
        Err(Stop::Eof) => Err(Some("unexpected EOF".to_string())),
        Err(Stop::Deep) if max_depth < GO_MAX_DEPTH => Err(None),
        // The scanner stops at the same byte and words why.
        Err(Stop::Syntax | Stop::Deep) => Err(Some(
            crate::template::go_json_check_valid(text.as_bytes())
                .err()
                .unwrap_or_else(|| "invalid JSON".to_string()),
        )),
    }
}

/// Why the reader stopped.
enum Stop {
    /// The input ended inside the value.
    Eof,
    /// A byte Go's scanner refuses.
    Syntax,
    /// Nested deeper than asked.
    Deep,
}

struct Reader<'a> {
    /// The input, and its bytes: a piece between two ASCII bytes is text already.
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
    max_depth: usize,
}

impl Reader<'_> {
    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Result<u8, Stop> {
        self.bytes.get(self.pos).copied().ok_or(Stop::Eof)
    }

    fn expect(&mut self, b: u8) -> Result<(), Stop> {
        if self.peek()? == b {
            self.pos += 1;
            Ok(())
        } else {
            Err(Stop::Syntax)
        }
    }

    fn value(&mut self) -> Result<Json, Stop> {
        self.skip_space();
        match self.peek()? {
            b'{' => self.nested(Self::object),
            b'[' => self.nested(Self::array),
            b'"' => self.string().map(Json::String),
            b't' => self.literal(b"true", Json::Bool(true)),
            b'f' => self.literal(b"false", Json::Bool(false)),
            b'n' => self.literal(b"null", Json::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(Stop::Syntax),
        }
    }

    fn nested(&mut self, f: fn(&mut Self) -> Result<Json, Stop>) -> Result<Json, Stop> {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(Stop::Deep);
        }
        self.pos += 1;
        let v = f(self);
        self.depth -= 1;
        v
    }

    fn object(&mut self) -> Result<Json, Stop> {
        let mut map = Map::default();
        self.skip_space();
        if self.peek()? == b'}' {
            self.pos += 1;
            return Ok(Json::Object(map));
        }
        loop {
            self.skip_space();
            if self.peek()? != b'"' {
                return Err(Stop::Syntax);
            }
            let key = self.string()?;
            self.skip_space();
            self.expect(b':')?;
            let v = self.value()?;
            map.insert(key, v);
            self.skip_space();
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    return Ok(Json::Object(map));
                }
                _ => return Err(Stop::Syntax),
            }
        }
    }

    fn array(&mut self) -> Result<Json, Stop> {
        let mut items = Vec::new();
        self.skip_space();
        if self.peek()? == b']' {
            self.pos += 1;
            return Ok(Json::Array(items));
        }
        loop {
            items.push(self.value()?);
            self.skip_space();
            match self.peek()? {
                b',' => self.pos += 1,
                b']' => {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                _ => return Err(Stop::Syntax),
            }
        }
    }

    fn literal(&mut self, word: &[u8], v: Json) -> Result<Json, Stop> {
        for &b in word {
            self.expect(b)?;
        }
        Ok(v)
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<Json, Stop> {
        let start = self.pos;
        if self.peek()? == b'-' {
            self.pos += 1;
        }
        match self.peek()? {
            b'0' => self.pos += 1,
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return Err(Stop::Syntax),
        }
        if self.bytes.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                self.peek()?;
                return Err(Stop::Syntax);
            }
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.pos) {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.bytes.get(self.pos) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                self.peek()?;
                return Err(Stop::Syntax);
            }
        }
        let text = self.text.get(start..self.pos).ok_or(Stop::Syntax)?;
        Ok(Json::Number(Number::from_json(text)))
    }

    fn string(&mut self) -> Result<String, Stop> {
        self.pos += 1;
        let mut out = String::new();
        loop {
            let start = self.pos;
            while let Some(&b) = self.bytes.get(self.pos) {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            // The input is a &str and the run stops at an ASCII byte: a whole UTF-8 slice.
            out.push_str(self.text.get(start..self.pos).ok_or(Stop::Syntax)?);
            match self.peek()? {
                b'"' => {
                    self.pos += 1;
                    return Ok(out);
                }
                b'\\' => {
                    self.pos += 1;
                    let c = self.peek()?;
                    self.pos += 1;
                    match c {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let first = self.hex4()?;
                            out.push(self.surrogate_pair(first));
                        }
                        _ => return Err(Stop::Syntax),
                    }
                }
                _ => return Err(Stop::Syntax),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, Stop> {
        let mut v = 0;
        for _ in 0..4 {
            let d = (self.peek()? as char).to_digit(16).ok_or(Stop::Syntax)?;
            self.pos += 1;
            v = v * 16 + d;
        }
        Ok(v)
    }

    /// Go's `unquote`: a high surrogate joins a following `\uDC00`-`\uDFFF`; a lone one is
    /// U+FFFD.
    fn surrogate_pair(&mut self, first: u32) -> char {
        if (0xD800..0xDC00).contains(&first) {
            let rest = &self.bytes[self.pos..];
            if rest.len() >= 6 && rest[0] == b'\\' && rest[1] == b'u' {
                let second = std::str::from_utf8(&rest[2..6])
                    .ok()
                    .and_then(|h| u32::from_str_radix(h, 16).ok());
                if let Some(second @ 0xDC00..=0xDFFF) = second {
                    self.pos += 6;
                    let c = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                    return char::from_u32(c).unwrap_or('\u{FFFD}');
                }
            }
            return '\u{FFFD}';
        }
        char::from_u32(first).unwrap_or('\u{FFFD}')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_first_value_as_go_does() {
        assert_eq!(decode("{} trailing"), Ok(Json::Object(Map::default())));
        assert_eq!(decode(""), Err("EOF".to_string()));
        assert_eq!(decode("  {\"a\": "), Err("unexpected EOF".to_string()));
        assert_eq!(
            decode("{\"a\" 1}"),
            Err("invalid character '1' after object key".to_string())
        );
        assert_eq!(
            decode("{not json"),
            Err("invalid character 'n' looking for beginning of object key string".to_string())
        );
        // The check runs on a thread with a large stack; so does this.
        let deep = std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(|| decode(&"[".repeat(10001)))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(
            deep,
            Err("invalid character '[' exceeded max depth".to_string())
        );
        let v = decode(r#"{"a": 1, "a": 2.50, "b": "\u00e9\ud83d\ude00"}"#).unwrap();
        let m = v.as_object().unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(m["a"], Json::Number(Number::from_json("2.50")));
        assert_eq!(m["b"], Json::String("é😀".to_string()));
    }

    #[test]
    fn canonical_text_is_go_marshal_after_float64() {
        let v =
            decode(r#"{"b": [1.0, 1e21, "<&>"], "a": null, "c": 12345678901234567890}"#).unwrap();
        assert_eq!(
            v.canonical().unwrap(),
            r#"{"a":null,"b":[1,1e+21,"\u003c\u0026\u003e"],"c":12345678901234567000}"#
        );
        assert_eq!(
            decode("1e400").unwrap().canonical(),
            Err("json: cannot unmarshal number 1e400 into Go value of type float64".to_string())
        );
    }
}
