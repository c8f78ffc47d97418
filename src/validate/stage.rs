//! The validation stage: every object a revision renders, checked against the Kubernetes API
//! schemas of the version validated for, for apiVersions that version removed or deprecates
//! (and the next one, for an upgrade check), and custom resources against the CRDs the same
//! revision renders. Findings name the object and field, at the file and line the object came
//! from; in a diff, [`classify`] marks each new, existing or fixed.

use super::schema::{
    lifecycle, ApiStatus, Catalog, Crd, CrdMatch, KubeVersion, Lookup, RuleProblemKind, Violation,
    ViolationKind,
};
use crate::finding::{rules, Baseline, Finding, Rule, Side};
use crate::render::{Rendered, Target};
use crate::resource::Resource;
use crate::source::RepoPath;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// What to validate against.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The Kubernetes version of the cluster: its schemas (or the newest bundled version not
    /// newer), and what it removed or deprecates.
    pub version: KubeVersion,
    /// An upgrade to check: what this version removes is a warning.
    pub next: Option<KubeVersion>,
    /// Other versions for some targets, the first that selects a target winning.
    pub overrides: Vec<VersionOverride>,
}

/// The version of the targets at some paths, or of the Applications deploying to a cluster:
/// a `kubernetes.overrides` entry with its version read.
#[derive(Clone, Debug)]
pub struct VersionOverride {
    pub entry: crate::config::KubernetesOverride,
    pub version: KubeVersion,
}

impl VersionOverride {
    fn selects(&self, path: &str, cluster: Option<(&str, &str)>) -> bool {
        self.entry.selects(path, cluster)
    }
}

impl Settings {
    /// The newest bundled version, no upgrade check.
    pub fn latest() -> Settings {
        Settings {
            version: Catalog::latest().version(),
            next: None,
            overrides: Vec::new(),
        }
    }
}

/// The schemas and settings a run validates with; shared by every thread.
pub struct Validator {
    settings: Settings,
    /// CRDs by the fingerprint of their document.
    crds: std::sync::Mutex<HashMap<u64, Arc<LazyCrd>>>,
    /// API lifecycles asked for, by apiVersion, kind and version.
    lifecycles: std::sync::Mutex<HashMap<String, ApiStatus>>,
}

/// A CRD as rendered, compiled on first use: most CRDs of a revision define kinds no object
/// of it uses.
pub struct LazyCrd {
    group: String,
    kind: String,
    /// A catalog schema's kind, which matches in any case.
    any_case: bool,
    /// The CRD object, and the first target that rendered it (where its own findings go).
    resource: Resource,
    target: String,
    defining: RepoPath,
    compiled: std::sync::OnceLock<Option<Crd>>,
}

impl LazyCrd {
    /// The problems of its CEL rules (rules that do not compile, functions kdelta lacks), at
    /// the CRD, once it was compiled for an object of its kind.
    fn rule_findings(&self) -> Vec<Finding> {
        let Some(Some(crd)) = self.compiled.get() else {
            return Vec::new();
        };
        let r = &self.resource;
        crd.rule_problems()
            .into_iter()
            .map(|p| {
                let rule = match p.kind {
                    RuleProblemKind::Invalid(_) => rules::SCHEMA_RULE,
                    RuleProblemKind::Unsupported(_) => rules::SCHEMA_RULE_SKIPPED,
                };
                let message = format!("{}: {p}", r.id());
                object_finding(rule, &self.target, &self.defining, r, message)
            })
            .collect()
    }

    /// What this CRD says of an object's apiVersion and kind (compiling it when the group
    /// and kind are its own).
    fn lookup(&self, api_version: &str, kind: &str) -> CrdMatch<'_> {
        let group = super::schema::split_api_version(api_version).0;
        let same_kind =
            kind == self.kind || (self.any_case && kind.eq_ignore_ascii_case(&self.kind));
        if group != self.group || !same_kind {
            return CrdMatch::Other;
        }
        match self
            .compiled
            .get_or_init(|| Crd::from_node(&self.resource.node).ok())
        {
            Some(crd) => crd.lookup(api_version, kind),
            None => CrdMatch::Other,
        }
    }
}

