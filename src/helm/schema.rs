//! `values.schema.json` (Helm's `ValidateAgainstSchema`): each chart's schema checks that
//! chart's coalesced values — a subchart's are its table in the parent's — and every
//! violation is listed under the chart's name. Schemas are JSON Schema (draft 4 to 2020-12 by
//! their `$schema`); references are resolved within the document only: kdelta never fetches.

use super::chart::Chart;
use super::values::Table;
use crate::template::Value;

/// The violations of every schema in the tree, worded as Helm's error is laid out (the
/// messages are the validator's); `Ok` when there are none.
pub fn validate(chart: &Chart, values: &Table) -> Result<(), SchemaError> {
    prepare(chart, values).check()
}

/// Each schema of the tree with the values it checks, as the JSON it sees: taken before the
/// templates run (they may change `.Values` in place), so the check can run beside them.
pub struct Pending<'c> {
    checks: Vec<(&'c str, &'c str, serde_json::Value)>,
}

/// The schemas of `chart` and its subcharts, and the values each checks.
pub fn prepare<'c>(chart: &'c Chart, values: &Table) -> Pending<'c> {
    let mut checks = Vec::new();
    collect(chart, values, &mut checks);
    Pending { checks }
}

impl Pending<'_> {
    /// Checks every schema, in the tree's order.
    pub fn check(self) -> Result<(), SchemaError> {
        let charts: Vec<Violations> = self
            .checks
            .iter()
            .map(|(name, schema, instance)| Violations {
                chart: name.to_string(),
                violations: check(schema, instance),
            })
            .filter(|v| !v.violations.is_empty())
            .collect();
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

/// One chart's violations of its `values.schema.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violations {
    /// The chart's name.
    pub chart: String,
    /// `field: message`, worded as gojsonschema words them; never empty.
    pub violations: Vec<String>,
}

/// Each chart's name, then its violations one a line.
fn listing(charts: &[Violations]) -> String {
    let mut out = String::new();
    for c in charts {
        out.push_str(&format!("{}:\n", c.chart));
        for v in &c.violations {
            out.push_str(&format!("- {v}\n"));
        }
    }
    out
}

fn collect<'c>(
    chart: &'c Chart,
    values: &Table,
    out: &mut Vec<(&'c str, &'c str, serde_json::Value)>,
) {
    if let Some(schema) = &chart.schema {
        out.push((&chart.name, schema, to_json(&Value::map(values.clone()))));
    }
    for sub in &chart.dependencies {
        let mine = values
            .get(&sub.name)
            .and_then(super::values::table)
            .unwrap_or_default();
        collect(sub, &mine, out);
    }
}

/// One schema against one chart's values: `field: message` lines, worded as gojsonschema
/// (Helm's validator) words them, the field dotted without `(root).` (`(root)` for the top).
fn check(schema_text: &str, instance: &serde_json::Value) -> Vec<String> {
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
    let mut out = Vec::new();
    for e in validator.iter_errors(instance) {
        let field = field(&e.instance_path().to_string());
        for message in go_messages(&e, &field, &schema) {
            out.push(format!("{field}: {message}"));
        }
    }
    out
}

/// gojsonschema's field name of a JSON pointer: `image.tag`, `list.0`, `(root)`.
fn field(pointer: &str) -> String {
    if pointer.is_empty() {
        return "(root)".to_string();
    }
    pointer
        .trim_start_matches('/')
        .split('/')
        .map(|p| p.replace("~1", "/").replace("~0", "~"))
        .collect::<Vec<_>>()
        .join(".")
}

