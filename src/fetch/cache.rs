//! kdelta's cache of remote sources on disk, content-addressed:
//!
//! - `v1/blobs/sha256/<hex>`: every downloaded body (an `index.yaml`, a chart archive, an OCI
//!   manifest or layer), named by the sha256 of its bytes and checked against it when read;
//! - `v1/refs/<sha256 of the key>.json`: what a name resolved to when it was last fetched
//!   (a URL → the digest of its body; an OCI tag → a manifest digest; a git reference → a
//!   commit), with the time;
//! - `v1/git/<sha256 of the URL>.git`: a bare repository per git remote, holding the commits
//!   fetched (`refs/kdelta/commits/<id>`).
//!
//! Writes are atomic (a temporary file in the same directory, then a rename), so a reader
//! never sees a partial file and two kdelta runs can share the cache. Nothing written here
//! holds credentials: keys are URLs without their userinfo.

use sha2::{Digest as _, Sha256};
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The layout's version: a new layout gets a new directory beside the old one.
const LAYOUT: &str = "v1";

/// A sha256 digest.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest(pub [u8; 32]);

impl Digest {
    /// The sha256 of `bytes`.
    pub fn of(bytes: &[u8]) -> Digest {
        Digest(Sha256::digest(bytes).into())
    }

    /// The lower-case hex form.
    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Parses `sha256:<hex>` or bare hex (Helm's `index.yaml` writes bare hex).
    pub fn parse(text: &str) -> Option<Digest> {
        let hex = text.trim();
        let hex = hex.strip_prefix("sha256:").unwrap_or(hex);
        if hex.len() != 64 {
            return None;
        }
        let mut out = [0u8; 32];
        for (i, b) in out.iter_mut().enumerate() {
            *b = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        Some(Digest(out))
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sha256:{}", self.hex())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// What a name resolved to when it was fetched.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Record {
    /// The name (a URL without credentials, an OCI reference).
    pub key: String,
    /// The body it gave, in the blob store.
    pub digest: String,
    /// When it was fetched (RFC 3339, UTC).
    pub fetched_at: String,
}

/// Why the cache could not be used.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("cannot use the cache at {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the cached blob {path} does not match its digest {digest} (removed; fetch it again)")]
    Corrupt { path: PathBuf, digest: Digest },
}

/// The cache directory.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cache {
    root: PathBuf,
}

impl Cache {
    /// The cache at `root` (created on the first write).
    pub fn new(root: impl Into<PathBuf>) -> Cache {
        Cache { root: root.into() }
    }

    /// `KDELTA_CACHE_DIR`, else `$XDG_CACHE_HOME/kdelta`, else `~/.cache/kdelta`.
    pub fn default_dir() -> Option<PathBuf> {
        let var = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        var("KDELTA_CACHE_DIR")
            .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("kdelta")))
            .or_else(|| var("HOME").map(|h| h.join(".cache").join("kdelta")))
    }

    /// The directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn blob_path(&self, digest: &Digest) -> PathBuf {
        self.root
            .join(LAYOUT)
            .join("blobs")
            .join("sha256")
            .join(digest.hex())
    }

    fn record_path(&self, key: &str) -> PathBuf {
        self.root
            .join(LAYOUT)
            .join("refs")
            .join(format!("{}.json", Digest::of(key.as_bytes()).hex()))
    }

    /// Stores `bytes` under their digest.
    pub fn put_blob(&self, bytes: &[u8]) -> Result<Digest, CacheError> {
        let digest = Digest::of(bytes);
        let path = self.blob_path(&digest);
        if !path.is_file() {
            write_atomic(&path, bytes)?;
        }
        Ok(digest)
    }

    /// True when the blob is stored (its bytes are checked when read).
    pub fn has_blob(&self, digest: &Digest) -> bool {
        self.blob_path(digest).is_file()
    }

    /// The blob with `digest`, checked; `None` when it is not cached. A blob whose bytes do
    /// not match is removed and reported.
    pub fn blob(&self, digest: &Digest) -> Result<Option<Vec<u8>>, CacheError> {
        let path = self.blob_path(digest);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(CacheError::Io { path, source }),
        };
        if Digest::of(&bytes) != *digest {
            let _ = std::fs::remove_file(&path);
            return Err(CacheError::Corrupt {
                path,
                digest: *digest,
            });
        }
        Ok(Some(bytes))
    }

    /// What `key` resolved to when it was last fetched.
    pub fn record(&self, key: &str) -> Option<Record> {
        let bytes = std::fs::read(self.record_path(key)).ok()?;
        let record: Record = serde_json::from_slice(&bytes).ok()?;
        // A hash collision of keys, or a hand-edited file, is no record.
        (record.key == key).then_some(record)
    }

    /// Records that `key` resolved to the blob `digest` now.
    pub fn set_record(&self, key: &str, digest: &Digest) -> Result<Record, CacheError> {
        self.set_record_value(key, &digest.to_string())
    }

    /// Records that `key` resolved to `value` now (a git commit id, for a git reference).
    pub fn set_record_value(&self, key: &str, value: &str) -> Result<Record, CacheError> {
        let record = Record {
            key: key.to_string(),
            digest: value.to_string(),
            fetched_at: now_rfc3339(),
        };
        let json = serde_json::to_vec_pretty(&record).expect("a record always serialises");
        write_atomic(&self.record_path(key), &json)?;
        Ok(record)
    }
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), CacheError> {
    let io = |source| CacheError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = path.parent().expect("cache paths have a parent");
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut n = 0u32;
    loop {
        let tmp = dir.join(format!(".tmp-{}-{n}", std::process::id()));
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp);
        match file {
            Ok(mut f) => {
                let written = f.write_all(bytes).and_then(|()| f.sync_all());
                drop(f);
                let result = written.and_then(|()| std::fs::rename(&tmp, path));
                if result.is_err() {
                    let _ = std::fs::remove_file(&tmp);
                }
                return result.map_err(io);
            }
            // Another thread of this process is writing through that name.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => n += 1,
            Err(e) => return Err(io(e)),
        }
    }
}

/// The current time as RFC 3339 in UTC, to the second.
fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    rfc3339(secs)
}

/// Seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ` (civil-from-days, Howard Hinnant).
fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_are_stored_by_digest_and_checked_when_read() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        let d = cache.put_blob(b"chart").unwrap();
        assert_eq!(cache.blob(&d).unwrap().unwrap(), b"chart");
        assert_eq!(Digest::parse(&d.to_string()), Some(d));
        assert_eq!(Digest::parse(&d.hex()), Some(d));
        std::fs::write(cache.blob_path(&d), b"tampered").unwrap();
        assert!(matches!(cache.blob(&d), Err(CacheError::Corrupt { .. })));
        assert!(
            cache.blob(&d).unwrap().is_none(),
            "a corrupt blob is removed"
        );
    }

    #[test]
    fn records_remember_what_a_key_resolved_to() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        assert!(cache.record("https://x/index.yaml").is_none());
        let d = Digest::of(b"index");
        cache.set_record("https://x/index.yaml", &d).unwrap();
        let r = cache.record("https://x/index.yaml").unwrap();
        assert_eq!(r.digest, d.to_string());
        assert!(r.fetched_at.ends_with('Z'));
    }

    #[test]
    fn dates_are_civil() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_796_398_245), "2026-12-04T15:30:45Z");
    }
}
