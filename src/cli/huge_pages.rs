//! Transparent huge pages, on for one render and off for a repository.
//!
//! `kdelta render` of one big chart touches 50–80 MB once and exits: faulting that memory in
//! 2 MB pages instead of 4 KB ones saves a quarter of its time (kube-prometheus-stack 85 →
//! 63 ms). A diff or check of a repository allocates and frees on every core for seconds, and
//! there huge pages are cleared for a few objects each: kubeflow/manifests' diff spent 0.3 s
//! more in the kernel and 30 MB more at peak with them. So mimalloc asks for them
//! (`madvise`), and every command but `render` turns them off for the whole process before
//! its first large allocation.
//!
//! Fresh memory is dear where the kernel clears it on first touch (0.13–0.28 ms per 2 MB page
//! on the virtual machines CI uses, where the host faults it in too). A render's first
//! milliseconds touch a few huge pages of each thread's mimalloc segment, while the pool's
//! second thread has nothing to do yet: [`prefault_on_first_worker`] has it fault them in
//! ahead of use (redis 8.6 → 8.2 ms, opentelemetry-operator and mastodon 2–5%).

use std::sync::atomic::{AtomicBool, Ordering};

/// Turns transparent huge pages off for this process (and the plugins it runs), as Linux's
/// `prctl(PR_SET_THP_DISABLE)` does: pages faulted from now on are 4 KB ones. Elsewhere a
/// no-op.
pub fn disable() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes integers only and changes no memory of this process.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// The size and alignment of a mimalloc (v2) segment: each thread carves its small and medium
/// pages from its own segment, from its start.
const SEGMENT_BYTES: usize = 32 << 20;

/// How far into the main thread's segment and a worker's a render of a big chart reaches in
/// its first milliseconds (redis: four huge pages of the main thread's, three of the
/// worker's). More was slower: the worker's own jobs wait behind it.
const MAIN_AHEAD_BYTES: usize = 8 << 20;
const WORKER_AHEAD_BYTES: usize = 6 << 20;

/// Faulted in at a time, so that a stop is seen soon.
const STEP_BYTES: usize = 2 << 20;

static CLAIMED: AtomicBool = AtomicBool::new(false);
static STOPPED: AtomicBool = AtomicBool::new(false);

/// A thread pool's start handler, made on the main thread: the first worker to start faults
/// in the start of its own segment and of the main thread's, step by step until
/// [`stop_prefaulting`], when transparent huge pages are on (with 4 KB pages, most of what it
/// faulted in would never be used).
pub fn prefault_on_first_worker() -> impl Fn(usize) + Send + Sync + 'static {
    let main_segment = current_segment();
    move |_| {
        if CLAIMED.swap(true, Ordering::Relaxed) || !huge_pages_enabled() {
            return;
        }
        let own_segment = current_segment();
        for offset in (0..MAIN_AHEAD_BYTES.max(WORKER_AHEAD_BYTES)).step_by(STEP_BYTES) {
            for (segment, ahead) in [
                (own_segment, WORKER_AHEAD_BYTES),
                (main_segment, MAIN_AHEAD_BYTES),
            ] {
                if STOPPED.load(Ordering::Relaxed) {
                    return;
                }
                if offset < ahead {
                    prefault(segment + offset, STEP_BYTES);
                }
            }
        }
    }
}

/// Ends the faulting ahead: the render it was for is done.
pub fn stop_prefaulting() {
    STOPPED.store(true, Ordering::Relaxed);
}

/// The start of the calling thread's mimalloc segment.
fn current_segment() -> usize {
    let probe = Box::new(0u8);
    std::ptr::from_ref::<u8>(&*probe) as usize & !(SEGMENT_BYTES - 1)
}

/// Whether mimalloc's requests for huge pages are granted (`always` or `madvise`).
fn huge_pages_enabled() -> bool {
    std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
        .is_ok_and(|mode| mode.contains("[always]") || mode.contains("[madvise]"))
}

/// Faults in `len` bytes at `start` as if they were written, without writing them
/// (`MADV_POPULATE_WRITE`, Linux 5.14; elsewhere nothing).
fn prefault(start: usize, len: usize) {
    #[cfg(target_os = "linux")]
    // SAFETY: populating changes no byte of the range (its fresh pages are zero either way);
    // a range that is not mapped, or a kernel without the advice, returns an error that is
    // ignored.
    unsafe {
        libc::madvise(start as *mut libc::c_void, len, libc::MADV_POPULATE_WRITE);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, len);
}
