//! Go's `regexp` (Go 1.23, `regexp.Compile`: RE2 syntax with Perl flags) on the regex crate. A
//! Go pattern is read with Go's parser rules, failing with Go's error text, and written out in
//! the regex crate's syntax with the same meaning: every literal as `\x{…}`, character classes
//! item by item, `\d \s \w \b` as ASCII (Go's are, the crate's are Unicode). Finding, replacing
//! and splitting follow Go's rules for empty matches.

use regex::Regex;
use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};

/// A pattern Go's `regexp/syntax` rejects: its error code's text and the offending part.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("error parsing regexp: {code}: `{expr}`")]
pub struct SyntaxError {
    pub code: &'static str,
    pub expr: String,
}

const MISSING_BRACKET: &str = "missing closing ]";
const MISSING_PAREN: &str = "missing closing )";
const UNEXPECTED_PAREN: &str = "unexpected )";
const INVALID_ESCAPE: &str = "invalid escape sequence";
const INVALID_RANGE: &str = "invalid character class range";
const INVALID_NAMED_CAPTURE: &str = "invalid named capture";
const INVALID_PERL_OP: &str = "invalid or unsupported Perl syntax";
const INVALID_REPEAT_OP: &str = "invalid nested repetition operator";
const INVALID_REPEAT_SIZE: &str = "invalid repeat count";
const MISSING_REPEAT_ARGUMENT: &str = "missing argument to repetition operator";
const TRAILING_BACKSLASH: &str = "trailing backslash at end of expression";
const TOO_LARGE: &str = "expression too large";

/// Go's largest `{n,m}` count.
const MAX_REPEAT: i64 = 1000;

fn err(code: &'static str, expr: &str) -> SyntaxError {
    SyntaxError {
        code,
        expr: expr.to_string(),
    }
}

/// A compiled Go pattern (its groups numbered as Go numbers them, all unnamed) and Go's
/// group names (`""` for an unnamed group; index 0 is the whole match). Cloning shares the
/// compiled programs.
#[derive(Clone)]
pub struct GoRegex {
    engines: Arc<Engines>,
    pub names: Vec<String>,
}

/// The programs of one translated pattern. The regex crate takes 0.1–0.3 ms to compile even
/// `[^A-Za-z0-9]+$` (a render of one chart compiles a handful, each before its first
/// template can go on); regex-lite takes microseconds, and on a short text its matching
/// costs little more. It reads the translation alike unless flags are set (its case folding
/// is ASCII's), so it runs the patterns without them on short texts; the crate's program is
/// compiled when a pattern meets a long text, or has flags.
struct Engines {
    /// The translation, in the regex crate's syntax.
    rust: String,
    lite: Option<regex_lite::Regex>,
    full: OnceLock<Option<Regex>>,
}

/// The longest text regex-lite matches (a bounded backtracker and a PikeVM, without the
/// crate's literal search and DFAs).
const LITE_TEXT: usize = 1024;

impl GoRegex {
    fn new(rust: String, names: Vec<String>) -> Result<GoRegex, ()> {
        let flagless = rust
            .match_indices("(?")
            .all(|(at, _)| rust[at + 2..].starts_with(':'));
        // regex-lite's own nesting limit (250) keeps its recursive parser off the stack's end;
        // a deeper pattern goes to the crate, whose parser is not recursive.
        let lite = flagless
            .then(|| regex_lite::Regex::new(&rust).ok())
            .flatten();
        let engines = Engines {
            full: OnceLock::new(),
            lite,
            rust,
        };
        // Without regex-lite's program, the crate's says whether the pattern can be used.
        if engines.lite.is_none() && engines.full().is_none() {
            return Err(());
        }
        Ok(GoRegex {
            engines: Arc::new(engines),
            names,
        })
    }

