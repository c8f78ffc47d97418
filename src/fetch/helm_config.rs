//! The user's Helm repositories (`repositories.yaml`, as `helm repo add` writes it): the URL a
//! `Chart.yaml` dependency names by `@NAME` or `alias:NAME`, and the credentials of a
//! repository URL. Read-only; kdelta never writes Helm's configuration.

use super::http::Auth;
use crate::yaml::{self, Node, ParseOptions};
use std::path::PathBuf;

/// One `repositories:` entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Repository {
    pub name: String,
    pub url: String,
    pub username: String,
    pub password: String,
}

/// The entries of `repositories.yaml`.
#[derive(Clone, Debug, Default)]
pub struct Repositories {
    entries: Vec<Repository>,
}

impl Repositories {
    /// `$HELM_REPOSITORY_CONFIG`, else `$XDG_CONFIG_HOME/helm/repositories.yaml`, else
    /// `~/.config/helm/repositories.yaml`; none when there is no such file or it does not
    /// parse.
    pub fn load() -> Repositories {
        let var = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let file = var("HELM_REPOSITORY_CONFIG").or_else(|| {
            var("XDG_CONFIG_HOME")
                .or_else(|| var("HOME").map(|h| h.join(".config")))
                .map(|d| d.join("helm").join("repositories.yaml"))
        });
        file.and_then(|f| std::fs::read(f).ok())
            .map(|bytes| Repositories::parse(&bytes))
            .unwrap_or_default()
    }

    /// Parses the file's text.
    pub fn parse(bytes: &[u8]) -> Repositories {
        let Ok(doc) = yaml::parse_one(bytes, &ParseOptions::default()) else {
            return Repositories::default();
        };
        let text = |n: &Node, k: &str| n.str_at(&[k]).unwrap_or_default().to_string();
        let entries = doc
            .get("repositories")
            .and_then(Node::as_seq)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .map(|n| Repository {
                name: text(n, "name"),
                url: text(n, "url"),
                username: text(n, "username"),
                password: text(n, "password"),
            })
            .filter(|r| !r.name.is_empty() && !r.url.is_empty())
            .collect();
        Repositories { entries }
    }

    /// The URL of the repository a dependency names as `@NAME` or `alias:NAME`.
    pub fn url_of(&self, reference: &str) -> Option<&str> {
        let name = reference
            .strip_prefix('@')
            .or_else(|| reference.strip_prefix("alias:"))?;
        self.entries
            .iter()
            .find(|r| r.name == name)
            .map(|r| r.url.as_str())
    }

    /// The credentials `helm repo add` stored for the repository at `url`.
    pub fn credentials_for(&self, url: &str) -> Option<Auth> {
        let url = url.trim_end_matches('/');
        self.entries
            .iter()
            .find(|r| r.url.trim_end_matches('/') == url && !r.username.is_empty())
            .map(|r| Auth::Basic {
                user: r.username.clone(),
                password: r.password.clone(),
            })
    }
}

/// True for a dependency repository named through `repositories.yaml`.
pub fn is_named(repository: &str) -> bool {
    repository.starts_with('@') || repository.starts_with("alias:")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_credentials() {
        let repos = Repositories::parse(
            b"apiVersion: \"\"\ngenerated: \"0001-01-01T00:00:00Z\"\nrepositories:\n- name: bitnami\n  url: https://charts.bitnami.com/bitnami\n- name: private\n  url: https://charts.example.com/\n  username: bob\n  password: pw\n",
        );
        assert_eq!(
            repos.url_of("@bitnami"),
            Some("https://charts.bitnami.com/bitnami")
        );
        assert_eq!(
            repos.url_of("alias:private"),
            Some("https://charts.example.com/")
        );
        assert_eq!(repos.url_of("@nope"), None);
        assert_eq!(repos.url_of("https://x"), None);
        assert!(matches!(
            repos.credentials_for("https://charts.example.com"),
            Some(Auth::Basic { user, .. }) if user == "bob"
        ));
        assert!(repos
            .credentials_for("https://charts.bitnami.com/bitnami")
            .is_none());
        assert!(Repositories::parse(b"not: [valid").url_of("@x").is_none());
    }
}
