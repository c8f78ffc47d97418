//! The recording file view every engine reads through while rendering one target (DESIGN's
//! `RecordingSnapshot`): reads go through the snapshot, are recorded in the target's
//! [`ReadSet`] (for the content-addressed cache), and YAML is parsed once per content id and
//! parse options, shared between targets, threads and revisions.

use super::{Bytes, DirEntry, EntryKind, LaterRead, ObjectId, RepoPath, Snapshot, SourceError};
use crate::fetch::{ChartRequest, FetchedChart, Store, Unavailable};
use crate::finding::{rules, Finding};
use crate::yaml::{self, Frozen, Node, ParseOptions, YamlError};
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

/// Every input a render looked at, with a fingerprint of what it saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadSet {
    /// Files read, with what was seen of their (symlink-resolved) contents.
    pub files: BTreeMap<RepoPath, Seen>,
    /// Directories listed, by a digest of their entries.
    pub dirs: BTreeMap<RepoPath, u64>,
    /// Paths whose existence or kind was checked.
    pub kinds: BTreeMap<RepoPath, EntryKind>,
    /// Remote sources read from the fetch store: what was asked for (a chart request) and
    /// what it resolved to (version and digest). One run resolves a request once, and a
    /// request is made of what the files read hold, so these need no check of their own.
    pub remote: BTreeMap<String, String>,
    /// True when the render stopped midway (a crash): the set may lack inputs, so it proves
    /// nothing and the target is rendered again at head.
    pub partial: bool,
    /// The reads of memoized results this render used ([`Files::memoized`]), shared rather
    /// than copied: many targets taking their part of one kustomization's build would
    /// otherwise each hold, and check, all of its reads.
    pub shared: Vec<Arc<SharedReads>>,
}

/// The read set of a memoized result, with the snapshots it is known unchanged in.
#[derive(Debug, Default)]
pub struct SharedReads {
    pub reads: ReadSet,
    /// Snapshots (by address; they outlive the run's cache) checked, and the answer.
    checked: Mutex<Vec<(usize, bool)>>,
}

impl PartialEq for SharedReads {
    fn eq(&self, other: &SharedReads) -> bool {
        self.reads == other.reads
    }
}

impl Eq for SharedReads {}

impl SharedReads {
    fn new(reads: ReadSet) -> SharedReads {
        SharedReads {
            reads,
            checked: Mutex::default(),
        }
    }

    /// [`ReadSet::unchanged_in`], checked once per snapshot.
    pub fn unchanged_in(&self, snapshot: &dyn Snapshot) -> bool {
        let here = snapshot as *const dyn Snapshot as *const u8 as usize;
        let mut checked = self.checked.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, answer)) = checked.iter().find(|(s, _)| *s == here) {
            return *answer;
        }
        let answer = self.reads.unchanged_in(snapshot);
        checked.push((here, answer));
        answer
    }

    /// Records that the read set holds in `snapshot` (where it was just computed).
    fn holds_in(&self, snapshot: &dyn Snapshot) {
        let here = snapshot as *const dyn Snapshot as *const u8 as usize;
        self.checked
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((here, true));
    }
}

impl ReadSet {
    /// The remote sources read, including those of the shared reads.
    pub fn remote_sources(&self) -> BTreeMap<String, String> {
        let mut out = self.remote.clone();
        for s in &self.shared {
            out.extend(s.reads.remote_sources());
        }
        out
    }

    /// True when `snapshot` has exactly the same inputs, so a render there would give the same
    /// output. Conservative: anything it cannot prove equal counts as changed.
    pub fn unchanged_in(&self, snapshot: &dyn Snapshot) -> bool {
        !self.partial
            && self.shared.iter().all(|s| s.unchanged_in(snapshot))
            && self.kinds.iter().all(|(p, k)| snapshot.kind(p) == *k)
            && self.dirs.iter().all(|(d, h)| {
                snapshot
                    .list(d)
                    .map(|entries| listing_digest(&entries) == *h)
                    .unwrap_or(false)
            })
            && self.files.iter().all(|(p, seen)| seen.same_in(snapshot, p))
    }
}

/// What a render saw of one file: its content id when the snapshot stores one (git's trees
/// and index), else the contents themselves. A work tree's id would take a hash of every file
/// read, which only a comparison with another revision needs (`kdelta render` never makes
/// one), and comparing the bytes is cheaper than hashing them.
#[derive(Clone)]
pub enum Seen {
    Id(ObjectId),
    Contents(Bytes),
}

impl Seen {
    /// The content id (hashed now for seen contents).
    pub fn id(&self) -> ObjectId {
        match self {
            Seen::Id(id) => *id,
            Seen::Contents(bytes) => ObjectId::for_blob(bytes),
        }
    }

    /// True when `path` in `snapshot` has the same contents.
    fn same_in(&self, snapshot: &dyn Snapshot, path: &RepoPath) -> bool {
        match self {
            // Fast path: the snapshot's own id (a git blob id) of a regular file.
            Seen::Id(id) if snapshot.object_id(path) == Some(*id) => true,
            Seen::Id(id) => snapshot
                .read(path)
                .is_ok_and(|b| ObjectId::for_blob(&b) == *id),
            Seen::Contents(bytes) => match snapshot.stored_id(path) {
                Some(id) => ObjectId::for_blob(bytes) == id,
                None => snapshot.read(path).is_ok_and(|b| b[..] == bytes[..]),
            },
        }
    }
}

