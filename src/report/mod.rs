//! Reports: the model every run produces and the writers that print it. Never reads files.

pub mod json;
pub mod junit;
mod model;
pub mod text;

pub use model::*;
