//! The walk from a root Kustomization to a fixed point: each Kustomization built as its
//! parent applied it, what it applies collected — more Kustomizations, HelmReleases, the
//! sources and the ConfigMaps and Secrets that substitutions and values read. A Kustomization
//! is built once the objects its `substituteFrom` names are known, or when nothing else can
//! go on (they are then missing). The walk is memoized per root and set of inputs, so the
//! targets it makes share it.

use super::{Details, Kind, Options, Spec};
use crate::engine::EngineOutput;
use crate::finding::{rules, Finding, Incomplete};
use crate::resource::Resource;
use crate::source::{Files, RepoPath};
use crate::yaml::{self, Node, ParseOptions};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// How many Kustomizations one walk builds at most (a guard against a repository that
/// generates them without end).
const MAX_KUSTOMIZATIONS: usize = 5_000;

/// The objects a walk applied that other objects read, by kind, namespace and name.
#[derive(Default)]
pub struct Objects {
    by_id: HashMap<(String, String, String), Node>,
    /// The directory of this repository taken as the Flux operator's sync artifact, once a
    /// Kustomization of the walk found it (see [`sources::operator_artifact_path`]): what an
    /// ArtifactGenerator copies from that artifact is read there.
    pub operator_artifact: Option<RepoPath>,
}

impl Objects {
    pub fn get(&self, kind: &str, namespace: &str, name: &str) -> Option<&Node> {
        self.by_id
            .get(&(kind.to_string(), namespace.to_string(), name.to_string()))
    }

    /// The ArtifactGenerators of a namespace, in name order.
    pub fn generators<'a>(&'a self, namespace: &'a str) -> impl Iterator<Item = &'a Node> + 'a {
        let mut found: Vec<(&String, &Node)> = self
            .by_id
            .iter()
            .filter(|((kind, ns, _), _)| kind == "ArtifactGenerator" && ns == namespace)
            .map(|((_, _, name), node)| (name, node))
            .collect();
        found.sort_by(|a, b| a.0.cmp(b.0));
        found.into_iter().map(|(_, n)| n)
    }

    /// Keeps what others read: sources, ConfigMaps and Secrets (the first of one id wins,
    /// as the first Kustomization to apply an object owns it).
    fn add(&mut self, node: &Node, namespace: &str) {
        let kind = node.str_at(&["kind"]).unwrap_or_default();
        let api = node.str_at(&["apiVersion"]).unwrap_or_default();
        let read = match kind {
            "ConfigMap" | "Secret" => api == "v1",
            "GitRepository" | "OCIRepository" | "HelmRepository" | "HelmChart" | "Bucket" => {
                api.starts_with("source.toolkit.fluxcd.io/")
            }
            "ArtifactGenerator" => api.starts_with("source.extensions.fluxcd.io/"),
            _ => false,
        };
        let Some(name) = node.str_at(&["metadata", "name"]) else {
            return;
        };
        if read {
            self.by_id
                .entry((kind.to_string(), namespace.to_string(), name.to_string()))
                .or_insert_with(|| node.clone());
        }
    }
}

/// One Kustomization of the walk: the object as applied, and what building it gave.
pub struct Built {
    pub object: Resource,
    pub output: EngineOutput<Details>,
}

/// What a walk found.
#[derive(Default)]
pub struct Walked {
    pub kustomizations: BTreeMap<(String, String), Built>,
    /// Each HelmRelease as applied.
    pub helm_releases: BTreeMap<(String, String), Resource>,
    pub objects: Objects,
    /// What is wrong with the graph (an object applied twice).
    pub findings: Vec<Finding>,
    /// What is wrong with a HelmRelease's place in the graph (a `dependsOn` on nothing).
    pub release_findings: BTreeMap<(String, String), Vec<Finding>>,
}

impl Walked {
    /// Every Kustomization and HelmRelease of the graph, with the file it is written in.
    pub fn targets(&self) -> impl Iterator<Item = (Kind, String, String, RepoPath)> + '_ {
        let ks = self.kustomizations.iter().map(|((ns, n), b)| {
            (
                Kind::Kustomization,
                ns.clone(),
                n.clone(),
                b.object.origin.file.clone(),
            )
        });
        let hr = self.helm_releases.iter().map(|((ns, n), r)| {
            (
                Kind::HelmRelease,
                ns.clone(),
                n.clone(),
                r.origin.file.clone(),
            )
        });
        ks.chain(hr)
    }

    pub fn kustomization_output(&self, namespace: &str, name: &str) -> EngineOutput<Details> {
        match self
            .kustomizations
            .get(&(namespace.to_string(), name.to_string()))
        {
            Some(b) => b.output.clone(),
            None => EngineOutput::failed(vec![Finding::error(
                rules::FLUX_INVALID,
                format!("Kustomization {namespace}/{name} is no longer applied by this cluster's Kustomizations"),
            )]),
        }
    }

    pub fn helm_release(&self, namespace: &str, name: &str) -> Option<&Resource> {
        self.helm_releases
            .get(&(namespace.to_string(), name.to_string()))
    }
}

