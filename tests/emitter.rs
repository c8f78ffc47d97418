//! The emitter against fixtures whose expected output came from `kubectl kustomize`
//! (testdata/emitter/*/case.yaml records the command).

use kdelta::yaml;
use std::path::Path;

#[test]
fn emitter_matches_kustomize_on_fixtures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/emitter");
    let mut checked = 0;
    for entry in std::fs::read_dir(&root).unwrap() {
        let dir = entry.unwrap().path();
        let input = std::fs::read(dir.join("input.yaml")).unwrap();
        let expected = std::fs::read_to_string(dir.join("expected.yaml")).unwrap();
        let node = yaml::parse_one(&input, &yaml::ParseOptions::default()).unwrap();
        let value = yaml::to_value(&node, yaml::Dialect::Yaml12).unwrap();
        let got = yaml::emit::to_string(&value);
        for (i, (e, g)) in expected.lines().zip(got.lines()).enumerate() {
            assert_eq!(e, g, "{}: line {}", dir.display(), i + 1);
        }
        assert_eq!(expected, got, "{}", dir.display());
        checked += 1;
    }
    assert!(checked > 0, "no emitter fixtures found");
}
