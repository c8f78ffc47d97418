//! sprig's date functions on a `time.Time` value (`date` formats in the local zone, UTC as for
//! `helm template` in CI; `dateInZone` in the zone it names, [`crate::go::zoneinfo`]; a time
//! `toDate` parsed with an offset keeps it): Go's layout formatting and parsing, `date`,
//! `dateInZone`, `toDate`, `dateModify`, `unixEpoch`, `duration`, `durationRound`, and the
//! methods templates call on a time.

use super::super::gostr;
use super::super::value::{Object, ObjectRef, Value};
pub(super) use crate::go::civil::{civil_from_days, days_from_civil};
use crate::go::zoneinfo::Zone;
use std::sync::Arc;

/// A `time.Time`: seconds since the Unix epoch, nanoseconds, and the location it is shown in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Time {
    pub unix: i64,
    pub nanos: u32,
    pub place: Place,
}

/// A time's location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// `time.UTC`, and `time.Local` as `helm template` has it where `TZ` is `UTC` (named
    /// `UTC` too): `now`, a parsed time without a zone or with the local zone's.
    Utc,
    /// A zone `time.Parse` makes up for an offset or an abbreviation the local zone does not
    /// have (Go's `FixedZone`).
    Fixed(Arc<Zone>),
}

impl Place {
    /// Seconds east of UTC.
    fn offset(&self) -> i64 {
        match self {
            Place::Utc => 0,
            Place::Fixed(zone) => zone.offset,
        }
    }

    fn zone(&self) -> Zone {
        match self {
            Place::Utc => Zone::utc(),
            Place::Fixed(zone) => Zone::clone(zone),
        }
    }

    /// `Location.String()`.
    fn name(&self) -> &str {
        match self {
            Place::Utc => "UTC",
            Place::Fixed(zone) => &zone.name,
        }
    }
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
    place: Place::Utc,
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
    /// A UTC time.
    pub fn utc(unix: i64, nanos: u32) -> Time {
        Time {
            unix,
            nanos,
            place: Place::Utc,
        }
    }

    /// The same instant in another place.
    pub fn at(&self, place: Place) -> Time {
        Time {
            place,
            ..self.clone()
        }
    }

