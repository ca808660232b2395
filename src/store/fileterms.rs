//! The `file_terms` full-text table (SQLite FTS5, contentless): one row of identifier terms
//! per stored content, for ranking whole files by BM25 (migration 0004 says why). Rows are
//! written and deleted in the same transactions as the `content` rows they belong to.

use rusqlite::params;

use super::error::StoreError;
use super::sqlite::handle;
use crate::lang::Language;

/// The row id of a content's terms: the first 60 bits of its hash (hex), so a content's
/// row is addressed without a scan. Two contents sharing 60 bits would share a row, which
/// costs one file its whole-file score, nothing else; at a million files the chance is
/// about one in a million.
pub fn row_of(content_hash: &str) -> i64 {
    let head = content_hash.get(..15).unwrap_or(content_hash);
    i64::from_str_radix(head, 16).unwrap_or(0)
}

/// Replace the terms of `content_hash` inside a write transaction.
pub(crate) fn put_terms(
    tx: &rusqlite::Transaction<'_>,
    content_hash: &str,
    terms: &str,
) -> rusqlite::Result<()> {
    let row = row_of(content_hash);
    tx.prepare_cached("DELETE FROM file_terms WHERE rowid = ?1")?
        .execute([row])?;
    tx.prepare_cached("INSERT INTO file_terms (rowid, content_hash, terms) VALUES (?1, ?2, ?3)")?
        .execute(params![row, content_hash, terms])?;
    Ok(())
}

/// Delete the terms of `hashes` inside a write transaction.
pub(crate) fn delete_terms(
    tx: &rusqlite::Transaction<'_>,
    hashes: &[String],
) -> rusqlite::Result<()> {
    let mut del = tx.prepare_cached("DELETE FROM file_terms WHERE rowid = ?1")?;
    for h in hashes {
        del.execute([row_of(h)])?;
    }
    Ok(())
}

handle! {
    /// The whole-file term index (`file_terms`, FTS5), for ranking files by BM25.
    FileTerms,
    /// The whole-file term index.
    file_terms
}

impl FileTerms<'_> {
    /// The best `n` contents of `branch` for an FTS5 `expression` (optionally of one
    /// language), best first, with their BM25 score (higher is better).
    pub fn search(
        &self,
        branch: &str,
        expression: &str,
        lang: Option<Language>,
        n: usize,
    ) -> Result<Vec<(String, f64)>, StoreError> {
        let sql = "SELECT content_hash, -bm25(file_terms) AS score FROM file_terms
             WHERE file_terms MATCH ?1
               AND EXISTS (SELECT 1 FROM catalog k WHERE k.content_hash = file_terms.content_hash
                           AND k.branch = ?2 AND k.skip_reason IS NULL)
               AND (?4 IS NULL OR content_hash IN
                    (SELECT content_hash FROM content WHERE language = ?4))
             ORDER BY score DESC, content_hash LIMIT ?3";
        let mut stmt = self
            .db
            .conn
            .prepare_cached(sql)
            .map_err(|e| self.db.err("search file terms", e))?;
        let rows = stmt
            .query_map(params![expression, branch, n as i64, lang], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, f64>(1)?))
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.db.err("search file terms", e))?;
        Ok(rows)
    }

    /// Stored contents with chunks but no terms row: indexed before schema version 4, or
    /// merged in by `import` (a contentless table cannot be copied).
    pub fn contents_without_terms(&self) -> Result<Vec<String>, StoreError> {
        let mut v: Vec<String> = self
            .db
            .string_set(
                "SELECT content_hash FROM content WHERE n_chunks > 0
                 EXCEPT SELECT content_hash FROM file_terms",
                [],
            )?
            .into_iter()
            .collect();
        v.sort();
        Ok(v)
    }

    /// Store the terms of contents that already have a `content` row, in one transaction.
    pub fn store(&self, items: &[(String, String)]) -> Result<(), StoreError> {
        let tx = self.db.write_tx("begin")?;
        for (hash, terms) in items {
            put_terms(&tx, hash, terms).map_err(|e| self.db.err("store file terms", e))?;
        }
        tx.commit().map_err(|e| self.db.err("store file terms", e))
    }

    /// Terms rows whose content is not stored (left by a crash between stores, or by an
    /// older version's deletes).
    pub fn orphan_count(&self) -> Result<i64, StoreError> {
        self.db
            .conn
            .query_row(
                "SELECT count(*) FROM (SELECT content_hash FROM file_terms
                 EXCEPT SELECT content_hash FROM content)",
                [],
                |r| r.get(0),
            )
            .map_err(|e| self.db.err("count orphan file terms", e))
    }

    /// Delete terms rows whose content is not stored.
    pub fn drop_orphans(&self) -> Result<usize, StoreError> {
        let orphans: Vec<String> = self
            .db
            .string_set(
                "SELECT content_hash FROM file_terms EXCEPT SELECT content_hash FROM content",
                [],
            )?
            .into_iter()
            .collect();
        let tx = self.db.write_tx("begin")?;
        delete_terms(&tx, &orphans).map_err(|e| self.db.err("drop orphan file terms", e))?;
        tx.commit()
            .map_err(|e| self.db.err("drop orphan file terms", e))?;
        Ok(orphans.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::catalog::ComputedContent;
    use crate::store::sqlite::Db;

    fn content(hash: &str, terms: &str) -> ComputedContent {
        ComputedContent {
            content_hash: hash.into(),
            language: Language::Rust,
            n_chunks: 1,
            size: 10,
            symbols: Vec::new(),
            terms: terms.into(),
            note: None,
        }
    }

    #[test]
    fn ranks_files_of_the_branch_and_forgets_deleted_content() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("meta.sqlite")).unwrap();
        let (a, b) = ("a".repeat(64), "b".repeat(64));
        db.catalog()
            .store_computed(
                "run",
                &[
                    content(&a, "parse_config parse config parse config"),
                    content(&b, "render output parse"),
                ],
            )
            .unwrap();
        db.conn
            .execute(
                "INSERT INTO catalog VALUES ('w', 'main', 'a.rs', ?1, 1, 0, NULL, 0),
                                            ('w', 'main', 'b.rs', ?2, 1, 0, NULL, 0),
                                            ('w', 'other', 'b.rs', ?2, 1, 0, NULL, 0)",
                params![a, b],
            )
            .unwrap();
        let found = db
            .file_terms()
            .search("main", "\"parse\" OR \"config\"", None, 10)
            .unwrap();
        let order: Vec<&str> = found.iter().map(|(h, _)| h.as_str()).collect();
        assert_eq!(order, [a.as_str(), b.as_str()]);
        assert!(found[0].1 > found[1].1 && found[1].1 > 0.0);
        let other = db
            .file_terms()
            .search("other", "\"config\"", None, 10)
            .unwrap();
        assert!(other.is_empty(), "a.rs is not on branch other: {other:?}");
        // Re-storing replaces, never duplicates; deleting content deletes its terms.
        db.catalog()
            .store_computed("run2", &[content(&a, "config")])
            .unwrap();
        assert_eq!(
            db.file_terms()
                .search("main", "\"config\"", None, 10)
                .unwrap()
                .len(),
            1
        );
        let tx = db.write_tx("t").unwrap();
        crate::store::catalog::delete_content_rows(&tx, std::slice::from_ref(&a)).unwrap();
        tx.commit().unwrap();
        assert!(db
            .file_terms()
            .search("main", "\"config\"", None, 10)
            .unwrap()
            .is_empty());
        assert_eq!(db.file_terms().orphan_count().unwrap(), 0);
        assert!(db.file_terms().contents_without_terms().unwrap().is_empty());
    }
}
