//! The fetch layer's errors: what failed, where (the URL, without credentials), and why, in
//! words; whether a retry may help is asked of the error, never of its text.

use super::cache::CacheError;
use super::url;

/// Why a remote source could not be fetched or used: what failed and where, in words.
#[derive(Debug, Clone, thiserror::Error)]
pub enum FetchError {
    #[error(transparent)]
    Url(url::UrlError),
    #[error("{url}: plain HTTP is only used for loopback addresses and the hosts in fetch.plainHttpHosts of .kdelta.yaml; use https")]
    PlainHttp { url: String },
    #[error("{url}: HTTP {status}{}", status_words(*status))]
    Status { url: String, status: u16 },
    #[error("{url}: {message}")]
    Network {
        url: String,
        message: String,
        spurious: bool,
    },
    #[error("{url}: timed out")]
    Timeout { url: String },
    #[error("{url}: the body is larger than the limit of {} MiB", limit >> 20)]
    TooLarge { url: String, limit: u64 },
    #[error("{url}: not a valid chart repository index: {message}")]
    Index { url: String, message: String },
    /// A registry's answer kdelta cannot use (a manifest, a tag list, a token).
    #[error("{url}: {message}")]
    Registry { url: String, message: String },
    #[error("chart \"{name}\" not found in {repo}")]
    NoChart { name: String, repo: String },
    #[error("no chart version found for {name}-{constraint} in {repo}")]
    NoVersion {
        name: String,
        constraint: String,
        repo: String,
    },
    /// No tag of a registry or a git remote is the one an Argo CD revision or a Flux `semver`
    /// picks, in the tool's words.
    #[error("{repo}: {message}")]
    Tags { repo: String, message: String },
    #[error("version constraint {constraint:?} of chart {name}: {error}")]
    BadConstraint {
        name: String,
        constraint: String,
        error: crate::semver::SemverError,
    },
    #[error("{url}: the content does not match its digest (expected {expected}, got {actual}); nothing from it is used")]
    DigestMismatch {
        url: String,
        expected: String,
        actual: String,
    },
    #[error("{url}: the chart archive is not usable: {message}")]
    BadArchive { url: String, message: String },
    #[error(
        "no repository named \"{name}\" in Helm's repositories.yaml (helm repo add {name} URL)"
    )]
    UnknownRepository { name: String },
    #[error("{0}")]
    Cache(String),
    #[error("{message}")]
    Setup { message: String },
}

fn status_words(status: u16) -> &'static str {
    match status {
        401 => " Unauthorized (credentials are missing or wrong)",
        403 => " Forbidden (the credentials do not give access)",
        404 => " Not Found",
        429 => " Too Many Requests",
        s if s >= 500 => " (the server failed)",
        _ => "",
    }
}

impl FetchError {
    /// True when trying again may help (a reset connection, a timeout), as gitoxide's
    /// `IsSpuriousError`.
    pub fn is_spurious(&self) -> bool {
        match self {
            FetchError::Network { spurious, .. } => *spurious,
            FetchError::Timeout { .. } => true,
            _ => false,
        }
    }

    /// True when the server could not be reached or failed (not when it refused).
    pub fn is_unreachable(&self) -> bool {
        match self {
            FetchError::Network { .. } | FetchError::Timeout { .. } => true,
            FetchError::Status { status, .. } => *status >= 500,
            _ => false,
        }
    }
}

impl From<CacheError> for FetchError {
    fn from(e: CacheError) -> FetchError {
        FetchError::Cache(e.to_string())
    }
}
