//! `doctor --repair`: the repairs, done under the index lock, so that nothing another
//! process writes meanwhile is taken for damage or wiped under it.

use super::{add_stale_lock, check, check_as, Health, Repair};
use crate::index::lock::{self, Contention};
use crate::index::run::{IndexOptions, ResumeChoice};
use crate::index::IndexError;
use crate::store::{Db, StoreError};
use crate::workspace::{Workspace, DB_FILE, LANCE_DIR};

/// How long a repair waits for a running index run to finish.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// Check and repair under the index lock, so that nothing another process writes meanwhile
/// (an import's chunks before its catalog commits) is taken for damage. Returns what the
/// check found and what was done, in words. An index whose database cannot even be opened
/// (SQLite says it is corrupt or not a database, or its lock row is too damaged to read)
/// cannot be locked, nor written by anyone else: only then is it rebuilt without the lock.
/// Any other error opening it (a full disk, an I/O error, permissions, another process
/// writing it) or a lock another run holds stops the repair with an error, changing nothing.
pub fn repair(
    ws: &Workspace,
    stop: &crate::index::Stop,
    obs: &dyn crate::index::Observer,
) -> Result<(Health, Vec<String>), IndexError> {
    let me = lock::me();
    let mut db = match ws.db() {
        Ok(d) => Some(d),
        // Real damage (not a database, corrupt): no lock can be taken, nor held by anyone.
        // Too new: the check refuses it, nothing is touched.
        Err(e @ (StoreError::Corrupt { .. } | StoreError::TooNew { .. })) => {
            tracing::debug!("the index cannot be opened: {e}");
            None
        }
        // A full disk, an I/O error, permissions, a busy database: never a reason to wipe
        // (and never without the lock).
        Err(e) => return Err(e.into()),
    };
    // A stale lock is taken over by `acquire`: remember it to report and count it.
    let stale = db
        .as_ref()
        .and_then(|d| d.index_lock().holder().ok().flatten())
        .filter(lock::is_stale);
    if let Some(d) = db.as_ref() {
        match lock::acquire(d, &me, Contention::Wait(LOCK_WAIT), |_| {}) {
            Ok(_) => {}
            // Damage in the lock row itself: no process can hold or renew that lock.
            Err(IndexError::Store(StoreError::Corrupt { .. })) => db = None,
            // Busy, held by a live run, or not writable: never carry on without the lock.
            Err(e) => return Err(e),
        }
    }
    let result = match db.as_ref() {
        Some(_) => check_as(ws, Some(&me)),
        None => check(ws),
    }
    .and_then(|mut health| {
        if let Some(l) = &stale {
            add_stale_lock(&mut health, l);
            health
                .findings
                .sort_by_key(|f| std::cmp::Reverse(f.severity));
        }
        let done = apply(ws, db.as_ref(), &health)?;
        Ok((health, done))
    });
    // After a rebuild the lock row is gone with the old database.
    if let Some(d) = &db {
        let _ = d.index_lock().release(&me);
    }
    let (health, (mut done, reindex)) = result?;
    if reindex {
        let opts = IndexOptions {
            dry_run: false,
            resume: ResumeChoice::Resume,
            contention: Contention::Wait(LOCK_WAIT),
            commit: None,
            embed: crate::index::EmbedPolicy::All,
            stop: stop.clone(),
        };
        crate::index::run(ws, &opts, obs)?;
        done.push("brought the index of the checked-out branch up to date".into());
    }
    Ok((health, done))
}

/// Apply the repairs of `health`, holding the lock through `db` (None: the database could
/// not be opened). Returns what was done and whether an index run must follow.
fn apply(
    ws: &Workspace,
    db: Option<&Db>,
    health: &Health,
) -> Result<(Vec<String>, bool), IndexError> {
    let mut done = Vec::new();
    let repairs: Vec<&Repair> = health.findings.iter().map(|f| &f.repair).collect();
    if repairs.contains(&&Repair::Refuse) || repairs.is_empty() {
        return Ok((done, false));
    }
    if repairs.contains(&&Repair::ReleaseLock) {
        // `acquire` above took the stale lock over.
        done.push("released the stale lock".into());
    }
    match db {
        Some(db) if !repairs.contains(&&Repair::Rebuild) => {
            let reindex = targeted(ws, db, &repairs, &mut done)?;
            Ok((done, reindex))
        }
        _ => {
            wipe(ws)?;
            done.push(format!(
                "removed the damaged index in {}",
                ws.index_dir.display()
            ));
            Ok((done, true))
        }
    }
}

/// Repairs done under the lock. Returns whether an index run must follow.
fn targeted(
    ws: &Workspace,
    db: &Db,
    repairs: &[&Repair],
    done: &mut Vec<String>,
) -> Result<bool, IndexError> {
    let chunks = ws.chunk_store()?;
    let mut reindex = false;
    for r in repairs {
        match r {
            Repair::DropOrphanChunks(hashes) => {
                chunks.delete_hashes(hashes)?;
                done.push(format!("deleted {} orphan chunk groups", hashes.len()));
            }
            Repair::Forget(hashes) => {
                chunks.delete_hashes(hashes)?;
                db.health().forget_content(hashes)?;
                done.push(format!("forgot {} contents to compute again", hashes.len()));
                reindex = true;
            }
            Repair::DropOrphanSymbols => {
                let n = db.health().drop_orphan_symbols()?;
                if n > 0 {
                    done.push(format!("deleted {n} orphan symbols"));
                }
            }
            Repair::FixFileTerms => {
                let dropped = db.file_terms().drop_orphans()?;
                let filled = crate::index::terms::backfill(db, &chunks)?;
                done.push(format!(
                    "whole-file terms: filled {filled}, deleted {dropped} orphans"
                ));
            }
            Repair::RebuildFts => {
                chunks.refresh_fts(ws.config.search.stemming)?;
                done.push("rebuilt the full-text index".into());
            }
            Repair::ResetVectors(model) => {
                chunks.drop_vectors(model)?;
                db.embedded().forget_model(model)?;
                done.push(format!(
                    "dropped the vectors of {model}; they are embedded again"
                ));
                reindex = true;
            }
            Repair::Resume | Repair::Reindex => reindex = true,
            Repair::ReleaseLock | Repair::Refuse | Repair::Rebuild => {}
        }
    }
    Ok(reindex)
}

/// Remove our files from the index directory (not the directory: it may be the user's).
fn wipe(ws: &Workspace) -> Result<(), IndexError> {
    let dir = &ws.index_dir;
    let io = |path: std::path::PathBuf, e| StoreError::Dir { path, source: e };
    let lance = dir.join(LANCE_DIR);
    if lance.exists() {
        std::fs::remove_dir_all(&lance).map_err(|e| io(lance.clone(), e))?;
    }
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let f = dir.join(format!("{DB_FILE}{suffix}"));
        if f.exists() {
            std::fs::remove_file(&f).map_err(|e| io(f.clone(), e))?;
        }
    }
    Ok(())
}
