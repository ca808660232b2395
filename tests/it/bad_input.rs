//! Bad input gets one clear `error:` with a `hint:`, exit code 2, and loses nothing.

use std::process::Command;

use crate::common::{bin, hermetic, TestRepo};

fn assert_error(out: &std::process::Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(err.lines().any(|l| l.starts_with("error: ")), "{err}");
    assert_eq!(err.matches("error: ").count(), 1, "one error line: {err}");
    assert!(err.contains(needle), "expected {needle:?} in {err}");
    assert!(err.contains("\nhint: "), "{err}");
}

#[test]
fn not_a_repository() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(bin());
    cmd.args(["search", "anything"]).current_dir(dir.path());
    hermetic(&mut cmd, dir.path());
    // Keep git discovery from walking above the temp dir.
    cmd.env("GIT_CEILING_DIRECTORIES", dir.path().parent().unwrap());
    assert_error(&cmd.output().unwrap(), "not a git repository");
}

#[test]
fn bare_repository() {
    let dir = tempfile::tempdir().unwrap();
    let mut git = Command::new("git");
    git.args(["init", "-q", "--bare", "b.git"])
        .current_dir(dir.path());
    hermetic(&mut git, dir.path());
    assert!(git.status().unwrap().success());
    let mut cmd = Command::new(bin());
    cmd.args(["index"]).current_dir(dir.path().join("b.git"));
    hermetic(&mut cmd, dir.path());
    assert_error(&cmd.output().unwrap(), "bare repository");
}

#[test]
fn empty_repository_and_unborn_branch() {
    let repo = TestRepo::new();
    assert_error(
        &repo.run(&["search", "anything"]),
        "no commits and no files",
    );
    // An unborn branch with files in the work tree is indexed under the branch name.
    repo.write("lib.rs", "fn unborn_marker_fn() {}\n");
    assert_eq!(repo.hit_paths("unborn_marker_fn", &[]), ["lib.rs"]);
}

#[test]
fn stop_words_and_empty_queries() {
    let repo = TestRepo::with_files(&[("a.rs", "fn a() {}\n")]);
    assert_error(&repo.run(&["search", "where is the"]), "only stop words");
    assert_error(&repo.run(&["search", "   "]), "query is empty");
    // Nothing was indexed for a rejected query.
    assert!(!repo.path().join(".git/codesearch/meta.sqlite").exists());
}

/// One stop word alone is a name: `git codesearch get` lists the definition of `get`, where
/// it was refused as "only stop words", and the text search finds a word no definition
/// names (`find`, only called here).
#[test]
fn one_stop_word_alone_is_a_name() {
    let repo = TestRepo::with_files(&[
        ("notes.md", "# Notes\n\nWe want to get there and show it.\n"),
        (
            "store.py",
            "class Store:\n    def get(self, key):\n        return self.items[key]\n",
        ),
        ("walk.py", "def walk(root):\n    return root.find('*.py')\n"),
    ]);
    assert_eq!(repo.hit_paths("find", &["--mode", "bm25"]), ["walk.py"]);
    let hits = repo.search("get", &["-n", "1"]);
    assert_eq!(hits.len(), 1, "{hits:#?}");
    assert_eq!(hits[0]["path"], "store.py", "{hits:#?}");
    let snippet = hits[0]["snippet"].as_str().unwrap();
    assert!(snippet.contains("def get(self, key):"), "{snippet}");
}

#[test]
fn non_utf8_files_are_skipped_with_a_reason_and_the_rest_indexed() {
    let repo = TestRepo::with_files(&[("ok.rs", "fn utf8_ok_marker() {}\n")]);
    repo.write("latin1.txt", b"caf\xe9 latin_one_marker\n".as_slice());
    repo.commit_all("latin1");
    assert_eq!(repo.hit_paths("utf8_ok_marker", &[]), ["ok.rs"]);
    let s = repo.status(&["--verbose"]);
    let reasons = s["skipped_files"].to_string();
    assert!(
        reasons.contains("latin1.txt") && reasons.contains("not valid UTF-8"),
        "{reasons}"
    );
}

#[test]
fn unreadable_index_directory() {
    let repo = TestRepo::with_files(&[("a.rs", "fn a() {}\n")]);
    // A file where the index directory should be.
    let blocker = repo.path().join("not-a-dir");
    std::fs::write(&blocker, "x").unwrap();
    let out = repo
        .cmd(&["index"])
        .env("GIT_CODESEARCH_DIR", &blocker)
        .output()
        .unwrap();
    assert_error(&out, "cannot use the index directory");
}

#[test]
fn too_new_index_is_refused_and_untouched() {
    let repo = TestRepo::with_files(&[("a.rs", "fn a() {}\n")]);
    repo.run_ok(&["index", "-q"], 0);
    let db = repo.path().join(".git/codesearch/meta.sqlite");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("INSERT INTO schema_version (version) VALUES (999)", [])
        .unwrap();
    drop(conn);
    let before = std::fs::read(&db).unwrap();
    assert_error(
        &repo.run(&["status"]),
        "newer than this git-codesearch supports",
    );
    assert_eq!(
        before,
        std::fs::read(&db).unwrap(),
        "a too-new index must not be modified"
    );
}

#[test]
fn corrupt_database_is_reported() {
    let repo = TestRepo::with_files(&[("a.rs", "fn a() {}\n")]);
    repo.run_ok(&["index", "-q"], 0);
    let db = repo.path().join(".git/codesearch/meta.sqlite");
    for f in ["meta.sqlite-wal", "meta.sqlite-shm"] {
        let _ = std::fs::remove_file(repo.path().join(".git/codesearch").join(f));
    }
    std::fs::write(&db, vec![0x42u8; 4096]).unwrap();
    assert_error(&repo.run(&["search", "alpha"]), "corrupt");
}

/// A query full of full-text syntax (quotes, operators, column filters, prefixes) is words
/// to search for, never an expression: BM25 over chunks and whole files still answers.
#[test]
fn full_text_syntax_in_a_query_is_only_words() {
    let repo = TestRepo::with_files(&[
        ("src/near.rs", "pub fn near_marker() {}\n"),
        ("src/other.rs", "pub fn unrelated() {}\n"),
    ]);
    for q in [
        "\"near_marker",
        "near_marker OR NOT content:x*",
        "NEAR(near_marker unrelated, 2) ^terms : -x",
        "near_marker\") OR 1=1 --",
    ] {
        let out = repo.run(&["search", "--json", "--mode", "bm25", q]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{q}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let first = String::from_utf8_lossy(&out.stdout);
        assert!(
            first.lines().next().unwrap().contains("src/near.rs"),
            "{q}: {first}"
        );
    }
}
