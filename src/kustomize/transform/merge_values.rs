//! configMapGenerator / secretGenerator `mergeValues` (kdelta's implementation of kustomize
//! proposal 22-03, which kustomize itself does not implement): with `behavior: merge`, the
//! values of the listed keys are merged as structured data — maps deep-merged with the
//! overlay's values winning, lists and scalars replaced — instead of the overlay's string
//! replacing the base's. The result keeps the base's serialisation style (compact or pretty
//! JSON, or YAML), as replacements into embedded data do.

use crate::yaml::{self, Node, NodeKind, ParseOptions};

/// Merges `overlay` into `base`, both holding `format` (`json` or `yaml`) text.
pub fn merge_value(base: &str, overlay: &str, format: &str) -> Result<String, String> {
    if !matches!(format, "json" | "yaml") {
        return Err(format!(
            "mergeValues format must be 'json' or 'yaml', not '{format}'"
        ));
    }
    let parse = |text: &str, which: &str| {
        let node = yaml::parse_one(text.as_bytes(), &ParseOptions::default())
            .map_err(|e| format!("the {which} value is not valid {format}: {e}"))?;
        if format == "json" && !matches!(text.trim_start().chars().next(), Some('{' | '[')) {
            return Err(format!("the {which} value is not a JSON object or array"));
        }
        Ok::<Node, String>(node)
    };
    let mut merged = parse(base, "base")?;
    let over = parse(overlay, "overlay")?;
    deep_merge(&mut merged, over);
    super::replacement::serialize_embedded(&merged, base)
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
