//! A shareable index: `export FILE` writes a consistent snapshot (SQLite copied with
//! `VACUUM INTO`, less its derived full-text tables and every file that is not committed
//! as it is, in one tar file; vectors never travel) and `import FILE` merges one
//! into the local index. Content is keyed by SHA-256 of file bytes, so a snapshot built by CI
//! on another clone can be merged: only content this index lacks is copied, branches this
//! index has not indexed are added, and the next `index` run tags whatever matches the work
//! tree instead of computing it. What a snapshot says about a content is shown only once it
//! is checked against this clone's own bytes of it (`verify`): at import, from the object
//! database; later, by the index run that meets the file.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::path::Path;

use super::ShareError;
use crate::index::lock::{self, Contention};
use crate::store::{ChunkStore, Db, StoreError};
use crate::util::ScratchDir;
use crate::workspace::{Workspace, DB_FILE, LANCE_DIR};

/// How long export and import wait for a running index run.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// What an import brought in.
#[derive(Debug, Default, serde::Serialize)]
pub struct Imported {
    /// Contents (with their chunks and symbols) this index did not have.
    pub contents: usize,
    /// Chunks copied.
    pub chunks: usize,
    /// Branches added to the catalog.
    pub branches: Vec<String>,
    /// Of the contents, those checked against this clone's objects: verified (shown), or
    /// dropped for not matching.
    pub checked: crate::index::verify::Settled,
    /// Contents this clone has no bytes of yet: hidden until an index run meets their files.
    pub unverified: usize,
}

/// Contents read per batch of a merge: at most this many bytes of their sizes (each
/// content's chunk text is at most its size, `store::snapshot` checks), or one content.
const BATCH_BYTES: u64 = 64 << 20;
/// And at most this many contents.
const BATCH_CONTENTS: usize = 200;

/// `hashes` in batches of at most [`BATCH_CONTENTS`] and [`BATCH_BYTES`] by `sizes`.
fn by_size<'h>(hashes: &'h [String], sizes: &HashMap<String, u64>) -> Vec<&'h [String]> {
    let mut out = Vec::new();
    let (mut start, mut bytes) = (0, 0u64);
    for (i, h) in hashes.iter().enumerate() {
        let size = sizes.get(h).copied().unwrap_or(0);
        let full = i - start == BATCH_CONTENTS || bytes.saturating_add(size) > BATCH_BYTES;
        if i > start && full {
            out.push(&hashes[start..i]);
            (start, bytes) = (i, 0);
        }
        bytes = bytes.saturating_add(size);
    }
    if start < hashes.len() {
        out.push(&hashes[start..]);
    }
    out
}

/// Run `f` holding the index lock.
fn locked<T>(
    ws: &Workspace,
    f: impl FnOnce(&Db) -> Result<T, ShareError>,
) -> Result<T, ShareError> {
    let db = ws.db()?;
    let me = lock::me();
    lock::acquire(&db, &me, Contention::Wait(LOCK_WAIT), |_| {})?;
    let result = f(&db);
    db.index_lock().release(&me)?;
    result
}

/// Write a snapshot of the index to `file`: every branch's committed files only. A row is
/// kept when the blob at its path in the branch's commit has its content (a skipped row,
/// which carries no text, when its path is in that commit), so a work tree's untracked or
/// modified files never leave the machine; vectors are left out (an import never reads
/// them: the importer embeds its own).
pub fn export(ws: &Workspace, file: &Path) -> Result<u64, ShareError> {
    let scratch = ScratchDir(ws.index_dir.join(format!("export-{}", std::process::id())));
    std::fs::create_dir_all(&scratch.0).map_err(StoreError::scratch(&scratch.0, "create"))?;
    let snapshot = scratch.0.join(DB_FILE);
    locked(ws, |db| {
        db.exchange().snapshot_into(&snapshot)?;
        let max = ws.config.index.max_file_size;
        let keep: Vec<_> = crate::store::merge::snapshot_catalogs(&snapshot)?
            .into_iter()
            .map(|(branch, rows)| {
                let (kept, left) =
                    crate::index::verify::committed_rows(&ws.repo, &branch, rows, max);
                if left > 0 {
                    tracing::debug!("export: {left} rows of {branch} not committed: left out");
                }
                (branch, kept)
            })
            .collect();
        crate::store::merge::keep_in_snapshot(&snapshot, &keep)?;
        let out = File::create(file).map_err(StoreError::file(file, "write"))?;
        let mut tar = tar::Builder::new(out);
        tar.append_path_with_name(&snapshot, DB_FILE)
            .map_err(StoreError::file(file, "write"))?;
        tar.into_inner()
            .and_then(|f| f.sync_all())
            .map_err(StoreError::file(file, "write"))?;
        Ok(())
    })?;
    Ok(std::fs::metadata(file).map(|m| m.len()).unwrap_or(0))
}

