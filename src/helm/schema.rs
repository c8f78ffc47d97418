//! `values.schema.json` (Helm's `ValidateAgainstSchema`): each chart's schema checks that
//! chart's coalesced values — a subchart's are its table in the parent's — and every
//! violation is listed under the chart's name. Schemas are JSON Schema (draft 4 to 2020-12 by
//! their `$schema`); references are resolved within the document only: kdelta never fetches.

use super::chart::Chart;
use super::values::Table;
use crate::template::Value;

/// The violations of every schema in the tree, worded as Helm's error is laid out (the
/// messages are the validator's); `Ok` when there are none.
pub fn validate(chart: &Chart, values: &Table) -> Result<(), String> {
    let mut out = String::new();
    collect(chart, values, &mut out);
    if out.is_empty() {
        return Ok(());
    }
    Err(format!(
        "values don't meet the specifications of the schema(s) in the following chart(s):\n{out}"
    ))
}

fn collect(chart: &Chart, values: &Table, out: &mut String) {
    if let Some(schema) = &chart.schema {
        let problems = check(schema, values);
        if !problems.is_empty() {
            out.push_str(&format!("{}:\n", chart.name));
            for p in problems {
                out.push_str(&format!("- {p}\n"));
            }
        }
    }
    for sub in &chart.dependencies {
        let mine = values
            .get(&sub.name)
            .and_then(super::values::table)
            .unwrap_or_default();
        collect(sub, &mine, out);
    }
}

/// One schema against one chart's values: `path: message` lines, the path dotted as
/// gojsonschema writes it (`(root)` for the top).
fn check(schema_text: &str, values: &Table) -> Vec<String> {
    let schema: serde_json::Value = match serde_json::from_str(schema_text) {
        Ok(s) => s,
        Err(e) => return vec![format!("(root): values.schema.json is not JSON: {e}")],
    };
    let validator = match jsonschema::validator_for(&schema) {
        Ok(v) => v,
        Err(e) => {
            return vec![format!(
                "(root): values.schema.json is not a valid schema: {e}"
            )]
        }
    };
    let instance = to_json(&Value::map(values.clone()));
    validator
        .iter_errors(&instance)
        .map(|e| {
            let pointer = e.instance_path().to_string();
            let path = if pointer.is_empty() {
                "(root)".to_string()
            } else {
                pointer.trim_start_matches('/').replace('/', ".")
            };
            format!("{path}: {e}")
        })
        .collect()
}

/// Values as the JSON the schema sees (Helm marshals them to JSON first).
fn to_json(v: &Value) -> serde_json::Value {
    match v {
        Value::Nil | Value::NoValue => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Int(i) | Value::Int64(i) => serde_json::Value::from(*i),
        Value::Float(f) => serde_json::Number::from_f64(*f)
            .map(serde_json::Value::Number)
            .unwrap_or(serde_json::Value::Null),
        Value::String(s) => serde_json::Value::String(s.to_string()),
        Value::List(l) => serde_json::Value::Array(l.iter().map(to_json).collect()),
        Value::Map(m) => serde_json::Value::Object(
            m.entries()
                .into_iter()
                .map(|(k, v)| (k, to_json(&v)))
                .collect(),
        ),
        Value::Object(o) => serde_json::Value::String(o.0.text()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(schema: &str) -> Chart {
        let files = [
            ("Chart.yaml", "apiVersion: v2\nname: c\nversion: 1.0.0\n"),
            ("values.schema.json", schema),
        ];
        Chart::from_files(files.map(|(p, t)| (p.to_string(), t.as_bytes().to_vec()))).unwrap()
    }

    fn values(text: &str) -> Table {
        super::super::values::table(&crate::template::helm_values(text).unwrap()).unwrap()
    }

    #[test]
    fn violations_name_the_chart_and_the_path() {
        let c = chart(
            r#"{"properties":{"a":{"properties":{"b":{"type":"integer"}}}},"required":["z"]}"#,
        );
        let err = validate(&c, &values("a:\n  b: x\n")).unwrap_err();
        assert!(err.starts_with("values don't meet the specifications of the schema(s) in the following chart(s):\nc:\n"), "{err}");
        assert!(err.contains("- a.b: "), "{err}");
        assert!(err.contains("- (root): "), "{err}");
        assert!(validate(&c, &values("z: 1\na:\n  b: 2\n")).is_ok());
    }

    #[test]
    fn a_broken_schema_is_an_error_not_a_panic() {
        let c = chart("{not json");
        assert!(validate(&c, &Table::new())
            .unwrap_err()
            .contains("values.schema.json is not JSON"));
        // A remote reference is never fetched.
        let c = chart(r#"{"$ref":"https://example.com/schema.json"}"#);
        assert!(validate(&c, &Table::new()).is_err());
    }
}
