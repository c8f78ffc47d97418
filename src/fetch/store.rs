//! The [`Store`]: kdelta's cache, and the network while a run fetches. Every remote source
//! is resolved here, by the same code online and offline.

use super::helm_repo::{Index, SelectError};
use super::{git, helm_config, helm_repo, http, oci, url};
use super::{
    Cache, ChartRequest, Digest, FetchError, FetchedChart, GitCommit, ListedTags, OciArtifact,
    OciVersion, Settings, Stats, Unavailable,
};
use crate::finding::rules;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

type Once<T> = Arc<OnceLock<Result<T, FetchError>>>;

/// What this run did once per key (a download, a resolution) and how it ended, shared by
/// every thread that asks; the map's lock is not held while the work is done.
struct Memo<K, T>(Mutex<HashMap<K, Once<T>>>);

impl<K, T> Default for Memo<K, T> {
    fn default() -> Self {
        Memo(Mutex::default())
    }
}

impl<K: std::hash::Hash + Eq, T: Clone> Memo<K, T> {
    /// How the work for `key` ended, if it was done this run.
    fn done(&self, key: &K) -> Option<Result<T, FetchError>> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(key)
            .and_then(|once| once.get().cloned())
    }

    /// The result for `key`, from `work` run once whoever asks.
    fn once(&self, key: K, work: impl FnOnce() -> Result<T, FetchError>) -> Result<T, FetchError> {
        let once = self
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(key)
            .or_default()
            .clone();
        once.get_or_init(work).clone()
    }
}

/// A listener for what the fetch step is doing, one line at a time.
pub type Progress = Box<dyn Fn(&str) + Send + Sync>;

/// What a fetched name is, for the closing line's counts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// It can change (an index, a tag, a tag list): fetched again on every fetch step.
    Moving,
    /// A file at a URL (a kustomize resource, a schema document): it can change too.
    File,
    /// A chart archive or layer: never fetched again once cached.
    Chart,
}

/// The largest remote file kdelta reads, as large as a file of the repository may be.
const MAX_REMOTE_FILE_BYTES: u64 = 16 << 20;

/// The cache, and the network while this run fetches.
pub struct Store {
    cache: Cache,
    client: Option<http::Client>,
    /// False once the fetch step is over: what it fetched, and how it failed, still answer.
    online: AtomicBool,
    /// Bodies fetched this run, by key: each is downloaded once, whoever asks.
    fetched: Memo<String, Digest>,
    /// Indexes in their compact form, by the digest of the index.
    indexes: Memo<Digest, Arc<Vec<u8>>>,
    stats: Mutex<Stats>,
    /// Git references resolved this run, by key.
    git_refs: Memo<String, String>,
    /// One fetch at a time into each bare repository.
    git_locks: Mutex<HashMap<std::path::PathBuf, Arc<Mutex<()>>>>,
    /// The keys counted as found in the cache.
    cached_keys: Mutex<std::collections::HashSet<String>>,
    /// Told what is being fetched (a terminal shows it).
    on_progress: OnceLock<Progress>,
    settings: Mutex<Arc<Settings>>,
    /// The user's Helm repositories, read once.
    helm_repositories: OnceLock<helm_config::Repositories>,
    /// The local repository under test (its work tree or git directory).
    local_repository: OnceLock<std::path::PathBuf>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("cache", &self.cache.root())
            .field("online", &self.client.is_some())
            .finish()
    }
}

impl Store {
    /// Reads `cache` only.
    pub fn offline(cache: Cache) -> Store {
        Store {
            cache,
            client: None,
            online: AtomicBool::new(false),
            fetched: Memo::default(),
            indexes: Memo::default(),
            stats: Mutex::default(),
            git_refs: Memo::default(),
            git_locks: Mutex::default(),
            cached_keys: Mutex::default(),
            on_progress: OnceLock::new(),
            settings: Mutex::default(),
            helm_repositories: OnceLock::new(),
            local_repository: OnceLock::new(),
        }
    }

