//! References nothing renders: a pod template naming a ServiceAccount, ConfigMap, Secret or
//! PersistentVolumeClaim that no target of the revision makes in its namespace. The pods
//! then never start (`CreateContainerConfigError`, `FailedMount`, a ServiceAccount "not
//! found" from the ReplicaSet controller). What makes an object counts as well as the object:
//! an ExternalSecret, a SealedSecret, a cert-manager Certificate or a OnePasswordItem makes
//! its Secret. What the cluster always has is never missing: the `default` ServiceAccount and the
//! `kube-root-ca.crt` ConfigMap of every namespace. References marked `optional: true` are
//! not checked, nor are references of a revision some of whose targets are incomplete in the
//! same namespace (what they lack may be the object).
//!
//! An object's explicit `metadata.namespace` refers to a Namespace too (the API server refuses
//! the object until it exists). Namespaces are made by Namespace objects, by an Argo CD
//! Application's `CreateNamespace=true` and by a Flux HelmRelease's `install.createNamespace`.
//! They are checked only in a revision that makes some namespace that way: a repository that
//! makes none leaves namespaces to whoever runs it, and every object would be reported.

use crate::finding::{rules, Finding};
use crate::render::Rendered;
use crate::resource::Resource;
use crate::yaml::Node;
use std::collections::{BTreeSet, HashSet};

/// The kinds a pod template refers to by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    ServiceAccount,
    ConfigMap,
    Secret,
    PersistentVolumeClaim,
    /// Keyed with an empty namespace: Namespaces are cluster-scoped.
    Namespace,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::ServiceAccount => "ServiceAccount",
            Kind::ConfigMap => "ConfigMap",
            Kind::Secret => "Secret",
            Kind::PersistentVolumeClaim => "PersistentVolumeClaim",
            Kind::Namespace => "Namespace",
        }
    }

    fn of(kind: &str) -> Option<Kind> {
        Some(match kind {
            "ServiceAccount" => Kind::ServiceAccount,
            "ConfigMap" => Kind::ConfigMap,
            "Secret" => Kind::Secret,
            "PersistentVolumeClaim" => Kind::PersistentVolumeClaim,
            _ => return None,
        })
    }
}

/// An object of one of those kinds, by namespace and name.
type Key = (Kind, String, String);

/// The namespaces every cluster has.
const BUILTIN_NAMESPACES: [&str; 4] = ["default", "kube-system", "kube-public", "kube-node-lease"];

/// What one target makes and what its pod templates name.
#[derive(Clone, Debug, Default)]
pub struct References {
    made: Vec<Key>,
    wanted: Vec<Wanted>,
    /// The namespaces of an incomplete target's objects.
    incomplete: Vec<String>,
}

/// One reference, with the finding it would be.
#[derive(Clone, Debug)]
struct Wanted {
    key: Key,
    finding: Finding,
}

/// The references of one target's render.
pub fn of_target(target: &str, rendered: &Rendered) -> References {
    let mut out = References::default();
    let mut namespaces_named = HashSet::new();
    for r in &rendered.resources {
        let namespace = r.id().namespace_or_default().to_string();
        if !rendered.complete {
            out.incomplete.push(namespace.clone());
        }
        made_by(r, &namespace, &mut out.made);
        if let Some((spec, path)) = pod_spec(r) {
            wanted_by(target, r, spec, &path, &namespace, &mut out.wanted);
        }
        namespace_wanted_by(target, r, &mut namespaces_named, &mut out.wanted);
    }
    out
}

/// The Namespace `r`'s explicit `metadata.namespace` names, once per target (at its first
/// object there: `named` holds the namespaces the target's earlier objects named).
fn namespace_wanted_by(
    target: &str,
    r: &Resource,
    named: &mut HashSet<String>,
    out: &mut Vec<Wanted>,
) {
    let Some(at) = r.node.get_path(&["metadata", "namespace"]) else {
        return;
    };
    // Argo CD's own objects are in its namespace, which exists wherever it reads them.
    let api_version = r.node.str_at(&["apiVersion"]).unwrap_or_default();
    if api_version.starts_with("argoproj.io/") {
        return;
    }
    let Some(name) = at.as_str().filter(|n| {
        !n.is_empty() && !n.contains("${") && !n.contains("{{") && !BUILTIN_NAMESPACES.contains(n)
    }) else {
        return;
    };
    if !named.insert(name.to_string()) {
        return;
    }
    let key = (Kind::Namespace, String::new(), name.to_string());
    let message = format!(
        "{}: metadata.namespace names Namespace {name}, which no target of this revision renders or creates",
        r.id()
    );
    let f = Finding::warning(rules::REFERENCE_MISSING, message)
        .for_target(target)
        .with_help("render the Namespace in the repository, or let what deploys the object create it (`CreateNamespace=true` in an Argo CD Application's syncOptions, `install.createNamespace` in a Flux HelmRelease)");
    out.push(Wanted {
        key,
        finding: located(f, r, at),
    });
}

