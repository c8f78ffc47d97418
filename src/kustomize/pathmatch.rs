//! kyaml's field paths as replacements use them: `spec.template.spec.containers.[name=app].image`
//! (split on unescaped dots, `[k=v]` selects list items, numbers index, `*` every item).
//! [`lookup`] is kyaml's `PathGetter` (sources: one node, exact `[k=v]` match); [`visit`] is
//! kyaml v5.8's `PathMatcher` (targets: every match, `[k=v]` an unanchored regex, optional
//! creation, descent into YAML/JSON held in a string on a detached copy).

use crate::yaml::{self, Node, NodeKind, ParseOptions, Scalar, ScalarStyle, YamlError};
use regex::Regex;

/// Why a field path cannot be followed through a node, in kyaml's words.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PathError {
    /// A negative number where [`lookup`] wants an index.
    #[error("array index {0} cannot be negative")]
    NegativeIndex(i64),
    /// The path goes on through a node of the wrong kind.
    #[error("wrong node kind: expected {expected} but got {got}")]
    WrongKind {
        expected: &'static str,
        got: &'static str,
    },
    /// `*` over a node that is no sequence (kyaml's matcher says only what it expected).
    #[error("wrong node kind: expected SequenceNode")]
    WildcardOverNonSequence,
    /// `*` in a source path, which kyaml's `PathGetter` does not allow.
    #[error("wildcard is not supported in PathGetter")]
    Wildcard,
    /// A `[...]` element without `=`.
    #[error("list path element must contain fieldName=fieldValue for element to match")]
    NoFieldValue { element: String },
    /// A numeric element too large to be an index.
    #[error("invalid index {0}")]
    InvalidIndex(String),
    /// An index past the end of the sequence (one past it when creating).
    #[error("index {index} specified but only {len} elements found")]
    IndexOutOfRange { index: usize, len: usize },
    /// The value of a `[k=v]` element is no regular expression.
    #[error("{source}")]
    Pattern {
        pattern: String,
        source: regex::Error,
    },
    /// A string the path descends into holds no YAML.
    #[error("{0}")]
    Embedded(YamlError),
}

/// Splits a field path on `.`, honouring `\.` and keeping `[a.b=c.d]` together (kyaml
/// `SmarterPathSplitter`).
pub fn split(path: &str) -> Vec<String> {
    let mut raw: Vec<String> = Vec::new();
    let mut parts: Vec<&str> = path.split('.').collect();
    if parts.len() > 1 && parts[0].is_empty() {
        parts.remove(0);
    }
    for p in parts {
        match raw.last_mut() {
            Some(last) if last.ends_with('\\') => {
                last.pop();
                last.push('.');
                last.push_str(p);
            }
            _ => raw.push(p.to_string()),
        }
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < raw.len() {
        let elem = &raw[i];
        if elem.starts_with('[') && !elem.ends_with(']') {
            let mut joined = vec![elem.clone()];
            while i < raw.len() - 1 {
                i += 1;
                joined.push(raw[i].clone());
                if raw[i].ends_with(']') {
                    break;
                }
            }
            let s = joined.join(".");
            if s.contains('=') {
                out.push(s);
            } else {
                out.push(s.trim_matches(|c| c == '[' || c == ']').to_string());
            }
        } else {
            out.push(elem.clone());
        }
        i += 1;
    }
    out
}

fn clean(path: &[String]) -> Vec<String> {
    path.iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

fn is_list_index(p: &str) -> bool {
    p.starts_with('[') && p.ends_with(']')
}

fn is_idx_number(p: &str) -> bool {
    p.parse::<i64>().is_ok_and(|i| i >= 0)
}

fn split_index(p: &str) -> Result<(String, String), PathError> {
    let inner = &p[1..p.len() - 1];
    match inner.split_once('=') {
        Some((k, v)) => Ok((k.to_string(), v.to_string())),
        None => Err(PathError::NoFieldValue {
            element: p.to_string(),
        }),
    }
}

fn kind_name(n: &Node) -> &'static str {
    match n.kind {
        NodeKind::Scalar(_) => "ScalarNode",
        NodeKind::Seq(_) => "SequenceNode",
        NodeKind::Map(_) => "MappingNode",
    }
}

fn wrong_kind(expected: &'static str, n: &Node) -> PathError {
    PathError::WrongKind {
        expected,
        got: kind_name(n),
    }
}

/// kyaml `Lookup(path...)`: the node at `path`, `None` when missing.
pub fn lookup<'a>(node: &'a Node, path: &[String]) -> Result<Option<&'a Node>, PathError> {
    let mut cur = node;
    for part in clean(path) {
        let next = if let Ok(i) = part.parse::<i64>() {
            if i < 0 {
                return Err(PathError::NegativeIndex(i));
            }
            let items = cur
                .as_seq()
                .ok_or_else(|| wrong_kind("SequenceNode", cur))?;
            items.get(i as usize)
        } else if part == "-" {
            let items = cur
                .as_seq()
                .ok_or_else(|| wrong_kind("SequenceNode", cur))?;
            items.last()
        } else if part == "*" {
            return Err(PathError::Wildcard);
        } else if is_list_index(&part) {
            let (k, v) = split_index(&part)?;
            let items = cur
                .as_seq()
                .ok_or_else(|| wrong_kind("SequenceNode", cur))?;
            items.iter().find(|item| {
                if k.is_empty() {
                    item.as_str() == Some(v.as_str())
                } else {
                    item.get(&k).and_then(Node::as_str) == Some(v.as_str())
                }
            })
        } else {
            if !cur.is_map() {
                return Err(wrong_kind("MappingNode", cur));
            }
            cur.get(&part)
        };
        match next {
            Some(n) => cur = n,
            None => return Ok(None),
        }
    }
    Ok(Some(cur))
}

