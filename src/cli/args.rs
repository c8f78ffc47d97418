//! clap definitions for every command and the options they share.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Render a GitOps repository (kustomize, Helm, Argo CD) at two git revisions and report what
/// changes in the cluster.
#[derive(Debug, Parser)]
#[command(name = "kdelta", version, about, long_about = None)]
pub struct Cli {
    #[command(flatten)]
    pub common: CommonArgs,
    #[command(subcommand)]
    pub command: Command,
}

// Each subcommand's own arguments are built when it runs (or its help is asked for), not
// for all eleven on every start: clap spent 0.6 ms of a 10 ms render building them.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Print the rendered manifests of targets, exactly as the reference tool prints them.
    Render(RenderArgs),
    /// Render two revisions and report what changes (BASE defaults to the merge-base with the
    /// default branch, HEAD to the work tree).
    Diff(DiffArgs),
    /// Render everything at one revision and report findings; exit 1 on errors.
    Check(CheckArgs),
    /// List the discovered targets.
    List(ListArgs),
    /// Print Helm charts' dependency trees: every subchart enabled, or pruned with the reason
    /// (`tags.back-end=false`, `condition sub.enabled=false`, `parent sub pruned`, `not found in
    /// charts/`), with the Helm values flags applied.
    Tree(TreeArgs),
    /// Render two revisions and write a self-contained HTML audit report (and, with
    /// `--markdown FILE`, the Markdown summary); prints the report like `diff`.
    Report(ReportArgs),
    /// Where a rendered object comes from: the file and line it was read from, the
    /// kustomizations it passed through, every patch, transformer and replacement that changed
    /// it (with the fields), the Helm chart and values, the generator behind an Application.
    Explain(ExplainArgs),
    /// Write a commented starter `.kdelta.yaml` at the repository root from what discovery
    /// finds (the targets, fixtures to exclude, directories that look like plain manifests).
    Init(InitArgs),
    /// `.kdelta.yaml` helpers: `kdelta config schema` prints its JSON Schema, for editors.
    Config(ConfigArgs),
    /// Download every remote source the targets at these revisions name (charts in Helm
    /// repositories) into kdelta's cache, so that later runs render them offline (default
    /// revisions: what `kdelta diff` compares, the merge-base with the default branch and the
    /// work tree).
    Fetch(FetchArgs),
    /// Join the `--json` reports of the shards of one run (`--shard i/n`) into one report, and
    /// print or write it like `diff` (every format and report file, `--html FILE` too).
    MergeReports(MergeReportsArgs),
}

// Where to read a single revision from (a plain comment: a doc comment would become the
// about of the deferred subcommands that flatten it).
#[derive(Debug, Args, Clone, Default)]
pub struct RevisionArgs {
    /// Read this git revision (commit, branch, tag, `HEAD~2`…) instead of the work tree.
    #[arg(long, value_name = "REV", conflicts_with = "staged")]
    pub rev: Option<String>,
    /// Read the staged index (for pre-commit hooks).
    #[arg(long)]
    pub staged: bool,
}

