//! A HelmRelease's values as helm-controller composes them (`fluxcd/pkg/chartutil/values.go:
//! ChartValuesFromReferences`, `MergeMaps`) and its release name (`GetReleaseName`,
//! `internal/release/name.go: ShortenName`).
//!
//! Values are `serde_json` maps. A YAML document's numbers are float64, as Go's JSON decoding
//! gives them (`Number::from_f64`); an integer a `targetPath` infers is int64 (an `i64`
//! number), as Helm's `--set` types it. Whoever turns the result into template values keeps the
//! two apart.

use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

use crate::helm::strvals::{self, StrvalsError, Typing};
use crate::helm::values::Table;
use crate::template::Value as GoValue;

/// Values: a YAML map.
pub type Values = Map<String, Value>;

/// One `valuesFrom` entry, already resolved by the caller: the text of its key in the
/// ConfigMap's or Secret's `data` (a Secret's decoded). Finding the object in the HelmRelease's
/// namespace, the `valuesKey` default (`values.yaml`), and skipping an `optional` reference
/// whose object or key is missing are the caller's part.
#[derive(Clone, Copy, Debug)]
pub struct ValuesRef<'a> {
    /// The text of the key.
    pub text: &'a str,
    /// `targetPath`: where the whole text goes as one value (`None` or empty: merged as YAML).
    pub target_path: Option<&'a str>,
    /// `literal`: the text set verbatim at `target_path`, no `--set` syntax.
    pub literal: bool,
}

/// Why the values could not be composed: the reason helm-controller wraps in "could not
/// resolve … chart values reference …", with the index of the reference among `refs`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// `ErrValuesDataRead`: the text is not a YAML map.
    #[error("{error}")]
    Read { index: usize, error: ReadError },
    /// `ErrValueMerge`: Helm's `--set` parser refused `targetPath=text`.
    #[error("{error}")]
    Merge { index: usize, error: StrvalsError },
}

impl Error {
    /// The index of the reference among those composed.
    pub fn index(&self) -> usize {
        match self {
            Error::Read { index, .. } | Error::Merge { index, .. } => *index,
        }
    }
}

/// Values text Helm's `ReadValues` refuses.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// Not YAML; the line is go-yaml's, in the text.
    #[error(transparent)]
    Yaml(#[from] crate::template::HelmYamlError),
    /// YAML that is not a map.
    #[error("error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {found} into Go value of type common.Values")]
    NotAMap {
        /// The JSON type found (`string`, `array`, …).
        found: &'static str,
    },
}

