//! A hostile repository, committed config or snapshot cannot hurt the user: each test here
//! is an attack that worked once (see docs/security.md), run against the real binary.

use std::path::{Path, PathBuf};

use crate::common::fixture;
use crate::common::TestRepo;
use crate::embed_server::{Answer, Server};

pub(crate) fn index_dir(repo: &TestRepo) -> PathBuf {
    repo.path().join(".git/codesearch")
}

pub(crate) fn sql(db: &Path, statement: &str) {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.execute_batch(statement).unwrap();
}

/// An indexed fixture and a snapshot of it, unpacked into a directory to tamper with.
pub(crate) fn exported() -> (TestRepo, tempfile::TempDir, PathBuf) {
    let repo = fixture();
    repo.index(&[]);
    let tmp = tempfile::tempdir().unwrap();
    let tar = tmp.path().join("index.tar");
    repo.run_ok(&["export", tar.to_str().unwrap()], 0);
    let unpacked = tmp.path().join("unpacked");
    std::fs::create_dir(&unpacked).unwrap();
    tar::Archive::new(std::fs::File::open(&tar).unwrap())
        .unpack(&unpacked)
        .unwrap();
    (repo, tmp, unpacked)
}

/// Pack `dir` (meta.sqlite + lance/) into a tar beside it.
pub(crate) fn repack(dir: &Path, name: &str) -> PathBuf {
    let out = dir.parent().unwrap().join(name);
    let mut b = tar::Builder::new(std::fs::File::create(&out).unwrap());
    b.append_path_with_name(dir.join("meta.sqlite"), "meta.sqlite")
        .unwrap();
    if dir.join("lance").exists() {
        b.append_dir_all("lance", dir.join("lance")).unwrap();
    }
    b.into_inner().unwrap();
    out
}

/// A clone with no index, to import into.
pub(crate) fn fresh_clone(from: &TestRepo) -> TestRepo {
    let dev = TestRepo::new();
    dev.git(&["fetch", "-q", from.path().to_str().unwrap(), "main"]);
    dev.git(&["reset", "-q", "--hard", "FETCH_HEAD"]);
    dev
}

pub(crate) fn import_fails(repo: &TestRepo, tar: &Path, says: &str) {
    let out = repo.run(&["import", tar.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(says), "{err}");
    assert!(err.contains("hint:"), "{err}");
    // Nothing is left behind in the index directory.
    if let Ok(entries) = std::fs::read_dir(index_dir(repo)) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            assert!(!name.starts_with(".import-"), "left behind: {name}");
        }
    }
}

