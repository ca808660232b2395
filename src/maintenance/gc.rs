//! Garbage collection: drop the index of branches that no longer exist, the contents no
//! branch uses, and chunk groups no catalog row knows (left by a run that died before it
//! recorded them), then compact the chunk store.

use std::collections::HashSet;
use std::time::Duration;

use crate::index::lock::{self, Contention};
use crate::index::observe::{Event, Observer};
use crate::index::IndexError;
use crate::store::Db;
use crate::workspace::Workspace;

/// How long `gc` waits for an index run's lock.
const LOCK_WAIT: Duration = Duration::from_secs(30);

/// What `gc` removed.
#[derive(Debug, Default)]
pub struct GcReport {
    /// Branch keys whose index was dropped.
    pub dropped: Vec<String>,
    /// Contents no remaining branch uses, deleted.
    pub deleted: Vec<String>,
    /// Chunk groups (content hashes) the catalog did not know, removed.
    pub orphans: Vec<String>,
}

/// Keep the local branches and the checked-out one; remove everything else. Holds the index
/// lock: chunks an index run has written but not yet recorded look like orphans, and must
/// not be collected under its feet.
pub fn gc(ws: &Workspace, obs: &dyn Observer) -> Result<GcReport, IndexError> {
    let mut keep: HashSet<String> = ws.repo.local_branches()?.into_iter().collect();
    keep.insert(ws.repo.branch()?.key);
    let db = ws.db()?;
    let me = lock::me();
    lock::acquire(&db, &me, Contention::Wait(LOCK_WAIT), |h| {
        obs.event(Event::WaitingForLock(h))
    })?;
    let result = collect(ws, &db, &keep);
    db.index_lock().release(&me)?;
    result
}

fn collect(ws: &Workspace, db: &Db, keep: &HashSet<String>) -> Result<GcReport, IndexError> {
    let (dropped, deleted) = db.catalog().gc(keep)?;
    let chunks = ws.chunk_store()?;
    let known = db.catalog().computed_hashes()?;
    let orphans: Vec<String> = chunks
        .hashes()?
        .into_iter()
        .filter(|h| !known.contains(h))
        .collect();
    chunks.delete_hashes(&deleted)?;
    chunks.delete_hashes(&orphans)?;
    // A crash record of content no branch uses any more would only grow the directory.
    crate::index::crashed::forget_unused(&ws.index_dir, &known)?;
    chunks.compact()?;
    Ok(GcReport {
        dropped,
        deleted,
        orphans,
    })
}
