//! Impact analysis for `--changed-only`: which targets a change between two revisions can
//! affect, without rendering. The changed paths come from comparing the two trees (equal
//! directory ids prune whole subtrees; no file is read); each engine names the directories its
//! render can read ([`Target::input_dirs`]); a target is impacted when a changed path lies in
//! one of them (or contains one). Symbolic links are followed: a change under a link's target
//! is a change of the link.

use crate::config::CONFIG_FILE;
use crate::render::{RenderOptions, Target};
use crate::source::{EntryKind, Files, ParseCache, RepoPath, Snapshot};
use std::collections::{BTreeMap, BTreeSet};

/// The paths that differ between the two snapshots: files added, removed or changed, and the
/// top of each directory tree that exists on one side only.
pub fn changed_paths(base: &dyn Snapshot, head: &dyn Snapshot) -> Vec<RepoPath> {
    let mut out = Vec::new();
    compare_dirs(base, head, &RepoPath::root(), &mut out);
    let mut links = symlinks(base);
    links.extend(symlinks(head));
    // A link whose target changed changed too (one level of links: a link to a link is
    // resolved to its end by `canonical`).
    let via_links: Vec<RepoPath> = links
        .iter()
        .filter(|(_, target)| out.iter().any(|c| overlaps(c, target)))
        .map(|(link, _)| link.clone())
        .collect();
    out.extend(via_links);
    out.sort();
    out.dedup();
    out
}

fn compare_dirs(base: &dyn Snapshot, head: &dyn Snapshot, dir: &RepoPath, out: &mut Vec<RepoPath>) {
    if let (Some(b), Some(h)) = (base.object_id(dir), head.object_id(dir)) {
        if b == h {
            return;
        }
    }
    let entries = |s: &dyn Snapshot| -> BTreeMap<String, EntryKind> {
        s.list(dir)
            .map(|l| l.into_iter().map(|e| (e.name, e.kind)).collect())
            .unwrap_or_default()
    };
    let (b, h) = (entries(base), entries(head));
    let names: BTreeSet<&String> = b.keys().chain(h.keys()).collect();
    for name in names {
        let path = dir.child(name);
        match (b.get(name), h.get(name)) {
            (Some(EntryKind::Dir), Some(EntryKind::Dir)) => compare_dirs(base, head, &path, out),
            (Some(bk), Some(hk)) if bk == hk => {
                let same = base.object_id(&path) == head.object_id(&path)
                    && (*bk != EntryKind::Symlink
                        || base.canonical(&path).ok() == head.canonical(&path).ok());
                if !same {
                    out.push(path);
                }
            }
            _ => out.push(path),
        }
    }
}

