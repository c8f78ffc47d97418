//! `values.schema.json` (Helm's `ValidateAgainstSchema`): each chart's schema checks that
//! chart's coalesced values — a subchart's are its table in the parent's — and the chart's
//! violations, or why its schema cannot be used, are listed under its name. Helm v3.17.3 runs
//! gojsonschema v1.2.0; this is a port of it: `json` (documents as Go decodes them),
//! `number` (`json.Number` as `big.Rat`), `reference` (`$ref`/`$id` URLs and pointers),
//! `parse` (the schema's structure checked as it is read), `validate`, `format` and
//! `messages` (gojsonschema's English). A reference to a document at an http(s) URL (bjw-s's
//! app-template names its library's schemas so) is resolved in the documents the fetch step
//! downloaded ([`remote_documents`], kept on the chart): rendering never fetches.

mod format;
mod json;
mod messages;
mod number;
mod parse;
mod reference;
mod validate;

use super::chart::Chart;
use super::values::Table;
use crate::once::Shared;
use crate::template::Value;
use json::Json;
pub use messages::{Kind, Unusable, Violation};
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

/// The problems of every schema in the tree, laid out as Helm's error; `Ok` when there are
/// none.
pub fn validate(chart: &Chart, values: &Table) -> Result<(), SchemaError> {
    prepare(chart, values).check()
}

/// Each schema of the tree with the values it checks, as the JSON it sees: taken before the
/// templates run (they may change `.Values` in place), so the check can run beside them.
pub struct Pending<'c> {
    checks: Vec<Check<'c>>,
}

/// One schema to check: the chart's name, its schema, the documents at URLs the schema
/// references, and the values.
type Check<'c> = (&'c str, &'c Arc<str>, &'c [RemoteDocument], Json);

/// A document a schema references by URL: the URL (without fragment) and the text fetched.
pub type RemoteDocument = (String, Arc<str>);

/// The schemas of `chart` and its subcharts, and the values each checks.
pub fn prepare<'c>(chart: &'c Chart, values: &Table) -> Pending<'c> {
    let mut checks = Vec::new();
    collect(chart, values, &mut checks);
    Pending { checks }
}

/// How deep subschemas may be read and applied inside one another on the calling thread; a
/// schema that needs more is checked again on a thread of its own (most need a dozen).
const SHALLOW: usize = 64;

/// The stack of that thread: deep schemas recurse as deep as Go's growable stack lets
/// gojsonschema, up to [`validate::MAX_DEPTH`] (the memory is reserved, and only touched as
/// far as used).
const DEEP_STACK_BYTES: usize = 256 << 20;

impl Pending<'_> {
    /// Checks every schema, in the tree's order.
    pub fn check(self) -> Result<(), SchemaError> {
        let mut charts = Vec::new();
        for (name, schema, remote, instance) in self.checks {
            let outcome = match check(schema, remote, &instance, SHALLOW) {
                Err(Unusable::TooDeep(SHALLOW)) => deep_check(schema, remote, &instance),
                shallow => shallow,
            };
            let problem = match outcome {
                Ok(v) if v.is_empty() => continue,
                Ok(v) => Problem::Values(v),
                Err(e) => Problem::Schema(e),
            };
            charts.push(Violations {
                chart: name.to_string(),
                problem,
            });
        }
        if charts.is_empty() {
            return Ok(());
        }
        Err(SchemaError { charts })
    }
}

/// [`check`] up to kdelta's full depth, on a thread with the stack for it.
fn deep_check(
    schema: &Arc<str>,
    remote: &[RemoteDocument],
    instance: &Json,
) -> Result<Vec<Violation>, Unusable> {
    let outcome = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("kdelta-values-schema".into())
            .stack_size(DEEP_STACK_BYTES)
            .spawn_scoped(scope, || {
                check(schema, remote, instance, validate::MAX_DEPTH)
            })
            .map(|handle| handle.join())
    });
    match outcome {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        // No thread to be had: say how deep the calling thread could go.
        Err(_) => Err(Unusable::TooDeep(SHALLOW)),
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

fn collect<'c>(chart: &'c Chart, values: &Table, out: &mut Vec<Check<'c>>) {
    if let Some(schema) = &chart.schema {
        out.push((
            &chart.name,
            schema,
            &chart.schema_documents,
            table_json(values),
        ));
    }
    for sub in &chart.dependencies {
        let mine = values
            .get(&sub.name)
            .and_then(super::values::table)
            .unwrap_or_default();
        collect(sub, &mine, out);
    }
}

