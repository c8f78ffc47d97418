//! `kdelta init`: a commented starter `.kdelta.yaml` from what discovery finds — the targets,
//! an `exclude` for test fixtures when targets live in them, the directories that look like
//! plain manifests (which discovery cannot know to render), and the chart and Argo CD keys
//! when the repository has charts or Argo CD manifests.

use crate::config::Config;
use crate::discover::discover;
use crate::source::{EntryKind, RepoPath, Snapshot};
use crate::target::Target;
use crate::yaml::{parse_stream, ParseOptions};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Most targets listed in the file's header.
const TARGETS_LISTED: usize = 40;
/// Most plain-manifest directories suggested.
const DIRECTORIES_SUGGESTED: usize = 30;
/// Directory names that hold test fixtures rather than deployed manifests.
const FIXTURE_DIRS: &[&str] = &["testdata", "fixtures", "test-fixtures"];

/// The starter configuration for `snapshot`, as YAML with comments; it parses to a valid
/// configuration (see the tests).
pub fn starter_config(snapshot: &dyn Snapshot) -> String {
    let all = discover(snapshot, &Config::default()).targets;
    let fixtures = fixture_dirs(&all);
    // What the rest of the file describes: the targets the exclude below leaves.
    let excluded = |path: &RepoPath| path.components().any(|c| fixtures.contains(&c));
    let targets: Vec<Target> = all
        .iter()
        .filter(|t| !excluded(t.path()))
        .cloned()
        .collect();
    let mut out = String::new();
    out.push_str(
        "# kdelta's configuration (docs/configuration.md in the kdelta repository; `kdelta config\n\
         # schema` prints its JSON Schema for editors). Written by `kdelta init` from what\n\
         # discovery found here. Every key is optional: kdelta finds kustomizations, Helm charts\n\
         # and Argo CD manifests by itself, and a file of comments only means the defaults.\n#\n",
    );
    write_targets(&mut out, &targets);
    write_include(&mut out, &targets);
    write_exclude(&mut out, &fixtures, all.len() - targets.len());
    let mut dirs = plain_manifest_dirs(snapshot, &all);
    dirs.retain(|(d, _, _)| !excluded(d));
    write_directories(&mut out, &dirs);
    out.push_str(
        "\n# Field changes to leave out of diffs (kdelta field paths, as the reports print them):\n\
         # ignore:\n\
         #   - fields: ['metadata.labels[\"helm.sh/chart\"]']\n\
         #   - resources: \"apps/v1/Deployment/*/web\"\n\
         #     fields: [spec.replicas]      # scaled by an autoscaler\n",
    );
    write_charts(&mut out, &targets);
    if targets.iter().any(|t| t.config_keys().contains(&"argocd")) {
        out.push_str(
            "\n# The Argo CD installation the manifests are for:\n\
             # argocd:\n\
             #   namespace: argocd            # where Applications and cluster Secrets live\n\
             #   tracking: annotation         # or label, annotation+label, none\n\
             # Other URLs this repository is known by (a mirror, a former name), for generators and\n\
             # sources that name it:\n\
             # repoURLs:\n\
             #   - https://git.example.com/platform/gitops.git\n",
        );
    }
    out
}

fn write_targets(out: &mut String, targets: &[Target]) {
    if targets.is_empty() {
        out.push_str("# Discovery found no targets.\n");
        return;
    }
    let mut by_kind: BTreeMap<&str, usize> = BTreeMap::new();
    for t in targets {
        *by_kind.entry(t.kind()).or_default() += 1;
    }
    let kinds: Vec<String> = by_kind.iter().map(|(k, n)| format!("{n} {k}")).collect();
    let _ = writeln!(
        out,
        "# Discovery found {} targets: {}.",
        targets.len(),
        kinds.join(", ")
    );
    for t in targets.iter().take(TARGETS_LISTED) {
        let _ = writeln!(out, "#   {}", t.id());
    }
    if targets.len() > TARGETS_LISTED {
        let _ = writeln!(
            out,
            "#   … and {} more (`kdelta list`)",
            targets.len() - TARGETS_LISTED
        );
    }
}

/// The top directories holding targets, as `include` globs (commented: including everything
/// is the default).
fn write_include(out: &mut String, targets: &[Target]) {
    let mut tops: Vec<&str> = targets
        .iter()
        .filter_map(|t| t.path().components().next())
        .filter(|c| !is_yaml_name(c))
        .collect();
    tops.sort_unstable();
    tops.dedup();
    out.push_str("\n# Render only targets whose path matches one of these globs (default: all):\n# include:\n");
    for top in tops {
        let _ = writeln!(out, "#   - \"{top}/**\"");
    }
}

/// A YAML file's name (a top-level one is an Argo CD manifest at the root, not a directory).
fn is_yaml_name(name: &str) -> bool {
    name.ends_with(".yaml") || name.ends_with(".yml")
}

