//! The syntax check of Go's `encoding/json` (`checkValid` over its `scanner`), which
//! `json.Unmarshal` runs before decoding: kdelta decodes with serde_json, and this gives the
//! error Go reports, worded as Go words it.

use super::super::fmt::go_quote_rune;

/// Go's `maxNestingDepth`.
const MAX_DEPTH: usize = 10000;

/// What the scanner expects next (Go's `step` functions).
#[derive(Clone, Copy)]
enum Step {
    BeginValue,
    BeginValueOrEmpty,
    BeginString,
    BeginStringOrEmpty,
    EndValue,
    EndTop,
    InString,
    InStringEsc,
    InStringEscU(u8),
    Neg,
    One,
    Zero,
    Dot,
    Dot0,
    E,
    ESign,
    E0,
    /// The rest of a literal (`true`, `false`, `null`) and the byte at which it is.
    Literal(&'static [u8], usize),
}

/// Where a value sits (Go's `parseState`).
#[derive(Clone, Copy, PartialEq)]
enum Parse {
    ObjectKey,
    ObjectValue,
    ArrayValue,
}

struct Scanner {
    step: Step,
    stack: Vec<Parse>,
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

fn error(c: u8, context: &str) -> String {
    format!(
        "invalid character {} {context}",
        go_quote_rune(char::from(c))
    )
}

impl Scanner {
    fn push(&mut self, c: u8, p: Parse, next: Step) -> Result<(), String> {
        self.stack.push(p);
        if self.stack.len() > MAX_DEPTH {
            return Err(error(c, "exceeded max depth"));
        }
        self.step = next;
        Ok(())
    }

    fn begin_value(&mut self, c: u8) -> Result<(), String> {
        self.step = match c {
            b'{' => return self.push(c, Parse::ObjectKey, Step::BeginStringOrEmpty),
            b'[' => return self.push(c, Parse::ArrayValue, Step::BeginValueOrEmpty),
            b'"' => Step::InString,
            b'-' => Step::Neg,
            b'0' => Step::Zero,
            b'1'..=b'9' => Step::One,
            b't' => Step::Literal(b"rue", 0),
            b'f' => Step::Literal(b"alse", 0),
            b'n' => Step::Literal(b"ull", 0),
            _ if is_space(c) => return Ok(()),
            _ => return Err(error(c, "looking for beginning of value")),
        };
        Ok(())
    }

    fn end_value(&mut self, c: u8) -> Result<(), String> {
        let Some(&top) = self.stack.last() else {
            self.step = Step::EndTop;
            return self.end_top(c);
        };
        if is_space(c) {
            self.step = Step::EndValue;
            return Ok(());
        }
        match (top, c) {
            (Parse::ObjectKey, b':') => {
                *self.stack.last_mut().expect("the stack is not empty") = Parse::ObjectValue;
                self.step = Step::BeginValue;
            }
            (Parse::ObjectKey, _) => return Err(error(c, "after object key")),
            (Parse::ObjectValue, b',') => {
                *self.stack.last_mut().expect("the stack is not empty") = Parse::ObjectKey;
                self.step = Step::BeginString;
            }
            (Parse::ObjectValue, b'}') | (Parse::ArrayValue, b']') => self.pop(),
            (Parse::ObjectValue, _) => return Err(error(c, "after object key:value pair")),
            (Parse::ArrayValue, b',') => self.step = Step::BeginValue,
            (Parse::ArrayValue, _) => return Err(error(c, "after array element")),
        }
        Ok(())
    }

    fn pop(&mut self) {
        self.stack.pop();
        self.step = if self.stack.is_empty() {
            Step::EndTop
        } else {
            Step::EndValue
        };
    }

    fn end_top(&mut self, c: u8) -> Result<(), String> {
        if is_space(c) {
            Ok(())
        } else {
            Err(error(c, "after top-level value"))
        }
    }