    /// The program for a text of `len` bytes.
    fn engine(&self, len: usize) -> Engine<'_> {
        match &self.engines.lite {
            Some(lite) if len <= LITE_TEXT => Engine::Lite(lite),
            // The crate refuses what regex-lite accepted only by its size limit, which is
            // regex-lite's tighter one.
            lite => match (self.engines.full(), lite) {
                (Some(full), _) => Engine::Full(full),
                (None, Some(lite)) => Engine::Lite(lite),
                (None, None) => unreachable!("GoRegex::new checked that one compiles"),
            },
        }
    }

    pub fn is_match(&self, s: &str) -> bool {
        match self.engine(s.len()) {
            Engine::Lite(re) => re.is_match(s),
            Engine::Full(re) => re.is_match(s),
        }
    }

    /// The first match at or after byte `start`: its start and end.
    pub fn find_at(&self, s: &str, start: usize) -> Option<(usize, usize)> {
        match self.engine(s.len()) {
            Engine::Lite(re) => re.find_at(s, start).map(|m| (m.start(), m.end())),
            Engine::Full(re) => re.find_at(s, start).map(|m| (m.start(), m.end())),
        }
    }

    /// The first match at or after byte `start`: where each group matched (index 0 is the
    /// whole match; None for a group that took no part).
    pub fn captures_at(&self, s: &str, start: usize) -> Option<Vec<Option<(usize, usize)>>> {
        match self.engine(s.len()) {
            Engine::Lite(re) => re
                .captures_at(s, start)
                .map(|c| c.iter().map(|m| m.map(|m| (m.start(), m.end()))).collect()),
            Engine::Full(re) => re
                .captures_at(s, start)
                .map(|c| c.iter().map(|m| m.map(|m| (m.start(), m.end()))).collect()),
        }
    }
}

impl Engines {
    fn full(&self) -> Option<&Regex> {
        self.full
            .get_or_init(|| {
                regex::RegexBuilder::new(&self.rust)
                    .nest_limit(4000)
                    .size_limit(64 << 20)
                    .build()
                    .ok()
            })
            .as_ref()
    }
}

enum Engine<'a> {
    Lite(&'a regex_lite::Regex),
    Full(&'a Regex),
}

/// Patterns kept compiled for the process: charts call `regexReplaceAll` with the same few
/// patterns thousands of times, and compiling one costs far more than matching it.
const CACHED_PATTERNS: usize = 512;

/// `regexp.Compile(pattern)`: the compiled pattern, or Go's error text. Remembered per pattern
/// (up to [`CACHED_PATTERNS`] patterns of at most 256 bytes; a long pattern may compile to a
/// large program, and is compiled each time).
pub fn compile(pattern: &str) -> Result<GoRegex, String> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    type Cache = Mutex<HashMap<String, Result<GoRegex, String>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Cache::default);
    if let Some(hit) = cache.lock().ok().and_then(|c| c.get(pattern).cloned()) {
        return hit;
    }
    let compiled = compile_uncached(pattern);
    if let Ok(mut c) = cache.lock() {
        if c.len() < CACHED_PATTERNS && pattern.len() <= 256 {
            c.insert(pattern.to_string(), compiled.clone());
        }
    }
    compiled
}

fn compile_uncached(pattern: &str) -> Result<GoRegex, String> {
    let (rust, names) = translate(pattern).map_err(|e| e.to_string())?;
    // What the engines still refuse of a translated pattern is its size.
    GoRegex::new(rust, names).map_err(|()| err(TOO_LARGE, pattern).to_string())
}

