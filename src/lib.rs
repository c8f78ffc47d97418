//! kdelta: render a GitOps repository at two git revisions and report what changes in the
//! cluster. See docs/ and DESIGN.md for the architecture; `src/main.rs` is the binary.

pub mod source;
pub mod yaml;
