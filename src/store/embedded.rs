//! SQLite bookkeeping of vector search: which content is embedded by which model. A content
//! hash is marked only after all its chunks' vectors are in LanceDB, so nothing is ever
//! marked done without vectors; content not marked is pending and embedded by the next run.

use rusqlite::params;

use super::error::StoreError;
use super::sqlite::handle;

handle! {
    /// Which content each embedding model has vectors for, and what is pending.
    Embedded,
    /// The bookkeeping of embedded content.
    embedded
}

impl Embedded<'_> {
    /// Content hashes of `branch` that have chunks but no vectors from `model` yet, in a
    /// stable order (so interrupted runs resume where they were).
    pub fn pending(&self, branch: &str, model: &str) -> Result<Vec<String>, StoreError> {
        let mut stmt = self
            .db
            .conn
            .prepare_cached(
                "SELECT DISTINCT c.content_hash FROM catalog c
                 JOIN content t ON t.content_hash = c.content_hash
                 WHERE c.branch = ?1 AND c.skip_reason IS NULL AND t.n_chunks > 0
                   AND NOT EXISTS (SELECT 1 FROM embedded e
                                   WHERE e.content_hash = c.content_hash AND e.model = ?2)
                 ORDER BY c.content_hash",
            )
            .map_err(|e| self.db.err("list pending embeddings", e))?;
        let rows = stmt
            .query_map(params![branch, model], |r| r.get::<_, String>(0))
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.db.err("list pending embeddings", e))?;
        Ok(rows)
    }

    /// Record that every chunk of `hashes` has a vector from `model`.
    pub fn mark(&self, hashes: &[String], model: &str) -> Result<(), StoreError> {
        let tx = self.db.write_tx("begin")?;
        {
            let mut stmt = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO embedded (content_hash, model, embedded_at)
                     VALUES (?1, ?2, ?3)",
                )
                .map_err(|e| self.db.err("mark embedded", e))?;
            let now = crate::util::unix_now();
            for h in hashes {
                stmt.execute(params![h, model, now])
                    .map_err(|e| self.db.err("mark embedded", e))?;
            }
        }
        tx.commit().map_err(|e| self.db.err("mark embedded", e))
    }

    /// (content with vectors from `model`, content with chunks) on `branch`.
    pub fn coverage(&self, branch: &str, model: &str) -> Result<(usize, usize), StoreError> {
        self.db
            .conn
            .query_row(
                "SELECT
                   count(DISTINCT CASE WHEN e.content_hash IS NOT NULL THEN c.content_hash END),
                   count(DISTINCT c.content_hash)
                 FROM catalog c
                 JOIN content t ON t.content_hash = c.content_hash AND t.n_chunks > 0
                 LEFT JOIN embedded e ON e.content_hash = c.content_hash AND e.model = ?2
                 WHERE c.branch = ?1 AND c.skip_reason IS NULL",
                params![branch, model],
                |r| Ok((r.get::<_, i64>(0)? as usize, r.get::<_, i64>(1)? as usize)),
            )
            .map_err(|e| self.db.err("count embeddings", e))
    }

    /// Chunks with vectors from `model` (all branches).
    pub fn chunk_count(&self, model: &str) -> Result<usize, StoreError> {
        self.db
            .conn
            .query_row(
                "SELECT coalesce(sum(t.n_chunks), 0) FROM embedded e
                 JOIN content t ON t.content_hash = e.content_hash WHERE e.model = ?1",
                [model],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n as usize)
            .map_err(|e| self.db.err("count embedded chunks", e))
    }

    /// Models with vectors, and how many contents each has embedded.
    pub fn models(&self) -> Result<Vec<(String, usize)>, StoreError> {
        let mut stmt = self
            .db
            .conn
            .prepare("SELECT model, count(*) FROM embedded GROUP BY model ORDER BY model")
            .map_err(|e| self.db.err("list embedding models", e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as usize))
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.db.err("list embedding models", e))?;
        Ok(rows)
    }

    /// Forget that `hashes` were embedded, by every model (their vectors are deleted by the
    /// caller first): their chunks were cut anew.
    pub fn forget(&self, hashes: &[String]) -> Result<(), StoreError> {
        self.db.for_each_key(
            "forget embeddings",
            "DELETE FROM embedded WHERE content_hash = ?1",
            hashes,
        )
    }

    /// Forget every vector of `model` (their LanceDB table is dropped by the caller first).
    pub fn forget_model(&self, model: &str) -> Result<(), StoreError> {
        self.db
            .conn
            .execute("DELETE FROM embedded WHERE model = ?1", [model])
            .map(|_| ())
            .map_err(|e| self.db.err("forget embeddings", e))
    }

    /// Record the embedding outcome of run `run_id` (written after the branch commit).
    pub fn record_run(
        &self,
        run_id: &str,
        embedded: usize,
        pending: usize,
        model: &str,
    ) -> Result<(), StoreError> {
        self.db
            .conn
            .execute(
                "UPDATE runs SET embedded = ?2, embed_pending = ?3, embed_model = ?4
                 WHERE run_id = ?1",
                params![run_id, embedded as i64, pending as i64, model],
            )
            .map(|_| ())
            .map_err(|e| self.db.err("record embedding", e))
    }
}
