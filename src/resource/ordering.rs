//! kustomize's legacy output order (SortOrderTransformer): kinds ranked by a fixed priority
//! list, then by group/version/kind, then by `Kind.Version.Group|namespace|name`.

use super::{ResId, Resource};
use std::cmp::Ordering;
use std::collections::HashMap;

/// The default `orderFirst` list ("DO NOT CHANGE" upstream).
pub const DEFAULT_ORDER_FIRST: &[&str] = &[
    "Namespace",
    "ResourceQuota",
    "StorageClass",
    "CustomResourceDefinition",
    "ServiceAccount",
    "PodSecurityPolicy",
    "Role",
    "ClusterRole",
    "RoleBinding",
    "ClusterRoleBinding",
    "ConfigMap",
    "Secret",
    "Endpoints",
    "Service",
    "LimitRange",
    "PriorityClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "Deployment",
    "StatefulSet",
    "CronJob",
    "PodDisruptionBudget",
];

/// The default `orderLast` list.
pub const DEFAULT_ORDER_LAST: &[&str] = &[
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
];

/// Kind priorities for the legacy order.
#[derive(Clone, Debug)]
pub struct LegacyOrder {
    ranks: HashMap<String, i64>,
}

impl Default for LegacyOrder {
    fn default() -> Self {
        LegacyOrder::new(DEFAULT_ORDER_FIRST, DEFAULT_ORDER_LAST)
    }
}

impl LegacyOrder {
    /// `orderFirst[i]` ranks `-len+i`, `orderLast[i]` ranks `1+i`, other kinds 0.
    pub fn new<S: AsRef<str>>(first: &[S], last: &[S]) -> LegacyOrder {
        let mut ranks = HashMap::new();
        for (i, k) in first.iter().enumerate() {
            ranks.insert(k.as_ref().to_string(), i as i64 - first.len() as i64);
        }
        for (i, k) in last.iter().enumerate() {
            ranks.insert(k.as_ref().to_string(), 1 + i as i64);
        }
        LegacyOrder { ranks }
    }

    fn rank(&self, kind: &str) -> i64 {
        self.ranks.get(kind).copied().unwrap_or(0)
    }

    /// Compares two ids the way `legacyIDSorter.Less` does.
    pub fn compare(&self, a: &ResId, b: &ResId) -> Ordering {
        let same_gvk = a.group == b.group && a.version == b.version && a.kind == b.kind;
        if !same_gvk {
            let (ra, rb) = (self.rank(&a.kind), self.rank(&b.kind));
            if ra != rb {
                return ra.cmp(&rb);
            }
            let (ga, gb) = (gvk_sort_string(a), gvk_sort_string(b));
            if a.kind == "Namespace"
                && b.kind == "Namespace"
                && (a.group.is_empty() || b.group.is_empty())
            {
                return gb.cmp(&ga);
            }
            return ga.cmp(&gb);
        }
        resid_sort_string(a).cmp(&resid_sort_string(b))
    }
}

fn or<'a>(s: &'a str, empty: &'a str) -> &'a str {
    if s.is_empty() {
        empty
    } else {
        s
    }
}

fn gvk_sort_string(id: &ResId) -> String {
    format!(
        "{}_{}_{}",
        or(&id.group, "~G"),
        or(&id.version, "~V"),
        or(&id.kind, "~K")
    )
}

fn resid_sort_string(id: &ResId) -> String {
    format!(
        "{}.{}.{}|{}|{}",
        or(&id.kind, "[noKind]"),
        or(&id.version, "[noVer]"),
        or(&id.group, "[noGrp]"),
        or(&id.namespace, "~X"),
        or(&id.name, "~N")
    )
}

/// Sorts resources into kustomize's legacy order.
pub fn legacy_sort(resources: &mut [Resource], order: &LegacyOrder) {
    let mut keyed: Vec<(ResId, usize)> = resources
        .iter()
        .enumerate()
        .map(|(i, r)| (r.id(), i))
        .collect();
    keyed.sort_by(|(a, _), (b, _)| order.compare(a, b));
    let perm: Vec<usize> = keyed.into_iter().map(|(_, i)| i).collect();
    apply_permutation(resources, &perm);
}

fn apply_permutation<T: Clone>(items: &mut [T], perm: &[usize]) {
    let sorted: Vec<T> = perm.iter().map(|&i| items[i].clone()).collect();
    items.clone_from_slice(&sorted);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(g: &str, k: &str, ns: &str, n: &str) -> ResId {
        ResId {
            group: g.into(),
            version: "v1".into(),
            kind: k.into(),
            namespace: ns.into(),
            name: n.into(),
        }
    }

    #[test]
    fn legacy_ranks_then_names() {
        let o = LegacyOrder::default();
        let mut ids = [
            id("", "ValidatingWebhookConfiguration", "", "v"),
            id("apps", "Deployment", "a", "web"),
            id("", "Service", "a", "web"),
            id("example.com", "Widget", "a", "w"),
            id("", "Namespace", "", "a"),
            id("", "ConfigMap", "b", "x"),
            id("", "ConfigMap", "a", "y"),
        ];
        ids.sort_by(|a, b| o.compare(a, b));
        let kinds: Vec<String> = ids
            .iter()
            .map(|i| format!("{}/{}", i.kind, i.name))
            .collect();
        assert_eq!(
            kinds,
            [
                "Namespace/a",
                "ConfigMap/y",
                "ConfigMap/x",
                "Service/web",
                "Deployment/web",
                "Widget/w",
                "ValidatingWebhookConfiguration/v"
            ]
        );
    }
}
