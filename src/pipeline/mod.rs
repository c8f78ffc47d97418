//! The library pipeline behind every command: `diff`, `check` and `render` take typed requests
//! (opened snapshots, the configuration, options) and return typed results (a [`Report`],
//! renders). The CLI only parses arguments, opens revisions and prints.

mod annotate;
pub mod impact;
pub mod provenance;
pub mod starter;
mod summarize;

use summarize::{pair_report, single_report, Checked};

use crate::config::{Config, CONFIG_FILE};
use crate::diff::DiffOptions;
use crate::discover::{discover, Discovery};
use crate::finding::{rules, Finding};
use crate::render::{
    expand, render_all, render_pair, render_target, ParseCache, RenderOptions, Rendered, Target,
};
use crate::report::{Report, RevisionInfo};
use crate::source::{EntryKind, RepoPath, Snapshot};
use crate::target::RevisionSettings;
use crate::validate::schema_locations;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// Options every command shares.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub render: RenderOptions,
    /// `--strict`: findings that leave an output incomplete are errors.
    pub strict: bool,
    /// Show Secret values instead of keyed digests.
    pub show_secrets: bool,
    /// `--shard INDEX/COUNT`: render only this share of the targets.
    pub shard: Option<Shard>,
    /// `-- PATH...`: render only the targets at or under these paths (all when empty).
    pub only: Vec<RepoPath>,
    /// `--changed-only`: in a diff, render only the targets the change can affect.
    pub changed_only: bool,
    /// Where remote sources (charts in Helm repositories) are read from; none: they are
    /// missing from the output, with a notice.
    pub store: Option<Arc<crate::fetch::Store>>,
    /// Whether and for which Kubernetes version rendered objects are validated.
    pub validation: Validation,
}

/// What the command line asks of validation; the configuration's `kubernetes:` fills in what
/// it leaves out.
#[derive(Clone, Debug, Default)]
pub struct Validation {
    /// Validate at all (the command line's default; off for library callers that do not ask).
    pub enabled: bool,
    /// `--kube-version`.
    pub kube_version: Option<String>,
    /// `--next-kube-version`.
    pub next_kube_version: Option<String>,
}

impl Validation {
    /// The validator of a run, or `None` when validation is off; a version that does not
    /// parse is a `config.invalid` finding and validation is off.
    fn validator(
        &self,
        config: &Config,
        findings: &mut Vec<Finding>,
    ) -> Option<crate::validate::stage::Validator> {
        use crate::validate::schema::KubeVersion;
        use crate::validate::stage::{Settings, Validator};
        let k = config.kubernetes();
        if !self.enabled || k.validate == Some(false) {
            return None;
        }
        let mut parse = |text: &str, what: &str| match KubeVersion::parse(text) {
            Ok(v) => Some(v),
            Err(e) => {
                findings.push(Finding::error(
                    rules::CONFIG_INVALID,
                    format!("{what} {text:?} is not a Kubernetes version: {e}"),
                ));
                None
            }
        };
        let mut settings = Settings::latest();
        if let Some(v) = self.kube_version.as_deref().or(k.version.as_deref()) {
            settings.version = parse(v, "the Kubernetes version")?;
        }
        if let Some(v) = self
            .next_kube_version
            .as_deref()
            .or(k.upgrade_to.as_deref())
        {
            settings.next = Some(parse(v, "the Kubernetes version to upgrade to")?);
        }
        // `--kube-version` is the whole run's: it leaves no room for overrides.
        if self.kube_version.is_none() {
            for o in &k.overrides {
                let version = parse(&o.version, "an override's Kubernetes version")?;
                settings
                    .overrides
                    .push(crate::validate::stage::VersionOverride {
                        entry: o.clone(),
                        version,
                    });
            }
        }
        Some(Validator::new(settings))
    }
}

impl Options {
    /// A parse cache for one run, reading remote sources from this run's store.
    pub fn parse_cache(&self) -> ParseCache {
        ParseCache::with_store(self.store.clone())
    }

    /// Applies the configuration's `fetch:` settings (mirrors, plain-HTTP hosts) to the
    /// run's store.
    pub fn configure_store(&self, config: &Config) {
        if let Some(store) = &self.store {
            let mut settings = config.fetch().settings();
            settings.this_repository = with_config(&self.render, config).shared.repo_urls;
            store.configure(settings);
        }
    }
}

