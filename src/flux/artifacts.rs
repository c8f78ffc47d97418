//! The ExternalArtifacts an `ArtifactGenerator` (source.extensions.fluxcd.io, Flux's
//! source-watcher) makes: each artifact's `copy` operations run over its sources' files, in
//! order, into a new tree (`internal/builder/builder.go`). A pattern without glob characters
//! copies one file (into a directory when `to` ends in `/` or names one) or one directory
//! (under its own name); a glob is Go's `fs.Glob` (one segment per `*`, so `dir/**` is every
//! entry of `dir`), each match copied (directories recursively) to `to` plus its path below
//! the pattern's `/**` prefix, or plus its whole path. `exclude` patterns are doublestar
//! globs matched on the path, the path below the pattern's static part, and the file name.
//! The `Merge` and `Extract` strategies are not rendered.

use super::graph::Objects;
use super::sources::{self, Artifact, Missing, Ref};
use super::Options;
use crate::finding::Incomplete;
use crate::helm::glob::{doublestar, matches, Syntax};
use crate::source::{EntryKind, Files, MemorySnapshot, RepoPath};
use crate::yaml::Node;
use std::collections::BTreeMap;
use std::sync::Arc;

/// How deep ExternalArtifacts may be made of other ExternalArtifacts.
const MAX_DEPTH: usize = 8;

/// The ExternalArtifact `source` names, made by the ArtifactGenerator of its namespace that
/// lists it.
pub fn external(
    source: &Ref,
    objects: &Objects,
    files: &Files,
    opts: &Options,
    depth: usize,
) -> Result<Artifact, Missing> {
    if depth > MAX_DEPTH {
        return Err(Missing::Invalid(format!(
            "{source}: ExternalArtifacts nest deeper than {MAX_DEPTH} (a cycle?)"
        )));
    }
    let Some((generator, artifact)) = objects.generators(&source.namespace).find_map(|g| {
        let artifacts = g.get_path(&["spec", "artifacts"])?.as_seq()?;
        let a = artifacts
            .iter()
            .find(|a| a.str_at(&["name"]) == Some(source.name.as_str()))?;
        Some((g, a))
    }) else {
        return Err(Missing::Incomplete(Incomplete::FluxOutside, format!(
            "{source}: no ArtifactGenerator among the objects this cluster's Kustomizations apply makes it; what it names is not rendered"
        )));
    };
    let generator_name = generator.str_at(&["metadata", "name"]).unwrap_or_default();
    let mut aliases: BTreeMap<String, Ref> = BTreeMap::new();
    for s in generator
        .get_path(&["spec", "sources"])
        .and_then(Node::as_seq)
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        if let (Some(alias), Some(r)) = (s.str_at(&["alias"]), Ref::at(s, "", &source.namespace)) {
            aliases.insert(alias.to_string(), r);
        }
    }
    let mut tree = Tree::default();
    let empty = Vec::new();
    for op in artifact
        .get("copy")
        .and_then(Node::as_seq)
        .unwrap_or(&empty)
    {
        let from = op.str_at(&["from"]).unwrap_or_default();
        let to = op.str_at(&["to"]).unwrap_or_default();
        let fail = |why: String| {
            Missing::Invalid(format!(
                "ArtifactGenerator {}/{generator_name}: failed to apply copy operation from '{from}' to '{to}': {why}",
                source.namespace
            ))
        };
        if let Some(strategy) = op.str_at(&["strategy"]).filter(|s| *s != "Overwrite") {
            return Err(Missing::Incomplete(Incomplete::FluxOutside, format!(
                "ArtifactGenerator {}/{generator_name}: the {strategy} copy strategy is not rendered by kdelta",
                source.namespace
            )));
        }
        let (alias, pattern) = from
            .strip_prefix('@')
            .and_then(|f| f.split_once('/'))
            .ok_or_else(|| fail("source format must be '@alias/pattern'".into()))?;
        let dest = to
            .strip_prefix("@artifact/")
            .ok_or_else(|| fail("destination must start with '@artifact/'".into()))?;
        let r = aliases
            .get(alias)
            .ok_or_else(|| fail(format!("source alias '{alias}' not found")))?;
        let excludes: Vec<&str> = op
            .get("exclude")
            .and_then(Node::as_seq)
            .map(|l| l.iter().filter_map(Node::as_str).collect())
            .unwrap_or_default();
        // The Flux operator's sync artifact, once the walk found where in this repository
        // it is: the pattern is read below that directory.
        let operator = objects
            .operator_artifact
            .as_ref()
            .filter(|_| sources::is_operator_artifact(r, objects));
        let below_operator;
        let (from_artifact, pattern) = match (operator, r.kind.as_str()) {
            (Some(dir), _) => {
                below_operator = if dir.is_root() {
                    pattern.to_string()
                } else {
                    format!("{dir}/{pattern}")
                };
                (Artifact::Local, below_operator.as_str())
            }
            (None, "ExternalArtifact") => (external(r, objects, files, opts, depth + 1)?, pattern),
            (None, _) => (sources::artifact(r, objects, files, opts)?, pattern),
        };
        let copy = Copy {
            pattern,
            dest,
            to_dir: to.ends_with('/'),
            excludes: &excludes,
        };
        match from_artifact {
            Artifact::Local => copy.run(files, &mut tree),
            Artifact::Remote { snapshot, .. } => copy.run(&files.sibling(&*snapshot), &mut tree),
        }
        .map_err(|e| fail(e.to_string()))?;
    }
    let mut memory = MemorySnapshot::new();
    for (path, bytes) in &tree.files {
        memory.add_file(path, bytes);
    }
    Ok(Artifact::Remote {
        snapshot: Arc::new(memory),
        shown: format!(
            "ExternalArtifact {}/{} (ArtifactGenerator {generator_name})",
            source.namespace, source.name
        ),
    })
}

