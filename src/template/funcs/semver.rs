//! `semverCompare`, with the rules of Masterminds/semver v3 (which sprig uses and Helm charts
//! call with `.Capabilities.KubeVersion`): loose versions (`v1.2`, `01.2.3`), constraints with
//! `=`, `!=`, `>`, `<`, `>=`, `<=`, `~`, `~>`, `^`, wildcards (`x`, `X`, `*`), hyphen ranges,
//! `,` or space for "and", `||` for "or"; a prerelease only matches a constraint that has one.

use super::super::value::{Object, ObjectRef, Value};
use std::cmp::Ordering;
use std::sync::Arc;

/// A version: numbers and prerelease identifiers (build metadata never counts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: Vec<String>,
}

pub const INVALID: &str = "Invalid Semantic Version";

impl Version {
    /// semver.NewVersion.
    pub fn parse(text: &str) -> Result<Version, String> {
        let t = text.strip_prefix('v').unwrap_or(text);
        let (t, _meta) = match t.split_once('+') {
            Some((v, m)) if valid_idents(m) => (v, Some(m)),
            Some(_) => return Err(INVALID.into()),
            None => (t, None),
        };
        let (nums, pre) = match t.split_once('-') {
            Some((n, p)) if valid_idents(p) => (n, p.split('.').map(String::from).collect()),
            Some(_) => return Err(INVALID.into()),
            None => (t, Vec::new()),
        };
        let parts: Vec<&str> = nums.split('.').collect();
        if parts.is_empty() || parts.len() > 3 {
            return Err(INVALID.into());
        }
        let mut n = [0u64; 3];
        for (i, p) in parts.iter().enumerate() {
            if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
                return Err(INVALID.into());
            }
            n[i] = p.parse().map_err(|_| INVALID.to_string())?;
        }
        Ok(Version {
            major: n[0],
            minor: n[1],
            patch: n[2],
            pre,
        })
    }

    fn cmp_numbers(&self, o: &Version) -> Ordering {
        (self.major, self.minor, self.patch).cmp(&(o.major, o.minor, o.patch))
    }

    /// Semantic version precedence.
    pub fn compare(&self, o: &Version) -> Ordering {
        self.cmp_numbers(o)
            .then_with(|| match (self.pre.is_empty(), o.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => {
                    for (a, b) in self.pre.iter().zip(&o.pre) {
                        let ord = match (a.parse::<u64>(), b.parse::<u64>()) {
                            (Ok(x), Ok(y)) => x.cmp(&y),
                            (Ok(_), Err(_)) => Ordering::Less,
                            (Err(_), Ok(_)) => Ordering::Greater,
                            (Err(_), Err(_)) => a.cmp(b),
                        };
                        if ord != Ordering::Equal {
                            return ord;
                        }
                    }
                    self.pre.len().cmp(&o.pre.len())
                }
            })
    }
}

