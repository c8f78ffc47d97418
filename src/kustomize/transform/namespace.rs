//! namespace (NamespaceTransformer): sets metadata.namespace on namespaced objects, renames a
//! Namespace object, updates the configured reference fields, and moves RoleBinding subjects
//! named `default`.

use super::super::fieldspec::{apply, plugin_specs, CreateKind, FieldSpec, PluginFieldSpec};
use super::super::kid::KId;
use super::super::resmap::{IdKey, ResMap};
use super::{set_scalar, wrong_kind, SetError, WrongKind};
use crate::yaml::Node;
use std::borrow::Cow;
use std::collections::HashMap;

/// Which RoleBinding subjects get the namespace (`setRoleBindingSubjects`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubjectMode {
    DefaultOnly,
    AllServiceAccounts,
    None,
}

impl SubjectMode {
    /// The field of a subject that decides whether it gets the namespace, and its value.
    fn subject_field(self) -> Option<(&'static str, &'static str)> {
        match self {
            SubjectMode::DefaultOnly => Some(("name", "default")),
            SubjectMode::AllServiceAccounts => Some(("kind", "ServiceAccount")),
            SubjectMode::None => None,
        }
    }
}

/// Why the namespace cannot be set, in kustomize's words.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NamespaceError {
    /// A field spec (`metadata/namespace` or a configured one) failed.
    #[error("namespace transformation failed: {0}")]
    Field(SetError),
    /// A RoleBinding's `subjects` is no list, or a subject's `namespace` is no scalar.
    #[error("setting namespace on (cluster)role binding subjects: {0}")]
    Subject(WrongKind),
    /// A subject is no mapping, or the field that decides whether it gets the namespace
    /// (`name`, or `kind` with `allServiceAccounts`) is no scalar.
    #[error("setting namespace on (cluster)role binding subjects: looking up {field} on (cluster)role binding subject: {error}")]
    SubjectLookup {
        field: &'static str,
        error: WrongKind,
    },
    /// Two objects end up with the same id.
    #[error("namespace transformation produces ID conflict: {id} appears {count} times")]
    Conflict { id: KId, count: usize },
    /// A `setRoleBindingSubjects` kustomize does not know.
    #[error("invalid value \"{0}\" for setRoleBindingSubjects: must be one of \"defaultOnly\", \"none\" or \"allServiceAccounts\"")]
    SubjectMode(String),
}

