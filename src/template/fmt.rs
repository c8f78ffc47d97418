//! Go's `fmt` for template values: `print`, `println` and `printf` (verbs, flags, width,
//! precision, and the `%!verb(type=value)` error forms), and the value printing of `{{ . }}`.

use super::value::Value;

/// How an action prints its value (`fmt.Fprint` after text/template's `printableValue`).
pub fn print_action(v: &Value) -> String {
    match v {
        Value::NoValue | Value::Nil => "<no value>".to_string(),
        // An action prints through a pointer's String method where fmt would not.
        Value::Object(o) => o.0.action_text(),
        other => sprint_value(other),
    }
}

/// `fmt.Sprint`: operands separated by a space when neither side is a string.
pub fn sprint(args: &[Value]) -> String {
    let mut out = String::new();
    for (i, a) in args.iter().enumerate() {
        let is_string = matches!(a, Value::String(_));
        if i > 0 && !is_string && !matches!(args[i - 1], Value::String(_)) {
            out.push(' ');
        }
        out.push_str(&sprint_value(a));
    }
    out
}

/// `fmt.Sprintln`: operands always separated by a space, then a newline.
pub fn sprintln(args: &[Value]) -> String {
    let mut out: Vec<String> = args.iter().map(sprint_value).collect();
    let last = out.len();
    out.push(String::new());
    let mut s = out[..last].join(" ");
    s.push('\n');
    s
}

/// One value as `%v` prints it.
pub fn sprint_value(v: &Value) -> String {
    let mut out = String::new();
    format_value(&mut out, v, 'v', &Spec::default());
    out
}

/// Go's shortest float formatting, as `%v` prints a float64 (strconv's shortest `'g'`).
pub fn format_float_shortest(f: f64) -> String {
    format_float(f, 'g', None, false)
}

#[derive(Clone, Default)]
struct Spec {
    minus: bool,
    plus: bool,
    sharp: bool,
    space: bool,
    zero: bool,
    width: Option<usize>,
    precision: Option<usize>,
}

/// `fmt.Sprintf`.
pub fn sprintf(format: &str, args: &[Value]) -> String {
    let mut out = String::new();
    let mut arg = 0usize;
    let mut reordered = false;
    // `[n]` before a width, precision or verb picks argument n (1-based).
    let arg_index =
        |chars: &[char], i: &mut usize, arg: &mut usize, reordered: &mut bool| -> bool {
            if chars.get(*i) != Some(&'[') {
                return true;
            }
            *reordered = true;
            let start = *i + 1;
            let Some(len) = chars[start..].iter().position(|c| *c == ']') else {
                *i = chars.len();
                return false;
            };
            let text: String = chars[start..start + len].iter().collect();
            *i = start + len + 1;
            match text.parse::<usize>() {
                Ok(n) if n >= 1 && n <= args.len() => {
                    *arg = n - 1;
                    true
                }
                _ => false,
            }
        };
    let chars: Vec<char> = format.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '%' {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        let mut spec = Spec::default();
        while i < chars.len() {
            match chars[i] {
                '-' => {
                    spec.minus = true;
                    spec.zero = false;
                }
                '+' => spec.plus = true,
                '#' => spec.sharp = true,
                ' ' => spec.space = true,
                '0' => spec.zero = !spec.minus,
                _ => break,
            }
            i += 1;
        }
        let mut good_index = arg_index(&chars, &mut i, &mut arg, &mut reordered);
        // Width.
        if i < chars.len() && chars[i] == '*' {
            i += 1;
            match args
                .get(arg)
                .and_then(Value::as_int)
                .filter(|n| !too_large(*n))
            {
                Some(n) => {
                    if n < 0 {
                        spec.minus = true;
                        spec.zero = false;
                    }
                    spec.width = Some(n.unsigned_abs() as usize);
                }
                _ => out.push_str("%!(BADWIDTH)"),
            }
            arg += 1;
        } else {
            spec.width = parse_num(&chars, &mut i);
        }
        // Precision.
        if i < chars.len() && chars[i] == '.' {
            i += 1;
            if i < chars.len() && chars[i] == '*' {
                i += 1;
                match args.get(arg).and_then(Value::as_int) {
                    Some(n) if n >= 0 && !too_large(n) => spec.precision = Some(n as usize),
                    _ => out.push_str("%!(BADPREC)"),
                }
                arg += 1;
            } else {
                spec.precision = Some(parse_num(&chars, &mut i).unwrap_or(0));
            }
        }
        if good_index {
            good_index = arg_index(&chars, &mut i, &mut arg, &mut reordered);
        }
        let Some(&verb) = chars.get(i) else {
            out.push_str("%!(NOVERB)");
            break;
        };
        i += 1;
        if verb == '%' {
            out.push('%');
            continue;
        }
        if !good_index {
            out.push_str(&format!("%!{verb}(BADINDEX)"));
            continue;
        }
        match args.get(arg) {
            None => {
                out.push_str(&format!("%!{verb}(MISSING)"));
            }
            Some(v) => {
                format_value(&mut out, v, verb, &spec);
                arg += 1;
            }
        }
    }
    if !reordered && arg < args.len() {
        out.push_str("%!(EXTRA ");
        let extra: Vec<String> = args[arg..]
            .iter()
            .map(|v| match v {
                Value::Nil | Value::NoValue => "<nil>".to_string(),
                v => format!("{}={}", v.type_name(), sprint_value(v)),
            })
            .collect();
        out.push_str(&extra.join(", "));
        out.push(')');
    }
    out
}

