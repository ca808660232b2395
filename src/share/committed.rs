//! What a push may send: only what is committed. The catalog of a branch comes from the work
//! tree, untracked (not ignored) and modified files included; a push keeps a row only when
//! the branch's commit has a blob at that path whose SHA-256 is the row's content hash (a
//! skipped row, only when the commit has that path), so a local note or an uncommitted edit
//! never leaves the machine.

use std::collections::HashMap;

use crate::git::tree::EntryKind;
use crate::git::{GitError, Repo};
use crate::store::pack::RemoteFile;

/// The commit a catalog branch key names in this clone, if it has it: a `rev/` or
/// `detached/` key names it in full hex (`manifest::is_branch_key`), a `refs/heads/` key
/// must be one of this clone's own branches.
fn commit_of(repo: &Repo, branch: &str) -> Result<Option<String>, GitError> {
    if let Some(id) = branch
        .strip_prefix("rev/")
        .or_else(|| branch.strip_prefix("detached/"))
    {
        let full = matches!(id.len(), 40 | 64) && id.bytes().all(|b| b.is_ascii_hexdigit());
        return Ok(full.then(|| id.to_string()));
    }
    if !repo.local_branches()?.iter().any(|b| b == branch) {
        return Ok(None);
    }
    Ok(repo.resolve_commit(branch).ok())
}

/// The rows of `rows` (the catalog of `branch`) that hold committed content, and how many
/// were left out. Blobs above `max` bytes are not read (their rows are left out).
pub fn committed_rows(
    repo: &Repo,
    branch: &str,
    rows: Vec<RemoteFile>,
    max: u64,
) -> Result<(Vec<RemoteFile>, usize), GitError> {
    let Some(commit) = commit_of(repo, branch)? else {
        let n = rows.len();
        return Ok((Vec::new(), n));
    };
    let (listing, _) = repo.tree_files(&commit)?;
    let blobs: HashMap<String, (gix::ObjectId, EntryKind)> = listing
        .into_iter()
        .map(|f| (f.path, (f.id, f.kind)))
        .collect();
    // One read per blob, however many rows share it.
    let mut hashes: HashMap<gix::ObjectId, Option<(u64, String)>> = HashMap::new();
    let total = rows.len();
    let kept: Vec<RemoteFile> = rows
        .into_iter()
        .filter(|row| {
            let Some((id, kind)) = blobs.get(&row.path) else {
                return false;
            };
            if row.skip.is_some() {
                return true;
            }
            if *kind != EntryKind::File || row.size > max {
                return false;
            }
            let got = hashes.entry(*id).or_insert_with(|| {
                let size = repo.blob_size(*id).ok().filter(|s| *s <= max)?;
                let bytes = repo.blob(*id).ok()?;
                Some((size, crate::util::sha256_hex(&bytes)))
            });
            got.as_ref()
                .is_some_and(|(size, hash)| *size == row.size && *hash == row.hash)
        })
        .collect();
    let left = total - kept.len();
    Ok((kept, left))
}
