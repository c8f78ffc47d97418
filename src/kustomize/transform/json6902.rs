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

/// Why an operation does not apply, in evanphx/json-patch v4's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpError {
    /// The path (or its parent) is not in the document.
    #[error("{op} operation does not apply: doc is missing path: \"{path}\": missing value")]
    MissingPath { op: &'static str, path: String },
    /// `replace` in something that is neither object nor array.
    #[error("replace operation does not apply: doc is missing key: {path}: missing value")]
    MissingKey { path: String },
    /// An array index that is no number or outside the array; evanphx names the path only
    /// for an index past the end.
    #[error("Unable to access invalid index: {index}: invalid index referenced{}", in_path(.path))]
    InvalidIndex { index: String, path: Option<String> },
    /// `remove` of a key the object lacks.
    #[error("Unable to remove nonexistent key: {key}: missing value")]
    NonexistentKey { key: String },
    /// `move` whose `from` cannot be removed.
    #[error("move operation does not apply: {0}")]
    Move(Box<OpError>),
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

fn in_path(path: &Option<String>) -> String {
    path.as_ref()
        .map(|p| format!(" (path {p})"))
        .unwrap_or_default()
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
            })
        })
        .collect()
}

fn missing(op: &'static str, path: &str) -> OpError {
    OpError::MissingPath {
        op,
        path: path.to_string(),
    }
}

/// evanphx `findObject`: the path split at `/` with its first part dropped — whatever it is,
/// so `spec/x` means `/x` — and at least one part left (`""` and `x` are missing paths).
fn tokens(path: &str, op: &'static str) -> Result<Vec<String>, OpError> {
    if !path.contains('/') {
        return Err(missing(op, path));
    }
    Ok(pointer_tokens(path).collect())
}

/// The tokens of a JSON pointer as evanphx reads them: the first part dropped, `~1` and `~0`
/// unescaped.
pub(super) fn pointer_tokens(path: &str) -> impl Iterator<Item = String> + '_ {
    path.split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
}

fn parent<'a>(
    doc: &'a mut Value,
    toks: &[String],
    path: &str,
    op: &'static str,
) -> Result<&'a mut Value, OpError> {
    let mut cur = doc;
    for t in toks {
        cur = match cur {
            Value::Object(m) => m.get_mut(t),
            Value::Array(a) => t.parse::<usize>().ok().and_then(move |i| a.get_mut(i)),
            _ => None,
        }
        .ok_or_else(|| missing(op, path))?;
    }
    Ok(cur)
}

fn invalid_index(index: impl ToString, path: Option<&str>) -> OpError {
    OpError::InvalidIndex {
        index: index.to_string(),
        path: path.map(str::to_string),
    }
}

fn index(t: &str, len: usize, allow_end: bool, path: &str) -> Result<usize, OpError> {
    if t == "-" && allow_end {
        return Ok(len);
    }
    let i: i64 = t.parse().map_err(|_| invalid_index(t, None))?;
    let max = if allow_end {
        len as i64
    } else {
        len as i64 - 1
    };
    let i = if i < 0 {
        if -i > len as i64 {
            return Err(invalid_index(i, None));
        }
        i + len as i64
    } else {
        i
    };
    if i > max {
        return Err(invalid_index(i, Some(path)));
    }
    Ok(i as usize)
}

/// The value at `path`; a key missing from an existing object reads as null, as evanphx's
/// `partialDoc.get` returns it.
fn get(doc: &Value, path: &str, op: &'static str) -> Result<Value, OpError> {
    let toks = tokens(path, op)?;
    let (last, head) = toks.split_last().expect("tokens are never empty");
    let missing = || missing(op, path);
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

fn add(doc: &mut Value, path: &str, value: Value) -> Result<(), OpError> {
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
                        return Err(invalid_index(n, None));
                    }
                    (n + size) as usize
                }
                _ => index(last, a.len(), true, path)?,
            };
            a.insert(i, value);
            Ok(())
        }
        _ => Err(missing("add", path)),
    }
}

fn remove(doc: &mut Value, path: &str) -> Result<Value, OpError> {
    let toks = tokens(path, "remove")?;
    let (last, head) = toks.split_last().expect("tokens are never empty");
    match parent(doc, head, path, "remove")? {
        Value::Object(m) => m
            .shift_remove(last)
            .ok_or_else(|| OpError::NonexistentKey { key: last.clone() }),
        Value::Array(a) => {
            let i = index(last, a.len(), false, path)?;
            Ok(a.remove(i))
        }
        _ => Err(missing("remove", path)),
    }
}

fn replace(doc: &mut Value, path: &str, value: Value) -> Result<(), OpError> {
    let toks = tokens(path, "replace")?;
    let (last, head) = toks.split_last().expect("tokens are never empty");
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
        _ => Err(OpError::MissingKey {
            path: path.to_string(),
        }),
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
            let v = remove(doc, &from).map_err(|e| OpError::Move(Box::new(e)))?;
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
                return Err(OpError::TestFailed {
                    path: op.path.clone(),
                });
            }
        }
        other => return Err(OpError::UnknownOp(other.to_string())),
    }
    Ok(())
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
            OpError::Move(Box::new(OpError::NonexistentKey { key: "nope".into() }))
        );
        assert_eq!(
            e.to_string(),
            "move operation does not apply: Unable to remove nonexistent key: nope: missing value"
        );
        let e = apply(
            &mut json!({"l": [1]}),
            &decode(&json!([{"op": "replace", "path": "/l/3", "value": 1}])).unwrap(),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "Unable to access invalid index: 3: invalid index referenced (path /l/3)"
        );
        assert_eq!(
            decode(&json!([1])).unwrap_err(),
            DecodeError::NotAnObject { index: 0 }
        );
    }
}
