//! kustomize's resource identity (kyaml `resid`): group/version/kind, name and namespace, with
//! the "effective namespace" rules (`""` and `default` are the same; cluster-scoped kinds have
//! none) and the built-in table of cluster-scoped types.

use super::schema::BuildSchema;
use crate::resource::split_api_version;
use crate::yaml::Node;
use std::fmt;

/// True when the build's schema knows this type to be cluster-scoped.
pub fn is_cluster_scoped(group: &str, version: &str, kind: &str, schema: &BuildSchema) -> bool {
    let api_version = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    schema.cluster_scoped(&api_version, kind)
}

/// Group, version, kind. `cluster_scoped` is decided when built from an object, as kyaml's
/// `NewGvk` does; ids rebuilt from previous-name annotations never carry it (as upstream).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Gvk {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub cluster_scoped: bool,
}

impl Gvk {
    /// A gvk with the scope looked up in the build's schema.
    pub fn new(group: &str, version: &str, kind: &str, schema: &BuildSchema) -> Gvk {
        Gvk {
            group: group.to_string(),
            version: version.to_string(),
            kind: kind.to_string(),
            cluster_scoped: is_cluster_scoped(group, version, kind, schema),
        }
    }

    /// The gvk of an object node.
    pub fn of(node: &Node, schema: &BuildSchema) -> Gvk {
        let (g, v) = split_api_version(node.str_at(&["apiVersion"]).unwrap_or(""));
        Gvk::new(g, v, node.str_at(&["kind"]).unwrap_or(""), schema)
    }

    /// The gvk of an object node without its scope (for messages, which do not show it).
    pub fn unscoped(node: &Node) -> Gvk {
        let (g, v) = split_api_version(node.str_at(&["apiVersion"]).unwrap_or(""));
        Gvk {
            group: g.to_string(),
            version: v.to_string(),
            kind: node.str_at(&["kind"]).unwrap_or("").to_string(),
            cluster_scoped: false,
        }
    }

    /// Same group, version and kind (scope ignored).
    pub fn equals(&self, o: &Gvk) -> bool {
        self.group == o.group && self.version == o.version && self.kind == o.kind
    }

    /// kyaml `IsSelected`: every non-empty part of the selector matches.
    pub fn is_selected(&self, sel: &Gvk) -> bool {
        (sel.group.is_empty() || self.group == sel.group)
            && (sel.version.is_empty() || self.version == sel.version)
            && (sel.kind.is_empty() || self.kind == sel.kind)
    }

    /// `group/version` or `version`.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

impl fmt::Display for Gvk {
    /// kustomize's `Kind.Version.Group` with `[noKind]`, `[noVer]`, `[noGrp]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let or = |s: &str, e: &'static str| {
            if s.is_empty() {
                e.to_string()
            } else {
                s.to_string()
            }
        };
        write!(
            f,
            "{}.{}.{}",
            or(&self.kind, "[noKind]"),
            or(&self.version, "[noVer]"),
            or(&self.group, "[noGrp]")
        )
    }
}

/// A kustomize resource id.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KId {
    pub gvk: Gvk,
    pub name: String,
    pub namespace: String,
}

/// The namespace kustomize gives cluster-scoped objects when comparing namespaces.
pub const NOT_A_NAMESPACE: &str = "_non_namespaceable_";

impl KId {
    /// The current id of an object node.
    pub fn of(node: &Node, schema: &BuildSchema) -> KId {
        KId {
            gvk: Gvk::of(node, schema),
            ..KId::unscoped(node)
        }
    }

    /// The id of an object node without its scope (for messages, which do not show it).
    pub fn unscoped(node: &Node) -> KId {
        KId {
            gvk: Gvk::unscoped(node),
            name: node.str_at(&["metadata", "name"]).unwrap_or("").to_string(),
            namespace: node
                .str_at(&["metadata", "namespace"])
                .unwrap_or("")
                .to_string(),
        }
    }

    /// `default` for "" and "default", a marker for cluster-scoped ids, else the namespace.
    pub fn effective_namespace(&self) -> &str {
        if self.gvk.cluster_scoped {
            NOT_A_NAMESPACE
        } else if self.namespace.is_empty() || self.namespace == "default" {
            "default"
        } else {
            &self.namespace
        }
    }

    /// Same effective namespace.
    pub fn is_ns_equals(&self, o: &KId) -> bool {
        self.effective_namespace() == o.effective_namespace()
    }

    /// Same gvk and name.
    pub fn gvkn_equals(&self, o: &KId) -> bool {
        self.name == o.name && self.gvk.equals(&o.gvk)
    }

    /// Same gvk, name and effective namespace.
    pub fn equals(&self, o: &KId) -> bool {
        self.is_ns_equals(o) && self.gvkn_equals(o)
    }

    /// kyaml `IsSelectedBy`.
    pub fn is_selected_by(&self, sel: &KId) -> bool {
        (sel.name.is_empty() || sel.name == self.name)
            && (sel.namespace.is_empty() || sel.is_ns_equals(self))
            && self.gvk.is_selected(&sel.gvk)
    }
}

impl fmt::Display for KId {
    /// kustomize's `Kind.Version.Group/name.namespace` with `[noName]` and `[noNs]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = if self.namespace.is_empty() {
            "[noNs]"
        } else {
            &self.namespace
        };
        let name = if self.name.is_empty() {
            "[noName]"
        } else {
            &self.name
        };
        write!(f, "{}/{name}.{ns}", self.gvk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_namespaces() {
        let id = KId {
            gvk: Gvk::new("apps", "v1", "Deployment", &BuildSchema::default()),
            name: "web".into(),
            namespace: String::new(),
        };
        assert_eq!(id.to_string(), "Deployment.v1.apps/web.[noNs]");
        assert_eq!(id.effective_namespace(), "default");
        let ns = KId {
            gvk: Gvk::new("", "v1", "Namespace", &BuildSchema::default()),
            name: "x".into(),
            namespace: String::new(),
        };
        assert!(ns.gvk.cluster_scoped);
        assert_eq!(ns.to_string(), "Namespace.v1.[noGrp]/x.[noNs]");
        assert_eq!(ns.effective_namespace(), NOT_A_NAMESPACE);
    }
}