/// One of `count` shares of the targets (`--shard 2/4`), for a CI job matrix: a target's
/// share depends on its id alone, so adding or removing a target moves no other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 1-based.
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// `INDEX/COUNT`, with 1 ≤ INDEX ≤ COUNT.
    pub fn parse(s: &str) -> Result<Shard, String> {
        let bad =
            || format!("--shard {s}: expected INDEX/COUNT with 1 <= INDEX <= COUNT, e.g. 2/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// True when the target `id` is in this share (FNV-1a of the id, modulo the count).
    pub fn keeps(&self, id: &str) -> bool {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in id.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        (h % self.count as u64) as usize == self.index - 1
    }
}

/// Keeps the targets of each list that lie at or under one of `paths` (all when empty).
fn select_targets(paths: &[RepoPath], lists: &mut [&mut Vec<Target>]) {
    if paths.is_empty() {
        return;
    }
    for l in lists.iter_mut() {
        l.retain(|t| paths.iter().any(|p| t.path().starts_with(p)));
    }
}

/// Keeps this shard's targets of each list; gives every target's place among all of them
/// (the order one unsharded run reports them in), by id.
fn shard_targets(shard: Shard, lists: &mut [&mut Vec<Target>]) -> HashMap<String, usize> {
    let mut all: Vec<Target> = lists.iter().flat_map(|l| l.iter().cloned()).collect();
    all.sort();
    all.dedup();
    for l in lists.iter_mut() {
        l.retain(|t| shard.keeps(&t.id()));
    }
    all.into_iter()
        .enumerate()
        .map(|(i, t)| (t.id(), i))
        .collect()
}

/// Marks each target of a sharded report with its place among all targets.
fn with_positions(mut report: Report, positions: Option<HashMap<String, usize>>) -> Report {
    if let Some(p) = positions {
        for t in &mut report.targets {
            t.position = p.get(&t.id).copied();
        }
    }
    report
}

/// One revision, opened.
pub struct Revision<'a> {
    pub snapshot: &'a dyn Snapshot,
    pub info: RevisionInfo,
}

/// The configuration a run uses, or the finding that says why the file could not be used
/// (the run then goes on with the default configuration).
pub type LoadedConfig = Result<Config, Finding>;

/// The configuration: `explicit` (`--config FILE`, read from disk) if given, else
/// `.kdelta.yaml` from the snapshot, else the default.
pub fn load_config(explicit: Option<&Path>, snapshot: &dyn Snapshot) -> LoadedConfig {
    if let Some(path) = explicit {
        let bytes = std::fs::read(path).map_err(|e| {
            Finding::error(rules::CONFIG_INVALID, format!("cannot read config: {e}"))
                .in_file(path.display().to_string())
        })?;
        return Config::parse(&bytes).map_err(|e| e.to_finding(&path.display().to_string()));
    }
    let file = RepoPath::new(CONFIG_FILE).expect("a constant relative path");
    match snapshot.read(&file) {
        Ok(bytes) => Config::parse(&bytes).map_err(|e| e.to_finding(CONFIG_FILE)),
        Err(_) => Ok(Config::default()),
    }
}

fn config_or_default(config: LoadedConfig, findings: &mut Vec<Finding>) -> Config {
    config.unwrap_or_else(|f| {
        findings.push(f);
        Config::default()
    })
}

