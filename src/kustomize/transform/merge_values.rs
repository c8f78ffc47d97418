//! configMapGenerator / secretGenerator `mergeValues` (kdelta's implementation of kustomize
//! proposal 22-03, which kustomize itself does not implement): with `behavior: merge`, the
//! values of the listed keys are merged as structured data — maps deep-merged with the
//! overlay's values winning, lists and scalars replaced — instead of the overlay's string
//! replacing the base's. The result keeps the base's serialisation style (compact or pretty
//! JSON, or YAML), as replacements into embedded data do.

use crate::yaml::{self, Node, NodeKind, ParseOptions, ValueError, YamlError};

/// Which of the two values an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Base,
    Overlay,
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Side::Base => "base",
            Side::Overlay => "overlay",
        })
    }
}

/// Why two values cannot be merged.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MergeValueError {
    /// A format other than `json` or `yaml`.
    #[error("mergeValues format must be 'json' or 'yaml', not '{format}'")]
    Format { format: String },
    /// A value that does not parse; the error's span is in the value's text.
    #[error("the {side} value is not valid {format}: {error}")]
    Parse {
        side: Side,
        format: String,
        error: YamlError,
    },
    /// A `json` value that is a scalar.
    #[error("the {side} value is not a JSON object or array")]
    NotACollection { side: Side },
    /// The merged value cannot be written as the base's text was.
    #[error(transparent)]
    Serialize(#[from] ValueError),
}

/// Merges `overlay` into `base`, both holding `format` (`json` or `yaml`) text.
pub fn merge_value(base: &str, overlay: &str, format: &str) -> Result<String, MergeValueError> {
    if !matches!(format, "json" | "yaml") {
        return Err(MergeValueError::Format {
            format: format.to_string(),
        });
    }
    let parse = |text: &str, side: Side| {
        let node = yaml::parse_one(text.as_bytes(), &ParseOptions::default()).map_err(|error| {
            MergeValueError::Parse {
                side,
                format: format.to_string(),
                error,
            }
        })?;
        if format == "json" && !matches!(text.trim_start().chars().next(), Some('{' | '[')) {
            return Err(MergeValueError::NotACollection { side });
        }
        Ok::<Node, MergeValueError>(node)
    };
    let mut merged = parse(base, Side::Base)?;
    let over = parse(overlay, Side::Overlay)?;
    deep_merge(&mut merged, over);
    Ok(super::replacement::serialize_embedded(&merged, base)?)
}

fn deep_merge(base: &mut Node, overlay: Node) {
    let (span, flow, shared) = (overlay.span, overlay.flow(), overlay.shared());
    match (&mut base.kind, overlay.kind) {
        (NodeKind::Map(b), NodeKind::Map(o)) => {
            for (k, v) in o {
                match b
                    .iter_mut()
                    .find(|(bk, _)| bk.as_str().is_some() && bk.as_str() == k.as_str())
                {
                    Some((_, bv)) => deep_merge(bv, v),
                    None => b.push((k, v)),
                }
            }
        }
        (_, kind) => *base = Node::from_parts(kind, span, flow, shared),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_maps_merge_lists_replace() {
        let base = r#"{"server":{"host":"a","port":80},"tags":["x"]}"#;
        let over = r#"{"server":{"port":8080},"tags":["y","z"],"debug":true}"#;
        assert_eq!(
            merge_value(base, over, "json").unwrap(),
            r#"{"debug":true,"server":{"host":"a","port":8080},"tags":["y","z"]}"#
        );
    }

    #[test]
    fn yaml_keeps_order_and_pretty_json_stays_pretty() {
        let out = merge_value("a: 1\nb:\n  c: 2\n", "b:\n  d: 3\n", "yaml").unwrap();
        assert_eq!(out, "a: 1\nb:\n  c: 2\n  d: 3");
        let pretty = "{\n  \"a\": 1\n}";
        assert_eq!(
            merge_value(pretty, "{\"b\": 2}", "json").unwrap(),
            "{\n  \"a\": 1,\n  \"b\": 2\n}"
        );
        assert!(merge_value("{", "{}", "json").is_err());
        assert!(merge_value("a: 1", "{}", "toml").is_err());
    }
}