/// Go's `regexp.QuoteMeta`: a backslash before each of `\.+*?()|[]{}^$`.
pub fn quote_meta(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if r"\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// One piece of a group's current alternative.
enum Item {
    /// Something a repetition operator applies to.
    Atom(String),
    /// A flag change `(?i)`: no width, and no repetition applies to it.
    Flags(String),
}

/// An open group: how it opened, its finished alternatives, the items of the current one.
struct Frame {
    open: String,
    done: Vec<String>,
    items: Vec<Item>,
}

impl Frame {
    fn new(open: String) -> Frame {
        Frame {
            open,
            done: Vec::new(),
            items: Vec::new(),
        }
    }

    fn alternative(&mut self) -> String {
        std::mem::take(&mut self.items)
            .into_iter()
            .map(|i| match i {
                Item::Atom(s) | Item::Flags(s) => s,
            })
            .collect()
    }

    fn finish(mut self) -> String {
        let last = self.alternative();
        self.done.push(last);
        format!("{}{})", self.open, self.done.join("|"))
    }
}

/// The regex crate's spelling of Go pattern `pattern` and Go's group names, or Go's error.
pub fn translate(pattern: &str) -> Result<(String, Vec<String>), SyntaxError> {
    let mut frames = vec![Frame::new(String::new())];
    let mut names = vec![String::new()];
    let mut t = pattern;
    // Where the previous repetition operator started, when the last thing parsed was one.
    let mut last_repeat: Option<&str> = None;
    while let Some(c) = t.chars().next() {
        let mut repeat = None;
        match c {
            '(' if t[1..].starts_with('?') => {
                let (item, rest) = perl_flags(t, &mut names)?;
                match item {
                    Group::Open(open) => frames.push(Frame::new(open)),
                    Group::Flags(flags) => top(&mut frames).items.push(Item::Flags(flags)),
                }
                t = rest;
            }
            '(' => {
                names.push(String::new());
                frames.push(Frame::new("(".into()));
                t = &t[1..];
            }
            '|' => {
                let alt = top(&mut frames).alternative();
                top(&mut frames).done.push(alt);
                t = &t[1..];
            }
            ')' => {
                if frames.len() < 2 {
                    return Err(err(UNEXPECTED_PAREN, pattern));
                }
                let group = frames.pop().expect("checked").finish();
                let parent = frames.last_mut().expect("checked");
                parent.items.push(Item::Atom(group));
                t = &t[1..];
            }
            '^' | '$' | '.' => {
                top(&mut frames).items.push(Item::Atom(c.to_string()));
                t = &t[1..];
            }
            '[' => {
                let (class, rest) = class(t)?;
                top(&mut frames).items.push(Item::Atom(class));
                t = rest;
            }
            '*' | '+' | '?' => {
                let before = t;
                let after = repetition(
                    top(&mut frames),
                    c.to_string(),
                    before,
                    &t[1..],
                    last_repeat,
                )?;
                repeat = Some(before);
                t = after;
            }
            '{' => match parse_repeat(t) {
                None => {
                    top(&mut frames).items.push(Item::Atom(literal('{')));
                    t = &t[1..];
                }
                Some((min, max, after)) => {
                    let before = t;
                    let op = &before[..before.len() - after.len()];
                    if !(0..=MAX_REPEAT).contains(&min)
                        || max > MAX_REPEAT
                        || (max >= 0 && min > max)
                    {
                        return Err(err(INVALID_REPEAT_SIZE, op));
                    }
                    let rust = match max {
                        -1 => format!("{{{min},}}"),
                        m if m == min => format!("{{{min}}}"),
                        m => format!("{{{min},{m}}}"),
                    };
                    t = repetition(top(&mut frames), rust, before, after, last_repeat)?;
                    repeat = Some(before);
                }
            },
            '\\' => {
                t = escape_outside(t, &mut top(&mut frames).items)?;
            }
            _ => {
                top(&mut frames).items.push(Item::Atom(literal(c)));
                t = &t[c.len_utf8()..];
            }
        }
        last_repeat = repeat;
    }
    if frames.len() != 1 {
        return Err(err(MISSING_PAREN, pattern));
    }
    let mut root = frames.pop().expect("one frame");
    let last = root.alternative();
    root.done.push(last);
    Ok((root.done.join("|"), names))
}

fn top(frames: &mut [Frame]) -> &mut Frame {
    frames.last_mut().expect("the outermost frame stays")
}

/// Applies the operator at the start of `before` (written `op` in the crate's syntax) to the
/// last atom, as Go's `repeat` does; a `?` after it makes it lazy. Gives the text after it.
fn repetition<'a>(
    frame: &mut Frame,
    mut op: String,
    before: &'a str,
    mut after: &'a str,
    last_repeat: Option<&str>,
) -> Result<&'a str, SyntaxError> {
    if let Some(rest) = after.strip_prefix('?') {
        after = rest;
        op.push('?');
    }
    if let Some(last) = last_repeat {
        return Err(err(INVALID_REPEAT_OP, &last[..last.len() - after.len()]));
    }
    let atom = frame.items.iter_mut().rev().find_map(|i| match i {
        Item::Atom(a) => Some(a),
        Item::Flags(_) => None,
    });
    let Some(atom) = atom else {
        return Err(err(
            MISSING_REPEAT_ARGUMENT,
            &before[..before.len() - after.len()],
        ));
    };
    *atom = format!("(?:{atom}){op}");
    Ok(after)
}

/// Go's `parseRepeat`: `{min}`, `{min,}` (max -1) or `{min,max}`; a number too big is -1.
fn parse_repeat(s: &str) -> Option<(i64, i64, &str)> {
    let s = s.strip_prefix('{')?;
    let (min, s) = parse_int(s)?;
    let (max, s) = if let Some(s) = s.strip_prefix(',') {
        if let Some(rest) = s.strip_prefix('}') {
            return Some((min, -1, rest));
        }
        let (max, s) = parse_int(s)?;
        (max, s)
    } else {
        (min, s)
    };
    let rest = s.strip_prefix('}')?;
    let min = if max < 0 { -1 } else { min };
    Some((min, max, rest))
}