    /// The civil fields where the time is shown.
    fn parts(&self) -> Parts {
        self.parts_at(self.place.offset())
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

    /// `time.Format` with a Go layout, in the time's own location.
    pub fn format(&self, layout: &str) -> String {
        self.format_in(layout, &self.place.zone())
    }

    /// The time formatted in the local zone (UTC here), as sprig's `date` formats it.
    pub fn format_local(&self, layout: &str) -> String {
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

    /// `time.Parse` with a Go layout: UTC unless the value gives an offset or a zone name,
    /// which the time keeps (as the local zone when it is the local zone's).
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
        // A year the layout does not have is year 0.
        let (mut year, mut month, mut day, mut hour, mut minute, mut second) =
            (0i64, 1i64, 1i64, 0i64, 0i64, 0i64);
        let mut pm: Option<bool> = None;
        // Go's `z`, `zoneOffset` and `zoneName`.
        let mut utc = false;
        let mut offset: Option<i64> = None;
        let mut zone_name: Option<&str> = None;
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
                "MST" if v.starts_with("UTC") => {
                    utc = true;
                    v = &v[3..];
                    Some(())
                }
                "MST" => time_zone_length(v).map(|n| {
                    zone_name = Some(&v[..n]);
                    v = &v[n..];
                }),
                z if z.starts_with('Z') || z.starts_with('-') => {
                    if z.starts_with('Z') && v.starts_with('Z') {
                        v = &v[1..];
                        utc = true;
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
                                        offset = Some(sign * (hh * 3600 + mm * 60 + ss));
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
        let civil = days * 86400 + hour * 3600 + minute * 60 + second;
        // The local zone is UTC: an offset of zero (named UTC, or not named) is in it.
        let fixed = |name: &str, offset: i64| {
            Place::Fixed(Arc::new(Zone {
                name: name.to_string(),
                offset,
            }))
        };
        let (offset, place) = match (utc, offset, zone_name) {
            (true, _, _) => (0, Place::Utc),
            (_, Some(0), None | Some("UTC")) => (0, Place::Utc),
            (_, Some(offset), name) => (offset, fixed(name.unwrap_or(""), offset)),
            // An abbreviation the local zone does not have: no offset, but GMT's hours.
            (_, None, Some(name)) => {
                let hours = name
                    .strip_prefix("GMT")
                    .filter(|h| !h.is_empty())
                    .and_then(|h| h.trim_start_matches('+').parse::<i64>().ok());
                (0, fixed(name, hours.map_or(0, |h| h * 3600)))
            }
            (_, None, None) => (0, Place::Utc),
        };
        Ok(Time {
            unix: civil - offset,
            nanos,
            place,
        })
    }

    /// Nanoseconds since the Unix epoch.
    fn unix_nanos(&self) -> i128 {
        i128::from(self.unix) * 1_000_000_000 + i128::from(self.nanos)
    }

    /// Go's `Time.String`.
    pub fn text(&self) -> String {
        self.format("2006-01-02 15:04:05.999999999 -0700 MST")
    }

    pub fn value(self) -> Value {
        Value::Object(ObjectRef(Arc::new(self)))
    }
}

/// Go's `parseTimeZone`: the length of the zone abbreviation at the start of `v` (`MST`,
/// `CEST`, `ChST`, `GMT+3`, `+03`), if there is one.
fn time_zone_length(v: &str) -> Option<usize> {
    let b = v.as_bytes();
    if b.len() < 3 {
        return None;
    }
    if v.starts_with("ChST") || v.starts_with("MeST") {
        return Some(4);
    }
    if let Some(rest) = v.strip_prefix("GMT") {
        return Some(3 + signed_offset_length(rest).unwrap_or(0));
    }
    if b[0] == b'+' || b[0] == b'-' {
        return signed_offset_length(v);
    }
    let upper = b
        .iter()
        .take(6)
        .take_while(|c| c.is_ascii_uppercase())
        .count();
    match upper {
        3 => Some(3),
        4 if b[3] == b'T' || v.starts_with("WITA") => Some(4),
        5 if b[4] == b'T' => Some(5),
        _ => None,
    }
}

/// Go's `parseSignedOffset`: a sign and an hour (at most 23) at the start of `v`.
fn signed_offset_length(v: &str) -> Option<usize> {
    let rest = v.strip_prefix(['+', '-'])?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let hours: u64 = rest[..digits].parse().ok()?;
    (hours <= 23).then_some(1 + digits)
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

    /// `Time.MarshalJSON`: RFC 3339 with nanoseconds, for years 0–9999.
    fn json_string(&self) -> Option<Result<String, String>> {
        let year = self.parts().year;
        Some(if (0..=9999).contains(&year) {
            Ok(self.format("2006-01-02T15:04:05.999999999Z07:00"))
        } else {
            Err("json: error calling MarshalJSON for type time.Time: Time.MarshalJSON: year outside of range [0,9999]".into())
        })
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
            "Nanosecond" => Value::Int(i64::from(self.nanos)),
            "Unix" => Value::Int64(self.unix),
            "UnixMilli" => Value::Int64(self.unix_nanos().div_euclid(1_000_000) as i64),
            "UnixMicro" => Value::Int64(self.unix_nanos().div_euclid(1_000) as i64),
            // Go's int64 nanoseconds wrap outside 1678–2262.
            "UnixNano" => Value::Int64(self.unix_nanos() as i64),
            "IsZero" => Value::Bool(self.unix == ZERO.unix && self.nanos == 0),
            "UTC" | "Local" => self.at(Place::Utc).value(),
            "Location" => {
                Value::Object(ObjectRef(Arc::new(Location(self.place.name().to_string()))))
            }
            "String" => Value::str(self.text()),
            "Format" => match args.first().and_then(Value::as_str) {
                Some(layout) => Value::str(self.format(layout)),
                None => return Some(Err("wrong number of args for Format: want 1 got 0".into())),
            },
            _ => return None,
        }))
    }
}

