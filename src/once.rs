//! A result made once for every caller, by the first that needs it, never waited for: a
//! caller that finds it being made on another core makes it too. Making it takes
//! microseconds; a thread put to sleep can take milliseconds to wake (measured on a 2-vCPU
//! VM), and the other core is then idle. Entries of the process's parse and schema caches.

use std::sync::{Arc, OnceLock};

/// A result shared by its clones, empty until one of them makes it.
pub struct Shared<T>(Arc<OnceLock<T>>);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> Default for Shared<T> {
    fn default() -> Self {
        Shared(Arc::new(OnceLock::new()))
    }
}

impl<T: Clone> Shared<T> {
    /// The result, made by `make` when no clone has made it yet.
    pub fn get_or_make(&self, make: impl FnOnce() -> T) -> T {
        if let Some(done) = self.0.get() {
            return done.clone();
        }
        let made = make();
        // Another clone may have made it meanwhile: both are the same result.
        let _ = self.0.set(made.clone());
        made
    }

    /// The result, if it has been made.
    pub fn get(&self) -> Option<&T> {
        self.0.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_result_made_is_every_clones() {
        let shared = Shared::default();
        let other = shared.clone();
        assert_eq!(shared.get(), None);
        assert_eq!(shared.get_or_make(|| 1), 1);
        assert_eq!(other.get_or_make(|| 2), 1);
        assert_eq!(other.get(), Some(&1));
    }
}
