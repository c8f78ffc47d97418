//! File access for one kustomization root (kustomize's `FileLoader`): paths relative to the
//! root, the `rootOnly` load restrictor, child roots for bases and components with cycle
//! detection, recognition of remote targets, and files at http(s) URLs (read from the fetch
//! store, as kustomize's loader downloads them).

use super::error::KError;
use super::schema::BuildSchema;
use crate::fetch::Unavailable;
use crate::finding::rules;
use crate::source::{Bytes, EntryKind, Files, RepoPath, SourceError};
use std::sync::Arc;

/// A loader rooted at one kustomization directory.
#[derive(Clone)]
pub struct Loader<'a> {
    pub files: &'a Files<'a>,
    root: RepoPath,
    root_only: bool,
    /// The roots of the kustomizations that led here (for cycle detection).
    referrers: Vec<RepoPath>,
    /// The schema of the build (every resource the build makes holds it too).
    pub schema: Arc<BuildSchema>,
}

impl<'a> Loader<'a> {
    /// A loader for the build's top directory.
    pub fn new(
        files: &'a Files<'a>,
        root: RepoPath,
        root_only: bool,
        schema: Arc<BuildSchema>,
    ) -> Loader<'a> {
        Loader {
            root: files.canonical(&root).unwrap_or(root),
            files,
            root_only,
            referrers: Vec::new(),
            schema,
        }
    }

    /// True when files outside the root may not be read (the load restrictor `rootOnly`).
    pub fn root_only(&self) -> bool {
        self.root_only
    }

    /// The kustomization directory.
    pub fn root(&self) -> &RepoPath {
        &self.root
    }

    /// Resolves `rel` against the root (absolute paths and paths leaving the repository are
    /// errors).
    pub fn resolve(&self, rel: &str) -> Result<RepoPath, KError> {
        if rel.starts_with('/') {
            return Err(self.absolute(rel));
        }
        self.root
            .join(rel)
            .map_err(|e| KError::new(rules::SOURCE_OUTSIDE_REPOSITORY, format!("'{rel}': {e}")))
    }

    /// An absolute file path. kustomize's `FileLoader.Load` keeps it as written and its load
    /// restrictor (`RestrictionRootOnly`) refuses it, as it is not below the root. Without the
    /// restrictor kustomize would read the machine's own file, which kdelta, reading only the
    /// repository, never does.
    fn absolute(&self, rel: &str) -> KError {
        let message = if self.root_only {
            format!("security; file '{rel}' is not in or below '{}'", self.root)
        } else {
            format!(
                "'{rel}': absolute paths are not allowed; use a path relative to the kustomization"
            )
        };
        KError::new(rules::KUSTOMIZE_ABSOLUTE_PATH, message).with_help(
            "use a path relative to the kustomization (kdelta reads only the repository)",
        )
    }

    /// Loads a file relative to the root, enforcing the load restrictor, or a file at an
    /// http(s) URL, which kustomize's `FileLoader.Load` downloads before any restrictor and
    /// kdelta reads from the fetch store. A URL the cache lacks stops the build as a remote
    /// input does (a notice: the output is incomplete); one whose fetch failed is an error.
    pub fn load(&self, rel: &str) -> Result<Loaded, KError> {
        if is_remote_file(rel) {
            let bytes = self.files.remote_file(rel).map_err(|e| match e {
                Unavailable::NotCached(_) => KError::remote_file(rel),
                Unavailable::Failed(e) => KError::new(
                    rules::FETCH_FAILED,
                    format!("remote file '{}': {e}", crate::fetch::url::redact_text(rel)),
                ),
            })?;
            return Ok(Loaded {
                path: None,
                bytes: Bytes::from(bytes.as_slice()),
            });
        }
        let path = self.loadable(rel)?;
        let bytes = self.files.read(&path).map_err(|e| source_error(e, &path))?;
        Ok(Loaded {
            path: Some(path),
            bytes,
        })
    }

    /// [`Loader::load`] for a file read as documents by `parse` (`reader` names it), parsed
    /// once per content through the parse cache.
    pub fn load_documents(
        &self,
        rel: &str,
        reader: &'static str,
        parse: impl FnOnce(&[u8]) -> Result<(Vec<crate::yaml::Node>, usize), crate::yaml::YamlError>,
    ) -> Result<(RepoPath, crate::source::Documents), KError> {
        let path = self.loadable(rel)?;
        let docs = self
            .files
            .documents(&path, reader, parse)
            .map_err(|e| source_error(e, &path))?;
        Ok((path, docs))
    }

    /// The path of file `rel`, if the load restrictor lets the kustomization read it.
    fn loadable(&self, rel: &str) -> Result<RepoPath, KError> {
        if is_remote_file(rel) {
            // Resources at URLs are read before they get here (as kustomize's accumulation
            // tries them as remote files first).
            return Err(KError::remote_file(rel));
        }
        let path = self.resolve(rel)?;
        match self.files.kind(&path) {
            EntryKind::Dir => {
                return Err(KError::new(
                    rules::KUSTOMIZE_NOT_A_FILE,
                    format!("'{path}' must resolve to a file"),
                ))
            }
            EntryKind::Missing => {
                return Err(self.missing(
                    &path,
                    KError::new(
                        rules::KUSTOMIZE_FILE_NOT_FOUND,
                        format!("'{path}': no such file or directory"),
                    ),
                ))
            }
            _ => {}
        }
        // kustomize checks the path with its symbolic links resolved.
        let real = self.files.canonical(&path).unwrap_or_else(|_| path.clone());
        if self.root_only && !real.starts_with(&self.root) {
            return Err(KError::new(
                rules::KUSTOMIZE_LOAD_RESTRICTOR,
                format!(
                    "security; file '{real}' is not in or below '{}'",
                    self.root
                ),
            )
            .with_help("pass --load-restrictor none to allow files outside the kustomization root (kustomize's LoadRestrictionsNone)"));
        }
        Ok(path)
    }

    /// A loader for a base or component directory `rel` (kustomize `FileLoader.New`).
    pub fn child(&self, rel: &str) -> Result<Loader<'a>, KError> {
        if rel.is_empty() {
            return Err(KError::new(
                rules::KUSTOMIZE_FILE_NOT_FOUND,
                "new root cannot be empty",
            ));
        }
        if is_remote_target(rel) {
            return Err(KError::remote(rel));
        }
        if rel.starts_with('/') {
            return Err(KError::new(
                rules::KUSTOMIZE_ABSOLUTE_PATH,
                format!("new root '{rel}' cannot be absolute"),
            ));
        }
        let dir = self.resolve(rel)?;
        // The new root is the real directory: its relative paths start from where a
        // symbolic link points, as kustomize's ConfirmDir resolves links.
        let dir = self.files.canonical(&dir).unwrap_or(dir);
        match self.files.kind(&dir) {
            EntryKind::Dir => {}
            EntryKind::Missing => {
                return Err(self.missing(
                    &dir,
                    KError::new(
                        rules::KUSTOMIZE_FILE_NOT_FOUND,
                        format!(
                            "must build at directory: not a valid directory: '{dir}' does not exist"
                        ),
                    )
                    .with_cause(
                        format!("{dir}: no such directory"),
                        &["must build at directory"],
                    ),
                ))
            }
            _ => {
                return Err(KError::new(
                    rules::KUSTOMIZE_NOT_A_DIRECTORY,
                    format!("must build at directory: '{dir}': file is not directory"),
                )
                .with_cause(
                    format!("{dir}: a file, not a directory"),
                    &["must build at directory"],
                ))
            }
        }
        for visited in std::iter::once(&self.root).chain(&self.referrers) {
            if visited.starts_with(&dir) {
                return Err(KError::new(
                    rules::KUSTOMIZE_CYCLE,
                    format!(
                        "cycle detected: candidate root '{dir}' contains visited root '{visited}'"
                    ),
                ));
            }
        }
        let mut referrers = self.referrers.clone();
        referrers.push(self.root.clone());
        Ok(Loader {
            files: self.files,
            root: dir,
            root_only: self.root_only,
            referrers,
            schema: self.schema.clone(),
        })
    }

    /// For a path whose kind is `Missing`: the `source.*` error saying what is wrong with
    /// what is there (a symbolic link leaving the repository or looping), or `None` when
    /// nothing is there.
    pub fn unusable(&self, path: &RepoPath) -> Option<KError> {
        self.files.why_missing(path).map(|e| source_error(e, path))
    }

    fn missing(&self, path: &RepoPath, not_found: KError) -> KError {
        self.unusable(path).unwrap_or(not_found)
    }
}

