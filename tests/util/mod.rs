//! A test environment for end-to-end runs of the `kdelta` binary, in the manner of ripgrep's
//! `tests/util.rs` and jj's `TestEnvironment`: each test gets a temporary directory holding a
//! repository (`repo/`), a home directory (`home/`) and a place for report files (`out/`). Git
//! and kdelta run with a fixed identity and clock and without any user or system configuration,
//! so nothing on the machine changes what a test sees.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one kdelta run may take before the test fails as hung: generous, so that a test
/// passes on a loaded machine and still ends when kdelta hangs.
const RUN_TIMEOUT: Duration = Duration::from_secs(300);

/// One temporary repository (or plain directory) plus a home and an output directory.
pub struct TestEnv {
    root: tempfile::TempDir,
    repo: PathBuf,
}

impl TestEnv {
    /// An empty git repository on branch `main`.
    pub fn new() -> TestEnv {
        let env = TestEnv::without_git();
        env.git(&["init", "-q"]);
        env
    }

    /// A plain directory, outside any git repository.
    pub fn without_git() -> TestEnv {
        let root = tempfile::Builder::new()
            .prefix("kdelta-test-")
            .tempdir()
            .expect("create a temporary directory");
        for d in ["repo", "home", "out"] {
            std::fs::create_dir(root.path().join(d)).expect("mkdir");
        }
        let repo = root.path().join("repo");
        TestEnv { root, repo }
    }

    /// A clone of the repository at `url`, made with extra `git clone` arguments.
    pub fn clone_of(url: &str, args: &[&str]) -> TestEnv {
        let env = TestEnv::without_git();
        std::fs::remove_dir(env.repo()).expect("make room for the clone");
        let mut clone_args = vec!["clone", "-q"];
        clone_args.extend_from_slice(args);
        clone_args.extend_from_slice(&[url, "repo"]);
        env.git_in(env.root(), &clone_args);
        env
    }

    /// The repository's top directory (where commands run unless told otherwise).
    pub fn repo(&self) -> &Path {
        &self.repo
    }

    /// The temporary root (holds `repo`, `home` and `out`).
    pub fn root(&self) -> &Path {
        self.root.path()
    }

    /// A path for a report file, outside the repository (kdelta must not write into it).
    pub fn out(&self, name: &str) -> PathBuf {
        self.root.path().join("out").join(name)
    }

    /// Writes `contents` to `repo/rel`, creating parent directories.
    pub fn write(&self, rel: &str, contents: impl AsRef<[u8]>) -> &TestEnv {
        let path = self.repo().join(rel);
        std::fs::create_dir_all(path.parent().expect("a file has a parent")).expect("mkdir");
        std::fs::write(&path, contents).expect("write");
        self
    }

    /// Copies the tree `testdata/from` of this project into `repo/to` (`""` for the top).
    pub fn copy_testdata(&self, from: &str, to: &str) -> &TestEnv {
        fn copy(from: &Path, to: &Path) {
            std::fs::create_dir_all(to).expect("mkdir");
            for e in std::fs::read_dir(from)
                .expect("read a testdata directory")
                .flatten()
            {
                let dest = to.join(e.file_name());
                if e.file_type().expect("file type").is_dir() {
                    copy(&e.path(), &dest);
                } else {
                    std::fs::copy(e.path(), &dest).expect("copy");
                }
            }
        }
        let from = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata")
            .join(from);
        copy(&from, &self.repo().join(to));
        self
    }

    /// Deletes `repo/rel` (a file or a whole directory).
    pub fn remove(&self, rel: &str) -> &TestEnv {
        let path = self.repo().join(rel);
        if path.is_dir() {
            std::fs::remove_dir_all(path).expect("remove dir");
        } else {
            std::fs::remove_file(path).expect("remove file");
        }
        self
    }

    /// Creates the symbolic link `repo/rel` pointing at `target`.
    pub fn symlink(&self, rel: &str, target: &str) -> &TestEnv {
        let path = self.repo().join(rel);
        std::fs::create_dir_all(path.parent().expect("a link has a parent")).expect("mkdir");
        std::os::unix::fs::symlink(target, path).expect("symlink");
        self
    }

    /// Runs git in the repository; returns its trimmed standard output.
    pub fn git(&self, args: &[&str]) -> String {
        self.git_in(self.repo(), args)
    }

