//! Go's `encoding/json` for template values, as Helm's and sprig's `toJson`, `toPrettyJson`,
//! `toRawJson` write it: keys sorted, `<`, `>` and `&` escaped unless raw, floats as Go writes
//! them, and `fromJson` reading into Go's types (every number a float64).

use super::super::gostr;
use super::super::value::Value;
use super::json_scan;

/// `json.Marshal` (`html`: escape `<`, `>`, `&`), or `json.MarshalIndent` with `indent`.
pub fn marshal(v: &Value, html: bool, indent: Option<&str>) -> Result<String, String> {
    let mut out = String::new();
    write(&mut out, v, html, indent, 0)?;
    Ok(out)
}

fn newline(out: &mut String, indent: Option<&str>, depth: usize) {
    if let Some(i) = indent {
        out.push('\n');
        for _ in 0..depth {
            out.push_str(i);
        }
    }
}

fn write(
    out: &mut String,
    v: &Value,
    html: bool,
    indent: Option<&str>,
    depth: usize,
) -> Result<(), String> {
    match v {
        Value::NoValue | Value::Nil => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) | Value::Int64(i) => out.push_str(&i.to_string()),
        Value::Uint64(u) => out.push_str(&u.to_string()),
        Value::Uint8(b) => out.push_str(&b.to_string()),
        Value::Complex(..) => return Err("json: unsupported type: complex128".into()),
        Value::Float(f) => {
            if !f.is_finite() {
                return Err(format!(
                    "json: unsupported value: {}",
                    super::super::fmt::format_float_shortest(*f)
                ));
            }
            out.push_str(&crate::yaml::format_json(*f));
        }
        Value::String(s) => quote(out, s, html),
        // Structs marshal by their JSON tags, slices as lists (a `[]byte` in base64); the
        // other objects templates meet (versions) as their text.
        Value::Object(o) if o.0.slice_is_nil() => out.push_str("null"),
        // A `[]byte` marshals as its base64 text.
        Value::Object(o) if o.0.bytes().is_some() => {
            use base64::Engine as _;
            let bytes = gostr::to_bytes(o.0.bytes().map_or("", |b| &**b));
            quote(
                out,
                &base64::engine::general_purpose::STANDARD.encode(bytes),
                html,
            )
        }
        // A slice type (Helm's VersionSet) marshals as its elements.
        Value::Object(o) if o.0.items().is_some() => write(
            out,
            &Value::list(o.0.items().unwrap_or_default()),
            html,
            indent,
            depth,
        )?,
        Value::Object(o) if o.0.int().is_some() => {
            out.push_str(&o.0.int().unwrap_or_default().to_string())
        }
        Value::Object(o) => match (o.0.json_string(), o.0.json_fields()) {
            // A type with its own `MarshalJSON` (a time).
            (Some(text), _) => quote(out, &text?, html),
            (None, Some(fields)) => write_object(out, &fields, html, indent, depth)?,
            (None, None) => quote(out, &o.0.text(), html),
        },
        // A nil slice or map.
        Value::List(items) if items.is_nil() => out.push_str("null"),
        Value::Map(m) if m.is_nil() => out.push_str("null"),
        Value::List(items) => {
            out.push('[');
            if items.is_empty() {
                out.push(']');
                return Ok(());
            }
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, indent, depth + 1);
                write(out, item, html, indent, depth + 1)?;
            }
            newline(out, indent, depth);
            out.push(']');
        }
        Value::Map(m) => write_object(out, &m.entries(), html, indent, depth)?,
    }
    Ok(())
}

/// An object's members in the order given (a map's are sorted, a struct's in field order).
fn write_object(
    out: &mut String,
    entries: &[(String, Value)],
    html: bool,
    indent: Option<&str>,
    depth: usize,
) -> Result<(), String> {
    out.push('{');
    if entries.is_empty() {
        out.push('}');
        return Ok(());
    }
    for (i, (k, val)) in entries.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        newline(out, indent, depth + 1);
        quote(out, k, html);
        out.push(':');
        if indent.is_some() {
            out.push(' ');
        }
        write(out, val, html, indent, depth + 1)?;
    }
    newline(out, indent, depth);
    out.push('}');
    Ok(())
}

/// A JSON string as Go's encoder writes it: each byte that is not UTF-8 as `\ufffd`.
fn quote(out: &mut String, s: &str, html: bool) {
    out.push('"');
    for (text, carried) in gostr::runs(s) {
        if carried {
            out.push_str("\\ufffd");
        } else {
            crate::go::json::escape_into(out, text, html);
        }
    }
    out.push('"');
}

/// What `json.Unmarshal` into `interface{}` decodes from valid JSON.
pub struct Decoded {
    /// The value, every number a float64; a number a float64 cannot hold is nil.
    pub value: Value,
    /// Go's error for the first such number, which Unmarshal returns after decoding the rest.
    pub number_error: Option<String>,
}

/// `json.Unmarshal` into `interface{}`: numbers are float64. Errors are worded as Go's.
pub fn unmarshal(text: &str) -> Result<Value, String> {
    let decoded = decode(text)?;
    match decoded.number_error {
        Some(e) => Err(e),
        None => Ok(decoded.value),
    }
}

/// As [`unmarshal`], keeping what Go decodes around a number out of range: Helm's
/// `fromJson` returns that map with the error added.
pub fn decode(text: &str) -> Result<Decoded, String> {
    json_scan::check_valid(&gostr::to_bytes(text))?;
    let mut number_error = None;
    let mut nulled = String::new();
    let mut last = 0;
    for span in number_spans(text) {
        let literal = &text[span.clone()];
        if literal.parse::<f64>().is_ok_and(f64::is_finite) {
            continue;
        }
        number_error.get_or_insert_with(|| {
            format!("json: cannot unmarshal number {literal} into Go value of type float64")
        });
        nulled.push_str(&text[last..span.start]);
        nulled.push_str("null");
        last = span.end;
    }
    let parsed = if number_error.is_some() {
        nulled.push_str(&text[last..]);
        serde_json::from_str::<serde_json::Value>(&nulled)
    } else {
        serde_json::from_str::<serde_json::Value>(text)
    };
    let value = parsed.map(Value::from).map_err(|e| e.to_string())?;
    Ok(Decoded {
        value,
        number_error,
    })
}

/// The byte ranges of the number literals of valid JSON.
fn number_spans(text: &str) -> Vec<std::ops::Range<usize>> {
    let b = text.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < b.len() && matches!(b[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                spans.push(start..i);
            }
            _ => i += 1,
        }
    }
    spans
}
