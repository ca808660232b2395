//! The commit log tables: recent commits of each indexed branch with the files they changed
//! and their messages' terms (FTS5), for matching a query against what past commits said
//! (see `search::commits`). A commit is stored once however many branches reach it; one no
//! branch reaches any more is deleted in the transaction that drops its last branch row.

use rusqlite::params;

use super::error::StoreError;
use super::fileterms::row_of;
use super::sqlite::handle;

/// One commit to store.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedCommit {
    /// Hex object id.
    pub id: String,
    /// Its message's terms, space-separated (see `text::words::document_terms`).
    pub terms: String,
    /// The paths it changed.
    pub files: Vec<String>,
}

/// A stored commit that matched a query.
#[derive(Debug, Clone, PartialEq)]
pub struct PastCommit {
    /// BM25 score of its message (higher is better).
    pub score: f64,
    /// How many files it changed, on any branch.
    pub n_files: i64,
    /// The files it changed that are indexed on the searched branch: (path, content hash).
    pub files: Vec<(String, String)>,
}

handle! {
    /// A branch's history as mined for search: the commit log with its messages' terms (here)
    /// and the co-change partners of each path (`cochange.rs`).
    History,
    /// The mined history of each branch: commit log and co-change.
    history
}

impl History<'_> {
    /// Make `commits` the ones `branch` reaches, storing those not stored yet and deleting
    /// those no branch reaches any more.
    pub fn replace_commit_log(
        &self,
        branch: &str,
        commits: &[LoggedCommit],
    ) -> Result<(), StoreError> {
        let err = |e| self.db.err("store commit log", e);
        let tx = self.db.write_tx("begin")?;
        tx.execute("DELETE FROM branch_commits WHERE branch = ?1", [branch])
            .map_err(err)?;
        for c in commits {
            insert_commit(&tx, c).map_err(err)?;
            tx.prepare_cached(
                "INSERT OR IGNORE INTO branch_commits (branch, commit_id) VALUES (?1, ?2)",
            )
            .and_then(|mut s| s.execute([branch, &c.id]))
            .map_err(err)?;
        }
        delete_orphan_commits(&tx).map_err(err)?;
        tx.commit().map_err(err)
    }

    /// The best `n` commits reachable from `branch` for an FTS5 `expression`, best first.
    pub fn search_commits(
        &self,
        branch: &str,
        expression: &str,
        n: usize,
    ) -> Result<Vec<PastCommit>, StoreError> {
        let err = |e| self.db.err("search commit messages", e);
        let found: Vec<(String, f64)> = self
            .db
            .conn
            .prepare_cached(
                "SELECT commit_id, -bm25(commit_terms) AS score FROM commit_terms
                 WHERE commit_terms MATCH ?1
                   AND commit_id IN (SELECT commit_id FROM branch_commits WHERE branch = ?2)
                 ORDER BY score DESC, commit_id LIMIT ?3",
            )
            .and_then(|mut s| {
                s.query_map(params![expression, branch, n as i64], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })?
                .collect()
            })
            .map_err(err)?;
        let mut out = Vec::with_capacity(found.len());
        for (id, score) in found {
            let n_files: i64 = self
                .db
                .conn
                .prepare_cached("SELECT n_files FROM commit_log WHERE commit_id = ?1")
                .and_then(|mut s| s.query_row([&id], |r| r.get(0)))
                .map_err(err)?;
            let files = self
                .db
                .conn
                .prepare_cached(
                    "SELECT f.path, c.content_hash FROM commit_files f JOIN catalog c
                       ON c.branch = ?1 AND c.path = f.path AND c.skip_reason IS NULL
                     WHERE f.commit_id = ?2 ORDER BY f.path",
                )
                .and_then(|mut s| {
                    s.query_map([branch, &id], |r| Ok((r.get(0)?, r.get(1)?)))?
                        .collect()
                })
                .map_err(err)?;
            out.push(PastCommit {
                score,
                n_files,
                files,
            });
        }
        Ok(out)
    }

    /// How many commits are stored and how many of them no branch reaches (always 0 unless
    /// the database was changed behind our back).
    pub fn commit_log_counts(&self) -> Result<(i64, i64), StoreError> {
        self.db
            .conn
            .query_row(
                "SELECT (SELECT count(*) FROM commit_log),
                        (SELECT count(*) FROM commit_log WHERE commit_id NOT IN
                           (SELECT commit_id FROM branch_commits))",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(|e| self.db.err("count commits", e))
    }
}

