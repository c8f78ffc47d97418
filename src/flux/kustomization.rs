//! One Flux Kustomization built as kustomize-controller builds it
//! (`internal/controller/kustomization_controller.go`, `fluxcd/pkg/kustomize`): the path's
//! kustomization, or the one the controller generates for a directory without one
//! (`kustomize_generator.go: scanManifests`); Flux's fields written into it
//! (`GenerateManifest`: `targetNamespace`, `namePrefix`, `nameSuffix`, `patches`, `images`,
//! `components`); the build with `LoadRestrictionsNone`; then, object by object,
//! `postBuild` substitution (`kustomize_varsub.go`), the owner labels
//! (`ssa.SetOwnerLabels`) and `commonMetadata`.

use super::graph::Objects;
use super::sources::{self, Artifact, Missing, Ref};
use super::{envsubst, Details, Options};
use crate::engine::EngineOutput;
use crate::finding::{rules, Finding, Incomplete};
use crate::kustomize::KUSTOMIZATION_FILES;
use crate::resource::Resource;
use crate::source::{EntryKind, Files, RepoPath};
use crate::yaml::{self, Node};
use std::collections::BTreeMap;

/// The label and annotation that opt an object out of substitution.
const SUBSTITUTE: &str = "kustomize.toolkit.fluxcd.io/substitute";

/// Builds the Kustomization `ks` (as its parent applied it).
pub fn build(
    ks: &Resource,
    objects: &Objects,
    files: &Files,
    opts: &Options,
) -> EngineOutput<Details> {
    let at = Place::of(ks);
    let node = &ks.node;
    let namespace = node.str_at(&["metadata", "namespace"]).unwrap_or("default");
    let name = node.str_at(&["metadata", "name"]).unwrap_or_default();
    let mut notes = Vec::new();
    if node
        .get_path(&["spec", "suspend"])
        .and_then(Node::as_scalar)
        .is_some_and(|s| s.text == "true")
    {
        notes.push(at.finding(Finding::notice(
            rules::FLUX_SUSPENDED,
            format!("Kustomization {namespace}/{name} is suspended: Flux applies none of this until it is resumed"),
        )));
    }
    let Some(source) = node
        .get_path(&["spec", "sourceRef"])
        .and_then(|r| Ref::at(r, "GitRepository", namespace))
    else {
        return EngineOutput::failed(vec![at.finding(Finding::error(
            rules::FLUX_INVALID,
            format!("Kustomization {namespace}/{name} has no spec.sourceRef"),
        ))]);
    };
    let path = node.str_at(&["spec", "path"]).unwrap_or_default();
    let (source, path) =
        sources::included(&source, objects, path).unwrap_or((source, path.to_string()));
    // The source's `spec.ignore`: more patterns for what source-controller leaves out.
    let source_ignore = objects
        .get(&source.kind, &source.namespace, &source.name)
        .and_then(|s| s.str_at(&["spec", "ignore"]));
    if let Some((_, dir)) = operator_artifact(ks, objects, files) {
        let mut out = build_in(node, dir.as_str(), files, source_ignore, &at);
        out.details.steps.insert(
            0,
            format!(
                "built from this repository's {}, taken as the Flux operator's {source} (not in the repository)",
                sources::shown_path(&dir)
            ),
        );
        return finish(out, node, objects, &at, notes);
    }
    let out = match sources::artifact(&source, objects, files, opts) {
        Ok(Artifact::Local) => build_in(node, &path, files, source_ignore, &at),
        Ok(Artifact::Remote { snapshot, shown }) => {
            let remote = files.sibling(&*snapshot);
            let mut out = build_in(node, &path, &remote, source_ignore, &at);
            for f in &mut out.findings {
                if f.file.is_some() && f.file.as_deref() != Some(at.file.as_str()) {
                    let place = f.location().unwrap_or_default();
                    f.message = format!("{shown}, {place}: {}", f.message);
                    f.file = Some(at.file.to_string());
                    f.line = (at.line > 0).then_some(at.line);
                    f.column = None;
                }
            }
            for r in &mut out.resources {
                r.origin.file = at.file.clone();
            }
            out.details.steps.insert(0, format!("built from {shown}"));
            out
        }
        Err(Missing::Incomplete(reason, why)) => EngineOutput::new(
            Vec::new(),
            vec![at.finding(super::sources::not_rendered(
                reason,
                format!("Kustomization {namespace}/{name}: {why}"),
            ))],
            true,
        ),
        Err(Missing::Invalid(why)) => EngineOutput::failed(vec![at.finding(Finding::error(
            rules::FLUX_INVALID,
            format!("Kustomization {namespace}/{name}: {why}"),
        ))]),
    };
    finish(out, node, objects, &at, notes)
}

