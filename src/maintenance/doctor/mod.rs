//! `git codesearch doctor`: find what is wrong with an index and repair it.
//!
//! Checks: the SQLite file (opens, schema version, `PRAGMA integrity_check`, expected
//! tables), the LanceDB chunk table (opens, readable), catalog vs chunks (orphan chunks,
//! content without chunks, files that look indexed but have no content, orphan symbols), the
//! full-text index, stale locks, an interrupted run, and a sample of indexed files that must
//! still exist in the work tree and whose stored chunks and definitions must be true of them
//! (`index::verify`). Each finding names a repair; severe damage is repaired by
//! rebuilding the index from the work tree (it is derived data: nothing is lost). An index
//! written by a newer version is reported and never modified.

pub mod repair;

use std::collections::HashSet;

use crate::index::lock;
use crate::index::IndexError;
use crate::store::state::LockHolder;
use crate::store::{ChunkStore, Db, StoreError};
use crate::workspace::Workspace;

/// How bad a finding (or the whole index) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Nothing to do.
    Healthy,
    /// Search works but may be stale or slower; repair is cheap.
    Degraded,
    /// Search may return wrong or missing results until repaired.
    Corrupted,
}

/// What `--repair` does about a finding.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "action", content = "hashes")]
pub enum Repair {
    /// Nothing can or should be done here (e.g. an index from a newer version).
    Refuse,
    /// Delete the lock row of a process that is gone.
    ReleaseLock,
    /// Finish the interrupted run.
    Resume,
    /// Delete chunks no stored content owns.
    DropOrphanChunks(Vec<String>),
    /// Forget content whose chunks are missing or not true of its file, so the next run
    /// computes it again.
    Forget(Vec<String>),
    /// Delete symbols no stored content owns.
    DropOrphanSymbols,
    /// Rebuild the full-text index.
    RebuildFts,
    /// Delete whole-file terms no stored content owns and fill in the missing ones.
    FixFileTerms,
    /// Drop a model's vectors and marks, so the next run embeds everything again.
    ResetVectors(String),
    /// Bring the branch's index up to date with the work tree.
    Reindex,
    /// Throw the index away and build it again from the work tree.
    Rebuild,
}

/// One problem found.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Finding {
    /// How bad it is.
    pub severity: Severity,
    /// What is wrong, in words.
    pub problem: String,
    /// What `--repair` does.
    pub repair: Repair,
}

/// Everything the health check found.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Health {
    /// Problems, worst first.
    pub findings: Vec<Finding>,
    /// Facts worth showing that are not problems.
    pub notes: Vec<String>,
}

impl Health {
    /// The worst severity found.
    pub fn severity(&self) -> Severity {
        self.findings
            .iter()
            .map(|f| f.severity)
            .max()
            .unwrap_or(Severity::Healthy)
    }

    fn add(&mut self, severity: Severity, problem: String, repair: Repair) {
        self.findings.push(Finding {
            severity,
            problem,
            repair,
        });
    }
}

/// Files sampled to see whether the index still matches the work tree.
const SAMPLE: usize = 200;

/// Run every check. Never modifies anything.
pub fn check(ws: &Workspace) -> Result<Health, IndexError> {
    check_as(ws, None)
}

