//! `doctor` finds and repairs damage: a garbled or truncated SQLite file, a deleted LanceDB
//! directory, a lock held by a dead process, content whose rows were lost; and refuses to
//! touch an index written by a newer version.

use std::path::PathBuf;

use crate::common::fixture;
use crate::common::TestRepo;

fn index_dir(repo: &TestRepo) -> PathBuf {
    repo.path().join(".git/codesearch")
}

fn sql(repo: &TestRepo, statement: &str) {
    let conn = rusqlite::Connection::open(index_dir(repo).join("meta.sqlite")).unwrap();
    conn.execute_batch(statement).unwrap();
}

fn indexed() -> (TestRepo, Vec<String>) {
    let repo = fixture();
    repo.index(&[]);
    let before = repo.hit_paths("retry failed uploads", &["--no-index"]);
    assert_eq!(before[0], "app/upload.py");
    let out = repo.run_ok(&["doctor"], 0);
    assert!(out.contains("Healthy"), "{out}");
    (repo, before)
}

/// Damage the index, check that search and index say to run doctor (when `must_fail`), that doctor reports `word`,
/// and that `doctor --repair` brings back the same results.
fn damaged_then_repaired(damage: impl Fn(&TestRepo), word: &str, must_fail: bool) {
    let (repo, before) = indexed();
    damage(&repo);
    let out = repo.run(&["search", "--no-index", "retry failed uploads"]);
    let err = String::from_utf8_lossy(&out.stderr);
    if must_fail {
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("doctor --repair"), "{err}");
        let out = repo.run(&["index"]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "index must not build on a damaged index"
        );
    }
    let report = repo.run_ok(&["doctor"], 1);
    assert!(
        report.contains(word) && report.contains("--repair"),
        "{report}"
    );
    let fixed = repo.run_ok(&["doctor", "--repair"], 0);
    assert!(fixed.contains("after repair: Healthy"), "{fixed}");
    assert_eq!(
        repo.hit_paths("retry failed uploads", &["--no-index"]),
        before
    );
    repo.run_ok(&["doctor"], 0);
}

#[test]
fn garbled_sqlite_is_rebuilt() {
    damaged_then_repaired(
        |repo| {
            let db = index_dir(repo).join("meta.sqlite");
            let _ = std::fs::remove_file(index_dir(repo).join("meta.sqlite-wal"));
            let _ = std::fs::remove_file(index_dir(repo).join("meta.sqlite-shm"));
            let mut bytes = std::fs::read(&db).unwrap();
            for b in bytes.iter_mut().skip(100).step_by(7) {
                *b ^= 0x5a;
            }
            std::fs::write(&db, bytes).unwrap();
        },
        "Corrupted",
        true,
    );
}

#[test]
fn truncated_sqlite_is_rebuilt() {
    damaged_then_repaired(
        |repo| {
            sql(repo, "PRAGMA wal_checkpoint(TRUNCATE);");
            let db = index_dir(repo).join("meta.sqlite");
            let len = std::fs::metadata(&db).unwrap().len();
            let f = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
            f.set_len(len / 3).unwrap();
        },
        "Corrupted",
        true,
    );
}

#[test]
fn lost_chunks_are_rebuilt() {
    damaged_then_repaired(
        |repo| {
            sql(repo, "DELETE FROM chunk_text; DELETE FROM chunks;");
        },
        "no chunks are stored",
        true,
    );
}

#[test]
fn lost_content_rows_are_computed_again() {
    damaged_then_repaired(
        |repo| {
            sql(
                repo,
                "DELETE FROM content WHERE content_hash IN
                   (SELECT content_hash FROM catalog WHERE path = 'app/upload.py');",
            )
        },
        "have no chunks",
        false,
    );
}

#[test]
fn a_lock_of_a_dead_process_is_released() {
    let (repo, _) = indexed();
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default();
    sql(
        &repo,
        &format!(
            "INSERT OR REPLACE INTO index_lock (id, pid, pid_start, host, acquired_at, expires_at, rerun)
             VALUES (1, 4000000, '1', '{host}', 0, 4102444800, 0);"
        ),
    );
    let report = repo.run_ok(&["doctor", "--json"], 1);
    let v: serde_json::Value = serde_json::from_str(&report).unwrap();
    assert_eq!(v["status"], "degraded", "{v}");
    assert_eq!(v["findings"][0]["repair"]["action"], "release_lock", "{v}");
    let fixed = repo.run_ok(&["doctor", "--repair"], 0);
    assert!(fixed.contains("released the stale lock"), "{fixed}");
}

