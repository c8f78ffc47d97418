//! RFC 6902 JSON patches with the behaviour of the library kustomize uses
//! (evanphx/json-patch v4): `add` replaces an existing key, negative array indices count from
//! the end, `-` appends, and its error wording.

use serde_json::Value;

/// One operation.
#[derive(Debug, Clone, PartialEq)]
pub struct Op {
    pub op: String,
    pub path: String,
    pub from: Option<String>,
    pub value: Option<Value>,
}

/// Decodes a patch from JSON (or YAML already converted to a JSON value).
pub fn decode(v: &Value) -> Result<Vec<Op>, String> {
    let Value::Array(items) = v else {
        return Err("json: cannot unmarshal object into Go value of type jsonpatch.Patch".into());
    };
    items
        .iter()
        .map(|item| {
            let obj = item.as_object().ok_or_else(|| {
                "json: cannot unmarshal into Go value of type jsonpatch.Operation".to_string()
            })?;
            let s = |k: &str| obj.get(k).and_then(Value::as_str).map(str::to_string);
            Ok(Op {
                op: s("op").unwrap_or_default(),
                path: s("path").unwrap_or_default(),
                from: s("from"),
                value: obj.get("value").cloned(),
            })
        })
        .collect()
}

/// evanphx `findObject`: the path split at `/` with its first part dropped — whatever it is,
/// so `spec/x` means `/x` — and at least one part left (`""` and `x` are missing paths).
fn tokens(path: &str, op: &str) -> Result<Vec<String>, String> {
    let parts: Vec<&str> = path.split('/').collect();
    if parts.len() < 2 {
        return Err(format!(
            "{op} operation does not apply: doc is missing path: \"{path}\": missing value"
        ));
    }
    Ok(parts[1..]
        .iter()
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect())
}

fn parent<'a>(
    doc: &'a mut Value,
    toks: &[String],
    path: &str,
    op: &str,
) -> Result<&'a mut Value, String> {
    let mut cur = doc;
    for t in toks {
        cur = match cur {
            Value::Object(m) => m.get_mut(t),
            Value::Array(a) => t.parse::<usize>().ok().and_then(move |i| a.get_mut(i)),
            _ => None,
        }
        .ok_or_else(|| {
            format!("{op} operation does not apply: doc is missing path: \"{path}\": missing value")
        })?;
    }
    Ok(cur)
}

fn index(t: &str, len: usize, allow_end: bool, path: &str) -> Result<usize, String> {
    if t == "-" && allow_end {
        return Ok(len);
    }
    let i: i64 = t
        .parse()
        .map_err(|_| format!("Unable to access invalid index: {t}: invalid index referenced"))?;
    let max = if allow_end {
        len as i64
    } else {
        len as i64 - 1
    };
    let i = if i < 0 {
        if -i > len as i64 {
            return Err(format!(
                "Unable to access invalid index: {i}: invalid index referenced"
            ));
        }
        i + len as i64
    } else {
        i
    };
    if i > max {
        return Err(format!(
            "Unable to access invalid index: {i}: invalid index referenced (path {path})"
        ));
    }
    Ok(i as usize)
}

/// The value at `path`; a key missing from an existing object reads as null, as evanphx's
/// `partialDoc.get` returns it.
fn get(doc: &Value, path: &str, op: &str) -> Result<Value, String> {
    let toks = tokens(path, op)?;
    let (last, head) = toks.split_last().expect("tokens are never empty");
    let missing =
        || format!("{op} operation does not apply: doc is missing path: \"{path}\": missing value");
    let mut cur = doc;
    for t in head {
        cur = match cur {
            Value::Object(m) => m.get(t),
            Value::Array(a) => t.parse::<usize>().ok().and_then(|i| a.get(i)),
            _ => None,
        }
        .ok_or_else(missing)?;
    }
    match cur {
        Value::Object(m) => Ok(m.get(last).cloned().unwrap_or(Value::Null)),
        Value::Array(a) => {
            let i = index(last, a.len(), false, path)?;
            Ok(a[i].clone())
        }
        _ => Err(missing()),
    }
}

