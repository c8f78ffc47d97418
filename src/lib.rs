//! kdelta: render a GitOps repository at two git revisions and report what changes in the
//! cluster. See docs/ and DESIGN.md for the architecture; `src/main.rs` is the binary.

// Findings are the error values of rendering; they are large by design (file, line, rule, help)
// and rare, so boxing them would only add noise.
#![allow(clippy::result_large_err)]

pub mod config;
pub mod diff;
pub mod discover;
pub mod finding;
#[doc(hidden)]
pub mod fuzzing;
pub mod kustomize;
pub mod panic;
pub mod render;
pub mod report;
pub mod resource;
pub mod source;
pub mod yaml;
