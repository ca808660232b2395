//! The SQLite database: opening it (WAL, busy timeout) and applying the ordered SQL files of
//! `migrations/` in one transaction. An index written by a newer version is refused, never
//! modified.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::error::StoreError;

/// The migrations, in order; version N is the N-th entry.
pub(super) const MIGRATIONS: &[&str] = &[
    include_str!("../../migrations/0001_initial.sql"),
    include_str!("../../migrations/0002_embeddings.sql"),
    include_str!("../../migrations/0003_cochange.sql"),
    include_str!("../../migrations/0004_file_terms.sql"),
    include_str!("../../migrations/0005_commit_log.sql"),
    include_str!("../../migrations/0006_recheck_long_lines.sql"),
    include_str!("../../migrations/0007_content_note.sql"),
    include_str!("../../migrations/0008_chunks_in_sqlite.sql"),
    include_str!("../../migrations/0009_unverified.sql"),
    include_str!("../../migrations/0010_remote.sql"),
    include_str!("../../migrations/0011_snippets_cover.sql"),
    include_str!("../../migrations/0012_stale_definitions.sql"),
    include_str!("../../migrations/0013_stale_definitions_more.sql"),
    include_str!("../../migrations/0014_constants.sql"),
    include_str!("../../migrations/0015_name_words.sql"),
];

/// The table that records which migrations ran.
pub(super) const SCHEMA_VERSION_TABLE: &str =
    "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)";

/// Triggers that log the name of every definition written, renamed or deleted
/// (`name_words_changed`), so that the counts of the names' words (`store::name_words`)
/// are known stale, and what to count again, whoever wrote. Temporary, made by each
/// connection that opens the index: the database's own schema, which a snapshot must match
/// exactly, stays free of them.
const NAME_WORDS_TRIGGERS: &str = "
    CREATE TEMP TRIGGER IF NOT EXISTS definitions_added AFTER INSERT ON main.snippets
    BEGIN INSERT OR IGNORE INTO name_words_changed (name, kind) VALUES (new.name, new.kind); END;
    CREATE TEMP TRIGGER IF NOT EXISTS definitions_removed AFTER DELETE ON main.snippets
    BEGIN INSERT OR IGNORE INTO name_words_changed (name, kind) VALUES (old.name, old.kind); END;
    CREATE TEMP TRIGGER IF NOT EXISTS definitions_renamed AFTER UPDATE OF name, kind
    ON main.snippets BEGIN
      INSERT OR IGNORE INTO name_words_changed (name, kind)
        VALUES (old.name, old.kind), (new.name, new.kind);
    END;";

/// The schema version this build writes and reads.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// How long a connection waits for another process's lock before answering "busy".
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// How much of the index file a connection reads through a memory map instead of `pread`:
/// all of it, for any index this tool makes in practice. Every search opens fresh
/// connections whose page caches start empty, so each page it touches was copied out of
/// the kernel's cache by a system call; mapped, it is read where it lies (one-commit
/// astropy: 2.3 ms of a 24-27 ms search, with or without vectors; bench/RESULTS.md and bench/history/). A
/// larger file is mapped up to this size and read as before past it.
const MMAP_BYTES: i64 = 1 << 30;

/// An open index database: it opens the file and runs transactions; its queries are on the
/// narrow handles it lends, one per concern (see the `store` module).
pub struct Db {
    pub(super) conn: Connection,
    pub(super) path: PathBuf,
}

/// Declare a narrow handle on [`Db`] for one concern: `$ty<'a>`, a copy of a borrow of the
/// database whose methods are that concern's queries and transactions, and the accessor
/// `Db::$acc` that lends one. A caller sees only the concern it uses.
macro_rules! handle {
    ($(#[$doc:meta])* $ty:ident, $(#[$acc_doc:meta])* $acc:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $ty<'a> {
            pub(super) db: &'a $crate::store::sqlite::Db,
        }

        impl $crate::store::sqlite::Db {
            $(#[$acc_doc])*
            pub fn $acc(&self) -> $ty<'_> {
                $ty { db: self }
            }
        }
    };
}
pub(super) use handle;

