//! RFC 6902 JSON patches with the behaviour of the library kustomize uses
//! (evanphx/json-patch v4): `add` replaces an existing key, negative array indices count from
//! the end, `-` appends, and its error wording.

use crate::yaml::Span;
use serde_json::Value;

/// One operation.
#[derive(Debug, Clone, PartialEq)]
pub struct Op {
    pub op: String,
    pub path: String,
    pub from: Option<String>,
    pub value: Option<Value>,
    /// Where the operation is written in the patch text (unknown when the text did not say).
    pub span: Span,
    /// `value` as written, with its positions (None when the text did not say).
    pub value_node: Option<crate::yaml::Node>,
    /// `value`'s JSON text as a patch written in JSON has it, whitespace removed (None for a
    /// patch converted from YAML, whose values Go's `json.Marshal` wrote): `test` compares
    /// text, not values.
    pub value_json: Option<String>,
}

/// Why patch text decodes to no list of operations, as Go's `encoding/json` words it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The patch is no list.
    #[error("json: cannot unmarshal object into Go value of type jsonpatch.Patch")]
    NotAList,
    /// An item of the list is no object.
    #[error("json: cannot unmarshal into Go value of type jsonpatch.Operation")]
    NotAnObject { index: usize },
}

/// Why an operation does not apply, in the words of evanphx/json-patch v4.12 (kustomize
/// v5.5.0's): each operation wraps what its container said (`error in remove for path: …`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpError {
    /// `add` or `remove` found no object or array to work in (the path quoted).
    #[error("{op} operation does not apply: doc is missing path: \"{path}\": missing value")]
    MissingPath { op: &'static str, path: String },
    /// `replace`, `move` or `copy` found no object or array for `what` (`path`, `key`,
    /// `from path`, `destination path`).
    #[error("{op} operation does not apply: doc is missing {what}: {path}: missing value")]
    Missing {
        op: &'static str,
        what: &'static str,
        path: String,
    },
    /// `test` found no object or array for its path.
    #[error("test operation does not apply: is missing path: {path}: missing value")]
    TestMissing { path: String },
    /// What the container said, with the operation and the place (`what` is `path` or
    /// `from`; `at` is a path, or for `move` the key of `from`).
    #[error("error in {op} for {what}: '{at}': {error}")]
    In {
        op: &'static str,
        what: &'static str,
        at: String,
        error: Box<OpError>,
    },
    /// `copy` could not add the value it read.
    #[error("error while adding value during copy: {0}")]
    CopyAdd(Box<OpError>),
    /// An object lacks the key to remove.
    #[error("Unable to remove nonexistent key: {key}: missing value")]
    NonexistentKey { key: String },
    /// An array index outside the array (as evanphx prints it: counted from the end for a
    /// negative index it could resolve, as written otherwise).
    #[error("Unable to access invalid index: {index}: invalid index referenced")]
    InvalidIndex { index: i64 },
    /// An array key that is no decimal integer.
    #[error("{0}")]
    NotAnIndex(crate::go::strconv::NumError),
    /// `add` to an array with a key that is neither `-` nor an integer.
    #[error("value was not a proper array index: '{key}': {error}")]
    NotAnAddIndex {
        key: String,
        error: crate::go::strconv::NumError,
    },
    /// `test` found another value (or none).
    #[error("testing value {path} failed: test failed")]
    TestFailed { path: String },
    /// An `op` that RFC 6902 does not define.
    #[error("Unexpected kind: {0}")]
    UnknownOp(String),
    /// kdelta's bound on nesting (see [`MAX_DEPTH`]).
    #[error("the operation at {path} would nest the object {depth} levels deep, over the {MAX_DEPTH}-level limit")]
    TooDeep { path: String, depth: usize },
}

/// An operation of a patch that does not apply: which one (its position in the patch, and
/// where the patch text has it) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{error}")]
pub struct ApplyError {
    /// The operation's position in the patch, from 0.
    pub index: usize,
    /// Where the operation is written in the patch text, when known.
    pub span: Span,
    pub error: OpError,
}

