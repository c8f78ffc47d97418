//! Helm's `toToml` and `fromToml` (BurntSushi/toml v1.4, as Helm v3.17 calls it): the encoder
//! is written here to give its exact layout (keys sorted, plain keys before tables, nested
//! tables indented two spaces, floats always with a decimal point); the reading is the `toml`
//! crate's, converted to the values BurntSushi gives (int64, float64, time.Time); its errors
//! are BurntSushi's (`toml_lex`) where the port finds them.

use super::super::value::Value;
use super::dates::{Place, Time};
use crate::go::zoneinfo::Zone;
use std::collections::BTreeMap;
use std::fmt::Write;

/// `toToml`: the TOML text, or the encoder's error message.
pub fn to_toml(v: &Value) -> String {
    let mut enc = Encoder::default();
    match enc.encode(&[], v) {
        Ok(()) => enc.out,
        Err(e) => e,
    }
}

/// `fromToml`: a map, or a map with the parse error under `Error`.
pub fn from_toml(text: &str) -> Value {
    let error =
        |message: String| Value::map(BTreeMap::from([("Error".to_string(), Value::str(message))]));
    // The port of BurntSushi's lexer decides first: it refuses some text the `toml` crate
    // reads (a trailing comma or a line break in an inline table, TOML 1.1's).
    let burntsushi = super::toml_lex::error(text);
    match text.parse::<toml::Table>() {
        Ok(_) if burntsushi.is_some() => error(burntsushi.map(|e| e.1).unwrap_or_default()),
        Ok(table) => Value::map(
            table
                .into_iter()
                .map(|(k, v)| (k, from_toml_value(v)))
                .collect(),
        ),
        Err(e) => {
            let line = e.span().map_or(0, |s| {
                text[..s.start.min(text.len())].matches('\n').count() + 1
            });
            // BurntSushi's words when the port finds the error, unless the `toml` crate found
            // one on an earlier line: a check of BurntSushi's parser the port does not make
            // (Go counts the line break that ends a line as the next line's).
            match burntsushi {
                Some((go_line, message)) if go_line <= line + 1 => error(message),
                _ => error(format!("toml: line {line}: {}", e.message())),
            }
        }
    }
}

fn from_toml_value(v: toml::Value) -> Value {
    match v {
        toml::Value::String(s) => Value::str(s),
        toml::Value::Integer(i) => Value::Int64(i),
        toml::Value::Float(f) => Value::Float(f),
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Datetime(d) => datetime(&d).value(),
        toml::Value::Array(items) => Value::list(items.into_iter().map(from_toml_value).collect()),
        toml::Value::Table(t) => Value::map(
            t.into_iter()
                .map(|(k, v)| (k, from_toml_value(v)))
                .collect(),
        ),
    }
}

/// The zones BurntSushi gives TOML's local forms (its `internal.LocalDatetime`, `LocalDate`,
/// `LocalTime`), which its encoder writes back in those forms.
const LOCAL_DATETIME: &str = "datetime-local";
const LOCAL_DATE: &str = "date-local";
const LOCAL_TIME: &str = "time-local";

/// A TOML date-time as BurntSushi's `time.Time`: an offset in a zone of that offset (`Z` in
/// UTC), a local form at UTC in a zone named for the form; a time alone is on 0000-01-01.
fn datetime(d: &toml::value::Datetime) -> Time {
    let days = d.date.map_or_else(
        || super::dates::days_from_civil(0, 1, 1),
        |date| super::dates::days_from_civil(date.year.into(), date.month.into(), date.day.into()),
    );
    let (secs, nanos) = d.time.map_or((0, 0), |t| {
        (
            i64::from(t.hour) * 3600 + i64::from(t.minute) * 60 + i64::from(t.second.unwrap_or(0)),
            t.nanosecond.unwrap_or(0),
        )
    });
    let zone = |name: &str, offset: i64| {
        Place::Fixed(std::sync::Arc::new(Zone {
            name: name.to_string(),
            offset,
        }))
    };
    let (offset, place) = match (d.offset, d.date, d.time) {
        (Some(toml::value::Offset::Z), ..) => (0, Place::Utc),
        (Some(toml::value::Offset::Custom { minutes }), ..) => {
            let offset = i64::from(minutes) * 60;
            (offset, zone("", offset))
        }
        (None, Some(_), Some(_)) => (0, zone(LOCAL_DATETIME, 0)),
        (None, Some(_), None) => (0, zone(LOCAL_DATE, 0)),
        (None, None, _) => (0, zone(LOCAL_TIME, 0)),
    };
    Time {
        unix: days * 86_400 + secs - offset,
        nanos,
        place,
    }
}

