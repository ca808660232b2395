//! Packs: the content-addressed pieces of a pushed index. A pack is a database in the exact
//! schema of an `export` snapshot (so `snapshot::check` reads it as it reads a snapshot)
//! holding the content rows, definitions and chunks of a set of content hashes, and no
//! catalog. A pull assembles the packs it needs, with the catalog of the branches it merges,
//! into one private snapshot that `import` then merges with all its checks. This module also
//! keeps this clone's records of its remotes (`remote_branches`, `remote_packs`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::{params, Connection};

use super::error::StoreError;
use super::sqlite::{handle, Db};
use super::unverified::{MISMATCH, UNVERIFIED};

/// One catalog row as a manifest carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteFile {
    /// Path relative to the work tree.
    pub path: String,
    /// Content hash (empty for a skipped entry with no content).
    pub hash: String,
    /// Size in bytes.
    pub size: u64,
    /// Why the file is not indexed, if it is not.
    pub skip: Option<String>,
}

/// The skip reason a pull gives a row whose content this clone checked and dropped.
pub const DROPPED: &str = MISMATCH;
/// The skip reason a pull gives a row whose content the pack its manifest names lacks (its
/// file is computed here by the next index run).
pub const NOT_IN_PACK: &str = "not in the remote's pack";

/// The catalog of one branch to write into an assembled snapshot.
pub struct BranchFiles {
    /// Catalog key.
    pub branch: String,
    /// When its manifest was pushed (unix seconds): the rows' `indexed_at`.
    pub pushed_at: i64,
    /// Its rows.
    pub files: Vec<RemoteFile>,
}

/// What this clone recorded about one branch and a remote.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RemoteBranch {
    /// The remote's URL, redacted.
    pub remote: String,
    /// Catalog key.
    pub branch: String,
    /// Object key of the manifest version last pushed or pulled.
    pub manifest: String,
    /// When that manifest was pushed (unix seconds).
    pub pushed_at: Option<i64>,
    /// When it was last pulled here (unix seconds).
    pub pulled_at: Option<i64>,
}

/// Write an empty database in the snapshot schema to `out` (which must not exist).
fn empty_snapshot(out: &Path) -> Result<(), StoreError> {
    let seed = out.with_extension("seed");
    {
        let db = Db::open(&seed)?;
        db.exchange().snapshot_into(out)?;
    }
    for suffix in ["", "-wal", "-shm"] {
        let mut p = seed.clone().into_os_string();
        p.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
    Ok(())
}

/// Fill the temporary table `want` of `conn` with `hashes`.
fn want(conn: &Connection, hashes: &[String]) -> rusqlite::Result<()> {
    conn.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS want (h TEXT PRIMARY KEY); DELETE FROM want;",
    )?;
    let mut add = conn.prepare("INSERT OR IGNORE INTO want (h) VALUES (?1)")?;
    for h in hashes {
        add.execute([h])?;
    }
    Ok(())
}

handle! {
    /// What this index gives to and takes from another clone's: a snapshot written out or
    /// merged in (`merge.rs`), a branch's catalog as a manifest carries it, packs of
    /// contents, and the contents a pull need not fetch.
    Exchange,
    /// Snapshots, packs and manifests exchanged with other clones.
    exchange
}

handle! {
    /// This clone's records of its remotes: which packs hold which contents, and which
    /// manifest of each branch was last pushed or pulled.
    Remote,
    /// The records of this clone's remotes.
    remote
}

