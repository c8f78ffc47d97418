//! OCI registries: the manifest a reference names and the layer taken from it, by the rules of
//! the tool that names it ([`Pick`]). Helm 3.17 (`pkg/registry`, `getter/ocigetter.go`):
//! `oci://HOST/PATH` plus the chart name is the repository; a version that parses as semver is
//! the tag (`+` written `_`, which registries refuse); a constraint lists the tags and takes the
//! highest match; the layer is the chart's
//! (`application/vnd.cncf.helm.chart.content.v1.tar+gzip`, or the legacy `application/tar+gzip`).
//! Argo CD 3's OCI sources and Flux's OCIRepositories name a repository, a tag, a digest or a
//! constraint in their own ways, and take their own layer. The manifest and the layer are
//! checked against their digests, and nothing that does not match is used.
//!
//! A registry answers 401 with a challenge: `Basic`, answered with the credentials from the
//! user's Helm or Docker configuration, or `Bearer realm=… service=… scope=…`, answered by a
//! token from the realm (anonymous when there are no credentials, as GHCR, Docker Hub and ECR
//! Public allow for public images).

use super::http::{Auth, Client, Response};
use super::url::Url;
use super::FetchError;
use crate::semver::{Constraint, Version};
use std::path::PathBuf;

/// The media types Helm accepts for the chart layer.
const CHART_LAYER: &str = "application/vnd.cncf.helm.chart.content.v1.tar+gzip";
const LEGACY_CHART_LAYER: &str = "application/tar+gzip";
/// The layer types Argo CD 3 accepts as an artifact's content (`util/oci/client.go`).
const MANIFEST_LAYERS: &[&str] = &[
    "application/vnd.oci.image.layer.v1.tar",
    "application/vnd.oci.image.layer.v1.tar+gzip",
    CHART_LAYER,
];
/// Argo CD's limit on an artifact's layers.
const MAX_LAYERS: usize = 10;
/// Largest artifact unpacked, and largest file in it.
const MAX_UNPACKED: u64 = 100 << 20;
const MAX_UNPACKED_FILE: u64 = 16 << 20;

/// Which manifest of a repository a reference names, by the rules of the tool that reads it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pick {
    /// Helm's `--version` and a dependency's `version` (`getOciURI`, the resolver): a version
    /// Masterminds reads (`1.2.0`, `v1.2.0`, `1.2`) is the tag as written (`+` written `_`),
    /// anything else (empty: `*`) a constraint over the tags that are strict versions. The
    /// layer is the chart's.
    Helm(String),
    /// A chart of a Flux HelmRepository of `type: oci` (source-controller's
    /// `OCIChartRepository.getChartVersion`): a strict version (a leading `v` allowed) is the
    /// tag as written, anything else (`1.2` too, which Helm takes as a tag) a constraint over
    /// the tags that are strict versions. The layer is the chart's.
    FluxChart(String),
    /// Argo CD 3's `targetRevision` of a native OCI source (`util/oci/client.go`): a digest,
    /// or a tag; when no tag has that name and it is a semver constraint, the highest tag
    /// (`_` read as `+`) it admits. The layer is the one content layer Argo CD accepts.
    Argo(String),
    /// Flux's OCIRepository (source-controller's `getArtifactRef` and `selectLayer`).
    Flux(FluxRef),
}

/// An OCIRepository's `spec.ref` and `spec.layerSelector.mediaType`: `digest`, else `semver`
/// over the tags `semverFilter` (a Go regexp) keeps, else `tag`, else `latest`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FluxRef {
    pub digest: String,
    pub semver: String,
    pub semver_filter: String,
    pub tag: String,
    /// The layer taken (the first when empty); a Helm chart's also reads its tags with `_`
    /// as `+`, as source-controller's `convertOCIToSemVerTag`.
    pub media_type: String,
}

impl FluxRef {
    /// The reference as messages name it: its digest, semver range or tag.
    pub fn shown(&self) -> String {
        [&self.digest, &self.semver, &self.tag]
            .into_iter()
            .find(|s| !s.is_empty())
            .map_or_else(|| "latest".to_string(), |s| s.to_string())
    }
}

impl Pick {
    /// The reference as written (a version, a revision, Flux's ref).
    pub fn shown(&self) -> String {
        match self {
            Pick::Helm(v) | Pick::FluxChart(v) | Pick::Argo(v) => v.clone(),
            Pick::Flux(r) => r.shown(),
        }
    }
}

/// A manifest as a registry serves it: by tag (which moves) or by digest (which does not).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ManifestRef {
    Tag(String),
    Digest(super::Digest),
}

