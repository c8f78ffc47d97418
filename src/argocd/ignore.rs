//! An Application's `spec.ignoreDifferences`, applied to its diff as Argo CD normalizes what
//! it compares: the fields named by `jsonPointers` (and by `jqPathExpressions` that are plain
//! paths) are removed from the matching objects on both sides before diffing. A jq
//! expression that is more than a path (`select(…)`, pipes) is a notice; `managedFieldsManagers`
//! needs a live cluster and does not apply offline.

use crate::resource::Resource;
use crate::yaml::Node;
use serde_json::Value as Json;

/// One path segment: a field or index, or every item (`[]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    Key(String),
    All,
}

/// One `ignoreDifferences` entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IgnoreDifference {
    pub group: String,
    pub kind: String,
    pub name: String,
    pub namespace: String,
    pub paths: Vec<Vec<Segment>>,
}

/// The entries of an Application, and the jq expressions kdelta cannot apply.
pub fn of_application(app: &Json) -> (Vec<IgnoreDifference>, Vec<String>) {
    let mut out = Vec::new();
    let mut unsupported = Vec::new();
    for entry in app["spec"]["ignoreDifferences"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let text = |k: &str| entry[k].as_str().unwrap_or_default().to_string();
        let mut paths: Vec<Vec<Segment>> = super::generate::strings(&entry["jsonPointers"])
            .into_iter()
            .map(json_pointer)
            .collect();
        for jq in super::generate::strings(&entry["jqPathExpressions"]) {
            match jq_path(jq) {
                Some(p) => paths.push(p),
                None => unsupported.push(jq.to_string()),
            }
        }
        if !paths.is_empty() {
            out.push(IgnoreDifference {
                group: text("group"),
                kind: text("kind"),
                name: text("name"),
                namespace: text("namespace"),
                paths,
            });
        }
    }
    (out, unsupported)
}

/// RFC 6901: `/spec/replicas`, with `~1` for `/` and `~0` for `~`.
fn json_pointer(p: &str) -> Vec<Segment> {
    p.split('/')
        .skip(1)
        .map(|s| Segment::Key(s.replace("~1", "/").replace("~0", "~")))
        .collect()
}

/// A jq expression that is a plain path: `.a.b`, `.a["b.c"]`, `.a[0]`, `.a[]`.
fn jq_path(expr: &str) -> Option<Vec<Segment>> {
    let mut rest = expr.trim();
    let mut out = Vec::new();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("[]") {
            out.push(Segment::All);
            rest = r.strip_prefix('?').unwrap_or(r);
        } else if let Some(r) = rest.strip_prefix("[\"") {
            let end = r.find("\"]")?;
            out.push(Segment::Key(r[..end].to_string()));
            rest = &r[end + 2..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']')?;
            let index = &r[..end];
            index.parse::<usize>().ok()?;
            out.push(Segment::Key(index.to_string()));
            rest = &r[end + 1..];
        } else if let Some(r) = rest.strip_prefix('.') {
            let n = r
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                .unwrap_or(r.len());
            if n > 0 {
                out.push(Segment::Key(r[..n].to_string()));
            } else if !r.starts_with('[') {
                return None;
            }
            rest = &r[n..];
        } else {
            return None;
        }
    }
    (!out.is_empty()).then_some(out)
}

impl IgnoreDifference {
    fn matches(&self, r: &Resource) -> bool {
        let id = r.id();
        let is = |want: &str, got: &str| want.is_empty() || want == "*" || want == got;
        (self.group == "*" || self.group == id.group)
            && (self.kind == "*" || self.kind == id.kind)
            && is(&self.name, &id.name)
            && is(&self.namespace, &id.namespace)
    }
}

/// `resources` with the ignored fields removed; `None` when no entry matches any of them.
pub fn normalized(resources: &[Resource], rules: &[IgnoreDifference]) -> Option<Vec<Resource>> {
    if !resources.iter().any(|r| rules.iter().any(|i| i.matches(r))) {
        return None;
    }
    let mut out = resources.to_vec();
    for r in &mut out {
        let matching: Vec<&IgnoreDifference> = rules.iter().filter(|i| i.matches(r)).collect();
        for rule in matching {
            for path in &rule.paths {
                remove(&mut r.node, path);
            }
        }
    }
    Some(out)
}

fn remove(node: &mut Node, path: &[Segment]) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    if let Some(items) = node.as_seq_mut() {
        let indexes: Vec<usize> = match first {
            Segment::All => (0..items.len()).collect(),
            Segment::Key(k) => k
                .parse()
                .ok()
                .filter(|i| *i < items.len())
                .into_iter()
                .collect(),
        };
        if rest.is_empty() {
            // Removing every item leaves an empty list; one index, that item.
            for i in indexes.into_iter().rev() {
                items.remove(i);
            }
        } else {
            for i in indexes {
                remove(&mut items[i], rest);
            }
        }
        return;
    }
    let Segment::Key(key) = first else { return };
    if rest.is_empty() {
        node.remove(key);
    } else if let Some(child) = node.get_mut(key) {
        remove(child, rest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pointers_and_plain_jq_paths_remove_fields_of_matching_objects() {
        let app = json!({"spec": {"ignoreDifferences": [
            {"group": "apps", "kind": "Deployment", "jsonPointers": ["/spec/replicas", "/metadata/annotations/a~1b"]},
            {"kind": "ConfigMap", "name": "other", "jsonPointers": ["/data"]},
            {"group": "apps", "kind": "Deployment", "jqPathExpressions": [".spec.template.spec.containers[].image", ".x | select(.y)"]},
        ]}});
        let (rules, unsupported) = of_application(&app);
        assert_eq!(unsupported, [".x | select(.y)"]);
        let doc = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    a/b: x\n    c: y\nspec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n      - name: a\n        image: a:1\n      - name: b\n        image: b:1\n";
        let node = crate::yaml::parse_one(doc.as_bytes(), &Default::default()).unwrap();
        let cm = crate::yaml::parse_one(
            b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  k: v\n",
            &Default::default(),
        )
        .unwrap();
        let resources = vec![
            Resource::new(node, crate::source::RepoPath::root()),
            Resource::new(cm, crate::source::RepoPath::root()),
        ];
        let out = normalized(&resources, &rules).unwrap();
        assert_eq!(
            crate::yaml::emit::node_to_string(&out[0].node),
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    c: y\nspec:\n  template:\n    spec:\n      containers:\n      - name: a\n      - name: b\n"
        );
        // The ConfigMap rule names another object.
        assert_eq!(out[1].node, resources[1].node);
        assert!(normalized(&resources[1..], &rules).is_none());
    }
}
