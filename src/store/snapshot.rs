//! Checking a snapshot's database before anything trusts it. A snapshot comes from another
//! machine or from anyone: its schema must be exactly one this build wrote, every object
//! compared, SQLite's own included (no extra view, trigger or virtual table that runs on a
//! read: a recursive view of `schema_version` hung `import`, and one named `sqlite_…`
//! escaped an earlier check), read through a read-only connection that never migrates it,
//! and every value that later becomes a path, a key or part of a store filter must have its
//! proper form (content hashes are 64 lower-case hex digits, paths are what git would check
//! out). Full-text tables and name word counts are derived data and never travel in a
//! snapshot (export drops them, the importer rebuilds them or the next index run counts
//! again): their internals are never parsed from a stranger's file.

use std::collections::BTreeSet;
use std::path::Path;

use rusqlite::{Connection, OpenFlags, OptionalExtension};

use super::error::StoreError;
use super::sqlite::MIGRATIONS;
use crate::lang::Language;

/// One schema object: (type, name, table, SQL).
type Object = (String, String, String, Option<String>);

/// The tables derived from others, left out of every snapshot with the tables named after
/// them (`<name>_…`): the full-text (FTS5) tables of the chunks, contents and commits, with
/// their shadow tables (`_data`, `_idx`, `_config`, …), and the counts of the definitions'
/// names' words with their state (`name_words_state`), which a clone counts for itself.
pub(super) const DERIVED_TABLES: [&str; 4] =
    ["chunk_terms", "file_terms", "commit_terms", "name_words"];

/// Whether `name` is a full-text table or one of its shadow tables.
pub(super) fn derived(name: &str) -> bool {
    DERIVED_TABLES.iter().any(|t| {
        name.strip_prefix(t)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('_'))
    })
}

/// Check the database file at `path` (a private copy): its schema is one of this build's
/// schema versions and its values have their proper form.
pub fn check(path: &Path) -> Result<(), StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let sqlite = |op, e| super::sqlite::sqlite_err(path, op, e);
    let conn = Connection::open_with_flags(path, flags).map_err(|e| sqlite("open snapshot", e))?;
    conn.pragma_update(None, "trusted_schema", "OFF")
        .and_then(|()| conn.pragma_update(Some("main"), "mmap_size", 0))
        .map_err(|e| sqlite("open snapshot", e))?;
    let found = objects(&conn).map_err(|e| sqlite("read snapshot schema", e))?;
    let known = expected().map_err(|e| sqlite("build the expected schema", e))?;
    if known.last() != Some(&found) {
        // Refused either way; the message says whether it looks like an older export.
        let older = known.contains(&without_derived(&found));
        return Err(bad(
            path,
            if older {
                "it was written by an older git-codesearch (its database holds full-text tables, or not all this version keeps); export it again with this version"
            } else {
                "its schema is not one git-codesearch writes (extra or changed tables, views, triggers or internal objects)"
            },
        ));
    }
    // Before any table is read: a damaged page is refused as such, here, rather than read
    // by a later step (a pack's chunk text is read only when it is assembled).
    integrity(&conn).map_err(|why| {
        bad(
            path,
            &format!("its database fails SQLite's integrity check: {why}"),
        )
    })?;
    check_values(&conn).map_err(|e| match e {
        Checked::Sql(e) => sqlite("read snapshot", e),
        Checked::Bad(why) => bad(path, &why),
    })
}

fn bad(path: &Path, why: &str) -> StoreError {
    StoreError::BadSnapshot {
        path: path.to_path_buf(),
        why: why.into(),
    }
}

/// Every schema object of a database, SQLite's own (`sqlite_autoindex_…`) included: the
/// expected schema holds exactly the ones SQLite makes for this build's tables.
fn objects(conn: &Connection) -> rusqlite::Result<BTreeSet<Object>> {
    let mut stmt = conn.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
    rows.collect()
}

/// `objects` less the full-text tables and their shadow tables.
fn without_derived(objects: &BTreeSet<Object>) -> BTreeSet<Object> {
    objects
        .iter()
        .filter(|(_, name, table, _)| !derived(name) && !derived(table))
        .cloned()
        .collect()
}