/// Go's `badVerb`: `%!verb(type=value)`, the value printed as by `%v` with the flags, width
/// and precision of the verb (`%05d` of "42" is `%!d(string=00042)`), where `+` and `#` keep
/// their plain meaning (a sign, an alternate form) rather than `%+v`'s and `%#v`'s.
fn bad_verb(out: &mut String, v: &Value, verb: char, spec: &Spec) {
    if matches!(v, Value::NoValue | Value::Nil) {
        out.push_str(&format!("%!{verb}(<nil>)"));
        return;
    }
    out.push_str(&format!("%!{verb}({}=", v.type_name()));
    match v {
        Value::Int(_) | Value::Int64(_) | Value::Uint64(_) | Value::Uint8(_) => {
            format_value(out, v, 'd', spec)
        }
        // `fmt` prints the value of a failed verb without its `String` method.
        Value::Object(o) if o.0.int().is_some() => {
            format_int(out, o.0.int().unwrap_or_default(), 'd', spec, v)
        }
        Value::Float(_) | Value::Complex(..) => format_value(out, v, 'g', spec),
        Value::String(_) => format_value(out, v, 's', spec),
        Value::Bool(_) => format_value(out, v, 't', spec),
        _ => {
            let plain = Spec {
                sharp: false,
                plus: false,
                ..spec.clone()
            };
            format_value(out, v, 'v', &plain)
        }
    }
    out.push(')');
}

