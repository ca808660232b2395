//! Content brought in from elsewhere (`import`; later a pulled index) and not yet checked
//! against this clone's own bytes (`index::verify`): listed in `unverified`. Every catalog
//! row brought in is skipped with [`UNVERIFIED`], whatever its content, so no search shows
//! it as the user's code until the row itself is checked: this clone's blob at its path
//! has its hash (the row is shown) or another (the row says [`MISMATCH`] and the next index
//! run of that branch computes the file itself). A content that fails its check is dropped,
//! and so are the rows that use it.

use std::collections::{HashMap, HashSet};

use rusqlite::params;

use super::catalog::Symbol;
use super::error::StoreError;
use super::sqlite::handle;
use crate::lang::Language;

/// The skip reason of a catalog row whose (imported) content is not verified yet.
pub const UNVERIFIED: &str = "imported, not yet verified against this clone's files";
/// The skip reason of a catalog row whose imported content did not match this clone's file.
pub const MISMATCH: &str = "imported content did not match this clone's file: dropped";

/// What the index holds for one content, apart from its chunks.
#[derive(Debug, Clone, PartialEq)]
pub struct ContentRow {
    /// Language.
    pub language: Language,
    /// Chunks it says it has.
    pub n_chunks: usize,
    /// Definitions it says it has.
    pub n_symbols: usize,
    /// Size of the bytes it was computed from.
    pub size: u64,
}

/// One catalog row waiting for a check: (branch, path, content hash).
pub type Pending = (String, String, String);

handle! {
    /// Content and catalog rows brought in from elsewhere and not yet checked against this
    /// clone's own bytes, and the transactions that settle them.
    Unverified,
    /// What another machine's index brought in and this clone has not checked yet.
    unverified
}

impl Unverified<'_> {
    /// The size each content of this database says it has: of a snapshot being merged,
    /// where `snapshot::check_sizes` has made it bound its chunks' text.
    pub fn declared_sizes(&self) -> Result<HashMap<String, u64>, StoreError> {
        let err = |e| self.db.err("read content sizes", e);
        let mut stmt = self
            .db
            .conn
            .prepare("SELECT content_hash, size FROM content")
            .map_err(err)?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)?.max(0) as u64)))
            .and_then(|rows| rows.collect::<Result<HashMap<_, _>, _>>())
            .map_err(err)?;
        Ok(rows)
    }

    /// Content hashes not yet verified.
    pub fn hashes(&self) -> Result<HashSet<String>, StoreError> {
        self.db
            .string_set("SELECT content_hash FROM unverified", [])
    }

    /// The catalog rows still waiting for a check, by branch and path (the table's own
    /// order: one pass over it, no lookup per row).
    pub fn pending_rows(&self) -> Result<Vec<Pending>, StoreError> {
        let err = |e| self.db.err("read unverified content", e);
        let mut stmt = self
            .db
            .conn
            .prepare(
                "SELECT branch, path, content_hash FROM catalog
                 WHERE skip_reason = ?1 ORDER BY branch, path",
            )
            .map_err(err)?;
        let rows = stmt
            .query_map([UNVERIFIED], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .and_then(|rows| rows.collect::<Result<Vec<Pending>, _>>())
            .map_err(err)?;
        Ok(rows)
    }

    /// The content row of `hash`, if it is stored.
    pub fn content_row(&self, hash: &str) -> Result<Option<ContentRow>, StoreError> {
        use rusqlite::OptionalExtension;
        self.db
            .conn
            .prepare_cached(
                "SELECT language, n_chunks, n_symbols, size FROM content WHERE content_hash = ?1",
            )
            .and_then(|mut s| {
                s.query_row([hash], |r| {
                    Ok(ContentRow {
                        language: r.get(0)?,
                        n_chunks: r.get::<_, i64>(1)?.max(0) as usize,
                        n_symbols: r.get::<_, i64>(2)?.max(0) as usize,
                        size: r.get::<_, i64>(3)?.max(0) as u64,
                    })
                })
                .optional()
            })
            .map_err(|e| self.db.err("read content", e))
    }

    /// The definitions stored for `hash`.
    pub fn symbols_of(&self, hash: &str) -> Result<Vec<Symbol>, StoreError> {
        let err = |e| self.db.err("read symbols", e);
        let mut stmt = self
            .db
            .conn
            .prepare_cached(
                "SELECT name, kind, start_line, end_line, signature, doc FROM snippets
                 WHERE content_hash = ?1",
            )
            .map_err(err)?;
        let rows = stmt
            .query_map([hash], |r| super::catalog::symbol_from_row(r, 0))
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(err)?;
        Ok(rows)
    }

    /// Record what checking found, in one transaction: `verified` contents are no longer
    /// pending (each row that uses one is shown only once checked itself, see
    /// [`Unverified::settle_rows`]); `dropped` ones lose their content and symbols (their
    /// chunks are the caller's to delete, after this commits) and the rows that used them
    /// say [`MISMATCH`].
    pub fn settle(&self, verified: &[String], dropped: &[String]) -> Result<(), StoreError> {
        let err = |e| self.db.err("record verified content", e);
        let tx = self.db.write_tx("record verified content")?;
        {
            let mut done = tx
                .prepare_cached("DELETE FROM unverified WHERE content_hash = ?1")
                .map_err(err)?;
            let mut mark = tx
                .prepare_cached(
                    "UPDATE catalog SET skip_reason = ?3 WHERE content_hash = ?1 AND skip_reason = ?2",
                )
                .map_err(err)?;
            for h in verified {
                done.execute([h]).map_err(err)?;
            }
            for h in dropped {
                mark.execute(params![h, UNVERIFIED, MISMATCH])
                    .map_err(err)?;
            }
        }
        super::catalog::delete_content_rows(&tx, dropped).map_err(err)?;
        tx.commit().map_err(err)
    }

    /// Record what checking rows found, in one transaction: each of `shown` (branch, path)
    /// is true of this clone's blob and is shown from now on; each of `mismatched` is not
    /// and says [`MISMATCH`]; each of `absent` names a path its branch's own commit does not
    /// have, and goes. Only rows still waiting ([`UNVERIFIED`]) change.
    pub fn settle_rows(
        &self,
        shown: &[(String, String)],
        mismatched: &[(String, String)],
        absent: &[(String, String)],
    ) -> Result<(), StoreError> {
        let err = |e| self.db.err("record verified rows", e);
        let tx = self.db.write_tx("record verified rows")?;
        {
            let mut mark = tx
                .prepare_cached(
                    "UPDATE catalog SET skip_reason = ?4
                     WHERE branch = ?1 AND path = ?2 AND skip_reason = ?3",
                )
                .map_err(err)?;
            for (branch, path) in shown {
                mark.execute(params![branch, path, UNVERIFIED, None::<String>])
                    .map_err(err)?;
            }
            for (branch, path) in mismatched {
                mark.execute(params![branch, path, UNVERIFIED, MISMATCH])
                    .map_err(err)?;
            }
            let mut drop = tx
                .prepare_cached(
                    "DELETE FROM catalog WHERE branch = ?1 AND path = ?2 AND skip_reason = ?3",
                )
                .map_err(err)?;
            for (branch, path) in absent {
                drop.execute(params![branch, path, UNVERIFIED])
                    .map_err(err)?;
            }
        }
        tx.commit().map_err(err)
    }
}
