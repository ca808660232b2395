//! Indexing a commit that is not checked out (`--rev`): its tree is read from the object
//! database, each blob is hashed (SHA-256, like work-tree files) and only content no branch
//! has indexed yet is kept, in memory, for chunking. Everything else is an AddTag. The work
//! tree, HEAD and the file system are never touched: a tree is untrusted input (a crafted
//! one names entries `..` or `.git`), so its paths are never used to write anything. A path
//! git itself would refuse to check out, or longer than any checkout, is left out and only
//! counted: it is never stored, so an index of such a tree still exports and imports. A blob
//! larger than `index.max_file_size` is skipped by its header's size, unread.

use std::collections::HashSet;
use std::sync::Arc;

use super::error::IndexError;
use super::plan::Scanned;
use super::walk::{Source, Walk, WalkedFile};
use crate::config::IndexConfig;
use crate::git::tree::EntryKind;
use crate::git::Repo;
use crate::lang::quality::{self, SkipReason};

/// Catalog key under which a commit's tree is indexed.
pub fn rev_key(commit: &str) -> String {
    format!("rev/{commit}")
}

/// The files of a commit, as the indexer needs them.
pub struct Gathered {
    /// Every entry with a safe path, hashed and filtered, sorted by path.
    pub scanned: Vec<Scanned>,
    /// The files whose content must be computed, with their bytes.
    pub walk: Walk,
    /// Entries left out: a path git would refuse to check out, or too long for any.
    pub left_out: usize,
}

/// Read the tree of `commit`; keep the blobs whose content is not in `known`.
pub fn gather(
    repo: &Repo,
    commit: &str,
    known: &HashSet<String>,
    cfg: &IndexConfig,
) -> Result<Gathered, IndexError> {
    let mut scanned = Vec::new();
    let mut walk = Walk::default();
    let (files, mut left_out) = repo.tree_files(commit)?;
    for f in files {
        if !crate::util::is_safe_rel_path(&f.path) {
            left_out += 1;
            continue;
        }
        let mut s = Scanned {
            rel: f.path.clone(),
            size: 0,
            mtime_ns: 0,
            content_hash: String::new(),
            skip_reason: None,
        };
        match (&f.kind, quality::check_name(&f.path)) {
            (EntryKind::Symlink, _) => s.skip_reason = Some(SkipReason::Symlink.to_string()),
            (EntryKind::Submodule, _) => s.skip_reason = Some(SkipReason::Submodule.to_string()),
            (EntryKind::File, Err(reason)) => s.skip_reason = Some(reason.to_string()),
            (EntryKind::File, Ok(())) => {
                let size = repo.blob_size(f.id)?;
                if size > cfg.max_file_size {
                    // Named by its size and object id, as a large work-tree file is by its
                    // size and mtime: its bytes are never read.
                    s.size = size;
                    s.content_hash =
                        crate::util::sha256_hex(format!("large:{size}:{}", f.id).as_bytes());
                    s.skip_reason = Some(SkipReason::TooLarge(size).to_string());
                    scanned.push(s);
                    continue;
                }
                let bytes = repo.blob(f.id)?;
                s.size = bytes.len() as u64;
                s.content_hash = crate::util::sha256_hex(&bytes);
                if let Err(reason) = quality::check(&bytes, cfg) {
                    s.skip_reason = Some(reason.to_string());
                } else if !known.contains(&s.content_hash) {
                    walk.files.push(WalkedFile {
                        rel: f.path.clone(),
                        size: bytes.len() as u64,
                        mtime_ns: 0,
                        source: Source::Memory(Arc::new(bytes)),
                    });
                }
            }
        }
        scanned.push(s);
    }
    walk.files.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(Gathered {
        scanned,
        walk,
        left_out,
    })
}