/// A read transaction on one connection, held until the guard is dropped: every statement in
/// it reads one snapshot of the index, and none takes and drops its own read lock. A search
/// runs a few hundred statements (one per vector hit's chunk, per definition); without this
/// each one locked the WAL index and checked the journal on its own (1,100 `fcntl` and 640
/// `stat` calls for one search with vectors on one-commit astropy).
pub struct ReadSnapshot<'a> {
    conn: Option<&'a Connection>,
}

impl ReadSnapshot<'_> {
    /// Start one on `conn`, unless a transaction is open there already (then the guard does
    /// nothing: the open one is the snapshot).
    pub(crate) fn begin<'a>(
        conn: &'a Connection,
        path: &Path,
    ) -> Result<ReadSnapshot<'a>, StoreError> {
        let began = begin_read(conn, path)?;
        Ok(ReadSnapshot {
            conn: began.then_some(conn),
        })
    }
}

impl Drop for ReadSnapshot<'_> {
    fn drop(&mut self) {
        if let Some(conn) = self.conn {
            end_read(conn);
        }
    }
}

/// Begin a read transaction on `conn` unless one is open there already; whether it began.
pub(super) fn begin_read(conn: &Connection, path: &Path) -> Result<bool, StoreError> {
    if !conn.is_autocommit() {
        return Ok(false);
    }
    conn.execute_batch("BEGIN DEFERRED")
        .map_err(|e| sqlite_err(path, "begin a read", e))?;
    Ok(true)
}

/// End a read transaction that [`begin_read`] began. Nothing was written: ending it cannot
/// fail in a way that loses anything, and a connection left in a transaction is rolled back
/// when it closes.
pub(super) fn end_read(conn: &Connection) {
    let _ = conn.execute_batch("COMMIT");
}

