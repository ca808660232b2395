//! Catalog, content and symbol queries on the SQLite database: which branch has which path
//! at which content, which content is computed, and the transactions that change them.

use std::collections::{HashMap, HashSet};

use rusqlite::params;

use super::error::StoreError;
use super::sqlite::handle;
use crate::lang::Language;

/// One file of one branch, as recorded in the catalog.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogRow {
    /// Path relative to the work tree, `/`-separated.
    pub path: String,
    /// SHA-256 of the file's bytes, hex.
    pub content_hash: String,
    /// Size in bytes.
    pub size: u64,
    /// Modification time in nanoseconds since the epoch (stat cache).
    pub mtime_ns: i64,
    /// Why the file is not indexed, if it is not.
    pub skip_reason: Option<String>,
    /// When the row was written (unix seconds).
    pub indexed_at: i64,
}

pub use crate::lang::{Symbol, SymbolKind};

/// A symbol from the columns `name, kind, start_line, end_line, signature, doc` of a row,
/// starting at column `at`.
pub(crate) fn symbol_from_row(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Symbol> {
    Ok(Symbol {
        name: r.get(at)?,
        kind: SymbolKind::parse(&r.get::<_, String>(at + 1)?),
        start_line: r.get(at + 2)?,
        end_line: r.get(at + 3)?,
        signature: r.get(at + 4)?,
        doc: r.get(at + 5)?,
    })
}

/// The metadata of one computed content hash, written once its chunks are stored.
#[derive(Debug, Clone)]
pub struct ComputedContent {
    /// SHA-256 of the bytes.
    pub content_hash: String,
    /// Detected language.
    pub language: Language,
    /// Number of chunks written to the chunk store.
    pub n_chunks: usize,
    /// Size in bytes.
    pub size: u64,
    /// Definitions found.
    pub symbols: Vec<Symbol>,
    /// Its identifiers for whole-file BM25, space-separated (see `text::words::document_terms`).
    pub terms: String,
    /// Why it was indexed differently from its language (e.g. as plain text), if it was.
    pub note: Option<String>,
}

/// The counts of one finished run.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct RunStats {
    /// Run identifier.
    pub run_id: String,
    /// Branch key.
    pub branch: String,
    /// HEAD commit at the time.
    pub head_commit: Option<String>,
    /// Unix seconds.
    pub started_at: i64,
    /// Wall time.
    pub seconds: f64,
    /// Files seen in the work tree.
    pub files: usize,
    /// Content hashes computed (chunked, tagged with symbols).
    pub compute: usize,
    /// Paths that joined this branch with already-indexed content.
    pub add_tag: usize,
    /// Paths this branch dropped whose content is still used elsewhere.
    pub remove_tag: usize,
    /// Content hashes deleted because nothing uses them any more.
    pub deleted: usize,
    /// Paths unchanged since the last run.
    pub unchanged: usize,
    /// Unchanged files that had to be read to be sure (changed within a second of the run
    /// that indexed them); their rows are refreshed so the next run trusts size and mtime.
    pub refreshed: usize,
    /// Files skipped (binary, junk, too large, unreadable).
    pub skipped: usize,
    /// Chunks written.
    pub chunks_added: usize,
    /// Contents embedded by this run.
    pub embedded: usize,
    /// Contents still waiting for vectors after this run (the embedder failed or was cut).
    pub embed_pending: usize,
    /// The embedding model, when vector search is on.
    pub embed_model: Option<String>,
}

/// A symbol that matched a search term, on a given path of the branch.
#[derive(Debug, Clone)]
pub struct SymbolHit {
    /// Content of the file that defines it.
    pub content_hash: String,
    /// Identifier.
    pub name: String,
    /// Kind of definition.
    pub kind: SymbolKind,
    /// Definition lines.
    pub start_line: u32,
    /// Definition lines (inclusive).
    pub end_line: u32,
}

/// The changes to a branch's catalog that a run commits.
#[derive(Debug, Default)]
pub struct BranchUpdate {
    /// Rows to insert or replace.
    pub upsert: Vec<CatalogRow>,
    /// Paths that left the branch.
    pub remove_paths: Vec<String>,
    /// Content hashes no branch uses any more.
    pub delete_hashes: Vec<String>,
}

fn row_to_catalog(r: &rusqlite::Row<'_>) -> rusqlite::Result<CatalogRow> {
    row_to_catalog_at(r, 0)
}

