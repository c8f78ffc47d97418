//! Secret values never reach any output unless `--show-secrets`; changed keys still show.

use super::*;

fn secret_with_token(password_b64: &str, token: &str) -> String {
    format!("{}stringData:\n  token: {token}\n", secret(password_b64))
}

#[test]
fn secret_values_never_appear_in_any_output_but_the_changed_key_does() {
    let (env, _) = base_repo();
    // "hunter2" and "swordfish", base64-encoded.
    env.write(
        "manifests/creds.yaml",
        secret_with_token("aHVudGVyMg==", "tok-one-1234"),
    );
    let base = env.commit("secret v1");
    env.write("manifests/creds.yaml", secret_with_token("c3dvcmRmaXNo", "tok-two-5678"))
        .write("manifests/added.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: added\n  namespace: prod\nstringData:\n  api-key: brand-new-key-42\n");
    let head = env.commit("secret v2");
    let forbidden = [
        "aHVudGVyMg==",
        "c3dvcmRmaXNo",
        "hunter2",
        "swordfish",
        "tok-one-1234",
        "tok-two-5678",
        "brand-new-key-42",
    ];
    let assert_clean = |what: &str, text: &str| {
        for value in forbidden {
            assert!(!text.contains(value), "{what} shows {value:?}:\n{text}");
        }
    };

    let json_file = env.out("s.json");
    let junit_file = env.out("s.xml");
    let text = env
        .kdelta(&[
            "diff",
            &base,
            &head,
            "--json",
            json_file.to_str().unwrap(),
            "--junit",
            junit_file.to_str().unwrap(),
        ])
        .success()
        .stdout_has("~ core/v1/Secret/prod/creds\n      data.password: changed")
        .stdout_has("stringData.token: changed")
        .stdout_has("+ core/v1/Secret/prod/added");
    assert_clean("text", &text.stdout);
    assert_clean("stderr", &text.stderr);
    let json_text = std::fs::read_to_string(&json_file).unwrap();
    assert_clean("--json", &json_text);
    let junit_text = std::fs::read_to_string(&junit_file).unwrap();
    assert_clean("--junit", &junit_text);
    assert!(junit_text.contains("data.password"), "{junit_text}");
    let stdout_json = env
        .kdelta(&["diff", &base, &head, "--format", "json"])
        .success();
    assert_clean("--format json", &stdout_json.stdout);

    // The key is reported as changed, with distinct markers on each side.
    let report: Value = serde_json::from_str(&json_text).unwrap();
    let creds = report["targets"][0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["resource"] == "core/v1/Secret/prod/creds")
        .expect("the Secret changed")
        .clone();
    let field = &creds["fields"][0];
    assert_eq!(field["path"], "data.password");
    let (old, new) = (
        field["old"].as_str().unwrap(),
        field["new"].as_str().unwrap(),
    );
    assert!(old.starts_with("<redacted sha256:") && new.starts_with("<redacted sha256:"));
    assert_ne!(old, new);

    // render and check redact too.
    let rendered = env.kdelta(&["render", "manifests"]).success();
    assert_clean("render", &rendered.stdout);
    assert!(
        rendered.stdout.contains("password: <redacted sha256:"),
        "{}",
        rendered.stdout
    );
    assert!(
        rendered.stderr.contains("--show-secrets"),
        "{}",
        rendered.stderr
    );
    let check = env.kdelta(&["check", "--format", "json"]).success();
    assert_clean("check", &check.stdout);

    // --show-secrets opts out.
    env.kdelta(&["diff", &base, &head, "--show-secrets"])
        .success()
        .stdout_has("data.password: aHVudGVyMg== → c3dvcmRmaXNo")
        .stdout_has("stringData.token: tok-one-1234 → tok-two-5678");
    let shown = env
        .kdelta(&["diff", &base, &head, "--show-secrets", "--format", "json"])
        .success();
    assert!(
        shown.stdout.contains("\"c3dvcmRmaXNo\""),
        "{}",
        shown.stdout
    );
    env.kdelta(&["render", "manifests", "--show-secrets"])
        .success()
        .stdout_has("password: c3dvcmRmaXNo");
}

#[test]
fn untypable_secret_values_and_last_applied_configuration_stay_hidden() {
    let (env, _) = base_repo();
    let with = |pw: &str| {
        format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: odd\n  namespace: prod\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{{\"kind\":\"Secret\",\"stringData\":{{\"pw\":\"{pw}\"}}}}'\nstringData:\n  pw: !!int {pw}\n"
        )
    };
    env.write("manifests/odd.yaml", with("hunter2"));
    let base = env.commit("odd secret v1");
    env.write("manifests/odd.yaml", with("swordfish"));
    let head = env.commit("odd secret v2");
    let diff = env.kdelta(&["diff", &base, &head, "--format", "json"]);
    for text in [&diff.stdout, &diff.stderr] {
        assert!(
            !text.contains("hunter2") && !text.contains("swordfish"),
            "{text}"
        );
    }
    // The value cannot be typed, so the target is in error at both revisions.
    assert!(
        diff.stdout.contains("resource.untypable"),
        "{}",
        diff.stdout
    );
    // check reports the untypable value, without quoting it.
    let check = env.kdelta(&["check", "--rev", &head]).code(1);
    assert!(
        check.stdout.contains("resource.untypable"),
        "{}",
        check.stdout
    );
    assert!(!check.stdout.contains("swordfish"), "{}", check.stdout);
}
