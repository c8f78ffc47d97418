//! `.kdelta.yaml`: which targets to render and which plain-manifest directories exist.

use crate::finding::rules;
use crate::finding::Finding;
use crate::yaml::{self, de::from_node, Dialect, ParseOptions};
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Deserialize;

/// One ignore rule: which resources (a wildcard over `group/version/Kind/namespace/name`) and
/// which field paths (wildcards over kdelta paths such as
/// `metadata.annotations["checksum/config"]`; a rule that matches a parent path covers the
/// fields below it). `*` matches any run of characters; nothing else is special. The diff
/// applies them (`diff::noise`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IgnoreRule {
    pub resources: String,
    pub fields: Vec<String>,
}

/// The default config file name, at the repository root.
pub const CONFIG_FILE: &str = ".kdelta.yaml";

/// The config file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawConfig {
    #[serde(default)]
    include: Vec<String>,
    #[serde(default)]
    exclude: Vec<String>,
    #[serde(default)]
    directories: Vec<String>,
    #[serde(default)]
    ignore: Vec<RawIgnore>,
}

/// An `ignore:` entry as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawIgnore {
    #[serde(default)]
    resources: Option<String>,
    fields: Vec<String>,
}

/// The parsed configuration with compiled globs.
#[derive(Debug, Clone)]
pub struct Config {
    include: Option<GlobSet>,
    exclude: GlobSet,
    directories: GlobSet,
    ignore: Vec<IgnoreRule>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            include: None,
            exclude: GlobSet::empty(),
            directories: GlobSet::empty(),
            ignore: Vec::new(),
        }
    }
}

fn glob(pattern: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(pattern.trim_end_matches('/'))
        .literal_separator(true)
        .build()
}

fn glob_set(patterns: &[String], key: &str, node: &yaml::Node) -> Result<GlobSet, ConfigError> {
    let mut b = GlobSetBuilder::new();
    for (i, p) in patterns.iter().enumerate() {
        let g = glob(p).map_err(|e| {
            let span = node
                .get(key)
                .and_then(|n| n.as_seq())
                .and_then(|s| s.get(i))
                .map(|n| n.span)
                .unwrap_or_default();
            ConfigError {
                message: format!("invalid glob {p:?} in `{key}`: {}", e.kind()),
                line: span.line,
                column: span.column,
            }
        })?;
        b.add(g);
    }
    b.build().map_err(|e| ConfigError {
        message: e.to_string(),
        line: 0,
        column: 0,
    })
}

/// An invalid config file, with the position of the problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ConfigError {
    pub message: String,
    pub line: u32,
    pub column: u32,
}

impl ConfigError {
    /// The error as a finding on `file`.
    pub fn to_finding(&self, file: &str) -> Finding {
        Finding::error(rules::CONFIG_INVALID, self.message.clone())
            .at(file, self.line, self.column)
            .with_help("see docs/configuration.md for the keys .kdelta.yaml accepts")
    }
}

impl Config {
    /// Parses the contents of a config file.
    pub fn parse(bytes: &[u8]) -> Result<Config, ConfigError> {
        let node = yaml::parse_one(bytes, &ParseOptions::default()).map_err(|e| ConfigError {
            message: e.message.clone(),
            line: e.span.line,
            column: e.span.column,
        })?;
        if node.is_null() {
            return Ok(Config::default());
        }
        let raw: RawConfig = from_node(&node, Dialect::Yaml12).map_err(|e| ConfigError {
            message: e.message.clone(),
            line: e.span.line,
            column: e.span.column,
        })?;
        Ok(Config {
            include: if raw.include.is_empty() {
                None
            } else {
                Some(glob_set(&raw.include, "include", &node)?)
            },
            exclude: glob_set(&raw.exclude, "exclude", &node)?,
            directories: glob_set(&raw.directories, "directories", &node)?,
            ignore: raw
                .ignore
                .into_iter()
                .map(|r| IgnoreRule {
                    resources: r.resources.unwrap_or_else(|| "*".to_string()),
                    fields: r.fields,
                })
                .collect(),
        })
    }

    /// True when a target at this repo-relative path should be rendered.
    pub fn selects(&self, path: &str) -> bool {
        let included = match &self.include {
            None => true,
            Some(set) => set.is_match(path),
        };
        included && !self.exclude.is_match(path)
    }

    /// The `ignore:` rules, for the diff.
    pub fn ignore_rules(&self) -> &[IgnoreRule] {
        &self.ignore
    }

    /// True when `dir` is listed under `directories:`.
    pub fn is_manifest_directory(&self, dir: &str) -> bool {
        self.directories.is_match(dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_exclude_and_directories() {
        let c = Config::parse(
            b"include: ['apps/**']\nexclude: ['**/testdata/**']\ndirectories: ['manifests/*']\n",
        )
        .unwrap();
        assert!(c.selects("apps/web/overlays/prod"));
        assert!(!c.selects("apps/web/testdata/x"));
        assert!(!c.selects("infra/x"));
        assert!(c.is_manifest_directory("manifests/crds"));
        assert!(!c.is_manifest_directory("manifests/crds/sub"));
        let all = Config::parse(b"").unwrap();
        assert!(all.selects("anything"));
    }

    #[test]
    fn ignore_rules() {
        let c = Config::parse(
            b"ignore:\n- fields: ['metadata.labels[\"helm.sh/chart\"]']\n- resources: 'apps/*/Deployment/*'\n  fields: [spec.replicas]\n",
        )
        .unwrap();
        let rules = c.ignore_rules();
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0].resources, "*");
        assert!(rules[1].hides("apps/v1/Deployment/prod/web", "spec.replicas"));
        assert!(!rules[1].hides("core/v1/Service/prod/web", "spec.replicas"));
        assert!(Config::parse(b"ignore:\n- resources: x\n").is_err());
    }

    #[test]
    fn errors_have_lines() {
        let e = Config::parse(b"include: []\nbogus: 1\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("unknown field"), "{}", e.message);
        let e = Config::parse(b"exclude:\n- 'a/[b'\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = Config::parse(b"include: [a\n").unwrap_err();
        assert!(e.line > 0);
        let f = e.to_finding(".kdelta.yaml");
        assert_eq!(f.rule, rules::CONFIG_INVALID);
    }
}