/// Go's `parseInt`: decimal digits without a leading zero; past 10^8 the value is -1.
fn parse_int(s: &str) -> Option<(i64, &str)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || (digits >= 2 && s.starts_with('0')) {
        return None;
    }
    let mut n: i64 = 0;
    for b in s[..digits].bytes() {
        if n >= 100_000_000 {
            n = -1;
            break;
        }
        n = n * 10 + i64::from(b - b'0');
    }
    Some((n, &s[digits..]))
}

enum Group {
    /// A group's opening: `(?:`, `(?i:`, `(?P<name>`.
    Open(String),
    /// A flag change for the rest of the group.
    Flags(String),
}

/// Go's `parsePerlFlags` for `t` starting with `(?`.
fn perl_flags<'a>(t: &'a str, names: &mut Vec<String>) -> Result<(Group, &'a str), SyntaxError> {
    let starts_with_p = t.len() > 4 && t[2..].starts_with("P<");
    let starts_with_name = t.len() > 3 && t[2..].starts_with('<');
    if starts_with_p || starts_with_name {
        let begin = if starts_with_p { 4 } else { 3 };
        let Some(end) = t.find('>') else {
            return Err(err(INVALID_NAMED_CAPTURE, t));
        };
        let name = &t[begin..end];
        if name.is_empty() || !name.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric()) {
            return Err(err(INVALID_NAMED_CAPTURE, &t[..=end]));
        }
        // Go allows a name twice and names that start with a digit, the crate neither: its
        // groups stay unnamed, and `expand` looks names up in Go's list.
        names.push(name.to_string());
        return Ok((Group::Open("(".into()), &t[end + 1..]));
    }
    let mut flags = String::new();
    let mut negated = false;
    let mut saw_flag = false;
    let mut rest = &t[2..];
    while let Some(c) = rest.chars().next() {
        rest = &rest[c.len_utf8()..];
        match c {
            'i' | 'm' | 's' | 'U' => {
                flags.push(c);
                saw_flag = true;
            }
            '-' if !negated => {
                flags.push('-');
                negated = true;
                saw_flag = false;
            }
            ':' | ')' if !negated || saw_flag => {
                let group = match (c, flags.is_empty()) {
                    (':', _) => Group::Open(format!("(?{flags}:")),
                    (_, true) => Group::Flags(String::new()),
                    _ => Group::Flags(format!("(?{flags})")),
                };
                return Ok((group, rest));
            }
            _ => break,
        }
    }
    Err(err(INVALID_PERL_OP, &t[..t.len() - rest.len()]))
}

/// A literal character in the crate's syntax.
fn literal(c: char) -> String {
    if c.is_ascii_alphanumeric() {
        c.to_string()
    } else {
        format!("\\x{{{:X}}}", c as u32)
    }
}

/// Go's Perl class `\d \D \s \S \w \W` (ASCII only): its set and whether it is negated.
fn perl_class(c: char) -> Option<(&'static str, bool)> {
    let set = match c.to_ascii_lowercase() {
        'd' => "0-9",
        's' => r"\x{9}\x{A}\x{C}\x{D}\x{20}",
        'w' => "0-9A-Za-z_",
        _ => return None,
    };
    Some((set, c.is_ascii_uppercase()))
}

/// A backslash sequence outside a class, as an item.
fn escape_outside<'a>(t: &'a str, items: &mut Vec<Item>) -> Result<&'a str, SyntaxError> {
    let next = t[1..].chars().next();
    let assertion = match next {
        Some('A') => Some(r"\A"),
        Some('z') => Some(r"\z"),
        Some('b') => Some(r"(?-u:\b)"),
        Some('B') => Some(r"(?-u:\B)"),
        _ => None,
    };
    if let Some(a) = assertion {
        items.push(Item::Atom(a.into()));
        return Ok(&t[2..]);
    }
    match next {
        Some('C') => return Err(err(INVALID_ESCAPE, &t[..2])),
        Some('Q') => {
            let body = &t[2..];
            let (lit, rest) = body.split_once(r"\E").unwrap_or((body, ""));
            items.extend(lit.chars().map(|c| Item::Atom(literal(c))));
            return Ok(rest);
        }
        Some('p' | 'P') => {
            let (class, rest) = unicode_class(t)?;
            items.push(Item::Atom(class));
            return Ok(rest);
        }
        Some(c) => {
            if let Some((set, negated)) = perl_class(c) {
                let caret = if negated { "^" } else { "" };
                items.push(Item::Atom(format!("[{caret}{set}]")));
                return Ok(&t[2..]);
            }
        }
        None => {}
    }
    let (c, rest) = parse_escape(t)?;
    items.push(Item::Atom(literal(c)));
    Ok(rest)
}

