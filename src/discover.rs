//! Finds the targets of a snapshot by walking it and asking every engine (see
//! [`crate::target`]) about each directory and YAML file; the configuration's include and
//! exclude globs select among them.

use crate::config::Config;
use crate::engine::DirListing;
use crate::finding::{rules, Finding};
use crate::source::{EntryKind, RepoPath, Snapshot};
use crate::target::{self, RevisionSettings, Target};
use rayon::prelude::*;
use std::collections::HashMap;

/// What discovery found.
#[derive(Debug, Default)]
pub struct Discovery {
    /// Sorted, without duplicates.
    pub targets: Vec<Target>,
    pub findings: Vec<Finding>,
    /// What the YAML files say of the tools' own configuration (see
    /// [`crate::engine::Spec::settings_in`]), which the pipeline folds into the revision's
    /// render options.
    pub settings: RevisionSettings,
    /// The paths another target lists (a kustomization's bases, components and resources):
    /// what is built as part of something else, not applied as it is.
    pub included: std::collections::HashSet<RepoPath>,
}

/// Walks the snapshot from the root: directories one after the other (listings are cheap),
/// then the YAML files in parallel (detecting a file reads and may parse it). Each file is
/// detected knowing the top-level targets it is a part of (see [`Includers`]), whatever the
/// configuration selects: what a file is does not depend on what is rendered.
pub fn discover(snapshot: &dyn Snapshot, config: &Config) -> Discovery {
    let mut out = Discovery::default();
    let mut files = Vec::new();
    let mut settings_only = Vec::new();
    let mut includers = Includers::default();
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
        for path in found.lists {
            includers
                .listed_by
                .entry(path)
                .or_default()
                .push(dir.clone());
        }
        if config.selects(dir.as_str()) {
            out.targets.extend(found.specs);
        }
        let (dirs, yaml) = children(&dir, &entries, config);
        if found.claims_dir {
            // A chart's own values files may configure a tool (the argo-cd chart's
            // `configs.cm`); its templates and vendored subcharts are not looked at.
            settings_only.extend(yaml);
            continue;
        }
        stack.extend(dirs);
        files.extend(yaml);
    }
    files.sort();
    settings_only.sort();
    let included_by: Vec<Vec<RepoPath>> = files.iter().map(|f| includers.tops(f)).collect();
    let detected: Vec<_> = files
        .par_iter()
        .zip(included_by.par_iter())
        .map(|(path, tops)| {
            (
                target::detect_file(snapshot, path, config, tops),
                settings_in(snapshot, path),
            )
        })
        .collect();
    let mut settings = Vec::with_capacity(files.len() + settings_only.len());
    for (path, ((targets, findings), found)) in files.iter().zip(detected) {
        out.targets.extend(targets);
        out.findings.extend(findings);
        settings.push((path, found));
    }
    settings.extend(
        settings_only
            .iter()
            .zip(settings_of(snapshot, &settings_only)),
    );
    out.settings = in_path_order(settings);
    let (targets, findings) = target::settle(snapshot, std::mem::take(&mut out.targets));
    out.targets = targets;
    out.findings.extend(findings);
    out.targets.sort();
    out.included = includers.listed_by.into_keys().collect();
    out.targets.dedup();
    out
}

/// What one YAML file says of the tools' own configuration (argocd-cm, plugins), read once for
/// every engine, and at most once per blob across revisions when it says nothing.
fn settings_in(snapshot: &dyn Snapshot, path: &RepoPath) -> RevisionSettings {
    let id = snapshot.stored_id(path);
    if id.is_some_and(|id| NoSettings::holds(&id)) {
        return RevisionSettings::default();
    }
    let Ok(bytes) = snapshot.read(path) else {
        return RevisionSettings::default();
    };
    let found = RevisionSettings::in_file(path, &bytes);
    if found.is_empty() {
        if let Some(id) = id {
            NoSettings::add(id);
        }
    }
    found
}