/// What one target's render gave: findings on its built-in objects, the CRDs it renders, its
/// custom resources (which wait for every CRD of the revision), and what it deploys if it is
/// an Application.
#[derive(Clone, Default)]
pub struct TargetCheck {
    /// The target's id (empty for the CRDs the configuration names), by which the checks of a
    /// revision are taken in order, whatever order the targets finished rendering in.
    target: String,
    findings: Vec<Finding>,
    crds: Vec<Arc<LazyCrd>>,
    /// The target, its defining file and its custom resources.
    pending: Option<(String, RepoPath, Vec<Resource>)>,
    /// What an Application target deploys, for the check across targets.
    deployed: Vec<super::deployed::Deployed>,
    /// What the target makes and its pod templates name, for the check across targets.
    references: super::references::References,
}

impl Validator {
    pub fn new(settings: Settings) -> Validator {
        Validator {
            settings,
            crds: Default::default(),
            lifecycles: Default::default(),
        }
    }

    /// The version the run validates for (without the overrides of some targets).
    pub fn version(&self) -> KubeVersion {
        self.settings.version
    }

    /// The schemas of `version`: its own, else the newest bundled version not newer, else
    /// (below the bundled range) the oldest.
    fn catalog(version: KubeVersion) -> &'static Catalog {
        Catalog::for_version(version).unwrap_or_else(|| {
            let oldest = super::schema::bundled_versions()[0];
            Catalog::bundled(oldest).unwrap_or_else(Catalog::latest)
        })
    }

    /// The Kubernetes version of a target: the first override that selects its path (and,
    /// for an Application, its destination cluster), else the run's.
    pub fn version_of(&self, path: &str, cluster: Option<(&str, &str)>) -> KubeVersion {
        self.settings
            .overrides
            .iter()
            .find(|o| o.selects(path, cluster))
            .map_or(self.settings.version, |o| o.version)
    }

    /// Checks what `target` rendered: its built-in objects now; its CRDs (compiled once per
    /// content for the run) and its custom resources kept for [`Revision::finish`].
    pub fn check(&self, target: &Target, rendered: &Rendered) -> TargetCheck {
        let id = target.id();
        let mut out = TargetCheck {
            target: id.clone(),
            ..TargetCheck::default()
        };
        let mut custom = Vec::new();
        let defining = &rendered.file;
        let cluster = super::deployed::destination(&id, rendered);
        let version = self.version_of(
            target.path().as_str(),
            cluster.as_ref().map(|(s, n)| (s.as_str(), n.as_str())),
        );
        let at = Versioned {
            catalog: Validator::catalog(version),
            version,
        };
        let target = id.as_str();
        let (encrypted, plain): (Vec<&Resource>, Vec<&Resource>) =
            rendered.resources.iter().partition(|r| sops_encrypted(r));
        if let Some(first) = encrypted.first() {
            out.findings.push(object_finding(
                rules::SCHEMA_NO_SCHEMA,
                target,
                defining,
                first,
                format!(
                    "{}: SOPS-encrypted (a top-level `sops` mapping, values `ENC[…]`): what is applied is the object decrypted (by Flux's kustomize-controller, KSOPS), so it is not validated ({} encrypted object{} in this target)",
                    first.id(),
                    encrypted.len(),
                    if encrypted.len() == 1 { "" } else { "s" }
                ),
            ));
        }
        for r in plain {
            if r.kind() == "CustomResourceDefinition" {
                if let Some(crd) = self.crd(target, defining, r) {
                    out.crds.push(crd);
                }
            }
            match check_builtin(self, &at, target, defining, r) {
                Some(found) => out.findings.extend(found),
                None => custom.push(r.clone()),
            }
        }
        if !custom.is_empty() {
            out.pending = Some((target.to_string(), defining.clone(), custom));
        }
        out.deployed = super::deployed::of_application(target, rendered);
        out.references = super::references::of_target(target, rendered);
        out.findings
            .extend(super::selectors::unmatched_services(target, rendered));
        out
    }

    /// [`lifecycle`], remembered: thousands of objects share a few apiVersions.
    fn lifecycle(&self, api_version: &str, kind: &str, version: KubeVersion) -> ApiStatus {
        let key = format!("{api_version}\0{kind}\0{version}");
        let cached = || self.lifecycles.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(hit) = cached().get(&key) {
            return hit.clone();
        }
        let status = lifecycle(api_version, kind, version);
        cached().insert(key, status.clone());
        status
    }

    /// The CRD `node` defines, kept once per content (kustomize overlays render the same
    /// large CRDs target after target) and compiled when a custom resource needs it.
    fn crd(&self, target: &str, defining: &RepoPath, r: &Resource) -> Option<Arc<LazyCrd>> {
        let node = &r.node;
        let key = fingerprint(node);
        let cached = || self.crds.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(hit) = cached().get(&key) {
            return Some(hit.clone());
        }
        let crd = Arc::new(LazyCrd {
            group: node.str_at(&["spec", "group"])?.to_string(),
            kind: node.str_at(&["spec", "names", "kind"])?.to_string(),
            any_case: node.str_at(&["metadata", "annotations", super::schema::CATALOG_ANNOTATION])
                == Some("true"),
            resource: r.clone(),
            target: target.to_string(),
            defining: defining.clone(),
            compiled: std::sync::OnceLock::new(),
        });
        cached().insert(key, crd.clone());
        Some(crd)
    }
}

