//! Branch-aware deltas: Compute only for content no branch has, AddTag for the rest,
//! RemoveTag vs Delete, results limited to the searched branch, paths per branch, gc.

use crate::common::TestRepo;

fn many_files(repo: &TestRepo, n: usize) {
    for i in 0..n {
        repo.write(
            &format!("src/mod_{i}.rs"),
            format!(
                "/// Helper number {i}.\npub fn helper_{i}(x: u32) -> u32 {{\n    x + {i}\n}}\n"
            ),
        );
    }
}

#[test]
fn switching_branches_computes_only_new_content() {
    let repo = TestRepo::new();
    many_files(&repo, 20);
    repo.write("src/shared.rs", "pub fn shared_fn() {}\n");
    repo.commit_all("main");
    let first = repo.index(&[]);
    assert_eq!(first["stats"]["compute"], 21);

    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write(
        "src/mod_3.rs",
        "pub fn feature_only_marker() -> u32 { 3 }\n",
    );
    repo.write("src/new_file.rs", "pub fn brand_new_feature_fn() {}\n");
    repo.commit_all("feature");
    let plan = repo.index(&["--dry-run"]);
    assert_eq!(plan["dry_run"], true);
    let s = &plan["stats"];
    assert_eq!(s["compute"], 2, "{plan}");
    assert_eq!(s["add_tag"], 20, "{plan}");
    let run = repo.index(&[]);
    assert_eq!(run["stats"]["compute"], 2, "{run}");

    // On feature: the feature term is found, the replaced helper is not.
    assert_eq!(
        repo.hit_paths("feature_only_marker", &[])[0],
        "src/mod_3.rs"
    );
    let on_feature = repo.hit_paths("helper_3", &["--mode", "symbol"]);
    assert!(
        !on_feature.contains(&"src/mod_3.rs".to_string()),
        "{on_feature:?}"
    );
    // main's index does not contain the feature content.
    assert!(repo
        .hit_paths("feature_only_marker", &["--branch", "main"])
        .is_empty());
    assert_eq!(
        repo.hit_paths("helper_3", &["--branch", "main", "--mode", "symbol"])[0],
        "src/mod_3.rs"
    );

    // Back on main: nothing to compute, the term is gone, the old helper is back.
    repo.git(&["checkout", "-q", "main"]);
    let back = repo.index(&[]);
    assert_eq!(back["stats"]["compute"], 0, "{back}");
    assert!(repo.hit_paths("feature_only_marker", &[]).is_empty());
    assert_eq!(
        repo.hit_paths("helper_3", &["--mode", "symbol"])[0],
        "src/mod_3.rs"
    );
}

#[test]
fn noop_reindex_writes_nothing() {
    let repo = TestRepo::new();
    many_files(&repo, 5);
    repo.commit_all("c");
    repo.index(&[]);
    let again = repo.index(&[]);
    assert_eq!(again["noop"], true, "{again}");
    assert_eq!(again["stats"]["unchanged"], 5);
}

#[test]
fn files_written_just_before_a_run_are_read_again_once_not_every_run() {
    use std::time::{Duration, SystemTime};
    let repo = TestRepo::new();
    many_files(&repo, 5);
    repo.commit_all("c");
    // Modified "5 s from now" (room for a slow machine): every run until a second after that
    // must read them (a change within the same second could keep size and mtime), as git
    // treats racy entries.
    let mtime = SystemTime::now() + Duration::from_secs(5);
    for i in 0..5 {
        let f = std::fs::File::options()
            .write(true)
            .open(repo.path().join(format!("src/mod_{i}.rs")))
            .unwrap();
        f.set_modified(mtime).unwrap();
    }
    repo.index(&[]);
    let early = repo.index(&[]);
    assert_eq!(early["noop"], true, "{early}");
    assert_eq!(early["stats"]["refreshed"], 0, "{early}");
    // Over a second past the mtime in whole seconds (the catalog keeps unix seconds).
    while SystemTime::now() < mtime + Duration::from_millis(2100) {
        std::thread::sleep(Duration::from_millis(100));
    }
    // Read once more and found unchanged: the rows are refreshed ...
    let second = repo.index(&[]);
    assert_eq!(second["noop"], true, "{second}");
    assert_eq!(second["stats"]["refreshed"], 5, "{second}");
    // ... so size and mtime vouch for them from now on.
    let third = repo.index(&[]);
    assert_eq!(third["stats"]["refreshed"], 0, "{third}");
    assert_eq!(third["noop"], true, "{third}");
}

#[test]
fn uncommitted_edits_are_searchable_after_index() {
    let repo = TestRepo::with_files(&[("a.py", "def original_name():\n    pass\n")]);
    repo.index(&[]);
    repo.write("a.py", "def edited_in_worktree():\n    pass\n");
    repo.index(&[]);
    assert_eq!(repo.hit_paths("edited_in_worktree", &[]), ["a.py"]);
    assert!(repo.hit_paths("original_name", &[]).is_empty());
}