#[derive(Debug, Args)]
pub struct RenderArgs {
    #[command(flatten)]
    pub revision: RevisionArgs,
    /// Targets (ids such as `kustomize:apps/web`) or paths (directories or files); default: the
    /// current directory.
    #[arg(value_name = "TARGET_OR_PATH")]
    pub targets: Vec<String>,
    /// Print a target's output even when it is incomplete (a remote base that was not fetched,
    /// a chart not inflated); without it such a target is not printed and the exit code is 1.
    #[arg(long)]
    pub allow_incomplete: bool,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The base revision (default: merge-base of HEAD and the default branch).
    pub base: Option<String>,
    /// The head revision (default: the work tree).
    pub head: Option<String>,
    /// Compare against the staged index instead of the work tree.
    #[arg(long, conflicts_with = "head")]
    pub staged: bool,
    /// Render only the targets the change can affect (impact analysis over the changed paths
    /// and each target's input directories); the others are reported unchanged unrendered.
    #[arg(long)]
    pub changed_only: bool,
    /// Only the targets at or under these paths (after `--`, like git: `-- apps/web`).
    #[arg(last = true, value_name = "PATH")]
    pub paths: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The base revision (a commit, branch or tag, e.g. the previous release).
    pub base: String,
    /// The head revision (default: the work tree).
    pub head: Option<String>,
    /// Compare against the staged index instead of the work tree.
    #[arg(long, conflicts_with = "head")]
    pub staged: bool,
    /// Write the HTML report to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: PathBuf,
    /// Render only the targets the change can affect (see `kdelta diff --changed-only`).
    #[arg(long)]
    pub changed_only: bool,
    /// Only the targets at or under these paths (after `--`, like git: `-- apps/web`).
    #[arg(last = true, value_name = "PATH")]
    pub paths: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    #[command(flatten)]
    pub revision: RevisionArgs,
    /// The object: `Kind/name`, `Kind/namespace/name`, a report's id
    /// (`apps/v1/Deployment/prod/web`) or a name.
    pub resource: String,
    /// Targets (ids such as `kustomize:apps/web`) or paths to look in; default: every target.
    #[arg(value_name = "TARGET_OR_PATH")]
    pub targets: Vec<String>,
}

#[derive(Debug, Args)]
pub struct FetchArgs {
    /// Revisions (commits, branches, tags; `WORKTREE` for the work tree) whose targets' remote
    /// sources are fetched.
    #[arg(value_name = "REV")]
    pub revs: Vec<String>,
    /// Only the targets at or under these paths (after `--`, like git: `-- apps/web`).
    #[arg(last = true, value_name = "PATH")]
    pub paths: Vec<String>,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Print the file instead of writing it.
    #[arg(long)]
    pub stdout: bool,
    /// Overwrite an existing `.kdelta.yaml`.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct ConfigArgs {
    #[command(subcommand)]
    pub command: ConfigCommand,
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print the JSON Schema of `.kdelta.yaml` (for editors: `# yaml-language-server:
    /// $schema=…`).
    Schema,
}

#[derive(Debug, Args)]
pub struct MergeReportsArgs {
    /// The shards' JSON reports.
    #[arg(required = true, value_name = "REPORT.json")]
    pub reports: Vec<PathBuf>,
    /// Also write the HTML report to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub revision: RevisionArgs,
    /// With `--staged`: render every target. By default a staged check renders only the
    /// targets the staged change can affect (impact analysis, as `diff --changed-only`); the
    /// others render as at HEAD and are reported unchanged.
    #[arg(long)]
    pub all: bool,
    /// Only the targets at or under these paths (after `--`, like git: `-- apps/web`).
    #[arg(last = true, value_name = "PATH")]
    pub paths: Vec<String>,
}

#[derive(Debug, Args)]
pub struct TreeArgs {
    #[command(flatten)]
    pub revision: RevisionArgs,
    /// Chart directories or Helm target ids (default: every Helm target).
    #[arg(value_name = "CHART")]
    pub charts: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub revision: RevisionArgs,
}

/// Output formats for stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Grouped by target, for a terminal.
    Text,
    /// Markdown for a pull-request comment (summary table, a collapsible block per target).
    Markdown,
    /// The versioned JSON report (`kdelta/report/v1`).
    Json,
    /// GitHub Actions annotations; the Markdown is appended to `$GITHUB_STEP_SUMMARY`.
    Github,
}

/// When to color terminal output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

/// Kustomize load restrictor (kustomize's own spellings accepted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum LoadRestrictor {
    #[default]
    #[value(name = "rootOnly", alias = "LoadRestrictionsRootOnly")]
    RootOnly,
    #[value(name = "none", alias = "LoadRestrictionsNone")]
    None,
}

/// Kustomize output order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Reorder {
    #[default]
    Legacy,
    None,
}