/// One revision's validation, gathered target by target as they render.
#[derive(Default)]
pub struct Revision {
    checks: Vec<TargetCheck>,
}

impl Revision {
    /// Adds one target's check.
    pub fn add(&mut self, check: TargetCheck) {
        self.checks.push(check);
    }

    /// Adds the CRDs of `resources`, read from `file` (a CRD the configuration names).
    pub fn add_crds(&mut self, validator: &Validator, file: &RepoPath, resources: &[Resource]) {
        let crds = resources
            .iter()
            .filter(|r| r.kind() == "CustomResourceDefinition")
            .filter_map(|r| validator.crd(file.as_str(), file, r))
            .collect();
        self.checks.push(TargetCheck {
            crds,
            ..TargetCheck::default()
        });
    }

    /// Each CRD of the revision once, however many targets render it.
    fn crds(&self) -> Vec<Arc<LazyCrd>> {
        let mut seen = std::collections::HashSet::new();
        self.checks
            .iter()
            .flat_map(|c| c.crds.iter())
            .filter(|c| seen.insert(Arc::as_ptr(c)))
            .cloned()
            .collect()
    }

    /// The `(apiVersion, kind)` of the custom resources no CRD of the revision defines.
    pub fn kinds_without_crd(&self) -> BTreeSet<(String, String)> {
        let crds = self.crds();
        self.checks
            .iter()
            .filter_map(|c| c.pending.as_ref())
            .flat_map(|(_, _, resources)| resources)
            .filter_map(|r| {
                let api_version = r.node.str_at(&["apiVersion"]).unwrap_or_default();
                let kind = r.kind();
                crds.iter()
                    .all(|c| matches!(c.lookup(api_version, kind), CrdMatch::Other))
                    .then(|| (api_version.to_string(), kind.to_string()))
            })
            .collect()
    }

