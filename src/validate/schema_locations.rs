//! Schemas of custom resources at URLs: a `kubernetes.crds` entry that is an http(s) URL
//! template, as kubeconform's `-schema-location` (datreeio/CRDs-catalog's
//! `https://raw.githubusercontent.com/datreeio/CRDs-catalog/main/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json`).
//! For each kind no CRD of the revision defines, the locations are tried in order and the
//! first that has a JSON Schema for it stands for its CRD. The schemas come from the fetch
//! store: fetched in the fetch step, read from the cache after it; a 404 only means that the
//! location lacks the kind.

use super::schema::{schema_crd, KubeVersion};
use super::stage::{Revision, Validator};
use crate::fetch::{FetchError, Store, Unavailable};
use crate::finding::{rules, Finding, Incomplete};
use crate::resource::Resource;
use crate::source::RepoPath;
use rayon::prelude::*;

/// True for a `kubernetes.crds` entry that is a schema location, not a path.
pub fn is_location(entry: &str) -> bool {
    crate::fetch::url::is_http(entry)
}

/// kubeconform's `schemaPath`: `template` with `{{.Group}}` (`cert-manager.io`),
/// `{{.ResourceKind}}` (the kind in lower case), `{{.ResourceAPIVersion}}` (`v1`),
/// `{{.KindSuffix}}` (`-cert-manager-v1`: the group's first label and the version),
/// `{{.NormalizedKubernetesVersion}}` (`v1.29.0`) and `{{.StrictSuffix}}` (`-strict`: kdelta
/// refuses unknown fields) filled in.
pub fn url(
    template: &str,
    api_version: &str,
    kind: &str,
    version: KubeVersion,
) -> Result<String, String> {
    let (group, resource_version) = api_version.split_once('/').unwrap_or(("", api_version));
    let group = if group.is_empty() { api_version } else { group };
    let first_label = group.split('.').next().unwrap_or_default().to_lowercase();
    let kind_suffix = if api_version.contains('/') {
        format!("-{first_label}-{}", resource_version.to_lowercase())
    } else {
        format!("-{first_label}")
    };
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find("}}")
            .ok_or_else(|| format!("schema location {template:?}: an action is not closed"))?;
        let value = match after[..end].trim() {
            ".Group" => group.to_string(),
            ".ResourceKind" => kind.to_lowercase(),
            ".ResourceAPIVersion" => resource_version.to_string(),
            ".KindSuffix" => kind_suffix.clone(),
            ".NormalizedKubernetesVersion" => format!("v{}.{}.0", version.major, version.minor),
            ".StrictSuffix" => "-strict".to_string(),
            other => {
                return Err(format!(
                    "schema location {template:?}: {{{{{other}}}}} is none of kubeconform's \
                     fields (.Group, .ResourceKind, .ResourceAPIVersion, .KindSuffix, \
                     .NormalizedKubernetesVersion, .StrictSuffix)"
                ))
            }
        };
        out.push_str(&value);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Adds to `revision`, for each kind no CRD of it defines, the schema the first of
/// `locations` has (from `store`), as the CRD of that kind; `config_file` is where the
/// locations are written. Gives the findings: a location kdelta cannot read, a fetch that
/// failed (not a 404).
pub fn add_schemas(
    revision: &mut Revision,
    validator: &Validator,
    locations: &[&str],
    store: Option<&Store>,
    config_file: &RepoPath,
) -> Vec<Finding> {
    let Some(store) = store else {
        return Vec::new();
    };
    let version = validator.version();
    let mut findings = Vec::new();
    // A template kdelta cannot fill is reported once, whether or not a kind needs it.
    for template in locations {
        if let Err(e) = url(template, "x.io/v1", "X", version) {
            findings.push(Finding::error(rules::CONFIG_INVALID, e).in_file(config_file.as_str()));
        }
    }
    let kinds: Vec<(String, String)> = revision.kinds_without_crd().into_iter().collect();
    let found: Vec<(Option<Resource>, Vec<Finding>)> = kinds
        .par_iter()
        .map(|(api_version, kind)| {
            let mut failures = Vec::new();
            for template in locations {
                let Ok(at) = url(template, api_version, kind, version) else {
                    continue;
                };
                let bytes = match store.remote_file(&at) {
                    Ok((_, bytes)) => bytes,
                    Err(Unavailable::NotCached(_))
                    | Err(Unavailable::Failed(FetchError::Status { status: 404, .. })) => continue,
                    Err(Unavailable::Failed(e)) => {
                        failures.push(
                            Finding::error(
                                rules::FETCH_FAILED,
                                format!("the schema of {kind} in {api_version}: {e}"),
                            )
                            .in_file(config_file.as_str())
                            .incomplete(Incomplete::FetchFailed),
                        );
                        continue;
                    }
                };
                let crd = serde_json::from_slice(&bytes).ok().and_then(|schema| {
                    let (group, resource_version) = api_version.split_once('/')?;
                    schema_crd(group, &kind.to_lowercase(), resource_version, schema)
                });
                match crd {
                    Some(node) => {
                        return (Some(Resource::new(node, config_file.clone())), failures)
                    }
                    None => failures.push(
                        Finding::warning(
                            rules::FETCH_FAILED,
                            format!(
                                "the schema of {kind} in {api_version} at {}: not a JSON Schema",
                                crate::fetch::url::redact_text(&at)
                            ),
                        )
                        .in_file(config_file.as_str()),
                    ),
                }
            }
            (None, failures)
        })
        .collect();
    let mut crds = Vec::new();
    for (crd, failures) in found {
        crds.extend(crd);
        findings.extend(failures);
    }
    revision.add_crds(validator, config_file, &crds);
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_are_filled_in_as_kubeconform_fills_them() {
        let v = KubeVersion::parse("1.29").expect("a version");
        let fill = |t: &str| url(t, "cert-manager.io/v1", "Certificate", v);
        assert_eq!(
            fill("https://x/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json").as_deref(),
            Ok("https://x/cert-manager.io/certificate_v1.json")
        );
        assert_eq!(
            fill("https://x/{{ .NormalizedKubernetesVersion }}{{.StrictSuffix}}/{{.ResourceKind}}{{.KindSuffix}}.json").as_deref(),
            Ok("https://x/v1.29.0-strict/certificate-cert-manager-v1.json")
        );
        assert!(fill("https://x/{{.Kind}}.json").is_err());
        assert!(fill("https://x/{{.Group").is_err());
        assert!(is_location("HTTPS://x/{{.Group}}"));
        assert!(!is_location("vendor/crds"));
    }
}