    /// Fetches into `cache` what is asked for and missing, and moving names anew.
    pub fn online(cache: Cache, policy: http::Policy) -> Result<Store, FetchError> {
        Ok(Store {
            client: Some(http::Client::new(policy)?),
            online: AtomicBool::new(true),
            ..Store::offline(cache)
        })
    }

    /// The repository under test, whose commits (a tag, a commit id an Application pins) are
    /// read from its own object database before anything is fetched.
    pub fn set_local_repository(&self, dir: std::path::PathBuf) {
        let _ = self.local_repository.set(dir);
    }

    /// Tells `listener` what is being fetched, as it starts (at most one listener).
    pub fn on_progress(&self, listener: Progress) {
        let _ = self.on_progress.set(listener);
    }

    fn progress(&self, what: &str) {
        if let Some(f) = self.on_progress.get() {
            f(what);
        }
    }

    /// Applies the configuration's settings (mirrors, plain-HTTP hosts) to what is fetched
    /// and read from now on.
    pub fn configure(&self, settings: Settings) {
        if let Some(c) = &self.client {
            c.allow_plain_http(settings.plain_http_hosts.clone());
        }
        *self.settings.lock().unwrap_or_else(|p| p.into_inner()) = Arc::new(settings);
    }

    fn settings(&self) -> Arc<Settings> {
        self.settings
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Ends the fetch step: from now on nothing reaches the network, and a source this run
    /// failed to fetch keeps its failure (a render says why it is missing).
    pub fn go_offline(&self) {
        self.online.store(false, Ordering::SeqCst);
    }

    /// True when this store reaches the network.
    pub fn is_online(&self) -> bool {
        self.client.is_some() && self.online.load(Ordering::SeqCst)
    }

    /// What this run fetched so far.
    pub fn stats(&self) -> Stats {
        self.stats.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The chart archive `request` resolves to: from a Helm HTTP repository, or an OCI
    /// registry for an `oci://` repository.
    pub fn helm_chart(&self, request: &ChartRequest) -> Result<FetchedChart, Unavailable> {
        let repositories = self
            .helm_repositories
            .get_or_init(helm_config::Repositories::load);
        if helm_config::is_named(&request.repo) {
            let url = repositories.url_of(&request.repo).ok_or_else(|| {
                Unavailable::Failed(FetchError::UnknownRepository {
                    name: request
                        .repo
                        .trim_start_matches('@')
                        .trim_start_matches("alias:")
                        .to_string(),
                })
            })?;
            return self.helm_chart(&ChartRequest {
                repo: url.to_string(),
                ..request.clone()
            });
        }
        if request.repo.starts_with("oci://") {
            return self.oci_chart(request);
        }
        let settings = self.settings();
        let source = settings.rewrite(&request.repo);
        let repo = url::Url::parse(&source).map_err(|e| Unavailable::Failed(FetchError::Url(e)))?;
        // Credentials in the URL, else those `helm repo add` stored for it.
        let auth = repo
            .credentials()
            .map(|(user, password)| http::Auth::Basic { user, password })
            .or_else(|| repositories.credentials_for(&request.repo));
        let index_url = url::resolve_reference(&source, "index.yaml")
            .map_err(|e| Unavailable::Failed(FetchError::Url(e)))?;
        let mut warnings = Vec::new();
        let (index_digest, fetched_at) = match self.body(
            &index_url,
            auth.as_ref(),
            Kind::Moving,
            helm_repo::MAX_INDEX_BYTES,
        ) {
            Ok(found) => found,
            // A repository that cannot be reached now: the copy fetched before, if any (a
            // refusal, such as a 401, is an answer and stands).
            Err(Unavailable::Failed(e)) if e.is_unreachable() => {
                match self.cached(&index_url.without_credentials().to_string()) {
                    Some((digest, at)) => {
                        warnings.push((rules::FETCH_STALE, format!(
                            "the index of {} could not be fetched again ({e}); kdelta used the copy fetched at {at}",
                            repo
                        )));
                        (digest, Some(at))
                    }
                    None => return Err(Unavailable::Failed(e)),
                }
            }
            Err(e) => return Err(e),
        };
        let index = self.index(&index_digest, &index_url, &request.name)?;
        let repo_text = repo.to_string();
        let entry = index.select(&request.name, &request.version).map_err(|e| {
            let constraint = request.version.clone();
            let name = request.name.clone();
            let error = match e {
                SelectError::NoChart => FetchError::NoChart {
                    name,
                    repo: repo_text.clone(),
                },
                SelectError::NoVersion => FetchError::NoVersion {
                    name,
                    constraint,
                    repo: repo_text.clone(),
                },
                SelectError::BadConstraint(error) => FetchError::BadConstraint {
                    name,
                    constraint,
                    error,
                },
            };
            match (self.is_online(), fetched_at) {
                // The cached index may be older than the version asked for.
                (false, Some(at)) => Unavailable::NotCached(format!(
                    "{} ({error}; the index was fetched at {at})",
                    request.describe()
                )),
                _ => Unavailable::Failed(error),
            }
        })?;
        let chart_url = url::resolve_reference(&source, &settings.rewrite(&entry.urls[0]))
            .map_err(|e| Unavailable::Failed(FetchError::Url(e)))?;
        // A chart version is immutable: once cached it is not fetched again.
        let (digest, _) = self.body(&chart_url, auth.as_ref(), Kind::Chart, http::MAX_BODY)?;
        let bytes = self
            .cache
            .blob(&digest)
            .map_err(|e| Unavailable::Failed(e.into()))?
            .ok_or_else(|| Unavailable::NotCached(chart_url.to_string()))?;
        if let Some(published) = entry.digest.as_deref().filter(|d| !d.is_empty()) {
            if Digest::parse(published) != Some(digest) {
                warnings.push((rules::FETCH_DIGEST_MISMATCH, format!(
                    "the index of {repo_text} publishes digest {published} for {} {}, but the archive at {chart_url} has {digest}; Helm never checks it, and kdelta rendered the archive it downloaded",
                    request.name, entry.version
                )));
            }
        }
        Ok(FetchedChart {
            version: entry.version.clone(),
            digest,
            bytes: Arc::new(bytes),
            url: chart_url.to_string(),
            revision: None,
            warnings,
        })
    }

    /// How long a request (or a run of `git`) may take.
    fn timeout(&self) -> std::time::Duration {
        self.client
            .as_ref()
            .map_or_else(|| http::Policy::default().timeout, |c| c.timeout())
    }

    /// The local repository under test, when `url` names it.
    fn local_repository_at(&self, settings: &Settings, url: &str) -> Option<&std::path::PathBuf> {
        self.local_repository.get().filter(|_| {
            settings
                .this_repository
                .contains(&url::normalize_repo_url(url))
        })
    }

    /// The lock that keeps a bare repository of the cache to one `git` at a time.
    fn git_lock(&self, repo: &std::path::Path) -> Arc<Mutex<()>> {
        self.git_locks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(repo.to_path_buf())
            .or_default()
            .clone()
    }

    /// The commit `rev` (a branch, a tag, `HEAD`, a commit id) of the git repository at `url`:
    /// fetched once this run when online (a branch or tag moves; a commit id is fetched only
    /// when missing), else what the cache recorded.
    pub fn git_commit(&self, url: &str, rev: &str) -> Result<GitCommit, Unavailable> {
        let rev = if rev.is_empty() { "HEAD" } else { rev };
        let settings = self.settings();
        let timeout = self.timeout();
        // This repository: the local object database may hold the revision already.
        if let Some(local) = self.local_repository_at(&settings, url) {
            if let Some(commit) = git::local_commit(local, rev, timeout) {
                return Ok(GitCommit {
                    repo: local.clone(),
                    commit,
                });
            }
        }
        let url = &settings.rewrite(url);
        let repo = git::repo_dir(self.cache.root(), url);
        let key = format!("git {} {rev}", url::redact_text(url));

        let found = |commit: String| GitCommit {
            repo: repo.clone(),
            commit,
        };
        if let Some(done) = self.git_refs.done(&key) {
            return done.map(found).map_err(Unavailable::Failed);
        }
        let immutable = git::is_commit_id(rev);
        if immutable && git::has_commit(&repo, &rev.to_ascii_lowercase(), timeout) {
            self.found_in_cache(&key);
            return Ok(found(rev.to_ascii_lowercase()));
        }
        if !self.is_online() {
            return self
                .cache
                .record(&key)
                .map(|r| r.digest)
                .filter(|c| git::has_commit(&repo, c, timeout))
                .map(found)
                .ok_or_else(|| Unavailable::NotCached(key.clone()));
        }
        self.git_refs
            .once(key.clone(), || {
                let lock = self.git_lock(&repo);
                let _one_at_a_time = lock.lock().unwrap_or_else(|p| p.into_inner());
                // Refused before anything is created in the cache.
                git::check_url(url, &settings)?;
                self.progress(&format!("fetching {key}"));
                let commit = git::fetch(&repo, url, rev, timeout)?;
                self.cache.set_record_value(&key, &commit)?;
                self.count(|s| s.git += 1);
                Ok(commit)
            })
            .map(found)
            .map_err(Unavailable::Failed)
    }

    /// The tags of the git repository at `url`: this repository's own when `url` is this
    /// repository and its object database has tags; else the remote's, listed once per fetch
    /// step and kept in the cache for offline runs, with when they were listed then.
    pub fn git_tags(&self, url: &str) -> Result<ListedTags, Unavailable> {
        let settings = self.settings();
        let timeout = self.timeout();
        if let Some(local) = self.local_repository_at(&settings, url) {
            let tags = git::local_tags(local, timeout);
            if !tags.is_empty() {
                return Ok(ListedTags {
                    tags,
                    listed_at: None,
                });
            }
        }
        let url = &settings.rewrite(url);
        // No git reference has a space in its name: this key is no branch's.
        let key = format!("git {} (tags)", url::redact_text(url));
        // What this run listed answers first, after the fetch step too.
        let (json, listed_at) = if let Some(done) = self.git_refs.done(&key) {
            (done.map_err(Unavailable::Failed)?, None)
        } else if self.is_online() {
            let repo = git::repo_dir(self.cache.root(), url);
            let json = self
                .git_refs
                .once(key.clone(), || {
                    let lock = self.git_lock(&repo);
                    let _one_at_a_time = lock.lock().unwrap_or_else(|p| p.into_inner());
                    git::check_url(url, &settings)?;
                    self.progress(&format!("listing the tags of {}", url::redact_text(url)));
                    let tags = git::remote_tags(&repo, url, timeout)?;
                    let json = serde_json::to_string(&tags).expect("strings serialise");
                    let digest = self.cache.put_blob(json.as_bytes())?;
                    self.cache.set_record(&key, &digest)?;
                    self.count(|s| s.refreshed += 1);
                    Ok(json)
                })
                .map_err(Unavailable::Failed)?;
            (json, None)
        } else {
            let (digest, at) = self
                .cached(&key)
                .ok_or_else(|| Unavailable::NotCached(key.clone()))?;
            let bytes = self
                .cache
                .blob(&digest)
                .map_err(|e| Unavailable::Failed(e.into()))?
                .ok_or_else(|| Unavailable::NotCached(key.clone()))?;
            (String::from_utf8_lossy(&bytes).into_owned(), Some(at))
        };
        Ok(ListedTags {
            tags: serde_json::from_str(&json).unwrap_or_default(),
            listed_at,
        })
    }

    /// A chart from an OCI registry: the tag the version names (or the highest the
    /// constraint admits among the listed tags; a Flux OCIRepository's ref by Flux's rules),
    /// its manifest (a tag moves: fetched again on every fetch step), then the chart layer
    /// (immutable: by digest).
    fn oci_chart(&self, request: &ChartRequest) -> Result<FetchedChart, Unavailable> {
        let repo =
            oci::Repository::of_chart(&self.settings().rewrite(&request.repo), &request.name)
                .map_err(Unavailable::Failed)?;
        let pick = match &request.oci {
            OciVersion::Helm => oci::Pick::Helm(request.version.clone()),
            OciVersion::FluxChart => oci::Pick::FluxChart(request.version.clone()),
            OciVersion::Flux(r) => oci::Pick::Flux(r.clone()),
        };
        let pulled = self.oci_pull(&repo, &request.name, &pick)?;
        Ok(FetchedChart {
            version: pulled.tag.replace('_', "+"),
            revision: Some(pulled.revision()),
            digest: pulled.digest,
            bytes: Arc::new(pulled.bytes),
            url: pulled.reference,
            warnings: Vec::new(),
        })
    }

    /// The content of an OCI artifact that Argo CD 3 deploys (`repoURL: oci://…` without
    /// `chart:`) or a Flux OCIRepository holds: the layer `pick`'s tool takes.
    pub fn oci_artifact(&self, url: &str, pick: &oci::Pick) -> Result<OciArtifact, Unavailable> {
        let repo = oci::Repository::of_reference(&self.settings().rewrite(url))
            .map_err(Unavailable::Failed)?;
        let pulled = self.oci_pull(&repo, &repo.path, pick)?;
        Ok(OciArtifact(pulled))
    }

    /// The manifest `pick` names in `repo`, and the layer its tool takes from it.
    fn oci_pull(
        &self,
        repo: &oci::Repository,
        name: &str,
        pick: &oci::Pick,
    ) -> Result<oci::Pulled, Unavailable> {
        let failed = Unavailable::Failed;
        let reference = repo.reference();
        let first = match oci::first_reference(pick, name).map_err(failed)? {
            Some(at) => match self.oci_manifest(repo, &at) {
                // Argo CD takes a constraint for a tag first, and lists the tags when no
                // tag has that name.
                Err(Unavailable::NotCached(_))
                | Err(Unavailable::Failed(FetchError::Status { status: 404, .. }))
                    if oci::tags_when_missing(pick) =>
                {
                    None
                }
                found => Some((at, found?)),
            },
            None => None,
        };
        let (at, manifest) = match first {
            Some(found) => found,
            None => {
                let at = oci::ManifestRef::Tag(self.oci_tag(repo, name, pick)?);
                let manifest = self.oci_manifest(repo, &at)?;
                (at, manifest)
            }
        };
        let shown = match &at {
            oci::ManifestRef::Tag(t) => format!("{reference}:{t}"),
            oci::ManifestRef::Digest(d) => format!("{reference}@{d}"),
        };
        let (manifest, manifest_digest) = manifest;
        let (layer, media_type) = oci::content_layer(&manifest, &shown, pick).map_err(failed)?;
        let layer_key = format!("{reference}@{layer}");
        let (digest, _) = self.resolve(&layer_key, None, Kind::Chart, |client| {
            oci::blob(client, repo, &layer)
        })?;
        let bytes = self
            .cache
            .blob(&digest)
            .map_err(|e| failed(e.into()))?
            .ok_or_else(|| Unavailable::NotCached(layer_key.clone()))?;
        Ok(oci::Pulled {
            tag: at.text(),
            reference: shown,
            manifest: manifest_digest,
            digest,
            media_type,
            bytes,
        })
    }

    /// The manifest `at` names and its digest: a tag's fetched again on every fetch step (it
    /// moves), a digest's once.
    fn oci_manifest(
        &self,
        repo: &oci::Repository,
        at: &oci::ManifestRef,
    ) -> Result<(Vec<u8>, Digest), Unavailable> {
        let (key, kind) = match at {
            oci::ManifestRef::Tag(t) => (format!("{}:{t}", repo.reference()), Kind::Moving),
            oci::ManifestRef::Digest(d) => (format!("{}@{d}", repo.reference()), Kind::Chart),
        };
        // The cache is addressed by sha256, so the blob's digest is the manifest's.
        let (digest, _) = self.resolve(&key, None, kind, |client| {
            oci::manifest(client, repo, at).map(|(bytes, _)| bytes)
        })?;
        let bytes = self
            .cache
            .blob(&digest)
            .map_err(|e| Unavailable::Failed(e.into()))?
            .ok_or(Unavailable::NotCached(key))?;
        Ok((bytes, digest))
    }

    /// The tag `pick` names among the repository's tags (listed on every fetch step).
    fn oci_tag(
        &self,
        repo: &oci::Repository,
        name: &str,
        pick: &oci::Pick,
    ) -> Result<String, Unavailable> {
        let reference = repo.reference();
        let key = format!("{reference} tags");
        let (digest, fetched_at) = self.resolve(&key, None, Kind::Moving, |client| {
            let tags = oci::tags(client, repo)?;
            Ok(serde_json::to_vec(&tags).expect("strings serialise"))
        })?;
        let bytes = self
            .cache
            .blob(&digest)
            .map_err(|e| Unavailable::Failed(e.into()))?
            .ok_or_else(|| Unavailable::NotCached(key.clone()))?;
        let tags: Vec<String> = serde_json::from_slice(&bytes).unwrap_or_default();
        oci::pick_among(pick, &tags, name, &reference).map_err(|error| {
            match (self.is_online(), fetched_at, &error) {
                // Tags pushed since the list was fetched may be the answer.
                (false, Some(at), FetchError::NoVersion { .. } | FetchError::Tags { .. }) => {
                    Unavailable::NotCached(format!(
                        "{reference} {} ({error}; the tags were listed at {at})",
                        pick.shown()
                    ))
                }
                _ => Unavailable::Failed(error),
            }
        })
    }

    /// The body of a file at an http(s) URL (a kustomize resource such as a release's
    /// `install.yaml`), with its digest: fetched once per run when online (the URL may serve
    /// new content), else what the cache recorded.
    pub fn remote_file(&self, raw: &str) -> Result<(Digest, Arc<Vec<u8>>), Unavailable> {
        let source = self.settings().rewrite(raw);
        let url = url::Url::parse(&source).map_err(|e| Unavailable::Failed(FetchError::Url(e)))?;
        let auth = url
            .credentials()
            .map(|(user, password)| http::Auth::Basic { user, password });
        let (digest, _) = self.body(&url, auth.as_ref(), Kind::File, MAX_REMOTE_FILE_BYTES)?;
        let bytes = self
            .cache
            .blob(&digest)
            .map_err(|e| Unavailable::Failed(e.into()))?
            .ok_or_else(|| Unavailable::NotCached(url.without_credentials().to_string()))?;
        Ok((digest, Arc::new(bytes)))
    }

    /// The digest of `url`'s body: see [`Store::resolve`].
    fn body(
        &self,
        url: &url::Url,
        auth: Option<&http::Auth>,
        kind: Kind,
        limit: u64,
    ) -> Result<(Digest, Option<String>), Unavailable> {
        let key = url.without_credentials().to_string();
        self.resolve(&key, auth, kind, |client| {
            let accept = match kind {
                Kind::Moving | Kind::File => {
                    "application/x-yaml,application/yaml,application/json,*/*"
                }
                Kind::Chart => "application/gzip,application/octet-stream",
            };
            Ok(client.get_ok(url, accept, auth, limit)?.body)
        })
    }

    /// The digest of what `key` names: fetched with `fetch` once this run when online and
    /// the name moves (or nothing is cached), else from the cache's record. The second value
    /// is when the cached record was fetched, for an offline answer. What this run already
    /// fetched, or failed to, answers first.
    fn resolve(
        &self,
        key: &str,
        auth: Option<&http::Auth>,
        kind: Kind,
        fetch: impl FnOnce(&http::Client) -> Result<Vec<u8>, FetchError>,
    ) -> Result<(Digest, Option<String>), Unavailable> {
        let cached = self.cached(key);
        // Two requests for one name with different credentials may get different answers.
        let memo_key = match auth {
            Some(a) => format!("{key}\n{}", a.fingerprint()),
            None => key.to_string(),
        };
        if let Some(done) = self.fetched.done(&memo_key) {
            return done.map(|d| (d, None)).map_err(Unavailable::Failed);
        }
        let client = match &self.client {
            Some(c) if self.is_online() => c,
            _ => {
                return cached
                    .map(|(d, at)| (d, Some(at)))
                    .ok_or_else(|| Unavailable::NotCached(key.to_string()))
            }
        };
        if kind == Kind::Chart {
            if let Some((d, _)) = cached {
                self.found_in_cache(key);
                return Ok((d, None));
            }
        }
        let result = self.fetched.once(memo_key, || {
            self.progress(&format!("fetching {key}"));
            let body = fetch(client)?;
            let digest = self.cache.put_blob(&body)?;
            self.cache.set_record(key, &digest)?;
            let size = body.len() as u64;
            self.count(|s| match kind {
                Kind::Moving => s.refreshed += 1,
                Kind::File => s.files += 1,
                Kind::Chart => {
                    s.charts += 1;
                    s.chart_bytes += size;
                }
            });
            Ok(digest)
        });
        result.map(|d| (d, None)).map_err(Unavailable::Failed)
    }

    /// What the cache recorded for `key`, and when it was fetched.
    fn cached(&self, key: &str) -> Option<(Digest, String)> {
        self.cache
            .record(key)
            .and_then(|r| Some((Digest::parse(&r.digest)?, r.fetched_at)))
            .filter(|(d, _)| self.cache.has_blob(d))
    }

    /// The versions of chart `name` in the index with `digest`, read from its compact form
    /// (made once per index and kept in the cache), so a warm run never parses the index.
    fn index(&self, digest: &Digest, url: &url::Url, name: &str) -> Result<Index, Unavailable> {
        let compact = self
            .indexes
            .once(*digest, || {
                let key = format!("compact index {digest}");
                let kept = self
                    .cache
                    .record(&key)
                    .and_then(|r| Digest::parse(&r.digest))
                    .and_then(|d| self.cache.blob(&d).ok().flatten());
                if let Some(bytes) = kept {
                    return Ok(Arc::new(bytes));
                }
                let bytes = self
                    .cache
                    .blob(digest)?
                    .ok_or_else(|| FetchError::Cache(format!("{digest} left the cache")))?;
                let compact = Index::parse(&bytes, &url.to_string())?
                    .compact()
                    .into_bytes();
                // Only a cache that cannot be written loses the shortcut; the index still reads.
                if let Ok(d) = self.cache.put_blob(&compact) {
                    let _ = self.cache.set_record(&key, &d);
                }
                Ok(Arc::new(compact))
            })
            .map_err(Unavailable::Failed)?;
        Ok(Index::from_compact(&compact, name))
    }

    /// Counts `key` as found in the cache, once per run.
    fn found_in_cache(&self, key: &str) {
        let new = self
            .cached_keys
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key.to_string());
        if new {
            self.count(|s| s.from_cache += 1);
        }
    }

    fn count(&self, f: impl FnOnce(&mut Stats)) {
        f(&mut self.stats.lock().unwrap_or_else(|p| p.into_inner()));
    }
}
