//! A chart's other files, what templates see as `.Files`: every file of the chart that is not
//! `Chart.yaml`, `values.yaml`, a template or a subchart. Helm reads them all when it loads the
//! chart; kdelta reads each when a template first asks for it, since most templates never do
//! (kube-prometheus-stack's 6 MB of `crds/` and READMEs are read by no template with its
//! default values). The names are known from the walk, so `.Files.Glob`, `range` and `len`
//! see them all; a read that fails is reported after the run, as the render's error.

use crate::source::{Bytes, Contents};
use crate::template::bytes::GoBytes;
use crate::template::{LazyEntries, Value};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// The files of one chart, by path relative to the chart (`files/app.conf`).
#[derive(Default)]
pub struct ChartFiles {
    files: BTreeMap<String, File>,
    /// The first read that failed (the file, the error's text), which fails the render.
    failed: Mutex<Option<(String, String)>>,
}

/// A file's contents as a template reads them: a Go string (its UTF-8 BOM removed), made once.
struct File {
    text: OnceLock<Arc<str>>,
    /// The contents, or the read that gives them, until the text is made.
    pending: Mutex<Option<Contents>>,
}

impl ChartFiles {
    /// The chart's files, from `(path, contents)`.
    pub fn new(files: impl IntoIterator<Item = (String, Contents)>) -> ChartFiles {
        let files = files
            .into_iter()
            .map(|(path, contents)| {
                let file = File {
                    text: OnceLock::new(),
                    pending: Mutex::new(Some(contents)),
                };
                (path, file)
            })
            .collect();
        ChartFiles {
            files,
            failed: Mutex::default(),
        }
    }

    /// The paths, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    /// True when the chart has a file at `path`.
    pub fn contains(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    /// The contents of `path`, read now if they were not; `None` when there is no such file.
    /// A failed read gives `""` and is kept for [`ChartFiles::failure`].
    pub fn get(&self, path: &str) -> Option<Arc<str>> {
        let file = self.files.get(path)?;
        Some(
            file.text
                .get_or_init(|| {
                    let pending = file
                        .pending
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .take();
                    let bytes = match pending {
                        Some(Contents::Read(bytes)) => bytes,
                        Some(Contents::Later(later)) => match later() {
                            Ok(bytes) => bytes,
                            Err(e) => {
                                self.failed
                                    .lock()
                                    .unwrap_or_else(PoisonError::into_inner)
                                    .get_or_insert((path.to_string(), e.to_string()));
                                return Arc::from("");
                            }
                        },
                        None => return Arc::from(""),
                    };
                    go_string(bytes)
                })
                .clone(),
        )
    }

    /// Every file's contents, read now where they were not. On this core: it runs inside the
    /// `.Files` map's one-time fill, and a core waiting on other cores may take up a template
    /// that fills the same map, which would wait on itself.
    pub fn all(&self) -> BTreeMap<String, Arc<str>> {
        self.files
            .keys()
            .map(|path| (path.clone(), self.get(path).unwrap_or_default()))
            .collect()
    }

    /// The first read that failed: the file and the error's text.
    pub fn failure(&self) -> Option<(String, String)> {
        self.failed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl LazyEntries for ChartFiles {
    fn entries(&self) -> BTreeMap<String, Value> {
        self.all()
            .into_iter()
            .map(|(path, text)| (path, GoBytes::value(text)))
            .collect()
    }
}

impl std::fmt::Debug for ChartFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

/// The Go string of a file, its BOM removed, sharing the file's bytes when it has none and is
/// UTF-8 (a binary file becomes a Go string a byte at a time).
fn go_string(bytes: Bytes) -> Arc<str> {
    match bytes.strip_prefix(&[0xef, 0xbb, 0xbf]) {
        Some(rest) => Arc::from(crate::template::gostr::from_bytes(rest)),
        None => crate::template::gostr::from_shared(bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceError;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn later(reads: &Arc<AtomicUsize>, result: Result<&'static [u8], SourceError>) -> Contents {
        let reads = reads.clone();
        Contents::Later(Box::new(move || {
            reads.fetch_add(1, Ordering::SeqCst);
            result.map(Bytes::from)
        }))
    }

    #[test]
    fn a_file_is_read_when_first_asked_for_and_once() {
        let reads = Arc::new(AtomicUsize::new(0));
        let files = ChartFiles::new([
            ("a.txt".to_string(), later(&reads, Ok(b"\xef\xbb\xbfhello"))),
            (
                "b.bin".to_string(),
                Contents::Read(Bytes::from(&b"\xff"[..])),
            ),
        ]);
        assert_eq!(files.names().collect::<Vec<_>>(), ["a.txt", "b.bin"]);
        assert_eq!(reads.load(Ordering::SeqCst), 0);
        assert_eq!(files.get("a.txt").as_deref(), Some("hello"));
        assert_eq!(files.get("a.txt").as_deref(), Some("hello"));
        assert_eq!(reads.load(Ordering::SeqCst), 1);
        assert_eq!(files.get("missing"), None);
        // Bytes that are not UTF-8 become the Go string's private code points.
        assert_eq!(files.get("b.bin").unwrap().chars().count(), 1);
        assert!(files.failure().is_none());
    }

    #[test]
    fn a_failed_read_is_empty_and_kept() {
        let reads = Arc::new(AtomicUsize::new(0));
        let gone = || SourceError::NotFound {
            path: "charts/x/a.txt".to_string(),
        };
        let files = ChartFiles::new([("a.txt".to_string(), later(&reads, Err(gone())))]);
        assert_eq!(files.all()["a.txt"].as_ref(), "");
        assert_eq!(
            files.failure(),
            Some(("a.txt".to_string(), gone().to_string()))
        );
    }
}
