//! Masterminds/semver v3.3.0, the version rules of Helm 3.17 (chart versions, dependency and
//! repository constraints), sprig's `semverCompare` and Argo CD's chart revisions: loose
//! versions (`v1.2`, `01.2.3`), constraints with `=`, `!=`, `>`, `<`, `>=`, `<=`, `~`, `~>`,
//! `^`, wildcards (`x`, `X`, `*`), hyphen ranges, `,` or space for "and", `||` for "or"; a
//! prerelease only matches a comparator that names one.

use std::cmp::Ordering;

/// A version: numbers and prerelease identifiers (build metadata never counts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: Vec<String>,
}

/// A version or constraint Masterminds/semver refuses, in its words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SemverError {
    /// `semver.ErrInvalidSemVer`.
    #[error("Invalid Semantic Version")]
    InvalidVersion { text: String },
    /// `semver.ErrSegmentStartsZero`: a numeric prerelease identifier with a leading zero.
    #[error("Version segment starts with 0")]
    SegmentStartsZero,
    /// `NewConstraint`'s error for a constraint it cannot read.
    #[error("improper constraint: {constraint}")]
    ImproperConstraint { constraint: String },
    /// A number beyond 64 bits (`strconv.ParseUint`'s range error).
    #[error("Error parsing version segment: strconv.ParseUint: parsing \"{number}\": value out of range")]
    SegmentOutOfRange { number: String },
    /// `NewConstraint`'s error for a version its pattern takes and `NewVersion` does not.
    #[error("constraint Parser Error")]
    ConstraintParser,
}

impl Version {
    /// semver.NewVersion.
    pub fn parse(text: &str) -> Result<Version, SemverError> {
        let invalid = || SemverError::InvalidVersion {
            text: text.to_string(),
        };
        let t = text.strip_prefix('v').unwrap_or(text);
        let (t, _meta) = match t.split_once('+') {
            Some((v, m)) if valid_idents(m) => (v, Some(m)),
            Some(_) => return Err(invalid()),
            None => (t, None),
        };
        let (nums, pre) = match t.split_once('-') {
            Some((n, p)) if valid_idents(p) => (n, p.split('.').map(String::from).collect()),
            Some(_) => return Err(invalid()),
            None => (t, Vec::<String>::new()),
        };
        let parts: Vec<&str> = nums.split('.').collect();
        if parts.is_empty() || parts.len() > 3 {
            return Err(invalid());
        }
        if parts
            .iter()
            .any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
        {
            return Err(invalid());
        }
        // The numbers are read before the prerelease is checked, as in NewVersion.
        let mut n = [0u64; 3];
        for (i, p) in parts.iter().enumerate() {
            n[i] = p.parse().map_err(|_| SemverError::SegmentOutOfRange {
                number: p.to_string(),
            })?;
        }
        if pre.iter().any(|id| starts_with_zero(id)) {
            return Err(SemverError::SegmentStartsZero);
        }
        Ok(Version {
            major: n[0],
            minor: n[1],
            patch: n[2],
            pre,
        })
    }

    /// `Version.String()` with build metadata `meta` (empty: none): `MAJOR.MINOR.PATCH`,
    /// `-PRE`, `+META`, without the `v` or the zeros it was written with.
    pub fn text_with_metadata(&self, meta: &str) -> String {
        let mut text = format!("{}.{}.{}", self.major, self.minor, self.patch);
        if !self.pre.is_empty() {
            text = format!("{text}-{}", self.pre.join("."));
        }
        if !meta.is_empty() {
            text = format!("{text}+{meta}");
        }
        text
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
                (false, false) => compare_prerelease(&self.pre, &o.pre),
            })
    }
}

