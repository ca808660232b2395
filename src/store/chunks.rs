//! The chunks of every stored content, in SQLite (`chunks`, schema version 8, says why), with
//! their full-text index (`chunk_terms`, see `chunkterms`). A chunk is addressed by its
//! content hash and its place `n` in that content; its id is `<content hash>:<n>`. Vectors
//! of chunks live in LanceDB (`store::vectors`), opened on first use only.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};

use rayon::prelude::*;
use rusqlite::{params, params_from_iter, Transaction};

use super::chunkterms;
use super::error::StoreError;
use super::lance::{self, Lance};
use super::sqlite::Db;
use crate::lang::Language;
use crate::text::words::document_terms;

/// One chunk of one content hash.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkRow {
    /// `<content hash>:<chunk number>`.
    pub id: String,
    /// SHA-256 of the file content the chunk comes from.
    pub content_hash: String,
    /// Path the content had when it was first computed (results use the branch's paths).
    pub filepath: String,
    /// Its file's language.
    pub language: Language,
    /// The chunk's text.
    pub content: String,
    /// First line (1-based).
    pub start_line: u32,
    /// Last line (1-based, inclusive).
    pub end_line: u32,
}

/// The chunks (SQLite) and vectors (LanceDB, opened lazily) of one index directory. The
/// retrievers of one search share it from several threads, so its connection is behind a
/// mutex (each of their reads is short).
pub struct ChunkStore {
    db: Mutex<Db>,
    db_path: PathBuf,
    pub(super) lance_dir: PathBuf,
    lance: OnceLock<Lance>,
    /// Rows of one model from which its vectors move to LanceDB (`store::vectors`).
    pub(super) ann_min_rows: usize,
}

/// Values bound per statement in `IN (…)` lists (SQLite allows 32,766).
pub(super) const IN_BATCH: usize = 500;

/// `?,?,…,?` for `n` values: only placeholders are written into SQL, values are bound.
pub(super) fn placeholders(n: usize) -> String {
    vec!["?"; n].join(",")
}

/// The number of a chunk id `<hash>:<n>`, if it has that form.
pub(super) fn chunk_number(id: &str) -> Option<(&str, i64)> {
    let (hash, n) = id.split_once(':')?;
    Some((hash, n.parse().ok()?))
}

/// The columns of a [`ChunkRow`] from `chunks c JOIN chunk_text t`, in the order [`row_of`]
/// reads them.
pub(super) const ROW_COLUMNS: &str =
    "c.content_hash, c.n, c.filepath, c.language, t.content, c.start_line, c.end_line";

/// The tables [`ROW_COLUMNS`] reads.
pub(super) const ROW_TABLES: &str = "chunks c JOIN chunk_text t ON t.rid = c.rid";

/// A [`ChunkRow`] from a row of [`ROW_COLUMNS`] starting at column `at`.
pub(super) fn row_of(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<ChunkRow> {
    let hash: String = r.get(at)?;
    let n: i64 = r.get(at + 1)?;
    Ok(ChunkRow {
        id: format!("{hash}:{n}"),
        content_hash: hash,
        filepath: r.get(at + 2)?,
        language: r.get(at + 3)?,
        content: r.get(at + 4)?,
        start_line: r.get(at + 5)?,
        end_line: r.get(at + 6)?,
    })
}

/// A read transaction on a [`ChunkStore`]'s connection, ended when dropped.
pub struct StoreSnapshot<'a> {
    store: &'a ChunkStore,
    began: bool,
}

impl Drop for StoreSnapshot<'_> {
    fn drop(&mut self) {
        if self.began {
            super::sqlite::end_read(&self.store.db().conn);
        }
    }
}

impl ChunkStore {
    /// Open the chunks of the index database at `db_path`; vectors are in `lance_dir`.
    pub fn open(db_path: &Path, lance_dir: &Path) -> Result<ChunkStore, StoreError> {
        Ok(ChunkStore {
            db: Mutex::new(Db::open(db_path)?),
            db_path: db_path.to_path_buf(),
            lance_dir: lance_dir.to_path_buf(),
            lance: OnceLock::new(),
            ann_min_rows: super::lance::ANN_MIN_ROWS,
        })
    }

