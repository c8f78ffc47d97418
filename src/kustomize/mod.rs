//! Native `kustomize build` (kustomize v5.5.0 semantics).

use crate::render::{Files, RenderOptions};
use crate::report::Finding;
use crate::resource::Resource;
use crate::source::RepoPath;

/// Builds the kustomization in `dir`. The bool is false when an error stopped the build.
pub fn build(
    _files: &Files,
    dir: &RepoPath,
    _opts: &RenderOptions,
) -> (Vec<Resource>, Vec<Finding>, bool) {
    let f = Finding::notice(
        "kustomize.not-rendered-yet",
        "kustomizations are discovered but not rendered yet by this kdelta version",
    )
    .in_file(dir.to_string());
    (Vec::new(), vec![f], true)
}
