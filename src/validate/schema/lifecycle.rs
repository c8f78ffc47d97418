//! Whether a Kubernetes version serves an apiVersion and kind, from data: which bundled
//! versions define it comes from the bundled schemas themselves (removed in = the first
//! bundled version after the last that has it); deprecated-in, replacements and removals
//! before the bundled range come from k8s.io/api's prerelease lifecycle data.

use super::catalog::{bundle, split_api_version, Gvk, LifecycleRow};
use super::version::KubeVersion;

/// What a Kubernetes version does with an apiVersion and kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApiStatus {
    /// Served, not deprecated.
    Served,
    /// Served, but deprecated since `since`; `removed_in` when a removal is known (seen in the
    /// bundled schemas, or planned upstream past them).
    Deprecated {
        since: KubeVersion,
        removed_in: Option<KubeVersion>,
        /// `apps/v1 Deployment`.
        replacement: Option<String>,
    },
    /// No longer served, since `since`.
    Removed {
        since: KubeVersion,
        replacement: Option<String>,
    },
    /// Not served yet: the first bundled version that serves it.
    NotYetServed { from: KubeVersion },
    /// No Kubernetes data on it: a custom resource, or a kind Kubernetes never had.
    Unknown,
}

/// The lifecycle status of `kind` in `apiVersion` on a cluster of version `target`.
pub fn lifecycle(api_version: &str, kind: &str, target: KubeVersion) -> ApiStatus {
    let b = bundle();
    let (group, version) = split_api_version(api_version);
    let gvk: Gvk = (group.to_string(), version.to_string(), kind.to_string());
    let present: Vec<KubeVersion> = b
        .versions
        .iter()
        .zip(&b.kinds)
        .filter(|(_, kinds)| kinds.contains(&gvk))
        .map(|(v, _)| *v)
        .collect();
    let row: Option<&LifecycleRow> = b.lifecycle.iter().find(|r| r.gvk == gvk);
    let replacement = row.and_then(|r| r.replacement.clone());
    let (Some(first), Some(last)) = (b.versions.first().copied(), b.versions.last().copied())
    else {
        return ApiStatus::Unknown;
    };
    if present.is_empty() && row.is_none() {
        return ApiStatus::Unknown;
    }
    let upstream_removed = row.and_then(|r| r.removed);
    let removed = match present.last() {
        // Gone from the newer bundled schemas: removed in the first version without it.
        Some(seen) if *seen < last => b.versions.iter().copied().find(|v| v > seen),
        // Still in the newest schemas: only a removal planned past them counts (one planned
        // inside the range that did not happen is no removal).
        Some(_) => upstream_removed.filter(|r| *r > last),
        None => upstream_removed,
    };
    let served = if target >= first && target <= last {
        b.index_of(target)
            .is_some_and(|i| b.kinds[i].contains(&gvk))
    } else if target > last {
        present.last() == Some(&last) && removed.is_none_or(|r| target < r)
    } else {
        // Before the bundled range: upstream's data alone.
        let introduced = row.and_then(|r| r.introduced);
        let born_in_range = present.first().is_some_and(|f| *f > first);
        !born_in_range
            && introduced.is_none_or(|i| i <= target)
            && removed.is_none_or(|r| target < r)
    };
    if served {
        return match row.and_then(|r| r.deprecated).filter(|d| *d <= target) {
            Some(since) => ApiStatus::Deprecated {
                since,
                removed_in: removed.filter(|r| *r > target),
                replacement,
            },
            None => ApiStatus::Served,
        };
    }
    if let Some(since) = removed.filter(|r| *r <= target) {
        return ApiStatus::Removed { since, replacement };
    }
    if let Some(from) = present.first().filter(|f| **f > target) {
        return ApiStatus::NotYetServed { from: *from };
    }
    if let Some(from) = row.and_then(|r| r.introduced).filter(|i| *i > target) {
        return ApiStatus::NotYetServed { from };
    }
    ApiStatus::Unknown
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(m: u32) -> KubeVersion {
        KubeVersion::new(1, m)
    }

    #[test]
    fn removed_apis_before_and_inside_the_bundled_range() {
        assert_eq!(
            lifecycle("extensions/v1beta1", "Ingress", v(29)),
            ApiStatus::Removed {
                since: v(22),
                replacement: Some("networking.k8s.io/v1 Ingress".into())
            }
        );
        assert_eq!(
            lifecycle("batch/v1beta1", "CronJob", v(25)),
            ApiStatus::Removed {
                since: v(25),
                replacement: Some("batch/v1 CronJob".into())
            }
        );
        assert_eq!(
            lifecycle("autoscaling/v2beta2", "HorizontalPodAutoscaler", v(25)),
            ApiStatus::Deprecated {
                since: v(23),
                removed_in: Some(v(26)),
                replacement: Some("autoscaling/v2 HorizontalPodAutoscaler".into())
            }
        );
        assert_eq!(
            lifecycle("autoscaling/v2beta2", "HorizontalPodAutoscaler", v(26)),
            ApiStatus::Removed {
                since: v(26),
                replacement: Some("autoscaling/v2 HorizontalPodAutoscaler".into())
            }
        );
        assert_eq!(
            lifecycle("policy/v1beta1", "PodSecurityPolicy", v(25)),
            ApiStatus::Removed {
                since: v(25),
                replacement: None
            }
        );
    }

    #[test]
    fn served_and_unknown_apis() {
        assert_eq!(lifecycle("apps/v1", "Deployment", v(30)), ApiStatus::Served);
        assert_eq!(lifecycle("v1", "ConfigMap", v(25)), ApiStatus::Served);
        assert_eq!(lifecycle("v1", "ConfigMap", v(40)), ApiStatus::Served);
        assert_eq!(
            lifecycle("cert-manager.io/v1", "Certificate", v(30)),
            ApiStatus::Unknown
        );
        assert_eq!(
            lifecycle("flowcontrol.apiserver.k8s.io/v1", "FlowSchema", v(25)),
            ApiStatus::NotYetServed { from: v(29) }
        );
        assert!(matches!(
            lifecycle("flowcontrol.apiserver.k8s.io/v1beta3", "FlowSchema", v(32)),
            ApiStatus::Removed { since, .. } if since == v(32)
        ));
    }
}
