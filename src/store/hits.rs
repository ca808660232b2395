//! Reads of chunks for search, in two steps: the retrievers find chunks with their light
//! columns only (row id, content hash, number, language, line span), and the text of the
//! few that make the results is read afterwards by row id. BM25 over chunks is one SQLite
//! query that keeps only contents on the searched branch, so another branch's copy of a file
//! never takes a place in the list.

use std::collections::HashMap;

use rusqlite::{params, params_from_iter};

use super::chunks::ChunkRow;
use super::chunks::{
    chunk_number, placeholders, row_of, ChunkStore, IN_BATCH, ROW_COLUMNS, ROW_TABLES,
};
use super::error::StoreError;
use crate::lang::Language;

/// A chunk's place and identity, without its text: what ranking needs. The text of the
/// few that make the final results is read with [`ChunkStore::take_rows`].
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkRef {
    /// Row id in the chunk table.
    pub row: u64,
    /// `<content hash>:<chunk number>`.
    pub id: String,
    /// Content the chunk belongs to.
    pub content_hash: String,
    /// Its file's language.
    pub language: Language,
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

/// The light columns, in the order [`ref_of`] reads them.
const REF_COLUMNS: &str = "c.rid, c.content_hash, c.n, c.language, c.start_line, c.end_line";

fn ref_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<ChunkRef> {
    let hash: String = r.get(1)?;
    let n: i64 = r.get(2)?;
    Ok(ChunkRef {
        row: r.get::<_, i64>(0)? as u64,
        id: format!("{hash}:{n}"),
        content_hash: hash,
        language: r.get(3)?,
        start_line: r.get(4)?,
        end_line: r.get(5)?,
    })
}

impl ChunkStore {
    /// The best `limit` chunks of `branch` for an FTS5 match `expression` (quoted terms
    /// joined by OR, see `search::files::match_expression`), optionally of one language,
    /// best first, without their text. With `first = Some(k)`, only the store's best `k`
    /// matches are considered (cheap: scoring needs no chunk row), and the second value says
    /// whether there were `k` of them, i.e. whether a full pass could find more; with `None`,
    /// every match is. No full-text table yet: no matches.
    pub fn search_fts(
        &self,
        expression: &str,
        limit: usize,
        (branch, lang): (&str, Option<Language>),
        first: Option<usize>,
    ) -> Result<(Vec<FtsHit>, bool), StoreError> {
        if !self.fts_exists()? {
            return Ok((Vec::new(), false));
        }
        let top = first.map_or(-1, |k| k as i64);
        let sql = format!(
            "WITH top AS (SELECT rowid AS rid, -bm25(chunk_terms) AS score FROM chunk_terms
                          WHERE chunk_terms MATCH ?1 ORDER BY score DESC LIMIT ?5)
             SELECT {REF_COLUMNS}, top.score, (SELECT count(*) FROM top)
             FROM top JOIN chunks c ON c.rid = top.rid
             WHERE EXISTS (SELECT 1 FROM catalog k WHERE k.content_hash = c.content_hash
                             AND k.branch = ?2 AND k.skip_reason IS NULL)
               AND (?3 IS NULL OR c.language = ?3)
             ORDER BY top.score DESC, c.content_hash, c.n LIMIT ?4"
        );
        let db = self.db();
        let err = |e| db.err("full-text search", e);
        let mut stmt = db.conn.prepare_cached(&sql).map_err(err)?;
        let mut scored = 0i64;
        let hits = stmt
            .query_map(params![expression, branch, lang, limit as i64, top], |r| {
                scored = r.get(7)?;
                Ok(FtsHit {
                    chunk: ref_of(r)?,
                    score: r.get::<_, f64>(6)? as f32,
                })
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(err)?;
        Ok((hits, first.is_some_and(|k| scored as usize >= k)))
    }

    /// For each FTS5 match expression of `expressions`, the best `limit` chunks of one
    /// content, best first, without their text: BM25 over every chunk of the content, scored
    /// with the whole store's statistics as [`Self::search_fts`] scores them, whether or not a
    /// search over the branch would have reached them. The content's row ids are read once
    /// for all the expressions.
    pub fn search_fts_in(
        &self,
        expressions: &[&str],
        content_hash: &str,
        limit: usize,
    ) -> Result<Vec<Vec<FtsHit>>, StoreError> {
        let none = || Ok(vec![Vec::new(); expressions.len()]);
        if expressions.is_empty() || !self.fts_exists()? {
            return none();
        }
        let db = self.db();
        let err = |e| db.err("full-text search in one file", e);
        // A content's chunks are written together, so their row ids lie in a short range.
        // FTS5 takes a row id range into its scan; a list of row ids or a join it does not,
        // and SQLite then runs the match once per chunk, each time counting every phrase's
        // rows for BM25 anew (seconds for a long issue in a large file).
        let (lo, hi): (Option<i64>, Option<i64>) = db
            .conn
            .prepare_cached("SELECT min(rid), max(rid) FROM chunks WHERE content_hash = ?1")
            .and_then(|mut s| s.query_row([content_hash], |r| Ok((r.get(0)?, r.get(1)?))))
            .map_err(err)?;
        let (Some(lo), Some(hi)) = (lo, hi) else {
            return none();
        };
        let sql = format!(
            "WITH m AS (SELECT rowid AS rid, -bm25(chunk_terms) AS score FROM chunk_terms
                        WHERE chunk_terms MATCH ?1 AND rowid >= ?2 AND rowid <= ?3)
             SELECT {REF_COLUMNS}, m.score FROM m JOIN chunks c ON c.rid = m.rid
             WHERE c.content_hash = ?4
             ORDER BY m.score DESC, c.n LIMIT ?5"
        );
        let mut stmt = db.conn.prepare_cached(&sql).map_err(err)?;
        expressions
            .iter()
            .map(|expression| {
                stmt.query_map(
                    params![expression, lo, hi, content_hash, limit as i64],
                    |r| {
                        Ok(FtsHit {
                            chunk: ref_of(r)?,
                            score: r.get::<_, f64>(6)? as f32,
                        })
                    },
                )
                .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
                .map_err(err)
            })
            .collect()
    }

    fn fts_exists(&self) -> Result<bool, StoreError> {
        let db = self.db();
        db.conn
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'chunk_terms')",
                [],
                |r| r.get(0),
            )
            .map_err(|e| db.err("read schema", e))
    }

    /// Every chunk of the given contents, without text, in content and chunk order.
    pub fn refs_of(&self, hashes: &[String]) -> Result<Vec<ChunkRef>, StoreError> {
        let mut out = Vec::new();
        for part in hashes.chunks(IN_BATCH) {
            let sql = format!(
                "SELECT {REF_COLUMNS} FROM chunks c WHERE c.content_hash IN ({})
                 ORDER BY c.content_hash, c.n",
                placeholders(part.len())
            );
            out.extend(self.refs(&sql, params_from_iter(part))?);
        }
        Ok(out)
    }

    /// The chunks with the given ids, without text (in no particular order); ids not of the
    /// form `<hash>:<n>` match nothing.
    pub fn refs_by_id(&self, ids: &[String]) -> Result<Vec<ChunkRef>, StoreError> {
        let sql =
            format!("SELECT {REF_COLUMNS} FROM chunks c WHERE c.content_hash = ?1 AND c.n = ?2");
        let mut out = Vec::new();
        for (hash, n) in ids.iter().filter_map(|id| chunk_number(id)) {
            out.extend(self.refs(&sql, params![hash, n])?);
        }
        Ok(out)
    }

    fn refs(&self, sql: &str, p: impl rusqlite::Params) -> Result<Vec<ChunkRef>, StoreError> {
        let db = self.db();
        let err = |e| db.err("read chunks", e);
        let mut stmt = db.conn.prepare_cached(sql).map_err(err)?;
        let refs = stmt
            .query_map(p, ref_of)
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(err)?;
        Ok(refs)
    }

    /// The chunks at the given row ids, by row id.
    pub fn take_rows(&self, rows: &[u64]) -> Result<HashMap<u64, ChunkRow>, StoreError> {
        let db = self.db();
        let mut by_row = HashMap::new();
        let err = |e| db.err("read chunks", e);
        for part in rows.chunks(IN_BATCH) {
            let sql = format!(
                "SELECT c.rid, {ROW_COLUMNS} FROM {ROW_TABLES} WHERE c.rid IN ({})",
                placeholders(part.len())
            );
            let mut stmt = db.conn.prepare_cached(&sql).map_err(err)?;
            let ids = part.iter().map(|r| *r as i64);
            let found = stmt
                .query_map(params_from_iter(ids), |r| {
                    Ok((r.get::<_, i64>(0)? as u64, row_of(r, 1)?))
                })
                .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
                .map_err(err)?;
            by_row.extend(found);
        }
        Ok(by_row)
    }
}
