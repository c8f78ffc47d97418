//! The builtin ValueAddTransformer: writes one value into a field of the selected objects, or
//! into one part of a slash-separated path held in that field (`filePathPosition`).

use super::super::fieldspec::split_path;
use super::super::pathmatch::{self, Create, PathError};
use super::super::resmap::ResMap;
use super::super::selector::SelectorError;
use super::super::types::Selector;
use super::namespace::{apply_namespace, NamespaceError, SubjectMode};
use super::patch::select;
use crate::yaml::{plain_tag, Dialect, NodeKind, Scalar, ScalarStyle};

/// One target of the transformer.
pub struct Target<'a> {
    pub selector: Option<&'a Selector>,
    pub field_path: &'a str,
    pub file_path_position: i64,
}

/// Why the transformer fails.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ValueAddError {
    /// The field path cannot be followed.
    #[error(transparent)]
    Path(#[from] PathError),
    /// The path ends at a mapping or sequence (kyaml's `FieldSetter` sets scalars only).
    #[error("wrong node kind: expected ScalarNode")]
    NotScalar,
    /// The namespace filter (for `metadata/namespace`) failed.
    #[error(transparent)]
    Namespace(#[from] NamespaceError),
    /// The selector does not compile.
    #[error(transparent)]
    Selector(#[from] SelectorError),
}

/// Applies `value` to every target in order.
pub fn apply(rm: &mut ResMap, value: &str, targets: &[Target]) -> Result<(), ValueAddError> {
    for t in targets {
        let selected = match t.selector {
            Some(sel) => select(rm, sel)?,
            None => (0..rm.list.len()).collect(),
        };
        if t.field_path == "metadata/namespace" {
            // kustomize runs its namespace filter here, without extra field specs.
            let mut picked = ResMap::new();
            picked.list = selected.iter().map(|&i| rm.list[i].clone()).collect();
            apply_namespace(&mut picked, value, &[], false, SubjectMode::DefaultOnly)?;
            for (&i, r) in selected.iter().zip(picked.list) {
                rm.list[i] = r;
            }
            continue;
        }
        let fields = split_path(t.field_path);
        for &i in &selected {
            pathmatch::visit(
                &mut rm.list[i].node,
                &fields,
                Some(Create::Scalar),
                &mut |n| {
                    let NodeKind::Scalar(s) = &mut n.kind else {
                        return Err(ValueAddError::NotScalar);
                    };
                    let text = if t.file_path_position > 0 {
                        insert_path_part(&s.text, (t.file_path_position - 1) as usize, value)
                    } else {
                        value.to_string()
                    };
                    // kyaml's FieldSetter{StringValue}: an untagged scalar in the old style,
                    // quoted when YAML 1.1 would not read it as a string.
                    let style = if plain_tag(&text, Dialect::Yaml11) != "!!str" && !text.is_empty()
                    {
                        ScalarStyle::DoubleQuoted
                    } else {
                        s.style
                    };
                    *s = Scalar {
                        text,
                        style,
                        tag: None,
                    };
                    Ok(())
                },
            )?;
        }
    }
    Ok(())
}

/// kyaml `filesys.InsertPathPart`: `part` becomes path element `pos` (an absolute path keeps
/// its leading slash).
fn insert_path_part(path: &str, pos: usize, part: &str) -> String {
    if part.is_empty() {
        return path.to_string();
    }
    let mut parts: Vec<&str> = if path.is_empty() {
        Vec::new()
    } else {
        path.split('/').collect()
    };
    let mut pos = pos.min(parts.len());
    if parts.first() == Some(&"") && pos < parts.len() {
        pos += 1;
    }
    parts.insert(pos, part);
    parts.join("/")
}

/// Its plugin config: the value (empty: the kustomization directory's name), the targets, and
/// a file holding more targets.
#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct PluginConfig {
    #[serde(default)]
    pub value: String,
    #[serde(default)]
    pub targets: Vec<PluginTarget>,
    #[serde(default)]
    pub target_file_path: String,
}

/// The file `targetFilePath` names.
#[derive(serde::Deserialize, Default)]
pub struct PluginTargets {
    #[serde(default)]
    pub targets: Vec<PluginTarget>,
}

/// One target as a plugin config writes it.
#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct PluginTarget {
    #[serde(default)]
    pub selector: Option<Selector>,
    #[serde(default)]
    pub field_path: String,
    #[serde(default)]
    pub file_path_position: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_parts() {
        assert_eq!(insert_path_part("a/b/c", 0, "x"), "x/a/b/c");
        assert_eq!(insert_path_part("/a/b", 1, "x"), "/a/x/b");
        assert_eq!(insert_path_part("a", 9, "x"), "a/x");
    }
}