    /// The findings, custom resources checked against every CRD the revision rendered. A
    /// kind no CRD defines is one notice for the revision, at its first object, counting the
    /// objects and targets it leaves unchecked.
    pub fn finish(mut self) -> Vec<Finding> {
        // Targets finish rendering in any order; which object a notice names must not vary.
        self.checks.sort_by(|a, b| a.target.cmp(&b.target));
        let crds = self.crds();
        let mut findings = Vec::new();
        let mut unchecked: BTreeMap<(String, String), Unchecked> = BTreeMap::new();
        let mut deployed = Vec::new();
        let mut references = Vec::new();
        for check in self.checks {
            findings.extend(check.findings);
            deployed.extend(check.deployed);
            references.push(check.references);
            if let Some((target, defining, resources)) = check.pending {
                findings.extend(check_custom(
                    &crds,
                    &target,
                    &defining,
                    &resources,
                    &mut unchecked,
                ));
            }
        }
        for ((api_version, kind), u) in unchecked {
            let others = match (u.objects, u.targets.len()) {
                (1, _) => String::new(),
                (n, 1) => format!(" ({n} objects)"),
                (n, t) => format!(" ({n} objects in {t} targets)"),
            };
            let mut f = u.first;
            f.message = format!(
                "{}: no CRD rendered at this revision defines {kind} in {api_version}; objects of that kind are not validated{others}",
                f.message
            );
            findings.push(f);
        }
        for crd in &crds {
            findings.extend(crd.rule_findings());
        }
        findings.extend(super::deployed::duplicates(deployed));
        findings.extend(super::references::missing(references));
        findings
    }
}

/// Custom resources of a kind no CRD defines: the finding at the first, and how many.
struct Unchecked {
    first: Finding,
    objects: usize,
    targets: BTreeSet<String>,
}

/// The custom resources of one render against the revision's CRDs; those of a kind no CRD
/// defines are counted in `unchecked`.
fn check_custom(
    crds: &[Arc<LazyCrd>],
    target: &str,
    defining: &RepoPath,
    resources: &[Resource],
    unchecked: &mut BTreeMap<(String, String), Unchecked>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for r in resources {
        let api_version = r.node.str_at(&["apiVersion"]).unwrap_or_default();
        let kind = r.kind();
        let crd = crds
            .iter()
            .map(|c| c.lookup(api_version, kind))
            .find(|m| !matches!(m, CrdMatch::Other));
        match crd {
            Some(CrdMatch::Found(version)) => {
                let violations = super::schema::validate(version.root(), &r.node);
                out.extend(
                    violations
                        .iter()
                        .filter(|v| !placeholder(v))
                        .map(|v| violation_finding(target, defining, r, v)),
                );
            }
            Some(_) => out.push(object_finding(
                rules::SCHEMA_UNKNOWN_KIND,
                target,
                defining,
                r,
                format!(
                    "{}: the CRD of kind {kind} does not serve version {api_version}",
                    r.id()
                ),
            )),
            None => {
                let u = unchecked
                    .entry((api_version.to_string(), kind.to_string()))
                    .or_insert_with(|| Unchecked {
                        first: object_finding(
                            rules::SCHEMA_NO_SCHEMA,
                            target,
                            defining,
                            r,
                            r.id().to_string(),
                        ),
                        objects: 0,
                        targets: BTreeSet::new(),
                    });
                u.objects += 1;
                u.targets.insert(target.to_string());
            }
        }
    }
    out
}

/// The findings of a built-in object; `None` for a custom resource (not a Kubernetes API
/// group), which its CRD checks.
/// The version a target is validated for, with its schemas.
struct Versioned {
    catalog: &'static Catalog,
    version: KubeVersion,
}

