//! The two glob dialects charts meet, in one matcher: gobwas/glob with `/` as separator
//! (`.Files.Glob`: `**` crosses directories, `{a,b}` alternatives, `[!…]` negated classes) and
//! Go's `filepath.Match` (`.helmignore`: `[^…]`, no `**`, no braces). Matching is memoised
//! over (pattern position, name position), so no pattern takes more than
//! pattern length × name length steps.

/// Which syntax a pattern is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// gobwas/glob (Helm's `.Files.Glob`).
    Gobwas,
    /// Go's `filepath.Match` (Helm's `.helmignore`).
    GoFilepath,
}

/// Brace alternatives a pattern may expand to before it is taken literally.
const MAX_ALTERNATIVES: usize = 256;

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Literal(char),
    /// `?`: one character but `/`.
    One,
    /// `*`: any run without `/`.
    Star,
    /// `**`: any run.
    DoubleStar,
    /// `[…]`: ranges, negated or not.
    Class(Vec<(char, char)>, bool),
}

/// True when `name` matches `pattern`.
pub fn matches(syntax: Syntax, pattern: &str, name: &str) -> bool {
    Glob::new(syntax, pattern).is_match(name)
}

/// A compiled pattern, for matching many names.
#[derive(Clone, Debug)]
pub struct Glob {
    alternatives: Vec<Alternative>,
}

/// One alternative of a pattern, in the cheapest form that matches the same names.
#[derive(Clone, Debug)]
enum Alternative {
    /// No wildcard.
    Literal(String),
    /// `*` and then no wildcard (`*.bak`, the common `.helmignore` line).
    Suffix(String),
    Tokens(Vec<Token>),
}

impl Glob {
    pub fn new(syntax: Syntax, pattern: &str) -> Glob {
        let literal = |t: &[Token]| -> Option<String> {
            t.iter()
                .map(|t| match t {
                    Token::Literal(c) => Some(*c),
                    _ => None,
                })
                .collect()
        };
        let alternatives = alternatives(syntax, pattern)
            .iter()
            .map(|alt| {
                let t = tokens(syntax, alt);
                if let Some(text) = literal(&t) {
                    return Alternative::Literal(text);
                }
                match t.split_first() {
                    Some((Token::Star, rest)) => match literal(rest) {
                        Some(suffix) => Alternative::Suffix(suffix),
                        None => Alternative::Tokens(t),
                    },
                    _ => Alternative::Tokens(t),
                }
            })
            .collect();
        Glob { alternatives }
    }

    /// True when `name` matches.
    pub fn is_match(&self, name: &str) -> bool {
        let mut chars: Option<Vec<char>> = None;
        self.alternatives.iter().any(|alt| match alt {
            Alternative::Literal(literal) => literal == name,
            Alternative::Suffix(suffix) => name
                .strip_suffix(suffix.as_str())
                .is_some_and(|run| !run.contains('/')),
            Alternative::Tokens(tokens) => {
                match_tokens(tokens, chars.get_or_insert_with(|| name.chars().collect()))
            }
        })
    }
}

/// `{a,b}` expanded (gobwas only; nested braces expand from the inside out).
fn alternatives(syntax: Syntax, pattern: &str) -> Vec<String> {
    let mut out = vec![pattern.to_string()];
    if syntax != Syntax::Gobwas {
        return out;
    }
    loop {
        let mut next = Vec::new();
        let mut expanded = false;
        for p in &out {
            let close = p.find('}');
            let open = close.and_then(|c| p[..c].rfind('{'));
            match (open, close) {
                (Some(o), Some(c)) => {
                    expanded = true;
                    for alt in p[o + 1..c].split(',') {
                        next.push(format!("{}{alt}{}", &p[..o], &p[c + 1..]));
                    }
                }
                _ => next.push(p.clone()),
            }
        }
        if !expanded || next.len() > MAX_ALTERNATIVES {
            return out;
        }
        out = next;
    }
}

fn tokens(syntax: Syntax, pattern: &str) -> Vec<Token> {
    let p: Vec<char> = pattern.chars().collect();
    let negation = if syntax == Syntax::Gobwas { '!' } else { '^' };
    let mut out = Vec::new();
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            '*' if syntax == Syntax::Gobwas && p.get(i + 1) == Some(&'*') => {
                out.push(Token::DoubleStar);
                i += 2;
                continue;
            }
            '*' => out.push(Token::Star),
            '?' => out.push(Token::One),
            '\\' if i + 1 < p.len() => {
                out.push(Token::Literal(p[i + 1]));
                i += 2;
                continue;
            }
            '[' => {
                if let Some(len) = p[i + 1..].iter().position(|&c| c == ']') {
                    let mut class = &p[i + 1..i + 1 + len];
                    let negate = class.first() == Some(&negation);
                    if negate {
                        class = &class[1..];
                    }
                    let mut ranges = Vec::new();
                    let mut j = 0;
                    while j < class.len() {
                        if j + 2 < class.len() && class[j + 1] == '-' {
                            ranges.push((class[j], class[j + 2]));
                            j += 3;
                        } else {
                            ranges.push((class[j], class[j]));
                            j += 1;
                        }
                    }
                    out.push(Token::Class(ranges, negate));
                    i += len + 2;
                    continue;
                }
                out.push(Token::Literal('['));
            }
            c => out.push(Token::Literal(c)),
        }
        i += 1;
    }
    out
}