/// Run every check; `me` is this process when it holds the index lock (a repair), so its
/// own lock is not reported as a run in progress.
pub(super) fn check_as(ws: &Workspace, me: Option<&LockHolder>) -> Result<Health, IndexError> {
    let mut h = Health::default();
    if !ws.has_index() {
        h.notes
            .push("no index yet: `git codesearch index` builds it".into());
        return Ok(h);
    }
    let db = match ws.db() {
        Ok(db) => db,
        Err(e) => return severe(h, e),
    };
    match check_sqlite(&db, &mut h) {
        Ok(true) => {}
        Ok(false) => return Ok(h),
        Err(e) => return severe(h, e),
    }
    let chunks = match ws.chunk_store() {
        Ok(c) => c,
        // Damage only; an I/O error or a full disk is no reason to rebuild.
        Err(e) if is_damage(&e) => {
            let problem = format!("the chunk store cannot be opened: {}", chain(&e));
            h.add(Severity::Corrupted, problem, Repair::Rebuild);
            return Ok(h);
        }
        Err(e) => return severe(h, e),
    };
    if let Err(e) = check_consistency(&db, &chunks, &mut h) {
        return severe(h, e);
    }
    let stemming = ws.config.search.stemming;
    match chunks.fts_matches(stemming) {
        Ok(true) => {}
        Ok(false) => h.add(
            Severity::Degraded,
            "the full-text index is missing or built for another stemming setting".into(),
            Repair::RebuildFts,
        ),
        Err(e) => return severe(h, e),
    }
    if let Err(e) = check_vectors(ws, &db, &chunks, &mut h) {
        return severe(h, e);
    }
    check_runs(&db, me, &mut h)?;
    check_work_tree(ws, &db, &chunks, &mut h)?;
    h.findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
    Ok(h)
}

/// A store error found while checking: the index is damaged beyond targeted repair, when
/// the error is damage ([`is_damage`]); too new, it is never touched. Anything else (a full
/// disk, an I/O error, permissions, a database another process is writing) is returned:
/// nothing is changed, and a repair must not turn it into a rebuild (paid embeddings lost).
fn severe(mut h: Health, e: StoreError) -> Result<Health, IndexError> {
    match e {
        StoreError::TooNew { .. } => h.add(Severity::Corrupted, e.to_string(), Repair::Refuse),
        _ if is_damage(&e) => h.add(Severity::Corrupted, chain(&e), Repair::Rebuild),
        _ => return Err(e.into()),
    }
    Ok(h)
}

/// Whether `e` is damage to the index itself (what a rebuild repairs), as opposed to a
/// condition of the machine that passes (disk full, I/O error, lack of memory, a lock,
/// permissions) or a file that is not the index's.
pub(super) fn is_damage(e: &StoreError) -> bool {
    use rusqlite::ErrorCode as C;
    match e {
        StoreError::Corrupt { .. }
        | StoreError::ChunksMissing { .. }
        | StoreError::Shape { .. } => true,
        StoreError::Sqlite { source, .. } => !matches!(
            source.sqlite_error_code(),
            Some(
                C::SystemIoFailure
                    | C::DiskFull
                    | C::OutOfMemory
                    | C::DatabaseBusy
                    | C::DatabaseLocked
                    | C::OperationInterrupted
                    | C::FileLockingProtocolFailed
                    | C::CannotOpen
                    | C::PermissionDenied
                    | C::ReadOnly
            )
        ),
        StoreError::Lance { source, .. } => !lance_transient(source),
        _ => false,
    }
}

/// A LanceDB error that comes from the machine, not from the store's content: the object
/// store or file system failed (an I/O error anywhere in its causes), or time ran out.
fn lance_transient(e: &lancedb::Error) -> bool {
    if matches!(
        e,
        lancedb::Error::CreateDir { .. }
            | lancedb::Error::Runtime { .. }
            | lancedb::Error::Timeout { .. }
            | lancedb::Error::ObjectStore { .. }
    ) {
        return true;
    }
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cause {
        if c.is::<std::io::Error>() || c.is::<object_store::Error>() {
            return true;
        }
        cause = c.source();
    }
    false
}

use crate::util::chain;

/// Integrity and schema. Returns false when the database is too damaged to look further.
fn check_sqlite(db: &Db, h: &mut Health) -> Result<bool, StoreError> {
    let problems = db.health().integrity_problems()?;
    if !problems.is_empty() {
        let first: Vec<&str> = problems.iter().take(3).map(String::as_str).collect();
        h.add(
            Severity::Corrupted,
            format!("SQLite integrity check failed: {}", first.join("; ")),
            Repair::Rebuild,
        );
        return Ok(false);
    }
    let missing = db.health().missing_schema_objects()?;
    if !missing.is_empty() {
        h.add(
            Severity::Corrupted,
            format!("tables missing from the database: {}", missing.join(", ")),
            Repair::Rebuild,
        );
        return Ok(false);
    }
    Ok(true)
}