/// `MergeMaps`: `overlay` over `base`. Maps merge key by key, anything else (lists, nulls
/// included) replaces. New keys go after the existing ones.
pub fn merge_maps(base: &mut Values, overlay: &Values) {
    for (k, v) in overlay {
        match (base.get_mut(k), v) {
            (Some(Value::Object(b)), Value::Object(o)) => merge_maps(b, o),
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
}

/// Helm's `ReadValues`: a YAML map; an empty document or `null` is an empty map.
pub fn read_values(text: &str) -> Result<Values, ReadError> {
    let value = crate::template::helm_values(text)?;
    match from_go(&value, None) {
        Value::Object(m) => Ok(m),
        Value::Null => Ok(Values::new()),
        other => Err(ReadError::NotAMap {
            found: json_kind(&other),
        }),
    }
}

/// `ReplacePathValue`: `path=value` through Helm's `--set` parser (types inferred; `,`, `{…}`
/// and `[n]` are syntax). A value between quotes (`'…'` or `"…"`) loses every quote at either
/// end and is set as a string.
pub fn replace_path_value(
    values: &mut Values,
    path: &str,
    value: &str,
) -> Result<(), StrvalsError> {
    let quoted = |q: char| value.starts_with(q) && value.ends_with(q);
    if quoted('\'') || quoted('"') {
        let bare = value.trim_matches(|c| c == '\'' || c == '"');
        return set(values, &format!("{path}={bare}"), Typing::String);
    }
    set(values, &format!("{path}={value}"), Typing::Typed)
}

/// `ReplacePathLiteralValue`: the value set verbatim as a string, while `\.` still escapes a
/// dot of the path. Flux escapes the parser's metacharacters; `literal_assignment` escapes the
/// ones that matter in a value, with the same result.
pub fn replace_path_literal_value(
    values: &mut Values,
    path: &str,
    value: &str,
) -> Result<(), StrvalsError> {
    set(
        values,
        &strvals::literal_assignment(path, value),
        Typing::String,
    )
}

fn set(values: &mut Values, assignment: &str, typing: Typing) -> Result<(), StrvalsError> {
    let mut table: Table = values.iter().map(|(k, v)| (k.clone(), to_go(v))).collect();
    // Go's parser writes into the map as far as it got before an error, but Flux then fails
    // the whole composition, so a failed write may leave `values` as it was.
    strvals::parse_into(assignment, &mut table, typing)?;
    let old = Value::Object(std::mem::take(values));
    if let Value::Object(m) = from_go(&GoValue::map(table), Some(&old)) {
        *values = m;
    }
    Ok(())
}

/// `ChartValuesFromReferences` once the references are read: each reference in order, then
/// `inline` (`spec.values`) over all.
///
/// A reference with a `targetPath` first merges `inline` into the result and then writes its
/// value in place. Go's `MergeMaps` shares the nested maps and lists of `inline` instead of
/// copying them, so a write into such a container also changes `inline`, and survives the final
/// merge; a container an earlier merge copied does not share, and `inline` wins there. The
/// composition tracks which containers are shared to give the same result.
pub fn compose(refs: &[ValuesRef], inline: &Values) -> Result<Values, Error> {
    let mut result = Values::new();
    let mut inline = inline.clone();
    let mut shared = Shared::default();
    for (index, r) in refs.iter().enumerate() {
        match r.target_path.filter(|p| !p.is_empty()) {
            Some(path) => {
                shared.merge(&mut result, &inline, true);
                let before = result.clone();
                let written = if r.literal {
                    replace_path_literal_value(&mut result, path, r.text)
                } else {
                    replace_path_value(&mut result, path, r.text)
                };
                written.map_err(|error| Error::Merge { index, error })?;
                shared.write_through(&before, &result, &mut inline, path);
            }
            None => {
                let doc = read_values(r.text).map_err(|error| Error::Read { index, error })?;
                shared.merge(&mut result, &doc, false);
            }
        }
    }
    shared.merge(&mut result, &inline, true);
    Ok(result)
}

/// The containers of the result that are `inline`'s own (as Go's `MergeMaps` shares them):
/// the key paths where they sit, the same in both, none inside another.
#[derive(Default)]
struct Shared(Vec<Vec<String>>);

impl Shared {
    /// `MergeMaps(result, overlay)`, noting which containers come to be shared.
    fn merge(&mut self, result: &mut Values, overlay: &Values, from_inline: bool) {
        self.merge_at(result, overlay, from_inline, &mut Vec::new());
    }

    fn merge_at(
        &mut self,
        base: &mut Values,
        overlay: &Values,
        from_inline: bool,
        path: &mut Vec<String>,
    ) {
        for (k, v) in overlay {
            path.push(k.clone());
            match (base.get_mut(k), v) {
                (Some(Value::Object(b)), Value::Object(o)) => {
                    // A fresh map replaces a shared one; its entries stay shared.
                    if let Some(i) = self.0.iter().position(|p| p == path) {
                        self.0.swap_remove(i);
                        for (ck, cv) in b.iter() {
                            if is_container(cv) {
                                self.0
                                    .push([path.as_slice(), std::slice::from_ref(ck)].concat());
                            }
                        }
                    }
                    self.merge_at(b, o, from_inline, path);
                }
                _ => {
                    base.insert(k.clone(), v.clone());
                    self.0.retain(|p| !p.starts_with(path));
                    if from_inline && is_container(v) {
                        self.0.push(path.clone());
                    }
                }
            }
            path.pop();
        }
    }

    /// After `path` was written into the result: every shared container the parser changed in
    /// place changes in `inline` too. Helm's parser keeps a map it walks through; a list stays
    /// the same list unless it grew or the target is the list itself (a new `{…}` or a scalar).
    fn write_through(&mut self, before: &Values, after: &Values, inline: &mut Values, path: &str) {
        let target = target_keys(path);
        self.0.retain(|p| {
            let (Some(old), Some(new)) = (lookup(before, p), lookup(after, p)) else {
                return false;
            };
            let in_place = match (old, new) {
                (Value::Object(_), Value::Object(_)) => true,
                (Value::Array(o), Value::Array(n)) => {
                    o.len() == n.len() && target.as_deref() != Some(p.as_slice())
                }
                _ => false,
            };
            if in_place {
                if let Some(slot) = lookup_mut(inline, p) {
                    *slot = new.clone();
                }
            }
            in_place
        });
    }
}

/// The map keys `path` names when it names only keys (`a.b\.c`), through the parser itself.
fn target_keys(path: &str) -> Option<Vec<String>> {
    const MARK: &str = "__kdelta_target__";
    let mut probe = Table::new();
    strvals::parse_into(&format!("{path}={MARK}"), &mut probe, Typing::String).ok()?;
    let mut keys = Vec::new();
    let mut at = GoValue::map(probe);
    loop {
        let GoValue::Map(m) = at else {
            return matches!(&at, GoValue::String(s) if &**s == MARK).then_some(keys);
        };
        let entries = m.entries();
        let [(k, v)] = entries.as_slice() else {
            return None;
        };
        keys.push(k.clone());
        at = v.clone();
    }
}

fn lookup<'v>(values: &'v Values, path: &[String]) -> Option<&'v Value> {
    let (first, rest) = path.split_first()?;
    rest.iter()
        .try_fold(values.get(first)?, |v, k| v.as_object()?.get(k))
}