/// For a Kustomization of the Flux operator's sync artifact
/// ([`sources::is_operator_artifact`]): the directory of this repository taken as the
/// artifact — the one the walk found first, else the one its file and path tell — and the
/// directory its path names there.
pub fn operator_artifact(
    ks: &Resource,
    objects: &Objects,
    files: &Files,
) -> Option<(RepoPath, RepoPath)> {
    let node = &ks.node;
    let namespace = node.str_at(&["metadata", "namespace"]).unwrap_or("default");
    let source = node
        .get_path(&["spec", "sourceRef"])
        .and_then(|r| Ref::at(r, "GitRepository", namespace))?;
    if !sources::is_operator_artifact(&source, objects) {
        return None;
    }
    let path = node.str_at(&["spec", "path"]).unwrap_or_default();
    let is_dir = |d: &RepoPath| files.kind(d) == EntryKind::Dir;
    if let Some(artifact) = &objects.operator_artifact {
        let rel = sources::clean_path(path)?;
        let dir = if rel.is_root() {
            artifact.clone()
        } else {
            artifact.join(rel.as_str()).ok()?
        };
        return Some((artifact.clone(), dir));
    }
    sources::operator_artifact_path(&source, &ks.origin.file, path, is_dir)
}

/// Post-build steps on a built Kustomization, and its notes first among its findings.
fn finish(
    mut out: EngineOutput<Details>,
    node: &Node,
    objects: &Objects,
    at: &Place,
    notes: Vec<Finding>,
) -> EngineOutput<Details> {
    if out.ok {
        post_build(node, objects, at, &mut out);
    }
    out.findings.splice(0..0, notes);
    out.complete = !out.findings.iter().any(|f| f.is_incomplete());
    out
}

/// Where the Kustomization object is written: its findings point there.
struct Place {
    file: RepoPath,
    line: u32,
}

impl Place {
    fn of(r: &Resource) -> Place {
        Place {
            file: r.origin.file.clone(),
            line: r.origin.span.line,
        }
    }

    fn finding(&self, f: Finding) -> Finding {
        f.at(self.file.to_string(), self.line, 0)
    }
}

/// The build of `raw_path` in the artifact `files` reads (less what `source_ignore` and the
/// `.sourceignore` files leave out): the kustomization found or generated, with Flux's fields
/// written into it.
fn build_in(
    ks: &Node,
    raw_path: &str,
    files: &Files,
    source_ignore: Option<&str>,
    at: &Place,
) -> EngineOutput<Details> {
    let Some(dir) = sources::clean_path(raw_path) else {
        return EngineOutput::failed(vec![at.finding(Finding::error(
            rules::FLUX_INVALID,
            format!("kustomization path not found: {raw_path:?} is not a path kdelta can read"),
        ))]);
    };
    let ignore = super::ignore::Ignore::load(files, &dir, source_ignore);
    let missing = if dir.is_root() {
        None
    } else if files.kind(&dir) != EntryKind::Dir {
        Some("no such directory")
    } else if ignore.excludes(&dir, true) {
        Some("the source's ignore patterns leave it out of the artifact")
    } else {
        None
    };
    if let Some(why) = missing {
        return EngineOutput::failed(vec![at.finding(Finding::error(
            rules::FLUX_INVALID,
            format!(
                "kustomization path not found: {}: {why}",
                sources::shown_path(&dir)
            ),
        ))]);
    }
    let mut steps = Vec::new();
    let existing = KUSTOMIZATION_FILES
        .iter()
        .map(|f| dir.child(f))
        .find(|f| files.kind(f) == EntryKind::File);
    let (file, mut k) = match &existing {
        Some(file) => {
            let parsed = files
                .read(file)
                .ok()
                .and_then(|b| yaml::parse_one(&b, &Default::default()).ok())
                .filter(Node::is_map);
            match parsed {
                Some(k) => (file.clone(), k),
                // The build says what is wrong with the file.
                None => return kustomize(files, &dir, None, steps),
            }
        }
        None => match generate(files, &ignore, &dir) {
            Ok((k, count)) => {
                steps.push(format!(
                    "generated a kustomization of the {count} manifests and kustomizations under {}",
                    sources::shown_path(&dir)
                ));
                (dir.child("kustomization.yaml"), k)
            }
            Err(f) => return EngineOutput::failed(vec![at.finding(f)]),
        },
    };
    let edited = match edit(&mut k, ks, files, &dir, &mut steps) {
        Ok(edited) => edited,
        Err(e) => {
            return EngineOutput::failed(vec![
                at.finding(Finding::error(rules::FLUX_INVALID, e.to_string()))
            ])
        }
    };
    if existing.is_some() && !edited {
        return kustomize(files, &dir, None, steps);
    }
    let text = yaml::emit::node_to_string(&k);
    kustomize(files, &dir, Some((file, text)), steps)
}