/// One schema against one chart's values: gojsonschema's `Validate`, with subschemas (and
/// the document's nesting) at most `limit` deep.
fn check(
    schema_text: &Arc<str>,
    remote: &[RemoteDocument],
    instance: &Json,
    limit: usize,
) -> Result<Vec<Violation>, Unusable> {
    let schema = if limit == SHALLOW {
        compiled(schema_text, remote)?
    } else {
        Arc::new(compile(schema_text, remote, limit)?)
    };
    validate::validate(&schema, instance, limit)
}

/// The schema `text` describes, with the `remote` documents it references, and subschemas
/// (and the documents' nesting) at most `limit` deep.
fn compile(text: &str, remote: &[RemoteDocument], limit: usize) -> Result<parse::Schema, Unusable> {
    let decode = |text: &str| match json::decode_within(text, limit) {
        Ok(d) => Ok(d),
        Err(Some(e)) => Err(Unusable::Json(e)),
        Err(None) => Err(Unusable::TooDeep(limit)),
    };
    let document = decode(text)?;
    let remote = remote
        .iter()
        .map(|(url, text)| Ok((url.clone(), decode(text)?)))
        .collect::<Result<Vec<_>, Unusable>>()?;
    parse::compile(document, remote, limit)
}

/// Documents a schema may reference by URL at most: each is fetched, and compiled with it.
const MAX_REMOTE_DOCUMENTS: usize = 32;

/// The documents at http(s) URLs that the schema `text` references, directly or through one
/// another, as `fetch` gives them (in the order the compile meets them), and the first that
/// `fetch` could not give (its URL and why). The references are found as gojsonschema's
/// pool meets them: by compiling with the documents had so far, until the compile needs no
/// other (or fails for another reason, which the check reports).
pub fn remote_documents<E>(
    text: &Arc<str>,
    mut fetch: impl FnMut(&str) -> Result<Arc<str>, E>,
) -> (Vec<RemoteDocument>, Option<(String, E)>) {
    let mut documents: Vec<RemoteDocument> = Vec::new();
    while documents.len() < MAX_REMOTE_DOCUMENTS {
        // Each compile is cached: the first, without documents, is the check's of a schema
        // that names none, the last the check's of this one, and a chart rendered again (at
        // the other revision, or a chart that many releases deploy) finds them all.
        let Err(Unusable::Remote(reference)) = compiled(text, &documents) else {
            break;
        };
        let Ok(url) = reference::Reference::parse(&reference).map(|r| r.document()) else {
            break;
        };
        let fetchable = ["https://", "http://"].iter().any(|s| url.starts_with(s));
        if !fetchable || documents.iter().any(|(known, _)| *known == url) {
            break;
        }
        match fetch(&url) {
            Ok(body) => documents.push((url, body)),
            Err(e) => return (documents, Some((url, e))),
        }
    }
    (documents, None)
}

/// A schema compiled (within [`SHALLOW`]), or why it cannot be used.
type Compiled = Result<Arc<parse::Schema>, Unusable>;

/// A schema's entry in the compile cache: empty until compiled.
type CompileCell = Shared<Compiled>;

/// The schemas compiled in this process, by their text (and the remote documents compiled
/// with it): a chart's schema is compiled on another core while its values are coalesced,
/// and once for both revisions of a diff.
#[derive(Default)]
struct CompileCache {
    /// By a hash of the text; a hit compares the text, and whether it is a schema compiled
    /// with remote documents (the key then holds them too).
    map: HashMap<u64, Vec<(bool, Arc<str>, CompileCell)>>,
    bytes: usize,
}

/// Schema text the cache holds at most; beyond it, schemas are compiled every time.
const COMPILE_CACHE_BYTES: usize = 64 << 20;

static COMPILE_CACHE: LazyLock<Mutex<CompileCache>> = LazyLock::new(Default::default);