/// JSON equality with numbers compared as float64, as evanphx decodes them.
fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

fn add(doc: &mut Value, path: &str, value: Value) -> Result<(), String> {
    let toks = tokens(path, "add")?;
    let (last, head) = toks.split_last().expect("tokens are never empty");
    match parent(doc, head, path, "add")? {
        Value::Object(m) => {
            m.insert(last.clone(), value);
            Ok(())
        }
        Value::Array(a) => {
            // evanphx counts a negative index from the end of the array it is building, one
            // longer: -1 appends.
            let i = match last.parse::<i64>() {
                Ok(n) if n < 0 => {
                    let size = a.len() as i64 + 1;
                    if n < -size {
                        return Err(format!(
                            "Unable to access invalid index: {n}: invalid index referenced"
                        ));
                    }
                    (n + size) as usize
                }
                _ => index(last, a.len(), true, path)?,
            };
            a.insert(i, value);
            Ok(())
        }
        _ => Err(format!(
            "add operation does not apply: doc is missing path: \"{path}\": missing value"
        )),
    }
}

fn remove(doc: &mut Value, path: &str) -> Result<Value, String> {
    let toks = tokens(path, "remove")?;
    let (last, head) = toks.split_last().expect("tokens are never empty");
    match parent(doc, head, path, "remove")? {
        Value::Object(m) => m
            .shift_remove(last)
            .ok_or_else(|| format!("Unable to remove nonexistent key: {last}: missing value")),
        Value::Array(a) => {
            let i = index(last, a.len(), false, path)?;
            Ok(a.remove(i))
        }
        _ => Err(format!(
            "remove operation does not apply: doc is missing path: \"{path}\": missing value"
        )),
    }
}

fn replace(doc: &mut Value, path: &str, value: Value) -> Result<(), String> {
    let toks = tokens(path, "replace")?;
    let (last, head) = toks.split_last().expect("tokens are never empty");
    let missing =
        || format!("replace operation does not apply: doc is missing key: {path}: missing value");
    match parent(doc, head, path, "replace")? {
        // evanphx/json-patch v4 only checks that the parent object exists.
        Value::Object(m) => {
            m.insert(last.clone(), value);
            Ok(())
        }
        Value::Array(a) => {
            let i = index(last, a.len(), false, path)?;
            a[i] = value;
            Ok(())
        }
        _ => Err(missing()),
    }
}

/// Applies every operation in order.
pub fn apply(doc: &mut Value, ops: &[Op]) -> Result<(), String> {
    for op in ops {
        // An operation without `value` writes null (evanphx's nil node).
        let value = || op.value.clone().unwrap_or(Value::Null);
        let add = |doc: &mut Value, path: &str, value: Value| {
            check_depth(path, &value)?;
            add(doc, path, value)
        };
        let replace = |doc: &mut Value, path: &str, value: Value| {
            check_depth(path, &value)?;
            replace(doc, path, value)
        };
        match op.op.as_str() {
            "add" => add(doc, &op.path, value())?,
            "remove" => {
                remove(doc, &op.path)?;
            }
            "replace" => replace(doc, &op.path, value())?,
            "move" => {
                let from = op.from.clone().unwrap_or_default();
                let v = remove(doc, &from)
                    .map_err(|e| format!("move operation does not apply: {e}"))?;
                add(doc, &op.path, v)?;
            }
            "copy" => {
                let from = op.from.clone().unwrap_or_default();
                let v = get(doc, &from, "copy")?;
                add(doc, &op.path, v)?;
            }
            "test" => {
                let want = value();
                let equal = get(doc, &op.path, "test").is_ok_and(|got| json_equal(&got, &want));
                if !equal {
                    return Err(format!("testing value {} failed: test failed", op.path));
                }
            }
            other => return Err(format!("Unexpected kind: {other}")),
        }
    }
    Ok(())
}

/// Deepest nesting a JSON patch may build. Each operation can nest a value (itself up to the
/// parser's 1,000 levels) under the deepest point of the object, so without a bound a few
/// hundred operations would build a tree too deep to walk recursively.
const MAX_DEPTH: usize = 2000;

