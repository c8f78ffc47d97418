//! A snapshot over a [`Table`]: links resolved inside it, blobs read from the shared store.
//! Commit and index snapshots are this view under their own names.

use std::sync::Arc;

use super::blobs::BlobStore;
use super::tree::{Node, Table};
use crate::source::links::{self, LinkTable, RawKind};
use crate::source::{Bytes, DirEntry, EntryKind, LaterRead, ObjectId, RepoPath, SourceError};

/// The table of one snapshot plus the shared blob store.
pub(super) struct ObjectView {
    pub(super) table: Table,
    pub(super) blobs: Arc<BlobStore>,
    /// Checked on every read, also of blobs another snapshot already cached.
    pub(super) max_file_size: u64,
    pub(super) description: String,
}

impl LinkTable for ObjectView {
    fn raw_kind(&self, path: &RepoPath) -> RawKind {
        match self.table.nodes.get(path) {
            Some(node) => node.raw_kind(),
            None if path.is_root() => RawKind::Dir,
            None => RawKind::Missing,
        }
    }

    fn link_target(&self, path: &RepoPath) -> Result<String, SourceError> {
        let node = self.node(path)?;
        let bytes = self.blobs.read_blob(node.id, path, self.max_file_size)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| SourceError::Io {
            path: path.to_string(),
            message: "symbolic link target is not valid UTF-8".to_string(),
        })
    }
}

impl ObjectView {
    fn node(&self, path: &RepoPath) -> Result<Node, SourceError> {
        self.table
            .nodes
            .get(path)
            .copied()
            .ok_or_else(|| SourceError::NotFound {
                path: path.to_string(),
            })
    }

    pub(super) fn read(&self, path: &RepoPath) -> Result<Bytes, SourceError> {
        self.read_with_id(path).map(|(bytes, _)| bytes)
    }

    /// The blob at `path` and its id, which the tree already names.
    pub(super) fn read_with_id(&self, path: &RepoPath) -> Result<(Bytes, ObjectId), SourceError> {
        match links::resolve(self, path)? {
            (_, RawKind::Dir) => Err(SourceError::IsDir {
                path: path.to_string(),
            }),
            (resolved, _) => {
                let node = self.node(&resolved)?;
                let bytes = self.blobs.read_blob(node.id, path, self.max_file_size)?;
                Ok((bytes, node.id))
            }
        }
    }

    /// A read of the blob at `path` for later: the links are resolved and the blob named
    /// now, the store (shared, not borrowed) decodes it when asked.
    pub(super) fn read_later(&self, path: &RepoPath) -> Result<LaterRead, SourceError> {
        let resolved = match links::resolve(self, path)? {
            (_, RawKind::Dir) => {
                return Err(SourceError::IsDir {
                    path: path.to_string(),
                })
            }
            (resolved, _) => resolved,
        };
        let id = self.node(&resolved)?.id;
        let (blobs, path, limit) = (self.blobs.clone(), path.clone(), self.max_file_size);
        Ok(Box::new(move || blobs.read_blob(id, &path, limit)))
    }

    pub(super) fn list(&self, dir: &RepoPath) -> Result<Vec<DirEntry>, SourceError> {
        match links::resolve(self, dir)? {
            (resolved, RawKind::Dir) => Ok(self
                .table
                .children
                .get(&resolved)
                .cloned()
                .unwrap_or_default()),
            _ => Err(SourceError::NotDir {
                path: dir.to_string(),
            }),
        }
    }

    pub(super) fn kind(&self, path: &RepoPath) -> EntryKind {
        match links::resolve(self, path) {
            Ok((_, RawKind::File)) => EntryKind::File,
            Ok((_, RawKind::Dir)) => EntryKind::Dir,
            _ => EntryKind::Missing,
        }
    }

    pub(super) fn object_id(&self, path: &RepoPath) -> Option<ObjectId> {
        let (resolved, _) = links::resolve(self, path).ok()?;
        if resolved.is_root() {
            self.table.root_id
        } else {
            self.table.nodes.get(&resolved).map(|node| node.id)
        }
    }

    /// The blob id of the file at `path` (through symbolic links), from the tree.
    pub(super) fn stored_id(&self, path: &RepoPath) -> Option<ObjectId> {
        match links::resolve(self, path).ok()? {
            (resolved, RawKind::File) => self.table.nodes.get(&resolved).map(|node| node.id),
            _ => None,
        }
    }

    pub(super) fn canonical(&self, path: &RepoPath) -> Result<RepoPath, SourceError> {
        links::resolve(self, path).map(|(resolved, _)| resolved)
    }

    pub(super) fn describe(&self) -> String {
        self.description.clone()
    }
}

/// Implements `Snapshot` for a type holding its [`ObjectView`] in a `view` field.
macro_rules! snapshot_via_view {
    ($ty:ty) => {
        impl $crate::source::Snapshot for $ty {
            fn read(
                &self,
                path: &$crate::source::RepoPath,
            ) -> Result<$crate::source::Bytes, $crate::source::SourceError> {
                self.view.read(path)
            }
            fn list(
                &self,
                dir: &$crate::source::RepoPath,
            ) -> Result<Vec<$crate::source::DirEntry>, $crate::source::SourceError> {
                self.view.list(dir)
            }
            fn kind(&self, path: &$crate::source::RepoPath) -> $crate::source::EntryKind {
                self.view.kind(path)
            }
            fn canonical(
                &self,
                path: &$crate::source::RepoPath,
            ) -> Result<$crate::source::RepoPath, $crate::source::SourceError> {
                self.view.canonical(path)
            }
            fn stored_id(
                &self,
                path: &$crate::source::RepoPath,
            ) -> Option<$crate::source::ObjectId> {
                self.view.stored_id(path)
            }
            fn read_with_id(
                &self,
                path: &$crate::source::RepoPath,
            ) -> Result<
                ($crate::source::Bytes, $crate::source::ObjectId),
                $crate::source::SourceError,
            > {
                self.view.read_with_id(path)
            }
            fn read_seen(
                &self,
                path: &$crate::source::RepoPath,
            ) -> Result<($crate::source::Bytes, $crate::source::Seen), $crate::source::SourceError>
            {
                let (bytes, id) = self.view.read_with_id(path)?;
                Ok((bytes, $crate::source::Seen::Id(id)))
            }
            fn read_later(
                &self,
                path: &$crate::source::RepoPath,
            ) -> Result<Option<$crate::source::LaterRead>, $crate::source::SourceError> {
                self.view.read_later(path).map(Some)
            }
            fn object_id(
                &self,
                path: &$crate::source::RepoPath,
            ) -> Option<$crate::source::ObjectId> {
                self.view.object_id(path)
            }
            fn describe(&self) -> String {
                self.view.describe()
            }
        }
    };
}
pub(super) use snapshot_via_view;
