//! Definitions' lines as the index stores them, and an older index brought up to date: C's
//! and C++'s tags name a function by its declarator, one line, until schema version 12;
//! Java's enums are no definitions, and a tenth of a file's lines over the length limit skip
//! it, until version 13.

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
        // A language no schema version since 11 lists to compute again.
        (
            "src/add.py",
            "def add(a, b):\n    \"\"\"Adds.\"\"\"\n    return a + b\n",
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
    as_version_11(&repo, "");
    let db = repo.path().join(".git/codesearch/meta.sqlite");
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

/// Make the index look like schema version 11's, with `frame_size` as its declarator's line.
fn as_version_11(repo: &TestRepo, extra_sql: &str) {
    let db = repo.path().join(".git/codesearch/meta.sqlite");
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.execute_batch(&format!(
        "UPDATE snippets SET start_line = 3, end_line = 3, doc = NULL WHERE name = 'frame_size';
         DROP TABLE stale_definitions; DELETE FROM schema_version WHERE version > 11; {extra_sql}"
    ))
    .unwrap();
}

/// Computed again, a content whose chunks come out otherwise than stored (here: its stored
/// text altered; in life a split cut in windows, a grammar that crashed since) is embedded
/// again rather than searched with the old vectors; and one whose file is no longer indexed
/// (over the size bound now) is deleted like any other, its listing with it.
#[test]
fn an_older_content_cut_otherwise_is_embedded_again_and_one_left_behind_deleted() {
    let repo = TestRepo::with_files(&[("src/frame.c", FRAME_C)]);
    repo.embed_locally();
    repo.index(&["--wait"]);
    as_version_11(
        &repo,
        "UPDATE chunk_text SET content = content || ' ' WHERE rid IN (SELECT rid FROM chunks);",
    );
    let run = repo.index(&["--wait"]);
    assert_eq!(run["stats"]["compute"], 1, "{run}");
    assert_eq!(run["stats"]["embedded"], 1, "{run}");
    assert_eq!(lines_of(&repo, "frame_size").0, 2);

    as_version_11(&repo, "");
    repo.git(&["config", "codesearch.maxFileSize", "10"]);
    let run = repo.index(&["--wait"]);
    assert_eq!(run["stats"]["deleted"], 1, "{run}");
    let conn = rusqlite::Connection::open(repo.path().join(".git/codesearch/meta.sqlite")).unwrap();
    let listed: i64 = conn
        .query_row("SELECT count(*) FROM stale_definitions", [], |r| r.get(0))
        .unwrap();
    assert_eq!(listed, 0);
    assert_eq!(repo.index(&["--wait"])["noop"], true);
}

/// `table.rs`: four methods whose bodies say "entry", "key" and "value" again and again,
/// three report formatters, and `get_mut`, whose body says none of a question's words.
fn table_text() -> String {
    let method = |name: &str, line: &dyn Fn(usize) -> String| {
        let body: Vec<String> = (0..14).map(|i| format!("        {}\n", line(i))).collect();
        format!(
            "    pub fn {name}(&mut self, key: u64) -> usize {{\n{}        0\n    }}\n\n",
            body.concat()
        )
    };
    let mut text =
        String::from("pub struct Table {\n    slots: Vec<(u64, String)>,\n}\n\nimpl Table {\n");
    for name in [
        "entry_for_key",
        "insert_entry",
        "remove_entry",
        "count_entries",
    ] {
        let line =
            |i| format!("let entry_{i} = self.value_of(key + {i}); // the entry's value by key");
        text.push_str(&method(name, &line));
    }
    for k in 0..3 {
        let line = |i| format!("let line_{i} = {i}; // report {k}");
        text.push_str(&method(&format!("format_report_{k}"), &line));
    }
    text.push_str(
        "    pub fn get_mut(&mut self, k: u64) -> Option<&mut String> {\n        \
         let slot = self.slots.iter_mut().find(|s| s.0 == k)?;\n        \
         Some(&mut slot.1)\n    }\n}\n",
    );
    text
}

/// A question that says what one function does finds the function whose name abbreviates
/// its words: `get_mut` for "mutable", though its body holds none of them. The definitions
/// stage counts a name word that begins a longer word of such a question (`mut`,
/// "mutable") as three quarters of that word. Before, the file's three hits were its
/// windows that repeat "entry", "key" and "value", and `get_mut` came fourth.
#[test]
fn a_description_finds_the_function_whose_name_abbreviates_its_words() {
    let text = table_text();
    let repo = TestRepo::with_files(&[("src/table.rs", text.as_str())]);
    repo.lexical();
    let first = text.lines().position(|l| l.contains("fn get_mut")).unwrap() as u64 + 1;
    let hits = repo.search(
        "Returns a mutable reference to the value of a key.",
        &["--explain", "-n", "3"],
    );
    let places = crate::common::places(&hits);
    assert!(
        places
            .iter()
            .any(|(p, a, b)| p == "src/table.rs" && *a <= first && first <= *b),
        "get_mut at {first}: {places:?}"
    );
}

const JSON_TOKEN: &str = "package core;

/** The kinds of token a parser returns. */
public enum JsonToken {
    START_OBJECT,
    END_OBJECT;
}
";

/// A Java enum is a definition (tree-sitter-java's tags query leaves enums out): its name
/// finds `public enum JsonToken` first, before the parser that uses it on every line. An
/// index an older build wrote, which has no such definition, gets it on its next run, which
/// computes the Java files again and embeds nothing again.
#[test]
fn a_java_enum_is_a_definition_and_an_older_index_learns_it() {
    let user = format!(
        "package core.json;\n\nclass JsonParser {{\n{}}}\n",
        "    JsonToken next(JsonToken t) { return JsonToken.END_OBJECT; }\n".repeat(8)
    );
    let repo = TestRepo::with_files(&[
        ("src/core/JsonToken.java", JSON_TOKEN),
        ("src/core/json/JsonParser.java", &user),
    ]);
    repo.embed_locally();
    repo.index(&["--wait"]);
    let whole = (
        4,
        7,
        Some("The kinds of token a parser returns.".to_string()),
    );
    assert_eq!(lines_of(&repo, "JsonToken"), whole);
    assert_eq!(
        repo.hit_paths("JsonToken", &[])[0],
        "src/core/JsonToken.java"
    );

    // What schema version 12 held: no enum.
    let db = repo.path().join(".git/codesearch/meta.sqlite");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "DELETE FROM snippets WHERE name = 'JsonToken'; DELETE FROM schema_version WHERE version > 12;",
    )
    .unwrap();
    drop(conn);
    let run = repo.index(&["--wait"]);
    assert_eq!(run["stats"]["compute"], 2, "{run}");
    assert_eq!(run["stats"]["embedded"], 0, "{run}");
    assert_eq!(lines_of(&repo, "JsonToken"), whole);
    assert_eq!(repo.index(&[])["noop"], true);
}