/// `text`'s entry in the compile cache, made if there is none (then `true`: no other core
/// has compiled or is compiling it); None when the cache is full.
fn cache_cell(text: &Arc<str>, with_remote: bool) -> Option<(CompileCell, bool)> {
    let key = std::hash::BuildHasher::hash_one(&crate::fxhash::FxBuildHasher::default(), text);
    let mut cache = COMPILE_CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, _, cell)) = cache.map.get(&key).and_then(|entries| {
        entries
            .iter()
            .find(|(r, t, _)| *r == with_remote && **t == **text)
    }) {
        return Some((cell.clone(), false));
    }
    if cache.bytes + text.len() > COMPILE_CACHE_BYTES {
        return None;
    }
    cache.bytes += text.len();
    let cell = CompileCell::default();
    cache
        .map
        .entry(key)
        .or_default()
        .push((with_remote, text.clone(), cell.clone()));
    Some((cell, true))
}

/// The schema `text` describes, with the `remote` documents it references, from the compile
/// cache when it was compiled before (a compile under way on another core is done again:
/// [`Shared`]).
fn compiled(text: &Arc<str>, remote: &[RemoteDocument]) -> Compiled {
    let make = || compile(text, remote, SHALLOW).map(Arc::new);
    let cell = if remote.is_empty() {
        cache_cell(text, false)
    } else {
        // The documents are part of the key, each part after its length.
        let mut key = String::new();
        for part in std::iter::once(&**text).chain(remote.iter().flat_map(|(u, d)| [&**u, &**d])) {
            key.push_str(&format!("{}:", part.len()));
            key.push_str(part);
        }
        cache_cell(&Arc::from(key), true)
    };
    match cell {
        Some((cell, _)) => cell.get_or_make(make),
        None => make(),
    }
}

/// Compiles `schemas` (their texts) into the compile cache, except those compiled, or being
/// compiled, already.
pub fn compile_ahead(schemas: &[Arc<str>]) {
    for text in schemas {
        if let Some((cell, true)) = cache_cell(text, false) {
            // Kept for the check; a broken schema's error is the check's to report.
            let _ = cell.get_or_make(|| compile(text, &[], SHALLOW).map(Arc::new));
        }
    }
}

/// Values as the JSON gojsonschema reads: Helm writes them as YAML, then JSON, and numbers
/// keep the text `encoding/json` gives them.
fn table_json(values: &Table) -> Json {
    Json::Object(
        values
            .iter()
            .map(|(k, v)| (k.clone(), to_json(v)))
            .collect(),
    )
}