fn check_builtin(
    validator: &Validator,
    at: &Versioned,
    target: &str,
    defining: &RepoPath,
    r: &Resource,
) -> Option<Vec<Finding>> {
    let (catalog, settings) = (at.catalog, &validator.settings);
    let api_version = r.node.str_at(&["apiVersion"]).unwrap_or_default();
    let kind = r.kind();
    if api_version.is_empty() || kind.is_empty() {
        // Not an object (the engines report documents without apiVersion or kind).
        return Some(Vec::new());
    }
    let mut out = Vec::new();
    let status = validator.lifecycle(api_version, kind, at.version);
    match &status {
        ApiStatus::Removed { since, replacement } => out.push(object_finding(
            rules::API_REMOVED,
            target,
            defining,
            r,
            format!(
                "{}: {api_version} {kind} is not served by Kubernetes {}: removed in {since}{}",
                r.id(),
                at.version,
                use_instead(replacement)
            ),
        )),
        ApiStatus::NotYetServed { from } => out.push(object_finding(
            rules::API_REMOVED,
            target,
            defining,
            r,
            format!(
                "{}: {api_version} {kind} is not served by Kubernetes {}: it is served from {from}",
                r.id(),
                at.version
            ),
        )),
        ApiStatus::Deprecated {
            since,
            removed_in,
            replacement,
        } => out.push(object_finding(
            rules::API_DEPRECATED,
            target,
            defining,
            r,
            format!(
                "{}: {api_version} {kind} is deprecated since Kubernetes {since}{}{}",
                r.id(),
                removed_in
                    .map(|v| format!(" and removed in {v}"))
                    .unwrap_or_default(),
                use_instead(replacement)
            ),
        )),
        ApiStatus::Served | ApiStatus::Unknown => {}
    }
    if let Some(next) = settings.next {
        if !matches!(
            status,
            ApiStatus::Removed { .. } | ApiStatus::NotYetServed { .. }
        ) {
            if let ApiStatus::Removed { since, replacement } =
                validator.lifecycle(api_version, kind, next)
            {
                out.push(object_finding(
                    rules::API_REMOVED_NEXT,
                    target,
                    defining,
                    r,
                    format!(
                        "{}: {api_version} {kind} is not served by Kubernetes {next}, the upgrade checked: removed in {since}{}",
                        r.id(),
                        use_instead(&replacement)
                    ),
                ));
            }
        }
    }
    match catalog.lookup(api_version, kind) {
        Lookup::Found(ty) => {
            let violations = super::schema::validate(ty, &r.node);
            out.extend(
                violations
                    .iter()
                    .filter(|v| !placeholder(v))
                    .map(|v| violation_finding(target, defining, r, v)),
            );
        }
        Lookup::UnknownKind => out.push(object_finding(
            rules::SCHEMA_UNKNOWN_KIND,
            target,
            defining,
            r,
            format!(
                "{}: Kubernetes {} has no kind {kind} in {api_version}",
                r.id(),
                catalog.version()
            ),
        )),
        // Said by the lifecycle above when Kubernetes knows the version at all.
        Lookup::UnknownApiVersion => {
            if matches!(status, ApiStatus::Unknown) {
                out.push(object_finding(
                    rules::SCHEMA_UNKNOWN_KIND,
                    target,
                    defining,
                    r,
                    format!(
                        "{}: Kubernetes {} does not serve {api_version}",
                        r.id(),
                        catalog.version()
                    ),
                ));
            }
        }
        Lookup::NotBuiltIn => return None,
    }
    Some(out)
}

fn use_instead(replacement: &Option<String>) -> String {
    replacement
        .as_ref()
        .map(|r| format!("; use {r}"))
        .unwrap_or_default()
}

/// True when the object is a SOPS-encrypted file's: a top-level `sops` mapping with its
/// message authentication code.
fn sops_encrypted(r: &Resource) -> bool {
    r.node.get("sops").is_some_and(|m| m.get("mac").is_some())
}

/// True when the value a violation is about is a secret placeholder that a plugin replaces
/// when Argo CD deploys (argocd-vault-plugin's `<path:…#key>`, argocd-secret-replacer's
/// `<secret:…>`): kdelta leaves them as written (with a notice), and what is deployed holds
/// the secret, not the placeholder.
fn placeholder(v: &Violation) -> bool {
    static PLACEHOLDER: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        // `<` and `>` as the API server's messages quote them (`\u003c`), or as written.
        regex::Regex::new(r#""(?:<|\\u003c)[A-Za-z][A-Za-z0-9_-]*:[^"]*(?:>|\\u003e)""#)
            .expect("a valid pattern")
    });
    PLACEHOLDER.is_match(&v.message)
}

