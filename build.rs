//! Links the `kdelta` binary as a fixed-address (non-PIE) executable on Linux, as Go links
//! `helm` and `kubectl`. A position-independent one is relocated at every start: 84,000
//! relocations that write 1.9 MB of `.data.rel.ro`, about 2 ms of a 15 ms chart render.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