fn lookup_mut<'v>(values: &'v mut Values, path: &[String]) -> Option<&'v mut Value> {
    let (first, rest) = path.split_first()?;
    rest.iter()
        .try_fold(values.get_mut(first)?, |v, k| v.as_object_mut()?.get_mut(k))
}

fn is_container(v: &Value) -> bool {
    matches!(v, Value::Object(_) | Value::Array(_))
}

/// The name `encoding/json` gives a value's kind in "cannot unmarshal KIND".
fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A JSON value as Helm's parser sees it: int64 stays int64, everything else is a float64.
fn to_go(v: &Value) -> GoValue {
    match v {
        Value::Null => GoValue::Nil,
        Value::Bool(b) => GoValue::Bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) if !n.is_f64() => GoValue::Int64(i),
            _ => GoValue::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => GoValue::str(s.as_str()),
        Value::Array(items) => GoValue::list(items.iter().map(to_go).collect()),
        Value::Object(m) => GoValue::map(m.iter().map(|(k, v)| (k.clone(), to_go(v))).collect()),
    }
}

/// Back to JSON. A map keeps the key order of `old` (the value it replaces), new keys after.
fn from_go(v: &GoValue, old: Option<&Value>) -> Value {
    match v {
        GoValue::Nil | GoValue::NoValue => Value::Null,
        GoValue::Bool(b) => Value::Bool(*b),
        GoValue::Int(i) | GoValue::Int64(i) => Value::from(*i),
        GoValue::Uint64(u) => Value::from(*u),
        GoValue::Uint8(b) => Value::from(*b),
        GoValue::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
        GoValue::String(s) => Value::String(s.to_string()),
        GoValue::List(l) => {
            let olds = old.and_then(Value::as_array);
            Value::Array(
                l.iter()
                    .enumerate()
                    .map(|(i, x)| from_go(x, olds.and_then(|o| o.get(i))))
                    .collect(),
            )
        }
        GoValue::Map(m) => {
            let mut entries: Map<String, Value> = Map::new();
            let fresh: Vec<(String, GoValue)> = m.entries();
            let olds = old.and_then(Value::as_object);
            if let Some(o) = olds {
                for k in o.keys() {
                    if let Some((_, x)) = fresh.iter().find(|(fk, _)| fk == k) {
                        entries.insert(k.clone(), from_go(x, o.get(k)));
                    }
                }
            }
            for (k, x) in &fresh {
                if !entries.contains_key(k) {
                    entries.insert(k.clone(), from_go(x, None));
                }
            }
            Value::Object(entries)
        }
        // Values read from YAML or set by the parser hold neither.
        GoValue::Complex(..) | GoValue::Object(_) => Value::Null,
    }
}

