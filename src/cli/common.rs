//! What the commands share: opening revisions, reading the config, render options, colors,
//! and writing report files.

use super::args::{ColorChoice, CommonArgs, Format, LoadRestrictor, Reorder, RevisionArgs};
use anyhow::{Context, Result};
use kdelta::config::Config;
use kdelta::render::RenderOptions;
use kdelta::report::markdown::MarkdownOptions;
use kdelta::report::{Finding, Report, RevisionInfo};
use kdelta::source::{RepoPath, Revision, Snapshot, Workspace};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// The exit code of a command whose report `failed` (error findings, or a diff with
/// `--fail-on-diff`): 1, or 0 with `--exit-zero`.
pub fn findings_exit_code(common: &CommonArgs, failed: bool) -> i32 {
    if failed && !common.exit_zero {
        super::EXIT_FINDINGS
    } else {
        super::EXIT_OK
    }
}

/// The directory the command runs in (`-C DIR` or the current directory).
pub fn start_dir(common: &CommonArgs) -> Result<PathBuf> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let dir = match &common.chdir {
        Some(d) => cwd.join(d),
        None => cwd,
    };
    dir.canonicalize()
        .with_context(|| format!("cannot change to directory {}", dir.display()))
}

/// The revision named by `--rev`/`--staged`, defaulting to the work tree.
pub fn revision(args: &RevisionArgs) -> Revision {
    match (&args.rev, args.staged) {
        (Some(r), _) => Revision::Commit(r.clone()),
        (None, true) => Revision::Staged,
        (None, false) => Revision::Worktree,
    }
}

/// An opened revision.
pub struct Opened {
    pub snapshot: Box<dyn Snapshot>,
    pub info: RevisionInfo,
    /// The snapshot's root on disk (the repository's work tree, or the start directory).
    pub root: PathBuf,
}

/// Opens a revision of the workspace.
pub fn open(ws: &Workspace, rev: &Revision) -> Result<Opened> {
    let (snapshot, info) = ws.open(rev)?;
    Ok(Opened {
        snapshot,
        info,
        root: ws.root().to_path_buf(),
    })
}

/// Finds the workspace (git repository or plain directory) around the start directory.
pub fn workspace(common: &CommonArgs) -> Result<(PathBuf, Workspace)> {
    let start = start_dir(common)?;
    let ws = Workspace::discover(&start);
    Ok((start, ws))
}

/// `dir` as a repo-relative path of a snapshot rooted at `root`.
pub fn repo_relative(root: &Path, path: &Path) -> Result<RepoPath> {
    // Not `with_context`: the StripPrefixError would append a meaningless ": prefix not found".
    let rel = path.strip_prefix(root).map_err(|_| {
        anyhow::anyhow!(
            "{} is outside the repository at {}",
            path.display(),
            root.display()
        )
    })?;
    let rel = rel.to_string_lossy().replace('\\', "/");
    Ok(RepoPath::new(&rel)?)
}

/// Turns a command-line path (relative to `start`) into a repo-relative path.
pub fn arg_path(start: &Path, root: &Path, arg: &str) -> Result<RepoPath> {
    let joined = start.join(arg);
    // Resolve `..` lexically: the path may not exist on disk (a file only in a revision).
    let mut parts: Vec<std::path::Component> = Vec::new();
    for c in joined.components() {
        match c {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::CurDir => {}
            other => parts.push(other),
        }
    }
    let normal: PathBuf = parts.iter().collect();
    repo_relative(root, &normal)
}

/// The configuration: `--config FILE` from disk, else `.kdelta.yaml` from the snapshot.
pub fn config(common: &CommonArgs, snapshot: &dyn Snapshot) -> Result<Config, Finding> {
    kdelta::pipeline::load_config(common.config.as_deref(), snapshot)
}