/// The kind of node a path creates for a missing element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Create {
    Scalar,
    Map,
    Seq,
}

impl Create {
    /// The create kind for a value node.
    pub fn of(n: &Node) -> Create {
        match n.kind {
            NodeKind::Scalar(_) => Create::Scalar,
            NodeKind::Seq(_) => Create::Seq,
            NodeKind::Map(_) => Create::Map,
        }
    }

    fn empty(self) -> Node {
        match self {
            Create::Scalar => Node::plain(""),
            Create::Map => Node::map(),
            Create::Seq => Node::seq(),
        }
    }
}

fn part_kind(next: Option<&String>, create: Create) -> Create {
    match next {
        None => create,
        Some(n) if is_list_index(n) || is_idx_number(n) => Create::Seq,
        Some(_) => Create::Map,
    }
}

/// Calls `f` on every node matched by `path` (kyaml v5.8 `PathMatcher`), creating missing parts
/// when `create` is set. Returns how many nodes were visited. `f`'s errors pass through as they
/// are; the path's own become `E` through `From`.
pub fn visit<E: From<PathError>>(
    node: &mut Node,
    path: &[String],
    create: Option<Create>,
    f: &mut dyn FnMut(&mut Node) -> Result<(), E>,
) -> Result<usize, E> {
    let path = clean(path);
    walk(node, &path, create, f)
}

/// Copies of every node matched by `path`, for inspection.
pub fn matches(node: &Node, path: &[String]) -> Result<Vec<Node>, PathError> {
    let mut copy = node.clone();
    let mut out = Vec::new();
    visit(&mut copy, path, None, &mut |n| {
        out.push(n.clone());
        Ok(())
    })?;
    Ok(out)
}

fn walk<E: From<PathError>>(
    node: &mut Node,
    path: &[String],
    create: Option<Create>,
    f: &mut dyn FnMut(&mut Node) -> Result<(), E>,
) -> Result<usize, E> {
    let Some(first) = path.first() else {
        f(node)?;
        return Ok(1);
    };
    if is_idx_number(first) {
        return walk_index(node, path, create, f);
    }
    if is_list_index(first) {
        return walk_seq(node, path, create, f);
    }
    if first == "*" {
        let items = node
            .as_seq_mut()
            .ok_or(PathError::WildcardOverNonSequence)?;
        let mut n = 0;
        for item in items.iter_mut() {
            n += walk(item, &path[1..], create, f)?;
        }
        return Ok(n);
    }
    walk_field(node, path, create, f)
}

fn walk_field<E: From<PathError>>(
    node: &mut Node,
    path: &[String],
    create: Option<Create>,
    f: &mut dyn FnMut(&mut Node) -> Result<(), E>,
) -> Result<usize, E> {
    if !node.is_map() {
        return Err(wrong_kind("MappingNode", node).into());
    }
    let name = &path[0];
    if node.get(name).is_none() {
        let Some(c) = create else {
            return Ok(0);
        };
        node.set(name, part_kind(path.get(1), c).empty());
    }
    let field = node.get_mut(name).expect("present or just created");
    if field.is_scalar() && path.len() > 1 {
        // kyaml v5.8 looks inside YAML/JSON held in the string, on a copy: matches are found
        // (and counted) but writes through this route do not reach the object.
        let text = field.as_str().unwrap_or("").to_string();
        let mut parsed = yaml::parse_one(text.as_bytes(), &ParseOptions::default())
            .map_err(PathError::Embedded)?;
        return walk(&mut parsed, &path[1..], create, f);
    }
    walk(field, &path[1..], create, f)
}

