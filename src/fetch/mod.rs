//! Remote sources: what lives outside the repository (charts in Helm repositories and OCI
//! registries, OCI artifacts, other git repositories), resolved and downloaded into kdelta's
//! content-addressed cache, and read back from it.
//!
//! A [`Store`] is either *offline* (rendering: it reads the cache and never the network; what
//! is not cached is [`Unavailable::NotCached`]) or *online* (the fetch step, `kdelta fetch` or
//! `--fetch`: each moving name, such as a repository's `index.yaml`, is fetched again once per
//! run, and what the cache lacks is downloaded once per run, however many targets and
//! revisions ask for it). Both answer through the same resolution code, so a render after a
//! fetch sees exactly what the fetch resolved.

pub mod cache;
mod error;
pub mod git;
pub mod helm_cache;
pub mod helm_config;
pub mod helm_repo;
pub mod http;
pub mod oci;
mod store;
pub mod tags;
pub mod url;

pub use cache::{Cache, CacheError, Digest};
pub use error::FetchError;
pub use store::{Progress, Store};

use crate::finding::Rule;
use std::sync::Arc;

/// True when `repo` names a chart repository the fetch layer reads: `https://` or
/// `http://` (a Helm repository), `oci://` (a registry).
pub fn is_chart_repository(repo: &str) -> bool {
    ["https://", "http://", "oci://"]
        .iter()
        .any(|p| repo.starts_with(p))
        || helm_config::is_named(repo)
}

/// A chart in a Helm HTTP repository, as a `Chart.yaml` dependency, a kustomize `helmCharts`
/// entry or an Argo CD Application names it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChartRequest {
    /// The repository URL as written (it may carry credentials; they are never printed).
    pub repo: String,
    pub name: String,
    /// A version or a constraint; empty means the newest release. For a Flux OCIRepository,
    /// its ref as messages show it (`oci` holds the ref).
    pub version: String,
    /// How `version` picks a tag when the repository is an OCI registry.
    pub oci: OciVersion,
}

/// How a chart request's version picks an OCI tag: as the tool that makes the request does.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OciVersion {
    /// Helm's (`helm pull --version`, a `Chart.yaml` dependency; kustomize's `helmCharts` and
    /// Argo CD pull with Helm): a version Masterminds reads
    /// (`1.2.0`, `v1.2.0`, `1.2`) is the tag as written, a constraint picks among the tags
    /// that are strict versions.
    #[default]
    Helm,
    /// A Flux HelmRepository of `type: oci`: as Helm's, but only a strict version (a leading
    /// `v` allowed) is the tag as written; `1.2` is a constraint.
    FluxChart,
    /// A Flux OCIRepository's ref, which `version` only shows.
    Flux(oci::FluxRef),
}

impl ChartRequest {
    /// How reports name the chart: `helm REPO NAME`, without credentials.
    pub fn source(&self) -> String {
        format!("helm {} {}", url::redact_text(&self.repo), self.name)
    }

    /// How messages name the request: `REPO NAME@CONSTRAINT`, without credentials.
    pub fn describe(&self) -> String {
        let v = if self.version.is_empty() {
            "*"
        } else {
            &self.version
        };
        format!("{} {}@{v}", url::redact_text(&self.repo), self.name)
    }
}

/// A chart archive from the cache.
#[derive(Clone, Debug)]
pub struct FetchedChart {
    /// The version the request resolved to.
    pub version: String,
    /// The sha256 of the archive kdelta read (what the cache and the report record).
    pub digest: Digest,
    pub bytes: Arc<Vec<u8>>,
    /// Where it was downloaded from (without credentials).
    pub url: String,
    /// From a registry: the revision source-controller records for it (`TAG@sha256:HEX` of
    /// its manifest, or `sha256:HEX` when pulled by digest).
    pub revision: Option<String>,
    /// Things worth a warning, with their rule: the index's published digest differs from
    /// the archive's; the index could not be fetched again and the cached copy was used.
    pub warnings: Vec<(Rule, String)>,
}