/// `GetReleaseName` then `ShortenName`: `releaseName`, else `<targetNamespace>-<name>`, else
/// `<name>`; past 53 bytes, its first 40, `-` and the first 12 hex digits of its SHA-256.
pub fn release_name(
    name: &str,
    target_namespace: Option<&str>,
    release_name: Option<&str>,
) -> String {
    let full = match (release_name, target_namespace) {
        (Some(r), _) if !r.is_empty() => r.to_string(),
        (_, Some(ns)) if !ns.is_empty() => format!("{ns}-{name}"),
        _ => name.to_string(),
    };
    if full.len() <= 53 {
        return full;
    }
    let digest = Sha256::digest(full.as_bytes());
    let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    // Go cuts bytes; Kubernetes names are ASCII, so this cuts no character.
    format!("{}-{hex}", String::from_utf8_lossy(&full.as_bytes()[..40]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Values {
        match v {
            Value::Object(m) => m,
            other => panic!("not a map: {other}"),
        }
    }

    fn yaml(text: &str) -> Values {
        read_values(text).unwrap()
    }

    fn r<'a>(text: &'a str, target_path: Option<&'a str>) -> ValuesRef<'a> {
        ValuesRef {
            text,
            target_path,
            literal: false,
        }
    }

    /// `values_test.go: TestChartValuesFromReferences`, "merges".
    #[test]
    fn merges() {
        let cm = "flat: value\nnested:\n  configuration: value\n";
        let secret = "flat:\n  nested: value\nnested: value\n";
        let got = compose(&[r(cm, None), r(secret, None)], &yaml("other: values")).unwrap();
        assert_eq!(
            Value::Object(got),
            json!({"flat": {"nested": "value"}, "nested": "value", "other": "values"})
        );
    }

    /// "with target path".
    #[test]
    fn with_target_path() {
        let got = compose(
            &[r("value", Some("merge.at.specific.path"))],
            &Values::new(),
        )
        .unwrap();
        assert_eq!(
            Value::Object(got),
            json!({"merge": {"at": {"specific": {"path": "value"}}}})
        );
    }

    /// "target path precedence over all": the write lands in the inline list itself.
    #[test]
    fn target_path_precedence_over_all() {
        let cm = "flat: value\nnested:\n  configuration:\n  - one\n  - two\n  - three\n";
        let inline = yaml("nested:\n  configuration:\n  - list\n  - item\n  - option\n");
        let got = compose(
            &[r("value", Some("nested.configuration[0]")), r(cm, None)],
            &inline,
        )
        .unwrap();
        assert_eq!(
            Value::Object(got),
            json!({"flat": "value", "nested": {"configuration": ["value", "item", "option"]}})
        );
    }

    /// "target path for string type array item".
    #[test]
    fn target_path_for_string_type_array_item() {
        let cm = "flat: value\nnested:\n  configuration:\n  - list\n  - item\n  - option\n";
        let got = compose(
            &[r(cm, None), r("foo", Some("nested.configuration[1]"))],
            &yaml("other: values"),
        )
        .unwrap();
        assert_eq!(
            Value::Object(got),
            json!({"flat": "value", "nested": {"configuration": ["list", "foo", "option"]}, "other": "values"})
        );
    }

    #[test]
    fn shared_containers_only() {
        // A map the inline values share takes the write, and keeps it over a later document.
        let inline = yaml("a:\n  b: 1\n");
        let got = compose(&[r("2", Some("a.c")), r("a:\n  c: 3\n", None)], &inline).unwrap();
        assert_eq!(Value::Object(got), json!({"a": {"b": 1.0, "c": 2}}));
        // Once a document merged into it, the map is a copy: the inline values win.
        let got = compose(
            &[
                r("a:\n  d: 0\n", None),
                r("2", Some("a.c")),
                r("a:\n  c: 3\n", None),
            ],
            &yaml("a:\n  c: 1\n"),
        )
        .unwrap();
        assert_eq!(Value::Object(got), json!({"a": {"c": 1.0, "d": 0.0}}));
        // A list that grows is a new list; the inline one is left as it was.
        let got = compose(&[r("x", Some("l[3]"))], &yaml("l: [a]\n")).unwrap();
        assert_eq!(Value::Object(got), json!({"l": ["a"]}));
        // A new list at the target replaces, even of the same length.
        let got = compose(
            &[r("{x}", Some("l")), r("l: [b]\n", None)],
            &yaml("l: [a]\n"),
        )
        .unwrap();
        assert_eq!(Value::Object(got), json!({"l": ["a"]}));
    }

    /// Missing optional references are the caller's to skip; errors carry the index.
    #[test]
    fn errors() {
        assert_eq!(compose(&[], &Values::new()).unwrap(), Values::new());
        let err = compose(&[r("\ninvalid", None)], &Values::new()).unwrap_err();
        assert_eq!(err.to_string(), "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type common.Values");
        assert_eq!(
            err,
            Error::Read {
                index: 0,
                error: ReadError::NotAMap { found: "string" }
            }
        );
        let err = compose(&[r("a: [", None)], &Values::new()).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("error converting YAML to JSON: yaml: "),
            "{err}"
        );
        assert_eq!(read_values("").unwrap(), Values::new());
        assert_eq!(read_values("~").unwrap(), Values::new());
    }

    /// "non-literal target path mangles value with commas" and the flux2#2625 cases.
    #[test]
    fn literal() {
        let brokers = "kafka01.net:9092,kafka02.net:9092,kafka03.net:9092";
        let plain = compose(&[r(brokers, Some("kafka.brokers"))], &Values::new());
        assert_eq!(
            plain.as_ref().map_err(|e| e.to_string()),
            Err(r#"key "net:9092" has no value (cannot end with ,)"#.to_string())
        );
        assert_eq!(
            plain,
            Err(Error::Merge {
                index: 0,
                error: StrvalsError::EndsWithComma {
                    key: "net:9092".into()
                }
            })
        );
        let lit = ValuesRef {
            literal: true,
            ..r(brokers, Some("kafka.brokers"))
        };
        assert_eq!(
            Value::Object(compose(&[lit], &Values::new()).unwrap()),
            json!({"kafka": {"brokers": brokers}})
        );
        let yml = ValuesRef {
            literal: true,
            ..r(
                "endpoints: [a,b,c]",
                Some(r"externalConfig.application\.yml.content"),
            )
        };
        assert_eq!(
            Value::Object(compose(&[yml], &Values::new()).unwrap()),
            json!({"externalConfig": {"application.yml": {"content": "endpoints: [a,b,c]"}}})
        );
        assert!(compose(
            &[ValuesRef {
                literal: false,
                ..yml
            }],
            &Values::new()
        )
        .is_err());
        // Without a targetPath, `literal` changes nothing.
        let root = ValuesRef {
            literal: true,
            ..r("flat: value\n", None)
        };
        assert_eq!(
            Value::Object(compose(&[root], &Values::new()).unwrap()),
            json!({"flat": "value"})
        );
    }

    /// `TestReplacePathValue` and `TestReplacePathLiteralValue`.
    #[test]
    fn replace_path() {
        let set = |path: &str, value: &str| {
            let mut m = Values::new();
            replace_path_value(&mut m, path, value).unwrap();
            Value::Object(m)
        };
        assert_eq!(
            set("outer.inner", "value"),
            json!({"outer": {"inner": "value"}})
        );
        assert_eq!(set("name", "{a,b,c}"), json!({"name": ["a", "b", "c"]}));
        assert_eq!(
            set("name", r"value1\,value2"),
            json!({"name": "value1,value2"})
        );
        assert_eq!(set("a.b", "true"), json!({"a": {"b": true}}));
        assert_eq!(set("a.b", r#""true""#), json!({"a": {"b": "true"}}));
        assert_eq!(set("a.b", "'\"x\"'"), json!({"a": {"b": "x"}}));
        assert_eq!(set("a", "007"), json!({"a": "007"}));
        assert_eq!(set("a", "7"), json!({"a": 7}));
        assert_eq!(
            set("merge.at[2]", "value"),
            json!({"merge": {"at": [null, null, "value"]}})
        );
        assert_eq!(
            set(r"nodeSelector.kubernetes\.io/role", "master"),
            json!({"nodeSelector": {"kubernetes.io/role": "master"}})
        );
        let lit = |path: &str, value: &str| {
            let mut m = Values::new();
            replace_path_literal_value(&mut m, path, value).unwrap();
            Value::Object(m)
        };
        for v in [
            "a,b,c",
            "{a,b,c}",
            "foo=bar=baz",
            "endpoints: [a, b, c]",
            "kafka {\n  bootstrap = \"b-1:9098,b-2:9098\"\n}\n",
            r#"["a","b","c"]"#,
            "true",
            r"back\slash\,",
        ] {
            assert_eq!(lit("name", v), json!({ "name": v }), "{v}");
        }
        // A document's keys come sorted (a Go map has no order); a write keeps the order it
        // finds and adds keys after it. A float from YAML stays a float.
        let mut m = yaml("z: 1\na: {d: 2, b: 3}\n");
        replace_path_value(&mut m, "a.c", "4").unwrap();
        assert_eq!(
            serde_json::to_string(&m).unwrap(),
            r#"{"a":{"b":3.0,"d":2.0,"c":4},"z":1.0}"#
        );
    }

    #[test]
    fn merge_maps_semantics() {
        let mut base = map(json!({"a": {"b": 1, "c": [1]}, "d": {"e": 1}, "n": 1}));
        merge_maps(
            &mut base,
            &map(json!({"a": {"c": [2], "x": null}, "d": "flat", "n": null, "new": {}})),
        );
        assert_eq!(
            Value::Object(base),
            json!({"a": {"b": 1, "c": [2], "x": null}, "d": "flat", "n": null, "new": {}})
        );
    }

    /// `internal/release/name_test.go` and `GetReleaseName`.
    #[test]
    fn release_names() {
        assert_eq!(
            release_name(
                "release-name-with-very-long-name-which-is-longer-than-53-characters",
                None,
                None
            ),
            "release-name-with-very-long-name-which-i-788ca0d0d7b0"
        );
        assert_eq!(release_name("app", None, None), "app");
        assert_eq!(release_name("app", Some("prod"), None), "prod-app");
        assert_eq!(release_name("app", Some("prod"), Some("mine")), "mine");
        assert_eq!(release_name("app", Some(""), Some("")), "app");
        let exact = "a".repeat(53);
        assert_eq!(release_name(&exact, None, None), exact);
    }
}
