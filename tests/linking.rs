//! How the `kdelta` binary is linked on Linux (build.rs): at a fixed address, and with glibc,
//! without `libgcc_s.so.1`, whose load costs every process a CPU probe.

#![cfg(target_os = "linux")]

use std::process::Command;

/// `readelf` with `args` on the built binary; `None` when readelf is missing (a failure
/// under CI, where .ci/run installs binutils).
fn readelf(args: &[&str]) -> Option<String> {
    match Command::new("readelf")
        .args(args)
        .arg(env!("CARGO_BIN_EXE_kdelta"))
        .output()
    {
        Ok(out) => {
            assert!(out.status.success(), "readelf {args:?}: {out:?}");
            Some(String::from_utf8(out.stdout).expect("readelf prints text"))
        }
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "readelf is needed under CI: {e}"
            );
            eprintln!("skipped: readelf not found ({e})");
            None
        }
    }
}

#[test]
fn the_binary_is_linked_at_a_fixed_address() {
    let Some(header) = readelf(&["--file-header"]) else {
        return;
    };
    let kind = header
        .lines()
        .find(|l| l.trim_start().starts_with("Type:"))
        .expect("a Type line");
    assert!(
        kind.contains("EXEC"),
        "not a fixed-address executable: {kind}"
    );
}

#[test]
#[cfg(target_env = "gnu")]
fn the_binary_needs_no_libgcc_s_where_gcc_has_a_static_unwinder() {
    let probe = Command::new("cc")
        .arg("-print-file-name=libgcc_eh.a")
        .output();
    let has_static_unwinder = probe.is_ok_and(|out| {
        std::path::Path::new(String::from_utf8_lossy(&out.stdout).trim()).is_absolute()
    });
    if !has_static_unwinder {
        assert!(
            std::env::var_os("CI").is_none(),
            "cc has no libgcc_eh.a under CI"
        );
        return;
    }
    let Some(dynamic) = readelf(&["--dynamic"]) else {
        return;
    };
    let needed: Vec<&str> = dynamic.lines().filter(|l| l.contains("(NEEDED)")).collect();
    assert!(needed.iter().any(|l| l.contains("libc.so")), "{dynamic}");
    assert!(
        !needed.iter().any(|l| l.contains("libgcc_s")),
        "still needs libgcc_s: {needed:?}"
    );
}
