//! The blob store every snapshot of one repository reads through, with its cache.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use super::to_gix;
use crate::source::{Bytes, ObjectId, RepoPath, SourceError};

/// Reads blobs for any number of threads and keeps each blob once, shared by every snapshot
/// of the repository (a blob unchanged between base and head is read once).
pub(super) struct BlobStore {
    repo: gix::ThreadSafeRepository,
    /// Thread-local handles not in use; a reader takes one and puts it back, so pack caches
    /// survive between reads without locking during decoding.
    idle: Mutex<Vec<gix::Repository>>,
    blobs: BlobCache,
}

impl BlobStore {
    pub(super) fn new(repo: gix::ThreadSafeRepository) -> BlobStore {
        BlobStore {
            repo,
            idle: Mutex::new(Vec::new()),
            blobs: BlobCache::default(),
        }
    }

    fn with_repo<T>(&self, f: impl FnOnce(&gix::Repository) -> T) -> T {
        let pooled = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let repo = pooled.unwrap_or_else(|| {
            let mut repo = self.repo.to_thread_local();
            // gix's default delta-base cache is 96 MB per handle, one handle per reading
            // thread; decoded blobs are kept by this store, so a small one does as well.
            repo.objects.set_pack_cache(|| {
                Box::new(gix::odb::pack::cache::lru::StaticLinkedList::<64>::new(
                    PACK_CACHE_BYTES,
                ))
            });
            repo
        });
        let out = f(&repo);
        self.idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(repo);
        out
    }

    /// The blob `id` (at `path`, for messages), refusing blobs over `limit` bytes before
    /// decoding them.
    pub(super) fn read_blob(
        &self,
        id: ObjectId,
        path: &RepoPath,
        limit: u64,
    ) -> Result<Bytes, SourceError> {
        let too_large = |size: u64| SourceError::TooLarge {
            path: path.to_string(),
            size,
            limit,
        };
        if let Some(bytes) = self.blobs.get(&id) {
            let size = bytes.len() as u64;
            return if size > limit {
                Err(too_large(size))
            } else {
                Ok(bytes)
            };
        }
        let data = self.with_repo(|repo| {
            let read_error = |e: gix::Error| SourceError::Io {
                path: path.to_string(),
                message: format!("cannot read blob {}: {}", id.short(), e.probable_cause()),
            };
            let header = repo.find_header(to_gix(id)).map_err(read_error)?;
            if header.kind() != gix::objs::Kind::Blob {
                return Err(SourceError::Io {
                    path: path.to_string(),
                    message: format!("object {} is a {}, not a blob", id.short(), header.kind()),
                });
            }
            if header.size() > limit {
                return Err(too_large(header.size()));
            }
            Ok(repo
                .find_object(to_gix(id))
                .map_err(read_error)?
                .detach()
                .data)
        })?;
        if data.len() > LARGEST_KEPT_BLOB {
            return Ok(Bytes::from(data));
        }
        Ok(self.blobs.insert(id, Bytes::from(data)))
    }
}

/// Larger blobs are not kept: they are the big resource files (CRDs) whose parsed documents
/// the parse cache keeps, which then answers without reading them (see `Files`), so keeping
/// their bytes as well would only hold memory.
const LARGEST_KEPT_BLOB: usize = 256 * 1024;

/// The delta-base cache of each reading thread's repository handle.
const PACK_CACHE_BYTES: usize = 8 * 1024 * 1024;

/// Blob bytes by object id, sharded so parallel readers rarely wait on each other.
struct BlobCache {
    shards: [RwLock<HashMap<ObjectId, Bytes>>; 16],
}

impl Default for BlobCache {
    fn default() -> Self {
        BlobCache {
            shards: std::array::from_fn(|_| RwLock::default()),
        }
    }
}

impl BlobCache {
    fn shard(&self, id: &ObjectId) -> &RwLock<HashMap<ObjectId, Bytes>> {
        &self.shards[usize::from(id.0[0]) % self.shards.len()]
    }

    fn get(&self, id: &ObjectId) -> Option<Bytes> {
        let shard = self
            .shard(id)
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        shard.get(id).cloned()
    }

    /// Stores `bytes` unless another thread got there first; returns the stored copy.
    fn insert(&self, id: ObjectId, bytes: Bytes) -> Bytes {
        let mut shard = self
            .shard(&id)
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        Arc::clone(shard.entry(id).or_insert(bytes))
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::source::git::fixture::{fixture, p, snapshot, text};
    use crate::source::git::GitRepo;
    use crate::source::Snapshot;

    #[test]
    fn snapshots_are_shared_across_threads() {
        let f = fixture();
        let repo = GitRepo::discover(f.dir.path()).unwrap();
        let head = snapshot(&repo, "HEAD");
        let old = snapshot(&repo, "HEAD~2");
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    for _ in 0..20 {
                        assert_eq!(text(&head, "apps/web/deploy"), "deploy\n");
                        assert_eq!(text(&old, "apps/web/kustomization.yaml"), "v1\n");
                    }
                });
            }
        });
        // Base and head share one blob cache: the unchanged blob is the same allocation.
        let a = head.read(&p("base/deploy.yaml")).unwrap();
        let b = old.read(&p("base/deploy.yaml")).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
    }
}
