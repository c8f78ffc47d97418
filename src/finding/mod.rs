//! Findings: the diagnostics every part of kdelta reports, each with a rule from the registry in
//! [`rules`], a severity and the file and line that caused it. A leaf: it depends on nothing in
//! the crate.

pub mod rules;

use serde::{Deserialize, Serialize};

/// A kind of finding: a stable dotted id (`kustomize.replacement.source-not-found`), the
/// severity it usually has, and a one-line summary. Serialised as its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rule {
    pub id: &'static str,
    pub severity: Severity,
    pub summary: &'static str,
}

impl Rule {
    /// A rule outside the registry, for tests of the report writers (the registry holds the
    /// rules kdelta produces; writers must work for any).
    #[doc(hidden)]
    pub const fn example(id: &'static str) -> Rule {
        Rule {
            id,
            severity: Severity::Notice,
            summary: "",
        }
    }
}

impl Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id)
    }
}

/// A rule read back from a report: the registry's, or (a rule of another kdelta version) one
/// made for the id.
impl<'de> Deserialize<'de> for Rule {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Rule, D::Error> {
        let id = String::deserialize(d)?;
        Ok(rules::ALL
            .iter()
            .find(|r| r.id == id)
            .copied()
            .unwrap_or_else(|| Rule::example(Box::leak(id.into_boxed_str()))))
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id)
    }
}

impl PartialEq<&str> for Rule {
    fn eq(&self, other: &&str) -> bool {
        self.id == *other
    }
}

impl PartialEq<str> for Rule {
    fn eq(&self, other: &str) -> bool {
        self.id == other
    }
}

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Notice,
}

impl Severity {
    /// `error`, `warning` or `notice`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Notice => "notice",
        }
    }
}

/// Which side of a diff a finding was made on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Base,
    Head,
}

/// In a diff, how a validation finding stands between the revisions: only at head (new),
/// at both (existing: the change did not introduce it), or only at base (fixed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Baseline {
    New,
    Existing,
    Fixed,
}

impl Baseline {
    /// `new`, `existing` or `fixed`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Baseline::New => "new",
            Baseline::Existing => "existing",
            Baseline::Fixed => "fixed",
        }
    }
}

/// Why a finding leaves its target's output incomplete: the classes the coverage summary
/// counts ("Applications: 40 complete, 12 incomplete (8 remote source not fetched, …)").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Incomplete {
    /// A chart, base or repository the fetch step has not fetched (or cannot: no `--fetch`).
    NotFetched,
    /// A fetch that failed.
    FetchFailed,
    /// A Flux source or object that the repository does not hold.
    FluxOutside,
    /// An ApplicationSet generator that needs a cluster or the network.
    OfflineGenerator,
    /// An Argo CD config management plugin (or a source that needs one: envsubst,
    /// helm-secrets).
    Plugin,
    /// An Argo CD directory source of Jsonnet.
    Jsonnet,
    /// `$ARGOCD_APP_REVISION` and the other variables only a sync knows.
    RevisionVariable,
    /// Another reason, counted under the finding's rule.
    Other,
}

impl Incomplete {
    /// The class the coverage summary counts it under (`rule` for [`Incomplete::Other`]).
    pub fn class(self, rule: Rule) -> &'static str {
        match self {
            Incomplete::NotFetched => "remote source not fetched",
            Incomplete::FetchFailed => "fetch failed",
            Incomplete::FluxOutside => "Flux source or object not in the repository",
            Incomplete::OfflineGenerator => "generator needs a cluster or the network",
            Incomplete::Plugin => "config management plugin",
            Incomplete::Jsonnet => "Jsonnet",
            Incomplete::RevisionVariable => "revision variable",
            Incomplete::Other => rule.id,
        }
    }
}

fn incomplete_as_bool<S: serde::Serializer>(
    why: &Option<Incomplete>,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.serialize_bool(why.is_some())
}

fn incomplete_from_bool<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Incomplete>, D::Error> {
    let incomplete = <bool as serde::Deserialize>::deserialize(d)?;
    Ok(incomplete.then_some(Incomplete::Other))
}

/// A diagnostic with a stable rule id, pointing at the file and line that caused it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub severity: Severity,
    /// What kind of problem it is (see [`rules`] and docs/rules.md).
    pub rule: Rule,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// What is wrong, innermost cause first.
    pub message: String,
    /// What the problem was found under, innermost first (`accumulating resources from
    /// 'base'`): the chain the reference tool wraps its message in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context: Vec<String>,
    /// The reference tool's exact message (kustomize's whole wrapped chain), when `message`
    /// says it differently.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<Side>,
    /// Set when the finding means the target's output lacks something kdelta did not fetch or
    /// cannot render yet (a remote base, a chart not inflated): the output is incomplete, and
    /// why. Reports show `incomplete: true`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "incomplete_as_bool",
        deserialize_with = "incomplete_from_bool"
    )]
    pub incomplete: Option<Incomplete>,
    /// In a diff, for validation findings: new, existing or fixed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<Baseline>,
}

