//! `kdelta init`: write a commented starter `.kdelta.yaml` (the one command that writes into
//! the repository, and only when asked to).

use super::args::{CommonArgs, InitArgs};
use super::common;
use anyhow::{bail, Context, Result};
use kdelta::config::CONFIG_FILE;
use kdelta::source::Revision;

pub fn run(c: &CommonArgs, args: &InitArgs) -> Result<i32> {
    let (_start, ws) = common::workspace(c)?;
    let opened = common::open(&ws, &Revision::Worktree)?;
    let text = kdelta::pipeline::starter::starter_config(opened.snapshot.as_ref());
    if args.stdout {
        common::write_stdout(&text);
        return Ok(super::EXIT_OK);
    }
    let path = opened.root.join(CONFIG_FILE);
    if path.exists() && !args.force {
        bail!(
            "{} already exists; pass --force to overwrite it, or --stdout to print the starter",
            path.display()
        );
    }
    std::fs::write(&path, &text).with_context(|| format!("cannot write {}", path.display()))?;
    eprintln!(
        "kdelta: wrote {} (see `kdelta list` for the targets it selects)",
        path.display()
    );
    Ok(super::EXIT_OK)
}
