//! kustomize's remote targets (`api/internal/git/repospec.go`, v5.5): which git repository,
//! directory and reference a `resources:` entry such as
//! `https://github.com/org/repo//deploy/base?ref=v1.2.0` names.

/// A remote base: the repository to fetch, the directory in it, the reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepoSpec {
    /// The repository's URL as git takes it.
    pub url: String,
    /// The kustomization's directory inside the repository (empty: its root).
    pub subdir: String,
    /// `ref`, else `version`, else empty (the remote's HEAD).
    pub rev: String,
}

/// A `resources:` entry that names no remote base kustomize can fetch.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{spec}: {problem}")]
pub struct RemoteSpecError {
    /// The entry as written.
    pub spec: String,
    pub problem: RemoteSpecProblem,
}

/// What is wrong with a remote target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum RemoteSpecProblem {
    #[error("no repository path")]
    NoRepositoryPath,
    #[error("not a remote target kustomize recognises")]
    NotRemote,
    #[error("the directory leaves the repository")]
    LeavesRepository,
}

/// Parses a remote target as kustomize's `NewRepoSpecFromURL` does: `git::` dropped; the
/// query's `ref` over `version` (`timeout` and `submodules` are accepted and not needed); a
/// `github.com/…` path without scheme is HTTPS; the repository ends at `_git/NAME` (Azure
/// DevOps), at `//`, after `.git`, or else after the first two path segments.
pub fn parse(spec: &str) -> Result<RepoSpec, RemoteSpecError> {
    let fail = |problem| RemoteSpecError {
        spec: spec.to_string(),
        problem,
    };
    let mut s = spec.trim();
    if s.len() >= 5 && s.as_bytes()[..5].eq_ignore_ascii_case(b"git::") {
        s = &s[5..];
    }
    let (s, query) = match s.split_once('?') {
        Some((a, q)) => (a, q),
        None => (s, ""),
    };
    let mut reference = String::new();
    let mut version = String::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        match k {
            "ref" => reference = v.to_string(),
            "version" => version = v.to_string(),
            _ => {}
        }
    }
    // host (with scheme or user) and the path after it.
    let (host, path) = if let Some(i) = s.find("://") {
        let after = &s[i + 3..];
        let slash = after
            .find('/')
            .ok_or_else(|| fail(RemoteSpecProblem::NoRepositoryPath))?;
        (
            format!("{}{}", &s[..i + 3], &after[..slash]),
            &after[slash + 1..],
        )
    } else if let Some(rest) = s
        .strip_prefix("github.com/")
        .or_else(|| s.strip_prefix("github.com:"))
    {
        ("https://github.com".to_string(), rest)
    } else {
        let first = s.split('/').next().unwrap_or("");
        match first.split_once(':') {
            Some((user_host, _)) if first.contains('@') => {
                let colon = s.find(':').expect("found above");
                (format!("{user_host}:"), &s[colon + 1..])
            }
            _ => return Err(fail(RemoteSpecProblem::NotRemote)),
        }
    };
    let (repo, subdir) = split_repo(path);
    if repo.is_empty() {
        return Err(fail(RemoteSpecProblem::NoRepositoryPath));
    }
    let subdir = subdir.trim_matches('/').to_string();
    if subdir.split('/').any(|seg| seg == "..") {
        return Err(fail(RemoteSpecProblem::LeavesRepository));
    }
    let sep = if host.ends_with(':') { "" } else { "/" };
    Ok(RepoSpec {
        url: format!("{host}{sep}{repo}"),
        subdir,
        rev: if reference.is_empty() {
            version
        } else {
            reference
        },
    })
}

/// The repository part of a path and the directory after it.
fn split_repo(path: &str) -> (String, String) {
    if let Some(i) = path.find("_git/") {
        let after = &path[i + 5..];
        let end = after.find('/').unwrap_or(after.len());
        return (path[..i + 5 + end].to_string(), after[end..].to_string());
    }
    if let Some((repo, dir)) = path.split_once("//") {
        return (repo.to_string(), dir.to_string());
    }
    if let Some(i) = path.find(".git") {
        let end = i + 4;
        if end == path.len() || path.as_bytes()[end] == b'/' {
            return (path[..end].to_string(), path[end..].to_string());
        }
    }
    let mut segments = path.splitn(3, '/');
    let org = segments.next().unwrap_or("");
    let name = segments.next().unwrap_or("");
    let rest = segments.next().unwrap_or("");
    if name.is_empty() {
        return (org.to_string(), String::new());
    }
    (format!("{org}/{name}"), rest.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(url: &str, subdir: &str, rev: &str) -> RepoSpec {
        RepoSpec {
            url: url.into(),
            subdir: subdir.into(),
            rev: rev.into(),
        }
    }

    #[test]
    fn the_forms_kustomize_accepts() {
        let cases = [
            (
                "https://github.com/kubernetes-sigs/kustomize//examples/multibases?ref=v1.0.6",
                spec(
                    "https://github.com/kubernetes-sigs/kustomize",
                    "examples/multibases",
                    "v1.0.6",
                ),
            ),
            (
                "github.com/org/repo/deploy/base?ref=main",
                spec("https://github.com/org/repo", "deploy/base", "main"),
            ),
            (
                "git::https://gitlab.com/org/repo.git/deploy?version=v2&timeout=90s",
                spec("https://gitlab.com/org/repo.git", "deploy", "v2"),
            ),
            (
                "https://github.com/org/repo?ref=v1&version=v2",
                spec("https://github.com/org/repo", "", "v1"),
            ),
            (
                "git@github.com:org/repo//base?submodules=false",
                spec("git@github.com:org/repo", "base", ""),
            ),
            (
                "ssh://git@host.example.com/org/repo.git//a/b",
                spec("ssh://git@host.example.com/org/repo.git", "a/b", ""),
            ),
            (
                "https://dev.azure.com/org/project/_git/repo/deploy?ref=main",
                spec(
                    "https://dev.azure.com/org/project/_git/repo",
                    "deploy",
                    "main",
                ),
            ),
        ];
        for (input, want) in cases {
            assert_eq!(parse(input), Ok(want), "{input}");
        }
        assert!(parse("https://github.com/org/repo//../x").is_err());
        assert!(parse("deploy/base").is_err());
    }
}
