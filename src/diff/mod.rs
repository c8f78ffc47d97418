//! Semantic diff of two renders of a target: which objects were added, removed, renamed or
//! modified, and which fields changed. Never reads files.

mod body;
mod change;
mod fields;
pub mod noise;
mod pair;

pub use body::Body;
pub use change::{Change, ChangeKind, FieldChange};
pub use fields::diff_values;
pub use pair::{pair, strip_hash_suffix};

use crate::resource::{ResId, Resource};
use crate::yaml::{to_value_lossy, Dialect};
use serde_json::Value;

/// How to diff.
#[derive(Clone, Debug, Default)]
pub struct DiffOptions {
    /// Show Secret values instead of keyed digests.
    pub show_secrets: bool,
    /// Field changes not to report (from `.kdelta.yaml`; the built-in rules always apply).
    pub ignore: Vec<noise::IgnoreRule>,
}

impl DiffOptions {
    /// True when a field change of `resource` at `path` is not to be reported.
    pub fn hides(&self, resource: &str, path: &str) -> bool {
        self.ignore
            .iter()
            .chain(noise::builtin_rules().iter())
            .any(|r| r.hides(resource, path))
    }
}

/// The typed value of a resource for diffing, with Secret values redacted unless asked.
pub fn resource_value(r: &Resource, opts: &DiffOptions) -> Value {
    // A value that cannot be typed (e.g. `.inf`) is reported by the render; here it is compared
    // as text, so the change stays visible and Secret redaction still sees the object.
    let mut v = to_value_lossy(&r.node, Dialect::Yaml12);
    if !opts.show_secrets {
        crate::redact::redact_secret(&mut v);
    }
    v
}

/// The changes between two renders (either side may be missing: target added or removed).
pub fn diff_resources(base: &[Resource], head: &[Resource], opts: &DiffOptions) -> Vec<Change> {
    let base_ids: Vec<ResId> = base.iter().map(Resource::id).collect();
    let head_ids: Vec<ResId> = head.iter().map(Resource::id).collect();
    let mut changes = Vec::new();
    for (b, h) in pair(&base_ids, &head_ids) {
        match (b, h) {
            // The same object, maybe elsewhere in the output: nothing to compare.
            (Some(i), Some(j))
                if base_ids[i] == head_ids[j] && base[i].node.same_content(&head[j].node) => {}
            (Some(i), Some(j)) => {
                let old = resource_value(&base[i], opts);
                let new = resource_value(&head[j], opts);
                let renamed = base_ids[i] != head_ids[j];
                let mut fields = diff_values(&old, &new);
                if renamed {
                    // The name change is the rename itself, not a field change to list.
                    fields.retain(|f| f.path != "metadata.name");
                }
                let id = head_ids[j].to_string();
                fields.retain(|f| !opts.hides(&id, &f.path));
                if renamed || !fields.is_empty() {
                    changes.push(Change {
                        resource: head_ids[j].to_string(),
                        change: if renamed {
                            ChangeKind::Renamed
                        } else {
                            ChangeKind::Modified
                        },
                        from: renamed.then(|| base_ids[i].to_string()),
                        from_target: None,
                        reason: None,
                        fields,
                        body: None,
                    });
                }
            }
            (Some(i), None) => {
                changes.push(whole(ChangeKind::Removed, &base_ids[i], &base[i], opts))
            }
            (None, Some(j)) => changes.push(whole(ChangeKind::Added, &head_ids[j], &head[j], opts)),
            (None, None) => {}
        }
    }
    changes.sort_by(|a, b| a.resource.cmp(&b.resource).then(a.change.cmp(&b.change)));
    changes
}

fn whole(kind: ChangeKind, id: &ResId, r: &Resource, opts: &DiffOptions) -> Change {
    Change {
        resource: id.to_string(),
        change: kind,
        from: None,
        from_target: None,
        reason: None,
        fields: Vec::<FieldChange>::new(),
        body: Some(Body::of_node(&r.node).unwrap_or_else(|| Body::from(resource_value(r, opts)))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::RepoPath;
    use crate::yaml::{parse_stream, ParseOptions};

    fn res(s: &str) -> Vec<Resource> {
        parse_stream(s.as_bytes(), &ParseOptions::default())
            .unwrap()
            .into_iter()
            .map(|n| Resource::new(n, RepoPath::root()))
            .collect()
    }

    #[test]
    fn modified_added_removed_renamed() {
        let base = res("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 2}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg-7f8t9k2h5m}\ndata: {a: '1'}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: old}\n");
        let head = res("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 3}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg-b2c4d6f8g9}\ndata: {a: '2'}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: new}\n");
        let c = diff_resources(&base, &head, &DiffOptions::default());
        let summary: Vec<(String, ChangeKind)> =
            c.iter().map(|c| (c.resource.clone(), c.change)).collect();
        assert_eq!(
            summary,
            [
                ("apps/v1/Deployment/_/web".to_string(), ChangeKind::Modified),
                (
                    "core/v1/ConfigMap/_/cfg-b2c4d6f8g9".to_string(),
                    ChangeKind::Renamed
                ),
                ("core/v1/Service/_/new".to_string(), ChangeKind::Added),
                ("core/v1/Service/_/old".to_string(), ChangeKind::Removed),
            ]
        );
        assert_eq!(c[0].fields[0].path, "spec.replicas");
        assert_eq!(
            c[1].from.as_deref(),
            Some("core/v1/ConfigMap/_/cfg-7f8t9k2h5m")
        );
        assert_eq!(c[1].fields[0].path, "data.a");
    }

    #[test]
    fn secret_values_never_appear() {
        let base =
            res("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {pw: c2VjcmV0MQ==}\n");
        let head =
            res("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {pw: c2VjcmV0Mg==}\n");
        let c = diff_resources(&base, &head, &DiffOptions::default());
        let text = serde_json::to_string(&c[0].fields).unwrap();
        assert!(!text.contains("c2VjcmV0"), "{text}");
        assert_eq!(c[0].fields[0].path, "data.pw");
        let c = diff_resources(
            &base,
            &head,
            &DiffOptions {
                show_secrets: true,
                ..DiffOptions::default()
            },
        );
        assert!(serde_json::to_string(&c[0].fields)
            .unwrap()
            .contains("c2VjcmV0Mg=="));
    }
}
