//! Noise control: field changes a team has decided not to see (`ignore:` in `.kdelta.yaml`),
//! plus Argo CD's tracking annotation, which never means a change in the cluster's desired state.

pub use crate::config::IgnoreRule;

impl IgnoreRule {
    /// True when the rule hides `path` of `resource`.
    pub fn hides(&self, resource: &str, path: &str) -> bool {
        wildcard(&self.resources, resource)
            && self
                .fields
                .iter()
                .any(|f| segment_prefixes(path).any(|p| wildcard(f, p)))
    }
}

/// Rules every diff applies.
pub fn builtin_rules() -> Vec<IgnoreRule> {
    vec![IgnoreRule {
        resources: "*".to_string(),
        fields: vec!["metadata.annotations[\"argocd.argoproj.io/tracking-id\"]".to_string()],
    }]
}

/// `path` and every prefix of it that ends where a segment ends.
fn segment_prefixes(path: &str) -> impl Iterator<Item = &str> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut cuts = Vec::new();
    for (i, c) in path.char_indices() {
        match c {
            '"' => in_string = !in_string,
            '[' if !in_string => {
                if depth == 0 && i > 0 {
                    cuts.push(i);
                }
                depth += 1;
            }
            ']' if !in_string => depth = depth.saturating_sub(1),
            '.' if !in_string && depth == 0 => cuts.push(i),
            _ => {}
        }
    }
    cuts.into_iter()
        .map(move |i| &path[..i])
        .chain(std::iter::once(path))
}

/// `*`-only wildcard matching over the whole text.
pub fn wildcard(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || !text[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_and_prefixes() {
        assert!(wildcard("*", "anything"));
        assert!(wildcard(
            "apps/*/Deployment/*",
            "apps/v1/Deployment/prod/web"
        ));
        assert!(!wildcard("apps/*/Deployment/*", "core/v1/Service/prod/web"));
        assert!(wildcard("a*b*c", "aXXbYYc"));
        assert!(!wildcard("a*b*c", "aXXcYYb"));
        let rule = IgnoreRule {
            resources: "*".into(),
            fields: vec![
                "metadata.annotations[\"checksum/*\"]".into(),
                "metadata.labels".into(),
            ],
        };
        assert!(rule.hides("x", "metadata.annotations[\"checksum/config\"]"));
        assert!(rule.hides("x", "metadata.labels[\"helm.sh/chart\"]"));
        assert!(!rule.hides("x", "metadata.annotations[\"other\"]"));
        assert!(!rule.hides("x", "spec.replicas"));
        let p: Vec<&str> = segment_prefixes("spec.containers[name=a.b].image").collect();
        assert_eq!(
            p,
            [
                "spec",
                "spec.containers",
                "spec.containers[name=a.b]",
                "spec.containers[name=a.b].image"
            ]
        );
    }
}
