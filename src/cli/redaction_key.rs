//! The key behind Secret digests (`<redacted sha256:…>`). A digest shows that a value changed,
//! never the value; whoever holds the key could test guesses against it, so the key is never
//! derived from anything a report shows. It is the same for every run of one user, so that
//! reports are byte-identical across runs:
//! 1. `KDELTA_REDACTION_KEY` (e.g. a CI secret, to keep PR comments stable across CI machines);
//! 2. else a random key kept in `$XDG_STATE_HOME/kdelta/redaction-key` (default
//!    `~/.local/state/kdelta/redaction-key`, mode 0600), made on first use — outside any
//!    repository;
//! 3. else (no home, or it is read-only) a random key for this process only.

use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::PathBuf;

/// Environment variable that sets the key.
pub const KEY_VARIABLE: &str = "KDELTA_REDACTION_KEY";

/// Chooses the key for this process (before anything is redacted).
pub fn install() {
    if let Some(key) = from_environment().or_else(from_state_file) {
        kdelta::redact::set_key(key);
    }
}

fn from_environment() -> Option<[u8; 32]> {
    let value = std::env::var_os(KEY_VARIABLE).filter(|v| !v.is_empty())?;
    Some(digest(value.as_encoded_bytes()))
}

fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

fn state_file() -> Option<PathBuf> {
    let state = match std::env::var_os("XDG_STATE_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => {
            PathBuf::from(std::env::var_os("HOME").filter(|v| !v.is_empty())?).join(".local/state")
        }
    };
    Some(state.join("kdelta").join("redaction-key"))
}

fn from_state_file() -> Option<[u8; 32]> {
    let path = state_file()?;
    if let Some(key) = read_key(&path) {
        return Some(key);
    }
    let random = random_bytes()?;
    std::fs::create_dir_all(path.parent()?).ok()?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    match options.open(&path) {
        Ok(mut file) => {
            file.write_all(&random).ok()?;
            Some(digest(&random))
        }
        // Another kdelta made it first: use theirs.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => read_key(&path),
        Err(_) => None,
    }
}

fn read_key(path: &std::path::Path) -> Option<[u8; 32]> {
    let bytes = std::fs::read(path).ok()?;
    (bytes.len() >= 32).then(|| digest(&bytes))
}

fn random_bytes() -> Option<[u8; 32]> {
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .ok()?;
    Some(bytes)
}
