//! A rendered document's head as Helm's `SortManifests` reads it (`releaseutil.SimpleHead`:
//! the kind, the `helm.sh/hook` annotation), or the YAML error as Helm words it. sigs.k8s.io/yaml
//! makes the whole document JSON first, so an error anywhere in it fails the render.
//!
//! [`read`] builds the document's node tree, which the render keeps as its objects;
//! [`read_streamed`] gives the same head from the YAML reader's events without building
//! it, for a render that is only printed (a chart's CRDs are most of its output, and
//! building their trees was a third of its render), and reads with [`read`] whatever the
//! events alone cannot decide.

use crate::yaml::{self, Dialect, Node, NodeKind, Resolved, ScalarStyle, SubsetEvent};

/// A document's kind, its `helm.sh/hook` annotation, and its node (none for an empty or
/// null document).
pub type Head = (String, Option<String>, Option<Node>);

/// Why Helm cannot read a document's head, in its words: sigs.k8s.io/yaml's and
/// `encoding/json`'s, with Go's JSON types of what the document has and what Helm wants.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HeadError {
    /// The document is not YAML.
    #[error(transparent)]
    Yaml(#[from] crate::template::HelmYamlError),
    /// The document is not a mapping.
    #[error("error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {got} into Go value of type releaseutil.SimpleHead")]
    NotAnObject { got: &'static str },
    /// A field of the head with a value of another type.
    #[error("error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {got} into Go struct field {field} of type {want}")]
    Field {
        /// The field as `encoding/json` names it (`SimpleHead.kind`).
        field: &'static str,
        got: &'static str,
        want: &'static str,
    },
}

/// The head read from the document's node tree: the document is parsed and made JSON whole
/// but only its head is looked at.
pub fn read(doc: &str) -> Result<Head, HeadError> {
    let Some(node) = crate::template::helm_yaml_node(doc)? else {
        return Ok((String::new(), None, None));
    };
    crate::template::helm_check_json(&node)?;
    // The JSON kind sigs.k8s.io/yaml gives a node; None for null.
    let go_type = |n: &Node| match &n.kind {
        NodeKind::Scalar(s) => match yaml::resolve_scalar(s, Dialect::Yaml11) {
            Ok(Resolved::Null) => None,
            Ok(Resolved::Bool(_)) => Some("bool"),
            Ok(Resolved::Int(_) | Resolved::Uint(_) | Resolved::Float(_)) => Some("number"),
            _ => Some("string"),
        },
        NodeKind::Seq(_) => Some("array"),
        NodeKind::Map(_) => Some("object"),
    };
    let field_error = |field: &'static str, n: &Node, want: &'static str| HeadError::Field {
        field,
        got: go_type(n).unwrap_or("null"),
        want,
    };
    // sigs.k8s.io/yaml reads any scalar into a string field (`name: n` is "n", not false).
    let string_field = |n: Option<&Node>, field: &'static str| -> Result<String, HeadError> {
        match n {
            None => Ok(String::new()),
            Some(n) => match (&n.kind, go_type(n)) {
                (_, None) => Ok(String::new()),
                (NodeKind::Scalar(s), _) => Ok(s.text.clone()),
                _ => Err(field_error(field, n, "string")),
            },
        }
    };
    match go_type(&node) {
        None => return Ok((String::new(), None, None)),
        Some("object") => {}
        Some(other) => return Err(HeadError::NotAnObject { got: other }),
    }
    string_field(node.get("apiVersion"), "SimpleHead.apiVersion")?;
    let kind = string_field(node.get("kind"), "SimpleHead.kind")?;
    let mut hook = None;
    if let Some(meta) = node.get("metadata") {
        match go_type(meta) {
            None => {}
            Some("object") => {
                string_field(meta.get("name"), "SimpleHead.metadata.name")?;
                if let Some(a) = meta.get("annotations") {
                    match (&a.kind, go_type(a)) {
                        (_, None) => {}
                        (NodeKind::Map(entries), _) => {
                            for (k, v) in entries {
                                let text = string_field(Some(v), ".metadata.annotations")?;
                                if k.as_str() == Some("helm.sh/hook") {
                                    hook = Some(text);
                                }
                            }
                        }
                        _ => {
                            return Err(field_error(
                                ".metadata.annotations",
                                a,
                                "map[string]string",
                            ))
                        }
                    }
                }
            }
            Some(_) => {
                return Err(field_error(
                    "SimpleHead.metadata",
                    meta,
                    "struct { Name string \"json:\\\"name\\\"\"; Annotations map[string]string \"json:\\\"annotations\\\"\" }",
                ))
            }
        }
    }
    Ok((kind, hook, Some(node)))
}

/// The head [`read`] gives, without the node: from the reader's events when they decide it,
/// else from [`read`].
pub fn read_streamed(doc: &str) -> Result<(String, Option<String>), HeadError> {
    match streamed(doc) {
        Some(head) => Ok(head),
        None => read(doc).map(|(kind, hook, _)| (kind, hook)),
    }
}

