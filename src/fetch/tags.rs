//! Which tag a semver constraint picks among a repository's tags (a registry's, a git
//! remote's), by the rules of each tool: Argo CD's `versions.MaxVersion` and Flux's
//! source-controller (`getTagBySemver` for OCI, `cloneSemVer` for git). Helm's own rule for
//! charts is [`super::oci::Pick::Helm`]'s.

use crate::semver::{Constraint, SemverError, Version};
use std::cmp::Ordering;

/// True when Argo CD takes a revision for a semver constraint: Masterminds reads it as a
/// constraint and not as a version (`1.2` and `v1.2.0` are versions, that is tag names;
/// `~1.2`, `1.x` and `>=1.0.0` constraints).
pub fn is_constraint(revision: &str) -> bool {
    Version::parse(revision).is_err() && Constraint::parse(revision).is_ok()
}

/// Argo CD's `versions.MaxVersion`: the highest tag `semver.NewVersion` reads (`v1.2`, `1.2`
/// and `1.2.0` alike) that the constraint admits. `underscores`: a registry's tags, which
/// write a version's `+` as `_`.
pub fn argo_max_version(
    constraint: &str,
    tags: &[String],
    underscores: bool,
) -> Result<String, String> {
    let c = Constraint::parse(constraint)
        .map_err(|e| format!("failed to determine semver constraint: {e}"))?;
    let mut read_error = None;
    let best = highest(tags, &c, |tag| {
        let text = if underscores {
            tag.replace('_', "+")
        } else {
            tag.to_string()
        };
        match Version::parse(&text) {
            Ok(v) => Some(v),
            Err(SemverError::InvalidVersion { .. }) => None,
            // Any other error of a tag fails the whole resolution, as in Argo CD.
            Err(e) => {
                read_error.get_or_insert(format!("invalid semver version in tags: {e}"));
                None
            }
        }
    });
    if let Some(e) = read_error {
        return Err(e);
    }
    best.ok_or_else(|| {
        format!(
            "version matching constraint not found in {} tags",
            tags.len()
        )
    })
}

/// Flux's semver ref: among the tags `filter` (a Go regexp; empty keeps all) keeps, those
/// fluxcd/pkg's `version.ParseVersion` reads (strict `X.Y.Z`, a leading `v` allowed), the
/// highest the constraint admits. `underscores`: an OCI Helm chart's tags (`_` for `+`).
pub fn flux_semver(
    constraint: &str,
    filter: &str,
    tags: &[String],
    underscores: bool,
) -> Result<String, String> {
    let filter = if filter.is_empty() {
        None
    } else {
        Some(crate::go::regexp::compile(filter)?)
    };
    let c = Constraint::parse(constraint)
        .map_err(|e| format!("semver '{constraint}' parse error: {e}"))?;
    highest(tags, &c, |tag| {
        if filter.as_ref().is_some_and(|f| !f.is_match(tag)) {
            return None;
        }
        let text = if underscores {
            tag.replace('_', "+")
        } else {
            tag.to_string()
        };
        let strict_without_v = strict(text.strip_prefix('v').unwrap_or(&text));
        strict_without_v
            .then(|| Version::parse(&text).ok())
            .flatten()
    })
    .ok_or_else(|| format!("no match found for semver: {constraint}"))
}

/// The tag whose version (`read` gives it; `None` skips the tag) is the highest `c` admits;
/// the first listed among equal ones.
fn highest(
    tags: &[String],
    c: &Constraint,
    mut read: impl FnMut(&str) -> Option<Version>,
) -> Option<String> {
    let mut best: Option<(Version, &String)> = None;
    for tag in tags {
        let Some(v) = read(tag) else {
            continue;
        };
        if c.check(&v)
            && best
                .as_ref()
                .is_none_or(|(b, _)| v.compare(b) == Ordering::Greater)
        {
            best = Some((v, tag));
        }
    }
    best.map(|(_, t)| t.clone())
}

/// `semver.StrictNewVersion`: exactly `X.Y.Z`, optionally `-pre` and `+meta`.
pub fn strict(t: &str) -> bool {
    let core = t.split(['-', '+']).next().unwrap_or("");
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.bytes().all(|b| b.is_ascii_digit())
                && (p.len() == 1 || !p.starts_with('0'))
        })
        && Version::parse(t).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn argo_cd_reads_loose_versions_and_fails_on_a_bad_prerelease() {
        let t = tags(&["v1.2.0", "1.3", "release-1", "1.4.0_b"]);
        assert_eq!(argo_max_version("~1.2", &t, false).unwrap(), "v1.2.0");
        assert_eq!(argo_max_version("1.x", &t, false).unwrap(), "1.3");
        // Git tags keep `_`: `1.4.0_b` is no version there, and is 1.4.0+b in a registry.
        assert_eq!(argo_max_version(">=1.0.0", &t, true).unwrap(), "1.4.0_b");
        assert_eq!(argo_max_version(">=1.0.0", &t, false).unwrap(), "1.3");
        assert_eq!(
            argo_max_version(">=1.0.0", &tags(&["1.0.0-01"]), false).unwrap_err(),
            "invalid semver version in tags: Version segment starts with 0"
        );
        assert!(is_constraint("~1.2") && is_constraint(">=1.0.0") && is_constraint("1.x"));
        assert!(!is_constraint("1.2") && !is_constraint("v1.2.0") && !is_constraint("main"));
    }

    #[test]
    fn flux_reads_strict_versions_with_an_optional_v() {
        let t = tags(&["v1.2.0", "1.3", "1.1.0", "v1.0.0-rc.1", "vv1.5.0"]);
        assert_eq!(flux_semver(">=1.0.0", "", &t, false).unwrap(), "v1.2.0");
        assert_eq!(
            flux_semver(">=1.0.0-0", "^v1[.]0", &t, false).unwrap(),
            "v1.0.0-rc.1"
        );
        assert_eq!(
            flux_semver(">=2", "", &t, false).unwrap_err(),
            "no match found for semver: >=2"
        );
    }
}
