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