impl PartialEq for Seen {
    fn eq(&self, other: &Seen) -> bool {
        match (self, other) {
            (Seen::Contents(a), Seen::Contents(b)) => a[..] == b[..],
            _ => self.id() == other.id(),
        }
    }
}

impl Eq for Seen {}

impl std::fmt::Debug for Seen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.id())
    }
}

fn listing_digest(entries: &[DirEntry]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for e in entries {
        e.name.hash(&mut h);
        (e.kind as u8).hash(&mut h);
    }
    h.finish()
}

type ParsedStream = Arc<Result<Vec<Node>, YamlError>>;

/// A result derived from many files, with the read set it was computed from.
/// A memoized value with the reads it was computed from.
type Memo = (Arc<SharedReads>, Arc<dyn std::any::Any + Send + Sync>);
/// Memos by key, a few versions each (a run reads two revisions, and the fetch step others).
type MemoMap = HashMap<String, Vec<Memo>>;

/// How many versions of one memo are kept.
const MEMO_VERSIONS: usize = 4;
/// An engine's own reading of a blob's documents (kyaml's, for kustomize resource files),
/// with how many pieces the stream had.
pub type Documents = Result<(Vec<Node>, usize), YamlError>;

/// A reading of documents as the cache keeps it.
#[derive(Debug)]
enum Kept {
    Frozen(Frozen, usize),
    Failed(YamlError),
    /// Too large to freeze: parsed again by each reader.
    TooLarge,
}

impl Kept {
    fn of(documents: &Documents) -> Kept {
        match documents {
            Ok((trees, pieces)) => match Frozen::of(trees) {
                Some(frozen) => Kept::Frozen(frozen, *pieces),
                None => Kept::TooLarge,
            },
            Err(e) => Kept::Failed(e.clone()),
        }
    }

    fn documents(&self) -> Option<Documents> {
        match self {
            Kept::Frozen(frozen, pieces) => Some(Ok((frozen.thaw(), *pieces))),
            Kept::Failed(e) => Some(Err(e.clone())),
            Kept::TooLarge => None,
        }
    }

    fn heap_bytes(&self) -> usize {
        match self {
            Kept::Frozen(frozen, _) => frozen.heap_bytes(),
            Kept::Failed(_) | Kept::TooLarge => 0,
        }
    }
}

/// One slot of the documents cache: the frozen parse, the memory it takes (what the cache's
/// budget counts, known once it is parsed) and when it was last asked for.
struct DocumentsSlot {
    kept: Arc<OnceLock<Kept>>,
    bytes: usize,
    last_use: u64,
}

