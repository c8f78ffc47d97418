//! The values templates work on, with the distinctions Go's reflection makes: an invalid value
//! (`<no value>`: a missing map key), a nil interface, bool, int64, float64 (YAML values files
//! give floats, `--set` gives ints), string, list and map (Go maps iterate and print in key
//! order, so a sorted map is exact).

use std::collections::BTreeMap;
use std::sync::Arc;

/// A template value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// Go's invalid `reflect.Value`: a missing key (printed `<no value>`).
    NoValue,
    /// A nil interface (printed `<nil>` by `print`, `<no value>` by an action).
    Nil,
    Bool(bool),
    Int(i64),
    Float(f64),
    String(Arc<str>),
    List(Arc<Vec<Value>>),
    Map(Arc<BTreeMap<String, Value>>),
}

impl Value {
    /// A string value.
    pub fn str(s: impl Into<Arc<str>>) -> Value {
        Value::String(s.into())
    }

    /// A list value.
    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Arc::new(items))
    }

    /// A map value.
    pub fn map(entries: BTreeMap<String, Value>) -> Value {
        Value::Map(Arc::new(entries))
    }

    /// Go's `reflect.Kind` name as `kindOf` prints it.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::NoValue => "invalid",
            Value::Nil => "invalid",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int64",
            Value::Float(_) => "float64",
            Value::String(_) => "string",
            Value::List(_) => "slice",
            Value::Map(_) => "map",
        }
    }

    /// The Go type as `%T` and error messages print it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::NoValue | Value::Nil => "<nil>",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int64",
            Value::Float(_) => "float64",
            Value::String(_) => "string",
            Value::List(_) => "[]interface {}",
            Value::Map(_) => "map[string]interface {}",
        }
    }

    /// text/template's truth: false, 0, "", nil and empty collections are false.
    pub fn truth(&self) -> bool {
        match self {
            Value::NoValue | Value::Nil => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::String(s) => !s.is_empty(),
            Value::List(l) => !l.is_empty(),
            Value::Map(m) => !m.is_empty(),
        }
    }

    /// The string inside, if a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::str(s)
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::str(s)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::Int(i)
    }
}

impl From<f64> for Value {
    fn from(f: f64) -> Value {
        Value::Float(f)
    }
}

impl From<serde_json::Value> for Value {
    /// JSON numbers that are integers become ints, others floats (callers that need Helm's
    /// "every YAML number is a float64" convert before).
    fn from(v: serde_json::Value) -> Value {
        match v {
            serde_json::Value::Null => Value::Nil,
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            serde_json::Value::String(s) => Value::str(s),
            serde_json::Value::Array(items) => {
                Value::list(items.into_iter().map(Value::from).collect())
            }
            serde_json::Value::Object(m) => {
                Value::map(m.into_iter().map(|(k, v)| (k, Value::from(v))).collect())
            }
        }
    }
}
