//! sprig's date functions on a `time.Time` value (in UTC, the local zone of `helm template` in
//! CI; `dateInZone` formats in the zone it names, [`crate::go::zoneinfo`]): Go's layout
//! formatting and parsing, `date`, `dateInZone`, `toDate`, `dateModify`,
//! `unixEpoch`, `duration`, `durationRound`, and the methods templates call on a time.

use super::super::gostr;
use super::super::value::{Object, ObjectRef, Value};
pub(super) use crate::go::civil::{civil_from_days, days_from_civil};
use crate::go::zoneinfo::Zone;
use std::sync::Arc;

/// A `time.Time` in UTC: seconds since the Unix epoch and nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Time {
    pub unix: i64,
    pub nanos: u32,
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// Go's `daysIn`: the days of a month (1-12) in a year.
fn days_in_month(year: i64, month: i64) -> i64 {
    days_from_civil(year + month / 12, month % 12 + 1, 1) - days_from_civil(year, month, 1)
}

/// The zero time, `0001-01-01 00:00:00 +0000 UTC`.
pub const ZERO: Time = Time {
    unix: -62135596800,
    nanos: 0,
};

struct Parts {
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
    weekday: usize,
    yearday: i64,
}

impl Time {
    fn parts(&self) -> Parts {
        self.parts_at(0)
    }

    /// The civil fields at `offset` seconds east of UTC.
    fn parts_at(&self, offset: i64) -> Parts {
        let local = self.unix + offset;
        let days = local.div_euclid(86400);
        let secs = local.rem_euclid(86400);
        let (year, month, day) = civil_from_days(days);
        Parts {
            year,
            month,
            day,
            hour: secs / 3600,
            minute: secs % 3600 / 60,
            second: secs % 60,
            weekday: (days + 4).rem_euclid(7) as usize,
            yearday: days - days_from_civil(year, 1, 1) + 1,
        }
    }

    /// time.Format with a Go layout, in UTC.
    pub fn format(&self, layout: &str) -> String {
        self.format_in(layout, &Zone::utc())
    }

    /// `t.In(loc).Format(layout)` for the zone in effect at `t` in `loc`.
    pub fn format_in(&self, layout: &str, zone: &Zone) -> String {
        let p = self.parts_at(zone.offset);
        let mut out = String::new();
        let mut rest = layout;
        while !rest.is_empty() {
            let (chunk, len) = std_chunk(rest);
            match chunk {
                Some(c) => {
                    out.push_str(&self.chunk(c, &p, &rest[..len], zone));
                    rest = &rest[len..];
                }
                None => {
                    let ch = rest.chars().next().expect("not empty");
                    out.push(ch);
                    rest = &rest[ch.len_utf8()..];
                }
            }
        }
        out
    }

    fn chunk(&self, c: &str, p: &Parts, raw: &str, zone: &Zone) -> String {
        match c {
            "2006" => format!("{:04}", p.year),
            "06" => format!("{:02}", p.year.rem_euclid(100)),
            "01" => format!("{:02}", p.month),
            "1" => p.month.to_string(),
            "January" => MONTHS[(p.month - 1) as usize].to_string(),
            "Jan" => MONTHS[(p.month - 1) as usize][..3].to_string(),
            "02" => format!("{:02}", p.day),
            "_2" => format!("{:>2}", p.day),
            "2" => p.day.to_string(),
            "002" => format!("{:03}", p.yearday),
            "15" => format!("{:02}", p.hour),
            "03" => format!("{:02}", (p.hour + 11) % 12 + 1),
            "3" => ((p.hour + 11) % 12 + 1).to_string(),
            "04" => format!("{:02}", p.minute),
            "4" => p.minute.to_string(),
            "05" => format!("{:02}", p.second),
            "5" => p.second.to_string(),
            "PM" => if p.hour >= 12 { "PM" } else { "AM" }.to_string(),
            "pm" => if p.hour >= 12 { "pm" } else { "am" }.to_string(),
            "Monday" => DAYS[p.weekday].to_string(),
            "Mon" => DAYS[p.weekday][..3].to_string(),
            "MST" if !zone.name.is_empty() => zone.name.clone(),
            "MST" => numeric_zone(zone.offset, false, true, false),
            "Z07:00" | "Z0700" | "Z07" | "Z07:00:00" if zone.offset == 0 => "Z".to_string(),
            "Z07:00" | "-07:00" => numeric_zone(zone.offset, true, true, false),
            "Z0700" | "-0700" => numeric_zone(zone.offset, false, true, false),
            "Z07" | "-07" => numeric_zone(zone.offset, false, false, false),
            "Z07:00:00" | "-07:00:00" => numeric_zone(zone.offset, true, true, true),
            frac if frac.starts_with(['.', ',']) => {
                let digits = raw.len() - 1;
                let all = format!("{:09}", self.nanos);
                if raw.as_bytes()[1] == b'9' {
                    let trimmed = all[..digits].trim_end_matches('0');
                    if trimmed.is_empty() {
                        String::new()
                    } else {
                        format!("{}{trimmed}", &raw[..1])
                    }
                } else {
                    format!("{}{}", &raw[..1], &all[..digits])
                }
            }
            other => other.to_string(),
        }
    }

