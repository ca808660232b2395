//! `export` / `import`: an index built on one clone (CI) is reused by another clone, which
//! then computes nothing for content that matches.

use crate::common::fixture;
use crate::common::TestRepo;

#[test]
fn an_exported_index_is_reused_by_another_clone() {
    let ci = fixture();
    ci.index(&[]);
    let tmp = tempfile::tempdir().unwrap();
    let snapshot = tmp.path().join("index.tar");
    let out = ci.run_ok(&["export", snapshot.to_str().unwrap()], 0);
    assert!(out.contains("wrote"), "{out}");

    // A developer's clone: no index yet.
    let dev = TestRepo::new();
    dev.git(&["fetch", "-q", ci.path().to_str().unwrap(), "main"]);
    dev.git(&["reset", "-q", "--hard", "FETCH_HEAD"]);
    let out = dev.run_ok(&["import", snapshot.to_str().unwrap()], 0);
    assert!(out.contains("branches added: main"), "{out}");
    // Searchable at once, without indexing…
    assert_eq!(
        dev.hit_paths("retry failed uploads", &["--no-index"])[0],
        "app/upload.py"
    );
    // …and the first index run only hashes: everything is known content.
    dev.write(
        "app/new.py",
        "def brand_new_dev_function():\n    return 1\n",
    );
    let run = dev.index(&[]);
    assert_eq!(run["stats"]["compute"], 1, "{run}");
    assert_eq!(dev.run(&["doctor"]).status.code(), Some(0));
    // Importing again adds nothing.
    let out = dev.run_ok(&["import", snapshot.to_str().unwrap()], 0);
    assert!(out.contains("imported 0 contents"), "{out}");
}

#[test]
fn a_damaged_snapshot_is_refused_and_the_index_untouched() {
    let repo = fixture();
    repo.index(&[]);
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.tar");
    std::fs::write(&bad, b"this is not a tar file at all").unwrap();
    let out = repo.run(&["import", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(repo.run(&["doctor"]).status.code(), Some(0));
    assert_eq!(
        repo.hit_paths("retry failed uploads", &["--no-index"])[0],
        "app/upload.py"
    );
}

#[test]
fn a_snapshot_carries_no_full_text_tables_and_import_rebuilds_them() {
    let (ci, tmp, unpacked) = crate::untrusted::exported();
    // No full-text table, nor any of its shadow tables, whose internals SQLite would parse.
    let conn = rusqlite::Connection::open(unpacked.join("meta.sqlite")).unwrap();
    let fts: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE name LIKE '%terms%'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(fts.is_empty(), "{fts:?}");
    let dev = crate::untrusted::fresh_clone(&ci);
    let snapshot = tmp.path().join("index.tar");
    dev.run_ok(&["import", snapshot.to_str().unwrap()], 0);
    // Every imported content has its whole-file terms again (doctor checks each).
    assert_eq!(dev.run(&["doctor"]).status.code(), Some(0));
    assert_eq!(
        dev.hit_paths("retry failed uploads", &["--no-index"])[0],
        "app/upload.py"
    );
}

/// Whether `needle` occurs in `haystack`.
fn holds(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[test]
fn export_carries_no_untracked_or_modified_file() {
    let repo = fixture();
    repo.write(
        "notes/local-credentials.txt",
        "aws_secret_access_key = SeCrEt-MaRkEr-4711\n",
    );
    repo.write(
        "app/upload.py",
        format!("{}\n# local-edit-marker-0815\n", crate::common::UPLOAD_PY),
    );
    repo.index(&[]);
    let local = repo.hit_paths("aws_secret_access_key", &["--no-index"]);
    assert!(
        local.iter().any(|p| p == "notes/local-credentials.txt"),
        "{local:?}"
    );
    let tmp = tempfile::tempdir().unwrap();
    let snapshot = tmp.path().join("index.tar");
    repo.run_ok(&["export", snapshot.to_str().unwrap()], 0);
    let bytes = std::fs::read(&snapshot).unwrap();
    for private in [
        "SeCrEt-MaRkEr-4711",
        "local-credentials",
        "local-edit-marker-0815",
    ] {
        assert!(!holds(&bytes, private), "{private} was exported");
    }
    // What is committed as it is still travels.
    let dev = crate::untrusted::fresh_clone(&repo);
    dev.run_ok(&["import", snapshot.to_str().unwrap()], 0);
    assert_eq!(
        dev.hit_paths("load settings configuration file", &["--no-index"])[0],
        "src/config.rs"
    );
}
