//! Go's `time.LoadLocation` and `(*Location).lookup` for sprig's `dateInZone`: the IANA zone
//! read from the system's time zone database as Go reads it (`ZONEINFO`, then
//! `/usr/share/zoneinfo/` and the other Unix directories; a TZif file's 64-bit section and
//! its footer's POSIX TZ rule for times after the last transition). `helm template` gets the
//! same files on the same machine; a zone it cannot load is UTC for sprig, and so here.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// A zone's name and offset east of UTC at one instant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Zone {
    pub name: String,
    pub offset: i64,
}

impl Zone {
    pub fn utc() -> Zone {
        Zone {
            name: "UTC".into(),
            offset: 0,
        }
    }
}

/// A loaded location: its zones, transitions and footer rule.
#[derive(Clone, Debug)]
pub struct Location {
    zones: Vec<ZoneType>,
    /// (UTC seconds, index into `zones`), ascending.
    transitions: Vec<(i64, usize)>,
    extend: String,
}

#[derive(Clone, Debug)]
struct ZoneType {
    name: String,
    offset: i64,
    is_dst: bool,
}

/// Go's `alpha`: the start of time, for the transition of a zone that has none.
const ALPHA: i64 = -1 << 63;

/// `time.LoadLocation(name)`; `None` where Go returns an error (sprig then uses UTC). `Local`
/// is UTC too: kdelta renders as `helm template` does in CI, where `TZ` is UTC. Each name is
/// read once per run (a template may call `dateInZone` in a loop).
pub fn load_location(name: &str) -> Option<Arc<Location>> {
    static LOADED: OnceLock<Mutex<HashMap<String, Option<Arc<Location>>>>> = OnceLock::new();
    let loaded = LOADED.get_or_init(Default::default);
    if let Some(found) = loaded.lock().unwrap_or_else(|p| p.into_inner()).get(name) {
        return found.clone();
    }
    let found = read_location(name).map(Arc::new);
    loaded
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(name.to_string(), found.clone());
    found
}

fn read_location(name: &str) -> Option<Location> {
    if name.is_empty() || name == "UTC" || name == "Local" {
        return None;
    }
    if name.contains("..") || name.starts_with(['/', '\\']) {
        return None;
    }
    let env = std::env::var("ZONEINFO").ok().filter(|d| !d.is_empty());
    let dirs = env.iter().map(String::as_str).chain([
        "/usr/share/zoneinfo/",
        "/usr/share/lib/zoneinfo/",
        "/usr/lib/locale/TZ/",
        "/etc/zoneinfo",
    ]);
    for dir in dirs {
        if let Ok(data) = std::fs::read(std::path::Path::new(dir).join(name)) {
            return parse_tzif(&data);
        }
    }
    None
}

/// `LoadLocationFromTZData`.
fn parse_tzif(data: &[u8]) -> Option<Location> {
    let mut r = Reader { data, at: 0 };
    if r.take(4)? != b"TZif" {
        return None;
    }
    let version = r.take(1)?[0];
    r.take(15)?;
    let mut counts = [0usize; 6];
    for c in &mut counts {
        *c = r.u32()? as usize;
    }
    let mut wide = false;
    if version >= b'2' {
        // Skip the 32-bit section; the 64-bit one follows with its own header.
        let [isut, isstd, leap, time, types, chars] = counts;
        r.take(time * 4 + time + types * 6 + chars + leap * 8 + isstd + isut)?;
        if r.take(4)? != b"TZif" {
            return None;
        }
        r.take(16)?;
        for c in &mut counts {
            *c = r.u32()? as usize;
        }
        wide = true;
    }
    let [isut, isstd, leap, time, types, chars] = counts;
    // Each part is taken whole before it is read, so counts a short file cannot hold fail
    // instead of allocating for them.
    let width = if wide { 8 } else { 4 };
    let times: Vec<i64> = r
        .take(time * width)?
        .chunks(width)
        .map(|b| {
            // Big-endian and signed, of either width.
            let first = if b[0] & 0x80 != 0 { -1i64 } else { 0 };
            b.iter().fold(first, |n, &byte| (n << 8) | i64::from(byte))
        })
        .collect();
    let indexes = r.take(time)?.to_vec();
    let raw_types: Vec<(i64, bool, usize)> = r
        .take(types * 6)?
        .chunks(6)
        .map(|b| {
            let offset = i64::from(i32::from_be_bytes([b[0], b[1], b[2], b[3]]));
            (offset, b[4] != 0, usize::from(b[5]))
        })
        .collect();
    let abbrevs = r.take(chars)?.to_vec();
    r.take(leap * if wide { 12 } else { 8 } + isstd + isut)?;
    let zones: Vec<ZoneType> = raw_types
        .into_iter()
        .map(|(offset, is_dst, at)| {
            let name = abbrevs.get(at..).unwrap_or_default();
            let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
            ZoneType {
                name: String::from_utf8_lossy(&name[..end]).into_owned(),
                offset,
                is_dst,
            }
        })
        .collect();
    if zones.is_empty() {
        return None;
    }
    let mut transitions = Vec::with_capacity(time);
    for (when, index) in times.into_iter().zip(indexes) {
        if usize::from(index) >= zones.len() {
            return None;
        }
        transitions.push((when, usize::from(index)));
    }
    if transitions.is_empty() {
        transitions.push((ALPHA, 0));
    }
    // The footer, `\nTZ\n`, after the 64-bit data.
    let extend = if wide {
        let rest = &data[r.at..];
        match rest.strip_prefix(b"\n") {
            Some(rest) => {
                let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                String::from_utf8_lossy(&rest[..end]).into_owned()
            }
            None => String::new(),
        }
    } else {
        String::new()
    };
    Some(Location {
        zones,
        transitions,
        extend,
    })
}

struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let out = self.data.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(out)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_be_bytes(self.take(4)?.try_into().ok()?))
    }
}

impl Location {
    /// `(*Location).lookup`: the zone in effect at `sec` (Unix seconds).
    pub fn lookup(&self, sec: i64) -> Zone {
        let zone = |z: &ZoneType| Zone {
            name: z.name.clone(),
            offset: z.offset,
        };
        if sec < self.transitions[0].0 {
            return zone(&self.zones[self.first_zone()]);
        }
        let lo = self.transitions.partition_point(|&(when, _)| when <= sec) - 1;
        if lo == self.transitions.len() - 1 && !self.extend.is_empty() {
            if let Some(z) = tzset(&self.extend, sec) {
                return z;
            }
        }
        zone(&self.zones[self.transitions[lo].1])
    }

    /// `lookupFirstZone`: the zone before the first transition.
    fn first_zone(&self) -> usize {
        let used = self.transitions.iter().any(|&(_, i)| i == 0);
        if !used {
            return 0;
        }
        let first = self.transitions[0].1;
        if self.zones[first].is_dst {
            if let Some(zi) = (0..first).rev().find(|&zi| !self.zones[zi].is_dst) {
                return zi;
            }
        }
        self.zones.iter().position(|z| !z.is_dst).unwrap_or(0)
    }
}

const HOUR: i64 = 3600;
const DAY: i64 = 86400;

/// `tzset`: the zone a POSIX TZ rule (`EST5EDT,M3.2.0,M11.1.0`) gives at `sec`.
fn tzset(s: &str, sec: i64) -> Option<Zone> {
    let (mut std_name, s) = tzset_name(s)?;
    let (std_offset, s) = tzset_offset(s)?;
    let mut std_offset = -std_offset;
    if s.is_empty() || s.starts_with(',') {
        return Some(Zone {
            name: std_name.into(),
            offset: std_offset,
        });
    }
    let (mut dst_name, mut s) = tzset_name(s)?;
    let mut dst_offset = if s.is_empty() || s.starts_with(',') {
        std_offset + HOUR
    } else {
        let (offset, rest) = tzset_offset(s)?;
        s = rest;
        -offset
    };
    let s = if s.is_empty() { ",M3.2.0,M11.1.0" } else { s };
    let s = s.strip_prefix([',', ';'])?;
    let (start_rule, s) = tzset_rule(s)?;
    let s = s.strip_prefix(',')?;
    let (end_rule, s) = tzset_rule(s)?;
    if !s.is_empty() {
        return None;
    }
    let days = sec.div_euclid(DAY);
    let (year, _, _) = super::civil::civil_from_days(days);
    let yday = days - super::civil::days_from_civil(year, 1, 1);
    let ysec = yday * DAY + sec % DAY;
    let mut start = tzrule_time(year, &start_rule, std_offset);
    let mut end = tzrule_time(year, &end_rule, dst_offset);
    if end < start {
        std::mem::swap(&mut start, &mut end);
        std::mem::swap(&mut std_name, &mut dst_name);
        std::mem::swap(&mut std_offset, &mut dst_offset);
    }
    let (name, offset) = if ysec < start || ysec >= end {
        (std_name, std_offset)
    } else {
        (dst_name, dst_offset)
    };
    Some(Zone {
        name: name.into(),
        offset,
    })
}

fn tzset_name(s: &str) -> Option<(&str, &str)> {
    if let Some(quoted) = s.strip_prefix('<') {
        let end = quoted.find('>')?;
        return Some((&quoted[..end], &quoted[end + 1..]));
    }
    match s.find(|c: char| c.is_ascii_digit() || matches!(c, ',' | '-' | '+')) {
        Some(i) if i < 3 => None,
        Some(i) => Some((&s[..i], &s[i..])),
        None if s.len() < 3 => None,
        None => Some((s, "")),
    }
}