/// `comparePrerelease`: identifier by identifier, numbers below words, a shorter list first.
fn compare_prerelease(a: &[String], b: &[String]) -> Ordering {
    for (a, b) in a.iter().zip(b) {
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
    a.len().cmp(&b.len())
}

/// `validatePrerelease`'s refusal: a number identifier with a leading zero (`01`).
fn starts_with_zero(id: &str) -> bool {
    id.len() > 1 && id.starts_with('0') && id.bytes().all(|b| b.is_ascii_digit())
}

fn valid_idents(s: &str) -> bool {
    !s.is_empty()
        && s.split('.')
            .all(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
}

/// One comparison of a constraint (Masterminds' `constraint`): the operator, its version with
/// wildcards as zeros, and which parts were wildcards.
struct Term {
    op: &'static str,
    con: Version,
    /// Some part was a wildcard or missing (`1.2`, `x`).
    dirty: bool,
    /// The minor part was (`1`, `1.x`).
    minor_dirty: bool,
    /// The patch part was (`1.2`, `1.2.x`).
    patch_dirty: bool,
}

/// semverCompare: does `version` satisfy `constraint`?
pub fn satisfies(constraint: &str, version: &str) -> Result<bool, SemverError> {
    let c = Constraint::parse(constraint)?;
    Ok(c.check(&Version::parse(version)?))
}

/// A parsed constraint (`semver.NewConstraint`), checked against many versions.
pub struct Constraint {
    /// Alternatives (`||`), each a list of comparators that must all hold.
    groups: Vec<Vec<Term>>,
}

impl Constraint {
    /// `semver.NewConstraint`: the empty constraint is improper (callers that mean "any",
    /// as Helm's `IndexFile.Get`, pass `*`).
    pub fn parse(text: &str) -> Result<Constraint, SemverError> {
        Ok(Constraint {
            groups: parse_constraint(text)?,
        })
    }

    /// `Constraints.Check`.
    pub fn check(&self, v: &Version) -> bool {
        self.groups
            .iter()
            .any(|group| group.iter().all(|t| t.check(v)))
    }
}

fn improper(c: &str) -> SemverError {
    SemverError::ImproperConstraint {
        constraint: c.to_string(),
    }
}

/// Masterminds' version pattern (`cvRegex`) and its operators, the empty one included.
const CV: &str = r"v?[0-9|xX*]+(?:\.[0-9|xX*]+)?(?:\.[0-9|xX*]+)?(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?";
const OPS_PATTERN: &str = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^";
/// Go's `\s`.
const SPACE: &str = r"[\t\n\f\r ]";

/// `NewConstraint`: hyphen ranges rewritten (`rewriteRange`), then each `||` alternative in
/// turn must match `validConstraintRegex` (or is named in the error) and is read, so that an
/// alternative that cannot be read fails before a later one that is improper.
fn parse_constraint(c: &str) -> Result<Vec<Vec<Term>>, SemverError> {
    use std::sync::LazyLock;
    static RANGE: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(&format!("{SPACE}*({CV}){SPACE}+-{SPACE}+({CV}){SPACE}*"))
            .expect("a valid pattern")
    });
    static VALID: LazyLock<regex::Regex> = LazyLock::new(|| {
        let one = format!("(?:{OPS_PATTERN}){SPACE}*(?:{CV})");
        regex::Regex::new(&format!(
            "^{SPACE}*{one}{SPACE}*(?:(?:{SPACE}+|,{SPACE}*){one}{SPACE}*)*$"
        ))
        .expect("a valid pattern")
    });
    let mut rewritten = c.to_string();
    for m in RANGE.captures_iter(c) {
        let with = format!(">= {}, <= {} ", &m[1], &m[2]);
        rewritten = rewritten.replacen(&m[0], &with, 1);
    }
    let mut groups = Vec::new();
    for alternative in rewritten.split("||") {
        if !VALID.is_match(alternative) {
            return Err(improper(alternative));
        }
        let normalised = alternative.replace(',', " ");
        let words: Vec<&str> = normalised.split_whitespace().collect();
        let mut terms = Vec::new();
        let mut i = 0;
        while i < words.len() {
            // An operator may stand apart from its version (`>= 1.2`).
            let w = words[i];
            if OPS.contains(&w) && i + 1 < words.len() {
                terms.push(term_with_op(&format!("{w}{}", words[i + 1]))?);
                i += 2;
                continue;
            }
            terms.push(term_with_op(w)?);
            i += 1;
        }
        groups.push(terms);
    }
    Ok(groups)
}