/// Catalog, content, symbols and chunks agree.
fn check_consistency(db: &Db, chunks: &ChunkStore, h: &mut Health) -> Result<(), StoreError> {
    let stored: HashSet<String> = chunks.hashes()?;
    let known = db.catalog().computed_hashes()?;
    let with_chunks = db.health().hashes_with_chunks()?;
    if !with_chunks.is_empty() && !chunks.has_table()? {
        h.add(
            Severity::Corrupted,
            format!(
                "no chunks are stored but {} contents should have some",
                with_chunks.len()
            ),
            Repair::Rebuild,
        );
        return Ok(());
    }
    let mut orphans: Vec<String> = stored.difference(&known).cloned().collect();
    orphans.sort();
    if !orphans.is_empty() {
        h.add(
            Severity::Degraded,
            format!(
                "{} chunk groups belong to no stored content (left by an interrupted run)",
                orphans.len()
            ),
            Repair::DropOrphanChunks(orphans),
        );
    }
    let mut lost: Vec<String> = with_chunks.difference(&stored).cloned().collect();
    lost.extend(db.health().catalog_without_content()?);
    lost.sort();
    lost.dedup();
    if !lost.is_empty() {
        h.add(
            Severity::Corrupted,
            format!(
                "{} indexed contents have no chunks: their files cannot be found by search",
                lost.len()
            ),
            Repair::Forget(lost),
        );
    }
    let orphan_symbols = db.health().orphan_symbol_count()?;
    if orphan_symbols > 0 {
        h.add(
            Severity::Degraded,
            format!("{orphan_symbols} symbols belong to no stored content"),
            Repair::DropOrphanSymbols,
        );
    }
    let orphan_terms = db.file_terms().orphan_count()?;
    let missing_terms = db.file_terms().contents_without_terms()?.len();
    if orphan_terms > 0 || missing_terms > 0 {
        h.add(
            Severity::Degraded,
            format!(
                "whole-file terms: {missing_terms} contents have none (ranked by their chunks only), {orphan_terms} belong to no stored content"
            ),
            Repair::FixFileTerms,
        );
    }
    Ok(())
}

/// Each model's vectors are present and have one dimension, the one configured.
fn check_vectors(
    ws: &Workspace,
    db: &Db,
    chunks: &ChunkStore,
    h: &mut Health,
) -> Result<(), StoreError> {
    let configured = crate::embed::model_id(&ws.config.embed);
    for (model, n) in db.embedded().models()? {
        let dim = chunks.vector_dimension(&model)?;
        let want = ws.config.embed.dimension;
        match dim {
            None => h.add(
                Severity::Degraded,
                format!("{n} contents are marked embedded by {model} but its vectors are gone"),
                Repair::ResetVectors(model.clone()),
            ),
            Some(d) if Some(&model) == configured.as_ref() && want > 0 && d != want => h.add(
                Severity::Degraded,
                format!("vectors of {model} have {d} dimensions, the configuration says {want}"),
                Repair::ResetVectors(model.clone()),
            ),
            Some(d) => h.notes.push(format!(
                "vectors: {n} contents embedded by {model} ({d} dimensions){}",
                if Some(&model) == configured.as_ref() {
                    ""
                } else {
                    ", not the configured model"
                }
            )),
        }
    }
    Ok(())
}

/// Locks and interrupted runs.
fn check_runs(db: &Db, me: Option<&LockHolder>, h: &mut Health) -> Result<(), IndexError> {
    let holder = db
        .index_lock()
        .holder()?
        .filter(|l| me.is_none_or(|me| !is_me(l, me)));
    let live = match &holder {
        Some(l) if lock::is_stale(l) => {
            add_stale_lock(h, l);
            false
        }
        Some(l) => {
            h.notes.push(format!(
                "an index run is in progress: pid {} on {}",
                l.pid, l.host
            ));
            true
        }
        None => false,
    };
    if let (Some(c), false) = (db.run_state().checkpoint()?, live) {
        h.add(
            Severity::Degraded,
            format!(
                "an index run was interrupted in phase {} at {}/{} files",
                c.phase, c.done, c.total
            ),
            Repair::Resume,
        );
    }
    Ok(())
}

