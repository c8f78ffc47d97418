//! sprig's `semver` object (`*semver.Version` and its methods) on the crate's Masterminds
//! port ([`crate::semver`]).

use super::super::bytes::GoBytes;
use super::super::value::{MethodSig, Object, ObjectRef, Value};
use super::super::Param;
use crate::semver::Version;
use std::cmp::Ordering;
use std::sync::Arc;

/// The `*semver.Version` that sprig's `semver` returns, with its methods; the methods that
/// make a new version (`IncMajor`, `SetPrerelease`) return a `semver.Version` value.
#[derive(Debug, Clone)]
pub struct SemverObject {
    pub version: Version,
    pub metadata: String,
    pub original: String,
    pub by_value: bool,
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
            by_value: false,
        })
    }

    /// A new `semver.Version` (an `Inc…` method's: no metadata).
    fn with(&self, version: Version) -> Value {
        self.with_metadata(version, String::new())
    }

    /// A new `semver.Version` whose original is its text, after the `v` this one's had.
    fn with_metadata(&self, version: Version, metadata: String) -> Value {
        let prefix = self.v_prefix();
        let obj = SemverObject {
            original: String::new(),
            metadata,
            version,
            by_value: true,
        };
        let original = format!("{prefix}{}", obj.text());
        Value::Object(ObjectRef(Arc::new(SemverObject { original, ..obj })))
    }

    /// `originalVPrefix`.
    fn v_prefix(&self) -> &'static str {
        if self.original.starts_with(['v', 'V']) {
            "v"
        } else {
            ""
        }
    }
}

/// Masterminds' `allowed` characters of prerelease and metadata parts.
fn allowed(part: &str) -> bool {
    part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// `validatePrerelease`: empty parts pass, a number may not start with 0.
fn check_prerelease(pre: &str) -> Result<(), String> {
    for part in pre.split('.') {
        if part.bytes().all(|b| b.is_ascii_digit()) {
            if part.len() > 1 && part.starts_with('0') {
                return Err("Version segment starts with 0".into());
            }
        } else if !allowed(part) {
            return Err("Invalid Prerelease string".into());
        }
    }
    Ok(())
}

/// A `semver.Version` value is not addressable: its pointer methods cannot be called.
const POINTER_METHODS: &[&str] = &[
    "Original",
    "Compare",
    "LessThan",
    "LessThanEqual",
    "GreaterThan",
    "GreaterThanEqual",
    "Equal",
];

impl Object for SemverObject {
    fn type_name(&self) -> &'static str {
        if self.by_value {
            "semver.Version"
        } else {
            "*semver.Version"
        }
    }

    fn kind_name(&self) -> &'static str {
        if self.by_value {
            "struct"
        } else {
            "ptr"
        }
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

    /// The struct's unexported fields, the numbers in hex as `%#v` writes a uint64.
    fn go_syntax(&self) -> Option<String> {
        let v = &self.version;
        let quote = crate::template::fmt::go_quote;
        Some(format!(
            "{}semver.Version{{major:{:#x}, minor:{:#x}, patch:{:#x}, pre:{}, metadata:{}, original:{}}}",
            if self.by_value { "" } else { "&" },
            v.major,
            v.minor,
            v.patch,
            quote(&v.pre.join(".")),
            quote(&self.metadata),
            quote(&self.original)
        ))
    }

    fn signature(&self, method: &str) -> Option<MethodSig> {
        if self.by_value && POINTER_METHODS.contains(&method) {
            return None;
        }
        Some(MethodSig::Params(match method {
            "Major" | "Minor" | "Patch" | "Prerelease" | "Metadata" | "Original" | "String"
            | "Value" | "MarshalText" | "MarshalJSON" | "IncPatch" | "IncMinor" | "IncMajor" => &[],
            "SetPrerelease" | "SetMetadata" => &[Param::String],
            "Compare" | "LessThan" | "LessThanEqual" | "GreaterThan" | "GreaterThanEqual"
            | "Equal" => &[Param::Object("*semver.Version")],
            _ => return None,
        }))
    }

    fn call(&self, method: &str, args: &[Value]) -> Option<Result<Value, String>> {
        let v = &self.version;
        // The executor has typed the argument: a `*semver.Version`, or a nil one.
        let other = || -> Result<Version, String> {
            match args.first().and_then(Value::as_object::<SemverObject>) {
                Some(o) => Ok(o.version.clone()),
                None => {
                    Err("runtime error: invalid memory address or nil pointer dereference".into())
                }
            }
        };
        if self.by_value && POINTER_METHODS.contains(&method) {
            return None;
        }
        let ordering = || other().map(|o| v.compare(&o));
        Some(match method {
            "Major" => Ok(Value::Uint64(v.major)),
            "Minor" => Ok(Value::Uint64(v.minor)),
            "Patch" => Ok(Value::Uint64(v.patch)),
            "Prerelease" => Ok(Value::str(v.pre.join("."))),
            "Metadata" => Ok(Value::str(self.metadata.as_str())),
            "Original" => Ok(Value::str(self.original.as_str())),
            "String" | "Value" => Ok(Value::str(self.text())),
            "MarshalText" => Ok(GoBytes::value(Arc::from(self.text()))),
            // `json.Marshal(v.String())`.
            "MarshalJSON" => super::json::marshal(&Value::str(self.text()), true, None)
                .map(|json| GoBytes::value(Arc::from(json))),
            "SetPrerelease" | "SetMetadata" => {
                let Some(text) = args.first().and_then(Value::as_str) else {
                    return Some(Err(format!(
                        "wrong number of args for {method}: want 1 got {}",
                        args.len()
                    )));
                };
                let (mut version, mut metadata) = (v.clone(), self.metadata.clone());
                if method == "SetPrerelease" {
                    if let Err(e) = check_prerelease(text) {
                        return Some(Err(e));
                    }
                    version.pre = if text.is_empty() {
                        Vec::new()
                    } else {
                        text.split('.').map(str::to_string).collect()
                    };
                } else {
                    if !text.is_empty() && !text.split('.').all(allowed) {
                        return Some(Err("Invalid Metadata string".into()));
                    }
                    metadata = text.to_string();
                }
                Ok(self.with_metadata(version, metadata))
            }
            "Compare" => ordering().map(|o| {
                Value::Int(match o {
                    Ordering::Less => -1,
                    Ordering::Equal => 0,
                    Ordering::Greater => 1,
                })
            }),
            "LessThan" => ordering().map(|o| Value::Bool(o.is_lt())),
            "LessThanEqual" => ordering().map(|o| Value::Bool(o.is_le())),
            "GreaterThan" => ordering().map(|o| Value::Bool(o.is_gt())),
            "GreaterThanEqual" => ordering().map(|o| Value::Bool(o.is_ge())),
            "Equal" => ordering().map(|o| Value::Bool(o.is_eq())),
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
