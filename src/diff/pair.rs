//! Pairing the resources of two renders: by ResId first, then removed/added pairs whose names
//! differ only by a kustomize content-hash suffix (`app-config-7f8t9k2h5m` →
//! `app-config-b2c4d6f8g9`) are one renamed resource.

use crate::resource::ResId;

/// Index pairs `(base, head)`; `None` on one side means removed or added.
pub type Pairing = Vec<(Option<usize>, Option<usize>)>;

/// The name without a kustomize hash suffix (`-` + 10 characters of kustomize's alphabet).
pub fn strip_hash_suffix(name: &str) -> Option<&str> {
    let (stem, suffix) = name.rsplit_once('-')?;
    let is_hash = suffix.len() == 10 && suffix.bytes().all(|c| b"bcdfghkmt24567892".contains(&c));
    (is_hash && !stem.is_empty()).then_some(stem)
}

/// Pairs base and head ids.
pub fn pair(base: &[ResId], head: &[ResId]) -> Pairing {
    let mut out: Pairing = Vec::new();
    let mut head_used = vec![false; head.len()];
    let mut unmatched_base = Vec::new();
    for (i, id) in base.iter().enumerate() {
        match head.iter().position(|h| h == id) {
            Some(j) if !head_used[j] => {
                head_used[j] = true;
                out.push((Some(i), Some(j)));
            }
            _ => unmatched_base.push(i),
        }
    }
    for i in unmatched_base {
        let id = &base[i];
        let renamed = strip_hash_suffix(&id.name).and_then(|stem| {
            head.iter().enumerate().position(|(j, h)| {
                !head_used[j]
                    && h.group == id.group
                    && h.kind == id.kind
                    && h.namespace == id.namespace
                    && strip_hash_suffix(&h.name) == Some(stem)
            })
        });
        match renamed {
            Some(j) => {
                head_used[j] = true;
                out.push((Some(i), Some(j)));
            }
            None => out.push((Some(i), None)),
        }
    }
    for (j, used) in head_used.iter().enumerate() {
        if !used {
            out.push((None, Some(j)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(kind: &str, name: &str) -> ResId {
        ResId {
            version: "v1".into(),
            kind: kind.into(),
            name: name.into(),
            ..ResId::default()
        }
    }

    #[test]
    fn hash_suffix_renames_pair_up() {
        assert_eq!(
            strip_hash_suffix("app-config-7f8t9k2h5m"),
            Some("app-config")
        );
        assert_eq!(strip_hash_suffix("web-deployment"), None);
        let base = [
            id("ConfigMap", "app-config-7f8t9k2h5m"),
            id("Service", "web"),
        ];
        let head = [
            id("Service", "web"),
            id("ConfigMap", "app-config-b2c4d6f8g9"),
            id("Service", "new"),
        ];
        let p = pair(&base, &head);
        assert!(p.contains(&(Some(0), Some(1))));
        assert!(p.contains(&(Some(1), Some(0))));
        assert!(p.contains(&(None, Some(2))));
        assert_eq!(p.len(), 3);
    }
}
