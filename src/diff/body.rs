//! A whole added or removed object as the report keeps it (compact JSON, its namespace-free
//! hash, its images), made from its typed value or straight from its tree.

use crate::yaml::{
    plain_is_surely_string, to_value_lossy, Dialect, Node, NodeKind, Scalar, ScalarStyle,
};
use serde_json::Value;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

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

    /// The body [`Body::from`] makes of the object's `to_value_lossy` value, written straight
    /// from the tree without building the value; `None` where only the value path is right: a
    /// Secret (the value is where its data are redacted), a mapping with a key twice or with
    /// a key that is not a scalar.
    pub fn of_node(node: &Node) -> Option<Body> {
        if node.get("kind").and_then(Node::as_str) == Some("Secret") {
            return None;
        }
        let mut json = Vec::new();
        let mut images = Vec::new();
        let hash = write_node(node, At::Root, &mut json, &mut images)?;
        Some(Body {
            json: String::from_utf8(json).ok()?.into_boxed_str(),
            hash_without_namespace: hash,
            images: images.into_boxed_slice(),
        })
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

/// Where a value sits, for the namespace-free hash: the object's root, its `metadata`, or
/// anywhere else.
#[derive(Clone, Copy, PartialEq)]
enum At {
    Root,
    Metadata,
    Other,
}

impl At {
    /// Where the value of key `k` of a mapping at `self` sits.
    fn child(self, k: &str) -> At {
        if self == At::Root && k == "metadata" {
            At::Metadata
        } else {
            At::Other
        }
    }

    /// Whether key `k` of a mapping at `self` is left out of the hash.
    fn skips(self, k: &str) -> bool {
        self == At::Metadata && k == "namespace"
    }
}

/// A hash of an object that ignores `metadata.namespace` and the order of mapping keys (the
/// order [`serde_json::Value`]'s equality ignores too).
fn hash_without_namespace(body: &Value) -> u64 {
    fn hash(v: &Value, at: At) -> u64 {
        match v {
            Value::Object(map) => map_hash(
                map.iter()
                    .filter(|(k, _)| !at.skips(k))
                    .map(|(k, v)| entry_hash(k, hash(v, at.child(k)))),
            ),
            Value::Array(items) => seq_hash(items.iter().map(|i| hash(i, At::Other))),
            scalar => scalar_hash(scalar),
        }
    }
    hash(body, At::Root)
}

/// The pieces of the hash, shared by the value and the tree walks: a mapping's entries combine
/// by addition, so their order does not count.
fn entry_hash(k: &str, child: u64) -> u64 {
    let mut e = DefaultHasher::new();
    k.hash(&mut e);
    child.hash(&mut e);
    e.finish()
}

fn map_hash(entries: impl Iterator<Item = u64>) -> u64 {
    let sum = entries.fold(0u64, u64::wrapping_add);
    let mut h = DefaultHasher::new();
    (5u8, sum).hash(&mut h);
    h.finish()
}

fn seq_hash(items: impl Iterator<Item = u64>) -> u64 {
    let mut h = DefaultHasher::new();
    6u8.hash(&mut h);
    for i in items {
        i.hash(&mut h);
    }
    h.finish()
}

fn string_hash(s: &str) -> u64 {
    let mut h = DefaultHasher::new();
    (1u8, s).hash(&mut h);
    h.finish()
}

/// Scalars by their kind and content, as `Value`'s equality compares them, without writing
/// each as JSON text first.
fn scalar_hash(v: &Value) -> u64 {
    let mut h = DefaultHasher::new();
    match v {
        Value::String(s) => return string_hash(s),
        Value::Number(n) => (2u8, n.to_string()).hash(&mut h),
        Value::Bool(b) => (3u8, *b).hash(&mut h),
        Value::Null => 4u8.hash(&mut h),
        Value::Array(_) | Value::Object(_) => unreachable!("collections are hashed by their parts"),
    }
    h.finish()
}

/// The tree walk of [`Body::of_node`]: writes the node's JSON to `out`, collects the images and
/// returns the namespace-free hash; `None` for a mapping it leaves to the value path.
fn write_node(node: &Node, at: At, out: &mut Vec<u8>, images: &mut Vec<String>) -> Option<u64> {
    match &node.kind {
        NodeKind::Scalar(s) => Some(match surely_text(s) {
            Some(text) => {
                serde_json::to_writer(&mut *out, text).ok()?;
                string_hash(text)
            }
            None => {
                let value = to_value_lossy(node, Dialect::Yaml12);
                serde_json::to_writer(&mut *out, &value).ok()?;
                scalar_hash(&value)
            }
        }),
        NodeKind::Seq(items) => {
            out.push(b'[');
            let mut hashes = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                hashes.push(write_node(item, At::Other, out, images)?);
            }
            out.push(b']');
            Some(seq_hash(hashes.into_iter()))
        }
        NodeKind::Map(entries) => {
            // A key twice (the value keeps the first one's place and the last one's value) or
            // a key that is not a scalar (written as flow YAML) is left to the value path.
            let keys: Vec<&str> = entries
                .iter()
                .map(|(k, _)| k.as_scalar().map(|s| s.text.as_str()))
                .collect::<Option<_>>()?;
            if !Node::keys_distinct(entries) {
                return None;
            }
            out.push(b'{');
            let mut hashes = Vec::with_capacity(entries.len());
            for (i, (key, (_, v))) in keys.iter().zip(entries).enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                serde_json::to_writer(&mut *out, key).ok()?;
                out.push(b':');
                let child = write_node(v, at.child(key), out, images)?;
                if *key == "image" {
                    images.extend(image_string(v));
                }
                if !at.skips(key) {
                    hashes.push(entry_hash(key, child));
                }
            }
            out.push(b'}');
            Some(map_hash(hashes.into_iter()))
        }
    }
}

