//! Running a program the user allowed kdelta to run (kustomize exec plugins with
//! `--enable-exec-plugins`, Argo CD plugins with `--run-plugins`): stdin written and stdout
//! and stderr read on their own threads, so no pipe fills up, and a time limit after which the
//! program is killed.

use std::io::{Read, Write};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// What a finished program printed.
pub struct Finished {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// Why a program did not finish.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("cannot run it: {0}")]
    Spawn(std::io::Error),
    #[error("timed out after {}s", .0.as_secs())]
    TimedOut(Duration),
    #[error("{0}")]
    Wait(std::io::Error),
}

/// Runs `cmd` with `stdin` as its input, killing it after `timeout`.
pub fn run(cmd: &mut Command, stdin: &[u8], timeout: Duration) -> Result<Finished, RunError> {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(RunError::Spawn)?;
    let mut stdin_pipe = child.stdin.take();
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        if let Some(mut p) = stdin_pipe.take() {
            let _ = p.write_all(&input);
        }
    });
    let reader = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut s) = pipe {
                let _ = s.read_to_end(&mut buf);
            }
            buf
        })
    };
    let out_reader = reader(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err_reader = reader(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(RunError::TimedOut(timeout));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(RunError::Wait(e)),
        }
    };
    let _ = writer.join();
    Ok(Finished {
        status,
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
    })
}

/// How a program ended, as Go's `os.ProcessState` prints it (what kustomize and Argo CD
/// quote): `exit status 3`, `signal: killed`.
pub fn go_exit_status(status: &ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    if let Some(code) = status.code() {
        return format!("exit status {code}");
    }
    let Some(signal) = status.signal() else {
        return status.to_string();
    };
    // Go's names of the signals (syscall's `signals` table on Linux).
    let name = match signal {
        1 => "hangup",
        2 => "interrupt",
        3 => "quit",
        4 => "illegal instruction",
        5 => "trace/breakpoint trap",
        6 => "aborted",
        7 => "bus error",
        8 => "floating point exception",
        9 => "killed",
        10 => "user defined signal 1",
        11 => "segmentation fault",
        12 => "user defined signal 2",
        13 => "broken pipe",
        14 => "alarm clock",
        15 => "terminated",
        n => return format!("signal: signal {n}"),
    };
    let core = if status.core_dumped() {
        " (core dumped)"
    } else {
        ""
    };
    format!("signal: {name}{core}")
}

/// A fresh directory under the system's temporary directory, removed when dropped: where a
/// program runs, with the files it needs written into it.
pub struct TempDir(std::path::PathBuf);

impl TempDir {
    pub fn new(prefix: &str) -> std::io::Result<TempDir> {
        let base = std::env::temp_dir();
        for n in 0..1000u32 {
            let p = base.join(format!("{prefix}-{}-{n}", std::process::id()));
            if std::fs::create_dir(&p).is_ok() {
                return Ok(TempDir(p));
            }
        }
        Err(std::io::Error::other("no free temporary directory name"))
    }

    pub fn path(&self) -> &std::path::Path {
        &self.0
    }

    /// Writes `bytes` at `rel` (a relative path with `/` separators and no `..`), creating
    /// the directories above it.
    pub fn write(&self, rel: &str, bytes: &[u8]) -> std::io::Result<()> {
        if rel.split('/').any(|c| c == ".." || c.is_empty()) {
            return Err(std::io::Error::other(format!(
                "{rel}: not a plain relative path"
            )));
        }
        let p = self.0.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(p, bytes)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_statuses_read_as_go_prints_them() {
        let status = |script: &str| {
            let done = run(
                Command::new("sh").args(["-c", script]),
                b"",
                Duration::from_secs(60),
            )
            .unwrap();
            go_exit_status(&done.status)
        };
        assert_eq!(status("exit 3"), "exit status 3");
        assert_eq!(status("kill -9 $$"), "signal: killed");
        assert_eq!(status("kill -15 $$"), "signal: terminated");
    }

    #[test]
    fn output_is_read_and_a_hang_is_killed() {
        let done = run(
            Command::new("sh").args(["-c", "cat; echo err >&2"]),
            b"in\n",
            Duration::from_secs(60),
        )
        .unwrap();
        assert!(done.status.success());
        assert_eq!(done.stdout, b"in\n");
        assert_eq!(done.stderr, b"err\n");
        let hung = run(
            Command::new("sleep").arg("30"),
            b"",
            Duration::from_millis(100),
        );
        assert!(matches!(hung, Err(RunError::TimedOut(_))));
        assert!(matches!(
            run(
                &mut Command::new("/nonexistent/kdelta-test"),
                b"",
                Duration::from_secs(1)
            ),
            Err(RunError::Spawn(_))
        ));
    }

    #[test]
    fn a_temporary_directory_takes_plain_paths_and_goes_away() {
        let dir = TempDir::new("kdelta-test").unwrap();
        let root = dir.path().to_path_buf();
        dir.write("a/b/c.yaml", b"x").unwrap();
        assert_eq!(std::fs::read(root.join("a/b/c.yaml")).unwrap(), b"x");
        assert!(dir.write("../escape", b"x").is_err());
        drop(dir);
        assert!(!root.exists());
    }
}
