//! The `chunk_terms` full-text table (SQLite FTS5, contentless): one row of terms per chunk,
//! keyed by the chunk's `rid`, for BM25 over chunks. The terms are the chunk's identifiers
//! and words, lower-cased, whole and split into their camelCase / snake_case parts
//! (`text::words::document_terms`, as for whole files), so `parseConfigFile` matches both
//! "parse config file" and itself. The table is made here, not by a migration: its
//! tokenizer follows the stemming setting (FTS5's `porter` wrapper when on), and changing the
//! setting rebuilds it from the stored chunks. `chunks` writes a chunk's terms with its rows;
//! this module knows the table only, not the chunks.

use rayon::prelude::*;
use rusqlite::{params, params_from_iter, CachedStatement, Connection};

use super::error::StoreError;
use super::sqlite::Db;
use crate::text::words::document_terms;

/// The table's tokenizer without and with stemming. `_` is part of a token, so a whole
/// snake_case identifier is one term (its parts are terms of their own).
const PLAIN: &str = "unicode61 tokenchars '_'";
const STEMMED: &str = "porter unicode61 tokenchars '_'";

/// Chunks whose terms are written per transaction when the table is (re)built.
const REBUILD_BATCH: usize = 2_000;

fn create_sql(stemming: bool) -> String {
    let tokenizer = if stemming { STEMMED } else { PLAIN };
    format!(
        "CREATE VIRTUAL TABLE chunk_terms USING fts5(terms, content = '', \
         contentless_delete = 1, tokenize = \"{tokenizer}\")"
    )
}

/// The `CREATE` statement of the table, if it exists.
fn current_sql(conn: &rusqlite::Connection) -> rusqlite::Result<Option<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'chunk_terms'",
    )?;
    let mut rows = stmt.query([])?;
    match rows.next()? {
        Some(r) => r.get(0),
        None => Ok(None),
    }
}

/// Whether the table exists (an index made before it, or mid-rebuild, has none).
pub(super) fn exists(conn: &Connection) -> rusqlite::Result<bool> {
    Ok(current_sql(conn)?.is_some())
}

/// The statement that writes one chunk's terms (its `rid`, its terms), when the table exists.
pub(super) fn insert_statement(conn: &Connection) -> rusqlite::Result<Option<CachedStatement<'_>>> {
    if !exists(conn)? {
        return Ok(None);
    }
    conn.prepare_cached("INSERT INTO chunk_terms (rowid, terms) VALUES (?1, ?2)")
        .map(Some)
}

/// Delete the terms of the chunks whose `rid`s the subquery `rids` selects, binding `values`.
pub(super) fn delete_of(conn: &Connection, rids: &str, values: &[String]) -> rusqlite::Result<()> {
    let sql = format!("DELETE FROM chunk_terms WHERE rowid IN {rids}");
    conn.execute(&sql, params_from_iter(values)).map(|_| ())
}

/// Merge the table's segments (after large deletes and inserts).
pub(super) fn optimize(db: &Db) -> Result<(), StoreError> {
    let exists = current_sql(&db.conn).map_err(|e| db.err("optimize full-text index", e))?;
    if exists.is_some() {
        db.conn
            .execute(
                "INSERT INTO chunk_terms (chunk_terms) VALUES ('optimize')",
                [],
            )
            .map_err(|e| db.err("optimize full-text index", e))?;
    }
    Ok(())
}

/// True when the table exists with the tokenizer of this stemming setting.
pub(super) fn matches(db: &Db, stemming: bool) -> Result<bool, StoreError> {
    let sql = current_sql(&db.conn).map_err(|e| db.err("read schema", e))?;
    Ok(sql.as_deref() == Some(create_sql(stemming).as_str()))
}

/// Make the table match the stemming setting: create it if missing, rebuild it from the
/// stored chunks if its tokenizer differs. Chunks written meanwhile get their terms as they
/// are added, so an existing matching table is left as is.
pub(super) fn refresh(db: &Db, stemming: bool) -> Result<(), StoreError> {
    if matches(db, stemming)? {
        return Ok(());
    }
    let err = |e| db.err("build full-text index", e);
    let tx = db.write_tx("build full-text index")?;
    tx.execute_batch("DROP TABLE IF EXISTS chunk_terms")
        .map_err(err)?;
    tx.execute_batch(&create_sql(stemming)).map_err(err)?;
    tx.commit().map_err(err)?;
    fill_terms(db)
}

/// Write the terms of every chunk, in transactions of [`REBUILD_BATCH`] chunks.
fn fill_terms(db: &Db) -> Result<(), StoreError> {
    let err = |e| db.err("build full-text index", e);
    let mut after = 0i64;
    loop {
        let batch: Vec<(i64, String)> = {
            let mut stmt = db
                .conn
                .prepare_cached(
                    "SELECT rid, content FROM chunk_text WHERE rid > ?1 ORDER BY rid LIMIT ?2",
                )
                .map_err(err)?;
            let rows = stmt
                .query_map(params![after, REBUILD_BATCH as i64], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
                .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
                .map_err(err)?;
            rows
        };
        let Some(last) = batch.last().map(|(rid, _)| *rid) else {
            return Ok(());
        };
        let tx = db.write_tx("build full-text index")?;
        {
            let mut put = tx
                .prepare_cached("INSERT INTO chunk_terms (rowid, terms) VALUES (?1, ?2)")
                .map_err(err)?;
            let terms: Vec<String> = batch.par_iter().map(|(_, c)| document_terms(c)).collect();
            for ((rid, _), t) in batch.iter().zip(&terms) {
                put.execute(params![rid, t]).map_err(err)?;
            }
        }
        tx.commit().map_err(err)?;
        after = last;
    }
}