const OPS: &[&str] = &["!=", ">=", "=>", "<=", "=<", "~>", "~", "^", ">", "<", "="];

/// One comparison of an alternative that matched the pattern.
fn term_with_op(w: &str) -> Result<Term, SemverError> {
    for op in OPS {
        if let Some(rest) = w.strip_prefix(op) {
            let op = match *op {
                "=>" => ">=",
                "=<" => "<=",
                "~>" => "~",
                o => o,
            };
            return term(op, rest);
        }
    }
    term("=", w)
}

/// A comparison as `parseConstraint` reads it from what the pattern let through: a wildcard
/// or missing part makes it "dirty" and becomes zero (`1.x` is `1.0.0`, minor-dirty); what
/// `NewVersion` then refuses (`|2`, `1x`, a number beyond 64 bits) is its parser error.
fn term(op: &'static str, text: &str) -> Result<Term, SemverError> {
    let text = text.trim();
    let body = text.strip_prefix('v').unwrap_or(text);
    let (nums, rest) = match body.find(['-', '+']) {
        Some(i) => (&body[..i], &body[i..]),
        None => (body, ""),
    };
    let pre = match rest.find('+') {
        Some(i) => &rest[..i],
        None => rest,
    };
    let mut parts = nums.splitn(3, '.');
    let (major, minor, patch) = (parts.next().unwrap_or(""), parts.next(), parts.next());
    let is_x = |part: Option<&str>| part.is_none_or(|p| matches!(p, "x" | "X" | "*"));
    // (the version NewVersion reads, dirty, minor dirty, patch dirty)
    let (version, dirty, minor_dirty, patch_dirty) = if is_x(Some(major)) {
        (format!("0.0.0{pre}"), true, false, false)
    } else if is_x(minor) {
        (format!("{major}.0.0{pre}"), true, true, false)
    } else if is_x(patch) {
        let minor = minor.unwrap_or("");
        (format!("{major}.{minor}.0{pre}"), true, false, true)
    } else {
        (text.to_string(), false, false, false)
    };
    Ok(Term {
        op,
        con: Version::parse(&version).map_err(|_| SemverError::ConstraintParser)?,
        dirty,
        minor_dirty,
        patch_dirty,
    })
}

impl Term {
    /// Masterminds' constraint functions (`constraintTildeOrEqual`, `constraintNotEqual`, …).
    fn check(&self, v: &Version) -> bool {
        let c = &self.con;
        // A prerelease version is refused by a comparison that names none (issue 21 there).
        let refused_prerelease = !v.pre.is_empty() && c.pre.is_empty();
        let ord = v.compare(c);
        match self.op {
            "=" if self.dirty => !refused_prerelease && self.tilde(v, ord),
            "=" => !refused_prerelease && ord == Ordering::Equal,
            "!=" => self.not_equal(v, ord, refused_prerelease),
            ">" if refused_prerelease => false,
            ">" if !self.dirty => ord == Ordering::Greater,
            ">" if v.major != c.major => v.major > c.major,
            ">" if self.minor_dirty => false,
            ">" if self.patch_dirty => v.minor > c.minor,
            ">" => ord == Ordering::Greater,
            "<" => !refused_prerelease && ord == Ordering::Less,
            ">=" => !refused_prerelease && ord != Ordering::Less,
            "<=" if refused_prerelease => false,
            "<=" if !self.dirty => ord != Ordering::Greater,
            "<=" => {
                v.major < c.major
                    || (v.major == c.major && (v.minor <= c.minor || self.minor_dirty))
            }
            "~" => !refused_prerelease && self.tilde(v, ord),
            "^" => !refused_prerelease && self.caret(v, ord),
            _ => false,
        }
    }

