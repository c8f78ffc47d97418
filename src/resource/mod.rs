//! Kubernetes resources: a YAML node plus where it came from, identified by [`ResId`].

pub mod image;
pub mod ordering;

pub use ordering::{legacy_sort, LegacyOrder};

use crate::source::RepoPath;
use crate::yaml::{Node, Span};
use std::fmt;

/// Group, version, kind, namespace and name of an object: what kustomize calls a ResId.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResId {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

impl ResId {
    /// The id of a resource node (`apiVersion`, `kind`, `metadata.namespace`, `metadata.name`).
    pub fn of(node: &Node) -> ResId {
        let api_version = node.str_at(&["apiVersion"]).unwrap_or("");
        let (group, version) = split_api_version(api_version);
        ResId {
            group: group.to_string(),
            version: version.to_string(),
            kind: node.str_at(&["kind"]).unwrap_or("").to_string(),
            namespace: node
                .str_at(&["metadata", "namespace"])
                .unwrap_or("")
                .to_string(),
            name: node.str_at(&["metadata", "name"]).unwrap_or("").to_string(),
        }
    }

    /// `group/version` or just `version` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The same object ignoring the namespace difference between "" and "default".
    pub fn namespace_or_default(&self) -> &str {
        if self.namespace.is_empty() {
            "default"
        } else {
            &self.namespace
        }
    }
}

/// Splits `apps/v1` into (`apps`, `v1`) and `v1` into (``, `v1`).
pub fn split_api_version(api_version: &str) -> (&str, &str) {
    match api_version.split_once('/') {
        Some((g, v)) => (g, v),
        None => ("", api_version),
    }
}

/// The report form `group/version/Kind/namespace/name`, with `core` for the empty group and `_`
/// for no namespace (DESIGN.md section 4).
impl fmt::Display for ResId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let group = if self.group.is_empty() {
            "core"
        } else {
            &self.group
        };
        let ns = if self.namespace.is_empty() {
            "_"
        } else {
            &self.namespace
        };
        write!(
            f,
            "{group}/{}/{}/{ns}/{}",
            self.version, self.kind, self.name
        )
    }
}

/// Where a resource was read from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    pub file: RepoPath,
    pub span: Span,
}

/// One rendered Kubernetes object.
#[derive(Clone, Debug, PartialEq)]
pub struct Resource {
    pub node: Node,
    pub origin: Origin,
}

impl Resource {
    /// A resource read from `file`.
    pub fn new(node: Node, file: RepoPath) -> Resource {
        let span = node.span;
        Resource {
            node,
            origin: Origin { file, span },
        }
    }

    /// The current id (computed from the node, so it follows transformations).
    pub fn id(&self) -> ResId {
        ResId::of(&self.node)
    }

    /// `kind`.
    pub fn kind(&self) -> &str {
        self.node.str_at(&["kind"]).unwrap_or("")
    }

    /// `metadata.name`.
    pub fn name(&self) -> &str {
        self.node.str_at(&["metadata", "name"]).unwrap_or("")
    }

    /// True when the object's node was parsed from its origin file, so that the lines of its
    /// nodes are lines of that file (a plain manifest, a kustomization's resource), not of
    /// output kdelta made (a chart's, a plugin's).
    pub fn read_from_file(&self) -> bool {
        let file = self.origin.file.as_str();
        self.origin.span.line > 0 && [".yaml", ".yml", ".json"].iter().any(|e| file.ends_with(e))
    }

    /// The file and position a node of this object at `span` was read from: its own file (a
    /// field a kustomize patch wrote is in the patch file), or the object's file when the
    /// object was read from it. None for a node kdelta made, or one of output (a chart's).
    pub fn field_location(&self, span: Span) -> Option<(String, u32, u32)> {
        if !span.is_known() {
            return None;
        }
        if let Some(file) = span.file.name() {
            return Some((file.to_string(), span.line, span.column));
        }
        self.read_from_file()
            .then(|| (self.origin.file.to_string(), span.line, span.column))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{parse_one, ParseOptions};

    #[test]
    fn ids_and_display() {
        let n = parse_one(
            b"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: prod\n",
            &ParseOptions::default(),
        )
        .unwrap();
        let id = ResId::of(&n);
        assert_eq!(id.to_string(), "apps/v1/Deployment/prod/web");
        assert_eq!(id.api_version(), "apps/v1");
        let n = parse_one(
            b"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: prod\n",
            &ParseOptions::default(),
        )
        .unwrap();
        assert_eq!(ResId::of(&n).to_string(), "core/v1/Namespace/_/prod");
    }
}
