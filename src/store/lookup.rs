//! Read-side queries for search and status: paths of content on a branch (the
//! [`Catalog`] handle), symbol lookup (the [`Symbols`] handle), run statistics and per-branch
//! counts (the [`Stats`] handle).

use std::collections::HashMap;

use rusqlite::{params, OptionalExtension};

use super::catalog::{Catalog, RunStats, SymbolHit};
use super::chunks::{placeholders, IN_BATCH};
use super::error::StoreError;
use super::sqlite::handle;
use super::unverified::{MISMATCH, UNVERIFIED};
use crate::lang::{Language, SymbolKind};

impl Catalog<'_> {
    /// (content hash, path, mtime) for every path of `branch` holding one of `hashes`.
    pub fn paths_for(
        &self,
        branch: &str,
        hashes: &[String],
    ) -> Result<Vec<(String, String, i64)>, StoreError> {
        let mut out = Vec::new();
        let mut stmt = self
            .db
            .conn
            .prepare_cached(
                "SELECT content_hash, path, mtime_ns FROM catalog
                 WHERE branch = ?1 AND content_hash = ?2 AND skip_reason IS NULL ORDER BY path",
            )
            .map_err(|e| self.db.err("read catalog", e))?;
        for h in hashes {
            let rows = stmt
                .query_map(params![branch, h], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                })
                .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
                .map_err(|e| self.db.err("read catalog", e))?;
            out.extend(rows);
        }
        Ok(out)
    }

    /// The size in bytes of each of `hashes` that the index holds, by content hash.
    pub fn content_sizes(&self, hashes: &[&str]) -> Result<HashMap<String, u64>, StoreError> {
        let err = |e| self.db.err("read content sizes", e);
        let mut stmt = self
            .db
            .conn
            .prepare_cached("SELECT size FROM content WHERE content_hash = ?1")
            .map_err(err)?;
        let mut out = HashMap::new();
        for &h in hashes {
            let size: Option<i64> = stmt.query_row([h], |r| r.get(0)).optional().map_err(err)?;
            if let Some(size) = size {
                // A size below 0 (a foreign database's word) reads as 0: no size known.
                out.insert(h.to_string(), size.max(0) as u64);
            }
        }
        Ok(out)
    }

    /// Paths on `branch` (indexed or skipped) whose name mentions a licence ("licen") or
    /// "copying", in any case: the candidates for licence files. Not a pulled or imported
    /// row this clone has not verified: its path is another machine's word, and a licence
    /// file makes its directory third-party code, ranked lower.
    pub fn licence_like_paths(&self, branch: &str) -> Result<Vec<String>, StoreError> {
        let mut stmt = self
            .db
            .conn
            .prepare_cached(
                "SELECT path FROM catalog WHERE branch = ?1
                 AND (path LIKE '%licen%' OR path LIKE '%copying%')
                 AND (skip_reason IS NULL OR skip_reason NOT IN (?2, ?3)) ORDER BY path",
            )
            .map_err(|e| self.db.err("read catalog", e))?;
        stmt.query_map(params![branch, UNVERIFIED, MISMATCH], |r| r.get(0))
            .and_then(|rows| rows.collect::<Result<Vec<String>, _>>())
            .map_err(|e| self.db.err("read catalog", e))
    }

    /// Whether `path` is on `branch`: `Some(Some(hash))` indexed with that content,
    /// `Some(None)` present but skipped (binary, generated, too large), `None` absent or only
    /// a pulled or imported row not verified here (another machine's word).
    pub fn path_on_branch(
        &self,
        branch: &str,
        path: &str,
    ) -> Result<Option<Option<String>>, StoreError> {
        self.db
            .conn
            .prepare_cached(
                "SELECT CASE WHEN skip_reason IS NULL THEN content_hash END FROM catalog
                 WHERE branch = ?1 AND path = ?2
                   AND (skip_reason IS NULL OR skip_reason NOT IN (?3, ?4))",
            )
            .and_then(|mut s| {
                s.query_row(params![branch, path, UNVERIFIED, MISMATCH], |r| r.get(0))
                    .optional()
            })
            .map_err(|e| self.db.err("read catalog", e))
    }
}

handle! {
    /// The definitions stored with each content, looked up by name or by content.
    Symbols,
    /// The stored definitions.
    symbols
}

