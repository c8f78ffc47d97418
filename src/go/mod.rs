//! What kdelta's output must share with Go's standard library, implemented once: `strconv`'s
//! integer parsing, `encoding/json`'s string quoting, the float formatting of both,
//! `net/url`, `regexp`'s syntax, `unicode`'s categories and case mappings, and `time`'s civil dates and zone
//! database. Helm,
//! kustomize and Argo CD are Go programs; every copy of these rules that drifted gave wrong
//! output (a kustomize hash suffix, sprig's `int64`), so each lives here alone and is tested
//! against what Go prints.

pub mod civil;
pub mod float;
pub mod json;
pub mod regexp;
pub mod strconv;
pub mod unicode;
pub mod url;
pub mod zoneinfo;
