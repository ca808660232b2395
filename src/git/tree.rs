//! Reading a commit that is not checked out: resolve a revision (`v1.2.0`, `main~3`, a
//! commit id) to a commit, list the files of its tree and read blobs, all from the object
//! database with `gix` (no checkout, the work tree and HEAD are never touched).
//!
//! A tree is untrusted: the walk is iterative (a crafted tree nests 16,000 deep), keeps no
//! path longer than [`MAX_PATH_BYTES`] (below that depth every entry's path would be longer
//! still: memory growing with the square of the depth), and a blob's size is read from its
//! header before its bytes (a small pack can hold a blob of gigabytes). So is every tree
//! and commit ([`MAX_TREE_BYTES`], [`MAX_COMMIT_BYTES`]): gix has no allocation limit of its
//! own, and a crafted tree or commit object of gigabytes would be decompressed whole. A tree
//! listing stops after [`MAX_TREE_ENTRIES`] entries: trees are shared by id, so a few tiny
//! ones can name millions of paths.

use std::collections::HashMap;
use std::rc::Rc;

use gix::bstr::ByteSlice;

use super::{GitError, Repo};

/// Longest path a tree walk keeps, in bytes: no file system checks out a longer one (git's
/// limit is the system's `PATH_MAX`, 4,096 bytes on Linux).
pub const MAX_PATH_BYTES: usize = 4096;

/// One entry of a tree as a listing walks it.
struct Entry {
    name: String,
    id: gix::ObjectId,
    /// None for a subtree.
    kind: Option<EntryKind>,
}

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

/// Largest tree object read, by its header: a tree of 32 MiB lists some 500,000 entries
/// (the largest real directories hold a few thousand), and a crafted one of gigabytes is
/// refused before it is decompressed.
pub const MAX_TREE_BYTES: u64 = 32 << 20;

/// Largest commit or tag object read, by its header (history mining's bound too): a
/// commit is a few hundred bytes plus its message.
pub const MAX_COMMIT_BYTES: u64 = 1 << 20;

/// Most entries (files and directories) one tree listing visits. Trees are shared by id,
/// so twenty tiny trees each naming the next twice list 2^20 paths: the listing stops here
/// instead of walking them, and says so. Real trees are far smaller (the Linux kernel
/// lists some 90,000 entries).
pub const MAX_TREE_ENTRIES: usize = 500_000;

/// Most tags peeled on the way from a revision to its commit.
const MAX_PEELS: usize = 16;

/// The files of a tree, and what a listing left out.
#[derive(Debug, Default)]
pub struct TreeListing {
    /// Every file kept, sorted by path.
    pub files: Vec<TreeFile>,
    /// Entries left out: a path over [`MAX_PATH_BYTES`] (a directory counts once, unwalked),
    /// and, once the listing was cut, each entry or directory not walked.
    pub left_out: usize,
    /// True when the listing stopped at [`MAX_TREE_ENTRIES`].
    pub cut: bool,
}

