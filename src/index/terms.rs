//! The back-fill that gives contents stored before schema version 4 (or merged in by
//! `import`) their whole-file terms (`text::words::document_terms`), from their chunks.

use crate::store::{ChunkStore, Db, StoreError};
use crate::text::words::{push_terms, words};

/// Contents back-filled per transaction.
const BACKFILL_BATCH: usize = 200;

/// Give every stored content without terms its terms, from its chunks' text. Returns how
/// many contents were filled.
pub fn backfill(db: &Db, chunks: &ChunkStore) -> Result<usize, StoreError> {
    let missing = db.file_terms().contents_without_terms()?;
    for batch in missing.chunks(BACKFILL_BATCH) {
        let mut rows = chunks.chunks_of(batch)?;
        rows.sort_by(|a, b| {
            a.content_hash
                .cmp(&b.content_hash)
                .then(a.start_line.cmp(&b.start_line))
        });
        let mut items: Vec<(String, String)> =
            batch.iter().map(|h| (h.clone(), String::new())).collect();
        for row in &rows {
            if let Ok(i) = batch.binary_search(&row.content_hash) {
                let terms = &mut items[i].1;
                for word in words(&row.content) {
                    push_terms(terms, word);
                }
            }
        }
        db.file_terms().store(&items)?;
    }
    Ok(missing.len())
}
