//! Reports: the model every run produces and the writers that print it. Never reads files.

pub mod codequality;
mod escape;
pub mod github;
pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod merge;
mod model;
pub mod overview;
pub mod provenance;
mod revision;
pub mod sarif;
pub mod text;
mod textdiff;
pub mod view;

pub use model::*;

#[cfg(test)]
mod tests;
