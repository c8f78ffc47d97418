//! The `kdelta` binary: parse arguments, run, map the outcome to an exit code.

#![allow(clippy::result_large_err)]

mod cli;

// Rendering allocates and frees node trees by the million: mimalloc (as ruff and uv ship it)
// spends far less time there than glibc's allocator. It asks for transparent huge pages;
// `cli::huge_pages` turns them off for every command but `render` (see there why).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(cli::run());
}
