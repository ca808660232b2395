//! What one pass of an index run indexes: the work tree, walked and hashed (reusing the
//! stat cache), or the tree of a `--rev` commit, with the branch's catalog to compare it with.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::error::IndexError;
use super::observe::{Observer, Phase};
use super::plan::Scanned;
use super::{rev, scan, walk};
use crate::git::BranchRef;
use crate::store::catalog::CatalogRow;
use crate::store::Db;
use crate::workspace::Workspace;

/// What a pass found to index, and the branch's catalog to compare it with.
pub(super) struct Found {
    /// The files whose bytes may be read (work tree), or are held (`--rev`).
    pub(super) walked: walk::Walk,
    /// Every entry, hashed.
    pub(super) scanned: Vec<Scanned>,
    /// The branch's catalog rows.
    pub(super) old: Vec<CatalogRow>,
    /// Contents other branches use.
    pub(super) outside: HashSet<String>,
    /// Entries left out, never stored (`rev::Gathered::left_out`, `walk::Walk::left_out`).
    pub(super) left_out: usize,
}

/// Walk and hash the work tree, or read the tree of `--rev` (keeping the bytes of content
/// not in `known`).
pub(super) fn find_files(
    ws: &Workspace,
    db: &Db,
    branch: &BranchRef,
    commit: Option<&str>,
    known: &HashSet<String>,
    obs: &dyn Observer,
) -> Result<Found, IndexError> {
    Ok(match commit {
        Some(c) => {
            let g = rev::gather(&ws.repo, c, known, &ws.config.index)?;
            if g.cut {
                obs.event(super::observe::Event::TreeCut {
                    max: crate::git::tree::MAX_TREE_ENTRIES,
                    left_out: g.left_out,
                });
            }
            Found {
                walked: g.walk,
                scanned: g.scanned,
                old: db.catalog().branch(&branch.key)?,
                outside: db.catalog().hashes_used_outside(&branch.key)?,
                left_out: g.left_out,
            }
        }
        None => {
            let view = db.catalog().view(&branch.key)?;
            tracing::debug!("catalog read");
            let (walked, scanned) = walk_and_scan(ws, db, branch, &view.by_path, obs)?;
            // Names git would not check out are counted, never stored (see `walk::Walk`).
            let left_out = walked.left_out.len();
            Found {
                walked,
                scanned,
                old: view.branch_rows,
                outside: view.used_outside,
                left_out,
            }
        }
    })
}

/// Walk the work tree and hash what changed (reusing the stat cache), with progress.
fn walk_and_scan(
    ws: &Workspace,
    db: &Db,
    branch: &BranchRef,
    cache: &HashMap<String, Vec<CatalogRow>>,
    obs: &dyn Observer,
) -> Result<(walk::Walk, Vec<Scanned>), IndexError> {
    let walked = walk::walk(&ws.workdir);
    tracing::debug!("work tree walked");
    if walked.files.is_empty() && walked.skipped.is_empty() && branch.unborn {
        db.run_state().clear_checkpoint()?;
        return Err(IndexError::Empty {
            path: ws.workdir.clone(),
        });
    }
    obs.start(Phase::Scanning, walked.files.len());
    let done = AtomicUsize::new(0);
    let tick = || obs.progress(done.fetch_add(1, Ordering::Relaxed) + 1);
    let scanned = scan::scan(&walked, cache, &ws.config.index, &tick);
    obs.finish();
    tracing::debug!("files scanned");
    Ok((walked, scanned))
}