/// A file a kustomization loads.
pub struct Loaded {
    /// Where it is in the repository; `None` for a file read from an http(s) URL.
    pub path: Option<RepoPath>,
    pub bytes: Bytes,
}

impl Loaded {
    /// `e` located at `span` of this file when it is the repository's; an error in a file
    /// read from a URL is placed by `at_entry` (at the entry that names the URL).
    pub fn locate(
        &self,
        e: KError,
        span: crate::yaml::Span,
        at_entry: impl FnOnce(KError) -> KError,
    ) -> KError {
        match &self.path {
            Some(path) => e.at(path, span),
            None => at_entry(e),
        }
    }

    /// The file read as one YAML document; a syntax error is placed as [`Loaded::locate`]
    /// places it.
    pub fn yaml(
        &self,
        at_entry: impl FnOnce(KError) -> KError,
    ) -> Result<crate::yaml::Node, KError> {
        crate::yaml::parse_one(&self.bytes, &Default::default()).map_err(|e| {
            self.locate(
                KError::new(rules::YAML_PARSE, e.message.clone()),
                e.span,
                at_entry,
            )
        })
    }
}

fn source_error(e: SourceError, path: &RepoPath) -> KError {
    let rule = match e {
        SourceError::NotFound { .. } => rules::KUSTOMIZE_FILE_NOT_FOUND,
        SourceError::TooLarge { .. } => rules::SOURCE_TOO_LARGE,
        SourceError::SymlinkEscape { .. } | SourceError::Path(_) => {
            rules::SOURCE_OUTSIDE_REPOSITORY
        }
        _ => rules::SOURCE_READ,
    };
    let _ = path;
    KError::new(rule, e.to_string())
}

