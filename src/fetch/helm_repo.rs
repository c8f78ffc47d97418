//! A Helm HTTP repository's `index.yaml` (Helm's `pkg/repo/index.go`) and the choice of a
//! chart version in it.
//!
//! Helm's `IndexFile.Get` (`helm pull`, kustomize's `helmCharts`), Helm's dependency resolver
//! and Argo CD's `MaxVersion` agree on an index sorted newest first: an exact version string
//! wins, else the newest version the constraint admits. Versions that do not parse are never
//! chosen by a constraint; entries without URLs cannot be downloaded and are skipped.

use super::FetchError;
use crate::semver::{Constraint, Version};
use crate::yaml::{self, Node, ParseOptions};
use std::collections::BTreeMap;

/// Largest index read: big public repositories publish indexes of tens of MB.
pub const MAX_INDEX_BYTES: u64 = 64 << 20;

/// One version of a chart in the index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub version: String,
    pub urls: Vec<String>,
    /// The published sha256 of the archive (bare hex), which Helm never checks.
    pub digest: Option<String>,
}

/// A parsed index: every chart's versions, newest first (Helm's `SortEntries`).
#[derive(Debug, Default)]
pub struct Index {
    entries: BTreeMap<String, Vec<Entry>>,
}

impl Index {
    /// Parses `index.yaml` (YAML or JSON) as Helm loads it: `apiVersion` is required.
    pub fn parse(bytes: &[u8], url: &str) -> Result<Index, FetchError> {
        let invalid = |message: String| FetchError::Index {
            url: url.to_string(),
            message,
        };
        let opts = ParseOptions {
            limits: yaml::Limits {
                max_bytes: MAX_INDEX_BYTES as usize,
                ..yaml::Limits::DEFAULT
            },
            ..ParseOptions::default()
        };
        let doc = yaml::parse_first(bytes, &opts)
            .map_err(|e| invalid(e.to_string()))?
            .unwrap_or_else(Node::null);
        if doc.str_at(&["apiVersion"]).is_none_or(str::is_empty) {
            return Err(invalid("no API version".into()));
        }
        let mut entries = BTreeMap::new();
        for (name, versions) in doc
            .get("entries")
            .and_then(Node::as_map)
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            let Some(name) = name.as_str() else { continue };
            let mut list: Vec<Entry> = versions
                .as_seq()
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .filter_map(|v| {
                    Some(Entry {
                        version: v.str_at(&["version"])?.to_string(),
                        urls: v
                            .get("urls")
                            .and_then(Node::as_seq)
                            .map(|u| {
                                u.iter()
                                    .filter_map(|s| s.as_str())
                                    .map(String::from)
                                    .collect()
                            })
                            .unwrap_or_default(),
                        digest: v.str_at(&["digest"]).map(String::from),
                    })
                })
                .collect();
            sort_newest_first(&mut list);
            entries.insert(name.to_string(), list);
        }
        Ok(Index { entries })
    }

    /// The index as kdelta keeps it for later runs: one line per version, charts in name
    /// order and versions newest first, `NAME\tVERSION\tDIGEST\tURL…`, so that one chart's
    /// versions are found without parsing the whole index again (a big repository's
    /// `index.yaml` is tens of MB of YAML).
    pub fn compact(&self) -> String {
        let clean = |s: &str| !s.contains(['\t', '\n', '\r']);
        let mut out = String::new();
        for (name, versions) in &self.entries {
            if !clean(name) {
                continue;
            }
            for e in versions {
                let digest = e.digest.as_deref().unwrap_or("");
                if !clean(&e.version) || !clean(digest) || !e.urls.iter().all(|u| clean(u)) {
                    continue;
                }
                out.push_str(name);
                out.push('\t');
                out.push_str(&e.version);
                out.push('\t');
                out.push_str(digest);
                for u in &e.urls {
                    out.push('\t');
                    out.push_str(u);
                }
                out.push('\n');
            }
        }
        out
    }

    /// The versions of chart `name` in a [`compact`](Index::compact) index.
    pub fn from_compact(compact: &[u8], name: &str) -> Index {
        let mut needle = Vec::with_capacity(name.len() + 2);
        needle.push(b'\n');
        needle.extend_from_slice(name.as_bytes());
        needle.push(b'\t');
        // The chart's first line: at the start, or after a newline.
        let start = if compact.starts_with(&needle[1..]) {
            Some(0)
        } else {
            memchr::memmem::find(compact, &needle).map(|i| i + 1)
        };
        let mut versions = Vec::new();
        if let Some(start) = start {
            for line in compact[start..].split(|b| *b == b'\n') {
                let line = String::from_utf8_lossy(line);
                let mut fields = line.split('\t');
                if fields.next() != Some(name) {
                    break;
                }
                let version = fields.next().unwrap_or_default().to_string();
                let digest = fields.next().filter(|d| !d.is_empty()).map(String::from);
                versions.push(Entry {
                    version,
                    urls: fields.map(String::from).collect(),
                    digest,
                });
            }
        }
        let mut entries = BTreeMap::new();
        if !versions.is_empty() {
            entries.insert(name.to_string(), versions);
        }
        Index { entries }
    }

    /// The version of `name` that `constraint` picks (the empty constraint is `*`).
    pub fn select(&self, name: &str, constraint: &str) -> Result<&Entry, SelectError> {
        let versions = self.entries.get(name).ok_or(SelectError::NoChart)?;
        let constraint = constraint.trim();
        if !constraint.is_empty() {
            if let Some(e) = versions
                .iter()
                .find(|e| e.version == constraint && !e.urls.is_empty())
            {
                return Ok(e);
            }
        }
        let c = Constraint::parse(if constraint.is_empty() {
            "*"
        } else {
            constraint
        })
        .map_err(SelectError::BadConstraint)?;
        versions
            .iter()
            .filter(|e| !e.urls.is_empty())
            .find(|e| Version::parse(&e.version).is_ok_and(|v| c.check(&v)))
            .ok_or(SelectError::NoVersion)
    }
}

