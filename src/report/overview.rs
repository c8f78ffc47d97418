//! What a reader of a big report needs first: the changes that are the same in several
//! targets (an overlay per environment inheriting one base change), shown once with the
//! targets they occur in, and the image changes, one line per image. Every writer for people
//! uses them, and the JSON report carries them beside the per-target changes.

use super::{view, Change, ChangeKind, FieldChange, Report, TargetReport};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One change that is identical in several targets: the same kind of change to a resource
/// of the same group, version, kind and name (in any namespace), with the same field changes
/// (or, for an added or removed object, the same content up to the namespace).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChangeGroup {
    /// `group/version/Kind/*/name`: the resource, with the namespace left open.
    pub resource: String,
    pub change: ChangeKind,
    /// For a rename: the old id, the namespace left open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldChange>,
    /// Where it occurs: each target, with the resource's full id there.
    pub occurrences: Vec<Occurrence>,
}

/// One occurrence of a grouped change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Occurrence {
    pub target: String,
    pub resource: String,
}

impl ChangeGroup {
    /// The change itself, as the writers show a change (without a namespace).
    pub fn change(&self) -> Change {
        Change {
            resource: self.resource.clone(),
            change: self.change,
            from: self.from.clone(),
            from_target: None,
            fields: self.fields.clone(),
            reason: None,
            body: None,
        }
    }

    /// The distinct targets it occurs in, in report order.
    pub fn targets(&self) -> Vec<&str> {
        let mut seen = BTreeSet::new();
        self.occurrences
            .iter()
            .map(|o| o.target.as_str())
            .filter(|t| seen.insert(*t))
            .collect()
    }
}

/// One image change: an image reference replaced by another (or added, or removed) in
/// changed fields and in whole added or removed objects.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ImageChange {
    /// The image name (`ghcr.io/org/app`), at head when it changed.
    pub image: String,
    /// The full reference at base and at head (`ghcr.io/org/app:v1`); absent when the image
    /// is only on the other side.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<String>,
    /// The targets it changes in, in report order.
    pub targets: Vec<String>,
    /// How many resource fields it changes.
    pub resources: usize,
}

impl ImageChange {
    /// `v0.18.0 → v0.19.0` (tags or digests), or the whole references when the name changed.
    pub fn transition(&self) -> String {
        let short = |r: &Option<String>| -> String {
            match r {
                None => "(none)".to_string(),
                Some(r) => {
                    let (name, tag, digest) = crate::resource::image::split(r);
                    if name != self.image {
                        return r.clone();
                    }
                    match (tag.is_empty(), digest.is_empty()) {
                        (false, true) => tag,
                        (true, false) => format!("@{digest}"),
                        (false, false) => format!("{tag}@{digest}"),
                        (true, true) => "(no tag)".to_string(),
                    }
                }
            }
        };
        let (old, new) = (short(&self.old), short(&self.new));
        match (&self.old, &self.new) {
            (None, Some(_)) => format!("added {new}"),
            (Some(_), None) => format!("removed {old}"),
            _ => format!("{old} → {new}"),
        }
    }
}

/// The report's grouped changes and image changes.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Overview {
    /// Changes identical in two or more targets, most widespread first.
    pub groups: Vec<ChangeGroup>,
    /// Image changes: changed references first, then those of added or removed objects; the
    /// most widespread first in each.
    pub images: Vec<ImageChange>,
    /// Each grouped change (target, resource, kind of change) with its group's index: the
    /// writers ask for every change of the report.
    #[serde(skip)]
    index: HashMap<(String, String, ChangeKind), usize>,
}

impl Overview {
    pub fn of(report: &Report) -> Overview {
        let groups = groups(&report.targets);
        let mut index = HashMap::new();
        for (i, g) in groups.iter().enumerate() {
            for o in &g.occurrences {
                index
                    .entry((o.target.clone(), o.resource.clone(), g.change))
                    .or_insert(i);
            }
        }
        Overview {
            groups,
            images: images(&report.targets),
            index,
        }
    }

    /// The index of the group a change of `target` belongs to, if it is grouped.
    pub fn group_index(&self, target: &str, change: &Change) -> Option<usize> {
        self.index
            .get(&(target.to_string(), change.resource.clone(), change.change))
            .copied()
    }

    /// The group a change of `target` belongs to, if it is grouped.
    pub fn group_of(&self, target: &str, change: &Change) -> Option<&ChangeGroup> {
        self.group_index(target, change).map(|i| &self.groups[i])
    }
}

/// `group/version/Kind/namespace/name` with the namespace replaced by `*`.
fn without_namespace(id: &str) -> String {
    let parts: Vec<&str> = id.splitn(5, '/').collect();
    match parts.as_slice() {
        [g, v, k, _, n] => format!("{g}/{v}/{k}/*/{n}"),
        _ => id.to_string(),
    }
}

/// What makes two changes the same change.
fn key(c: &Change) -> (String, ChangeKind, Option<String>, String, u64) {
    let fields = serde_json::to_string(&c.fields).unwrap_or_default();
    let body = c
        .body
        .as_ref()
        .map_or(0, crate::diff::Body::hash_without_namespace);
    (
        without_namespace(&c.resource),
        c.change,
        c.from.as_deref().map(without_namespace),
        fields,
        body,
    )
}

