//! Indexing a commit that is not checked out (`--rev`): its tree is read from the object
//! database, each blob is hashed (SHA-256, like work-tree files) and only content no branch
//! has indexed yet is computed, its blob read again by the worker that chunks it (never all
//! of them in memory at once). Everything else is an AddTag. The work tree, HEAD and the
//! file system are never touched: a tree is untrusted input (a crafted one names entries
//! `..` or `.git`), so its paths are never used to write anything. A path git itself would
//! refuse to check out, or longer than any checkout, is left out and only counted: it is
//! never stored, so an index of such a tree still exports and imports. A blob larger than
//! `index.max_file_size` is skipped by its header's size, unread. A blob named at many paths
//! is read and hashed once, and the listing itself is bounded (see
//! `git::tree::tree_listing`).

use std::collections::{HashMap, HashSet};

use super::error::IndexError;
use super::plan::Scanned;
use super::walk::{Source, Walk, WalkedFile};
use crate::config::IndexConfig;
use crate::git::tree::EntryKind;
use crate::git::Repo;
use crate::lang::quality::{self, SkipReason};

/// The files of a commit, as the indexer needs them.
pub struct Gathered {
    /// Every entry with a safe path, hashed and filtered, sorted by path.
    pub scanned: Vec<Scanned>,
    /// The files whose content must be computed, with their bytes.
    pub walk: Walk,
    /// Entries left out: a path git would refuse to check out, or too long for any, and
    /// what a cut listing did not walk.
    pub left_out: usize,
    /// The tree lists more than [`crate::git::tree::MAX_TREE_ENTRIES`] entries: the listing
    /// was cut there (the rest is in `left_out`).
    pub cut: bool,
}

/// What one blob gave: read, hashed and checked once however many paths name it.
#[derive(Clone)]
struct Blob {
    size: u64,
    hash: String,
    skip: Option<String>,
    /// Its content must be computed: no branch has indexed it.
    compute: bool,
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
    let listing = repo.tree_listing(commit)?;
    let mut left_out = listing.left_out;
    // A crafted tree names one blob at many paths: it is read once.
    let mut blobs: HashMap<gix::ObjectId, Blob> = HashMap::new();
    let reader = repo.blobs();
    for f in listing.files {
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
                let blob = match blobs.get(&f.id) {
                    Some(b) => b.clone(),
                    None => {
                        let b = read_blob(repo, f.id, known, cfg)?;
                        blobs.insert(f.id, b.clone());
                        b
                    }
                };
                s.size = blob.size;
                s.content_hash = blob.hash;
                s.skip_reason = blob.skip;
                if blob.compute {
                    walk.files.push(WalkedFile {
                        rel: f.path.clone(),
                        size: blob.size,
                        mtime_ns: 0,
                        source: Source::Blob {
                            blobs: reader.clone(),
                            id: f.id,
                        },
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
        cut: listing.cut,
    })
}

/// Size, hash and verdict of blob `id`, and whether its content must be computed (it is not
/// in `known`); its bytes are dropped here.
fn read_blob(
    repo: &Repo,
    id: gix::ObjectId,
    known: &HashSet<String>,
    cfg: &IndexConfig,
) -> Result<Blob, IndexError> {
    let size = match repo.blob_size(id) {
        Ok(size) => size,
        // A partial clone (`git clone --filter=blob:limit=1m`) lacks the blobs it has not
        // needed, which git fetches when a checkout asks: the file is left out, with the
        // reason, rather than failing the run. Named by its object id, so that it is read once
        // the clone has it. (Asked only when the header cannot be read: every other blob
        // costs one lookup, as before.)
        Err(_) if !repo.has_object(id) => {
            return Ok(Blob {
                size: 0,
                hash: crate::util::sha256_hex(format!("missing:{id}").as_bytes()),
                skip: Some(
                    SkipReason::Unreadable(format!("blob {id} is not in this clone")).to_string(),
                ),
                compute: false,
            });
        }
        Err(e) => return Err(e.into()),
    };
    if size > cfg.max_file_size {
        // Named by its size and object id, as a large work-tree file is by its size and
        // mtime: its bytes are never read.
        return Ok(Blob {
            size,
            hash: crate::util::sha256_hex(format!("large:{size}:{id}").as_bytes()),
            skip: Some(SkipReason::TooLarge(size).to_string()),
            compute: false,
        });
    }
    let bytes = repo.blob(id)?;
    let hash = crate::util::sha256_hex(&bytes);
    let mut blob = Blob {
        size: bytes.len() as u64,
        skip: None,
        compute: false,
        hash,
    };
    if let Err(reason) = quality::check(&bytes, cfg) {
        blob.skip = Some(reason.to_string());
    } else {
        blob.compute = !known.contains(&blob.hash);
    }
    Ok(blob)
}
