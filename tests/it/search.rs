//! End-to-end search: indexing on first use, finding definitions by name and by what they
//! do, exact line ranges, JSON output, ignored and junk files left out.

use crate::common::{fixture, TestRepo, GEOMETRY_GO};

#[test]
fn finds_a_function_by_name_and_by_description() {
    let repo = fixture();
    // First search builds the index.
    let by_name = repo.search("load_settings", &[]);
    assert_eq!(by_name[0]["path"], "src/config.rs", "{by_name:?}");
    let sources: Vec<&str> = by_name[0]["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert!(sources.contains(&"symbol"), "{sources:?}");
    let by_words = repo.hit_paths("where do we parse the configuration file", &[]);
    assert_eq!(by_words[0], "src/config.rs", "{by_words:?}");
    let retry = repo.hit_paths("retry failed uploads", &[]);
    assert_eq!(retry[0], "app/upload.py", "{retry:?}");
}

#[test]
fn line_ranges_are_exact_and_json_is_complete() {
    let repo = fixture();
    let hits = repo.search("CircleArea", &["--lang", "go"]);
    let h = &hits[0];
    assert_eq!(h["path"], "geometry/area.go");
    assert_eq!(h["version"], 1);
    assert_eq!(h["language"], "go");
    assert_eq!(h["branch"], "main");
    let (start, end) = (
        h["start_line"].as_u64().unwrap() as usize,
        h["end_line"].as_u64().unwrap() as usize,
    );
    let lines: Vec<&str> = GEOMETRY_GO.lines().collect();
    // The hit covers the function definition and nothing past the end of the file.
    let def = lines
        .iter()
        .position(|l| l.starts_with("func CircleArea"))
        .unwrap()
        + 1;
    assert!(
        start <= def && def <= end && end <= lines.len(),
        "{start}-{end}"
    );
    assert_eq!(lines[end - 1], "}");
    assert!(h["snippet"].as_str().unwrap().contains("CircleArea"));
    assert!(h["score"].as_f64().unwrap() > 0.0);
}

#[test]
fn ignored_and_junk_files_are_not_indexed_but_listed() {
    let repo = fixture();
    repo.run_ok(&["index", "-q"], 0);
    for word in ["zebra_ignored_marker", "zebraminified", "zebrabinary"] {
        let out = repo.run(&["search", "-q", word]);
        assert_eq!(out.status.code(), Some(1), "{word} must not be found");
    }
    let status = repo.status(&["--verbose"]);
    let skipped: Vec<String> = status["skipped_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            format!(
                "{}: {}",
                s["path"].as_str().unwrap(),
                s["reason"].as_str().unwrap()
            )
        })
        .collect();
    assert!(
        skipped
            .iter()
            .any(|s| s.starts_with("static/app.min.js: 1 of 1 lines too long")),
        "{skipped:?}"
    );
    assert!(
        skipped
            .iter()
            .any(|s| s.starts_with("assets/logo.bin: binary")),
        "{skipped:?}"
    );
    assert!(
        !skipped.iter().any(|s| s.contains("build/")),
        "ignored files are not even listed"
    );
    assert_eq!(status["files"], 5, "{status}");
    assert!(status["symbols"].as_i64().unwrap() >= 5);
}