    /// `constraintTilde`, its prerelease check done: `~1.2.3` is `>=1.2.3 <1.3.0`, `~1` and
    /// `~1.x` `>=1.0.0 <2.0.0`, `~0.0.0` and `~x` anything.
    fn tilde(&self, v: &Version, ord: Ordering) -> bool {
        let c = &self.con;
        if ord == Ordering::Less {
            return false;
        }
        if (c.major, c.minor, c.patch) == (0, 0, 0) && !self.minor_dirty && !self.patch_dirty {
            return true;
        }
        v.major == c.major && (v.minor == c.minor || self.minor_dirty)
    }

    /// `constraintCaret`, its prerelease check done: within the major version when it is
    /// above zero, else within the minor, else the patch.
    fn caret(&self, v: &Version, ord: Ordering) -> bool {
        let c = &self.con;
        if ord == Ordering::Less {
            return false;
        }
        if c.major > 0 || self.minor_dirty {
            return v.major == c.major;
        }
        if v.major > 0 {
            return false;
        }
        if c.minor > 0 || self.patch_dirty {
            return v.minor == c.minor;
        }
        v.minor == 0 && v.patch == c.patch
    }

    /// `constraintNotEqual`: a dirty `!=` excludes what its wildcards cover (`!=1.x` the
    /// whole major); an exact one the version alone, prereleases included.
    fn not_equal(&self, v: &Version, ord: Ordering, refused_prerelease: bool) -> bool {
        let c = &self.con;
        if self.dirty {
            if refused_prerelease {
                return false;
            }
            if c.major != v.major {
                return true;
            }
            if self.minor_dirty {
                return false;
            }
            if c.minor != v.minor {
                return true;
            }
            if self.patch_dirty {
                return (!v.pre.is_empty() || !c.pre.is_empty())
                    && compare_prerelease(&v.pre, &c.pre) != Ordering::Equal;
            }
            if c.patch != v.patch {
                return true;
            }
        }
        ord != Ordering::Equal
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `validatePrerelease`: a number identifier of the prerelease has no leading zero; build
    /// metadata may have one.
    #[test]
    fn a_prerelease_number_has_no_leading_zero() {
        for text in ["1.2.3-alpha.01", "1.0.0-01"] {
            assert_eq!(
                Version::parse(text),
                Err(SemverError::SegmentStartsZero),
                "{text}"
            );
        }
        for text in ["1.2.3-alpha.0", "1.2.3-0a", "1.0.0+01", "1.0.0-alpha.10"] {
            assert!(Version::parse(text).is_ok(), "{text}");
        }
    }

    /// The vectors of Masterminds/semver v3.3.0's `constraints_test.go` (TestConstraintCheck,
    /// TestConstraintsCheck, TestConstraintsValidate), deduplicated.
    const MASTERMINDS: &[(&str, &str, bool)] = &[
        ("=2.0.0", "1.2.3", false),
        ("=2.0.0", "2.0.0", true),
        ("=2.0", "1.2.3", false),
        ("=2.0", "2.0.0", true),
        ("=2.0", "2.0.1", true),
        ("4.1", "4.1.0", true),
        ("!=4.1.0", "4.1.0", false),
        ("!=4.1.0", "4.1.1", true),
        ("!=4.1", "4.1.0", false),
        ("!=4.1", "4.1.1", false),
        ("!=4.1", "5.1.0-alpha.1", false),
        ("!=4.1-alpha", "4.1.0", true),
        ("!=4.1", "5.1.0", true),
        ("<11", "0.1.0", true),
        ("<11", "11.1.0", false),
        ("<1.1", "0.1.0", true),
        ("<1.1", "1.1.0", false),
        ("<1.1", "1.1.1", false),
        ("<=11", "1.2.3", true),
        ("<=11", "12.2.3", false),
        ("<=11", "11.2.3", true),
        ("<=1.1", "1.2.3", false),
        ("<=1.1", "0.1.0", true),
        ("<=1.1", "1.1.0", true),
        ("<=1.1", "1.1.1", true),
        (">1.1", "4.1.0", true),
        (">1.1", "1.1.0", false),
        (">0", "0", false),
        (">0", "1", true),
        (">0", "0.0.1-alpha", false),
        (">0.0", "0.0.1-alpha", false),
        (">0-0", "0.0.1-alpha", false),
        (">0.0-0", "0.0.1-alpha", false),
        (">0", "0.0.0-alpha", false),
        (">0-0", "0.0.0-alpha", false),
        (">0.0.0-0", "0.0.0-alpha", true),
        (">1.2.3-alpha.1", "1.2.3-alpha.2", true),
        (">1.2.3-alpha.1", "1.3.3-alpha.2", true),
        (">11", "11.1.0", false),
        (">11.1", "11.1.0", false),
        (">11.1", "11.1.1", false),
        (">11.1", "11.2.1", true),
        (">=11", "11.1.2", true),
        (">=11.1", "11.1.2", true),
        (">=11.1", "11.0.2", false),
        (">=1.1", "4.1.0", true),
        (">=1.1", "1.1.0", true),
        (">=1.1", "0.0.9", false),
        (">=0", "0.0.1-alpha", false),
        (">=0.0", "0.0.1-alpha", false),
        (">=0-0", "0.0.1-alpha", true),
        (">=0.0-0", "0.0.1-alpha", true),
        (">=0", "0.0.0-alpha", false),
        (">=0-0", "0.0.0-alpha", true),
        (">=0.0.0-0", "0.0.0-alpha", true),
        (">=0.0.0-0", "1.2.3", true),
        (">=0.0.0-0", "3.4.5-beta.1", true),
        ("<0", "0.0.0-alpha", false),
        ("<0-z", "0.0.0-alpha", true),
        (">=0", "0", true),
        ("=0", "1", false),
        ("*", "1", true),
        ("*", "4.5.6", true),
        ("*", "1.2.3-alpha.1", false),
        ("*-0", "1.2.3-alpha.1", true),
        ("2.*", "1", false),
        ("2.*", "3.4.5", false),
        ("2.*", "2.1.1", true),
        ("2.1.*", "2.1.1", true),
        ("2.1.*", "2.2.1", false),
        ("", "1", true),
        ("", "4.5.6", true),
        ("", "1.2.3-alpha.1", false),
        ("2", "1", false),
        ("2", "3.4.5", false),
        ("2", "2.1.1", true),
        ("2.1", "2.1.1", true),
        ("2.1", "2.2.1", false),
        ("~1.2.3", "1.2.4", true),
        ("~1.2.3", "1.3.4", false),
        ("~1.2", "1.2.4", true),
        ("~1.2", "1.3.4", false),
        ("~1", "1.2.4", true),
        ("~1", "2.3.4", false),
        ("~0.2.3", "0.2.5", true),
        ("~0.2.3", "0.3.5", false),
        ("~1.2.3-beta.2", "1.2.3-beta.4", true),
        ("~1.2.3-beta.2", "1.2.4-beta.2", true),
        ("~1.2.3-beta.2", "1.3.4-beta.2", false),
        ("^1.2.3", "1.8.9", true),
        ("^1.2.3", "2.8.9", false),
        ("^1.2.3", "1.2.1", false),
        ("^1.1.0", "2.1.0", false),
        ("^1.2.0", "2.2.1", false),
        ("^1.2.0", "1.2.1-alpha.1", false),
        ("^1.2.0-alpha.0", "1.2.1-alpha.1", true),
        ("^1.2.0-alpha.0", "1.2.1-alpha.0", true),
        ("^1.2.0-alpha.2", "1.2.0-alpha.1", false),
        ("^1.2", "1.8.9", true),
        ("^1.2", "2.8.9", false),
        ("^1", "1.8.9", true),
        ("^1", "2.8.9", false),
        ("^0.2.3", "0.2.5", true),
        ("^0.2.3", "0.5.6", false),
        ("^0.2", "0.2.5", true),
        ("^0.2", "0.5.6", false),
        ("^0.0.3", "0.0.3", true),
        ("^0.0.3", "0.0.4", false),
        ("^0.0", "0.0.3", true),
        ("^0.0", "0.1.4", false),
        ("^0.0", "1.0.4", false),
        ("^0", "0.2.3", true),
        ("^0", "1.1.4", false),
        ("^0.2.3-beta.2", "0.2.3-beta.4", true),
        ("^0.2.3-beta.2", "0.2.4-beta.2", true),
        ("^0.2.3-beta.2", "0.3.4-beta.2", false),
        ("^0.2.3-beta.2", "0.2.3-beta.2", true),
        ("*", "1.2.3", true),
        ("~0.0.0", "1.2.3", true),
        ("0.x.x", "1.2.3", false),
        ("0.0.x", "1.2.3", false),
        ("0.0.0", "1.2.3", false),
        ("^0.0.0", "1.2.3", false),
        ("= 2.0", "1.2.3", false),
        ("= 2.0", "2.0.0", true),
        ("4.1.x", "4.1.3", true),
        ("1.x", "1.4", true),
        ("!=4.1-alpha", "4.1.0-alpha", false),
        ("!=4.1-alpha", "4.1.1-alpha", false),
        ("!=4.x", "5.1.0", true),
        ("!=4.x", "4.1.0", false),
        ("!=4.1.x", "4.2.0", true),
        ("!=4.2.x", "4.2.3", false),
        ("<1.x", "1.1.1", false),
        ("<1.x", "0.1.1", true),
        ("<1.x", "2.0.0", false),
        ("<1.1.x", "1.2.1", false),
        ("<1.1.x", "1.1.500", false),
        ("<1.1.x", "1.0.500", true),
        ("<1.2.x", "1.1.1", true),
        (">=1.1", "4.1.0-beta", false),
        ("<=1.1", "0.1.0-alpha", false),
        ("<=1.1-a", "0.1.0-alpha", true),
        ("<=1.x", "1.1.0", true),
        ("<=2.x", "3.0.0", false),
        ("<=1.1.x", "1.2.500", false),
        ("<=4.5", "3.4.0", true),
        ("<=4.5", "3.7.0", true),
        ("<=4.5", "4.6.3", false),
        (">1.1, <2", "1.1.1", false),
        (">1.1, <2", "1.2.1", true),
        (">1.1, <3", "4.3.2", false),
        (">=1.1, <2, !=1.2.3", "1.2.3", false),
        (">1.1 <2", "1.1.1", false),
        (">1.1 <2", "1.2.1", true),
        (">1.1    <3", "4.3.2", false),
        (">=1.1    <2    !=1.2.3", "1.2.3", false),
        (">=1.1, <2, !=1.2.3 || > 3", "4.1.2", true),
        (">=1.1, <2, !=1.2.3 || > 3", "3.1.2", false),
        (">=1.1, <2, !=1.2.3 || >= 3", "3.0.0", true),
        (">=1.1, <2, !=1.2.3 || > 3", "3.0.0", false),
        (">=1.1, <2, !=1.2.3 || > 3", "1.2.3", false),
        (">=1.1 <2 !=1.2.3", "1.2.3", false),
        (">=1.1 <2 !=1.2.3 || > 3", "4.1.2", true),
        (">=1.1 <2 !=1.2.3 || > 3", "3.1.2", false),
        (">=1.1 <2 !=1.2.3 || >= 3", "3.0.0", true),
        (">=1.1 <2 !=1.2.3 || > 3", "3.0.0", false),
        (">=1.1 <2 !=1.2.3 || > 3", "1.2.3", false),
        ("> 1.1, <     2", "1.1.1", false),
        (">   1.1, <2", "1.2.1", true),
        (">1.1, <  3", "4.3.2", false),
        (">= 1.1, <     2, !=1.2.3", "1.2.3", false),
        ("> 1.1 < 2", "1.1.1", false),
        (">1.1 < 2", "1.2.1", true),
        ("> 1.1    <3", "4.3.2", false),
        (">=1.1    < 2    != 1.2.3", "1.2.3", false),
        (">= 1.1, <2, !=1.2.3 || > 3", "4.1.2", true),
        (">= 1.1, <2, != 1.2.3 || > 3", "3.1.2", false),
        (">= 1.1, <2, != 1.2.3 || >= 3", "3.0.0", true),
        (">= 1.1, <2, !=1.2.3 || > 3", "3.0.0", false),
        (">= 1.1, <2, !=1.2.3 || > 3", "1.2.3", false),
        (">= 1.1 <2 != 1.2.3", "1.2.3", false),
        (">= 1.1 <2 != 1.2.3 || > 3", "4.1.2", true),
        (">= 1.1 <2 != 1.2.3 || > 3", "3.1.2", false),
        (">= 1.1 <2 != 1.2.3 || >= 3", "3.0.0", true),
        (">= 1.1 < 2 !=1.2.3 || > 3", "3.0.0", false),
        (">=1.1 < 2 !=1.2.3 || > 3", "1.2.3", false),
        ("1.1 - 2", "1.1.1", true),
        ("1.5.0 - 4.5", "3.7.0", true),
        ("1.1-3", "4.3.2", false),
        ("^1.1", "1.1.1", true),
        ("^1.1", "4.3.2", false),
        ("^1.x", "1.1.1", true),
        ("^2.x", "1.1.1", false),
        ("^1.x", "2.1.1", false),
        ("^1.x", "1.1.1-beta1", false),
        ("^1.1.2-alpha", "1.2.1-beta1", true),
        ("^1.2.x-alpha", "1.1.1-beta1", false),
        ("^0.0.1", "0.0.1", true),
        ("^0.0.1", "0.3.1", false),
        ("~*", "2.1.1", true),
        ("~1", "2.1.1", false),
        ("~1", "1.3.5", true),
        ("~1", "1.4", true),
        ("~1.x", "2.1.1", false),
        ("~1.x", "1.3.5", true),
        ("~1.x", "1.4", true),
        ("~1.1", "1.1.1", true),
        ("~1.1", "1.1.1-alpha", false),
        ("~1.1-alpha", "1.1.1-beta", true),
        ("~1.1.1-beta", "1.1.1-alpha", false),
        ("~1.1.1-beta", "1.1.1", true),
        ("~1.2.3", "1.2.5", true),
        ("~1.2.3", "1.2.2", false),
        ("~1.2.3", "1.3.2", false),
        ("~1.1", "1.2.3", false),
        ("~1.3", "2.4.5", false),
        ("1.0.0 - 2.0.0 <=2.0.0", "1.5.0", true),
        ("1.0.0 - 2.0.0, <=2.0.0", "1.5.0", true),
        ("<2.x", "1.1.1", true),
        ("<1.x", "2.1.1", false),
        ("<=2.x", "3.1.0", false),
        ("^1.1", "1.1.1-alpha", false),
        ("^1.1.1-alpha", "1.1.1-beta", true),
        ("^1.1.1-beta", "1.1.1-alpha", false),
        ("^0.0.1", "0.1.3", false),
        ("~1", "1.3.5-beta", false),
        ("~1.x", "1.3.5-beta", false),
        ("~1.3.6-alpha", "1.3.5-beta", false),
        ("~1.3.5-alpha", "1.3.5-beta", true),
        ("~1.3.5-beta", "1.3.5-alpha", false),
    ];

    #[test]
    fn masterminds_constraint_vectors() {
        let mut wrong = Vec::new();
        for (c, v, want) in MASTERMINDS {
            // These vectors call the single-comparator parser, which reads "" as `*`.
            let c = if c.is_empty() { "*" } else { c };
            match satisfies(c, v) {
                Ok(got) if got == *want => {}
                other => wrong.push(format!("{c:?} {v:?}: want {want}, got {other:?}")),
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn improper_constraints_are_errors() {
        for c in [
            "foo",
            ">= bar",
            "BAR >= 1.2.3",
            "12.3.4.1234",
            "12.3.34~ 1.2.3",
        ] {
            assert!(Constraint::parse(c).is_err(), "{c}");
        }
        for c in [
            ">= 1.2.3 < 2.0 || => 3.0 < 4",
            "3 - 4 || => 3.0, < 4",
            "12.3.34 ~1.2.3",
        ] {
            assert!(Constraint::parse(c).is_ok(), "{c}");
        }
    }
}
