//! The `kdelta` binary: parse arguments, run, map the outcome to an exit code.

#![allow(clippy::result_large_err)]

mod cli;

// Rendering allocates and frees node trees by the million: mimalloc (as ruff and uv ship it)
// spends far less time there than glibc's allocator. It is built without transparent huge
// pages (`no_thp`): memory it returns and takes again would be faulted back 2 MB at a time,
// which on kubeflow/manifests cost 0.3 s of kernel time and 20–30 MB of peak memory.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(cli::run());
}
