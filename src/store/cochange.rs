//! The `cochange` tables: for each path of a branch, the file most often changed in the same
//! commits, mined from the branch's history (see `index::history`).

use rusqlite::{params, OptionalExtension};

use super::commits::History;
use super::error::StoreError;

/// A file that changed together with another.
#[derive(Debug, Clone, PartialEq)]
pub struct Partner {
    /// The path whose partner this is.
    pub path: String,
    /// The partner's path.
    pub partner: String,
    /// Commits that changed both.
    pub together: i64,
    /// Commits that changed `path`.
    pub changes: i64,
}

impl History<'_> {
    /// The head commit `branch`'s co-change rows were mined at, if any.
    pub fn cochange_head(&self, branch: &str) -> Result<Option<String>, StoreError> {
        self.db
            .conn
            .query_row(
                "SELECT head_commit FROM cochange_head WHERE branch = ?1",
                [branch],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.db.err("read co-change head", e))
    }

    /// Replace `branch`'s co-change rows with `partners`, mined at `head`.
    pub fn replace_cochange(
        &self,
        branch: &str,
        head: &str,
        partners: &[Partner],
    ) -> Result<(), StoreError> {
        let err = |e| self.db.err("store co-change", e);
        let tx = self.db.write_tx("begin")?;
        tx.execute("DELETE FROM cochange WHERE branch = ?1", [branch])
            .map_err(err)?;
        {
            let mut insert = tx
                .prepare(
                    "INSERT INTO cochange (branch, path, partner, together, changes)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .map_err(err)?;
            for p in partners {
                insert
                    .execute(params![branch, p.path, p.partner, p.together, p.changes])
                    .map_err(err)?;
            }
        }
        tx.execute(
            "INSERT OR REPLACE INTO cochange_head (branch, head_commit) VALUES (?1, ?2)",
            [branch, head],
        )
        .map_err(err)?;
        tx.commit().map_err(err)
    }

    /// The stored partner of `path` on `branch`, if it has one.
    pub fn partner(&self, branch: &str, path: &str) -> Result<Option<Partner>, StoreError> {
        self.db
            .conn
            .prepare_cached(
                "SELECT partner, together, changes FROM cochange
                 WHERE branch = ?1 AND path = ?2 ORDER BY together DESC, partner LIMIT 1",
            )
            .and_then(|mut stmt| {
                stmt.query_row([branch, path], |r| {
                    Ok(Partner {
                        path: path.to_string(),
                        partner: r.get(0)?,
                        together: r.get(1)?,
                        changes: r.get(2)?,
                    })
                })
                .optional()
            })
            .map_err(|e| self.db.err("read co-change", e))
    }
}