/// `kustomize build` of `dir` as Flux runs it, with the kustomization file replaced by
/// `replaced` when Flux wrote one.
fn kustomize(
    files: &Files,
    dir: &RepoPath,
    replaced: Option<(RepoPath, String)>,
    steps: Vec<String>,
) -> EngineOutput<Details> {
    let opts = crate::kustomize::Options {
        load_restrictor_none: true,
        ..Default::default()
    };
    let build = || crate::kustomize::build(files, dir, &opts);
    let out = match replaced {
        Some((file, text)) => files.with_replaced(&file, text.into_bytes().into(), build),
        None => build(),
    };
    out.map_details(|_| Details {
        steps,
        ..Default::default()
    })
}

/// The kustomization the controller writes for a directory without one: every `.yaml` and
/// `.yml` file below it, and every sub-directory holding a kustomization as one entry (not
/// descended into), in walk order; `namespace: _placeholder` when there is nothing.
fn generate(
    files: &Files,
    ignore: &super::ignore::Ignore,
    dir: &RepoPath,
) -> Result<(Node, usize), Finding> {
    let mut resources = Vec::new();
    scan(files, ignore, dir, dir, &mut resources)?;
    let mut k = Node::map();
    k.set(
        "apiVersion",
        Node::string("kustomize.config.k8s.io/v1beta1"),
    );
    k.set("kind", Node::string("Kustomization"));
    let count = resources.len();
    if resources.is_empty() {
        k.set("namespace", Node::string("_placeholder"));
    } else {
        let mut list = Node::seq();
        if let Some(items) = list.as_seq_mut() {
            items.extend(resources.into_iter().map(Node::string));
        }
        k.set("resources", list);
    }
    Ok((k, count))
}

/// The walk of `scanManifests`, over what the artifact holds (see [`super::ignore`]).
fn scan(
    files: &Files,
    ignore: &super::ignore::Ignore,
    root: &RepoPath,
    dir: &RepoPath,
    out: &mut Vec<String>,
) -> Result<(), Finding> {
    let entries = files
        .list(dir)
        .map_err(|e| crate::source::source_finding(&e, dir))?;
    for e in entries {
        let path = dir.child(&e.name);
        let rel = format!("./{}", path.relative_to(root));
        match e.kind {
            EntryKind::Dir => {
                if ignore.excludes(&path, true) {
                    continue;
                }
                let has_kustomization = KUSTOMIZATION_FILES
                    .iter()
                    .any(|f| files.kind(&path.child(f)) == EntryKind::File);
                if has_kustomization {
                    out.push(rel);
                } else {
                    scan(files, &ignore.enter(files, &path), root, &path, out)?;
                }
            }
            EntryKind::File => {
                let n = &e.name;
                if (n.ends_with(".yaml") || n.ends_with(".yml")) && !ignore.excludes(&path, false) {
                    out.push(rel);
                }
            }
            // Source-controller's artifact holds regular files only.
            _ => {}
        }
    }
    Ok(())
}

/// A Kustomization field Flux refuses to write into the kustomization, in its words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum EditError {
    /// A `components` entry that is absolute or a URL.
    #[error("component path '{path}' must be local and relative")]
    Component { path: String },
}