/// The fixture directory names some target lives under.
fn fixture_dirs(targets: &[Target]) -> Vec<&'static str> {
    FIXTURE_DIRS
        .iter()
        .copied()
        .filter(|d| {
            targets
                .iter()
                .any(|t| t.path().components().any(|c| c == *d))
        })
        .collect()
}

/// `exclude`: active when targets live in test fixture directories, whose broken files on
/// purpose would be error findings.
fn write_exclude(out: &mut String, fixtures: &[&str], excluded: usize) {
    out.push_str("\n# Never render targets whose path matches one of these globs:\n");
    if fixtures.is_empty() {
        out.push_str("# exclude:\n#   - \"**/testdata/**\"\n");
        return;
    }
    let _ = writeln!(
        out,
        "# ({excluded} more targets are test fixtures; remove this to render them.)\nexclude:"
    );
    for d in fixtures {
        let _ = writeln!(out, "  - \"**/{d}/**\"");
    }
}

fn write_directories(out: &mut String, found: &[(RepoPath, usize, usize)]) {
    out.push_str(
        "\n# Directories of plain Kubernetes manifests (no kustomization), rendered as `dir:`\n\
         # targets: kdelta cannot tell them from other YAML by itself.\n",
    );
    if found.is_empty() {
        out.push_str("# directories:\n#   - manifests\n");
        return;
    }
    out.push_str("# These look like such directories; keep those that are deployed as they are:\n# directories:\n");
    for (dir, files, objects) in found.iter().take(DIRECTORIES_SUGGESTED) {
        let _ = writeln!(
            out,
            "#   - {dir}    # {files} file{}, {objects} object{}",
            if *files == 1 { "" } else { "s" },
            if *objects == 1 { "" } else { "s" }
        );
    }
    if found.len() > DIRECTORIES_SUGGESTED {
        let _ = writeln!(
            out,
            "#   # … and {} more",
            found.len() - DIRECTORIES_SUGGESTED
        );
    }
}

fn write_charts(out: &mut String, targets: &[Target]) {
    // One per chart: a values set is one more target of its chart (`helm:CHART#NAME`).
    let charts: Vec<&Target> = targets
        .iter()
        .filter(|t| t.config_keys().contains(&"charts") && !t.id().contains('#'))
        .collect();
    let Some(first) = charts.first() else {
        return;
    };
    let _ = writeln!(
        out,
        "\n# Helm charts ({}): the release name and namespace `helm template` uses, and more\n\
         # values sets to render each chart with (each one more target, helm:CHART#NAME):\n\
         # charts:\n\
         #   {}:\n\
         #     releaseName: {}\n\
         #     namespace: default\n\
         #     valuesSets:\n\
         #       prod: [values-prod.yaml]",
        charts.len(),
        first.path(),
        first.path().file_name()
    );
}

/// Directories below no target that hold only Kubernetes objects: `(dir, files, objects)`.
fn plain_manifest_dirs(
    snapshot: &dyn Snapshot,
    targets: &[Target],
) -> Vec<(RepoPath, usize, usize)> {
    // Below a kustomization or chart, YAML files are its inputs.
    let claimed: Vec<&RepoPath> = targets
        .iter()
        .filter(|t| t.path_is_input_dir())
        .map(Target::path)
        .collect();
    let mut found = Vec::new();
    let mut stack = vec![RepoPath::root()];
    while let Some(dir) = stack.pop() {
        if claimed.iter().any(|c| dir.starts_with(c)) {
            continue;
        }
        let Ok(entries) = snapshot.list(&dir) else {
            continue;
        };
        let (mut files, mut objects, mut other) = (0, 0, false);
        for e in &entries {
            let path = dir.child(&e.name);
            match e.kind {
                EntryKind::Dir if !e.name.starts_with('.') => stack.push(path),
                EntryKind::File if is_yaml_name(&e.name) => {
                    match kubernetes_objects(snapshot, &path) {
                        Some(n) => {
                            files += 1;
                            objects += n;
                        }
                        None => other = true,
                    }
                }
                _ => {}
            }
        }
        if !dir.is_root() && files > 0 && !other && objects > 0 {
            found.push((dir, files, objects));
        }
    }
    found.sort();
    found
}

/// How many Kubernetes objects the file holds, when it holds nothing else (Argo CD manifests
/// are targets of their own, not plain manifests).
fn kubernetes_objects(snapshot: &dyn Snapshot, path: &RepoPath) -> Option<usize> {
    let bytes = snapshot.read(path).ok()?;
    let docs = parse_stream(&bytes, &ParseOptions::default()).ok()?;
    let docs: Vec<_> = docs.into_iter().filter(|d| !d.is_null()).collect();
    let is_object = |d: &crate::yaml::Node| {
        d.str_at(&["apiVersion"]).is_some()
            && d.str_at(&["kind"]).is_some_and(|k| {
                !matches!(
                    k,
                    "Kustomization" | "Component" | "Application" | "ApplicationSet"
                )
            })
    };
    docs.iter().all(is_object).then_some(docs.len())
}