/// Go's `parseEscape`: the character a backslash sequence (not a class) stands for.
fn parse_escape(s: &str) -> Result<(char, &str), SyntaxError> {
    let t = &s[1..];
    let Some(c) = t.chars().next() else {
        return Err(err(TRAILING_BACKSLASH, ""));
    };
    let mut t = &t[c.len_utf8()..];
    let invalid = |t: &str| err(INVALID_ESCAPE, &s[..s.len() - t.len()]);
    let octal_digit = |t: &str| {
        t.as_bytes()
            .first()
            .filter(|b| (b'0'..=b'7').contains(b))
            .copied()
    };
    match c {
        '1'..='7' if octal_digit(t).is_none() => Err(invalid(t)),
        '0'..='7' => {
            let mut r = c as u32 - '0' as u32;
            for _ in 1..3 {
                let Some(d) = octal_digit(t) else { break };
                r = r * 8 + u32::from(d - b'0');
                t = &t[1..];
            }
            Ok((char::from_u32(r).expect("at most 0o777"), t))
        }
        'x' => {
            let Some(c) = t.chars().next() else {
                return Err(invalid(t));
            };
            t = &t[c.len_utf8()..];
            if c == '{' {
                let mut r: u32 = 0;
                let mut digits = 0;
                loop {
                    let Some(c) = t.chars().next() else {
                        return Err(invalid(t));
                    };
                    t = &t[c.len_utf8()..];
                    if c == '}' {
                        break;
                    }
                    let Some(v) = c.to_digit(16) else {
                        return Err(invalid(t));
                    };
                    r = r * 16 + v;
                    if r > 0x10FFFF {
                        return Err(invalid(t));
                    }
                    digits += 1;
                }
                return match (digits, char::from_u32(r)) {
                    (0, _) => Err(invalid(t)),
                    // A surrogate: Go's class holds it and no text can match it.
                    (_, None) => Ok(('\u{FFFD}', t)),
                    (_, Some(r)) => Ok((r, t)),
                };
            }
            let x = c.to_digit(16);
            let Some(c2) = t.chars().next() else {
                return Err(invalid(t));
            };
            t = &t[c2.len_utf8()..];
            match (x, c2.to_digit(16)) {
                (Some(x), Some(y)) => Ok((char::from_u32(x * 16 + y).expect("below 256"), t)),
                _ => Err(invalid(t)),
            }
        }
        'a' => Ok(('\u{7}', t)),
        'f' => Ok(('\u{C}', t)),
        'n' => Ok(('\n', t)),
        'r' => Ok(('\r', t)),
        't' => Ok(('\t', t)),
        'v' => Ok(('\u{B}', t)),
        c if c.is_ascii() && !c.is_ascii_alphanumeric() => Ok((c, t)),
        _ => Err(invalid(t)),
    }
}

/// Go 1.23's general categories (`unicode.Categories`).
const CATEGORIES: &[&str] = &[
    "C", "Cc", "Cf", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn", "N",
    "Nd", "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk", "Sm", "So",
    "Z", "Zl", "Zp", "Zs",
];

/// Go's `parseUnicodeClass` for `s` starting with `\p` or `\P`: the class in the crate's
/// syntax (`\p{Greek}`, `\P{L}`).
fn unicode_class(s: &str) -> Result<(String, &str), SyntaxError> {
    let mut negated = s.as_bytes()[1] == b'P';
    let Some(c) = s[2..].chars().next() else {
        // Go reads no name and takes the `\p` as an escape, which is invalid.
        return Err(err(INVALID_ESCAPE, &s[..2]));
    };
    let (seq, mut name, rest) = if c != '{' {
        let end = 2 + c.len_utf8();
        (&s[..end], &s[2..end], &s[end..])
    } else {
        let Some(end) = s.find('}') else {
            return Err(err(INVALID_RANGE, s));
        };
        (&s[..=end], &s[3..end], &s[end + 1..])
    };
    if let Some(n) = name.strip_prefix('^') {
        negated = !negated;
        name = n;
    }
    // Go looks names up exactly, in its category and script tables. Scripts are checked
    // against the crate's table in Go's spelling (capitalised words joined by `_`).
    let known = name == "Any"
        || CATEGORIES.contains(&name)
        || (name
            .split('_')
            .all(|w| w.starts_with(|c: char| c.is_ascii_uppercase()))
            && name.bytes().all(|b| b == b'_' || b.is_ascii_alphabetic())
            && Regex::new(&format!(r"\p{{Script={name}}}")).is_ok());
    if !known {
        return Err(err(INVALID_RANGE, seq));
    }
    let class = match (name, negated) {
        ("Any", false) => r"[\x{0}-\x{10FFFF}]".to_string(),
        ("Any", true) => r"[^\x{0}-\x{10FFFF}]".to_string(),
        (n, negated) if CATEGORIES.contains(&n) => {
            format!("\\{}{{{n}}}", if negated { 'P' } else { 'p' })
        }
        (n, negated) => format!("\\{}{{Script={n}}}", if negated { 'P' } else { 'p' }),
    };
    Ok((class, rest))
}