    /// Open the chunks of a database another machine wrote (see [`Db::open_untrusted`]):
    /// read-only, never memory-mapped.
    pub fn open_untrusted(db_path: &Path, lance_dir: &Path) -> Result<ChunkStore, StoreError> {
        Ok(ChunkStore {
            db: Mutex::new(Db::open_untrusted(db_path)?),
            db_path: db_path.to_path_buf(),
            lance_dir: lance_dir.to_path_buf(),
            lance: OnceLock::new(),
            ann_min_rows: super::lance::ANN_MIN_ROWS,
        })
    }

    /// Read everything that follows on this store's connection, until the guard is dropped,
    /// from one snapshot (see [`super::sqlite::ReadSnapshot`]; the connection is shared by
    /// the retriever threads, so the guard holds the store, not the connection's lock).
    pub fn read_snapshot(&self) -> Result<StoreSnapshot<'_>, StoreError> {
        let db = self.db();
        let began = super::sqlite::begin_read(&db.conn, &db.path)?;
        Ok(StoreSnapshot { store: self, began })
    }

    /// The connection. Never call another method of the store while holding it.
    pub(super) fn db(&self) -> MutexGuard<'_, Db> {
        // A panic in another retriever thread does not make the connection unusable.
        self.db.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The vector store, connected on first use.
    pub(super) fn lance(&self) -> Result<&Lance, StoreError> {
        if let Some(l) = self.lance.get() {
            return Ok(l);
        }
        let l = Lance::open(&self.lance_dir)?;
        Ok(self.lance.get_or_init(|| l))
    }

    /// Whether a vector store exists at all (nothing to open or delete otherwise).
    pub(super) fn has_lance(&self) -> bool {
        self.lance_dir.exists()
    }

    /// Fail when the catalog expects chunks (`expected` contents have some) but none are
    /// stored: searching would silently miss everything, and indexing would never
    /// recompute content it believes is stored.
    pub fn ensure_present(&self, expected: usize) -> Result<(), StoreError> {
        if expected > 0 && !self.has_table()? {
            return Err(StoreError::ChunksMissing {
                path: self.db_path.clone(),
                expected,
            });
        }
        Ok(())
    }

    /// Whether any chunk is stored.
    pub fn has_table(&self) -> Result<bool, StoreError> {
        let db = self.db();
        db.conn
            .query_row("SELECT EXISTS (SELECT 1 FROM chunks)", [], |r| r.get(0))
            .map_err(|e| db.err("count chunks", e))
    }

    /// Where the chunks live (the index database).
    pub fn path(&self) -> &Path {
        &self.db_path
    }

    /// Write chunks and their terms in one transaction, first removing any rows of the same
    /// content hashes (left by an interrupted run), so a hash never has its chunks twice.
    pub fn add(&mut self, rows: &[ChunkRow]) -> Result<(), StoreError> {
        if rows.is_empty() {
            return Ok(());
        }
        let mut hashes: Vec<String> = rows.iter().map(|r| r.content_hash.clone()).collect();
        hashes.sort();
        hashes.dedup();
        // Splitting identifiers is most of the work of writing a chunk's terms: on all cores,
        // before the write transaction.
        let terms: Vec<String> = rows
            .par_iter()
            .map(|r| document_terms(&r.content))
            .collect();
        let db = self.db();
        let err = |e| db.err("add chunks", e);
        let tx = db.write_tx("add chunks")?;
        delete_contents(&tx, &hashes).map_err(err)?;
        insert_rows(&tx, rows, &terms).map_err(err)?;
        tx.commit().map_err(err)
    }

    /// Remove every chunk of the given content hashes, and their vectors of every model.
    pub fn delete_hashes(&self, hashes: &[String]) -> Result<(), StoreError> {
        if hashes.is_empty() {
            return Ok(());
        }
        {
            let db = self.db();
            let err = |e| db.err("delete chunks", e);
            let tx = db.write_tx("delete chunks")?;
            delete_contents(&tx, hashes).map_err(err)?;
            tx.commit().map_err(err)?;
        }
        self.delete_vectors(hashes)
    }

    /// All chunks of the given content hashes, in content and chunk order.
    pub fn chunks_of(&self, hashes: &[String]) -> Result<Vec<ChunkRow>, StoreError> {
        let db = self.db();
        let err = |e| db.err("read chunks", e);
        let mut out = Vec::new();
        for part in hashes.chunks(IN_BATCH) {
            let sql = format!(
                "SELECT {ROW_COLUMNS} FROM {ROW_TABLES} WHERE c.content_hash IN ({})
                 ORDER BY c.content_hash, c.n",
                placeholders(part.len())
            );
            let mut stmt = db.conn.prepare_cached(&sql).map_err(err)?;
            let rows = stmt
                .query_map(params_from_iter(part), |r| row_of(r, 0))
                .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
                .map_err(err)?;
            out.extend(rows);
        }
        Ok(out)
    }

    /// Number of chunk rows.
    pub fn count(&self) -> Result<usize, StoreError> {
        let db = self.db();
        db.conn
            .query_row("SELECT count(*) FROM chunks", [], |r| r.get::<_, i64>(0))
            .map(|n| n as usize)
            .map_err(|e| db.err("count chunks", e))
    }

    /// Distinct content hashes that have chunks (for orphan checks).
    pub fn hashes(&self) -> Result<HashSet<String>, StoreError> {
        self.db()
            .string_set("SELECT DISTINCT content_hash FROM chunks", [])
    }

    /// Keep the stores compact: merge the full-text index's segments, and remove the chunk
    /// table LanceDB held before schema version 8.
    pub fn compact(&self) -> Result<(), StoreError> {
        chunkterms::optimize(&self.db())?;
        self.drop_legacy_table()
    }

    /// True when the full-text table exists with the tokenizer of this stemming setting.
    pub fn fts_matches(&self, stemming: bool) -> Result<bool, StoreError> {
        chunkterms::matches(&self.db(), stemming)
    }

    /// Make the full-text table match the stemming setting: create it if missing, rebuild it
    /// from the stored chunks if its tokenizer differs.
    pub fn refresh_fts(&self, stemming: bool) -> Result<(), StoreError> {
        chunkterms::refresh(&self.db(), stemming)
    }

    /// Remove the LanceDB chunk table of an index from before schema version 8 (its rows
    /// were forgotten by the migration, and every run recomputes them here).
    pub fn drop_legacy_table(&self) -> Result<(), StoreError> {
        lance::remove_table(&self.lance_dir, lance::LEGACY_CHUNK_TABLE)
    }
}

