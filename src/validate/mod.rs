//! Validating rendered objects: against the Kubernetes API schemas of a chosen version
//! (bundled, offline) and against the repository's own CRDs, and whether a version still
//! serves an apiVersion (`schema`). Knows nothing of engines or the pipeline.

pub mod deployed;
pub mod references;
pub mod schema;
pub mod schema_locations;
pub mod selectors;
pub mod stage;
