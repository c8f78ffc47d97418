//! kdelta: render a GitOps repository at two git revisions and report what changes in the
//! cluster. See docs/ and DESIGN.md for the architecture; `src/main.rs` is the binary.

// Findings are the error values of rendering; they are large by design (file, line, rule, help)
// and rare, so boxing them would only add noise.
#![allow(clippy::result_large_err)]

pub mod argocd;
pub mod config;
pub mod diff;
pub mod directory;
pub mod discover;
pub mod engine;
pub mod fetch;
pub mod finding;
pub mod flux;
#[doc(hidden)]
pub mod fuzzing;
pub mod fxhash;
pub mod go;
pub mod helm;
pub mod kustomize;
pub mod once;
pub mod panic;
pub mod pipeline;
pub mod process;
pub mod redact;
pub mod render;
pub mod report;
pub mod resource;
pub mod semver;
pub mod source;
pub mod target;
pub mod template;
#[doc(hidden)]
pub mod testing;
pub mod validate;
pub mod yaml;