impl Db {
    /// Read everything that follows, until the guard is dropped, from one snapshot.
    pub fn read_snapshot(&self) -> Result<ReadSnapshot<'_>, StoreError> {
        ReadSnapshot::begin(&self.conn, &self.path)
    }

    /// Open (creating if needed) the database at `path` and bring its schema up to date.
    pub fn open(path: &Path) -> Result<Db, StoreError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn =
            Connection::open_with_flags(path, flags).map_err(|e| sqlite_err(path, "open", e))?;
        let db = Db {
            conn,
            path: path.to_path_buf(),
        };
        db.configure()?;
        db.migrate()?;
        db.conn
            .execute_batch(NAME_WORDS_TRIGGERS)
            .map_err(|e| db.err("make triggers", e))?;
        Ok(db)
    }

    /// Open a database another machine wrote (an unpacked snapshot or pack), read-only,
    /// after `snapshot::check` accepted it: never memory-mapped (sqlite.org's advice for an
    /// untrusted file: a crafted file read through a map can fault the process, where a
    /// `pread` returns an error), trusting no function its schema names, and neither
    /// switched to WAL nor migrated (nothing is written to it).
    pub fn open_untrusted(path: &Path) -> Result<Db, StoreError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn =
            Connection::open_with_flags(path, flags).map_err(|e| sqlite_err(path, "open", e))?;
        let db = Db {
            conn,
            path: path.to_path_buf(),
        };
        db.conn
            .busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| db.err("set busy timeout", e))?;
        db.conn
            .pragma_update(Some("main"), "mmap_size", 0)
            .map_err(|e| db.err("set mmap_size", e))?;
        db.conn
            .pragma_update(None, "trusted_schema", "OFF")
            .map_err(|e| db.err("set trusted_schema", e))?;
        Ok(db)
    }

    /// Path of the database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn configure(&self) -> Result<(), StoreError> {
        self.conn
            .busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| self.err("set busy timeout", e))?;
        // WAL lets searches read while an index run writes; NORMAL sync is durable at
        // checkpoints and never corrupts on power loss in WAL mode.
        self.enable_wal()?;
        self.conn
            .pragma_update(None, "synchronous", "NORMAL")
            .map_err(|e| self.err("set synchronous", e))?;
        // The main database only: a snapshot ATTACHed for a merge is read as before.
        self.conn
            .pragma_update(Some("main"), "mmap_size", MMAP_BYTES)
            .map_err(|e| self.err("set mmap_size", e))?;
        Ok(())
    }

    /// Switch the file to WAL. Switching needs an exclusive lock, and where taking it could
    /// deadlock with another connection (several processes opening a new index at once:
    /// eight concurrent first runs in `tests/it/crash.rs`) SQLite answers "busy" at once
    /// without calling the busy handler; so a busy answer is retried, with a growing pause,
    /// for as long as the busy timeout would have waited.
    fn enable_wal(&self) -> Result<(), StoreError> {
        let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
        let mut pause = Duration::from_millis(5);
        loop {
            match self.conn.pragma_update(None, "journal_mode", "WAL") {
                Ok(()) => return Ok(()),
                Err(e) if super::error::is_busy(&e) && std::time::Instant::now() < deadline => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(200));
                }
                Err(e) => return Err(self.err("enable WAL", e)),
            }
        }
    }

    /// Current schema version stored in the file (0 for a new file).
    pub fn schema_version(&self) -> Result<u32, StoreError> {
        self.conn
            .execute_batch(SCHEMA_VERSION_TABLE)
            .map_err(|e| self.err("read schema version", e))?;
        let v: Option<u32> = self
            .conn
            .query_row("SELECT max(version) FROM schema_version", [], |r| r.get(0))
            .map_err(|e| self.err("read schema version", e))?;
        Ok(v.unwrap_or(0))
    }

    fn migrate(&self) -> Result<(), StoreError> {
        let found = self.schema_version()?;
        if found > SCHEMA_VERSION {
            return Err(StoreError::TooNew {
                path: self.path.clone(),
                found,
                supported: SCHEMA_VERSION,
            });
        }
        if found == SCHEMA_VERSION {
            return Ok(());
        }
        let tx = self.write_tx("begin migration")?;
        // Re-check inside the transaction: another process may have migrated meanwhile.
        let found: u32 = tx
            .query_row(
                "SELECT coalesce(max(version), 0) FROM schema_version",
                [],
                |r| r.get(0),
            )
            .map_err(|e| self.err("read schema version", e))?;
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(found as usize) {
            tx.execute_batch(sql)
                .map_err(|e| self.err("apply migration", e))?;
            tx.execute(
                "INSERT INTO schema_version (version) VALUES (?1)",
                [i as u32 + 1],
            )
            .map_err(|e| self.err("record migration", e))?;
        }
        tx.commit().map_err(|e| self.err("commit migration", e))
    }

    /// Begin a write transaction that takes the write lock at once (BEGIN IMMEDIATE), so
    /// concurrent writers wait on the busy timeout instead of failing on lock upgrade.
    pub(super) fn write_tx(
        &self,
        op: &'static str,
    ) -> Result<rusqlite::Transaction<'_>, StoreError> {
        rusqlite::Transaction::new_unchecked(&self.conn, rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| self.err(op, e))
    }

    /// The first column of every row `sql` yields, as a set: the query helper of every
    /// handle.
    pub(super) fn string_set<P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
    ) -> Result<HashSet<String>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(sql)
            .map_err(|e| self.err("query", e))?;
        let set = stmt
            .query_map(params, |r| r.get::<_, String>(0))
            .and_then(|rows| rows.collect::<Result<HashSet<_>, _>>())
            .map_err(|e| self.err("query", e))?;
        Ok(set)
    }

    /// Run `sql` (one `?1` parameter) once for each of `keys`, in one write transaction: the
    /// per-hash deletes of the handles.
    pub(super) fn for_each_key(
        &self,
        op: &'static str,
        sql: &str,
        keys: &[String],
    ) -> Result<(), StoreError> {
        if keys.is_empty() {
            return Ok(());
        }
        let tx = self.write_tx(op)?;
        {
            let mut stmt = tx.prepare_cached(sql).map_err(|e| self.err(op, e))?;
            for k in keys {
                stmt.execute([k]).map_err(|e| self.err(op, e))?;
            }
        }
        tx.commit().map_err(|e| self.err(op, e))
    }

    /// Map a rusqlite error to a store error, recognising corruption.
    pub(super) fn err(&self, op: &'static str, e: rusqlite::Error) -> StoreError {
        sqlite_err(&self.path, op, e)
    }
}

