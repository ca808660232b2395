//! Run coordination state in SQLite: the single `index_lock` row (holder, expiry, a hook's
//! request for another pass) and the `checkpoint` row of the current or interrupted run.

use rusqlite::{params, OptionalExtension};

use super::error::StoreError;
use super::sqlite::handle;

/// Who holds (or held) the index lock.
#[derive(Debug, Clone, PartialEq)]
pub struct LockHolder {
    /// Process id.
    pub pid: u32,
    /// Process start time as the OS reports it (guards against pid reuse).
    pub pid_start: String,
    /// Host name.
    pub host: String,
    /// Unix seconds.
    pub acquired_at: i64,
    /// Unix seconds; a lock past this is free for the taking.
    pub expires_at: i64,
}

/// Progress of a run, saved every batch and at every phase change.
#[derive(Debug, Clone, PartialEq)]
pub struct Checkpoint {
    /// The run.
    pub run_id: String,
    /// Work tree that ran it.
    pub workspace: String,
    /// Branch key.
    pub branch: String,
    /// walk | chunk | commit
    pub phase: String,
    /// Files done in this phase.
    pub done: usize,
    /// Files to do in this phase.
    pub total: usize,
    /// Unix seconds.
    pub started_at: i64,
    /// Unix seconds.
    pub updated_at: i64,
}

/// Outcome of one attempt to take the lock.
#[derive(Debug)]
pub enum LockAttempt {
    /// We hold it now.
    Acquired,
    /// Someone else does.
    Held(LockHolder),
}

handle! {
    /// The single `index_lock` row that lets one index run write at a time, and the requests
    /// other runs leave on it.
    IndexLock,
    /// The index lock.
    index_lock
}

impl IndexLock<'_> {
    /// Take the lock for `me` unless a live holder has it. `alive` tells whether a holder's
    /// process exists: `Some(true)` keeps the lock however old its lease (a slow embedding
    /// API must not lose it), `Some(false)` frees it at once, and `None` (another host, where
    /// we cannot look) leaves the lease to decide.
    pub fn take(
        &self,
        me: &LockHolder,
        alive: impl Fn(&LockHolder) -> Option<bool>,
    ) -> Result<LockAttempt, StoreError> {
        let path = self.db.path.clone();
        let err = |op, e| super::sqlite::sqlite_err(&path, op, e);
        // BEGIN IMMEDIATE, as every write path: a handle borrows the connection shared.
        let tx = self.db.write_tx("lock")?;
        let current = read_lock(&tx).map_err(|e| err("lock", e))?;
        if let Some(holder) = current {
            let mine =
                holder.pid == me.pid && holder.pid_start == me.pid_start && holder.host == me.host;
            let expired = holder.expires_at < crate::util::unix_now();
            let free = match alive(&holder) {
                Some(alive) => !alive,
                None => expired,
            };
            if !mine && !free {
                return Ok(LockAttempt::Held(holder));
            }
        }
        tx.execute(
            "INSERT INTO index_lock (id, pid, pid_start, host, acquired_at, expires_at, rerun)
             VALUES (1, ?1, ?2, ?3, ?4, ?5, 0)
             ON CONFLICT(id) DO UPDATE SET pid = ?1, pid_start = ?2, host = ?3,
               acquired_at = ?4, expires_at = ?5",
            params![me.pid, me.pid_start, me.host, me.acquired_at, me.expires_at],
        )
        .map_err(|e| err("lock", e))?;
        tx.commit().map_err(|e| err("lock", e))?;
        Ok(LockAttempt::Acquired)
    }

    /// The current lock row, if any.
    pub fn holder(&self) -> Result<Option<LockHolder>, StoreError> {
        read_lock(&self.db.conn).map_err(|e| self.db.err("read lock", e))
    }

    /// Extend our lease (only if we still hold the lock). Returns false if we lost it.
    pub fn renew(&self, me: &LockHolder, expires_at: i64) -> Result<bool, StoreError> {
        let n = self
            .db
            .conn
            .execute(
                "UPDATE index_lock SET expires_at = ?3
                 WHERE pid = ?1 AND pid_start = ?2 AND host = ?4",
                params![me.pid, me.pid_start, expires_at, me.host],
            )
            .map_err(|e| self.db.err("renew lock", e))?;
        Ok(n == 1)
    }

    /// Release our lock. Returns whether someone asked for another pass meanwhile.
    pub fn release(&self, me: &LockHolder) -> Result<bool, StoreError> {
        let rerun: Option<i64> = self
            .db
            .conn
            .query_row(
                "DELETE FROM index_lock WHERE pid = ?1 AND pid_start = ?2 RETURNING rerun",
                params![me.pid, me.pid_start],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.db.err("unlock", e))?;
        // With a run waiting for the lock (bit 2), that run does the pass itself.
        let rerun = rerun.unwrap_or(0);
        Ok(rerun & 1 != 0 && rerun & 2 == 0)
    }

    /// Ask the current holder to run once more when it finishes (used by hooks instead of
    /// queueing up). Returns false when no one holds the lock.
    pub fn request_rerun(&self) -> Result<bool, StoreError> {
        let n = self
            .db
            .conn
            .execute("UPDATE index_lock SET rerun = rerun | 1", [])
            .map_err(|e| self.db.err("request rerun", e))?;
        Ok(n == 1)
    }

    /// Tell the holder that a run waits for the lock (bit 2 of `rerun`; bit 1 is a requested
    /// pass): a background run stops embedding and lets it go, and the waiter does the pass
    /// a hook asked for. `wanted = false`: the waiter gave up.
    pub fn want(&self, wanted: bool) -> Result<(), StoreError> {
        let sql = if wanted {
            "UPDATE index_lock SET rerun = rerun | 2"
        } else {
            "UPDATE index_lock SET rerun = rerun & ~2"
        };
        self.db
            .conn
            .execute(sql, [])
            .map_err(|e| self.db.err("want lock", e))?;
        Ok(())
    }

    /// Whether a run waits for the lock (see [`IndexLock::want`]).
    pub fn wanted(&self) -> Result<bool, StoreError> {
        self.db
            .conn
            .query_row(
                "SELECT count(*) FROM index_lock WHERE rerun & 2 != 0",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n > 0)
            .map_err(|e| self.db.err("read lock request", e))
    }

    /// Clear a pending rerun request (we are about to do that pass).
    pub fn take_rerun(&self, me: &LockHolder) -> Result<bool, StoreError> {
        let n = self
            .db
            .conn
            .execute(
                "UPDATE index_lock SET rerun = rerun & ~1
                 WHERE pid = ?1 AND pid_start = ?2 AND rerun & 1 != 0",
                params![me.pid, me.pid_start],
            )
            .map_err(|e| self.db.err("take rerun", e))?;
        Ok(n == 1)
    }

    /// Remove the lock row whoever holds it (only for a holder known to be gone).
    pub fn break_lock(&self) -> Result<(), StoreError> {
        self.db
            .conn
            .execute("DELETE FROM index_lock", [])
            .map(|_| ())
            .map_err(|e| self.db.err("release stale lock", e))
    }
}

