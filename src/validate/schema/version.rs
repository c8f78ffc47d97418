//! Kubernetes versions as validation picks them: major and minor (the API a cluster serves
//! changes only between minors), the patch kept for display.

use std::fmt;

/// A Kubernetes version: `1.29`, `v1.29.3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KubeVersion {
    pub major: u32,
    pub minor: u32,
}

/// A version that does not read as `MAJOR.MINOR[.PATCH]`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid Kubernetes version {text:?}: expected MAJOR.MINOR or vMAJOR.MINOR.PATCH, such as 1.29"
)]
pub struct VersionError {
    pub text: String,
}

impl KubeVersion {
    /// `major.minor`.
    pub const fn new(major: u32, minor: u32) -> KubeVersion {
        KubeVersion { major, minor }
    }

    /// Reads `1.29`, `1.29.3`, `v1.29.3`, `v1.29.3-gke.100` (the patch and suffix are ignored).
    pub fn parse(text: &str) -> Result<KubeVersion, VersionError> {
        let err = || VersionError {
            text: text.to_string(),
        };
        let t = text.trim();
        let t = t.strip_prefix('v').unwrap_or(t);
        let mut parts = t.splitn(3, '.');
        let number = |s: Option<&str>| -> Option<u32> {
            let s = s?;
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            s.parse().ok()
        };
        let major = number(parts.next()).ok_or_else(err)?;
        let minor = number(parts.next()).ok_or_else(err)?;
        if let Some(patch) = parts.next() {
            if !patch.starts_with(|c: char| c.is_ascii_digit()) {
                return Err(err());
            }
        }
        Ok(KubeVersion { major, minor })
    }

    /// The next minor release (what a cluster upgrades to).
    pub fn next_minor(self) -> KubeVersion {
        KubeVersion::new(self.major, self.minor + 1)
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl std::str::FromStr for KubeVersion {
    type Err = VersionError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        KubeVersion::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_forms_clusters_report() {
        for (text, want) in [
            ("1.29", (1, 29)),
            ("1.29.3", (1, 29)),
            ("v1.29.3", (1, 29)),
            ("v1.30.1-gke.1000", (1, 30)),
            ("1.28.2+k3s1", (1, 28)),
        ] {
            assert_eq!(
                KubeVersion::parse(text),
                Ok(KubeVersion::new(want.0, want.1)),
                "{text}"
            );
        }
        for bad in ["", "1", "v", "1.x", "one.two", "1.29.x"] {
            assert!(KubeVersion::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(KubeVersion::new(1, 29).to_string(), "1.29");
        assert!(KubeVersion::new(1, 9) < KubeVersion::new(1, 10));
    }
}
