//! images (ImageTagTransformer): rewrites container images matching `name` (newName, newTag,
//! digest, tagSuffix). Like kustomize, it first walks every `containers`/`initContainers` list
//! anywhere in the object (the legacy pass), then the configured field specs.

use super::super::fieldspec::{apply, CreateKind, FieldSpec, PluginFieldSpec};
use super::super::resmap::ResMap;
use super::super::types::Image;
use super::{set_scalar, SetError, WrongKind};
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

/// kustomize `image.Split`: name, tag and digest (a registry port is not a tag).
pub fn split(image: &str) -> (String, String, String) {
    let (search, offset) = match image.find('/') {
        Some(i) if i > 0 => (&image[i..], i),
        _ => (image, 0),
    };
    let at = search.find('@');
    let colon = search.find(':');
    match (at, colon) {
        (None, None) => (image.to_string(), String::new(), String::new()),
        (Some(d), c) if c.is_none() || d < c.unwrap_or(usize::MAX) => {
            let d = d + offset;
            (
                image[..d].to_string(),
                String::new(),
                image[d + 1..].to_string(),
            )
        }
        (Some(d), Some(c)) => {
            let (d, c) = (d + offset, c + offset);
            (
                image[..c].to_string(),
                image[c + 1..d].to_string(),
                image[d + 1..].to_string(),
            )
        }
        (None, Some(c)) => {
            let c = c + offset;
            (
                image[..c].to_string(),
                image[c + 1..].to_string(),
                String::new(),
            )
        }
        (Some(_), None) => unreachable!("handled by the digest-first arm"),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_kustomize() {
        let s = |x: &str| {
            let (a, b, c) = split(x);
            (a, b, c)
        };
        assert_eq!(s("nginx"), ("nginx".into(), "".into(), "".into()));
        assert_eq!(s("nginx:1.2"), ("nginx".into(), "1.2".into(), "".into()));
        assert_eq!(
            s("reg:5000/app:v1"),
            ("reg:5000/app".into(), "v1".into(), "".into())
        );
        assert_eq!(
            s("app@sha256:ab"),
            ("app".into(), "".into(), "sha256:ab".into())
        );
        assert_eq!(
            s("app:v1@sha256:ab"),
            ("app".into(), "v1".into(), "sha256:ab".into())
        );
    }
}
