//! Repository-relative paths: normalised, `/`-separated, and jailed inside the repository.

use std::fmt;

/// A normalised path relative to the repository root: no leading or trailing `/`, no `.` or `..`
/// components, no empty components. The root itself is the empty path.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct RepoPath(String);

/// A path that cannot name anything inside the repository.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("{path}: path leaves the repository root")]
    Escapes { path: String },
    #[error("{path}: absolute paths are not allowed here; use a path relative to the repository")]
    Absolute { path: String },
    #[error("{path:?}: invalid path ({reason})")]
    Invalid { path: String, reason: &'static str },
}

impl RepoPath {
    /// The repository root.
    pub fn root() -> RepoPath {
        RepoPath(String::new())
    }

    /// Parses a repo-relative path, resolving `.` and `..`; `..` above the root is an error.
    pub fn new(path: &str) -> Result<RepoPath, PathError> {
        RepoPath::root().join(path)
    }

    /// Joins a relative path onto this one, resolving `.` and `..` lexically. Absolute paths and
    /// paths that climb above the repository root are errors.
    pub fn join(&self, rel: &str) -> Result<RepoPath, PathError> {
        if rel.contains('\0') {
            return Err(PathError::Invalid {
                path: rel.to_string(),
                reason: "contains a NUL byte",
            });
        }
        if rel.starts_with('/') || rel.starts_with('\\') || has_drive_prefix(rel) {
            return Err(PathError::Absolute {
                path: rel.to_string(),
            });
        }
        let mut parts: Vec<&str> = self.components().collect();
        for part in rel.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    if parts.pop().is_none() {
                        return Err(PathError::Escapes {
                            path: display_join(&self.0, rel),
                        });
                    }
                }
                p => parts.push(p),
            }
        }
        Ok(RepoPath(parts.join("/")))
    }

    /// The path as a `/`-separated string (empty for the root).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True for the repository root.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// The components, in order.
    pub fn components(&self) -> impl Iterator<Item = &str> {
        self.0.split('/').filter(|c| !c.is_empty())
    }

    /// The last component (empty for the root).
    pub fn file_name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or("")
    }

    /// The containing directory; the root's parent is the root.
    pub fn parent(&self) -> RepoPath {
        match self.0.rfind('/') {
            Some(i) => RepoPath(self.0[..i].to_string()),
            None => RepoPath::root(),
        }
    }

    /// A child entry of this directory. `name` must be a single component.
    pub fn child(&self, name: &str) -> RepoPath {
        debug_assert!(!name.contains('/') && name != ".." && name != ".");
        if self.0.is_empty() {
            RepoPath(name.to_string())
        } else {
            RepoPath(format!("{}/{}", self.0, name))
        }
    }

    /// True when `self` is `dir` or lies below it.
    pub fn starts_with(&self, dir: &RepoPath) -> bool {
        dir.0.is_empty()
            || self.0 == dir.0
            || (self.0.starts_with(&dir.0) && self.0.as_bytes().get(dir.0.len()) == Some(&b'/'))
    }

    /// This path relative to `base`, using `..` where needed (`a/b` from `a/c` is `../b`).
    pub fn relative_to(&self, base: &RepoPath) -> String {
        let a: Vec<&str> = self.components().collect();
        let b: Vec<&str> = base.components().collect();
        let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
        let mut out: Vec<&str> = vec![".."; b.len() - common];
        out.extend(&a[common..]);
        if out.is_empty() {
            ".".to_string()
        } else {
            out.join("/")
        }
    }
}

fn has_drive_prefix(p: &str) -> bool {
    let b = p.as_bytes();
    b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
}

fn display_join(base: &str, rel: &str) -> String {
    if base.is_empty() {
        rel.to_string()
    } else {
        format!("{base}/{rel}")
    }
}

impl fmt::Display for RepoPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str(".")
        } else {
            f.write_str(&self.0)
        }
    }
}

impl fmt::Debug for RepoPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_dots_and_slashes() {
        assert_eq!(RepoPath::new("./a//b/./c/").unwrap().as_str(), "a/b/c");
        assert_eq!(RepoPath::new("a/b/../c").unwrap().as_str(), "a/c");
        assert_eq!(RepoPath::new(".").unwrap(), RepoPath::root());
        assert_eq!(RepoPath::new("").unwrap(), RepoPath::root());
    }

    #[test]
    fn rejects_escapes_and_absolute_paths() {
        assert!(matches!(
            RepoPath::new("../../etc/passwd"),
            Err(PathError::Escapes { .. })
        ));
        let base = RepoPath::new("apps/web").unwrap();
        assert!(matches!(
            base.join("../../../etc"),
            Err(PathError::Escapes { .. })
        ));
        assert_eq!(base.join("../../x").unwrap().as_str(), "x");
        assert!(matches!(
            RepoPath::new("/etc/passwd"),
            Err(PathError::Absolute { .. })
        ));
        assert!(matches!(
            RepoPath::new("C:/x"),
            Err(PathError::Absolute { .. })
        ));
        assert!(matches!(
            RepoPath::new("a\0b"),
            Err(PathError::Invalid { .. })
        ));
    }

    #[test]
    fn parent_child_and_prefix() {
        let p = RepoPath::new("a/b/c.yaml").unwrap();
        assert_eq!(p.file_name(), "c.yaml");
        assert_eq!(p.parent().as_str(), "a/b");
        assert_eq!(RepoPath::root().parent(), RepoPath::root());
        assert_eq!(p.parent().child("d").as_str(), "a/b/d");
        assert!(p.starts_with(&RepoPath::new("a").unwrap()));
        assert!(!p.starts_with(&RepoPath::new("a/b/c").unwrap()));
        assert!(!RepoPath::new("ab")
            .unwrap()
            .starts_with(&RepoPath::new("a").unwrap()));
        assert!(p.starts_with(&RepoPath::root()));
    }

    #[test]
    fn relative_paths() {
        let a = RepoPath::new("a/b").unwrap();
        assert_eq!(a.relative_to(&RepoPath::new("a/c").unwrap()), "../b");
        assert_eq!(a.relative_to(&a), ".");
        assert_eq!(a.relative_to(&RepoPath::root()), "a/b");
    }
}