/// Store one commit unless it is stored already.
fn insert_commit(tx: &rusqlite::Transaction<'_>, c: &LoggedCommit) -> rusqlite::Result<()> {
    let new = tx
        .prepare_cached("INSERT OR IGNORE INTO commit_log (commit_id, n_files) VALUES (?1, ?2)")?
        .execute(params![c.id, c.files.len() as i64])?;
    if new == 0 {
        return Ok(());
    }
    let mut file =
        tx.prepare_cached("INSERT OR IGNORE INTO commit_files (commit_id, path) VALUES (?1, ?2)")?;
    for path in &c.files {
        file.execute([&c.id, path])?;
    }
    let row = row_of(&c.id);
    tx.prepare_cached("DELETE FROM commit_terms WHERE rowid = ?1")?
        .execute([row])?;
    tx.prepare_cached("INSERT INTO commit_terms (rowid, commit_id, terms) VALUES (?1, ?2, ?3)")?
        .execute(params![row, c.id, c.terms])?;
    Ok(())
}

/// Delete the commits no branch reaches.
pub(crate) fn delete_orphan_commits(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    let orphans: Vec<String> = tx
        .prepare(
            "SELECT commit_id FROM commit_log WHERE commit_id NOT IN
               (SELECT commit_id FROM branch_commits)",
        )?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for id in &orphans {
        tx.prepare_cached("DELETE FROM commit_terms WHERE rowid = ?1")?
            .execute([row_of(id)])?;
        tx.prepare_cached("DELETE FROM commit_files WHERE commit_id = ?1")?
            .execute([id])?;
        tx.prepare_cached("DELETE FROM commit_log WHERE commit_id = ?1")?
            .execute([id])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sqlite::Db;

    fn commit(id: &str, terms: &str, files: &[&str]) -> LoggedCommit {
        LoggedCommit {
            id: id.repeat(40 / id.len()),
            terms: terms.into(),
            files: files.iter().map(|f| f.to_string()).collect(),
        }
    }

    #[test]
    fn commits_are_shared_by_branches_and_deleted_with_the_last_one() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("meta.sqlite")).unwrap();
        let history = db.history();
        let a = commit("a", "fix unicode method names", &["src/sessions.py"]);
        let b = commit("b", "add unicode table", &["src/table.py", "docs/x.md"]);
        history.replace_commit_log("main", &[a.clone(), b]).unwrap();
        history
            .replace_commit_log("topic", std::slice::from_ref(&a))
            .unwrap();
        assert_eq!(history.commit_log_counts().unwrap(), (2, 0));
        // No catalog rows yet: the commits match, but no file of theirs is on the branch.
        let found = history.search_commits("main", "\"unicode\"", 10).unwrap();
        assert_eq!(found.len(), 2);
        assert!(found.iter().all(|c| c.files.is_empty()));
        assert_eq!(
            history.search_commits("topic", "\"table\"", 10).unwrap(),
            []
        );
        // main moves on: b is reached by no branch and goes; a stays for topic.
        history.replace_commit_log("main", &[]).unwrap();
        assert_eq!(history.commit_log_counts().unwrap(), (1, 0));
        assert_eq!(
            history.search_commits("main", "\"unicode\"", 10).unwrap(),
            []
        );
        let on_topic = history.search_commits("topic", "\"unicode\"", 10).unwrap();
        assert_eq!(on_topic.len(), 1);
        assert_eq!(on_topic[0].n_files, 1);
        history.replace_commit_log("topic", &[]).unwrap();
        assert_eq!(history.commit_log_counts().unwrap(), (0, 0));
        assert_eq!(
            history.search_commits("topic", "\"unicode\"", 10).unwrap(),
            []
        );
    }
}