/// Merge the snapshot in `file` into this index. The snapshot is untrusted: it is unpacked
/// entry by entry into a private temporary directory (regular files and directories only,
/// no path leaving it, bounded in size and count), its database is checked read-only before
/// it is opened for real, and every chunk copied must belong to a content it announces.
pub fn import(ws: &Workspace, file: &Path) -> Result<Imported, ShareError> {
    ws.db()?; // creates the index directory the private one goes into
    let scratch = tempfile::Builder::new()
        .prefix(".import-")
        .tempdir_in(&ws.index_dir)
        .map_err(StoreError::scratch(&ws.index_dir, "create"))?;
    super::unpack::unpack(file, scratch.path())?;
    merge_snapshot(ws, scratch.path(), file, &[], |_| Ok(()))
}

/// Merge the unpacked snapshot in `dir` (its `meta.sqlite`, untrusted: checked read-only
/// first) into this index, replacing the catalog of the branches `replace`; `then` runs
/// under the same lock once it is merged. `label` names the snapshot in errors.
pub(super) fn merge_snapshot(
    ws: &Workspace,
    dir: &Path,
    label: &Path,
    replace: &[String],
    then: impl FnOnce(&Db) -> Result<(), ShareError>,
) -> Result<Imported, ShareError> {
    let db_file = dir.join(DB_FILE);
    // Its schema, its values and SQLite's integrity check; then read-only, never mapped.
    crate::store::snapshot::check(&db_file).map_err(|e| match e {
        StoreError::BadSnapshot { why, .. } => StoreError::BadSnapshot {
            path: label.to_path_buf(),
            why,
        },
        e => e,
    })?;
    let their_chunks = ChunkStore::open_untrusted(&db_file, &dir.join(LANCE_DIR))?;
    locked(ws, |db| {
        let done = merge(ws, db, dir, &their_chunks, replace)?;
        then(db)?;
        Ok(done)
    })
}

fn merge(
    ws: &Workspace,
    db: &Db,
    dir: &Path,
    their_chunks: &ChunkStore,
    replace: &[String],
) -> Result<Imported, ShareError> {
    let mut chunks = ws.chunk_store()?;
    chunks.ensure_present(db.health().count_with_chunks()?)?;
    let theirs = Db::open_untrusted(&dir.join(DB_FILE))?;
    let ours: HashSet<String> = db.catalog().computed_hashes()?;
    let mut missing: Vec<String> = theirs
        .catalog()
        .computed_hashes()?
        .into_iter()
        .filter(|h| !ours.contains(h))
        .collect();
    missing.sort();
    let mut done = Imported::default();
    let sizes = theirs.unverified().declared_sizes()?;
    // Chunks first, keyed by content: until the SQLite transaction below commits they are
    // orphans no search can see, so a crash here leaves the old state.
    for part in by_size(&missing, &sizes) {
        let rows = their_chunks.chunks_of(part)?;
        super::unpack::check_chunks(part, &rows).map_err(|why| StoreError::BadSnapshot {
            path: dir.to_path_buf(),
            why,
        })?;
        done.chunks += rows.len();
        chunks.add(&rows)?;
    }
    done.branches = db
        .exchange()
        .merge_from(&dir.join(DB_FILE), &missing, replace)?;
    done.contents = missing.len();
    // Shown only once checked against this clone's own bytes (see `verify`).
    let max = ws.config.index.max_file_size;
    done.checked = crate::index::verify::settle_from_objects(&ws.repo, db, &chunks, max)?;
    done.unverified = db.unverified().hashes()?.len();
    if done.chunks > 0 {
        chunks.refresh_fts(ws.config.search.stemming)?;
    }
    // Whole-file terms never travel (derived data): rebuild them from the chunks.
    crate::index::terms::backfill(db, &chunks)?;
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_merge_reads_contents_in_batches_bounded_by_size_and_count() {
        let hashes: Vec<String> = (0..450).map(|i| format!("{i:03}")).collect();
        let mut sizes: HashMap<String, u64> = HashMap::new();
        // Two large contents early on: the first fills a batch (with an empty one before
        // it), the second, over the bound alone, is a batch of its own.
        sizes.insert("001".into(), BATCH_BYTES);
        sizes.insert("002".into(), BATCH_BYTES + 1);
        let batches = by_size(&hashes, &sizes);
        let lens: Vec<usize> = batches.iter().map(|b| b.len()).collect();
        assert_eq!(lens, [2, 1, 200, 200, 47]);
        assert_eq!(batches.concat(), hashes);
        assert!(by_size(&[], &sizes).is_empty());
    }
}