    /// Runs git in `dir`; returns its trimmed standard output.
    pub fn git_in(&self, dir: &Path, args: &[&str]) -> String {
        let out = self.git_cmd(dir, args).output().expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// A git command in `dir` with a fixed identity and clock and no outside configuration
    /// (the library's own tests use the same one, `kdelta::testing::git_command`).
    pub fn git_cmd(&self, dir: &Path, args: &[&str]) -> Command {
        let mut cmd = kdelta::testing::git_command(dir, &self.home(), args);
        self.confine(&mut cmd);
        cmd
    }

    /// Stages everything and commits; returns the new commit's full id.
    pub fn commit(&self, message: &str) -> String {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
        self.git(&["rev-parse", "HEAD"])
    }

    /// A kdelta command in the repository, with an isolated environment.
    pub fn kdelta_cmd(&self, args: &[&str]) -> Command {
        let mut cmd = self.isolated_cmd(env!("CARGO_BIN_EXE_kdelta"));
        cmd.args(args);
        // Outputs must not depend on the CI or terminal the tests happen to run in.
        for var in [
            "NO_COLOR",
            "CLICOLOR",
            "CLICOLOR_FORCE",
            "TERM",
            "GITHUB_ACTIONS",
            "CI",
        ] {
            cmd.env_remove(var);
        }
        cmd
    }

    /// `program` in the repository, with the isolated environment git and kdelta get.
    pub fn isolated_cmd(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(self.repo());
        self.isolate(&mut cmd);
        cmd
    }

    /// Runs kdelta in the repository.
    pub fn kdelta(&self, args: &[&str]) -> Run {
        run(self.kdelta_cmd(args))
    }

    /// The private home of git and kdelta.
    fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    /// No user or system git configuration, no inherited GIT_* variables, a private home
    /// (`kdelta::testing::isolate`, as git gets it), and what `confine` adds.
    fn isolate(&self, cmd: &mut Command) {
        kdelta::testing::isolate(cmd, &self.home());
        self.confine(cmd);
    }

    /// What a test adds to the isolation of `kdelta::testing`: repository discovery that stops
    /// at the temporary root, caches in the private home, nothing fetched past loopback.
    fn confine(&self, cmd: &mut Command) {
        cmd.env("GIT_CEILING_DIRECTORIES", self.root.path())
            .env("XDG_CACHE_HOME", self.home().join(".cache"))
            .env_remove("HELM_CACHE_HOME");
        // kdelta's cache is the private home's, and nothing a test fetches leaves loopback.
        for var in [
            "KDELTA_CACHE_DIR",
            "KDELTA_FETCH_TIMEOUT",
            "SSL_CERT_FILE",
            "HTTP_PROXY",
            "HTTPS_PROXY",
            "ALL_PROXY",
            "http_proxy",
            "https_proxy",
            "all_proxy",
        ] {
            cmd.env_remove(var);
        }
    }
}

/// The outcome of one kdelta run.
pub struct Run {
    pub args: Vec<String>,
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `cmd` to completion (failing the test if it hangs, crashes or panics).
pub fn run(cmd: Command) -> Run {
    run_within(cmd, RUN_TIMEOUT)
}

/// Runs `cmd` to completion, failing the test if it takes longer than `timeout`, crashes or
/// panics.
pub fn run_within(cmd: Command, timeout: Duration) -> Run {
    run_fed(cmd, None, timeout)
}

/// Runs `cmd` with `input` on its standard input, as [`run`].
pub fn run_with_stdin(cmd: Command, input: &str) -> Run {
    run_fed(cmd, Some(input.as_bytes().to_vec()), RUN_TIMEOUT)
}

fn run_fed(mut cmd: Command, input: Option<Vec<u8>>, timeout: Duration) -> Run {
    let args: Vec<String> = cmd
        .get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    cmd.stdin(if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the kdelta binary starts");
    if let (Some(input), Some(mut stdin)) = (input, child.stdin.take()) {
        // On a thread, so a child that does not read cannot block the test; dropping the
        // pipe is the end of the input.
        std::thread::spawn(move || {
            let _ = std::io::Write::write_all(&mut stdin, &input);
        });
    }
    // Drain both pipes on threads so a large output cannot block the child.
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = pipe.read_to_end(&mut buf);
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("piped stdout")));
    let err = drain(Box::new(child.stderr.take().expect("piped stderr")));
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for kdelta") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} did not finish within {timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let run = Run {
        args,
        code: status.code().unwrap_or(-1),
        stdout: out.join().expect("stdout reader"),
        stderr: err.join().expect("stderr reader"),
    };
    assert!(
        !run.stderr.contains("panicked") && !run.stdout.contains("panicked"),
        "kdelta {:?} panicked:\n{}",
        run.args,
        run.stderr
    );
    assert!(
        status.code().is_some(),
        "kdelta {:?} was killed by a signal ({status}):\n{}",
        run.args,
        run.stderr
    );
    run
}

impl Run {
    /// Asserts the exit code, showing both streams when it differs.
    #[track_caller]
    pub fn code(self, expected: i32) -> Run {
        assert_eq!(
            self.code, expected,
            "kdelta {:?} exited {} (expected {expected})\n--- stdout\n{}\n--- stderr\n{}",
            self.args, self.code, self.stdout, self.stderr
        );
        self
    }

    /// Asserts exit code 0.
    #[track_caller]
    pub fn success(self) -> Run {
        self.code(0)
    }

    /// Stdout parsed as JSON.
    #[track_caller]
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "kdelta {:?} printed invalid JSON ({e}):\n{}",
                self.args, self.stdout
            )
        })
    }

    /// Asserts stdout contains `needle`.
    #[track_caller]
    pub fn stdout_has(self, needle: &str) -> Run {
        assert!(
            self.stdout.contains(needle),
            "stdout of kdelta {:?} lacks {needle:?}:\n{}",
            self.args,
            self.stdout
        );
        self
    }

    /// Asserts stderr contains `needle`.
    #[track_caller]
    pub fn stderr_has(self, needle: &str) -> Run {
        assert!(
            self.stderr.contains(needle),
            "stderr of kdelta {:?} lacks {needle:?}:\n{}",
            self.args,
            self.stderr
        );
        self
    }
}
