//! sprig's `date.go`, in the local zone, UTC here (`dateInZone` in the zone it names): the functions on
//! [`dates`], which holds the time value, Go's layouts and durations.

use super::super::{dates, durations};
use super::{s, A, S};
use crate::template::value::Value;
use crate::template::{FuncDef, FuncError};

/// The date functions.
pub(super) const FUNCS: &[FuncDef] = &[
    FuncDef::new("toDate", &[S, S], |_, a| {
        Ok(dates::Time::parse(s(a, 0), s(a, 1))
            .unwrap_or(dates::ZERO)
            .value())
    }),
    FuncDef::new("mustToDate", &[S, S], |_, a| {
        dates::Time::parse(s(a, 0), s(a, 1))
            .map(dates::Time::value)
            .map_err(FuncError::Call)
    }),
    FuncDef::new("date", &[S, A], |_, a| {
        Ok(Value::str(dates::time_of(&a[1]).format_local(s(a, 0))))
    }),
    FuncDef::new("dateInZone", &[S, A, S], |_, a| {
        Ok(Value::str(in_zone(dates::time_of(&a[1]), s(a, 2), s(a, 0))))
    }),
    FuncDef::new("htmlDate", &[A], |_, a| {
        Ok(Value::str(dates::time_of(&a[0]).format_local("2006-01-02")))
    }),
    FuncDef::new("htmlDateInZone", &[A, S], |_, a| {
        Ok(Value::str(in_zone(
            dates::time_of(&a[0]),
            s(a, 1),
            "2006-01-02",
        )))
    }),
    FuncDef::new("unixEpoch", &[A], |_, a| {
        Ok(Value::str(dates::time_of(&a[0]).unix.to_string()))
    }),
    FuncDef::new("dateModify", &[S, A], |_, a| {
        let t = dates::time_of(&a[1]);
        Ok(match durations::parse_duration(s(a, 0)) {
            Ok(ns) => t.add_nanos(ns.into()).value(),
            Err(_) => t.value(),
        })
    }),
    FuncDef::new("mustDateModify", &[S, A], |_, a| {
        let t = dates::time_of(&a[1]);
        durations::parse_duration(s(a, 0))
            .map(|ns| t.add_nanos(ns.into()).value())
            .map_err(FuncError::Call)
    }),
    FuncDef::new("duration", &[A], |_, a| {
        let secs = match &a[0] {
            Value::String(x) => x.parse::<i64>().unwrap_or(0),
            Value::Int64(i) => *i,
            _ => 0,
        };
        Ok(Value::str(durations::duration_string(
            secs.saturating_mul(1_000_000_000),
        )))
    }),
    FuncDef::new("durationRound", &[A], |_, a| {
        Ok(Value::str(durations::duration_round(&a[0])))
    }),
    // Non-deterministic: the time of the render.
    FuncDef::new("now", &[], |_, _| Ok(dates::time_of(&Value::Nil).value())).nondeterministic(),
    // `time.Since(t).Round(time.Second)`: halves away from zero.
    FuncDef::new("ago", &[A], |_, a| {
        let nanos = |t: dates::Time| i128::from(t.unix) * 1_000_000_000 + i128::from(t.nanos);
        let since = nanos(dates::time_of(&Value::Nil)) - nanos(dates::time_of(&a[0]));
        let second = 1_000_000_000;
        let rounded = (since.abs() + second / 2) / second * second * since.signum();
        Ok(Value::str(durations::duration_string(
            rounded.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64,
        )))
    })
    .nondeterministic(),
];

/// `t.In(loc).Format(layout)` with the location sprig's `dateInZone` loads: the system's
/// zone of that name, or UTC when there is none.
fn in_zone(t: dates::Time, zone: &str, layout: &str) -> String {
    match crate::go::zoneinfo::load_location(zone) {
        Some(location) => t.format_in(layout, &location.lookup(t.unix)),
        None => t.format_local(layout),
    }
}