/// Go's POSIX classes inside brackets (`[:alpha:]`, `[:^alpha:]`), which the crate spells alike.
const POSIX: &[&str] = &[
    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
    "space", "upper", "word", "xdigit",
];

/// Go's `parseClass` for `s` starting with `[`: the class in the crate's syntax.
fn class(s: &str) -> Result<(String, &str), SyntaxError> {
    let mut t = &s[1..];
    let mut out = String::from("[");
    if let Some(rest) = t.strip_prefix('^') {
        out.push('^');
        t = rest;
    }
    let mut first = true;
    while t.is_empty() || !t.starts_with(']') || first {
        first = false;
        if t.len() > 2 && t.starts_with("[:") {
            if let Some(i) = t[2..].find(":]") {
                let name = &t[..i + 4];
                let bare = &name[2..name.len() - 2];
                if !POSIX.contains(&bare.strip_prefix('^').unwrap_or(bare)) {
                    return Err(err(INVALID_RANGE, name));
                }
                out.push_str(name);
                t = &t[i + 4..];
                continue;
            }
        }
        if t.starts_with("\\p") || t.starts_with("\\P") {
            let (class, rest) = unicode_class(t)?;
            out.push_str(&class);
            t = rest;
            continue;
        }
        if let Some(c) = t.strip_prefix('\\').and_then(|r| r.chars().next()) {
            if let Some((set, negated)) = perl_class(c) {
                if negated {
                    let _ = write!(out, "[^{set}]");
                } else {
                    out.push_str(set);
                }
                t = &t[2..];
                continue;
            }
        }
        let rng = t;
        let (lo, rest) = class_char(t, s)?;
        t = rest;
        let mut hi = lo;
        if t.len() >= 2 && t.starts_with('-') && !t[1..].starts_with(']') {
            let (h, rest) = class_char(&t[1..], s)?;
            t = rest;
            hi = h;
            if hi < lo {
                return Err(err(INVALID_RANGE, &rng[..rng.len() - t.len()]));
            }
        }
        let _ = write!(out, "\\x{{{:X}}}", lo as u32);
        if hi != lo {
            let _ = write!(out, "-\\x{{{:X}}}", hi as u32);
        }
    }
    out.push(']');
    Ok((out, &t[1..]))
}

/// Go's `parseClassChar`: one character of a class, escapes allowed.
fn class_char<'a>(t: &'a str, whole: &str) -> Result<(char, &'a str), SyntaxError> {
    match t.chars().next() {
        None => Err(err(MISSING_BRACKET, whole)),
        Some('\\') => parse_escape(t),
        Some(c) => Ok((c, &t[c.len_utf8()..])),
    }
}

/// Go's `FindAllStringIndex(s, n)` (n < 0: all): an empty match right after a match is skipped.
pub fn find_all(re: &GoRegex, s: &str, n: i64) -> Vec<(usize, usize)> {
    let limit = if n < 0 { s.len() + 1 } else { n as usize };
    let mut out = Vec::new();
    let mut pos = 0;
    let mut prev_end: Option<usize> = None;
    while out.len() < limit && pos <= s.len() {
        let Some((start, end)) = re.find_at(s, pos) else {
            break;
        };
        let mut accept = true;
        if end == pos {
            if Some(start) == prev_end {
                accept = false;
            }
            pos += s[pos..].chars().next().map_or(1, char::len_utf8);
        } else {
            pos = end;
        }
        prev_end = Some(end);
        if accept {
            out.push((start, end));
        }
    }
    out
}