/// Rendering options from the flags (the Helm values files they name are read here, relative
/// to the start directory, as `helm template` reads them).
pub fn render_options(common: &CommonArgs) -> Result<RenderOptions> {
    let kustomize = kdelta::kustomize::Options {
        load_restrictor_none: common.load_restrictor == LoadRestrictor::None,
        load_restrictor_none_below: Vec::new(),
        reorder_none: common.reorder == Reorder::None,
        enable_exec_plugins: common.enable_exec_plugins,
        // Read only when plugins may run, so that the environment changes no other run.
        plugin_env: if common.enable_exec_plugins {
            kdelta::kustomize::PluginEnv::from_process()
        } else {
            kdelta::kustomize::PluginEnv::default()
        },
        add_managed_by_label: common.enable_managed_by_label,
        trace: false,
        helm_kube_version: None,
        helm_api_versions: Vec::new(),
    };
    Ok(RenderOptions {
        helm: helm_options(common)?,
        argocd: kdelta::argocd::Options {
            run_plugins: common.run_plugins,
            // The kustomizations that include Argo CD manifests build with the same flags.
            kustomize: kustomize.clone(),
            ..Default::default()
        },
        kustomize,
        shared: kdelta::engine::Shared {
            kube_version: common.helm.kube_version.clone(),
            api_versions: common.helm.api_versions.clone(),
            repo_urls: Workspace::discover(&start_dir(common)?)
                .remote_urls()
                .iter()
                .map(|u| kdelta::fetch::url::normalize_repo_url(u))
                .collect(),
            ..Default::default()
        },
        ..RenderOptions::default()
    })
}

/// The Helm flags as the engine's options.
fn helm_options(common: &CommonArgs) -> Result<kdelta::helm::Options> {
    let h = &common.helm;
    let mut files = FlagFiles {
        start: start_dir(common)?,
        stdin_read: false,
    };
    let mut values = Vec::new();
    for p in &h.values {
        let name = p.display().to_string();
        let text = files.read(&name).map_err(anyhow::Error::msg)?;
        values.push((name, text));
    }
    let set_file = h
        .set_file
        .iter()
        .map(|flag| kdelta::helm::strvals::SetFile::read(flag.clone(), |p| files.read(p)))
        .collect();
    Ok(kdelta::helm::Options {
        release_name: h.release_name.clone(),
        namespace: h.namespace.clone(),
        // The cluster's version and API versions are the run's (`shared`, see
        // `RenderOptions::configured`).
        kube_version: None,
        kube_overrides: Vec::new(),
        api_versions: Vec::new(),
        include_crds: h.include_crds,
        skip_schema_validation: h.skip_schema_validation,
        skip_tests: h.skip_tests,
        no_hooks: h.no_hooks,
        show_only: h.show_only.clone(),
        is_upgrade: h.is_upgrade,
        values,
        set: h.set.clone(),
        set_string: h.set_string.clone(),
        set_json: h.set_json.clone(),
        set_file,
        set_literal: h.set_literal.clone(),
        repository_cache: kdelta::fetch::helm_cache::repository_dir(),
        detect_regenerated: false,
        positions: true,
        only_printed: false,
    })
}

/// Helm's `readFile`, for `-f` and `--set-file`: `-` (spaces around it allowed) is standard
/// input, read once (a later `-` reads nothing, as Go's drained `os.Stdin` does); a URL Helm
/// would download (http, https, oci) is refused, for kdelta renders without the network; any
/// other text is a file's path, relative to the start directory. Errors in Go's words.
struct FlagFiles {
    start: PathBuf,
    stdin_read: bool,
}

impl FlagFiles {
    /// The file's bytes as a Go string (`--set-file` may name a binary file; a values file
    /// that is not UTF-8 fails as go-yaml's reader does).
    fn read(&mut self, path: &str) -> Result<String, String> {
        let bytes = if path.trim() == "-" {
            let mut bytes = Vec::new();
            if !std::mem::replace(&mut self.stdin_read, true) {
                std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)
                    .map_err(|e| format!("read /dev/stdin: {}", go_errno(&e)))?;
            }
            bytes
        } else {
            let url = kdelta::go::url::Url::parse(path).map_err(|e| e.to_string())?;
            if matches!(url.scheme.as_str(), "http" | "https" | "oci") {
                return Err(format!(
                    "{path}: kdelta reads values from files, not URLs (it renders without the network)"
                ));
            }
            // `os.ReadFile`: opening and reading fail with different words (a directory
            // opens, and its read is `is a directory`); no name is no file.
            if path.is_empty() {
                return Err("open : no such file or directory".into());
            }
            let mut file = std::fs::File::open(self.start.join(path))
                .map_err(|e| format!("open {path}: {}", go_errno(&e)))?;
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut file, &mut bytes)
                .map_err(|e| format!("read {path}: {}", go_errno(&e)))?;
            bytes
        };
        Ok(kdelta::template::gostr::from_bytes(&bytes))
    }
}

