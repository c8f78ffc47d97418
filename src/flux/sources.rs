//! Flux's sources: which artifact a `sourceRef` names, and where its files are. A
//! GitRepository of this repository (by URL; the bootstrap `flux-system` one when the
//! repository has none recorded) is the revision under test; other GitRepositories and
//! OCIRepositories come from the fetch store; a HelmRepository's charts too.

use super::graph::Objects;
use super::Options;
use crate::fetch::oci::{FluxRef, Pick};
use crate::fetch::{ChartRequest, Unavailable};
use crate::finding::{rules, Finding, Incomplete};
use crate::source::{Files, RemoteSnapshot, RepoPath};
use crate::yaml::Node;

/// A path inside an artifact as `securejoin` makes it: `.` and empty parts dropped, `..`
/// never above the root. `None` for a path kdelta cannot represent.
pub fn clean_path(path: &str) -> Option<RepoPath> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        return Some(RepoPath::root());
    }
    RepoPath::new(&parts.join("/")).ok()
}

/// True when `source` names the cluster's own sync artifact of the Flux operator, an
/// OCIRepository `flux-system/flux-system` that the repository does not hold (a
/// `FluxInstance` with `sync.kind: OCIRepository` makes it): CI pushes a directory of this
/// repository as that artifact (`flux push artifact --path=./kubernetes`).
pub fn is_operator_artifact(source: &Ref, objects: &Objects) -> bool {
    (
        source.kind.as_str(),
        source.namespace.as_str(),
        source.name.as_str(),
    ) == ("OCIRepository", "flux-system", "flux-system")
        && objects
            .get(&source.kind, &source.namespace, &source.name)
            .is_none()
}

/// Where a Kustomization written in `file` reads its `path` from the operator's sync
/// artifact ([`is_operator_artifact`]): the artifact is taken to be the deepest directory
/// above `file` below which `path` is a directory (`kubernetes/` for
/// `kubernetes/clusters/prod/sync.yaml` with `path: ./apps/prod`). The artifact's directory
/// and the path's; `None` when no such directory is there.
pub fn operator_artifact_path(
    source: &Ref,
    file: &RepoPath,
    path: &str,
    is_dir: impl Fn(&RepoPath) -> bool,
) -> Option<(RepoPath, RepoPath)> {
    operator_artifact_candidates(source, file, path)
        .into_iter()
        .find(|(_, dir)| is_dir(dir))
}

/// The places [`operator_artifact_path`] tries, deepest first: each directory above `file`
/// with `path` below it. None for another source, or for the artifact's own root
/// (`path: ./`), which tells nothing of where the artifact is.
pub fn operator_artifact_candidates(
    source: &Ref,
    file: &RepoPath,
    path: &str,
) -> Vec<(RepoPath, RepoPath)> {
    if (
        source.kind.as_str(),
        source.namespace.as_str(),
        source.name.as_str(),
    ) != ("OCIRepository", "flux-system", "flux-system")
    {
        return Vec::new();
    }
    let Some(rel) = clean_path(path).filter(|rel| !rel.is_root()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut dir = file.parent();
    loop {
        out.extend(
            dir.join(rel.as_str())
                .ok()
                .map(|joined| (dir.clone(), joined)),
        );
        if dir.is_root() {
            return out;
        }
        dir = dir.parent();
    }
}

/// The directory a root's id names: `.` for the repository's root.
pub fn shown_path(path: &RepoPath) -> String {
    if path.is_root() {
        ".".to_string()
    } else {
        path.to_string()
    }
}

/// The GitRepository `source` includes (`spec.include`) whose copy holds `path` (a
/// Kustomization's path, a chart's directory): source-controller copies each included
/// repository's artifact, from its `fromPath`, to `toPath` (default: the included
/// repository's name), a later include over an earlier. Gives the included repository and
/// the path in it.
pub fn included(source: &Ref, objects: &Objects, path: &str) -> Option<(Ref, String)> {
    if source.kind != "GitRepository" {
        return None;
    }
    let repo = objects.get(&source.kind, &source.namespace, &source.name)?;
    let dir = clean_path(path)?;
    let includes = repo.get_path(&["spec", "include"])?.as_seq()?;
    includes.iter().rev().find_map(|include| {
        let name = include.str_at(&["repository", "name"])?;
        let to = include.str_at(&["toPath"]).filter(|p| !p.is_empty());
        let to = clean_path(to.unwrap_or(name))?;
        if to.is_root() || !dir.starts_with(&to) {
            return None;
        }
        let from = include.str_at(&["fromPath"]).unwrap_or_default();
        let rest = dir.relative_to(&to);
        Some((
            Ref {
                kind: "GitRepository".into(),
                name: name.to_string(),
                namespace: source.namespace.clone(),
            },
            format!("{from}/{rest}"),
        ))
    })
}

/// A reference to another Flux object: `sourceRef`, `chartRef`, `substituteFrom`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ref {
    pub kind: String,
    pub name: String,
    pub namespace: String,
}

