//! `Chart.lock` (`requirements.lock` for an apiVersion v1 chart) as `helm dependency build`
//! reads it (`pkg/downloader/manager.go`): with a lock whose digest matches the dependencies
//! file, the locked versions are fetched; with one that does not, Helm stops ("the lock file
//! … is out of sync with the dependencies file"); without one, the constraints are resolved.
//!
//! The digest is Helm's `resolver.HashReq`: the sha256 of `json.Marshal` of the pair (the
//! dependencies of Chart.yaml, the lock's dependencies), each a `chart.Dependency` with Go's
//! field order and `omitempty` rules.

use crate::source::{EntryKind, Files, RepoPath};
use crate::yaml::{self, Node, NodeKind, ParseOptions};
use sha2::{Digest as _, Sha256};

/// A lock file of a chart.
#[derive(Clone, Debug)]
pub struct Lock {
    /// `Chart.lock` or `requirements.lock`.
    pub file: &'static str,
    /// `(name, repository, version)` of each locked dependency.
    pub locked: Vec<(String, String, String)>,
    /// True when the lock's digest is the dependencies file's; `None` when kdelta cannot tell
    /// (a field Helm would refuse or a digest it cannot reproduce).
    pub in_sync: Option<bool>,
}

impl Lock {
    /// The lock of the chart in `dir` whose dependencies are listed in `deps_file`
    /// (`Chart.yaml` or `requirements.yaml`); `None` without a lock file.
    pub fn read(files: &Files, dir: &RepoPath, deps_file: &str) -> Option<Lock> {
        let (file, lock) = ["Chart.lock", "requirements.lock"]
            .iter()
            .find_map(|name| {
                let path = dir.child(name);
                if files.kind(&path) != EntryKind::File {
                    return None;
                }
                let bytes = files.read(&path).ok()?;
                Some((
                    *name,
                    yaml::parse_one(&bytes, &ParseOptions::default()).ok()?,
                ))
            })?;
        let text = |n: &Node, k: &str| n.str_at(&[k]).unwrap_or_default().to_string();
        let locked = lock
            .get("dependencies")
            .and_then(Node::as_seq)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .map(|d| (text(d, "name"), text(d, "repository"), text(d, "version")))
            .collect();
        let declared = files
            .read(&dir.child(deps_file))
            .ok()
            .and_then(|b| yaml::parse_one(&b, &ParseOptions::default()).ok());
        let in_sync = declared.and_then(|declared| {
            let written = lock.str_at(&["digest"])?;
            let digest = hash_req(declared.get("dependencies"), lock.get("dependencies"))?;
            Some(digest == written)
        });
        Some(Lock {
            file,
            locked,
            in_sync,
        })
    }

    /// The version locked for the dependency `name` from `repository`.
    pub fn version_of(&self, name: &str, repository: &str) -> Option<&str> {
        self.locked
            .iter()
            .find(|(n, r, _)| n == name && r == repository)
            .map(|(_, _, v)| v.as_str())
    }
}

/// Helm's `resolver.HashReq` of the two `dependencies:` lists (`None`, null in Go).
pub fn hash_req(declared: Option<&Node>, locked: Option<&Node>) -> Option<String> {
    let mut json = String::from("[");
    list_json(declared, &mut json)?;
    json.push(',');
    list_json(locked, &mut json)?;
    json.push(']');
    let digest: String = Sha256::digest(json.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Some(format!("sha256:{digest}"))
}

/// A `[]*chart.Dependency` as `json.Marshal` writes it; `None` for what Helm would not have
/// read into one.
fn list_json(list: Option<&Node>, out: &mut String) -> Option<()> {
    let Some(list) = list.filter(|n| !n.is_null()) else {
        out.push_str("null");
        return Some(());
    };
    out.push('[');
    for (i, dep) in list.as_seq()?.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        dependency_json(dep, out)?;
    }
    out.push(']');
    Some(())
}