/// Where a mapping is in the document, for the fields of the head.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Root,
    Metadata,
    Annotations,
    Elsewhere,
}

/// A head field a mapping's key names, at its place.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    ApiVersion,
    Kind,
    Metadata,
    Name,
    Annotations,
    Hook,
    Other,
}

impl Field {
    fn of(place: Place, key: &str) -> Field {
        match (place, key) {
            (Place::Root, "apiVersion") => Field::ApiVersion,
            (Place::Root, "kind") => Field::Kind,
            (Place::Root, "metadata") => Field::Metadata,
            (Place::Metadata, "name") => Field::Name,
            (Place::Metadata, "annotations") => Field::Annotations,
            (Place::Annotations, "helm.sh/hook") => Field::Hook,
            _ => Field::Other,
        }
    }

    /// Its bit in a mapping's set of the fields seen.
    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// An open collection: a mapping at its place, with the field of the key whose value comes
/// next (none when a key comes next), or a sequence.
struct Open {
    place: Place,
    mapping: bool,
    value_of: Option<Field>,
    /// The head fields given so far.
    seen: u8,
}

/// The head from the block-subset reader's events; None when the events alone do not decide
/// it: input outside the subset, a second document, a merge key, a collection key, a key Go
/// may not make a string of (null, uint64), a float JSON cannot hold, a head field of another
/// type or given twice, a document that is not a mapping. Each is an error or needs the
/// node tree's rules ([`read`] decides). Public for the tests that compare the two readers.
#[doc(hidden)]
pub fn streamed(doc: &str) -> Option<(String, Option<String>)> {
    let mut stack: Vec<Open> = Vec::new();
    let mut documents = 0;
    let mut kind = String::new();
    let mut hook = None;
    let null = |text: &str, style: ScalarStyle| {
        style == ScalarStyle::Plain && yaml::plain_tag(text, Dialect::Yaml11) == "!!null"
    };
    let mut each = |event: SubsetEvent| -> bool {
        let top = stack.last_mut();
        match event {
            SubsetEvent::DocumentStart => {
                documents += 1;
                documents == 1
            }
            SubsetEvent::Scalar(text, style) => match top {
                // A root scalar: a null document has no head; any other is not an object.
                None => null(&text, style),
                Some(open) if open.mapping && open.value_of.is_none() => {
                    let plain = style == ScalarStyle::Plain;
                    if plain && text == "<<" {
                        return false;
                    }
                    if plain
                        && crate::template::helm_plain_key_may_fail(&text)
                        && matches!(
                            yaml::resolve_plain(&text, Dialect::Yaml11),
                            Resolved::Null | Resolved::Uint(_)
                        )
                    {
                        return false;
                    }
                    let field = Field::of(open.place, &text);
                    if field != Field::Other {
                        if open.seen & field.bit() != 0 {
                            return false;
                        }
                        open.seen |= field.bit();
                    }
                    open.value_of = Some(field);
                    true
                }
                Some(open) => {
                    if style == ScalarStyle::Plain
                        && crate::template::helm_plain_may_be_non_finite(&text)
                        && matches!(yaml::resolve_plain(&text, Dialect::Yaml11),
                            Resolved::Float(f) if !f.is_finite())
                    {
                        return false;
                    }
                    match open.value_of.take() {
                        Some(Field::Kind) => {
                            kind = if null(&text, style) {
                                String::new()
                            } else {
                                text
                            }
                        }
                        Some(Field::Hook) => {
                            hook = Some(if null(&text, style) {
                                String::new()
                            } else {
                                text
                            })
                        }
                        // A metadata or annotations field must be an object, or null.
                        Some(Field::Metadata | Field::Annotations) => return null(&text, style),
                        _ => {}
                    }
                    true
                }
            },
            SubsetEvent::MappingStart | SubsetEvent::SequenceStart => {
                let mapping = event == SubsetEvent::MappingStart;
                let place = match top {
                    None if mapping => Place::Root,
                    None => return false,
                    Some(open) if open.mapping => match open.value_of {
                        // A collection as a key.
                        None => return false,
                        Some(Field::Metadata) if mapping => Place::Metadata,
                        Some(Field::Annotations) if mapping => Place::Annotations,
                        // A string field, or an annotation, given a collection.
                        Some(Field::Other) if open.place != Place::Annotations => Place::Elsewhere,
                        Some(_) => return false,
                    },
                    Some(_) => Place::Elsewhere,
                };
                stack.push(Open {
                    place,
                    mapping,
                    value_of: None,
                    seen: 0,
                });
                true
            }
            SubsetEvent::CollectionEnd => {
                stack.pop();
                if let Some(parent) = stack.last_mut() {
                    parent.value_of = None;
                }
                true
            }
        }
    };
    if !yaml::read_subset(doc.as_bytes(), &mut each) {
        return None;
    }
    Some((kind, hook))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever the events decide is what the node tree gives; and they decide the common
    /// documents.
    #[test]
    fn the_streamed_head_is_the_trees_head() {
        let bodies = [
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: b\n",
            "kind: Job\nmetadata:\n  name: j\n  annotations:\n    helm.sh/hook: pre-install\n    other: x\n",
            "kind: Job\nmetadata:\n  annotations:\n    helm.sh/hook: a\n    helm.sh/hook: b\n",
            "kind: Job\nmetadata:\n  annotations:\n    helm.sh/hook:\n",
            "kind: Job\nmetadata:\n  annotations:\n    helm.sh/hook: [a]\n",
            "kind: Job\nmetadata:\n  annotations:\n    x: {a: b}\n",
            "kind: Job\nmetadata:\n  annotations: null\n",
            "kind: Job\nmetadata:\n  annotations: x\n",
            "kind: Job\nmetadata:\n  annotations: [x]\n",
            "kind: Job\nmetadata: ~\n",
            "kind: Job\nmetadata: x\n",
            "kind: Job\nmetadata: [x]\n",
            "kind: Job\nmetadata:\n  name: [x]\n",
            "kind: Job\nmetadata:\n  name: 1\n",
            "kind: Job\nmetadata:\n  name: {a: b}\n",
            "kind: 12\n",
            "kind: true\n",
            "kind: null\n",
            "kind: 'null'\n",
            "kind: [a]\n",
            "kind: {a: b}\n",
            "kind: A\nkind: B\n",
            "kind: A\n'kind': B\n",
            "'kind': B\n\"apiVersion\": v1\n\"metadata\": {'annotations': {\"helm.sh/hook\": t}}\n",
            "apiVersion: [v1]\nkind: A\n",
            "apiVersion:\n  x: y\nkind: A\n",
            "metadata:\n  name: a\nmetadata:\n  annotations:\n    helm.sh/hook: test\n",
            "metadata:\n  annotations:\n    helm.sh/hook: test\nmetadata:\n  name: a\n",
            "kind: A\nspec:\n  metadata:\n    annotations:\n      helm.sh/hook: test\n",
            "kind: A\nspec:\n  - kind: B\n  - metadata: {annotations: {helm.sh/hook: x}}\n",
            "kind: A\nspec:\n  x: .inf\n",
            "kind: A\nspec:\n  x: -.5\n",
            "kind: A\nspec:\n  x: .description of a field\n",
            "kind: A\nspec:\n  ~: 1\n",
            "kind: A\nspec:\n  1: 1\n",
            "kind: A\nspec:\n  0xFFFFFFFFFFFFFFFF: 1\n",
            "kind: A\nspec:\n  '1': 1\n",
            "kind: A\nspec:\n  <<: {x: 1}\n",
            "<<: {kind: B}\n",
            "kind: A\nspec:\n  ? [a]\n  : 1\n",
            "kind: A\nspec: !!str x\n",
            "kind: &k A\nx: *k\n",
            "- a\n- b\n",
            "just text\n",
            "~\n",
            "# only a comment\n",
            "kind: A\n---\nkind: B\n",
            "kind: A\n...\n",
            "kind: A\n  bad: indentation\n",
            "kind: \"A\\u0042\"\n",
            "{kind: A, metadata: {name: b, annotations: {helm.sh/hook: post-install}}}\n",
        ];
        let mut streamed_count = 0;
        for body in bodies {
            let whole = read(body).map(|(kind, hook, _)| (kind, hook));
            assert_eq!(read_streamed(body), whole, "{body}");
            if let Some(head) = streamed(body) {
                assert_eq!(Ok(head), whole, "{body}");
                streamed_count += 1;
            }
        }
        assert!(
            streamed_count >= 20,
            "only {streamed_count} read from events"
        );
    }

    /// The same on every document of the YAML files under `testdata/`: charts, manifests,
    /// expected outputs, hostile inputs.
    #[test]
    fn the_streamed_head_is_the_trees_head_on_every_testdata_document() {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path
                    .extension()
                    .is_some_and(|e| e == "yaml" || e == "yml" || e == "tpl")
                {
                    out.push(path);
                }
            }
        }
        let mut files = Vec::new();
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata"),
            &mut files,
        );
        let (mut documents, mut streamed_count) = (0, 0);
        for file in files {
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            for doc in crate::helm::output::split_manifests(&text) {
                documents += 1;
                if let Some(head) = streamed(doc) {
                    let whole = read(doc).map(|(kind, hook, _)| (kind, hook));
                    assert_eq!(Ok(head), whole, "{}:\n{doc}", file.display());
                    streamed_count += 1;
                }
            }
        }
        assert!(
            documents > 2000 && streamed_count * 10 > documents * 8,
            "{streamed_count} of {documents} documents read from events"
        );
    }
}