/// Options every command accepts.
#[derive(Debug, Args)]
pub struct CommonArgs {
    /// Run as if started in DIR.
    #[arg(short = 'C', global = true, value_name = "DIR")]
    pub chdir: Option<PathBuf>,
    /// Output format on stdout (default: `github` when GITHUB_ACTIONS=true, else `text`).
    #[arg(long, global = true, value_enum)]
    pub format: Option<Format>,
    /// Text format: one line per changed target with its change counts (like `git diff --stat`).
    #[arg(long, global = true)]
    pub stat: bool,
    /// Also write the Markdown report to FILE.
    #[arg(long, global = true, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Largest Markdown output, in bytes (never fewer than GitHub's character count; at least
    /// 2048); longer reports are cut between entries, with a note saying what was left out.
    #[arg(long, global = true, value_name = "CHARS", default_value_t = kdelta::report::markdown::GITHUB_COMMENT_LIMIT)]
    pub markdown_limit: usize,
    /// Render only share INDEX of COUNT of the targets (`2/4`), for a CI job matrix; join the
    /// shards' `--json` reports with `kdelta merge-reports`.
    #[arg(long, global = true, value_name = "INDEX/COUNT")]
    pub shard: Option<String>,
    /// Where the whole report is (a CI artifact's name): a Markdown report cut to its limit
    /// names it in its note.
    #[arg(long, global = true, value_name = "NAME")]
    pub full_report: Option<String>,
    /// Also write the findings as SARIF 2.1.0 to FILE (GitHub code scanning).
    #[arg(long, global = true, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// Also write the findings as a GitLab Code Quality report to FILE.
    #[arg(long, global = true, value_name = "FILE")]
    pub codequality: Option<PathBuf>,
    /// Also write a JUnit XML report to FILE.
    #[arg(long, global = true, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Also write the JSON report to FILE.
    #[arg(long, global = true, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Config file (default: .kdelta.yaml at the repository root).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Number of parallel render jobs (default: one per core).
    #[arg(short = 'j', long, global = true, value_name = "N")]
    pub jobs: Option<usize>,
    /// Color terminal output (NO_COLOR is respected with `auto`).
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Print Secret values instead of keyed digests.
    #[arg(long, global = true)]
    pub show_secrets: bool,
    /// Exit 1 when anything changed (diff).
    #[arg(long, global = true)]
    pub fail_on_diff: bool,
    /// Exit 0 even on error findings (or on a diff with `--fail-on-diff`), for hooks that only
    /// show the report; kdelta still exits 2 when it cannot run at all.
    #[arg(long, global = true)]
    pub exit_zero: bool,
    /// Run kustomize exec plugins (never run otherwise).
    #[arg(long, global = true)]
    pub enable_exec_plugins: bool,
    /// Run the commands of Argo CD config management plugins that kdelta cannot render
    /// natively, in a temporary checkout of the revision (never run otherwise).
    #[arg(long, global = true)]
    pub run_plugins: bool,
    /// Kustomize load restrictor.
    #[arg(long, global = true, value_enum, default_value_t = LoadRestrictor::RootOnly)]
    pub load_restrictor: LoadRestrictor,
    /// Kustomize output order (`none` keeps input order).
    #[arg(long, global = true, value_enum, default_value_t = Reorder::Legacy)]
    pub reorder: Reorder,
    /// Kustomize: label every object `app.kubernetes.io/managed-by` (kustomize's deprecated flag;
    /// `buildMetadata: [managedByLabel]` in a kustomization does the same).
    #[arg(long = "enable-managedby-label", global = true)]
    pub enable_managed_by_label: bool,
    /// Treat what leaves a target's output incomplete (a remote base that was not fetched, a
    /// chart not inflated) as an error instead of a notice.
    #[arg(long, global = true)]
    pub strict: bool,
    /// Do not validate rendered objects against the Kubernetes API schemas and CRDs (or set
    /// `kubernetes.validate: false` in .kdelta.yaml).
    #[arg(long, global = true)]
    pub no_validate: bool,
    /// Also report what this Kubernetes version no longer serves (an upgrade check; or
    /// `kubernetes.upgradeTo` in .kdelta.yaml).
    #[arg(long, global = true, value_name = "VERSION")]
    pub next_kube_version: Option<String>,
    /// Fetch the remote sources the targets name (charts in Helm repositories) into the cache
    /// first, as `kdelta fetch` does; without it kdelta never uses the network.
    #[arg(long, global = true)]
    pub fetch: bool,
    /// kdelta's cache of remote sources (default: KDELTA_CACHE_DIR, else
    /// $XDG_CACHE_HOME/kdelta, else ~/.cache/kdelta).
    #[arg(long, global = true, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    #[command(flatten)]
    pub helm: HelmArgs,
}