/// Every symbolic link of the snapshot with the path it resolves to.
fn symlinks(snapshot: &dyn Snapshot) -> Vec<(RepoPath, RepoPath)> {
    let mut out = Vec::new();
    let mut stack = vec![RepoPath::root()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = snapshot.list(&dir) else {
            continue;
        };
        for e in entries {
            let path = dir.child(&e.name);
            match e.kind {
                EntryKind::Dir if e.name != ".git" => stack.push(path),
                EntryKind::Symlink => {
                    if let Ok(target) = snapshot.canonical(&path) {
                        out.push((path, target));
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// True when one path lies in (or is) the other.
fn overlaps(a: &RepoPath, b: &RepoPath) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

/// Whether the change (`changed`, from [`changed_paths`]) can affect `target`: its input
/// directories at either revision hold a changed path, or an engine cannot tell.
pub fn is_impacted(
    target: &Target,
    base: &dyn Snapshot,
    head: &dyn Snapshot,
    changed: &[RepoPath],
    opts: &RenderOptions,
    cache: &ParseCache,
) -> bool {
    let config = RepoPath::new(CONFIG_FILE).expect("a constant relative path");
    if changed.contains(&config) {
        return true;
    }
    [base, head]
        .into_iter()
        .any(|s| match target.input_dirs(&Files::new(s, cache), opts) {
            Some(dirs) => dirs.iter().any(|d| changed.iter().any(|c| overlaps(c, d))),
            None => true,
        })
}

#[cfg(test)]
mod tests {
    //! The property `--changed-only` rests on: a target that is not impacted renders exactly
    //! as before (same output, same findings), over random edits of a repository with bases,
    //! overlays, components, generator files, a patch, a symbolic link, a chart with a
    //! `file://` dependency and a plain-manifest directory.

    use super::{changed_paths, is_impacted};
    use crate::config::Config;
    use crate::render::{render_target, ParseCache, RenderOptions, Target};
    use crate::source::{MemorySnapshot, RepoPath};
    use std::collections::BTreeMap;

    /// A file's contents, or the target of a symbolic link.
    #[derive(Clone)]
    enum Entry {
        File(String),
        Link(String),
    }

    fn fixture() -> BTreeMap<String, Entry> {
        let f = |s: &str| Entry::File(s.to_string());
        let cm = |name: &str| {
            f(&format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  k: \"1\"\n"
            ))
        };
        BTreeMap::from([
            (".kdelta.yaml".into(), f("directories: [manifests]\n")),
            (
                "base/kustomization.yaml".into(),
                f("resources:\n- deploy.yaml\nconfigMapGenerator:\n- name: settings\n  files:\n  - config.properties\n"),
            ),
            (
                "base/deploy.yaml".into(),
                f("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n"),
            ),
            ("base/config.properties".into(), f("mode=a\n")),
            (
                "overlays/prod/kustomization.yaml".into(),
                f("resources:\n- ../../base\ncomponents:\n- ../../comp\npatches:\n- path: patch.yaml\n"),
            ),
            (
                "overlays/prod/patch.yaml".into(),
                f("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n"),
            ),
            (
                "overlays/dev/kustomization.yaml".into(),
                f("resources:\n- ../../base\n- link.yaml\nnamePrefix: dev-\n"),
            ),
            ("overlays/dev/link.yaml".into(), Entry::Link("../../shared/cm.yaml".into())),
            ("shared/cm.yaml".into(), cm("shared")),
            (
                "comp/kustomization.yaml".into(),
                f("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonAnnotations:\n  team: web\n"),
            ),
            (
                "charts/app/Chart.yaml".into(),
                f("apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n- name: lib\n  version: 1.0.0\n  repository: file://../lib\n"),
            ),
            ("charts/app/values.yaml".into(), f("replicas: 1\n")),
            (
                "charts/app/templates/cm.yaml".into(),
                f("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ include \"lib.name\" . }}\ndata:\n  r: {{ .Values.replicas | quote }}\n"),
            ),
            (
                "charts/lib/Chart.yaml".into(),
                f("apiVersion: v2\nname: lib\nversion: 1.0.0\ntype: library\n"),
            ),
            (
                "charts/lib/templates/_name.tpl".into(),
                f("{{- define \"lib.name\" -}}app-{{ .Release.Name }}{{- end -}}\n"),
            ),
            ("manifests/cm.yaml".into(), cm("plain")),
            ("docs/README.md".into(), f("# docs\n")),
        ])
    }

    fn snapshot(files: &BTreeMap<String, Entry>) -> MemorySnapshot {
        let mut s = MemorySnapshot::new();
        for (path, entry) in files {
            let p = RepoPath::new(path).expect("a valid path");
            match entry {
                Entry::File(text) => s.add_file(&p, text.as_bytes()),
                Entry::Link(target) => s.add_symlink(&p, target),
            };
        }
        s
    }

    /// A small deterministic generator (xorshift), so a failure reproduces.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    /// One random edit: change a value, append a line, delete a file, or add a new one.
    fn edit(files: &mut BTreeMap<String, Entry>, rng: &mut Rng) -> String {
        let paths: Vec<String> = files.keys().cloned().collect();
        let path = paths[rng.below(paths.len())].clone();
        match rng.below(4) {
            0 => {
                if let Some(Entry::File(text)) = files.get_mut(&path) {
                    *text = text.replacen('1', "2", 1).replacen('a', "b", 1);
                }
                format!("change {path}")
            }
            1 => {
                if let Some(Entry::File(text)) = files.get_mut(&path) {
                    text.push_str(if path.ends_with(".yaml") {
                        "# more\n"
                    } else {
                        "more=1\n"
                    });
                }
                format!("append to {path}")
            }
            2 => {
                files.remove(&path);
                format!("delete {path}")
            }
            _ => {
                let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
                let new = if dir.is_empty() {
                    "new.yaml".to_string()
                } else {
                    format!("{dir}/new.yaml")
                };
                let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: new\n";
                files.insert(new.clone(), Entry::File(cm.to_string()));
                format!("add {new}")
            }
        }
    }

    /// What a render shows: the output (or that there is none) and the findings.
    fn outcome(snapshot: &MemorySnapshot, target: &Target) -> String {
        let r = render_target(
            snapshot,
            target,
            &RenderOptions::default(),
            &ParseCache::default(),
        );
        let findings: Vec<String> = r.findings.iter().map(|f| format!("{f:?}")).collect();
        format!("{}\n{:?}\n{}", r.ok, r.to_yaml().ok(), findings.join("\n"))
    }

    #[test]
    fn a_target_that_is_not_impacted_renders_as_before() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut impacted_seen, mut skipped_seen) = (0, 0);
        for round in 0..60 {
            let base_files = fixture();
            let mut head_files = base_files.clone();
            let edits: Vec<String> = (0..1 + rng.below(3))
                .map(|_| edit(&mut head_files, &mut rng))
                .collect();
            let (base, head) = (snapshot(&base_files), snapshot(&head_files));
            let changed = changed_paths(&base, &head);
            let config = Config::parse(b"directories: [manifests]\n").expect("valid");
            let mut targets = crate::discover::discover(&base, &config).targets;
            targets.extend(crate::discover::discover(&head, &config).targets);
            targets.sort();
            targets.dedup();
            assert!(targets.len() >= 5, "{targets:?}");
            for t in &targets {
                let impacted = is_impacted(
                    t,
                    &base,
                    &head,
                    &changed,
                    &RenderOptions::default(),
                    &ParseCache::default(),
                );
                if impacted {
                    impacted_seen += 1;
                    continue;
                }
                skipped_seen += 1;
                assert_eq!(
                    outcome(&base, t),
                    outcome(&head, t),
                    "round {round}: {} is not impacted by {edits:?} (changed {changed:?}) but renders differently",
                    t.id()
                );
            }
        }
        // Both kinds of case occur, so the property is tested both ways.
        assert!(
            impacted_seen > 20 && skipped_seen > 20,
            "{impacted_seen} {skipped_seen}"
        );
    }
}