fn walk_index<E: From<PathError>>(
    node: &mut Node,
    path: &[String],
    create: Option<Create>,
    f: &mut dyn FnMut(&mut Node) -> Result<(), E>,
) -> Result<usize, E> {
    let idx: usize = path[0]
        .parse()
        .map_err(|_| PathError::InvalidIndex(path[0].clone()))?;
    let kind = kind_name(node);
    let items = node.as_seq_mut().ok_or(PathError::WrongKind {
        expected: "SequenceNode",
        got: kind,
    })?;
    if items.len() == idx {
        if let Some(c) = create {
            items.push(part_kind(path.get(1), c).empty());
        }
    }
    if items.len() < idx + 1 {
        return Err(PathError::IndexOutOfRange {
            index: idx,
            len: items.len(),
        }
        .into());
    }
    walk(&mut items[idx], &path[1..], create, f)
}

fn walk_seq<E: From<PathError>>(
    node: &mut Node,
    path: &[String],
    create: Option<Create>,
    f: &mut dyn FnMut(&mut Node) -> Result<(), E>,
) -> Result<usize, E> {
    let (field, pattern) = split_index(&path[0])?;
    let re = Regex::new(&pattern).map_err(|source| PathError::Pattern {
        pattern: pattern.clone(),
        source,
    })?;
    let kind = kind_name(node);
    let items = node.as_seq_mut().ok_or(PathError::WrongKind {
        expected: "SequenceNode",
        got: kind,
    })?;
    let text_of = |n: &Node| -> Option<String> {
        match &n.kind {
            NodeKind::Scalar(s) => Some(s.text.trim().to_string()),
            _ => None,
        }
    };
    let mut n = 0;
    for item in items.iter_mut() {
        let value = if field.is_empty() {
            text_of(item)
        } else {
            item.get(&field).and_then(text_of)
        };
        if value.is_some_and(|v| re.is_match(&v)) {
            if field.is_empty() {
                f(item)?;
                n += 1;
            } else {
                n += walk(item, &path[1..], create, f)?;
            }
        }
    }
    if n > 0 || create.is_none() {
        return Ok(n);
    }
    let value = Node::new(NodeKind::Scalar(Scalar {
        text: pattern.clone(),
        style: ScalarStyle::Plain,
        tag: None,
    }));
    let elem = if field.is_empty() {
        value
    } else {
        Node::new(NodeKind::Map(vec![(Node::plain(field), value)]))
    };
    items.push(elem);
    walk_seq(node, path, create, f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse_one;

    fn node(s: &str) -> Node {
        parse_one(s.as_bytes(), &ParseOptions::default()).unwrap()
    }

    #[test]
    fn splits_paths() {
        assert_eq!(
            split("data.config\\.json.server.host"),
            ["data", "config.json", "server", "host"]
        );
        assert_eq!(
            split("spec.containers.[name=a.b].image"),
            ["spec", "containers", "[name=a.b]", "image"]
        );
        assert_eq!(split("a.[b.c].d"), ["a", "b.c", "d"]);
    }

    #[test]
    fn lookup_and_visit() {
        let n = node(
            "spec:\n  containers:\n  - name: app\n    image: a\n  - name: app-2\n    image: b\n",
        );
        let p = split("spec.containers.[name=app].image");
        assert_eq!(lookup(&n, &p).unwrap().unwrap().as_str(), Some("a"));
        // The matcher's [k=v] is an unanchored regex: both containers match.
        assert_eq!(matches(&n, &p).unwrap().len(), 2);
        let mut m = n.clone();
        let count = visit::<PathError>(
            &mut m,
            &split("spec.containers.*.env"),
            Some(Create::Seq),
            &mut |_| Ok(()),
        )
        .unwrap();
        assert_eq!(count, 2);
        assert!(m
            .get_path(&["spec"])
            .unwrap()
            .get("containers")
            .unwrap()
            .as_seq()
            .unwrap()[0]
            .get("env")
            .is_some());
        assert!(lookup(&n, &split("spec.missing.x")).unwrap().is_none());
        let err: PathError = visit(
            &mut n.clone(),
            &split("spec.containers.5.image"),
            None,
            &mut |_| Ok(()),
        )
        .unwrap_err();
        assert_eq!(err, PathError::IndexOutOfRange { index: 5, len: 2 });
        assert_eq!(
            err.to_string(),
            "index 5 specified but only 2 elements found"
        );
        assert_eq!(
            lookup(&n, &split("spec.containers.0.image.x"))
                .unwrap_err()
                .to_string(),
            "wrong node kind: expected MappingNode but got ScalarNode"
        );
    }
}
