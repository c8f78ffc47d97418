//! Helm's `--set` syntax (`pkg/strvals`): `a.b=c,list={x,y},l[0].k=v`, `\` escaping the next
//! character, values typed as Helm types them (`true`, `false`, `null`, integers as int64;
//! `--set-string` keeps strings; `--set-literal` takes the whole rest), parsed into the values
//! the earlier flags and files built; `--set-file` values are the contents of the files they
//! name ([`SetFile`]).

use super::values::Table;
use crate::template::Value;

/// How a flag's values are typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Typing {
    /// `--set`.
    Typed,
    /// `--set-string`.
    String,
}

/// Helm's limits on indexes and on dotted names.
const MAX_INDEX: usize = 65536;
const MAX_NESTED_NAME_LEVEL: usize = 30;

/// A `--set`-style assignment Helm's parser refuses, in its words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StrvalsError {
    /// A key with no `=`.
    #[error("key {key:?} has no value")]
    NoValue { key: String },
    /// A key ending at a `,`.
    #[error("key {key:?} has no value (cannot end with ,)")]
    EndsWithComma { key: String },
    /// A dotted key whose map gets no entry.
    #[error("key map {key:?} has no value")]
    EmptyMap { key: String },
    /// A key that goes into a value of another type (`a=1,a.b=2`).
    #[error(
        "unable to parse key: interface conversion: interface {{}} is {found}, not {expected}"
    )]
    NotA {
        /// The Go type the value has.
        found: &'static str,
        /// The Go type the key needs (`[]interface {}`, `map[string]interface {}`).
        expected: &'static str,
    },
    /// More dotted levels than Helm allows.
    #[error("value name nested level is greater than maximum supported nested level of {max}", max = MAX_NESTED_NAME_LEVEL)]
    TooDeep,
    /// `[` with no `]`.
    #[error("error parsing index: EOF")]
    IndexEof,
    /// An index that is not a number.
    #[error("error parsing index: strconv.Atoi: parsing {digits:?}: invalid syntax")]
    IndexSyntax { digits: String },
    #[error("negative {index} index not allowed")]
    NegativeIndex { index: i64 },
    #[error("index of {index} is greater than maximum supported index of {max}", max = MAX_INDEX)]
    IndexTooLarge { index: usize },
    /// `{a,b` with no `}`.
    #[error("list must terminate with '}}'")]
    UnterminatedList,
    /// Text between `]` and what follows an index.
    #[error("unexpected data at end of array index: {data:?}")]
    AfterIndex { data: String },
    /// `--set-file`: a file that cannot be read, in Go's words (`open P: no such file or
    /// directory`).
    #[error("{message}")]
    Read { message: String },
    /// `--set-json`: a value that is not JSON; the message is serde_json's (which ends with
    /// the line and column in the flag's value).
    #[error("{message}")]
    Json {
        message: String,
        line: usize,
        column: usize,
    },
}

/// Parses `text` into `data` (`strvals.ParseInto` / `ParseIntoString`).
pub fn parse_into(text: &str, data: &mut Table, typing: Typing) -> Result<(), StrvalsError> {
    let mode = match typing {
        Typing::Typed => Mode::Typed,
        Typing::String => Mode::String,
    };
    run(text, data, mode)
}

/// `--set-json`: `key=JSON[,key=JSON…]` (`strvals.ParseJSON`), each value read as Go's JSON
/// reads into `interface{}` (numbers are float64); an empty value is null.
pub fn parse_json_into(text: &str, data: &mut Table) -> Result<(), StrvalsError> {
    run(text, data, Mode::Json)
}

/// `--set-literal`: `name=VALUE` (`strvals.ParseLiteralInto`), the whole rest a string; the
/// name may hold `.` and `[i]` as in `--set`, but no `\` escapes and no `,`.
pub fn parse_literal_into(text: &str, data: &mut Table) -> Result<(), StrvalsError> {
    run(text, data, Mode::Literal)
}

/// A `--set-file` flag (`key=PATH[,key={PATH,PATH}…]`, as `--set-string` but each value the
/// text of the file at PATH) with the files it names, read when kdelta starts: the render
/// itself reads nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SetFile {
    pub text: String,
    /// Each path the flag names, in the order Helm reads them, with the file's text or why it
    /// could not be read (a path named twice is read twice, as Helm does: `-` twice is
    /// standard input and then nothing).
    pub reads: Vec<(String, Result<String, String>)>,
}