impl ManifestRef {
    /// How the URL path and the reports write it: the tag, or `sha256:HEX`.
    pub fn text(&self) -> String {
        match self {
            ManifestRef::Tag(t) => t.clone(),
            ManifestRef::Digest(d) => d.to_string(),
        }
    }
}

/// The manifest `pick` names without the repository's tag list, when it names one: a digest,
/// a tag, or a version Helm takes as its tag (of chart `name`). `None` asks for the tags
/// ([`pick_among`]).
pub fn first_reference(pick: &Pick, name: &str) -> Result<Option<ManifestRef>, FetchError> {
    let digest = |d: &str| {
        super::Digest::parse(d)
            .filter(|_| d.starts_with("sha256:"))
            .map(ManifestRef::Digest)
            .ok_or_else(|| FetchError::Setup {
                message: format!("{d:?} is not a sha256 digest (sha256: and 64 hex digits)"),
            })
    };
    match pick {
        Pick::Helm(version) | Pick::FluxChart(version) => match pick_tag(pick, version, None) {
            Ok(Some(tag)) => Ok(Some(ManifestRef::Tag(tag))),
            // A constraint that cannot be read is refused before the tags are listed.
            _ => match Constraint::parse(if version.trim().is_empty() {
                "*"
            } else {
                version
            }) {
                Ok(_) => Ok(None),
                Err(error) => Err(FetchError::BadConstraint {
                    name: name.to_string(),
                    constraint: version.clone(),
                    error,
                }),
            },
        },
        Pick::Argo(revision) if revision.contains(':') => digest(revision).map(Some),
        Pick::Argo(revision) if valid_tag(revision) => Ok(Some(ManifestRef::Tag(revision.clone()))),
        // What cannot be a tag is never asked for (oras checks a reference before any
        // request): a constraint goes to the tag list.
        Pick::Argo(revision) if super::tags::is_constraint(revision) => Ok(None),
        Pick::Argo(revision) => Err(FetchError::Setup {
            message: format!("{revision:?} is neither a tag, a digest nor a semver constraint"),
        }),
        Pick::Flux(r) if !r.digest.is_empty() => digest(&r.digest).map(Some),
        Pick::Flux(r) if !r.semver.is_empty() => Ok(None),
        Pick::Flux(r) if !r.tag.is_empty() => Ok(Some(ManifestRef::Tag(r.tag.clone()))),
        Pick::Flux(_) => Ok(Some(ManifestRef::Tag("latest".into()))),
    }
}

/// The OCI distribution spec's tag: `[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}`.
fn valid_tag(t: &str) -> bool {
    let b = t.as_bytes();
    (1..=128).contains(&b.len())
        && (b[0].is_ascii_alphanumeric() || b[0] == b'_')
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
}

/// True when a failure to find [`first_reference`]'s manifest sends the tool to the tag list:
/// Argo CD's revision that is a semver constraint and no tag's name.
pub fn tags_when_missing(pick: &Pick) -> bool {
    matches!(pick, Pick::Argo(r) if super::tags::is_constraint(r))
}

/// The tag `pick` names among `tags` (of the repository `reference`, holding chart `name`
/// for Helm), with the tool's own error when none does.
pub fn pick_among(
    pick: &Pick,
    tags: &[String],
    name: &str,
    reference: &str,
) -> Result<String, FetchError> {
    match pick {
        Pick::Helm(version) | Pick::FluxChart(version) => match pick_tag(pick, version, Some(tags))
        {
            Ok(Some(tag)) => Ok(tag),
            Ok(None) => Err(FetchError::NoVersion {
                name: name.to_string(),
                constraint: version.clone(),
                repo: reference.to_string(),
            }),
            Err(error) => Err(FetchError::BadConstraint {
                name: name.to_string(),
                constraint: version.clone(),
                error,
            }),
        },
        // A registry's tags write a version's `+` as `_`.
        Pick::Argo(revision) => {
            super::tags::argo_max_version(revision, tags, true).map_err(|e| FetchError::Tags {
                repo: reference.to_string(),
                message: format!("no version for constraints: {e}"),
            })
        }
        Pick::Flux(r) => super::tags::flux_semver(
            &r.semver,
            &r.semver_filter,
            tags,
            r.media_type == CHART_LAYER,
        )
        .map_err(|message| FetchError::Tags {
            repo: reference.to_string(),
            message,
        }),
    }
}

