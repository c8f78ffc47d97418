//! Kustomize targets end to end: generated names renamed by content hash, exec plugins that run
//! only when enabled.

use super::*;
use std::os::unix::fs::PermissionsExt;

#[test]
fn a_generated_configmap_whose_hash_changes_is_one_renamed_resource() {
    let env = TestEnv::new();
    env.write(
        "app/kustomization.yaml",
        "configMapGenerator:\n- name: settings\n  literals:\n  - MODE=a\nsecretGenerator:\n- name: token\n  literals:\n  - value=first-secret-value\nresources:\n- pod.yaml\n",
    )
    .write(
        "app/pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: busybox\n    envFrom:\n    - configMapRef:\n        name: settings\n",
    );
    let base = env.commit("v1");
    env.write(
        "app/kustomization.yaml",
        "configMapGenerator:\n- name: settings\n  literals:\n  - MODE=b\nsecretGenerator:\n- name: token\n  literals:\n  - value=second-secret-value\nresources:\n- pod.yaml\n",
    );
    let head = env.commit("v2");
    let out = env
        .kdelta(&["diff", &base, &head, "--format", "json"])
        .success();
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let changes = report["targets"][0]["changes"].as_array().unwrap();
    let kinds: Vec<(&str, &str)> = changes
        .iter()
        .map(|c| {
            (
                c["resource"].as_str().unwrap(),
                c["change"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(
        kinds
            .iter()
            .any(|(r, c)| r.starts_with("core/v1/ConfigMap/_/settings-") && *c == "renamed"),
        "{kinds:?}"
    );
    assert!(
        kinds.iter().all(|(_, c)| *c != "added" && *c != "removed"),
        "{kinds:?}"
    );
    let cm = changes
        .iter()
        .find(|c| c["resource"].as_str().unwrap().contains("ConfigMap"))
        .unwrap();
    assert_eq!(
        cm["fields"][0],
        json!({"path": "data.MODE", "old": "a", "new": "b"})
    );
    for secret in [
        "first-secret-value",
        "second-secret-value",
        "Zmlyc3Qtc2VjcmV0LXZhbHVl",
    ] {
        assert!(!out.stdout.contains(secret), "{}", out.stdout);
    }
}

fn install_plugin(env: &TestEnv, script: &str) {
    let dir = env
        .root()
        .join("home/.config/kustomize/plugin/example.com/v1/greeter");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("Greeter");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn exec_plugins_run_only_when_enabled() {
    let env = TestEnv::new();
    install_plugin(
        &env,
        "#!/bin/sh\n# $1 is the config file\nname=$(sed -n 's/^  name: //p' \"$1\")\ncat <<EOF\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: $name\n  annotations:\n    kustomize.config.k8s.io/needs-hash: \"true\"\ndata:\n  greeting: hello\nEOF\n",
    );
    env.write("app/kustomization.yaml", "generators:\n- greeter.yaml\n")
        .write(
            "app/greeter.yaml",
            "apiVersion: example.com/v1\nkind: Greeter\nmetadata:\n  name: greetings\n",
        );
    env.commit("plugin");
    let denied = env.kdelta(&["render", "app"]).code(1);
    assert!(
        denied.stderr.contains("kustomize.plugin.exec-disabled"),
        "{}",
        denied.stderr
    );
    assert!(denied.stderr.contains("Greeter"), "{}", denied.stderr);
    assert!(
        denied.stderr.contains("--enable-exec-plugins"),
        "{}",
        denied.stderr
    );
    let allowed = env
        .kdelta(&["render", "--enable-exec-plugins", "app"])
        .success();
    assert!(
        allowed.stdout.contains("greeting: hello"),
        "{}",
        allowed.stdout
    );
    // The plugin asked for a hash suffix.
    assert!(
        allowed.stdout.contains("name: greetings-"),
        "{}",
        allowed.stdout
    );
}

#[test]
fn exec_transformers_get_the_resources_on_stdin() {
    let env = TestEnv::new();
    install_plugin(
        &env,
        "#!/bin/sh\nsed 's/image: busybox/image: busybox:1.36/'\n",
    );
    env.write("app/kustomization.yaml", "resources:\n- pod.yaml\ntransformers:\n- greeter.yaml\n")
        .write("app/greeter.yaml", "apiVersion: example.com/v1\nkind: Greeter\nmetadata:\n  name: pin\n")
        .write(
            "app/pod.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: busybox\n",
        );
    env.commit("transformer");
    let out = env
        .kdelta(&["render", "--enable-exec-plugins", "app"])
        .success();
    assert!(out.stdout.contains("image: busybox:1.36"), "{}", out.stdout);
}