/// A hand-written file with a table of embedded data beside its code (under a quarter of its
/// lines over the length limit) is indexed, where a tenth made it junk; schema version 13
/// forgets the stat of the files an older build skipped for long lines, so that the next run
/// reads them again rather than trusting its cache.
#[test]
fn a_file_of_embedded_icons_is_indexed_and_an_older_skip_is_checked_again() {
    let path = format!(
        "M8 .25a.75.75 0 01.673.418{}",
        " l1.8 fill-rule evenodd".repeat(20)
    );
    let icons = format!(
        "// The card icons.\nconst icons = {{\n{}{}}};\nexport function iconFor(name) {{ return icons[name]; }}\n",
        "  fork: null,\n".repeat(30),
        format!("  star: `<path d=\"{path}\"/>`,\n").repeat(8)
    );
    let repo = TestRepo::with_files(&[("src/common/icons.js", &icons)]);
    repo.index(&[]);
    assert_eq!(repo.hit_paths("iconFor", &[])[0], "src/common/icons.js");

    // What an older build left: the file skipped for its long lines, its stat cached.
    let db = repo.path().join(".git/codesearch/meta.sqlite");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "UPDATE catalog SET mtime_ns = 1700000000000000000,
             skip_reason = '8 of 42 lines too long, the longest 534 characters (minified or generated?)';
         DELETE FROM schema_version WHERE version > 12;",
    )
    .unwrap();
    drop(conn);
    repo.status(&[]);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let mtime: i64 = conn
        .query_row("SELECT mtime_ns FROM catalog", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mtime, 0, "the stat is forgotten");
}
