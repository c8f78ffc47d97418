//! `helm template`'s output stage (Helm's `releaseutil.SortManifests` and the printing of
//! `helm template`): rendered files split into documents, each document's head read (a YAML
//! error fails the render), documents sorted by kind in install order with hooks after, each
//! printed under a `# Source:` line.

/// Helm's `InstallOrder`.
pub const INSTALL_ORDER: &[&str] = &[
    "PriorityClass",
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
];

/// One document of the output.
#[derive(Clone, Debug, PartialEq)]
pub struct Manifest {
    /// The template path (`mychart/templates/deployment.yaml`).
    pub source: String,
    pub kind: String,
    pub content: String,
    /// Where the document starts in its template's output (bytes).
    pub offset: usize,
    /// Has a `helm.sh/hook` annotation.
    pub hook: bool,
    /// The `helm.sh/hook` value (`test`, `pre-install,post-install`…).
    pub hook_events: String,
    /// The document as read for its head (a mapping; none for a null or empty document, and
    /// for any but a Secret when the render keeps no objects), kept so that the output is not
    /// parsed again.
    pub node: Option<crate::yaml::Node>,
}

/// Options of the output stage.
#[derive(Clone, Debug, Default)]
pub struct OutputOptions {
    /// `--no-hooks`.
    pub no_hooks: bool,
    /// `--skip-tests`: hooks of type `test` are left out.
    pub skip_tests: bool,
    /// `--show-only` (`-s`): only the documents of templates matching these
    /// `filepath.Match` patterns (paths without the chart's name: `templates/x.yaml`).
    pub show_only: Vec<String>,
}

/// Go's `strings.TrimSpace`.
fn trim(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace())
}

/// `SplitManifests`: the documents of one rendered file, trimmed, empty ones dropped.
pub fn split_manifests(text: &str) -> Vec<&str> {
    let text = trim(text);
    let mut docs = Vec::new();
    let mut piece = 0;
    let mut from = 0;
    while let Some((start, end)) = next_separator(text.as_bytes(), from) {
        docs.push(&text[piece..start]);
        (piece, from) = (end, end);
    }
    docs.push(&text[piece..]);
    docs.into_iter()
        .map(trim)
        .filter(|d| !d.is_empty())
        .collect()
}

/// The next match at or after `from` of Helm's document separator, `(?:^|\s*\n)---\s*` with
/// Go's `\s` (ASCII whitespace), as the leftmost-first regular expression finds it: `---` at
/// the very start, or after a line break together with the whitespace run before that line
/// break; then the whitespace after it. Found without the regular expression, whose
/// compilation alone was a tenth of a small chart's render.
fn next_separator(bytes: &[u8], from: usize) -> Option<(usize, usize)> {
    let is_space = |b: u8| matches!(b, b'\t' | b'\n' | 0x0C | b'\r' | b' ');
    let (start, mut end) = if from == 0 && bytes.starts_with(b"---") {
        (0, 3)
    } else {
        let newline = from + memchr::memmem::find(&bytes[from..], b"\n---")?;
        let mut start = newline;
        while start > from && is_space(bytes[start - 1]) {
            start -= 1;
        }
        (start, newline + 4)
    };
    while end < bytes.len() && is_space(bytes[end]) {
        end += 1;
    }
    Some((start, end))
}

pub use super::head::HeadError;

/// A rendered document Helm cannot read: `YAML parse error on TEMPLATE: MESSAGE`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("YAML parse error on {template}: {error}")]
pub struct ManifestError {
    /// The template that rendered it (`top/templates/x.yaml`).
    pub template: String,
    pub error: HeadError,
}

/// The documents of one rendered file, each read for its head: none for a partial (`_*`) or
/// an empty file.
pub type Documents = Vec<Result<Manifest, ManifestError>>;

/// [`Documents`] of the file `path` that rendered `text`, each with its node when `objects`
/// are kept; else only a Secret's (see [`super::head`]).
pub fn documents(path: &str, text: &str, objects: bool) -> Documents {
    let base = path.rsplit('/').next().unwrap_or_default();
    if base.starts_with('_') || trim(text).is_empty() {
        return Vec::new();
    }
    let read = |doc: &str| {
        let offset = doc.as_ptr() as usize - text.as_ptr() as usize;
        let head = if objects {
            super::head::read(doc)
        } else {
            match super::head::read_streamed(doc) {
                // Printing redacts a Secret: it is kept as an object.
                Ok((kind, _)) if kind == "Secret" => super::head::read(doc),
                streamed => streamed.map(|(kind, hook)| (kind, hook, None)),
            }
        };
        let (kind, hook, node) = head.map_err(|error| ManifestError {
            template: path.to_string(),
            error,
        })?;
        Ok(Manifest {
            source: path.to_string(),
            kind,
            content: doc.to_string(),
            offset,
            hook: hook.is_some(),
            hook_events: hook.unwrap_or_default(),
            node,
        })
    };
    let docs = split_manifests(text);
    // A big file's documents (a chart's CRDs) on every core.
    if docs.len() > 1 && text.len() > PARALLEL_BYTES {
        use rayon::prelude::*;
        docs.into_par_iter().map(read).collect()
    } else {
        docs.into_iter().map(read).collect()
    }
}