/// A remote entry kdelta fetches as a git repository: a remote target that is not an http(s)
/// URL of a single YAML or JSON file, which is fetched as a file. (kustomize GETs every http(s)
/// entry as a file first and clones it when that gives no YAML; kdelta decides by the URL, so
/// the fetch step asks each server for one thing.)
pub fn is_remote_repo(s: &str) -> bool {
    if !is_remote_target(s) {
        return false;
    }
    if !is_remote_file(s) {
        return true;
    }
    let before_query = s.split('?').next().unwrap_or(s);
    let after_scheme = before_query
        .split_once("://")
        .map_or(before_query, |(_, r)| r);
    let lower = after_scheme.to_ascii_lowercase();
    after_scheme.contains("//")
        || !(lower.ends_with(".yaml") || lower.ends_with(".yml") || lower.ends_with(".json"))
}

/// kustomize `IsRemoteFile`: an http(s) URL.
pub fn is_remote_file(s: &str) -> bool {
    crate::fetch::url::is_http(s)
}

/// True when kustomize would treat `s` as a remote git target (its `NewRepoSpecFromURL`
/// accepts it): a URL scheme, `git::`, a github.com path, or an SCP-style `user@host:path`.
pub fn is_remote_target(s: &str) -> bool {
    let mut n = s;
    if n.len() >= 5 && n.as_bytes()[..5].eq_ignore_ascii_case(b"git::") {
        n = &n[5..];
    }
    let lower = n.to_ascii_lowercase();
    // kustomize's schemes, and the git protocol (fetched from loopback only).
    if ["https://", "http://", "ssh://", "file://", "git://"]
        .iter()
        .any(|p| lower.starts_with(p))
    {
        return true;
    }
    if n.starts_with('/') {
        return false;
    }
    let first_segment = n.split('/').next().unwrap_or("");
    if first_segment.contains('@') {
        return true;
    }
    lower.starts_with("github.com/") || lower.starts_with("github.com:")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_targets() {
        for r in [
            "https://github.com/org/repo//dir?ref=v1",
            "github.com/org/repo/dir",
            "git::https://example.com/r.git",
            "git@github.com:org/repo.git",
            "ssh://git@host/org/repo",
            "package@v1.28.0.example/configs/base",
        ] {
            assert!(is_remote_target(r), "{r}");
        }
        for l in ["../base", "overlays/prod", "github.company/x", "/abs/path"] {
            assert!(!is_remote_target(l), "{l}");
        }
        assert!(is_remote_file("https://x/y.yaml"));
        assert!(!is_remote_file("x.yaml"));
    }
}