/// An OS error as Go's `syscall.Errno` words it: the C library's text, lower-cased
/// (`no such file or directory`, `is a directory`, `permission denied`).
fn go_errno(e: &std::io::Error) -> String {
    let text = e.to_string();
    let text = text.split(" (os error").next().unwrap_or(&text);
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_lowercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The pipeline's options from the flags.
pub fn pipeline_options(common: &CommonArgs) -> Result<kdelta::pipeline::Options> {
    Ok(kdelta::pipeline::Options {
        render: render_options(common)?,
        strict: common.strict,
        show_secrets: common.show_secrets,
        shard: common
            .shard
            .as_deref()
            .map(kdelta::pipeline::Shard::parse)
            .transpose()
            .map_err(anyhow::Error::msg)?,
        only: Vec::new(),
        changed_only: false,
        store: store(common, common.fetch)?,
        validation: kdelta::pipeline::Validation {
            enabled: !common.no_validate,
            kube_version: common.helm.kube_version.clone(),
            next_kube_version: common.next_kube_version.clone(),
        },
    })
}

/// The run's store of remote sources: online with `--fetch` (until the fetch step is over),
/// else reading the cache only. None when no cache directory can be found (no HOME).
pub fn store(
    common: &CommonArgs,
    online: bool,
) -> Result<Option<std::sync::Arc<kdelta::fetch::Store>>> {
    use kdelta::fetch::{Cache, Store};
    let dir = match &common.cache_dir {
        Some(d) => Some(start_dir(common)?.join(d)),
        None => Cache::default_dir(),
    };
    let Some(dir) = dir else {
        return Ok(None);
    };
    let cache = Cache::new(dir);
    let store = if online {
        Store::online(cache, Default::default())?
    } else {
        Store::offline(cache)
    };
    let ws = Workspace::discover(&start_dir(common)?);
    if ws.is_git() {
        store.set_local_repository(ws.root().to_path_buf());
    }
    Ok(Some(std::sync::Arc::new(store)))
}

/// With `--fetch`: the fetch step over `snapshots` before the command runs, its closing line
/// and the sources it could not fetch on stderr.
pub fn fetch_first(
    common: &CommonArgs,
    snapshots: &[&dyn Snapshot],
    opts: &kdelta::pipeline::Options,
) -> Result<kdelta::pipeline::Fetched> {
    if common.fetch && opts.store.is_none() {
        anyhow::bail!("--fetch needs a cache directory: set --cache-dir or KDELTA_CACHE_DIR");
    }
    if !opts.store.as_ref().is_some_and(|s| s.is_online()) {
        return Ok(kdelta::pipeline::Fetched::default());
    }
    // The configuration of the last snapshot (the head) decides what is rendered.
    let config = snapshots
        .last()
        .map(|s| config(common, *s).unwrap_or_default())
        .unwrap_or_default();
    // On a terminal, the line being fetched (overwritten by the next, cleared at the end).
    let terminal = std::io::stderr().is_terminal();
    if let (true, Some(store)) = (terminal, &opts.store) {
        store.on_progress(Box::new(|what: &str| {
            let shown: String = what.chars().take(100).collect();
            eprint!("\r\x1b[K{shown}");
        }));
    }
    let fetched = kdelta::pipeline::fetch(snapshots, &config, opts);
    if terminal {
        eprint!("\r\x1b[K");
    }
    eprintln!("{}", fetch_summary(&fetched.stats));
    Ok(fetched)
}

/// `kdelta: fetched 3 charts (1.2 MiB), 1 git reference, 2 files; refreshed 2 indexes/tags; 4
/// from cache`.
pub fn fetch_summary(s: &kdelta::fetch::Stats) -> String {
    let size = if s.chart_bytes >= 1 << 20 {
        format!("{:.1} MiB", s.chart_bytes as f64 / f64::from(1 << 20))
    } else {
        format!("{:.1} KiB", s.chart_bytes as f64 / 1024.0)
    };
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    format!(
        "kdelta: fetched {} ({size}), {}, {}; refreshed {}; {} from cache",
        plural(s.charts, "chart", "charts"),
        plural(s.git, "git reference", "git references"),
        plural(s.files, "file", "files"),
        plural(s.refreshed, "index/tag", "indexes/tags"),
        s.from_cache
    )
}

/// `-- PATH...` of `diff`, `check` and `report` as repo-relative paths (relative to the start
/// directory, like git's pathspecs).
pub fn selected_paths(start: &Path, root: &Path, args: &[String]) -> Result<Vec<RepoPath>> {
    args.iter().map(|a| arg_path(start, root, a)).collect()
}

/// Whether to color stdout.
pub fn color(common: &CommonArgs) -> bool {
    match common.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stdout().is_terminal()
                && std::env::var("TERM").map(|t| t != "dumb").unwrap_or(true)
        }
    }
}

