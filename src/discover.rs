//! Finds the targets of a snapshot by walking it and asking every engine (see
//! [`crate::target`]) about each directory and YAML file; the configuration's include and
//! exclude globs select among them.

use crate::config::Config;
use crate::engine::DirListing;
use crate::finding::{rules, Finding};
use crate::source::{EntryKind, RepoPath, Snapshot};
use crate::target::{self, Target};
use rayon::prelude::*;

/// What discovery found.
#[derive(Debug, Default)]
pub struct Discovery {
    /// Sorted, without duplicates.
    pub targets: Vec<Target>,
    pub findings: Vec<Finding>,
}

/// Walks the snapshot from the root: directories one after the other (listings are cheap),
/// then the YAML files in parallel (detecting a file reads and may parse it).
pub fn discover(snapshot: &dyn Snapshot, config: &Config) -> Discovery {
    let mut out = Discovery::default();
    let mut files = Vec::new();
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
        let listing = DirListing {
            snapshot,
            dir: &dir,
            entries: &entries,
            config,
        };
        let found = target::detect_dir(&listing);
        if config.selects(dir.as_str()) {
            out.targets.extend(found.specs);
        }
        if found.claims_dir {
            continue;
        }
        for entry in &entries {
            let path = dir.child(&entry.name);
            match entry.kind {
                EntryKind::Dir if entry.name != ".git" => stack.push(path),
                EntryKind::Dir => {}
                _ if (entry.name.ends_with(".yaml") || entry.name.ends_with(".yml"))
                    && config.selects(path.as_str()) =>
                {
                    files.push(path);
                }
                _ => {}
            }
        }
    }
    let detected: Vec<_> = files
        .par_iter()
        .map(|path| target::detect_file(snapshot, path, config))
        .collect();
    for (targets, findings) in detected {
        out.targets.extend(targets);
        out.findings.extend(findings);
    }
    out.targets.sort();
    out.targets.dedup();
    out
}

/// What `kdelta render DIR` renders: the kustomization there (a component too: building it
/// says why it cannot be built alone), else the chart, else the directory's plain manifests,
/// whatever the configuration selects.
pub fn target_at(snapshot: &dyn Snapshot, dir: RepoPath) -> Target {
    let has = |name: &str| snapshot.kind(&dir.child(name)) == EntryKind::File;
    if crate::kustomize::KUSTOMIZATION_FILES.iter().any(|f| has(f)) {
        crate::kustomize::Spec { dir }.into()
    } else if has("Chart.yaml") {
        crate::helm::Spec::chart(dir).into()
    } else {
        crate::directory::Spec { dir }.into()
    }
}
