//! sprig's date functions on a `time.Time` value (`date` formats in the local zone, UTC as for
//! `helm template` in CI; `dateInZone` in the zone it names, [`crate::go::zoneinfo`]; a time
//! `toDate` parsed with an offset keeps it): Go's layout formatting and parsing, `date`,
//! `dateInZone`, `toDate`, `dateModify`, `unixEpoch`, `duration`, `durationRound`, and the
//! methods templates call on a time.

use super::super::bytes::GoBytes;
use super::super::gostr;
use super::super::value::{MethodSig, Object, ObjectRef, Value};
use super::super::Param;
use super::durations::{nanos_of, Duration};
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
    /// `time.UTC`: a parsed time with a `Z` or `UTC`, `.UTC`, the zero time.
    Utc,
    /// `time.Local`, UTC as `helm template` has it where `TZ` is `UTC` (named `UTC` too, and
    /// unlike `time.UTC` only to `GoString` and `MarshalBinary`): `now`, a parsed time
    /// without a zone or with the local zone's.
    Local,
    /// A zone `time.Parse` makes up for an offset or an abbreviation the local zone does not
    /// have (Go's `FixedZone`).
    Fixed(Arc<Zone>),
}

impl Place {
    /// Seconds east of UTC.
    fn offset(&self) -> i64 {
        match self {
            Place::Utc | Place::Local => 0,
            Place::Fixed(zone) => zone.offset,
        }
    }

    fn zone(&self) -> Zone {
        match self {
            Place::Utc | Place::Local => Zone::utc(),
            Place::Fixed(zone) => Zone::clone(zone),
        }
    }

    /// `Location.String()`.
    fn name(&self) -> &str {
        match self {
            Place::Utc | Place::Local => "UTC",
            Place::Fixed(zone) => &zone.name,
        }
    }

    /// Go's `==` of the `*time.Location` pointers (`reflect.DeepEqual` of the locations when
    /// `deep`): each zone `toDate` makes up is one of its own but for the unnamed whole hours
    /// from -12 to +14, which Go's `FixedZone` keeps.
    fn same(&self, other: &Place, deep: bool) -> bool {
        let shared = |z: &Zone| {
            z.name.is_empty()
                && z.offset % 3600 == 0
                && (-12 * 3600..=14 * 3600).contains(&z.offset)
        };
        match (self, other) {
            (Place::Fixed(a), Place::Fixed(b)) if !deep => {
                Arc::ptr_eq(a, b) || (shared(a) && a.offset == b.offset && shared(b))
            }
            (a, b) => a == b,
        }
    }