/// `kdelta diff`: discovers, expands and renders both revisions (head reusing base renders
/// whose inputs did not change) and diffs them. The head's configuration decides what is
/// rendered on both sides.
pub fn diff(base: Revision, head: Revision, config: LoadedConfig, opts: &Options) -> Report {
    let mut findings = Vec::new();
    let config = config_or_default(config, &mut findings);
    opts.configure_store(&config);
    let validator = opts.validation.validator(&config, &mut findings);
    let validated = std::sync::Mutex::new((
        crate::validate::stage::Revision::default(),
        crate::validate::stage::Revision::default(),
    ));
    let cache = opts.parse_cache();
    let render_opts = with_config(&opts.render, &config);
    // Both revisions at once: each phase has a serial tail the other fills.
    let (
        (base_expansion, base_opts, base_included),
        head_found,
        (head_expansion, head_opts, head_included),
    ) = {
        let found_and_expanded = |rev: &Revision| {
            let found = discover(rev.snapshot, &config);
            let (rev_opts, mut findings) = with_settings(&render_opts, &config, found.settings);
            findings.extend(found.findings);
            let expansion = expand(rev.snapshot, found.targets, &rev_opts, &cache);
            (findings, (expansion, rev_opts, found.included))
        };
        let ((_, b), (h_found, h)) =
            rayon::join(|| found_and_expanded(&base), || found_and_expanded(&head));
        (b, h_found, h)
    };
    findings.extend(head_found);
    findings.extend(head_expansion.findings);
    let mut base_targets = base_expansion.targets;
    let mut head_targets = head_expansion.targets;
    select_targets(&opts.only, &mut [&mut base_targets, &mut head_targets]);
    let positions = opts
        .shard
        .map(|s| shard_targets(s, &mut [&mut base_targets, &mut head_targets]));
    let diff_opts = DiffOptions {
        show_secrets: opts.show_secrets,
        ignore: config.ignore_rules().to_vec(),
    };
    let changed = opts
        .changed_only
        .then(|| impact::changed_paths(base.snapshot, head.snapshot));
    let unchanged = |t: &Target| {
        changed.as_ref().is_some_and(|c| {
            !impact::is_impacted(t, base.snapshot, head.snapshot, c, &head_opts, &cache)
        })
    };
    // Each target is diffed as soon as it is rendered, and its renders dropped.
    let summaries = render_pair(
        (base.snapshot, head.snapshot),
        (&base_targets, &head_targets),
        (&base_opts, &head_opts),
        &cache,
        unchanged,
        |mut o| {
            if opts.strict {
                // Shared when head reused base: the first escalation copies, the second is in
                // place.
                o.base
                    .iter_mut()
                    .chain(&mut o.head)
                    .for_each(|r| Arc::make_mut(r).escalate_incomplete());
            }
            if let Some(v) = &validator {
                // A base or component is validated as part of what includes it.
                let applied = |included: &std::collections::HashSet<RepoPath>| {
                    !included.contains(o.target.path())
                };
                let check = |r: &Option<Arc<Rendered>>, applied: bool| {
                    r.as_ref()
                        .filter(|r| r.ok && applied)
                        .map(|r| v.check(&o.target, r))
                };
                let base_check = check(&o.base, applied(&base_included));
                // Head reused base's render: the same objects, the same findings.
                let head_check = match (&o.base, &o.head) {
                    (Some(b), Some(h))
                        if Arc::ptr_eq(b, h)
                            && applied(&base_included) == applied(&head_included) =>
                    {
                        base_check.clone()
                    }
                    _ => check(&o.head, applied(&head_included)),
                };
                let mut both = validated.lock().unwrap_or_else(|p| p.into_inner());
                both.0.add(base_check.unwrap_or_default());
                both.1.add(head_check.unwrap_or_default());
            }
            summarize::summarize_pair(&o, &diff_opts)
        },
    );
    if validator.is_some() {
        let (mut at_base, mut at_head) = validated.into_inner().unwrap_or_else(|p| p.into_inner());
        if let Some(v) = &validator {
            let store = opts.store.as_deref();
            let mut located = add_configured_crds(&mut at_base, v, base.snapshot, &config, store);
            located.extend(add_configured_crds(
                &mut at_head,
                v,
                head.snapshot,
                &config,
                store,
            ));
            located.sort_by(|a, b| a.message.cmp(&b.message));
            located.dedup();
            findings.extend(located);
        }
        let mut classified = crate::validate::stage::classify(
            validation_findings(at_base, base.snapshot, &config),
            validation_findings(at_head, head.snapshot, &config),
        );
        crate::validate::stage::sort(&mut classified);
        findings.extend(classified);
    }
    let report = pair_report(summaries, base.info, head.info, findings, &diff_opts);
    with_positions(report, positions)
}

