//! Resource selectors (patch targets, replacement select/reject): anchored regexes on
//! group/version/kind/name/namespace (kustomize `SelectorRegex`) and Kubernetes label and
//! annotation selector expressions (`app=web,tier!=db,env in (a,b),!legacy`).

use super::kid::Gvk;
use super::res::Res;
use super::types::Selector;
use regex::Regex;
use std::collections::BTreeMap;

/// A compiled selector.
pub struct SelectorMatcher {
    group: Option<Regex>,
    version: Option<Regex>,
    kind: Option<Regex>,
    name: Option<Regex>,
    namespace: Option<Regex>,
    labels: Option<LabelSelector>,
    annotations: Option<LabelSelector>,
}

fn anchored(p: &str) -> Result<Option<Regex>, String> {
    if p.is_empty() {
        return Ok(None);
    }
    Regex::new(&format!("^(?:{p})$"))
        .map(Some)
        .map_err(|e| format!("invalid selector regex {p:?}: {e}"))
}

impl SelectorMatcher {
    /// Compiles a selector (regex and selector-expression errors are reported).
    pub fn new(sel: &Selector) -> Result<SelectorMatcher, String> {
        Ok(SelectorMatcher {
            group: anchored(&sel.group)?,
            version: anchored(&sel.version)?,
            kind: anchored(&sel.kind)?,
            name: anchored(&sel.name)?,
            namespace: anchored(&sel.namespace)?,
            labels: if sel.label_selector.is_empty() {
                None
            } else {
                Some(LabelSelector::parse(&sel.label_selector)?)
            },
            annotations: if sel.annotation_selector.is_empty() {
                None
            } else {
                Some(LabelSelector::parse(&sel.annotation_selector)?)
            },
        })
    }

    /// Group, version and kind match.
    pub fn matches_gvk(&self, gvk: &Gvk) -> bool {
        let m = |re: &Option<Regex>, s: &str| re.as_ref().is_none_or(|r| r.is_match(s));
        m(&self.group, &gvk.group) && m(&self.version, &gvk.version) && m(&self.kind, &gvk.kind)
    }

    /// The name matches.
    pub fn matches_name(&self, n: &str) -> bool {
        self.name.as_ref().is_none_or(|r| r.is_match(n))
    }

    /// The namespace matches.
    pub fn matches_namespace(&self, ns: &str) -> bool {
        self.namespace.as_ref().is_none_or(|r| r.is_match(ns))
    }

    /// kustomize `resWrangler.Select`: namespace and name may match the original or the current
    /// id; gvk, labels and annotations the current object.
    pub fn matches(&self, r: &Res) -> bool {
        let cur = r.cur_id();
        let org = r.org_id();
        (self.matches_namespace(org.effective_namespace())
            || self.matches_namespace(cur.effective_namespace()))
            && (self.matches_name(&org.name) || self.matches_name(&cur.name))
            && self.matches_gvk(&r.gvk())
            && self.labels.as_ref().is_none_or(|s| s.matches(&r.labels()))
            && self
                .annotations
                .as_ref()
                .is_none_or(|s| s.matches(&r.annotations()))
    }
}

/// A parsed Kubernetes label selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelSelector {
    reqs: Vec<Requirement>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Requirement {
    Exists(String),
    NotExists(String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Gt(String, i64),
    Lt(String, i64),
}

impl LabelSelector {
    /// Parses `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, `k>1`, `k<1`,
    /// joined by commas.
    pub fn parse(s: &str) -> Result<LabelSelector, String> {
        let mut reqs = Vec::new();
        let mut rest = s.trim();
        while !rest.is_empty() {
            let (req, after) = parse_requirement(rest)?;
            reqs.push(req);
            rest = after.trim_start();
            if let Some(r) = rest.strip_prefix(',') {
                rest = r.trim_start();
                if rest.is_empty() {
                    return Err(format!(
                        "unable to parse requirement: found trailing ',' in {s:?}"
                    ));
                }
            } else if !rest.is_empty() {
                return Err(format!(
                    "unable to parse requirement {rest:?} in selector {s:?}"
                ));
            }
        }
        Ok(LabelSelector { reqs })
    }

    /// True when every requirement holds for `labels`.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.reqs.iter().all(|r| match r {
            Requirement::Exists(k) => labels.contains_key(k),
            Requirement::NotExists(k) => !labels.contains_key(k),
            Requirement::In(k, vs) => labels.get(k).is_some_and(|v| vs.contains(v)),
            Requirement::NotIn(k, vs) => labels.get(k).is_none_or(|v| !vs.contains(v)),
            Requirement::Gt(k, n) => labels
                .get(k)
                .and_then(|v| v.parse::<i64>().ok())
                .is_some_and(|v| v > *n),
            Requirement::Lt(k, n) => labels
                .get(k)
                .and_then(|v| v.parse::<i64>().ok())
                .is_some_and(|v| v < *n),
        })
    }
}

fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/')
}

fn parse_requirement(s: &str) -> Result<(Requirement, &str), String> {
    if let Some(r) = s.strip_prefix('!') {
        let r = r.trim_start();
        let end = r.find(|c: char| !is_key_char(c)).unwrap_or(r.len());
        if end == 0 {
            return Err(format!("expected a key after '!' in {s:?}"));
        }
        return Ok((Requirement::NotExists(r[..end].to_string()), &r[end..]));
    }
    let end = s.find(|c: char| !is_key_char(c)).unwrap_or(s.len());
    if end == 0 {
        return Err(format!("expected a label key in {s:?}"));
    }
    let key = s[..end].to_string();
    let rest = s[end..].trim_start();
    let value_end = |r: &str| {
        r.find(|c: char| c == ',' || c.is_whitespace())
            .unwrap_or(r.len())
    };
    if let Some(r) = rest.strip_prefix("==").or_else(|| rest.strip_prefix('=')) {
        let r = r.trim_start();
        let e = value_end(r);
        return Ok((Requirement::In(key, vec![r[..e].to_string()]), &r[e..]));
    }
    if let Some(r) = rest.strip_prefix("!=") {
        let r = r.trim_start();
        let e = value_end(r);
        return Ok((Requirement::NotIn(key, vec![r[..e].to_string()]), &r[e..]));
    }
    for (op, gt) in [('>', true), ('<', false)] {
        if let Some(r) = rest.strip_prefix(op) {
            let r = r.trim_start();
            let e = value_end(r);
            let n: i64 = r[..e].parse().map_err(|_| {
                format!("for '{op}' operator, the value must be an integer in {s:?}")
            })?;
            let req = if gt {
                Requirement::Gt(key, n)
            } else {
                Requirement::Lt(key, n)
            };
            return Ok((req, &r[e..]));
        }
    }
    for (word, negate) in [("notin", true), ("in", false)] {
        if let Some(r) = rest.strip_prefix(word) {
            let r = r.trim_start();
            let Some(r) = r.strip_prefix('(') else {
                continue;
            };
            let close = r
                .find(')')
                .ok_or_else(|| format!("found '(', expected ')' in {s:?}"))?;
            let values: Vec<String> = r[..close]
                .split(',')
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
                .collect();
            let req = if negate {
                Requirement::NotIn(key, values)
            } else {
                Requirement::In(key, values)
            };
            return Ok((req, &r[close + 1..]));
        }
    }
    Ok((Requirement::Exists(key), rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn label_selectors() {
        let l = labels(&[("app", "web"), ("tier", "front"), ("n", "5")]);
        for (sel, want) in [
            ("app=web", true),
            ("app==web,tier=front", true),
            ("app!=web", false),
            ("app in (web, api)", true),
            ("app notin (web)", false),
            ("missing", false),
            ("!missing", true),
            ("app,tier", true),
            ("n>3", true),
            ("n<3", false),
            ("env!=prod", true),
        ] {
            assert_eq!(
                LabelSelector::parse(sel).unwrap().matches(&l),
                want,
                "{sel}"
            );
        }
        assert!(LabelSelector::parse("app=web,").is_err());
    }
}