/// The walk from `root`, memoized.
pub fn walk(root: &Spec, files: &Files, opts: &Options) -> Arc<Walked> {
    let key = format!("flux-walk {root:?} {opts:?}");
    files.memoized(&key, |files| Arc::new(walk_uncached(root, files, opts)))
}

fn walk_uncached(root: &Spec, files: &Files, opts: &Options) -> Walked {
    let mut walked = Walked::default();
    let Spec::Root {
        file,
        namespace,
        name,
        ..
    } = root
    else {
        return walked;
    };
    let Some(object) = root_object(files, root, file, namespace, name) else {
        walked.findings.push(
            Finding::error(
                rules::FLUX_INVALID,
                format!("Kustomization {namespace}/{name} cannot be read"),
            )
            .in_file(file.to_string()),
        );
        return walked;
    };
    let mut pending: Vec<Resource> = vec![object];
    let mut seen: BTreeMap<(Kind, String, String), String> = BTreeMap::new();
    // Each object by who applies it first; a root applies itself (bootstrap's `flux-system`
    // builds the directory that holds it).
    seen.insert(
        (Kind::Kustomization, namespace.clone(), name.clone()),
        format!("{namespace}/{name}"),
    );
    while !pending.is_empty() && walked.kustomizations.len() < MAX_KUSTOMIZATIONS {
        let (ready, blocked): (Vec<Resource>, Vec<Resource>) = pending
            .into_iter()
            .partition(|ks| inputs_known(&ks.node, &walked.objects));
        let (ready, rest) = if ready.is_empty() {
            (blocked, Vec::new())
        } else {
            (ready, blocked)
        };
        pending = rest;
        // One after the other: a build writes Flux's kustomization into the shared file view
        // (`Files::with_replaced`), which another build must not see.
        let built: Vec<Built> = ready
            .into_iter()
            .map(|object| {
                let output = super::kustomization::build(&object, &walked.objects, files, opts);
                Built { object, output }
            })
            .collect();
        for b in built {
            if walked.objects.operator_artifact.is_none() {
                walked.objects.operator_artifact =
                    super::kustomization::operator_artifact(&b.object, &walked.objects, files)
                        .map(|(artifact, _)| artifact);
            }
            for r in &b.output.resources {
                let (ns, n) = namespaced(&r.node);
                walked.objects.add(&r.node, &ns);
                let Some(kind) = Kind::of(
                    r.node.str_at(&["apiVersion"]).unwrap_or_default(),
                    r.node.str_at(&["kind"]).unwrap_or_default(),
                ) else {
                    continue;
                };
                let mut applied = r.clone();
                if applied.node.str_at(&["metadata", "namespace"]).is_none() {
                    applied
                        .node
                        .map_at("metadata")
                        .set("namespace", Node::string(ns.clone()));
                }
                let by = {
                    let (ns, n) = namespaced(&b.object.node);
                    format!("{ns}/{n}")
                };
                let key = (ns.clone(), n.clone());
                if let Some(first) = seen.get(&(kind, ns.clone(), n.clone())) {
                    if kind == Kind::HelmRelease || *first != by {
                        walked.findings.push(
                            Finding::warning(
                                rules::FLUX_DUPLICATE,
                                format!(
                                    "{kind:?} {ns}/{n} is applied by Kustomization {first} and again by {by}; Flux lets the first own it"
                                ),
                            )
                            .at(r.origin.file.to_string(), r.origin.span.line, 0),
                        );
                    }
                    continue;
                }
                seen.insert((kind, ns.clone(), n.clone()), by);
                match kind {
                    Kind::Kustomization => pending.push(applied),
                    Kind::HelmRelease => {
                        walked.helm_releases.insert(key, applied);
                    }
                }
            }
            let key = namespaced(&b.object.node);
            walked.kustomizations.insert(key, b);
        }
    }
    if !pending.is_empty() {
        walked.findings.push(
            Finding::error(
                rules::FLUX_INVALID,
                format!(
                    "the Kustomizations of this cluster go on past {MAX_KUSTOMIZATIONS}; {} and what they apply are not rendered",
                    pending.len()
                ),
            )
            .in_file(file.to_string())
            .incomplete(Incomplete::Other),
        );
    }
    depends_on(&mut walked);
    walked
}