/// BurntSushi's encoding of a time: a local form as it was read, else RFC 3339.
fn datetime_text(t: &Time) -> String {
    let local = match &t.place {
        Place::Fixed(zone) if zone.offset == 0 => match zone.name.as_str() {
            LOCAL_DATETIME => Some("2006-01-02T15:04:05.999999999"),
            LOCAL_DATE => Some("2006-01-02"),
            LOCAL_TIME => Some("15:04:05.999999999"),
            _ => None,
        },
        _ => None,
    };
    t.format(local.unwrap_or("2006-01-02T15:04:05.999999999Z07:00"))
}

/// BurntSushi's encoder state: what it wrote (a line break goes between parts only once
/// something was written).
#[derive(Default)]
struct Encoder {
    out: String,
}

/// What kind of TOML a value is, as `tomlTypeOfGo` decides (None: nil, a nil slice or map
/// too, skipped).
#[derive(PartialEq)]
enum Kind {
    Plain,
    Table,
    TableArray,
}

fn kind(v: &Value) -> Option<Kind> {
    match v {
        Value::Nil | Value::NoValue => None,
        Value::List(l) if l.is_nil() => None,
        Value::Map(m) if m.is_nil() => None,
        Value::Map(_) => Some(Kind::Table),
        Value::List(items) => {
            let all_tables =
                !items.is_empty() && items.iter().all(|i| kind(i) == Some(Kind::Table));
            Some(if all_tables {
                Kind::TableArray
            } else {
                Kind::Plain
            })
        }
        _ => Some(Kind::Plain),
    }
}

impl Encoder {
    fn newline(&mut self) {
        if !self.out.is_empty() {
            self.out.push('\n');
        }
    }

    fn indent(key: &[String]) -> String {
        "  ".repeat(key.len().saturating_sub(1))
    }

    fn encode(&mut self, key: &[String], v: &Value) -> Result<(), String> {
        // A slice is written whatever `tomlTypeOfGo` makes of it: a nil one only in a table
        // is left out (`toToml` of a nil slice itself writes `[]`).
        let kind = match v {
            Value::List(l) if l.is_nil() => Some(Kind::Plain),
            _ => kind(v),
        };
        match kind {
            None => Ok(()),
            Some(Kind::Table) => {
                let Value::Map(m) = v else { unreachable!() };
                if key.len() == 1 {
                    self.newline();
                }
                if !key.is_empty() {
                    let header = format!("{}[{}]", Self::indent(key), dotted(key));
                    self.out.push_str(&header);
                    self.newline();
                }
                self.table_body(key, &m.entries())
            }
            Some(Kind::TableArray) => {
                if key.is_empty() {
                    return Err("toml: top-level values must be Go maps or structs".into());
                }
                let Value::List(items) = v else {
                    unreachable!()
                };
                for item in items.iter() {
                    let Value::Map(m) = item else { continue };
                    self.newline();
                    let header = format!("{}[[{}]]", Self::indent(key), dotted(key));
                    self.out.push_str(&header);
                    self.newline();
                    self.table_body(key, &m.entries())?;
                }
                Ok(())
            }
            Some(Kind::Plain) => {
                if key.is_empty() {
                    return self.element(v);
                }
                let line = format!(
                    "{}{} = ",
                    Self::indent(key),
                    quoted_key(&key[key.len() - 1])
                );
                self.out.push_str(&line);
                self.element(v)?;
                self.newline();
                Ok(())
            }
        }
    }