/// Writes Flux's fields into the kustomization `k` as `GenerateManifest` does. True when
/// anything was written.
fn edit(
    k: &mut Node,
    ks: &Node,
    files: &Files,
    dir: &RepoPath,
    steps: &mut Vec<String>,
) -> Result<bool, EditError> {
    let spec = |key: &str| ks.get_path(&["spec", key]);
    let text = |key: &str| ks.str_at(&["spec", key]).filter(|s| !s.is_empty());
    let mut edited = false;
    if let Some(ns) = text("targetNamespace") {
        k.set("namespace", Node::string(ns));
        steps.push(format!("targetNamespace: {ns}"));
        edited = true;
    }
    for key in ["namePrefix", "nameSuffix"] {
        if let Some(v) = text(key) {
            k.set(key, Node::string(v));
            steps.push(format!("{key}: {v}"));
            edited = true;
        }
    }
    // `patchesStrategicMerge` and `patchesJson6902` are v1beta2's, appended the same way.
    for key in ["patches", "patchesStrategicMerge", "patchesJson6902"] {
        let Some(patches) = spec(key).and_then(Node::as_seq).filter(|p| !p.is_empty()) else {
            continue;
        };
        let list = k.map_at(key);
        if !list.is_seq() {
            *list = Node::seq();
        }
        if let Some(items) = list.as_seq_mut() {
            items.extend(patches.iter().map(|p| as_kustomize_patch(key, p)));
        }
        steps.push(format!("{} {key} appended", patches.len()));
        edited = true;
    }
    if let Some(images) = spec("images")
        .and_then(Node::as_seq)
        .filter(|i| !i.is_empty())
    {
        merge_images(k, images);
        steps.push(format!("{} image override(s)", images.len()));
        edited = true;
    }
    if let Some(components) = spec("components")
        .and_then(Node::as_seq)
        .filter(|c| !c.is_empty())
    {
        let ignore_missing = ks
            .get_path(&["spec", "ignoreMissingComponents"])
            .and_then(Node::as_scalar)
            .is_some_and(|s| s.text == "true");
        let mut added = Vec::new();
        for c in components {
            let Some(path) = c.as_str() else { continue };
            if path.starts_with('/') || path.contains("://") {
                return Err(EditError::Component {
                    path: path.to_string(),
                });
            }
            let exists = dir
                .join(path)
                .is_ok_and(|p| files.kind(&p) != EntryKind::Missing);
            if ignore_missing && !exists {
                continue;
            }
            added.push(Node::string(path));
        }
        if !added.is_empty() {
            let list = k.map_at("components");
            if !list.is_seq() {
                *list = Node::seq();
            }
            steps.push(format!(
                "components: {}",
                added
                    .iter()
                    .filter_map(Node::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            if let Some(items) = list.as_seq_mut() {
                items.extend(added);
            }
            edited = true;
        }
    }
    Ok(edited)
}

/// A v1beta2 patch as `GenerateManifest` writes it into the kustomization: a strategic merge
/// patch object as its JSON text, a JSON 6902 patch's operations as their JSON text (kustomize
/// takes both as inline strings).
fn as_kustomize_patch(key: &str, patch: &Node) -> Node {
    let json = |n: &Node| {
        yaml::yaml_to_json(n)
            .map(|v| Node::string(v.to_string()))
            .unwrap_or_else(|_| n.clone())
    };
    match key {
        "patchesStrategicMerge" if patch.is_map() => json(patch),
        "patchesJson6902" => {
            let mut p = patch.clone();
            if let Some(ops) = patch.get("patch").filter(|o| o.is_seq()) {
                p.set("patch", json(ops));
            }
            p
        }
        _ => patch.clone(),
    }
}

/// `images` merged by name: a new name overrides, `newTag` and `digest` are replaced together
/// when either is set; an image of another name is appended.
fn merge_images(k: &mut Node, images: &[Node]) {
    let list = k.map_at("images");
    if !list.is_seq() {
        *list = Node::seq();
    }
    let Some(items) = list.as_seq_mut() else {
        return;
    };
    for image in images {
        let Some(name) = image.str_at(&["name"]) else {
            continue;
        };
        match items.iter_mut().find(|i| i.str_at(&["name"]) == Some(name)) {
            Some(existing) => {
                if let Some(n) = image.get("newName") {
                    existing.set("newName", n.clone());
                }
                if image.get("newTag").is_some() || image.get("digest").is_some() {
                    existing.remove("newTag");
                    existing.remove("digest");
                    for key in ["newTag", "digest"] {
                        if let Some(v) = image.get(key) {
                            existing.set(key, v.clone());
                        }
                    }
                }
            }
            None => items.push(image.clone()),
        }
    }
}

/// Substitution, owner labels and `commonMetadata`, on each object built.
fn post_build(ks: &Node, objects: &Objects, at: &Place, out: &mut EngineOutput<Details>) {
    let namespace = ks.str_at(&["metadata", "namespace"]).unwrap_or("default");
    let name = ks.str_at(&["metadata", "name"]).unwrap_or_default();
    sops_notice(ks, at, out);
    if let Some(post) = ks.get_path(&["spec", "postBuild"]).filter(|p| p.is_map()) {
        match variables(post, namespace, objects) {
            Ok(vars) => substitute_all(post, &vars, at, out),
            Err(f) => {
                out.findings.push(at.finding(f));
                if !out.findings.last().is_some_and(|f| f.is_incomplete()) {
                    out.ok = false;
                    out.resources.clear();
                    return;
                }
            }
        }
    }
    let common = ks.get_path(&["spec", "commonMetadata"]);
    for r in &mut out.resources {
        let meta = r.node.map_at("metadata");
        let labels = meta.map_at("labels");
        labels.set("kustomize.toolkit.fluxcd.io/name", Node::string(name));
        labels.set(
            "kustomize.toolkit.fluxcd.io/namespace",
            Node::string(namespace),
        );
        super::set_common_metadata(&mut r.node, common);
    }
}

/// SOPS-encrypted objects (a top-level `sops` mapping) are decrypted by the controller with
/// the cluster's keys (`spec.decryption`, `internal/decryptor`): kdelta keeps them as
/// written, and says so once.
fn sops_notice(ks: &Node, at: &Place, out: &mut EngineOutput<Details>) {
    let encrypted: Vec<String> = out
        .resources
        .iter()
        .filter(|r| r.node.get("sops").is_some_and(Node::is_map))
        .map(|r| format!("{} {}", r.kind(), r.name()))
        .collect();
    if encrypted.is_empty() {
        return;
    }
    let decrypts = ks.str_at(&["spec", "decryption", "provider"]) == Some("sops");
    out.findings.push(at.finding(Finding::notice(
        rules::FLUX_NOT_RENDERED,
        format!(
            "{} {} SOPS-encrypted; {}, so kdelta shows {} as written",
            encrypted.join(", "),
            if encrypted.len() == 1 { "is" } else { "are" },
            if decrypts {
                "the controller decrypts with the cluster's keys"
            } else {
                "spec.decryption is not set, so the controller applies the encrypted text (a Secret fails)"
            },
            if encrypted.len() == 1 { "it" } else { "them" },
        ),
    )));
}

/// The variables of `postBuild`: `substituteFrom` in order (later keys win), then
/// `substitute` over them; newlines removed from every value. Objects of the cluster that
/// the repository does not hold leave the variables they would give unknown.
struct Variables {
    values: BTreeMap<String, String>,
    /// Some `substituteFrom` object is not among what the cluster's Kustomizations apply.
    unknown: Vec<String>,
}

fn variables(post: &Node, namespace: &str, objects: &Objects) -> Result<Variables, Finding> {
    let mut values = BTreeMap::new();
    let mut unknown = Vec::new();
    for r in post
        .get("substituteFrom")
        .and_then(Node::as_seq)
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let kind = r.str_at(&["kind"]).unwrap_or("ConfigMap");
        let name = r.str_at(&["name"]).unwrap_or_default();
        let optional = r
            .get("optional")
            .and_then(Node::as_scalar)
            .is_some_and(|s| s.text == "true");
        match objects.get(kind, namespace, name) {
            Some(object) => {
                for (k, v) in super::object_data(object) {
                    values.insert(k, v);
                }
            }
            None if optional => {}
            None => unknown.push(format!("{kind} {namespace}/{name}")),
        }
    }
    if let Some(inline) = post.get("substitute").and_then(Node::as_map) {
        for (k, v) in inline {
            if let (Some(k), Some(v)) = (k.as_str(), v.as_scalar()) {
                values.insert(k.to_string(), v.text.clone());
            }
        }
    }
    for v in values.values_mut() {
        v.retain(|c| c != '\n');
    }
    if let Some(bad) = values.keys().find(|k| !envsubst::valid_name(k)) {
        return Err(Finding::error(
            rules::FLUX_SUBSTITUTE,
            format!(
                "'{bad}' var name is invalid, must match '^[_[:alpha:]][_[:alpha:][:digit:]]*$'"
            ),
        ));
    }
    Ok(Variables { values, unknown })
}

/// Substitutes every object that does not opt out, as text, then reads it back with
/// `YAMLToJSON`'s typing. Strict mode (the controller's default since v1.9): a variable
/// used without a default and defined nowhere fails the Kustomization — unless a
/// `substituteFrom` object is not in the repository, when it may define it: such variables
/// take their defaults or are left as written, and the output is incomplete.
fn substitute_all(post: &Node, vars: &Variables, at: &Place, out: &mut EngineOutput<Details>) {
    let always = post.str_at(&["substituteStrategy"]) == Some("Always");
    if vars.values.is_empty() && vars.unknown.is_empty() && !always {
        return;
    }
    let lenient = !vars.unknown.is_empty();
    if lenient {
        out.findings.push(at.finding(
            Finding::notice(
                rules::FLUX_NOT_RENDERED,
                format!(
                    "postBuild.substituteFrom names {} which no Kustomization of the repository applies; variables only {} would define are left as written",
                    vars.unknown.join(", "),
                    if vars.unknown.len() == 1 { "it" } else { "they" }
                ),
            )
            .incomplete(Incomplete::FluxOutside),
        ));
    }
    let lookup = |name: &str| vars.values.get(name).cloned();
    // A variable a missing source may define: its default where it has one (which Flux
    // takes unless that source defines it), else left as written.
    let unset = if lenient {
        envsubst::Unset::Kept
    } else {
        envsubst::Unset::Error
    };
    let mut used = std::collections::BTreeSet::new();
    for r in &mut out.resources {
        if opted_out(&r.node) {
            continue;
        }
        // The object as kustomize prints it (`res.AsYAML()`): the source's quoting is gone.
        let Ok(value) = yaml::to_value(&r.node, yaml::Dialect::Yaml12) else {
            continue;
        };
        let text = yaml::emit::to_string(&value);
        if !text.contains("${") && !text.contains("$$") {
            continue;
        }
        let substituted = match envsubst::substitute(&text, &lookup, unset) {
            Ok(s) => s,
            Err(e) => {
                let id = r.id();
                out.findings.push(at.finding(Finding::error(
                    rules::FLUX_SUBSTITUTE,
                    format!(
                        "var substitution failed for '{}': variable substitution failed: {e} ({} {})",
                        id.name, id.kind, id.name
                    ),
                ).with_help("define the variable in postBuild.substitute or a substituteFrom ConfigMap or Secret, give it a default (${VAR:=default}), or write $${VAR} for a literal ${VAR}")));
                out.ok = false;
                continue;
            }
        };
        for name in vars.values.keys() {
            if text.contains(&format!("${{{name}")) {
                used.insert(name.clone());
            }
        }
        if substituted == text {
            continue;
        }
        match reparse(&substituted) {
            Ok(node) => r.node = node,
            Err(e) => {
                let id = r.id();
                out.findings.push(at.finding(Finding::error(
                    rules::FLUX_SUBSTITUTE,
                    format!(
                        "{}/{}/{}: the substituted object is not valid YAML: {e}",
                        id.kind,
                        id.namespace_or_default(),
                        id.name
                    ),
                )));
                out.ok = false;
            }
        }
    }
    if !out.ok {
        out.resources.clear();
        return;
    }
    if !used.is_empty() {
        out.details.steps.push(format!(
            "substituted {}",
            used.iter()
                .map(|n| format!("${{{n}}}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
}

/// True when the object's label or annotation `kustomize.toolkit.fluxcd.io/substitute` is
/// `disabled`.
fn opted_out(node: &Node) -> bool {
    ["labels", "annotations"]
        .iter()
        .any(|k| node.str_at(&["metadata", k, SUBSTITUTE]) == Some("disabled"))
}

/// Why a substituted object does not read back.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum ReparseError {
    /// The text is not YAML.
    #[error(transparent)]
    Syntax(#[from] yaml::YamlError),
    /// The YAML has no JSON equivalent.
    #[error(transparent)]
    Json(#[from] yaml::YamlToJsonError),
}

/// The substituted text read back as `yaml.YAMLToJSON` reads it (go-yaml v2 typing).
fn reparse(text: &str) -> Result<Node, ReparseError> {
    let node = yaml::parse_one(text.as_bytes(), &Default::default())?;
    let json = yaml::yaml_to_json(&node)?;
    Ok(yaml::from_go_json(&json))
}
