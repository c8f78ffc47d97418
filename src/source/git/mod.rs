//! Git repositories through gix: revisions, merge bases, and snapshots of a commit's tree or of
//! the staged index, read straight from the object database (no checkout). The only module
//! that knows gix.

mod blobs;
mod commit;
#[cfg(all(test, unix))]
mod fixture;
mod index;
mod repo;
mod tree;
mod view;

pub use commit::CommitSnapshot;
pub use index::IndexSnapshot;
pub use repo::{GitRepo, ResolvedRev};

use std::fmt::Display;

use super::{ObjectId, SourceError};

/// A kdelta id from a gix one; only SHA-1 repositories are supported.
fn to_oid(id: &gix::oid) -> Result<ObjectId, SourceError> {
    <[u8; 20]>::try_from(id.as_bytes())
        .map(ObjectId)
        .map_err(|_| SourceError::Git(format!("unsupported object id {id} (only SHA-1 is)")))
}

/// The gix id of a kdelta id.
fn to_gix(id: ObjectId) -> gix::ObjectId {
    gix::ObjectId::Sha1(id.0)
}

/// `context: cause`, with the innermost cause gix recorded (its outer messages name internals).
fn git_error(context: impl Display, err: gix::Error) -> SourceError {
    SourceError::Git(format!("{context}: {}", err.probable_cause()))
}