#[test]
fn filters_limit_and_exit_codes() {
    let repo = fixture();
    let hits = repo.hit_paths("storage server settings", &["--path", "app/**"]);
    assert!(
        !hits.is_empty() && hits.iter().all(|p| p.starts_with("app/")),
        "{hits:?}"
    );
    let hits = repo.search("settings file upload", &["-n", "1"]);
    assert_eq!(hits.len(), 1);
    let out = repo.run(&["search", "-q", "nonexistentwordxyz"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
}

#[test]
fn text_output_is_grep_like() {
    let repo = fixture();
    let out = repo.run_ok(&["-q", "load_settings"], 0);
    let first = out.lines().next().unwrap();
    assert!(first.starts_with("src/config.rs:"), "{out}");
    assert!(first.contains("score"), "{out}");
    assert!(out.contains("│ pub fn load_settings"), "{out}");
}

#[test]
fn status_describes_the_index() {
    let repo = fixture();
    repo.run_ok(&["index", "-q"], 0);
    let out = repo.run_ok(&["status"], 0);
    for key in [
        "repository",
        "index ",
        "branch      main",
        "files       5 indexed",
        "last run",
        "chunks",
    ] {
        assert!(out.contains(key), "missing {key:?} in\n{out}");
    }
    let s = repo.status(&[]);
    assert!(s["index_bytes"].as_u64().unwrap() > 0);
    assert!(s["last_run"]["head_commit"].as_str().unwrap().len() == 40);
}

#[test]
fn stemming_setting_rebuilds_the_full_text_index() {
    let repo = TestRepo::with_files(&[("a.py", "def send():\n    \"\"\"Retries uploads.\"\"\"\n")]);
    assert!(repo.hit_paths("uploading", &["--mode", "bm25"]).is_empty());
    repo.git(&["config", "codesearch.stemming", "true"]);
    repo.run_ok(&["index", "-q"], 0);
    assert_eq!(repo.hit_paths("uploading", &["--mode", "bm25"]), ["a.py"]);
}

#[test]
fn invalid_configuration_is_named() {
    let repo = fixture();
    repo.write(".codesearch.toml", "[search]\nn_final = 0\n");
    let out = repo.run(&["search", "settings"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("search.n_final") && err.contains("hint:"),
        "{err}"
    );
}

/// The library names a search's inputs ("path glob", "mode"); the command line names the
/// flags that set them, once.
#[test]
fn errors_name_the_flags_on_the_command_line() {
    let repo = fixture();
    let out = repo.run(&["search", "--path", "src/[", "settings"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("\nerror: invalid --path glob \"src/[\""),
        "{err}"
    );
    assert!(!err.contains("invalid path glob"), "{err}");
    // A glob globset would panic on is refused the same way (it aborted the process).
    let deep = format!("{}a{}", "{".repeat(300), "}".repeat(300));
    let out = repo.run(&["search", "--path", &deep, "settings"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("error: --path glob of 601 bytes with braces nested 300 deep"),
        "{err}"
    );
    repo.lexical();
    let out = repo.run(&["search", "--mode", "vector", "settings"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("hint: ") && err.contains("use --mode hybrid"),
        "{err}"
    );
}

/// A file whose functions each hold one of the query's words, far apart (so in different
/// chunks), and a file with one chunk that holds one of them often.
fn spread_repo() -> TestRepo {
    let mut spread = String::new();
    for (i, word) in ["retry", "upload", "backoff", "bucket", "timeout"]
        .iter()
        .enumerate()
    {
        spread.push_str(&format!("/// Step {i}.\npub fn step_{word}() -> u32 {{\n"));
        for j in 0..40 {
            spread.push_str(&format!("    let v{j} = {j} * 2 + {i};\n"));
        }
        spread.push_str("    0\n}\n\n");
    }
    TestRepo::with_files(&[
        ("src/spread.rs", &spread),
        (
            "src/decoy.rs",
            "// retry retry retry\nconst LIMIT: u32 = 1;\n",
        ),
    ])
}

fn sources(hit: &serde_json::Value) -> Vec<String> {
    hit["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn whole_files_are_ranked_by_all_their_words() {
    let repo = spread_repo();
    let query = "retry upload backoff bucket timeout";
    let hits = repo.search(query, &[]);
    assert_eq!(hits[0]["path"], "src/spread.rs", "{hits:?}");
    assert!(sources(&hits[0]).contains(&"file".to_string()), "{hits:?}");
    // A file's best spans (at most five) carry the file's score; the decoy matches one word
    // only and ranks as a file below the spread one.
    let file_hits: Vec<&str> = hits
        .iter()
        .filter(|h| sources(h).contains(&"file".to_string()))
        .map(|h| h["path"].as_str().unwrap())
        .collect();
    let mut files = file_hits.clone();
    files.dedup();
    assert_eq!(files[..2], ["src/spread.rs", "src/decoy.rs"], "{hits:?}");
    let spread = file_hits.iter().filter(|p| **p == "src/spread.rs").count();
    assert!((2..=5).contains(&spread), "{hits:?}");
    // BM25-only mode and a zero weight leave the retriever out.
    let no_file = |hits: &[serde_json::Value]| {
        hits.iter()
            .all(|h| !sources(h).contains(&"file".to_string()))
    };
    assert!(no_file(&repo.search(query, &["--mode", "bm25"])));
    repo.git(&["config", "codesearch.weightFile", "0"]);
    assert!(no_file(&repo.search(query, &[])));
}

#[test]
fn a_subtree_with_its_own_licence_ranks_below_the_project_code() {
    let code =
        "/// Parse a decimal number.\nint parse_decimal_number(const char *text) { return 0; }\n";
    let repo = TestRepo::with_files(&[
        ("src/number.c", code),
        ("lib/dec/number.c", code),
        (
            "lib/dec/ICU-license.html",
            "<p>ICU License - ICU 1.8.1 and later</p>\n",
        ),
        ("LICENSE", "MIT License\n"),
    ]);
    let query = "parse decimal number";
    let first = |paths: Vec<String>| paths.into_iter().next().unwrap_or_default();
    // Same content, same scores: only the prior tells them apart (the tie goes to the
    // first path, lib/ before src/, without it).
    assert_eq!(first(repo.hit_paths(query, &[])), "src/number.c");
    assert_eq!(
        first(repo.hit_paths(query, &["--mode", "bm25"])),
        "src/number.c"
    );
    repo.git(&["config", "codesearch.pathPrior", "false"]);
    assert_eq!(first(repo.hit_paths(query, &[])), "lib/dec/number.c");
    repo.git(&["config", "codesearch.pathPrior", "true"]);
    // A manifest makes the subtree a package of this project (a workspace member).
    repo.write("lib/dec/package.json", "{\"name\": \"dec\"}\n");
    repo.commit_all("dec is a workspace package");
    repo.run_ok(&["index", "-q"], 0);
    assert_eq!(first(repo.hit_paths(query, &[])), "lib/dec/number.c");
}

#[test]
fn the_title_of_a_pasted_issue_ranks_files_of_its_own() {
    let repo = TestRepo::with_files(&[
        (
            "src/widget.rs",
            "pub fn frobnicate_widget() -> u32 {\n    7\n}\n",
        ),
        (
            "src/tokens.rs",
            "pub fn parse_tokens() -> u32 {\n    8\n}\n",
        ),
    ]);
    let with_title = |hits: &[serde_json::Value]| -> Vec<String> {
        hits.iter()
            .filter(|h| sources(h).contains(&"title".to_string()))
            .map(|h| h["path"].as_str().unwrap().to_string())
            .collect()
    };
    let issue = "frobnicate widget is wrong\nWhen I parse tokens first, the result changes.";
    let hits = repo.search(issue, &[]);
    assert_eq!(with_title(&hits), ["src/widget.rs"], "{hits:?}");
    // The body's words still count: both files are found.
    assert_eq!(hits.len(), 2, "{hits:?}");
    // One line has no title; BM25 mode and a zero weight leave the list out.
    let one_line = issue.replace('\n', " ");
    assert!(with_title(&repo.search(&one_line, &[])).is_empty());
    assert!(with_title(&repo.search(issue, &["--mode", "bm25"])).is_empty());
    repo.git(&["config", "codesearch.weightTitle", "0"]);
    assert!(with_title(&repo.search(issue, &[])).is_empty());
}

/// One long line (a lookup table) does not make a hand-written file junk, and a file an
/// older version skipped for one is checked again by the next index run after the upgrade
/// (since schema version 8, which moved chunks into SQLite, every older index is computed
/// again in full).
#[test]
fn a_file_with_one_long_line_is_indexed_and_an_old_skip_is_checked_again() {
    let body = "int lookup_checked(int x) { return table[x] + 1; }\n".repeat(40);
    let table = format!("static const int table[] = {{{}}};\n", "0xFF, ".repeat(130));
    let repo = TestRepo::with_files(&[("src/builtin.c", &format!("{body}{table}{body}"))]);
    repo.run_ok(&["index", "-q"], 0);
    assert_eq!(repo.hit_paths("lookup_checked", &[])[0], "src/builtin.c");

    // What an index from schema version 5 holds: the file skipped for its long line, in a
    // row old enough for its stat to be trusted.
    let db = repo.path().join(".git/codesearch/meta.sqlite");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "UPDATE catalog SET skip_reason = 'line of 782 characters (minified or generated?)',
                            indexed_at = indexed_at + 100;
         ALTER TABLE content DROP COLUMN note;
         DROP TABLE chunks; DROP TABLE chunk_text; DROP TABLE chunk_terms;
         DROP TABLE unverified; DROP TABLE remote_branches;
         DROP TABLE remote_packs; DROP TABLE stale_definitions;
         DELETE FROM schema_version WHERE version > 5;",
    )
    .unwrap();
    drop(conn);
    repo.run_ok(&["index", "-q"], 0);
    assert_eq!(repo.hit_paths("lookup_checked", &[])[0], "src/builtin.c");
}

/// `--explain`: each hit's features and what each added, summing to its score, for every
/// kind of query the learned scorer weighs apart (a name, a topic, a question saying what
/// code does, a pasted issue) so that no ranking step changes a score without saying so.
#[test]
fn explain_shows_each_features_share_and_the_shares_sum_to_the_score() {
    let repo = fixture();
    let issue = "Upload fails after a timeout\n\nWhen the network drops, retry_upload gives up.\nExpected: it retries with backoff.";
    for (query, kind) in [
        ("load_config", "name"),
        ("where do we retry failed uploads", "topic"),
        ("Returns the configuration loaded from a file", "behaviour"),
        (issue, "issue"),
    ] {
        let hits = repo.search(query, &["--explain", "-n", "10"]);
        assert!(!hits.is_empty(), "{query}");
        for h in &hits {
            assert_eq!(h["read_as"], kind, "{query}: {h}");
            let why = h["explain"].as_array().expect("explain field");
            assert!(!why.is_empty(), "{h}");
            let sum: f64 = why.iter().map(|c| c["value"].as_f64().unwrap()).sum();
            let score = h["score"].as_f64().unwrap();
            assert!((sum - score).abs() < 1e-9, "{query}: {sum} != {score}: {h}");
            assert!(why.iter().all(|c| c["feature"].is_string()), "{h}");
        }
    }
    // Not asked: no field (an agent pays for every token).
    let plain = repo.search("load_config", &[]);
    assert!(plain[0].get("explain").is_none(), "{}", plain[0]);
    assert!(plain[0].get("read_as").is_none(), "{}", plain[0]);
    // On a terminal: how the query was read, then one line per feature under each hit.
    let text = repo.run_ok(
        &["search", "--explain", "where do we retry failed uploads"],
        0,
    );
    assert!(text.contains("found it at rank 1"), "{text}");
    assert!(
        text.starts_with("read as a question naming a topic"),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l.trim_start().starts_with('+')),
        "{text}"
    );
}

/// `--explain` names the rule or list behind each share, not a lump: which whole-file list
/// ranked the file and where, the path holding the question's words, the definition of the
/// name asked for.
#[test]
fn explain_names_each_rule_and_each_whole_file_list_with_its_rank() {
    let repo = fixture();
    let features = |query: &str| -> Vec<serde_json::Value> {
        let hits = repo.search(query, &["--explain", "-n", "5"]);
        assert!(!hits.is_empty(), "{query}");
        hits[0]["explain"]
            .as_array()
            .expect("explain field")
            .clone()
    };
    let named = |why: &[serde_json::Value], name: &str| {
        why.iter()
            .any(|c| c["feature"] == name && c["value"].as_f64().unwrap() > 0.0)
    };
    let topic = features("where do we retry failed uploads");
    assert!(
        named(&topic, "path_words"),
        "upload.py holds `upload`: {topic:?}"
    );
    assert!(
        topic
            .iter()
            .any(|c| c["feature"] == "file_ranked" && c["by"] == "file" && c["rank"] == 1),
        "whole-file BM25 ranked app/upload.py first: {topic:?}"
    );
    assert!(
        topic.iter().all(|c| c["feature"] != "evidence"),
        "{topic:?}"
    );
    let name = features("load_settings");
    assert!(named(&name, "definition"), "{name:?}");
    let text = repo.run_ok(
        &["search", "--explain", "where do we retry failed uploads"],
        0,
    );
    assert!(
        text.contains("whole-file BM25 ranked its file at 1"),
        "{text}"
    );
    assert!(
        text.contains("its path holds the question's words"),
        "{text}"
    );
}

/// The evidence stage (paths, topics and the definitions a question names) runs only for the
/// kinds of query the learned scorer weighs it for: a question saying what one function does
/// skips it, with its definitions lookup, rather than computing lifts weighed at 0. (The
/// second assertion follows `learned_table.rs`: a refit that weighs a description's evidence
/// above 0 changes it.)
#[test]
fn a_stage_the_learned_scorer_weighs_at_zero_does_not_run() {
    let repo = fixture();
    repo.run_ok(&["index", "-q"], 0);
    let stage_ran = |query: &str| {
        let out = repo
            .cmd(&["search", "-q", "-n", "5", "--", query])
            .env("GIT_CODESEARCH_TRACE", "git_codesearch=debug")
            .output()
            .unwrap();
        assert!(out.status.success(), "{query}: {out:?}");
        String::from_utf8_lossy(&out.stderr).contains("evidence stage")
    };
    assert!(stage_ran("where do we retry failed uploads"));
    assert!(!stage_ran("Returns the configuration loaded from a file"));
}

#[test]
fn an_unknown_language_is_refused_by_name_before_anything_is_indexed() {
    let repo = fixture();
    let out = repo.run(&["search", "-q", "CircleArea", "--lang", "cobol"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("unknown language \"cobol\" (known: c, cpp, csharp, css, dockerfile,"),
        "{err}"
    );
    assert!(err.contains(", typescript, xml, yaml, zig)"), "{err}");
    // `--lang` is parsed where it comes in: a search that cannot run indexes nothing.
    assert_eq!(repo.status(&[])["files"], 0);
    let hits = repo.search("CircleArea", &["--lang", "go"]);
    assert_eq!(hits[0]["language"], "go");
}

/// A question that opens with a word English uses as a verb and a noun alike ("Convert block
/// element …", "command group …") is read by the repository's own names: a word that opens
/// many function names is a verb, and the question describes what one function does.
#[test]
fn the_repositorys_function_names_tell_a_verb_from_a_noun() {
    let code = "def convert_block(b):\n    return str(b)\n\n\
                def convert_inline(i):\n    return str(i)\n\n\
                def convert_table(t):\n    return str(t)\n\n\
                class Command:\n    def run_command(self):\n        return self.command_group\n";
    let repo = TestRepo::with_files(&[("src/convert.py", code)]);
    repo.run_ok(&["index", "-q"], 0);
    let read_as = |repo: &TestRepo, q: &str| {
        let hits = repo.search(q, &["--explain"]);
        assert!(!hits.is_empty(), "{q}");
        hits[0]["read_as"].as_str().unwrap().to_string()
    };
    assert_eq!(read_as(&repo, "Convert block element to text"), "behaviour");
    assert_eq!(read_as(&repo, "command group dispatch"), "topic");
    // Where no name opens with the word, the wording alone reads it as a topic.
    let other = TestRepo::with_files(&[(
        "src/blocks.py",
        "def render(block):\n    return block.element.text\n",
    )]);
    other.run_ok(&["index", "-q"], 0);
    assert_eq!(read_as(&other, "Convert block element to text"), "topic");
}
