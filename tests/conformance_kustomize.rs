//! Conformance corpus `kustomize` (DESIGN.md section 8): the cases extracted from kustomize
//! v5.5.0's own `api/krusty` tests, with `kubectl kustomize`'s output or error
//! (`tests/conformance/kustomize.rs` runs them, `tests/conformance/harness.rs` judges them).

#[allow(dead_code)] // the shared harness, of which each corpus uses a part
#[path = "conformance/harness.rs"]
mod harness;
#[path = "conformance/kustomize.rs"]
mod kustomize;

#[test]
fn conformance() {
    harness::run_corpus(|root| kustomize::kustomize_corpus(root, "kustomize"));
}
