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
    /// What the YAML files say of Argo CD's configuration, in path order.
    pub argocd: Vec<crate::appset::settings::Entry>,
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
    files.sort();
    let detected: Vec<_> = files
        .par_iter()
        .map(|path| {
            (
                target::detect_file(snapshot, path, config),
                argocd_settings_in(snapshot, path),
            )
        })
        .collect();
    for ((targets, findings), argocd) in detected {
        out.targets.extend(targets);
        out.findings.extend(findings);
        out.argocd.extend(argocd);
    }
    out.targets.sort();
    out.targets.dedup();
    out
}

/// What one YAML file says of Argo CD's configuration (argocd-cm, plugins), read at most
/// once per blob across revisions when it says nothing.
fn argocd_settings_in(
    snapshot: &dyn Snapshot,
    path: &RepoPath,
) -> Vec<crate::appset::settings::Entry> {
    let id = snapshot.stored_id(path);
    if id.is_some_and(|id| NoSettings::holds(&id)) {
        return Vec::new();
    }
    let Ok(bytes) = snapshot.read(path) else {
        return Vec::new();
    };
    let found = crate::appset::settings::detect(path, &bytes);
    if found.is_empty() {
        if let Some(id) = id {
            NoSettings::add(id);
        }
    }
    found
}

/// What the YAML files of a snapshot say of Argo CD's configuration, in path order: the
/// part of [`discover`] that commands rendering one target need.
pub fn argocd_settings(
    snapshot: &dyn Snapshot,
    config: &Config,
) -> Vec<crate::appset::settings::Entry> {
    let mut files = Vec::new();
    let mut stack = vec![RepoPath::root()];
    while let Some(dir) = stack.pop() {
        for entry in snapshot.list(&dir).unwrap_or_default() {
            let path = dir.child(&entry.name);
            match entry.kind {
                EntryKind::Dir if entry.name != ".git" => stack.push(path),
                EntryKind::Dir => {}
                _ if (entry.name.ends_with(".yaml") || entry.name.ends_with(".yml"))
                    && config.selects(path.as_str()) =>
                {
                    files.push(path)
                }
                _ => {}
            }
        }
    }
    files.sort();
    files
        .par_iter()
        .map(|p| argocd_settings_in(snapshot, p))
        .collect::<Vec<_>>()
        .into_iter()
        .flatten()
        .collect()
}

/// Blob ids known to say nothing of Argo CD's configuration (see `appset::NotArgo`, the
/// same idea for manifests).
struct NoSettings;

/// How many ids [`NoSettings`] keeps before it starts again (20 bytes each).
const NO_SETTINGS_IDS: usize = 100_000;

impl NoSettings {
    fn ids() -> std::sync::MutexGuard<'static, std::collections::HashSet<crate::source::ObjectId>> {
        static IDS: std::sync::OnceLock<
            std::sync::Mutex<std::collections::HashSet<crate::source::ObjectId>>,
        > = std::sync::OnceLock::new();
        IDS.get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    fn holds(id: &crate::source::ObjectId) -> bool {
        NoSettings::ids().contains(id)
    }

    fn add(id: crate::source::ObjectId) {
        let mut ids = NoSettings::ids();
        if ids.len() >= NO_SETTINGS_IDS {
            ids.clear();
        }
        ids.insert(id);
    }
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