impl Exchange<'_> {
    /// The catalog of `branch` as a manifest carries it: every row but those of content
    /// this clone has not verified (another machine's word is not passed on as ours).
    pub fn branch_files(&self, branch: &str) -> Result<Vec<RemoteFile>, StoreError> {
        let err = |e| self.db.err("read catalog", e);
        let mut stmt = self
            .db
            .conn
            .prepare(
                "SELECT path, content_hash, size, skip_reason FROM catalog
                 WHERE branch = ?1 AND (skip_reason IS NULL OR skip_reason NOT IN (?2, ?3))
                 ORDER BY path",
            )
            .map_err(err)?;
        let rows = stmt
            .query_map(params![branch, UNVERIFIED, MISMATCH], |r| {
                Ok(RemoteFile {
                    path: r.get(0)?,
                    hash: r.get(1)?,
                    size: r.get::<_, i64>(2)? as u64,
                    skip: r.get(3)?,
                })
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(err)?;
        Ok(rows)
    }

    /// Write a pack of the contents `hashes` (all computed here) to `out`.
    pub fn write_pack(&self, out: &Path, hashes: &[String]) -> Result<(), StoreError> {
        empty_snapshot(out)?;
        let err = |e| super::sqlite::sqlite_err(out, "write pack", e);
        let conn = Connection::open(out).map_err(err)?;
        conn.execute(
            "ATTACH DATABASE ?1 AS src",
            [self.db.path.to_string_lossy()],
        )
        .map_err(err)?;
        want(&conn, hashes).map_err(err)?;
        conn.execute_batch(
            "INSERT INTO content SELECT * FROM src.content WHERE content_hash IN (SELECT h FROM want);
             INSERT INTO snippets SELECT * FROM src.snippets WHERE content_hash IN (SELECT h FROM want);
             INSERT INTO chunks SELECT * FROM src.chunks WHERE content_hash IN (SELECT h FROM want);
             INSERT INTO chunk_text SELECT t.* FROM src.chunk_text t JOIN src.chunks c ON c.rid = t.rid
               WHERE c.content_hash IN (SELECT h FROM want);
             DROP TABLE temp.want;
             DETACH DATABASE src;
             VACUUM;",
        )
        .map_err(err)?;
        let n: i64 = conn
            .query_row("SELECT count(*) FROM content", [], |r| r.get(0))
            .map_err(err)?;
        let n = n as usize;
        if n != hashes.len() {
            return Err(StoreError::BadSnapshot {
                path: self.db.path.clone(),
                why: format!(
                    "{} of the {} contents to push are gone (a gc ran meanwhile?)",
                    hashes.len() - n,
                    hashes.len()
                ),
            });
        }
        Ok(())
    }
}

/// Assemble, at `out`, a snapshot of the contents taken from `packs` (each a pack database
/// already checked by `snapshot::check`, with the hashes to take from it, each hash from one
/// pack only); its catalog is added by [`add_catalog`]. Chunk row ids are numbered afresh:
/// each pack numbered its own.
pub fn assemble(out: &Path, packs: &[(PathBuf, Vec<String>)]) -> Result<(), StoreError> {
    empty_snapshot(out)?;
    let err = |e| super::sqlite::sqlite_err(out, "assemble pulled packs", e);
    let conn = Connection::open(out).map_err(err)?;
    for (pack, hashes) in packs {
        conn.execute("ATTACH DATABASE ?1 AS p", [pack.to_string_lossy()])
            .map_err(err)?;
        want(&conn, hashes).map_err(err)?;
        conn.execute_batch(
            "BEGIN;
             INSERT INTO content SELECT * FROM p.content WHERE content_hash IN (SELECT h FROM want);
             INSERT INTO snippets SELECT * FROM p.snippets WHERE content_hash IN (SELECT h FROM want);
             INSERT INTO chunks (content_hash, n, filepath, language, start_line, end_line)
               SELECT content_hash, n, filepath, language, start_line, end_line FROM p.chunks
               WHERE content_hash IN (SELECT h FROM want) ORDER BY content_hash, n;
             INSERT INTO chunk_text (rid, content)
               SELECT m.rid, pt.content FROM p.chunks pc
               JOIN p.chunk_text pt ON pt.rid = pc.rid
               JOIN main.chunks m ON m.content_hash = pc.content_hash AND m.n = pc.n
               WHERE pc.content_hash IN (SELECT h FROM want);
             COMMIT;
             DETACH DATABASE p;",
        )
        .map_err(err)?;
    }
    Ok(())
}

/// Add the catalogs of `branches` to the snapshot [`assemble`] wrote at `out`.
pub fn add_catalog(out: &Path, branches: &[BranchFiles]) -> Result<(), StoreError> {
    let err = |e| super::sqlite::sqlite_err(out, "assemble pulled packs", e);
    let mut conn = Connection::open(out).map_err(err)?;
    let tx = conn.transaction().map_err(err)?;
    {
        let mut add = tx
            .prepare(
                "INSERT INTO catalog (workspace, branch, path, content_hash, size, mtime_ns,
                   skip_reason, indexed_at) VALUES ('remote', ?1, ?2, ?3, ?4, 0, ?5, ?6)",
            )
            .map_err(err)?;
        for b in branches {
            for f in &b.files {
                add.execute(params![
                    b.branch,
                    f.path,
                    f.hash,
                    f.size as i64,
                    f.skip,
                    b.pushed_at
                ])
                .map_err(err)?;
            }
        }
    }
    tx.commit().map_err(err)
}

