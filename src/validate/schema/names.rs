//! The API server's name and metadata rules (k8s.io/apimachinery `util/validation`), with its
//! error wording: DNS-1123 labels and subdomains, DNS-1035 labels, path segment names,
//! qualified names (label and annotation keys) and label values.

const DNS1123_LABEL_MAX: usize = 63;
const DNS1123_SUBDOMAIN_MAX: usize = 253;
const QUALIFIED_NAME_MAX: usize = 63;
const LABEL_VALUE_MAX: usize = 63;

fn alnum_lower(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
fn is_label_shape(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && alnum_lower(b[0])
        && alnum_lower(b[b.len() - 1])
        && b.iter().all(|&c| alnum_lower(c) || c == b'-')
}

/// `IsDNS1123Label`: the errors, empty when valid.
pub fn dns1123_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > DNS1123_LABEL_MAX {
        errs.push(max_len(DNS1123_LABEL_MAX));
    }
    if !is_label_shape(s) {
        errs.push(format!(
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '{}')",
            "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
        ));
    }
    errs
}

/// `IsDNS1123Subdomain`: the errors, empty when valid.
pub fn dns1123_subdomain(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > DNS1123_SUBDOMAIN_MAX {
        errs.push(max_len(DNS1123_SUBDOMAIN_MAX));
    }
    if !is_subdomain_shape(s) {
        errs.push(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
                .to_string(),
        );
    }
    errs
}

fn is_subdomain_shape(s: &str) -> bool {
    !s.is_empty() && s.split('.').all(is_label_shape)
}

/// `IsDNS1035Label` (Service names): the errors, empty when valid.
pub fn dns1035_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > DNS1123_LABEL_MAX {
        errs.push(max_len(DNS1123_LABEL_MAX));
    }
    if !(is_label_shape(s) && s.as_bytes()[0].is_ascii_lowercase()) {
        errs.push(
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
                .to_string(),
        );
    }
    errs
}

/// `IsValidPathSegmentName` (RBAC objects, PersistentVolumes): the errors, empty when valid.
pub fn path_segment_name(s: &str) -> Vec<String> {
    if s == "." || s == ".." {
        return vec![format!("may not be '{s}'")];
    }
    let mut errs = Vec::new();
    for bad in ["/", "%"] {
        if s.contains(bad) {
            errs.push(format!("may not contain '{bad}'"));
        }
    }
    errs
}

/// `IsQualifiedName` (label keys; annotation keys lowercased): the errors, empty when valid.
pub fn qualified_name(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let (prefix, name) = match s.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, s),
    };
    if s.matches('/').count() > 1 {
        errs.push("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')".to_string());
        return errs;
    }
    if let Some(p) = prefix {
        if p.is_empty() {
            errs.push("prefix part must be non-empty".to_string());
        } else {
            for e in dns1123_subdomain(p) {
                errs.push(format!("prefix part {e}"));
            }
        }
    }
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else {
        if name.len() > QUALIFIED_NAME_MAX {
            errs.push(format!("name part {}", max_len(QUALIFIED_NAME_MAX)));
        }
        if !is_qualified_shape(name) {
            errs.push("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')".to_string());
        }
    }
    errs
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
fn is_qualified_shape(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// `IsValidLabelValue`: the errors, empty when valid (the empty value is valid).
pub fn label_value(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > LABEL_VALUE_MAX {
        errs.push(max_len(LABEL_VALUE_MAX));
    }
    if !s.is_empty() && !is_qualified_shape(s) {
        errs.push("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')".to_string());
    }
    errs
}

fn max_len(n: usize) -> String {
    format!("must be no more than {n} characters")
}

/// Which name rule a kind's `metadata.name` follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameRule {
    Dns1123Subdomain,
    Dns1123Label,
    Dns1035Label,
    PathSegment,
}

impl NameRule {
    /// The rule the API server applies to a built-in kind's name (`ValidateXName` in
    /// pkg/apis/*/validation); custom resources use [`NameRule::Dns1123Subdomain`].
    pub fn for_builtin_kind(group: &str, kind: &str) -> NameRule {
        match (group, kind) {
            ("", "Namespace") => NameRule::Dns1123Label,
            ("", "Service") => NameRule::Dns1035Label,
            ("", "PersistentVolume") => NameRule::PathSegment,
            ("rbac.authorization.k8s.io", _) => NameRule::PathSegment,
            _ => NameRule::Dns1123Subdomain,
        }
    }

    /// The errors for `name`, empty when valid. For a `generateName` prefix, a trailing `-`
    /// is masked as the API server does.
    pub fn check(self, name: &str, prefix: bool) -> Vec<String> {
        let masked;
        let name = if prefix && name.ends_with('-') && self != NameRule::PathSegment {
            masked = format!("{}a", &name[..name.len() - 1]);
            masked.as_str()
        } else {
            name
        };
        match self {
            NameRule::Dns1123Subdomain => dns1123_subdomain(name),
            NameRule::Dns1123Label => dns1123_label(name),
            NameRule::Dns1035Label => dns1035_label(name),
            NameRule::PathSegment => path_segment_name(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_labels_and_keys() {
        assert!(dns1123_subdomain("web.example-1").is_empty());
        assert!(!dns1123_subdomain("Web").is_empty());
        assert!(!dns1123_subdomain("web_1").is_empty());
        assert!(!dns1123_subdomain("-web").is_empty());
        assert!(!dns1123_subdomain(&"a".repeat(254)).is_empty());
        assert!(dns1123_label("ns-1").is_empty());
        assert!(!dns1123_label("ns.1").is_empty());
        assert!(!dns1035_label("1web").is_empty());
        assert!(dns1035_label("web1").is_empty());
        assert!(path_segment_name("system:controller:x").is_empty());
        assert!(!path_segment_name("a/b").is_empty());
        assert!(qualified_name("app.kubernetes.io/name").is_empty());
        assert!(qualified_name("App_Name").is_empty());
        assert!(!qualified_name("a/b/c").is_empty());
        assert!(!qualified_name("/name").is_empty());
        assert!(!qualified_name("Example.com/name").is_empty());
        assert!(!qualified_name(&"n".repeat(64)).is_empty());
        assert!(label_value("").is_empty());
        assert!(label_value("v1.2_3").is_empty());
        assert!(!label_value("a b").is_empty());
        assert!(!label_value(&"v".repeat(64)).is_empty());
        assert!(NameRule::Dns1123Subdomain.check("web-", true).is_empty());
        assert!(!NameRule::Dns1123Subdomain.check("web-", false).is_empty());
    }
}