impl Symbols<'_> {
    /// The definitions on `branch` whose lower-cased name is `name`, at most `limit`.
    pub fn definitions_named(
        &self,
        branch: &str,
        name: &str,
        limit: usize,
    ) -> Result<Vec<SymbolHit>, StoreError> {
        let mut stmt = self
            .db
            .conn
            .prepare_cached(
                "SELECT DISTINCT s.content_hash, s.name, s.kind, s.start_line, s.end_line
                 FROM snippets s
                 WHERE s.name_lower = ?2
                   AND EXISTS (SELECT 1 FROM catalog c WHERE c.content_hash = s.content_hash
                               AND c.branch = ?1 AND c.skip_reason IS NULL)
                 LIMIT ?3",
            )
            .map_err(|e| self.db.err("search symbols", e))?;
        stmt.query_map(params![branch, name, limit as i64], symbol_hit)
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.db.err("search symbols", e))
    }

    /// For each of `terms`, the symbols on `branch` whose lower-cased name equals or starts
    /// with it (at most `limit` per term); a constant only where its name is the term
    /// ([`SymbolKind::is_lookup_only`]: C's enumerators named `zstd_…` would fill the term
    /// `zstd`'s rows).
    pub fn find(
        &self,
        branch: &str,
        terms: &[String],
        limit: usize,
    ) -> Result<Vec<Vec<SymbolHit>>, StoreError> {
        let mut stmt = self
            .db
            .conn
            .prepare_cached(
                "SELECT DISTINCT s.content_hash, s.name, s.kind, s.start_line, s.end_line
                 FROM snippets s
                 WHERE s.name_lower >= ?2 AND s.name_lower < ?2 || char(1114111)
                   AND (s.kind != ?4 OR s.name_lower = ?2)
                   AND EXISTS (SELECT 1 FROM catalog c WHERE c.content_hash = s.content_hash
                               AND c.branch = ?1 AND c.skip_reason IS NULL)
                 LIMIT ?3",
            )
            .map_err(|e| self.db.err("search symbols", e))?;
        let constant = SymbolKind::Constant.as_str();
        let mut out = Vec::new();
        for t in terms {
            let rows = stmt
                .query_map(params![branch, t, limit as i64, constant], symbol_hit)
                .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
                .map_err(|e| self.db.err("search symbols", e))?;
            out.push(rows);
        }
        Ok(out)
    }

    /// The first `limit` definitions of one content (by line), with their signatures, for a
    /// description's function inside a result file (`search::described`); no constants
    /// ([`SymbolKind::is_lookup_only`]: a header's hundred `#define`s come before its
    /// functions).
    pub fn signatures_of(
        &self,
        hash: &str,
        limit: usize,
    ) -> Result<Vec<crate::lang::Symbol>, StoreError> {
        let mut stmt = self
            .db
            .conn
            .prepare_cached(
                "SELECT name, kind, start_line, end_line, signature, doc FROM snippets
                 WHERE content_hash = ?1 AND kind != ?3 ORDER BY start_line, end_line LIMIT ?2",
            )
            .map_err(|e| self.db.err("read signatures", e))?;
        let constant = SymbolKind::Constant.as_str();
        let rows = stmt
            .query_map(params![hash, limit as i64, constant], |r| {
                super::catalog::symbol_from_row(r, 0)
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.db.err("read signatures", e))?;
        Ok(rows)
    }

    /// Every definition of the contents `hashes` (names and lines), for the function-level
    /// stage of a search.
    pub fn definitions_of(&self, hashes: &[String]) -> Result<Vec<SymbolHit>, StoreError> {
        // One statement per IN_BATCH (500) contents (a statement per content cost a page walk each:
        // 10x slower for the 90 contents a question's definitions stage reads).
        let err = |e| self.db.err("read definitions", e);
        let mut by_hash: HashMap<String, Vec<SymbolHit>> = HashMap::new();
        for part in hashes.chunks(IN_BATCH) {
            let mut stmt = self
                .db
                .conn
                .prepare_cached(&definitions_sql(part.len()))
                .map_err(err)?;
            let rows = stmt
                .query_map(rusqlite::params_from_iter(part), symbol_hit)
                .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
                .map_err(err)?;
            for h in rows {
                by_hash.entry(h.content_hash.clone()).or_default().push(h);
            }
        }
        // In the order of `hashes`, as the callers rank ties by it.
        Ok(hashes
            .iter()
            .filter_map(|h| by_hash.remove(h))
            .flatten()
            .collect())
    }

    /// Definitions named `name` (case-insensitive; exact matches first, then names that
    /// start with it) on `branch`, with the paths they are at there.
    pub fn definitions(
        &self,
        branch: &str,
        name: &str,
        limit: usize,
    ) -> Result<Vec<Definition>, StoreError> {
        let mut stmt = self
            .db
            .conn
            .prepare_cached(
                "SELECT c.path, s.name, s.kind, s.start_line, s.end_line, s.signature, s.doc
                 FROM snippets s JOIN catalog c ON c.content_hash = s.content_hash
                 WHERE c.branch = ?1 AND c.skip_reason IS NULL
                   AND s.name_lower >= ?2 AND s.name_lower < ?2 || char(1114111)
                 ORDER BY s.name_lower != ?2, length(s.name), c.path, s.start_line
                 LIMIT ?3",
            )
            .map_err(|e| self.db.err("look up definitions", e))?;
        let rows = stmt
            .query_map(params![branch, name.to_lowercase(), limit as i64], |r| {
                Ok(Definition {
                    path: r.get(0)?,
                    symbol: super::catalog::symbol_from_row(r, 1)?,
                })
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.db.err("look up definitions", e))?;
        Ok(rows)
    }
}

handle! {
    /// What index runs recorded and what a branch holds, counted: run statistics, per-branch
    /// counts, skipped and noted files, for status and for sizing a search.
    Stats,
    /// Run statistics and per-branch counts.
    stats
}

impl Stats<'_> {
    /// The newest run of `branch`, if any (or of any branch, with `None`).
    pub fn last_run(&self, branch: Option<&str>) -> Result<Option<RunStats>, StoreError> {
        self.db
            .conn
            .query_row(
                "SELECT run_id, branch, head_commit, started_at, seconds, files, compute, add_tag,
                 remove_tag, deleted, unchanged, skipped, chunks_added, embedded, embed_pending,
                 embed_model FROM runs
                 WHERE ?1 IS NULL OR branch = ?1 ORDER BY started_at DESC, rowid DESC LIMIT 1",
                [branch],
                |r| {
                    Ok(RunStats {
                        run_id: r.get(0)?,
                        branch: r.get(1)?,
                        head_commit: r.get(2)?,
                        started_at: r.get(3)?,
                        seconds: r.get(4)?,
                        files: r.get::<_, i64>(5)? as usize,
                        compute: r.get::<_, i64>(6)? as usize,
                        add_tag: r.get::<_, i64>(7)? as usize,
                        remove_tag: r.get::<_, i64>(8)? as usize,
                        deleted: r.get::<_, i64>(9)? as usize,
                        unchanged: r.get::<_, i64>(10)? as usize,
                        // Not stored: it only says what one run did about the stat cache.
                        refreshed: 0,
                        skipped: r.get::<_, i64>(11)? as usize,
                        chunks_added: r.get::<_, i64>(12)? as usize,
                        embedded: r.get::<_, i64>(13)? as usize,
                        embed_pending: r.get::<_, i64>(14)? as usize,
                        embed_model: r.get(15)?,
                    })
                },
            )
            .optional()
            .map_err(|e| self.db.err("read runs", e))
    }

    /// (indexed files, skipped files, distinct content, chunks, symbols) of a branch.
    pub fn branch_counts(&self, branch: &str) -> Result<[i64; 5], StoreError> {
        self.db.conn
            .query_row(
                "SELECT
                   (SELECT count(*) FROM catalog WHERE branch = ?1 AND skip_reason IS NULL),
                   (SELECT count(*) FROM catalog WHERE branch = ?1 AND skip_reason IS NOT NULL),
                   (SELECT count(DISTINCT content_hash) FROM catalog
                      WHERE branch = ?1 AND skip_reason IS NULL),
                   (SELECT coalesce(sum(n_chunks), 0) FROM content WHERE content_hash IN
                      (SELECT content_hash FROM catalog WHERE branch = ?1 AND skip_reason IS NULL)),
                   (SELECT coalesce(sum(n_symbols), 0) FROM content WHERE content_hash IN
                      (SELECT content_hash FROM catalog WHERE branch = ?1 AND skip_reason IS NULL))",
                [branch],
                |r| Ok([r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?]),
            )
            .map_err(|e| self.db.err("count", e))
    }

    /// How many stored contents there are per content of `branch` (1.0 when the store
    /// holds one branch only): how much deeper a search must look for its matches to hold
    /// enough of the branch's. Two primary-key probes decide the common one-branch case;
    /// otherwise contents stand in for chunks (summing chunk counts read every content row,
    /// tens of milliseconds per query on a large index).
    pub fn store_per_branch(&self, branch: &str) -> Result<f64, StoreError> {
        let err = |e| self.db.err("count contents", e);
        let others: bool = self
            .db
            .conn
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM catalog WHERE branch < ?1)
                     OR EXISTS (SELECT 1 FROM catalog WHERE branch > ?1)",
            )
            .and_then(|mut s| s.query_row([branch], |r| r.get(0)))
            .map_err(err)?;
        if !others {
            return Ok(1.0);
        }
        let (all, on_branch): (i64, i64) = self
            .db
            .conn
            .prepare_cached(
                "SELECT (SELECT count(*) FROM content),
                        (SELECT count(DISTINCT content_hash) FROM catalog
                           WHERE branch = ?1 AND skip_reason IS NULL)",
            )
            .and_then(|mut s| s.query_row([branch], |r| Ok((r.get(0)?, r.get(1)?))))
            .map_err(err)?;
        Ok(all as f64 / on_branch.max(1) as f64)
    }

    /// Skipped files of a branch with their reasons; not pulled or imported rows waiting for
    /// this clone's check, whose paths the repository may not have (the counts say how many).
    pub fn skipped(&self, branch: &str) -> Result<Vec<(String, String)>, StoreError> {
        self.path_texts(
            "SELECT path, skip_reason FROM catalog
             WHERE branch = ?1 AND skip_reason IS NOT NULL AND skip_reason NOT IN (?2, ?3)
             ORDER BY path",
            params![branch, UNVERIFIED, MISMATCH],
        )
    }

    /// Files of `branch` indexed differently from their language, with the reason (a file
    /// whose syntax tree was too deep is cut as plain text), ordered by path.
    pub fn noted(&self, branch: &str) -> Result<Vec<(String, String)>, StoreError> {
        self.path_texts(
            "SELECT c.path, t.note FROM catalog c JOIN content t USING (content_hash)
             WHERE c.branch = ?1 AND c.skip_reason IS NULL AND t.note IS NOT NULL
             ORDER BY c.path",
            [branch],
        )
    }

    /// The indexed files of `branch` per language, most first.
    pub fn files_per_language(&self, branch: &str) -> Result<Vec<(Language, i64)>, StoreError> {
        let mut stmt = self
            .db
            .conn
            .prepare(
                "SELECT t.language, COUNT(*) AS n FROM catalog c JOIN content t USING (content_hash)
                 WHERE c.branch = ?1 AND c.skip_reason IS NULL
                 GROUP BY t.language ORDER BY n DESC, t.language",
            )
            .map_err(|e| self.db.err("read catalog", e))?;
        stmt.query_map([branch], |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.db.err("read catalog", e))
    }

    /// (path, text) rows of a query over one branch, with its parameters.
    fn path_texts(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
    ) -> Result<Vec<(String, String)>, StoreError> {
        let mut stmt = self
            .db
            .conn
            .prepare(sql)
            .map_err(|e| self.db.err("read catalog", e))?;
        let v = stmt
            .query_map(params, |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.db.err("read catalog", e))?;
        Ok(v)
    }

    /// When an index run here last started on `branch` (unix seconds), if one did.
    pub fn last_run_on(&self, branch: &str) -> Result<Option<i64>, StoreError> {
        self.db
            .conn
            .query_row(
                "SELECT max(started_at) FROM runs WHERE branch = ?1",
                [branch],
                |r| r.get(0),
            )
            .map_err(|e| self.db.err("read runs", e))
    }
}