/// A fingerprint of a node's content (keys, values, their order), for caching what is
/// derived from it.
fn fingerprint(node: &crate::yaml::Node) -> u64 {
    use crate::yaml::NodeKind;
    use std::hash::{Hash, Hasher};
    fn walk(n: &crate::yaml::Node, h: &mut crate::fxhash::FxHasher) {
        match &n.kind {
            NodeKind::Scalar(s) => {
                0u8.hash(h);
                s.text.hash(h);
            }
            NodeKind::Seq(items) => {
                1u8.hash(h);
                items.len().hash(h);
                items.iter().for_each(|i| walk(i, h));
            }
            NodeKind::Map(entries) => {
                2u8.hash(h);
                entries.len().hash(h);
                for (k, v) in entries {
                    walk(k, h);
                    walk(v, h);
                }
            }
            #[allow(unreachable_patterns)]
            _ => 3u8.hash(h),
        }
    }
    let mut h = crate::fxhash::FxHasher::default();
    walk(node, &mut h);
    h.finish()
}

/// The rule of a schema violation.
fn violation_rule(kind: ViolationKind) -> Rule {
    match kind {
        ViolationKind::UnknownField => rules::SCHEMA_UNKNOWN_FIELD,
        ViolationKind::WrongType => rules::SCHEMA_TYPE,
        ViolationKind::Required => rules::SCHEMA_REQUIRED,
        ViolationKind::Enum
        | ViolationKind::Format
        | ViolationKind::Range
        | ViolationKind::Pattern
        | ViolationKind::Junctor => rules::SCHEMA_VALUE,
        ViolationKind::Duplicate | ViolationKind::DuplicateKey => rules::SCHEMA_DUPLICATE,
        ViolationKind::Meta => rules::SCHEMA_METADATA,
        ViolationKind::Rule => rules::SCHEMA_RULE,
    }
}

fn violation_finding(target: &str, defining: &RepoPath, r: &Resource, v: &Violation) -> Finding {
    let f = object_finding(
        violation_rule(v.kind),
        target,
        defining,
        r,
        format!("{}: {}", r.id(), v.message),
    );
    // The field's own line, in the file it was read from.
    match r.field_location(v.span) {
        Some((file, line, column)) => f.at(file, line, column),
        None => f,
    }
}

/// A finding about object `r` of `target`: at the object in its file when the node was read
/// from it, else at that file (a Helm template), else at the target's defining file.
fn object_finding(
    rule: Rule,
    target: &str,
    defining: &RepoPath,
    r: &Resource,
    message: String,
) -> Finding {
    let f = Finding::new(rule.severity, rule, message).for_target(target);
    let file = r.origin.file.to_string();
    if file.is_empty() {
        return f.in_file(defining.to_string());
    }
    if r.read_from_file() {
        return f.at(file, r.origin.span.line, r.origin.span.column);
    }
    f.in_file(file)
}

/// Gives a line to the findings at a Helm template that have none (renders without positions:
/// a kustomization's `helmCharts`, an Argo CD Helm source; the Helm engine places fields
/// itself): the one line of the template that writes the field's key (`containerPort:`), when
/// exactly one does. `read` gives a file's text at the revision.
pub fn locate_in_templates(findings: &mut [Finding], read: &dyn Fn(&str) -> Option<String>) {
    let mut texts: HashMap<String, Option<String>> = HashMap::new();
    for f in findings.iter_mut() {
        let Some(file) = f.file.clone() else { continue };
        if f.line.is_some() || !file.contains("/templates/") || !f.rule.id.starts_with("schema.") {
            continue;
        }
        let Some(key) = field_key(&f.message) else {
            continue;
        };
        let text = texts.entry(file.clone()).or_insert_with(|| read(&file));
        let Some(text) = text else { continue };
        let mut lines = text.lines().enumerate().filter(|(_, l)| writes_key(l, key));
        if let (Some((i, line)), None) = (lines.next(), lines.next()) {
            let column = line.len() - line.trim_start_matches([' ', '-']).len() + 1;
            *f = f.clone().at(file, i as u32 + 1, column as u32);
        }
    }
}