handle! {
    /// The checkpoint of the current or interrupted run, and the content such a run left
    /// behind.
    RunState,
    /// The checkpoint of the current or interrupted run.
    run_state
}

impl RunState<'_> {
    /// Save progress.
    pub fn save_checkpoint(&self, c: &Checkpoint) -> Result<(), StoreError> {
        self.db
            .conn
            .execute(
                "INSERT OR REPLACE INTO checkpoint
                 (id, run_id, workspace, branch, phase, done, total, started_at, updated_at)
                 VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    c.run_id,
                    c.workspace,
                    c.branch,
                    c.phase,
                    c.done as i64,
                    c.total as i64,
                    c.started_at,
                    c.updated_at
                ],
            )
            .map_err(|e| self.db.err("save checkpoint", e))?;
        Ok(())
    }

    /// The saved checkpoint, if a run is under way or was interrupted.
    pub fn checkpoint(&self) -> Result<Option<Checkpoint>, StoreError> {
        self.db
            .conn
            .query_row(
                "SELECT run_id, workspace, branch, phase, done, total, started_at, updated_at
                 FROM checkpoint WHERE id = 1",
                [],
                |r| {
                    Ok(Checkpoint {
                        run_id: r.get(0)?,
                        workspace: r.get(1)?,
                        branch: r.get(2)?,
                        phase: r.get(3)?,
                        done: r.get::<_, i64>(4)? as usize,
                        total: r.get::<_, i64>(5)? as usize,
                        started_at: r.get(6)?,
                        updated_at: r.get(7)?,
                    })
                },
            )
            .optional()
            .map_err(|e| self.db.err("read checkpoint", e))
    }

    /// Forget the checkpoint.
    pub fn clear_checkpoint(&self) -> Result<(), StoreError> {
        self.db
            .conn
            .execute("DELETE FROM checkpoint", [])
            .map_err(|e| self.db.err("clear checkpoint", e))?;
        Ok(())
    }

    /// Content computed by `run_id` that no catalog row references: what `--restart` drops.
    pub fn unreferenced_content_of_run(&self, run_id: &str) -> Result<Vec<String>, StoreError> {
        let mut stmt = self
            .db
            .conn
            .prepare(
                "SELECT content_hash FROM content WHERE run_id = ?1 AND content_hash NOT IN
                 (SELECT content_hash FROM catalog)",
            )
            .map_err(|e| self.db.err("read content", e))?;
        let v = stmt
            .query_map([run_id], |r| r.get(0))
            .and_then(|rows| rows.collect::<Result<Vec<String>, _>>())
            .map_err(|e| self.db.err("read content", e))?;
        Ok(v)
    }

    /// Drop content rows (and their symbols) by hash.
    pub fn drop_content(&self, hashes: &[String]) -> Result<(), StoreError> {
        let tx = self.db.write_tx("begin")?;
        super::catalog::delete_content_rows(&tx, hashes)
            .map_err(|e| self.db.err("drop content", e))?;
        tx.commit().map_err(|e| self.db.err("drop content", e))
    }
}

fn read_lock(conn: &rusqlite::Connection) -> rusqlite::Result<Option<LockHolder>> {
    conn.query_row(
        "SELECT pid, pid_start, host, acquired_at, expires_at FROM index_lock WHERE id = 1",
        [],
        |r| {
            Ok(LockHolder {
                pid: r.get(0)?,
                pid_start: r.get(1)?,
                host: r.get(2)?,
                acquired_at: r.get(3)?,
                expires_at: r.get(4)?,
            })
        },
    )
    .optional()
}