impl Ref {
    /// The reference at `node` (an object with `kind`, `name`, `namespace`), the namespace
    /// defaulting to the referring object's.
    pub fn at(node: &Node, default_kind: &str, namespace: &str) -> Option<Ref> {
        Some(Ref {
            kind: node.str_at(&["kind"]).unwrap_or(default_kind).to_string(),
            name: node.str_at(&["name"])?.to_string(),
            namespace: node
                .str_at(&["namespace"])
                .filter(|n| !n.is_empty())
                .unwrap_or(namespace)
                .to_string(),
        })
    }
}

impl std::fmt::Display for Ref {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}/{}", self.kind, self.namespace, self.name)
    }
}

/// Where an artifact's files are.
pub enum Artifact {
    /// This repository at the revision under test.
    Local,
    /// Another repository's commit or an OCI artifact, from the fetch store; `shown` names it
    /// in messages.
    Remote {
        snapshot: RemoteSnapshot,
        shown: String,
    },
}

/// Why an artifact cannot be read.
pub enum Missing {
    /// Not rendered offline (not fetched, a kind kdelta does not read): the output is
    /// incomplete, for that reason, and the message says why.
    Incomplete(Incomplete, String),
    /// The reference is wrong (no such source in what the cluster applies).
    Invalid(String),
}

/// The finding for what a target lacks: a source that could not be fetched is `fetch.failed`
/// (an error, as in every engine), anything else a `flux.not-rendered` notice; either leaves
/// the output incomplete.
pub fn not_rendered(reason: Incomplete, message: String) -> Finding {
    let finding = if reason == Incomplete::FetchFailed {
        Finding::error(rules::FETCH_FAILED, message)
    } else {
        Finding::notice(rules::FLUX_NOT_RENDERED, message)
    };
    finding.incomplete(reason)
}

/// A source whose `spec.ref` or `spec.url` kdelta cannot follow offline.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SourceRefError {
    /// An OCIRepository URL with no chart path.
    #[error("OCIRepository url {url:?} names no chart")]
    NoChart { url: String },
}

impl From<SourceRefError> for Missing {
    fn from(e: SourceRefError) -> Missing {
        Missing::Incomplete(Incomplete::FluxOutside, e.to_string())
    }
}

/// The artifact a Kustomization's `sourceRef` (or a HelmRelease chart's) names.
pub fn artifact(
    source: &Ref,
    objects: &Objects,
    files: &Files,
    opts: &Options,
) -> Result<Artifact, Missing> {
    match source.kind.as_str() {
        "GitRepository" => git_artifact(source, objects, files, opts),
        "OCIRepository" => {
            let Some(repo) = objects.get(&source.kind, &source.namespace, &source.name) else {
                return Err(not_applied(source));
            };
            let url = repo.str_at(&["spec", "url"]).unwrap_or_default();
            let reference = oci_ref(repo);
            let shown_ref = reference.shown();
            files
                .oci_snapshot(url, &Pick::Flux(reference))
                .map(|(snapshot, digest)| Artifact::Remote {
                    snapshot,
                    shown: format!(
                        "{} {shown_ref} ({})",
                        crate::fetch::url::redact_text(url),
                        &digest[..digest.len().min(19)]
                    ),
                })
                .map_err(|e| unavailable(source, &e))
        }
        "ExternalArtifact" => super::artifacts::external(source, objects, files, opts, 0),
        other => Err(Missing::Incomplete(
            Incomplete::FluxOutside,
            format!(
                "{source}: kdelta does not read {other} sources; what it names is not rendered"
            ),
        )),
    }
}

fn git_artifact(
    source: &Ref,
    objects: &Objects,
    files: &Files,
    opts: &Options,
) -> Result<Artifact, Missing> {
    let repo = objects.get("GitRepository", &source.namespace, &source.name);
    let bootstrap = source.name == "flux-system";
    let Some(repo) = repo else {
        // Flux's bootstrap (or the Flux operator) creates `flux-system` for this repository.
        return if bootstrap {
            Ok(Artifact::Local)
        } else {
            Err(not_applied(source))
        };
    };
    let url = repo.str_at(&["spec", "url"]).unwrap_or_default();
    let normalized = crate::fetch::url::normalize_repo_url(url);
    if opts.repo_urls.contains(&normalized) || (bootstrap && opts.repo_urls.is_empty()) {
        return Ok(Artifact::Local);
    }
    let rev = match git_ref(repo) {
        GitRef::Revision(rev) => rev,
        GitRef::Semver(constraint) => semver_tag(source, files, url, &constraint)?,
    };
    files
        .git_snapshot(url, &rev)
        .map(|(snapshot, commit)| Artifact::Remote {
            snapshot,
            shown: format!(
                "{} at {rev} ({})",
                crate::fetch::url::redact_text(url),
                &commit[..commit.len().min(12)]
            ),
        })
        .map_err(|e| unavailable(source, &e))
}

