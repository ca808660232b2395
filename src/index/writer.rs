//! Writing an index run's computed batches: chunks first, then content and definitions in
//! SQLite, then the checkpoint (see `run::compute_all`).

use std::collections::HashSet;

use super::compute::Computed;
use super::error::IndexError;
use super::lock;
use super::plan::Plan;
use crate::store::catalog::ComputedContent;
use crate::store::state::{Checkpoint, LockHolder};
use crate::store::{ChunkRow, ChunkStore, Db};

/// The writing half of [`compute_all`](super::run): where each computed batch goes, and the count of
/// chunks written.
pub(super) struct Writer<'a> {
    pub(super) db: &'a Db,
    pub(super) chunks: &'a mut ChunkStore,
    /// Contents computed again (`stale_definitions`), whose stored chunks may differ.
    pub(super) stale: &'a HashSet<String>,
    pub(super) me: &'a LockHolder,
    pub(super) plan: &'a mut Plan,
    pub(super) cp: &'a mut Checkpoint,
    pub(super) written: usize,
}

impl Writer<'_> {
    /// Store one computed batch of `files` files and save the checkpoint.
    pub(super) fn write(&mut self, results: &[Computed], files: usize) -> Result<(), IndexError> {
        let rows: Vec<ChunkRow> = results
            .iter()
            .flat_map(|r| r.chunks.iter().cloned())
            .collect();
        // Before writing: a run that lost the lock stops here.
        lock::renew(self.db, self.me)?;
        self.drop_recut(results)?;
        self.chunks.add(&rows)?;
        let contents: Vec<ComputedContent> =
            results.iter().filter_map(|r| r.content.clone()).collect();
        self.db
            .catalog()
            .store_computed(&self.cp.run_id, &contents)?;
        for r in results {
            r.fix_catalog(self.plan);
        }
        self.written += rows.len();
        self.cp.done += files;
        self.cp.updated_at = crate::util::unix_now();
        self.db.run_state().save_checkpoint(self.cp)?;
        Ok(())
    }

    /// A content computed again keeps its vectors (keyed by content hash and chunk number)
    /// only if its chunks come out the same: a file cut in windows this time (a slow split,
    /// a grammar that crashed since) has other chunks, and its vectors and `embedded` rows go,
    /// so that it is embedded again rather than searched with another text's vectors.
    fn drop_recut(&mut self, results: &[Computed]) -> Result<(), IndexError> {
        let mut recut = Vec::new();
        for r in results.iter().filter(|r| r.content.is_some()) {
            let hash = &r.scanned.content_hash;
            if !self.stale.contains(hash) {
                continue;
            }
            let stored = self.chunks.chunks_of(std::slice::from_ref(hash))?;
            let same = stored.len() == r.chunks.len()
                && stored.iter().zip(&r.chunks).all(|(a, b)| {
                    (a.start_line, a.end_line, &a.content) == (b.start_line, b.end_line, &b.content)
                });
            if !same {
                recut.push(hash.clone());
            }
        }
        if !recut.is_empty() {
            self.chunks.delete_hashes(&recut)?;
            self.db.embedded().forget(&recut)?;
        }
        Ok(())
    }
}
