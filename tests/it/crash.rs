//! Interrupted and concurrent runs: a run killed with SIGKILL at different points resumes to
//! the same index a clean run builds; concurrent runs wait for the lock and never corrupt.

use std::process::Stdio;
use std::time::Duration;

use crate::common::TestRepo;

fn big_repo() -> TestRepo {
    let repo = TestRepo::new();
    for i in 0..400 {
        let body: String = (0..8)
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
        s["distinct_contents"]
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

#[test]
fn sigkill_at_several_points_then_resume_equals_clean_run() {
    let clean = big_repo();
    clean.index(&[]);
    let expected = fingerprint(&clean);
    let checkpoints_seen = std::cell::Cell::new(0);
    for delay_ms in [150u64, 600, 1500, 3000] {
        let repo = big_repo();
        let mut child = repo
            .cmd(&["index", "-q"])
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let status = repo.run_ok(&["status"], 0);
        if status.contains("interrupted run") {
            checkpoints_seen.set(checkpoints_seen.get() + 1);
        }
        // Searching an interrupted index never fails (it may be empty or partial).
        let out = repo.run(&["search", "-q", "--no-index", "transform_17"]);
        assert!(matches!(out.status.code(), Some(0) | Some(1) | Some(2)));
        assert_success(&repo.run(&["index", "--resume"]));
        assert_eq!(
            fingerprint(&repo),
            expected,
            "after a kill at {delay_ms} ms"
        );
    }
    assert!(
        checkpoints_seen.get() >= 1,
        "at least one kill must land mid-run"
    );
}

#[test]
fn restart_discards_partial_work_and_still_ends_complete() {
    let repo = big_repo();
    let mut child = repo
        .cmd(&["index", "-q"])
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1200));
    let _ = child.kill();
    let _ = child.wait();
    let out = repo.run(&["index", "--restart"]);
    assert_success(&out);
    let clean = big_repo();
    clean.index(&[]);
    assert_eq!(fingerprint(&repo), fingerprint(&clean));
}

#[test]
fn concurrent_index_runs_wait_and_agree() {
    let repo = big_repo();
    let children: Vec<_> = (0..3)
        .map(|_| {
            repo.cmd(&["index", "-q"])
                .stdin(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        assert_success(&c.wait_with_output().unwrap());
    }
    let clean = big_repo();
    clean.index(&[]);
    assert_eq!(fingerprint(&repo), fingerprint(&clean));
}