/// The artifact's files as the copy operations leave them.
#[derive(Default)]
struct Tree {
    files: BTreeMap<RepoPath, Vec<u8>>,
}

impl Tree {
    fn is_dir(&self, path: &str) -> bool {
        let prefix = format!("{}/", path.trim_end_matches('/'));
        path.is_empty() || self.files.keys().any(|p| p.as_str().starts_with(&prefix))
    }
}

/// Why one copy operation fails, in source-watcher's words, with the pattern or path.
#[derive(Debug, thiserror::Error)]
enum CopyError {
    /// A pattern without glob characters that names nothing.
    #[error("source '{pattern}' does not exist")]
    NoSource { pattern: String },
    /// A glob that matches nothing.
    #[error("no files match pattern '{pattern}'")]
    NoMatch { pattern: String },
    /// A glob whose every match an `exclude` pattern drops.
    #[error("all files matching pattern '{pattern}' were excluded")]
    AllExcluded { pattern: String },
    /// A source directory that does not list.
    #[error("{error}")]
    List {
        dir: RepoPath,
        error: crate::source::SourceError,
    },
    /// A source file that does not read.
    #[error("{error}")]
    Read {
        path: RepoPath,
        error: crate::source::SourceError,
    },
    /// A destination that leaves the artifact or is its root.
    #[error("cannot copy to '{to}'")]
    Destination { to: String },
}

/// One `copy` operation of an artifact.
struct Copy<'a> {
    pattern: &'a str,
    dest: &'a str,
    to_dir: bool,
    excludes: &'a [&'a str],
}

