//! The command line: argument definitions and one module per command. The only place that
//! prints.

mod args;
mod check;
mod common;
mod diff;
mod explain;
mod fetch;
mod huge_pages;
mod init;
mod list;
mod merge_reports;
mod redaction_key;
mod render;
mod report;
mod tree;

pub use args::Cli;

use clap::Parser;

/// Exit code: ran fine, nothing to fail on.
pub const EXIT_OK: i32 = 0;
/// Exit code: error findings (or a diff with `--fail-on-diff`).
pub const EXIT_FINDINGS: i32 = 1;
/// Exit code: usage error, or kdelta could not run at all.
pub const EXIT_USAGE: i32 = 2;

/// Stack of each rendering thread (the size of a Linux main thread's).
const WORKER_STACK_BYTES: usize = 8 * 1024 * 1024;

/// Parses the process arguments, runs the command and returns the exit code.
pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { EXIT_OK };
            let _ = e.print();
            return code;
        }
    };
    if !matches!(cli.command, args::Command::Render(_)) {
        huge_pages::disable();
    }
    // Node trees are walked recursively (parse depth is limited to 1,000 levels, but patches
    // and replacements can nest a value under another): give the workers the main thread's
    // stack rather than rayon's 2 MiB. The memory is only reserved, not used.
    let mut pool = rayon::ThreadPoolBuilder::new().stack_size(WORKER_STACK_BYTES);
    // The main thread is one of the workers rather than a thread that waits for them: one
    // thread, its stack and its allocator heap fewer to start (a tenth of a small render),
    // and no third thread taking turns with two on two cores. Only when its stack is as
    // large as theirs.
    if main_stack_bytes() >= WORKER_STACK_BYTES {
        pool = pool.use_current_thread();
    }
    if let Some(jobs) = cli.common.jobs {
        pool = pool.num_threads(jobs.max(1));
    }
    if matches!(cli.command, args::Command::Render(_)) {
        pool = pool.start_handler(huge_pages::prefault_on_first_worker());
    }
    // Fails only if a pool was already built, which cannot happen this early.
    let _ = pool.build_global();
    kdelta::panic::install_hook();
    if !cli.common.show_secrets {
        redaction_key::install();
    }
    let result = kdelta::panic::catch(|| match &cli.command {
        args::Command::Render(a) => render::run(&cli.common, a),
        args::Command::Diff(a) => diff::run(&cli.common, a),
        args::Command::Check(a) => check::run(&cli.common, a),
        args::Command::List(a) => list::run(&cli.common, a),
        args::Command::Tree(a) => tree::run(&cli.common, a),
        args::Command::Report(a) => report::run(&cli.common, a),
        args::Command::MergeReports(a) => merge_reports::run(&cli.common, a),
        args::Command::Explain(a) => explain::run(&cli.common, a),
        args::Command::Fetch(a) => fetch::run(&cli.common, a),
        args::Command::Init(a) => init::run(&cli.common, a),
        args::Command::Config(a) => match a.command {
            args::ConfigCommand::Schema => {
                print!("{}", kdelta::config::CONFIG_SCHEMA);
                Ok(EXIT_OK)
            }
        },
    });
    match result {
        Ok(Ok(code)) if common::writer_crashed() => code.max(EXIT_FINDINGS),
        Ok(Ok(code)) => code,
        Ok(Err(e)) => {
            eprintln!("kdelta: error: {e:#}");
            EXIT_USAGE
        }
        Err(caught) => {
            eprintln!("{}", internal_error("kdelta", &caught));
            EXIT_FINDINGS
        }
    }
}

/// The main thread's stack limit (`ulimit -s`; unlimited counts as the largest).
fn main_stack_bytes() -> usize {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the one struct it is given.
        if unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut limit) } == 0 {
            return usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX);
        }
        0
    }
    #[cfg(not(unix))]
    0
}

/// The message for a crash outside a target's render (which becomes a finding instead).
pub fn internal_error(what: &str, caught: &kdelta::panic::Caught) -> String {
    format!(
        "error[internal.panic]: {what} crashed: {caught}\n  = help: this is a bug in kdelta, \
         not in your repository; please report it with this message and the command you ran"
    )
}