/// `kdelta check`: renders every target at one revision and reports its findings. With
/// `since` (the revision whose findings are known: HEAD, for staged changes), a target the
/// change from `since` cannot affect (impact analysis, as `--changed-only`) is not rendered
/// and reported unchanged.
pub fn check(
    rev: Revision,
    since: Option<&dyn Snapshot>,
    config: LoadedConfig,
    opts: &Options,
) -> Report {
    let mut findings = Vec::new();
    let config = config_or_default(config, &mut findings);
    opts.configure_store(&config);
    let cache = opts.parse_cache();
    let found = discover(rev.snapshot, &config);
    findings.extend(found.findings);
    let included = found.included;
    let (render_opts, settings_findings) =
        with_settings(&with_config(&opts.render, &config), &config, found.settings);
    findings.extend(settings_findings);
    let expansion = expand(rev.snapshot, found.targets, &render_opts, &cache);
    findings.extend(expansion.findings);
    let mut targets = expansion.targets;
    select_targets(&opts.only, &mut [&mut targets]);
    let positions = opts.shard.map(|s| shard_targets(s, &mut [&mut targets]));
    let changed = since.map(|s| (s, impact::changed_paths(s, rev.snapshot)));
    let (affected, unaffected): (Vec<&Target>, Vec<&Target>) =
        targets.iter().partition(|t| match &changed {
            Some((s, paths)) => {
                impact::is_impacted(t, *s, rev.snapshot, paths, &render_opts, &cache)
            }
            None => true,
        });
    let affected: Vec<Target> = affected.into_iter().cloned().collect();
    let mut rendered = render_all(rev.snapshot, &affected, &render_opts, &cache).into_iter();
    let unaffected: std::collections::BTreeSet<&Target> = unaffected.into_iter().collect();
    let validator = opts.validation.validator(&config, &mut findings);
    let mut validated = crate::validate::stage::Revision::default();
    let checked: Vec<Checked> = targets
        .iter()
        .map(|t| {
            if unaffected.contains(t) {
                return Checked::Unaffected(t.defining_file(rev.snapshot));
            }
            let mut r = rendered.next().expect("one render per affected target");
            if opts.strict {
                r.escalate_incomplete();
            }
            let r = Arc::new(r);
            // A base or component is validated as part of what includes it.
            let applied = !included.contains(t.path());
            if let Some(v) = validator.as_ref().filter(|_| r.ok && applied) {
                validated.add(v.check(t, &r));
            }
            Checked::Rendered(r)
        })
        .collect();
    if let Some(v) = &validator {
        findings.extend(add_configured_crds(
            &mut validated,
            v,
            rev.snapshot,
            &config,
            opts.store.as_deref(),
        ));
        let mut found = validation_findings(validated, rev.snapshot, &config);
        crate::validate::stage::sort(&mut found);
        findings.extend(found);
    }
    with_positions(
        single_report(&targets, &checked, rev.info, findings),
        positions,
    )
}

/// The CRDs `kubernetes.crds` names, read from the revision: each YAML file it names, and
/// every YAML file under each directory it names; then, for the kinds none of them defines,
/// the schemas at the locations it names (from the fetch store). Gives the findings of the
/// locations.
fn add_configured_crds(
    validated: &mut crate::validate::stage::Revision,
    validator: &crate::validate::stage::Validator,
    snapshot: &dyn Snapshot,
    config: &Config,
    store: Option<&crate::fetch::Store>,
) -> Vec<Finding> {
    let mut stack: Vec<RepoPath> = config
        .kubernetes()
        .crds
        .iter()
        .filter(|p| !schema_locations::is_location(p))
        .filter_map(|p| RepoPath::new(p.trim_end_matches('/')).ok())
        .collect();
    while let Some(path) = stack.pop() {
        match snapshot.kind(&path) {
            EntryKind::Dir => {
                for e in snapshot.list(&path).unwrap_or_default() {
                    let child = path.child(&e.name);
                    if e.kind == EntryKind::Dir
                        || e.name.ends_with(".yaml")
                        || e.name.ends_with(".yml")
                        || e.name.ends_with(".json")
                    {
                        stack.push(child);
                    }
                }
            }
            EntryKind::File => {
                let Ok(bytes) = snapshot.read(&path) else {
                    continue;
                };
                let docs = if path.file_name().ends_with(".json") {
                    // A schema of a catalog in the CRDs-catalog layout: GROUP/KIND_VERSION.json.
                    serde_json::from_slice(&bytes)
                        .ok()
                        .and_then(|schema| {
                            crate::validate::schema::catalog_crd(
                                path.parent().file_name(),
                                path.file_name(),
                                schema,
                            )
                        })
                        .into_iter()
                        .collect()
                } else {
                    crate::yaml::parse_stream(&bytes, &Default::default()).unwrap_or_default()
                };
                let resources: Vec<crate::resource::Resource> = docs
                    .into_iter()
                    .map(|n| crate::resource::Resource::new(n, path.clone()))
                    .collect();
                validated.add_crds(validator, &path, &resources);
            }
            _ => {}
        }
    }
    let locations = schema_location_entries(config);
    if locations.is_empty() {
        return Vec::new();
    }
    let config_file = RepoPath::new(CONFIG_FILE).expect("a constant relative path");
    schema_locations::add_schemas(validated, validator, &locations, store, &config_file)
}

