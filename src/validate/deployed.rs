//! Objects two Argo CD Applications deploy to the same cluster. Argo CD keys its
//! SharedResourceWarning without the cluster, so the same object sent to two clusters warns
//! there; here the key is the destination cluster with the object's group, kind, namespace
//! and name, so only a real conflict (two Applications syncing one object) is reported.

use crate::finding::{rules, Finding};
use crate::render::Rendered;
use crate::resource::Resource;
use std::collections::BTreeMap;

/// The in-cluster destination, by address (`destination.name: in-cluster` is the same).
const IN_CLUSTER: &str = "https://kubernetes.default.svc";

/// An object an Application deploys: where, and where it comes from.
#[derive(Clone, Debug)]
pub struct Deployed {
    /// Cluster, group, kind, namespace, name.
    key: (String, String, String, String, String),
    /// The Application's namespace and name: one Argo CD holds one Application of a name,
    /// so two targets of the same Application (a manifest and the app of apps that deploys
    /// it; overlays of two installations) are one deployer.
    app: (String, String),
    target: String,
    file: String,
    line: u32,
}

/// The Application object of the Application target `target`, among what it renders:
/// `app:NAMESPACE/NAME` or `app:FILE#NAME` names it; the others are what it deploys (child
/// Applications of an app of apps too). None for other targets (a kustomization or chart
/// deploys nowhere by itself).
fn application<'r>(target: &str, rendered: &'r Rendered) -> Option<&'r Resource> {
    if !target.starts_with("app:") {
        return None;
    }
    let name = target.rsplit(['/', '#']).next().unwrap_or_default();
    rendered.resources.iter().find(|r| {
        r.kind() == "Application"
            && r.node
                .str_at(&["apiVersion"])
                .unwrap_or_default()
                .starts_with("argoproj.io/")
            && r.name() == name
    })
}

fn destination_field(app: &Resource, field: &str) -> String {
    app.node
        .str_at(&["spec", "destination", field])
        .unwrap_or_default()
        .to_string()
}

/// The destination cluster of an Application target: its `server` URL (the in-cluster
/// address for `name: in-cluster` or none) and its `name`.
pub fn destination(target: &str, rendered: &Rendered) -> Option<(String, String)> {
    let app = application(target, rendered)?;
    let name = destination_field(app, "name");
    let server = match destination_field(app, "server").trim_end_matches('/') {
        "" if name == "in-cluster" || name.is_empty() => IN_CLUSTER.to_string(),
        s => s.to_string(),
    };
    Some((server, name))
}

/// The objects the Application target `target` deploys (none when the target is not an
/// Application).
pub fn of_application(target: &str, rendered: &Rendered) -> Vec<Deployed> {
    let (Some(app), Some((server, name))) =
        (application(target, rendered), destination(target, rendered))
    else {
        return Vec::new();
    };
    let cluster = if server.is_empty() {
        format!("name:{name}")
    } else {
        server
    };
    let namespace = destination_field(app, "namespace");
    let app_id = (
        app.node
            .str_at(&["metadata", "namespace"])
            .unwrap_or_default()
            .to_string(),
        app.name().to_string(),
    );
    rendered
        .resources
        .iter()
        .filter(|r| !std::ptr::eq(*r, app) && r.node.is_map())
        .map(|r| {
            let id = r.id();
            // The namespace Argo CD tracks the object under: none for a cluster-scoped kind
            // (two Applications with different destination namespaces still sync the same
            // ClusterRole), else its own, else the destination's.
            let cluster_scoped =
                crate::kustomize::openapi::builtin_namespaced(&id.api_version(), &id.kind)
                    == Some(false);
            let ns = if cluster_scoped {
                String::new()
            } else if id.namespace.is_empty() {
                namespace.clone()
            } else {
                id.namespace.clone()
            };
            Deployed {
                key: (cluster.clone(), id.group, id.kind, ns, id.name),
                app: app_id.clone(),
                target: target.to_string(),
                file: r.origin.file.to_string(),
                line: r.origin.span.line,
            }
        })
        .collect()
}

/// True when two Applications can sync against each other: not the same Application, and
/// not in two Argo CD installations (Applications in two different namespaces, `argocd` and
/// `openshift-gitops`, belong to two Argo CDs, which run in two clusters as a rule).
fn conflict(a: &(String, String), b: &(String, String)) -> bool {
    let two_installations = !a.0.is_empty() && !b.0.is_empty() && a.0 != b.0;
    a != b && !two_installations
}

/// A warning at each object that an Application deploys where another Application, earlier
/// in target order, already deploys the same object to the same cluster.
pub fn duplicates(mut deployed: Vec<Deployed>) -> Vec<Finding> {
    deployed.sort_by(|a, b| (&a.target, &a.file, a.line).cmp(&(&b.target, &b.file, b.line)));
    let mut first: BTreeMap<&(String, String, String, String, String), &Deployed> = BTreeMap::new();
    let mut out = Vec::new();
    for d in &deployed {
        match first.get(&d.key) {
            None => {
                first.insert(&d.key, d);
            }
            Some(owner) if owner.target != d.target && conflict(&owner.app, &d.app) => {
                let (cluster, group, kind, namespace, name) = &d.key;
                let group = if group.is_empty() { "core" } else { group };
                let ns = if namespace.is_empty() { "_" } else { namespace };
                out.push(
                    Finding::warning(
                        rules::DEPLOY_DUPLICATE,
                        format!(
                            "{group}/{kind}/{ns}/{name} is deployed to {cluster} by {} and by {}: the two Applications sync the same object",
                            owner.target, d.target
                        ),
                    )
                    .for_target(d.target.clone())
                    .at(d.file.clone(), d.line, 0)
                    .with_help("deploy it from one Application, or send the two to different clusters or namespaces"),
                );
            }
            Some(_) => {}
        }
    }
    out
}
