//! Indexing a commit that is not checked out (`--rev`): its tree is read from the object
//! database, each blob is hashed (SHA-256, like work-tree files) and only content no branch
//! has indexed yet is written to a private scratch directory for chunking. Everything else
//! is an AddTag. The work tree and HEAD are never touched.

use std::collections::HashSet;
use std::path::Path;

use super::plan::Scanned;
use super::quality::{self, SkipReason};
use super::walk::{Walk, WalkedFile};
use super::IndexError;
use crate::config::IndexConfig;
use crate::git::tree::EntryKind;
use crate::git::Repo;
use crate::store::StoreError;
use crate::util::ScratchDir;

/// Catalog key under which a commit's tree is indexed.
pub fn rev_key(commit: &str) -> String {
    format!("rev/{commit}")
}

/// The files of a commit, as the indexer needs them.
pub struct Gathered {
    /// Every entry, hashed and filtered, sorted by path.
    pub scanned: Vec<Scanned>,
    /// The files whose content must be computed, materialised under the scratch directory.
    pub walk: Walk,
    /// Keeps the scratch directory alive until indexing is done.
    pub scratch: ScratchDir,
}

/// Read the tree of `commit`; write blobs whose content is not in `known` into a scratch
/// directory inside `index_dir`.
pub fn gather(
    repo: &Repo,
    commit: &str,
    known: &HashSet<String>,
    cfg: &IndexConfig,
    index_dir: &Path,
) -> Result<Gathered, IndexError> {
    let dir = index_dir.join(format!("scratch-{}", std::process::id()));
    let scratch = ScratchDir(dir.clone());
    let mut scanned = Vec::new();
    let mut walk = Walk::default();
    for f in repo.tree_files(commit)? {
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
                let bytes = repo.blob(f.id)?;
                s.size = bytes.len() as u64;
                s.content_hash = crate::util::sha256_hex(&bytes);
                if let Err(reason) = quality::check(&bytes, cfg) {
                    s.skip_reason = Some(reason.to_string());
                } else if !known.contains(&s.content_hash) {
                    walk.files.push(materialise(&dir, &f.path, &bytes)?);
                }
            }
        }
        scanned.push(s);
    }
    walk.files.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(Gathered {
        scanned,
        walk,
        scratch,
    })
}

fn materialise(dir: &Path, rel: &str, bytes: &[u8]) -> Result<WalkedFile, IndexError> {
    let abs = dir.join(rel);
    let io = |e| StoreError::Dir {
        path: abs.clone(),
        source: e,
    };
    if let Some(parent) = abs.parent() {
        std::fs::create_dir_all(parent).map_err(io)?;
    }
    std::fs::write(&abs, bytes).map_err(io)?;
    Ok(WalkedFile {
        rel: rel.to_string(),
        abs: abs.clone(),
        size: bytes.len() as u64,
        mtime_ns: 0,
    })
}