/// The schema locations (URL templates) among `kubernetes.crds`.
fn schema_location_entries(config: &Config) -> Vec<&str> {
    config
        .kubernetes()
        .crds
        .iter()
        .map(String::as_str)
        .filter(|p| schema_locations::is_location(p))
        .collect()
}

/// A revision's validation findings: custom resources checked, findings in Helm templates
/// placed at their lines, the configuration's `rules:` applied.
fn validation_findings(
    validated: crate::validate::stage::Revision,
    snapshot: &dyn Snapshot,
    config: &Config,
) -> Vec<Finding> {
    let mut found = validated.finish();
    let read = |path: &str| {
        let bytes = snapshot.read(&RepoPath::new(path).ok()?).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    };
    crate::validate::stage::locate_in_templates(&mut found, &read);
    config.apply_rules(found)
}

/// `opts` with what `.kdelta.yaml` says (see [`RenderOptions::configured`]).
pub fn with_config(opts: &RenderOptions, config: &Config) -> RenderOptions {
    opts.configured(config)
}

/// The render options of one revision: `opts` (configured) with the settings its files hold
/// (`settings`, from discovery; see [`RenderOptions::with_settings`]), and what is wrong with
/// them.
pub fn with_settings(
    opts: &RenderOptions,
    config: &Config,
    settings: RevisionSettings,
) -> (RenderOptions, Vec<Finding>) {
    opts.with_settings(config, settings)
}

/// The render options of a revision whose targets are not discovered (`kdelta render`,
/// `explain`): [`with_settings`] from a walk for the settings alone; the findings about them
/// are left to `check`.
pub fn with_revision_settings(
    opts: &RenderOptions,
    config: &Config,
    snapshot: &dyn Snapshot,
) -> RenderOptions {
    with_settings(
        opts,
        config,
        crate::discover::revision_settings(snapshot, config),
    )
    .0
}

/// What the fetch step did: what it downloaded, and the findings about sources it could not
/// fetch (each once, however many targets name the source).
#[derive(Debug, Default)]
pub struct Fetched {
    pub stats: crate::fetch::Stats,
    pub findings: Vec<Finding>,
}

/// The fetch step (`kdelta fetch`, `--fetch`): renders every target of every snapshot with
/// `opts.store` online, so each remote source a target names (including those named by what
/// was fetched: a chart's dependencies, the Applications an app-of-apps chart makes) is
/// fetched into the cache; then the store goes offline and the renders are dropped.
pub fn fetch(snapshots: &[&dyn Snapshot], config: &Config, opts: &Options) -> Fetched {
    let Some(store) = &opts.store else {
        return Fetched::default();
    };
    opts.configure_store(config);
    let cache = opts.parse_cache();
    let render_opts = with_config(&opts.render, config).without_regenerated_probe();
    let mut findings: Vec<Finding> = Vec::new();
    // The schema locations are asked for the kinds the revisions' CRDs leave undefined.
    let validator = opts
        .validation
        .validator(config, &mut Vec::new())
        .filter(|_| !schema_location_entries(config).is_empty());
    for snapshot in snapshots {
        let found = discover(*snapshot, config);
        let (render_opts, _) = with_settings(&render_opts, config, found.settings);
        let expansion = expand(*snapshot, found.targets, &render_opts, &cache);
        let mut targets = expansion.targets;
        select_targets(&opts.only, &mut [&mut targets]);
        let mut validated = crate::validate::stage::Revision::default();
        for (target, rendered) in
            targets
                .iter()
                .zip(render_all(*snapshot, &targets, &render_opts, &cache))
        {
            if let Some(v) = validator.as_ref().filter(|_| rendered.ok) {
                validated.add(v.check(target, &rendered));
            }
            findings.extend(
                rendered
                    .findings
                    .into_iter()
                    .filter(|f| f.rule.id.starts_with("fetch.")),
            );
        }
        if let Some(v) = &validator {
            findings.extend(add_configured_crds(
                &mut validated,
                v,
                *snapshot,
                config,
                Some(store),
            ));
        }
    }
    store.go_offline();
    findings.sort_by(|a, b| (&a.file, a.line, &a.message).cmp(&(&b.file, b.line, &b.message)));
    findings.dedup_by(|a, b| a.file == b.file && a.line == b.line && a.message == b.message);
    Fetched {
        stats: store.stats(),
        findings,
    }
}