pub(super) fn add_stale_lock(h: &mut Health, l: &LockHolder) {
    h.add(
        Severity::Degraded,
        format!(
            "stale index lock of pid {} on {} (the process is gone)",
            l.pid, l.host
        ),
        Repair::ReleaseLock,
    );
}

fn is_me(holder: &LockHolder, me: &LockHolder) -> bool {
    holder.pid == me.pid && holder.pid_start == me.pid_start && holder.host == me.host
}

/// A sample of indexed files must still exist in the work tree, and what the index holds
/// for each must be true of its file (`verify`: an import by an older version took a
/// snapshot's chunk text on its word). Imported content not checked yet is a note.
fn check_work_tree(
    ws: &Workspace,
    db: &Db,
    chunks: &ChunkStore,
    h: &mut Health,
) -> Result<(), IndexError> {
    let pending = db.unverified().hashes()?.len();
    if pending > 0 {
        h.notes.push(format!(
            "{pending} imported contents are not verified yet: hidden from search until an index run meets their files"
        ));
    }
    let branch = ws.repo.branch()?;
    let sample = db.health().sample_paths(&branch.key, SAMPLE)?;
    let max = ws.config.index.max_file_size;
    let wrong = crate::index::verify::check_stored(db, chunks, &ws.workdir, &sample, max)?;
    if !wrong.is_empty() {
        h.add(
            Severity::Corrupted,
            format!(
                "{} of {} sampled contents do not match their files: search would show text that is not this clone's code",
                wrong.len(),
                sample.len()
            ),
            Repair::Forget(wrong),
        );
    }
    let gone = sample
        .iter()
        .filter(|(p, _)| std::fs::symlink_metadata(ws.workdir.join(p)).is_err())
        .count();
    if gone > 0 {
        h.add(
            Severity::Degraded,
            format!(
                "{gone} of {} sampled indexed files are gone from the work tree: the index of {} is out of date",
                sample.len(),
                branch.display()
            ),
            Repair::Reindex,
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sqlite(code: std::ffi::c_int) -> StoreError {
        StoreError::Sqlite {
            path: "/idx/meta.sqlite".into(),
            op: "check",
            source: rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), None),
        }
    }

    #[test]
    fn a_passing_store_error_is_reported_not_turned_into_a_rebuild() {
        for code in [
            rusqlite::ffi::SQLITE_FULL,
            rusqlite::ffi::SQLITE_IOERR,
            rusqlite::ffi::SQLITE_NOMEM,
            rusqlite::ffi::SQLITE_INTERRUPT,
        ] {
            assert!(severe(Health::default(), sqlite(code)).is_err(), "{code}");
        }
        // An I/O error among the causes, not the variant, is what makes it transient.
        let io = lancedb::Error::Other {
            message: "write failed".into(),
            source: Some(Box::new(std::io::Error::from(
                std::io::ErrorKind::StorageFull,
            ))),
        };
        let lance = StoreError::Lance {
            path: "/idx/lance".into(),
            op: "open",
            source: Box::new(io),
        };
        assert!(severe(Health::default(), lance).is_err());
    }

    #[test]
    fn damage_is_still_rebuilt() {
        let h = severe(Health::default(), sqlite(rusqlite::ffi::SQLITE_CORRUPT)).unwrap();
        assert_eq!(h.findings[0].repair, Repair::Rebuild);
        let missing = StoreError::ChunksMissing {
            path: "/idx/meta.sqlite".into(),
            expected: 3,
        };
        let h = severe(Health::default(), missing).unwrap();
        assert_eq!(h.findings[0].repair, Repair::Rebuild);
    }
}
