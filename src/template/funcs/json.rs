//! Go's `encoding/json` for template values, as Helm's and sprig's `toJson`, `toPrettyJson`,
//! `toRawJson` write it: keys sorted, `<`, `>` and `&` escaped unless raw, floats as Go writes
//! them, and `fromJson` reading into Go's types (every number a float64).

use super::super::value::Value;

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
        // Structs marshal by their JSON tags, slices as lists; the other objects templates
        // meet (versions, times) as their text.
        // A slice type (Helm's VersionSet) marshals as its elements.
        Value::Object(o) if o.0.items().is_some() => write(
            out,
            &Value::list(o.0.items().unwrap_or_default()),
            html,
            indent,
            depth,
        )?,
        Value::Object(o) => match o.0.json_fields() {
            Some(fields) => write_object(out, &fields, html, indent, depth)?,
            None => quote(out, &o.0.text(), html),
        },
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

/// A JSON string as Go's encoder writes it.
fn quote(out: &mut String, s: &str, html: bool) {
    crate::go::json::quote_into(out, s, html);
}

/// `json.Unmarshal` into `interface{}`: numbers are float64.
pub fn unmarshal(text: &str) -> Result<Value, String> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v) => Ok(Value::from(v)),
        Err(e) => Err(go_json_error(text, &e)),
    }
}

/// Go's wording for the common decoding errors.
fn go_json_error(text: &str, e: &serde_json::Error) -> String {
    let trimmed = text.trim_start();
    match trimmed.chars().next() {
        None => "unexpected end of JSON input".into(),
        Some(c) if !"{[\"-0123456789tfn".contains(c) => {
            format!("invalid character '{c}' looking for beginning of value")
        }
        _ if e.is_eof() => "unexpected end of JSON input".into(),
        _ => e.to_string(),
    }
}