fn to_json(v: &Value) -> Json {
    let number = |text: String| Json::Number(number::Number::from_json(&text));
    match v {
        Value::Nil | Value::NoValue => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) | Value::Int64(i) => number(i.to_string()),
        Value::Uint64(u) => number(u.to_string()),
        Value::Uint8(b) => number(b.to_string()),
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
        super::super::values::table(&crate::template::helm_values(text).unwrap())
            .unwrap_or_default()
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
    fn a_schema_is_compiled_once_for_the_process() {
        let text = r#"{"properties":{"compiled_once":{"type":"string"}}}"#;
        compile_ahead(&[Arc::from(text)]);
        let first = compiled(&Arc::from(text), &[]).unwrap();
        assert!(Arc::ptr_eq(
            &first,
            &compiled(&Arc::from(text), &[]).unwrap()
        ));
        // Its check uses it: the values still meet (or break) it.
        let c = chart(text);
        assert!(validate(&c, &values("compiled_once: x\n")).is_ok());
        assert!(validate(&c, &values("compiled_once: 1\n")).is_err());
        // A broken schema's error is kept too.
        assert_eq!(
            compiled(&Arc::from("{nope"), &[]).unwrap_err(),
            compiled(&Arc::from("{nope"), &[]).unwrap_err()
        );
    }

    #[test]
    fn a_broken_schema_is_an_error_not_a_panic() {
        let c = chart("{not json");
        assert!(validate(&c, &Table::new())
            .unwrap_err()
            .to_string()
            .ends_with("c:\ninvalid character 'n' looking for beginning of object key string"));
        // A remote reference is not fetched by the check (the target attaches what the fetch
        // step downloaded).
        let c = chart(r#"{"$ref":"https://example.com/schema.json"}"#);
        assert_eq!(
            validate(&c, &Table::new()).unwrap_err().charts[0].problem,
            Problem::Schema(Unusable::Remote("https://example.com/schema.json".into()))
        );
    }

    /// Documents at URLs for [`remote_documents`]: a root that names a definition in another
    /// document relative to its `$id`, and two documents that reference each other.
    fn served(url: &str) -> Result<Arc<str>, String> {
        let body = match url.strip_prefix("http://127.0.0.1:18777/t/") {
            Some("root.json") => {
                r#"{"$id": "http://127.0.0.1:18777/t/root.json", "type": "object", "properties": {"replicas": {"$ref": "defs.json#/definitions/replicas"}, "child": {"$ref": "a.json"}}}"#
            }
            Some("defs.json") => {
                r#"{"definitions": {"replicas": {"type": "integer", "minimum": 1}}}"#
            }
            Some("a.json") => {
                r#"{"type": "object", "properties": {"b": {"$ref": "b.json"}, "name": {"type": "string"}}}"#
            }
            Some("b.json") => r#"{"type": "object", "properties": {"a": {"$ref": "a.json"}}}"#,
            _ => return Err(format!("404 {url}")),
        };
        Ok(Arc::from(body))
    }

    const REMOTE_ROOT: &str = r#"{"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "http://127.0.0.1:18777/t/root.json"}"#;

    #[test]
    fn documents_at_urls_are_found_through_one_another_and_checked_as_helm_does() {
        let mut asked = Vec::new();
        let (documents, missing) = remote_documents(&Arc::from(REMOTE_ROOT), |url| {
            asked.push(url.to_string());
            served(url)
        });
        assert!(missing.is_none());
        let urls: Vec<&str> = documents.iter().map(|(u, _)| u.as_str()).collect();
        let expected = ["root.json", "defs.json", "a.json", "b.json"]
            .map(|f| format!("http://127.0.0.1:18777/t/{f}"));
        assert_eq!(urls, expected);
        // Each once, though a.json and b.json name each other.
        assert_eq!(asked, expected);
        // Compiled once with them, whoever asks again (the check, a render of the chart at
        // the other revision); a text that spells the key out is another schema.
        let once = compiled(&Arc::from(REMOTE_ROOT), &documents).unwrap();
        assert!(Arc::ptr_eq(
            &once,
            &compiled(&Arc::from(REMOTE_ROOT), &documents).unwrap()
        ));
        let mut spelled = format!("{}:{REMOTE_ROOT}", REMOTE_ROOT.len());
        for (url, text) in &documents {
            spelled.push_str(&format!("{}:{url}{}:{text}", url.len(), text.len()));
        }
        assert!(compiled(&Arc::from(spelled), &[]).is_err());
        let mut c = chart(REMOTE_ROOT);
        c.schema_documents = documents;
        assert_eq!(
            validate(&c, &values("replicas: 2\nchild:\n  name: x\n")),
            Ok(())
        );
        // helm v3.17.3 with these documents served on 127.0.0.1:18777.
        let e = validate(
            &c,
            &values("replicas: 0\nchild:\n  name: 3\n  b:\n    a:\n      name: 4\n"),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "values don't meet the specifications of the schema(s) in the following chart(s):\nc:\n- replicas: Must be greater than or equal to 1\n- child.b.a.name: Invalid type. Expected: string, given: integer\n- child.name: Invalid type. Expected: string, given: integer\n"
        );
    }

    #[test]
    fn a_document_that_cannot_be_had_stops_the_search_and_says_which() {
        let schema = r#"{"properties": {"a": {"$ref": "https://example.com/one.json"}}}"#;
        let (documents, missing) = remote_documents(&Arc::from(schema), served);
        assert!(documents.is_empty());
        assert_eq!(
            missing,
            Some((
                "https://example.com/one.json".to_string(),
                "404 https://example.com/one.json".to_string()
            ))
        );
        // Only http(s) is fetched: a file the schema names is the check's error, as before.
        let schema = r#"{"$ref": "file:///etc/schema.json"}"#;
        let (documents, missing) =
            remote_documents(&Arc::from(schema), |url| -> Result<Arc<str>, ()> {
                panic!("fetched {url}")
            });
        assert!(documents.is_empty() && missing.is_none());
        // A schema that names none is compiled once, and nothing is fetched.
        let (documents, missing) = remote_documents(&Arc::from(r#"{"type": "object"}"#), |url| {
            panic!("fetched {url}") as Result<Arc<str>, ()>
        });
        assert!(documents.is_empty() && missing.is_none());
    }

    #[test]
    fn a_chain_of_documents_is_followed_only_so_far() {
        // Each document names the next: the search stops at the limit, and the check says
        // which document it lacks.
        let next = |i: usize| format!("https://example.com/{i}.json");
        let schema = format!(r#"{{"$ref": "{}"}}"#, next(0));
        let mut fetched = 0;
        let (documents, missing) =
            remote_documents(&Arc::from(schema.as_str()), |url| -> Result<Arc<str>, ()> {
                fetched += 1;
                let i: usize = url
                    .trim_start_matches("https://example.com/")
                    .trim_end_matches(".json")
                    .parse()
                    .unwrap();
                Ok(Arc::from(format!(r#"{{"$ref": "{}"}}"#, next(i + 1))))
            });
        assert!(missing.is_none());
        assert_eq!(documents.len(), MAX_REMOTE_DOCUMENTS);
        assert_eq!(fetched, MAX_REMOTE_DOCUMENTS);
        let mut c = chart(&schema);
        c.schema_documents = documents;
        assert_eq!(
            validate(&c, &Table::new()).unwrap_err().charts[0].problem,
            Problem::Schema(Unusable::Remote(next(MAX_REMOTE_DOCUMENTS)))
        );
    }

    /// The check of one schema against values written as YAML: the violations as Helm lists
    /// them, or the schema's error.
    fn outcome(schema: &str, values_yaml: &str) -> Result<Vec<String>, String> {
        let c = chart(schema);
        match validate(&c, &values(values_yaml)) {
            Ok(()) => Ok(Vec::new()),
            Err(e) => match &e.charts[0].problem {
                Problem::Values(v) => Ok(v.iter().map(ToString::to_string).collect()),
                Problem::Schema(u) => Err(u.to_string()),
            },
        }
    }

    #[test]
    fn structure_errors_are_gojsonschemas() {
        let cases = [
            (r##"{"type": "strin"}"##, "has a primitive type that is NOT VALID -- given: /strin/ Expected valid values are:[array boolean integer number null object string]"),
            (r##"{"type": ["string", "string"]}"##, "string type is duplicated"),
            (r##"{"type": 1}"##, "Invalid type. Expected: string/array of strings, given: type"),
            (r##"{"type": [1]}"##, "unable to validate schema: interface conversion: interface {} is json.Number, not string"),
            (r##"{"minimum": "1"}"##, "minimum must be of a number"),
            (r##"{"maximum": null}"##, "maximum must be of a number"),
            (r##"{"required": "a"}"##, "required must be of an array"),
            (r##"{"required": ["a", "a"]}"##, "required items must be unique"),
            (r##"{"required": [1]}"##, "required items must be string"),
            (r##"{"enum": [1, 1.0]}"##, "enum items must be unique"),
            (r##"{"enum": {}}"##, "enum must be of an array"),
            (r##"{"enum": [1e400]}"##, "json: cannot unmarshal number 1e400 into Go value of type float64"),
            (r##"{"definitions": true}"##, "unable to validate schema: interface conversion: interface {} is bool, not map[string]interface {}"),
            (r##"{"definitions": {"a": 1}}"##, "Invalid type. Expected: array of schemas, given: definitions"),
            (r##"{"properties": 1}"##, "properties must be of type object"),
            (r##"{"properties": {"a": 1}}"##, "Expected: valid schema, given: Invalid JSON"),
            (r##"{"multipleOf": 0}"##, "multipleOf must be strictly greater than 0"),
            (r##"{"multipleOf": "x"}"##, "Invalid type. Expected: number, given: multipleOf"),
            (r##"{"minLength": 1.5}"##, "minLength must be of an integer"),
            (r##"{"maxItems": -1}"##, "maxItems must be greater than or equal to 0"),
            (r##"{"minLength": 3, "maxLength": 2}"##, "minLength cannot be greater than maxLength"),
            (r##"{"minProperties": 3, "maxProperties": 2}"##, "minProperties cannot be greater than maxProperties"),
            (r##"{"pattern": "(a"}"##, "pattern must be a valid regex"),
            (r##"{"pattern": 1}"##, "pattern must be of a string"),
            (r##"{"format": 1}"##, "format must be of type string"),
            (r##"{"patternProperties": {"(a": {}}}"##, "Invalid regex pattern '(a'"),
            (r##"{"additionalProperties": 1}"##, "Invalid type. Expected: boolean/valid schema, given: additionalProperties"),
            (r##"{"items": [1]}"##, "Invalid type. Expected: valid schema/array of schemas, given: items"),
            (r##"{"allOf": {}}"##, "anyOf must be of an array"),
            (r##"{"not": 1}"##, "not must be of an object"),
            (r##"{"else": 1}"##, "else must be of an object"),
            (r##"{"$ref": 1}"##, "Invalid type. Expected: string, given: $ref"),
            (r##"{"$ref": "#/definitions/nope"}"##, "Object has no key 'definitions'"),
            (r##"{"$ref": "#/items/1", "items": [{}]}"##, "Out of bound array[0,1] index '1'"),
            (r##"{"$ref": "other.json"}"##, "Reference /other.json must be canonical"),
            (r##"{"$schema": 1}"##, "$schema must be of type string"),
            (r##"{"$schema": "http://json-schema.org/draft-04/schema#", "exclusiveMinimum": true}"##, "exclusiveMinimum cannot be used without minimum"),
            (r##"{"$schema": "http://json-schema.org/draft-04/schema#", "minimum": 1, "exclusiveMinimum": 1}"##, "Invalid type. Expected: boolean, given: exclusiveMinimum"),
            (r##"{"$schema": "http://json-schema.org/draft-07/schema#", "minimum": 1, "exclusiveMinimum": true}"##, "Invalid type. Expected: number, given: exclusiveMinimum"),
            (r##"{"exclusiveMaximum": "x"}"##, "Invalid type. Expected: boolean/number, given: exclusiveMaximum"),
            (r##"{"dependencies": {"a": 1}}"##, "dependency must be of type schema or array of strings"),
            (r##"{"title": 1}"##, "Invalid type. Expected: string, given: title"),
            (r##"{"$id": 1}"##, "Invalid type. Expected: string, given: $id"),
            (r##"{"uniqueItems": 1}"##, "uniqueItems must be of a boolean"),
            (r##"{"propertyNames": 1}"##, "Invalid type. Expected: valid schema, given: patternProperties"),
            (r##"{"minimum": 1e1000001}"##, "minimum must be of a number"),
            (r##"{"title": 1e1000001}"##, "unable to validate schema: runtime error: invalid memory address or nil pointer dereference"),
            ("[]", "schema is invalid"),
            ("", "EOF"),
            (r##"{"a": "##, "unexpected EOF"),
        ];
        for (schema, want) in cases {
            assert_eq!(outcome(schema, ""), Err(want.to_string()), "{schema}");
        }
        // What the meta-schema would refuse and gojsonschema accepts.
        for schema in [
            r##"{"enum": []}"##,
            r##"{"type": []}"##,
            r##"{"required": []}"##,
            r##"{"x-anything": {"type": 1}}"##,
            r##"{"$schema": "http://json-schema.org/draft-04/schema#", "const": "ignored", "if": 1}"##,
            "true",
            "{} and trailing text",
        ] {
            assert_eq!(outcome(schema, "a: 1"), Ok(Vec::new()), "{schema}");
        }
    }

    #[test]
    fn keywords_are_worded_as_gojsonschema() {
        let cases: &[(&str, &str, &[&str])] = &[
            (
                r##"{"properties": {"a": {"type": "integer"}}}"##,
                "a: 1.5",
                &["a: Invalid type. Expected: integer, given: number"],
            ),
            (
                r##"{"properties": {"a": {"type": "integer"}}}"##,
                "a: 1.0",
                &[],
            ),
            (
                r##"{"properties": {"a": {"type": ["string", "null"]}}}"##,
                "a: 3",
                &["a: Invalid type. Expected: [string,null], given: integer"],
            ),
            (
                r##"{"properties": {"a": {"multipleOf": 0.1}}}"##,
                "a: 0.3",
                &[],
            ),
            (
                r##"{"properties": {"a": {"multipleOf": 0.1}}}"##,
                "a: 0.35",
                &["a: Must be a multiple of 0.1"],
            ),
            (
                r##"{"properties": {"a": {"maximum": 1000000}}}"##,
                "a: 2000000",
                &["a: Must be less than or equal to 1e+06"],
            ),
            (
                r##"{"properties": {"a": {"exclusiveMinimum": 0}}}"##,
                "a: 0",
                &["a: Must be greater than 0"],
            ),
            (
                r##"{"$schema": "http://json-schema.org/draft-04/schema#", "properties": {"a": {"maximum": 10, "exclusiveMaximum": true}}}"##,
                "a: 10",
                &["a: Must be less than 10"],
            ),
            (
                r##"{"properties": {"a": {"maxLength": 3}}}"##,
                "a: héé",
                &[],
            ),
            (
                r##"{"properties": {"a": {"minLength": 3}}}"##,
                "a: hé",
                &["a: String length must be greater than or equal to 3"],
            ),
            (
                r##"{"properties": {"a": {"pattern": "^\\Qa.b\\E$"}}}"##,
                "a: axb",
                &[r"a: Does not match pattern '^\Qa.b\E$'"],
            ),
            (
                r##"{"properties": {"a": {"pattern": "\\d"}}}"##,
                "a: ٣",
                &[r"a: Does not match pattern '\d'"],
            ),
            (
                r##"{"properties": {"a": {"format": "date"}}}"##,
                "a: 2023-02-29",
                &["a: Does not match format 'date'"],
            ),
            (
                r##"{"properties": {"a": {"format": "date"}}}"##,
                "a: 5",
                &["a: Does not match format 'date'"],
            ),
            (
                r##"{"properties": {"a": {"format": "custom"}}}"##,
                "a: 5",
                &[],
            ),
            (
                r##"{"properties": {"a": {"enum": ["x", 1, null, {"b": [1.0]}, "<"]}}}"##,
                "a: y",
                &[r##"a: a must be one of the following: "x", 1, null, {"b":[1]}, "\u003c""##],
            ),
            (
                r##"{"properties": {"a": {"const": {"z": 1, "b": 2.0}}}}"##,
                "a: {b: 2, z: 1}",
                &[],
            ),
            (
                r##"{"properties": {"a": {"const": "v1"}}}"##,
                "a: v2",
                &[r##"a: a does not match: "v1""##],
            ),
            (
                r##"{"properties": {"a": {"uniqueItems": true}}}"##,
                "a: [1, 2, 1, 1]",
                &[
                    "a: array items[0,2] must be unique",
                    "a: array items[2,3] must be unique",
                ],
            ),
            (
                r##"{"properties": {"a": {"items": [{"type": "string"}], "additionalItems": false}}}"##,
                "a: [x, 1]",
                &["a: No additional items allowed on array"],
            ),
            (
                r##"{"properties": {"a": {"items": {"type": "string"}}}}"##,
                "a: [x, 1]",
                &["a.1: Invalid type. Expected: string, given: integer"],
            ),
            (
                r##"{"properties": {"a": {"contains": {"type": "string"}}}}"##,
                "a: [1]",
                &[
                    "a: At least one of the items must match",
                    "a.0: Invalid type. Expected: string, given: integer",
                ],
            ),
            (
                r##"{"properties": {"a": {"minItems": 3, "maxItems": 1}}}"##,
                "a: [1, 2]",
                &[
                    "a: Array must have at least 3 items",
                    "a: Array must have at most 1 items",
                ],
            ),
            (
                r##"{"properties": {"a": {"minProperties": 2, "required": ["x", "y"]}}}"##,
                "a: {x: 1}",
                &["a: Must have at least 2 properties", "a: y is required"],
            ),
            (
                r##"{"additionalProperties": false}"##,
                "b: 1",
                &["(root): Additional property b is not allowed"],
            ),
            (
                r##"{"patternProperties": {"^x": {"type": "string"}}, "additionalProperties": {"type": "string"}}"##,
                "x1: 1\nz: 2",
                &[
                    "x1: Invalid type. Expected: string, given: integer",
                    "z: Invalid type. Expected: string, given: integer",
                ],
            ),
            (
                r##"{"propertyNames": {"maxLength": 2}}"##,
                "abc: 1",
                &[
                    r##"(root): Property name of "abc" does not match"##,
                    "(root): String length must be less than or equal to 2",
                ],
            ),
            (
                r##"{"dependencies": {"x": ["y"], "z": {"required": ["w"]}}}"##,
                "x: 1\nz: 1",
                &["(root): Has a dependency on y", "(root): w is required"],
            ),
            (
                r##"{"anyOf": [{"required": ["a", "b"]}, {"required": ["a"]}]}"##,
                "c: 1",
                &[
                    "(root): Must validate at least one schema (anyOf)",
                    "(root): a is required",
                ],
            ),
            (
                r##"{"oneOf": [{"required": ["c"]}, {"type": "object"}]}"##,
                "c: 1",
                &["(root): Must validate one and only one schema (oneOf)"],
            ),
            (
                r##"{"allOf": [{"required": ["a"]}, {"required": ["b"]}]}"##,
                "c: 1",
                &[
                    "(root): a is required",
                    "(root): b is required",
                    "(root): Must validate all the schemas (allOf)",
                ],
            ),
            (
                r##"{"not": {"required": ["c"]}}"##,
                "c: 1",
                &["(root): Must not validate the schema (not)"],
            ),
            (
                r##"{"if": {"required": ["c"]}, "then": {"required": ["d"]}}"##,
                "c: 1",
                &[
                    "(root): Must validate \"then\" as \"if\" was valid",
                    "(root): d is required",
                ],
            ),
            (
                r##"{"if": {"required": ["c"]}, "else": {"required": ["d"]}}"##,
                "e: 1",
                &[
                    "(root): Must validate \"else\" as \"if\" was not valid",
                    "(root): d is required",
                ],
            ),
            (
                r##"{"definitions": {"p": {"maximum": 1}}, "properties": {"a": {"$ref": "#/definitions/p"}, "b": {"$ref": "#/definitions/p"}}}"##,
                "a: 2\nb: 3",
                &[
                    "a: Must be less than or equal to 1",
                    "b: Must be less than or equal to 1",
                ],
            ),
            (
                r##"{"$id": "http://x.io/s.json", "definitions": {"p": {"$id": "#port", "maximum": 1}}, "properties": {"a": {"$ref": "#port"}}}"##,
                "a: 2",
                &["a: Must be less than or equal to 1"],
            ),
            (
                r##"{"properties": {"c": {"$ref": "#"}, "w": {"type": "string"}}}"##,
                "c: {c: {w: 1}}",
                &["c.c.w: Invalid type. Expected: string, given: integer"],
            ),
            ("false", "a: 1", &["(root): False always fails validation"]),
        ];
        for (schema, values, want) in cases {
            assert_eq!(
                outcome(schema, values),
                Ok(want.iter().map(|w| w.to_string()).collect()),
                "{schema} {values}"
            );
        }
    }

    #[test]
    fn hostile_schemas_end_with_an_error() {
        // Cycles that never descend into the values: helm overflows its stack.
        for schema in [
            r##"{"$ref": "#"}"##,
            r##"{"allOf": [{"$ref": "#"}]}"##,
            r##"{"definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"$ref": "#/definitions/a"}}, "$ref": "#/definitions/a"}"##,
        ] {
            assert_eq!(
                outcome(schema, "a: 1"),
                Err(Unusable::Cycle.to_string()),
                "{schema}"
            );
        }
        // Deep nesting parses and validates on the check's own stack.
        let deep = format!("{}{{}}{}", r#"{"not": "#.repeat(4000), "}".repeat(4000));
        assert_eq!(outcome(&deep, "a: 1"), Ok(Vec::new()));
        // A long chain of references, each to the next.
        let mut definitions = Vec::new();
        for i in 0..12_000 {
            definitions.push(format!(
                r##""d{i}": {{"$ref": "#/definitions/d{}"}}"##,
                i + 1
            ));
        }
        definitions.push(r#""d12000": {"type": "string"}"#.to_string());
        let chain = format!(
            r##"{{"definitions": {{{}}}, "$ref": "#/definitions/d0"}}"##,
            definitions.join(",")
        );
        assert_eq!(
            outcome(&chain, "a: 1"),
            Err(Unusable::TooDeep(validate::MAX_DEPTH).to_string())
        );
        // A huge enum and a huge required list are read in linear time.
        let many: Vec<String> = (0..200_000).map(|i| format!("\"v{i}\"")).collect();
        let big = format!(
            r##"{{"properties": {{"a": {{"enum": [{}]}}}}, "required": [{}]}}"##,
            many.join(","),
            many.join(",")
        );
        let started = std::time::Instant::now();
        let out = outcome(&big, "a: x\nv0: 1").unwrap();
        assert_eq!(out.len(), 199_999 + 1);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
    }
}
