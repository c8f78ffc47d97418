//! Container image references, split as kustomize's `image.Split` splits them: the
//! ImageTagTransformer matches and rewrites them, reports group image changes by them.

/// kustomize `image.Split`: name, tag and digest (a registry port is not a tag).
pub fn split(image: &str) -> (String, String, String) {
    let (search, offset) = match image.find('/') {
        Some(i) if i > 0 => (&image[i..], i),
        _ => (image, 0),
    };
    let at = search.find('@');
    let colon = search.find(':');
    match (at, colon) {
        (None, None) => (image.to_string(), String::new(), String::new()),
        (Some(d), c) if c.is_none() || d < c.unwrap_or(usize::MAX) => {
            let d = d + offset;
            (
                image[..d].to_string(),
                String::new(),
                image[d + 1..].to_string(),
            )
        }
        (Some(d), Some(c)) => {
            let (d, c) = (d + offset, c + offset);
            (
                image[..c].to_string(),
                image[c + 1..d].to_string(),
                image[d + 1..].to_string(),
            )
        }
        (None, Some(c)) => {
            let c = c + offset;
            (
                image[..c].to_string(),
                image[c + 1..].to_string(),
                String::new(),
            )
        }
        (Some(_), None) => unreachable!("handled by the digest-first arm"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_kustomize() {
        let s = |x: &str| {
            let (a, b, c) = split(x);
            (a, b, c)
        };
        assert_eq!(s("nginx"), ("nginx".into(), "".into(), "".into()));
        assert_eq!(s("nginx:1.2"), ("nginx".into(), "1.2".into(), "".into()));
        assert_eq!(
            s("reg:5000/app:v1"),
            ("reg:5000/app".into(), "v1".into(), "".into())
        );
        assert_eq!(
            s("app@sha256:ab"),
            ("app".into(), "".into(), "sha256:ab".into())
        );
        assert_eq!(
            s("app:v1@sha256:ab"),
            ("app".into(), "v1".into(), "sha256:ab".into())
        );
    }
}
