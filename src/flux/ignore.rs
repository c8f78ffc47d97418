//! What source-controller leaves out of an artifact (`fluxcd/pkg/sourceignore`, on go-git's
//! `gitignore` matcher): the VCS files always; the `.sourceignore` files of the tree, each
//! scoped to its directory, then the source's `spec.ignore` (scoped to the root); and only
//! when there is no such pattern at all, the default
//! exclusions (images and archives, CI configuration, `.sops.yaml`, `.flux.yaml`,
//! `.goreleaser.yml`). A path is checked against the patterns from last to first; the first
//! that matches decides, and a pattern that matches a directory matches everything below it.

use crate::source::{Files, RepoPath};

/// Always left out (`sourceignore.ExcludeVCS`).
const VCS: &str = ".git/,.gitignore,.gitmodules,.gitattributes";
/// Left out when the source has no pattern of its own (`ExcludeExt`, `ExcludeCI`,
/// `ExcludeExtra`).
const DEFAULTS: &str = "*.jpg,*.jpeg,*.gif,*.png,*.wmv,*.flv,*.tar.gz,*.zip,.github/,.circleci/,.travis.yml,.gitlab-ci.yml,appveyor.yml,.drone.yml,cloudbuild.yaml,codeship-services.yml,codeship-steps.yml,**/.goreleaser.yml,**/.sops.yaml,**/.flux.yaml";

/// The name of the ignore files.
const FILE: &str = ".sourceignore";

/// One gitignore pattern (go-git's `pattern`).
#[derive(Clone, Debug)]
struct Pattern {
    /// The directory of the file it comes from, as path components.
    domain: Vec<String>,
    parts: Vec<String>,
    inclusion: bool,
    dir_only: bool,
    /// It holds a `/`: matched component by component from the domain.
    anchored: bool,
}

impl Pattern {
    fn parse(line: &str, domain: &[String]) -> Option<Pattern> {
        let mut p = line;
        if p.starts_with('#') || p.trim().is_empty() {
            return None;
        }
        let inclusion = p.starts_with('!');
        if inclusion {
            p = &p[1..];
        }
        if !p.ends_with("\\ ") {
            p = p.trim_end_matches(' ');
        }
        let dir_only = p.ends_with('/');
        let p = p.strip_suffix('/').unwrap_or(p);
        Some(Pattern {
            domain: domain.to_vec(),
            parts: p.split('/').map(str::to_string).collect(),
            inclusion,
            dir_only,
            anchored: p.contains('/'),
        })
    }

    /// `Some(excluded)` when the pattern decides for `path`.
    fn matches(&self, path: &[&str], is_dir: bool) -> Option<bool> {
        if path.len() <= self.domain.len() || path.iter().zip(&self.domain).any(|(a, b)| a != b) {
            return None;
        }
        let path = &path[self.domain.len()..];
        let hit = if self.anchored {
            self.glob_match(path, is_dir)
        } else {
            self.name_match(path, is_dir)
        };
        hit.then_some(!self.inclusion)
    }

    /// A pattern without `/`: any component of the path (so a directory's contents too).
    fn name_match(&self, path: &[&str], is_dir: bool) -> bool {
        path.iter().enumerate().any(|(i, name)| {
            go_match(&self.parts[0], name) && !(self.dir_only && !is_dir && i == path.len() - 1)
        })
    }

    /// A pattern with `/`: component by component, `**` crossing directories; what the
    /// pattern leaves of the path is below a matched directory.
    fn glob_match(&self, mut path: &[&str], is_dir: bool) -> bool {
        let mut matched = false;
        let mut traverse = false;
        for (i, part) in self.parts.iter().enumerate() {
            if part.is_empty() {
                traverse = false;
                continue;
            }
            if part == "**" {
                if i == self.parts.len() - 1 {
                    break;
                }
                traverse = true;
                continue;
            }
            if part.contains("**") || path.is_empty() {
                return false;
            }
            if traverse {
                traverse = false;
                while let Some((first, rest)) = path.split_first() {
                    path = rest;
                    if go_match(part, first) {
                        matched = true;
                        break;
                    }
                    if path.is_empty() {
                        matched = false;
                    }
                }
            } else {
                if !go_match(part, path[0]) {
                    return false;
                }
                matched = true;
                path = &path[1..];
            }
        }
        // A directory-only pattern that ends on a file does not match it.
        matched && !(self.dir_only && !is_dir && path.is_empty())
    }
}

fn go_match(pattern: &str, name: &str) -> bool {
    crate::helm::glob::matches(crate::helm::glob::Syntax::GoFilepath, pattern, name)
}

/// The ignore rules of one artifact.
#[derive(Clone, Debug)]
pub struct Ignore {
    patterns: Vec<Pattern>,
}