/// Go's `ReplaceAllString` (`$1`, `${name}` expanded) or `ReplaceAllLiteralString`.
pub fn replace_all(re: &GoRegex, src: &str, repl: &str, literal: bool) -> String {
    let mut out = String::with_capacity(src.len());
    let mut last_end = 0;
    let mut search = 0;
    while search <= src.len() {
        // A literal replacement needs no groups.
        let groups = if literal {
            re.find_at(src, search).map(|m| vec![Some(m)])
        } else {
            re.captures_at(src, search)
        };
        let Some(groups) = groups else {
            break;
        };
        let (start, end) = groups[0].expect("group 0 is the match");
        out.push_str(&src[last_end..start]);
        // No replacement for an empty match right after another match.
        if end > last_end || start == 0 {
            if literal {
                out.push_str(repl);
            } else {
                expand(re, src, &groups, repl, &mut out);
            }
        }
        last_end = end;
        let width = src[search..].chars().next().map_or(0, char::len_utf8);
        search = if search + width > end {
            search + width
        } else if search + 1 > end {
            search + 1
        } else {
            end
        };
    }
    out.push_str(&src[last_end..]);
    out
}

/// Go's `Regexp.Expand`: `$$` is `$`; `$name` and `${name}` (letters, digits, `_`) are a
/// group by number, or the first group of that name that took part in the match; a `$` that
/// starts neither is itself.
fn expand(
    re: &GoRegex,
    src: &str,
    groups: &[Option<(usize, usize)>],
    mut template: &str,
    out: &mut String,
) {
    let group = |i: usize| groups.get(i).copied().flatten();
    while let Some((before, after)) = template.split_once('$') {
        out.push_str(before);
        template = after;
        if let Some(rest) = template.strip_prefix('$') {
            out.push('$');
            template = rest;
            continue;
        }
        let Some((name, rest)) = extract(template) else {
            out.push('$');
            continue;
        };
        template = rest;
        let matched = match group_number(name) {
            Some(n) => group(n),
            None => re
                .names
                .iter()
                .enumerate()
                .filter(|(_, n)| *n == name)
                .find_map(|(i, _)| group(i)),
        };
        if let Some((start, end)) = matched {
            out.push_str(&src[start..end]);
        }
    }
    out.push_str(template);
}

/// Go's `extract`: the name after a `$` and the text after it.
fn extract(s: &str) -> Option<(&str, &str)> {
    let (braced, s) = match s.strip_prefix('{') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let len: usize = s
        .chars()
        .take_while(|c| c.is_alphabetic() || c.is_numeric() || *c == '_')
        .map(char::len_utf8)
        .sum();
    if len == 0 {
        return None;
    }
    let (name, mut rest) = s.split_at(len);
    if braced {
        rest = rest.strip_prefix('}')?;
    }
    Some((name, rest))
}

/// A group name that is a number (no leading zero, below 10^8).
fn group_number(name: &str) -> Option<usize> {
    if !name.bytes().all(|b| b.is_ascii_digit()) || (name.len() > 1 && name.starts_with('0')) {
        return None;
    }
    name.parse().ok().filter(|n| *n < 100_000_000)
}

