//! Finds the targets of a snapshot: kustomization directories, Helm charts, Argo CD
//! ApplicationSets and Applications, and the plain-manifest directories named in the config.

use crate::config::Config;
use crate::finding::rules;
use crate::render::{yaml_finding, Target};
use crate::report::Finding;
use crate::source::{EntryKind, RepoPath, Snapshot};
use crate::yaml::{self, Node, ParseOptions};

/// The file names kustomize accepts, in its order of preference.
pub const KUSTOMIZATION_FILES: [&str; 3] =
    ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// What discovery found.
#[derive(Debug, Default)]
pub struct Discovery {
    /// Sorted, without duplicates.
    pub targets: Vec<Target>,
    pub findings: Vec<Finding>,
}

/// Walks the snapshot from the root.
pub fn discover(snapshot: &dyn Snapshot, config: &Config) -> Discovery {
    let mut out = Discovery::default();
    let mut stack = vec![RepoPath::root()];
    while let Some(dir) = stack.pop() {
        let entries = match snapshot.list(&dir) {
            Ok(e) => e,
            Err(e) => {
                out.findings.push(
                    Finding::warning(rules::DISCOVER_UNREADABLE, e.to_string())
                        .in_file(dir.to_string()),
                );
                continue;
            }
        };
        let has = |name: &str| {
            entries
                .iter()
                .any(|e| e.name == name && e.kind != EntryKind::Dir)
        };
        if entries.iter().any(|e| e.name == "Chart.yaml") && has("Chart.yaml") {
            // A chart's own subcharts and templates are part of the chart, not targets.
            if config.selects(dir.as_str()) {
                out.targets.push(Target::Helm {
                    chart: dir.clone(),
                    values: None,
                });
            }
            continue;
        }
        if let Some(file) = KUSTOMIZATION_FILES.iter().find(|f| has(f)) {
            if config.selects(dir.as_str()) && !is_component(snapshot, &dir.child(file)) {
                out.targets.push(Target::Kustomize { dir: dir.clone() });
            }
        }
        if !dir.is_root()
            && config.is_manifest_directory(dir.as_str())
            && config.selects(dir.as_str())
        {
            out.targets.push(Target::Directory { dir: dir.clone() });
        }
        for entry in &entries {
            let path = dir.child(&entry.name);
            match entry.kind {
                EntryKind::Dir if entry.name != ".git" => stack.push(path),
                EntryKind::Dir => {}
                _ if entry.name.ends_with(".yaml") || entry.name.ends_with(".yml") => {
                    argo_targets(snapshot, &path, config, &mut out);
                }
                _ => {}
            }
        }
    }
    out.targets.sort();
    out.targets.dedup();
    out
}

fn is_component(snapshot: &dyn Snapshot, file: &RepoPath) -> bool {
    let Ok(bytes) = snapshot.read(file) else {
        return false;
    };
    yaml::parse_one(&bytes, &ParseOptions::default())
        .map(|n| n.str_at(&["kind"]) == Some("Component"))
        .unwrap_or(false)
}

fn argo_targets(snapshot: &dyn Snapshot, path: &RepoPath, config: &Config, out: &mut Discovery) {
    let Ok(bytes) = snapshot.read(path) else {
        return;
    };
    if !contains(&bytes, b"argoproj.io/") || !config.selects(path.as_str()) {
        return;
    }
    let docs = match yaml::parse_stream(&bytes, &ParseOptions::default()) {
        Ok(d) => d,
        Err(e) => {
            let mut f = yaml_finding(&e, path);
            f.severity = crate::report::Severity::Warning;
            f.message = format!(
                "looks like an Argo CD manifest but is not valid YAML: {}",
                f.message
            );
            out.findings.push(f);
            return;
        }
    };
    for doc in &docs {
        if let Some(t) = argo_target(doc, path) {
            out.targets.push(t);
        }
    }
}

fn argo_target(doc: &Node, path: &RepoPath) -> Option<Target> {
    if !doc.str_at(&["apiVersion"])?.starts_with("argoproj.io/") {
        return None;
    }
    let name = doc.str_at(&["metadata", "name"])?.to_string();
    match doc.str_at(&["kind"])? {
        "ApplicationSet" => Some(Target::AppSet {
            file: path.clone(),
            name,
        }),
        "Application" => Some(Target::Application {
            file: path.clone(),
            name,
        }),
        _ => None,
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}