    /// time.Parse with a Go layout (UTC unless the value gives an offset).
    pub fn parse(layout: &str, value: &str) -> Result<Time, String> {
        let err = |what: &str, rest: &str| {
            format!(
                "parsing time {} as {}: cannot parse {} as {}",
                time_quote(value),
                time_quote(layout),
                time_quote(rest),
                time_quote(what)
            )
        };
        let (mut year, mut month, mut day, mut hour, mut minute, mut second) =
            (1i64, 1i64, 1i64, 0i64, 0i64, 0i64);
        let mut pm: Option<bool> = None;
        let mut offset = 0i64;
        let mut nanos = 0u32;
        let mut l = layout;
        let mut v = value;
        let num = |v: &mut &str, min: usize, max: usize| -> Option<i64> {
            let n = v
                .bytes()
                .take(max)
                .take_while(|b| b.is_ascii_digit())
                .count();
            if n < min {
                return None;
            }
            let x = v[..n].parse().ok()?;
            *v = &v[n..];
            Some(x)
        };
        while !l.is_empty() {
            let (chunk, len) = std_chunk(l);
            let Some(c) = chunk else {
                // Go's `skip` of the literal text up to the next element: a space matches any
                // run of spaces; the error names that whole text and the value where it failed.
                let literal = l
                    .char_indices()
                    .find(|&(i, _)| std_chunk(&l[i..]).0.is_some())
                    .map_or(l, |(i, _)| &l[..i]);
                let mut prefix = literal;
                while let Some(p) = prefix.chars().next() {
                    if p == ' ' {
                        if v.starts_with(|c: char| c != ' ') {
                            return Err(err(literal, v));
                        }
                        prefix = prefix.trim_start_matches(' ');
                        v = v.trim_start_matches(' ');
                        continue;
                    }
                    if !v.starts_with(p) {
                        return Err(err(literal, v));
                    }
                    prefix = &prefix[p.len_utf8()..];
                    v = &v[p.len_utf8()..];
                }
                l = &l[literal.len()..];
                continue;
            };
            let before = v;
            let ok = match c {
                "2006" => num(&mut v, 4, 4).map(|x| year = x),
                "06" => num(&mut v, 2, 2).map(|x| year = if x >= 69 { 1900 + x } else { 2000 + x }),
                "01" => num(&mut v, 2, 2).map(|x| month = x),
                "1" => num(&mut v, 1, 2).map(|x| month = x),
                "02" => num(&mut v, 2, 2).map(|x| day = x),
                "2" | "_2" => {
                    v = v.trim_start_matches(' ');
                    num(&mut v, 1, 2).map(|x| day = x)
                }
                // Go's `getnum`: a zero-padded element wants two digits, the others one or two.
                "15" | "3" => num(&mut v, 1, 2).map(|x| hour = x),
                "03" => num(&mut v, 2, 2).map(|x| hour = x),
                "04" => num(&mut v, 2, 2).map(|x| minute = x),
                "4" => num(&mut v, 1, 2).map(|x| minute = x),
                "05" | "5" => num(&mut v, if c == "05" { 2 } else { 1 }, 2).map(|x| {
                    second = x;
                    // A fraction the layout does not have is read after the seconds.
                    let fraction_next = std_chunk(&l[len..])
                        .0
                        .is_some_and(|n| n.starts_with(['.', ',']));
                    let b = v.as_bytes();
                    if b.len() >= 2
                        && matches!(b[0], b'.' | b',')
                        && b[1].is_ascii_digit()
                        && !fraction_next
                    {
                        let digits = v[1..].bytes().take_while(|b| b.is_ascii_digit()).count();
                        nanos = format!("{:0<9}", &v[1..1 + digits.min(9)])
                            .parse()
                            .unwrap_or(0);
                        v = &v[1 + digits..];
                    }
                }),
                "PM" | "pm" => {
                    let s = v.get(..2).unwrap_or("").to_ascii_uppercase();
                    v = v.get(2..).unwrap_or("");
                    match s.as_str() {
                        "PM" => {
                            pm = Some(true);
                            Some(())
                        }
                        "AM" => {
                            pm = Some(false);
                            Some(())
                        }
                        _ => None,
                    }
                }
                "January" | "Jan" => MONTHS
                    .iter()
                    .position(|m| {
                        let name = if c == "Jan" { &m[..3] } else { m };
                        v.starts_with(name)
                    })
                    .map(|i| {
                        let name_len = if c == "Jan" { 3 } else { MONTHS[i].len() };
                        v = &v[name_len..];
                        month = i as i64 + 1;
                    }),
                "Monday" | "Mon" => DAYS
                    .iter()
                    .find(|d| v.starts_with(if c == "Mon" { &d[..3] } else { *d }))
                    .map(|d| {
                        v = &v[if c == "Mon" { 3 } else { d.len() }..];
                    }),
                "MST" => {
                    let n = v.bytes().take_while(|b| b.is_ascii_uppercase()).count();
                    (n >= 3).then(|| v = &v[n..])
                }
                z if z.starts_with('Z') || z.starts_with('-') => {
                    if z.starts_with('Z') && v.starts_with('Z') {
                        v = &v[1..];
                        Some(())
                    } else {
                        // The offset's length and where its hours, minutes and seconds are,
                        // by the element's form (`-07:00`, `-07`, `-07:00:00`, `-0700`).
                        let b = v.as_bytes();
                        let colon = |i: usize| b.get(i) == Some(&b':');
                        // After the sign: hours at byte 1, then minutes and seconds where the
                        // form puts them (`(length, minutes, seconds)`).
                        let form: Option<(usize, Option<usize>, Option<usize>)> =
                            match z.trim_start_matches(['Z', '-']) {
                                "07:00" => (b.len() >= 6 && colon(3)).then_some((6, Some(4), None)),
                                "07" => (b.len() >= 3).then_some((3, None, None)),
                                "07:00:00" => (b.len() >= 9 && colon(3) && colon(6)).then_some((
                                    9,
                                    Some(4),
                                    Some(7),
                                )),
                                _ => (b.len() >= 5).then_some((5, Some(3), None)),
                            };
                        let two = |i: Option<usize>| match i {
                            None => Some(0),
                            Some(i) => match (b.get(i), b.get(i + 1)) {
                                (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                                    Some(i64::from(x - b'0') * 10 + i64::from(y - b'0'))
                                }
                                _ => None,
                            },
                        };
                        match form {
                            None => None,
                            Some((n, m, sec)) => match (two(Some(1)), two(m), two(sec)) {
                                (Some(hh), Some(mm), Some(ss)) => {
                                    // Go's range test, the last failing one named.
                                    let range = if ss > 60 {
                                        Some("time zone offset second")
                                    } else if mm > 60 {
                                        Some("time zone offset minute")
                                    } else if hh > 24 {
                                        Some("time zone offset hour")
                                    } else {
                                        None
                                    };
                                    if let Some(what) = range {
                                        return Err(format!(
                                            "parsing time {}: {what} out of range",
                                            time_quote(value)
                                        ));
                                    }
                                    let sign = match b[0] {
                                        b'+' => 1,
                                        b'-' => -1,
                                        _ => 0,
                                    };
                                    (sign != 0).then(|| {
                                        v = &v[n..];
                                        offset = sign * (hh * 3600 + mm * 60 + ss);
                                    })
                                }
                                _ => None,
                            },
                        }
                    }
                }
                frac if frac.starts_with(['.', ',']) => {
                    if v.starts_with(['.', ',']) {
                        let digits = v[1..].bytes().take_while(|b| b.is_ascii_digit()).count();
                        let text = format!("{:0<9}", &v[1..1 + digits.min(9)]);
                        nanos = text.parse().unwrap_or(0);
                        v = &v[1 + digits..];
                    }
                    Some(())
                }
                _ => None,
            };
            if ok.is_none() {
                return Err(err(&l[..len], before));
            }
            l = &l[len..];
        }
        if !v.is_empty() {
            return Err(format!(
                "parsing time {}: extra text: {}",
                time_quote(value),
                time_quote(v)
            ));
        }
        // Go's range checks: a field outside its range, then a day its month lacks.
        let twelve_hour = pm.is_some();
        let out_of_range = [
            ("month", !(1..=12).contains(&month)),
            ("day", !(0..=31).contains(&day)),
            (
                "hour",
                !(0..if twelve_hour { 13 } else { 24 }).contains(&hour),
            ),
            ("minute", !(0..60).contains(&minute)),
            ("second", !(0..60).contains(&second)),
        ]
        .into_iter()
        .find(|(_, bad)| *bad)
        .map(|(what, _)| what)
        .or_else(|| (day < 1 || day > days_in_month(year, month)).then_some("day"));
        if let Some(what) = out_of_range {
            return Err(format!(
                "parsing time {}: {what} out of range",
                time_quote(value)
            ));
        }
        if let Some(pm) = pm {
            hour = hour % 12 + if pm { 12 } else { 0 };
        }
        let days = days_from_civil(year, month, day);
        Ok(Time {
            unix: days * 86400 + hour * 3600 + minute * 60 + second - offset,
            nanos,
        })
    }