    /// A table's keys: plain values first, then tables, each group sorted.
    fn table_body(&mut self, key: &[String], entries: &[(String, Value)]) -> Result<(), String> {
        let (direct, sub): (Vec<_>, Vec<_>) = entries
            .iter()
            .filter(|(_, v)| kind(v).is_some())
            .partition(|(_, v)| kind(v) == Some(Kind::Plain));
        for (k, v) in direct.into_iter().chain(sub) {
            let mut path = key.to_vec();
            path.push(k.clone());
            self.encode(&path, v)?;
        }
        Ok(())
    }

    /// A value inside a line: scalars, arrays and inline tables.
    fn element(&mut self, v: &Value) -> Result<(), String> {
        match v {
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) | Value::Int64(i) => {
                let _ = write!(self.out, "{i}");
            }
            Value::Uint64(u) => {
                let _ = write!(self.out, "{u}");
            }
            Value::Uint8(b) => {
                let _ = write!(self.out, "{b}");
            }
            Value::Complex(..) => {
                return Err("toml: cannot encode a value of type complex128".into())
            }
            Value::Float(f) => self.out.push_str(&float(*f)),
            Value::String(s) => self.out.push_str(&quote(s)),
            Value::List(items) => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if kind(item).is_none() {
                        return Err("toml: cannot encode array with nil element".into());
                    }
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.element(item)?;
                }
                self.out.push(']');
            }
            Value::Map(m) => {
                let entries = m.entries();
                let (direct, sub): (Vec<_>, Vec<_>) = entries
                    .iter()
                    .filter(|(_, v)| kind(v).is_some())
                    .partition(|(_, v)| kind(v) == Some(Kind::Plain));
                let all: Vec<_> = direct.into_iter().chain(sub).collect();
                self.out.push('{');
                for (i, (k, v)) in all.iter().enumerate() {
                    let _ = write!(self.out, "{} = ", quoted_key(k));
                    self.element(v)?;
                    if i + 1 < all.len() {
                        self.out.push_str(", ");
                    }
                }
                self.out.push('}');
            }
            Value::Object(o) if o.0.type_name() == "time.Time" => {
                self.out.push_str(&datetime_text(&super::dates::time_of(v)));
            }
            // BurntSushi writes a `time.Duration` as its text, other integer types as numbers.
            Value::Object(o) if o.0.type_name() == "time.Duration" => {
                self.out.push_str(&quote(&o.0.text()))
            }
            Value::Object(o) if o.0.int().is_some() => {
                let _ = write!(self.out, "{}", o.0.int().unwrap_or_default());
            }
            Value::Object(o) => {
                return Err(format!("toml: unsupported type: {}", o.0.type_name()));
            }
            Value::Nil | Value::NoValue => {
                return Err("toml: cannot encode a nil value".into());
            }
        }
        Ok(())
    }
}

/// A key part, bare when it can be (`A-Za-z0-9_-`), else quoted.
fn quoted_key(k: &str) -> String {
    let bare = !k.is_empty()
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if bare {
        k.to_string()
    } else {
        quote(k)
    }
}

fn dotted(key: &[String]) -> String {
    key.iter()
        .map(|k| quoted_key(k))
        .collect::<Vec<_>>()
        .join(".")
}

/// A basic string, escaped as BurntSushi's encoder escapes it (control characters and DEL
/// as `\u00xx`, in lower case).
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `strconv.FormatFloat(f, 'f', -1, 64)` with `.0` added to a whole number.
fn float(f: f64) -> String {
    if f.is_nan() {
        return if f.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if f.is_infinite() {
        return if f < 0.0 { "-inf" } else { "inf" }.into();
    }
    let s = format!("{f}");
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_keep_a_decimal_point() {
        assert_eq!(float(1.0), "1.0");
        assert_eq!(float(0.5), "0.5");
        assert_eq!(float(1e21), "1000000000000000000000.0");
    }

    #[test]
    fn inline_tables_in_arrays() {
        let v = Value::map(BTreeMap::from([(
            "a".to_string(),
            Value::list(vec![Value::Int(1), Value::map(BTreeMap::new())]),
        )]));
        assert_eq!(to_toml(&v), "a = [1, {}]\n");
    }
}
