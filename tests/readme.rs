//! The README's first command, run on this repository's own history: `kdelta diff` between the
//! two commits that change the example GitOps repository.

use std::path::Path;
use std::process::Command;

#[test]
fn readme_example_diff_shows_the_documented_changes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let first = readme
        .lines()
        .find(|l| l.starts_with("cargo install"))
        .expect("the README starts with the install command");
    let args: Vec<&str> = first
        .split("kdelta diff ")
        .nth(1)
        .expect("the first command runs kdelta diff")
        .split_whitespace()
        .collect();
    let have_history = Command::new("git")
        .args([
            "-C",
            root.to_str().unwrap(),
            "cat-file",
            "-e",
            &format!("{}^{{commit}}", args[1]),
        ])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !have_history {
        // CI clones the whole history; only a shallow clone on a laptop may skip.
        assert!(
            std::env::var("CI").is_err(),
            "the example commits of the README are not in this clone's history (CI needs a full clone)"
        );
        eprintln!("readme: skipped, the example commits are not in this clone's history");
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_kdelta"))
        .args(["-C", root.to_str().unwrap(), "diff", "--color", "never"])
        .args(&args)
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for expected in [
        "kustomize:examples/shop/overlays/prod (modified)",
        "spec.replicas: 3 → 4",
        "image: ghcr.io/acme/shop:1.4.0 → ghcr.io/acme/shop:1.5.0",
        "data.LOG_LEVEL: info → debug",
        "data.password: changed (sha256 digest prefix differs)",
        "+ core/v1/Service/shop-staging/shop-preview",
    ] {
        assert!(
            stdout.contains(expected),
            "missing {expected:?} in:\n{stdout}"
        );
    }
    assert!(
        !stdout.contains("changeme"),
        "a Secret value leaked:\n{stdout}"
    );
}
