//! Resource selectors (patch targets, replacement select/reject): anchored regexes on
//! group/version/kind/name/namespace (kustomize `SelectorRegex`) and Kubernetes label and
//! annotation selector expressions (`app=web,tier!=db,env in (a,b),!legacy`).

use super::kid::Gvk;
use super::res::Res;
use super::types::Selector;
use regex::Regex;
use std::collections::BTreeMap;

/// A compiled selector.
pub struct SelectorMatcher {
    group: Option<Regex>,
    version: Option<Regex>,
    kind: Option<Regex>,
    name: Option<Regex>,
    namespace: Option<Regex>,
    labels: Option<LabelSelector>,
    annotations: Option<LabelSelector>,
}

/// Why a selector does not compile: the selector field, what it holds and why.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SelectorError {
    /// A group, version, kind, name or namespace that is no regular expression.
    #[error("invalid selector regex {pattern:?}: {source}")]
    Regex {
        field: &'static str,
        pattern: String,
        source: regex::Error,
    },
    /// A label or annotation selector that does not parse.
    #[error("{error}")]
    Expression {
        field: &'static str,
        expression: String,
        error: LabelSelectorError,
    },
}

/// Why a label selector expression does not parse, as Go's `labels.Parse` words it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LabelSelectorError {
    /// A requirement (`key op values`) that does not parse.
    #[error("unable to parse requirement: {0}")]
    Requirement(Box<LabelSelectorError>),
    /// Another token than the grammar allows.
    #[error("found '{found}', expected: {expected}")]
    Unexpected {
        found: String,
        expected: &'static str,
    },
    /// No `(` after `in` or `notin` (Go's message lacks the comma).
    #[error("found '{found}' expected: '('")]
    NoOpenParen { found: String },
    /// `>` or `<` with a value that is no integer.
    #[error("for 'Gt', 'Lt' operators, the value must be an integer")]
    NotAnInteger { value: String },
}

fn unexpected(found: impl Into<String>, expected: &'static str) -> LabelSelectorError {
    LabelSelectorError::Unexpected {
        found: found.into(),
        expected,
    }
}

fn anchored(field: &'static str, p: &str) -> Result<Option<Regex>, SelectorError> {
    if p.is_empty() {
        return Ok(None);
    }
    Regex::new(&format!("^(?:{p})$"))
        .map(Some)
        .map_err(|source| SelectorError::Regex {
            field,
            pattern: p.to_string(),
            source,
        })
}

fn expression(field: &'static str, e: &str) -> Result<Option<LabelSelector>, SelectorError> {
    if e.is_empty() {
        return Ok(None);
    }
    LabelSelector::parse(e)
        .map(Some)
        .map_err(|error| SelectorError::Expression {
            field,
            expression: e.to_string(),
            error,
        })
}

impl SelectorMatcher {
    /// Compiles a selector (regex and selector-expression errors are reported).
    pub fn new(sel: &Selector) -> Result<SelectorMatcher, SelectorError> {
        Ok(SelectorMatcher {
            group: anchored("group", &sel.group)?,
            version: anchored("version", &sel.version)?,
            kind: anchored("kind", &sel.kind)?,
            name: anchored("name", &sel.name)?,
            namespace: anchored("namespace", &sel.namespace)?,
            labels: expression("labelSelector", &sel.label_selector)?,
            annotations: expression("annotationSelector", &sel.annotation_selector)?,
        })
    }

    /// Group, version and kind match.
    pub fn matches_gvk(&self, gvk: &Gvk) -> bool {
        let m = |re: &Option<Regex>, s: &str| re.as_ref().is_none_or(|r| r.is_match(s));
        m(&self.group, &gvk.group) && m(&self.version, &gvk.version) && m(&self.kind, &gvk.kind)
    }

    /// The name matches.
    pub fn matches_name(&self, n: &str) -> bool {
        self.name.as_ref().is_none_or(|r| r.is_match(n))
    }

    /// The namespace matches.
    pub fn matches_namespace(&self, ns: &str) -> bool {
        self.namespace.as_ref().is_none_or(|r| r.is_match(ns))
    }

    /// kustomize `resWrangler.Select`: namespace and name may match the original or the current
    /// id; gvk, labels and annotations the current object.
    pub fn matches(&self, r: &Res) -> bool {
        let cur = r.cur_id();
        let org = r.org_id();
        (self.matches_namespace(org.effective_namespace())
            || self.matches_namespace(cur.effective_namespace()))
            && (self.matches_name(&org.name) || self.matches_name(&cur.name))
            && self.matches_gvk(&r.gvk())
            && self.labels.as_ref().is_none_or(|s| s.matches(&r.labels()))
            && self
                .annotations
                .as_ref()
                .is_none_or(|s| s.matches(&r.annotations()))
    }
}