fn tzset_offset(s: &str) -> Option<(i64, &str)> {
    let (neg, s) = match s.as_bytes().first()? {
        b'+' => (false, &s[1..]),
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    let (hours, mut s) = tzset_num(s, 0, 24 * 7)?;
    let mut off = hours * HOUR;
    for scale in [60, 1] {
        let Some(rest) = s.strip_prefix(':') else {
            break;
        };
        let (n, rest) = tzset_num(rest, 0, 59)?;
        off += n * scale;
        s = rest;
    }
    Some((if neg { -off } else { off }, s))
}

enum Rule {
    Julian(i64),
    DayOfYear(i64),
    MonthWeekDay { mon: i64, week: i64, day: i64 },
}

fn tzset_rule(s: &str) -> Option<((Rule, i64), &str)> {
    let (rule, s) = if let Some(rest) = s.strip_prefix('J') {
        let (day, rest) = tzset_num(rest, 1, 365)?;
        (Rule::Julian(day), rest)
    } else if let Some(rest) = s.strip_prefix('M') {
        let (mon, rest) = tzset_num(rest, 1, 12)?;
        let (week, rest) = tzset_num(rest.strip_prefix('.')?, 1, 5)?;
        let (day, rest) = tzset_num(rest.strip_prefix('.')?, 0, 6)?;
        (Rule::MonthWeekDay { mon, week, day }, rest)
    } else {
        let (day, rest) = tzset_num(s, 0, 365)?;
        (Rule::DayOfYear(day), rest)
    };
    match s.strip_prefix('/') {
        Some(rest) => {
            let (time, rest) = tzset_offset(rest)?;
            Some(((rule, time), rest))
        }
        None => Some(((rule, 2 * HOUR), s)),
    }
}

fn tzset_num(s: &str, min: i64, max: i64) -> Option<(i64, &str)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let mut num = 0i64;
    for b in s[..digits].bytes() {
        num = num * 10 + i64::from(b - b'0');
        if num > max {
            return None;
        }
    }
    (num >= min).then_some((num, &s[digits..]))
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// `tzruleTime`: seconds since the start of `year` (UTC) when the rule takes effect.
fn tzrule_time(year: i64, (rule, time): &(Rule, i64), off: i64) -> i64 {
    const DAYS_BEFORE: [i64; 13] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365];
    let s = match *rule {
        Rule::Julian(day) => (day - 1) * DAY + if is_leap(year) && day >= 60 { DAY } else { 0 },
        Rule::DayOfYear(day) => day * DAY,
        Rule::MonthWeekDay { mon, week, day } => {
            // Zeller's congruence: the weekday of the month's first day.
            let m1 = (mon + 9) % 12 + 1;
            let yy0 = if mon <= 2 { year - 1 } else { year };
            let (yy1, yy2) = (yy0 / 100, yy0 % 100);
            let mut dow = ((26 * m1 - 2) / 10 + 1 + yy2 + yy2 / 4 + yy1 / 4 - 2 * yy1) % 7;
            if dow < 0 {
                dow += 7;
            }
            let mut d = day - dow;
            if d < 0 {
                d += 7;
            }
            let days_in = DAYS_BEFORE[mon as usize] - DAYS_BEFORE[mon as usize - 1]
                + i64::from(mon == 2 && is_leap(year));
            for _ in 1..week {
                if d + 7 >= days_in {
                    break;
                }
                d += 7;
            }
            d += DAYS_BEFORE[mon as usize - 1];
            if is_leap(year) && mon > 2 {
                d += 1;
            }
            d * DAY
        }
    };
    s + time - off
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posix_rules_give_the_zone_of_the_instant() {
        // 2040-07-01 12:00 UTC and 2040-01-15 12:00 UTC, past any TZif file's transitions.
        let summer = 2224670400;
        let winter = 2210328000;
        let ny = "EST5EDT,M3.2.0,M11.1.0";
        assert_eq!(
            tzset(ny, summer).unwrap(),
            Zone {
                name: "EDT".into(),
                offset: -4 * HOUR
            }
        );
        assert_eq!(
            tzset(ny, winter).unwrap(),
            Zone {
                name: "EST".into(),
                offset: -5 * HOUR
            }
        );
        // The southern hemisphere: daylight time spans the new year.
        let sydney = "AEST-10AEDT,M10.1.0,M4.1.0/3";
        assert_eq!(tzset(sydney, winter).unwrap().name, "AEDT");
        assert_eq!(tzset(sydney, summer).unwrap().name, "AEST");
        let kolkata = "IST-5:30";
        assert_eq!(tzset(kolkata, summer).unwrap().offset, 5 * HOUR + 30 * 60);
        assert_eq!(tzset("<+0330>-3:30", summer).unwrap().name, "+0330");
        assert!(tzset("E5", summer).is_none());
    }

    #[test]
    fn names_go_refuses_are_not_looked_up() {
        for name in [
            "",
            "UTC",
            "Local",
            "../etc/passwd",
            "/etc/localtime",
            "a..b",
        ] {
            assert!(load_location(name).is_none(), "{name}");
        }
        assert!(parse_tzif(b"TZif2").is_none());
        assert!(parse_tzif(b"nope").is_none());
        // A header claiming four billion transitions in a short file.
        let mut lying = b"TZif\0".to_vec();
        lying.extend([0; 15]);
        lying.extend([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]);
        lying.extend([0, 0, 0, 1, 0, 0, 0, 4]);
        assert!(parse_tzif(&lying).is_none());
    }
}
