//! ApplicationSet generation, offline, as Argo CD's ApplicationSet controller (v3.5) does it
//! (reference/argocd.md §1–§5): every generator's parameter sets (list, clusters, git files
//! and directories read from the snapshot, matrix, merge), post selectors, the template
//! rendered per set, `templatePatch`, the finalizer rule, the duplicate-name rule, and the
//! Applications sorted by name. Generators that need the network or a cluster are notices.
//! Each generator has its file, as in Argo CD's `generators/`; this one runs them.

use super::render::{self, go_sprint, Mode, Params};
use crate::source::{EntryKind, Files, RepoPath};
use serde_json::{json, Map, Value as Json};
use std::collections::BTreeMap;

mod clusters;
mod combine;
mod git;
mod list;

pub use clusters::clusters_from_manifests;
use clusters::*;
use combine::*;
use git::*;
use list::*;

/// The in-cluster destination Argo CD always knows.
pub const IN_CLUSTER_SERVER: &str = "https://kubernetes.default.svc";

/// An Argo CD cluster: a cluster Secret (`argocd.argoproj.io/secret-type: cluster`) of the
/// repository, or one `.kdelta.yaml` declares (`argocd.clusters`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cluster {
    pub name: String,
    pub server: String,
    pub project: String,
    /// The Secret's labels and annotations.
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
}

/// What generation reads beyond the ApplicationSet.
pub struct Context<'a> {
    /// The repository the git generators read, when their `repoURL` is this repository.
    pub files: Option<&'a Files<'a>>,
    /// True when a generator's `repoURL` names the repository of `files`.
    pub is_this_repo: &'a dyn Fn(&str) -> bool,
    pub clusters: &'a [Cluster],
    /// The namespace of an ApplicationSet without `metadata.namespace` (Argo CD's own).
    pub namespace: &'a str,
    /// The controller's `--enable-new-git-file-globbing`.
    pub new_git_file_globbing: bool,
}

/// An error that stops an ApplicationSet's generation, in the ApplicationSet controller's
/// words, with what it names as fields.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// A template string that does not render.
    #[error(transparent)]
    Render(#[from] render::RenderError),
    /// A list generator element that is not a mapping.
    #[error("error unmarshling list element")]
    ListElement,
    /// A list element's value that is not a string, without Go templates (`key` is
    /// `values.name` for an entry of `values`).
    #[error("error parsing value as string: {key}")]
    NotAString { key: String },
    /// `elementsYaml` that sigs.k8s.io/yaml does not read.
    #[error("error unmarshling decoded ElementsYaml {0}")]
    ElementsYamlSyntax(crate::template::HelmYamlError),
    /// `elementsYaml` that is not a list of mappings: Go's type of what it is and of what
    /// was expected.
    #[error("error unmarshling decoded ElementsYaml error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {got} into Go value of type {want}")]
    ElementsYamlType {
        got: &'static str,
        want: &'static str,
    },
    /// A git generator file whose name is not a repository path.
    #[error(transparent)]
    GitPath(#[from] crate::source::PathError),
    /// A git generator file that does not read.
    #[error("unable to read files: {error}")]
    GitRead {
        path: RepoPath,
        error: crate::source::SourceError,
    },
    /// A git generator file that sigs.k8s.io/yaml does not read.
    #[error("unable to parse file {name}: {error}")]
    GitFileSyntax {
        name: String,
        error: crate::template::HelmYamlError,
    },
    /// A git generator file that is neither an object nor a list of objects: Go's type of
    /// what it (or the first item that is no object) is and of what was expected.
    #[error("unable to parse file {name}: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {got} into Go value of type {want}")]
    GitFileShape {
        name: String,
        got: &'static str,
        want: &'static str,
    },
    /// A matrix with fewer than two children.
    #[error("found less than two generators, Matrix support only two")]
    MatrixTooFew,
    /// A matrix with more than two children.
    #[error("found more than two generators, Matrix support only two")]
    MatrixTooMany,
    /// Without Go templates, a matrix's two parameter sets give one key two values.
    #[error("found duplicate key {key} with different value, a: {} ,b: {}", go_sprint(.a), go_sprint(.b))]
    DuplicateKey { key: String, a: Json, b: Json },
    /// A matrix or merge child with several generators.
    #[error("more than one inner generator specified")]
    ManyInner,
    /// A matrix or merge child with no generator.
    #[error("there isn't any inner generator")]
    NoInner,
    /// A merge with fewer than two children.
    #[error("found less than two generators, Merge requires two or more")]
    MergeTooFew,
    /// A merge without `mergeKeys`.
    #[error("no merge keys were specified")]
    NoMergeKeys,
    /// A merge child whose parameter sets share their merge keys' values.
    #[error("the parameters from a generator were not unique by the given mergeKeys, Merge requires all param sets to be unique")]
    NotUniqueByMergeKeys { keys: Vec<String> },
    /// A post selector's `matchExpressions` operator Kubernetes does not know.
    #[error("error parsing label selector: {operator} is not a valid label selector operator")]
    SelectorOperator { operator: String },
    /// A rendered `templatePatch` that is not YAML (sigs.k8s.io/yaml's error).
    #[error("error while converting template to json {}: {message}", crate::go::strconv::quote(.text))]
    PatchSyntax { text: String, message: String },
    /// A rendered `templatePatch` that starts with `{` and is not JSON.
    #[error("invalid templatePatch {}: {message}", crate::go::strconv::quote(.text))]
    PatchJson { text: String, message: String },
    /// A `templatePatch` that does not apply to the Application.
    #[error("error applying template patch: {0}")]
    PatchApply(crate::kustomize::smp::SmpError),
    /// The patched Application with a node JSON has no value for.
    #[error(transparent)]
    PatchValue(crate::yaml::ValueError),
}

/// Why a generator's Applications are missing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Gap {
    /// It needs something kdelta does not have offline (the network, a cluster, a fetch).
    Offline(String),
    /// Fetching what it reads failed.
    FetchFailed(String),
}

