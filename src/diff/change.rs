//! The diff's result types: what happened to a resource and to each of its fields.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

/// What happened to one resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    Added,
    Removed,
    Modified,
    Renamed,
}

/// One changed field: a kdelta path (`spec.template.spec.containers[name=app].image`) and the
/// values on each side; a side is absent when the field does not exist there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FieldChange {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<serde_json::Value>,
}

/// A changed resource.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// `group/version/Kind/namespace/name` at head (at base for removals).
    pub resource: String,
    pub change: ChangeKind,
    /// For renames and moves: the id at base.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// For a move from another target: that target's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_target: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldChange>,
    /// Why the object appears or disappears, when kdelta knows more than the diff (a Helm
    /// subchart switched on or off: `subchart redis pruned at head: condition redis.enabled=false`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The whole object as added or removed (Secret values redacted), for writers that show it.
    #[serde(skip)]
    pub body: Option<Body>,
}

/// A whole added or removed object, held as compact JSON text until a writer shows it: a
/// parsed [`serde_json::Value`] takes several times the memory, and a report holds every
/// added and removed object until it is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Body {
    json: Box<str>,
    hash_without_namespace: u64,
    /// The `image` strings anywhere in the object, in document order.
    images: Box<[String]>,
}

impl Body {
    /// The object, parsed again.
    pub fn value(&self) -> Value {
        serde_json::from_str(&self.json).expect("a Body holds JSON that serde_json wrote")
    }

    /// A hash of the object that ignores `metadata.namespace` and the order of mapping keys
    /// (as [`Value`]'s equality does): the same object in another namespace has the same.
    pub fn hash_without_namespace(&self) -> u64 {
        self.hash_without_namespace
    }

    /// Every string under an `image` key, at any depth, in document order: found when the
    /// body is made (in the parallel phase), so that the report's image summary need not
    /// parse every added object again.
    pub fn images(&self) -> &[String] {
        &self.images
    }
}

impl From<&Value> for Body {
    fn from(v: &Value) -> Body {
        fn collect(v: &Value, out: &mut Vec<String>) {
            match v {
                Value::Object(map) => {
                    for (k, item) in map {
                        match item {
                            Value::String(image) if k == "image" => out.push(image.clone()),
                            _ => collect(item, out),
                        }
                    }
                }
                Value::Array(items) => items.iter().for_each(|item| collect(item, out)),
                _ => {}
            }
        }
        let mut images = Vec::new();
        collect(v, &mut images);
        Body {
            json: v.to_string().into_boxed_str(),
            hash_without_namespace: hash_without_namespace(v),
            images: images.into_boxed_slice(),
        }
    }
}

impl From<Value> for Body {
    fn from(v: Value) -> Body {
        Body::from(&v)
    }
}

/// A hash of an object that ignores `metadata.namespace` and the order of mapping keys (the
/// order [`serde_json::Value`]'s equality ignores too).
fn hash_without_namespace(body: &Value) -> u64 {
    /// Where a value sits: the object's root, its `metadata`, or anywhere else.
    #[derive(Clone, Copy, PartialEq)]
    enum At {
        Root,
        Metadata,
        Other,
    }
    fn hash(v: &Value, at: At) -> u64 {
        let mut h = DefaultHasher::new();
        match v {
            Value::Object(map) => {
                // Entries combine by addition, so their order does not count.
                let mut sum = 0u64;
                for (k, v) in map {
                    if at == At::Metadata && k == "namespace" {
                        continue;
                    }
                    let child = if at == At::Root && k == "metadata" {
                        At::Metadata
                    } else {
                        At::Other
                    };
                    let mut e = DefaultHasher::new();
                    k.hash(&mut e);
                    hash(v, child).hash(&mut e);
                    sum = sum.wrapping_add(e.finish());
                }
                (5u8, sum).hash(&mut h);
            }
            Value::Array(items) => {
                6u8.hash(&mut h);
                for i in items {
                    hash(i, At::Other).hash(&mut h);
                }
            }
            // Scalars by their kind and content, as `Value`'s equality compares them, without
            // writing each as JSON text first.
            Value::String(s) => (1u8, s.as_str()).hash(&mut h),
            Value::Number(n) => (2u8, n.to_string()).hash(&mut h),
            Value::Bool(b) => (3u8, *b).hash(&mut h),
            Value::Null => 4u8.hash(&mut h),
        }
        h.finish()
    }
    hash(body, At::Root)
}

impl Change {
    /// Where a renamed or moved object came from: its old id, prefixed by its old target when
    /// it moved between targets (`dir:one core/v1/ConfigMap/a/shared`).
    pub fn origin(&self) -> Option<String> {
        let from = self.from.as_ref()?;
        Some(match &self.from_target {
            Some(t) => format!("{t} {from}"),
            None => from.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_body_knows_its_images_in_document_order_at_any_depth() {
        let body = Body::from(json!({"spec": {"template": {"spec": {
            "initContainers": [{"image": "busybox"}],
            "containers": [{"name": "app", "image": "nginx:1.27"}],
            "extra": {"image": {"image": "nested"}, "images": ["not-this"]}}}}}));
        assert_eq!(body.images(), ["busybox", "nginx:1.27", "nested"]);
        assert!(Body::from(json!({"image": 3})).images().is_empty());
    }
}
