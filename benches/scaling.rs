//! The shapes that used to cost quadratic time, at growing sizes: one file of N documents, one
//! mapping of N keys, N inline patches that each add a key to one ConfigMap, and a Go-template
//! ApplicationSet generating N Applications, N Applications one kustomization lists. Time per
//! element should stay flat as N grows; a
//! quadratic corner shows as time growing with N.
//! Each input is generated once per size into a temporary directory; each iteration renders it
//! with a fresh snapshot and parse cache.

use std::path::PathBuf;

use divan::Bencher;
use kdelta::render::{render_target, ParseCache, RenderOptions, Target};
use kdelta::source::{RepoPath, WorktreeSnapshot};

fn main() {
    divan::main();
}

/// A kustomization in a temporary directory, rendered once to check it works.
struct Input {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

fn input(files: &[(&str, String)]) -> Input {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = dir.path().join("repo");
    for (name, text) in files {
        let path = root.join("app").join(name);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    let input = Input { _dir: dir, root };
    assert!(render(&input) > 0);
    input
}

/// Renders `app`, panicking on a failed render so that a regression cannot look fast.
fn render(input: &Input) -> usize {
    let snapshot = WorktreeSnapshot::new(input.root.clone()).expect("the input opens");
    let cache = ParseCache::default();
    let target = Target::Kustomize(kdelta::kustomize::Spec {
        dir: RepoPath::new("app").expect("a relative path"),
    });
    let rendered = render_target(&snapshot, &target, &RenderOptions::default(), &cache);
    assert!(rendered.ok, "render failed: {:?}", rendered.findings);
    rendered
        .to_yaml()
        .expect("rendered output serialises")
        .len()
}

/// N ConfigMaps in one file.
fn documents(n: usize) -> Input {
    let mut all = String::new();
    for i in 0..n {
        all.push_str(&format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm{i}\ndata:\n  k: v{i}\n"
        ));
    }
    input(&[
        ("kustomization.yaml", "resources:\n- all.yaml\n".to_string()),
        ("all.yaml", all),
    ])
}

/// One ConfigMap with N data keys.
fn keys(n: usize) -> Input {
    let mut cm = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n");
    for i in 0..n {
        cm.push_str(&format!("  k{i}: v{i}\n"));
    }
    input(&[
        ("kustomization.yaml", "resources:\n- cm.yaml\n".to_string()),
        ("cm.yaml", cm),
    ])
}

/// N inline strategic-merge patches, each adding one key to the same ConfigMap.
fn patches(n: usize) -> Input {
    let mut k = String::from("resources:\n- cm.yaml\npatches:\n");
    for i in 0..n {
        k.push_str(&format!(
            "- patch: |\n    apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: big\n    data:\n      p{i}: v{i}\n"
        ));
    }
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  a: b\n";
    input(&[("kustomization.yaml", k), ("cm.yaml", cm.to_string())])
}

#[divan::bench(args = [1_000, 10_000, 100_000], sample_count = 3)]
fn documents_in_one_file(bencher: Bencher, n: usize) {
    let input = documents(n);
    bencher.counter(n).bench(|| render(&input));
}

#[divan::bench(args = [1_000, 10_000, 100_000], sample_count = 3)]
fn keys_in_one_mapping(bencher: Bencher, n: usize) {
    let input = keys(n);
    bencher.counter(n).bench(|| render(&input));
}

#[divan::bench(args = [100, 1_000, 5_000], sample_count = 3)]
fn inline_patches_adding_a_key(bencher: Bencher, n: usize) {
    let input = patches(n);
    bencher.counter(n).bench(|| render(&input));
}

/// A Go-template ApplicationSet whose list generator makes `n` Applications, each template
/// string using fields, a pipeline and a condition.
fn applicationset(n: usize) -> serde_json::Value {
    let elements: Vec<serde_json::Value> = (0..n)
        .map(|i| serde_json::json!({"name": format!("app{i}"), "env": format!("e{}", i % 5)}))
        .collect();
    serde_json::json!({
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "ApplicationSet",
        "metadata": {"name": "many", "namespace": "argocd"},
        "spec": {
            "goTemplate": true,
            "goTemplateOptions": ["missingkey=error"],
            "generators": [{"list": {"elements": elements}}],
            "template": {
                "metadata": {
                    "name": "{{.name}}-{{.env}}",
                    "labels": {"team": "{{ .name | upper }}"}
                },
                "spec": {
                    "project": "default",
                    "source": {
                        "repoURL": "https://github.com/org/apps",
                        "targetRevision": "{{ if eq .env \"e0\" }}main{{ else }}HEAD{{ end }}",
                        "path": "apps/{{.name}}"
                    },
                    "destination": {
                        "server": "https://kubernetes.default.svc",
                        "namespace": "{{.env}}"
                    }
                }
            }
        }
    })
}

#[divan::bench(args = [100, 1_000, 5_000], sample_count = 3)]
fn go_template_applicationset(bencher: Bencher, n: usize) {
    let appset = applicationset(n);
    bencher.counter(n).bench(|| {
        let not_this = |_: &str| false;
        let ctx = kdelta::argocd::generate::Context {
            files: None,
            is_this_repo: &not_this,
            clusters: &[],
            namespace: "argocd",
            new_git_file_globbing: false,
        };
        let generated = kdelta::argocd::generate::generate(&appset, &ctx).expect("it generates");
        assert_eq!(generated.apps.len(), n);
        generated.apps.len()
    });
}

/// A repository of `n` kustomizations, each listing an Application manifest and a ConfigMap,
/// all included by one cluster overlay: discovery reads every kustomization and every YAML
/// file and works out which top-level kustomization includes each file.
fn listed_manifests(n: usize) -> Input {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = dir.path().join("repo");
    let write = |rel: String, text: String| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    let mut cluster = String::from("resources:\n");
    for i in 0..n {
        cluster.push_str(&format!("- ../../apps/a{i}\n"));
        write(
            format!("apps/a{i}/kustomization.yaml"),
            "resources:\n- app.yaml\n- cm.yaml\n".to_string(),
        );
        write(
            format!("apps/a{i}/app.yaml"),
            format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: a{i}\nspec:\n  source:\n    path: services/a{i}\n"),
        );
        write(
            format!("apps/a{i}/cm.yaml"),
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm{i}\n"),
        );
    }
    write("clusters/prod/kustomization.yaml".to_string(), cluster);
    Input { _dir: dir, root }
}

#[divan::bench(args = [100, 1_000, 5_000], sample_count = 3)]
fn discovery_of_manifests_kustomizations_list(bencher: Bencher, n: usize) {
    let input = listed_manifests(n);
    let config = kdelta::config::Config::default();
    bencher.counter(n).bench(|| {
        let snapshot = WorktreeSnapshot::new(input.root.clone()).expect("the input opens");
        let found = kdelta::discover::discover(&snapshot, &config);
        // The n kustomizations and the one overlay that includes them all, whose Argo CD
        // manifests are one more target.
        assert_eq!(found.targets.len(), n + 2);
        found.targets.len()
    });
}

/// N Applications, each in its own file, that one kustomization lists: every Application is a
/// target taken from the kustomization's one build.
fn applications_one_kustomization_lists(n: usize) -> Input {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = dir.path().join("repo");
    let apps = root.join("apps");
    std::fs::create_dir_all(&apps).expect("mkdir");
    let mut resources = String::from("resources:\n");
    for i in 0..n {
        std::fs::write(
            apps.join(format!("a{i}.yaml")),
            format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: a{i}\n  namespace: argocd\nspec:\n  project: default\n  source:\n    repoURL: https://example.com/r.git\n    path: x\n  destination:\n    server: https://kubernetes.default.svc\n    namespace: a{i}\n"),
        )
        .expect("write");
        resources.push_str(&format!("- a{i}.yaml\n"));
    }
    std::fs::write(apps.join("kustomization.yaml"), resources).expect("write");
    Input { _dir: dir, root }
}

#[divan::bench(args = [250, 500, 1_000], sample_count = 3)]
fn applications_of_one_kustomization(bencher: Bencher, n: usize) {
    let input = applications_one_kustomization_lists(n);
    let config = kdelta::config::Config::default();
    bencher.counter(n).bench(|| {
        let snapshot = WorktreeSnapshot::new(input.root.clone()).expect("the input opens");
        let cache = ParseCache::default();
        let opts = RenderOptions::default();
        let found = kdelta::discover::discover(&snapshot, &config);
        let targets = kdelta::render::expand(&snapshot, found.targets, &opts, &cache).targets;
        // The kustomization, its manifests' target, and the n Applications.
        assert_eq!(targets.len(), n + 2);
        kdelta::render::render_all(&snapshot, &targets, &opts, &cache).len()
    });
}