/// The last field name of a violation's path (`spec.ports[0].targetPort` → `targetPort`):
/// the message is `OBJECT: PATH: what is wrong`.
fn field_key(message: &str) -> Option<&str> {
    let path = message.split(": ").nth(1)?;
    let last = path.rsplit('.').next()?;
    let name = last.split('[').next()?;
    (!name.is_empty()).then_some(name)
}

/// True when a template line writes mapping key `key` (`  key:`, `- key:`).
fn writes_key(line: &str, key: &str) -> bool {
    let rest = line.trim_start_matches([' ', '-']);
    let plain = rest.strip_prefix(key).is_some_and(|r| r.starts_with(':'));
    let quoted = rest
        .strip_prefix('"')
        .and_then(|r| r.strip_prefix(key))
        .is_some_and(|r| r.starts_with("\":"));
    plain || quoted
}

/// What identifies a validation finding between revisions: its target, rule and message
/// (which names the object and field), not its line; for `schema.no-schema`, the kind.
fn key(f: &Finding) -> (Option<String>, &'static str, String) {
    // A revision's one notice per unchecked kind: the kind, whichever object and count.
    if f.rule == rules::SCHEMA_NO_SCHEMA {
        let kind = f
            .message
            .split_once(" defines ")
            .and_then(|(_, rest)| rest.split_once(';'))
            .map_or(f.message.as_str(), |(kind, _)| kind);
        return (None, f.rule.id, kind.to_string());
    }
    (f.target.clone(), f.rule.id, f.message.clone())
}

/// Marks the findings of a diff: head's are new or existing (the same target, rule, object
/// and field at base); base's that head does not have are fixed (shown as of the base
/// revision). Only new errors fail the run.
pub fn classify(base: Vec<Finding>, head: Vec<Finding>) -> Vec<Finding> {
    let mut at_base: HashMap<_, usize> = HashMap::new();
    for f in &base {
        *at_base.entry(key(f)).or_default() += 1;
    }
    let mut at_head: HashMap<_, usize> = HashMap::new();
    for f in &head {
        *at_head.entry(key(f)).or_default() += 1;
    }
    let mut out = Vec::new();
    let mut seen: HashMap<_, usize> = HashMap::new();
    for mut f in head {
        let k = key(&f);
        let n = seen.entry(k.clone()).or_default();
        *n += 1;
        let existing = *n <= at_base.get(&k).copied().unwrap_or(0);
        f.baseline = Some(if existing {
            Baseline::Existing
        } else {
            Baseline::New
        });
        f.revision = Some(Side::Head);
        out.push(f);
    }
    let mut seen: HashMap<_, usize> = HashMap::new();
    for mut f in base {
        let k = key(&f);
        let n = seen.entry(k.clone()).or_default();
        *n += 1;
        if *n > at_head.get(&k).copied().unwrap_or(0) {
            f.baseline = Some(Baseline::Fixed);
            f.revision = Some(Side::Base);
            out.push(f);
        }
    }
    out
}

