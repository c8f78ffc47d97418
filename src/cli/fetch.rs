//! `kdelta fetch [REV...]`: the fetch step alone, into kdelta's cache.

use super::args::{CommonArgs, FetchArgs};
use super::common;
use anyhow::{bail, Result};
use kdelta::finding::Severity;
use kdelta::report::text::{findings_to_string, TextOptions};
use kdelta::source::{Revision, Snapshot};

pub fn run(c: &CommonArgs, args: &FetchArgs) -> Result<i32> {
    let (start, ws) = common::workspace(c)?;
    let mut opts = common::pipeline_options(c)?;
    opts.store = common::store(c, true)?;
    if opts.store.is_none() {
        bail!("no cache directory: set --cache-dir or KDELTA_CACHE_DIR");
    }
    opts.only = common::selected_paths(&start, ws.root(), &args.paths)?;
    let revisions: Vec<Revision> = if args.revs.is_empty() {
        // What `kdelta diff` compares: the merge-base with the default branch (when there is
        // one) and the work tree.
        let mut revs = Vec::new();
        if let Ok((_, merge_base)) = ws.default_base() {
            revs.push(Revision::Commit(merge_base.to_hex()));
        }
        revs.push(Revision::Worktree);
        revs
    } else {
        args.revs
            .iter()
            .map(|r| match r.as_str() {
                "WORKTREE" => Revision::Worktree,
                _ => Revision::Commit(r.clone()),
            })
            .collect()
    };
    let opened = revisions
        .iter()
        .map(|r| common::open(&ws, r))
        .collect::<Result<Vec<_>>>()?;
    let snapshots: Vec<&dyn Snapshot> = opened.iter().map(|o| o.snapshot.as_ref()).collect();
    let fetched = common::fetch_first(c, &snapshots, &opts)?;
    if !fetched.findings.is_empty() {
        eprint!(
            "{}",
            findings_to_string(&fetched.findings, TextOptions::default())
        );
    }
    let failed = fetched
        .findings
        .iter()
        .any(|f| f.severity == Severity::Error);
    Ok(common::findings_exit_code(c, failed))
}