fn match_tokens(p: &[Token], n: &[char]) -> bool {
    // memo[pi * (n.len() + 1) + ni]: 0 unknown, 1 no, 2 yes.
    let width = n.len() + 1;
    let mut memo = vec![0u8; (p.len() + 1) * width];
    fn go(p: &[Token], n: &[char], pi: usize, ni: usize, memo: &mut [u8]) -> bool {
        let at = pi * (n.len() + 1) + ni;
        if memo[at] != 0 {
            return memo[at] == 2;
        }
        let here = n.get(ni).copied();
        let v = match p.get(pi) {
            None => ni == n.len(),
            Some(Token::Star) => {
                go(p, n, pi + 1, ni, memo)
                    || (here.is_some_and(|c| c != '/') && go(p, n, pi, ni + 1, memo))
            }
            Some(Token::DoubleStar) => {
                go(p, n, pi + 1, ni, memo) || (here.is_some() && go(p, n, pi, ni + 1, memo))
            }
            Some(Token::One) => here.is_some_and(|c| c != '/') && go(p, n, pi + 1, ni + 1, memo),
            Some(Token::Literal(l)) => here == Some(*l) && go(p, n, pi + 1, ni + 1, memo),
            Some(Token::Class(ranges, negate)) => {
                here.is_some_and(|c| {
                    c != '/' && ranges.iter().any(|(a, b)| *a <= c && c <= *b) != *negate
                }) && go(p, n, pi + 1, ni + 1, memo)
            }
        };
        memo[at] = if v { 2 } else { 1 };
        v
    }
    go(p, n, 0, 0, &mut memo)
}

/// doublestar's glob: `*` stays within a segment, a `**` segment matches any number of
/// segments.
pub fn doublestar(pattern: &str, path: &str) -> bool {
    fn go(p: &[&str], n: &[&str]) -> bool {
        match p.first() {
            None => n.is_empty(),
            Some(&"**") => (0..=n.len()).any(|i| go(&p[1..], &n[i..])),
            Some(seg) => {
                !n.is_empty() && matches(Syntax::GoFilepath, seg, n[0]) && go(&p[1..], &n[1..])
            }
        }
    }
    let p: Vec<&str> = pattern.split('/').collect();
    let n: Vec<&str> = path.split('/').collect();
    go(&p, &n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gobwas_globs() {
        let m = |p, n| matches(Syntax::Gobwas, p, n);
        assert!(m("**", "a/b/c"));
        assert!(m("files/*", "files/a.txt"));
        assert!(!m("files/*", "files/x/a.txt"));
        assert!(m("files/**.txt", "files/x/a.txt"));
        assert!(m("*.{yaml,json}", "a.json"));
        assert!(m("[a-c]?.txt", "b1.txt"));
        assert!(!m("[!a-c]?.txt", "b1.txt"));
    }

    #[test]
    fn go_filepath_match() {
        let m = |p, n| matches(Syntax::GoFilepath, p, n);
        assert!(m("*.md", "README.md"));
        assert!(!m("*", "a/b"));
        assert!(m("[^x]b", "ab"));
        assert!(!m("{a,b}", "a"));
    }

    #[test]
    fn a_star_and_a_suffix_match_as_the_tokens_do() {
        let names = [
            "a.bak", ".bak", "bak", "x/a.bak", "a.bak/x", "a.bakk", "é.bak", "~", "a~",
        ];
        for syntax in [Syntax::Gobwas, Syntax::GoFilepath] {
            for pattern in ["*.bak", "*~", "*", "*/a.bak", "*\\*"] {
                let glob = Glob::new(syntax, pattern);
                let t = tokens(syntax, pattern);
                for name in names {
                    let chars: Vec<char> = name.chars().collect();
                    assert_eq!(
                        glob.is_match(name),
                        match_tokens(&t, &chars),
                        "{syntax:?} {pattern} {name}"
                    );
                }
            }
        }
        assert!(matches!(
            Glob::new(Syntax::GoFilepath, "*.bak").alternatives[..],
            [Alternative::Suffix(_)]
        ));
    }

    #[test]
    fn a_pathological_pattern_ends_quickly() {
        let pattern = "*a".repeat(40) + "b";
        let name = "a".repeat(5000);
        assert!(!matches(Syntax::Gobwas, &pattern, &name));
        assert!(!matches(Syntax::GoFilepath, &pattern, &name));
    }
}