impl SetFile {
    /// The flag with every file it names read by `read` (Helm's `readFile`): the flag is
    /// parsed once into a scratch map to find them. That parse reads in the real one's
    /// order, and at least as far: an earlier value in the user's map can only stop the
    /// real one sooner.
    pub fn read(text: String, mut read: impl FnMut(&str) -> Result<String, String>) -> SetFile {
        let mut reads = Vec::new();
        let mut record = |path: &str| {
            reads.push((path.to_string(), read(path)));
            Ok(String::new())
        };
        let _ = run(&text, &mut Table::new(), Mode::File(&mut record));
        SetFile { text, reads }
    }

    /// Parses the flag into `data` (`strvals.ParseIntoFile`), each file's text as read.
    pub fn parse_into(&self, data: &mut Table) -> Result<(), StrvalsError> {
        let mut reads = self.reads.iter();
        let mut next = |path: &str| match reads.next() {
            Some((p, content)) if p == path => content.clone(),
            _ => Err(format!("kdelta did not read {path}")),
        };
        run(&self.text, data, Mode::File(&mut next))
    }
}

fn run(text: &str, data: &mut Table, mode: Mode) -> Result<(), StrvalsError> {
    let mut p = Parser { text, at: 0, mode };
    loop {
        match p.key(data, 0) {
            Ok(()) => continue,
            Err(Stop::Eof) => return Ok(()),
            Err(Stop::Error(e)) => return Err(e),
        }
    }
}