/// Decodes a patch from JSON (or YAML already converted to a JSON value).
pub fn decode(v: &Value) -> Result<Vec<Op>, DecodeError> {
    let Value::Array(items) = v else {
        return Err(DecodeError::NotAList);
    };
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            let obj = item.as_object().ok_or(DecodeError::NotAnObject { index })?;
            let s = |k: &str| obj.get(k).and_then(Value::as_str).map(str::to_string);
            Ok(Op {
                op: s("op").unwrap_or_default(),
                path: s("path").unwrap_or_default(),
                from: s("from"),
                value: obj.get("value").cloned(),
                span: Span::default(),
                value_node: None,
                value_json: None,
            })
        })
        .collect()
}

/// The tokens of a JSON pointer as evanphx reads them: the first part dropped, `~1` and `~0`
/// unescaped.
pub(super) fn pointer_tokens(path: &str) -> impl Iterator<Item = String> + '_ {
    path.split('/').skip(1).map(decode_key)
}

fn decode_key(t: &str) -> String {
    t.replace("~1", "/").replace("~0", "~")
}

/// evanphx `findObject`: the object or array that holds the path's last key, and that key.
/// The path is split at `/` with its first part dropped, whatever it is (`spec/x` means
/// `/x`); a path without `/` has none. Each part on the way must name an object or array
/// (an index counted from the end when negative); a missing key or a null is none.
fn find_object<'a>(doc: &'a mut Value, path: &str) -> Option<(&'a mut Value, String)> {
    let mut parts: Vec<&str> = path.split('/').collect();
    if parts.len() < 2 {
        return None;
    }
    let key = decode_key(parts.pop().expect("two parts or more"));
    // Go decodes only an object or an array as the document; anything else holds no key.
    if !(doc.is_object() || doc.is_array()) {
        return None;
    }
    let mut cur = doc;
    for part in &parts[1..] {
        let part = decode_key(part);
        let next = match cur {
            Value::Object(m) => m.get_mut(&part)?,
            Value::Array(a) => {
                let i = array_index(&part, a.len()).ok()?;
                &mut a[i]
            }
            _ => return None,
        };
        if !(next.is_object() || next.is_array()) {
            return None;
        }
        cur = next;
    }
    Some((cur, key))
}

/// `partialArray.get`'s index: decimal, counted from the end when negative, inside the array.
fn array_index(key: &str, len: usize) -> Result<usize, OpError> {
    let written = crate::go::strconv::atoi(key).map_err(OpError::NotAnIndex)?;
    let len = len as i64;
    let index = if written < 0 {
        if written < -len {
            return Err(OpError::InvalidIndex { index: written });
        }
        written + len
    } else {
        written
    };
    if index >= len {
        return Err(OpError::InvalidIndex { index });
    }
    Ok(index as usize)
}

/// The container's `get`: a key the object lacks reads as null (evanphx's nil node).
fn container_get(con: &Value, key: &str) -> Result<Value, OpError> {
    match con {
        Value::Object(m) => Ok(m.get(key).cloned().unwrap_or(Value::Null)),
        Value::Array(a) => Ok(a[array_index(key, a.len())?].clone()),
        _ => unreachable!("find_object gives objects and arrays"),
    }
}

/// The container's `add`: into an object, a key set; into an array, an item inserted before
/// the index (`-` appends; a negative index counts from the end of the longer array).
fn container_add(con: &mut Value, key: &str, value: Value) -> Result<(), OpError> {
    match con {
        Value::Object(m) => {
            m.insert(key.to_string(), value);
            Ok(())
        }
        Value::Array(a) => {
            if key == "-" {
                a.push(value);
                return Ok(());
            }
            let written =
                crate::go::strconv::atoi(key).map_err(|error| OpError::NotAnAddIndex {
                    key: key.to_string(),
                    error,
                })?;
            let size = a.len() as i64 + 1;
            if written >= size || written < -size {
                return Err(OpError::InvalidIndex { index: written });
            }
            let index = if written < 0 { written + size } else { written };
            a.insert(index as usize, value);
            Ok(())
        }
        _ => unreachable!("find_object gives objects and arrays"),
    }
}