/// The text of a scalar that surely reads as that string, found without resolving it.
fn surely_text(s: &Scalar) -> Option<&str> {
    let string = match (s.tag.as_deref(), s.style) {
        (None, ScalarStyle::Plain) => plain_is_surely_string(&s.text, Dialect::Yaml12),
        (None, _) | (Some("!!str"), _) => true,
        _ => false,
    };
    string.then_some(s.text.as_str())
}

/// The string an `image` key's value reads as, when it is a string scalar (what
/// [`Body::from`] collects).
fn image_string(v: &Node) -> Option<String> {
    let NodeKind::Scalar(s) = &v.kind else {
        return None;
    };
    match surely_text(s) {
        Some(text) => Some(text.to_string()),
        None => match to_value_lossy(v, Dialect::Yaml12) {
            Value::String(image) => Some(image),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{parse_stream, ParseOptions};
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

    /// Objects written straight from their tree give the body their value gives, byte for
    /// byte, hash and images included.
    #[test]
    fn a_body_written_from_the_tree_is_the_body_of_its_value() {
        let docs = r#"
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, labels: {app: web, "quoted": 'single'}}
spec:
  replicas: 3
  paused: false
  progressDeadlineSeconds: -1
  ratio: 0.25
  big: 1e3
  hex: 0x1F
  none: ~
  empty: ""
  when: 2020-01-01
  tagged: !!str 42
  tagint: !!int "7"
  inf: .inf
  yes: yes
  text: "tab\there \"q\" </script> caf\u00e9"
  single: 'it''s \ é ☃'
  block: |
    line one
    line two
  list: [a, 1, true, null, {image: x}, []]
  obj: {}
  template:
    spec:
      containers:
      - {name: app, image: "nginx:1.27"}
      - name: side
        image: !!str busybox
      initContainers: [{image: 5}]
---
kind: ConfigMap
metadata: {name: cm}
data: {"1": one, "-x": minus, ".a": dot}
"#;
        let nodes = parse_stream(docs.as_bytes(), &ParseOptions::default()).unwrap();
        for node in &nodes {
            let from_tree = Body::of_node(node).expect("written from the tree");
            let from_value = Body::from(to_value_lossy(node, Dialect::Yaml12));
            assert_eq!(from_tree, from_value);
        }
        assert_eq!(
            Body::of_node(&nodes[0]).unwrap().images(),
            ["x", "nginx:1.27", "busybox"]
        );
        // The namespace does not count, at both walks.
        let moved = parse_stream(
            docs.replacen("namespace: shop", "namespace: other", 1)
                .as_bytes(),
            &ParseOptions::default(),
        )
        .unwrap();
        assert_eq!(
            Body::of_node(&moved[0]).unwrap().hash_without_namespace(),
            Body::of_node(&nodes[0]).unwrap().hash_without_namespace()
        );
    }

    #[test]
    fn secrets_repeated_keys_and_collection_keys_are_left_to_the_value() {
        let keep = ParseOptions {
            duplicate_keys: crate::yaml::DuplicateKeys::Keep,
            ..ParseOptions::default()
        };
        for text in [
            "kind: Secret
metadata: {name: s}
data: {a: b}
",
            "kind: ConfigMap
data:
  a: 1
  a: 2
",
            "kind: ConfigMap
data: {? [a]: b}
",
        ] {
            let node = &parse_stream(text.as_bytes(), &keep).unwrap()[0];
            assert!(Body::of_node(node).is_none(), "{text:?}");
        }
    }
}