    fn feed(&mut self, c: u8) -> Result<(), String> {
        match self.step {
            Step::BeginValue => self.begin_value(c),
            Step::BeginValueOrEmpty if c == b']' => {
                self.pop();
                Ok(())
            }
            Step::BeginValueOrEmpty => self.begin_value(c),
            Step::BeginStringOrEmpty if c == b'}' => {
                self.pop();
                Ok(())
            }
            Step::BeginString | Step::BeginStringOrEmpty => match c {
                b'"' => {
                    self.step = Step::InString;
                    Ok(())
                }
                _ if is_space(c) => Ok(()),
                _ => Err(error(c, "looking for beginning of object key string")),
            },
            Step::EndValue => self.end_value(c),
            Step::EndTop => self.end_top(c),
            Step::InString => {
                match c {
                    b'"' => self.step = Step::EndValue,
                    b'\\' => self.step = Step::InStringEsc,
                    0..=0x1f => return Err(error(c, "in string literal")),
                    _ => {}
                }
                Ok(())
            }
            Step::InStringEsc => {
                self.step = match c {
                    b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => Step::InString,
                    b'u' => Step::InStringEscU(0),
                    _ => return Err(error(c, "in string escape code")),
                };
                Ok(())
            }
            Step::InStringEscU(n) => {
                if !c.is_ascii_hexdigit() {
                    return Err(error(c, "in \\u hexadecimal character escape"));
                }
                self.step = if n == 3 {
                    Step::InString
                } else {
                    Step::InStringEscU(n + 1)
                };
                Ok(())
            }
            Step::Neg => {
                self.step = match c {
                    b'0' => Step::Zero,
                    b'1'..=b'9' => Step::One,
                    _ => return Err(error(c, "in numeric literal")),
                };
                Ok(())
            }
            Step::One if c.is_ascii_digit() => Ok(()),
            Step::One | Step::Zero => match c {
                b'.' => {
                    self.step = Step::Dot;
                    Ok(())
                }
                b'e' | b'E' => {
                    self.step = Step::E;
                    Ok(())
                }
                _ => self.end_value(c),
            },
            Step::Dot if c.is_ascii_digit() => {
                self.step = Step::Dot0;
                Ok(())
            }
            Step::Dot => Err(error(c, "after decimal point in numeric literal")),
            Step::Dot0 => match c {
                b'0'..=b'9' => Ok(()),
                b'e' | b'E' => {
                    self.step = Step::E;
                    Ok(())
                }
                _ => self.end_value(c),
            },
            Step::E if c == b'+' || c == b'-' => {
                self.step = Step::ESign;
                Ok(())
            }
            Step::E | Step::ESign if c.is_ascii_digit() => {
                self.step = Step::E0;
                Ok(())
            }
            Step::E | Step::ESign => Err(error(c, "in exponent of numeric literal")),
            Step::E0 if c.is_ascii_digit() => Ok(()),
            Step::E0 => self.end_value(c),
            Step::Literal(rest, i) => {
                if c != rest[i] {
                    let word = match rest {
                        b"rue" => "true",
                        b"alse" => "false",
                        _ => "null",
                    };
                    let want = go_quote_rune(char::from(rest[i]));
                    return Err(error(c, &format!("in literal {word} (expecting {want})")));
                }
                self.step = if i + 1 == rest.len() {
                    Step::EndValue
                } else {
                    Step::Literal(rest, i + 1)
                };
                Ok(())
            }
        }
    }
}

/// Go's `checkValid`: `Err` holds the message of its `SyntaxError`.
pub fn check_valid(data: &[u8]) -> Result<(), String> {
    let mut scan = Scanner {
        step: Step::BeginValue,
        stack: Vec::new(),
    };
    for &c in data {
        scan.feed(c)?;
    }
    // Go's `eof`: a space ends a number or shows what is missing.
    if matches!(scan.step, Step::EndTop) {
        return Ok(());
    }
    scan.feed(b' ')?;
    if matches!(scan.step, Step::EndTop) {
        Ok(())
    } else {
        Err("unexpected end of JSON input".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_words_syntax_errors() {
        let err = |s: &str| check_valid(s.as_bytes()).unwrap_err();
        assert_eq!(err(""), "unexpected end of JSON input");
        assert_eq!(err("[1, 2"), "unexpected end of JSON input");
        assert_eq!(
            err("nul!"),
            "invalid character '!' in literal null (expecting 'l')"
        );
        assert_eq!(
            err("1."),
            "invalid character ' ' after decimal point in numeric literal"
        );
        assert_eq!(err("[]]"), "invalid character ']' after top-level value");
        assert_eq!(
            err(&"[".repeat(10001)),
            "invalid character '[' exceeded max depth"
        );
        for ok in [
            "1",
            " {\"a\": [1, -0.5e+3, true, null, \"\\u00e9\"]} ",
            "{}",
            "[]",
        ] {
            assert_eq!(check_valid(ok.as_bytes()), Ok(()), "{ok}");
        }
    }
}