/// The documents cache, least recently used first out once its parses pass
/// [`DOCUMENTS_BUDGET`]: the overlays that share a base are mostly rendered near each other,
/// so a base's parse is reused while they are, and then makes room.
struct DocumentsMap {
    slots: HashMap<(ObjectId, &'static str), DocumentsSlot>,
    bytes: usize,
    clock: u64,
    budget: usize,
}

impl Default for DocumentsMap {
    fn default() -> Self {
        DocumentsMap {
            slots: HashMap::new(),
            bytes: 0,
            clock: 0,
            budget: DOCUMENTS_BUDGET,
        }
    }
}

/// The documents cache's budget, in bytes of frozen parses (a repository's resource files
/// need not all be held at once: kubeflow/manifests has 32 MB of them at two releases).
const DOCUMENTS_BUDGET: usize = 24 * 1024 * 1024;

impl DocumentsMap {
    /// The slot for `key` (made if there is none), marked used.
    fn slot(&mut self, key: (ObjectId, &'static str)) -> Arc<OnceLock<Kept>> {
        self.clock += 1;
        let clock = self.clock;
        let slot = self.slots.entry(key).or_insert_with(|| DocumentsSlot {
            kept: Arc::new(OnceLock::new()),
            bytes: 0,
            last_use: clock,
        });
        slot.last_use = clock;
        Arc::clone(&slot.kept)
    }

    /// Counts the parse just kept in `key`'s slot, making room if the cache is over budget.
    fn settle(&mut self, key: (ObjectId, &'static str), bytes: usize) {
        let Some(slot) = self.slots.get_mut(&key) else {
            return;
        };
        if slot.bytes != 0 {
            return;
        }
        slot.bytes = bytes;
        self.bytes += bytes;
        if self.bytes > self.budget {
            self.evict(key);
        }
    }

    /// The documents for `key` if they are parsed and kept, marked used.
    fn done(&mut self, key: &(ObjectId, &'static str)) -> Option<Arc<OnceLock<Kept>>> {
        self.clock += 1;
        let slot = self.slots.get_mut(key)?;
        slot.last_use = self.clock;
        slot.kept.get().is_some().then(|| Arc::clone(&slot.kept))
    }

    /// Drops the least recently used slots (never `keep`, the one just parsed) down to three
    /// quarters of the budget, so that evictions come in batches.
    fn evict(&mut self, keep: (ObjectId, &'static str)) {
        let mut by_age: Vec<(u64, (ObjectId, &'static str))> = self
            .slots
            .iter()
            .filter(|(k, _)| **k != keep)
            .map(|(k, s)| (s.last_use, *k))
            .collect();
        by_age.sort_unstable();
        for (_, key) in by_age {
            if self.bytes <= self.budget - self.budget / 4 {
                break;
            }
            if let Some(slot) = self.slots.remove(&key) {
                self.bytes -= slot.bytes;
            }
        }
    }
}
/// One slot per blob and set of options: the first thread to ask parses, the others wait for
/// it rather than parse the same blob again.
type StreamMap = HashMap<(ObjectId, ParseOptions), Arc<OnceLock<ParsedStream>>>;

/// Parsed YAML streams shared across targets, threads and revisions, keyed by content id and
/// everything that changes a parse (the [`ParseOptions`]: limits, duplicate-key mode, comment
/// dialect).
///
/// It also carries the run's fetch store, the one way a render reads what lives outside the
/// repository.
#[derive(Default)]
pub struct ParseCache {
    streams: Mutex<StreamMap>,
    documents: Mutex<DocumentsMap>,
    /// Results derived from many files (see [`Files::memoized`]).
    memos: Mutex<MemoMap>,
    store: Option<Arc<Store>>,
    /// Commits of other repositories and OCI artifacts, opened once per run.
    remote_snapshots: Mutex<HashMap<(std::path::PathBuf, String), RemoteSnapshot>>,
}

impl ParseCache {
    /// A cache whose renders read remote sources from `store`.
    pub fn with_store(store: Option<Arc<Store>>) -> ParseCache {
        ParseCache {
            store,
            ..ParseCache::default()
        }
    }

    /// The stream parsed from blob `id` with `opts`, if it was.
    fn parsed_stream(&self, id: ObjectId, opts: &ParseOptions) -> Option<ParsedStream> {
        self.lock().get(&(id, *opts))?.get().cloned()
    }

    /// The documents `reader` read from blob `id`, if it did and they are kept.
    fn parsed_documents(&self, id: ObjectId, reader: &'static str) -> Option<Documents> {
        let kept = self.documents_map().done(&(id, reader))?;
        // Thawed outside the lock.
        kept.get()?.documents()
    }

    fn documents_map(&self) -> std::sync::MutexGuard<'_, DocumentsMap> {
        self.documents.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn get_or_parse(&self, id: ObjectId, bytes: &[u8], opts: &ParseOptions) -> ParsedStream {
        let slot = self.lock().entry((id, *opts)).or_default().clone();
        // The map's lock is not held while parsing: other blobs parse in parallel.
        slot.get_or_init(|| Arc::new(yaml::parse_stream(bytes, opts)))
            .clone()
    }

    fn memos(&self) -> std::sync::MutexGuard<'_, MemoMap> {
        self.memos.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, StreamMap> {
        // A poisoned lock only means another thread panicked mid-insert; the map is still valid.
        self.streams.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn documents_or_parse(
        &self,
        id: ObjectId,
        reader: &'static str,
        bytes: &[u8],
        parse: impl FnOnce(&[u8]) -> Result<(Vec<Node>, usize), YamlError>,
    ) -> Documents {
        let key = (id, reader);
        let slot = self.documents_map().slot(key);
        // The thread that parses keeps a frozen copy and uses its own trees; the others wait
        // for it and thaw the copy.
        let mut parse = Some(parse);
        let mut parsed = None;
        let kept = slot.get_or_init(|| {
            let documents = (parse.take().expect("parses once"))(bytes);
            let kept = Kept::of(&documents);
            parsed = Some(documents);
            kept
        });
        match parsed {
            Some(documents) => {
                self.documents_map().settle(key, kept.heap_bytes());
                documents
            }
            None => kept
                .documents()
                .unwrap_or_else(|| (parse.take().expect("not used yet"))(bytes)),
        }
    }
}

/// A commit of another repository, or an OCI artifact's content, as rendering reads it.
pub type RemoteSnapshot = Arc<dyn Snapshot + Send + Sync>;

/// A failure to load a file, already phrased as a finding.
#[derive(Debug, Clone)]
pub struct LoadError(pub Box<Finding>);

impl LoadError {
    /// The finding.
    pub fn into_finding(self) -> Finding {
        *self.0
    }
}

/// Read access for one render of one target.
pub struct Files<'a> {
    snapshot: &'a dyn Snapshot,
    cache: &'a ParseCache,
    read_set: Mutex<ReadSet>,
    /// The file read last, which a crash report names.
    last_read: Mutex<Option<RepoPath>>,
    /// Files an engine sees with other contents for a while (see [`Files::with_replaced`]).
    replaced: Mutex<HashMap<RepoPath, Bytes>>,
    /// The reads deferred by [`Files::read_later`] that ran.
    late: Arc<Mutex<LateReads>>,
}

/// Reads that ran after the walk that asked for them ([`Files::read_later`]).
#[derive(Default)]
struct LateReads {
    files: Vec<(RepoPath, Seen)>,
    /// One failed: the render saw nothing of that file, so its read set proves nothing.
    failed: bool,
}

/// A file's contents, read now or to be read later ([`Files::read_later`]).
pub enum Contents {
    Read(Bytes),
    Later(LaterRead),
}

impl<'a> Files<'a> {
    /// Starts recording reads from `snapshot`.
    pub fn new(snapshot: &'a dyn Snapshot, cache: &'a ParseCache) -> Files<'a> {
        Files {
            snapshot,
            cache,
            read_set: Mutex::new(ReadSet::default()),
            last_read: Mutex::new(None),
            replaced: Mutex::new(HashMap::new()),
            late: Arc::default(),
        }
    }

    /// Runs `f` with `path` reading as `contents` (a file then, whether or not the snapshot
    /// has one there), as Argo CD's `kustomize edit` rewrites a kustomization in its checkout
    /// before the build, or Flux writes the kustomization it generates. The edited file is derived from the
    /// original, which the caller read (and so recorded) first; reads of the replacement are
    /// not recorded.
    pub fn with_replaced<T>(&self, path: &RepoPath, contents: Bytes, f: impl FnOnce() -> T) -> T {
        let previous = self.replacements().insert(path.clone(), contents);
        let out = f();
        match previous {
            Some(p) => self.replacements().insert(path.clone(), p),
            None => self.replacements().remove(path),
        };
        out
    }

    fn replacements(&self) -> std::sync::MutexGuard<'_, HashMap<RepoPath, Bytes>> {
        self.replaced.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The file read last (for a crash report: most likely the one being worked on).
    pub fn last_read(&self) -> Option<RepoPath> {
        self.last_read
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn record(&self) -> std::sync::MutexGuard<'_, ReadSet> {
        self.read_set.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What was read so far.
    pub fn into_read_set(self) -> ReadSet {
        let mut read_set = self
            .read_set
            .into_inner()
            .unwrap_or_else(|p| p.into_inner());
        let late = std::mem::take(&mut *self.late.lock().unwrap_or_else(|p| p.into_inner()));
        read_set.files.extend(late.files);
        read_set.partial |= late.failed;
        read_set
    }

    /// The snapshot being read.
    pub fn snapshot(&self) -> &dyn Snapshot {
        self.snapshot
    }

    /// Reads a file.
    pub fn read(&self, path: &RepoPath) -> Result<Bytes, SourceError> {
        *self.last_read.lock().unwrap_or_else(|p| p.into_inner()) = Some(path.clone());
        if let Some(bytes) = self.replacements().get(path) {
            return Ok(bytes.clone());
        }
        match self.snapshot.read_seen(path) {
            Ok((bytes, seen)) => {
                self.record().files.insert(path.clone(), seen);
                Ok(bytes)
            }
            Err(e) => Err(self.record_failed_read(path, e)),
        }
    }

    /// Reads a file now, or prepares its read for later when the snapshot can defer it (a
    /// chart's `.Files`, which most templates never look at). What can be checked without the
    /// contents (the file is there, regular, not too large) is checked now. A snapshot that
    /// names the contents' id (git's trees, the index) has the read recorded now; a work tree's
    /// file is recorded when its read runs, which must be before [`Files::into_read_set`]: a
    /// file never read is no input of the render.
    pub fn read_later(&self, path: &RepoPath) -> Result<Contents, SourceError> {
        if let Some(bytes) = self.replacements().get(path) {
            return Ok(Contents::Read(bytes.clone()));
        }
        let later = match self.snapshot.read_later(path) {
            Ok(Some(later)) => later,
            Ok(None) => return self.read(path).map(Contents::Read),
            Err(e) => return Err(self.record_failed_read(path, e)),
        };
        if let Some(id) = self.snapshot.stored_id(path) {
            self.record().files.insert(path.clone(), Seen::Id(id));
            return Ok(Contents::Later(later));
        }
        let (late, path) = (self.late.clone(), path.clone());
        Ok(Contents::Later(Box::new(move || {
            let read = later();
            let mut late = late.lock().unwrap_or_else(|p| p.into_inner());
            match &read {
                Ok(bytes) => late.files.push((path, Seen::Contents(bytes.clone()))),
                Err(_) => late.failed = true,
            }
            read
        })))
    }

    /// Records the kind of a path whose read failed (a missing file may appear).
    fn record_failed_read(&self, path: &RepoPath, e: SourceError) -> SourceError {
        let kind = self.snapshot.kind(path);
        self.record().kinds.insert(path.clone(), kind);
        e
    }

    /// Reads a file and gives its content id, which is computed once per read.
    fn read_with_id(&self, path: &RepoPath) -> Result<(Bytes, ObjectId), SourceError> {
        *self.last_read.lock().unwrap_or_else(|p| p.into_inner()) = Some(path.clone());
        if let Some(bytes) = self.replacements().get(path) {
            return Ok((bytes.clone(), ObjectId::for_blob(bytes)));
        }
        match self.snapshot.read_with_id(path) {
            Ok((bytes, id)) => {
                self.record().files.insert(path.clone(), Seen::Id(id));
                Ok((bytes, id))
            }
            Err(e) => Err(self.record_failed_read(path, e)),
        }
    }

    /// The content id of `path` when the snapshot stores it and no replacement hides it: a
    /// parse cached under it needs no read of the file. The lookup is recorded as a read.
    fn stored_id(&self, path: &RepoPath) -> Option<ObjectId> {
        if self.replacements().contains_key(path) {
            return None;
        }
        self.snapshot.stored_id(path)
    }

    /// Records a read of `path` (content `id`) that a cached parse answered.
    fn record_cached_read(&self, path: &RepoPath, id: ObjectId) {
        *self.last_read.lock().unwrap_or_else(|p| p.into_inner()) = Some(path.clone());
        self.record().files.insert(path.clone(), Seen::Id(id));
    }

    /// Lists a directory.
    pub fn list(&self, dir: &RepoPath) -> Result<Vec<DirEntry>, SourceError> {
        let result = self.snapshot.list(dir);
        match &result {
            Ok(entries) => {
                self.record()
                    .dirs
                    .insert(dir.clone(), listing_digest(entries));
            }
            Err(_) => {
                let kind = self.snapshot.kind(dir);
                self.record().kinds.insert(dir.clone(), kind);
            }
        }
        result
    }

    /// The path with its symbolic links resolved (recorded like a kind lookup, so a changed
    /// link changes the read set).
    pub fn canonical(&self, path: &RepoPath) -> Result<RepoPath, SourceError> {
        self.kind(path);
        self.snapshot.canonical(path)
    }

    /// Why a path whose [`kind`](Self::kind) is `Missing` cannot be used: `None` when nothing
    /// is there, else what is wrong with what is there (a symbolic link leaving the
    /// repository, a link loop).
    pub fn why_missing(&self, path: &RepoPath) -> Option<SourceError> {
        match self.read(path) {
            Err(SourceError::NotFound { .. }) | Ok(_) => None,
            Err(e) => Some(e),
        }
    }

    /// The chart archive `request` resolves to in the fetch store, recorded with its version
    /// and digest; without a store, nothing is cached.
    pub fn helm_chart(&self, request: &ChartRequest) -> Result<FetchedChart, Unavailable> {
        let Some(store) = &self.cache.store else {
            return Err(Unavailable::NotCached(request.describe()));
        };
        let chart = store.helm_chart(request)?;
        // Keyed by the chart, not the constraint, so a bump pairs across revisions; one
        // target naming the same chart twice (aliases) lists both.
        let resolved = format!("{} {}", chart.version, chart.digest);
        let mut record = self.record();
        let entry = record.remote.entry(request.source()).or_default();
        if !entry.split(", ").any(|r| r == resolved) {
            if !entry.is_empty() {
                entry.push_str(", ");
            }
            entry.push_str(&resolved);
        }
        drop(record);
        Ok(chart)
    }

    /// A chart archive of Helm's own repository cache ([`crate::fetch::helm_cache`]), read
    /// from the disk; recorded as a remote source with its digest.
    pub fn helm_cache_archive(&self, path: &std::path::Path) -> std::io::Result<Vec<u8>> {
        let bytes = crate::fetch::helm_cache::read(path)?;
        self.record().remote.insert(
            format!("helm-cache {}", path.display()),
            crate::fetch::Digest::of(&bytes).to_string(),
        );
        Ok(bytes)
    }

    /// The file at the http(s) URL `url` from the fetch store; recorded as a remote source.
    pub fn remote_file(&self, url: &str) -> Result<Arc<Vec<u8>>, Unavailable> {
        let shown = crate::fetch::url::redact_text(url);
        let Some(store) = &self.cache.store else {
            return Err(Unavailable::NotCached(shown));
        };
        let (digest, bytes) = store.remote_file(url)?;
        self.record()
            .remote
            .insert(format!("file {shown}"), digest.to_string());
        Ok(bytes)
    }

    /// Commit `rev` of the git repository at `url`, fetched into the cache, as a snapshot
    /// (opened once per run), with its commit id; recorded as a remote source.
    pub fn git_snapshot(
        &self,
        url: &str,
        rev: &str,
    ) -> Result<(RemoteSnapshot, String), Unavailable> {
        let Some(store) = &self.cache.store else {
            return Err(Unavailable::NotCached(format!(
                "{} at {rev}",
                crate::fetch::url::redact_text(url)
            )));
        };
        let fetched = store.git_commit(url, rev)?;
        let key = (fetched.repo.clone(), fetched.commit.clone());
        let snapshot = self.remote_snapshot(key, || {
            let failed = |e: SourceError| {
                Unavailable::Failed(crate::fetch::FetchError::Cache(format!(
                    "cannot read commit {} of {} from the cache: {e}",
                    fetched.commit,
                    crate::fetch::url::redact_text(url)
                )))
            };
            let repo = super::GitRepo::discover(&fetched.repo).map_err(failed)?;
            let resolved = repo.resolve(&fetched.commit).map_err(failed)?;
            Ok(Arc::new(repo.snapshot_at(&resolved).map_err(failed)?))
        })?;
        self.record().remote.insert(
            format!("git {}", crate::fetch::url::redact_text(url)),
            format!("{rev} {}", fetched.commit),
        );
        Ok((snapshot, fetched.commit))
    }

    /// The tags of the git repository at `url`, for a semver constraint to pick among
    /// (Argo CD's `targetRevision: ~1.2`, Flux's `ref.semver`); the tag's commit is then
    /// [`Files::git_snapshot`]'s.
    pub fn git_tags(&self, url: &str) -> Result<crate::fetch::ListedTags, Unavailable> {
        let Some(store) = &self.cache.store else {
            return Err(Unavailable::NotCached(format!(
                "the tags of {}",
                crate::fetch::url::redact_text(url)
            )));
        };
        store.git_tags(url)
    }

    /// The content of the OCI artifact `url` that `pick` names (Argo CD 3's OCI sources,
    /// Flux's OCIRepositories), from the fetch store, as a snapshot (built once per run),
    /// with its digest; recorded as a remote source.
    pub fn oci_snapshot(
        &self,
        url: &str,
        pick: &crate::fetch::oci::Pick,
    ) -> Result<(RemoteSnapshot, String), Unavailable> {
        let Some(store) = &self.cache.store else {
            return Err(Unavailable::NotCached(format!(
                "{} {}",
                crate::fetch::url::redact_text(url),
                pick.shown()
            )));
        };
        let artifact = store.oci_artifact(url, pick)?;
        let digest = artifact.digest().to_string();
        let key = (std::path::PathBuf::from("oci"), digest.clone());
        let snapshot = self.remote_snapshot(key, || {
            let mut memory = super::MemorySnapshot::new();
            for (path, bytes) in artifact.files().map_err(Unavailable::Failed)? {
                if let Ok(p) = RepoPath::new(&path) {
                    memory.add_file(&p, &bytes);
                }
            }
            Ok(Arc::new(memory))
        })?;
        self.record().remote.insert(
            format!("oci {}", crate::fetch::url::redact_text(url)),
            format!("{} {digest}", artifact.tag()),
        );
        Ok((snapshot, digest))
    }

    /// The snapshot kept under `key` this run, opened by `open` the first time (a commit's
    /// tree table, an artifact unpacked, are made once however many targets read them).
    fn remote_snapshot(
        &self,
        key: (std::path::PathBuf, String),
        open: impl FnOnce() -> Result<RemoteSnapshot, Unavailable>,
    ) -> Result<RemoteSnapshot, Unavailable> {
        let kept = self
            .cache
            .remote_snapshots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
            .cloned();
        if let Some(snapshot) = kept {
            return Ok(snapshot);
        }
        let snapshot = open()?;
        self.cache
            .remote_snapshots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key, snapshot.clone());
        Ok(snapshot)
    }

    /// `compute`'s result for `key` (which must name everything the result depends on
    /// besides the files it reads), computed once for each set of inputs and shared between
    /// the targets of a run: a result whose read set is unchanged in this view's snapshot
    /// (the check the render cache makes) is reused. Either way its reads join this view's
    /// read set, so a target that uses it is rendered again when they change. Nothing is
    /// kept while a file is replaced ([`Files::with_replaced`]).
    pub fn memoized<T: Clone + Send + Sync + 'static>(
        &self,
        key: &str,
        compute: impl FnOnce(&Files) -> T,
    ) -> T {
        if !self.replacements().is_empty() {
            return compute(self);
        }
        let known: Vec<Memo> = self.cache.memos().get(key).cloned().unwrap_or_default();
        for (reads, value) in known {
            if let Some(value) = value.downcast_ref::<T>() {
                if reads.unchanged_in(self.snapshot) {
                    self.replay(&reads);
                    return value.clone();
                }
            }
        }
        let view = Files::new(self.snapshot, self.cache);
        let value = compute(&view);
        let reads = Arc::new(SharedReads::new(view.into_read_set()));
        reads.holds_in(self.snapshot);
        self.replay(&reads);
        if !reads.reads.partial {
            let mut memos = self.cache.memos();
            let versions = memos.entry(key.to_string()).or_default();
            if versions.len() >= MEMO_VERSIONS {
                versions.remove(0);
            }
            versions.push((reads, Arc::new(value.clone())));
        }
        value
    }

    /// Makes the reads of a memoized result this view's own (shared, not copied).
    fn replay(&self, reads: &Arc<SharedReads>) {
        let mut mine = self.record();
        mine.partial |= reads.reads.partial;
        if !mine.shared.iter().any(|s| Arc::ptr_eq(s, reads)) {
            mine.shared.push(Arc::clone(reads));
        }
    }

    /// A file view of another snapshot (a fetched repository) that shares this run's parse
    /// cache and fetch store; what it reads is in its own read set, not this one's.
    pub fn sibling<'b>(&self, snapshot: &'b dyn Snapshot) -> Files<'b>
    where
        'a: 'b,
    {
        Files::new(snapshot, self.cache)
    }

    /// What a path names.
    pub fn kind(&self, path: &RepoPath) -> EntryKind {
        if self.replacements().contains_key(path) {
            return EntryKind::File;
        }
        let kind = self.snapshot.kind(path);
        self.record().kinds.insert(path.clone(), kind);
        kind
    }

    /// Reads and parses a YAML stream (cached by content), with findings for failures.
    pub fn yaml_stream(
        &self,
        path: &RepoPath,
        opts: &ParseOptions,
    ) -> Result<Arc<Result<Vec<Node>, YamlError>>, SourceError> {
        if let Some(id) = self.stored_id(path) {
            if let Some(parsed) = self.cache.parsed_stream(id, opts) {
                self.record_cached_read(path, id);
                return Ok(parsed);
            }
        }
        let (bytes, id) = self.read_with_id(path)?;
        Ok(self.cache.get_or_parse(id, &bytes, opts))
    }

    /// Reads `path` and its documents through `parse`, an engine's own document reader named
    /// `reader`, once per content across targets, threads and revisions (a base shared by many
    /// overlays is parsed once).
    pub fn documents(
        &self,
        path: &RepoPath,
        reader: &'static str,
        parse: impl FnOnce(&[u8]) -> Result<(Vec<Node>, usize), YamlError>,
    ) -> Result<Documents, SourceError> {
        if let Some(id) = self.stored_id(path) {
            if let Some(parsed) = self.cache.parsed_documents(id, reader) {
                self.record_cached_read(path, id);
                return Ok(parsed);
            }
        }
        let (bytes, id) = self.read_with_id(path)?;
        Ok(self.cache.documents_or_parse(id, reader, &bytes, parse))
    }

    /// Reads and parses a YAML stream; any failure becomes a finding on the file.
    pub fn yaml_documents(
        &self,
        path: &RepoPath,
        opts: &ParseOptions,
    ) -> Result<Arc<Result<Vec<Node>, YamlError>>, LoadError> {
        self.yaml_stream(path, opts)
            .map_err(|e| LoadError(Box::new(source_finding(&e, path))))
    }
}

/// A finding for a file that could not be read.
pub fn source_finding(e: &SourceError, path: &RepoPath) -> Finding {
    let rule = match e {
        SourceError::NotFound { .. } => rules::SOURCE_NOT_FOUND,
        SourceError::Path(_) | SourceError::SymlinkEscape { .. } => {
            rules::SOURCE_OUTSIDE_REPOSITORY
        }
        SourceError::TooLarge { .. } => rules::SOURCE_TOO_LARGE,
        _ => rules::SOURCE_READ,
    };
    // The location names the file already; keep the message to what went wrong.
    let message = e.to_string();
    let message = message
        .strip_prefix(&format!("{path}: "))
        .unwrap_or(&message)
        .to_string();
    Finding::error(rule, message).in_file(path.to_string())
}

/// A finding for a YAML error in `path`.
pub fn yaml_finding(e: &YamlError, path: &RepoPath) -> Finding {
    let rule = match e.kind {
        yaml::YamlErrorKind::Syntax => rules::YAML_PARSE,
        yaml::YamlErrorKind::Limit => rules::YAML_LIMIT,
        yaml::YamlErrorKind::DuplicateKey => rules::YAML_DUPLICATE_KEY,
        yaml::YamlErrorKind::UnknownAnchor => rules::YAML_PARSE,
    };
    Finding::error(rule, e.message.clone()).at(path.to_string(), e.span.line, e.span.column)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A memo is computed once for a set of inputs, reused by any view whose snapshot has
    /// them unchanged (their reads recorded there too), and computed again where one differs.
    #[test]
    fn a_memo_is_reused_only_where_its_inputs_are_unchanged() {
        let path = RepoPath::new("apps/kustomization.yaml").unwrap();
        let snapshot = |text: &str| {
            let mut s = crate::source::MemorySnapshot::new();
            s.add_file(&path, text.as_bytes());
            s
        };
        let (base, same, changed) = (snapshot("a"), snapshot("a"), snapshot("b"));
        let cache = ParseCache::default();
        let computed = std::sync::atomic::AtomicUsize::new(0);
        let memo = |s: &crate::source::MemorySnapshot| {
            let files = Files::new(s, &cache);
            let value = files.memoized("test", |f| {
                computed.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                f.read(&path).map(|b| b.to_vec()).unwrap_or_default()
            });
            (value, files.into_read_set())
        };
        let count = || computed.load(std::sync::atomic::Ordering::SeqCst);
        let (first, first_reads) = memo(&base);
        assert_eq!((first, count()), (b"a".to_vec(), 1));
        let (again, reads) = memo(&same);
        assert_eq!((again, count()), (b"a".to_vec(), 1), "reused");
        assert_eq!(reads, first_reads, "the reuse records the memo's reads");
        let (other, _) = memo(&changed);
        assert_eq!((other, count()), (b"b".to_vec(), 2), "an input changed");
    }

    #[test]
    fn the_documents_cache_drops_the_least_recently_used_parse_over_its_budget() {
        let cache = ParseCache::default();
        let parse = |b: &[u8]| yaml::parse_stream(b, &ParseOptions::default()).map(|d| (d, 1));
        // Room for two of these parses, not three; making room leaves two.
        let one = Kept::of(&parse(b"a: 1111\n")).heap_bytes();
        cache.documents.lock().unwrap().budget = one * 14 / 5;
        let parses = std::sync::atomic::AtomicUsize::new(0);
        let counted = |b: &[u8]| {
            parses.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            parse(b)
        };
        let get = |text: &[u8]| {
            cache
                .documents_or_parse(ObjectId::for_blob(text), "test", text, counted)
                .unwrap()
                .0
        };
        let count = || parses.load(std::sync::atomic::Ordering::SeqCst);
        let a = get(b"a: 1111\n");
        get(b"b: 2222\n");
        assert_eq!(
            get(b"a: 1111\n"),
            a,
            "the kept parse thaws to the same trees"
        );
        assert_eq!(count(), 2, "both fit: each parsed once");
        // A third blob passes the budget: b, used least recently, makes room; a stays.
        get(b"c: 3333\n");
        assert_eq!(count(), 3);
        get(b"a: 1111\n");
        assert_eq!(count(), 3);
        get(b"b: 2222\n");
        assert_eq!(count(), 4, "b was dropped and is parsed again");
        // A parse error is kept too.
        let bad = b"a: [\n";
        let first = cache.documents_or_parse(ObjectId::for_blob(bad), "test", bad, counted);
        let again = cache.documents_or_parse(ObjectId::for_blob(bad), "test", bad, counted);
        assert_eq!(count(), 5);
        assert_eq!(first.unwrap_err().message, again.unwrap_err().message);
    }

    #[test]
    fn threads_share_one_parse_per_blob_and_options() {
        let cache = ParseCache::default();
        let bytes = b"a: 1\n".as_slice();
        let id = ObjectId::for_blob(bytes);
        let opts = ParseOptions::default();
        let barrier = std::sync::Barrier::new(8);
        let parsed: Vec<ParsedStream> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| {
                    s.spawn(|| {
                        barrier.wait();
                        cache.get_or_parse(id, bytes, &opts)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(parsed.iter().all(|p| Arc::ptr_eq(p, &parsed[0])));
        // Options that change a parse get their own entry.
        let strict_depth = ParseOptions {
            limits: yaml::Limits {
                max_depth: 1,
                ..yaml::Limits::DEFAULT
            },
            ..opts
        };
        assert!(!Arc::ptr_eq(
            &cache.get_or_parse(id, bytes, &strict_depth),
            &parsed[0]
        ));
    }

    #[cfg(unix)]
    #[test]
    fn a_later_read_of_a_work_tree_file_is_recorded_when_it_runs() {
        let dir = tempfile::TempDir::new().unwrap();
        crate::source::testing::write(dir.path(), "README.md", "read me\n");
        crate::source::testing::write(dir.path(), "NOTES.md", "notes\n");
        let snapshot = crate::source::WorktreeSnapshot::new(dir.path().to_path_buf()).unwrap();
        let cache = ParseCache::default();
        let files = Files::new(&snapshot, &cache);
        let readme = RepoPath::new("README.md").unwrap();
        let notes = RepoPath::new("NOTES.md").unwrap();
        fn later(files: &Files, path: &RepoPath) -> LaterRead {
            match files.read_later(path).unwrap() {
                Contents::Later(read) => read,
                Contents::Read(_) => panic!("{path} read at once"),
            }
        }
        let (read_readme, _never) = (later(&files, &readme), later(&files, &notes));
        assert_eq!(&*read_readme().unwrap(), b"read me\n");
        let reads = files.into_read_set();
        // The file never read is no input: its contents changing changes nothing rendered.
        assert_eq!(reads.files.keys().collect::<Vec<_>>(), [&readme]);
        assert!(!reads.partial);
        // A file that vanished before its read: the read set proves nothing.
        let files = Files::new(&snapshot, &cache);
        let read_notes = later(&files, &notes);
        std::fs::remove_file(dir.path().join("NOTES.md")).unwrap();
        assert!(read_notes().is_err());
        assert!(files.into_read_set().partial);
    }

    #[test]
    fn a_read_keeps_contents_unhashed_unless_the_snapshot_stores_ids() {
        let path = RepoPath::new("values.yaml").unwrap();
        let snapshot_of = |text: &[u8]| {
            let mut s = crate::source::MemorySnapshot::new();
            s.add_file(&path, text);
            s
        };
        let (plain, other) = (snapshot_of(b"a: 1\n"), snapshot_of(b"a: 2\n"));
        let cache = ParseCache::default();
        let files = Files::new(&plain, &cache);
        files.read(&path).unwrap();
        let reads = files.into_read_set();
        let seen = &reads.files[&path];
        assert!(
            matches!(seen, Seen::Contents(_)),
            "a plain snapshot's read is not hashed"
        );
        assert_eq!(seen.id(), ObjectId::for_blob(b"a: 1\n"));
        assert!(reads.unchanged_in(&snapshot_of(b"a: 1\n")));
        assert!(!reads.unchanged_in(&other));
        // Against a snapshot that names ids (git's), and from one.
        let counting = crate::source::CountingSnapshot::new(snapshot_of(b"a: 1\n"));
        assert!(reads.unchanged_in(&counting));
        let files = Files::new(&counting, &cache);
        files.read(&path).unwrap();
        let stored = files.into_read_set();
        assert!(matches!(stored.files[&path], Seen::Id(_)));
        assert_eq!(
            stored, reads,
            "the same contents compare equal however they were seen"
        );
        assert!(stored.unchanged_in(&plain) && !stored.unchanged_in(&other));
    }

    #[test]
    fn a_cached_parse_answers_without_a_read_and_is_recorded() {
        let path = RepoPath::new("crds.yaml").unwrap();
        let mut inner = crate::source::MemorySnapshot::new();
        inner.add_file(&path, b"kind: A\n");
        let snapshot = crate::source::CountingSnapshot::new(inner);
        let cache = ParseCache::default();
        let opts = ParseOptions::default();
        let parse = |b: &[u8]| yaml::parse_stream(b, &ParseOptions::default()).map(|d| (d, 1));
        let first = Files::new(&snapshot, &cache);
        let parsed = first.documents(&path, "test", parse).unwrap();
        first.yaml_stream(&path, &opts).unwrap();
        assert_eq!(snapshot.reads(), 2);
        let second = Files::new(&snapshot, &cache);
        let trees = |d: Documents| d.unwrap().0;
        assert_eq!(
            trees(second.documents(&path, "test", parse).unwrap()),
            trees(parsed)
        );
        second.yaml_stream(&path, &opts).unwrap();
        assert_eq!(
            snapshot.reads(),
            2,
            "the second target's parses came from the cache without reading"
        );
        assert_eq!(second.last_read(), Some(path.clone()));
        let id = ObjectId::for_blob(b"kind: A\n");
        assert_eq!(
            second.into_read_set().files,
            BTreeMap::from([(path.clone(), Seen::Id(id))])
        );
        // A file replaced for a while is read as replaced, not from the cache.
        let third = Files::new(&snapshot, &cache);
        let replaced = third.with_replaced(&path, Bytes::from(&b"kind: B\n"[..]), || {
            third.documents(&path, "test", parse).unwrap()
        });
        assert_eq!(trees(replaced)[0].str_at(&["kind"]), Some("B"));
    }
}
