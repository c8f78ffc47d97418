//! Transparent huge pages, on for one render and off for a repository.
//!
//! `kdelta render` of one big chart touches 50–80 MB once and exits: faulting that memory in
//! 2 MB pages instead of 4 KB ones saves a quarter of its time (kube-prometheus-stack 85 →
//! 63 ms). A diff or check of a repository allocates and frees on every core for seconds, and
//! there huge pages are cleared for a few objects each: kubeflow/manifests' diff spent 0.3 s
//! more in the kernel and 30 MB more at peak with them. So mimalloc asks for them
//! (`madvise`), and every command but `render` turns them off for the whole process before
//! its first large allocation.

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
