//! Constants are definitions found by their exact names (schema version 14): a Rust `const`,
//! a Go `const`, a C object-like macro, a Java `static final` field, a C# `const` and a
//! JavaScript module's `const` in capitals rank the file that sets the name above the files
//! that use it, and an index an older build wrote learns them on its next run.

use crate::common::TestRepo;

/// (file that sets it, its text) for each language's constant, and a file using it often.
fn files() -> Vec<(String, String)> {
    let uses = |name: &str, each: &str| each.replace("NAME", name).repeat(12);
    vec![
        (
            "src/params.rs".into(),
            "//! Tuned values.\n\n/// Longest merged hit.\npub const MERGE_MAX_LINES: usize = 60;\n\
             pub const MERGE_GAP: u32 = 2;\n"
                .into(),
        ),
        (
            "src/merge.rs".into(),
            format!(
                "use crate::params::MERGE_MAX_LINES;\n\npub fn merge(n: usize) -> usize {{\n{}    n\n}}\n",
                uses("MERGE_MAX_LINES", "    let n = n.min(NAME); // NAME bounds a hit\n")
            ),
        ),
        (
            "lib/level.h".into(),
            "#ifndef LEVEL_H\n#define LEVEL_H\n#define CLEVEL_DEFAULT 3\nint level(int);\n#endif\n"
                .into(),
        ),
        (
            "lib/compress.c".into(),
            format!(
                "#include \"level.h\"\nint level(int l) {{\n{}  return l;\n}}\n",
                uses("CLEVEL_DEFAULT", "  if (l == 0) l = NAME; /* NAME when unset */\n")
            ),
        ),
        (
            "mode.go".into(),
            "package gin\n\nconst (\n\tDebugMode = \"debug\"\n\tReleaseMode = \"release\"\n)\n"
                .into(),
        ),
        (
            "gin.go".into(),
            format!(
                "package gin\n\nfunc setMode(m string) string {{\n{}\treturn m\n}}\n",
                uses("ReleaseMode", "\tif m == \"\" { m = NAME } // NAME by default\n")
            ),
        ),
        (
            "src/Constraints.java".into(),
            "class Constraints {\n    public static final int DEFAULT_MAX_DEPTH = 1000;\n}\n"
                .into(),
        ),
        (
            "src/Parser.java".into(),
            format!(
                "class Parser {{\n    int depth(int d) {{\n{}        return d;\n    }}\n}}\n",
                uses(
                    "DEFAULT_MAX_DEPTH",
                    "        d = Math.min(d, Constraints.NAME); // NAME\n"
                )
            ),
        ),
        (
            "src/JsonDefaults.cs".into(),
            "static class JsonDefaults\n{\n    public const int DefaultMaxDepth = 64;\n}\n".into(),
        ),
        (
            "src/JsonReader.cs".into(),
            format!(
                "class JsonReader\n{{\n    int Depth(int d)\n    {{\n{}        return d;\n    }}\n}}\n",
                uses(
                    "DefaultMaxDepth",
                    "        d = Math.Min(d, JsonDefaults.NAME); // NAME\n"
                )
            ),
        ),
        (
            "src/common/constants.js".into(),
            "export const CARD_WIDTH = 287;\nconst logger = console;\n".into(),
        ),
        (
            "src/cards/card.js".into(),
            format!(
                "import {{ CARD_WIDTH }} from '../common/constants.js';\nexport function width(w) {{\n{}  return w;\n}}\n",
                uses("CARD_WIDTH", "  w = w || CARD_WIDTH; // CARD_WIDTH\n")
            ),
        ),
    ]
}

/// Each constant's name finds the file that sets it first; `const logger` in lower case is no
/// definition (every JavaScript module has one). An index whose schema predates constants
/// (version 13) computes those languages' files again on its next run, and finds them too.
#[test]
fn a_constant_s_name_finds_where_it_is_set_and_an_older_index_learns_it() {
    let files = files();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let repo = TestRepo::with_files(&refs);
    repo.index(&[]);
    let expect = [
        ("MERGE_MAX_LINES", "src/params.rs"),
        ("CLEVEL_DEFAULT", "lib/level.h"),
        ("ReleaseMode", "mode.go"),
        ("DEFAULT_MAX_DEPTH", "src/Constraints.java"),
        ("DefaultMaxDepth", "src/JsonDefaults.cs"),
        ("CARD_WIDTH", "src/common/constants.js"),
    ];
    let check = || {
        for (name, path) in expect {
            assert_eq!(repo.hit_paths(name, &[])[0], path, "{name}");
        }
    };
    check();
    let db = repo.path().join(".git/codesearch/meta.sqlite");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let logger: i64 = conn
        .query_row(
            "SELECT count(*) FROM snippets WHERE name = 'logger'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(logger, 0);

    // What schema version 13 held: no constants.
    conn.execute_batch(
        "DELETE FROM snippets WHERE kind = 'constant'; DELETE FROM schema_version WHERE version > 13;",
    )
    .unwrap();
    drop(conn);
    let run = repo.index(&[]);
    assert_eq!(run["stats"]["compute"], files.len(), "{run}");
    check();
    assert_eq!(repo.index(&[])["noop"], true);
}
