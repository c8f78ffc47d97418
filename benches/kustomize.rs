//! Native kustomize build on a generated 50-overlay repository (`scripts/gen-bench-repo.py`):
//! all overlays one after another in one process (what `kdelta render` does for 50 paths, and what
//! `scripts/bench.sh` times against 50 runs of `kubectl kustomize`), the same in parallel, and a
//! single overlay. Each iteration opens a fresh snapshot and parse cache, so nothing carries over
//! between iterations except the operating system's file cache.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::LazyLock;

use divan::Bencher;
use kdelta::render::{render_all, render_target, ParseCache, RenderOptions, Rendered, Target};
use kdelta::source::{RepoPath, WorktreeSnapshot};

fn main() {
    divan::main();
}

/// The generated repository, removed when the process ends.
struct BenchRepo {
    _dir: tempfile::TempDir,
    root: PathBuf,
    targets: Vec<Target>,
}

static REPO: LazyLock<BenchRepo> = LazyLock::new(|| {
    let dir = tempfile::tempdir().expect("a temporary directory for the bench repository");
    let root = dir.path().join("repo");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gen-bench-repo.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(&root)
        .arg("--list")
        .output()
        .expect("python3 runs scripts/gen-bench-repo.py");
    assert!(
        out.status.success(),
        "gen-bench-repo.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let targets = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            Target::Kustomize(kdelta::kustomize::Spec {
                dir: RepoPath::new(l).expect("the generator prints relative paths"),
            })
        })
        .collect::<Vec<_>>();
    assert_eq!(targets.len(), 50, "the generator makes 50 overlays");
    BenchRepo {
        _dir: dir,
        root,
        targets,
    }
});

fn snapshot() -> WorktreeSnapshot {
    WorktreeSnapshot::new(REPO.root.clone()).expect("the generated repository opens")
}

/// The printed output, as `kubectl kustomize` would print it; panics on a failed render so that
/// a regression cannot make the benchmark fast.
fn output(rendered: &Rendered) -> String {
    assert!(rendered.ok, "render failed: {:?}", rendered.findings);
    rendered.to_yaml().expect("rendered output serialises")
}

#[divan::bench(sample_count = 10)]
fn render_50_overlays_sequential(bencher: Bencher) {
    let opts = RenderOptions::default();
    bencher.bench(|| {
        let snapshot = snapshot();
        let cache = ParseCache::default();
        REPO.targets
            .iter()
            .map(|t| output(&render_target(&snapshot, t, &opts, &cache)).len())
            .sum::<usize>()
    });
}

#[divan::bench(sample_count = 10)]
fn render_50_overlays_parallel(bencher: Bencher) {
    let opts = RenderOptions::default();
    bencher.bench(|| {
        let snapshot = snapshot();
        let cache = ParseCache::default();
        render_all(&snapshot, &REPO.targets, &opts, &cache)
            .iter()
            .map(|r| output(r).len())
            .sum::<usize>()
    });
}

#[divan::bench(sample_count = 50)]
fn render_one_overlay(bencher: Bencher) {
    let opts = RenderOptions::default();
    let target = &REPO.targets[0];
    bencher.bench(|| {
        let snapshot = snapshot();
        let cache = ParseCache::default();
        output(&render_target(&snapshot, target, &opts, &cache)).len()
    });
}
