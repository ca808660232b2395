//! Definitions' lines as the index stores them, and an older index brought up to date: C's
//! and C++'s tags name a function by its declarator, one line, until schema version 12.

use crate::common::TestRepo;

const FRAME_C: &str = "/* Returns the size of a compressed frame. */
static size_t
frame_size(const char *src, size_t n)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        total += (unsigned char)src[i];
    }
    return total;
}
";

/// (first line, last line, doc) of the definition named `name`.
fn lines_of(repo: &TestRepo, name: &str) -> (u32, u32, Option<String>) {
    let conn = rusqlite::Connection::open(repo.path().join(".git/codesearch/meta.sqlite"))
        .expect("open the index");
    conn.query_row(
        "SELECT start_line, end_line, doc FROM snippets WHERE name = ?1",
        [name],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
    .expect("the definition")
}

/// A C function's definition runs from its return type to its closing brace, with the doc
/// comment above; an index an older build wrote (the declarator's line, no doc) gets the
/// same on its next run, which computes the C file again and nothing else and embeds
/// nothing again (its chunks are the same), while a search before that run still shows the
/// file.
#[test]
fn a_c_function_spans_its_body_and_an_older_index_is_read_again() {
    let repo = TestRepo::with_files(&[
        ("src/frame.c", FRAME_C),
        (
            "src/lib.rs",
            "/// Adds.\npub fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n",
        ),
    ]);
    repo.embed_locally();
    repo.index(&["--wait"]);
    let whole = (
        2,
        10,
        Some("Returns the size of a compressed frame.".to_string()),
    );
    assert_eq!(lines_of(&repo, "frame_size"), whole);

    // What schema version 11 held: the declarator's line, no doc.
    let db = repo.path().join(".git/codesearch/meta.sqlite");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "UPDATE snippets SET start_line = 3, end_line = 3, doc = NULL WHERE name = 'frame_size';
         DROP TABLE stale_definitions; DELETE FROM schema_version WHERE version > 11;",
    )
    .unwrap();
    drop(conn);
    assert_eq!(
        repo.hit_paths("frame_size", &["--no-index"])[0],
        "src/frame.c"
    );

    let run = repo.index(&["--wait"]);
    assert_eq!(run["stats"]["compute"], 1, "{run}");
    assert_eq!(run["stats"]["unchanged"], 1, "{run}");
    assert_eq!(run["stats"]["embedded"], 0, "{run}");
    assert_eq!(run["stats"]["embed_pending"], 0, "{run}");
    assert_eq!(repo.status(&[])["vectors"]["embedded_files"], 2);
    assert_eq!(lines_of(&repo, "frame_size"), whole);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let stale: i64 = conn
        .query_row("SELECT count(*) FROM stale_definitions", [], |r| r.get(0))
        .unwrap();
    assert_eq!(stale, 0);
    drop(conn);
    assert_eq!(repo.index(&[])["noop"], true);
    assert_eq!(repo.hit_paths("frame_size", &[])[0], "src/frame.c");
}