    /// The location as `Time.GoString` names it.
    fn go_name(&self) -> String {
        match self {
            Place::Utc => "time.UTC".into(),
            Place::Local => "time.Local".into(),
            Place::Fixed(zone) => format!("time.Location({})", time_quote(&zone.name)),
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

    /// A time in the local zone (`now`, `time.Unix`).
    pub fn local(unix: i64, nanos: u32) -> Time {
        Time {
            unix,
            nanos,
            place: Place::Local,
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
            "__2" => format!("{:>3}", p.yearday),
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
                // Go keeps the count in 12 bits and prints at most nine digits.
                let digits = ((raw.len() - 1) & 0xfff).min(9);
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
                    // A fraction the layout does not have is read after the seconds (Go
                    // looks for the layout's next element past any literal text).
                    let rest = &l[len..];
                    let fraction_next = rest
                        .char_indices()
                        .find_map(|(i, _)| std_chunk(&rest[i..]).0)
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
                // `.000`: exactly that many digits after a period or comma.
                // (Go's `atoi` takes a sign there: `+12` reads as `012`, a negative number is
                // out of range.)
                ".0" => {
                    // Go keeps the count in 12 bits, reads nine digits and skips the rest.
                    let want = 1 + ((len - 1) & 0xfff);
                    let fixed = v.get(..want).filter(|f| f.starts_with(['.', ',']));
                    let digits = fixed.and_then(|f| f.get(1..want.min(10))).map(|text| {
                        let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
                        let negative = text.starts_with('-') && unsigned.bytes().any(|b| b != b'0');
                        (unsigned, negative)
                    });
                    match digits {
                        Some((_, true)) => {
                            return Err(format!(
                                "parsing time {}: fractional second out of range",
                                time_quote(value)
                            ))
                        }
                        Some((d, false))
                            if !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) =>
                        {
                            let scale = 10u32.pow(10 - want.min(10) as u32);
                            nanos = d.parse::<u32>().unwrap_or(0) * scale;
                            v = &v[want..];
                            Some(())
                        }
                        _ => None,
                    }
                }
                // `.999`: any number of digits, or no fraction at all (a period without a
                // digit is then left over).
                ".9" => {
                    let b = v.as_bytes();
                    if b.len() >= 2 && matches!(b[0], b'.' | b',') && b[1].is_ascii_digit() {
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
            (_, Some(0), None | Some("UTC")) => (0, Place::Local),
            (_, Some(offset), name) => (offset, fixed(name.unwrap_or(""), offset)),
            // An abbreviation the local zone does not have: no offset, but GMT's hours.
            (_, None, Some(name)) => {
                let hours = name
                    .strip_prefix("GMT")
                    .filter(|h| !h.is_empty())
                    .and_then(|h| h.trim_start_matches('+').parse::<i64>().ok());
                (0, fixed(name, hours.map_or(0, |h| h * 3600)))
            }
            (_, None, None) => (0, Place::Local),
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
        "__2",
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
    // `_2006` is a literal `_` and a year.
    if s.starts_with("_2006") {
        return (None, 0);
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

    fn go_syntax(&self) -> Option<String> {
        Some(self.go_string())
    }

    /// Go's `==` compares a time's instant and its location's pointer (`time.UTC` is not
    /// `time.Local`), `reflect.DeepEqual` the locations' contents.
    fn go_eq(&self, other: &dyn Object, deep: bool) -> Option<bool> {
        let any: &dyn std::any::Any = other;
        let other = any.downcast_ref::<Time>()?;
        Some(self.instant() == other.instant() && self.place.same(&other.place, deep))
    }

    /// `Time.MarshalJSON`.
    fn json_string(&self) -> Option<Result<String, String>> {
        Some(self.strict_rfc3339().map_err(|e| {
            format!("json: error calling MarshalJSON for type time.Time: Time.MarshalJSON: {e}")
        }))
    }

    fn signature(&self, method: &str) -> Option<MethodSig> {
        const TIME: Param = Param::Object("time.Time");
        const DURATION: Param = Param::NamedInt("time.Duration");
        let unusable = |params, error| Some(MethodSig::Unusable { params, error });
        Some(MethodSig::Params(match method {
            "Year" | "Day" | "Hour" | "Minute" | "Second" | "Nanosecond" | "YearDay" | "Month"
            | "Weekday" | "Unix" | "UnixMilli" | "UnixMicro" | "UnixNano" | "IsZero"
            | "IsDST" | "UTC" | "Local" | "Location" | "String" | "GoString" | "MarshalText"
            | "MarshalJSON" | "MarshalBinary" | "GobEncode" => &[],
            "Format" => &[Param::String],
            "AppendFormat" => &[Param::Object("[]uint8"), Param::String],
            "Add" | "Truncate" | "Round" => &[DURATION],
            "Sub" | "After" | "Before" | "Equal" | "Compare" => &[TIME],
            "AddDate" => &[Param::Int, Param::Int, Param::Int],
            "In" => &[Param::Object("*time.Location")],
            // Methods of several results text/template cannot call.
            "Date" => return unusable(0, "function Date has 3 return values; should be 1 or 2"),
            "Clock" => {
                return unusable(0, "function Clock has 3 return values; should be 1 or 2")
            }
            "ISOWeek" => return unusable(
                0,
                "invalid function signature for ISOWeek: second return value should be error; is int",
            ),
            "Zone" => return unusable(
                0,
                "invalid function signature for Zone: second return value should be error; is int",
            ),
            "ZoneBounds" => return unusable(
                0,
                "invalid function signature for ZoneBounds: second return value should be error; is time.Time",
            ),
            _ => return None,
        }))
    }

    fn call(&self, method: &str, args: &[Value]) -> Option<Result<Value, String>> {
        let p = self.parts();
        let time_arg = || args.first().and_then(Value::as_object::<Time>);
        let nanos_arg = |i: usize| args.get(i).map_or(0, nanos_of);
        let int_arg = |i: usize| args.get(i).and_then(Value::as_int).unwrap_or(0);
        Some(Ok(match method {
            "Year" => Value::Int(p.year),
            "Month" => Month(p.month).value(),
            "Day" => Value::Int(p.day),
            "Hour" => Value::Int(p.hour),
            "Minute" => Value::Int(p.minute),
            "Second" => Value::Int(p.second),
            "Weekday" => Weekday(p.weekday as i64).value(),
            "YearDay" => Value::Int(p.yearday),
            "Nanosecond" => Value::Int(i64::from(self.nanos)),
            "Unix" => Value::Int64(self.unix),
            "UnixMilli" => Value::Int64(self.unix_nanos().div_euclid(1_000_000) as i64),
            "UnixMicro" => Value::Int64(self.unix_nanos().div_euclid(1_000) as i64),
            // Go's int64 nanoseconds wrap outside 1678–2262.
            "UnixNano" => Value::Int64(self.unix_nanos() as i64),
            "IsZero" => Value::Bool(self.unix == ZERO.unix && self.nanos == 0),
            "IsDST" => Value::Bool(false),
            "UTC" => self.at(Place::Utc).value(),
            "Local" => self.at(Place::Local).value(),
            "In" => match args.first() {
                Some(v @ Value::Object(_)) => self.at(v.as_object::<Location>()?.0.clone()).value(),
                _ => return Some(Err("time: missing Location in call to Time.In".into())),
            },
            "Location" => Value::Object(ObjectRef(Arc::new(Location(self.place.clone())))),
            "String" => Value::str(self.text()),
            "GoString" => Value::str(self.go_string()),
            "Format" => Value::str(self.format(args.first().and_then(Value::as_str)?)),
            "AppendFormat" => {
                let mut bytes = args
                    .first()
                    .and_then(Value::as_bytes)
                    .map_or_else(String::new, |b| b.to_string());
                bytes.push_str(&self.format(args.get(1).and_then(Value::as_str)?));
                GoBytes::value(Arc::from(bytes))
            }
            "MarshalText" | "MarshalJSON" => {
                return Some(match self.strict_rfc3339() {
                    Ok(text) if method == "MarshalText" => Ok(GoBytes::value(Arc::from(text))),
                    Ok(text) => Ok(GoBytes::value(Arc::from(format!("\"{text}\"")))),
                    Err(e) => Err(format!("Time.{method}: {e}")),
                })
            }
            "MarshalBinary" | "GobEncode" => {
                return Some(
                    self.binary()
                        .map(|b| GoBytes::value(gostr::from_bytes(&b).into())),
                )
            }
            "Add" => self.add_nanos(i128::from(nanos_arg(0))).value(),
            "Sub" => Duration(self.sub(time_arg()?)).value(),
            "After" => Value::Bool(self.instant() > time_arg()?.instant()),
            "Before" => Value::Bool(self.instant() < time_arg()?.instant()),
            "Equal" => Value::Bool(self.instant() == time_arg()?.instant()),
            "Compare" => Value::Int(match self.instant().cmp(&time_arg()?.instant()) {
                std::cmp::Ordering::Less => -1,
                std::cmp::Ordering::Equal => 0,
                std::cmp::Ordering::Greater => 1,
            }),
            "AddDate" => self.add_date(int_arg(0), int_arg(1), int_arg(2)).value(),
            "Truncate" | "Round" => {
                let d = nanos_arg(0);
                if d <= 0 {
                    return Some(Ok(self.clone().value()));
                }
                // The remainder of the time since year 1, whatever the zone.
                let since_year_one = self.unix_nanos() + i128::from(-ZERO.unix) * 1_000_000_000;
                let r = since_year_one.rem_euclid(i128::from(d));
                let shift = if method == "Round" && !less_than_half(r, i128::from(d)) {
                    i128::from(d) - r
                } else {
                    -r
                };
                self.add_nanos(shift).value()
            }
            _ => return None,
        }))
    }
}

/// The years either side of 1970 a time stays within: Go's seconds since year 1 are an
/// int64, and its arithmetic wraps past them; kdelta's stops at the end.
const MAX_YEARS: i128 = 292_000_000_000;

/// Unix seconds, held within [`MAX_YEARS`].
fn clamp_unix(unix: i128) -> i64 {
    const LIMIT: i128 = MAX_YEARS * 31_556_952;
    unix.clamp(-LIMIT, LIMIT) as i64
}

/// Go's `lessThanHalf`: `x+x < y`, in unsigned arithmetic.
fn less_than_half(x: i128, y: i128) -> bool {
    (x as u64).wrapping_add(x as u64) < y as u64
}

impl Time {
    /// Seconds and nanoseconds, which order instants.
    fn instant(&self) -> (i64, u32) {
        (self.unix, self.nanos)
    }

    /// `t.Add(d)` in nanoseconds, in the same location.
    pub fn add_nanos(&self, ns: i128) -> Time {
        let total = self.unix_nanos() + ns;
        Time {
            unix: clamp_unix(total.div_euclid(1_000_000_000)),
            nanos: total.rem_euclid(1_000_000_000) as u32,
            place: self.place.clone(),
        }
    }

    /// `t.Sub(u)`: the nanoseconds between, clamped to a Duration's range.
    pub(super) fn sub(&self, u: &Time) -> i64 {
        let d = self.unix_nanos() - u.unix_nanos();
        d.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
    }

    /// `t.AddDate(years, months, days)`: Go's `Date` normalises the month and the day.
    fn add_date(&self, years: i64, months: i64, days: i64) -> Time {
        let p = self.parts();
        let month0 = i128::from(p.month - 1) + i128::from(months);
        let year = i128::from(p.year) + i128::from(years) + month0.div_euclid(12);
        let month = (month0.rem_euclid(12) + 1) as i64;
        // Past the range a time can be shown in, Go's arithmetic wraps; kdelta stops there.
        let year = year.clamp(-MAX_YEARS, MAX_YEARS) as i64;
        let day =
            i128::from(days_from_civil(year, month, 1)) + i128::from(p.day - 1) + i128::from(days);
        let civil = day * 86400 + i128::from(p.hour * 3600 + p.minute * 60 + p.second);
        Time {
            unix: clamp_unix(civil - i128::from(self.place.offset())),
            nanos: self.nanos,
            place: self.place.clone(),
        }
    }

    /// Go's `appendStrictRFC3339`, which `MarshalText` and `MarshalJSON` write.
    fn strict_rfc3339(&self) -> Result<String, &'static str> {
        if !(0..=9999).contains(&self.parts().year) {
            return Err("year outside of range [0,9999]");
        }
        if self.place.offset().abs() >= 24 * 3600 {
            return Err("timezone hour outside of range [0,23]");
        }
        Ok(self.format("2006-01-02T15:04:05.999999999Z07:00"))
    }

    /// `Time.MarshalBinary`: a version, seconds since year 1, nanoseconds, the offset in
    /// minutes (-1 for UTC) and, in version 2, its odd seconds.
    fn binary(&self) -> Result<Vec<u8>, String> {
        let (mut version, mut offset_min, mut offset_sec) = (1u8, -1i16, None);
        if self.place != Place::Utc {
            let offset = self.place.offset();
            if offset % 60 != 0 {
                version = 2;
                offset_sec = Some((offset % 60) as i8);
            }
            match i16::try_from(offset / 60) {
                Ok(m) if m != -1 => offset_min = m,
                _ => return Err("Time.MarshalBinary: unexpected zone offset".into()),
            }
        }
        let mut out = vec![version];
        out.extend((self.unix - ZERO.unix).to_be_bytes());
        out.extend(self.nanos.to_be_bytes());
        out.extend(offset_min.to_be_bytes());
        out.extend(offset_sec.map(|s| s as u8));
        Ok(out)
    }

    /// `Time.GoString`: `time.Date(2020, time.January, 1, 0, 0, 0, 0, time.Local)`.
    fn go_string(&self) -> String {
        let p = self.parts();
        format!(
            "time.Date({}, time.{}, {}, {}, {}, {}, {}, {})",
            p.year,
            MONTHS[(p.month - 1) as usize],
            p.day,
            p.hour,
            p.minute,
            p.second,
            self.nanos,
            self.place.go_name()
        )
    }
}

/// A time as sprig's `date` takes it: a time, or Unix seconds as int or int64 (in
/// the local zone); anything else is now.
pub fn time_of(v: &Value) -> Time {
    if let Some(t) = v.as_object::<Time>() {
        return t.clone();
    }
    match v {
        Value::Int(i) | Value::Int64(i) => Time::local(*i, 0),
        _ => {
            let since = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            Time::local(since.as_secs() as i64, since.subsec_nanos())
        }
    }
}

/// A `*time.Location`, as a template prints it: its name.
#[derive(Debug)]
struct Location(Place);

impl Object for Location {
    fn type_name(&self) -> &'static str {
        "*time.Location"
    }

    fn kind_name(&self) -> &'static str {
        "ptr"
    }

    fn signature(&self, method: &str) -> Option<MethodSig> {
        (method == "String").then_some(MethodSig::Params(&[]))
    }

    fn call(&self, method: &str, _: &[Value]) -> Option<Result<Value, String>> {
        (method == "String").then(|| Ok(Value::str(self.0.name())))
    }

    fn go_eq(&self, other: &dyn Object, deep: bool) -> Option<bool> {
        let any: &dyn std::any::Any = other;
        Some(self.0.same(&any.downcast_ref::<Location>()?.0, deep))
    }

    fn text(&self) -> String {
        self.0.name().to_string()
    }
}

/// A `time.Month` (1–12), printed by its name.
#[derive(Debug)]
struct Month(i64);

/// A `time.Weekday` (0 is Sunday), printed by its name.
#[derive(Debug)]
struct Weekday(i64);

macro_rules! named_int {
    ($ty:ident, $go:literal, $names:ident, $first:literal) => {
        impl $ty {
            fn value(self) -> Value {
                Value::Object(ObjectRef(Arc::new(self)))
            }
        }

        impl Object for $ty {
            fn type_name(&self) -> &'static str {
                $go
            }

            fn kind_name(&self) -> &'static str {
                "int"
            }

            fn int(&self) -> Option<i64> {
                Some(self.0)
            }

            fn text(&self) -> String {
                $names[(self.0 - $first) as usize].to_string()
            }

            fn signature(&self, method: &str) -> Option<MethodSig> {
                (method == "String").then_some(MethodSig::Params(&[]))
            }

            fn call(&self, method: &str, _: &[Value]) -> Option<Result<Value, String>> {
                (method == "String").then(|| Ok(Value::str(self.text())))
            }
        }
    };
}

named_int!(Month, "time.Month", MONTHS, 1);
named_int!(Weekday, "time.Weekday", DAYS, 0);

/// The `time` package's `quote` for its errors: between double quotes, `"` and `\\`
/// escaped, and every byte of a character outside printable ASCII as a lower-case `\\xNN`.
pub(super) fn time_quote(s: &str) -> String {
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
