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

fn tokens(path: &str) -> Result<Vec<String>, String> {
    if path.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = path.strip_prefix('/') else {
        return Err(format!("invalid path {path:?}: must start with '/'"));
    };
    Ok(rest
        .split('/')
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

fn get(doc: &Value, path: &str) -> Result<Value, String> {
    let toks = tokens(path)?;
    let mut cur = doc;
    for t in &toks {
        cur = match cur {
            Value::Object(m) => m.get(t),
            Value::Array(a) => t.parse::<usize>().ok().and_then(|i| a.get(i)),
            _ => None,
        }
        .ok_or_else(|| format!("doc is missing path: \"{path}\": missing value"))?;
    }
    Ok(cur.clone())
}

fn add(doc: &mut Value, path: &str, value: Value) -> Result<(), String> {
    let toks = tokens(path)?;
    let Some((last, head)) = toks.split_last() else {
        *doc = value;
        return Ok(());
    };
    match parent(doc, head, path, "add")? {
        Value::Object(m) => {
            m.insert(last.clone(), value);
            Ok(())
        }
        Value::Array(a) => {
            let i = index(last, a.len(), true, path)?;
            a.insert(i, value);
            Ok(())
        }
        _ => Err(format!(
            "add operation does not apply: doc is missing path: \"{path}\": missing value"
        )),
    }
}

fn remove(doc: &mut Value, path: &str) -> Result<Value, String> {
    let toks = tokens(path)?;
    let Some((last, head)) = toks.split_last() else {
        return Err("remove operation does not apply: cannot remove the document root".into());
    };
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
    let toks = tokens(path)?;
    let Some((last, head)) = toks.split_last() else {
        *doc = value;
        return Ok(());
    };
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
        let need_value = || {
            op.value
                .clone()
                .ok_or_else(|| format!("{} operation: missing value", op.op))
        };
        match op.op.as_str() {
            "add" => add(doc, &op.path, need_value()?)?,
            "remove" => {
                remove(doc, &op.path)?;
            }
            "replace" => replace(doc, &op.path, need_value()?)?,
            "move" => {
                let from = op.from.clone().unwrap_or_default();
                let v = remove(doc, &from)
                    .map_err(|e| format!("move operation does not apply: {e}"))?;
                add(doc, &op.path, v)?;
            }
            "copy" => {
                let from = op.from.clone().unwrap_or_default();
                let v =
                    get(doc, &from).map_err(|e| format!("copy operation does not apply: {e}"))?;
                add(doc, &op.path, v)?;
            }
            "test" => {
                let want = op.value.clone().unwrap_or(Value::Null);
                let got = get(doc, &op.path).ok();
                let equal = match &got {
                    Some(g) => g == &want,
                    None => want.is_null(),
                };
                if !equal {
                    return Err(format!("testing value {} failed: test failed", op.path));
                }
            }
            other => return Err(format!("Unexpected kind: {other}")),
        }
    }
    Ok(())
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
            json!([1, 2, 9, 3])
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
}
