//! `helm template CHART [-f FILE]… [--set X]…` through kdelta's Helm engine, for comparing
//! with the reference helm on real charts while the engine is not wired to `kdelta render`:
//!
//!     cargo run --release --example helm_template -- path/to/chart -f values.yaml
//!
//! Prints helm's stdout; on an error, prints `Error: …` to stderr and exits 1.

use kdelta::helm::{chart::Chart, render};
use std::path::{Path, PathBuf};

fn files(chart: &Path) -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    let mut stack = vec![chart.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir)? {
            let path = e?.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(chart).unwrap_or(&path);
                out.push((
                    rel.to_string_lossy().replace('\\', "/"),
                    std::fs::read(&path)?,
                ));
            }
        }
    }
    Ok(out)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut chart = None;
    let mut options = render::RenderOptions {
        template_stack: 192 << 20,
        ..render::RenderOptions::default()
    };
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_default();
        match a.as_str() {
            "-f" | "--values" => {
                let text = std::fs::read_to_string(value()).expect("a values file");
                options
                    .values
                    .push(kdelta::template::helm_values(&text).expect("values parse"));
            }
            "--set" => options.set.push(value()),
            "--set-string" => options.set_string.push(value()),
            "-n" | "--namespace" => options.namespace = value(),
            "--include-crds" => options.include_crds = true,
            "--skip-tests" => options.output.skip_tests = true,
            _ => chart = Some(PathBuf::from(a)),
        }
    }
    let chart = chart.expect("usage: helm_template CHART [-f FILE]… [--set X]…");
    let files = files(&chart).expect("a readable chart directory");
    let result = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            Chart::from_files(files)
                .map_err(|e| e.to_string())
                .and_then(|c| render::render(&c, &options))
        })
        .expect("a render thread")
        .join()
        .expect("no panic");
    match result {
        Ok(r) => {
            print!("{}", r.output);
            for p in r.pruned {
                eprintln!("pruned {} ({})", p.path, p.reason);
            }
        }
        Err(e) => {
            eprintln!("Error: {e}");
            std::process::exit(1);
        }
    }
}
