//! Reading a commit that is not checked out: resolve a revision (`v1.2.0`, `main~3`, a
//! commit id) to a commit, list the files of its tree and read blobs, all from the object
//! database with `gix` (no checkout, the work tree and HEAD are never touched).

use super::{GitError, Repo};

/// What a tree entry is, for indexing purposes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular (or executable) file.
    File,
    /// A symbolic link (never followed).
    Symlink,
    /// A submodule commit.
    Submodule,
}

/// One file of a tree.
#[derive(Debug, Clone)]
pub struct TreeFile {
    /// Path from the top of the tree, `/`-separated.
    pub path: String,
    /// Object id of the blob (or submodule commit).
    pub id: gix::ObjectId,
    /// Kind of entry.
    pub kind: EntryKind,
}

impl Repo {
    /// The full commit id `rev` names.
    pub fn resolve_commit(&self, rev: &str) -> Result<String, GitError> {
        let id = self
            .repo
            .rev_parse_single(rev)
            .map_err(GitError::rev(rev))?;
        let commit = id
            .object()
            .map_err(GitError::rev(rev))?
            .peel_to_commit()
            .map_err(GitError::rev(rev))?;
        Ok(commit.id.to_string())
    }

    /// Every file of the tree of `commit`, sorted by path.
    pub fn tree_files(&self, commit: &str) -> Result<Vec<TreeFile>, GitError> {
        let id = gix::ObjectId::from_hex(commit.as_bytes()).map_err(GitError::rev(commit))?;
        let tree = self
            .repo
            .find_commit(id)
            .map_err(GitError::rev(commit))?
            .tree()
            .map_err(GitError::rev(commit))?;
        let mut recorder = gix::traverse::tree::Recorder::default();
        tree.traverse()
            .breadthfirst(&mut recorder)
            .map_err(GitError::rev(commit))?;
        let mut files: Vec<TreeFile> = recorder
            .records
            .into_iter()
            .filter_map(|r| {
                let kind = if r.mode.is_link() {
                    EntryKind::Symlink
                } else if r.mode.is_commit() {
                    EntryKind::Submodule
                } else if r.mode.is_blob() {
                    EntryKind::File
                } else {
                    return None;
                };
                Some(TreeFile {
                    path: r.filepath.to_string(),
                    id: r.oid,
                    kind,
                })
            })
            .collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(files)
    }

    /// The bytes of a blob.
    pub fn blob(&self, id: gix::ObjectId) -> Result<Vec<u8>, GitError> {
        let object = self
            .repo
            .find_object(id)
            .map_err(GitError::rev(&id.to_string()))?;
        Ok(object.detach().data)
    }
}