/// `%#v`: the value as Go syntax.
fn go_syntax(v: &Value) -> String {
    match v {
        Value::NoValue | Value::Nil => "<nil>".into(),
        Value::Object(o) if o.0.bytes().is_some() && o.0.slice_is_nil() => "[]byte(nil)".into(),
        Value::Object(o) if o.0.bytes().is_some() => format!(
            "[]byte{{{}}}",
            o.0.items()
                .unwrap_or_default()
                .iter()
                .map(|b| format!("{:#x}", b.as_int().unwrap_or_default()))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        // A named slice type (Helm's `chartutil.VersionSet`).
        Value::Object(o) if o.0.kind_name() == "slice" => match o.0.items() {
            Some(items) => format!(
                "{}{{{}}}",
                o.0.type_name(),
                items
                    .iter()
                    .map(go_syntax_element)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => o.0.text(),
        },
        Value::Object(o) => match (o.0.go_syntax(), o.0.int()) {
            (Some(text), _) => text,
            (None, Some(n)) => n.to_string(),
            (None, None) => o.0.text(),
        },
        Value::Bool(b) => b.to_string(),
        Value::Int(i) | Value::Int64(i) => i.to_string(),
        Value::Uint64(u) => format!("{u:#x}"),
        Value::Uint8(b) => format!("{b:#x}"),
        Value::Float(f) => format_float(*f, 'g', None, false),
        Value::Complex(..) => sprint_value(v),
        Value::String(s) => go_quote(s),
        Value::List(l) if l.is_nil() => format!("{}(nil)", l.ty.name()),
        Value::Map(m) if m.is_nil() => format!("{}(nil)", m.ty().name()),
        Value::List(l) => format!(
            "{}{{{}}}",
            l.ty.name(),
            l.iter()
                .map(go_syntax_element)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Map(m) => format!(
            "{}{{{}}}",
            m.ty().name(),
            m.entries()
                .iter()
                .map(|(k, v)| format!("{}:{}", go_quote(k), go_syntax_element(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// `%#v` of an element of a list or map, where a nil is a typed `interface {}`.
fn go_syntax_element(v: &Value) -> String {
    match v {
        Value::NoValue | Value::Nil => "interface {}(nil)".into(),
        _ => go_syntax(v),
    }
}

fn format_value(out: &mut String, v: &Value, verb: char, spec: &Spec) {
    if verb == 'v' && spec.sharp {
        pad(out, &go_syntax(v), spec);
        return;
    }
    if verb == 'T' {
        pad(out, v.type_name(), spec);
        return;
    }
    // Go's `fmtBytes`: a `[]byte` is text for `%s`, `%q`, `%x` and `%X`, and a slice of
    // numbers for the other verbs.
    if let Some(bytes) = v.as_bytes() {
        let as_text = Value::String(bytes.clone());
        match verb {
            's' | 'q' | 'x' | 'X' => format_value(out, &as_text, verb, spec),
            _ => format_value(
                out,
                &Value::list(v.slice_items().unwrap_or_default().into_owned()),
                verb,
                spec,
            ),
        }
        return;
    }
    match v {
        Value::NoValue | Value::Nil => match verb {
            'v' => pad(out, "<nil>", spec),
            _ => bad_verb(out, v, verb, spec),
        },
        // A Stringer prints its String() for %v, %s, %q, %x and %X; a named integer type
        // its number for the other verbs.
        Value::Object(o) if o.0.int().is_some() => match verb {
            'v' | 's' => pad(out, &o.0.text(), spec),
            'q' | 'x' | 'X' => format_value(out, &Value::str(o.0.text()), verb, spec),
            _ => format_int(out, o.0.int().unwrap_or_default(), verb, spec, v),
        },
        // A Stringer prints its String() for %v and %s.
        Value::Object(o) => match verb {
            'v' | 's' => pad(out, &o.0.text(), spec),
            'q' => pad(out, &go_quote(&o.0.text()), spec),
            _ => bad_verb(out, v, verb, spec),
        },
        Value::Bool(b) => match verb {
            'v' | 't' => pad(out, if *b { "true" } else { "false" }, spec),
            _ => bad_verb(out, v, verb, spec),
        },
        Value::Int(n) | Value::Int64(n) => format_int(out, *n, verb, spec, v),
        Value::Uint8(b) => format_int(out, i64::from(*b), verb, spec, v),
        Value::Uint64(u) => match i64::try_from(*u) {
            Ok(n) => format_int(out, n, verb, spec, v),
            // Beyond int64: decimal and hex only.
            Err(_) => match verb {
                'v' | 'd' => pad_number(out, &u.to_string(), spec),
                'x' => pad_number(out, &format!("{u:x}"), spec),
                'X' => pad_number(out, &format!("{u:X}"), spec),
                _ => bad_verb(out, v, verb, spec),
            },
        },
        // Go's `fmtComplex`: each part as a float, the imaginary one always signed.
        Value::Complex(re, im) => match verb {
            'v' | 'g' | 'G' | 'e' | 'E' | 'f' | 'F' | 'x' | 'X' | 'b' => {
                // `%+v` is not `%+g`: its plus is cleared before the parts are printed.
                let (verb, plus) = if verb == 'v' {
                    ('g', false)
                } else {
                    (verb, spec.plus)
                };
                out.push('(');
                format_value(
                    out,
                    &Value::Float(*re),
                    verb,
                    &Spec {
                        plus,
                        ..spec.clone()
                    },
                );
                let signed = Spec {
                    plus: true,
                    ..spec.clone()
                };
                format_value(out, &Value::Float(*im), verb, &signed);
                out.push_str("i)");
            }
            _ => bad_verb(out, v, verb, spec),
        },
        Value::Float(f) => match verb {
            'x' | 'X' => {
                let mut text = hex_float(*f, spec.precision);
                if spec.sharp && f.is_finite() {
                    text = sharp_hex_float(&text, spec.precision, verb);
                }
                if verb == 'X' {
                    text = text.to_uppercase();
                }
                let text = match text.chars().next() {
                    Some('-' | '+') => text,
                    _ if spec.plus => format!("+{text}"),
                    _ if spec.space => format!(" {text}"),
                    _ => text,
                };
                pad_number(out, &text, spec);
            }
            'v' | 'g' | 'G' | 'e' | 'E' | 'f' | 'F' | 'b' => {
                // `+` (and `' '`) give a sign to a number without one; `%+v` is another flag.
                let signed = verb != 'v';
                let verb = if verb == 'v' { 'g' } else { verb };
                let text = if verb == 'b' {
                    binary_float(*f)
                } else {
                    format_float(*f, verb, spec.precision, spec.sharp)
                };
                let text = match text.chars().next() {
                    Some('-' | '+') => text,
                    _ if signed && spec.plus => format!("+{text}"),
                    _ if signed && spec.space => format!(" {text}"),
                    _ => text,
                };
                pad_number(out, &text, spec);
            }
            _ => bad_verb(out, v, verb, spec),
        },
        Value::String(s) => match verb {
            'v' | 's' => {
                let s = truncate(s, spec.precision);
                pad(out, &s, spec)
            }
            'q' if spec.sharp
                && !s.contains('`')
                && s.chars().all(|c| c == '\t' || !c.is_control()) =>
            {
                pad(out, &format!("`{}`", truncate(s, spec.precision)), spec)
            }
            'q' if spec.plus => pad(out, &go_quote_ascii(&truncate(s, spec.precision)), spec),
            'q' => pad(out, &go_quote(&truncate(s, spec.precision)), spec),
            'x' | 'X' => {
                let text = truncate(s, spec.precision);
                let hex: Vec<String> = super::gostr::to_bytes(&text)
                    .iter()
                    .map(|b| {
                        let h = if verb == 'x' {
                            format!("{b:02x}")
                        } else {
                            format!("{b:02X}")
                        };
                        if spec.sharp {
                            format!("0{verb}{h}")
                        } else {
                            h
                        }
                    })
                    .collect();
                let sep = if spec.space { " " } else { "" };
                let text = if spec.sharp && !spec.space {
                    format!("0{verb}{}", hex.iter().map(|h| &h[2..]).collect::<String>())
                } else {
                    hex.join(sep)
                };
                pad(out, &text, spec)
            }
            _ => bad_verb(out, v, verb, spec),
        },
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                format_element(out, item, verb, spec);
            }
            out.push(']');
        }
        Value::Map(m) => {
            out.push_str("map[");
            for (i, (k, val)) in m.entries().iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                format_value(out, &Value::str(k.as_str()), verb, spec);
                out.push(':');
                format_element(out, val, verb, spec);
            }
            out.push(']');
        }
    }
}

/// An element of a list or map: Go prints a nil interface there as `<nil>` for every verb,
/// without padding.
fn format_element(out: &mut String, v: &Value, verb: char, spec: &Spec) {
    match v {
        Value::NoValue | Value::Nil => out.push_str("<nil>"),
        _ => format_value(out, v, verb, spec),
    }
}

fn truncate(s: &str, precision: Option<usize>) -> String {
    match precision {
        Some(p) => s.chars().take(p).collect(),
        None => s.to_string(),
    }
}

fn format_int(out: &mut String, n: i64, verb: char, spec: &Spec, v: &Value) {
    let digits = |radix: u32, upper: bool| -> String {
        let mut s = match radix {
            16 => format!("{:x}", n.unsigned_abs()),
            8 => format!("{:o}", n.unsigned_abs()),
            2 => format!("{:b}", n.unsigned_abs()),
            _ => n.unsigned_abs().to_string(),
        };
        if upper {
            s = s.to_uppercase();
        }
        s
    };
    let body = match verb {
        'v' | 'd' => digits(10, false),
        'x' => digits(16, false),
        'X' => digits(16, true),
        'o' | 'O' => digits(8, false),
        'b' => digits(2, false),
        'c' => {
            let c = u32::try_from(n)
                .ok()
                .and_then(char::from_u32)
                .unwrap_or('\u{FFFD}');
            pad(out, &c.to_string(), spec);
            return;
        }
        'q' => {
            let c = u32::try_from(n)
                .ok()
                .and_then(char::from_u32)
                .unwrap_or('\u{FFFD}');
            // `%+q` is strconv.QuoteRuneToASCII.
            let quoted = if spec.plus {
                go_quote_rune_ascii(c)
            } else {
                go_quote_rune(c)
            };
            pad(out, &quoted, spec);
            return;
        }
        'U' => {
            let c = u32::try_from(n).ok().and_then(char::from_u32);
            let s = match c {
                Some(c) if spec.sharp => sharp_u(c),
                _ => format!("U+{:04X}", n),
            };
            pad(out, &s, spec);
            return;
        }
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 's' | 't' => {
            bad_verb(out, v, verb, spec);
            return;
        }
        _ => {
            bad_verb(out, v, verb, spec);
            return;
        }
    };
    // Precision is the minimum number of digits; a zero with a precision of 0 is only the
    // padding, without sign or prefix.
    if spec.precision == Some(0) && n == 0 {
        let blank = Spec {
            zero: false,
            ..spec.clone()
        };
        pad(out, "", &blank);
        return;
    }
    let body = match spec.precision {
        Some(p) if body.len() < p => format!("{}{body}", "0".repeat(p - body.len())),
        _ => body,
    };
    // `#` gives octal a leading zero where the digits have none; `%O` always has `0o`.
    let octal_zero = spec.sharp && !body.starts_with('0');
    let prefix = match (spec.sharp, verb) {
        (true, 'x') => "0x",
        (true, 'X') => "0X",
        (true, 'o') if octal_zero => "0",
        (true, 'b') => "0b",
        (_, 'O') if octal_zero => "0o0",
        (_, 'O') => "0o",
        _ => "",
    };
    let sign = if n < 0 {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    };
    let text = format!("{sign}{prefix}{body}");
    let zero_pad_ok = spec.precision.is_none();
    let spec = Spec {
        zero: spec.zero && zero_pad_ok,
        ..spec.clone()
    };
    pad_number(out, &text, &spec);
}

/// Go's `fmt` refuses widths and precisions over a million.
fn too_large(n: i64) -> bool {
    !(-1_000_000..=1_000_000).contains(&n)
}

/// Go's `parsenum`: the digits at `i`; a number growing too large ends the whole format
/// (so the verb is missing, as in Go).
fn parse_num(chars: &[char], i: &mut usize) -> Option<usize> {
    let mut num: i64 = 0;
    let mut any = false;
    while *i < chars.len() && chars[*i].is_ascii_digit() {
        if too_large(num) {
            *i = chars.len();
            return None;
        }
        num = num * 10 + i64::from(chars[*i] as u8 - b'0');
        any = true;
        *i += 1;
    }
    any.then_some(num as usize)
}

/// Pads text with spaces to the width (left or right).
fn pad(out: &mut String, text: &str, spec: &Spec) {
    let len = text.chars().count();
    match spec.width {
        Some(w) if w > len => {
            let fill = if spec.zero && !spec.minus { '0' } else { ' ' };
            if spec.minus {
                out.push_str(text);
                out.extend(std::iter::repeat_n(' ', w - len));
            } else {
                out.extend(std::iter::repeat_n(fill, w - len));
                out.push_str(text);
            }
        }
        _ => out.push_str(text),
    }
}

/// Pads a number: zero padding goes after the sign.
fn pad_number(out: &mut String, text: &str, spec: &Spec) {
    let len = text.chars().count();
    match spec.width {
        Some(w)
            if w > len
                && spec.zero
                && !spec.minus
                && !text.ends_with("Inf")
                && !text.ends_with("NaN") =>
        {
            let (sign, rest) = match text.chars().next() {
                Some(c @ ('-' | '+' | ' ')) => (c.to_string(), &text[1..]),
                _ => (String::new(), text),
            };
            out.push_str(&sign);
            out.extend(std::iter::repeat_n('0', w - len));
            out.push_str(rest);
        }
        _ => pad(
            out,
            text,
            &Spec {
                zero: false,
                ..spec.clone()
            },
        ),
    }
}

/// How Go prints NaN and the infinities (`None` for a finite float).
fn non_finite(f: f64) -> Option<String> {
    if f.is_nan() {
        Some("NaN".into())
    } else if f.is_infinite() {
        Some(if f > 0.0 { "+Inf" } else { "-Inf" }.into())
    } else {
        None
    }
}

/// strconv.FormatFloat with `'e'`, `'E'`, `'f'`, `'g'`, `'G'` and Go's shortest digits when
/// there is no precision.
pub fn format_float(f: f64, verb: char, precision: Option<usize>, sharp: bool) -> String {
    if let Some(special) = non_finite(f) {
        return special;
    }
    let upper = verb.is_ascii_uppercase();
    let s = match verb.to_ascii_lowercase() {
        'e' => {
            let p = precision.unwrap_or(6);
            go_exp(&format!("{:.*e}", p, f))
        }
        'f' => format!("{:.*}", precision.unwrap_or(6), f),
        // The shortest form is the one the YAML emitter writes too.
        _ if precision.is_none() && !sharp => crate::yaml::format_g(f),
        _ => format_g(f, precision, sharp),
    };
    if upper {
        s.to_uppercase()
    } else {
        s
    }
}

/// Go's `%#U`: the code point, and the character quoted when it is printable.
pub fn sharp_u(c: char) -> String {
    if is_printable(c) {
        format!("U+{:04X} '{c}'", c as u32)
    } else {
        format!("U+{:04X}", c as u32)
    }
}

/// strconv's `'b'` format of a float (`%b`): the integer mantissa and the binary exponent,
/// `4503599627370496p-51` for 2 (precision does not apply).
fn binary_float(f: f64) -> String {
    if let Some(special) = non_finite(f) {
        return special;
    }
    let bits = f.to_bits();
    let sign = if bits >> 63 == 1 { "-" } else { "" };
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let fraction = bits & ((1u64 << 52) - 1);
    // A subnormal (or zero) has the smallest exponent and no implicit leading bit.
    let (mantissa, exp) = match biased {
        0 => (fraction, 1 - 1023 - 52),
        e => (fraction | 1u64 << 52, e - 1023 - 52),
    };
    let exp_sign = if exp >= 0 { "+" } else { "" };
    format!("{sign}{mantissa}p{exp_sign}{exp}")
}

/// `%x` of a float: `0x1.ap+01` (the shortest hex mantissa, or `precision` hex digits).
/// fmt's `#` flag on a `%x` or `%X` float (`fmtFloat`): a decimal point always, and for `%x`
/// zeros up to the precision (6 without one) counted, as Go counts them, from the first digit
/// that is not `0` — which the `x` of the prefix already is.
fn sharp_hex_float(text: &str, precision: Option<usize>, verb: char) -> String {
    let (num, tail) = text.split_at(text.find('p').unwrap_or(text.len()));
    // Go pads `%#x` only: its switch of verbs that take digits has no `X`.
    let mut digits = match verb {
        'x' => precision.map_or(6, |p| p as i64),
        _ => 0,
    };
    let mut nonzero = false;
    for c in num.chars().skip(1) {
        if c == '.' {
            continue;
        }
        nonzero |= c != '0';
        if nonzero {
            digits -= 1;
        }
    }
    let mut out = num.to_string();
    if !num.contains('.') {
        out.push('.');
    }
    for _ in 0..digits.max(0) {
        out.push('0');
    }
    out.push_str(tail);
    out
}

fn hex_float(f: f64, precision: Option<usize>) -> String {
    if let Some(special) = non_finite(f) {
        return special;
    }
    let sign = if f.is_sign_negative() { "-" } else { "" };
    if f == 0.0 {
        return match precision {
            Some(p) if p > 0 => format!("{sign}0x0.{}p+00", "0".repeat(p)),
            _ => format!("{sign}0x0p+00"),
        };
    }
    let bits = f.abs().to_bits();
    let mut exp = ((bits >> 52) & 0x7ff) as i64;
    let mut mantissa = bits & ((1u64 << 52) - 1);
    if exp == 0 {
        // Subnormal: normalise.
        let shift = mantissa.leading_zeros() as i64 - 11;
        mantissa = (mantissa << shift) & ((1u64 << 52) - 1);
        exp = 1 - shift;
    }
    let mut exp = exp - 1023;
    let mut lead = 1u64;
    let mut digits = format!("{mantissa:013x}");
    if let Some(p) = precision.filter(|p| *p < 13) {
        // Round to p hex digits, half to even.
        let keep = 4 * p as u32;
        let full = (1u64 << 52) | mantissa;
        let shift = 52 - keep;
        let mut kept = full >> shift;
        let rest = full & ((1u64 << shift) - 1);
        let half = 1u64 << (shift - 1);
        if rest > half || (rest == half && kept & 1 == 1) {
            kept += 1;
        }
        lead = kept >> keep;
        if lead > 1 {
            lead = 1;
            exp += 1;
            kept >>= 1;
        }
        let frac = kept & ((1u64 << keep) - 1);
        digits = if p == 0 {
            String::new()
        } else {
            format!("{frac:0width$x}", width = p)
        };
    } else if let Some(p) = precision {
        while digits.len() < p {
            digits.push('0');
        }
    } else {
        while digits.ends_with('0') {
            digits.pop();
        }
    }
    let e = if exp < 0 {
        format!("-{:02}", -exp)
    } else {
        format!("+{exp:02}")
    };
    if digits.is_empty() {
        format!("{sign}0x{lead}p{e}")
    } else {
        format!("{sign}0x{lead}.{digits}p{e}")
    }
}

/// Rust's `1.5e-7` exponent as Go writes it: `1.5e-07`.
fn go_exp(rust: &str) -> String {
    let (mantissa, exp) = rust.split_once('e').unwrap_or((rust, "0"));
    let (sign, digits) = match exp.strip_prefix('-') {
        Some(d) => ('-', d),
        None => ('+', exp),
    };
    let digits = if digits.len() < 2 {
        format!("0{digits}")
    } else {
        digits.to_string()
    };
    format!("{mantissa}e{sign}{digits}")
}

/// `%g`: shortest digits (or `precision` significant digits), exponent form when the exponent
/// is below -4 or at least the precision (6 for the shortest form, as strconv does).
fn format_g(f: f64, precision: Option<usize>, sharp: bool) -> String {
    let (digits, exp) = decimal_digits(f, precision);
    let negative = f.is_sign_negative();
    let eprec = match precision {
        None => 6,
        Some(p) => {
            let p = p.max(1);
            if p > digits.len() && digits.len() as i32 > exp {
                digits.len()
            } else {
                p
            }
        }
    };
    let mut digits = digits;
    if sharp {
        let want = precision.unwrap_or(6).max(1);
        while digits.len() < want {
            digits.push('0');
        }
    }
    let sign = if negative { "-" } else { "" };
    if exp < -4 || exp >= eprec as i32 {
        let mut m = digits[..1].to_string();
        if digits.len() > 1 {
            m.push('.');
            m.push_str(&digits[1..]);
        } else if sharp {
            m.push('.');
        }
        let e = if exp < 0 {
            format!("-{:02}", -exp)
        } else {
            format!("+{exp:02}")
        };
        format!("{sign}{m}e{e}")
    } else if exp < 0 {
        format!("{sign}0.{}{digits}", "0".repeat((-exp - 1) as usize))
    } else {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            let mut s = format!("{sign}{digits}{}", "0".repeat(int_len - digits.len()));
            if sharp {
                s.push('.');
            }
            s
        } else {
            format!("{sign}{}.{}", &digits[..int_len], &digits[int_len..])
        }
    }
}

/// The significant digits of |f| (shortest round-trip, or rounded to `precision` digits) and
/// the decimal exponent of the first one.
fn decimal_digits(f: f64, precision: Option<usize>) -> (String, i32) {
    let f = f.abs();
    if f == 0.0 {
        return ("0".into(), 0);
    }
    let text = match precision {
        None => format!("{f:e}"),
        Some(p) => format!("{:.*e}", p.max(1) - 1, f),
    };
    let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
    let mut digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    if precision.is_some() {
        while digits.len() > 1 && digits.ends_with('0') {
            digits.pop();
        }
    }
    (digits, exp.parse().unwrap_or(0))
}

use crate::go::strconv::is_printable;
/// strconv.Quote of a Go string: each byte that is not UTF-8 as `\xNN`.
pub fn go_quote(s: &str) -> String {
    crate::go::strconv::quote_bytes(&super::gostr::to_bytes(s))
}

/// strconv.QuoteRune.
pub(crate) fn go_quote_rune(c: char) -> String {
    match c {
        // A rune of the range Go strings' stray bytes are carried in (see `gostr`): never
        // printable, so Go writes its number.
        _ if super::gostr::is_carried(c) => format!("'\\U{:08x}'", c as u32),
        '\'' => "'\\''".into(),
        '"' => "'\"'".into(),
        _ => {
            let q = go_quote(&c.to_string());
            format!("'{}'", &q[1..q.len() - 1])
        }
    }
}

/// strconv.QuoteRuneToASCII.
fn go_quote_rune_ascii(c: char) -> String {
    let quoted = go_quote_rune(c);
    if c.is_ascii() || super::gostr::is_carried(c) {
        return quoted;
    }
    let q = go_quote_ascii(&c.to_string());
    format!("'{}'", &q[1..q.len() - 1])
}

/// strconv.QuoteToASCII.
fn go_quote_ascii(s: &str) -> String {
    let q = go_quote(s);
    let mut out = String::with_capacity(q.len());
    for c in q.chars() {
        match c as u32 {
            0..=0x7f => out.push(c),
            n if n < 0x10000 => out.push_str(&format!("\\u{n:04x}")),
            n => out.push_str(&format!("\\U{n:08x}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_go_prints_them() {
        let cases = [
            (3.25, "3.25"),
            (123456789012.0, "1.23456789012e+11"),
            (2.0, "2"),
            (0.1, "0.1"),
            (1e21, "1e+21"),
            (100000000.0, "1e+08"),
            (1.5e-7, "1.5e-07"),
            (123456.0, "123456"),
            (1234567.0, "1.234567e+06"),
            (-0.5, "-0.5"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
        ];
        for (f, want) in cases {
            assert_eq!(format_float_shortest(f), want, "{f}");
        }
    }

    #[test]
    fn printf_verbs() {
        let l = Value::list(vec!["a".into(), "b".into()]);
        assert_eq!(
            sprintf(
                "%v %q %d %s %5.2f %x %t %v",
                &[
                    "hello".into(),
                    "hello".into(),
                    42.into(),
                    "hello".into(),
                    2.71999.into(),
                    255.into(),
                    true.into(),
                    l
                ]
            ),
            "hello \"hello\" 42 hello  2.72 ff true [a b]"
        );
        assert_eq!(sprintf("%d", &[2.0.into()]), "%!d(float64=2)");
        assert_eq!(sprintf("%s %s", &["a".into()]), "a %!s(MISSING)");
        assert_eq!(sprintf("%s", &["a".into(), 1.into()]), "a%!(EXTRA int=1)");
        assert_eq!(
            sprintf(
                "%05d|%-4d|%+d|%x",
                &[42.into(), 7.into(), 3.into(), "hi".into()]
            ),
            "00042|7   |+3|6869"
        );
        assert_eq!(
            sprintf(
                "%.3g %g %e %E",
                &[2.71999.into(), 1e-7.into(), 1234.5678.into(), 0.0.into()]
            ),
            "2.72 1e-07 1.234568e+03 0.000000E+00"
        );
        assert_eq!(sprintf("100%%", &[]), "100%");
    }

    #[test]
    fn sprint_spaces_between_non_strings() {
        assert_eq!(
            sprint(&[
                1.into(),
                2.into(),
                "a".into(),
                "b".into(),
                3.into(),
                Value::Nil
            ]),
            "1 2ab3 <nil>"
        );
        assert_eq!(sprintln(&[1.into(), "a".into()]), "1 a\n");
    }
}