impl Repo {
    /// The object `id`, read only when its header names the kind `kind` and a size of at
    /// most `max` bytes: nothing is decompressed before the size is known.
    pub(crate) fn bounded_object(
        &self,
        id: gix::ObjectId,
        kind: gix::object::Kind,
        max: u64,
    ) -> Result<gix::Object<'_>, GitError> {
        let name = id.to_string();
        let header = self.repo.find_header(id).map_err(GitError::rev(&name))?;
        if header.kind() != kind {
            let why = format!("{name} is a {}, not a {kind}", header.kind());
            return Err(GitError::rev(&name)(why));
        }
        if header.size() > max {
            return Err(GitError::TooLarge {
                id: name,
                kind,
                size: header.size(),
                max,
            });
        }
        self.repo.find_object(id).map_err(GitError::rev(&name))
    }

    /// The tree of commit `id`, its commit read within [`MAX_COMMIT_BYTES`].
    pub(crate) fn commit_tree(&self, id: gix::ObjectId) -> Result<gix::ObjectId, GitError> {
        let name = id.to_string();
        let commit = self
            .bounded_object(id, gix::object::Kind::Commit, MAX_COMMIT_BYTES)?
            .try_into_commit()
            .map_err(GitError::rev(&name))?;
        Ok(commit.tree_id().map_err(GitError::rev(&name))?.detach())
    }

    /// The entries of tree `id`, read within [`MAX_TREE_BYTES`].
    pub(crate) fn bounded_tree(&self, id: gix::ObjectId) -> Result<gix::Tree<'_>, GitError> {
        self.bounded_object(id, gix::object::Kind::Tree, MAX_TREE_BYTES)?
            .try_into_tree()
            .map_err(GitError::rev(&id.to_string()))
    }

    /// The entries of tree `id` a listing keeps, read within [`MAX_TREE_BYTES`].
    fn tree_entries_of(&self, id: gix::ObjectId) -> Result<Rc<[Entry]>, GitError> {
        let tree = self.bounded_tree(id)?;
        let decoded = tree.decode().map_err(GitError::rev(&id.to_string()))?;
        let mut out = Vec::with_capacity(decoded.entries.len());
        for e in decoded.entries {
            let kind = if e.mode.is_tree() {
                None
            } else if e.mode.is_link() {
                Some(EntryKind::Symlink)
            } else if e.mode.is_commit() {
                Some(EntryKind::Submodule)
            } else if e.mode.is_blob() {
                Some(EntryKind::File)
            } else {
                continue;
            };
            out.push(Entry {
                name: e.filename.to_str_lossy().into_owned(),
                id: e.oid.to_owned(),
                kind,
            });
        }
        Ok(out.into())
    }

    /// The full commit id `rev` names. Tags on the way and the commit are read within
    /// [`MAX_COMMIT_BYTES`] (finding the object `rev` names is gix's own walk).
    pub fn resolve_commit(&self, rev: &str) -> Result<String, GitError> {
        let mut id = self
            .repo
            .rev_parse_single(rev)
            .map_err(GitError::rev(rev))?
            .detach();
        for _ in 0..MAX_PEELS {
            let kind = self
                .repo
                .find_header(id)
                .map_err(GitError::rev(rev))?
                .kind();
            match kind {
                gix::object::Kind::Tag => {
                    let tag = self
                        .bounded_object(id, kind, MAX_COMMIT_BYTES)
                        .map_err(GitError::rev(rev))?
                        .try_into_tag()
                        .map_err(GitError::rev(rev))?;
                    id = tag.target_id().map_err(GitError::rev(rev))?.detach();
                }
                _ => {
                    self.commit_tree(id).map_err(GitError::rev(rev))?;
                    return Ok(id.to_string());
                }
            }
        }
        Err(GitError::rev(rev)(format!(
            "more than {MAX_PEELS} tags on the way to a commit"
        )))
    }

    /// Every file of the tree of `commit`, sorted by path, and how many entries were left
    /// out (see [`Repo::tree_listing`]).
    pub fn tree_files(&self, commit: &str) -> Result<(Vec<TreeFile>, usize), GitError> {
        let listing = self.tree_listing(commit)?;
        Ok((listing.files, listing.left_out))
    }

    /// Every file of the tree of `commit`, sorted by path. Each object is read within its
    /// bound ([`MAX_COMMIT_BYTES`], [`MAX_TREE_BYTES`]), and the walk stops after
    /// [`MAX_TREE_ENTRIES`] entries: what it did not walk is counted as left out.
    pub fn tree_listing(&self, commit: &str) -> Result<TreeListing, GitError> {
        let id = gix::ObjectId::from_hex(commit.as_bytes()).map_err(GitError::rev(commit))?;
        let root = self.commit_tree(id).map_err(GitError::rev(commit))?;
        let mut out = TreeListing::default();
        let mut visited = 0usize;
        // Each tree is read once however many paths name it (a crafted tree names one
        // subtree at thousands of paths); the cache holds at most the entries visited.
        let mut read: HashMap<gix::ObjectId, Rc<[Entry]>> = HashMap::new();
        // Pending subtrees with the path that leads to them (`dir/`), on a heap stack.
        let mut stack = vec![(root, String::new())];
        while let Some((tree_id, prefix)) = stack.pop() {
            let entries = match read.get(&tree_id) {
                Some(e) => Rc::clone(e),
                None => {
                    let e = self
                        .tree_entries_of(tree_id)
                        .map_err(GitError::rev(commit))?;
                    read.insert(tree_id, Rc::clone(&e));
                    e
                }
            };
            for (i, e) in entries.iter().enumerate() {
                visited += 1;
                if visited > MAX_TREE_ENTRIES {
                    // This tree's rest, and every directory still pending, unwalked.
                    out.left_out += entries.len() - i + stack.len();
                    out.cut = true;
                    stack.clear();
                    break;
                }
                let path = format!("{prefix}{}", e.name);
                if path.len() > MAX_PATH_BYTES {
                    out.left_out += 1;
                    continue;
                }
                match e.kind {
                    None => stack.push((e.id, path + "/")),
                    Some(kind) => out.files.push(TreeFile {
                        path,
                        id: e.id,
                        kind,
                    }),
                }
            }
        }
        out.files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// Whether this clone holds object `id` (a partial clone lacks the blobs it has not
    /// needed yet).
    pub fn has_object(&self, id: gix::ObjectId) -> bool {
        self.repo.has_object(id)
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
        // Component by component, each tree read within its bound (gix's own path lookup
        // reads every tree on the way whole).
        let mut tree = self.commit_tree(id).ok()?;
        let mut parts = path.split('/').peekable();
        while let Some(name) = parts.next() {
            let read = self.bounded_tree(tree).ok()?;
            let decoded = read.decode().ok()?;
            let entry = decoded
                .entries
                .iter()
                .find(|e| e.filename.as_bytes() == name.as_bytes())?;
            let last = parts.peek().is_none();
            match (last, entry.mode.is_tree(), entry.mode.is_blob()) {
                (false, true, _) => tree = entry.oid.to_owned(),
                (true, _, true) => {
                    let blob = entry.oid.to_owned();
                    if self.blob_size(blob).ok()? > max {
                        return None;
                    }
                    return self.blob(blob).ok();
                }
                _ => return None,
            }
        }
        None
    }

    /// A handle that reads this repository's blobs from any thread.
    pub fn blobs(&self) -> super::blobs::Blobs {
        super::blobs::Blobs::of(&self.repo)
    }

    /// The bytes of a blob.
    pub fn blob(&self, id: gix::ObjectId) -> Result<Vec<u8>, GitError> {
        super::blobs::bytes(&self.repo, id)
    }
}
