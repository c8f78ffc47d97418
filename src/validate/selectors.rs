//! Services whose selector matches none of the pod templates their target renders: the
//! classic typo in a label, which the API server accepts and which leaves the Service with
//! no endpoints. Only targets that render pod templates at all are checked: a Service for
//! pods an operator makes (from a custom resource) has no template to match in the repository.

use crate::finding::{rules, Finding};
use crate::render::Rendered;
use crate::resource::Resource;
use crate::yaml::Node;

/// The labels of the pods `r` makes, when it is a workload (a pod template's, or a Pod's
/// own; `Some(None)` for a workload whose pods have none).
fn pod_labels(r: &Resource) -> Option<Option<&Node>> {
    let template: &[&str] = match r.kind() {
        "Pod" => &["metadata", "labels"],
        "Deployment"
        | "StatefulSet"
        | "DaemonSet"
        | "ReplicaSet"
        | "Job"
        | "ReplicationController"
        | "Rollout" => &["spec", "template", "metadata", "labels"],
        "CronJob" => &[
            "spec",
            "jobTemplate",
            "spec",
            "template",
            "metadata",
            "labels",
        ],
        _ => return None,
    };
    Some(r.node.get_path(template))
}

/// True when every `key: value` of `selector` is among `labels`.
fn matches(selector: &Node, labels: Option<&Node>) -> bool {
    selector.as_map().into_iter().flatten().all(|(k, v)| {
        labels
            .and_then(Node::as_map)
            .into_iter()
            .flatten()
            .any(|(lk, lv)| lk.as_str() == k.as_str() && lv.as_str() == v.as_str())
    })
}

/// A warning at each Service of `rendered` whose selector no pod template of the target
/// matches in the Service's namespace, when the target renders pod templates.
pub fn unmatched_services(target: &str, rendered: &Rendered) -> Vec<Finding> {
    let workloads: Vec<(&Resource, Option<&Node>)> = rendered
        .resources
        .iter()
        .filter_map(|r| Some((r, pod_labels(r)?)))
        .collect();
    if workloads.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for s in rendered
        .resources
        .iter()
        .filter(|r| r.kind() == "Service" && r.node.str_at(&["apiVersion"]) == Some("v1"))
    {
        let Some(selector) = s
            .node
            .get_path(&["spec", "selector"])
            .filter(|n| n.as_map().is_some_and(|m| !m.is_empty()))
        else {
            continue;
        };
        let namespace = s.id().namespace;
        let matched = workloads
            .iter()
            .any(|(w, labels)| w.id().namespace == namespace && matches(selector, *labels));
        if matched {
            continue;
        }
        let wanted: Vec<String> = selector
            .as_map()
            .into_iter()
            .flatten()
            .map(|(k, v)| {
                format!(
                    "{}={}",
                    k.as_str().unwrap_or("?"),
                    v.as_str().unwrap_or("?")
                )
            })
            .collect();
        let f = Finding::warning(
            rules::REFERENCE_SERVICE_SELECTOR,
            format!(
                "{}: spec.selector {} matches no pod template this target renders in its namespace",
                s.id(),
                wanted.join(",")
            ),
        )
        .for_target(target)
        .with_help("check the selector against the workload's spec.template.metadata.labels");
        // The selector's own line when it was read from a file.
        out.push(match s.field_location(selector.span) {
            Some((file, line, _)) => f.at(file, line, 0),
            None => f.at(s.origin.file.to_string(), 0, 0),
        });
    }
    out
}
