//! Flux's `${var}` substitution (`fluxcd/pkg/envsubst`, a fork of drone/envsubst), as
//! kustomize-controller's `postBuild` runs it: the parser (`parse/scan.go`, `parse/parse.go`),
//! the evaluator (`template.go`) and the string functions (`funcs.go`, `path/match.go`).
//!
//! Go strings are bytes, and so are the values here while they are evaluated: `${#v}` counts
//! bytes, `${v:1:2}` cuts bytes (possibly inside a character), and the `%`/`%%` and case
//! functions go through runes, where a byte that is not UTF-8 becomes U+FFFD. Only the final
//! text must be UTF-8 again (Go hands its bytes to a YAML parser that refuses them).

mod funcs;
mod parse;

use funcs::*;
use parse::*;

/// Why a text could not be substituted. The wording of the parse errors and of the strict-mode
/// error is envsubst's own.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// `ErrBadSubstitution`.
    #[error("bad substitution")]
    BadSubstitution,
    /// `ErrMissingClosingBrace`: `${v` or an operator envsubst does not know (`${v-d}`).
    #[error("missing closing brace")]
    MissingClosingBrace,
    /// `ErrParseVariableName`: no name after `${` (`${}`, `${ v}`, `${.v}`).
    #[error("unable to parse variable name")]
    VariableName,
    /// `ErrParseFuncSubstitution`: an argument that is empty or never closed.
    #[error("unable to parse substitution within function")]
    FuncSubstitution,
    /// `ErrParseDefaultFunction`.
    #[error("unable to parse default function")]
    DefaultFunction,
    /// Strict mode: a variable without a value, used other than through a default operator.
    #[error("variable not set (strict mode): {}", crate::go::strconv::quote(.0))]
    NotSet(String),
    /// `${v:off:len}` whose end falls before its start: Go's slice expression panics.
    #[error("runtime error: slice bounds out of range [{0}]")]
    SliceBounds(String),
    /// `${…}` nested deeper than kdelta follows (Go's stack would grow instead).
    #[error("substitutions are nested more than {MAX_DEPTH} deep")]
    TooDeep,
    /// The result is not UTF-8: a substring or a pattern cut a character in two. Go passes the
    /// bytes on, and the YAML parser reading them back fails.
    #[error("the substituted text is not valid UTF-8 (a substring or pattern cut a character)")]
    NotUtf8,
}

/// How deep `${…}` may nest inside defaults and arguments.
const MAX_DEPTH: usize = 100;

/// What a variable that `lookup` does not know becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unset {
    /// The empty string (envsubst without strict mode).
    Empty,
    /// An error, unless a default operator (`=`, `:=`, `:-`, …) covers it (Flux's strict
    /// mode).
    Error,
    /// The default of `-`, `=`, `:-` and `:=`, else the reference as written, `${NAME}`: how
    /// kdelta reads a variable that a source it does not have may define.
    Kept,
}

/// Substitutes every `${…}` in `text`; `lookup` gives a variable's value.
pub fn substitute(
    text: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
    unset: Unset,
) -> Result<String, Error> {
    let nodes = parse(text)?;
    let mut out = Vec::with_capacity(text.len());
    let eval = Eval { lookup, unset };
    for node in &nodes {
        eval.node(node, &mut out)?;
    }
    String::from_utf8(out).map_err(|_| Error::NotUtf8)
}

/// Flux's check of a variable name, `^[_[:alpha:]][_[:alpha:][:digit:]]*$` (ASCII classes),
/// made on every key of `substitute` and `substituteFrom`.
pub fn valid_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b == b'_' || b.is_ascii_alphabetic())
        && bytes.all(|b| b == b'_' || b.is_ascii_alphanumeric())
}

// ---------------------------------------------------------------------------------------------
// Evaluation

struct Eval<'a> {
    lookup: &'a dyn Fn(&str) -> Option<String>,
    unset: Unset,
}

