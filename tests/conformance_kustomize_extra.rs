//! Conformance corpus `kustomize-extra` (DESIGN.md section 8): the cases written for this
//! project, in the kustomize corpus's format, with `kubectl kustomize`'s output or error
//! (`tests/conformance/kustomize.rs` runs them, `tests/conformance/harness.rs` judges them).

#[allow(dead_code)] // the shared harness, of which each corpus uses a part
#[path = "conformance/harness.rs"]
mod harness;
#[path = "conformance/kustomize.rs"]
mod kustomize;

#[test]
fn conformance() {
    harness::run_corpus(|root| kustomize::kustomize_corpus(root, "kustomize-extra"));
}
