//! Go's `[]byte`, as Helm hands it to templates: `.Files.GetBytes`, and the values of `.Files`
//! and of a `.Files.Glob` (`engine.files` is a `map[string][]byte`). It is a slice, not a
//! string: an action prints its numbers (`[97 98]`), `len` and `index` see bytes, a function
//! taking a string refuses it (`wrong type for value; expected string; got []uint8`), and
//! `encoding/json` writes it in base64; `toString`, `quote` and printf's `%s`, `%q`, `%x` read
//! it as text.

use super::gostr;
use super::value::{Object, ObjectRef, Value};
use std::sync::Arc;

/// A `[]byte`: its bytes kept as a Go string (see `gostr`), so that `.Files` shares the text
/// its `Get` returns; a nil slice (a missing key of `.Files`) is told from an empty one, as
/// `deepEqual` and JSON (`null`) tell them.
#[derive(Debug)]
pub struct GoBytes {
    text: Arc<str>,
    nil: bool,
}

impl GoBytes {
    /// The `[]byte` value holding the bytes of the Go string `text`.
    pub fn value(text: Arc<str>) -> Value {
        Value::Object(ObjectRef(Arc::new(GoBytes { text, nil: false })))
    }

    /// A nil `[]byte`.
    pub fn nil() -> Value {
        Value::Object(ObjectRef(Arc::new(GoBytes {
            text: Arc::from(""),
            nil: true,
        })))
    }
}

impl Object for GoBytes {
    fn type_name(&self) -> &'static str {
        "[]uint8"
    }

    fn kind_name(&self) -> &'static str {
        "slice"
    }

    fn call(&self, _: &str, _: &[Value]) -> Option<Result<Value, String>> {
        None
    }

    /// `%v`: the numbers of the bytes, `[104 105]`.
    fn text(&self) -> String {
        let bytes = gostr::to_bytes(&self.text);
        let mut out = String::with_capacity(2 + 4 * bytes.len());
        out.push('[');
        for (i, b) in bytes.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(&b.to_string());
        }
        out.push(']');
        out
    }

    /// Each byte, a `uint8`.
    fn items(&self) -> Option<Vec<Value>> {
        Some(
            gostr::to_bytes(&self.text)
                .iter()
                .map(|&b| Value::Uint8(b))
                .collect(),
        )
    }

    fn slice_len(&self) -> Option<usize> {
        Some(gostr::to_bytes(&self.text).len())
    }

    fn slice_is_nil(&self) -> bool {
        self.nil
    }

    fn bytes(&self) -> Option<&Arc<str>> {
        Some(&self.text)
    }
}
