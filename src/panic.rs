//! A safety net for bugs: a panic while rendering one target (or writing one report) is caught
//! and turned into a value, so the other targets still complete and the run ends with exit 1
//! and a finding instead of exit 101 and a lost report. Inputs must never reach it: every
//! known crasher is fixed at its root and kept as a regression test.

use std::any::Any;
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What a caught panic said, and where in kdelta's code it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caught {
    pub message: String,
    /// `src/…rs:line:column` when the panic hook saw it.
    pub location: Option<String>,
}

impl std::fmt::Display for Caught {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.location {
            Some(l) => write!(f, "{} (at {l})", self.message),
            None => f.write_str(&self.message),
        }
    }
}

thread_local! {
    /// The location of the last panic on this thread, recorded by the hook for [`catch`].
    static LAST_LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs a panic hook that records where a panic happened for [`catch`] instead of printing
/// it: the caller reports it as a finding. With `RUST_BACKTRACE` set, Rust's own hook also
/// runs, so a developer still gets the backtrace.
pub fn install_hook() {
    let default = std::panic::take_hook();
    let verbose = std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0");
    std::panic::set_hook(Box::new(move |info| {
        let location = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
        LAST_LOCATION.with(|cell| *cell.borrow_mut() = location);
        if verbose {
            default(info);
        }
    }));
}

/// Runs `f`, turning a panic into [`Caught`]. The closure's state is abandoned on a panic, so
/// callers must not use what it was mutating afterwards (render results are rebuilt from
/// scratch).
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, Caught> {
    LAST_LOCATION.with(|cell| *cell.borrow_mut() = None);
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| Caught {
        message: payload_message(payload.as_ref()),
        location: LAST_LOCATION.with(|cell| cell.borrow_mut().take()),
    })
}

/// Test builds only: panics when `KDELTA_INJECT_PANIC` names `point` (a target id, or
/// `writer:json` and the like), so tests can prove the net holds without a real crasher.
/// Release builds ignore the variable.
pub fn inject(point: &str) {
    if cfg!(debug_assertions) && std::env::var("KDELTA_INJECT_PANIC").is_ok_and(|v| v == point) {
        panic!("panic injected at {point} by KDELTA_INJECT_PANIC");
    }
}

fn payload_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_a_value_with_its_message() {
        let caught = catch(|| -> u32 { panic!("boom {}", 7) }).unwrap_err();
        assert_eq!(caught.message, "boom 7");
        assert_eq!(catch(|| 3).unwrap(), 3);
    }

    #[test]
    fn the_hook_records_the_location() {
        install_hook();
        let caught = catch(|| -> u32 { panic!("where") }).unwrap_err();
        let location = caught.location.expect("the hook saw the panic");
        assert!(location.starts_with("src/panic.rs:"), "{location}");
    }
}
