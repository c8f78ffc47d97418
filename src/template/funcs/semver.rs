//! sprig's `semver` object (`*semver.Version` and its methods) on the crate's Masterminds
//! port ([`crate::semver`]).

use super::super::value::{Object, ObjectRef, Value};
use crate::semver::Version;
use std::cmp::Ordering;
use std::sync::Arc;

/// The `*semver.Version` that sprig's `semver` returns, with its methods.
#[derive(Debug, Clone)]
pub struct SemverObject {
    pub version: Version,
    pub metadata: String,
    pub original: String,
}

impl SemverObject {
    /// semver.NewVersion as an object.
    pub fn parse(text: &str) -> Result<SemverObject, String> {
        let version = Version::parse(text).map_err(|e| e.to_string())?;
        let metadata = text
            .split_once('+')
            .map(|(_, m)| m.to_string())
            .unwrap_or_default();
        Ok(SemverObject {
            version,
            metadata,
            original: text.to_string(),
        })
    }

    fn with(&self, version: Version) -> Value {
        let obj = SemverObject {
            original: String::new(),
            metadata: String::new(),
            version,
        };
        let original = obj.text();
        Value::Object(ObjectRef(Arc::new(SemverObject { original, ..obj })))
    }
}

impl Object for SemverObject {
    fn type_name(&self) -> &'static str {
        "*semver.Version"
    }

    fn kind_name(&self) -> &'static str {
        "ptr"
    }

    fn text(&self) -> String {
        let v = &self.version;
        let mut s = format!("{}.{}.{}", v.major, v.minor, v.patch);
        if !v.pre.is_empty() {
            s.push('-');
            s.push_str(&v.pre.join("."));
        }
        if !self.metadata.is_empty() {
            s.push('+');
            s.push_str(&self.metadata);
        }
        s
    }

    fn call(&self, method: &str, args: &[Value]) -> Option<Result<Value, String>> {
        let v = &self.version;
        let other = || -> Result<Version, String> {
            match args.first() {
                Some(Value::Object(o)) if o.0.type_name() == "*semver.Version" => {
                    Version::parse(&o.0.text()).map_err(|e| e.to_string())
                }
                Some(x) => Err(format!(
                    "wrong type for value; expected *semver.Version; got {}",
                    x.type_name()
                )),
                None => Err(format!("wrong number of args for {method}: want 1 got 0")),
            }
        };
        Some(match method {
            "Major" => Ok(Value::Uint64(v.major)),
            "Minor" => Ok(Value::Uint64(v.minor)),
            "Patch" => Ok(Value::Uint64(v.patch)),
            "Prerelease" => Ok(Value::str(v.pre.join("."))),
            "Metadata" => Ok(Value::str(self.metadata.as_str())),
            "Original" => Ok(Value::str(self.original.as_str())),
            "String" => Ok(Value::str(self.text())),
            "Compare" => other().map(|o| {
                Value::Int(match v.compare(&o) {
                    Ordering::Less => -1,
                    Ordering::Equal => 0,
                    Ordering::Greater => 1,
                })
            }),
            "LessThan" => other().map(|o| Value::Bool(v.compare(&o) == Ordering::Less)),
            "GreaterThan" => other().map(|o| Value::Bool(v.compare(&o) == Ordering::Greater)),
            "Equal" => other().map(|o| Value::Bool(v.compare(&o) == Ordering::Equal)),
            "IncPatch" => Ok(self.with(if v.pre.is_empty() {
                Version {
                    patch: v.patch + 1,
                    pre: Vec::new(),
                    ..v.clone()
                }
            } else {
                Version {
                    pre: Vec::new(),
                    ..v.clone()
                }
            })),
            "IncMinor" => Ok(self.with(Version {
                minor: v.minor + 1,
                patch: 0,
                pre: Vec::new(),
                ..v.clone()
            })),
            "IncMajor" => Ok(self.with(Version {
                major: v.major + 1,
                minor: 0,
                patch: 0,
                pre: Vec::new(),
            })),
            _ => return None,
        })
    }
}