/// `f` at `at` when the node was read from a file with lines, else in `r`'s file.
fn located(f: Finding, r: &Resource, at: &Node) -> Finding {
    match r.field_location(at.span) {
        Some((file, line, column)) => f.at(file, line, column),
        None => f.in_file(r.origin.file.to_string()),
    }
}

/// The findings of a revision: each reference nothing of the revision makes.
pub fn missing(all: Vec<References>) -> Vec<Finding> {
    let made: HashSet<Key> = all.iter().flat_map(|r| r.made.iter().cloned()).collect();
    let makes_namespaces = made.iter().any(|k| k.0 == Kind::Namespace);
    let incomplete: BTreeSet<String> = all
        .iter()
        .flat_map(|r| r.incomplete.iter().cloned())
        .collect();
    let mut seen = HashSet::new();
    all.into_iter()
        .flat_map(|r| r.wanted)
        .filter(|w| {
            let (kind, namespace, name) = &w.key;
            let in_namespace = if *kind == Kind::Namespace {
                name
            } else {
                namespace
            };
            !made.contains(&w.key)
                && !incomplete.contains(in_namespace)
                && (*kind != Kind::Namespace || makes_namespaces)
        })
        .filter(|w| {
            seen.insert((
                w.finding.target.clone(),
                w.finding.file.clone(),
                w.finding.line,
                w.key.clone(),
            ))
        })
        .map(|w| w.finding)
        .collect()
}

/// What `r` makes: itself, or the Secret, claims or Namespace it makes.
fn made_by(r: &Resource, namespace: &str, out: &mut Vec<Key>) {
    let api_version = r.node.str_at(&["apiVersion"]).unwrap_or_default();
    if (api_version, r.kind()) == ("v1", "Namespace") {
        out.push((Kind::Namespace, String::new(), r.name().to_string()));
        return;
    }
    if let Some(created) = created_namespace(r) {
        out.push((Kind::Namespace, String::new(), created));
    }
    if let Some(kind) = Kind::of(r.kind()) {
        if r.node.str_at(&["apiVersion"]) == Some("v1") {
            out.push((kind, namespace.to_string(), r.name().to_string()));
        }
        return;
    }
    let group = r
        .node
        .str_at(&["apiVersion"])
        .unwrap_or_default()
        .split('/')
        .next()
        .unwrap_or_default();
    let secret = |n: &str| (Kind::Secret, namespace.to_string(), n.to_string());
    match (group, r.kind()) {
        // external-secrets: `spec.target.name`, defaulting to the ExternalSecret's name.
        ("external-secrets.io", "ExternalSecret") => out.push(secret(
            r.node
                .str_at(&["spec", "target", "name"])
                .unwrap_or(r.name()),
        )),
        // bitnami sealed-secrets: the Secret of the SealedSecret's own name.
        ("bitnami.com", "SealedSecret") => out.push(secret(r.name())),
        // cert-manager: the Certificate's `spec.secretName`.
        ("cert-manager.io", "Certificate") => {
            if let Some(s) = r.node.str_at(&["spec", "secretName"]) {
                out.push(secret(s));
            }
        }
        // onepassword-operator, 1Password Connect: the item's own name.
        ("onepassword.com", "OnePasswordItem") => out.push(secret(r.name())),
        _ => {}
    }
}

/// The namespace an Argo CD Application (`CreateNamespace=true`) or a Flux HelmRelease
/// (`install.createNamespace`) creates where it deploys.
fn created_namespace(r: &Resource) -> Option<String> {
    let group = r.node.str_at(&["apiVersion"])?.split('/').next()?;
    match (group, r.kind()) {
        ("argoproj.io", "Application") => {
            let creates = seq(r.node.get_path(&["spec", "syncPolicy", "syncOptions"]))
                .iter()
                .any(|o| o.as_str() == Some("CreateNamespace=true"));
            creates
                .then(|| r.node.str_at(&["spec", "destination", "namespace"]))
                .flatten()
                .map(str::to_string)
        }
        ("helm.toolkit.fluxcd.io", "HelmRelease") => {
            let creates = r
                .node
                .get_path(&["spec", "install", "createNamespace"])
                .and_then(Node::as_scalar)
                .is_some_and(|s| s.text == "true");
            let ns = r
                .node
                .str_at(&["spec", "targetNamespace"])
                .or_else(|| r.node.str_at(&["metadata", "namespace"]));
            creates.then_some(ns).flatten().map(str::to_string)
        }
        _ => None,
    }
}

/// A workload's pod spec and the path to it.
fn pod_spec(r: &Resource) -> Option<(&Node, Vec<&'static str>)> {
    let path: &[&'static str] = match r.kind() {
        "Pod" => &["spec"],
        "Deployment"
        | "StatefulSet"
        | "DaemonSet"
        | "ReplicaSet"
        | "Job"
        | "ReplicationController" => &["spec", "template", "spec"],
        "CronJob" => &["spec", "jobTemplate", "spec", "template", "spec"],
        _ => return None,
    };
    let api = r.node.str_at(&["apiVersion"]).unwrap_or_default();
    if !(api == "v1" || api.starts_with("apps/") || api.starts_with("batch/")) {
        return None;
    }
    Some((r.node.get_path(path)?, path.to_vec()))
}