/// Findings in a stable order: by target, file, line, rule and message.
pub fn sort(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        (&a.target, &a.file, a.line, a.rule.id, &a.message)
            .cmp(&(&b.target, &b.file, b.line, b.rule.id, &b.message))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::schema::ViolationKind;

    fn violation(message: &str) -> Violation {
        Violation {
            path: "data[k]".into(),
            span: crate::yaml::Span::new(1, 1),
            kind: ViolationKind::Format,
            message: message.into(),
        }
    }

    #[test]
    fn secret_placeholders_are_no_violations() {
        for (message, is) in [
            (
                r#"data[k]: Invalid value: "\u003csecret:token|base64\u003e": not base64"#,
                true,
            ),
            (
                r#"spec.replicas: expected integer, got string "<path:kv/data/app#replicas>""#,
                true,
            ),
            (r#"data[k]: Invalid value: "c2VjcmV0!": not base64"#, false),
            (r#"spec.x: expected integer, got string "<nope>""#, false),
        ] {
            assert_eq!(placeholder(&violation(message)), is, "{message}");
        }
    }

    fn finding(target: &str, message: &str) -> Finding {
        Finding::error(rules::SCHEMA_TYPE, message)
            .for_target(target)
            .at("a.yaml", 3, 1)
    }

    #[test]
    fn an_unchecked_kind_is_the_same_notice_whatever_its_count() {
        let notice = |target: &str, message: &str| {
            Finding::notice(rules::SCHEMA_NO_SCHEMA, message).for_target(target)
        };
        let base = vec![notice("a", "x.io/v1/W/_/one: no CRD rendered at this revision defines W in x.io/v1; not validated (2 objects)")];
        let head = vec![notice(
            "b",
            "x.io/v1/W/_/two: no CRD rendered at this revision defines W in x.io/v1; not validated",
        )];
        let out = classify(base, head);
        assert_eq!(out.len(), 1, "{out:#?}");
        assert_eq!(out[0].baseline, Some(Baseline::Existing));
    }

    #[test]
    fn a_diff_marks_findings_new_existing_and_fixed_counting_repeats() {
        let base = vec![
            finding("t", "a: old"),
            finding("t", "b: twice"),
            finding("t", "c: fixed"),
        ];
        let head = vec![
            finding("t", "a: old"),
            finding("t", "b: twice"),
            finding("t", "b: twice"),
            finding("u", "a: old"),
        ];
        let out: Vec<(String, String, Baseline)> = classify(base, head)
            .into_iter()
            .map(|f| (f.target.unwrap(), f.message, f.baseline.unwrap()))
            .collect();
        let at = |t: &str, m: &str, b: Baseline| (t.to_string(), m.to_string(), b);
        assert_eq!(
            out,
            vec![
                at("t", "a: old", Baseline::Existing),
                at("t", "b: twice", Baseline::Existing),
                at("t", "b: twice", Baseline::New),
                at("u", "a: old", Baseline::New),
                at("t", "c: fixed", Baseline::Fixed),
            ]
        );
    }

    /// A target's check holding one custom resource of a kind no CRD defines.
    fn check_of(target: &str, file: &str) -> TargetCheck {
        let node = crate::yaml::parse_one(
            b"apiVersion: x.io/v1\nkind: W\nmetadata:\n  name: w\n",
            &Default::default(),
        )
        .unwrap();
        let file = RepoPath::new(file).unwrap();
        TargetCheck {
            target: target.to_string(),
            pending: Some((
                target.to_string(),
                file.clone(),
                vec![Resource::new(node, file)],
            )),
            ..TargetCheck::default()
        }
    }

    #[test]
    fn an_unchecked_kind_is_named_at_the_same_object_whatever_order_targets_finished_in() {
        let first_file = |order: [(&str, &str); 2]| {
            let mut revision = Revision::default();
            for (target, file) in order {
                revision.add(check_of(target, file));
            }
            let findings = revision.finish();
            assert_eq!(findings.len(), 1, "{findings:?}");
            findings[0].file.clone()
        };
        let a = ("kustomize:a", "a/w.yaml");
        let b = ("kustomize:b", "b/w.yaml");
        assert_eq!(first_file([a, b]), Some("a/w.yaml".to_string()));
        assert_eq!(first_file([b, a]), Some("a/w.yaml".to_string()));
    }
}
