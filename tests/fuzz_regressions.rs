//! Inputs that once crashed a fuzz target (testdata/fuzz/<target>/<name>), run through the
//! same harness as the target (`kdelta::fuzzing`): each must now run without a panic and end as
//! `testdata/fuzz/EXPECTED` says: `ok`, or `error` and words the error must contain.

use std::path::Path;

#[test]
fn fuzz_regressions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/fuzz");
    let expected = std::fs::read_to_string(root.join("EXPECTED")).expect("testdata/fuzz/EXPECTED");
    let mut listed = Vec::new();
    for line in expected.lines() {
        let line = line.split_once('#').map_or(line, |(l, _)| l).trim();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let (Some(file), Some(outcome)) = (words.next(), words.next()) else {
            panic!("EXPECTED: malformed line {line:?}");
        };
        let (target, _) = file
            .split_once('/')
            .expect("EXPECTED names <target>/<file>");
        let data = std::fs::read(root.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let scratch = tempfile::tempdir().expect("a temp dir");
        let got = kdelta::fuzzing::run(target, &data, scratch.path())
            .unwrap_or_else(|| panic!("{file}: unknown fuzz target {target}"));
        let phrase = words.collect::<Vec<_>>().join(" ");
        match (outcome, &got) {
            ("ok", Ok(())) => {}
            ("error", Err(e)) if e.contains(&phrase) => {}
            _ => panic!("{file}: expected {outcome} {phrase:?}, got {got:?}"),
        }
        listed.push(file.to_string());
    }
    // Every regression input is listed, so none is silently skipped.
    for dir in std::fs::read_dir(&root).expect("testdata/fuzz").flatten() {
        if !dir.path().is_dir() {
            continue;
        }
        for f in std::fs::read_dir(dir.path())
            .expect("a target directory")
            .flatten()
        {
            let name = format!(
                "{}/{}",
                dir.file_name().to_string_lossy(),
                f.file_name().to_string_lossy()
            );
            assert!(
                listed.contains(&name),
                "{name} is not listed in testdata/fuzz/EXPECTED"
            );
        }
    }
}