/// The stdout format: `--format`, else `github` inside GitHub Actions, else `text`.
pub fn format(common: &CommonArgs) -> Format {
    common.format.unwrap_or_else(|| {
        if std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true") {
            Format::Github
        } else {
            Format::Text
        }
    })
}

/// Writes to stdout. When the reader has gone away (`kdelta render | head`), the run ends
/// quietly with 141, as a process killed by SIGPIPE would, instead of a panic.
pub fn write_stdout(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(141);
        }
        eprintln!("kdelta: error: cannot write to stdout: {e}");
        std::process::exit(super::EXIT_USAGE);
    }
}

/// Markdown writer settings from the flags.
pub fn markdown_options(common: &CommonArgs) -> MarkdownOptions {
    MarkdownOptions {
        max_len: common.markdown_limit,
        full_report: common.full_report.clone(),
    }
}

static WRITER_CRASHED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// True when a report writer crashed during this run (the exit code is then at least 1).
pub fn writer_crashed() -> bool {
    WRITER_CRASHED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Runs one report writer; a crash in it is reported on stderr and the other writers still
/// run (the exit code becomes 1).
pub fn guarded(writer: &str, f: impl FnOnce() -> String) -> Option<String> {
    let point = format!("writer:{}", writer.to_lowercase());
    match kdelta::panic::catch(|| {
        kdelta::panic::inject(&point);
        f()
    }) {
        Ok(text) => Some(text),
        Err(caught) => {
            eprintln!(
                "{}",
                super::internal_error(&format!("the {writer} writer"), &caught)
            );
            WRITER_CRASHED.store(true, std::sync::atomic::Ordering::Relaxed);
            None
        }
    }
}

/// Prints the report on stdout in the chosen format. With `github`, the Markdown is also
/// appended to `$GITHUB_STEP_SUMMARY` when that is set.
pub fn print_report(common: &CommonArgs, report: &Report) -> Result<()> {
    use kdelta::report::{github, json, markdown, text};
    let stdout = match format(common) {
        Format::Text => guarded("text", || {
            text::to_string(
                report,
                text::TextOptions {
                    color: color(common),
                    stat: common.stat,
                },
            )
        }),
        Format::Json => guarded("JSON", || json::to_string(report)),
        Format::Markdown => guarded("Markdown", || {
            markdown::to_string(report, &markdown_options(common))
        }),
        Format::Github => {
            let annotations = guarded("GitHub", || github::to_string(report));
            if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) {
                if let Some(md) = guarded("Markdown", || {
                    markdown::to_string(report, &markdown_options(common))
                }) {
                    append_step_summary(Path::new(&path), &md)?;
                }
            }
            annotations
        }
    };
    if let Some(text) = stdout {
        write_stdout(&text);
    }
    Ok(())
}

fn append_step_summary(path: &Path, markdown: &str) -> Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("cannot open the step summary {}", path.display()))?;
    file.write_all(markdown.as_bytes())
        .and_then(|()| file.write_all(b"\n"))
        .with_context(|| format!("cannot write the step summary {}", path.display()))
}

/// A report writer that needs no options.
type Writer = fn(&Report) -> String;

/// Writes `--json`, `--junit`, `--sarif`, `--codequality` and `--markdown` files.
pub fn write_report_files(common: &CommonArgs, report: &Report) -> Result<()> {
    let writers: [(&Option<PathBuf>, &str, Writer); 2] = [
        (&common.sarif, "SARIF", kdelta::report::sarif::to_string),
        (
            &common.codequality,
            "Code Quality",
            kdelta::report::codequality::to_string,
        ),
    ];
    for (path, name, write) in writers {
        if let Some(path) = path {
            if let Some(text) = guarded(name, || write(report)) {
                std::fs::write(path, text)
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
        }
    }
    if let Some(path) = &common.json {
        if let Some(json) = guarded("JSON", || kdelta::report::json::to_string(report)) {
            std::fs::write(path, json)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    if let Some(path) = &common.junit {
        let opts = kdelta::report::junit::JunitOptions {
            fail_on_diff: common.fail_on_diff,
        };
        if let Some(xml) = guarded("JUnit", || kdelta::report::junit::to_string(report, opts)) {
            std::fs::write(path, xml)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    if let Some(path) = &common.markdown {
        if let Some(md) = guarded("Markdown", || {
            kdelta::report::markdown::to_string(report, &markdown_options(common))
        }) {
            std::fs::write(path, md).with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    Ok(())
}