fn groups(targets: &[TargetReport]) -> Vec<ChangeGroup> {
    type Key = (String, ChangeKind, Option<String>, String, u64);
    let mut order: Vec<Key> = Vec::new();
    let mut found: HashMap<Key, ChangeGroup> = HashMap::new();
    for t in targets.iter().filter(|t| view::is_shown(t)) {
        for c in &t.changes {
            let k = key(c);
            let group = found.entry(k.clone()).or_insert_with(|| {
                order.push(k.clone());
                ChangeGroup {
                    resource: k.0.clone(),
                    change: c.change,
                    from: k.2.clone(),
                    fields: c.fields.clone(),
                    occurrences: Vec::new(),
                }
            });
            group.occurrences.push(Occurrence {
                target: t.id.clone(),
                resource: c.resource.clone(),
            });
        }
    }
    let mut out: Vec<ChangeGroup> = order
        .into_iter()
        .filter_map(|k| found.remove(&k))
        .filter(|g| g.targets().len() > 1)
        .collect();
    // Most widespread first; removals before the rest at equal spread (they matter most).
    out.sort_by_key(|g| {
        (
            std::cmp::Reverse(g.targets().len()),
            g.change != ChangeKind::Removed,
        )
    });
    out
}

/// An image change's references (old, new).
type Refs = (Option<String>, Option<String>);

fn images(targets: &[TargetReport]) -> Vec<ImageChange> {
    // The targets and the number of fields of each pair of references.
    let mut by_refs: BTreeMap<Refs, (Vec<String>, usize)> = BTreeMap::new();
    let mut order = Vec::new();
    let mut add = |old: Option<String>, new: Option<String>, target: &str| {
        let k = (old, new);
        let e = by_refs.entry(k.clone()).or_insert_with(|| {
            order.push(k);
            (Vec::new(), 0)
        });
        if !e.0.iter().any(|t| t == target) {
            e.0.push(target.to_string());
        }
        e.1 += 1;
    };
    for t in targets.iter().filter(|t| view::is_shown(t)) {
        for c in &t.changes {
            if let Some(body) = &c.body {
                let removed = c.change == ChangeKind::Removed;
                for image in body.images().iter().cloned() {
                    if removed {
                        add(Some(image), None, &t.id);
                    } else {
                        add(None, Some(image), &t.id);
                    }
                }
            }
            for f in c.fields.iter().filter(|f| view::is_image_path(&f.path)) {
                add(
                    f.old.as_ref().map(view::display),
                    f.new.as_ref().map(view::display),
                    &t.id,
                );
            }
        }
    }
    let mut out: Vec<ImageChange> = order
        .into_iter()
        .filter_map(|k| {
            let (targets, resources) = by_refs.remove(&k)?;
            let reference = k.1.as_deref().or(k.0.as_deref()).unwrap_or_default();
            let (image, _, _) = crate::resource::image::split(reference);
            Some(ImageChange {
                image,
                old: k.0,
                new: k.1,
                targets,
                resources,
            })
        })
        .collect();
    // Images that change (a tag bump) before those that come or go with whole objects.
    out.sort_by_key(|i| {
        (
            i.old.is_none() || i.new.is_none(),
            std::cmp::Reverse(i.targets.len()),
        )
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::TargetStatus;
    use serde_json::json;

    fn target(id: &str, changes: Vec<Change>) -> TargetReport {
        TargetReport {
            incomplete_reason: None,
            id: id.into(),
            kind: "kustomize".into(),
            status: TargetStatus::Modified,
            file: None,
            cached: false,
            position: None,
            incomplete: false,
            changes,
            sources: Default::default(),
        }
    }

    fn modified(resource: &str, path: &str, old: &str, new: &str) -> Change {
        Change {
            resource: resource.into(),
            change: ChangeKind::Modified,
            from: None,
            from_target: None,
            fields: vec![FieldChange {
                path: path.into(),
                old: Some(json!(old)),
                new: Some(json!(new)),
            }],
            reason: None,
            body: None,
        }
    }

    #[test]
    fn a_change_inherited_by_overlays_is_one_group_and_one_image_line() {
        let image = "spec.template.spec.containers[name=app].image";
        let targets: Vec<TargetReport> = ["dev", "prod", "stage"]
            .iter()
            .map(|env| {
                target(
                    &format!("kustomize:overlays/{env}"),
                    vec![
                        modified(
                            &format!("apps/v1/Deployment/{env}/web"),
                            image,
                            "ghcr.io/o/web:v1",
                            "ghcr.io/o/web:v2",
                        ),
                        modified(
                            &format!("core/v1/ConfigMap/{env}/cfg"),
                            "data.env",
                            env,
                            "x",
                        ),
                    ],
                )
            })
            .collect();
        let d = Overview::of(&Report {
            schema: crate::report::REPORT_SCHEMA,
            base: None,
            head: crate::report::RevisionInfo {
                rev: "HEAD".into(),
                commit: None,
            },
            targets,
            findings: Vec::new(),
            summary: Default::default(),
        });
        assert_eq!(d.groups.len(), 1, "{:#?}", d.groups);
        let g = &d.groups[0];
        assert_eq!(g.resource, "apps/v1/Deployment/*/web");
        assert_eq!(
            g.targets(),
            [
                "kustomize:overlays/dev",
                "kustomize:overlays/prod",
                "kustomize:overlays/stage"
            ]
        );
        assert_eq!(d.images.len(), 1);
        assert_eq!(d.images[0].image, "ghcr.io/o/web");
        assert_eq!(d.images[0].transition(), "v1 → v2");
        assert_eq!(d.images[0].targets.len(), 3);
    }
}