#[test]
fn an_index_from_a_newer_version_is_refused_and_untouched() {
    let (repo, _) = indexed();
    sql(
        &repo,
        "INSERT INTO schema_version (version) VALUES (999); PRAGMA wal_checkpoint(TRUNCATE);",
    );
    let db = index_dir(&repo).join("meta.sqlite");
    let bytes = std::fs::read(&db).unwrap();
    let out = repo.run(&["search", "--no-index", "retry"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("schema version 999") && err.contains("hint:"),
        "{err}"
    );
    let report = repo.run_ok(&["doctor", "--repair"], 1);
    assert!(
        report.contains("newer than this git-codesearch"),
        "{report}"
    );
    assert!(!report.contains("repaired"), "{report}");
    assert_eq!(
        std::fs::read(&db).unwrap(),
        bytes,
        "a newer index must not be modified"
    );
}

#[test]
fn no_index_yet_is_healthy() {
    let repo = fixture();
    let out = repo.run_ok(&["doctor"], 0);
    assert!(out.contains("no index yet"), "{out}");
}

#[test]
fn missing_whole_file_terms_are_filled_from_the_chunks() {
    // As an index from before schema version 4 (or an import) has them.
    damaged_then_repaired(
        |repo| sql(repo, "DELETE FROM file_terms;"),
        "whole-file terms",
        false,
    );
}

#[test]
fn repair_stops_without_the_lock_when_the_index_is_busy() {
    let (repo, before) = indexed();
    // Damage that a repair would act on: a content whose row was lost.
    sql(
        &repo,
        "DELETE FROM content WHERE rowid = (SELECT min(rowid) FROM content);",
    );
    // Another process is in the middle of a write (a long import, `gc`): the database is busy
    // for longer than SQLite waits.
    let writer = rusqlite::Connection::open(index_dir(&repo).join("meta.sqlite")).unwrap();
    writer.execute_batch("BEGIN IMMEDIATE;").unwrap();
    let out = repo.run(&["doctor", "--repair"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("busy") && err.contains("hint:"), "{err}");
    writer.execute_batch("ROLLBACK;").unwrap();
    drop(writer);
    // Nothing was wiped or changed under the writer: the same damage is still there to repair.
    assert!(index_dir(&repo).join("meta.sqlite").exists());
    let report = repo.run_ok(&["doctor"], 1);
    assert!(report.contains("have no chunks"), "{report}");
    repo.run_ok(&["doctor", "--repair"], 0);
    assert_eq!(
        repo.hit_paths("retry failed uploads", &["--no-index"]),
        before
    );
}

/// The doctor's sample of files to check against the work tree starts at a random hash:
/// altered text of the content with the largest hash (never among the first 200 of 201) is
/// found within a few runs.
#[test]
fn the_sample_reaches_every_content_over_a_few_runs() {
    let repo = TestRepo::new();
    for i in 0..201 {
        repo.write(
            &format!("src/f{i:03}.rs"),
            format!("pub fn sampled_{i}() -> u32 {{ {i} }}\n"),
        );
    }
    repo.commit_all("many");
    repo.index(&[]);
    let db = index_dir(&repo).join("meta.sqlite");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let last: String = conn
        .query_row(
            "SELECT path FROM catalog ORDER BY content_hash DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    conn.execute(
        "UPDATE chunk_text SET content = 'pub fn planted() {}'
           WHERE rid = (SELECT rid FROM chunks WHERE filepath = ?1 AND n = 0)",
        [&last],
    )
    .unwrap();
    drop(conn);
    let found = (0..6).any(|_| {
        let out = repo.run(&["doctor"]);
        String::from_utf8_lossy(&out.stdout).contains("do not match their files")
    });
    assert!(found, "{last} never sampled");
}

/// `doctor --repair` with a file-size limit of 16 KiB: SQLite cannot size its shared-memory
/// file, so opening the index fails with a disk I/O error (as on a full disk). That is not
/// damage: the index must be left as it is, not wiped (without the lock, even).
#[test]
fn repair_never_wipes_on_an_io_error_opening_the_index() {
    use std::os::unix::process::CommandExt;
    let (repo, before) = indexed();
    let db = index_dir(&repo).join("meta.sqlite");
    sql(&repo, "PRAGMA wal_checkpoint(TRUNCATE);");
    let _ = std::fs::remove_file(index_dir(&repo).join("meta.sqlite-wal"));
    let _ = std::fs::remove_file(index_dir(&repo).join("meta.sqlite-shm"));
    let size = std::fs::metadata(&db).unwrap().len();
    let mut cmd = repo.cmd(&["doctor", "--repair"]);
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 16 << 10,
                rlim_max: 16 << 10,
            };
            // A write past the limit fails with EFBIG instead of killing the process.
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("I/O error"), "{text}");
    assert!(!text.contains("removed the damaged index"), "{text}");
    assert_eq!(std::fs::metadata(&db).unwrap().len(), size);
    // Without the limit, it is the same healthy index, with nothing rebuilt.
    let report = repo.run_ok(&["doctor"], 0);
    assert!(report.contains("Healthy"), "{report}");
    assert_eq!(
        repo.hit_paths("retry failed uploads", &["--no-index"]),
        before
    );
}

/// Vectors are stored once, in a flat file: losing it is found, and repair embeds again.
#[test]
fn a_lost_vector_file_is_found_and_embedded_again() {
    damaged_then_repaired(
        |repo| {
            let flat = index_dir(repo).join("flat");
            assert!(flat.is_dir(), "the default stores vectors there");
            std::fs::remove_dir_all(flat).unwrap();
        },
        "its vectors are gone",
        false,
    );
}
