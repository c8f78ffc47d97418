//! How the `kdelta` binary is linked on Linux, for a fast start (helm, a static Go binary,
//! pays neither cost below):
//!
//! - At a fixed address (`-no-pie`), as Go links `helm` and `kubectl`. A position-independent
//!   executable is relocated at every start: 84,000 relocations that write 1.9 MB of
//!   `.data.rel.ro`, about 2 ms of a 15 ms chart render.
//! - With glibc, the unwinder from gcc's static `libgcc_eh.a` instead of `libgcc_s.so.1`, as
//!   `-static-libgcc` does. Loading that library runs its CPU-feature probe, whose `cpuid`
//!   instructions trap to the hypervisor on a virtual machine: 0.6 ms of every process on the
//!   machines CI uses (a redis render 8.9 → 8.3 ms). Rust's standard library asks for
//!   `-lgcc_s` itself, so a linker script of that name, found first, answers with the static
//!   archives. Where the C compiler has no `libgcc_eh.a`, the binary links `libgcc_s` as
//!   before.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os != "linux" {
        return;
    }
    println!("cargo:rustc-link-arg-bins=-no-pie");
    if env == "gnu" {
        if let Some(dir) = static_libgcc_dir() {
            println!("cargo:rustc-link-arg-bins=-L{}", dir.display());
        }
    }
}

/// A directory holding `libgcc_s.so`, a linker script naming gcc's static unwinder and
/// support archives; `None` when the linker's compiler driver has no `libgcc_eh.a`.
fn static_libgcc_dir() -> Option<PathBuf> {
    let driver = std::env::var("RUSTC_LINKER").unwrap_or_else(|_| "cc".to_string());
    let unwinder = compiler_file(&driver, &["-print-file-name=libgcc_eh.a"])?;
    let support = compiler_file(&driver, &["-print-libgcc-file-name"])?;
    let dir = PathBuf::from(std::env::var_os("OUT_DIR")?).join("static-libgcc");
    std::fs::create_dir_all(&dir).ok()?;
    let script = format!(
        "INPUT({} {})\n",
        script_path(&unwinder)?,
        script_path(&support)?
    );
    std::fs::write(dir.join("libgcc_s.so"), script).ok()?;
    Some(dir)
}

/// The absolute path the compiler driver prints for `args`, if that file exists (a driver
/// that does not know the file prints its bare name).
fn compiler_file(driver: &str, args: &[&str]) -> Option<PathBuf> {
    let out = Command::new(driver).args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    (path.is_absolute() && path.is_file()).then_some(path)
}

/// `path` as a linker script's file name: quoted, and refused if a quote would break it.
fn script_path(path: &Path) -> Option<String> {
    let text = path.to_str()?;
    (!text.contains('"')).then(|| format!("\"{text}\""))
}
