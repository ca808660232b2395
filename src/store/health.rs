//! SQLite-side health queries for `doctor`: integrity, expected schema objects, rows that
//! point at nothing, and the repairs that remove them.

use std::collections::HashSet;

use rusqlite::params;

use super::error::StoreError;
use super::sqlite::handle;

/// Tables and views every index of the current schema has.
const EXPECTED: [&str; 12] = [
    "content",
    "unverified",
    "stale_definitions",
    "file_terms",
    "embedded",
    "catalog",
    "tags",
    "snippets",
    "index_lock",
    "checkpoint",
    "runs",
    "schema_version",
];

handle! {
    /// Whether the database is sound and complete: integrity, schema objects, rows that
    /// point at nothing, and the repairs `doctor` makes.
    Health,
    /// The health checks and repairs of the database.
    health
}

impl Health<'_> {
    /// Problems `PRAGMA integrity_check` reports (empty when the file is sound).
    pub fn integrity_problems(&self) -> Result<Vec<String>, StoreError> {
        let mut stmt = self
            .db
            .conn
            .prepare("PRAGMA integrity_check")
            .map_err(|e| self.db.err("check integrity", e))?;
        let rows = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.db.err("check integrity", e))?;
        Ok(rows.into_iter().filter(|r| r != "ok").collect())
    }

    /// Expected tables and views that are missing.
    pub fn missing_schema_objects(&self) -> Result<Vec<String>, StoreError> {
        let present = self.db.string_set(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')",
            [],
        )?;
        Ok(EXPECTED
            .iter()
            .filter(|t| !present.contains(**t))
            .map(|t| t.to_string())
            .collect())
    }

    /// Content hashes that are recorded as stored with at least one chunk.
    pub fn hashes_with_chunks(&self) -> Result<HashSet<String>, StoreError> {
        self.db
            .string_set("SELECT content_hash FROM content WHERE n_chunks > 0", [])
    }

    /// How many contents are recorded with at least one chunk.
    pub fn count_with_chunks(&self) -> Result<usize, StoreError> {
        self.db
            .conn
            .query_row("SELECT count(*) FROM content WHERE n_chunks > 0", [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| n as usize)
            .map_err(|e| self.db.err("count contents", e))
    }

    /// Content hashes of indexed catalog rows with no `content` row: files that look indexed
    /// but whose chunks were never recorded.
    pub fn catalog_without_content(&self) -> Result<HashSet<String>, StoreError> {
        self.db.string_set(
            "SELECT DISTINCT c.content_hash FROM catalog c
             WHERE c.skip_reason IS NULL
               AND NOT EXISTS (SELECT 1 FROM content t WHERE t.content_hash = c.content_hash)",
            [],
        )
    }

    /// Number of symbols whose content is not stored.
    pub fn orphan_symbol_count(&self) -> Result<i64, StoreError> {
        self.db
            .conn
            .query_row(
                "SELECT count(*) FROM snippets s
                 WHERE NOT EXISTS (SELECT 1 FROM content t WHERE t.content_hash = s.content_hash)",
                [],
                |r| r.get(0),
            )
            .map_err(|e| self.db.err("count orphan symbols", e))
    }

    /// Delete symbols whose content is not stored.
    pub fn drop_orphan_symbols(&self) -> Result<usize, StoreError> {
        self.db
            .conn
            .execute(
                "DELETE FROM snippets WHERE NOT EXISTS
                   (SELECT 1 FROM content t WHERE t.content_hash = snippets.content_hash)",
                [],
            )
            .map_err(|e| self.db.err("drop orphan symbols", e))
    }

    /// Forget `hashes` entirely (content, symbols, and the catalog rows that use them), so
    /// the next index run reads those files again and computes them from scratch.
    pub fn forget_content(&self, hashes: &[String]) -> Result<(), StoreError> {
        let tx = self.db.write_tx("begin")?;
        for h in hashes {
            tx.execute("DELETE FROM catalog WHERE content_hash = ?1", params![h])
                .map_err(|e| self.db.err("forget content", e))?;
        }
        super::catalog::delete_content_rows(&tx, hashes)
            .map_err(|e| self.db.err("forget content", e))?;
        tx.commit().map_err(|e| self.db.err("forget content", e))
    }

    /// Up to `n` indexed files of `branch` (path, content hash): those from a random hash
    /// on, wrapping around. A different sample each time, so that over a few runs the
    /// doctor reaches every content (always the first `n` hashes never looked past them).
    /// At most `2n` rows are sorted, whatever the size of the catalog.
    pub fn sample_paths(
        &self,
        branch: &str,
        n: usize,
    ) -> Result<Vec<(String, String)>, StoreError> {
        let start: String = self
            .db
            .conn
            .query_row("SELECT lower(hex(randomblob(32)))", [], |r| r.get(0))
            .map_err(|e| self.db.err("sample paths", e))?;
        let mut stmt = self
            .db
            .conn
            .prepare(
                "SELECT path, content_hash FROM (
                   SELECT * FROM (SELECT 0 AS part, path, content_hash FROM catalog
                     WHERE branch = ?1 AND skip_reason IS NULL AND content_hash >= ?3
                     ORDER BY content_hash LIMIT ?2)
                   UNION ALL
                   SELECT * FROM (SELECT 1 AS part, path, content_hash FROM catalog
                     WHERE branch = ?1 AND skip_reason IS NULL AND content_hash < ?3
                     ORDER BY content_hash LIMIT ?2))
                 ORDER BY part, content_hash LIMIT ?2",
            )
            .map_err(|e| self.db.err("sample paths", e))?;
        let rows = stmt
            .query_map(params![branch, n as i64, start], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .and_then(|rows| rows.collect::<Result<Vec<(String, String)>, _>>())
            .map_err(|e| self.db.err("sample paths", e))?;
        Ok(rows)
    }
}