/// A directory's subdirectories to walk and the YAML files the configuration selects.
fn children(
    dir: &RepoPath,
    entries: &[crate::source::DirEntry],
    config: &Config,
) -> (Vec<RepoPath>, Vec<RepoPath>) {
    let (mut dirs, mut yaml) = (Vec::new(), Vec::new());
    for entry in entries {
        let path = dir.child(&entry.name);
        match entry.kind {
            EntryKind::Dir if entry.name != ".git" => dirs.push(path),
            EntryKind::Dir => {}
            _ if (entry.name.ends_with(".yaml") || entry.name.ends_with(".yml"))
                && config.selects(path.as_str()) =>
            {
                yaml.push(path)
            }
            _ => {}
        }
    }
    (dirs, yaml)
}

/// What the YAML files of a snapshot say of the tools' own configuration, in path order: the
/// part of [`discover`] that commands rendering one target need. The same files are read:
/// a chart directory's own YAML files, not what lies below it.
pub fn revision_settings(snapshot: &dyn Snapshot, config: &Config) -> RevisionSettings {
    let mut files = Vec::new();
    let mut stack = vec![RepoPath::root()];
    while let Some(dir) = stack.pop() {
        let entries = snapshot.list(&dir).unwrap_or_default();
        let (dirs, yaml) = children(&dir, &entries, config);
        if !entries
            .iter()
            .any(|e| e.kind != EntryKind::Dir && Target::claiming_files().any(|f| e.name == f))
        {
            stack.extend(dirs);
        }
        files.extend(yaml);
    }
    files.sort();
    in_path_order(files.iter().zip(settings_of(snapshot, &files)).collect())
}

/// What each of `files` says of the tools' own configuration, read in parallel.
fn settings_of(snapshot: &dyn Snapshot, files: &[RepoPath]) -> Vec<RevisionSettings> {
    files.par_iter().map(|p| settings_in(snapshot, p)).collect()
}

/// What the files say, in path order, which decides between files that disagree (a file's
/// own order stays).
fn in_path_order(mut found: Vec<(&RepoPath, RevisionSettings)>) -> RevisionSettings {
    found.sort_by(|a, b| a.0.cmp(b.0));
    let mut out = RevisionSettings::default();
    for (_, settings) in found {
        out.extend(settings);
    }
    out
}

/// Blob ids known to say nothing of any tool's configuration (see `appset::NotArgo`, the
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

/// Which targets include which paths: a kustomization includes what it lists under
/// `resources`, `bases` and `components` ([`crate::engine::Detected::lists`]). A file's
/// top-level includers are the directories whose targets include it, directly or through
/// targets they include, and that no target includes: what is built and applied (an overlay),
/// not its bases. Each path and directory is visited once, so the cost is linear in the
/// number of listed paths.
#[derive(Default)]
struct Includers {
    /// A listed path (a file or a directory) → the directories whose targets list it.
    listed_by: HashMap<RepoPath, Vec<RepoPath>>,
    /// The top-level includers of each directory seen so far.
    tops: HashMap<RepoPath, Vec<RepoPath>>,
}

impl Includers {
    /// The top-level includers of `file`, sorted (empty when nothing lists it).
    fn tops(&mut self, file: &RepoPath) -> Vec<RepoPath> {
        match self.listed_by.get(file).cloned() {
            Some(listers) => self.tops_of(listers),
            None => Vec::new(),
        }
    }

    /// The top-level includers of all of `listers`, sorted, without duplicates.
    fn tops_of(&mut self, listers: Vec<RepoPath>) -> Vec<RepoPath> {
        let mut out = Vec::new();
        for lister in listers {
            out.extend(self.dir_tops(&lister));
        }
        out.sort();
        out.dedup();
        out
    }

