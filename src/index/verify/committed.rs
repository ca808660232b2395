//! What this clone has committed, asked path by path: the blob at a path in a branch's
//! commit and the SHA-256 of its bytes. A catalog row that came from elsewhere (an imported
//! snapshot, a pull) is true of this clone only where the blob at *its* path has *its*
//! hash: a content verified at one path says nothing about another path that names it (a
//! manifest can point `app/auth.py` at the hash of any verified file, or add a path that
//! does not exist). The same question, asked before anything leaves the machine, keeps a
//! push or an export to committed text: a work tree's untracked or modified files are the
//! user's own and never travel.
//!
//! A branch key from a snapshot or a manifest is untrusted: it names a commit only as a
//! full object id (`rev/…`, `detached/…`) or as a local branch this clone has
//! (`refs/heads/…`), never through a revision expression.

use std::collections::HashMap;

use crate::git::tree::EntryKind;
use crate::git::Repo;
use crate::store::pack::RemoteFile;

/// The commit a catalog branch key names in this clone, if it has it. `rev/<id>` and
/// `detached/<id>` must hold a full object id (40 or 64 hex digits), which is returned as
/// it is (whether the clone has that commit is asked when its tree is read); `refs/heads/…`
/// must be one of this clone's local branches. Nothing else is resolved.
pub fn commit_of(repo: &Repo, key: &str) -> Option<String> {
    if let Some(id) = key
        .strip_prefix("rev/")
        .or_else(|| key.strip_prefix("detached/"))
    {
        let full = matches!(id.len(), 40 | 64) && id.bytes().all(|b| b.is_ascii_hexdigit());
        return full.then(|| id.to_ascii_lowercase());
    }
    if !key.starts_with("refs/heads/") {
        return None;
    }
    // Only a name the ref store holds reaches the resolver: it obeys git's ref-name rules,
    // so it cannot be a revision expression (`~`, `^`, `:`, `@{`, `..`).
    let ours = repo.local_branches().ok()?;
    if !ours.iter().any(|b| b == key) {
        return None;
    }
    repo.resolve_commit(key).ok()
}

/// The SHA-256 of blobs read during one pass, by object id: a blob that many paths or
/// branches share is read and hashed once.
#[derive(Default)]
pub struct BlobHashes {
    by_id: HashMap<gix::ObjectId, Option<String>>,
}

impl BlobHashes {
    /// The SHA-256 of blob `id`, or `None` when it is larger than `max` bytes (by its
    /// header, before any byte is read) or cannot be read.
    pub fn of(&mut self, repo: &Repo, id: gix::ObjectId, max: u64) -> Option<String> {
        self.by_id
            .entry(id)
            .or_insert_with(|| blob_bytes(repo, id, max).map(|b| crate::util::sha256_hex(&b)))
            .clone()
    }
}

/// The bytes of blob `id` when it holds at most `max` bytes.
pub fn blob_bytes(repo: &Repo, id: gix::ObjectId, max: u64) -> Option<Vec<u8>> {
    if repo.blob_size(id).ok()? > max {
        return None;
    }
    repo.blob(id).ok()
}

/// What a commit has at a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AtPath {
    /// A regular file: its blob and the SHA-256 of its bytes.
    File(gix::ObjectId, String),
    /// A regular file this pass does not read (over the size bound, or unreadable).
    Unread,
    /// Something else: a link, a submodule.
    Other,
    /// Nothing.
    Absent,
}

/// The entries of one commit's tree in this clone, by path.
pub struct Committed {
    entries: HashMap<String, (gix::ObjectId, EntryKind)>,
}

impl Committed {
    /// The tree of `commit`, when this clone has that commit and can read its tree.
    pub fn of(repo: &Repo, commit: &str) -> Option<Committed> {
        let (files, _) = repo.tree_files(commit).ok()?;
        Some(Committed {
            entries: files
                .into_iter()
                .map(|f| (f.path, (f.id, f.kind)))
                .collect(),
        })
    }

    /// Whether the tree has an entry at `path`, of any kind.
    pub fn has(&self, path: &str) -> bool {
        self.entries.contains_key(path)
    }

    /// What the tree has at `path`, a regular file's bytes hashed through `blobs`.
    pub fn at(&self, repo: &Repo, blobs: &mut BlobHashes, path: &str, max: u64) -> AtPath {
        match self.entries.get(path) {
            None => AtPath::Absent,
            Some((id, EntryKind::File)) => match blobs.of(repo, *id, max) {
                Some(hash) => AtPath::File(*id, hash),
                None => AtPath::Unread,
            },
            Some(_) => AtPath::Other,
        }
    }
}

/// Of `rows` (one branch's catalog as a manifest carries it), those true of what this
/// clone has committed on `branch_key`, and how many were left out. A row with content is
/// kept only when the blob at its path in the branch's commit has its hash (so an
/// untracked, modified or ignored file's text never leaves the machine); a skipped row
/// (no text travels with it) only when its path is in that commit. A branch with no commit
/// in this clone (unborn, or a key naming none) keeps nothing. `max` bounds each blob read.
pub fn committed_rows(
    repo: &Repo,
    branch_key: &str,
    rows: Vec<RemoteFile>,
    max: u64,
) -> (Vec<RemoteFile>, usize) {
    let Some(tree) = commit_of(repo, branch_key).and_then(|c| Committed::of(repo, &c)) else {
        let n = rows.len();
        return (Vec::new(), n);
    };
    let mut blobs = BlobHashes::default();
    let total = rows.len();
    let kept: Vec<RemoteFile> = rows
        .into_iter()
        .filter(|r| match &r.skip {
            Some(_) => tree.has(&r.path),
            None => matches!(tree.at(repo, &mut blobs, &r.path, max),
                AtPath::File(_, h) if h == r.hash),
        })
        .collect();
    let left = total - kept.len();
    (kept, left)
}