/// `kdelta list`: the targets of a revision, discovered and expanded (sorted), with the
/// findings of both phases.
pub fn list(snapshot: &dyn Snapshot, config: &Config, opts: &Options) -> Discovery {
    opts.configure_store(config);
    let found = discover(snapshot, config);
    let (render_opts, mut findings) =
        with_settings(&with_config(&opts.render, config), config, found.settings);
    let expansion = expand(snapshot, found.targets, &render_opts, &opts.parse_cache());
    findings.extend(found.findings);
    findings.extend(expansion.findings);
    Discovery {
        targets: expansion.targets,
        findings,
        settings: Default::default(),
        included: found.included,
    }
}

/// `kdelta render`: renders the given targets one after the other (they share a parse cache).
pub fn render<'a>(
    snapshot: &'a dyn Snapshot,
    targets: &'a [Target],
    opts: &Options,
) -> impl Iterator<Item = (Target, Rendered)> + 'a {
    let cache = opts.parse_cache();
    let opts = opts.clone();
    targets.iter().map(move |t| {
        let mut rendered = render_target(snapshot, t, &opts.render, &cache);
        if opts.strict {
            rendered.escalate_incomplete();
        }
        (t.clone(), rendered)
    })
}

/// What a `kdelta render` argument names.
#[derive(Clone, Debug)]
pub enum TargetArg {
    /// A target id as `kdelta list` prints it (`kustomize:apps/web`).
    Id(String),
    /// A repository path: a target directory, or a file holding Argo CD or Flux manifests.
    Path(RepoPath),
}

impl TargetArg {
    /// An argument that looks like a target id (`KIND:…` with a known kind) is one.
    pub fn parse_id(arg: &str) -> Option<TargetArg> {
        let (kind, _) = arg.split_once(':')?;
        Target::id_prefixes()
            .any(|p| p == kind)
            .then(|| TargetArg::Id(arg.to_string()))
    }
}

/// Why a `kdelta render` argument names no target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResolveError {
    /// No target has this id.
    NoSuchId,
    /// A file, but no Argo CD manifest is defined in it.
    NotAManifest,
    /// Nothing is at that path in the snapshot.
    Missing,
}

/// Maps a `kdelta render` argument to targets: a target id, a kustomization or chart
/// directory, a directory of manifests, or a file holding Argo CD manifests.
pub fn resolve(
    snapshot: &dyn Snapshot,
    config: &Config,
    arg: &TargetArg,
    opts: &RenderOptions,
) -> Result<Vec<Target>, ResolveError> {
    let discovered = |keep: &dyn Fn(&Target) -> bool| -> Vec<Target> {
        discover(snapshot, config)
            .targets
            .into_iter()
            .filter(|t| keep(t))
            .collect()
    };
    let found = match arg {
        TargetArg::Id(id) => {
            let mut found = discovered(&|t| t.id() == *id);
            if found.is_empty() {
                // A target an ApplicationSet generates.
                let all = discover(snapshot, config).targets;
                found = expand(snapshot, all, opts, &ParseCache::default())
                    .targets
                    .into_iter()
                    .filter(|t| t.id() == *id)
                    .collect();
            }
            return if found.is_empty() {
                Err(ResolveError::NoSuchId)
            } else {
                Ok(found)
            };
        }
        TargetArg::Path(path) => match snapshot.kind(path) {
            EntryKind::Dir => return Ok(vec![crate::discover::target_at(snapshot, path.clone())]),
            EntryKind::File | EntryKind::Symlink => {
                let found = discovered(&|t| t.path() == path);
                if found.is_empty() {
                    // A manifest a generated target is written in (a Flux Kustomization that
                    // another applies).
                    let all = discover(snapshot, config).targets;
                    expand(snapshot, all, opts, &ParseCache::default())
                        .targets
                        .into_iter()
                        .filter(|t| t.path() == path)
                        .collect()
                } else {
                    found
                }
            }
            EntryKind::Missing => return Err(ResolveError::Missing),
        },
    };
    if found.is_empty() {
        Err(ResolveError::NotAManifest)
    } else {
        Ok(found)
    }
}