/// The content hashes of the assembled snapshot at `path` that have a content row.
pub fn assembled_hashes(path: &Path) -> Result<std::collections::HashSet<String>, StoreError> {
    // Read-only: opening it as a `Db` would migrate it, and `import` checks it afterwards.
    let err = |e| super::sqlite::sqlite_err(path, "read assembled packs", e);
    let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(err)?;
    let mut stmt = conn
        .prepare("SELECT content_hash FROM content")
        .map_err(err)?;
    let rows = stmt
        .query_map([], |r| r.get(0))
        .and_then(|rows| rows.collect::<Result<_, _>>())
        .map_err(err)?;
    Ok(rows)
}

impl Exchange<'_> {
    /// Those of `hashes` this index has no content row of.
    pub fn lacking<'a>(
        &self,
        hashes: impl IntoIterator<Item = &'a str>,
    ) -> Result<std::collections::HashSet<String>, StoreError> {
        let err = |e| self.db.err("read contents", e);
        let mut has = self
            .db
            .conn
            .prepare_cached("SELECT 1 FROM content WHERE content_hash = ?1")
            .map_err(err)?;
        let mut out = std::collections::HashSet::new();
        for h in hashes {
            if !has.exists([h]).map_err(err)? {
                out.insert(h.to_string());
            }
        }
        Ok(out)
    }

    /// Contents a check against this clone's files dropped (catalog rows say [`MISMATCH`]):
    /// a pull does not fetch them again; the next index run computes their files here.
    pub fn mismatched_hashes(&self) -> Result<std::collections::HashSet<String>, StoreError> {
        self.db.string_set(
            "SELECT DISTINCT content_hash FROM catalog WHERE skip_reason = ?1",
            [MISMATCH],
        )
    }
}

impl Remote<'_> {
    /// Content hash -> pack of everything this clone recorded as held by `remote`.
    pub fn packs(&self, remote: &str) -> Result<HashMap<String, String>, StoreError> {
        let err = |e| self.db.err("read remote records", e);
        let mut stmt = self
            .db
            .conn
            .prepare("SELECT content_hash, pack FROM remote_packs WHERE remote = ?1")
            .map_err(err)?;
        let rows = stmt
            .query_map([remote], |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(|rows| rows.collect::<Result<HashMap<String, String>, _>>())
            .map_err(err)?;
        Ok(rows)
    }

    /// Record that `remote` holds `pack` with the contents `hashes`.
    pub fn record_pack(
        &self,
        remote: &str,
        pack: &str,
        hashes: &[String],
    ) -> Result<(), StoreError> {
        let err = |e| self.db.err("record remote pack", e);
        let tx = self.db.write_tx("record remote pack")?;
        {
            let mut add = tx
                .prepare("INSERT OR REPLACE INTO remote_packs (remote, content_hash, pack) VALUES (?1, ?2, ?3)")
                .map_err(err)?;
            for h in hashes {
                add.execute(params![remote, h, pack]).map_err(err)?;
            }
        }
        tx.commit().map_err(err)
    }

    /// Record a push (`pulled` false) or a pull of `branch`'s manifest `manifest`.
    pub fn record_branch(
        &self,
        remote: &str,
        branch: &str,
        manifest: &str,
        pushed_at: i64,
        pulled: bool,
    ) -> Result<(), StoreError> {
        let pulled_at = pulled.then(crate::util::unix_now);
        self.db
            .conn
            .execute(
                "INSERT INTO remote_branches (remote, branch, manifest, pushed_at, pulled_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (remote, branch) DO UPDATE SET manifest = ?3, pushed_at = ?4,
                   pulled_at = coalesce(?5, pulled_at)",
                params![remote, branch, manifest, pushed_at, pulled_at],
            )
            .map(|_| ())
            .map_err(|e| self.db.err("record remote branch", e))
    }

    /// What this clone recorded about its remotes, by remote and branch.
    pub fn branches(&self) -> Result<Vec<RemoteBranch>, StoreError> {
        let err = |e| self.db.err("read remote records", e);
        let mut stmt = self
            .db
            .conn
            .prepare(
                "SELECT remote, branch, manifest, pushed_at, pulled_at FROM remote_branches
                 ORDER BY remote, branch",
            )
            .map_err(err)?;
        let rows = stmt
            .query_map([], |r| {
                Ok(RemoteBranch {
                    remote: r.get(0)?,
                    branch: r.get(1)?,
                    manifest: r.get(2)?,
                    pushed_at: r.get(3)?,
                    pulled_at: r.get(4)?,
                })
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(err)?;
        Ok(rows)
    }
}