impl Copy<'_> {
    fn run(&self, files: &Files, tree: &mut Tree) -> Result<(), CopyError> {
        let pattern = self.pattern;
        let base = selection_root(pattern);
        if !pattern.contains(['*', '?', '[', ']']) {
            let path = sources::clean_path(pattern).ok_or_else(|| CopyError::NoSource {
                pattern: pattern.to_string(),
            })?;
            return match files.kind(&path) {
                EntryKind::Dir => {
                    let dest = join(self.dest, path.file_name());
                    self.copy_dir(files, &path, &dest, path.as_str(), tree)
                }
                EntryKind::File => {
                    if self.excluded(path.as_str(), ".") {
                        return Ok(());
                    }
                    let dest = if self.to_dir || tree.is_dir(self.dest) {
                        join(self.dest, path.file_name())
                    } else {
                        self.dest.to_string()
                    };
                    copy_file(files, &path, &dest, tree)
                }
                _ => Err(CopyError::NoSource {
                    pattern: pattern.to_string(),
                }),
            };
        }
        let found = glob(files, pattern);
        if found.is_empty() {
            return Err(CopyError::NoMatch {
                pattern: pattern.to_string(),
            });
        }
        let kept: Vec<&RepoPath> = found
            .iter()
            .filter(|m| !self.excluded(m.as_str(), &base))
            .collect();
        if kept.is_empty() {
            return Err(CopyError::AllExcluded {
                pattern: pattern.to_string(),
            });
        }
        for m in kept {
            let rel = pattern
                .strip_suffix("/**")
                .and_then(|prefix| m.as_str().strip_prefix(&format!("{prefix}/")))
                .unwrap_or(m.as_str());
            let dest = join(self.dest, rel);
            match files.kind(m) {
                EntryKind::Dir => self.copy_dir(files, m, &dest, &base, tree)?,
                _ => copy_file(files, m, &dest, tree)?,
            }
        }
        Ok(())
    }

    fn copy_dir(
        &self,
        files: &Files,
        dir: &RepoPath,
        dest: &str,
        base: &str,
        tree: &mut Tree,
    ) -> Result<(), CopyError> {
        let entries = files.list(dir).map_err(|error| CopyError::List {
            dir: dir.clone(),
            error,
        })?;
        for e in entries {
            let path = dir.child(&e.name);
            if self.excluded(path.as_str(), base) {
                continue;
            }
            let to = join(dest, &e.name);
            match e.kind {
                EntryKind::Dir => self.copy_dir(files, &path, &to, base, tree)?,
                EntryKind::File => copy_file(files, &path, &to, tree)?,
                _ => {}
            }
        }
        Ok(())
    }

    /// `shouldExcludePath`: the path, the path below `base`, or (for a pattern without `/`)
    /// the file name matches an exclude pattern.
    fn excluded(&self, path: &str, base: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        let check = |p: &str| {
            self.excludes
                .iter()
                .any(|x| doublestar(x, p) || (!x.contains('/') && doublestar(x, name)))
        };
        if check(path) {
            return true;
        }
        let rel = match base {
            "." | "" => Some(path),
            b => path.strip_prefix(&format!("{b}/")),
        };
        rel.is_some_and(|r| r != path && check(r))
    }
}

fn copy_file(files: &Files, from: &RepoPath, to: &str, tree: &mut Tree) -> Result<(), CopyError> {
    let bytes = files.read(from).map_err(|error| CopyError::Read {
        path: from.clone(),
        error,
    })?;
    let path = sources::clean_path(to)
        .filter(|p| !p.is_root())
        .ok_or_else(|| CopyError::Destination { to: to.to_string() })?;
    tree.files.insert(path, bytes.to_vec());
    Ok(())
}

fn join(dir: &str, rel: &str) -> String {
    let dir = dir.trim_end_matches('/');
    if dir.is_empty() || dir == "." {
        rel.to_string()
    } else {
        format!("{dir}/{rel}")
    }
}

/// The part of a pattern before its first segment with glob characters.
fn selection_root(pattern: &str) -> String {
    let parts: Vec<&str> = pattern
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .take_while(|p| !p.contains(['*', '?', '[', ']']))
        .collect();
    if parts.is_empty() {
        ".".into()
    } else {
        parts.join("/")
    }
}

/// Go's `fs.Glob`: each segment matched with `path.Match` against the entries of the
/// directories the previous segments matched, in lexical order.
fn glob(files: &Files, pattern: &str) -> Vec<RepoPath> {
    let mut current = vec![RepoPath::root()];
    for seg in pattern.split('/').filter(|s| !s.is_empty() && *s != ".") {
        let mut next = Vec::new();
        for dir in &current {
            if !seg.contains(['*', '?', '[', ']']) {
                let p = dir.child(seg);
                if files.kind(&p) != EntryKind::Missing {
                    next.push(p);
                }
                continue;
            }
            if let Ok(entries) = files.list(dir) {
                let mut names: Vec<&str> = entries
                    .iter()
                    .filter(|e| matches(Syntax::GoFilepath, seg, &e.name))
                    .map(|e| e.name.as_str())
                    .collect();
                names.sort_unstable();
                next.extend(names.into_iter().map(|n| dir.child(n)));
            }
        }
        current = next;
    }
    current.retain(|p| !p.is_root());
    current
}