/// A time argument as sprig's `date` takes it: a time, or Unix seconds as int or int64 (in
/// the local zone); anything else is now.
pub fn time_of(v: &Value) -> Time {
    if let Value::Object(o) = v {
        let any: &dyn std::any::Any = &*o.0;
        if let Some(t) = any.downcast_ref::<Time>() {
            return t.clone();
        }
    }
    match v {
        Value::Int(i) | Value::Int64(i) => Time::utc(*i, 0),
        _ => {
            let since = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            Time::utc(since.as_secs() as i64, since.subsec_nanos())
        }
    }
}

/// A `*time.Location`, as a template prints it: its name.
#[derive(Debug)]
struct Location(String);

impl Object for Location {
    fn type_name(&self) -> &'static str {
        "*time.Location"
    }

    fn kind_name(&self) -> &'static str {
        "ptr"
    }

    fn call(&self, method: &str, _: &[Value]) -> Option<Result<Value, String>> {
        (method == "String").then(|| Ok(Value::str(self.0.as_str())))
    }

    fn text(&self) -> String {
        self.0.clone()
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
    const LIMIT: u64 = 1 << 63;
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
    let mut total: u64 = 0;
    while !rest.is_empty() {
        if !rest.starts_with(|c: char| c == '.' || c.is_ascii_digit()) {
            return Err(bad());
        }
        // Go's `leadingInt`: the whole part, an error beyond 2^63.
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let mut whole: u64 = 0;
        for b in rest[..digits].bytes() {
            if whole > LIMIT / 10 {
                return Err(bad());
            }
            whole = whole * 10 + u64::from(b - b'0');
            if whole > LIMIT {
                return Err(bad());
            }
        }
        rest = &rest[digits..];
        // `leadingFraction`: digits past what fits are read and dropped.
        let (mut fraction, mut scale) = (0u64, 1f64);
        if let Some(after) = rest.strip_prefix('.') {
            let fraction_digits = after.bytes().take_while(u8::is_ascii_digit).count();
            let mut overflow = false;
            for b in after[..fraction_digits].bytes() {
                if overflow || fraction > (LIMIT - 1) / 10 {
                    overflow = true;
                    continue;
                }
                let next = fraction * 10 + u64::from(b - b'0');
                if next > LIMIT {
                    overflow = true;
                    continue;
                }
                fraction = next;
                scale *= 10.0;
            }
            rest = &after[fraction_digits..];
            if digits == 0 && fraction_digits == 0 {
                return Err(bad());
            }
        }
        let u = rest
            .bytes()
            .take_while(|b| !(b.is_ascii_digit() || *b == b'.'))
            .count();
        if u == 0 {
            return Err(format!("time: missing unit in duration {}", time_quote(s)));
        }
        let unit: u64 = match &rest[..u] {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            other => {
                return Err(format!(
                    "time: unknown unit {} in duration {}",
                    time_quote(other),
                    time_quote(s)
                ))
            }
        };
        rest = &rest[u..];
        if whole > LIMIT / unit {
            return Err(bad());
        }
        let mut v = whole * unit;
        if fraction > 0 {
            // Go adds the fraction through float64 (nanosecond-exact for hours).
            v += (fraction as f64 * (unit as f64 / scale)) as u64;
            if v > LIMIT {
                return Err(bad());
            }
        }
        // Go's uint64 sum wraps (two terms of 2^63 make 0) rather than failing.
        total = total.wrapping_add(v);
        if total > LIMIT {
            return Err(bad());
        }
    }
    if neg {
        return Ok((total as i64).wrapping_neg());
    }
    i64::try_from(total).map_err(|_| bad())
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