    /// Go's `Time.String`.
    pub fn text(&self) -> String {
        self.format("2006-01-02 15:04:05.999999999 -0700 MST")
    }

    pub fn value(self) -> Value {
        Value::Object(ObjectRef(Arc::new(self)))
    }
}

/// An offset as Go's numeric zone elements write it: `±hh[:mm[:ss]]`.
fn numeric_zone(offset: i64, colon: bool, minutes: bool, seconds: bool) -> String {
    let sign = if offset < 0 { '-' } else { '+' };
    let abs = offset.abs();
    let mut out = format!("{sign}{:02}", abs / 3600);
    let sep = if colon { ":" } else { "" };
    if minutes {
        out.push_str(&format!("{sep}{:02}", abs / 60 % 60));
    }
    if seconds {
        out.push_str(&format!("{sep}{:02}", abs % 60));
    }
    out
}

/// Go's `nextStdChunk`: the layout element at the start of `s` (and its length), if any.
fn std_chunk(s: &str) -> (Option<&'static str>, usize) {
    const CHUNKS: &[&str] = &[
        "January",
        "Jan",
        "Monday",
        "Mon",
        "MST",
        "2006",
        "002",
        "01",
        "02",
        "03",
        "04",
        "05",
        "06",
        "15",
        "_2",
        "Z07:00:00",
        "Z07:00",
        "Z0700",
        "Z07",
        "-07:00:00",
        "-07:00",
        "-0700",
        "-07",
        "PM",
        "pm",
        "1",
        "2",
        "3",
        "4",
        "5",
    ];
    if s.starts_with(['.', ',']) {
        let b = s.as_bytes();
        if b.len() > 1 && (b[1] == b'0' || b[1] == b'9') {
            let digit = b[1];
            let n = b[1..].iter().take_while(|&&c| c == digit).count();
            // A fractional second only when no digit follows.
            if !b.get(1 + n).is_some_and(|c| c.is_ascii_digit()) {
                return (Some(if digit == b'0' { ".0" } else { ".9" }), 1 + n);
            }
        }
    }
    for c in CHUNKS {
        if s.starts_with(c) {
            // `Jan` inside `January`-like words and digits glued to digits are literal in Go;
            // the common layouts never need that distinction.
            return (Some(c), c.len());
        }
    }
    (None, 0)
}