#[cfg(test)]
mod tests {
    use super::starter_config;
    use crate::config::Config;
    use crate::source::{MemorySnapshot, RepoPath};

    fn snapshot(files: &[(&str, &str)]) -> MemorySnapshot {
        let mut s = MemorySnapshot::new();
        for (path, text) in files {
            s.add_file(&RepoPath::new(path).unwrap(), text.as_bytes());
        }
        s
    }

    const CM: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n";

    #[test]
    fn the_starter_lists_the_targets_and_suggests_what_discovery_cannot_know() {
        let s = snapshot(&[
            ("apps/web/kustomization.yaml", "resources: [cm.yaml]\n"),
            ("apps/web/cm.yaml", CM),
            (
                "apps/web/testdata/broken/kustomization.yaml",
                "resources: [x.yaml]\n",
            ),
            (
                "charts/api/Chart.yaml",
                "apiVersion: v2\nname: api\nversion: 1.0.0\n",
            ),
            ("clusters/eu/crds/crd.yaml", CM),
            ("clusters/eu/crds/more.yaml", &format!("{CM}---\n{CM}")),
            ("ci/config.yaml", "stages: [test]\n"),
        ]);
        let text = starter_config(&s);
        assert!(
            text.contains("# Discovery found 2 targets: 1 helm, 1 kustomize.\n"),
            "{text}"
        );
        assert!(
            text.contains("# (1 more targets are test fixtures;"),
            "{text}"
        );
        assert!(text.contains("#   kustomize:apps/web\n"), "{text}");
        assert!(
            text.contains("#   - \"apps/**\"\n#   - \"charts/**\"\n"),
            "{text}"
        );
        // The fixture is excluded for real; the manifests are suggested, the CI file is not.
        assert!(
            text.contains("\nexclude:\n  - \"**/testdata/**\"\n"),
            "{text}"
        );
        assert!(
            text.contains("#   - clusters/eu/crds    # 2 files, 3 objects\n"),
            "{text}"
        );
        assert!(!text.contains("#   - ci"), "{text}");
        assert!(!text.contains("#   - apps/web"), "{text}");
        assert!(
            text.contains("#   charts/api:\n#     releaseName: api\n"),
            "{text}"
        );
        assert!(!text.contains("argocd:"), "{text}");
        // It is a valid configuration, and does what it says.
        let config = Config::parse(text.as_bytes()).expect("valid");
        assert!(!config.selects("apps/web/testdata/broken"));
        assert!(config.selects("apps/web"));
        assert_suggestions_are_valid(&text);
    }

    /// Every commented-out key, uncommented with the lines under it, is a valid configuration.
    fn assert_suggestions_are_valid(text: &str) {
        let lines: Vec<&str> = text.lines().collect();
        let mut blocks = 0;
        for (i, line) in lines.iter().enumerate() {
            let Some(key) = line.strip_prefix("# ") else {
                continue;
            };
            if !(key.ends_with(':') && key.chars().next().is_some_and(|c| c.is_ascii_lowercase()))
                || key.contains(' ')
            {
                continue;
            }
            let mut block = format!("{key}\n");
            for more in &lines[i + 1..] {
                match more.strip_prefix("# ") {
                    Some(rest) if rest.starts_with("  ") => {
                        block.push_str(rest);
                        block.push('\n');
                    }
                    _ => break,
                }
            }
            Config::parse(block.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{block}"));
            blocks += 1;
        }
        assert!(blocks >= 4, "{blocks} suggestions in\n{text}");
    }

    #[test]
    fn argo_cd_manifests_get_the_argocd_keys() {
        let s = snapshot(&[(
            "argocd/app.yaml",
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: web\n  namespace: argocd\nspec:\n  source:\n    repoURL: https://example.com/x.git\n    path: apps/web\n  destination:\n    namespace: web\n",
        )]);
        let text = starter_config(&s);
        assert!(text.contains("# argocd:\n#   namespace: argocd"), "{text}");
        assert!(
            !text.contains("#   - argocd "),
            "an Argo CD manifest is no plain manifest: {text}"
        );
        assert_suggestions_are_valid(&text);
    }

    #[test]
    fn an_empty_repository_gets_the_defaults() {
        let text = starter_config(&snapshot(&[]));
        assert!(text.contains("# Discovery found no targets.\n"), "{text}");
        let config = Config::parse(text.as_bytes()).expect("valid");
        assert!(config.selects("anything"));
    }
}
