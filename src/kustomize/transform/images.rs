//! images (ImageTagTransformer): rewrites container images matching `name` (newName, newTag,
//! digest, tagSuffix). Like kustomize, it first walks every `containers`/`initContainers` list
//! anywhere in the object (the legacy pass), then the configured field specs.

use super::super::fieldspec::{apply, CreateKind, FieldSpec, PluginFieldSpec};
use super::super::resmap::ResMap;
use super::super::types::Image;
use super::{set_scalar, SetError, WrongKind};
use crate::resource::image::split;
use crate::yaml::{Node, NodeKind};
use regex::Regex;
use std::borrow::Cow;

/// Why an `images:` entry cannot be applied.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ImageError {
    /// The name makes no regular expression (kustomize uses it unescaped).
    #[error("invalid image name {name:?}: {source}")]
    Pattern { name: String, source: regex::Error },
    /// An `image` field of a `containers` list is no scalar.
    #[error(transparent)]
    Legacy(#[from] WrongKind),
    /// A configured field spec failed.
    #[error(transparent)]
    Set(#[from] SetError),
}

/// Applies one `images:` entry.
pub fn apply_image(rm: &mut ResMap, image: &Image, specs: &[FieldSpec]) -> Result<(), ImageError> {
    // kustomize builds the pattern from the name unescaped.
    let pattern = Regex::new(&format!(
        "^{}(:[a-zA-Z0-9_.{{}}-]*)?(@sha256:[a-zA-Z0-9_.{{}}-]*)?$",
        image.name
    ))
    .map_err(|source| ImageError::Pattern {
        name: image.name.clone(),
        source,
    })?;
    for r in &mut rm.list {
        if r.kind() == "CustomResourceDefinition" {
            continue;
        }
        legacy_walk(&mut r.node, &mut |n| update(n, image, &pattern))?;
        for fs in specs {
            apply(&mut r.node, fs, CreateKind::Nothing, &mut |n| {
                update(n, image, &pattern)
            })?;
        }
    }
    Ok(())
}

/// Visits every `containers`/`initContainers` sequence at any depth, children first.
fn legacy_walk(
    node: &mut Node,
    f: &mut dyn FnMut(&mut Node) -> Result<(), WrongKind>,
) -> Result<(), WrongKind> {
    match &mut node.kind {
        NodeKind::Map(entries) => {
            for (k, v) in entries.iter_mut() {
                legacy_walk(v, f)?;
                if matches!(k.as_str(), Some("containers" | "initContainers")) {
                    if let Some(items) = v.as_seq_mut() {
                        for item in items {
                            if let Some(img) = item.get_mut("image") {
                                f(img)?;
                            }
                        }
                    }
                }
            }
            Ok(())
        }
        NodeKind::Seq(items) => {
            for item in items {
                legacy_walk(item, f)?;
            }
            Ok(())
        }
        NodeKind::Scalar(_) => Ok(()),
    }
}

fn update(n: &mut Node, image: &Image, pattern: &Regex) -> Result<(), WrongKind> {
    let Some(value) = n.as_scalar().map(|s| s.text.clone()) else {
        return Err(super::wrong_kind("ScalarNode", n));
    };
    if !pattern.is_match(&value) {
        return Ok(());
    }
    let (mut name, mut tag, mut digest) = split(&value);
    if !image.new_name.is_empty() {
        name = image.new_name.clone();
    }
    if !image.new_tag.is_empty() && !image.digest.is_empty() {
        tag = image.new_tag.clone();
        digest = image.digest.clone();
    } else if !image.new_tag.is_empty() {
        tag = image.new_tag.clone();
        digest.clear();
    } else if !image.digest.is_empty() {
        tag.clear();
        digest = image.digest.clone();
    } else if !image.tag_suffix.is_empty() {
        tag.push_str(&image.tag_suffix);
        digest.clear();
    }
    if !tag.is_empty() {
        name = format!("{name}:{tag}");
    }
    if !digest.is_empty() {
        name = format!("{name}@{digest}");
    }
    set_scalar(n, &name, None)
}

/// ImageTagTransformer.
pub struct Config<'a> {
    pub image: Cow<'a, Image>,
    pub specs: Cow<'a, [FieldSpec]>,
}

impl Config<'_> {
    pub fn apply(&self, rm: &mut ResMap) -> Result<(), ImageError> {
        apply_image(rm, &self.image, &self.specs)
    }
}

/// Its plugin config.
#[derive(serde::Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct PluginConfig {
    #[serde(default)]
    pub image_tag: Image,
    #[serde(default)]
    pub field_specs: Vec<PluginFieldSpec>,
}