/// The schema after each migration of this build, as a snapshot has it (full-text tables
/// left out).
fn expected() -> rusqlite::Result<Vec<BTreeSet<Object>>> {
    let conn = Connection::open_in_memory()?;
    conn.execute_batch(super::sqlite::SCHEMA_VERSION_TABLE)?;
    let mut out = Vec::new();
    for (i, sql) in MIGRATIONS.iter().enumerate() {
        conn.execute_batch(sql)?;
        conn.execute(
            "INSERT INTO schema_version (version) VALUES (?1)",
            [i as u32 + 1],
        )?;
        out.push(without_derived(&objects(&conn)?));
    }
    Ok(out)
}

/// SQLite's integrity check of the whole file: its first finding, if any (cut to 200
/// characters: the text names pages and tables of a stranger's file).
fn integrity(conn: &Connection) -> Result<(), String> {
    let first: String = conn
        .query_row("PRAGMA integrity_check(1)", [], |r| r.get(0))
        .map_err(|e| e.to_string())?;
    if first == "ok" {
        Ok(())
    } else {
        Err(first.chars().take(200).collect())
    }
}

enum Checked {
    Sql(rusqlite::Error),
    Bad(String),
}

impl From<rusqlite::Error> for Checked {
    fn from(e: rusqlite::Error) -> Self {
        Checked::Sql(e)
    }
}

/// Hashes and paths of the rows an import copies.
fn check_values(conn: &Connection) -> Result<(), Checked> {
    // A skipped entry with no content (a link, a submodule) has an empty hash.
    for (table, column, except) in [
        ("content", "content_hash", ""),
        ("snippets", "content_hash", ""),
        (
            "catalog",
            "content_hash",
            " WHERE content_hash != '' OR skip_reason IS NULL",
        ),
        ("chunks", "content_hash", ""),
        ("stale_definitions", "content_hash", ""),
    ] {
        let sql = format!("SELECT DISTINCT {column} FROM {table}{except}");
        each_text(conn, &sql, |h| {
            if crate::util::is_content_hash(h) {
                Ok(())
            } else {
                Err(Checked::Bad(format!(
                    "{table}.{column} holds {h:?}, not a content hash"
                )))
            }
        })?;
    }
    // A language is read typed (`store::columns`): a name this build does not know would
    // fail every later read of its rows, so the snapshot is refused here, whole, as one with
    // a bad hash or path is (a newer build's language comes with a newer build).
    for table in ["content", "chunks"] {
        let sql = format!("SELECT DISTINCT language FROM {table}");
        each_text(conn, &sql, |l| match Language::parse(l) {
            Some(_) => Ok(()),
            None => Err(Checked::Bad(format!(
                "{table}.language holds {:?}, no language this build knows",
                l.chars().take(40).collect::<String>()
            ))),
        })?;
    }
    each_text(conn, "SELECT path FROM catalog", |p| {
        if crate::util::is_safe_rel_path(p) {
            Ok(())
        } else {
            Err(Checked::Bad(format!(
                "catalog path {p:?} is not a safe relative path"
            )))
        }
    })?;
    check_sizes(conn)
}

/// Largest content a snapshot may hold: the ceiling of `index.max_file_size`.
pub const MAX_CONTENT_BYTES: i64 = 100 << 20;

