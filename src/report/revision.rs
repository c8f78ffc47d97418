//! How the writers for people name the revisions a report compares: "Base `main` (`3f2a9c1`)
//! → head `WORKTREE`", or "Revision …" for a report on one revision. The wording lives here
//! once; each writer only says how it marks up one revision.

use super::{Report, RevisionInfo};

/// The revision line: "Base {base} → head {head}", or "Revision {head}" without a base. `rev`
/// writes one revision from its name and, when it is worth showing, its full commit id.
pub fn line(report: &Report, rev: impl Fn(&str, Option<&str>) -> String) -> String {
    let one = |r: &RevisionInfo| rev(&r.rev, shown_commit(r));
    match &report.base {
        Some(b) => format!("Base {} → head {}", one(b), one(&report.head)),
        None => format!("Revision {}", one(&report.head)),
    }
}

/// The revisions by name only, "{base} → {head}" or "{head}" (for a page title).
pub fn names(report: &Report) -> String {
    match &report.base {
        Some(b) => format!("{} → {}", b.rev, report.head.rev),
        None => report.head.rev.clone(),
    }
}

/// The commit to show beside a revision's name: none when the name already starts with it (a
/// revision named by its commit id).
fn shown_commit(r: &RevisionInfo) -> Option<&str> {
    r.commit.as_deref().filter(|c| !r.rev.starts_with(c))
}

/// The abbreviated commit id (7 hex digits, as git shows it).
pub fn short_commit(commit: &str) -> &str {
    commit.get(..7.min(commit.len())).unwrap_or(commit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(base: Option<(&str, Option<&str>)>, head: (&str, Option<&str>)) -> Report {
        let info = |(rev, commit): (&str, Option<&str>)| RevisionInfo {
            rev: rev.to_string(),
            commit: commit.map(str::to_string),
        };
        Report {
            schema: crate::report::REPORT_SCHEMA,
            base: base.map(info),
            head: info(head),
            targets: Vec::new(),
            findings: Vec::new(),
            summary: Default::default(),
        }
    }

    #[test]
    fn commits_are_shown_unless_the_name_is_the_commit() {
        let plain = |rev: &str, commit: Option<&str>| match commit {
            Some(c) => format!("{rev} ({})", short_commit(c)),
            None => rev.to_string(),
        };
        let r = report(
            Some(("main", Some("3f2a9c1d0e"))),
            ("3f2a9c1d0e", Some("3f2a9c1d0e")),
        );
        assert_eq!(line(&r, plain), "Base main (3f2a9c1) → head 3f2a9c1d0e");
        assert_eq!(names(&r), "main → 3f2a9c1d0e");
        let r = report(None, ("WORKTREE", None));
        assert_eq!(line(&r, plain), "Revision WORKTREE");
        assert_eq!(names(&r), "WORKTREE");
        assert_eq!(short_commit("abc"), "abc");
    }
}