/// `key=VALUE` where VALUE is taken as it is (escaped for the parser): how `--set-file`'s
/// content is set at a key path.
pub fn literal_assignment(key: &str, value: &str) -> String {
    let mut out = format!("{key}=");
    for (i, c) in value.chars().enumerate() {
        if c == '\\' || c == ',' || (i == 0 && c == '{') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

enum Stop {
    Eof,
    Error(StrvalsError),
}

fn err(e: StrvalsError) -> Stop {
    Stop::Error(e)
}

/// A file's text by its path, or Go's error reading it.
type FileReader<'a> = &'a mut dyn FnMut(&str) -> Result<String, String>;

/// Which of Helm's parsers: `--set`, `--set-string`, `--set-json`, `--set-file` (with its
/// reader) or `--set-literal`.
enum Mode<'a> {
    Typed,
    String,
    Json,
    File(FileReader<'a>),
    Literal,
}

impl Mode<'_> {
    fn is_literal(&self) -> bool {
        matches!(self, Mode::Literal)
    }
}

struct Parser<'t, 'r> {
    text: &'t str,
    /// The byte offset of the next character.
    at: usize,
    mode: Mode<'r>,
}

impl Parser<'_, '_> {
    fn peek(&self) -> Option<char> {
        self.text[self.at..].chars().next()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek();
        if let Some(c) = c {
            self.at += c.len_utf8();
        }
        c
    }

    /// `runesUntil`: characters up to one of `stop` (which is consumed), `\` escaping
    /// (`runesUntilLiteral` for `--set-literal`: no escapes).
    fn until(&mut self, stop: &[char]) -> (String, Option<char>) {
        let mut out = String::new();
        loop {
            match self.next() {
                None => return (out, None),
                Some('\\') if !self.mode.is_literal() => {
                    if let Some(c) = self.next() {
                        out.push(c);
                    }
                }
                Some(c) if stop.contains(&c) => return (out, Some(c)),
                Some(c) => out.push(c),
            }
        }
    }

    /// The value Helm's `reader` makes of the text after `=`: typed for `--set`, a string for
    /// `--set-string`, the file's text for `--set-file`.
    fn value(&mut self, v: String) -> Result<Value, Stop> {
        match &mut self.mode {
            Mode::Typed => Ok(typed(v)),
            Mode::File(read) => read(&v)
                .map(Value::str)
                .map_err(|message| err(StrvalsError::Read { message })),
            _ => Ok(Value::str(v)),
        }
    }

    /// The value after `=` for `--set-json` and `--set-literal`; `None` for the others.
    fn json_or_literal_value(&mut self) -> Option<Result<Value, Stop>> {
        match self.mode {
            Mode::Typed | Mode::String | Mode::File(_) => None,
            Mode::Literal => {
                let rest = &self.text[self.at..];
                self.at = self.text.len();
                Some(Ok(Value::str(rest)))
            }
            Mode::Json => Some(self.json_value()),
        }
    }

    /// `--set-json`'s value: null when nothing but spaces comes before a `,` or the end
    /// (`emptyVal`), else one JSON value (Go's `json.Decoder`), then spaces and a `,` skipped.
    fn json_value(&mut self) -> Result<Value, Stop> {
        if self.empty_value() {
            return Ok(Value::Nil);
        }
        let rest = &self.text[self.at..];
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<serde_json::Value>();
        let value = match stream.next() {
            Some(Ok(v)) => Value::from(v),
            Some(Err(e)) => {
                return Err(err(StrvalsError::Json {
                    message: e.to_string(),
                    line: e.line(),
                    column: e.column(),
                }))
            }
            None => Value::Nil,
        };
        self.at += stream.byte_offset();
        self.empty_value();
        Ok(value)
    }

    /// `emptyVal`: skips spaces; true (and the `,` consumed) at a `,` or the end.
    fn empty_value(&mut self) -> bool {
        loop {
            match self.peek() {
                None => return true,
                Some(',') => {
                    self.at += 1;
                    return true;
                }
                Some(c) if c.is_whitespace() => self.at += c.len_utf8(),
                Some(_) => return false,
            }
        }
    }

    fn key(&mut self, data: &mut Table, mut level: usize) -> Result<(), Stop> {
        let stop: &[char] = if self.mode.is_literal() {
            &['=', '[', '.']
        } else {
            &['=', '[', ',', '.']
        };
        let (k, last) = self.until(stop);
        match last {
            None if k.is_empty() => Err(Stop::Eof),
            None => Err(err(StrvalsError::NoValue { key: k })),
            Some('[') => {
                let i = self.index()?;
                let list = match data.get(&k) {
                    None => Vec::new(),
                    Some(Value::List(l)) => l.to_vec(),
                    Some(other) => {
                        return Err(err(StrvalsError::NotA {
                            found: other.type_name(),
                            expected: "[]interface {}",
                        }))
                    }
                };
                let (list, result) = self.list_item(list, i, level);
                set(data, &k, Value::list(list));
                result
            }
            Some('=') if matches!(self.mode, Mode::Json | Mode::Literal) => {
                if let Some(value) = self.json_or_literal_value() {
                    set(data, &k, value?);
                }
                Ok(())
            }
            Some('=') => match self.val_list() {
                Ok(Some(list)) => {
                    set(data, &k, Value::list(list));
                    Ok(())
                }
                Ok(None) => {
                    // Go drops `val`'s EOF here: the end of the input is found by the next
                    // key, and a map that got no entry (`x.=1`: the empty key is not set)
                    // is an error.
                    let (v, _) = self.until(&[',']);
                    let v = self.value(v)?;
                    set(data, &k, v);
                    Ok(())
                }
                Err(Stop::Eof) => {
                    set(data, &k, Value::str(""));
                    Err(Stop::Eof)
                }
                Err(e) => Err(e),
            },
            Some(',') => {
                set(data, &k, Value::str(""));
                Err(err(StrvalsError::EndsWithComma { key: k }))
            }
            _ => {
                level += 1;
                if level > MAX_NESTED_NAME_LEVEL {
                    return Err(err(StrvalsError::TooDeep));
                }
                let mut inner = match data.get(&k) {
                    None => Table::new(),
                    Some(Value::Map(m)) => m.read().clone(),
                    Some(other) => {
                        return Err(err(StrvalsError::NotA {
                            found: other.type_name(),
                            expected: "map[string]interface {}",
                        }))
                    }
                };
                let result = self.key(&mut inner, level);
                if result.is_ok() && inner.is_empty() {
                    return Err(err(StrvalsError::EmptyMap { key: k }));
                }
                if !inner.is_empty() {
                    set(data, &k, Value::map(inner));
                }
                result
            }
        }
    }

    /// `keyIndex`: the digits before `]`.
    fn index(&mut self) -> Result<usize, Stop> {
        let (digits, last) = self.until(&[']']);
        if last.is_none() {
            return Err(err(StrvalsError::IndexEof));
        }
        digits
            .parse::<i64>()
            .map_err(|_| {
                err(StrvalsError::IndexSyntax {
                    digits: digits.clone(),
                })
            })
            .and_then(|i| {
                if i < 0 {
                    Err(err(StrvalsError::NegativeIndex { index: i }))
                } else {
                    Ok(i as usize)
                }
            })
    }

    /// `valList`: `{a,b}` if the value starts with `{`; `Ok(None)` if it does not.
    fn val_list(&mut self) -> Result<Option<Vec<Value>>, Stop> {
        match self.peek() {
            None => return Err(Stop::Eof),
            Some('{') => self.at += 1,
            Some(_) => return Ok(None),
        }
        let mut list = Vec::new();
        loop {
            let (v, last) = self.until(&[',', '}']);
            match last {
                None => return Err(err(StrvalsError::UnterminatedList)),
                Some('}') => {
                    if self.peek() == Some(',') {
                        self.at += 1;
                    }
                    list.push(self.value(v)?);
                    return Ok(Some(list));
                }
                _ => list.push(self.value(v)?),
            }
        }
    }

    /// The value after a list item's `=`.
    fn item_value(&mut self) -> Result<Value, Stop> {
        if let Some(value) = self.json_or_literal_value() {
            return value;
        }
        match self.val_list() {
            Ok(Some(l)) => Ok(Value::list(l)),
            Ok(None) => {
                let (v, _) = self.until(&[',']);
                self.value(v)
            }
            Err(Stop::Eof) => Ok(Value::str("")),
            Err(e) => Err(e),
        }
    }

    fn list_item(
        &mut self,
        list: Vec<Value>,
        i: usize,
        level: usize,
    ) -> (Vec<Value>, Result<(), Stop>) {
        let (k, last) = self.until(&['[', '.', '=']);
        if !k.is_empty() {
            return (list, Err(err(StrvalsError::AfterIndex { data: k })));
        }
        match last {
            None => (list, Err(Stop::Eof)),
            Some('=') => {
                let value = match self.item_value() {
                    Ok(value) => value,
                    Err(e) => return (list, Err(e)),
                };
                // As in `key`, the end of the input is left to the next key.
                match set_index(list, i, value) {
                    Ok(l) => (l, Ok(())),
                    Err((l, e)) => (l, Err(err(e))),
                }
            }
            Some('[') => {
                let next = match self.index() {
                    Ok(n) => n,
                    Err(e) => return (list, Err(e)),
                };
                let current = match list.get(i) {
                    Some(Value::List(l)) => l.to_vec(),
                    _ => Vec::new(),
                };
                // Go keeps the list as it was when the inner item stops, at the end too
                // (`x[0][1]` gives `x: []`).
                let (inner, result) = self.list_item(current, next, level);
                if let Err(e) = result {
                    return (list, Err(e));
                }
                match set_index(list, i, Value::list(inner)) {
                    Ok(l) => (l, Ok(())),
                    Err((l, e)) => (l, Err(err(e))),
                }
            }
            _ => {
                let mut inner = match list.get(i) {
                    Some(Value::Map(m)) => m.read().clone(),
                    _ => Table::new(),
                };
                let result = self.key(&mut inner, level);
                match result {
                    Ok(()) => match set_index(list, i, Value::map(inner)) {
                        Ok(l) => (l, Ok(())),
                        Err((l, e)) => (l, Err(err(e))),
                    },
                    // Go changes an item the list has in place (a map, or an empty one put
                    // there instead of what it was) and returns the list without setting a
                    // new one: `x[0].y=` at the end leaves `x: []`.
                    Err(e) => {
                        let mut list = list;
                        if let Some(item) = list.get_mut(i) {
                            *item = Value::map(inner);
                        }
                        (list, Err(e))
                    }
                }
            }
        }
    }
}

/// `typedVal`: `true`, `false` and `null` in any case, integers without a leading zero as
/// int64, the rest strings.
fn typed(v: String) -> Value {
    if v.eq_ignore_ascii_case("true") {
        return Value::Bool(true);
    }
    if v.eq_ignore_ascii_case("false") {
        return Value::Bool(false);
    }
    if v.eq_ignore_ascii_case("null") {
        return Value::Nil;
    }
    if v == "0" {
        return Value::Int64(0);
    }
    if !v.is_empty() && !v.starts_with('0') {
        if let Ok(i) = v.parse::<i64>() {
            return Value::Int64(i);
        }
    }
    Value::str(v)
}

fn set(data: &mut Table, key: &str, v: Value) {
    if !key.is_empty() {
        data.insert(key.to_string(), v);
    }
}

fn set_index(
    mut list: Vec<Value>,
    i: usize,
    v: Value,
) -> Result<Vec<Value>, (Vec<Value>, StrvalsError)> {
    if i > MAX_INDEX {
        return Err((list, StrvalsError::IndexTooLarge { index: i }));
    }
    if list.len() <= i {
        list.resize(i + 1, Value::Nil);
    }
    list[i] = v;
    Ok(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str, typing: Typing) -> Result<String, String> {
        let mut t = Table::new();
        parse_into(text, &mut t, typing).map_err(|e| e.to_string())?;
        Ok(crate::template::sprintf("%v", &[Value::map(t)]))
    }

    #[test]
    fn json_and_file_values() {
        let mut t = Table::new();
        parse_json_into(r#"a.b={"x":[1,"y"]},c=3"#, &mut t).unwrap();
        assert_eq!(
            crate::template::sprintf("%v", &[Value::map(t)]),
            "map[a:map[b:map[x:[1 y]]] c:3]"
        );
        let mut t = Table::new();
        parse_into(
            &literal_assignment("f.g", "{a,b}\\n"),
            &mut t,
            Typing::String,
        )
        .unwrap();
        assert_eq!(
            crate::template::sprintf("%v", &[Value::map(t)]),
            "map[f:map[g:{a,b}\\n]]"
        );
    }

    #[test]
    fn set_file_reads_in_helms_order() {
        let mut stdin = Some("from stdin".to_string());
        let flag = SetFile::read("a={x,-},b=-,c=,d=missing,e=".to_string(), |p| match p {
            "x" => Ok("X".into()),
            "-" => Ok(stdin.take().unwrap_or_default()),
            _ => Err(format!("open {p}: no such file or directory")),
        });
        // `c=` before a comma reads the file named "", `e=` at the end reads nothing.
        let paths: Vec<&str> = flag.reads.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["x", "-", "-", "", "missing"]);
        let mut t = Table::new();
        let e = flag.parse_into(&mut t).unwrap_err();
        assert_eq!(e.to_string(), "open : no such file or directory");
        assert_eq!(
            crate::template::sprintf("%v", &[Value::map(t)]),
            "map[a:[X from stdin] b:]"
        );
        // A parse that stops sooner (an earlier value of another type) reads no further.
        let flag = SetFile::read("a.b=x,c=missing".to_string(), |p| Ok(p.to_uppercase()));
        let mut t = Table::new();
        t.insert("a".into(), Value::str("s"));
        assert!(matches!(
            flag.parse_into(&mut t),
            Err(StrvalsError::NotA { .. })
        ));
    }

    #[test]
    fn helm_set_syntax() {
        assert_eq!(
            parse("a=b,c.d=1,e=true,f=null", Typing::Typed).unwrap(),
            "map[a:b c:map[d:1] e:true f:<nil>]"
        );
        assert_eq!(
            parse("l={x,2},n[1]=y", Typing::Typed).unwrap(),
            "map[l:[x 2] n:[<nil> y]]"
        );
        assert_eq!(
            parse(r"a=x\,y,b.c\.d=z", Typing::Typed).unwrap(),
            "map[a:x,y b:map[c.d:z]]"
        );
        assert_eq!(
            parse("a=007,b=1", Typing::String).unwrap(),
            "map[a:007 b:1]"
        );
        assert_eq!(
            parse("l[0].k=v,l[0].j=w", Typing::Typed).unwrap(),
            "map[l:[map[j:w k:v]]]"
        );
        assert!(parse("a", Typing::Typed)
            .unwrap_err()
            .contains("has no value"));
        assert!(parse("l[70000]=x", Typing::Typed)
            .unwrap_err()
            .contains("maximum supported index"));
        let deep = vec!["a"; 40].join(".") + "=1";
        assert!(parse(&deep, Typing::Typed)
            .unwrap_err()
            .contains("nested level"));
    }
}