/// The layer `pick`'s tool takes from a manifest: its digest and media type.
pub fn content_layer(
    manifest: &[u8],
    url: &str,
    pick: &Pick,
) -> Result<(super::Digest, String), FetchError> {
    let bad = |message: String| FetchError::Registry {
        url: url.to_string(),
        message,
    };
    let json: serde_json::Value = serde_json::from_slice(manifest)
        .map_err(|e| bad(format!("the manifest is not JSON: {e}")))?;
    let layers = json["layers"]
        .as_array()
        .ok_or_else(|| bad("the manifest has no layers".into()))?;
    let found: Vec<&serde_json::Value> = match pick {
        Pick::Flux(r) => {
            let layer = if r.media_type.is_empty() {
                layers
                    .first()
                    .ok_or_else(|| bad("no layers found in artifact".into()))?
            } else {
                layers
                    .iter()
                    .find(|l| l["mediaType"].as_str() == Some(&r.media_type))
                    .ok_or_else(|| {
                        bad(format!(
                            "failed to find layer with media type '{}' in artifact",
                            r.media_type
                        ))
                    })?
            };
            vec![layer]
        }
        Pick::Helm(_) | Pick::FluxChart(_) => layers
            .iter()
            .filter(|l| {
                l["mediaType"]
                    .as_str()
                    .is_some_and(|t| t == CHART_LAYER || t == LEGACY_CHART_LAYER)
            })
            .collect(),
        Pick::Argo(_) => {
            if layers.len() > MAX_LAYERS {
                return Err(bad(format!(
                    "the artifact has more than {MAX_LAYERS} layers"
                )));
            }
            layers
                .iter()
                .filter(|l| {
                    l["mediaType"]
                        .as_str()
                        .is_some_and(|t| MANIFEST_LAYERS.contains(&t))
                })
                .collect()
        }
    };
    match found.as_slice() {
        [one] => {
            let digest = one["digest"]
                .as_str()
                .and_then(super::Digest::parse)
                .ok_or_else(|| bad("the content layer has no sha256 digest".into()))?;
            let media_type = one["mediaType"].as_str().unwrap_or_default().to_string();
            Ok((digest, media_type))
        }
        [] if matches!(pick, Pick::Helm(_) | Pick::FluxChart(_)) => Err(bad(format!(
            "the manifest has no Helm chart layer ({CHART_LAYER}); is it a chart?"
        ))),
        [] => Err(bad(format!(
            "the manifest has no content layer of a type Argo CD accepts ({})",
            MANIFEST_LAYERS.join(", ")
        ))),
        _ => Err(bad("the manifest has more than one content layer".into())),
    }
}

const MANIFEST_ACCEPT: &str = "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json";
/// Largest manifest or tag list read.
pub const MAX_MANIFEST: u64 = 4 << 20;
/// Pages of a tag list followed at most.
const MAX_TAG_PAGES: usize = 100;

/// A chart's repository in a registry: `HOST[:PORT]/PATH/NAME`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repository {
    pub host: String,
    pub path: String,
}

impl Repository {
    /// `oci://HOST/PATH` (a Chart.yaml `repository:`, a kustomize `repo:`) and the chart name.
    /// Helm appends the name; a URL that already ends with it is a common mistake Helm does not
    /// forgive either.
    pub fn of_chart(repo: &str, name: &str) -> Result<Repository, FetchError> {
        let rest = repo
            .strip_prefix("oci://")
            .unwrap_or(repo)
            .trim_end_matches('/');
        let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
        if host.is_empty() || host.contains(['@', ' ']) {
            return Err(FetchError::Setup {
                message: format!("{repo:?} is not an OCI registry reference (oci://HOST/PATH)"),
            });
        }
        let path = if path.is_empty() {
            name.to_string()
        } else {
            format!("{path}/{name}")
        };
        Ok(Repository {
            host: host.to_ascii_lowercase(),
            path,
        })
    }

    /// `oci://HOST/PATH` naming the repository itself (Argo CD 3's OCI sources).
    pub fn of_reference(url: &str) -> Result<Repository, FetchError> {
        let rest = url
            .strip_prefix("oci://")
            .unwrap_or(url)
            .trim_end_matches('/');
        match rest.split_once('/') {
            Some((host, path)) if !host.is_empty() && !path.is_empty() => Ok(Repository {
                host: host.to_ascii_lowercase(),
                path: path.to_string(),
            }),
            _ => Err(FetchError::Setup {
                message: format!("{url:?} is not an OCI repository reference (oci://HOST/PATH)"),
            }),
        }
    }

    /// `oci://HOST/PATH` as reports name it.
    pub fn reference(&self) -> String {
        format!("oci://{}/{}", self.host, self.path)
    }

    /// The registry's base URL: plain HTTP for a loopback registry (as `--plain-http`),
    /// HTTPS otherwise.
    fn base(&self) -> Result<Url, FetchError> {
        let http = Url::parse(&format!("http://{}/", self.host))?;
        if http.is_loopback() {
            Ok(http)
        } else {
            Ok(Url::parse(&format!("https://{}/", self.host))?)
        }
    }

