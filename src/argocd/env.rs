//! The build environment Argo CD's repo-server gives a source (`newEnv`): `ARGOCD_APP_NAME`
//! and its siblings, substituted into image overrides, labels, Helm parameters and value file
//! paths with Go's `os.Expand` rules.

use serde_json::Value as Json;

/// The variables of one Application source.
#[derive(Clone)]
pub struct Env {
    vars: Vec<(&'static str, String)>,
}

/// The variables naming the commit Argo CD syncs. kdelta renders a revision's tree, not a
/// commit Argo CD resolved, and leaves them as written (the content-addressed cache must not
/// depend on the commit id).
const REVISION_VARS: [&str; 3] = [
    "ARGOCD_APP_REVISION",
    "ARGOCD_APP_REVISION_SHORT",
    "ARGOCD_APP_REVISION_SHORT_8",
];

impl Env {
    /// The variables for `source` of the Application `app`.
    pub fn new(app: &Json, source: &Json) -> Env {
        let text = |v: &Json| v.as_str().unwrap_or_default().to_string();
        Env {
            vars: vec![
                ("ARGOCD_APP_NAME", text(&app["metadata"]["name"])),
                (
                    "ARGOCD_APP_NAMESPACE",
                    text(&app["spec"]["destination"]["namespace"]),
                ),
                ("ARGOCD_APP_PROJECT_NAME", text(&app["spec"]["project"])),
                ("ARGOCD_APP_SOURCE_REPO_URL", text(&source["repoURL"])),
                ("ARGOCD_APP_SOURCE_PATH", text(&source["path"])),
                (
                    "ARGOCD_APP_SOURCE_TARGET_REVISION",
                    text(&source["targetRevision"]),
                ),
            ],
        }
    }

    /// The variables and their values (the revision variables, which kdelta does not know,
    /// are not among them).
    pub fn vars(&self) -> impl Iterator<Item = (&str, &str)> {
        self.vars.iter().map(|(k, v)| (*k, v.as_str()))
    }

    /// `s` with `$NAME` and `${NAME}` replaced (unknown names by nothing, `$$` by `$`), as
    /// Argo CD's `Env.Envsubst`; the revision variables stay as written.
    pub fn subst(&self, s: &str) -> String {
        expand(s, |name| {
            if name == "$" {
                return Some("$".to_string());
            }
            if REVISION_VARS.contains(&name) {
                return None;
            }
            Some(
                self.vars
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default(),
            )
        })
    }

    /// The revision variable `s` uses, if any (kdelta leaves it unsubstituted).
    pub fn revision_var(s: &str) -> Option<&'static str> {
        let mut found = None;
        expand(s, |name| {
            if let Some(v) = REVISION_VARS.iter().find(|v| **v == name) {
                found.get_or_insert(*v);
            }
            None
        });
        found
    }
}

/// Go's `os.Expand`: `mapping` gives a variable's value, or `None` to keep the reference as
/// written.
fn expand(s: &str, mut mapping: impl FnMut(&str) -> Option<String>) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    let mut j = 0;
    while j < b.len() {
        if b[j] == b'$' && j + 1 < b.len() {
            out.push_str(&s[i..j]);
            let (name, width) = shell_name(&s[j + 1..]);
            match name {
                // Bad syntax (`${`, `${}`): the characters are eaten.
                "" if width > 0 => {}
                // A `$` not followed by a name stays.
                "" => out.push('$'),
                _ => match mapping(name) {
                    Some(v) => out.push_str(&v),
                    None => out.push_str(&s[j..j + 1 + width]),
                },
            }
            j += width;
            i = j + 1;
        }
        j += 1;
    }
    out.push_str(&s[i.min(s.len())..]);
    out
}

fn is_special(c: u8) -> bool {
    matches!(
        c,
        b'*' | b'#' | b'$' | b'@' | b'!' | b'?' | b'-' | b'0'..=b'9'
    )
}

/// Go's `getShellName`: the variable name after a `$`, and how many bytes it took.
fn shell_name(s: &str) -> (&str, usize) {
    let b = s.as_bytes();
    if b[0] == b'{' {
        if b.len() > 2 && is_special(b[1]) && b[2] == b'}' {
            return (&s[1..2], 3);
        }
        return match b.iter().skip(1).position(|c| *c == b'}') {
            Some(0) => ("", 2),
            Some(n) => (&s[1..n + 1], n + 2),
            None => ("", 1),
        };
    }
    if is_special(b[0]) {
        return (&s[..1], 1);
    }
    let n = b
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
        .count();
    (&s[..n], n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn env() -> Env {
        Env::new(
            &json!({"metadata": {"name": "web"}, "spec": {"project": "p", "destination": {"namespace": "prod"}}}),
            &json!({"path": "apps/web", "targetRevision": "main", "repoURL": "https://x/r"}),
        )
    }

    #[test]
    fn substitutes_like_os_expand() {
        let e = env();
        assert_eq!(
            e.subst("img:${ARGOCD_APP_NAME}-$ARGOCD_APP_NAMESPACE"),
            "img:web-prod"
        );
        assert_eq!(e.subst("a$$b"), "a$b");
        assert_eq!(e.subst("x$UNKNOWN.y"), "x.y");
        assert_eq!(e.subst("bad${}z ${"), "badz ");
        assert_eq!(e.subst("cost: 5$"), "cost: 5$");
        assert_eq!(e.subst("$1$-"), "");
        assert_eq!(e.subst("${ARGOCD_APP_SOURCE_PATH}/v"), "apps/web/v");
    }

    #[test]
    fn revision_variables_stay_as_written() {
        let e = env();
        assert_eq!(
            e.subst("t:${ARGOCD_APP_REVISION_SHORT}"),
            "t:${ARGOCD_APP_REVISION_SHORT}"
        );
        assert_eq!(
            Env::revision_var("t:$ARGOCD_APP_REVISION"),
            Some("ARGOCD_APP_REVISION")
        );
        assert_eq!(Env::revision_var("t:$ARGOCD_APP_NAME"), None);
    }
}