#[test]
fn a_committed_config_cannot_send_code_or_secrets_anywhere_until_trusted() {
    let server = Server::start(vec![], Answer::Ok);
    let repo = TestRepo::with_files(&[("src/a.rs", "pub fn secret_sauce() {}\n")]);
    repo.write(
        ".codesearch.toml",
        format!(
            "[embed]\nprovider = \"openai\"\nmodel = \"m\"\nurl = \"{}\"\napi_key_env = \"STOLEN_TOKEN\"\n[llm]\nrewrite = true\nmodel = \"m\"\nurl = \"{}\"\n",
            server.url(),
            server.url()
        ),
    );
    repo.commit_all("hostile config");
    let out = repo
        .cmd(&["search", "--json", "secret_sauce"])
        .env("STOLEN_TOKEN", "hunter2-token")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("only a trusted file may set"), "{err}");
    assert_eq!(
        err.matches("only a trusted file").count(),
        1,
        "said once: {err}"
    );
    assert!(server.seen.lock().unwrap().requests.is_empty());
    // Trusted, the same file may choose the provider: the user decided.
    repo.trust_config();
    repo.git(&["config", "codesearch.embedProvider", "none"]);
    let out = repo.run(&["search", "secret_sauce"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("trusted file"));
    // A change to the file withdraws the trust.
    repo.write(".codesearch.toml", "[llm]\nrerank = true\nmodel = \"x\"\n");
    let out = repo.run(&["search", "secret_sauce"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("[llm]"));
}

#[test]
fn a_config_file_that_is_a_link_is_refused_without_echoing_the_target() {
    let repo = TestRepo::with_files(&[("src/a.rs", "pub fn f() {}\n")]);
    repo.write("creds", "password = \"hunter2\"\n");
    std::os::unix::fs::symlink("creds", repo.path().join(".codesearch.toml")).unwrap();
    let out = repo.run(&["search", "f"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("symbolic link") && !err.contains("hunter2"),
        "{err}"
    );
}

#[test]
fn a_link_in_a_snapshot_is_refused_and_its_target_untouched() {
    let (repo, tmp, unpacked) = exported();
    // The target: a database outside the index that import must never open.
    let outside = tmp.path().join("outside.sqlite");
    std::fs::copy(unpacked.join("meta.sqlite"), &outside).unwrap();
    let before = std::fs::read(&outside).unwrap();
    let tar = tmp.path().join("link.tar");
    let mut b = tar::Builder::new(std::fs::File::create(&tar).unwrap());
    let mut h = tar::Header::new_gnu();
    h.set_entry_type(tar::EntryType::Symlink);
    h.set_size(0);
    b.append_link(&mut h, "meta.sqlite", &outside).unwrap();
    b.into_inner().unwrap();
    let dev = fresh_clone(&repo);
    import_fails(&dev, &tar, "Symlink");
    assert_eq!(std::fs::read(&outside).unwrap(), before);
    // A path climbing out is refused the same way.
    let climb = tmp.path().join("climb.tar");
    let mut b = tar::Builder::new(std::fs::File::create(&climb).unwrap());
    let mut h = tar::Header::new_gnu();
    h.set_size(2);
    h.set_mode(0o644);
    h.set_entry_type(tar::EntryType::Regular);
    // `append_data` refuses `..`: write the name into the header by hand.
    h.as_gnu_mut().unwrap().name[..16].copy_from_slice(b"lance/../../evil");
    h.set_cksum();
    b.append(&h, &b"hi"[..]).unwrap();
    b.into_inner().unwrap();
    import_fails(&dev, &climb, "not a path a snapshot holds");
    assert!(!index_dir(&dev).join("evil").exists());
    assert!(!dev.path().join(".git/evil").exists());
}

#[test]
fn a_crafted_hash_in_a_snapshot_never_reaches_a_store_filter() {
    let (repo, _tmp, unpacked) = exported();
    sql(
        &unpacked.join("meta.sqlite"),
        "UPDATE content SET content_hash = 'x'') OR true OR content_hash IN (''y'
           WHERE rowid = (SELECT min(rowid) FROM content);",
    );
    let tar = repack(&unpacked, "crafted.tar");
    let dev = fresh_clone(&repo);
    dev.index(&[]);
    let before = dev.status(&[]);
    import_fails(&dev, &tar, "not a content hash");
    dev.run_ok(&["gc"], 0);
    let after = dev.status(&[]);
    assert_eq!(
        before["stored_chunks"], after["stored_chunks"],
        "{before}\n{after}"
    );
    assert_eq!(
        dev.hit_paths("retry failed uploads", &["--no-index"])[0],
        "app/upload.py"
    );
}

/// The contents a snapshot lists as stale (`stale_definitions`) are checked like its other
/// hashes: an index run reads that list.
#[test]
fn a_crafted_stale_hash_in_a_snapshot_is_refused() {
    let (repo, _tmp, unpacked) = exported();
    sql(
        &unpacked.join("meta.sqlite"),
        "INSERT INTO stale_definitions VALUES ('x'') OR true --');",
    );
    let tar = repack(&unpacked, "stale.tar");
    import_fails(
        &fresh_clone(&repo),
        &tar,
        "stale_definitions.content_hash holds",
    );
}

#[test]
fn a_recursive_view_in_a_snapshot_is_refused_at_once() {
    let (repo, _tmp, unpacked) = exported();
    sql(
        &unpacked.join("meta.sqlite"),
        "DROP TABLE schema_version;
         CREATE VIEW schema_version(version) AS WITH RECURSIVE r(x) AS
           (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x FROM r;",
    );
    let tar = repack(&unpacked, "view.tar");
    let dev = fresh_clone(&repo);
    let start = std::time::Instant::now();
    import_fails(&dev, &tar, "schema");
    assert!(start.elapsed() < std::time::Duration::from_secs(60));
}

#[test]
fn empty_and_truncated_snapshots_say_what_is_wrong() {
    let (repo, tmp, unpacked) = exported();
    let dev = fresh_clone(&repo);
    let empty = tmp.path().join("empty.tar");
    std::fs::write(&empty, b"").unwrap();
    import_fails(&dev, &empty, "no meta.sqlite");
    let whole = std::fs::read(repack(&unpacked, "whole.tar")).unwrap();
    let cut = tmp.path().join("cut.tar");
    // Cut inside the first entry's data (the database), not at a header boundary.
    std::fs::write(&cut, &whole[..1536]).unwrap();
    import_fails(&dev, &cut, "truncated");
    let missing = tmp.path().join("nope.tar");
    import_fails(&dev, &missing, "cannot open");
}

#[test]
fn repair_waits_for_a_live_writer_and_deletes_nothing_it_writes() {
    let repo = fixture();
    repo.index(&[]);
    let db = index_dir(&repo).join("meta.sqlite");
    // Chunks whose catalog rows are not committed yet: what an import in progress looks like.
    sql(
        &db,
        "DELETE FROM content WHERE rowid = (SELECT min(rowid) FROM content);",
    );
    // A live writer on this host holds the lock (its lease long expired).
    let mut writer = std::process::Command::new("sleep")
        .arg("120")
        .spawn()
        .unwrap();
    let pid = writer.id();
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let start = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .nth(19)
        .unwrap()
        .to_string();
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    sql(
        &db,
        &format!(
            "INSERT OR REPLACE INTO index_lock (id, pid, pid_start, host, acquired_at, expires_at, rerun)
             VALUES (1, {pid}, '{start}', '{}', 0, 1, 0);",
            host.trim()
        ),
    );
    let before = repo.status(&[]);
    let out = repo.run(&["doctor", "--repair"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("holds the lock"), "{err}");
    assert_eq!(repo.status(&[])["stored_chunks"], before["stored_chunks"]);
    writer.kill().unwrap();
    writer.wait().unwrap();
    // The writer is gone: now repair may act, and takes its lock over.
    repo.run_ok(&["doctor", "--repair"], 0);
}

/// Commit `tree` after HEAD, then HEAD's own tree after it: the crafted tree is history,
/// and the checked-out tree is the normal one again.
fn bury_in_history(repo: &TestRepo, tree: gix::ObjectId) {
    let head = repo.git(&["rev-parse", "HEAD"]);
    let crafted = repo.git(&[
        "commit-tree",
        &tree.to_string(),
        "-p",
        head.trim(),
        "-m",
        "crafted",
    ]);
    let tip = repo.git(&[
        "commit-tree",
        "HEAD^{tree}",
        "-p",
        crafted.trim(),
        "-m",
        "back",
    ]);
    repo.git(&["reset", "-q", "--hard", tip.trim()]);
}

#[test]
fn a_tree_nested_16000_deep_in_history_does_not_crash_indexing() {
    let repo = TestRepo::with_files(&[("src/a.rs", "pub fn top_level_marker() {}\n")]);
    let g = gix::open(repo.path()).unwrap();
    // A tree of one entry, written to the object database.
    let tree = |kind: gix::objs::tree::EntryKind, name: &str, oid: gix::ObjectId| {
        let entry = gix::objs::tree::Entry {
            mode: kind.into(),
            filename: name.into(),
            oid,
        };
        let t = gix::objs::Tree {
            entries: vec![entry],
        };
        g.write_object(t).unwrap().detach()
    };
    let blob = g.write_blob(b"deep\n").unwrap().detach();
    let mut id = tree(gix::objs::tree::EntryKind::Blob, "f", blob);
    for _ in 0..16_000 {
        id = tree(gix::objs::tree::EntryKind::Tree, "d", id);
    }
    bury_in_history(&repo, id);
    repo.index(&[]);
    assert_eq!(repo.hit_paths("top_level_marker", &[])[0], "src/a.rs");
}

/// A history tree whose every level names the level below twice (`a` and `b`), empty at
/// the bottom, changes no file; reading its diff visited 2^41 pairs of trees, so every index
/// run (and the first search of a fresh clone) spun forever with the lock held.
#[test]
fn a_tree_that_names_its_subtree_twice_per_level_in_history_does_not_hang_indexing() {
    let repo = TestRepo::with_files(&[("src/a.rs", "pub fn top_level_marker() {}\n")]);
    let g = gix::open(repo.path()).unwrap();
    let mut id = g
        .write_object(gix::objs::Tree { entries: vec![] })
        .unwrap()
        .detach();
    for _ in 0..40 {
        let entry = |name: &str| gix::objs::tree::Entry {
            mode: gix::objs::tree::EntryKind::Tree.into(),
            filename: name.into(),
            oid: id,
        };
        let t = gix::objs::Tree {
            entries: vec![entry("a"), entry("b")],
        };
        id = g.write_object(t).unwrap().detach();
    }
    bury_in_history(&repo, id);
    // A minute is hundreds of times what this repository takes; without the bound the run
    // never ends.
    let (out, _) = crate::common::peak_rss_within(
        &mut repo.cmd(&["index", "--json"]),
        std::time::Duration::from_secs(60),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(repo.hit_paths("top_level_marker", &[])[0], "src/a.rs");
}

#[test]
fn deeply_nested_code_is_indexed_as_text_quickly_and_says_so() {
    // One level a line, so that no line is long enough to make the file look minified.
    let deep = format!(
        "f({}1{});\nfunction deep_nesting_marker() {{}}\n",
        "call_level(\n".repeat(4000),
        ")\n".repeat(4000)
    );
    let repo = TestRepo::with_files(&[
        ("deep.js", deep.as_str()),
        ("ok.js", "function fine() {}\n"),
    ]);
    let start = std::time::Instant::now();
    repo.index(&[]);
    assert!(start.elapsed() < std::time::Duration::from_secs(60));
    assert_eq!(repo.hit_paths("deep_nesting_marker", &[])[0], "deep.js");
    let status = repo.status(&["--verbose"]);
    let noted = status["noted_files"].to_string();
    assert!(
        noted.contains("deep.js") && noted.contains("plain text"),
        "{status}"
    );
}

#[test]
fn names_and_content_reach_the_terminal_escaped() {
    let repo = TestRepo::with_files(&[
        ("two\nlines.rs", "pub fn newline_named_marker() {}\n"),
        (
            "esc.rs",
            "pub fn escape_marker() {}\n// \x1b]0;pwned\x07 \x1b[2J\n",
        ),
    ]);
    let out = repo.run_ok(&["newline_named_marker", "-l"], 0);
    assert_eq!(out.lines().next(), Some("\"two\\nlines.rs\""), "{out}");
    let out = repo.run_ok(&["escape_marker", "-n", "1"], 0);
    assert!(!out.contains('\x1b') && !out.contains('\x07'), "{out:?}");
    assert!(out.contains("\\u{1b}"), "{out}");
}

#[test]
fn a_dir_option_before_a_command_runs_the_command() {
    let repo = TestRepo::with_files(&[("src/a.rs", "pub fn f() {}\n")]);
    let mut cmd = std::process::Command::new(crate::common::bin());
    cmd.args(["-C", repo.path().to_str().unwrap(), "index", "--json", "-q"])
        .current_dir("/");
    crate::common::hermetic(&mut cmd, repo.path());
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["stats"].is_object(), "{v}");
}

#[test]
fn a_multibyte_branch_name_does_not_panic() {
    let repo = TestRepo::with_files(&[("src/a.rs", "pub fn f() {}\n")]);
    repo.index(&[]);
    let out = repo.run(&["status", "--branch", "detached/ééééééééééé"]);
    assert_ne!(out.status.code(), Some(101), "{out:?}");
}
