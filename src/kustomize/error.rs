//! Build errors: a rule id, the innermost cause with the chain of contexts around it, the same
//! in kustomize's words (one wrapped message), and (when known) the kustomization file and line
//! of the entry that caused it.

use crate::finding::rules;
use crate::finding::Finding;
use crate::source::RepoPath;
use crate::yaml::Span;

/// An error that stops a kustomize build (or, for remote targets, one entry of it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KError {
    pub rule: crate::finding::Rule,
    /// kustomize's message: the cause wrapped in every context, as `kustomize build` prints it.
    pub message: String,
    /// What went wrong, in the fewest words (the message kdelta leads with).
    pub cause: String,
    /// The contexts added on the way up, innermost first.
    pub chain: Vec<String>,
    /// How many contexts of `chain` already have a location (the innermost one's is `file`).
    pub located: usize,
    pub file: Option<RepoPath>,
    pub span: Span,
    pub help: Option<String>,
}

impl KError {
    /// An error without a location yet.
    pub fn new(rule: crate::finding::Rule, message: impl Into<String>) -> KError {
        let message = message.into();
        KError {
            rule,
            cause: message.clone(),
            chain: Vec::new(),
            located: 0,
            message,
            file: None,
            span: Span::default(),
            help: None,
        }
    }

    /// A remote resource (a base, a file) that is not in kdelta's cache.
    pub fn remote(target: &str) -> KError {
        let what = if super::loader::is_remote_repo(target) {
            "target"
        } else {
            "file"
        };
        KError::not_cached(what, target)
    }

    /// A file at an http(s) URL that a kustomization loads (a patch, a generator's file, a
    /// values file) and that is not in kdelta's cache.
    pub fn remote_file(url: &str) -> KError {
        KError::not_cached("file", url)
    }

    fn not_cached(what: &str, target: &str) -> KError {
        let shown = crate::fetch::url::redact_text(target);
        KError::new(
            rules::KUSTOMIZE_REMOTE_RESOURCE,
            format!("remote {what} '{shown}' is not in kdelta's cache"),
        )
        .with_help(
            "run `kdelta fetch` (or add --fetch) to fetch it, or vendor it into the repository",
        )
    }

    /// Adds a hint.
    pub fn with_help(mut self, help: impl Into<String>) -> KError {
        self.help = Some(help.into());
        self
    }

    /// Sets the location unless one is already known (the innermost location wins); an outer
    /// location goes to the context added since, so the chain reads as the path of
    /// kustomizations that led to the cause (`accumulating resources from '../base'
    /// (overlay/kustomization.yaml:2)`).
    pub fn at(mut self, file: &RepoPath, span: Span) -> KError {
        if self.file.is_none() {
            self.file = Some(file.clone());
            self.span = span;
        } else if self.chain.len() > self.located {
            if let Some(last) = self.chain.last_mut() {
                let line = if span.line > 0 {
                    format!(":{}", span.line)
                } else {
                    String::new()
                };
                last.push_str(&format!(" ({file}{line})"));
            }
        }
        self.located = self.chain.len();
        self
    }

    /// Prefixes the message, as kustomize wraps errors on the way up.
    pub fn context(self, prefix: impl AsRef<str>) -> KError {
        let readable = prefix.as_ref().to_string();
        self.context_said(prefix, readable)
    }

    /// [`KError::context`] for a prefix whose kustomize wording is no help to a reader
    /// (`accumulation err='…'`): the chain gets `readable` instead.
    pub fn context_said(mut self, prefix: impl AsRef<str>, readable: impl Into<String>) -> KError {
        self.message = format!("{}: {}", prefix.as_ref(), self.message);
        self.chain.push(readable.into());
        self
    }

    /// Says the cause in plain words, for a message kustomize spells as one whole chain;
    /// `chain` is the contexts inside that message, innermost first.
    pub fn with_cause(mut self, cause: impl Into<String>, chain: &[&str]) -> KError {
        self.cause = cause.into();
        self.chain = chain.iter().map(|c| c.to_string()).collect();
        self.located = self.chain.len();
        self
    }

    /// The error as a finding: the cause, its contexts, and kustomize's message when that says
    /// more than the cause.
    pub fn into_finding(self) -> Finding {
        let mut f = Finding::error(self.rule, self.cause.clone());
        f.context = self.chain;
        if self.message != self.cause {
            f.reference_message = Some(self.message);
        }
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