pub(crate) fn sqlite_err(path: &Path, op: &'static str, e: rusqlite::Error) -> StoreError {
    match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DatabaseCorrupt) | Some(rusqlite::ErrorCode::NotADatabase) => {
            StoreError::Corrupt {
                path: path.to_path_buf(),
                source: e,
            }
        }
        // Permissions, not damage: never a reason to rebuild.
        Some(rusqlite::ErrorCode::ReadOnly)
        | Some(rusqlite::ErrorCode::CannotOpen)
        | Some(rusqlite::ErrorCode::PermissionDenied) => StoreError::Access {
            path: path.to_path_buf(),
            op,
            source: e,
        },
        _ => StoreError::Sqlite {
            path: path.to_path_buf(),
            op,
            source: e,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_is_read_through_a_memory_map_and_an_attached_file_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("meta.sqlite")).unwrap();
        let other = dir.path().join("other.sqlite");
        db.conn
            .execute("ATTACH ?1 AS other", [other.to_string_lossy()])
            .unwrap();
        let mapped = |schema: &str| -> i64 {
            db.conn
                .query_row(&format!("PRAGMA {schema}.mmap_size"), [], |r| r.get(0))
                .unwrap()
        };
        assert_eq!(mapped("main"), MMAP_BYTES);
        assert_eq!(mapped("other"), 0);
    }

    #[test]
    fn a_database_from_elsewhere_is_never_memory_mapped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("snapshot.sqlite");
        drop(Db::open(&path).unwrap());
        let db = Db::open_untrusted(&path).unwrap();
        let pragma = |name: &str| -> i64 {
            db.conn
                .query_row(&format!("PRAGMA main.{name}"), [], |r| r.get(0))
                .unwrap()
        };
        assert_eq!(pragma("mmap_size"), 0);
        assert_eq!(pragma("trusted_schema"), 0);
        assert!(db
            .conn
            .execute("INSERT INTO schema_version (version) VALUES (0)", [])
            .is_err());
    }

    #[test]
    fn a_read_snapshot_does_not_see_a_commit_made_after_it_began() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("meta.sqlite");
        let (reader, writer) = (Db::open(&path).unwrap(), Db::open(&path).unwrap());
        let count = |db: &Db| -> i64 {
            db.conn
                .query_row("SELECT count(*) FROM schema_version", [], |r| r.get(0))
                .unwrap()
        };
        let before = count(&reader);
        let add = || {
            writer
                .conn
                .execute("INSERT INTO schema_version (version) VALUES (0)", [])
                .unwrap()
        };
        {
            let _snapshot = reader.read_snapshot().unwrap();
            assert_eq!(count(&reader), before);
            add();
            assert_eq!(count(&reader), before, "the snapshot holds");
            // A guard inside an open transaction leaves it to its owner.
            drop(reader.read_snapshot().unwrap());
            assert!(!reader.conn.is_autocommit());
        }
        assert!(reader.conn.is_autocommit(), "dropping the guard ended it");
        assert_eq!(count(&reader), before + 1);
        add();
        assert_eq!(
            count(&reader),
            before + 2,
            "no snapshot: each read sees the last commit"
        );
    }

    #[test]
    fn migrates_once_and_refuses_newer_schema() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("meta.sqlite");
        let db = Db::open(&path).unwrap();
        assert_eq!(db.schema_version().unwrap(), SCHEMA_VERSION);
        drop(db);
        let db = Db::open(&path).unwrap();
        assert_eq!(db.schema_version().unwrap(), SCHEMA_VERSION);
        db.conn
            .execute(
                "INSERT INTO schema_version (version) VALUES (?1)",
                [SCHEMA_VERSION + 1],
            )
            .unwrap();
        drop(db);
        let err = Db::open(&path).err().expect("newer schema must be refused");
        assert!(matches!(err, StoreError::TooNew { .. }), "{err}");
    }

    #[test]
    fn garbage_file_is_reported_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("meta.sqlite");
        std::fs::write(&path, vec![0x5a; 8192]).unwrap();
        let err = Db::open(&path).err().expect("garbage must not open");
        assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
    }
}