    /// The top-level includers of the target in `dir` (itself when nothing includes it).
    /// Kustomizations that include each other (a cycle, which their builds report) end the
    /// walk where it comes back.
    fn dir_tops(&mut self, dir: &RepoPath) -> Vec<RepoPath> {
        if let Some(known) = self.tops.get(dir) {
            return known.clone();
        }
        // Marks the walk through `dir`: a cycle back to it adds nothing.
        self.tops.insert(dir.clone(), Vec::new());
        let found = match self.listed_by.get(dir).cloned() {
            None => vec![dir.clone()],
            Some(listers) => self.tops_of(listers),
        };
        self.tops.insert(dir.clone(), found.clone());
        found
    }
}

/// What `kdelta render DIR` renders: the kustomization there (a component too: building it
/// says why it cannot be built alone), else the chart, else the directory's plain manifests,
/// whatever the configuration selects (see [`crate::engine::Spec::at_dir`]).
pub fn target_at(snapshot: &dyn Snapshot, dir: RepoPath) -> Target {
    target::at_dir(snapshot, &dir).expect("the last engine of the table renders any directory")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(p: &str) -> RepoPath {
        RepoPath::new(p).unwrap()
    }

    /// An umbrella chart installing Argo CD: its own values configure it; the vendored
    /// argo-cd chart's defaults and templates do not, and both walks agree.
    #[test]
    fn argo_cd_settings_come_from_a_charts_own_values_not_what_it_vendors() {
        let mut snapshot = crate::source::MemorySnapshot::new();
        for (p, text) in [
            ("argocd/Chart.yaml", "apiVersion: v2\nname: argocd\nversion: 1.0.0\n"),
            ("argocd/values.yaml", "argo-cd:\n  configs:\n    cm:\n      application.instanceLabelKey: example.com/app\n"),
            ("argocd/charts/argo-cd/Chart.yaml", "apiVersion: v2\nname: argo-cd\nversion: 9.0.0\n"),
            ("argocd/charts/argo-cd/values.yaml", "configs:\n  cm:\n    application.instanceLabelKey: argocd.argoproj.io/instance\n"),
            ("argocd/charts/argo-cd/templates/cm.yaml", "kind: ConfigMap\nmetadata: {name: argocd-cm}\ndata:\n  url: x\n"),
            ("apps/argocd-cm.yaml", "kind: ConfigMap\nmetadata: {name: argocd-cm}\ndata:\n  kustomize.buildOptions: --enable-helm\n"),
        ] {
            snapshot.add_file(&path(p), text.as_bytes());
        }
        let config = Config::default();
        let found = discover(&snapshot, &config).settings;
        let files: Vec<&str> = found
            .argocd
            .iter()
            .map(|e| e.place().file.as_str())
            .collect();
        assert_eq!(files, ["apps/argocd-cm.yaml", "argocd/values.yaml"]);
        assert_eq!(revision_settings(&snapshot, &config), found);
    }

    fn includers(edges: &[(&str, &str)]) -> Includers {
        let mut i = Includers::default();
        for (lister, listed) in edges {
            i.listed_by
                .entry(path(listed))
                .or_default()
                .push(path(lister));
        }
        i
    }

    #[test]
    fn a_file_belongs_to_the_overlays_that_include_its_base() {
        let mut i = includers(&[
            ("base", "base/app.yaml"),
            ("overlays/prod", "base"),
            ("overlays/staging", "base"),
            ("overlays/staging", "overlays/staging/extra.yaml"),
        ]);
        assert_eq!(
            i.tops(&path("base/app.yaml")),
            [path("overlays/prod"), path("overlays/staging")]
        );
        assert_eq!(
            i.tops(&path("overlays/staging/extra.yaml")),
            [path("overlays/staging")]
        );
        assert!(i.tops(&path("overlays/prod/other.yaml")).is_empty());
    }

    #[test]
    fn kustomizations_that_include_each_other_end_the_walk() {
        let mut i = includers(&[("a", "b"), ("b", "a"), ("a", "a/f.yaml"), ("c", "a")]);
        assert_eq!(i.tops(&path("a/f.yaml")), [path("c")]);
    }
}
