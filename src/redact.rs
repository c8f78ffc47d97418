//! Secret redaction: `data`/`stringData` values of Secrets are replaced by a keyed digest, so a
//! report shows that a key changed without ever showing (or letting anyone brute-force) the
//! value. The key is the caller's ([`set_key`]: the CLI keeps one per user, so reports are
//! identical across runs); without one it is random per process and digests compare within one
//! run only.

use serde_json::Value;
use sha2::{Digest, Sha256};
use std::sync::OnceLock;

/// Prefix of every redaction marker.
pub const MARKER_PREFIX: &str = "<redacted sha256:";

static KEY: OnceLock<[u8; 32]> = OnceLock::new();

/// Sets the digest key for this process; the first call wins, and it must come before the first
/// redaction (later calls return false). Whoever knows the key can test guesses of a value
/// against its digest, so it must not be derived from anything a report shows.
pub fn set_key(key: [u8; 32]) -> bool {
    KEY.set(key).is_ok()
}

fn process_key() -> &'static [u8; 32] {
    KEY.get_or_init(|| {
        use std::hash::{BuildHasher, Hasher};
        let mut key = [0u8; 32];
        for chunk in key.chunks_mut(8) {
            // RandomState is seeded from the OS's random source once per process.
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u64(std::process::id() as u64);
            chunk.copy_from_slice(&h.finish().to_le_bytes());
        }
        key
    })
}

/// HMAC-SHA256 of `value` under the process key, hex, first 12 characters.
fn keyed_digest(value: &[u8]) -> String {
    let key = process_key();
    let mut ipad = [0x36u8; 64];
    let mut opad = [0x5cu8; 64];
    for (i, k) in key.iter().enumerate() {
        ipad[i] ^= k;
        opad[i] ^= k;
    }
    let inner = Sha256::new()
        .chain_update(ipad)
        .chain_update(value)
        .finalize();
    let outer = Sha256::new()
        .chain_update(opad)
        .chain_update(inner)
        .finalize();
    outer.iter().take(6).map(|b| format!("{b:02x}")).collect()
}

/// The marker that stands for a secret value.
pub fn marker(value: &Value) -> String {
    let bytes = match value {
        Value::String(s) => s.as_bytes().to_vec(),
        other => other.to_string().into_bytes(),
    };
    format!("{MARKER_PREFIX}{}>", keyed_digest(&bytes))
}

/// True when a string is a redaction marker.
pub fn is_marker(s: &str) -> bool {
    s.starts_with(MARKER_PREFIX) && s.ends_with('>')
}

/// The annotation `kubectl apply` stores the whole object in (Secret values included).
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// Replaces the values of a Secret's `data` and `stringData` by markers, also inside the
/// last-applied-configuration annotation (other kinds are left alone). Returns how many values
/// were redacted.
pub fn redact_secret(object: &mut Value) -> usize {
    if object.get("kind").and_then(Value::as_str) != Some("Secret") {
        return 0;
    }
    let mut n = redact_data(object);
    if let Some(Value::String(text)) = object
        .get_mut("metadata")
        .and_then(|m| m.get_mut("annotations"))
        .and_then(|a| a.get_mut(LAST_APPLIED))
    {
        match serde_json::from_str::<Value>(text) {
            Ok(mut inner) => {
                n += redact_data(&mut inner);
                *text = inner.to_string();
            }
            Err(_) => {
                *text = marker(&Value::String(text.clone()));
                n += 1;
            }
        }
    }
    n
}

fn redact_data(object: &mut Value) -> usize {
    let mut n = 0;
    for field in ["data", "stringData"] {
        if let Some(Value::Object(map)) = object.get_mut(field) {
            for v in map.values_mut() {
                *v = Value::String(marker(v));
                n += 1;
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn last_applied_configuration_is_redacted_too() {
        let inner = r#"{"kind":"Secret","data":{"pw":"c2VjcmV0"}}"#;
        let mut s = json!({"kind": "Secret", "metadata": {"annotations": {LAST_APPLIED: inner}}, "data": {"pw": "c2VjcmV0"}});
        assert_eq!(redact_secret(&mut s), 2);
        assert!(!s.to_string().contains("c2VjcmV0"), "{s}");
    }

    #[test]
    fn secrets_are_redacted_with_stable_digests() {
        let mut a = json!({"kind": "Secret", "data": {"pw": "c2VjcmV0"}, "stringData": {"t": "x"}});
        let mut b = json!({"kind": "Secret", "data": {"pw": "c2VjcmV0"}});
        assert_eq!(redact_secret(&mut a), 2);
        redact_secret(&mut b);
        assert_eq!(a["data"]["pw"], b["data"]["pw"]);
        let s = a["data"]["pw"].as_str().unwrap();
        assert!(is_marker(s) && !s.contains("c2VjcmV0"), "{s}");
        let mut c = json!({"kind": "Secret", "data": {"pw": "b3RoZXI="}});
        redact_secret(&mut c);
        assert_ne!(a["data"]["pw"], c["data"]["pw"]);
        let mut cm = json!({"kind": "ConfigMap", "data": {"pw": "x"}});
        assert_eq!(redact_secret(&mut cm), 0);
        assert_eq!(cm["data"]["pw"], "x");
    }
}
