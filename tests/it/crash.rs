//! Interrupted and concurrent runs: a run killed with SIGKILL at different points resumes to
//! the same index a clean run builds; concurrent runs wait for the lock and never corrupt.

use std::process::Stdio;
use std::time::Duration;

use crate::common::TestRepo;

fn big_repo() -> TestRepo {
    let repo = TestRepo::new();
    for i in 0..400 {
        // Bodies of different lengths give distinct BM25 scores (no ties to order).
        let body: String = (0..4 + (i * 7) % 11)
            .map(|j| format!("    let value_{j} = compute_{i}_{j}(input, {j});\n"))
            .collect();
        repo.write(
            &format!("pkg{}/file_{i}.rs", i % 7),
            format!("/// Transform number {i} of the pipeline.\npub fn transform_{i}(input: u64) -> u64 {{\n{body}    input\n}}\n"),
        );
    }
    repo.commit_all("big");
    repo
}

/// Wait until the index database of `repo` answers `query` (one integer) with more than 0,
/// polling every 20 ms: tests act on what a run has reached, not on how long it has run.
/// Fails after 120 s, or if `child` ends first.
pub fn wait_until(repo: &TestRepo, child: &mut std::process::Child, query: &str) {
    let db = repo.path().join(".git/codesearch/meta.sqlite");
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    loop {
        let reached =
            rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
                .and_then(|c| c.query_row(query, [], |r| r.get::<_, i64>(0)))
                .is_ok_and(|n| n > 0);
        if reached {
            return;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before `{query}` held"
        );
        assert!(std::time::Instant::now() < deadline, "`{query}` never held");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn assert_success(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What must be equal between a resumed and a clean index.
fn fingerprint(repo: &TestRepo) -> (serde_json::Value, Vec<Vec<String>>) {
    let s = repo.status(&[]);
    let counts = serde_json::json!([
        s["files"],
        s["chunks"],
        s["symbols"],
        s["stored_chunks"],
        s["distinct_contents"],
        s["vectors"]
    ]);
    let results = [
        "transform_17",
        "pipeline transform number",
        "compute value input",
        "transform_399",
    ]
    .iter()
    .map(|q| {
        repo.search(q, &["--no-index"])
            .iter()
            .map(|h| format!("{}:{}-{}", h["path"], h["start_line"], h["end_line"]))
            .collect()
    })
    .collect();
    (counts, results)
}

/// Where a run is killed: a trace point it passes, or a state its database reaches (polled),
/// from taking the lock to the last step, whatever the machine's speed.
enum Point {
    Trace(&'static str),
    Db(&'static str),
}

const KILL_POINTS: [Point; 13] = [
    Point::Trace("index lock taken"),
    Point::Trace("chunk store open"),
    Point::Trace("checks done"),
    Point::Trace("catalog read"),
    Point::Trace("work tree walked"),
    Point::Trace("files scanned"),
    Point::Trace("planned"),
    Point::Db("SELECT count(*) FROM content"),
    Point::Db("SELECT count(*) >= 200 FROM content"),
    Point::Db("SELECT count(*) >= 300 FROM content"),
    Point::Db("SELECT count(*) FROM catalog"),
    Point::Trace("reading history"),
    Point::Trace("pass done"),
];

#[test]
fn sigkill_at_many_points_then_resume_equals_clean_run() {
    let clean = big_repo();
    clean.index(&[]);
    let expected = fingerprint(&clean);
    let mut mid_run = 0;
    for (n, point) in KILL_POINTS.iter().enumerate() {
        let repo = big_repo();
        let mut run = repo.spawn_traced(&["index", "-q"]);
        match point {
            Point::Trace(event) => run.wait_for(event),
            Point::Db(query) => wait_until(&repo, &mut run.child, query),
        }
        let _ = run.child.kill(); // SIGKILL
        run.finish();
        let status = repo.run_ok(&["status"], 0);
        if status.contains("interrupted run") {
            mid_run += 1;
        }
        // Search works on an interrupted index (it may be empty or partial, never an error).
        let out = repo.run(&["search", "-q", "--no-index", "transform_17"]);
        let code = out.status.code();
        assert!(
            matches!(code, Some(0) | Some(1))
                || String::from_utf8_lossy(&out.stderr).contains("is not indexed"),
            "after a kill at point {n}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_success(&repo.run(&["index", "--resume"]));
        assert_eq!(fingerprint(&repo), expected, "after a kill at point {n}");
        assert_eq!(
            repo.run(&["doctor"]).status.code(),
            Some(0),
            "doctor after point {n}"
        );
    }
    assert!(mid_run >= 3, "only {mid_run} kills landed mid-run");
}

#[test]
fn restart_discards_partial_work_and_still_ends_complete() {
    let repo = big_repo();
    let mut child = repo
        .cmd(&["index", "-q"])
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    // Killed once it has written at least one batch.
    wait_until(&repo, &mut child, "SELECT count(*) FROM content");
    let _ = child.kill();
    let _ = child.wait();
    let status = repo.run_ok(&["status"], 0);
    assert!(status.contains("interrupted run"), "{status}");
    let out = repo.run(&["index", "--restart"]);
    assert_success(&out);
    let clean = big_repo();
    clean.index(&[]);
    assert_eq!(fingerprint(&repo), fingerprint(&clean));
}

#[test]
fn eight_concurrent_index_runs_and_searches_agree() {
    let repo = big_repo();
    let children: Vec<_> = (0..8)
        .map(|_| {
            repo.cmd(&["index", "-q"])
                .stdin(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    // Searches for as long as any run goes on: answers or "not indexed yet", never another
    // error.
    let mut children = children;
    loop {
        let out = repo.run(&["search", "-q", "--no-index", "transform_17"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            matches!(out.status.code(), Some(0) | Some(1)) || err.contains("is not indexed"),
            "{err}"
        );
        if children.iter_mut().all(|c| c.try_wait().unwrap().is_some()) {
            break;
        }
    }
    for c in children {
        assert_success(&c.wait_with_output().unwrap());
    }
    assert_eq!(repo.run(&["doctor"]).status.code(), Some(0));
    let clean = big_repo();
    clean.index(&[]);
    assert_eq!(fingerprint(&repo), fingerprint(&clean));
}

#[test]
fn ctrl_c_exits_130_with_a_usable_checkpoint() {
    // With the local model on, so the signal can land in the embed phase too.
    let repo = big_repo();
    repo.embed_locally();
    let mut child = repo
        .cmd(&["index"])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupted early in the embedding phase (the slowest part: the run cannot end first).
    wait_until(
        &repo,
        &mut child,
        "SELECT count(*) FROM checkpoint WHERE phase = 'embed' AND done > 0",
    );
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.contains("interrupted") && err.contains("hint:"),
        "{err}"
    );
    let status = repo.run_ok(&["status"], 0);
    assert!(status.contains("interrupted run"), "{status}");
    // Without a terminal the next run resumes without asking, and says what it found.
    let out = repo.run(&["index"]);
    assert_success(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("found an interrupted index run") && err.contains("resuming"),
        "{err}"
    );
    let clean = big_repo();
    clean.embed_locally();
    clean.index(&[]);
    assert_eq!(fingerprint(&repo), fingerprint(&clean));
}

#[test]
fn hook_runs_do_not_pile_up_but_ask_the_holder_for_another_pass() {
    let repo = big_repo();
    let mut holder = repo
        .cmd(&["index", "-q"])
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    wait_until(&repo, &mut holder, "SELECT count(*) FROM index_lock");
    repo.write("late.rs", "pub fn arrived_during_the_run() {}\n");
    // Deferred means it did not wait: a run that waited would have taken the lock once the
    // holder let it go, and indexed the change itself.
    let v = repo.index(&["--hook"]);
    assert_eq!(v["deferred"], true, "{v}");
    assert_success(&holder.wait_with_output().unwrap());
    // The holder's extra pass picked up the change: no other run is needed.
    assert_eq!(
        repo.hit_paths("arrived_during_the_run", &["--no-index"])[0],
        "late.rs"
    );
}

#[test]
fn an_index_whose_chunks_were_in_lancedb_is_computed_again_and_the_old_table_removed() {
    // Before schema version 8, chunks lived in LanceDB's code_chunks table (here: what a
    // kill during its first write left, data but no manifest). The upgrade forgets what was
    // computed, so the next run (the first search's) computes it into SQLite, and the dead
    // table is removed.
    let repo = TestRepo::with_files(&[("src/lib.rs", "pub fn parse_config_file() {}\n")]);
    repo.run_ok(&["index", "-q"], 0);
    let dir = repo.path().join(".git/codesearch");
    let conn = rusqlite::Connection::open(dir.join("meta.sqlite")).unwrap();
    conn.execute_batch(
        "DROP TABLE chunks; DROP TABLE chunk_text; DROP TABLE chunk_terms;
         DROP TABLE unverified; DROP TABLE remote_branches;
         DROP TABLE remote_packs; DROP TABLE stale_definitions;
         DELETE FROM schema_version WHERE version >= 8;",
    )
    .unwrap();
    drop(conn);
    let old = dir.join("lance/code_chunks.lance/data");
    std::fs::create_dir_all(&old).unwrap();
    std::fs::write(old.join("half-written.lance"), b"\0\0\0").unwrap();
    assert_eq!(repo.hit_paths("parse_config_file", &[]), ["src/lib.rs"]);
    let status = repo.run_ok(&["status"], 0);
    assert!(status.contains("1 indexed"), "{status}");
    assert!(!dir.join("lance/code_chunks.lance").exists());
}

/// A grammar that kills the process on some file (a C scanner's segfault) costs that file,
/// not the index: the run dies, the next run completes, and the file is indexed as plain
/// text with a note `status --verbose` shows. The crash is a test-only trigger of debug
/// builds (`GIT_CODESEARCH_TEST_CRASH_ON_PARSE`), set for both runs: the second run must
/// not parse the file at all.
#[test]
fn a_grammar_crash_costs_one_file_not_the_index() {
    if !cfg!(debug_assertions) {
        return; // the trigger exists in debug builds only
    }
    const TRIGGER: &str = "TRIGGER-4711";
    let repo = TestRepo::with_files(&[
        ("a.rs", "pub fn alpha_crash_marker() {}\n"),
        ("boom.sh", "boom_crash_marker() {\n  echo TRIGGER-4711\n}\n"),
    ]);
    let crash_env = "GIT_CODESEARCH_TEST_CRASH_ON_PARSE";
    let first = repo
        .cmd(&["index"])
        .env(crash_env, TRIGGER)
        .output()
        .unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        first.status.signal(),
        Some(libc::SIGABRT),
        "the run did not crash: {}",
        String::from_utf8_lossy(&first.stderr)
    );
    let second = repo
        .cmd(&["index"])
        .env(crash_env, TRIGGER)
        .output()
        .unwrap();
    assert_success(&second);
    let status = repo.run_ok(&["status", "--verbose"], 0);
    let noted = status
        .lines()
        .find(|l| l.contains("boom.sh"))
        .unwrap_or_else(|| panic!("boom.sh has no note: {status}"));
    assert!(noted.contains("grammar crashed"), "{status}");
    // Only the file whose parse crashed: not one another thread was parsing at the time.
    let marked = status.matches("grammar crashed").count();
    assert_eq!(marked, 1, "{status}");
    // Indexed as text: found by its words, and it has no definitions (no grammar ran). First:
    // `a.rs` defines `alpha_crash_marker`, two of the name's three words, which is another
    // name, not a partial answer to this one (`search::defs`).
    assert_eq!(
        repo.hit_paths("boom_crash_marker", &["--no-index"])[0],
        "boom.sh"
    );
    let defs = repo.search("boom_crash_marker", &["--no-index", "--mode", "symbol"]);
    assert!(defs.iter().all(|h| h["path"] != "boom.sh"), "{defs:?}");
    assert_eq!(
        repo.hit_paths("alpha_crash_marker", &["--no-index"])[0],
        "a.rs"
    );
    // And it stays that way: later runs complete too.
    repo.write("b.rs", "pub fn beta_crash_marker() {}\n");
    let third = repo
        .cmd(&["index"])
        .env(crash_env, TRIGGER)
        .output()
        .unwrap();
    assert_success(&third);
    assert_eq!(
        repo.hit_paths("beta_crash_marker", &["--no-index"])[0],
        "b.rs"
    );
}
