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

/// A kustomization with a secretGenerator (literal, env file, file), a Secret with `data` and
/// one with `stringData`, at two revisions where every value changes.
fn write_secret_kustomization(env: &TestEnv, n: u32) -> Vec<String> {
    let values: Vec<String> = [
        "literal-pass",
        "env-token",
        "file-body",
        "data-pass",
        "string-pass",
    ]
    .iter()
    .map(|v| format!("{v}-{n}-q9Zx"))
    .collect();
    let b64 = |s: &str| base64_encode(s.as_bytes());
    env.write(
        "secrets/kustomization.yaml",
        format!(
            "namespace: prod\nresources:\n- plain.yaml\nsecretGenerator:\n- name: generated\n  literals:\n  - password={}\n  envs:\n  - app.env\n  files:\n  - tls.key\n",
            values[0]
        ),
    )
    .write("secrets/app.env", format!("API_TOKEN={}\n", values[1]))
    .write("secrets/tls.key", format!("-----BEGIN KEY-----\n{}\n-----END KEY-----\n", values[2]))
    .write(
        "secrets/plain.yaml",
        format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: plain\ndata:\n  password: {}\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: strings\nstringData:\n  password: {}\n",
            b64(&values[3]),
            values[4]
        ),
    );
    values
}

/// Standard base64 with padding, as Kubernetes writes `data`.
fn base64_encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn no_secret_value_reaches_any_writer_plain_or_base64() {
    let (env, _) = base_repo();
    let mut forbidden = write_secret_kustomization(&env, 1);
    let base = env.commit("secrets v1");
    forbidden.extend(write_secret_kustomization(&env, 2));
    let head = env.commit("secrets v2");
    // The file secret is stored whole; its base64 form is what `data` holds.
    let file_bodies: Vec<String> = (1..=2)
        .map(|n| format!("-----BEGIN KEY-----\nfile-body-{n}-q9Zx\n-----END KEY-----\n"))
        .collect();
    let mut needles: Vec<String> = Vec::new();
    for v in forbidden.iter().chain(&file_bodies) {
        needles.push(v.clone());
        needles.push(base64_encode(v.as_bytes()));
    }
    let check = |what: &str, text: &str| {
        for needle in &needles {
            assert!(
                !text.contains(needle.as_str()),
                "{what} shows {needle:?}:\n{text}"
            );
        }
    };
    // The values really are in the rendered objects (the test would prove nothing otherwise).
    let shown = env
        .kdelta(&["render", "secrets", "--show-secrets"])
        .success();
    assert!(shown
        .stdout
        .contains(&base64_encode(forbidden[5].as_bytes())));
    assert!(shown.stdout.contains(&forbidden[9]));

    let summary = env.out("summary.md");
    let (json, junit, md, html) = (
        env.out("s.json"),
        env.out("s.xml"),
        env.out("s.md"),
        env.out("s.html"),
    );
    for format in ["text", "json", "markdown", "github"] {
        let mut cmd = env.kdelta_cmd(&["diff", &base, &head, "--format", format]);
        cmd.env("GITHUB_STEP_SUMMARY", &summary);
        let run = run(cmd).success();
        assert!(run.stdout.contains("secrets"), "{format}: {}", run.stdout);
        check(&format!("diff --format {format}"), &run.stdout);
        check(&format!("diff --format {format} (stderr)"), &run.stderr);
    }
    check(
        "the step summary",
        &std::fs::read_to_string(&summary).unwrap(),
    );
    let report = env
        .kdelta(&[
            "report",
            &base,
            &head,
            "--html",
            html.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
            "--markdown",
            md.to_str().unwrap(),
        ])
        .success();
    check("report stdout", &report.stdout);
    check("report stderr", &report.stderr);
    for file in [&json, &junit, &md, &html] {
        let text = std::fs::read_to_string(file).unwrap();
        // The JSON carries the digests; the other writers say "changed".
        if file == &json {
            assert!(text.contains("<redacted sha256:"), "{text}");
        }
        check(&file.display().to_string(), &text);
    }
    for args in [
        vec!["render", "secrets"],
        vec!["render", "--rev", &base, "secrets"],
        vec!["check", "--format", "json"],
        vec!["check"],
    ] {
        let run = env.kdelta(&args).success();
        check(&format!("{args:?}"), &run.stdout);
        check(&format!("{args:?} (stderr)"), &run.stderr);
    }
}