/// A [`CatalogRow`] from [`CATALOG_COLS`] starting at column `at`.
fn row_to_catalog_at(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<CatalogRow> {
    Ok(CatalogRow {
        path: r.get(at)?,
        content_hash: r.get(at + 1)?,
        size: r.get::<_, i64>(at + 2)? as u64,
        mtime_ns: r.get(at + 3)?,
        skip_reason: r.get(at + 4)?,
        indexed_at: r.get(at + 5)?,
    })
}

/// The catalog as an index run of one branch reads it (see [`Catalog::view`]).
#[derive(Debug, Default)]
pub struct CatalogView {
    /// Every row of every branch, grouped by path.
    pub by_path: HashMap<String, Vec<CatalogRow>>,
    /// The branch's rows, by path.
    pub branch_rows: Vec<CatalogRow>,
    /// Contents (not skipped) that other branches use.
    pub used_outside: HashSet<String>,
}

handle! {
    /// The catalog of each branch (path, content, size, mtime, skip reason) and the content
    /// rows it references.
    Catalog,
    /// The catalog and its content rows.
    catalog
}

const CATALOG_COLS: &str = "path, content_hash, size, mtime_ns, skip_reason, indexed_at";

impl Catalog<'_> {
    /// All rows of a branch, by path.
    pub fn branch(&self, branch: &str) -> Result<Vec<CatalogRow>, StoreError> {
        let sql = format!("SELECT {CATALOG_COLS} FROM catalog WHERE branch = ?1 ORDER BY path");
        let mut stmt = self
            .db
            .conn
            .prepare_cached(&sql)
            .map_err(|e| self.db.err("read catalog", e))?;
        let rows = stmt
            .query_map([branch], row_to_catalog)
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.db.err("read catalog", e))?;
        Ok(rows)
    }

    /// The whole catalog in one read, for an index run of `branch`'s work tree: every row
    /// grouped by path (the stat cache: a file whose size and mtime match a row of any branch
    /// has that row's content, since checkouts rewrite only the files they change), the
    /// branch's own rows by path, and the contents other branches use. One scan instead of
    /// three: on a no-op run the catalog reads were as long as the walk.
    pub fn view(&self, branch: &str) -> Result<CatalogView, StoreError> {
        let sql = format!("SELECT branch, {CATALOG_COLS} FROM catalog");
        let err = |e| self.db.err("read catalog", e);
        let mut stmt = self.db.conn.prepare_cached(&sql).map_err(err)?;
        let mut rows = stmt.query([]).map_err(err)?;
        let mut view = CatalogView::default();
        while let Some(r) = rows.next().map_err(err)? {
            let of: String = r.get(0).map_err(err)?;
            let row = row_to_catalog_at(r, 1).map_err(err)?;
            if of == branch {
                view.branch_rows.push(row.clone());
            } else if row.skip_reason.is_none() {
                view.used_outside.insert(row.content_hash.clone());
            }
            view.by_path.entry(row.path.clone()).or_default().push(row);
        }
        view.branch_rows.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(view)
    }

    /// Content hashes whose chunks and symbols are stored.
    pub fn computed_hashes(&self) -> Result<HashSet<String>, StoreError> {
        self.db.string_set("SELECT content_hash FROM content", [])
    }

    /// Content hashes used by branches other than `branch`.
    pub fn hashes_used_outside(&self, branch: &str) -> Result<HashSet<String>, StoreError> {
        self.db.string_set(
            "SELECT DISTINCT content_hash FROM catalog WHERE branch != ?1 AND skip_reason IS NULL",
            [branch],
        )
    }

    /// Content hashes indexed on `branch`.
    pub fn branch_hashes(&self, branch: &str) -> Result<HashSet<String>, StoreError> {
        self.db.string_set(
            "SELECT DISTINCT content_hash FROM catalog WHERE branch = ?1 AND skip_reason IS NULL",
            [branch],
        )
    }

    /// The contents on `branch` as flat-copy keys ([`super::flat::content_key`]), for an exact
    /// vector search: one pass over the branch's catalog rows, deduplicated here rather than
    /// by SQL (`DISTINCT` costs a temporary b-tree, about half of the query).
    pub fn branch_content_keys(&self, branch: &str) -> Result<super::flat::Contents, StoreError> {
        let err = |e| self.db.err("read catalog", e);
        let mut stmt = self
            .db
            .conn
            .prepare_cached(
                "SELECT content_hash FROM catalog WHERE branch = ?1 AND skip_reason IS NULL",
            )
            .map_err(err)?;
        let mut rows = stmt.query([branch]).map_err(err)?;
        let mut keys = super::flat::Contents::default();
        while let Some(r) = rows.next().map_err(err)? {
            let hash = r.get_ref(0).and_then(|v| Ok(v.as_str()?)).map_err(err)?;
            keys.insert(super::flat::content_key(hash));
        }
        Ok(keys)
    }

    /// Whether `branch` has been indexed (one primary-key probe; `branches` reads the whole
    /// catalog).
    pub fn has_branch(&self, branch: &str) -> Result<bool, StoreError> {
        self.db
            .conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM catalog WHERE branch = ?1)")
            .and_then(|mut s| s.query_row([branch], |r| r.get(0)))
            .map_err(|e| self.db.err("read catalog", e))
    }

    /// Branch keys present in the catalog.
    pub fn branches(&self) -> Result<Vec<String>, StoreError> {
        let mut v: Vec<String> = self
            .db
            .string_set("SELECT DISTINCT branch FROM catalog", [])?
            .into_iter()
            .collect();
        v.sort();
        Ok(v)
    }

    /// Record computed content (and its symbols) in one transaction. Called after its chunks
    /// are in the chunk store; until a catalog row references it, it is invisible.
    pub fn store_computed(
        &self,
        run_id: &str,
        items: &[ComputedContent],
    ) -> Result<(), StoreError> {
        let now = crate::util::unix_now();
        let tx = self.db.write_tx("begin")?;
        {
            let mut content = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO content
                     (content_hash, language, n_chunks, n_symbols, size, run_id, indexed_at, note)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                )
                .map_err(|e| self.db.err("store content", e))?;
            let mut clear = tx
                .prepare_cached("DELETE FROM snippets WHERE content_hash = ?1")
                .map_err(|e| self.db.err("store symbols", e))?;
            // Computed again by this build: its definitions are read right now.
            let mut fresh = tx
                .prepare_cached("DELETE FROM stale_definitions WHERE content_hash = ?1")
                .map_err(|e| self.db.err("store symbols", e))?;
            let mut sym = tx
                .prepare_cached(
                    "INSERT INTO snippets
                     (content_hash, name, name_lower, kind, start_line, end_line, signature, doc)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                )
                .map_err(|e| self.db.err("store symbols", e))?;
            for item in items {
                let h = &item.content_hash;
                content
                    .execute(params![
                        h,
                        item.language,
                        item.n_chunks as i64,
                        item.symbols.len() as i64,
                        item.size as i64,
                        run_id,
                        now,
                        item.note
                    ])
                    .map_err(|e| self.db.err("store content", e))?;
                clear
                    .execute([h])
                    .map_err(|e| self.db.err("store symbols", e))?;
                fresh
                    .execute([h])
                    .map_err(|e| self.db.err("store symbols", e))?;
                super::fileterms::put_terms(&tx, h, &item.terms)
                    .map_err(|e| self.db.err("store file terms", e))?;
                for s in &item.symbols {
                    sym.execute(params![
                        h,
                        s.name,
                        s.name.to_lowercase(),
                        s.kind.as_str(),
                        s.start_line,
                        s.end_line,
                        s.signature,
                        s.doc
                    ])
                    .map_err(|e| self.db.err("store symbols", e))?;
                }
            }
        }
        tx.commit().map_err(|e| self.db.err("commit content", e))
    }

    /// Mark `paths` of `branch` as indexed at `now` (unix seconds): their content was read
    /// again and matched, and `now` is over a second past their mtime, so size and mtime
    /// can be trusted from here on (git's "racy" entries, refreshed the way `git status` does).
    pub fn refresh_indexed_at(
        &self,
        branch: &str,
        paths: &[String],
        now: i64,
    ) -> Result<(), StoreError> {
        let tx = self.db.write_tx("begin")?;
        {
            let mut update = tx
                .prepare_cached(
                    "UPDATE catalog SET indexed_at = ?3 WHERE branch = ?1 AND path = ?2",
                )
                .map_err(|e| self.db.err("refresh catalog", e))?;
            for p in paths {
                update
                    .execute(params![branch, p, now])
                    .map_err(|e| self.db.err("refresh catalog", e))?;
            }
        }
        tx.commit().map_err(|e| self.db.err("refresh catalog", e))
    }

    /// Apply a run's changes to a branch, delete unused content, record the run's statistics
    /// and clear the checkpoint: all in one transaction, so a search sees the old branch or
    /// the new one, never a mix.
    pub fn commit_branch(
        &self,
        workspace: &str,
        update: &BranchUpdate,
        stats: &RunStats,
    ) -> Result<(), StoreError> {
        let branch = &stats.branch;
        let tx = self.db.write_tx("begin")?;
        {
            let mut upsert = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO catalog (workspace, branch, path, content_hash, size,
                     mtime_ns, skip_reason, indexed_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                )
                .map_err(|e| self.db.err("update catalog", e))?;
            for r in &update.upsert {
                upsert
                    .execute(params![
                        workspace,
                        branch,
                        r.path,
                        r.content_hash,
                        r.size as i64,
                        r.mtime_ns,
                        r.skip_reason,
                        r.indexed_at
                    ])
                    .map_err(|e| self.db.err("update catalog", e))?;
            }
            let mut remove = tx
                .prepare_cached("DELETE FROM catalog WHERE branch = ?1 AND path = ?2")
                .map_err(|e| self.db.err("update catalog", e))?;
            for p in &update.remove_paths {
                remove
                    .execute(params![branch, p])
                    .map_err(|e| self.db.err("update catalog", e))?;
            }
            delete_content_rows(&tx, &update.delete_hashes)
                .map_err(|e| self.db.err("delete content", e))?;
            tx.execute(
                "INSERT OR REPLACE INTO runs (run_id, branch, head_commit, started_at, seconds,
                 files, compute, add_tag, remove_tag, deleted, unchanged, skipped, chunks_added)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                params![
                    stats.run_id,
                    branch,
                    stats.head_commit,
                    stats.started_at,
                    stats.seconds,
                    stats.files as i64,
                    stats.compute as i64,
                    stats.add_tag as i64,
                    stats.remove_tag as i64,
                    stats.deleted as i64,
                    stats.unchanged as i64,
                    stats.skipped as i64,
                    stats.chunks_added as i64
                ],
            )
            .map_err(|e| self.db.err("record run", e))?;
            tx.execute("DELETE FROM checkpoint", [])
                .map_err(|e| self.db.err("clear checkpoint", e))?;
        }
        tx.commit().map_err(|e| self.db.err("commit branch", e))
    }

    /// Remove all catalog rows of branches not in `keep`, then delete content nobody uses.
    /// Returns (branches dropped, content hashes deleted).
    pub fn gc(&self, keep: &HashSet<String>) -> Result<(Vec<String>, Vec<String>), StoreError> {
        let tx = self.db.write_tx("begin")?;
        let dropped: Vec<String> = self
            .branches()?
            .into_iter()
            .filter(|b| !keep.contains(b))
            .collect();
        for b in &dropped {
            for table in ["catalog", "cochange", "cochange_head", "branch_commits"] {
                tx.execute(&format!("DELETE FROM {table} WHERE branch = ?1"), [b])
                    .map_err(|e| self.db.err("gc catalog", e))?;
            }
        }
        super::commits::delete_orphan_commits(&tx).map_err(|e| self.db.err("gc commits", e))?;
        let unused: Vec<String> = {
            let mut stmt = tx
                .prepare(
                    "SELECT content_hash FROM content WHERE content_hash NOT IN
                     (SELECT content_hash FROM catalog WHERE skip_reason IS NULL)",
                )
                .map_err(|e| self.db.err("gc content", e))?;
            let v = stmt
                .query_map([], |r| r.get(0))
                .and_then(|rows| rows.collect::<Result<Vec<String>, _>>())
                .map_err(|e| self.db.err("gc content", e))?;
            v
        };
        delete_content_rows(&tx, &unused).map_err(|e| self.db.err("gc content", e))?;
        tx.commit().map_err(|e| self.db.err("commit gc", e))?;
        Ok((dropped, unused))
    }
}

pub(crate) fn delete_content_rows(
    tx: &rusqlite::Transaction<'_>,
    hashes: &[String],
) -> rusqlite::Result<()> {
    let mut content = tx.prepare_cached("DELETE FROM content WHERE content_hash = ?1")?;
    let mut snippets = tx.prepare_cached("DELETE FROM snippets WHERE content_hash = ?1")?;
    let mut embedded = tx.prepare_cached("DELETE FROM embedded WHERE content_hash = ?1")?;
    let mut unverified = tx.prepare_cached("DELETE FROM unverified WHERE content_hash = ?1")?;
    let mut stale = tx.prepare_cached("DELETE FROM stale_definitions WHERE content_hash = ?1")?;
    for h in hashes {
        content.execute([h])?;
        snippets.execute([h])?;
        embedded.execute([h])?;
        unverified.execute([h])?;
        stale.execute([h])?;
    }
    super::fileterms::delete_terms(tx, hashes)
}
