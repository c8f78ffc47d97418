//! An Application's `kustomize` options, applied to the kustomization as Argo CD applies them
//! (`util/kustomize/kustomize.go` Build): the `kustomize edit` commands it runs in the
//! checkout, in its order — `set nameprefix`, `set namesuffix`, `set image`, `set replicas`,
//! `add label`, `add annotation`, `set namespace` — then `patches` appended, then `add
//! component`. Each works on the document the way the kustomize command does (images and
//! replicas merged by name and sorted, labels refused when present unless forced).

use super::env::Env;
use crate::yaml::{self, Node, Span};
use serde_json::Value as Json;

/// A `kustomize edit` command that fails, in the command's words (prefixed by the command
/// where Argo CD's error shows it). Errors about what the kustomization holds carry where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// A `set image` argument of no format kustomize reads.
    #[error("kustomize edit set image: {}", INVALID_IMAGE)]
    InvalidImage { arg: String },
    /// A replica count that is not an integer.
    #[error("expected integer value for count. Received: {count}")]
    ReplicaCount { name: String, count: String },
    /// A replica name with `=`.
    #[error("kustomize edit set replicas: invalid format of replica, use the following format: <name>=<count>")]
    ReplicaFormat { name: String },
    /// `labelIncludeTemplates` without `labelWithoutSelector`.
    #[error("kustomize edit add label: --without-selector flag must be specified for --include-templates to work")]
    IncludeTemplatesWithSelector,
    /// A label or annotation whose `K:V` argument has no key.
    #[error(
        "kustomize edit add {kind}: invalid {kind}: '{arg}' (need k:v pair where v may be quoted)"
    )]
    InvalidPair { kind: &'static str, arg: String },
    /// A label or annotation the kustomization has already, without `force`.
    #[error("kustomize edit add {kind}: {kind} {name} already in kustomization file. Use --force to override.")]
    Already {
        kind: &'static str,
        name: String,
        /// Where the kustomization has it.
        span: Span,
    },
    /// A field the edit appends to that is not a list.
    #[error("{}", not_a_list(field))]
    NotAList {
        field: &'static str,
        /// Where the kustomization has it.
        span: Span,
    },
    /// A component path that is not in the checkout.
    #[error("kustomize edit add component: {path} has no match: must build at directory: not a valid directory: '{path}' doesn't exist")]
    NoComponent { path: String },
}

impl EditError {
    /// Where in the kustomization file the error is, when it is about what the file holds.
    pub fn span(&self) -> Option<Span> {
        match self {
            EditError::Already { span, .. } | EditError::NotAList { span, .. } => {
                Some(*span).filter(|s| s.is_known())
            }
            _ => None,
        }
    }
}

/// The words of [`EditError::NotAList`]: each command says it its own way.
fn not_a_list(field: &str) -> String {
    match field {
        "patches" => "expected 'patches' field in kustomization.yaml to be a list".into(),
        "labels" => "kustomize edit add label: labels is not a list".into(),
        other => format!("{other} is not a list"),
    }
}

/// What the edit needs to know about the checkout.
pub struct Checkout<'a> {
    /// True when a path relative to the kustomization directory exists (for components).
    pub exists: &'a dyn Fn(&str) -> bool,
}

/// Applies `options` to the kustomization document `k`; the error is the failing command's.
pub fn apply(
    k: &mut Node,
    options: &Json,
    env: &Env,
    checkout: &Checkout,
) -> Result<(), EditError> {
    let text = |key: &str| options[key].as_str().filter(|s| !s.is_empty());
    if let Some(p) = text("namePrefix") {
        k.set("namePrefix", Node::string(p));
    }
    if let Some(s) = text("nameSuffix") {
        k.set("nameSuffix", Node::string(s));
    }
    let images: Vec<String> = strings(&options["images"])
        .iter()
        .map(|i| env.subst(i))
        .collect();
    if !images.is_empty() {
        set_images(k, &images)?;
    }
    if let Some(replicas) = options["replicas"].as_array().filter(|r| !r.is_empty()) {
        set_replicas(k, replicas)?;
    }
    if let Some(labels) = string_map(&options["commonLabels"]) {
        let labels: Vec<(String, String)> = labels
            .into_iter()
            .map(|(n, v)| (n, env.subst(&v)))
            .collect();
        let flag = |f: &str| options[f].as_bool() == Some(true);
        let without_selector = flag("labelWithoutSelector");
        let include_templates = flag("labelIncludeTemplates");
        if include_templates && !without_selector {
            return Err(EditError::IncludeTemplatesWithSelector);
        }
        let force = flag("forceCommonLabels");
        if without_selector {
            add_labels_without_selector(k, &labels, include_templates, force)
        } else {
            add_to_map(k, "commonLabels", "label", &labels, force)
        }?;
    }
    if let Some(annotations) = string_map(&options["commonAnnotations"]) {
        let substitute = options["commonAnnotationsEnvsubst"].as_bool() == Some(true);
        let annotations: Vec<(String, String)> = annotations
            .into_iter()
            .map(|(n, v)| (n, if substitute { env.subst(&v) } else { v }))
            .collect();
        let force = options["forceCommonAnnotations"].as_bool() == Some(true);
        add_to_map(k, "commonAnnotations", "annotation", &annotations, force)?;
    }
    if let Some(ns) = text("namespace") {
        k.set("namespace", Node::string(ns));
    }
    if let Some(patches) = options["patches"].as_array().filter(|p| !p.is_empty()) {
        let items = seq_at(k, "patches")?;
        items.extend(patches.iter().map(yaml::from_go_json));
    }
    let mut components = strings(&options["components"]);
    if options["ignoreMissingComponents"].as_bool() == Some(true) {
        components.retain(|c| (checkout.exists)(c));
    }
    if !components.is_empty() {
        add_components(k, &components, checkout)?;
    }
    Ok(())
}