/// Applies the namespace.
pub fn apply_namespace(
    rm: &mut ResMap,
    namespace: &str,
    specs: &[FieldSpec],
    unset_only: bool,
    mode: SubjectMode,
) -> Result<(), NamespaceError> {
    if namespace.is_empty() {
        return Ok(());
    }
    // How many resources have each current id, kept up to date as ids change, so that the
    // conflict check after each resource does not rebuild every id.
    let mut counts: HashMap<IdKey, usize> = HashMap::new();
    for r in &rm.list {
        *counts.entry(IdKey::of(&r.cur_id())).or_default() += 1;
    }
    for i in 0..rm.list.len() {
        let r = &mut rm.list[i];
        let old = IdKey::of(&r.cur_id());
        r.store_previous_id();
        let api_version = r.api_version().to_string();
        let gvk = r.gvk();
        let mut fs: Vec<FieldSpec> = specs
            .iter()
            .filter(|f| f.path != "metadata/namespace")
            .filter(|f| api_version == "v1" || f.path != "metadata/name")
            .cloned()
            .collect();
        let mut setter = |n: &mut Node| -> Result<(), WrongKind> {
            if unset_only && n.as_text().is_some_and(|t| !t.is_empty()) {
                return Ok(());
            }
            set_scalar(n, namespace, Some("!!str"))
        };
        if !gvk.cluster_scoped {
            apply(
                &mut r.node,
                &FieldSpec::any("metadata/namespace", true),
                CreateKind::Scalar,
                &mut setter,
            )
            .map_err(NamespaceError::Field)?;
        }
        if gvk.kind == "RoleBinding" || gvk.kind == "ClusterRoleBinding" {
            fs.retain(|f| !(is_rb(&f.gvk.kind) && f.path == "subjects/namespace"));
            let subjects = r.node.get_mut("subjects").filter(|n| !n.is_null());
            if let (Some(subjects), Some((field, wanted))) = (subjects, mode.subject_field()) {
                let subjects = match subjects.as_seq_mut() {
                    Some(items) => items,
                    None => {
                        return Err(NamespaceError::Subject(wrong_kind(
                            "SequenceNode",
                            subjects,
                        )))
                    }
                };
                for s in subjects.iter_mut().filter(|s| !s.is_null()) {
                    if !subject_matches(s, field, wanted)? {
                        continue;
                    }
                    if s.get("namespace").is_none() {
                        s.set("namespace", Node::plain(""));
                    }
                    let n = s.get_mut("namespace").expect("just ensured");
                    setter(n).map_err(NamespaceError::Subject)?;
                }
            }
        }
        for f in &fs {
            apply(&mut r.node, f, CreateKind::Scalar, &mut setter)
                .map_err(NamespaceError::Field)?;
        }
        let id = rm.list[i].cur_id();
        if let Some(n) = counts.get_mut(&old) {
            *n -= 1;
        }
        let n = {
            let n = counts.entry(IdKey::of(&id)).or_default();
            *n += 1;
            *n
        };
        if n != 1 {
            return Err(NamespaceError::Conflict { id, count: n });
        }
    }
    Ok(())
}

/// kyaml's `Lookup(field)` and `Match(wanted)` on a subject: a subject that is no mapping,
/// or a `field` that is no scalar, fails.
fn subject_matches(s: &Node, field: &'static str, wanted: &str) -> Result<bool, NamespaceError> {
    let lookup = |error| NamespaceError::SubjectLookup { field, error };
    if !s.is_map() {
        return Err(lookup(wrong_kind("MappingNode", s)));
    }
    match s.get(field) {
        Some(v) if v.as_scalar().is_none() => Err(lookup(wrong_kind("ScalarNode", v))),
        Some(v) => Ok(!v.is_null() && v.as_text() == Some(wanted)),
        None => Ok(false),
    }
}

fn is_rb(kind: &str) -> bool {
    kind == "RoleBinding" || kind == "ClusterRoleBinding"
}

/// NamespaceTransformer.
pub struct Config<'a> {
    pub namespace: Cow<'a, str>,
    pub specs: Cow<'a, [FieldSpec]>,
    pub unset_only: bool,
    pub mode: SubjectMode,
}

impl Config<'_> {
    pub fn apply(&self, rm: &mut ResMap) -> Result<(), NamespaceError> {
        apply_namespace(rm, &self.namespace, &self.specs, self.unset_only, self.mode)
    }

    /// The config a plugin config describes.
    pub fn from_plugin(c: PluginConfig) -> Result<Config<'static>, NamespaceError> {
        let mode = match c.set_role_binding_subjects.as_str() {
            "" | "defaultOnly" => SubjectMode::DefaultOnly,
            "allServiceAccounts" => SubjectMode::AllServiceAccounts,
            "none" => SubjectMode::None,
            other => return Err(NamespaceError::SubjectMode(other.to_string())),
        };
        Ok(Config {
            namespace: Cow::Owned(c.metadata.namespace),
            specs: Cow::Owned(plugin_specs(c.field_specs)),
            unset_only: c.unset_only,
            mode,
        })
    }
}

/// Its plugin config.
#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct PluginConfig {
    #[serde(default)]
    pub metadata: super::super::types::PluginMeta,
    #[serde(default)]
    pub field_specs: Vec<PluginFieldSpec>,
    #[serde(default)]
    pub unset_only: bool,
    #[serde(default)]
    pub set_role_binding_subjects: String,
}