fn wanted_by(
    target: &str,
    r: &Resource,
    spec: &Node,
    path: &[&str],
    namespace: &str,
    out: &mut Vec<Wanted>,
) {
    let mut want = |kind: Kind, name: Option<&str>, at: &Node, field: String| {
        let Some(name) = name.filter(|n| !n.is_empty() && !n.contains("${") && !n.contains("{{"))
        else {
            return;
        };
        if (kind, name) == (Kind::ServiceAccount, "default")
            || (kind, name) == (Kind::ConfigMap, "kube-root-ca.crt")
        {
            return;
        }
        let message = format!(
            "{}: {}.{field} names {} {namespace}/{name}, which no target of this revision renders",
            r.id(),
            path.join("."),
            kind.as_str()
        );
        let f = Finding::warning(rules::REFERENCE_MISSING, message)
            .for_target(target)
            .with_help("render it in the repository (or what makes it: an ExternalSecret, a SealedSecret, a cert-manager Certificate), mark the reference optional, or turn the rule off for this path in .kdelta.yaml's rules");
        out.push(Wanted {
            key: (kind, namespace.to_string(), name.to_string()),
            finding: located(f, r, at),
        });
    };
    let optional = |n: &Node| {
        n.get("optional")
            .and_then(Node::as_scalar)
            .is_some_and(|s| s.text == "true")
    };
    for key in ["serviceAccountName", "serviceAccount"] {
        if let Some(n) = spec.get(key) {
            want(Kind::ServiceAccount, n.as_str(), n, key.to_string());
            break;
        }
    }
    for (i, s) in seq(spec.get("imagePullSecrets")).iter().enumerate() {
        want(
            Kind::Secret,
            s.str_at(&["name"]),
            s,
            format!("imagePullSecrets[{i}].name"),
        );
    }
    for (i, v) in seq(spec.get("volumes")).iter().enumerate() {
        if let Some(c) = v.get("configMap").filter(|c| !optional(c)) {
            want(
                Kind::ConfigMap,
                c.str_at(&["name"]),
                c,
                format!("volumes[{i}].configMap.name"),
            );
        }
        if let Some(s) = v.get("secret").filter(|s| !optional(s)) {
            want(
                Kind::Secret,
                s.str_at(&["secretName"]),
                s,
                format!("volumes[{i}].secret.secretName"),
            );
        }
        if let Some(c) = v.get("persistentVolumeClaim") {
            want(
                Kind::PersistentVolumeClaim,
                c.str_at(&["claimName"]),
                c,
                format!("volumes[{i}].persistentVolumeClaim.claimName"),
            );
        }
        for (j, p) in seq(v.get_path(&["projected", "sources"]))
            .iter()
            .enumerate()
        {
            if let Some(c) = p.get("configMap").filter(|c| !optional(c)) {
                want(
                    Kind::ConfigMap,
                    c.str_at(&["name"]),
                    c,
                    format!("volumes[{i}].projected.sources[{j}].configMap.name"),
                );
            }
            if let Some(s) = p.get("secret").filter(|s| !optional(s)) {
                want(
                    Kind::Secret,
                    s.str_at(&["name"]),
                    s,
                    format!("volumes[{i}].projected.sources[{j}].secret.name"),
                );
            }
        }
    }
    for list in ["initContainers", "containers"] {
        for (i, c) in seq(spec.get(list)).iter().enumerate() {
            for (j, e) in seq(c.get("envFrom")).iter().enumerate() {
                if let Some(m) = e.get("configMapRef").filter(|m| !optional(m)) {
                    want(
                        Kind::ConfigMap,
                        m.str_at(&["name"]),
                        m,
                        format!("{list}[{i}].envFrom[{j}].configMapRef.name"),
                    );
                }
                if let Some(s) = e.get("secretRef").filter(|s| !optional(s)) {
                    want(
                        Kind::Secret,
                        s.str_at(&["name"]),
                        s,
                        format!("{list}[{i}].envFrom[{j}].secretRef.name"),
                    );
                }
            }
            for (j, e) in seq(c.get("env")).iter().enumerate() {
                if let Some(m) = e
                    .get_path(&["valueFrom", "configMapKeyRef"])
                    .filter(|m| !optional(m))
                {
                    want(
                        Kind::ConfigMap,
                        m.str_at(&["name"]),
                        m,
                        format!("{list}[{i}].env[{j}].valueFrom.configMapKeyRef.name"),
                    );
                }
                if let Some(s) = e
                    .get_path(&["valueFrom", "secretKeyRef"])
                    .filter(|s| !optional(s))
                {
                    want(
                        Kind::Secret,
                        s.str_at(&["name"]),
                        s,
                        format!("{list}[{i}].env[{j}].valueFrom.secretKeyRef.name"),
                    );
                }
            }
        }
    }
}

/// The items of a list field (none when it is absent or not a list).
fn seq(n: Option<&Node>) -> &[Node] {
    n.and_then(Node::as_seq)
        .map(Vec::as_slice)
        .unwrap_or_default()
}