/// The Applications of an ApplicationSet.
#[derive(Clone, Debug, Default)]
pub struct Generated {
    /// Sorted by name.
    pub apps: Vec<Json>,
    /// Validation errors: the Applications they name are not created, the others are.
    pub errors: Vec<String>,
    /// Generators whose Applications are missing, and why.
    pub notices: Vec<Gap>,
    /// Each Application's name with the generator and parameters that made it
    /// (`list generator 0 with {"cluster":"dev"}`).
    pub made_by: Vec<(String, String)>,
}

/// Generates the Applications of `appset` (the manifest as JSON). An `Err` is an error that
/// stops the whole ApplicationSet, as in the controller.
pub fn generate(appset: &Json, ctx: &Context) -> Result<Generated, GenerateError> {
    let spec = &appset["spec"];
    let mode = Mode {
        go_template: spec["goTemplate"].as_bool().unwrap_or(false),
        missing_key_error: spec["goTemplateOptions"]
            .as_array()
            .is_some_and(|o| o.iter().any(|o| o.as_str() == Some("missingkey=error"))),
    };
    let namespace = appset["metadata"]["namespace"]
        .as_str()
        .filter(|n| !n.is_empty())
        .unwrap_or(ctx.namespace)
        .to_string();
    let appset_name = appset["metadata"]["name"].as_str().unwrap_or_default();
    let template = &spec["template"];
    let patch = spec["templatePatch"].as_str();
    let mut out = Generated::default();
    let mut apps = Vec::new();
    let generators = spec["generators"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    for (i, g) in generators.iter().enumerate() {
        for (kind, body) in generator_kinds(g) {
            let own_template = body.get("template").cloned().unwrap_or(Json::Null);
            let merged = fill_empty(&own_template, template);
            let sets = params_of(kind, body, ctx, &mode, &mut out.notices)?;
            let sets = select(sets, g.get("selector"))?;
            for p in sets {
                let app = render_app(&merged, &p, &mode, patch, &namespace, &spec["syncPolicy"])?;
                out.made_by.push((
                    app_name(&app),
                    format!(
                        "generated by the {kind} generator (generators[{i}]) with {}",
                        Json::Object(p)
                    ),
                ));
                apps.push(app);
            }
        }
    }
    // Validation: every Application of a duplicated name is dropped.
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for a in &apps {
        *counts.entry(app_name(a)).or_default() += 1;
    }
    for (name, n) in &counts {
        if *n > 1 {
            out.errors.push(format!(
                "ApplicationSet {appset_name} contains applications with duplicate name: {name}"
            ));
        }
        if name.is_empty() {
            out.errors.push(format!(
                "ApplicationSet {appset_name} generated an Application without a name"
            ));
        }
    }
    apps.retain(|a| {
        let name = app_name(a);
        !name.is_empty() && counts[&name] == 1
    });
    apps.sort_by_key(app_name);
    out.apps = apps;
    Ok(out)
}

fn app_name(app: &Json) -> String {
    app["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The generator keys set in one `generators:` entry (each runs: Argo CD's
/// `GetRelevantGenerators`).
fn generator_kinds(g: &Json) -> Vec<(&'static str, &Json)> {
    const KINDS: [&str; 9] = [
        "list",
        "clusters",
        "git",
        "matrix",
        "merge",
        "scmProvider",
        "pullRequest",
        "clusterDecisionResource",
        "plugin",
    ];
    KINDS
        .iter()
        .filter_map(|k| g.get(*k).filter(|v| !v.is_null()).map(|v| (*k, v)))
        .collect()
}

/// The JSON type encoding/json names in its errors (`cannot unmarshal string into ...`).
fn json_type(v: &Json) -> &'static str {
    match v {
        Json::Object(_) => "object",
        Json::Array(_) => "array",
        Json::String(_) => "string",
        Json::Number(_) => "number",
        Json::Bool(_) => "bool",
        Json::Null => "null",
    }
}

/// mergo.Merge(dst, src): `dst`'s non-empty fields win, empty ones come from `src`.
fn fill_empty(dst: &Json, src: &Json) -> Json {
    match (dst, src) {
        (Json::Object(d), Json::Object(s)) => {
            let mut out = d.clone();
            for (k, sv) in s {
                let merged = match d.get(k) {
                    Some(dv) if !is_empty(dv) => fill_empty(dv, sv),
                    _ => sv.clone(),
                };
                out.insert(k.clone(), merged);
            }
            Json::Object(out)
        }
        (d, s) if is_empty(d) => s.clone(),
        (d, _) => d.clone(),
    }
}

fn is_empty(v: &Json) -> bool {
    match v {
        Json::Null => true,
        Json::String(s) => s.is_empty(),
        Json::Array(a) => a.is_empty(),
        Json::Object(m) => m.is_empty(),
        Json::Bool(b) => !b,
        Json::Number(n) => n.as_f64() == Some(0.0),
    }
}

/// The parameter sets of one generator.
fn params_of(
    kind: &str,
    body: &Json,
    ctx: &Context,
    mode: &Mode,
    notices: &mut Vec<Gap>,
) -> Result<Vec<Params>, GenerateError> {
    match kind {
        "list" => list(body, mode),
        "clusters" => clusters(body, ctx, mode, notices),
        "git" => git(body, ctx, mode, notices),
        "matrix" => matrix(body, ctx, mode, notices),
        "merge" => merge(body, ctx, mode, notices),
        other => {
            notices.push(Gap::Offline(format!(
                "the {other} generator needs the network or a cluster; kdelta does not run it offline, so its Applications are missing"
            )));
            Ok(Vec::new())
        }
    }
}

/// Argo CD's `SanitizeName` (the `normalize` function).
pub fn normalize(name: &str) -> String {
    let lower = name.to_lowercase();
    let replaced: String = lower
        .chars()
        .map(|c| {
            if c == '-' || c == '.' || c.is_ascii_lowercase() || c.is_ascii_digit() {
                c
            } else {
                '-'
            }
        })
        .collect();
    let cut: String = replaced.chars().take(253).collect();
    cut.trim_matches(|c| c == '-' || c == '.').to_string()
}

/// The strings of a JSON list (none when it is not one).
pub(super) fn strings(v: &Json) -> Vec<&str> {
    v.as_array()
        .map(|l| l.iter().filter_map(Json::as_str).collect())
        .unwrap_or_default()
}

/// A generator's post selector over its flattened parameter sets (§4).
fn select(sets: Vec<Params>, selector: Option<&Json>) -> Result<Vec<Params>, GenerateError> {
    let Some(selector) = selector.filter(|s| !s.is_null()) else {
        return Ok(sets);
    };
    let mut out = Vec::new();
    for p in sets {
        let flat: BTreeMap<String, String> = flatten(&Json::Object(p.clone()))
            .into_iter()
            .map(|(k, v)| (k, go_sprint(&v)))
            .collect();
        if matches_selector(selector, &flat)? {
            out.push(p);
        }
    }
    Ok(out)
}

/// A Kubernetes label selector over a map of labels.
fn matches_selector(
    selector: &Json,
    labels: &BTreeMap<String, String>,
) -> Result<bool, GenerateError> {
    if let Some(m) = selector["matchLabels"].as_object() {
        for (k, v) in m {
            if labels.get(k).map(String::as_str) != v.as_str() {
                return Ok(false);
            }
        }
    }
    for e in selector["matchExpressions"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let key = e["key"].as_str().unwrap_or_default();
        let values = strings(&e["values"]);
        let have = labels.get(key).map(String::as_str);
        let ok = match e["operator"].as_str().unwrap_or_default() {
            "In" => have.is_some_and(|h| values.contains(&h)),
            "NotIn" => have.is_none_or(|h| !values.contains(&h)),
            "Exists" => have.is_some(),
            "DoesNotExist" => have.is_none(),
            op => {
                return Err(GenerateError::SelectorOperator {
                    operator: op.to_string(),
                })
            }
        };
        if !ok {
            return Ok(false);
        }
    }
    Ok(true)
}

/// One Application from the template and a parameter set (`RenderTemplateParams`, then
/// `templatePatch`, then the namespace).
fn render_app(
    template: &Json,
    params: &Params,
    mode: &Mode,
    patch: Option<&str>,
    namespace: &str,
    appset_sync_policy: &Json,
) -> Result<Json, GenerateError> {
    let mut app = if params.is_empty() {
        template.clone()
    } else {
        let mut rendered = render::render_value(template, params, mode)?;
        let finalizers_empty = rendered["metadata"]["finalizers"]
            .as_array()
            .is_none_or(Vec::is_empty);
        // The ApplicationSet's own sync policy decides (`preserveResourcesOnDeletion`).
        let preserve = appset_sync_policy["preserveResourcesOnDeletion"].as_bool() == Some(true);
        if finalizers_empty && (appset_sync_policy.is_null() || !preserve) {
            rendered["metadata"]["finalizers"] = json!(["resources-finalizer.argocd.argoproj.io"]);
        }
        rendered
    };
    if let Some(patch) = patch.filter(|p| !p.trim().is_empty()) {
        let text = render::render_string(patch, params, mode)?;
        let patch = patch_json(&text)?;
        if !patch.is_null() {
            let project = app["spec"]["project"].clone();
            let mut node = crate::yaml::from_go_json(&app);
            crate::kustomize::smp::merge(
                &mut node,
                &crate::yaml::from_go_json(&patch),
                crate::kustomize::openapi::Schema::builtin(),
            )
            .map_err(GenerateError::PatchApply)?;
            app = crate::yaml::to_value(&node, crate::yaml::Dialect::Yaml12)
                .map_err(GenerateError::PatchValue)?;
            if app.get("spec").is_some_and(Json::is_object) {
                app["spec"]["project"] = project;
            }
        }
    }
    let mut metadata = app["metadata"].as_object().cloned().unwrap_or_default();
    metadata.insert("namespace".into(), json!(namespace));
    let mut out = Map::new();
    out.insert("apiVersion".into(), json!("argoproj.io/v1alpha1"));
    out.insert("kind".into(), json!("Application"));
    out.insert("metadata".into(), Json::Object(metadata));
    out.insert("spec".into(), app["spec"].clone());
    Ok(Json::Object(out))
}

/// `ConvertYAMLToJSON`: a patch that starts with `{` is JSON, any other text YAML read by
/// sigs.k8s.io/yaml (go-yaml v2 typing: `yes` and `on` are bools, as keys too; `0755` is
/// octal; only the first document).
/// Then decoded into an `Application`: anything but an object (or null, which patches
/// nothing) is encoding/json's error.
fn patch_json(text: &str) -> Result<Json, GenerateError> {
    let (json, text) = if text.trim_start().starts_with('{') {
        let json = serde_json::from_str(text).map_err(|e| GenerateError::PatchJson {
            text: text.to_string(),
            message: e.to_string(),
        })?;
        (json, text.to_string())
    } else {
        let json =
            crate::template::sigs_yaml_to_json(text).map_err(|e| GenerateError::PatchSyntax {
                text: text.to_string(),
                message: e.to_string(),
            })?;
        let converted = json.to_string();
        (json, converted)
    };
    match json {
        Json::Object(_) | Json::Null => Ok(json),
        other => Err(GenerateError::PatchJson {
            message: format!(
                "json: cannot unmarshal {} into Go value of type v1alpha1.Application",
                json_type(&other)
            ),
            text,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_patch_is_read_as_argo_cds_convert_yaml_to_json_reads_it() {
        // go-yaml v2 typing through sigs.k8s.io/yaml, keys too; the first document only.
        assert_eq!(
            patch_json("spec:\n  v: {on: yes, mode: 0755, n: 1_000}\n---\n[").unwrap(),
            json!({"spec": {"v": {"true": true, "mode": 493, "false": 1000}}})
        );
        // A patch that starts with `{` is JSON, not YAML.
        assert_eq!(
            patch_json(" {\"spec\": {\"v\": \"yes\"}}").unwrap(),
            json!({"spec": {"v": "yes"}})
        );
        assert!(matches!(
            patch_json("{spec: {v: 1}}"),
            Err(GenerateError::PatchJson { .. })
        ));
        // Nothing (a comment) patches nothing; what is no object cannot be an Application.
        assert_eq!(patch_json("# only a comment\n").unwrap(), Json::Null);
        assert_eq!(
            patch_json("hello world").unwrap_err().to_string(),
            r#"invalid templatePatch "\"hello world\"": json: cannot unmarshal string into Go value of type v1alpha1.Application"#
        );
        assert!(patch_json("spec: [")
            .unwrap_err()
            .to_string()
            .starts_with(r#"error while converting template to json "spec: [": error converting YAML to JSON: yaml: line 1: "#));
    }

    #[test]
    fn elements_yaml_is_a_list_of_mappings_as_sigs_k8s_io_yaml_reads_it() {
        let mode = Mode {
            go_template: true,
            missing_key_error: false,
        };
        let list = |text: &str| list(&json!({"elementsYaml": text}), &mode);
        assert_eq!(list("- a: 1\n- b: x\n").unwrap().len(), 2);
        assert_eq!(list("null").unwrap().len(), 0);
        assert_eq!(
            list("a: 1").unwrap_err().to_string(),
            "error unmarshling decoded ElementsYaml error unmarshaling JSON: while decoding JSON: json: cannot unmarshal object into Go value of type []map[string]interface {}"
        );
        assert!(list("[a, b]")
            .unwrap_err()
            .to_string()
            .ends_with("cannot unmarshal string into Go value of type map[string]interface {}"));
        // Read as sigs.k8s.io/yaml reads it: go-yaml v2 typing (`on` and `n` are bools, as
        // keys too), a null item an empty element, and only the first document (the typing
        // is the one helm's fromYaml probes pin).
        assert_eq!(
            list("- {on: yes, mode: 0755, n: 1_000}\n- ~\n---\n- [").unwrap(),
            vec![
                json!({"true": true, "mode": 493, "false": 1000})
                    .as_object()
                    .unwrap()
                    .clone(),
                Params::new()
            ]
        );
        assert_eq!(
            list("- a: [").unwrap_err().to_string(),
            "error unmarshling decoded ElementsYaml error converting YAML to JSON: yaml: line 1: did not find expected node content"
        );
    }

    #[test]
    fn git_files_read_as_an_object_then_as_a_list() {
        let sets = |text: &str| git::file_param_sets(text.as_bytes(), "f.yaml");
        let one = |v: Json| v.as_object().unwrap().clone();
        assert_eq!(sets("").unwrap(), vec![Params::new()]);
        assert_eq!(sets("null\n").unwrap(), vec![Params::new()]);
        assert_eq!(
            sets("enabled: yes\nport: 8080\n---\nnot: [yaml\n").unwrap(),
            vec![one(json!({"enabled": true, "port": 8080}))]
        );
        assert_eq!(
            sets("- a: off\n- null\n").unwrap(),
            vec![one(json!({"a": false})), Params::new()]
        );
        // The list's error is the one reported: of its first item that is no object.
        assert_eq!(
            sets("- a: 1\n- x\n- 2\n").unwrap_err().to_string(),
            "unable to parse file f.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type map[string]interface {}"
        );
        assert_eq!(
            sets("just text\n").unwrap_err().to_string(),
            "unable to parse file f.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type []map[string]interface {}"
        );
        assert_eq!(
            sets("a: [\n").unwrap_err().to_string(),
            "unable to parse file f.yaml: error converting YAML to JSON: yaml: line 1: did not find expected node content"
        );
    }

    #[test]
    fn names_normalize_as_argo_cd_does() {
        assert_eq!(normalize("My_Cluster.Prod--"), "my-cluster.prod");
    }

    #[test]
    fn globs_follow_both_git_file_modes() {
        assert!(pathspec("**/config.json", "a/b/config.json"));
        assert!(pathspec("a/*/values.yaml", "a/x/charts/y/values.yaml"));
        assert!(!pathspec("*/x", "x"));
        assert!(pathspec("apps", "apps/a/b.yaml"));
        assert!(crate::helm::glob::doublestar(
            "**/config.json",
            "config.json"
        ));
        assert!(crate::helm::glob::doublestar("a/**/c.json", "a/c.json"));
        assert!(!crate::helm::glob::doublestar(
            "a/*/values.yaml",
            "a/x/charts/y/values.yaml"
        ));
    }

    #[test]
    fn flatten_dots_maps_and_lists() {
        let f = flatten(&json!({"a": {"b": 1000000, "c": [true, "x"]}, "d": "e"}));
        assert_eq!(f["a.b"], "1e+06");
        assert_eq!(f["a.c.0"], "true");
        assert_eq!(f["a.c.1"], "x");
        assert_eq!(f["d"], "e");
    }
}