/// The tag a GitRepository's `ref.semver` picks among the remote's tags, as source-controller
/// picks it. Offline, a constraint the cached list cannot satisfy is missing from the cache
/// (tags pushed since may be the answer), not wrong.
fn semver_tag(source: &Ref, files: &Files, url: &str, constraint: &str) -> Result<String, Missing> {
    let listed = files.git_tags(url).map_err(|e| unavailable(source, &e))?;
    crate::fetch::tags::flux_semver(constraint, "", &listed.tags, false).map_err(|message| {
        let shown = crate::fetch::url::redact_text(url);
        let error = crate::fetch::FetchError::Tags {
            repo: shown.clone(),
            message,
        };
        let e = match listed.listed_at {
            Some(at) => Unavailable::NotCached(format!(
                "{shown} {constraint} ({error}; the tags were listed at {at})"
            )),
            None => Unavailable::Failed(error),
        };
        unavailable(source, &e)
    })
}

/// What a GitRepository's `spec.ref` names.
enum GitRef {
    /// A commit, a reference name, a tag or a branch.
    Revision(String),
    /// A semver constraint over the repository's tags.
    Semver(String),
}

/// A GitRepository's `spec.ref`, in the controller's order of precedence: `commit`, `name`,
/// `semver`, `tag`, `branch`; `master` when it names none.
fn git_ref(repo: &Node) -> GitRef {
    let r = |k: &str| spec_ref(repo, k);
    if let Some(rev) = r("commit").or_else(|| r("name")) {
        return GitRef::Revision(rev);
    }
    if let Some(constraint) = r("semver") {
        return GitRef::Semver(constraint);
    }
    GitRef::Revision(
        r("tag")
            .or_else(|| r("branch"))
            .unwrap_or_else(|| "master".into()),
    )
}

/// An OCIRepository's `spec.ref` and layer selector, which the fetch layer resolves by
/// source-controller's rules: `digest`, then `semver` (with `semverFilter`), `tag`, `latest`.
pub fn oci_ref(repo: &Node) -> FluxRef {
    let r = |k: &str| spec_ref(repo, k).unwrap_or_default();
    FluxRef {
        digest: r("digest"),
        semver: r("semver"),
        semver_filter: r("semverFilter"),
        tag: r("tag"),
        media_type: repo
            .str_at(&["spec", "layerSelector", "mediaType"])
            .unwrap_or_default()
            .to_string(),
    }
}

/// A source's `spec.ref.KEY`, when set.
fn spec_ref(repo: &Node, key: &str) -> Option<String> {
    repo.str_at(&["spec", "ref", key])
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The chart an OCIRepository holds, as the fetch store asks for it: `oci://host/path` is
/// the repository `oci://host/parent` and the chart `path`'s last part.
pub fn oci_chart_request(repo: &Node) -> Result<ChartRequest, SourceRefError> {
    let url = repo.str_at(&["spec", "url"]).unwrap_or_default();
    let (parent, name) = url
        .trim_end_matches('/')
        .rsplit_once('/')
        .filter(|(p, _)| p.contains("://") && !p.ends_with(':') && !p.ends_with('/'))
        .ok_or_else(|| SourceRefError::NoChart {
            url: url.to_string(),
        })?;
    let reference = oci_ref(repo);
    Ok(ChartRequest {
        repo: parent.to_string(),
        name: name.to_string(),
        version: reference.shown(),
        oci: crate::fetch::OciVersion::Flux(reference),
    })
}

fn not_applied(source: &Ref) -> Missing {
    Missing::Incomplete(Incomplete::FluxOutside, format!(
        "{source} is not among the objects this cluster's Kustomizations apply; what it names is not rendered"
    ))
}

fn unavailable(source: &Ref, e: &Unavailable) -> Missing {
    Missing::Incomplete(e.incomplete(), format!("{source}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_never_climb_out_of_the_artifact() {
        assert_eq!(
            clean_path("./clusters/prod").unwrap().as_str(),
            "clusters/prod"
        );
        assert!(clean_path("").unwrap().is_root());
        assert!(clean_path("./").unwrap().is_root());
        assert_eq!(clean_path("../../a/./b/../c").unwrap().as_str(), "a/c");
        assert_eq!(shown_path(&clean_path("/").unwrap()), ".");
    }

    #[test]
    fn oci_chart_references_split_at_the_last_part() {
        let repo = crate::yaml::parse_one(
            b"spec: {url: 'oci://ghcr.io/home-operations/charts/kromgo', ref: {tag: 0.16.0}}",
            &Default::default(),
        )
        .unwrap();
        let r = oci_chart_request(&repo).unwrap();
        assert_eq!(r.repo, "oci://ghcr.io/home-operations/charts");
        assert_eq!(r.name, "kromgo");
        assert_eq!(r.version, "0.16.0");
        let bare =
            crate::yaml::parse_one(b"spec: {url: 'oci://ghcr.io'}", &Default::default()).unwrap();
        assert!(oci_chart_request(&bare).is_err());
    }
}