/// Fails when writing `value` at `path` would nest the object deeper than [`MAX_DEPTH`].
fn check_depth(path: &str, value: &Value) -> Result<(), String> {
    let depth = path.matches('/').count() + value_depth(value);
    if depth > MAX_DEPTH {
        return Err(format!(
            "the operation at {path} would nest the object {depth} levels deep, over the {MAX_DEPTH}-level limit"
        ));
    }
    Ok(())
}

/// Levels of arrays and objects in `v`; values come from parsed patches or from the object
/// itself, both within [`MAX_DEPTH`], so the recursion is bounded.
fn value_depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(value_depth).max().unwrap_or(0),
        Value::Object(m) => 1 + m.values().map(value_depth).max().unwrap_or(0),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(doc: Value, ops: Value) -> Result<Value, String> {
        let mut d = doc;
        apply(&mut d, &decode(&ops)?)?;
        Ok(d)
    }

    #[test]
    fn operations() {
        let doc = json!({"a": {"b": 1}, "l": [1, 2, 3]});
        assert_eq!(
            run(
                doc.clone(),
                json!([{"op": "add", "path": "/a/b", "value": 5}])
            )
            .unwrap(),
            json!({"a": {"b": 5}, "l": [1, 2, 3]})
        );
        assert_eq!(
            run(
                doc.clone(),
                json!([{"op": "add", "path": "/l/-", "value": 4}])
            )
            .unwrap()["l"],
            json!([1, 2, 3, 4])
        );
        assert_eq!(
            run(
                doc.clone(),
                json!([{"op": "add", "path": "/l/-1", "value": 9}])
            )
            .unwrap()["l"],
            json!([1, 2, 3, 9])
        );
        assert_eq!(
            run(
                doc.clone(),
                json!([{"op": "move", "from": "/a/b", "path": "/c"}])
            )
            .unwrap(),
            json!({"a": {}, "l": [1, 2, 3], "c": 1})
        );
        assert_eq!(
            run(
                doc.clone(),
                json!([{"op": "replace", "path": "/x", "value": 1}])
            )
            .unwrap()["x"],
            json!(1)
        );
        assert!(run(
            doc.clone(),
            json!([{"op": "replace", "path": "/x/y", "value": 1}])
        )
        .unwrap_err()
        .contains("doc is missing path"));
        assert!(run(doc.clone(), json!([{"op": "remove", "path": "/x"}]))
            .unwrap_err()
            .contains("Unable to remove nonexistent key"));
        assert!(run(
            doc.clone(),
            json!([{"op": "add", "path": "/x/y", "value": 1}])
        )
        .unwrap_err()
        .contains("doc is missing path"));
        assert!(run(
            doc.clone(),
            json!([{"op": "test", "path": "/a/b", "value": 2}])
        )
        .is_err());
        assert!(run(doc, json!([{"op": "bogus", "path": "/a"}])).is_err());
    }

    /// evanphx/json-patch v4 quirks, as kubectl kustomize shows them
    /// (testdata/kustomize/73-json-patch-library-quirks).
    #[test]
    fn library_quirks() {
        let doc = json!({"a": 1});
        // copy from a missing key, add without a value: null
        assert_eq!(
            run(
                doc.clone(),
                json!([{"op": "copy", "from": "/nope", "path": "/x"}])
            )
            .unwrap()["x"],
            Value::Null
        );
        assert_eq!(
            run(doc.clone(), json!([{"op": "add", "path": "/x"}])).unwrap()["x"],
            Value::Null
        );
        // the first path segment is dropped whatever it is
        assert_eq!(
            run(
                doc.clone(),
                json!([{"op": "add", "path": "spec/x", "value": 1}])
            )
            .unwrap()["x"],
            json!(1)
        );
        assert!(
            run(doc.clone(), json!([{"op": "add", "path": "", "value": 1}]))
                .unwrap_err()
                .contains("doc is missing path: \"\"")
        );
        // numbers compare as float64
        assert!(run(doc, json!([{"op": "test", "path": "/a", "value": 1.0}])).is_ok());
    }
}