    fn url(&self, rest: &str) -> Result<Url, FetchError> {
        Ok(self.base()?.join(&format!("/v2/{}/{rest}", self.path))?)
    }
}

/// A pulled artifact: the tag it came from (or the digest it was pulled by), its manifest's
/// digest, its content layer and that layer's media type.
pub struct Pulled {
    pub tag: String,
    /// `oci://HOST/PATH:TAG`.
    pub reference: String,
    pub manifest: super::Digest,
    pub digest: super::Digest,
    pub media_type: String,
    pub bytes: Vec<u8>,
}

impl Pulled {
    /// The artifact's revision as source-controller records it (`getRevision`):
    /// `TAG@sha256:HEX`, or `sha256:HEX` when it was pulled by digest.
    pub fn revision(&self) -> String {
        if self.tag == self.manifest.to_string() {
            self.tag.clone()
        } else {
            format!("{}@{}", self.tag, self.manifest)
        }
    }
}

/// The manifest `at` names: its bytes and digest (checked against the registry's
/// `Docker-Content-Digest`, and against the digest asked for).
pub fn manifest(
    client: &Client,
    repo: &Repository,
    at: &ManifestRef,
) -> Result<(Vec<u8>, super::Digest), FetchError> {
    let url = repo.url(&format!("manifests/{}", at.text()))?;
    let response = get(client, repo, &url, MANIFEST_ACCEPT, MAX_MANIFEST)?;
    let digest = super::Digest::of(&response.body);
    let claimed = match at {
        ManifestRef::Digest(d) => Some(d.to_string()),
        ManifestRef::Tag(_) => response.header("docker-content-digest").map(String::from),
    };
    if let Some(claimed) = claimed {
        if super::Digest::parse(&claimed) != Some(digest) {
            return Err(FetchError::DigestMismatch {
                url: url.to_string(),
                expected: claimed,
                actual: digest.to_string(),
            });
        }
    }
    Ok((response.body, digest))
}

/// The files of a content layer (a tar, gzipped or not): regular files only, paths that
/// stay inside the artifact, size limits.
pub fn unpack(
    bytes: &[u8],
    media_type: &str,
    url: &str,
) -> Result<Vec<(String, Vec<u8>)>, FetchError> {
    use std::io::Read;
    let bad = |message: String| FetchError::BadArchive {
        url: url.to_string(),
        message,
    };
    let gzipped = media_type.ends_with("gzip") || bytes.starts_with(&[0x1f, 0x8b]);
    let reader: Box<dyn Read + '_> = if gzipped {
        Box::new(flate2::read::GzDecoder::new(bytes))
    } else {
        Box::new(bytes)
    };
    let mut archive = tar::Archive::new(reader.take(MAX_UNPACKED + 1));
    let mut files = Vec::new();
    let mut total = 0u64;
    for entry in archive.entries().map_err(|e| bad(e.to_string()))? {
        let mut entry = entry.map_err(|e| bad(e.to_string()))?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let raw = String::from_utf8_lossy(&entry.path_bytes()).replace('\\', "/");
        let path = raw.trim_start_matches("./").to_string();
        if path.starts_with('/') || path.split('/').any(|s| s == "..") {
            return Err(bad(format!(
                "the artifact holds a path outside itself: {raw}"
            )));
        }
        let mut data = Vec::new();
        let n = (&mut entry)
            .take(MAX_UNPACKED_FILE + 1)
            .read_to_end(&mut data)
            .map_err(|e| bad(e.to_string()))? as u64;
        if n > MAX_UNPACKED_FILE {
            return Err(bad(format!(
                "{path} is larger than {} MiB",
                MAX_UNPACKED_FILE >> 20
            )));
        }
        total += n;
        if total > MAX_UNPACKED {
            return Err(bad(format!(
                "the artifact unpacks to more than {} MiB",
                MAX_UNPACKED >> 20
            )));
        }
        files.push((path, data));
    }
    Ok(files)
}

/// The blob `digest`, checked.
pub fn blob(
    client: &Client,
    repo: &Repository,
    digest: &super::Digest,
) -> Result<Vec<u8>, FetchError> {
    let url = repo.url(&format!("blobs/{digest}"))?;
    let response = get(
        client,
        repo,
        &url,
        "application/octet-stream",
        super::http::MAX_BODY,
    )?;
    let actual = super::Digest::of(&response.body);
    if actual != *digest {
        return Err(FetchError::DigestMismatch {
            url: url.to_string(),
            expected: digest.to_string(),
            actual: actual.to_string(),
        });
    }
    Ok(response.body)
}

