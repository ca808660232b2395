//! Reading a commit that is not checked out: resolve a revision (`v1.2.0`, `main~3`, a
//! commit id) to a commit, list the files of its tree and read blobs, all from the object
//! database with `gix` (no checkout, the work tree and HEAD are never touched).
//!
//! A tree is untrusted: the walk is iterative (a crafted tree nests 16,000 deep), keeps no
//! path longer than [`MAX_PATH_BYTES`] (below that depth every entry's path would be longer
//! still: memory growing with the square of the depth), and a blob's size is read from its
//! header before its bytes (a small pack can hold a blob of gigabytes).

use gix::bstr::ByteSlice;

use super::{GitError, Repo};

/// Longest path a tree walk keeps, in bytes: no file system checks out a longer one (git's
/// limit is the system's `PATH_MAX`, 4,096 bytes on Linux).
pub const MAX_PATH_BYTES: usize = 4096;

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

    /// Every file of the tree of `commit`, sorted by path, and how many entries were left
    /// out for a path over [`MAX_PATH_BYTES`] (a directory counts once, unwalked).
    pub fn tree_files(&self, commit: &str) -> Result<(Vec<TreeFile>, usize), GitError> {
        let id = gix::ObjectId::from_hex(commit.as_bytes()).map_err(GitError::rev(commit))?;
        let root = self
            .repo
            .find_commit(id)
            .map_err(GitError::rev(commit))?
            .tree_id()
            .map_err(GitError::rev(commit))?
            .detach();
        let mut files = Vec::new();
        let mut too_long = 0;
        // Pending subtrees with the path that leads to them (`dir/`), on a heap stack.
        let mut stack = vec![(root, String::new())];
        while let Some((tree_id, prefix)) = stack.pop() {
            let tree = self
                .repo
                .find_object(tree_id)
                .map_err(GitError::rev(commit))?
                .try_into_tree()
                .map_err(GitError::rev(commit))?;
            let decoded = tree.decode().map_err(GitError::rev(commit))?;
            for e in decoded.entries {
                let path = format!("{prefix}{}", e.filename.to_str_lossy());
                if path.len() > MAX_PATH_BYTES {
                    too_long += 1;
                    continue;
                }
                let kind = if e.mode.is_tree() {
                    stack.push((e.oid.to_owned(), path + "/"));
                    continue;
                } else if e.mode.is_link() {
                    EntryKind::Symlink
                } else if e.mode.is_commit() {
                    EntryKind::Submodule
                } else if e.mode.is_blob() {
                    EntryKind::File
                } else {
                    continue;
                };
                files.push(TreeFile {
                    path,
                    id: e.oid.to_owned(),
                    kind,
                });
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok((files, too_long))
    }

    /// The size of a blob, from its object header: the bytes are not read.
    pub fn blob_size(&self, id: gix::ObjectId) -> Result<u64, GitError> {
        let header = self
            .repo
            .find_header(id)
            .map_err(GitError::rev(&id.to_string()))?;
        Ok(header.size())
    }

    /// The bytes of the file at `path` in the tree of `commit`, when this clone has that
    /// commit and the path names a regular file of at most `max` bytes (checked by its
    /// header before it is read). `None` for anything else, a damaged object included: the
    /// caller only looks for bytes it may use.
    pub fn blob_at(&self, commit: &str, path: &str, max: u64) -> Option<Vec<u8>> {
        let id = gix::ObjectId::from_hex(commit.as_bytes()).ok()?;
        let tree = self.repo.find_commit(id).ok()?.tree().ok()?;
        let entry = tree.lookup_entry_by_path(path).ok()??;
        if !entry.mode().is_blob() {
            return None;
        }
        let blob = entry.object_id();
        if self.blob_size(blob).ok()? > max {
            return None;
        }
        self.blob(blob).ok()
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