/// Every content's size is within [`MAX_CONTENT_BYTES`], and its chunks' text (its file's
/// lines, each once) is no longer than it. The merge reads chunks by contents' sizes
/// (`share::file`): a snapshot declaring ten bytes for a gigabyte of chunk text would have
/// had it held in memory, two hundred contents at a time.
fn check_sizes(conn: &Connection) -> Result<(), Checked> {
    let large: Option<String> = conn
        .query_row(
            "SELECT content_hash FROM content WHERE size < 0 OR size > ?1 LIMIT 1",
            [MAX_CONTENT_BYTES],
            |r| r.get(0),
        )
        .optional()?;
    if let Some(h) = large {
        return Err(Checked::Bad(format!(
            "content {h} is larger than {MAX_CONTENT_BYTES} bytes, or negative"
        )));
    }
    let over: Option<String> = conn
        .query_row(
            "SELECT c.content_hash FROM chunks c JOIN chunk_text t ON t.rid = c.rid
             GROUP BY c.content_hash
             HAVING sum(length(CAST(t.content AS BLOB))) >
               coalesce((SELECT size FROM content k WHERE k.content_hash = c.content_hash), 0)
             LIMIT 1",
            [],
            |r| r.get(0),
        )
        .optional()?;
    match over {
        Some(h) => Err(Checked::Bad(format!(
            "the chunks of content {h} hold more text than its size"
        ))),
        None => Ok(()),
    }
}