impl Object for Time {
    fn type_name(&self) -> &'static str {
        "time.Time"
    }

    fn kind_name(&self) -> &'static str {
        "struct"
    }

    fn text(&self) -> String {
        Time::text(self)
    }

    fn call(&self, method: &str, args: &[Value]) -> Option<Result<Value, String>> {
        let p = self.parts();
        Some(Ok(match method {
            "Year" => Value::Int(p.year),
            "Month" => Value::str(MONTHS[(p.month - 1) as usize]),
            "Day" => Value::Int(p.day),
            "Hour" => Value::Int(p.hour),
            "Minute" => Value::Int(p.minute),
            "Second" => Value::Int(p.second),
            "Weekday" => Value::str(DAYS[p.weekday]),
            "YearDay" => Value::Int(p.yearday),
            "Unix" => Value::Int64(self.unix),
            "UTC" | "Local" => self.value(),
            "String" => Value::str(self.text()),
            "Format" => match args.first().and_then(Value::as_str) {
                Some(layout) => Value::str(self.format(layout)),
                None => return Some(Err("wrong number of args for Format: want 1 got 0".into())),
            },
            _ => return None,
        }))
    }
}

/// A time argument as sprig's `date` takes it: a time, or Unix seconds as int or int64.
pub fn time_of(v: &Value) -> Time {
    match v {
        Value::Object(o) if o.0.type_name() == "time.Time" => {
            Time::parse("2006-01-02 15:04:05.999999999 -0700 MST", &o.0.text()).unwrap_or(ZERO)
        }
        Value::Int(i) | Value::Int64(i) => Time { unix: *i, nanos: 0 },
        _ => {
            let since = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            Time {
                unix: since.as_secs() as i64,
                nanos: since.subsec_nanos(),
            }
        }
    }
}

