//! Build errors: a rule id, a message in kustomize's words, and (when known) the kustomization
//! file and line of the entry that caused it.

use crate::finding::rules;
use crate::finding::Finding;
use crate::source::RepoPath;
use crate::yaml::Span;

/// An error that stops a kustomize build (or, for remote targets, one entry of it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KError {
    pub rule: crate::finding::Rule,
    pub message: String,
    pub file: Option<RepoPath>,
    pub span: Span,
    pub help: Option<String>,
}

impl KError {
    /// An error without a location yet.
    pub fn new(rule: crate::finding::Rule, message: impl Into<String>) -> KError {
        KError {
            rule,
            message: message.into(),
            file: None,
            span: Span::default(),
            help: None,
        }
    }

    /// A remote resource kdelta does not fetch.
    pub fn remote(target: &str) -> KError {
        KError::new(
            rules::KUSTOMIZE_REMOTE_RESOURCE,
            format!("remote target '{target}' is not fetched (kdelta never uses the network)"),
        )
        .with_help("vendor the remote base into the repository to have it rendered")
    }

    /// Adds a hint.
    pub fn with_help(mut self, help: impl Into<String>) -> KError {
        self.help = Some(help.into());
        self
    }

    /// Sets the location unless one is already known (the innermost location wins).
    pub fn at(mut self, file: &RepoPath, span: Span) -> KError {
        if self.file.is_none() {
            self.file = Some(file.clone());
            self.span = span;
        }
        self
    }

    /// Prefixes the message, as kustomize wraps errors on the way up.
    pub fn context(mut self, prefix: impl AsRef<str>) -> KError {
        self.message = format!("{}: {}", prefix.as_ref(), self.message);
        self
    }

    /// The error as a finding.
    pub fn into_finding(self) -> Finding {
        let mut f = Finding::error(self.rule, self.message);
        if let Some(file) = self.file {
            f = f.at(file.to_string(), self.span.line, self.span.column);
        }
        if let Some(h) = self.help {
            f = f.with_help(h);
        }
        f
    }
}

impl std::fmt::Display for KError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}