/// A git repository's tags and, when they come from the cache, when they were listed.
#[derive(Clone, Debug)]
pub struct ListedTags {
    pub tags: Vec<String>,
    pub listed_at: Option<String>,
}

/// An OCI artifact's content layer.
pub struct OciArtifact(oci::Pulled);

impl OciArtifact {
    /// The tag the version resolved to.
    pub fn tag(&self) -> &str {
        &self.0.tag
    }

    /// The content layer's digest.
    pub fn digest(&self) -> Digest {
        self.0.digest
    }

    /// Its files (paths relative to the artifact's root), unpacked with path and size checks.
    pub fn files(&self) -> Result<Vec<(String, Vec<u8>)>, FetchError> {
        oci::unpack(&self.0.bytes, &self.0.media_type, &self.0.reference)
    }
}

/// Why a remote source is not there to render.
#[derive(Clone, Debug)]
pub enum Unavailable {
    /// Not in the cache, and this run does not fetch (the text says what is missing).
    NotCached(String),
    /// Fetching, or using what was fetched, failed.
    Failed(FetchError),
}

impl Unavailable {
    /// Why it leaves an output incomplete.
    pub fn incomplete(&self) -> crate::finding::Incomplete {
        match self {
            Unavailable::NotCached(_) => crate::finding::Incomplete::NotFetched,
            Unavailable::Failed(_) => crate::finding::Incomplete::FetchFailed,
        }
    }
}

impl std::fmt::Display for Unavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unavailable::NotCached(what) => write!(f, "{what} is not in kdelta's cache"),
            Unavailable::Failed(e) => write!(f, "{e}"),
        }
    }
}

/// How sources are reached (`.kdelta.yaml` `fetch:`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// Hosts (`host` or `host:port`) that may be reached over plain HTTP besides loopback.
    pub plain_http_hosts: Vec<String>,
    /// `(from, to)` URL prefixes: a source under `from` is fetched from `to` instead.
    pub mirrors: Vec<(String, String)>,
    /// This repository's URLs ([`url::normalize_repo_url`]): a source naming it at a pinned
    /// revision reads that revision from the local repository first.
    pub this_repository: Vec<String>,
}

impl Settings {
    /// `url` with the first matching mirror's prefix in place of the source's.
    pub fn rewrite(&self, url: &str) -> String {
        self.mirrors
            .iter()
            .find(|(from, _)| !from.is_empty() && url.starts_with(from.as_str()))
            .map_or_else(
                || url.to_string(),
                |(from, to)| format!("{to}{}", &url[from.len()..]),
            )
    }

    /// True when plain HTTP (or git://) may reach `host` (with its port, if any).
    pub fn plain_http_allowed(&self, host: &str, port: Option<u16>) -> bool {
        let with_port = port.map(|p| format!("{host}:{p}"));
        self.plain_http_hosts.iter().any(|h| {
            h.eq_ignore_ascii_case(host)
                || with_port
                    .as_deref()
                    .is_some_and(|w| h.eq_ignore_ascii_case(w))
        })
    }
}

/// What one run fetched, for the closing line of `kdelta fetch`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Chart archives downloaded, and their bytes.
    pub charts: usize,
    pub chart_bytes: u64,
    /// Indexes and other moving names fetched again.
    pub refreshed: usize,
    /// Immutable sources found in the cache (each counted once).
    pub from_cache: usize,
    /// Git references fetched.
    pub git: usize,
    /// Files at URLs fetched (kustomize resources, schema documents), again on every fetch
    /// step.
    pub files: usize,
}

/// A commit of another git repository, fetched into the cache.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GitCommit {
    /// The bare repository that holds it.
    pub repo: std::path::PathBuf,
    /// The full commit id.
    pub commit: String,
}