/// Insert chunk rows, and their `terms` when the full-text table exists, inside a write
/// transaction.
fn insert_rows(tx: &Transaction<'_>, rows: &[ChunkRow], terms: &[String]) -> rusqlite::Result<()> {
    let mut chunk = tx.prepare_cached(
        "INSERT INTO chunks (content_hash, n, filepath, language, start_line, end_line)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    let mut text = tx.prepare_cached("INSERT INTO chunk_text (rid, content) VALUES (?1, ?2)")?;
    let mut put_terms = chunkterms::insert_statement(tx)?;
    for (r, t) in rows.iter().zip(terms) {
        let n = chunk_number(&r.id).map_or(0, |(_, n)| n);
        chunk.execute(params![
            r.content_hash,
            n,
            r.filepath,
            r.language,
            r.start_line,
            r.end_line
        ])?;
        let rid = tx.last_insert_rowid();
        text.execute(params![rid, r.content])?;
        if let Some(stmt) = &mut put_terms {
            stmt.execute(params![rid, t])?;
        }
    }
    Ok(())
}

/// Delete the chunks of `hashes` and their terms inside a write transaction.
fn delete_contents(tx: &Transaction<'_>, hashes: &[String]) -> rusqlite::Result<()> {
    let with_terms = chunkterms::exists(tx)?;
    for part in hashes.chunks(IN_BATCH) {
        let marks = placeholders(part.len());
        let of_part = format!("(SELECT rid FROM chunks WHERE content_hash IN ({marks}))");
        if with_terms {
            chunkterms::delete_of(tx, &of_part, part)?;
        }
        let sql = format!("DELETE FROM chunk_text WHERE rid IN {of_part}");
        tx.execute(&sql, params_from_iter(part))?;
        let sql = format!("DELETE FROM chunks WHERE content_hash IN ({marks})");
        tx.execute(&sql, params_from_iter(part))?;
    }
    Ok(())
}