/// A rendered file larger than this has its documents read on every core.
const PARALLEL_BYTES: usize = 64 << 10;

/// A hook document Helm skips: its `helm.sh/hook` names an event Helm 3 does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedHook {
    /// The template that rendered it (`top/templates/crd.yaml`).
    pub template: String,
    pub kind: String,
    /// The annotation as written.
    pub events: String,
}

/// Sorts the documents of rendered files (`(path, documents)`, any order) as `SortManifests`
/// does, and says which hooks it skipped; the first document that is not YAML, in path
/// order, is the error.
pub fn sort_documents(
    mut files: Vec<(String, Documents)>,
) -> Result<(Vec<Manifest>, Vec<SkippedHook>), ManifestError> {
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let mut generic = Vec::new();
    let mut hooks = Vec::new();
    let mut skipped = Vec::new();
    for m in files.into_iter().flat_map(|(_, docs)| docs) {
        let m = m?;
        if m.hook {
            // Helm skips a hook with an event it does not know ("info: skipping unknown
            // hook"): Helm 2's `crd-install`, `test-failure`, an empty one.
            if m.hook_events.split(',').all(is_hook_event) {
                hooks.push(m);
            } else {
                skipped.push(SkippedHook {
                    template: m.source,
                    kind: m.kind,
                    events: m.hook_events,
                });
            }
        } else {
            generic.push(m);
        }
    }
    sort_by_kind(&mut generic);
    sort_by_kind(&mut hooks);
    generic.extend(hooks);
    Ok((generic, skipped))
}

/// A stable sort by install order: unknown kinds after known ones, alphabetically.
fn sort_by_kind(manifests: &mut [Manifest]) {
    let rank = |kind: &str| INSTALL_ORDER.iter().position(|k| *k == kind);
    manifests.sort_by(|a, b| match (rank(&a.kind), rank(&b.kind)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.kind.cmp(&b.kind),
    });
}

/// An event of `helm.sh/hook` Helm knows (`releaseutil`'s `events`, case and spaces aside).
fn is_hook_event(event: &str) -> bool {
    matches!(
        event.trim().to_ascii_lowercase().as_str(),
        "pre-install"
            | "post-install"
            | "pre-delete"
            | "post-delete"
            | "pre-upgrade"
            | "post-upgrade"
            | "pre-rollback"
            | "post-rollback"
            | "test"
            | "test-success"
    )
}

/// True for a test hook (`helm.sh/hook: test`, or Helm 2's `test-success`).
fn is_test_hook(m: &Manifest) -> bool {
    m.hook_events
        .split(',')
        .map(|e| e.trim().to_ascii_lowercase())
        .any(|e| e == "test" || e == "test-success")
}

/// `helm template`'s stdout for the sorted documents (and CRDs first, when given): the
/// release manifest (CRDs and documents that are not hooks) trimmed and ended with one line
/// break, then each hook. So a chart of hooks only starts with an empty line, as in Helm.
pub fn print(crds: &[(String, String)], manifests: &[Manifest], options: &OutputOptions) -> String {
    let (hooks, release): (Vec<&Manifest>, Vec<&Manifest>) = manifests.iter().partition(|m| m.hook);
    let release: Vec<(&str, &str)> = crds
        .iter()
        .map(|(path, text)| (path.as_str(), text.as_str()))
        .chain(
            release
                .iter()
                .map(|m| (m.source.as_str(), m.content.as_str())),
        )
        .collect();
    let hooks: Vec<(&str, &str)> = hooks
        .iter()
        .filter(|m| !(options.no_hooks || (options.skip_tests && is_test_hook(m))))
        .map(|m| (m.source.as_str(), m.content.as_str()))
        .collect();
    // Written once into a string of its final size: a big chart prints megabytes.
    const FRAME: usize = "---\n# Source: \n\n".len();
    let size = release
        .iter()
        .chain(&hooks)
        .map(|(p, t)| FRAME + p.len() + t.len())
        .sum::<usize>()
        + 1;
    let mut out = String::with_capacity(size);
    let frame = |out: &mut String, (path, text): (&str, &str)| {
        for part in ["---\n# Source: ", path, "\n", text, "\n"] {
            out.push_str(part);
        }
    };
    for document in release {
        frame(&mut out, document);
    }
    // `fmt.Fprintln(&manifests, strings.TrimSpace(rel.Manifest))`.
    let is_space = |c: char| c.is_whitespace();
    out.truncate(out.trim_end_matches(is_space).len());
    let start = out.len() - out.trim_start_matches(is_space).len();
    out.drain(..start);
    out.push('\n');
    for document in hooks {
        frame(&mut out, document);
    }
    out
}