/// The container's `remove`, giving the value removed.
fn container_remove(con: &mut Value, key: &str) -> Result<Value, OpError> {
    match con {
        Value::Object(m) => m.shift_remove(key).ok_or_else(|| OpError::NonexistentKey {
            key: key.to_string(),
        }),
        Value::Array(a) => {
            let written = crate::go::strconv::atoi(key).map_err(OpError::NotAnIndex)?;
            let len = a.len() as i64;
            if written >= len || written < -len {
                return Err(OpError::InvalidIndex { index: written });
            }
            let index = if written < 0 { written + len } else { written };
            Ok(a.remove(index as usize))
        }
        _ => unreachable!("find_object gives objects and arrays"),
    }
}

/// `error in OP for path: 'AT': ERROR`.
fn wrapped<'a>(op: &'static str, at: &'a str) -> impl FnOnce(OpError) -> OpError + 'a {
    move |error| OpError::In {
        op,
        what: "path",
        at: at.to_string(),
        error: Box::new(error),
    }
}

fn add(doc: &mut Value, path: &str, value: Value) -> Result<(), OpError> {
    let (con, key) = find_object(doc, path).ok_or_else(|| OpError::MissingPath {
        op: "add",
        path: path.to_string(),
    })?;
    container_add(con, &key, value).map_err(wrapped("add", path))
}

fn remove(doc: &mut Value, path: &str) -> Result<(), OpError> {
    let (con, key) = find_object(doc, path).ok_or_else(|| OpError::MissingPath {
        op: "remove",
        path: path.to_string(),
    })?;
    container_remove(con, &key).map_err(wrapped("remove", path))?;
    Ok(())
}

/// evanphx v4.12 replaces a key an object lacks (its `get` finds a nil node, no error); an
/// array's index must be inside it.
fn replace(doc: &mut Value, path: &str, value: Value) -> Result<(), OpError> {
    let missing = |what| OpError::Missing {
        op: "replace",
        what,
        path: path.to_string(),
    };
    let (con, key) = find_object(doc, path).ok_or_else(|| missing("path"))?;
    match con {
        Value::Object(m) => {
            m.insert(key, value);
        }
        Value::Array(a) => {
            let i = array_index(&key, a.len()).map_err(|_| missing("key"))?;
            a[i] = value;
        }
        _ => unreachable!("find_object gives objects and arrays"),
    }
    Ok(())
}

/// `move`: the value at `from` removed, then added at `path`; the errors of the removal name
/// `from`'s last key, as evanphx does.
fn move_value(doc: &mut Value, from: &str, path: &str) -> Result<(), OpError> {
    let missing = |what, path: &str| OpError::Missing {
        op: "move",
        what,
        path: path.to_string(),
    };
    let (con, key) = find_object(doc, from).ok_or_else(|| missing("from path", from))?;
    container_get(con, &key).map_err(wrapped("move", &key))?;
    let value = container_remove(con, &key).map_err(wrapped("move", &key))?;
    check_depth(path, &value)?;
    let (con, key) = find_object(doc, path).ok_or_else(|| missing("destination path", path))?;
    container_add(con, &key, value).map_err(wrapped("move", path))
}

fn copy_value(doc: &mut Value, from: &str, path: &str) -> Result<(), OpError> {
    let missing = |what, path: &str| OpError::Missing {
        op: "copy",
        what,
        path: path.to_string(),
    };
    let (con, key) = find_object(doc, from).ok_or_else(|| missing("from path", from))?;
    let value = container_get(con, &key).map_err(|error| OpError::In {
        op: "copy",
        what: "from",
        at: from.to_string(),
        error: Box::new(error),
    })?;
    check_depth(path, &value)?;
    let (con, key) = find_object(doc, path).ok_or_else(|| missing("destination path", path))?;
    container_add(con, &key, value).map_err(|e| OpError::CopyAdd(Box::new(e)))
}

fn test(doc: &mut Value, path: &str, want: Option<&str>) -> Result<(), OpError> {
    let failed = || OpError::TestFailed {
        path: path.to_string(),
    };
    let (con, key) = find_object(doc, path).ok_or_else(|| OpError::TestMissing {
        path: path.to_string(),
    })?;
    let got = container_get(con, &key).map_err(wrapped("test", path))?;
    let equal = match want {
        None => got.is_null(),
        Some(want) => !got.is_null() && same_json(&got, want),
    };
    if equal {
        Ok(())
    } else {
        Err(failed())
    }
}

