//! Other git repositories (an Argo CD Application's source elsewhere, a kustomize remote base),
//! fetched into a bare repository per remote in the cache, one commit at a time and shallow
//! where the server allows.
//!
//! The fetch runs the system's `git`, as kustomize's cloner and Argo CD's repo-server do: it
//! speaks every transport git does (HTTPS, SSH through `ssh` and `core.sshCommand`, the git
//! protocol), with the user's credential helpers, `insteadOf` rewrites and proxy settings,
//! and never prompts. Reading the fetched commit is the snapshot layer's job (gix, offline).

use super::url::redact_text;
use super::FetchError;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The bare repository in the cache for `url` (one per remote, named by a digest of the URL
/// without credentials).
pub fn repo_dir(cache_root: &Path, url: &str) -> PathBuf {
    let key = redact_url_fully(url);
    cache_root
        .join("v1")
        .join("git")
        .join(format!("{}.git", super::Digest::of(key.as_bytes()).hex()))
}

/// True for a full commit id (40 hex digits): it names one commit forever.
pub fn is_commit_id(rev: &str) -> bool {
    rev.len() == 40 && rev.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Checks that the URL's transport may be used: `https`, `ssh` and scp-like `user@host:path`
/// anywhere; plain `http` and `git` only to loopback; never a local path (`file://`), which
/// would let a repository read other repositories on this machine.
pub fn check_url(url: &str, settings: &super::Settings) -> Result<(), FetchError> {
    let lower = url.to_ascii_lowercase();
    let refuse = |why: &str| {
        Err(FetchError::Setup {
            message: format!("{}: {why}", redact_text(url)),
        })
    };
    if lower.starts_with("https://") || lower.starts_with("ssh://") {
        return Ok(());
    }
    if lower.starts_with("http://") || lower.starts_with("git://") {
        let rest = &url[url.find("://").map_or(0, |i| i + 3)..];
        let host_port = rest.split('/').next().unwrap_or("");
        let host_port = host_port.rsplit_once('@').map_or(host_port, |(_, h)| h);
        let host = if let Some(v6) = host_port.strip_prefix('[') {
            v6.split(']').next().unwrap_or("")
        } else {
            host_port.split(':').next().unwrap_or("")
        };
        let port = host_port.rsplit_once(':').and_then(|(_, p)| p.parse().ok());
        let loopback = host == "localhost"
            || host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        return if loopback || settings.plain_http_allowed(host, port) {
            Ok(())
        } else {
            refuse("plain http and git:// are only used for loopback addresses and the hosts in fetch.plainHttpHosts of .kdelta.yaml; use https or ssh")
        };
    }
    if lower.contains("://") {
        return refuse("kdelta fetches git repositories over https, ssh and (on loopback) http and git://, not from local paths");
    }
    // scp-like `user@host:path`.
    if url
        .split('/')
        .next()
        .is_some_and(|s| s.contains('@') && s.contains(':'))
    {
        return Ok(());
    }
    refuse("not a git URL kdelta fetches")
}

/// Fetches `rev` (a branch, a tag, `HEAD` or a full commit id) of `url` into `repo` and
/// returns the commit it names. Shallow (`--depth=1`); a commit id the server will not give
/// out directly (no `allowReachableSHA1InWant`) is found in a fetch of its branches and tags.
pub fn fetch(repo: &Path, url: &str, rev: &str, timeout: Duration) -> Result<String, FetchError> {
    if !repo.join("HEAD").is_file() {
        std::fs::create_dir_all(repo).map_err(|e| FetchError::Cache(e.to_string()))?;
        git(repo, &["init", "--bare", "-q"], timeout, url)?;
    }
    let rev = if rev.is_empty() { "HEAD" } else { rev };
    let commit = if is_commit_id(rev) {
        let rev = rev.to_ascii_lowercase();
        if !has_commit(repo, &rev, timeout) {
            let shallow = git(
                repo,
                &["fetch", "-q", "--no-tags", "--depth=1", url, &rev],
                timeout,
                url,
            );
            if shallow.is_err() || !has_commit(repo, &rev, timeout) {
                git(
                    repo,
                    &[
                        "fetch",
                        "-q",
                        url,
                        "+refs/heads/*:refs/kdelta/heads/*",
                        "+refs/tags/*:refs/kdelta/tags/*",
                    ],
                    timeout,
                    url,
                )?;
            }
            if !has_commit(repo, &rev, timeout) {
                forget_fetch_head(repo);
                return Err(FetchError::Network {
                    url: redact_text(url),
                    message: format!("commit {rev} is not in the repository"),
                    spurious: false,
                });
            }
        }
        rev
    } else {
        git(
            repo,
            &["fetch", "-q", "--no-tags", "--depth=1", url, rev],
            timeout,
            url,
        )
        .map_err(|e| match e {
            FetchError::Network {
                url,
                message,
                spurious,
            } if message.contains("couldn't find remote ref") => FetchError::Network {
                url,
                message: format!("no branch or tag {rev}"),
                spurious,
            },
            e => e,
        })?;
        let out = git(repo, &["rev-parse", "FETCH_HEAD^{commit}"], timeout, url)?;
        out.trim().to_string()
    };
    // Keep the commit reachable, and the URL (which may hold credentials) out of the cache.
    let name = format!("refs/kdelta/commits/{commit}");
    git(repo, &["update-ref", &name, &commit], timeout, url)?;
    forget_fetch_head(repo);
    Ok(commit)
}

/// The tag names of the remote at `url` (`git ls-remote --tags`), listed from the cache's
/// bare repository `repo` (made when missing).
pub fn remote_tags(repo: &Path, url: &str, timeout: Duration) -> Result<Vec<String>, FetchError> {
    if !repo.join("HEAD").is_file() {
        std::fs::create_dir_all(repo).map_err(|e| FetchError::Cache(e.to_string()))?;
        git(repo, &["init", "--bare", "-q"], timeout, url)?;
    }
    let out = git(repo, &["ls-remote", "--tags", "--refs", url], timeout, url)?;
    Ok(tag_names(&out, |line| {
        line.split_once('\t').map(|(_, r)| r)
    }))
}

/// The tag names of the local repository at `dir`.
pub fn local_tags(dir: &Path, timeout: Duration) -> Vec<String> {
    git(
        dir,
        &["for-each-ref", "--format=%(refname)", "refs/tags"],
        timeout,
        "",
    )
    .map(|out| tag_names(&out, Some))
    .unwrap_or_default()
}

/// The names after `refs/tags/` of the references `line_ref` finds in each line.
fn tag_names<'a>(out: &'a str, line_ref: impl Fn(&'a str) -> Option<&'a str>) -> Vec<String> {
    out.lines()
        .filter_map(line_ref)
        .filter_map(|r| r.trim().strip_prefix("refs/tags/"))
        .map(String::from)
        .collect()
}

/// In CI, `GITHUB_TOKEN` as the credentials for a `https://github.com/` remote (as
/// actions/checkout passes it: an extra header, given through the environment so that it is
/// in no command line), unless the URL carries its own.
fn github_token(command: &mut Command, url: &str) {
    use base64::Engine as _;
    let Some(token) = std::env::var("GITHUB_TOKEN").ok().filter(|t| !t.is_empty()) else {
        return;
    };
    if !url.starts_with("https://github.com/") {
        return;
    }
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("x-access-token:{token}"));
    command
        .env("GIT_CONFIG_COUNT", "1")
        .env("GIT_CONFIG_KEY_0", "http.https://github.com/.extraheader")
        .env(
            "GIT_CONFIG_VALUE_0",
            format!("AUTHORIZATION: basic {basic}"),
        );
}

/// The commit `rev` names in the local repository at `dir` (a tag or a commit id), if it has
/// one.
pub fn local_commit(dir: &Path, rev: &str, timeout: Duration) -> Option<String> {
    if rev.starts_with('-') {
        return None;
    }
    let spec = format!("{rev}^{{commit}}");
    git(
        dir,
        &["rev-parse", "--verify", "--quiet", &spec],
        timeout,
        "",
    )
    .ok()
    .map(|out| out.trim().to_string())
    .filter(|c| is_commit_id(c))
}

/// True when the bare repository holds `commit`.
pub fn has_commit(repo: &Path, commit: &str, timeout: Duration) -> bool {
    repo.join("HEAD").is_file()
        && git(
            repo,
            &["cat-file", "-e", &format!("{commit}^{{commit}}")],
            timeout,
            "",
        )
        .is_ok()
}

fn forget_fetch_head(repo: &Path) {
    let _ = std::fs::remove_file(repo.join("FETCH_HEAD"));
}

/// Runs git in `repo` without prompts or outside hooks; its error in words, credentials cut.
fn git(repo: &Path, args: &[&str], timeout: Duration, url: &str) -> Result<String, FetchError> {
    let mut command = Command::new("git");
    command
        .arg("-C")
        .arg(repo)
        .args(["-c", "protocol.version=2", "-c", "core.hooksPath=/dev/null"])
        .args(args);
    github_token(&mut command, url);
    let mut child = command
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_ASKPASS", "true")
        .env("SSH_ASKPASS", "true")
        .env("GIT_SSH_VARIANT", "auto")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| FetchError::Setup {
            message: format!("cannot run git (needed to fetch git repositories): {e}"),
        })?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(FetchError::Timeout {
                    url: redact_text(url),
                });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => {
                return Err(FetchError::Setup {
                    message: format!("git: {e}"),
                })
            }
        }
    };
    let read = |r: Option<&mut dyn std::io::Read>| {
        let mut s = String::new();
        if let Some(r) = r {
            let _ = r.read_to_string(&mut s);
        }
        s
    };
    let stdout = read(child.stdout.as_mut().map(|s| s as &mut dyn std::io::Read));
    let stderr = read(child.stderr.as_mut().map(|s| s as &mut dyn std::io::Read));
    if status.success() {
        return Ok(stdout);
    }
    let message: Vec<String> = stderr
        .lines()
        .map(|l| l.trim_start_matches("fatal: ").trim())
        .filter(|l| !l.is_empty())
        .map(redact_everywhere)
        .collect();
    Err(FetchError::Network {
        url: redact_text(url),
        message: if message.is_empty() {
            format!("git {} failed", args.first().copied().unwrap_or(""))
        } else {
            message.join("; ")
        },
        spurious: false,
    })
}

