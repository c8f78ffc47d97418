//! `.helmignore` (Helm's `pkg/ignore`): one `filepath.Match` pattern per line, `#` comments,
//! `!` negation (with Helm's odd rule: a negated pattern that does *not* match ignores), a
//! trailing `/` for directories, a leading `/` or any `/` to match the whole path instead of
//! the base name. Helm adds `templates/.?*`. A path is ignored when it or a directory above it
//! is.

/// Parsed rules.
#[derive(Clone, Debug, Default)]
pub struct Rules {
    patterns: Vec<Pattern>,
}

#[derive(Clone, Debug)]
struct Pattern {
    glob: super::glob::Glob,
    negate: bool,
    must_dir: bool,
    /// Match the whole path (the rule has a `/`), not the base name.
    whole: bool,
}

impl Rules {
    /// The rules of a `.helmignore`, after Helm's default. Lines Helm refuses (`**`, a bad
    /// pattern) are skipped.
    pub fn parse(text: &str) -> Rules {
        let mut rules = Rules::default();
        for line in std::iter::once("templates/.?*").chain(text.lines()) {
            let mut rule = line.trim();
            if rule.is_empty() || rule.starts_with('#') || rule.contains("**") {
                continue;
            }
            let negate = rule.starts_with('!');
            if negate {
                rule = &rule[1..];
            }
            let must_dir = rule.ends_with('/');
            if must_dir {
                rule = rule.trim_end_matches('/');
            }
            let whole = rule.contains('/');
            rules.patterns.push(Pattern {
                glob: super::glob::Glob::new(
                    super::glob::Syntax::GoFilepath,
                    rule.trim_start_matches('/'),
                ),
                negate,
                must_dir,
                whole,
            });
        }
        rules
    }

    /// Helm's `Ignore` for one path, its parent directories not looked at (a walk skips an
    /// ignored directory whole).
    pub fn ignores(&self, path: &str, is_dir: bool) -> bool {
        for p in &self.patterns {
            let target = if p.whole {
                path
            } else {
                path.rsplit('/').next().unwrap_or(path)
            };
            if p.negate {
                if p.must_dir && !is_dir {
                    return true;
                }
                if !p.glob.is_match(target) {
                    return true;
                }
                continue;
            }
            if p.must_dir && !is_dir {
                continue;
            }
            if p.glob.is_match(target) {
                return true;
            }
        }
        false
    }

    /// True when the file, or a directory it is in, is ignored (Helm's walk skips ignored
    /// directories whole).
    pub fn ignores_file(&self, path: &str) -> bool {
        let mut dir = String::new();
        let parts: Vec<&str> = path.split('/').collect();
        for part in &parts[..parts.len().saturating_sub(1)] {
            if !dir.is_empty() {
                dir.push('/');
            }
            dir.push_str(part);
            if self.ignores(&dir, true) {
                return true;
            }
        }
        self.ignores(path, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helmignore_rules_as_helm_applies_them() {
        let r = Rules::parse("# comment\n*.md\nci/\n/docs/*.txt\ntemplates/*.bak\n");
        assert!(r.ignores_file("README.md"));
        assert!(r.ignores_file("charts/sub/NOTES.md"));
        assert!(r.ignores_file("ci/values.yaml"));
        assert!(r.ignores_file("docs/a.txt"));
        assert!(!r.ignores_file("x/docs/a.txt"));
        assert!(r.ignores_file("templates/old.bak"));
        assert!(r.ignores_file("templates/.hidden.yaml"));
        assert!(!r.ignores_file("templates/deploy.yaml"));
        assert!(!r.ignores_file("values.yaml"));
    }
}
