//! Kustomize builds that need an input kdelta did not fetch (`testdata/kustomize-incomplete/`,
//! see its README): kdelta renders what is local — the output of the reference tool on the
//! case's `local/` tree, byte for byte — and says with notices marked incomplete what it left
//! out, never with an error.

use std::path::{Path, PathBuf};

use kdelta::render::{render_target, ParseCache, RenderOptions, Target};
use kdelta::report::Severity;
use kdelta::source::{RepoPath, WorktreeSnapshot};
use kdelta::yaml;

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/kustomize-incomplete");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("testdata/kustomize-incomplete exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.yaml").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// What is wrong with one case, if anything.
fn check(case: &Path) -> Result<(), String> {
    let text = std::fs::read(case.join("case.yaml")).map_err(|e| format!("case.yaml: {e}"))?;
    let node = yaml::parse_one(&text, &yaml::ParseOptions::default())
        .map_err(|e| format!("case.yaml: {e}"))?;
    let build_dir = node
        .str_at(&["build_dir"])
        .ok_or("case.yaml: no build_dir")?;
    let mut want_notices: Vec<&str> = node
        .get("notices")
        .and_then(|n| n.as_seq())
        .ok_or("case.yaml: no notices")?
        .iter()
        .filter_map(|n| n.as_str())
        .collect();
    want_notices.sort_unstable();
    if node.str_at(&["reference"]).is_none() {
        return Err("case.yaml: no reference (run regen.sh)".into());
    }
    let expected = std::fs::read_to_string(case.join("expected.yaml"))
        .map_err(|e| format!("expected.yaml: {e}"))?;

    let snapshot = WorktreeSnapshot::new(case.join("in")).map_err(|e| e.to_string())?;
    let dir = RepoPath::new(build_dir).map_err(|e| e.to_string())?;
    let rendered = render_target(
        &snapshot,
        &Target::Kustomize(kdelta::kustomize::Spec { dir }),
        &RenderOptions::default(),
        &ParseCache::default(),
    );
    let described: Vec<String> = rendered
        .findings
        .iter()
        .map(|f| format!("{:?} {}: {}", f.severity, f.rule, f.message))
        .collect();
    if !rendered.ok || rendered.complete {
        return Err(format!(
            "expected an ok but incomplete build, got ok={} complete={}: {described:?}",
            rendered.ok, rendered.complete
        ));
    }
    let mut got_notices: Vec<&str> = rendered
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Notice && f.is_incomplete())
        .map(|f| f.rule.id)
        .collect();
    got_notices.sort_unstable();
    if got_notices != want_notices || rendered.findings.len() != want_notices.len() {
        return Err(format!(
            "expected the notices {want_notices:?} and nothing else, got {described:?}"
        ));
    }
    let got = rendered.to_yaml().map_err(|f| f.message)?;
    if got != expected {
        return Err(format!(
            "the output is not expected.yaml:\n--- expected\n{expected}--- kdelta\n{got}"
        ));
    }
    Ok(())
}

#[test]
fn incomplete_builds_render_what_is_local() {
    let cases = cases();
    assert!(
        cases.len() >= 3,
        "cases missing from testdata/kustomize-incomplete"
    );
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            check(case).err().map(|e| {
                format!(
                    "{}: {e}",
                    case.file_name().unwrap_or_default().to_string_lossy()
                )
            })
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
