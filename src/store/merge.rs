//! Copying a database snapshot out (`VACUUM INTO`) and merging one in (ATTACH), for
//! `export` and `import`.

use std::path::Path;

use rusqlite::params;

use super::error::StoreError;
use super::pack::{Exchange, RemoteFile};
use super::unverified::{MISMATCH, UNVERIFIED};

/// The catalog of every branch of the snapshot database at `path` (this clone's own copy,
/// written by [`Exchange::snapshot_into`]), as a manifest carries it: rows of content this clone
/// has not verified left out (another machine's word is not passed on as ours).
pub fn snapshot_catalogs(path: &Path) -> Result<Vec<(String, Vec<RemoteFile>)>, StoreError> {
    let err = |e| super::sqlite::sqlite_err(path, "read snapshot catalog", e);
    let conn = rusqlite::Connection::open(path).map_err(err)?;
    let mut stmt = conn
        .prepare(
            "SELECT branch, path, content_hash, size, skip_reason FROM catalog
             WHERE skip_reason IS NULL OR skip_reason NOT IN (?1, ?2)
             ORDER BY branch, path",
        )
        .map_err(err)?;
    let mut rows = stmt.query(params![UNVERIFIED, MISMATCH]).map_err(err)?;
    let mut out: Vec<(String, Vec<RemoteFile>)> = Vec::new();
    while let Some(r) = rows.next().map_err(err)? {
        let branch: String = r.get(0).map_err(err)?;
        let file = RemoteFile {
            path: r.get(1).map_err(err)?,
            hash: r.get(2).map_err(err)?,
            size: r.get::<_, i64>(3).map_err(err)?.max(0) as u64,
            skip: r.get(4).map_err(err)?,
        };
        match out.last_mut() {
            Some((b, files)) if *b == branch => files.push(file),
            _ => out.push((branch, vec![file])),
        }
    }
    Ok(out)
}

/// Leave in the snapshot database at `path` (this clone's own copy) only the catalog rows
/// `keep` names per branch, and only the contents, definitions, chunks and chunk text an
/// indexed row of those still uses (and no record of vectors: they do not travel); then
/// rewrite the file, so that nothing deleted stays
/// in its free pages.
pub fn keep_in_snapshot(path: &Path, keep: &[(String, Vec<RemoteFile>)]) -> Result<(), StoreError> {
    let err = |e| super::sqlite::sqlite_err(path, "filter snapshot", e);
    let mut conn = rusqlite::Connection::open(path).map_err(err)?;
    let tx = conn.transaction().map_err(err)?;
    tx.execute_batch(
        "CREATE TEMP TABLE keep (branch TEXT, path TEXT, PRIMARY KEY (branch, path));",
    )
    .map_err(err)?;
    {
        let mut add = tx
            .prepare("INSERT OR IGNORE INTO keep (branch, path) VALUES (?1, ?2)")
            .map_err(err)?;
        for (branch, files) in keep {
            for f in files {
                add.execute(params![branch, f.path]).map_err(err)?;
            }
        }
    }
    tx.execute_batch(
        "DELETE FROM catalog WHERE NOT EXISTS
           (SELECT 1 FROM keep k WHERE k.branch = catalog.branch AND k.path = catalog.path);
         CREATE TEMP TABLE used AS
           SELECT DISTINCT content_hash AS h FROM catalog WHERE skip_reason IS NULL;
         DELETE FROM content WHERE content_hash NOT IN (SELECT h FROM used);
         DELETE FROM snippets WHERE content_hash NOT IN (SELECT h FROM used);
         DELETE FROM chunk_text WHERE rid IN
           (SELECT rid FROM chunks WHERE content_hash NOT IN (SELECT h FROM used));
         DELETE FROM chunks WHERE content_hash NOT IN (SELECT h FROM used);
         DELETE FROM stale_definitions WHERE content_hash NOT IN (SELECT h FROM used);
         DELETE FROM embedded;
         DELETE FROM unverified;
         DROP TABLE temp.keep; DROP TABLE temp.used;",
    )
    .map_err(err)?;
    tx.commit().map_err(err)?;
    conn.execute_batch("VACUUM;").map_err(err)
}

