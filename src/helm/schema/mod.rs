//! `values.schema.json` (Helm's `ValidateAgainstSchema`): each chart's schema checks that
//! chart's coalesced values — a subchart's are its table in the parent's — and the chart's
//! violations, or why its schema cannot be used, are listed under its name. Helm v3.17.3 runs
//! gojsonschema v1.2.0; this is a port of it: `json` (documents as Go decodes them),
//! `number` (`json.Number` as `big.Rat`), `reference` (`$ref`/`$id` URLs and pointers),
//! `parse` (the schema's structure checked as it is read), `validate`, `format` and
//! `messages` (gojsonschema's English). References are resolved within the document only:
//! kdelta never fetches.

mod format;
mod json;
mod messages;
mod number;
mod parse;
mod reference;
mod validate;

use super::chart::Chart;
use super::values::Table;
use crate::template::Value;
use json::Json;
pub use messages::{Kind, Unusable, Violation};

/// The problems of every schema in the tree, laid out as Helm's error; `Ok` when there are
/// none.
pub fn validate(chart: &Chart, values: &Table) -> Result<(), SchemaError> {
    prepare(chart, values).check()
}

/// Each schema of the tree with the values it checks, as the JSON it sees: taken before the
/// templates run (they may change `.Values` in place), so the check can run beside them.
pub struct Pending<'c> {
    checks: Vec<(&'c str, &'c str, Json)>,
}

/// The schemas of `chart` and its subcharts, and the values each checks.
pub fn prepare<'c>(chart: &'c Chart, values: &Table) -> Pending<'c> {
    let mut checks = Vec::new();
    collect(chart, values, &mut checks);
    Pending { checks }
}

/// The stack of the thread a check runs on: deep schemas recurse as deep as Go's growable
/// stack lets gojsonschema (the memory is reserved, and only touched as far as used).
const CHECK_STACK_BYTES: usize = 256 << 20;

impl Pending<'_> {
    /// Checks every schema, in the tree's order.
    pub fn check(self) -> Result<(), SchemaError> {
        if self.checks.is_empty() {
            return Ok(());
        }
        let run = move || -> Vec<Violations> {
            self.checks
                .into_iter()
                .filter_map(|(name, schema, instance)| {
                    let problem = match check(schema, &instance) {
                        Ok(v) if v.is_empty() => return None,
                        Ok(v) => Problem::Values(v),
                        Err(e) => Problem::Schema(e),
                    };
                    Some(Violations {
                        chart: name.to_string(),
                        problem,
                    })
                })
                .collect()
        };
        let charts = std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("kdelta-values-schema".into())
                .stack_size(CHECK_STACK_BYTES)
                .spawn_scoped(scope, run)
                .map(|handle| handle.join())
        });
        let charts = match charts {
            Ok(Ok(charts)) => charts,
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            // No thread to be had: the schemas go unchecked rather than risk the stack.
            Err(_) => Vec::new(),
        };
        if charts.is_empty() {
            return Ok(());
        }
        Err(SchemaError { charts })
    }
}

/// Values that break the schemas of one or more charts of the tree, laid out as Helm's error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "values don't meet the specifications of the schema(s) in the following chart(s):\n{}",
    listing(.charts)
)]
pub struct SchemaError {
    /// The charts with violations, in the tree's order.
    pub charts: Vec<Violations>,
}

/// One chart's violations of its `values.schema.json`, or why the schema cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violations {
    /// The chart's name.
    pub chart: String,
    pub problem: Problem,
}

/// What is wrong under one chart's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The values break the schema: gojsonschema's errors, never empty.
    Values(Vec<Violation>),
    /// The schema cannot be used (gojsonschema's `Validate` fails).
    Schema(Unusable),
}

/// Each chart's name, then its violations one a line (`- field: message`), or the schema's
/// error as Helm writes it: straight after the name, without a line break of its own.
fn listing(charts: &[Violations]) -> String {
    let mut out = String::new();
    for c in charts {
        out.push_str(&format!("{}:\n", c.chart));
        match &c.problem {
            Problem::Values(violations) => {
                for v in violations {
                    out.push_str(&format!("- {v}\n"));
                }
            }
            Problem::Schema(e) => out.push_str(&e.to_string()),
        }
    }
    out
}

fn collect<'c>(chart: &'c Chart, values: &Table, out: &mut Vec<(&'c str, &'c str, Json)>) {
    if let Some(schema) = &chart.schema {
        out.push((&chart.name, schema, table_json(values)));
    }
    for sub in &chart.dependencies {
        let mine = values
            .get(&sub.name)
            .and_then(super::values::table)
            .unwrap_or_default();
        collect(sub, &mine, out);
    }
}

/// One schema against one chart's values: gojsonschema's `Validate`.
fn check(schema_text: &str, instance: &Json) -> Result<Vec<Violation>, Unusable> {
    let document = json::decode(schema_text).map_err(Unusable::Json)?;
    let schema = parse::compile(document)?;
    validate::validate(&schema, instance)
}

/// Values as the JSON gojsonschema reads: Helm writes them as YAML, then JSON, and numbers
/// keep the text `encoding/json` gives them.
fn table_json(values: &Table) -> Json {
    Json::Object(values.iter().map(|(k, v)| (k.clone(), to_json(v))).collect())
}

fn to_json(v: &Value) -> Json {
    let number = |text: String| Json::Number(number::Number::from_json(&text));
    match v {
        Value::Nil | Value::NoValue => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) | Value::Int64(i) => number(i.to_string()),
        Value::Uint64(u) => number(u.to_string()),
        // Values read from YAML or JSON hold no complex numbers.
        Value::Complex(..) => Json::Null,
        Value::Float(f) if f.is_finite() => number(crate::go::float::format_json(*f)),
        // Helm refuses values JSON cannot hold before it checks a schema.
        Value::Float(_) => Json::Null,
        Value::String(s) => Json::String(s.to_string()),
        Value::List(l) => Json::Array(l.iter().map(to_json).collect()),
        Value::Map(m) => Json::Object(
            m.entries()
                .into_iter()
                .map(|(k, v)| (k, to_json(&v)))
                .collect(),
        ),
        Value::Object(o) => Json::String(o.0.text()),
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
        assert_eq!(err.charts.len(), 1);
        assert_eq!(err.charts[0].chart, "c");
        assert!(
            matches!(&err.charts[0].problem, Problem::Values(v) if v.len() == 2),
            "{err}"
        );
        let err = err.to_string();
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
            .to_string()
            .ends_with("c:\ninvalid character 'n' looking for beginning of object key string"));
        // A remote reference is never fetched.
        let c = chart(r#"{"$ref":"https://example.com/schema.json"}"#);
        assert_eq!(
            validate(&c, &Table::new()).unwrap_err().charts[0].problem,
            Problem::Schema(Unusable::Remote("https://example.com/schema.json".into()))
        );
    }
}