/// A parsed Kubernetes label selector (the parser kustomize v5.5.0 vendors in
/// `kyaml/yaml/internal/k8sgen/pkg/labels/selector.go`, with its error messages). Label keys
/// and values are not checked against Kubernetes' name rules, which that parser also does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelSelector {
    reqs: Vec<Requirement>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Op {
    /// `in`, `=`, `==`.
    In,
    /// `notin`, `!=`.
    NotIn,
    Exists,
    DoesNotExist,
    Gt,
    Lt,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Requirement {
    key: String,
    op: Op,
    /// Sorted and distinct, as Go's `sets.String.List()`.
    values: Vec<String>,
}

impl LabelSelector {
    /// Parses `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, `k>1`, `k<1`,
    /// joined by commas (Go's `labels.Parse`).
    pub fn parse(s: &str) -> Result<LabelSelector, LabelSelectorError> {
        let mut p = Parser {
            items: lex(s.as_bytes()),
            position: 0,
        };
        p.parse().map(|reqs| LabelSelector { reqs })
    }

    /// True when every requirement holds for `labels` (Go's `Requirement.Matches`).
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.reqs.iter().all(|r| {
            let value = labels.get(&r.key);
            let int = |v: &str| v.parse::<i64>().ok();
            match r.op {
                Op::In => value.is_some_and(|v| r.values.contains(v)),
                Op::NotIn => value.is_none_or(|v| !r.values.contains(v)),
                Op::Exists => value.is_some(),
                Op::DoesNotExist => value.is_none(),
                Op::Gt | Op::Lt => {
                    let (Some(have), Some(want)) = (
                        value.and_then(|v| int(v)),
                        r.values.first().and_then(|v| int(v)),
                    ) else {
                        return false;
                    };
                    if r.op == Op::Gt {
                        have > want
                    } else {
                        have < want
                    }
                }
            }
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    Error,
    EndOfString,
    ClosedPar,
    Comma,
    DoesNotExist,
    DoubleEquals,
    Equals,
    GreaterThan,
    Identifier,
    In,
    LessThan,
    NotEquals,
    NotIn,
    OpenPar,
}

/// Go's `string2token`.
fn keyword(s: &[u8]) -> Option<Token> {
    Some(match s {
        b")" => Token::ClosedPar,
        b"," => Token::Comma,
        b"!" => Token::DoesNotExist,
        b"==" => Token::DoubleEquals,
        b"=" => Token::Equals,
        b">" => Token::GreaterThan,
        b"in" => Token::In,
        b"<" => Token::LessThan,
        b"!=" => Token::NotEquals,
        b"notin" => Token::NotIn,
        b"(" => Token::OpenPar,
        _ => return None,
    })
}

fn is_whitespace(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_special(c: u8) -> bool {
    matches!(c, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
}

/// Go's `Lexer`, run to the end of the string (`Parser.scan`). Like Go's, reading past the end
/// or reading a NUL byte gives 0, which ends a token.
fn lex(s: &[u8]) -> Vec<(Token, String)> {
    let mut pos = 0;
    let read = |pos: &mut usize| {
        if *pos < s.len() {
            *pos += 1;
            s[*pos - 1]
        } else {
            0
        }
    };
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let mut items = Vec::new();
    loop {
        let mut c = read(&mut pos);
        while is_whitespace(c) {
            c = read(&mut pos);
        }
        let item = if c == 0 {
            (Token::EndOfString, String::new())
        } else if is_special(c) {
            pos -= 1;
            let mut buffer = Vec::new();
            let mut last: Option<(Token, String)> = None;
            loop {
                let c = read(&mut pos);
                if c == 0 {
                    break;
                }
                if !is_special(c) {
                    pos -= 1;
                    break;
                }
                buffer.push(c);
                if let Some(t) = keyword(&buffer) {
                    last = Some((t, text(&buffer)));
                } else if last.is_some() {
                    pos -= 1;
                    break;
                }
            }
            last.unwrap_or_else(|| {
                (
                    Token::Error,
                    format!("error expected: keyword found '{}'", text(&buffer)),
                )
            })
        } else {
            pos -= 1;
            let start = pos;
            loop {
                let c = read(&mut pos);
                if c == 0 {
                    break;
                }
                if is_special(c) || is_whitespace(c) {
                    pos -= 1;
                    break;
                }
            }
            // A NUL byte ends the identifier and is not part of it.
            let end = if pos > start && s[pos - 1] == 0 {
                pos - 1
            } else {
                pos
            };
            let word = &s[start..end];
            (keyword(word).unwrap_or(Token::Identifier), text(word))
        };
        let end = item.0 == Token::EndOfString;
        items.push(item);
        if end {
            return items;
        }
    }
}

/// Go's `Parser`, over the scanned tokens. In the `values` context the keywords `in` and
/// `notin` are identifiers.
struct Parser {
    items: Vec<(Token, String)>,
    position: usize,
}

impl Parser {
    fn lookahead(&self, values: bool) -> (Token, String) {
        let (t, lit) = self.items[self.position.min(self.items.len() - 1)].clone();
        (Self::in_context(t, values), lit)
    }

    fn consume(&mut self, values: bool) -> (Token, String) {
        let item = self.lookahead(values);
        self.position += 1;
        item
    }

    fn in_context(t: Token, values: bool) -> Token {
        match t {
            Token::In | Token::NotIn if values => Token::Identifier,
            t => t,
        }
    }

    fn parse(&mut self) -> Result<Vec<Requirement>, LabelSelectorError> {
        let mut reqs = Vec::new();
        loop {
            let (t, lit) = self.lookahead(true);
            match t {
                Token::Identifier | Token::DoesNotExist => {
                    let r = self
                        .requirement()
                        .map_err(|e| LabelSelectorError::Requirement(Box::new(e)))?;
                    reqs.push(r);
                    let (t, l) = self.consume(true);
                    match t {
                        Token::EndOfString => return Ok(reqs),
                        Token::Comma => {
                            let (t2, l2) = self.lookahead(true);
                            if t2 != Token::Identifier && t2 != Token::DoesNotExist {
                                return Err(unexpected(l2, "identifier after ','"));
                            }
                        }
                        _ => return Err(unexpected(l, "',' or 'end of string'")),
                    }
                }
                Token::EndOfString => return Ok(reqs),
                _ => return Err(unexpected(lit, "!, identifier, or 'end of string'")),
            }
        }
    }

    fn requirement(&mut self) -> Result<Requirement, LabelSelectorError> {
        let (key, op) = self.key_and_inferred_operator()?;
        let op = match op {
            Some(op) => op,
            None => {
                let (t, lit) = self.consume(false);
                match t {
                    Token::In | Token::NotIn => {
                        let values = self.values()?;
                        let op = if t == Token::In { Op::In } else { Op::NotIn };
                        return Ok(Requirement {
                            key,
                            op,
                            values: values.into_iter().collect(),
                        });
                    }
                    Token::Equals | Token::DoubleEquals => Op::In,
                    Token::NotEquals => Op::NotIn,
                    Token::GreaterThan => Op::Gt,
                    Token::LessThan => Op::Lt,
                    _ => return Err(unexpected(lit, "'=', '!=', '==', 'in', notin'")),
                }
            }
        };
        if matches!(op, Op::Exists | Op::DoesNotExist) {
            return Ok(Requirement {
                key,
                op,
                values: Vec::new(),
            });
        }
        let value = self.exact_value()?;
        if matches!(op, Op::Gt | Op::Lt) && value.parse::<i64>().is_err() {
            return Err(LabelSelectorError::NotAnInteger { value });
        }
        Ok(Requirement {
            key,
            op,
            values: vec![value],
        })
    }

    /// The key, and `Exists`/`DoesNotExist` when no operator follows it.
    fn key_and_inferred_operator(&mut self) -> Result<(String, Option<Op>), LabelSelectorError> {
        let (mut t, mut lit) = self.consume(true);
        let negated = t == Token::DoesNotExist;
        if negated {
            (t, lit) = self.consume(true);
        }
        if t != Token::Identifier {
            return Err(unexpected(lit, "identifier"));
        }
        let (next, _) = self.lookahead(true);
        let op = if negated {
            Some(Op::DoesNotExist)
        } else if matches!(next, Token::EndOfString | Token::Comma) {
            Some(Op::Exists)
        } else {
            None
        };
        Ok((lit, op))
    }

    fn values(&mut self) -> Result<std::collections::BTreeSet<String>, LabelSelectorError> {
        let (t, lit) = self.consume(true);
        if t != Token::OpenPar {
            return Err(LabelSelectorError::NoOpenParen { found: lit });
        }
        let (t, lit) = self.lookahead(true);
        match t {
            Token::Identifier | Token::Comma => {
                let set = self.identifiers()?;
                if self.consume(true).0 != Token::ClosedPar {
                    return Err(unexpected(lit, "')'"));
                }
                Ok(set)
            }
            Token::ClosedPar => {
                self.consume(true);
                Ok([String::new()].into())
            }
            _ => Err(unexpected(lit, "',', ')' or identifier")),
        }
    }

    fn identifiers(&mut self) -> Result<std::collections::BTreeSet<String>, LabelSelectorError> {
        let mut set = std::collections::BTreeSet::new();
        loop {
            let (t, lit) = self.consume(true);
            match t {
                Token::Identifier => {
                    set.insert(lit);
                    let (t2, lit2) = self.lookahead(true);
                    match t2 {
                        Token::Comma => continue,
                        Token::ClosedPar => return Ok(set),
                        _ => return Err(unexpected(lit2, "',' or ')'")),
                    }
                }
                Token::Comma => {
                    if set.is_empty() {
                        set.insert(String::new());
                    }
                    let (t2, _) = self.lookahead(true);
                    if t2 == Token::ClosedPar {
                        set.insert(String::new());
                        return Ok(set);
                    }
                    if t2 == Token::Comma {
                        self.consume(true);
                        set.insert(String::new());
                    }
                }
                _ => return Err(unexpected(lit, "',', or identifier")),
            }
        }
    }

    fn exact_value(&mut self) -> Result<String, LabelSelectorError> {
        let (t, _) = self.lookahead(true);
        if matches!(t, Token::EndOfString | Token::Comma) {
            return Ok(String::new());
        }
        let (t, lit) = self.consume(true);
        if t == Token::Identifier {
            return Ok(lit);
        }
        Err(unexpected(lit, "identifier"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn label_selectors() {
        let l = labels(&[("app", "web"), ("tier", "front"), ("n", "5")]);
        for (sel, want) in [
            ("app=web", true),
            ("app==web,tier=front", true),
            ("app!=web", false),
            ("app in (web, api)", true),
            ("app notin (web)", false),
            ("missing", false),
            ("!missing", true),
            ("app,tier", true),
            ("n>3", true),
            ("n<3", false),
            ("env!=prod", true),
        ] {
            assert_eq!(
                LabelSelector::parse(sel).unwrap().matches(&l),
                want,
                "{sel}"
            );
        }
        assert!(LabelSelector::parse("app=web,").is_err());
    }

    #[test]
    fn label_selector_values_as_go_reads_them() {
        let l = labels(&[("app", ""), ("in", "notin")]);
        for (sel, want) in [
            // `()` is the empty value; `in` and `notin` are identifiers where values go.
            ("app in ()", true),
            ("app in (,x)", true),
            ("in in (notin)", true),
            ("app=", true),
            ("app!=,in", false),
        ] {
            assert_eq!(
                LabelSelector::parse(sel).unwrap().matches(&l),
                want,
                "{sel}"
            );
        }
    }

    #[test]
    fn label_selector_errors_as_go_says_them() {
        // Each as kubectl kustomize v5.5.0 prints it for a replacement target's labelSelector.
        for (sel, err) in [
            ("app in (a", "unable to parse requirement: found '', expected: ',' or ')'"),
            ("app=web,", "found '', expected: identifier after ','"),
            ("app=web x", "found 'x', expected: ',' or 'end of string'"),
            ("=web", "found '=', expected: !, identifier, or 'end of string'"),
            ("app in a", "unable to parse requirement: found 'a' expected: '('"),
            ("app x", "unable to parse requirement: found 'x', expected: '=', '!=', '==', 'in', notin'"),
            ("app>x", "unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer"),
            ("!app=x", "found '=', expected: ',' or 'end of string'"),
            ("app=!", "unable to parse requirement: found '!', expected: identifier"),
            ("app=<>", "unable to parse requirement: found '<', expected: identifier"),
            ("app=<", "unable to parse requirement: found '<', expected: identifier"),
            ("a b", "unable to parse requirement: found 'b', expected: '=', '!=', '==', 'in', notin'"),
        ] {
            assert_eq!(
                LabelSelector::parse(sel).err().map(|e| e.to_string()).as_deref(),
                Some(err),
                "{sel}"
            );
        }
    }

    /// A selector that does not compile says which field and what it holds.
    #[test]
    fn selector_errors_name_the_field() {
        let sel = Selector {
            label_selector: "app in web".into(),
            ..Selector::default()
        };
        let Err(e) = SelectorMatcher::new(&sel) else {
            panic!("compiles")
        };
        assert!(matches!(
            &e,
            SelectorError::Expression { field: "labelSelector", expression, .. } if expression == "app in web"
        ));
        assert_eq!(
            e.to_string(),
            "unable to parse requirement: found 'web' expected: '('"
        );
        let sel = Selector {
            kind: "(".into(),
            ..Selector::default()
        };
        let Err(e) = SelectorMatcher::new(&sel) else {
            panic!("compiles")
        };
        assert!(matches!(e, SelectorError::Regex { field: "kind", .. }));
        assert!(e.to_string().starts_with("invalid selector regex \"(\": "));
    }
}
