//! Following symbolic links stored inside a snapshot (git trees and the index), jailed to the
//! repository. The work tree lets the operating system resolve links instead.

use super::{PathError, RepoPath, SourceError};

/// Most links followed while resolving one path, like Linux's `MAXSYMLINKS`.
pub(crate) const MAX_LINK_HOPS: usize = 40;

/// What a path names when a link at that path is not followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RawKind {
    File,
    Dir,
    Symlink,
    Missing,
}

/// A snapshot whose entries can be looked up literally, without following links.
pub(crate) trait LinkTable {
    /// What `path` names, taking every component literally (no link is followed).
    fn raw_kind(&self, path: &RepoPath) -> RawKind;
    /// The target text of the link at `path`.
    fn link_target(&self, path: &RepoPath) -> Result<String, SourceError>;
}

/// Resolves every link in `path` and returns the link-free path of the file or directory it names.
///
/// Targets are resolved relative to the link's directory, component by component as the
/// operating system does; absolute targets and targets climbing above the root are
/// [`SourceError::SymlinkEscape`], more than [`MAX_LINK_HOPS`] links are
/// [`SourceError::SymlinkLoop`].
pub(crate) fn resolve(
    table: &impl LinkTable,
    path: &RepoPath,
) -> Result<(RepoPath, RawKind), SourceError> {
    if path.is_root() {
        return Ok((RepoPath::root(), RawKind::Dir));
    }
    // Fast path: a literal entry means every ancestor is a real directory.
    match table.raw_kind(path) {
        kind @ (RawKind::File | RawKind::Dir) => return Ok((path.clone(), kind)),
        RawKind::Symlink | RawKind::Missing => {}
    }

    // Components still to walk, in reverse order so `pop` yields the next one.
    let mut pending: Vec<String> = path.as_str().rsplit('/').map(str::to_string).collect();
    let mut current = RepoPath::root();
    let mut kind = RawKind::Dir;
    let mut hops = 0;
    let mut last_link: Option<(RepoPath, String)> = None;
    while let Some(component) = pending.pop() {
        match component.as_str() {
            "" | "." => continue,
            ".." => {
                if current.is_root() {
                    let (link, target) = last_link.clone().unwrap_or_default();
                    return Err(SourceError::SymlinkEscape {
                        path: link.to_string(),
                        target,
                    });
                }
                current = current.parent();
                continue;
            }
            _ => {}
        }
        if kind == RawKind::File {
            return Err(SourceError::NotDir {
                path: current.to_string(),
            });
        }
        let next = current.child(&component);
        match table.raw_kind(&next) {
            RawKind::Missing => {
                return Err(SourceError::NotFound {
                    path: path.to_string(),
                })
            }
            found @ (RawKind::File | RawKind::Dir) => {
                current = next;
                kind = found;
            }
            RawKind::Symlink => {
                hops += 1;
                if hops > MAX_LINK_HOPS {
                    return Err(SourceError::SymlinkLoop {
                        path: path.to_string(),
                    });
                }
                let target = table.link_target(&next)?;
                match RepoPath::new(&target) {
                    Err(PathError::Absolute { .. }) => {
                        return Err(SourceError::SymlinkEscape {
                            path: next.to_string(),
                            target,
                        })
                    }
                    Err(e @ PathError::Invalid { .. }) => return Err(e.into()),
                    Ok(_) | Err(PathError::Escapes { .. }) => {}
                }
                pending.extend(target.rsplit('/').map(str::to_string));
                last_link = Some((next, target));
                // `current` stays the link's directory: the target is relative to it.
                kind = RawKind::Dir;
            }
        }
    }
    Ok((current, kind))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Paths to kinds; a link's target follows `->`.
    struct Table(HashMap<String, String>);

    impl Table {
        fn new(entries: &[&str]) -> Table {
            let mut map = HashMap::new();
            for e in entries {
                let (path, what) = e.split_once(' ').unwrap_or((e, "file"));
                map.insert(path.to_string(), what.to_string());
            }
            Table(map)
        }

        fn resolve(&self, path: &str) -> Result<(String, RawKind), SourceError> {
            resolve(self, &RepoPath::new(path).unwrap()).map(|(p, k)| (p.as_str().to_string(), k))
        }
    }

    impl LinkTable for Table {
        fn raw_kind(&self, path: &RepoPath) -> RawKind {
            match self.0.get(path.as_str()).map(String::as_str) {
                None => RawKind::Missing,
                Some("dir") => RawKind::Dir,
                Some("file") => RawKind::File,
                Some(_) => RawKind::Symlink,
            }
        }

        fn link_target(&self, path: &RepoPath) -> Result<String, SourceError> {
            let what = &self.0[path.as_str()];
            Ok(what.trim_start_matches("-> ").to_string())
        }
    }

    fn repo() -> Table {
        Table::new(&[
            "base dir",
            "base/k.yaml",
            "apps dir",
            "apps/web dir",
            "apps/web/base -> ../../base",
            "apps/web/k -> base/k.yaml",
            "apps/web/dot -> ./../web/./base/",
            "apps/abs -> /etc/passwd",
            "apps/up -> ../../etc",
            "apps/file-as-dir -> ../base/k.yaml/x",
            "apps/dangling -> nowhere",
            "loop/a -> b",
            "loop dir",
            "loop/b -> a",
            "self -> self",
        ])
    }

    #[test]
    fn literal_paths_need_no_links() {
        let t = repo();
        assert_eq!(
            t.resolve("base/k.yaml").unwrap(),
            ("base/k.yaml".into(), RawKind::File)
        );
        assert_eq!(
            t.resolve("apps/web").unwrap(),
            ("apps/web".into(), RawKind::Dir)
        );
        assert_eq!(t.resolve("").unwrap(), ("".into(), RawKind::Dir));
    }

    #[test]
    fn follows_links_in_any_component() {
        let t = repo();
        assert_eq!(
            t.resolve("apps/web/base").unwrap(),
            ("base".into(), RawKind::Dir)
        );
        assert_eq!(
            t.resolve("apps/web/base/k.yaml").unwrap(),
            ("base/k.yaml".into(), RawKind::File)
        );
        // A link whose target goes through another link.
        assert_eq!(
            t.resolve("apps/web/k").unwrap(),
            ("base/k.yaml".into(), RawKind::File)
        );
        assert_eq!(t.resolve("apps/web/dot/k.yaml").unwrap().0, "base/k.yaml");
    }

    #[test]
    fn rejects_escaping_links() {
        let t = repo();
        for path in ["apps/abs", "apps/up", "apps/up/passwd"] {
            match t.resolve(path) {
                Err(SourceError::SymlinkEscape { path: link, target }) => {
                    assert!(link.starts_with("apps/"), "{link}");
                    assert!(target.contains("etc"), "{target}");
                }
                other => panic!("{path}: {other:?}"),
            }
        }
    }

    #[test]
    fn reports_loops_missing_targets_and_files_used_as_dirs() {
        let t = repo();
        assert!(
            matches!(t.resolve("loop/a"), Err(SourceError::SymlinkLoop { path }) if path == "loop/a")
        );
        assert!(matches!(
            t.resolve("self/x"),
            Err(SourceError::SymlinkLoop { .. })
        ));
        assert!(
            matches!(t.resolve("apps/dangling"), Err(SourceError::NotFound { path }) if path == "apps/dangling")
        );
        assert!(
            matches!(t.resolve("apps/file-as-dir"), Err(SourceError::NotDir { path }) if path == "base/k.yaml")
        );
        assert!(matches!(
            t.resolve("base/k.yaml/x"),
            Err(SourceError::NotDir { .. })
        ));
    }
}