/// `helm template`'s flags, with its spellings; they apply to every chart rendered.
#[derive(Debug, Args, Default)]
#[command(next_help_heading = "Helm options")]
pub struct HelmArgs {
    /// Helm: values file, over the chart's values.yaml (repeatable; later wins; comma-separated
    /// too; `-` is standard input).
    #[arg(
        short = 'f',
        long = "values",
        global = true,
        value_name = "FILE",
        value_delimiter = ','
    )]
    pub values: Vec<PathBuf>,
    /// Helm: set values (`a.b=1,c={x,y}`; repeatable).
    #[arg(long, global = true, value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Helm: set values as strings.
    #[arg(long, global = true, value_name = "KEY=VALUE")]
    pub set_string: Vec<String>,
    /// Helm: set values as JSON (`a={"b":1}`).
    #[arg(long, global = true, value_name = "KEY=JSON")]
    pub set_json: Vec<String>,
    /// Helm: set values to files' contents (`key=path,list={p1,p2}`; `-` is standard input).
    #[arg(long, global = true, value_name = "KEY=PATH")]
    pub set_file: Vec<String>,
    /// Helm: set a value literally (no commas or escapes parsed).
    #[arg(long, global = true, value_name = "KEY=VALUE")]
    pub set_literal: Vec<String>,
    /// Helm: the release name (default `release-name`; `kdelta render NAME CHART` too).
    #[arg(long, global = true, value_name = "NAME")]
    pub release_name: Option<String>,
    /// Helm: the release namespace (default `default`).
    #[arg(short = 'n', long, global = true, value_name = "NAMESPACE")]
    pub namespace: Option<String>,
    /// The Kubernetes version: Helm's `.Capabilities` and `kubeVersion` checks (default
    /// 1.32.0), and the schemas objects are validated against (default: the newest bundled;
    /// or `kubernetes.version` in .kdelta.yaml).
    #[arg(long, global = true, value_name = "VERSION")]
    pub kube_version: Option<String>,
    /// Helm: API versions added to `.Capabilities.APIVersions` (repeatable; comma-separated too).
    #[arg(
        short = 'a',
        long,
        global = true,
        value_name = "VERSION",
        value_delimiter = ','
    )]
    pub api_versions: Vec<String>,
    /// Helm: print the charts' `crds/` too.
    #[arg(long, global = true)]
    pub include_crds: bool,
    /// Helm: do not check values against the charts' `values.schema.json`.
    #[arg(long, global = true)]
    pub skip_schema_validation: bool,
    /// Helm: leave out test hooks.
    #[arg(long, global = true)]
    pub skip_tests: bool,
    /// Helm: leave out every hook.
    #[arg(long, global = true)]
    pub no_hooks: bool,
    /// Helm: render `.Release.IsUpgrade` true.
    #[arg(long, global = true)]
    pub is_upgrade: bool,
    /// Helm: print only the documents of these templates (`templates/x.yaml`, globs allowed).
    #[arg(short = 's', long, global = true, value_name = "TEMPLATE")]
    pub show_only: Vec<String>,
}