/// Every tag of the repository (the `Link` header's pages followed).
pub fn tags(client: &Client, repo: &Repository) -> Result<Vec<String>, FetchError> {
    let mut url = repo.url("tags/list")?;
    let mut out = Vec::new();
    for _ in 0..MAX_TAG_PAGES {
        let response = get(client, repo, &url, "application/json", MAX_MANIFEST)?;
        let json: serde_json::Value =
            serde_json::from_slice(&response.body).map_err(|e| FetchError::Registry {
                url: url.to_string(),
                message: format!("the tag list is not JSON: {e}"),
            })?;
        out.extend(
            json["tags"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| t.as_str().map(String::from)),
        );
        let next = response
            .header("link")
            .and_then(|l| l.split_once('<'))
            .and_then(|(_, rest)| rest.split_once('>'))
            .map(|(target, _)| target.to_string());
        match next {
            Some(n) => url = url.join(&n)?,
            None => return Ok(out),
        }
    }
    Ok(out)
}

/// The tag a chart's `version` names: for Helm a version Masterminds reads is the tag as
/// written (`+` → `_`; `v1.2.0` and `1.2` too, as helm v3.17.3 pulls and locks them), for
/// Flux ([`Pick::FluxChart`]) a strict one; otherwise the highest tag the constraint admits
/// among the strict ones (read back with `_` → `+`).
fn pick_tag(
    pick: &Pick,
    version: &str,
    tags: Option<&[String]>,
) -> Result<Option<String>, crate::semver::SemverError> {
    let version = version.trim();
    let as_written = match pick {
        Pick::FluxChart(_) => super::tags::strict(version.strip_prefix('v').unwrap_or(version)),
        _ => Version::parse(version).is_ok(),
    };
    if !version.is_empty() && as_written {
        return Ok(Some(version.replace('+', "_")));
    }
    let Some(tags) = tags else {
        return Ok(None);
    };
    let c = Constraint::parse(if version.is_empty() { "*" } else { version })?;
    Ok(tags
        .iter()
        .filter_map(|t| {
            let v = Version::parse(&t.replace('_', "+")).ok()?;
            (super::tags::strict(&t.replace('_', "+")) && c.check(&v)).then_some((v, t))
        })
        .max_by(|a, b| a.0.compare(&b.0))
        .map(|(_, t)| t.clone()))
}

/// GET with the registry's challenge answered: credentials from the user's configuration for
/// `Basic`, a token from the realm for `Bearer`.
fn get(
    client: &Client,
    repo: &Repository,
    url: &Url,
    accept: &str,
    limit: u64,
) -> Result<Response, FetchError> {
    let first = client.get(url, accept, None, limit)?;
    if first.status != 401 {
        return ok(first, url);
    }
    let challenge = first.header("www-authenticate").unwrap_or("").to_string();
    let credentials = registry_credentials(&repo.host);
    let auth = if let Some(params) = challenge.strip_prefix("Bearer ") {
        Auth::Bearer(token(client, params, credentials.as_ref())?)
    } else {
        match credentials {
            Some(a) => a,
            None => return ok(first, url),
        }
    };
    ok(client.get(url, accept, Some(&auth), limit)?, url)
}

fn ok(r: Response, url: &Url) -> Result<Response, FetchError> {
    if (200..300).contains(&r.status) {
        Ok(r)
    } else {
        Err(FetchError::Status {
            url: url.to_string(),
            status: r.status,
        })
    }
}

/// A bearer token from the challenge's realm (`realm="…",service="…",scope="…"`).
fn token(client: &Client, params: &str, credentials: Option<&Auth>) -> Result<String, FetchError> {
    let field = |name: &str| -> Option<String> {
        let at = params.find(&format!("{name}=\""))? + name.len() + 2;
        let end = params[at..].find('"')? + at;
        Some(params[at..end].to_string())
    };
    let realm = field("realm").ok_or_else(|| FetchError::Setup {
        message: format!("the registry's bearer challenge names no realm: {params}"),
    })?;
    let mut query = Vec::new();
    for name in ["service", "scope"] {
        if let Some(v) = field(name) {
            query.push(format!("{name}={}", percent_encode(&v)));
        }
    }
    let mut url = Url::parse(&realm)?;
    if !query.is_empty() {
        url.query = Some(query.join("&"));
    }
    let response = client.get_ok(&url, "application/json", credentials, MAX_MANIFEST)?;
    let json: serde_json::Value =
        serde_json::from_slice(&response.body).map_err(|e| FetchError::Registry {
            url: url.to_string(),
            message: format!("the token answer is not JSON: {e}"),
        })?;
    json["token"]
        .as_str()
        .or_else(|| json["access_token"].as_str())
        .map(String::from)
        .ok_or_else(|| FetchError::Registry {
            url: url.to_string(),
            message: "the token answer holds no token".into(),
        })
}

fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The user's credentials for `host`: Helm's registry configuration
/// (`$HELM_REGISTRY_CONFIG`, else `$XDG_CONFIG_HOME/helm/registry/config.json`, else
/// `~/.config/helm/registry/config.json`), then Docker's (`$DOCKER_CONFIG/config.json`, else
/// `~/.docker/config.json`): `auths.HOST.auth` (base64 of `user:password`), or `username` and
/// `password`; then `GITHUB_TOKEN` for `ghcr.io`. Credential helpers are not run.
fn registry_credentials(host: &str) -> Option<Auth> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let home = var("HOME");
    let helm = var("HELM_REGISTRY_CONFIG").or_else(|| {
        var("XDG_CONFIG_HOME")
            .or_else(|| home.as_ref().map(|h| h.join(".config")))
            .map(|d| d.join("helm/registry/config.json"))
    });
    let docker = var("DOCKER_CONFIG")
        .map(|d| d.join("config.json"))
        .or_else(|| home.as_ref().map(|h| h.join(".docker/config.json")));
    [helm, docker]
        .into_iter()
        .flatten()
        .find_map(|file| credentials_in(&std::fs::read(file).ok()?, host))
        .or_else(|| github_token(host))
}

/// In CI, `GITHUB_TOKEN` for GitHub's registry (GHCR takes any user name with a token), and
/// for nothing else.
fn github_token(host: &str) -> Option<Auth> {
    let token = std::env::var("GITHUB_TOKEN")
        .ok()
        .filter(|t| !t.is_empty())?;
    (host == "ghcr.io").then(|| Auth::Basic {
        user: "token".into(),
        password: token,
    })
}

