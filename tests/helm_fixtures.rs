//! kdelta's own Helm cases (`testdata/helm/NN-name/`): the case's `command` (`helm template
//! [NAME] CHART [FLAGS]`) run as `kdelta render [NAME] CHART [FLAGS]` in the case directory
//! must print `expected.yaml`, which the reference helm v3.17.3 wrote, or fail with the first
//! line of `expected-error.txt` (see testdata/helm/README.md). The arguments are split at
//! spaces, without a shell.

use std::path::{Path, PathBuf};
use std::process::Command;

/// `kdelta render …` for a case's `helm template …`, in the case directory.
fn run(case: &Path, command: &str) -> std::process::Output {
    let mut args = command.split_whitespace();
    assert_eq!(args.next(), Some("helm"), "{command}");
    assert_eq!(args.next(), Some("template"), "{command}");
    Command::new(env!("CARGO_BIN_EXE_kdelta"))
        // helm prints Secrets as they are.
        .args(["render", "--show-secrets"])
        .args(args)
        .current_dir(case)
        .env_remove("GITHUB_ACTIONS")
        .output()
        .expect("kdelta runs")
}

#[test]
fn helm_fixtures_match_helm() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/helm");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("testdata/helm")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("case.yaml").is_file())
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no cases in testdata/helm");
    let mut problems = Vec::new();
    for case in &cases {
        let text = std::fs::read_to_string(case.join("case.yaml")).expect("case.yaml");
        let command = text
            .lines()
            .find_map(|l| l.strip_prefix("command: "))
            .expect("case.yaml has a command");
        let out = run(case, command);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let name = case.file_name().unwrap_or_default().to_string_lossy();
        let expected = std::fs::read_to_string(case.join("expected.yaml")).ok();
        let expected_error = std::fs::read_to_string(case.join("expected-error.txt")).ok();
        match (expected, expected_error) {
            (Some(want), _) if out.status.success() && stdout == want => {}
            // Helm's error as recorded is the finding's message: every line of it (helm
            // lists schema violations in no fixed order).
            (_, Some(want))
                if out.status.code() == Some(1)
                    && stdout.is_empty()
                    && want.lines().all(|l| stderr.lines().any(|s| s.ends_with(l))) => {}
            (want, want_error) => problems.push(format!(
                "{name}: exit {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}\nexpected {want:?} / error {want_error:?}",
                out.status.code()
            )),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
