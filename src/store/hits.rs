//! Two-step reads of the chunk table for search. A store that holds several branches or
//! commits keeps one row per chunk of every version of a file, so most of what a search
//! finds first is another version's copy; reading the text of all of it was most of a
//! query's time. The retrievers therefore find rows with the light columns only (row id,
//! chunk id, content hash, score or line span), keep the ones on the searched branch, and
//! read the text of those rows alone, by row id.
//!
//! Row ids are valid for the table version this handle opened, which a search never
//! changes, so the two steps always see the same rows.

use std::collections::HashMap;

use arrow_array::{Array, RecordBatch, UInt64Array};
use lancedb::index::scalar::FullTextSearchQuery;
use lancedb::query::{QueryBase, Select};

use super::chunks::{f32_col, from_batch, lance_err, KeyCols, COLUMNS};
use super::{ChunkRow, ChunkStore, StoreError};

/// LanceDB's row-id column.
const ROW_ID: &str = "_rowid";

/// A chunk's place and identity, without its text: what ranking needs. The text of the
/// few that make the final results is read with [`ChunkStore::take_rows`].
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkRef {
    /// Row id in the chunk table, valid for this handle's table version.
    pub row: u64,
    /// `<content hash>:<chunk number>`.
    pub id: String,
    /// Content the chunk belongs to.
    pub content_hash: String,
    /// Language name.
    pub language: String,
    /// First line (1-based).
    pub start_line: u32,
    /// Last line (1-based, inclusive).
    pub end_line: u32,
}

/// A full-text match before its text is read.
#[derive(Debug, Clone)]
pub struct FtsHit {
    /// The chunk.
    pub chunk: ChunkRef,
    /// BM25 score (higher is better).
    pub score: f32,
}

/// The light columns, read into [`ChunkRef`]s.
const REF_COLUMNS: [&str; 5] = ["id", "content_hash", "language", "start_line", "end_line"];

fn refs_from(b: &RecordBatch) -> Result<Vec<ChunkRef>, String> {
    let rows = row_col(b)?;
    let keys = KeyCols::of(b)?;
    Ok((0..b.num_rows())
        .map(|i| {
            let (id, content_hash, language, start_line, end_line) = keys.at(i);
            ChunkRef {
                row: rows.value(i),
                id,
                content_hash,
                language,
                start_line,
                end_line,
            }
        })
        .collect())
}

fn row_col(b: &RecordBatch) -> Result<&UInt64Array, String> {
    b.column_by_name(ROW_ID)
        .and_then(|c| c.as_any().downcast_ref::<UInt64Array>())
        .ok_or_else(|| format!("column {ROW_ID} missing or not u64"))
}

fn columns(names: &[&str]) -> Select {
    Select::Columns(names.iter().map(|c| c.to_string()).collect())
}

impl ChunkStore {
    /// BM25 matches for `query` (optionally restricted by a store `filter`), best first,
    /// without their text.
    pub fn search_fts(
        &self,
        query: &str,
        limit: usize,
        filter: Option<&str>,
    ) -> Result<Vec<FtsHit>, StoreError> {
        let Some(t) = self.table() else {
            return Ok(Vec::new());
        };
        let fts = FullTextSearchQuery::new(query.to_string())
            .with_column("content".to_string())
            .map_err(|e| lance_err(&self.path, "full-text query", e.into()))?;
        let mut q = t
            .query()
            .full_text_search(fts)
            .select(columns(&REF_COLUMNS))
            .with_row_id()
            .limit(limit);
        if let Some(f) = filter {
            q = q.only_if(f);
        }
        let mut out = Vec::new();
        for b in &self.collect(&q, "full-text search")? {
            let refs = refs_from(b).map_err(|w| self.shape_err(w))?;
            let scores = f32_col(b, "_score").map_err(|w| self.shape_err(w))?;
            out.extend(refs.into_iter().enumerate().map(|(i, chunk)| FtsHit {
                chunk,
                score: scores.value(i),
            }));
        }
        // Ties are broken by chunk id, so the order never depends on row layout.
        out.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.chunk.id.cmp(&b.chunk.id))
        });
        Ok(out)
    }

    /// Every chunk of the given contents, without text.
    pub fn refs_of(&self, hashes: &[String]) -> Result<Vec<ChunkRef>, StoreError> {
        self.refs_where(hashes, "content_hash")
    }

    /// The chunks with the given ids, without text (in no particular order).
    pub fn refs_by_id(&self, ids: &[String]) -> Result<Vec<ChunkRef>, StoreError> {
        self.refs_where(ids, "id")
    }

    fn refs_where(
        &self,
        values: &[String],
        column: &'static str,
    ) -> Result<Vec<ChunkRef>, StoreError> {
        self.read_in((column, values), (&REF_COLUMNS, true), refs_from)
    }

    /// The chunks at the given row ids, by row id.
    pub fn take_rows(&self, rows: &[u64]) -> Result<HashMap<u64, ChunkRow>, StoreError> {
        let mut by_row = HashMap::new();
        let Some(t) = self.table() else {
            return Ok(by_row);
        };
        if rows.is_empty() {
            return Ok(by_row);
        }
        let q = t
            .take_row_ids(rows.to_vec())
            .select(columns(&COLUMNS))
            .with_row_id();
        for b in &self.collect(&q, "read chunks")? {
            let ids = row_col(b).map_err(|w| self.shape_err(w))?;
            let chunks = from_batch(b).map_err(|w| self.shape_err(w))?;
            by_row.extend((0..ids.len()).map(|i| ids.value(i)).zip(chunks));
        }
        Ok(by_row)
    }
}
