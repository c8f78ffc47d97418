//! Loading a kustomization file (kustomize `KustTarget.Load`): the file, its fields, the
//! deprecated-field fixes and the emptiness check.

use super::{Builder, Kt};
use crate::finding::rules;
use crate::finding::Finding;
use crate::kustomize::error::KError;
use crate::kustomize::loader::Loader;
use crate::kustomize::types::{self, Kustomization};
use crate::kustomize::KUSTOMIZATION_FILES;
use crate::source::EntryKind;
use crate::yaml::{self, de::from_node_go_json, Dialect, Node, ParseOptions, Span};

impl Builder {
    /// Loads the kustomization in the loader's root (kustomize `KustTarget.Load`).
    pub fn load<'a>(&mut self, ldr: Loader<'a>) -> Result<Kt<'a>, KError> {
        let root = ldr.root().clone();
        if ldr.files.kind(&root) != EntryKind::Dir {
            return Err(KError::new(
                rules::KUSTOMIZE_FILE_NOT_FOUND,
                format!("must build at directory: '{root}' doesn't exist"),
            )
            .with_cause(
                format!("{root}: no such directory"),
                &["must build at directory"],
            ));
        }
        let found: Vec<&str> = KUSTOMIZATION_FILES
            .iter()
            .copied()
            .filter(|f| ldr.files.kind(&root.child(f)) == EntryKind::File)
            .collect();
        let name = match found.as_slice() {
            [] => {
                // A kustomization that is there but cannot be read (a link out of the
                // repository, a link loop) says so.
                for f in KUSTOMIZATION_FILES {
                    let path = root.child(f);
                    if let Some(e) = ldr.unusable(&path) {
                        return Err(e.at(&path, Span::default()));
                    }
                }
                return Err(KError::new(
                    rules::KUSTOMIZE_MISSING_KUSTOMIZATION,
                    format!("unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '{root}'"),
                ));
            }
            [one] => *one,
            _ => {
                return Err(KError::new(
                    rules::KUSTOMIZE_MULTIPLE_KUSTOMIZATIONS,
                    format!("Found multiple kustomization files under: {root}"),
                ))
            }
        };
        let file = root.child(name);
        let bytes = ldr.files.read(&file).map_err(|e| {
            KError::new(rules::SOURCE_READ, e.to_string()).at(&file, Span::default())
        })?;
        let opts = ParseOptions {
            duplicate_keys: yaml::DuplicateKeys::LastWins,
            ..ParseOptions::default()
        };
        let doc = yaml::parse_one(&bytes, &opts).map_err(|e| {
            let message = e.go_message.as_deref().unwrap_or(&e.message);
            KError::new(
                rules::YAML_PARSE,
                format!("invalid Kustomization: {message}"),
            )
            .at(&file, e.span)
        })?;
        let mut k: Kustomization = if doc.is_null() {
            Kustomization::default()
        } else {
            from_node_go_json(&doc, Dialect::Yaml11).map_err(|e| {
                // kustomize decodes strictly with encoding/json, which quotes the key with %q.
                let message = match &e.unknown_field {
                    Some(field) => {
                        format!("json: unknown field {}", crate::go::strconv::quote(field))
                    }
                    None => e.message.clone(),
                };
                KError::new(
                    rules::KUSTOMIZE_INVALID_KUSTOMIZATION,
                    format!("invalid Kustomization: {message}"),
                )
                .at(&file, e.span)
            })?
        };
        for (field, warning) in types::deprecation_warnings(&k) {
            let span = doc
                .get_entry(field)
                .map(|(k, _)| k.span)
                .unwrap_or_default();
            self.findings
                .push(Finding::notice(rules::KUSTOMIZE_DEPRECATED, warning).at(
                    file.to_string(),
                    span.line,
                    span.column,
                ));
        }
        fix_kustomization(&mut k);
        if is_empty(&doc) {
            return Err(KError::new(
                rules::KUSTOMIZE_EMPTY_KUSTOMIZATION,
                "kustomization.yaml is empty",
            )
            .at(&file, Span::default()));
        }
        let mut errs = Vec::new();
        if !k.kind.is_empty() && k.kind != "Kustomization" && k.kind != "Component" {
            errs.push("kind should be Kustomization or Component".to_string());
        }
        let required = if k.kind == "Component" {
            types::COMPONENT_VERSION
        } else {
            types::KUSTOMIZATION_VERSION
        };
        if !k.api_version.is_empty() && k.api_version != required {
            errs.push(format!("apiVersion for {} should be {required}", k.kind));
        }
        if !errs.is_empty() {
            let span = doc
                .get_entry("apiVersion")
                .or_else(|| doc.get_entry("kind"))
                .map(|(k, _)| k.span)
                .unwrap_or_default();
            return Err(KError::new(
                rules::KUSTOMIZE_INVALID_KUSTOMIZATION,
                format!(
                    "Failed to read kustomization file under {root}:\n{}",
                    errs.join("\n")
                ),
            )
            .at(&file, span));
        }
        if k.kind.is_empty() {
            k.kind = "Kustomization".into();
        }
        let build_metadata = k.build_metadata.clone();
        Ok(Kt {
            ldr,
            k,
            file,
            doc,
            origin: None,
            build_metadata,
        })
    }
}

/// kustomize `FixKustomization`: `bases` join `resources`, `imageTags` join `images`.
fn fix_kustomization(k: &mut Kustomization) {
    if let Some(bases) = k.bases.take() {
        k.resources.extend(bases);
    }
    if let Some(tags) = k.image_tags.take() {
        k.images.extend(tags);
    }
}

/// kustomize `CheckEmpty`: nothing but apiVersion/kind. Go compares against the zero value, so
/// a present empty list or map (`resources: []`) is content, an empty string or null is not.
fn is_empty(doc: &Node) -> bool {
    let Some(entries) = doc.as_map() else {
        return true;
    };
    entries.iter().all(|(k, v)| {
        matches!(k.as_str(), Some("apiVersion" | "kind"))
            || v.is_null()
            || matches!(v.as_scalar(), Some(s) if s.text.is_empty() || s.text == "false")
    })
}
