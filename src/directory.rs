//! Plain-manifest directories: every YAML document of the directory's `.yaml`, `.yml` and
//! `.json` files (not recursive), in kustomize's legacy order.

use crate::engine::{self, Detected, DirListing, EngineOutput};
use crate::finding::{rules, Finding};
use crate::resource::{legacy_sort, LegacyOrder, Resource};
use crate::source::{source_finding, yaml_finding, EntryKind, Files, RepoPath, Snapshot};
use crate::yaml::{Node, ParseOptions};

/// A directory of plain manifests, named in the configuration's `directories:`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Spec {
    pub dir: RepoPath,
}

impl engine::Spec for Spec {
    type Options = ();
    type Details = ();
    type Setting = engine::NoSetting;
    const ID_PREFIXES: &'static [&'static str] = &["dir"];
    /// `.kdelta.yaml` names the directories of plain manifests.
    const CONFIG_KEYS: &'static [&'static str] = &["directories"];
    /// Plain manifests: no settings change them.
    const READS_REVISION_SETTINGS: bool = false;

    fn kind(&self) -> &'static str {
        "directory"
    }

    fn id(&self) -> String {
        format!("dir:{}", self.dir)
    }

    fn path(&self) -> &RepoPath {
        &self.dir
    }

    fn defining_file(&self, _snapshot: &dyn Snapshot) -> RepoPath {
        self.dir.clone()
    }

    /// Any directory, when no other engine's (last in the table).
    fn at_dir(_snapshot: &dyn Snapshot, dir: &RepoPath) -> Option<Spec> {
        Some(Spec { dir: dir.clone() })
    }

    /// The directory itself: its files are the only ones read.
    fn input_dirs(&self, _files: &Files, _opts: &()) -> Option<Vec<RepoPath>> {
        Some(vec![self.dir.clone()])
    }

    fn render(&self, files: &Files, _opts: &()) -> EngineOutput<()> {
        render(files, &self.dir)
    }

    fn detect_dir(listing: &DirListing) -> Detected<Spec> {
        let chosen =
            !listing.dir.is_root() && listing.config.is_manifest_directory(listing.dir.as_str());
        Detected {
            specs: chosen
                .then(|| Spec {
                    dir: listing.dir.clone(),
                })
                .into_iter()
                .collect(),
            claims_dir: false,
            lists: Vec::new(),
        }
    }
}

/// Renders the directory; the output is not `ok` when an error made it incomplete.
pub fn render(files: &Files, dir: &RepoPath) -> EngineOutput<()> {
    let mut resources = Vec::new();
    let mut findings = Vec::new();
    let entries = match files.list(dir) {
        Ok(e) => e,
        Err(e) => return EngineOutput::failed(vec![source_finding(&e, dir)]),
    };
    for entry in entries {
        let is_manifest = [".yaml", ".yml", ".json"]
            .iter()
            .any(|ext| entry.name.ends_with(ext));
        // Dotfiles (.kdelta.yaml, .pre-commit-config.yaml…) are tool configuration, not manifests.
        if !is_manifest || entry.kind == EntryKind::Dir || entry.name.starts_with('.') {
            continue;
        }
        let path = dir.child(&entry.name);
        let parsed = match files.yaml_stream(&path, &ParseOptions::default()) {
            Ok(p) => p,
            Err(e) => {
                findings.push(source_finding(&e, &path));
                continue;
            }
        };
        match parsed.as_ref() {
            Err(e) => findings.push(yaml_finding(e, &path)),
            Ok(docs) => {
                for doc in docs {
                    collect(doc, &path, &mut resources, &mut findings);
                }
            }
        }
    }
    legacy_sort(&mut resources, &LegacyOrder::default());
    let ok = findings.is_empty();
    EngineOutput::new(resources, findings, ok)
}

/// Adds one document: objects as they are, `kind: List` expanded into its items.
fn collect(doc: &Node, path: &RepoPath, out: &mut Vec<Resource>, findings: &mut Vec<Finding>) {
    if doc.is_null() {
        return;
    }
    if !doc.is_map() {
        findings.push(
            Finding::error(
                rules::RESOURCE_INVALID,
                "document is not a mapping; a Kubernetes object must be a mapping with apiVersion, kind and metadata",
            )
            .at(path.to_string(), doc.span.line, doc.span.column),
        );
        return;
    }
    let kind = doc.str_at(&["kind"]);
    if kind.is_some_and(|k| k.ends_with("List")) {
        if let Some(items) = doc.get("items").and_then(Node::as_seq) {
            for item in items {
                collect(item, path, out, findings);
            }
            return;
        }
    }
    if kind.is_none() || doc.str_at(&["metadata", "name"]).is_none() {
        findings.push(
            Finding::error(
                rules::RESOURCE_INVALID,
                "object has no kind or no metadata.name",
            )
            .at(path.to_string(), doc.span.line, doc.span.column),
        );
        return;
    }
    if let Some(e) = crate::yaml::typing_error(doc, crate::yaml::Dialect::Yaml12) {
        let secret = kind == Some("Secret");
        let message = if secret {
            "a value of this Secret cannot be typed (a tag that does not fit, NaN or infinity)"
                .to_string()
        } else {
            e.to_string()
        };
        findings.push(Finding::error(rules::RESOURCE_UNTYPABLE, message).at(
            path.to_string(),
            doc.span.line,
            doc.span.column,
        ));
        return;
    }
    out.push(Resource::new(doc.clone(), path.clone()));
}
