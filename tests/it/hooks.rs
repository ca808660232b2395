//! Hooks keep the index fresh after checkout, merge and rebase, chain existing hooks, and
//! uninstall restores them exactly.

use std::time::{Duration, Instant};

use crate::common::TestRepo;

/// Wait for the background index run a hook started to make `query` findable.
fn eventually_found(repo: &TestRepo, query: &str, path: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let out = repo.run(&["search", "--json", "-q", "--no-index", query]);
        if String::from_utf8_lossy(&out.stdout).contains(&format!("\"path\":\"{path}\"")) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{query} never showed up in {path}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn hooks_refresh_after_checkout_merge_and_rebase_and_chain_user_hooks() {
    let repo = TestRepo::with_files(&[("base.rs", "pub fn base_fn() {}\n")]);
    let user_hook = repo.path().join(".git/hooks/post-checkout");
    std::fs::create_dir_all(user_hook.parent().unwrap()).unwrap();
    let marker_dir = tempfile::tempdir().unwrap();
    let marker = marker_dir.path().join("user-hook-ran");
    let user_text = format!("#!/bin/sh\necho \"$@\" >> '{}'\n", marker.display());
    std::fs::write(&user_hook, &user_text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&user_hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let out = repo.run_ok(&["hooks", "install"], 0);
    assert!(out.contains("your hook runs first"), "{out}");
    repo.index(&[]);

    // checkout
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("feature.rs", "pub fn checkout_hook_marker() {}\n");
    repo.commit_all("feature");
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["checkout", "-q", "feature"]);
    eventually_found(&repo, "checkout_hook_marker", "feature.rs");
    assert!(
        std::fs::read_to_string(&marker).unwrap().lines().count() >= 2,
        "user hook ran"
    );

    // merge
    repo.git(&["checkout", "-q", "main"]);
    repo.write("main_side.rs", "pub fn main_side_fn() {}\n");
    repo.commit_all("main side");
    repo.git(&["merge", "-q", "--no-edit", "feature"]);
    eventually_found(&repo, "checkout_hook_marker", "feature.rs");

    // rebase
    repo.git(&["checkout", "-q", "-b", "topic", "HEAD~1"]);
    repo.write("topic.rs", "pub fn rebase_hook_marker() {}\n");
    repo.commit_all("topic");
    repo.git(&["rebase", "-q", "main"]);
    eventually_found(&repo, "rebase_hook_marker", "topic.rs");
    eventually_found(&repo, "checkout_hook_marker", "feature.rs");

    // uninstall restores the user's hook byte for byte
    repo.run_ok(&["hooks", "uninstall"], 0);
    assert_eq!(std::fs::read_to_string(&user_hook).unwrap(), user_text);
    assert!(!repo.path().join(".git/hooks/post-merge").exists());
}

#[test]
fn hooks_respect_core_hooks_path() {
    let repo = TestRepo::with_files(&[("a.rs", "fn a() {}\n")]);
    repo.git(&["config", "core.hooksPath", "custom-hooks"]);
    repo.run_ok(&["hooks", "install"], 0);
    assert!(repo.path().join("custom-hooks/post-checkout").exists());
    assert!(!repo.path().join(".git/hooks/post-checkout").exists());
}