impl Finding {
    /// A finding with no location yet.
    pub fn new(severity: Severity, rule: Rule, message: impl Into<String>) -> Finding {
        Finding {
            severity,
            rule,
            target: None,
            file: None,
            line: None,
            column: None,
            message: message.into(),
            context: Vec::new(),
            reference_message: None,
            help: None,
            revision: None,
            incomplete: None,
            baseline: None,
        }
    }

    /// True when the finding counts for the exit code: not of the base revision, and not one
    /// a diff found at both revisions.
    pub fn counts(&self) -> bool {
        self.revision != Some(Side::Base) && self.baseline != Some(Baseline::Existing)
    }

    /// ` (new)`, ` (existing)` or ` (fixed)` after a validation finding of a diff, for the
    /// writers; empty otherwise.
    pub fn baseline_label(&self) -> String {
        self.baseline
            .map(|b| format!(" ({})", b.as_str()))
            .unwrap_or_default()
    }

    /// Marks the finding as one that leaves the target's output incomplete, for `why`.
    pub fn incomplete(mut self, why: Incomplete) -> Finding {
        self.incomplete = Some(why);
        self
    }

    /// True when the finding leaves its target's output incomplete.
    pub fn is_incomplete(&self) -> bool {
        self.incomplete.is_some()
    }

    /// An error finding.
    pub fn error(rule: Rule, message: impl Into<String>) -> Finding {
        Finding::new(Severity::Error, rule, message)
    }

    /// A warning finding.
    pub fn warning(rule: Rule, message: impl Into<String>) -> Finding {
        Finding::new(Severity::Warning, rule, message)
    }

    /// A notice finding.
    pub fn notice(rule: Rule, message: impl Into<String>) -> Finding {
        Finding::new(Severity::Notice, rule, message)
    }

    /// Points the finding at a file (and a line and column when known, 0 meaning unknown).
    pub fn at(mut self, file: impl Into<String>, line: u32, column: u32) -> Finding {
        self.file = Some(file.into());
        self.line = (line > 0).then_some(line);
        self.column = (column > 0).then_some(column);
        self
    }

    /// Points the finding at a file without a line.
    pub fn in_file(mut self, file: impl Into<String>) -> Finding {
        self.file = Some(file.into());
        self
    }

    /// Attaches the target id.
    pub fn for_target(mut self, target: impl Into<String>) -> Finding {
        self.target = Some(target.into());
        self
    }

    /// Adds a hint on how to fix it.
    pub fn with_help(mut self, help: impl Into<String>) -> Finding {
        self.help = Some(help.into());
        self
    }

    /// Adds what the problem was found under (innermost first) and the reference tool's
    /// whole message.
    pub fn with_context(mut self, context: &[&str], reference_message: &str) -> Finding {
        self.context = context.iter().map(|c| c.to_string()).collect();
        self.reference_message = Some(reference_message.to_string());
        self
    }

    /// The reference tool's exact message: `reference_message`, else `message`.
    pub fn reference_text(&self) -> &str {
        self.reference_message.as_deref().unwrap_or(&self.message)
    }

    /// `file:line:column` as far as known.
    pub fn location(&self) -> Option<String> {
        let file = self.file.as_ref()?;
        Some(match (self.line, self.column) {
            (Some(l), Some(c)) => format!("{file}:{l}:{c}"),
            (Some(l), None) => format!("{file}:{l}"),
            _ => file.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_show_an_incomplete_finding_as_incomplete_true() {
        let plain = Finding::notice(rules::FLUX_NOT_RENDERED, "m");
        let json = serde_json::to_value(&plain).unwrap();
        assert!(json.get("incomplete").is_none());
        let incomplete = plain.incomplete(Incomplete::FluxOutside);
        let json = serde_json::to_value(&incomplete).unwrap();
        assert_eq!(json["incomplete"], serde_json::json!(true));
        let read: Finding = serde_json::from_value(json).unwrap();
        assert!(read.is_incomplete());
        let read: Finding = serde_json::from_value(
            serde_json::to_value(Finding::notice(rules::FLUX_NOT_RENDERED, "m")).unwrap(),
        )
        .unwrap();
        assert!(!read.is_incomplete());
    }
}