/// `dependsOn` entries naming an object of the same kind the walk did not apply: Flux never
/// reconciles what waits for them.
fn depends_on(walked: &mut Walked) {
    let ks: std::collections::BTreeSet<(String, String)> =
        walked.kustomizations.keys().cloned().collect();
    let hr: std::collections::BTreeSet<(String, String)> =
        walked.helm_releases.keys().cloned().collect();
    let missing = |object: &Resource, known: &std::collections::BTreeSet<(String, String)>| {
        let (namespace, name) = namespaced(&object.node);
        let kind = object
            .node
            .str_at(&["kind"])
            .unwrap_or_default()
            .to_string();
        object
            .node
            .get_path(&["spec", "dependsOn"])
            .and_then(Node::as_seq)
            .map(|deps| {
                deps.iter()
                    .filter_map(|d| {
                        let n = d.str_at(&["name"])?;
                        let ns = d.str_at(&["namespace"]).filter(|s| !s.is_empty()).unwrap_or(&namespace);
                        (!known.contains(&(ns.to_string(), n.to_string()))).then(|| {
                            let f = Finding::warning(
                                rules::FLUX_DEPENDS_ON,
                                format!("{kind} {namespace}/{name} depends on {kind} {ns}/{n}, which this cluster's Kustomizations do not apply: Flux never reconciles it"),
                            );
                            f.at(object.origin.file.to_string(), object.origin.span.line, 0)
                        })
                    })
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    };
    for built in walked.kustomizations.values_mut() {
        let found = missing(&built.object, &ks);
        built.output.findings.extend(found);
    }
    let hr_findings: Vec<((String, String), Vec<Finding>)> = walked
        .helm_releases
        .iter()
        .map(|(key, object)| (key.clone(), missing(object, &hr)))
        .filter(|(_, f)| !f.is_empty())
        .collect();
    walked.release_findings.extend(hr_findings);
}

/// An object's namespace (Flux applies one without a namespace in `default`) and name.
fn namespaced(node: &Node) -> (String, String) {
    (
        node.str_at(&["metadata", "namespace"])
            .filter(|n| !n.is_empty())
            .unwrap_or("default")
            .to_string(),
        node.str_at(&["metadata", "name"])
            .unwrap_or_default()
            .to_string(),
    )
}

/// True when every object a Kustomization's `substituteFrom` names is known.
fn inputs_known(ks: &Node, objects: &Objects) -> bool {
    let (namespace, _) = namespaced(ks);
    ks.get_path(&["spec", "postBuild", "substituteFrom"])
        .and_then(Node::as_seq)
        .map(|refs| {
            refs.iter().all(|r| {
                let kind = r.str_at(&["kind"]).unwrap_or("ConfigMap");
                let name = r.str_at(&["name"]).unwrap_or_default();
                objects.get(kind, &namespace, name).is_some()
            })
        })
        .unwrap_or(true)
}

/// The root Kustomization's document in its file.
fn root_object(
    files: &Files,
    root: &Spec,
    file: &crate::source::RepoPath,
    namespace: &str,
    name: &str,
) -> Option<Resource> {
    let docs = match files.kind(file) {
        crate::source::EntryKind::Dir => Vec::new(),
        _ => yaml::parse_stream(&files.read(file).ok()?, &ParseOptions::default()).ok()?,
    };
    let doc = docs
        .into_iter()
        .find(|d| {
            Kind::of(
                d.str_at(&["apiVersion"]).unwrap_or_default(),
                d.str_at(&["kind"]).unwrap_or_default(),
            ) == Some(Kind::Kustomization)
                && d.str_at(&["metadata", "name"]) == Some(name)
                && d.str_at(&["metadata", "namespace"]).unwrap_or("default") == namespace
        })
        .or_else(|| super::implied_object(root))?;
    let mut r = Resource::new(doc, file.clone());
    if r.node.str_at(&["metadata", "namespace"]).is_none() {
        r.node
            .map_at("metadata")
            .set("namespace", Node::string(namespace));
    }
    Some(r)
}