fn valid_idents(s: &str) -> bool {
    !s.is_empty()
        && s.split('.')
            .all(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
}

/// One comparison of a constraint: the operator and a version with its wildcard depth (how
/// many of major, minor, patch were given).
struct Term {
    op: &'static str,
    version: Version,
    given: usize,
    has_pre: bool,
}

/// semverCompare: does `version` satisfy `constraint`?
pub fn satisfies(constraint: &str, version: &str) -> Result<bool, String> {
    let groups = parse_constraint(constraint)?;
    let v = Version::parse(version)?;
    Ok(groups.iter().any(|group| group.iter().all(|t| t.check(&v))))
}

fn improper(c: &str) -> String {
    format!("improper constraint: {c}")
}

fn parse_constraint(c: &str) -> Result<Vec<Vec<Term>>, String> {
    let mut groups = Vec::new();
    for alternative in c.split("||") {
        let alt = alternative.trim();
        if alt.is_empty() {
            return Err(improper(c));
        }
        // Hyphen ranges first: `1.2.3 - 1.4.5`.
        let mut terms = Vec::new();
        let normalised = alt.replace(',', " ");
        let words: Vec<&str> = normalised.split_whitespace().collect();
        let mut i = 0;
        while i < words.len() {
            if words.get(i + 1) == Some(&"-") && i + 2 < words.len() {
                terms.push(term(">=", words[i], c)?);
                terms.push(term("<=", words[i + 2], c)?);
                i += 3;
                continue;
            }
            // An operator may stand apart from its version (`>= 1.2`).
            let w = words[i];
            if OPS.contains(&w) && i + 1 < words.len() {
                terms.push(term_with_op(&format!("{w}{}", words[i + 1]), c)?);
                i += 2;
                continue;
            }
            terms.push(term_with_op(w, c)?);
            i += 1;
        }
        groups.push(terms);
    }
    Ok(groups)
}

const OPS: &[&str] = &["!=", ">=", "=>", "<=", "=<", "~>", "~", "^", ">", "<", "="];

fn term_with_op(w: &str, c: &str) -> Result<Term, String> {
    for op in OPS {
        if let Some(rest) = w.strip_prefix(op) {
            let op = match *op {
                "=>" => ">=",
                "=<" => "<=",
                "~>" => "~",
                o => o,
            };
            return term(op, rest, c);
        }
    }
    term("=", w, c)
}

fn term(op: &'static str, text: &str, c: &str) -> Result<Term, String> {
    let text = text.trim();
    let body = text.strip_prefix('v').unwrap_or(text);
    let (nums, rest) = match body.find(['-', '+']) {
        Some(i) => (&body[..i], &body[i..]),
        None => (body, ""),
    };
    let mut given = 0;
    let mut n = [0u64; 3];
    for (i, part) in nums.split('.').enumerate() {
        if i > 2 {
            return Err(improper(c));
        }
        if matches!(part, "x" | "X" | "*") {
            break;
        }
        n[i] = part.parse().map_err(|_| improper(c))?;
        given = i + 1;
    }
    let pre: Vec<String> = rest
        .strip_prefix('-')
        .map(|p| {
            p.split('+')
                .next()
                .unwrap_or("")
                .split('.')
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    Ok(Term {
        op,
        version: Version {
            major: n[0],
            minor: n[1],
            patch: n[2],
            pre: pre.clone(),
        },
        given,
        has_pre: !pre.is_empty(),
    })
}

impl Term {
    fn check(&self, v: &Version) -> bool {
        // A prerelease version only satisfies constraints that name a prerelease.
        if !v.pre.is_empty() && !self.has_pre {
            return false;
        }
        let c = &self.version;
        // The range [lo, hi) a partial version (`1.2`, `1.x`) stands for.
        let upper = |given: usize| -> Option<Version> {
            let bump = |major, minor, patch| Version {
                major,
                minor,
                patch,
                pre: vec!["0".into()],
            };
            match given {
                0 => None,
                1 => Some(bump(c.major + 1, 0, 0)),
                2 => Some(bump(c.major, c.minor + 1, 0)),
                _ => None,
            }
        };
        let ord = v.compare(c);
        match self.op {
            "=" if self.given < 3 => {
                ord != Ordering::Less
                    && upper(self.given).is_none_or(|u| v.compare(&u) == Ordering::Less)
            }
            "=" => ord == Ordering::Equal,
            "!=" if self.given < 3 => {
                !(ord != Ordering::Less
                    && upper(self.given).is_none_or(|u| v.compare(&u) == Ordering::Less))
            }
            "!=" => ord != Ordering::Equal,
            ">" if self.given < 3 => match upper(self.given) {
                Some(u) => v.compare(&u) != Ordering::Less,
                None => false,
            },
            ">" => ord == Ordering::Greater,
            ">=" => ord != Ordering::Less,
            "<" => ord == Ordering::Less,
            "<=" if self.given < 3 => match upper(self.given) {
                Some(u) => v.compare(&u) == Ordering::Less,
                None => true,
            },
            "<=" => ord != Ordering::Greater,
            "~" => {
                let hi = if self.given <= 1 { upper(1) } else { upper(2) };
                ord != Ordering::Less && hi.is_none_or(|u| v.compare(&u) == Ordering::Less)
            }
            "^" => {
                let hi = if c.major > 0 || self.given <= 1 {
                    upper(1)
                } else if c.minor > 0 || self.given == 2 {
                    upper(2)
                } else {
                    Some(Version {
                        major: 0,
                        minor: 0,
                        patch: c.patch + 1,
                        pre: vec!["0".into()],
                    })
                };
                ord != Ordering::Less && hi.is_none_or(|u| v.compare(&u) == Ordering::Less)
            }
            _ => false,
        }
    }
}

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
        let version = Version::parse(text)?;
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
                    Version::parse(&o.0.text())
                }
                Some(x) => Err(format!(
                    "wrong type for value; expected *semver.Version; got {}",
                    x.type_name()
                )),
                None => Err(format!("wrong number of args for {method}: want 1 got 0")),
            }
        };
        Some(match method {
            "Major" => Ok(Value::Int64(v.major as i64)),
            "Minor" => Ok(Value::Int64(v.minor as i64)),
            "Patch" => Ok(Value::Int64(v.patch as i64)),
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
