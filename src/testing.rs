//! The `git` command kdelta's own tests and fuzz harnesses build repositories with, isolated
//! from the machine it runs on: the library's unit tests, `fuzzing` and the `TestEnv` of
//! `tests/util` all use this one version, so that what a test sees never depends on the user's
//! git configuration or environment.

use std::path::Path;
use std::process::Command;

/// The identity and clock of every commit and tag a test makes, so commit ids are stable.
const IDENTITY: [(&str, &str); 6] = [
    ("GIT_AUTHOR_NAME", "Test"),
    ("GIT_AUTHOR_EMAIL", "test@example.com"),
    ("GIT_AUTHOR_DATE", "2024-01-01T00:00:00Z"),
    ("GIT_COMMITTER_NAME", "Test"),
    ("GIT_COMMITTER_EMAIL", "test@example.com"),
    ("GIT_COMMITTER_DATE", "2024-01-01T00:00:00Z"),
];

/// Configuration every test git command gets: a known default branch, real symbolic links, no
/// signing, local clones allowed, quiet checkouts.
const CONFIG: [&str; 6] = [
    "init.defaultBranch=main",
    "core.symlinks=true",
    "commit.gpgsign=false",
    "tag.gpgsign=false",
    "protocol.file.allow=always",
    "advice.detachedHead=false",
];

/// Removes every inherited `GIT_*` variable, then turns off the system and global git
/// configuration and gives `cmd` the private home `home` (whose `.config` is its XDG one).
pub fn isolate(cmd: &mut Command, home: &Path) {
    // First, so that nothing set below (or by the caller afterwards) is removed again.
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("GIT_") {
            cmd.env_remove(key);
        }
    }
    cmd.env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("HOME", home);
}

/// `git ARGS` in `dir`, isolated (with `home` as its home) and with a fixed identity and clock.
pub fn git_command(dir: &Path, home: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir);
    for config in CONFIG {
        cmd.args(["-c", config]);
    }
    cmd.args(args);
    isolate(&mut cmd, home);
    cmd.envs(IDENTITY);
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inherited_variables_are_removed_before_the_identity_is_set() {
        let cmd = git_command(Path::new("."), Path::new("/nonexistent"), &["status"]);
        let envs: Vec<_> = cmd.get_envs().collect();
        for (name, value) in IDENTITY {
            assert!(
                envs.contains(&(name.as_ref(), Some(value.as_ref()))),
                "{name} is {value}"
            );
        }
        let set: Vec<&str> = IDENTITY
            .iter()
            .map(|(name, _)| *name)
            .chain(["GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL"])
            .collect();
        for (key, _) in std::env::vars_os() {
            let name = key.to_string_lossy();
            if name.starts_with("GIT_") && !set.contains(&name.as_ref()) {
                assert!(
                    envs.contains(&(key.as_os_str(), None)),
                    "the inherited {name} is removed"
                );
            }
        }
    }
}