/// evanphx/json-patch v4's `lazyNode.equal`: objects and arrays item by item, any other value
/// by its JSON text, the object's as Go's `json.Marshal` writes it (so `"a&b"` is
/// `"a\u0026b"`, `1.0` is `1`) against the patch's (`want`, compact JSON). A null item is
/// equal to nothing (the library dereferences it and panics).
fn same_json(got: &Value, want: &str) -> bool {
    use serde_json::value::RawValue;
    type Item = Option<Box<RawValue>>;
    let same_item = |got: &Value, want: &Item| match want {
        Some(want) if !got.is_null() => same_json(got, want.get()),
        _ => false,
    };
    match got {
        Value::Object(m) => {
            let Ok(w) = serde_json::from_str::<std::collections::HashMap<String, Item>>(want)
            else {
                return false;
            };
            m.len() == w.len()
                && m.iter().all(|(k, v)| match w.get(k) {
                    None => false,
                    Some(None) => v.is_null(),
                    Some(want) => same_item(v, want),
                })
        }
        Value::Array(items) => {
            let Ok(w) = serde_json::from_str::<Vec<Item>>(want) else {
                return false;
            };
            items.len() == w.len() && items.iter().zip(&w).all(|(v, w)| same_item(v, w))
        }
        scalar => crate::kustomize::hash::go_json(scalar) == want,
    }
}

/// Applies every operation in order.
pub fn apply(doc: &mut Value, ops: &[Op]) -> Result<(), ApplyError> {
    for (index, op) in ops.iter().enumerate() {
        apply_op(doc, op).map_err(|error| ApplyError {
            index,
            span: op.span,
            error,
        })?;
    }
    Ok(())
}

fn apply_op(doc: &mut Value, op: &Op) -> Result<(), OpError> {
    // An operation without `value` writes null (evanphx's nil node).
    let value = || op.value.clone().unwrap_or(Value::Null);
    let from = || op.from.clone().unwrap_or_default();
    match op.op.as_str() {
        "add" => {
            let value = value();
            check_depth(&op.path, &value)?;
            add(doc, &op.path, value)
        }
        "remove" => remove(doc, &op.path),
        "replace" => {
            let value = value();
            check_depth(&op.path, &value)?;
            replace(doc, &op.path, value)
        }
        "move" => move_value(doc, &from(), &op.path),
        "copy" => copy_value(doc, &from(), &op.path),
        "test" => {
            let text = match (&op.value_json, &op.value) {
                (Some(text), _) => Some(text.clone()),
                (None, Some(v)) => Some(crate::kustomize::hash::go_json(v)),
                (None, None) => None,
            };
            test(doc, &op.path, text.as_deref().filter(|t| *t != "null"))
        }
        other => Err(OpError::UnknownOp(other.to_string())),
    }
}

/// Deepest nesting a JSON patch may build. Each operation can nest a value (itself up to the
/// parser's 1,000 levels) under the deepest point of the object, so without a bound a few
/// hundred operations would build a tree too deep to walk recursively.
const MAX_DEPTH: usize = 2000;

