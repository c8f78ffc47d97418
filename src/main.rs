//! The `kdelta` binary: parse arguments, run, map the outcome to an exit code.

#![allow(clippy::result_large_err)]

mod cli;

fn main() {
    std::process::exit(cli::run());
}
