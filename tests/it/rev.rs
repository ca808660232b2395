//! `--rev`: searching a commit that is not checked out, read from the object database,
//! reusing content indexed for other branches and leaving HEAD and the work tree alone.

use crate::common::TestRepo;

fn two_tags() -> TestRepo {
    let repo = TestRepo::new();
    for i in 0..10 {
        repo.write(
            &format!("src/shared_{i}.rs"),
            format!("pub fn shared_helper_{i}() -> u32 {{ {i} }}\n"),
        );
    }
    repo.write(
        "src/legacy.rs",
        "/// Decode the old wire format.\npub fn decode_legacy_frame(bytes: &[u8]) -> usize {\n    bytes.len()\n}\n",
    );
    repo.write("src/main.rs", "fn main() { println!(\"v1\"); }\n");
    repo.commit_all("v1");
    repo.git(&["tag", "v1.0.0"]);
    repo.remove("src/legacy.rs");
    repo.write("src/main.rs", "fn main() { println!(\"v2\"); }\n");
    repo.write("src/fresh.rs", "pub fn brand_new_decoder() {}\n");
    repo.commit_all("v2");
    repo.git(&["tag", "v2.0.0"]);
    repo
}

#[test]
fn rev_searches_an_old_tag_without_touching_head() {
    let repo = two_tags();
    repo.index(&[]);
    let head = repo.git(&["rev-parse", "HEAD"]);
    // Only on the old tag: not found on the checked-out branch…
    assert!(repo
        .hit_paths("decode_legacy_frame", &["--no-index"])
        .is_empty());
    // …indexing the tag computes only the two blobs the current branch does not have.
    let run = repo.index(&["--rev", "v1.0.0"]);
    let s = &run["stats"];
    assert_eq!(s["compute"], 2, "{run}");
    assert_eq!(s["add_tag"], 10, "{run}");
    assert!(run["branch"].as_str().unwrap().contains("commit"), "{run}");
    let hits = repo.search("decode_legacy_frame", &["--rev", "v1.0.0"]);
    assert_eq!(hits[0]["path"], "src/legacy.rs");
    assert_eq!(hits[0]["start_line"], 1);
    // The newer file is not in the old tag.
    assert!(repo
        .hit_paths("brand_new_decoder", &["--rev", "v1.0.0"])
        .is_empty());
    assert_eq!(repo.hit_paths("brand_new_decoder", &[])[0], "src/fresh.rs");
    // HEAD and the work tree are untouched.
    assert_eq!(repo.git(&["rev-parse", "HEAD"]), head);
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    assert!(!repo.path().join("src/legacy.rs").exists());
}

#[test]
fn rev_indexes_on_first_search_and_names_bad_revisions() {
    let repo = two_tags();
    // No index at all yet: the first --rev search builds the tag's index by itself.
    let hits = repo.search("decode_legacy_frame", &["--rev", "v1.0.0~0"]);
    assert_eq!(hits[0]["path"], "src/legacy.rs");
    let out = repo.run(&["search", "--rev", "no-such-tag", "decode"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no-such-tag") && err.contains("hint:"),
        "{err}"
    );
}

/// Write a tree object from `ls-tree`-style lines with `git mktree`, which (unlike
/// `git fsck`) accepts names such as `..` and `.git`: a default clone carries them too.
fn mktree(repo: &TestRepo, lines: &str) -> String {
    use std::io::Write;
    let mut cmd = std::process::Command::new("git");
    cmd.arg("mktree")
        .current_dir(repo.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    crate::common::hermetic(&mut cmd, repo.path());
    let mut child = cmd.spawn().expect("git mktree");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(lines.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn a_crafted_tree_never_writes_outside_the_index() {
    let repo = TestRepo::with_files(&[("src/ok.rs", "pub fn fine() {}\n")]);
    let config_before = std::fs::read(repo.path().join(".git/config")).unwrap();
    let payload = "pub fn escaped_payload_marker() {}\n";
    repo.write("payload.rs", payload);
    let blob = repo.git(&["hash-object", "-w", "payload.rs"]);
    let blob = blob.trim();
    repo.remove("payload.rs");
    let good = repo.git(&["hash-object", "-w", "src/ok.rs"]);
    let good = good.trim();
    // `../../../pwned.rs` from a scratch directory inside `.git/codesearch` is the work
    // tree's top; `../../config` is `.git/config`; `.git/config` is the clone's own config.
    let mut deep = mktree(&repo, &format!("100644 blob {blob}\tpwned.rs\n"));
    for _ in 0..3 {
        deep = mktree(&repo, &format!("040000 tree {deep}\t..\n"));
    }
    let config = mktree(&repo, &format!("100644 blob {blob}\tconfig\n"));
    let up2 = mktree(&repo, &format!("040000 tree {config}\t..\n"));
    let root = mktree(
        &repo,
        &format!(
            "040000 tree {deep}\t..\n040000 tree {config}\t.git\n040000 tree {up2}\tx\n100644 blob {good}\tgood.rs\n"
        ),
    );
    let commit = repo.git(&["commit-tree", &root, "-m", "crafted"]);
    repo.git(&["tag", "evil", commit.trim()]);
    let hits = repo.search("escaped_payload_marker fine", &["--rev", "evil"]);
    assert!(!repo.path().join("pwned.rs").exists());
    assert_eq!(
        std::fs::read(repo.path().join(".git/config")).unwrap(),
        config_before
    );
    // Nothing reachable only through an unsafe path is indexed; the safe file is.
    let paths: Vec<&str> = hits.iter().map(|h| h["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["good.rs"], "{hits:?}");
    // The three unsafe entries are skipped, not computed (the index run counts them).
    let run = repo.index(&["--rev", "evil"]);
    assert_eq!(run["stats"]["skipped"], 3, "{run}");
}

#[test]
fn an_unreadable_tree_of_a_revision_is_named_as_such() {
    let repo = TestRepo::with_files(&[("src/deep/a.rs", "pub fn alpha() {}\n")]);
    // Lose the object of one tree of HEAD (a damaged or partial clone).
    let tree = repo.git(&["rev-parse", "HEAD:src/deep"]);
    let tree = tree.trim();
    let object = repo
        .path()
        .join(".git/objects")
        .join(&tree[..2])
        .join(&tree[2..]);
    std::fs::remove_file(&object).unwrap();
    let out = repo.run(&["index", "--rev", "HEAD"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    let first = err.lines().next().unwrap_or_default();
    // The error names what failed (the revision's commit, then the missing object), not
    // "the checked-out branch".
    let head = repo.git(&["rev-parse", "HEAD"]);
    assert!(
        first.starts_with("error: cannot read revision") && first.contains(head.trim()),
        "{err}"
    );
    assert!(err.contains(tree), "{err}");
}