/// A line with the password of every URL in it cut.
fn redact_everywhere(line: &str) -> String {
    line.split(' ')
        .map(|w| {
            let trimmed = w.trim_matches(|c| c == '\'' || c == '"');
            if trimmed.contains("://") {
                w.replace(trimmed, &redact_text(trimmed))
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The URL with its whole userinfo removed (for keys: two users of one remote share it).
fn redact_url_fully(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let end = rest.find('/').unwrap_or(rest.len());
    match rest[..end].rsplit_once('@') {
        Some((_, host)) => format!("{scheme}://{host}{}", &rest[end..]),
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transports_kdelta_uses() {
        for ok in [
            "https://github.com/org/repo",
            "ssh://git@github.com/org/repo.git",
            "git@github.com:org/repo.git",
            "http://127.0.0.1:8080/repo.git",
            "git://localhost/repo",
        ] {
            assert!(check_url(ok, &Default::default()).is_ok(), "{ok}");
        }
        for refused in [
            "file:///etc",
            "/srv/git/repo",
            "http://example.com/repo.git",
            "git://10.0.0.1/repo",
            "ftp://x/y",
        ] {
            assert!(
                check_url(refused, &Default::default()).is_err(),
                "{refused}"
            );
        }
        let allowed = super::super::Settings {
            plain_http_hosts: vec!["git.internal:8080".into()],
            ..Default::default()
        };
        assert!(check_url("http://git.internal:8080/r.git", &allowed).is_ok());
        assert!(check_url("http://git.internal:8081/r.git", &allowed).is_err());
        let e = check_url("http://bob:pw@example.com/r", &Default::default())
            .unwrap_err()
            .to_string();
        assert!(!e.contains("pw"), "{e}");
    }

    #[test]
    fn cache_directories_ignore_credentials() {
        let root = Path::new("/c");
        assert_eq!(
            repo_dir(root, "https://bob:pw@host/r.git"),
            repo_dir(root, "https://host/r.git")
        );
        assert_ne!(
            repo_dir(root, "https://host/r.git"),
            repo_dir(root, "https://host/other.git")
        );
        assert!(is_commit_id(&"a".repeat(40)));
        assert!(!is_commit_id("main"));
    }
}