impl Exchange<'_> {
    /// Write a consistent, compact copy of the database to `path` (which must not exist),
    /// as an importer checks it: without the full-text tables (derived from the chunks,
    /// contents and commits, their tokenizer a local setting; an importer rebuilds them
    /// rather than parse a stranger's), and without catalog rows whose paths an importer
    /// refuses (a work-tree name such as `git~1/x` that git would never check out).
    pub fn snapshot_into(&self, path: &Path) -> Result<(), StoreError> {
        let err = |e| super::sqlite::sqlite_err(path, "snapshot database", e);
        self.db
            .conn
            .execute("VACUUM INTO ?1", params![path.to_string_lossy()])
            .map_err(|e| self.db.err("snapshot database", e))?;
        let copy = rusqlite::Connection::open(path).map_err(err)?;
        for table in super::snapshot::DERIVED_TABLES {
            copy.execute_batch(&format!("DROP TABLE IF EXISTS {table};"))
                .map_err(err)?;
        }
        // FTS5 leaves the `_content` table of a `contentless_unindexed` table behind when it
        // drops the table: drop every shadow table that is left.
        let left: Vec<String> = {
            let mut stmt = copy
                .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
                .map_err(err)?;
            let names = stmt
                .query_map([], |r| r.get::<_, String>(0))
                .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
                .map_err(err)?;
            names
                .into_iter()
                .filter(|n| super::snapshot::derived(n))
                .collect()
        };
        for table in left {
            copy.execute_batch(&format!("DROP TABLE IF EXISTS \"{table}\";"))
                .map_err(err)?;
        }
        let unsafe_rows: Vec<(String, String)> = {
            let mut stmt = copy
                .prepare("SELECT branch, path FROM catalog")
                .map_err(err)?;
            let rows = stmt
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .and_then(|rows| rows.collect::<Result<Vec<(String, String)>, _>>())
                .map_err(err)?;
            rows.into_iter()
                .filter(|(_, p)| !crate::util::is_safe_rel_path(p))
                .collect()
        };
        for (branch, p) in &unsafe_rows {
            copy.execute(
                "DELETE FROM catalog WHERE branch = ?1 AND path = ?2",
                params![branch, p],
            )
            .map_err(err)?;
        }
        // This clone's records of its remotes are its own, not the snapshot's.
        copy.execute_batch("DELETE FROM remote_branches; DELETE FROM remote_packs; VACUUM;")
            .map_err(err)
    }

    /// Merge from the database at `path`: content and symbols of `missing` hashes (whose
    /// chunks the caller has already stored), and the catalog of every branch this index has
    /// not indexed, and of each branch in `replace` (a pull's branches, which replace what an
    /// earlier pull brought). One transaction. Returns the branches added or replaced.
    ///
    /// All of it is another machine's word: the merged contents are listed as unverified and
    /// every merged row (and any row that uses an unverified content) is skipped as
    /// [`UNVERIFIED`] until `index::verify` checks it against this clone's blob at its path;
    /// the rows' mtimes are zeroed, so the stat cache never takes
    /// another checkout's size and mtime for this one's.
    pub fn merge_from(
        &self,
        path: &Path,
        missing: &[String],
        replace: &[String],
    ) -> Result<Vec<String>, StoreError> {
        let err = |e| self.db.err("merge snapshot", e);
        self.db
            .conn
            .execute(
                "ATTACH DATABASE ?1 AS theirs",
                params![path.to_string_lossy()],
            )
            .map_err(err)?;
        let result = self.merge_attached(missing, replace);
        let detached = self
            .db
            .conn
            .execute("DETACH DATABASE theirs", [])
            .map_err(|e| self.db.err("merge snapshot", e));
        let branches = result?;
        detached?;
        Ok(branches)
    }

    fn merge_attached(
        &self,
        missing: &[String],
        replace: &[String],
    ) -> Result<Vec<String>, StoreError> {
        let err = |e| self.db.err("merge snapshot", e);
        let tx = self.db.write_tx("merge snapshot")?;
        tx.execute_batch(
            "CREATE TEMP TABLE IF NOT EXISTS merging (h TEXT PRIMARY KEY); DELETE FROM merging;",
        )
        .map_err(err)?;
        {
            let mut add = tx
                .prepare("INSERT OR IGNORE INTO merging (h) VALUES (?1)")
                .map_err(err)?;
            for h in missing {
                add.execute([h]).map_err(err)?;
            }
        }
        // Only what verification checks is taken: a note (`status --verbose` prints it) and a
        // run id are the other machine's words about its own run, and the lower-case names
        // that symbol lookups read are derived here, as the indexer derives them.
        tx.execute_batch(
            "INSERT OR IGNORE INTO content (content_hash, language, n_chunks, n_symbols, size,
               run_id, indexed_at, note)
             SELECT content_hash, language, n_chunks, n_symbols, size, 'import',
               CAST(strftime('%s', 'now') AS INTEGER), NULL
             FROM theirs.content WHERE content_hash IN (SELECT h FROM merging);
             INSERT INTO snippets (content_hash, name, name_lower, kind, start_line, end_line,
               signature, doc)
             SELECT content_hash, name, '', kind, start_line, end_line, signature, doc
             FROM theirs.snippets WHERE content_hash IN (SELECT h FROM merging);",
        )
        .map_err(err)?;
        lower_names(&tx).map_err(err)?;
        let mut branches: Vec<String> = {
            let mut stmt = tx
                .prepare(
                    "SELECT DISTINCT branch FROM theirs.catalog
                     WHERE branch NOT IN (SELECT DISTINCT branch FROM main.catalog)
                     ORDER BY branch",
                )
                .map_err(err)?;
            let rows = stmt
                .query_map([], |r| r.get(0))
                .and_then(|rows| rows.collect::<Result<Vec<String>, _>>())
                .map_err(err)?;
            rows
        };
        for b in replace {
            if !branches.contains(b) {
                tx.execute("DELETE FROM catalog WHERE branch = ?1", [b])
                    .map_err(err)?;
                branches.push(b.clone());
            }
        }
        // Skipped rows stay behind: their reason is the other machine's text (`status
        // --verbose` printed it under a path this repository may not have) and no content
        // of theirs can be checked here; an index run meets those files and skips them itself.
        for b in &branches {
            tx.execute(
                "INSERT INTO catalog (workspace, branch, path, content_hash, size, mtime_ns,
                   skip_reason, indexed_at)
                 SELECT workspace, branch, path, content_hash, size, 0, skip_reason, indexed_at
                 FROM theirs.catalog WHERE branch = ?1 AND skip_reason IS NULL",
                [b],
            )
            .map_err(err)?;
        }
        tx.execute_batch("INSERT OR IGNORE INTO unverified SELECT h FROM merging;")
            .map_err(err)?;
        // Every row brought in waits for its own check, whatever its content: a known
        // content says nothing about the path another machine put it at.
        {
            let mut wait = tx
                .prepare(
                    "UPDATE catalog SET skip_reason = ?1
                     WHERE branch = ?2 AND skip_reason IS NULL",
                )
                .map_err(err)?;
            for b in &branches {
                wait.execute(params![UNVERIFIED, b]).map_err(err)?;
            }
        }
        // Rows kept from this clone's own runs never used unverified content, but a row an
        // earlier merge brought in and a run has not rewritten may: it waits too.
        tx.execute(
            "UPDATE catalog SET skip_reason = ?1 WHERE skip_reason IS NULL
               AND content_hash IN (SELECT content_hash FROM unverified)",
            [UNVERIFIED],
        )
        .map_err(err)?;
        tx.execute_batch("DROP TABLE merging;").map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(branches)
    }
}

/// Fill `snippets.name_lower` of the contents being merged (temporary table `merging`) from
/// their names, with the indexer's own lower-casing (Unicode, as `store_computed` does; SQL's
/// `lower()` folds ASCII only).
fn lower_names(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    let names: Vec<(i64, String)> = {
        let mut stmt = tx.prepare(
            "SELECT rowid, name FROM snippets WHERE content_hash IN (SELECT h FROM merging)",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    let mut set = tx.prepare("UPDATE snippets SET name_lower = ?2 WHERE rowid = ?1")?;
    for (rowid, name) in names {
        set.execute(params![rowid, name.to_lowercase()])?;
    }
    Ok(())
}