/// Go's `Regexp.Split(s, n)`: `None` is Go's nil (n == 0).
pub fn split(re: &GoRegex, pattern: &str, s: &str, n: i64) -> Option<Vec<String>> {
    if n == 0 {
        return None;
    }
    if !pattern.is_empty() && s.is_empty() {
        return Some(vec![String::new()]);
    }
    let mut out = Vec::new();
    let (mut beg, mut end) = (0, 0);
    for (start, stop) in find_all(re, s, n) {
        if n > 0 && out.len() as i64 == n - 1 {
            break;
        }
        end = start;
        if stop != 0 {
            out.push(s[beg..end].to_string());
        }
        beg = stop;
    }
    if end != s.len() {
        out.push(s[beg..].to_string());
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translates_what_go_accepts_and_the_crate_reads_otherwise() {
        for (pattern, text, want) in [
            (r"^[\w-\.]+$", "a-b.c", true),
            (r"[a-]", "-", true),
            (r"\d", "٣", false),
            (r"a{,2}", "a{,2}", true),
            (r"\Qa.b\E", "axb", false),
            (r"x{", "x{", true),
            (r"[[]", "[", true),
            (r"[a&&b]", "&", true),
            (r"(?P<1a>x)(?P<n>y)(?P<n>z)", "xyz", true),
            (r"\pL\p{Greek}\p{^Greek}", "aβa", true),
            (r"(?i)K", "\u{212A}", true),
            (r"\141", "a", true),
        ] {
            let re = compile(pattern).unwrap_or_else(|e| panic!("{pattern}: {e}"));
            assert_eq!(re.is_match(text), want, "{pattern} on {text:?}");
        }
    }

    #[test]
    fn regex_lite_and_the_regex_crate_find_the_same() {
        // Patterns charts use and the shapes the translation writes; texts with and without
        // matches, Unicode, line breaks and empty matches.
        let patterns = [
            r"[^A-Za-z0-9]+$",
            r"-r\d+$|sha256:",
            r"(-?[^a-z\d\-])+-?",
            r"@sha.*",
            r"^[0-9]+\.[0-9]+(\.[0-9]+)?([-.+][0-9A-Za-z.-]+)?$",
            r"[^a-zA-Z0-9._-]",
            r"^[\w-\.]+$",
            r"(a|ab)(c|bcd)(d*)",
            r"x*",
            r"(?P<first>\w+)\s(?P<second>\w+)",
            r"[[:alpha:]]+|[[:^digit:]]",
            r"a{2,3}?b|c{,2}",
            r"^$|^\s*#",
            r"\.(yaml|yml|json)$",
            r"[\x{100}-\x{10FFFF}]+",
            r"(\d+)(?:ms|s)?",
            r".",
            r"",
        ];
        let texts = [
            "",
            "a",
            "redis-7.2.4-debian-12-r13",
            "sha256:abc@sha1",
            "--x--",
            "1.22.3-rc.1+b",
            "ab c",
            "abcd bcd",
            "héllo wörld ☃",
            "line1\nline2\n",
            "  # comment",
            "x.yaml",
            "xxx",
            "a_b-c.d",
            "日本語 text 42ms",
            "aab aaab c cc",
        ];
        for pattern in patterns {
            let (rust, names) = translate(pattern).unwrap();
            let re = GoRegex::new(rust, names).unwrap();
            let lite = re
                .engines
                .lite
                .as_ref()
                .unwrap_or_else(|| panic!("{pattern}: lite"));
            let full = re.engines.full().expect("compiles");
            for text in texts {
                assert_eq!(
                    lite.is_match(text),
                    full.is_match(text),
                    "{pattern} on {text:?}"
                );
                for at in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                    let l = lite
                        .captures_at(text, at)
                        .map(|c| c.iter().map(|m| m.map(|m| m.range())).collect::<Vec<_>>());
                    let f = full
                        .captures_at(text, at)
                        .map(|c| c.iter().map(|m| m.map(|m| m.range())).collect::<Vec<_>>());
                    assert_eq!(l, f, "{pattern} on {text:?} at {at}");
                }
            }
        }
        // A long text goes to the crate's program.
        let re = compile("b+").unwrap();
        let long = "ab".repeat(LITE_TEXT);
        assert!(matches!(re.engine(long.len()), Engine::Full(_)));
        assert_eq!(find_all(&re, &long, -1).len(), LITE_TEXT);
        // Nesting deeper than regex-lite's limit goes to the crate.
        let deep = format!("{}a{}", "(".repeat(500), ")".repeat(500));
        let re = compile(&deep).unwrap();
        assert!(re.engines.lite.is_none());
        assert_eq!(re.find_at("xa", 0), Some((1, 2)));
        // Flags go to the regex crate: its case folding is Unicode's, as Go's is.
        let (rust, names) = translate("(?i)K").unwrap();
        assert!(GoRegex::new(rust, names).unwrap().engines.lite.is_none());
    }

    #[test]
    fn rejects_with_gos_words() {
        for (pattern, want) in [
            ("a**", "invalid nested repetition operator: `**`"),
            ("*", "missing argument to repetition operator: `*`"),
            ("a{1001}", "invalid repeat count: `{1001}`"),
            ("[z-a]", "invalid character class range: `z-a`"),
            (r"\p{Foo}", "invalid character class range: `\\p{Foo}`"),
            ("(?x)", "invalid or unsupported Perl syntax: `(?x`"),
            ("(?P<>a)", "invalid named capture: `(?P<>`"),
            (r"a\", "trailing backslash at end of expression: ``"),
            (r"\8", "invalid escape sequence: `\\8`"),
            ("a)", "unexpected ): `a)`"),
            ("(a", "missing closing ): `(a`"),
            ("[a", "missing closing ]: `[a`"),
        ] {
            assert_eq!(
                compile(pattern).err().as_deref(),
                Some(format!("error parsing regexp: {want}").as_str()),
                "{pattern}"
            );
        }
    }

    #[test]
    fn splits_as_go_splits() {
        let re = compile("a*").expect("valid");
        assert_eq!(
            split(&re, "a*", "baaac", -1),
            Some(vec!["b".into(), "c".into()])
        );
        assert_eq!(split(&re, "a*", "baaac", 0), None);
        assert_eq!(replace_all(&re, "baaac", "-", true), "-b-c-");
    }
}