/// Fails when writing `value` at `path` would nest the object deeper than [`MAX_DEPTH`].
fn check_depth(path: &str, value: &Value) -> Result<(), OpError> {
    let depth = path.matches('/').count() + value_depth(value);
    if depth > MAX_DEPTH {
        return Err(OpError::TooDeep {
            path: path.to_string(),
            depth,
        });
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
        let ops = decode(&ops).map_err(|e| e.to_string())?;
        apply(&mut d, &ops).map_err(|e| e.to_string())?;
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

    /// Each container error wrapped by its operation, as kubectl kustomize prints them
    /// (testdata/kustomize/168 to 173 pin some of them).
    #[test]
    fn errors_are_worded_as_evanphx_v4_12() {
        let doc = json!({"data": {"a": "b"}, "l": [1, 2]});
        let cases = [
            (json!({"op": "remove", "path": "/l/5"}), "error in remove for path: '/l/5': Unable to access invalid index: 5: invalid index referenced"),
            (json!({"op": "remove", "path": "/l/-3"}), "error in remove for path: '/l/-3': Unable to access invalid index: -3: invalid index referenced"),
            (json!({"op": "remove", "path": "/l/-"}), "error in remove for path: '/l/-': strconv.Atoi: parsing \"-\": invalid syntax"),
            (json!({"op": "add", "path": "/l/x", "value": 1}), "error in add for path: '/l/x': value was not a proper array index: 'x': strconv.Atoi: parsing \"x\": invalid syntax"),
            (json!({"op": "add", "path": "/l/-4", "value": 1}), "error in add for path: '/l/-4': Unable to access invalid index: -4: invalid index referenced"),
            (json!({"op": "move", "from": "/nope/x", "path": "/q"}), "move operation does not apply: doc is missing from path: /nope/x: missing value"),
            (json!({"op": "move", "from": "/l/9", "path": "/q"}), "error in move for path: '9': Unable to access invalid index: 9: invalid index referenced"),
            (json!({"op": "copy", "from": "/l/7", "path": "/q"}), "error in copy for from: '/l/7': Unable to access invalid index: 7: invalid index referenced"),
            (json!({"op": "test", "path": "/l/9", "value": 1}), "error in test for path: '/l/9': Unable to access invalid index: 9: invalid index referenced"),
            (json!({"op": "replace", "path": "/data/a/b", "value": 1}), "replace operation does not apply: doc is missing path: /data/a/b: missing value"),
        ];
        for (op, want) in cases {
            assert_eq!(run(doc.clone(), json!([op])).unwrap_err(), want, "{op}");
        }
        // A document that is no object or array holds nothing (no panic).
        assert_eq!(
            run(
                json!("text"),
                json!([{"op": "add", "path": "/x", "value": 1}])
            )
            .unwrap_err(),
            "add operation does not apply: doc is missing path: \"/x\": missing value"
        );
        // Negative indices count from the end, through the path too; `+1` and `01` are
        // decimal for Go's Atoi.
        let ok = |op: Value| run(doc.clone(), json!([op])).unwrap();
        assert_eq!(
            ok(json!({"op": "remove", "path": "/l/-1"}))["l"],
            json!([1])
        );
        assert_eq!(
            ok(json!({"op": "add", "path": "/l/-3", "value": 0}))["l"],
            json!([0, 1, 2])
        );
        assert_eq!(
            ok(json!({"op": "add", "path": "/l/+1", "value": 9}))["l"],
            json!([1, 9, 2])
        );
        assert_eq!(
            ok(json!({"op": "replace", "path": "/l/-1", "value": 7}))["l"],
            json!([1, 7])
        );
        let nested = json!({"l": [{"a": 1}]});
        assert_eq!(
            run(
                nested,
                json!([{"op": "add", "path": "/l/-1/b", "value": 2}])
            )
            .unwrap()["l"],
            json!([{"a": 1, "b": 2}])
        );
    }

    /// The failing operation is named by its position and span; the text is evanphx's.
    #[test]
    fn a_failed_operation_says_which_and_why() {
        let mut ops = decode(&json!([
            {"op": "add", "path": "/a", "value": 1},
            {"op": "move", "from": "/nope", "path": "/b"},
        ]))
        .unwrap();
        ops[1].span = Span::new(4, 3);
        let e = apply(&mut json!({}), &ops).unwrap_err();
        assert_eq!((e.index, e.span), (1, Span::new(4, 3)));
        assert_eq!(
            e.error,
            OpError::In {
                op: "move",
                what: "path",
                at: "nope".into(),
                error: Box::new(OpError::NonexistentKey { key: "nope".into() }),
            }
        );
        assert_eq!(
            e.to_string(),
            "error in move for path: 'nope': Unable to remove nonexistent key: nope: missing value"
        );
        let e = apply(
            &mut json!({"l": [1]}),
            &decode(&json!([{"op": "replace", "path": "/l/3", "value": 1}])).unwrap(),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "replace operation does not apply: doc is missing key: /l/3: missing value"
        );
        assert_eq!(
            decode(&json!([1])).unwrap_err(),
            DecodeError::NotAnObject { index: 0 }
        );
    }
}