/// Why no version was picked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelectError {
    NoChart,
    NoVersion,
    BadConstraint(crate::semver::SemverError),
}

/// Helm's `ChartVersions.Less`, reversed: versions that do not parse go last.
fn sort_newest_first(list: &mut [Entry]) {
    list.sort_by(
        |a, b| match (Version::parse(&a.version), Version::parse(&b.version)) {
            (Ok(x), Ok(y)) => y.compare(&x),
            (Ok(_), Err(_)) => std::cmp::Ordering::Less,
            (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
            (Err(_), Err(_)) => std::cmp::Ordering::Equal,
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    const INDEX: &str = "apiVersion: v1\nentries:\n  web:\n  - version: 1.2.0\n    urls: [web-1.2.0.tgz]\n  - version: 2.0.0-rc.1\n    urls: [web-2.0.0-rc.1.tgz]\n  - version: 1.10.1\n    urls: [web-1.10.1.tgz]\n    digest: abc\n  - version: nightly\n    urls: [web-nightly.tgz]\n  - version: 1.3.0\n    urls: []\n";

    #[test]
    fn picks_the_newest_match_or_the_exact_string() {
        let index = Index::parse(INDEX.as_bytes(), "u").unwrap();
        let pick = |c: &str| index.select("web", c).map(|e| e.version.clone());
        assert_eq!(pick(""), Ok("1.10.1".into()));
        assert_eq!(pick("~1.2"), Ok("1.2.0".into()));
        assert_eq!(pick(">=1.0.0-0"), Ok("2.0.0-rc.1".into()));
        assert_eq!(pick("nightly"), Ok("nightly".into()));
        assert_eq!(
            pick("1.3.0"),
            Err(SelectError::NoVersion),
            "no URL to download"
        );
        assert_eq!(pick("3.x"), Err(SelectError::NoVersion));
        assert!(matches!(
            pick("not a range"),
            Err(SelectError::BadConstraint(_))
        ));
        assert_eq!(index.select("db", ""), Err(SelectError::NoChart));
    }

    #[test]
    fn the_compact_form_keeps_each_chart_and_its_order() {
        let mut text = INDEX.to_string();
        text.push_str("  web-ui:\n  - version: 9.0.0\n    urls: [ui.tgz]\n  aweb:\n  - version: 0.1.0\n    urls: [a.tgz]\n");
        let index = Index::parse(text.as_bytes(), "u").unwrap();
        let compact = index.compact();
        for name in ["web", "web-ui", "aweb"] {
            let one = Index::from_compact(compact.as_bytes(), name);
            assert_eq!(one.entries.get(name), index.entries.get(name), "{name}");
        }
        assert_eq!(
            Index::from_compact(compact.as_bytes(), "we").select("we", ""),
            Err(SelectError::NoChart)
        );
        let web = Index::from_compact(compact.as_bytes(), "web");
        assert_eq!(
            web.select("web", "").map(|e| e.version.clone()),
            Ok("1.10.1".into())
        );
    }

    #[test]
    fn an_index_needs_an_api_version() {
        assert!(Index::parse(b"entries: {}\n", "u").is_err());
        assert!(Index::parse(b"{\"apiVersion\":\"v1\",\"entries\":{}}", "u").is_ok());
        assert!(Index::parse(b"apiVersion: [\n", "u").is_err());
    }
}