#[test]
fn delete_versus_remove_tag_and_gc() {
    let repo = TestRepo::with_files(&[
        ("keep.rs", "pub fn stays_everywhere() {}\n"),
        ("only_main.rs", "pub fn lives_on_main_only() {}\n"),
        ("doomed.rs", "pub fn removed_from_all_branches() {}\n"),
    ]);
    repo.lexical();
    repo.index(&[]);
    repo.git(&["checkout", "-q", "-b", "feature"]);
    let first = repo.index(&[]);
    assert_eq!(
        first["stats"]["add_tag"], 3,
        "a new branch only tags: {first}"
    );
    assert_eq!(first["stats"]["compute"], 0, "{first}");
    repo.remove("only_main.rs");
    repo.commit_all("drop only_main on feature");
    let run = repo.index(&[]);
    // only_main.rs still exists on main: its content is kept (RemoveTag, no Delete).
    assert_eq!(run["stats"]["remove_tag"], 1, "{run}");
    assert_eq!(run["stats"]["deleted"], 0, "{run}");
    assert_eq!(
        repo.hit_paths("lives_on_main_only", &["--branch", "main"]),
        ["only_main.rs"]
    );
    assert!(repo.hit_paths("lives_on_main_only", &[]).is_empty());
    let stored_before = repo.status(&[])["stored_chunks"].as_u64().unwrap();

    // doomed.rs leaves feature too: after main drops it as well, nothing uses it.
    repo.remove("doomed.rs");
    repo.commit_all("drop doomed on feature");
    let run = repo.index(&[]);
    assert_eq!(
        run["stats"]["remove_tag"], 1,
        "main still has doomed.rs: {run}"
    );
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["branch", "-q", "-D", "feature"]);
    repo.remove("doomed.rs");
    repo.commit_all("drop doomed on main");
    let run = repo.index(&[]);
    assert_eq!(run["stats"]["deleted"], 1, "{run}");
    let said = repo.run_ok(&["gc"], 0);
    assert!(said.starts_with("dropped 1 branches (feature), "), "{said}");
    let again = repo.run_ok(&["gc"], 0);
    assert!(
        again.starts_with("dropped 0 branches, deleted 0 "),
        "{again}"
    );
    let stored_after = repo.status(&[])["stored_chunks"].as_u64().unwrap();
    assert!(
        stored_after < stored_before,
        "{stored_before} -> {stored_after}"
    );
    assert!(repo
        .hit_paths("removed_from_all_branches", &["--branch", "main"])
        .is_empty());
    // gc dropped the deleted feature branch.
    let branches = repo.status(&[])["branches"].to_string();
    assert!(!branches.contains("feature"), "{branches}");
}

/// A store where other branches hold 30 times this branch's chunks, all matching the query
/// better: the unfiltered first BM25 pass comes back full of them, and the branch's own
/// (weaker) matches must still be found — by the deeper first pass or the branch-restricted
/// second one — with nothing from the other branch.
#[test]
fn a_branch_crowded_out_by_other_branches_still_finds_its_own_matches() {
    let repo = TestRepo::new();
    repo.git(&["config", "codesearch.nFinal", "10"]);
    repo.git(&["config", "codesearch.nRetrieve", "10"]);
    let filler = "let unrelated = words + that + dilute + the + score;\n".repeat(12);
    for i in 0..10 {
        repo.write(
            &format!("src/weak_{i}.rs"),
            format!("fn weak_{i}() {{\n    // frobnicate once\n{filler}}}\n"),
        );
    }
    repo.commit_all("main");
    repo.index(&[]);
    repo.git(&["checkout", "-q", "-b", "side"]);
    for i in 0..300 {
        repo.write(
            &format!("src/hot_{i}.rs"),
            format!("// frobnicate frobnicate frobnicate\nfn hot_{i}() {{}}\n"),
        );
    }
    repo.commit_all("side");
    repo.index(&[]);
    assert!(repo.hit_paths("frobnicate", &[])[0].starts_with("src/hot_"));

    let on_main = repo.hit_paths("frobnicate", &["--branch", "main"]);
    let mut expected: Vec<String> = (0..10).map(|i| format!("src/weak_{i}.rs")).collect();
    let mut found = on_main.clone();
    found.sort();
    expected.sort();
    assert_eq!(found, expected, "{on_main:?}");
}

#[test]
fn renamed_files_are_reported_under_their_path_on_the_branch() {
    let repo = TestRepo::with_files(&[("old_name.rs", "pub fn renamed_function_marker() {}\n")]);
    repo.index(&[]);
    repo.git(&["checkout", "-q", "-b", "renamed"]);
    repo.git(&["mv", "old_name.rs", "new_name.rs"]);
    repo.commit_all("rename");
    let run = repo.index(&[]);
    assert_eq!(
        run["stats"]["compute"], 0,
        "a rename costs no compute: {run}"
    );
    assert_eq!(
        repo.hit_paths("renamed_function_marker", &[]),
        ["new_name.rs"]
    );
    assert_eq!(
        repo.hit_paths("renamed_function_marker", &["--branch", "main"]),
        ["old_name.rs"]
    );
}

#[test]
fn detached_head_is_indexed_by_commit() {
    let repo = TestRepo::with_files(&[("a.rs", "pub fn detached_marker() {}\n")]);
    repo.git(&["checkout", "-q", "--detach"]);
    assert_eq!(repo.hit_paths("detached_marker", &[]), ["a.rs"]);
    let branch = repo.status(&[])["branch"].as_str().unwrap().to_string();
    assert!(branch.starts_with("(detached at "), "{branch}");
}

#[test]
fn linked_worktrees_share_one_index() {
    let repo = TestRepo::with_files(&[("a.rs", "pub fn in_both_trees() {}\n")]);
    repo.index(&[]);
    let wt = tempfile::tempdir().unwrap();
    let wt_path = wt.path().join("wt");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "side",
        wt_path.to_str().unwrap(),
    ]);
    let mut cmd = repo.cmd(&["index", "--json", "-q"]);
    cmd.current_dir(&wt_path);
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["stats"]["compute"], 0,
        "the worktree reuses main's content: {v}"
    );
    assert!(
        !wt_path.join(".git").is_dir(),
        "worktree has a .git file, not its own index"
    );
}