/// A `--show-only` pattern no printed document's template matches, in Helm's words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("could not find template {pattern} in chart")]
pub struct ShowOnlyError {
    /// The pattern, with `\` made `/` as Helm does.
    pub pattern: String,
}

/// `helm template --show-only`: the printed documents whose template (the `# Source:` path
/// without its first segment) matches a pattern, pattern by pattern, each printed as
/// `---\n{document}\n`; a pattern matching nothing is Helm's error.
pub fn show_only(printed: String, patterns: &[String]) -> Result<String, ShowOnlyError> {
    if patterns.is_empty() {
        return Ok(printed);
    }
    let docs = split_manifests(&printed);
    let mut out = String::new();
    for pattern in patterns {
        let pattern = pattern.replace('\\', "/");
        let mut missing = true;
        for doc in &docs {
            let Some(name) = doc
                .strip_prefix("# Source: ")
                .or_else(|| doc.split_once("# Source: ").map(|(_, r)| r))
                .and_then(|r| r.lines().next())
                .and_then(|p| p.split_once('/').map(|(_, rest)| rest))
            else {
                continue;
            };
            if !super::glob::matches(super::glob::Syntax::GoFilepath, &pattern, name) {
                continue;
            }
            out.push_str(&format!("---\n{doc}\n"));
            missing = false;
        }
        if missing {
            return Err(ShowOnlyError { pattern });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rendered files' (`(path, text)`) documents, sorted as `SortManifests` does.
    fn sort_manifests(files: &[(String, String)]) -> Result<Vec<Manifest>, ManifestError> {
        sort_documents(
            files
                .iter()
                .map(|(path, text)| (path.clone(), documents(path, text, true)))
                .collect(),
        )
        .map(|(manifests, _)| manifests)
    }

    #[test]
    fn documents_split_as_the_separator_expression_splits_them() {
        // Every string of up to seven characters from the separator's alphabet, against the
        // expression Helm uses.
        let separator =
            regex::Regex::new(r"(?:^|[\t\n\x0C\r ]*\n)---[\t\n\x0C\r ]*").expect("a valid pattern");
        let alphabet = ['-', '\n', ' ', 'a', '\r', '\t'];
        let mut checked = 0;
        for len in 0..=7u32 {
            for mut n in 0..alphabet.len().pow(len) {
                let mut text = String::new();
                for _ in 0..len {
                    text.push(alphabet[n % alphabet.len()]);
                    n /= alphabet.len();
                }
                let want: Vec<String> = separator
                    .split(trim(&text))
                    .map(trim)
                    .filter(|d| !d.is_empty())
                    .map(str::to_string)
                    .collect();
                assert_eq!(split_manifests(&text), want, "{text:?}");
                checked += 1;
            }
        }
        assert_eq!(checked, (0..=7).map(|l| 6usize.pow(l)).sum::<usize>());
    }

    #[test]
    fn documents_split_as_helm_splits_them() {
        assert_eq!(
            split_manifests("a: 1\n---\nb: 2\n---\n\n---\nc: 3\n"),
            ["a: 1", "b: 2", "---\nc: 3"]
        );
        assert_eq!(split_manifests("---\na: 1\n"), ["a: 1"]);
        assert!(split_manifests("---\n").is_empty());
    }

    #[test]
    fn kinds_sort_in_install_order_with_hooks_last() {
        let files = vec![(
            "c/templates/x.yaml".to_string(),
            "kind: Deployment\n---\nkind: Zeta\n---\nkind: Alpha\n---\nkind: Namespace\n---\nkind: Job\nmetadata:\n  annotations:\n    helm.sh/hook: test\n".to_string(),
        )];
        let sorted = sort_manifests(&files).unwrap();
        let kinds: Vec<&str> = sorted.iter().map(|m| m.kind.as_str()).collect();
        assert_eq!(kinds, ["Namespace", "Deployment", "Alpha", "Zeta", "Job"]);
        let printed = print(
            &[],
            &sorted,
            &OutputOptions {
                skip_tests: true,
                ..Default::default()
            },
        );
        assert!(!printed.contains("kind: Job"));
    }

    #[test]
    fn scalar_annotations_are_read_as_strings_and_lists_fail() {
        let doc = |a: &str| {
            vec![(
                "c/templates/x.yaml".to_string(),
                format!("kind: Job\nmetadata:\n  name: n\n  annotations:\n    {a}\n"),
            )]
        };
        assert!(sort_manifests(&doc("helm.sh/hook-weight: 5")).is_ok());
        let err = sort_manifests(&doc("x: [1]")).unwrap_err();
        assert_eq!(err.template, "c/templates/x.yaml");
        assert!(
            err.to_string().contains(
                "cannot unmarshal array into Go struct field .metadata.annotations of type string"
            ),
            "{err}"
        );
    }
}