impl Eval<'_> {
    fn node(&self, node: &Node, out: &mut Vec<u8>) -> Result<(), Error> {
        match node {
            Node::Text(t) => out.extend_from_slice(t),
            Node::Func(f) => out.extend_from_slice(&self.func(f)?),
        }
        Ok(())
    }

    fn func(&self, f: &Func) -> Result<Vec<u8>, Error> {
        // Arguments first: an error inside a default surfaces before the variable's own.
        let mut args = Vec::with_capacity(f.args.len());
        for a in &f.args {
            let mut buf = Vec::new();
            self.node(a, &mut buf)?;
            args.push(buf);
        }
        let value = match (self.lookup)(&f.param) {
            Some(v) => v.into_bytes(),
            None => match self.unset {
                Unset::Error if !is_default_op(&f.name) => {
                    return Err(Error::NotSet(f.param.clone()))
                }
                Unset::Kept if !matches!(f.name.as_str(), "-" | "=" | ":-" | ":=") => {
                    return Ok(format!("${{{}}}", f.param).into_bytes())
                }
                _ => Vec::new(),
            },
        };
        apply(&f.name, value, &args)
    }
}

/// The operators that supply their own value for an unset variable, exempt from strict mode.
fn is_default_op(name: &str) -> bool {
    matches!(name, "-" | "+" | "=" | "?" | ":-" | ":+" | ":=" | ":?")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn vars(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn run(input: &str, pairs: &[(&str, &str)], strict: bool) -> Result<String, Error> {
        let unset = if strict { Unset::Error } else { Unset::Empty };
        let vars = vars(pairs);
        substitute(input, &|name| vars.get(name).cloned(), unset)
    }

    fn eval(input: &str, pairs: &[(&str, &str)]) -> String {
        run(input, pairs, false).unwrap_or_else(|e| panic!("{input}: {e}"))
    }

    /// `eval_test.go: TestExpand`, whose mapper reports every variable as set.
    #[test]
    fn upstream_expand() {
        let z = [("stringZ", "abcABC123ABCabc")];
        let file = [("filename", "bash.string.txt")];
        let path = [("path_name", "/home/bozo/ideas/thoughts.for.today")];
        let lower = [("var01", "abcdEFGH28ij")];
        let upper = [("var01", "ABCDEFGH28IJ")];
        type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str);
        let cases: &[Case] = &[
            ("abcdEFGH28ij", &[], "abcdEFGH28ij"),
            ("${#var01}", &lower, "12"),
            ("${var01^}", &lower, "AbcdEFGH28ij"),
            ("${var01^^}", &lower, "ABCDEFGH28IJ"),
            ("${var01,}", &upper, "aBCDEFGH28IJ"),
            ("${var01,,}", &upper, "abcdefgh28ij"),
            ("${path_name:11}", &path, "ideas/thoughts.for.today"),
            ("${path_name:11:5}", &path, "ideas"),
            ("${var=xyz}", &[("var", "abc")], "abc"),
            ("${var=xyz}", &[], "xyz"),
            (
                "something ${var=${default_var}}",
                &[("default_var", "foo")],
                "something foo",
            ),
            (
                "foo: ${var=${default_var}-suffix}",
                &[("default_var", "foo1")],
                "foo: foo1-suffix",
            ),
            (
                "foo: ${var=prefix${default_var}-suffix}",
                &[("default_var", "foo1")],
                "foo: prefixfoo1-suffix",
            ),
            ("${var:=xyz}", &[], "xyz"),
            ("${stringZ/%abc/XYZ}", &z, "abcABC123ABCXYZ"),
            ("${stringZ/#abc/XYZ}", &z, "XYZABC123ABCabc"),
            ("${stringZ//abc/xyz}", &z, "xyzABC123ABCxyz"),
            ("${stringZ/abc/xyz}", &z, "xyzABC123ABCabc"),
            ("${filename#*.}", &file, "string.txt"),
            ("${filename#*/}", &[("filename", "path/to/file")], "to/file"),
            (
                "${filename#*/}",
                &[("filename", "/path/to/file")],
                "path/to/file",
            ),
            ("${filename##*.}", &file, "txt"),
            ("${filename##*/}", &[("filename", "path/to/file")], "file"),
            ("${filename##*/}", &[("filename", "/path/to/file")], "file"),
            ("${filename%.*}", &file, "bash.string"),
            ("${filename%%.*}", &file, "bash"),
            ("${var=${var01^^}}", &lower, "ABCDEFGH28IJ"),
            ("$${var01}", &lower, "${var01}"),
            (
                "some text ${var01}$${var$${var01}$var01${var01}",
                &lower,
                "some text abcdEFGH28ij${var${var01}$var01abcdEFGH28ij",
            ),
            (
                "something $${var=${default_var}}",
                &[("default_var", "foo")],
                "something ${var=foo}",
            ),
            (r"${stringZ/\//-}", &[("stringZ", "foo/bar")], "foo-bar"),
            (
                r"${stringZ//\//-}",
                &[("stringZ", "foo/bar/baz")],
                "foo-bar-baz",
            ),
            (
                "\\\\something ${var=${default_var}}",
                &[("default_var", "foo")],
                "\\\\something foo",
            ),
            ("${stringZ/./}", &[("stringZ", "foo.bar")], "foobar"),
        ];
        for (input, pairs, want) in cases {
            assert_eq!(eval(input, pairs), *want, "{input}");
        }
    }

    /// `eval_test.go: TestExpandStrict`.
    #[test]
    fn upstream_expand_strict() {
        assert_eq!(run("abcdEFGH28ij", &[], true).unwrap(), "abcdEFGH28ij");
        assert_eq!(run("${foo}", &[("foo", "bar")], true).unwrap(), "bar");
        assert_eq!(run("${foo}", &[("foo", "")], true).unwrap(), "");
        for input in [
            "${missing}",
            "${#missing}",
            "${missing^}",
            "${missing^^}",
            "${missing,}",
            "${missing,,}",
            "${missing:0}",
            "${missing:0:10}",
            "${missing/pattern/replacement}",
            "${missing//pattern/replacement}",
            "${missing/#pattern/replacement}",
            "${missing/%pattern/replacement}",
            "${missing#pattern}",
            "${missing##pattern}",
            "${missing%pattern}",
            "${missing%%pattern}",
        ] {
            assert_eq!(
                run(input, &[], true),
                Err(Error::NotSet("missing".into())),
                "{input}"
            );
        }
        assert_eq!(
            run("${missing}", &[], true).unwrap_err().to_string(),
            r#"variable not set (strict mode): "missing""#
        );
        for (input, want) in [
            ("${missing:=default}", "default"),
            ("${missing:-fallback}", "fallback"),
            ("${missing:=assigned}", "assigned"),
            ("${missing=assigned}", "assigned"),
            // `:+` and `:?` parse, and behave as `:-`.
            ("${missing:+alt}", "alt"),
            ("${missing:?msg}", "msg"),
        ] {
            assert_eq!(
                run(input, &[("foo", "bar")], true).unwrap(),
                want,
                "{input}"
            );
        }
        // The default is evaluated first, so its own missing variable is the one reported.
        assert_eq!(run("${a:-${b}}", &[], true), Err(Error::NotSet("b".into())));
    }

    #[test]
    fn kept_variables_take_their_defaults_or_stay_as_written() {
        let vars = vars(&[("known", "k")]);
        let kept = |input: &str| {
            substitute(input, &|name| vars.get(name).cloned(), Unset::Kept)
                .unwrap_or_else(|e| panic!("{input}: {e}"))
        };
        for (input, want) in [
            ("${q:='}${known}${q:='}", "'k'"),
            ("${a=y} ${a:-z} ${a:=w}", "y z w"),
            ("${a}", "${a}"),
            (
                "${a^^} ${a:+alt} ${a:?gone} ${a:0:2}",
                "${a} ${a} ${a} ${a}",
            ),
            ("${a:-${b}}", "${b}"),
            ("${known^^}", "K"),
        ] {
            assert_eq!(kept(input), want, "{input}");
        }
    }

    fn text(s: &str) -> Node {
        Node::Text(s.as_bytes().to_vec())
    }

    fn func(param: &str, name: &str, args: Vec<Node>) -> Node {
        Node::Func(Func {
            param: param.into(),
            name: name.into(),
            args,
        })
    }

    /// `parse/parse_test.go` (its `ListNode`s flattened).
    #[test]
    fn upstream_parse() {
        let one = |s: &str| vec![text(s)];
        let var = |p: &str| func(p, "", vec![]);
        let cases: Vec<(&str, Vec<Node>)> = vec![
            ("text", one("text")),
            ("}text", one("}text")),
            ("http://github.com", one("http://github.com")),
            ("$${string}", one("${string}")),
            ("$$string", one("$string")),
            (r"\\.\pipe\pipename", one(r"\\.\pipe\pipename")),
            ("${string}", vec![var("string")]),
            ("${string,}", vec![func("string", ",", vec![])]),
            ("${string,,}", vec![func("string", ",,", vec![])]),
            ("${string^}", vec![func("string", "^", vec![])]),
            ("${string^^}", vec![func("string", "^^", vec![])]),
            (
                "${string:position}",
                vec![func("string", ":", one("position"))],
            ),
            (
                "${string:position:length}",
                vec![func("string", ":", vec![text("position"), text("length")])],
            ),
            (
                "${string#substring}",
                vec![func("string", "#", one("substring"))],
            ),
            (
                "${string##substring}",
                vec![func("string", "##", one("substring"))],
            ),
            (
                "${string%substring}",
                vec![func("string", "%", one("substring"))],
            ),
            (
                "${string%%substring}",
                vec![func("string", "%%", one("substring"))],
            ),
            (
                "${string/substring/replacement}",
                vec![func(
                    "string",
                    "/",
                    vec![text("substring"), text("replacement")],
                )],
            ),
            (
                "${string//substring/replacement}",
                vec![func(
                    "string",
                    "//",
                    vec![text("substring"), text("replacement")],
                )],
            ),
            (
                "${string/#substring/replacement}",
                vec![func(
                    "string",
                    "/#",
                    vec![text("substring"), text("replacement")],
                )],
            ),
            (
                "${string/%substring/replacement}",
                vec![func(
                    "string",
                    "/%",
                    vec![text("substring"), text("replacement")],
                )],
            ),
            (
                "${string=default}",
                vec![func("string", "=", one("default"))],
            ),
            (
                "${string:=default}",
                vec![func("string", ":=", one("default"))],
            ),
            (
                "${string:-default}",
                vec![func("string", ":-", one("default"))],
            ),
            (
                "${string:?default}",
                vec![func("string", ":?", one("default"))],
            ),
            (
                "${string:+default}",
                vec![func("string", ":+", one("default"))],
            ),
            ("${#string}", vec![func("string", "#", vec![])]),
            ("${string#$%:*{}", vec![func("string", "#", one("$%:*{"))]),
            (
                "hello ${#string} world",
                vec![text("hello "), func("string", "#", vec![]), text(" world")],
            ),
            (
                r"\\ hello ${#string} world \\",
                vec![
                    text(r"\\ hello "),
                    func("string", "#", vec![]),
                    text(r" world \\"),
                ],
            ),
            (
                r"${string/\/position/length}",
                vec![func("string", "/", vec![text("/position"), text("length")])],
            ),
            (
                r"${string/\/position\\/length}",
                vec![func(
                    "string",
                    "/",
                    vec![text(r"/position\"), text("length")],
                )],
            ),
            (
                r"${string/position/\/length}",
                vec![func("string", "/", vec![text("position"), text("/length")])],
            ),
            (
                r"${string/position/\/length\\}",
                vec![func(
                    "string",
                    "/",
                    vec![text("position"), text(r"/length\")],
                )],
            ),
            (
                r"${string/position/\/leng\\th}",
                vec![func(
                    "string",
                    "/",
                    vec![text("position"), text(r"/leng\th")],
                )],
            ),
            (
                "${string:${position}}",
                vec![func("string", ":", vec![var("position")])],
            ),
            (
                "${string:${stringy:position:length}:${stringz,,}}",
                vec![func(
                    "string",
                    ":",
                    vec![
                        func("stringy", ":", vec![text("position"), text("length")]),
                        func("stringz", ",,", vec![]),
                    ],
                )],
            ),
            (
                "${string#${stringz}}",
                vec![func("string", "#", vec![var("stringz")])],
            ),
            (
                "${string=${stringz}}",
                vec![func("string", "=", vec![var("stringz")])],
            ),
            (
                "${string=prefix-${var}}",
                vec![func("string", "=", vec![text("prefix-"), var("var")])],
            ),
            (
                "${string=${var}-suffix}",
                vec![func("string", "=", vec![var("var"), text("-suffix")])],
            ),
            (
                "${string=prefix-${var}-suffix}",
                vec![func(
                    "string",
                    "=",
                    vec![text("prefix-"), var("var"), text("-suffix")],
                )],
            ),
            (
                "${string=prefix${var} suffix}",
                vec![func(
                    "string",
                    "=",
                    vec![text("prefix"), var("var"), text(" suffix")],
                )],
            ),
            (
                "${string//${stringy}/${stringz}}",
                vec![func("string", "//", vec![var("stringy"), var("stringz")])],
            ),
        ];
        for (input, want) in cases {
            assert_eq!(parse(input).unwrap(), want, "{input}");
        }
    }

    /// `funcs_test.go`.
    #[test]
    fn upstream_funcs() {
        let sub = |s: &str, args: &[&str]| {
            let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
            String::from_utf8(substring(s.as_bytes().to_vec(), &args).unwrap()).unwrap()
        };
        let digits = "123456789123456789";
        assert_eq!(sub(digits, &["0", "8"]), "12345678");
        assert_eq!(sub(digits, &["1", "8"]), "23456789");
        assert_eq!(sub(digits, &["9"]), "123456789");
        assert_eq!(sub(digits, &["9", "50"]), "123456789");
        assert_eq!(sub(digits, &["-3", "2"]), "78");
        assert_eq!(sub(digits, &["-300", "3"]), "123");
        assert_eq!(sub("12345678", &["9", "1"]), "");
        assert_eq!(eval("${v,}${v^}", &[("v", "")]), "");
        let hola = apply(
            ":-",
            Vec::new(),
            &[b"Hola Mundo".to_vec(), b"-Bonjour".to_vec()],
        )
        .unwrap();
        assert_eq!(hola, b"Hola Mundo-Bonjour");
    }

    #[test]
    fn defaults_treat_empty_as_unset() {
        for op in ["=", ":=", ":-", ":+", ":?"] {
            let input = format!("${{v{op}d}}");
            assert_eq!(eval(&input, &[("v", "")]), "d", "{input}");
            assert_eq!(eval(&input, &[("v", "x")]), "x", "{input}");
            assert_eq!(eval(&input, &[]), "d", "{input}");
        }
        // Without strict mode an unset variable is empty.
        assert_eq!(eval("a${v}b", &[]), "ab");
    }

    #[test]
    fn only_braces_substitute() {
        let v = [("v", "x")];
        assert_eq!(eval("$v ${v} $", &v), "$v x $");
        assert_eq!(eval("$$v $${v} $$$", &v), "$v ${v} $$");
        assert_eq!(eval("$$${v}", &v), "$x");
        // Inside a default `$$` is not an escape; inside a replacement it is.
        assert_eq!(eval("${u:-$$}", &v), "$$");
        assert_eq!(eval("${v/x/$$}", &v), "$");
        assert_eq!(eval(r"a\b \${v}", &v), r"a\b \x");
        // A NUL is envsubst's end of input: the rest of the text is dropped.
        assert_eq!(eval("a${v}\0b${v}", &v), "ax");
    }

    #[test]
    fn parse_errors() {
        for (input, want) in [
            ("${", Error::VariableName),
            ("${}", Error::VariableName),
            ("${ v}", Error::VariableName),
            ("${.v}", Error::VariableName),
            ("${v", Error::MissingClosingBrace),
            ("${v-d}", Error::MissingClosingBrace),
            ("${v+d}", Error::MissingClosingBrace),
            ("${v?d}", Error::MissingClosingBrace),
            ("${v.x}", Error::MissingClosingBrace),
            ("${v:-d", Error::FuncSubstitution),
            ("${v:}", Error::FuncSubstitution),
            ("${v#}", Error::FuncSubstitution),
            ("${v/a}", Error::BadSubstitution),
            ("${v//x}", Error::BadSubstitution),
            ("${v^x}", Error::BadSubstitution),
            ("${v#a${b}}", Error::BadSubstitution),
            ("${v:1${p}}", Error::BadSubstitution),
            ("${v:", Error::BadSubstitution),
            ("${##v}", Error::BadSubstitution),
            // The `:` lookahead steps back by the width of the rune after it.
            ("${v:é}", Error::BadSubstitution),
        ] {
            assert_eq!(
                run(input, &[("v", "x")], false),
                Err(want.clone()),
                "{input}"
            );
        }
        assert_eq!(
            Error::VariableName.to_string(),
            "unable to parse variable name"
        );
        assert_eq!(
            Error::MissingClosingBrace.to_string(),
            "missing closing brace"
        );
        let deep = "${a:-".repeat(MAX_DEPTH + 1);
        assert_eq!(run(&deep, &[], false), Err(Error::TooDeep));
        let deepest = "${a:-".repeat(MAX_DEPTH) + "x" + &"}".repeat(MAX_DEPTH);
        assert_eq!(eval(&deepest, &[]), "x");
    }

    #[test]
    fn quirks_of_the_operators() {
        let v = [("v", "abcabc")];
        // A non-numeric offset leaves the value as it is: `${env:FOO}` is `${env}`.
        assert_eq!(eval("${env:FOO}", &[("env", "prod")]), "prod");
        assert_eq!(eval("${v:1:2}", &v), "bc");
        // `:-` is a default, so a negative offset needs another spelling, and Atoi refuses
        // a space.
        assert_eq!(eval("${v:-2}", &v), "abcabc");
        assert_eq!(eval("${v:${n}}", &[("v", "abcabc"), ("n", "-2")]), "bc");
        assert_eq!(eval("${v: -2}", &v), "abcabc");
        assert_eq!(eval("${v:+3:1}", &v), "abcabc");
        assert_eq!(eval("${v:${n}:1}", &[("v", "abcabc"), ("n", "+3")]), "a");
        assert_eq!(eval("${v:2::2}", &v), "ca");
        assert_eq!(eval("${v:10}", &v), "");
        assert_eq!(
            run("${v:4:-2}", &v, false),
            Err(Error::SliceBounds("4:2".into()))
        );
        assert_eq!(
            run("${v:0:-1}", &v, false),
            Err(Error::SliceBounds(":-1".into()))
        );
        // `/#` and `/%` need a replacement; `/` and `//` do not.
        assert_eq!(eval("${v/#abc/}", &v), "abcabc");
        assert_eq!(eval("${v/%abc/}", &v), "abcabc");
        assert_eq!(eval("${v/abc/}", &v), "abc");
        assert_eq!(eval("${v//abc/}", &v), "");
        // Several slashes between the arguments are one delimiter.
        assert_eq!(eval("${v/a//b}", &v), "bbcabc");
        // Patterns of `/` are plain text, those of `#` and `%` globs.
        assert_eq!(eval("${v/a*/x}", &v), "abcabc");
        assert_eq!(eval("${v#a?c}", &v), "abc");
        assert_eq!(eval("${v##*[b]}", &v), "c");
        assert_eq!(eval("${v#[^x]}", &v), "bcabc");
        // `%` reverses the pattern too, so a class must be written backwards.
        assert_eq!(eval("${v%[^x]}", &v), "abcabc");
        assert_eq!(eval("${w%]b[}", &[("w", "abcab")]), "abca");
        assert_eq!(eval("${v#[}", &v), "abcabc");
        // `*` crosses `/`.
        assert_eq!(eval("${p%/*}", &[("p", "a/b/c")]), "a/b");
        assert_eq!(eval("${p%%/*}", &[("p", "a/b/c")]), "a");
        // An empty pattern (from a variable) matches before every rune.
        assert_eq!(eval("${v//${e}/-}", &v), "-a-b-c-a-b-c-");
        assert_eq!(eval("${v/${e}/-}", &v), "-abcabc");
        // Mixed casing operators are a plain reference.
        assert_eq!(eval("${v,^}", &v), "abcabc");
        assert_eq!(eval("${v:=a}${v=}", &v), "abcabcabcabc");
        assert_eq!(eval("${u:=a${w:-b}c}", &[]), "abc");
    }

    #[test]
    fn bytes_as_go_sees_them() {
        let v = [("v", "héllo")];
        assert_eq!(eval("${#v}", &v), "6");
        assert_eq!(eval("${v:0:3}", &v), "hé");
        // Halves of a character joined again are text again.
        assert_eq!(eval("${v:0:2}${v:2}", &v), "héllo");
        assert_eq!(run("${v:0:2}", &v, false), Err(Error::NotUtf8));
        // `%` goes through runes: a cut character becomes U+FFFD.
        assert_eq!(eval("${w%x}", &[("w", "é")]), "é");
        assert_eq!(eval("${v^^}", &v), "HÉLLO");
        assert_eq!(eval("${s^^}", &[("s", "straße")]), "STRAßE");
        assert_eq!(eval("${s,,}", &[("s", "İ")]), "i");
        assert_eq!(eval("${ü}", &[("ü", "x")]), "x");
        assert_eq!(eval("${x٣}", &[("x٣", "y")]), "y");
        // `?` matches one byte that is not UTF-8, and `#` keeps the shortest match: Go cuts
        // `é` in two here.
        assert_eq!(run("${v#h?}", &v, false), Err(Error::NotUtf8));
        assert_eq!(eval("${v##h?}", &v), "llo");
    }

    #[test]
    fn names() {
        assert!(valid_name("_a1"));
        assert!(valid_name("cluster_env"));
        assert!(!valid_name(""));
        assert!(!valid_name("1a"));
        assert!(!valid_name("a-b"));
        assert!(!valid_name("é"));
    }
}