/// gojsonschema's English messages (its `locales.go`) for a violation; the validator's own
/// wording where gojsonschema has no equivalent.
fn go_messages(
    e: &jsonschema::ValidationError,
    field: &str,
    schema: &serde_json::Value,
) -> Vec<String> {
    use jsonschema::error::{TypeKind, ValidationErrorKind as K};
    let instance: &serde_json::Value = e.instance();
    let number = |v: &serde_json::Value| go_number(v.as_f64().unwrap_or_default());
    let one = |m: String| vec![m];
    match e.kind() {
        K::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(t) => t.to_string(),
                // gojsonschema lists the types as the schema does.
                TypeKind::Multiple(set) => {
                    let written = schema
                        .pointer(&e.schema_path().to_string())
                        .and_then(|t| t.as_array())
                        .map(|l| {
                            l.iter()
                                .filter_map(|t| t.as_str().map(str::to_string))
                                .collect()
                        });
                    let names: Vec<String> =
                        written.unwrap_or_else(|| set.iter().map(|t| t.to_string()).collect());
                    format!("[{}]", names.join(","))
                }
            };
            one(format!(
                "Invalid type. Expected: {expected}, given: {}",
                json_type(instance)
            ))
        }
        K::Required { property } => one(format!(
            "{} is required",
            property
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| property.to_string())
        )),
        K::Minimum { limit } => one(format!(
            "Must be greater than or equal to {}",
            number(limit)
        )),
        K::ExclusiveMinimum { limit } => one(format!("Must be greater than {}", number(limit))),
        K::Maximum { limit } => one(format!("Must be less than or equal to {}", number(limit))),
        K::ExclusiveMaximum { limit } => one(format!("Must be less than {}", number(limit))),
        K::MultipleOf { multiple_of } => {
            one(format!("Must be a multiple of {}", go_number(*multiple_of)))
        }
        K::MinLength { limit } => one(format!(
            "String length must be greater than or equal to {limit}"
        )),
        K::MaxLength { limit } => one(format!(
            "String length must be less than or equal to {limit}"
        )),
        K::Pattern { pattern } => one(format!("Does not match pattern '{pattern}'")),
        K::Format { format } => one(format!("Does not match format '{format}'")),
        K::Enum { options } => {
            let allowed: Vec<String> = match options.as_ref() {
                serde_json::Value::Array(items) => items.iter().map(|v| v.to_string()).collect(),
                other => vec![other.to_string()],
            };
            one(format!(
                "{field} must be one of the following: {}",
                allowed.join(", ")
            ))
        }
        K::Constant { expected_value } => one(format!("{field} does not match: {expected_value}")),
        K::AdditionalProperties { unexpected } => unexpected
            .iter()
            .map(|p| format!("Additional property {p} is not allowed"))
            .collect(),
        K::MinItems { limit } => one(format!("Array must have at least {limit} items")),
        K::MaxItems { limit } => one(format!("Array must have at most {limit} items")),
        K::UniqueItems => {
            let items = instance.as_array().map(Vec::as_slice).unwrap_or_default();
            let pair = (0..items.len())
                .flat_map(|i| (i + 1..items.len()).map(move |j| (i, j)))
                .find(|&(i, j)| items[i] == items[j]);
            let (i, j) = pair.unwrap_or((0, 0));
            one(format!("array items[{i},{j}] must be unique"))
        }
        K::MinProperties { limit } => one(format!("Must have at least {limit} properties")),
        K::MaxProperties { limit } => one(format!("Must have at most {limit} properties")),
        K::AnyOf { .. } => one("Must validate at least one schema (anyOf)".to_string()),
        K::OneOfNotValid { .. } | K::OneOfMultipleValid { .. } => {
            one("Must validate one and only one schema (oneOf)".to_string())
        }
        K::Not { .. } => one("Must not validate the schema (not)".to_string()),
        K::Contains => one("At least one of the items must match".to_string()),
        K::AdditionalItems { .. } => one("No additional items allowed on array".to_string()),
        K::FalseSchema => one("False always fails validation".to_string()),
        _ => one(e.to_string()),
    }
}

/// The JSON type gojsonschema names for a value (`integer` for a whole number).
fn json_type(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(n) => {
            if n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0) {
                "integer"
            } else {
                "number"
            }
        }
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

/// A limit as gojsonschema prints it (a `big.Float` with 10 significant digits).
fn go_number(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e10 {
        format!("{}", f as i64)
    } else {
        crate::template::sprintf("%.10g", &[Value::Float(f)])
    }
}

/// Values as the JSON the schema sees (Helm marshals them to JSON first).
fn to_json(v: &Value) -> serde_json::Value {
    match v {
        Value::Nil | Value::NoValue => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Int(i) | Value::Int64(i) => serde_json::Value::from(*i),
        Value::Uint64(u) => serde_json::Value::from(*u),
        // Values read from YAML or JSON hold no complex numbers.
        Value::Complex(..) => serde_json::Value::Null,
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
        assert_eq!(err.charts.len(), 1);
        assert_eq!(err.charts[0].chart, "c");
        assert_eq!(err.charts[0].violations.len(), 2, "{err}");
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
            .contains("values.schema.json is not JSON"));
        // A remote reference is never fetched.
        let c = chart(r#"{"$ref":"https://example.com/schema.json"}"#);
        assert!(validate(&c, &Table::new()).is_err());
    }
}
