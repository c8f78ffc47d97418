//! kdelta's Flux cases (`testdata/flux/NN-name/`, see its README): what a Kustomization or
//! HelmRelease renders, as `kdelta render TARGET` prints it, must be `expected.yaml` — the
//! output of the reference tools (`kubectl kustomize`, `helm template`) run on what the
//! controller builds, as each case's `reference` says — document by document; or the render
//! fails with every line of `expected-error.txt` in its stderr.

#[path = "util/fixtures.rs"]
mod fixtures;

use fixtures::{cases, documents, mismatch, run_cases};

#[test]
fn flux_fixtures_match_the_reference_tools() {
    let cases = cases("flux");
    assert!(cases.len() >= 6, "cases missing from testdata/flux");
    run_cases(&cases, |_, stdout, want| {
        mismatch(
            &documents(stdout, "kdelta's output"),
            &documents(want, "expected.yaml"),
        )
    });
}
