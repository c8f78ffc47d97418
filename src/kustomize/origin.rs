//! `buildMetadata: [originAnnotations, transformerAnnotations]`: where each resource came from
//! (`config.kubernetes.io/origin`) and which transformers touched it
//! (`alpha.config.kubernetes.io/transformations`), in kustomize's YAML layout.

use super::res::{anno, Res};
use super::resmap::ResMap;

/// A kustomize `resource.Origin`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    pub path: String,
    pub configured_in: String,
    /// The generator or transformer.
    pub configured_by: Option<ConfiguredBy>,
}

/// kyaml `ResourceIdentifier` of a plugin config.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConfiguredBy {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub namespace: String,
}

impl Origin {
    /// A builtin generator or transformer configured in `kust_file`.
    pub fn builtin(kust_file: &str, kind: &str) -> Origin {
        Origin {
            path: String::new(),
            configured_in: kust_file.to_string(),
            configured_by: Some(ConfiguredBy {
                api_version: "builtin".to_string(),
                kind: kind.to_string(),
                ..ConfiguredBy::default()
            }),
        }
    }

    /// The YAML kyaml writes for this origin (fields in struct order, empty ones omitted).
    fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.path.is_empty() {
            out.push(format!("path: {}", scalar(&self.path)));
        }
        if !self.configured_in.is_empty() {
            out.push(format!("configuredIn: {}", scalar(&self.configured_in)));
        }
        if let Some(by) = &self.configured_by {
            out.push("configuredBy:".to_string());
            for (k, v) in [
                ("apiVersion", &by.api_version),
                ("kind", &by.kind),
                ("name", &by.name),
                ("namespace", &by.namespace),
            ] {
                if !v.is_empty() {
                    out.push(format!("  {k}: {}", scalar(v)));
                }
            }
        }
        out
    }

    /// The annotation value.
    pub fn to_yaml(&self) -> String {
        let mut s = self.lines().join("\n");
        s.push('\n');
        s
    }
}

fn scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && !s.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@`~ ".contains(c))
        && !s.contains(": ")
        && !s.contains(" #")
        && !s.ends_with(' ')
        && crate::yaml::plain_tag(s, crate::yaml::Dialect::Yaml12) == "!!str";
    if plain {
        s.to_string()
    } else {
        serde_json::to_string(s).unwrap_or_default()
    }
}

/// `filepath.Join`, lexically cleaned.
pub fn join(base: &str, rel: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for p in base.split('/').chain(rel.split('/')) {
        match p {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else {
                    parts.push("..");
                }
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

/// Sets the origin annotation on every resource (kustomize `AnnotateAll` of a file's resources).
pub fn annotate_all(rm: &mut ResMap, origin: &Origin) {
    let text = origin.to_yaml();
    for r in &mut rm.list {
        r.set_annotation(anno::ORIGIN, &text);
    }
}

/// Sets the origin on resources that have none (generated objects).
pub fn add_origin(rm: &mut ResMap, origin: &Origin) {
    let text = origin.to_yaml();
    for r in &mut rm.list {
        if !r.annotations().contains_key(anno::ORIGIN) {
            r.set_annotation(anno::ORIGIN, &text);
        }
    }
}

/// Records a transformer on every resource: as the origin of resources without one, else
/// appended to the transformations list.
pub fn add_transformation(rm: &mut ResMap, origin: &Origin) {
    for r in &mut rm.list {
        add_transformation_to(r, origin);
    }
}

fn add_transformation_to(r: &mut Res, origin: &Origin) {
    let a = r.annotations();
    if !a.contains_key(anno::ORIGIN) {
        r.set_annotation(anno::ORIGIN, &origin.to_yaml());
        return;
    }
    let mut text = a.get(anno::TRANSFORMATIONS).cloned().unwrap_or_default();
    for (i, line) in origin.lines().into_iter().enumerate() {
        text.push_str(if i == 0 { "- " } else { "  " });
        text.push_str(&line);
        text.push('\n');
    }
    r.set_annotation(anno::TRANSFORMATIONS, &text);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts() {
        assert_eq!(
            join("../base", "kustomization.yaml"),
            "../base/kustomization.yaml"
        );
        assert_eq!(join("", "a/../b.yaml"), "b.yaml");
        assert_eq!(
            Origin::builtin("kustomization.yaml", "ConfigMapGenerator").to_yaml(),
            "configuredIn: kustomization.yaml\nconfiguredBy:\n  apiVersion: builtin\n  kind: ConfigMapGenerator\n"
        );
    }
}
