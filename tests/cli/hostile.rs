//! Hostile inputs: a clear message, exit 1 or 2, never a panic or a hang (the helper fails the
//! test on either).

use super::*;

#[test]
fn a_binary_file_named_yaml_is_a_finding() {
    let (env, _base) = base_repo();
    let mut bytes = vec![0x7f, b'E', b'L', b'F', 0, 0, 0xff, 0xfe];
    bytes.extend((0u32..4096).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
    env.write("manifests/x.yaml", &bytes);
    env.kdelta(&["check"])
        .code(1)
        .stdout_has("error[yaml.parse] manifests/x.yaml")
        .stdout_has("not valid UTF-8");
    let base = env.git(&["rev-parse", "HEAD"]);
    let head = env.commit("binary");
    env.kdelta(&["diff", &base, &head])
        .code(1)
        .stdout_has("manifests/x.yaml");
    env.kdelta(&["render", "manifests"])
        .code(1)
        .stderr_has("manifests/x.yaml");
}

/// A file over the size limit is refused by its size, before it is read or parsed: the
/// finding says so (how long that takes is not asserted; the helper only catches a hang).
#[test]
fn a_yaml_file_over_the_size_limit_is_refused() {
    let (env, base) = base_repo();
    let mut big = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n");
    let value = "x".repeat(100);
    let mut i = 0u64;
    // Just over kdelta's limit: the size, not the time, is the point.
    while big.len() as u64 <= kdelta::source::MAX_FILE_SIZE {
        big.push_str(&format!("  k{i}: {value}\n"));
        i += 1;
    }
    env.write("manifests/big.yaml", &big);
    env.kdelta(&["check"])
        .code(1)
        .stdout_has("error[source.too-large] manifests/big.yaml")
        .stdout_has("over the");
    let head = env.commit("big");
    env.kdelta(&["diff", &base, &head])
        .code(1)
        .stdout_has("source.too-large");
}

#[test]
fn a_billion_laughs_document_hits_the_alias_limit() {
    let (env, _base) = base_repo();
    let mut doc = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\ndata:\n  a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for w in names.windows(2) {
        let refs = vec![format!("*{}", w[0]); 9].join(",");
        doc.push_str(&format!("  {}: &{} [{refs}]\n", w[1], w[1]));
    }
    env.write("manifests/lol.yaml", doc);
    // The parser counts the nodes aliases expand to and stops at its limit: the work is
    // bounded by that count, which the finding names (no clock is asserted).
    env.kdelta(&["check"])
        .code(1)
        .stdout_has("error[yaml.limit] manifests/lol.yaml:")
        .stdout_has("alias");
    env.kdelta(&["render", "manifests"])
        .code(1)
        .stderr_has("yaml.limit");
}

#[test]
fn paths_outside_the_repository_are_refused() {
    let (env, _base) = base_repo();
    for arg in ["../../etc", "/etc", "manifests/../../../etc"] {
        let r = env
            .kdelta(&["render", arg])
            .code(2)
            .stderr_has("outside the repository");
        assert!(r.stdout.is_empty());
        assert!(!r.stderr.contains("prefix not found"), "{}", r.stderr);
    }
    let mut cmd = env.kdelta_cmd(&["render", "../../../../../../etc"]);
    cmd.current_dir(env.repo().join("manifests"));
    run(cmd).code(2).stderr_has("outside the repository");
}

#[test]
fn a_symlink_pointing_outside_the_repository_is_not_followed() {
    let (env, base) = base_repo();
    env.symlink("manifests/p.yaml", "/etc/passwd");
    let leak = |s: &str| s.contains("root:") || s.contains("/bin/");
    let check = env
        .kdelta(&["check"])
        .code(1)
        .stdout_has("error[source.outside-repository] manifests/p.yaml")
        .stdout_has("symbolic link points outside the repository");
    assert!(!leak(&check.stdout), "{}", check.stdout);
    let render = env.kdelta(&["render", "manifests"]).code(1);
    assert!(!leak(&render.stdout) && !leak(&render.stderr));
    let head = env.commit("link");
    let diff = env
        .kdelta(&["diff", &base, &head])
        .code(1)
        .stdout_has("source.outside-repository");
    assert!(!leak(&diff.stdout));
    env.kdelta(&["check", "--staged", "--all"])
        .code(1)
        .stdout_has("manifests/p.yaml");
    // A link to a directory outside is refused the same way.
    env.symlink("escape", "/etc");
    env.kdelta(&["render", "escape"]).code(2);
}

/// A reader that goes away (`kdelta render | head -1`) ends the run like SIGPIPE would: exit
/// 141, no panic message.
#[test]
fn a_closed_stdout_is_not_a_panic() {
    use std::io::Read;
    let (env, _base) = base_repo();
    let mut cmd = env.kdelta_cmd(&["render", "manifests"]);
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("kdelta starts");
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("piped stderr")
        .read_to_string(&mut stderr)
        .expect("stderr is text");
    let status = child.wait().expect("kdelta ends");
    assert_eq!(status.code(), Some(141), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