/// A definition found by name, where it is on a branch.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Definition {
    /// Path on the branch.
    pub path: String,
    /// The definition.
    #[serde(flatten)]
    pub symbol: super::catalog::Symbol,
}

/// Every definition of `n` contents, by content and line: read from the index on
/// `snippets` alone (migration 11), no table row per definition.
fn definitions_sql(n: usize) -> String {
    format!(
        "SELECT content_hash, name, kind, start_line, end_line FROM snippets
         WHERE content_hash IN ({}) ORDER BY content_hash, start_line",
        placeholders(n)
    )
}

/// A symbol hit from a row of (content_hash, name, kind, start_line, end_line).
fn symbol_hit(r: &rusqlite::Row<'_>) -> rusqlite::Result<SymbolHit> {
    Ok(SymbolHit {
        content_hash: r.get(0)?,
        name: r.get(1)?,
        kind: SymbolKind::parse(&r.get::<_, String>(2)?),
        start_line: r.get(3)?,
        end_line: r.get(4)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sqlite::Db;

    #[test]
    fn a_contents_definitions_are_read_from_the_index_alone_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("meta.sqlite")).unwrap();
        let sql = format!("EXPLAIN QUERY PLAN {}", definitions_sql(2));
        let mut stmt = db.conn.prepare(&sql).unwrap();
        let plan: Vec<String> = stmt
            .query_map(["a", "b"], |r| r.get::<_, String>(3))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(
            plan.iter()
                .any(|p| p.contains("COVERING INDEX snippets_by_hash")),
            "{plan:?}"
        );
        assert!(!plan.iter().any(|p| p.contains("TEMP B-TREE")), "{plan:?}");
    }
}