/// The `time` package's `quote` for its errors: between double quotes, `"` and `\\`
/// escaped, and every byte of a character outside printable ASCII as a lower-case `\\xNN`.
fn time_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if gostr::is_carried(c) {
            out.push_str(&format!(
                "\\x{:02x}",
                gostr::to_bytes(c.encode_utf8(&mut [0; 4]))[0]
            ));
        } else if !(' '..'\u{80}').contains(&c) {
            for b in c.encode_utf8(&mut [0; 4]).bytes() {
                out.push_str(&format!("\\x{b:02x}"));
            }
        } else {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
    }
    out.push('"');
    out
}

/// time.ParseDuration, in nanoseconds.
pub fn parse_duration(s: &str) -> Result<i64, String> {
    let bad = || format!("time: invalid duration {}", time_quote(s));
    let (neg, mut rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(bad());
    }
    let mut total = 0f64;
    while !rest.is_empty() {
        let n = rest
            .bytes()
            .take_while(|b| b.is_ascii_digit() || *b == b'.')
            .count();
        if n == 0 {
            return Err(bad());
        }
        let value: f64 = rest[..n].parse().map_err(|_| bad())?;
        rest = &rest[n..];
        let u = rest
            .bytes()
            .take_while(|b| !(b.is_ascii_digit() || *b == b'.'))
            .count();
        let unit = match &rest[..u] {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return Err(bad()),
        };
        rest = &rest[u..];
        total += value * unit;
    }
    Ok(if neg { -(total as i64) } else { total as i64 })
}

/// Go's `Duration.String` for nanoseconds.
pub fn duration_string(ns: i64) -> String {
    if ns == 0 {
        return "0s".into();
    }
    let neg = ns < 0;
    let u = ns.unsigned_abs();
    let mut out = String::new();
    if u < 1_000_000_000 {
        let (v, unit) = if u < 1_000 {
            (u as f64, "ns")
        } else if u < 1_000_000 {
            (u as f64 / 1e3, "µs")
        } else {
            (u as f64 / 1e6, "ms")
        };
        out.push_str(&format!(
            "{}{unit}",
            super::super::fmt::format_float_shortest(v)
        ));
    } else {
        let h = u / 3_600_000_000_000;
        let m = u / 60_000_000_000 % 60;
        let s = (u % 60_000_000_000) as f64 / 1e9;
        if h > 0 {
            out.push_str(&format!("{h}h"));
        }
        if h > 0 || m > 0 {
            out.push_str(&format!("{m}m"));
        }
        out.push_str(&format!("{}s", super::super::fmt::format_float_shortest(s)));
    }
    if neg {
        format!("-{out}")
    } else {
        out
    }
}

/// sprig's `durationRound`.
pub fn duration_round(v: &Value) -> String {
    let d: i64 = match v {
        Value::String(s) => parse_duration(s).unwrap_or(0),
        Value::Int64(i) => *i,
        _ => 0,
    };
    let u = d.unsigned_abs();
    let (second, minute, hour) = (1_000_000_000u64, 60_000_000_000u64, 3_600_000_000_000u64);
    let (day, month, year) = (hour * 24, hour * 24 * 30, hour * 24 * 365);
    let out = if u > year {
        format!("{}y", u / year)
    } else if u > month {
        format!("{}mo", u / month)
    } else if u > day {
        format!("{}d", u / day)
    } else if u > hour {
        format!("{}h", u / hour)
    } else if u > minute {
        format!("{}m", u / minute)
    } else if u > second {
        format!("{}s", u / second)
    } else {
        return "0s".into();
    };
    if d < 0 {
        format!("-{out}")
    } else {
        out
    }
}
