//! namePrefix / nameSuffix (PrefixTransformer, SuffixTransformer): prepend or append to the
//! configured name fields, recording the old id for name references. CRDs, APIServices and
//! Namespaces are skipped.

use super::super::fieldspec::{apply, CreateKind, FieldSpec, PluginFieldSpec};
use super::super::kid::Gvk;
use super::super::resmap::ResMap;
use super::{set_scalar, SetError};
use std::borrow::Cow;

/// Prefix or suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Affix {
    Prefix,
    Suffix,
}

fn skipped(id: &Gvk) -> bool {
    let sel = |g: &str, k: &str| Gvk {
        group: g.into(),
        kind: k.into(),
        ..Gvk::default()
    };
    [
        sel("", "CustomResourceDefinition"),
        sel("apiregistration.k8s.io", "APIService"),
        sel("", "Namespace"),
    ]
    .iter()
    .any(|s| id.is_selected(s))
}

/// Applies the prefix or suffix to every resource.
pub fn apply_affix(
    rm: &mut ResMap,
    affix: Affix,
    value: &str,
    specs: &[FieldSpec],
) -> Result<(), SetError> {
    for r in &mut rm.list {
        let org = r.org_id();
        if skipped(&org.gvk) {
            continue;
        }
        for fs in specs {
            if !org.gvk.is_selected(&fs.gvk) {
                continue;
            }
            if fs.path == "metadata/name" {
                match affix {
                    Affix::Prefix => r.add_name_prefix(value),
                    Affix::Suffix => r.add_name_suffix(value),
                }
                if !value.is_empty() {
                    r.store_previous_id();
                }
            }
            apply(&mut r.node, fs, CreateKind::Scalar, &mut |n| {
                let old = n.as_str().unwrap_or("").to_string();
                let new = match affix {
                    Affix::Prefix => format!("{value}{old}"),
                    Affix::Suffix => format!("{old}{value}"),
                };
                set_scalar(n, &new, None)
            })?;
        }
    }
    Ok(())
}

/// PrefixSuffixTransformer (and PrefixTransformer, SuffixTransformer): a prefix and a suffix,
/// each applied when not empty.
pub struct Config<'a> {
    pub prefix: Cow<'a, str>,
    pub suffix: Cow<'a, str>,
    pub specs: Cow<'a, [FieldSpec]>,
}

impl Config<'_> {
    pub fn apply(&self, rm: &mut ResMap) -> Result<(), SetError> {
        if !self.prefix.is_empty() {
            apply_affix(rm, Affix::Prefix, &self.prefix, &self.specs)?;
        }
        if !self.suffix.is_empty() {
            apply_affix(rm, Affix::Suffix, &self.suffix, &self.specs)?;
        }
        Ok(())
    }
}

/// Their plugin config.
#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct PluginConfig {
    #[serde(default)]
    pub prefix: String,
    #[serde(default)]
    pub suffix: String,
    #[serde(default)]
    pub field_specs: Vec<PluginFieldSpec>,
}