fn each_text(
    conn: &Connection,
    sql: &str,
    mut check: impl FnMut(&str) -> Result<(), Checked>,
) -> Result<(), Checked> {
    let mut stmt = conn.prepare(sql)?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        match row.get_ref(0)?.as_str_or_null() {
            Ok(Some(v)) => check(v)?,
            _ => return Err(Checked::Bad(format!("a value of `{sql}` is not text"))),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A snapshot of a fresh index, as export writes it.
    fn fresh() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let db = super::super::Db::open(&dir.path().join("index.sqlite")).unwrap();
        let path = dir.path().join("m.sqlite");
        db.exchange().snapshot_into(&path).unwrap();
        (dir, path)
    }

    #[test]
    fn a_fresh_index_passes_and_any_extra_object_fails() {
        let (_d, path) = fresh();
        check(&path).unwrap();
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TRIGGER t AFTER INSERT ON runs BEGIN SELECT 1; END;")
            .unwrap();
        assert!(matches!(check(&path), Err(StoreError::BadSnapshot { .. })));
    }

    /// Overwrite the page header of `table`'s root page in the database at `path`.
    fn damage_root_page(path: &Path, table: &str) {
        let conn = Connection::open(path).unwrap();
        let (root, size): (i64, i64) = conn
            .query_row(
                "SELECT rootpage, (SELECT page_size FROM pragma_page_size())
                 FROM sqlite_master WHERE name = ?1",
                [table],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        drop(conn);
        let mut bytes = std::fs::read(path).unwrap();
        let at = ((root - 1) * size) as usize;
        bytes[at..at + 8].fill(0x42);
        std::fs::write(path, bytes).unwrap();
    }

    #[test]
    fn a_damaged_page_fails_sqlites_integrity_check() {
        let (_d, path) = fresh();
        damage_root_page(&path, "chunk_text");
        let Err(StoreError::BadSnapshot { why, .. }) = check(&path) else {
            panic!("a damaged database was accepted");
        };
        assert!(why.contains("integrity check"), "{why}");
    }

    #[test]
    fn an_object_named_like_an_internal_one_fails_too() {
        let (_d, path) = fresh();
        let conn = Connection::open(&path).unwrap();
        // SQLite reserves `sqlite_` names, but a crafted file can hold them anyway.
        conn.execute_batch(
            "PRAGMA writable_schema = ON;
             INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql) VALUES
               ('trigger', 'sqlite_t', 'runs', 0,
                'CREATE TRIGGER sqlite_t AFTER INSERT ON runs BEGIN SELECT 1; END');
             PRAGMA writable_schema = OFF;",
        )
        .unwrap();
        drop(conn);
        assert!(matches!(check(&path), Err(StoreError::BadSnapshot { .. })));
    }

    #[test]
    fn a_recursive_view_in_place_of_a_table_fails_at_once() {
        let (_d, path) = fresh();
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(
            "DROP TABLE schema_version;
             CREATE VIEW schema_version(version) AS WITH RECURSIVE r(x) AS
               (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x FROM r;",
        )
        .unwrap();
        assert!(matches!(check(&path), Err(StoreError::BadSnapshot { .. })));
    }

    #[test]
    fn a_hash_that_is_a_filter_or_a_climbing_path_fails() {
        let (_d, path) = fresh();
        let conn = Connection::open(&path).unwrap();
        let good = "a".repeat(64);
        conn.execute(
            "INSERT INTO content VALUES (?1, 'rust', 1, 0, 1, 'r', 0, NULL)",
            ["x') OR true OR content_hash IN ('y"],
        )
        .unwrap();
        assert!(matches!(check(&path), Err(StoreError::BadSnapshot { .. })));
        conn.execute("DELETE FROM content", []).unwrap();
        conn.execute(
            "INSERT INTO catalog VALUES ('w', 'refs/heads/main', '../../x', ?1, 1, 0, NULL, 0)",
            [&good],
        )
        .unwrap();
        assert!(matches!(check(&path), Err(StoreError::BadSnapshot { .. })));
        conn.execute("DELETE FROM catalog", []).unwrap();
        check(&path).unwrap();
        conn.execute(
            "INSERT INTO chunks VALUES (1, '../x', 0, 'a.rs', 'rust', 1, 1)",
            [],
        )
        .unwrap();
        assert!(matches!(check(&path), Err(StoreError::BadSnapshot { .. })));
    }

    #[test]
    fn a_language_this_build_does_not_know_fails() {
        let (_d, path) = fresh();
        let conn = Connection::open(&path).unwrap();
        let hash = "a".repeat(64);
        let content = "INSERT INTO content VALUES (?1, ?2, 1, 0, 1, 'r', 0, NULL)";
        conn.execute(content, [&hash, "rust"]).unwrap();
        let chunk = "INSERT INTO chunks VALUES (1, ?1, 0, 'a.rs', ?2, 1, 1)";
        conn.execute(chunk, [&hash, "rust"]).unwrap();
        check(&path).unwrap();
        for (table, sql) in [("content", content), ("chunks", chunk)] {
            for bad in ["ocaml", "rust\u{1b}[2J", "Rust"] {
                conn.execute(&format!("DELETE FROM {table}"), []).unwrap();
                conn.execute(sql, [&hash, bad]).unwrap();
                let Err(StoreError::BadSnapshot { why, .. }) = check(&path) else {
                    panic!("{table}.language {bad:?} was accepted");
                };
                assert!(why.contains(&format!("{table}.language")), "{why}");
                conn.execute(&format!("DELETE FROM {table}"), []).unwrap();
                conn.execute(sql, [&hash, "rust"]).unwrap();
            }
        }
        check(&path).unwrap();
    }

    #[test]
    fn a_full_text_table_in_a_snapshot_is_refused_unread() {
        let (_d, path) = fresh();
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(
            "CREATE VIRTUAL TABLE file_terms USING fts5(
                content_hash UNINDEXED, terms, content = '', contentless_delete = 1,
                contentless_unindexed = 1, tokenize = \"unicode61 tokenchars '_'\");",
        )
        .unwrap();
        drop(conn);
        let Err(StoreError::BadSnapshot { why, .. }) = check(&path) else {
            panic!("a snapshot with a full-text table was accepted");
        };
        assert!(why.contains("older"), "{why}");
    }

    #[test]
    fn a_snapshot_of_an_older_schema_is_refused() {
        let (_d, path) = fresh();
        let conn = Connection::open(&path).unwrap();
        // Version 7's schema: no chunk tables (its chunks were in LanceDB), and the index on
        // `snippets` of the content hash alone.
        conn.execute_batch(
            "DROP TABLE chunks; DROP TABLE chunk_text; DROP TABLE unverified;
             DROP TABLE remote_branches; DROP TABLE remote_packs; DROP TABLE stale_definitions;
             DROP INDEX snippets_by_hash;
             CREATE INDEX snippets_by_hash ON snippets (content_hash);
             DELETE FROM schema_version WHERE version >= 8;",
        )
        .unwrap();
        let Err(StoreError::BadSnapshot { why, .. }) = check(&path) else {
            panic!("an older snapshot was accepted");
        };
        assert!(why.contains("older"), "{why}");
    }
}