impl Ignore {
    /// The rules of an artifact read through `files`: its root's `.sourceignore` and those of
    /// the directories down to `dir` (deeper ones are added by [`Ignore::enter`]), then the
    /// source's `spec.ignore`, which source-controller appends to them.
    pub fn load(files: &Files, dir: &RepoPath, source_ignore: Option<&str>) -> Ignore {
        let mut user = Vec::new();
        let mut at = RepoPath::root();
        read_into(files, &at, &mut user);
        for part in dir.components() {
            at = at.child(part);
            read_into(files, &at, &mut user);
        }
        if let Some(text) = source_ignore {
            user.extend(text.lines().filter_map(|l| Pattern::parse(l, &[])));
        }
        let mut patterns = split(VCS, &[]);
        if user.is_empty() {
            patterns.extend(split(DEFAULTS, &[]));
        }
        patterns.extend(user);
        Ignore { patterns }
    }

    /// The rules with those of `dir`'s own `.sourceignore` (a directory the walk enters).
    pub fn enter(&self, files: &Files, dir: &RepoPath) -> Ignore {
        let mut more = Vec::new();
        read_into(files, dir, &mut more);
        if more.is_empty() {
            return self.clone();
        }
        let mut patterns = self.patterns.clone();
        patterns.extend(more);
        Ignore { patterns }
    }

    /// True when source-controller leaves `path` out of the artifact.
    pub fn excludes(&self, path: &RepoPath, is_dir: bool) -> bool {
        let parts: Vec<&str> = path.components().collect();
        self.patterns
            .iter()
            .rev()
            .find_map(|p| p.matches(&parts, is_dir))
            .unwrap_or(false)
    }
}

fn split(list: &str, domain: &[String]) -> Vec<Pattern> {
    list.split(',')
        .filter_map(|p| Pattern::parse(p, domain))
        .collect()
}

fn read_into(files: &Files, dir: &RepoPath, out: &mut Vec<Pattern>) {
    let Ok(bytes) = files.read(&dir.child(FILE)) else {
        return;
    };
    let domain: Vec<String> = dir.components().map(str::to_string).collect();
    out.extend(
        String::from_utf8_lossy(&bytes)
            .lines()
            .filter_map(|l| Pattern::parse(l, &domain)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ignore(lines: &str) -> Ignore {
        let mut patterns = split(VCS, &[]);
        patterns.extend(lines.lines().filter_map(|l| Pattern::parse(l, &[])));
        Ignore { patterns }
    }

    fn out(i: &Ignore, path: &str, is_dir: bool) -> bool {
        i.excludes(&RepoPath::new(path).unwrap(), is_dir)
    }

    #[test]
    fn exclude_all_then_include_directories_as_flux_s_example_does() {
        let i =
            ignore("# Exclude all\n/*\n\n# Include manifest directories\n!/apps/\n!/clusters/\n");
        assert!(out(&i, "README.md", false));
        assert!(out(&i, "scripts/x.yaml", false));
        assert!(!out(&i, "apps/base/podinfo/release.yaml", false));
        assert!(!out(&i, "clusters/prod/apps.yaml", false));
        assert!(out(&i, ".git/config", false));
    }

    #[test]
    fn names_match_at_any_depth_and_dir_only_patterns_spare_files() {
        let i = ignore("*.md\ntmp/\n!keep.md\n");
        assert!(out(&i, "docs/a.md", false));
        assert!(!out(&i, "docs/keep.md", false));
        assert!(out(&i, "a/tmp/x.yaml", false));
        assert!(!out(&i, "a/tmp", false));
        assert!(out(&i, "a/tmp", true));
    }

    #[test]
    fn double_stars_cross_directories_and_domains_scope_patterns() {
        let i = ignore("apps/**/secret.yaml\n");
        assert!(out(&i, "apps/a/b/secret.yaml", false));
        assert!(!out(&i, "other/secret.yaml", false));
        let scoped = Ignore {
            patterns: vec![Pattern::parse("*.yaml", &["apps".to_string()]).unwrap()],
        };
        assert!(out(&scoped, "apps/x.yaml", false));
        assert!(!out(&scoped, "x.yaml", false));
    }

    #[test]
    fn defaults_apply_only_without_patterns_of_the_source() {
        let mut defaults = split(VCS, &[]);
        defaults.extend(split(DEFAULTS, &[]));
        let i = Ignore { patterns: defaults };
        assert!(out(&i, "apps/.sops.yaml", false));
        assert!(out(&i, ".github/workflows/ci.yaml", false));
        assert!(!out(&i, "apps/web.yaml", false));
        assert!(!out(&ignore("*.md\n"), "apps/.sops.yaml", false));
    }
}