/// One `chart.Dependency`: `name`, `version` (omitempty), `repository`, `condition`,
/// `tags`, `enabled`, `import-values`, `alias` (all omitempty), in that order.
fn dependency_json(dep: &Node, out: &mut String) -> Option<()> {
    if dep.is_null() {
        out.push_str("null");
        return Some(());
    }
    dep.as_map()?;
    // A missing or null field is "", a number or a bool would not unmarshal into Helm's
    // string field.
    let string = |key: &str| -> Option<String> {
        match dep.get(key) {
            None => Some(String::new()),
            Some(n) if n.is_null() => Some(String::new()),
            Some(n) if matches!(n.kind, NodeKind::Scalar(_)) && is_string_scalar(n) => {
                n.as_str().map(String::from)
            }
            Some(_) => None,
        }
    };
    let quote = crate::go::json::quote;
    out.push_str("{\"name\":");
    out.push_str(&quote(&string("name")?));
    let version = string("version")?;
    if !version.is_empty() {
        out.push_str(",\"version\":");
        out.push_str(&quote(&version));
    }
    out.push_str(",\"repository\":");
    out.push_str(&quote(&string("repository")?));
    let condition = string("condition")?;
    if !condition.is_empty() {
        out.push_str(",\"condition\":");
        out.push_str(&quote(&condition));
    }
    if let Some(tags) = dep.get("tags").filter(|n| !n.is_null()) {
        let tags = tags.as_seq()?;
        if !tags.is_empty() {
            out.push_str(",\"tags\":[");
            for (i, t) in tags.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&quote(t.as_str().filter(|_| is_string_scalar(t))?));
            }
            out.push(']');
        }
    }
    if let Some(enabled) = dep.get("enabled").filter(|n| !n.is_null()) {
        match enabled.as_str()? {
            "true" => out.push_str(",\"enabled\":true"),
            "false" => {}
            _ => return None,
        }
    }
    if let Some(imports) = dep.get("import-values").filter(|n| !n.is_null()) {
        let imports = imports.as_seq()?;
        if !imports.is_empty() {
            out.push_str(",\"import-values\":[");
            for (i, v) in imports.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                import_json(v, out)?;
            }
            out.push(']');
        }
    }
    let alias = string("alias")?;
    if !alias.is_empty() {
        out.push_str(",\"alias\":");
        out.push_str(&quote(&alias));
    }
    out.push('}');
    Some(())
}

/// An `import-values` entry (`interface{}`): a string, or a mapping of strings with its keys
/// sorted as Go writes a map.
fn import_json(v: &Node, out: &mut String) -> Option<()> {
    let quote = crate::go::json::quote;
    if let Some(entries) = v.as_map() {
        let mut pairs: Vec<(&str, &str)> = entries
            .iter()
            .map(|(k, v)| Some((k.as_str()?, v.as_str().filter(|_| is_string_scalar(v))?)))
            .collect::<Option<_>>()?;
        pairs.sort();
        out.push('{');
        for (i, (k, v)) in pairs.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&quote(k));
            out.push(':');
            out.push_str(&quote(v));
        }
        out.push('}');
        return Some(());
    }
    out.push_str(&quote(v.as_str().filter(|_| is_string_scalar(v))?));
    Some(())
}

/// True for a scalar YAML reads as a string (what sigs.k8s.io/yaml hands Helm as one).
fn is_string_scalar(n: &Node) -> bool {
    n.as_scalar().is_some_and(|s| {
        matches!(
            yaml::resolve_scalar(s, yaml::Dialect::Yaml11),
            Ok(yaml::Resolved::Str(_))
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(text: &str) -> Node {
        yaml::parse_one(text.as_bytes(), &ParseOptions::default()).unwrap()
    }

    /// The digest `helm dependency update` (v3.17.3) wrote into the Chart.lock of
    /// testdata/helm-lock (see its README).
    #[test]
    fn the_digest_helm_writes() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/helm-lock");
        let declared = node(&std::fs::read_to_string(format!("{dir}/Chart.yaml")).unwrap());
        let lock = node(&std::fs::read_to_string(format!("{dir}/Chart.lock")).unwrap());
        let digest = hash_req(declared.get("dependencies"), lock.get("dependencies")).unwrap();
        assert_eq!(Some(digest.as_str()), lock.str_at(&["digest"]));
        // A changed constraint no longer matches; a version Helm could not read is not judged.
        let changed = node(
            &std::fs::read_to_string(format!("{dir}/Chart.yaml"))
                .unwrap()
                .replace("~1.0", "~1.1"),
        );
        assert_ne!(
            hash_req(changed.get("dependencies"), lock.get("dependencies")).as_deref(),
            lock.str_at(&["digest"])
        );
        assert!(hash_req(Some(&node("[{name: a, version: 1.2}]")), None).is_none());
    }
}