fn credentials_in(config: &[u8], host: &str) -> Option<Auth> {
    use base64::Engine as _;
    let json: serde_json::Value = serde_json::from_slice(config).ok()?;
    let auths = json["auths"].as_object()?;
    let entry = auths.iter().find_map(|(k, v)| {
        let k = k
            .trim_start_matches("https://")
            .trim_start_matches("http://")
            .trim_end_matches('/');
        (k == host).then_some(v)
    })?;
    if let Some(auth) = entry["auth"].as_str() {
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(auth)
            .ok()?;
        let text = String::from_utf8(decoded).ok()?;
        let (user, password) = text.split_once(':')?;
        return Some(Auth::Basic {
            user: user.into(),
            password: password.into(),
        });
    }
    Some(Auth::Basic {
        user: entry["username"].as_str()?.into(),
        password: entry["password"].as_str()?.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chart_references_as_helm_builds_them() {
        let r = Repository::of_chart("oci://ghcr.io/org/charts/", "web").unwrap();
        assert_eq!(r.reference(), "oci://ghcr.io/org/charts/web");
        assert_eq!(
            r.url("manifests/1.0.0").unwrap().to_string(),
            "https://ghcr.io/v2/org/charts/web/manifests/1.0.0"
        );
        let local = Repository::of_chart("oci://127.0.0.1:5000", "web").unwrap();
        assert_eq!(
            local.url("tags/list").unwrap().to_string(),
            "http://127.0.0.1:5000/v2/web/tags/list"
        );
    }

    #[test]
    fn tags_for_versions_and_constraints() {
        let tags: Vec<String> = [
            "1.0.0",
            "1.2.0",
            "1.10.0_build.1",
            "2.0.0-rc.1",
            "latest",
            "1.3",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let pull = |v: &str, tags| pick_tag(&Pick::Helm(v.into()), v, tags);
        assert_eq!(pull("1.2.0", None), Ok(Some("1.2.0".into())));
        assert_eq!(pull("1.0.0+meta", None), Ok(Some("1.0.0_meta".into())));
        assert_eq!(pull("~1.0", None), Ok(None), "a range needs the tag list");
        assert_eq!(
            pull("^1.0.0", Some(&tags)),
            Ok(Some("1.10.0_build.1".into()))
        );
        assert_eq!(pull("", Some(&tags)), Ok(Some("1.10.0_build.1".into())));
        // `1.3` and `v1.2.0` are the tags as written, pulled or locked as dependencies
        // (checked with helm v3.17.3 against a registry holding tags 1.2, v1.2.0 and 1.2.0).
        assert_eq!(pull("1.3", None), Ok(Some("1.3".into())));
        assert_eq!(pull("v1.2.0", None), Ok(Some("v1.2.0".into())));
        assert_eq!(pull("1.x", Some(&tags)), Ok(Some("1.10.0_build.1".into())));
        assert_eq!(
            pull(">=2.0.0-0", Some(&tags)),
            Ok(Some("2.0.0-rc.1".into()))
        );
        assert!(pull("nonsense", Some(&tags)).is_err());

        // Flux's HelmRepository of `type: oci` takes only a strict version as written.
        let flux = |v: &str, tags| pick_tag(&Pick::FluxChart(v.into()), v, tags);
        assert_eq!(flux("1.2.0", None), Ok(Some("1.2.0".into())));
        assert_eq!(flux("v1.2.0", None), Ok(Some("v1.2.0".into())));
        assert_eq!(flux("1.0.0+meta", None), Ok(Some("1.0.0_meta".into())));
        assert_eq!(flux("1.3", None), Ok(None), "a range needs the tag list");
        assert_eq!(flux("1.2", Some(&tags)), Ok(Some("1.2.0".into())));
        assert_eq!(flux("1", Some(&tags)), Ok(Some("1.10.0_build.1".into())));
        assert_eq!(
            flux("1.3", Some(&tags)),
            Ok(None),
            "the tag 1.3 is not strict"
        );
    }

    #[test]
    fn each_tool_takes_its_own_layer() {
        let d = super::super::Digest::of(b"x");
        let manifest = |types: &[&str]| {
            let layers: Vec<String> = types
                .iter()
                .map(|t| format!(r#"{{"mediaType":"{t}","digest":"{d}"}}"#))
                .collect();
            format!(
                r#"{{"schemaVersion":2,"config":{{"mediaType":"application/vnd.cncf.helm.config.v1+json","digest":"{d}"}},"layers":[{}]}}"#,
                layers.join(",")
            )
        };
        let helm = Pick::Helm("1.0.0".into());
        let argo = Pick::Argo("1.0.0".into());
        let flux = |media_type: &str| {
            Pick::Flux(FluxRef {
                media_type: media_type.into(),
                ..FluxRef::default()
            })
        };
        let layer = |m: &str, pick: &Pick| content_layer(m.as_bytes(), "u", pick).map(|l| l.1);
        let chart = manifest(&[CHART_LAYER]);
        assert_eq!(layer(&chart, &helm).unwrap(), CHART_LAYER);
        assert_eq!(layer(&chart, &argo).unwrap(), CHART_LAYER);
        assert!(layer(r#"{"layers":[]}"#, &helm).is_err());
        assert!(layer("not json", &helm).is_err());
        let tar = manifest(&["application/vnd.oci.image.layer.v1.tar"]);
        assert!(layer(&tar, &helm).is_err());
        assert!(layer(&tar, &argo).is_ok());
        // `flux push artifact`'s layer: Argo CD does not take it, Flux takes the first layer.
        let flux_content = "application/vnd.cncf.flux.content.v1.tar+gzip";
        let pushed = manifest(&[
            flux_content,
            "application/vnd.cncf.helm.chart.provenance.v1.prov",
        ]);
        assert!(layer(&pushed, &argo).is_err());
        assert_eq!(layer(&pushed, &flux("")).unwrap(), flux_content);
        assert_eq!(layer(&pushed, &flux(flux_content)).unwrap(), flux_content);
        assert_eq!(
            layer(&pushed, &flux(CHART_LAYER)).unwrap_err().to_string(),
            format!("u: failed to find layer with media type '{CHART_LAYER}' in artifact")
        );
        assert!(layer(&manifest(&[]), &flux("")).is_err());
    }

    #[test]
    fn the_first_reference_by_each_tools_rules() {
        let d = super::super::Digest::of(b"m");
        let first = |pick: Pick| first_reference(&pick, "web").map_err(|e| e.to_string());
        let tag = |t: &str| Ok(Some(ManifestRef::Tag(t.into())));
        assert_eq!(first(Pick::Helm("1.0.0".into())), tag("1.0.0"));
        assert_eq!(first(Pick::Helm("~1.0".into())), Ok(None));
        assert!(first(Pick::Helm("nonsense".into())).is_err());
        // Argo CD tries any revision as a tag (or a digest) first.
        assert_eq!(first(Pick::Argo("latest".into())), tag("latest"));
        assert_eq!(first(Pick::Argo("v1.0.0".into())), tag("v1.0.0"));
        assert_eq!(first(Pick::Argo("1.x".into())), tag("1.x"));
        assert_eq!(
            first(Pick::Argo(">=1.0.0".into())),
            Ok(None),
            "no tag's name"
        );
        assert!(first(Pick::Argo("a b".into())).is_err());
        assert_eq!(
            first(Pick::Argo(d.to_string())),
            Ok(Some(ManifestRef::Digest(d)))
        );
        assert!(first(Pick::Argo("sha256:abc".into())).is_err());
        assert!(tags_when_missing(&Pick::Argo("1.x".into())));
        assert!(!tags_when_missing(&Pick::Argo("latest".into())));
        assert!(
            !tags_when_missing(&Pick::Argo("1.0".into())),
            "a version is only a tag"
        );
        // Flux: digest, then semver, then tag, then latest.
        let flux = |digest: &str, semver: &str, tag: &str| {
            first(Pick::Flux(FluxRef {
                digest: digest.into(),
                semver: semver.into(),
                tag: tag.into(),
                ..FluxRef::default()
            }))
        };
        assert_eq!(
            flux(&d.to_string(), "1.x", "v1"),
            Ok(Some(ManifestRef::Digest(d)))
        );
        assert_eq!(flux("", "1.x", "v1"), Ok(None));
        assert_eq!(flux("", "", "v1"), tag("v1"));
        assert_eq!(flux("", "", ""), tag("latest"));
        assert!(flux("sha512:00", "", "").is_err());
    }

    #[test]
    fn tags_picked_by_argo_cd_and_flux() {
        let tags: Vec<String> = [
            "latest",
            "v1.2.0",
            "1.3.0",
            "1.4.0_build.1",
            "1.5",
            "2.0.0-rc.1",
            "sha-1234",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let argo = |c: &str| pick_among(&Pick::Argo(c.into()), &tags, "web", "oci://r/web");
        // NewVersion reads `v1.2.0`, `1.5` and `1.4.0+build.1`.
        assert_eq!(argo("~1.2").unwrap(), "v1.2.0");
        assert_eq!(argo("1.x").unwrap(), "1.5");
        assert_eq!(argo("<1.5.0").unwrap(), "1.4.0_build.1");
        assert_eq!(
            argo(">=3").unwrap_err().to_string(),
            "oci://r/web: no version for constraints: version matching constraint not found in 7 tags"
        );
        let flux = |semver: &str, filter: &str, media_type: &str| {
            pick_among(
                &Pick::Flux(FluxRef {
                    semver: semver.into(),
                    semver_filter: filter.into(),
                    media_type: media_type.into(),
                    ..FluxRef::default()
                }),
                &tags,
                "web",
                "oci://r/web",
            )
        };
        // Strict versions with an optional `v`: not `1.5`; `_` is `+` only for a chart.
        assert_eq!(flux("1.x", "", "").unwrap(), "1.3.0");
        assert_eq!(flux("1.x", "", CHART_LAYER).unwrap(), "1.4.0_build.1");
        assert_eq!(flux(">=1.0.0-0", "", "").unwrap(), "2.0.0-rc.1");
        assert_eq!(flux(">=1.0.0", "^v", "").unwrap(), "v1.2.0");
        assert_eq!(
            flux(">=3", "", "").unwrap_err().to_string(),
            "oci://r/web: no match found for semver: >=3"
        );
        assert_eq!(
            flux("nonsense", "", "").unwrap_err().to_string(),
            "oci://r/web: semver 'nonsense' parse error: improper constraint: nonsense"
        );
        assert_eq!(
            flux("1.x", "(", "").unwrap_err().to_string(),
            "oci://r/web: error parsing regexp: missing closing ): `(`"
        );
    }

    #[test]
    fn layers_unpack_inside_the_artifact_only() {
        let tar = |path: &str| {
            let mut b = tar::Builder::new(Vec::new());
            let mut h = tar::Header::new_gnu();
            h.set_size(2);
            h.set_mode(0o644);
            // The name is written raw, as a hostile archive would.
            h.as_old_mut().name[..path.len()].copy_from_slice(path.as_bytes());
            h.set_cksum();
            b.append(&h, &b"x\n"[..]).unwrap();
            b.into_inner().unwrap()
        };
        let layer = "application/vnd.oci.image.layer.v1.tar";
        let files = unpack(&tar("./apps/cm.yaml"), layer, "u").unwrap();
        assert_eq!(files, [("apps/cm.yaml".to_string(), b"x\n".to_vec())]);
        assert!(unpack(&tar("../evil"), layer, "u").is_err());
        assert!(unpack(&tar("/etc/passwd"), layer, "u").is_err());
    }

    #[test]
    fn docker_config_credentials() {
        let config = br#"{"auths":{"https://registry.example.com/":{"auth":"Ym9iOnB3"},"other.io":{"username":"a","password":"b"}}}"#;
        assert!(matches!(
            credentials_in(config, "registry.example.com"),
            Some(Auth::Basic { user, password }) if user == "bob" && password == "pw"
        ));
        assert!(matches!(
            credentials_in(config, "other.io"),
            Some(Auth::Basic { .. })
        ));
        assert!(credentials_in(config, "ghcr.io").is_none());
    }
}