fn strings(v: &Json) -> Vec<String> {
    super::generate::strings(v)
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// A `map[string]string` option, in key order; `None` when absent or empty.
fn string_map(v: &Json) -> Option<Vec<(String, String)>> {
    let m = v.as_object().filter(|m| !m.is_empty())?;
    Some(
        m.iter()
            .map(|(k, v)| {
                let v = match v {
                    Json::String(s) => s.clone(),
                    Json::Null => String::new(),
                    other => other.to_string(),
                };
                (k.clone(), v)
            })
            .collect(),
    )
}

/// One `set image` argument: `[NAME=]NEWNAME[:TAG][@DIGEST]`, as (name, newName, newTag,
/// digest); `*` keeps the kustomization's value.
struct ImageArg {
    name: String,
    new_name: String,
    new_tag: String,
    digest: String,
}

const INVALID_IMAGE: &str = "invalid format of image, use one of the following options:
- <image>=<newimage>:<newtag>
- <image>=<newimage>@<digest>
- <image>=<newimage>:<newtag>@<digest>
- <image>=<newimage>
- <image>:<newtag>
- <image>:<newtag>@<digest>
- <image>@<digest>";

fn parse_image(arg: &str) -> Result<ImageArg, EditError> {
    let (key, value) = match arg.split_once('=') {
        Some((k, v)) => (k, v),
        None => ("", arg),
    };
    let (name, tag, digest) = crate::resource::image::split(value);
    if name == arg {
        return Err(EditError::InvalidImage {
            arg: arg.to_string(),
        });
    }
    Ok(if key.is_empty() {
        ImageArg {
            name,
            new_name: String::new(),
            new_tag: tag,
            digest,
        }
    } else {
        ImageArg {
            name: key.to_string(),
            new_name: name,
            new_tag: tag,
            digest,
        }
    })
}

/// `kustomize edit set image`: each argument replaces the entry of its name (a `*` field
/// keeps the entry's value), other entries stay; the list is sorted by name.
fn set_images(k: &mut Node, args: &[String]) -> Result<(), EditError> {
    let mut wanted = std::collections::BTreeMap::new();
    for a in args {
        let image = parse_image(a)?;
        wanted.insert(image.name.clone(), image);
    }
    // The edit reads the kustomization fixed up: `imageTags` join `images`.
    let mut existing: Vec<Node> = list_items(k, "images");
    existing.extend(list_items(k, "imageTags"));
    k.remove("imageTags");
    let mut entries: std::collections::BTreeMap<String, Node> = Default::default();
    for entry in existing {
        let name = entry.str_at(&["name"]).unwrap_or_default().to_string();
        if let Some(arg) = wanted.get_mut(&name) {
            let keep = |field: &mut String, key: &str| {
                if field == "*" {
                    *field = entry.str_at(&[key]).unwrap_or_default().to_string();
                }
            };
            keep(&mut arg.new_name, "newName");
            keep(&mut arg.new_tag, "newTag");
            keep(&mut arg.digest, "digest");
            continue;
        }
        entries.insert(name, entry);
    }
    for (name, arg) in wanted {
        let mut entry = Node::map();
        entry.set("name", Node::string(&name));
        for (key, value) in [
            ("newName", &arg.new_name),
            ("newTag", &arg.new_tag),
            ("digest", &arg.digest),
        ] {
            if !value.is_empty() && value != "*" {
                entry.set(key, Node::string(value));
            }
        }
        entries.insert(name, entry);
    }
    let mut list = Node::seq();
    if let Some(items) = list.as_seq_mut() {
        items.extend(entries.into_values());
    }
    k.set("images", list);
    Ok(())
}

/// The list at `key`, created when missing or null; an error when something else is there.
fn seq_at<'a>(k: &'a mut Node, key: &'static str) -> Result<&'a mut Vec<Node>, EditError> {
    if k.get(key).is_none_or(Node::is_null) {
        k.set(key, Node::seq());
    }
    let span = k.get(key).map(|n| n.span).unwrap_or_default();
    k.get_mut(key)
        .and_then(Node::as_seq_mut)
        .ok_or(EditError::NotAList { field: key, span })
}

/// The items of the list at `key` (which the edit then replaces in place).
fn list_items(k: &Node, key: &str) -> Vec<Node> {
    k.get(key)
        .and_then(Node::as_seq)
        .cloned()
        .unwrap_or_default()
}

/// `kustomize edit set replicas NAME=COUNT…`: merged by name, sorted by name.
fn set_replicas(k: &mut Node, replicas: &[Json]) -> Result<(), EditError> {
    let mut entries: std::collections::BTreeMap<String, Node> = Default::default();
    for entry in list_items(k, "replicas") {
        let name = entry.str_at(&["name"]).unwrap_or_default().to_string();
        entries.insert(name, entry);
    }
    let mut wanted = Vec::new();
    for r in replicas {
        let name = r["name"].as_str().unwrap_or_default();
        let count = match &r["count"] {
            Json::Number(n) => n.as_i64(),
            Json::String(s) => s.parse::<i64>().ok(),
            _ => None,
        }
        .ok_or_else(|| EditError::ReplicaCount {
            name: name.to_string(),
            count: match &r["count"] {
                Json::String(s) => s.clone(),
                other => other.to_string(),
            },
        })?;
        // The argument is `name=count`, split at every `=`.
        if name.contains('=') {
            return Err(EditError::ReplicaFormat {
                name: name.to_string(),
            });
        }
        wanted.push((name.to_string(), count));
    }
    for (name, count) in wanted {
        let mut entry = Node::map();
        entry.set("name", Node::string(&name));
        entry.set("count", Node::plain(count.to_string()));
        entries.insert(name, entry);
    }
    let mut list = Node::seq();
    if let Some(items) = list.as_seq_mut() {
        items.extend(entries.into_values());
    }
    k.set("replicas", list);
    Ok(())
}

/// The `K:V` argument Argo CD passes, read back as `ConvertSliceToMap` reads it: split at the
/// first `:`, the value's surrounding double quotes dropped.
fn as_argument(name: &str, value: &str, kind: &'static str) -> Result<(String, String), EditError> {
    let arg = format!("{name}:{value}");
    let c = arg.find(':').unwrap_or(0);
    if c == 0 {
        return Err(EditError::InvalidPair { kind, arg });
    }
    let v = &arg[c + 1..];
    let v = if v.len() >= 2 && v.starts_with('"') && v.ends_with('"') {
        &v[1..v.len() - 1]
    } else {
        v
    };
    Ok((arg[..c].to_string(), v.to_string()))
}

fn already(kind: &'static str, name: &str, existing: &Node) -> EditError {
    EditError::Already {
        kind,
        name: name.to_string(),
        span: existing.span,
    }
}

/// `kustomize edit add label|annotation [--force]` into the map at `field`.
fn add_to_map(
    k: &mut Node,
    field: &str,
    kind: &'static str,
    pairs: &[(String, String)],
    force: bool,
) -> Result<(), EditError> {
    let map = k.map_at(field);
    for (name, value) in pairs {
        let (name, value) = as_argument(name, value, kind)?;
        match map.get(&name) {
            Some(existing) if !force => return Err(already(kind, &name, existing)),
            _ => {}
        }
        map.set(&name, Node::string(value));
    }
    Ok(())
}

/// `kustomize edit add label --without-selector [--include-templates]`: into the `labels`
/// entry with the same settings (no selectors, the same `includeTemplates`), else a new one.
fn add_labels_without_selector(
    k: &mut Node,
    pairs: &[(String, String)],
    include_templates: bool,
    force: bool,
) -> Result<(), EditError> {
    let list = seq_at(k, "labels")?;
    let flag = |n: &Node, key: &str| n.get(key).and_then(Node::as_text) == Some("true");
    let index = match list.iter().position(|l| {
        !flag(l, "includeSelectors") && flag(l, "includeTemplates") == include_templates
    }) {
        Some(i) => i,
        None => {
            let mut entry = Node::map();
            entry.set("pairs", Node::map());
            if include_templates {
                entry.set("includeTemplates", Node::plain("true"));
            }
            list.push(entry);
            list.len() - 1
        }
    };
    let target = list[index].map_at("pairs");
    for (name, value) in pairs {
        let (name, value) = as_argument(name, value, "label")?;
        match target.get(&name) {
            Some(existing) if !force => return Err(already("label", &name, existing)),
            _ => {}
        }
        target.set(&name, Node::string(value));
    }
    Ok(())
}

/// `kustomize edit add component PATH…`: each path must exist (kustomize globs it); those not
/// listed yet are appended.
fn add_components(k: &mut Node, paths: &[String], checkout: &Checkout) -> Result<(), EditError> {
    for p in paths {
        if !(checkout.exists)(p) {
            return Err(EditError::NoComponent { path: p.clone() });
        }
    }
    let items = seq_at(k, "components")?;
    for p in paths {
        if !items.iter().any(|i| i.as_text() == Some(p.as_str())) {
            items.push(Node::string(p));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn edit(kustomization: &str, options: Json) -> Result<String, String> {
        let mut k = yaml::parse_one(kustomization.as_bytes(), &Default::default()).unwrap();
        let env = Env::new(&json!({"metadata": {"name": "web"}}), &json!({}));
        let exists = |p: &str| p == "../components/extra";
        apply(&mut k, &options, &env, &Checkout { exists: &exists }).map_err(|e| e.to_string())?;
        Ok(yaml::emit::node_to_string(&k))
    }

    #[test]
    fn images_merge_by_name_and_sort() {
        let out = edit(
            "images:\n- name: zed\n  newTag: \"1.0\"\n- name: app\n  newName: old/app\n  newTag: v1\n",
            json!({"images": ["app=*:v2", "nginx:1.25", "db@sha256:abc", "$ARGOCD_APP_NAME=reg/x"]}),
        )
        .unwrap();
        assert_eq!(
            out,
            "images:\n- name: app\n  newName: old/app\n  newTag: v2\n- name: db\n  digest: sha256:abc\n- name: nginx\n  newTag: \"1.25\"\n- name: web\n  newName: reg/x\n- name: zed\n  newTag: \"1.0\"\n"
        );
        assert!(edit("{}", json!({"images": ["nginx"]}))
            .unwrap_err()
            .contains("invalid format of image"));
    }

    #[test]
    fn labels_are_refused_when_present_unless_forced() {
        let k = "commonLabels:\n  team: a\n";
        let err = edit(k, json!({"commonLabels": {"team": "b"}})).unwrap_err();
        assert_eq!(err, "kustomize edit add label: label team already in kustomization file. Use --force to override.");
        let out = edit(
            k,
            json!({"commonLabels": {"team": "b"}, "forceCommonLabels": true}),
        )
        .unwrap();
        assert_eq!(out, "commonLabels:\n  team: b\n");
        let out = edit(
            "labels:\n- pairs:\n    a: b\n  includeSelectors: true\n",
            json!({"commonLabels": {"env": "\"prod\""}, "labelWithoutSelector": true}),
        )
        .unwrap();
        assert_eq!(
            out,
            "labels:\n- pairs:\n    a: b\n  includeSelectors: true\n- pairs:\n    env: prod\n"
        );
    }

    #[test]
    fn replicas_patches_namespace_and_components() {
        let out = edit(
            "resources:\n- a.yaml\nreplicas:\n- name: b\n  count: 1\n",
            json!({
                "replicas": [{"name": "a", "count": "3"}, {"name": "b", "count": 2}],
                "namespace": "prod", "namePrefix": "p-",
                "patches": [{"target": {"kind": "Deployment"}, "patch": "- op: remove\n  path: /x"}],
                "components": ["../components/extra", "../components/missing"],
                "ignoreMissingComponents": true,
            }),
        )
        .unwrap();
        assert_eq!(
            out,
            "resources:\n- a.yaml\nreplicas:\n- name: a\n  count: 3\n- name: b\n  count: 2\nnamePrefix: p-\nnamespace: prod\npatches:\n- target:\n    kind: Deployment\n  patch: |-\n    - op: remove\n      path: /x\ncomponents:\n- ../components/extra\n"
        );
        let err = edit("{}", json!({"components": ["../components/missing"]})).unwrap_err();
        assert!(err.contains("../components/missing has no match"), "{err}");
        let err = edit("{}", json!({"replicas": [{"name": "a", "count": "x"}]})).unwrap_err();
        assert_eq!(err, "expected integer value for count. Received: x");
    }
}
