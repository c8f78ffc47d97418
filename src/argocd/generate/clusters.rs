//! The clusters generator (`generators/cluster.go`): the in-cluster destination and the
//! repository's cluster Secrets (or `.kdelta.yaml`'s), selected by label, with their values.

use super::*;

/// The clusters generator (`generators/cluster.go`).
pub(super) fn clusters(
    body: &Json,
    ctx: &Context,
    mode: &Mode,
    notices: &mut Vec<Gap>,
) -> Result<Vec<Params>, GenerateError> {
    let selector = &body["selector"];
    let selector_empty = selector["matchLabels"]
        .as_object()
        .is_none_or(Map::is_empty)
        && selector["matchExpressions"]
            .as_array()
            .is_none_or(Vec::is_empty);
    // Keyed by name, as the controller keys them.
    let mut by_name: BTreeMap<&str, &Cluster> = BTreeMap::new();
    for c in ctx.clusters {
        let labels: BTreeMap<String, String> = c.labels.clone();
        if selector_empty || matches_selector(selector, &labels)? {
            by_name.insert(&c.name, c);
        }
    }
    let mut out = Vec::new();
    for c in by_name.values() {
        let mut p = Params::new();
        p.insert("name".into(), json!(c.name));
        p.insert("nameNormalized".into(), json!(normalize(&c.name)));
        p.insert("server".into(), json!(c.server));
        p.insert("project".into(), json!(c.project));
        if mode.go_template {
            let mut meta = Map::new();
            if !c.labels.is_empty() {
                meta.insert("labels".into(), json!(c.labels));
            }
            if !c.annotations.is_empty() {
                meta.insert("annotations".into(), json!(c.annotations));
            }
            p.insert("metadata".into(), Json::Object(meta));
        } else {
            for (k, v) in &c.labels {
                p.insert(format!("metadata.labels.{k}"), json!(v));
            }
            for (k, v) in &c.annotations {
                p.insert(format!("metadata.annotations.{k}"), json!(v));
            }
        }
        out.push(p);
    }
    let has_local = ctx.clusters.iter().any(|c| c.server == IN_CLUSTER_SERVER);
    if selector_empty && !has_local {
        let mut p = Params::new();
        p.insert("name".into(), json!("in-cluster"));
        p.insert("nameNormalized".into(), json!("in-cluster"));
        p.insert("server".into(), json!(IN_CLUSTER_SERVER));
        p.insert("project".into(), json!(""));
        out.push(p);
    }
    if out.is_empty() {
        // In a real installation the selector may match clusters the repository does not
        // declare: say so rather than generate nothing without a word.
        notices.push(Gap::Offline(format!(
            "the clusters generator's selector matches none of the {} cluster{} kdelta knows (cluster Secrets in the repository and argocd.clusters of .kdelta.yaml), so it makes no Application; declare the clusters it targets in argocd.clusters of .kdelta.yaml",
            ctx.clusters.len(),
            if ctx.clusters.len() == 1 { "" } else { "s" }
        )));
    }
    for p in &mut out {
        append_values(p, &body["values"], mode)?;
    }
    if body["flatList"].as_bool() == Some(true) {
        let all: Vec<Json> = out.into_iter().map(Json::Object).collect();
        let mut p = Params::new();
        p.insert("clusters".into(), Json::Array(all));
        return Ok(vec![p]);
    }
    Ok(out)
}

/// `values:` rendered against each parameter set (`appendTemplatedValues`).
pub(super) fn append_values(
    p: &mut Params,
    values: &Json,
    mode: &Mode,
) -> Result<(), GenerateError> {
    let Some(values) = values.as_object().filter(|v| !v.is_empty()) else {
        return Ok(());
    };
    let mut rendered = Map::new();
    for (k, v) in values {
        let text = v.as_str().unwrap_or_default();
        rendered.insert(k.clone(), json!(render::render_string(text, p, mode)?));
    }
    if mode.go_template {
        p.insert("values".into(), Json::Object(rendered));
    } else {
        for (k, v) in rendered {
            p.insert(format!("values.{k}"), v);
        }
    }
    Ok(())
}

/// The cluster Secrets among a stream of manifests (`argocd.argoproj.io/secret-type:
/// cluster`, `data` base64 or `stringData`).
pub fn clusters_from_manifests(docs: &[Json]) -> Vec<Cluster> {
    use base64::Engine;
    let mut out = Vec::new();
    for d in docs {
        if d["kind"] != "Secret"
            || d["metadata"]["labels"]["argocd.argoproj.io/secret-type"] != "cluster"
        {
            continue;
        }
        let field = |k: &str| -> String {
            if let Some(s) = d["stringData"][k].as_str() {
                return s.to_string();
            }
            d["data"][k]
                .as_str()
                .and_then(|b| {
                    base64::engine::general_purpose::STANDARD
                        .decode(b.trim())
                        .ok()
                })
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default()
        };
        let strings = |v: &Json| -> BTreeMap<String, String> {
            v.as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                        .collect()
                })
                .unwrap_or_default()
        };
        out.push(Cluster {
            name: field("name"),
            server: field("server"),
            project: field("project"),
            labels: strings(&d["metadata"]["labels"]),
            annotations: strings(&d["metadata"]["annotations"]),
        });
    }
    out
}
