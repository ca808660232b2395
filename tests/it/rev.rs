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
    std::fs::remove_file(loose_object(&repo, tree)).unwrap();
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

/// The file of loose object `id`.
fn loose_object(repo: &TestRepo, id: &str) -> std::path::PathBuf {
    repo.path()
        .join(".git/objects")
        .join(&id[..2])
        .join(&id[2..])
}

/// A loose object cut short: its header (type and size) still reads, its bytes do not.
fn truncate_object(repo: &TestRepo, id: &str, keep: usize) {
    let path = loose_object(repo, id);
    let bytes = std::fs::read(&path).unwrap();
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&path, perms).unwrap();
    std::fs::write(&path, &bytes[..keep]).unwrap();
}

#[test]
fn a_blob_over_the_size_limit_is_skipped_without_reading_it() {
    let repo = TestRepo::with_files(&[("src/ok.rs", "pub fn small_file_marker() {}\n")]);
    repo.git(&["config", "codesearch.maxFileSize", "100000"]);
    // 400 kB of letters that do not compress: the object's first kilobyte holds its header,
    // not its data. Reading the blob fails; its size needs only the header.
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let big: Vec<u8> = (0..400_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b'a' + (x % 26) as u8
        })
        .collect();
    repo.write("big.txt", &big);
    let blob = repo.git(&["hash-object", "-w", "big.txt"]);
    let blob = blob.trim();
    repo.remove("big.txt");
    truncate_object(&repo, blob, 1024);
    let ok = repo.git(&["rev-parse", "HEAD:src/ok.rs"]);
    let root = mktree(
        &repo,
        &format!(
            "100644 blob {blob}\tbig.txt\n100644 blob {}\tok.rs\n",
            ok.trim()
        ),
    );
    let commit = repo.git(&["commit-tree", &root, "-m", "big"]);
    repo.git(&["tag", "big", commit.trim()]);
    let run = repo.index(&["--rev", "big"]);
    assert_eq!(run["stats"]["skipped"], 1, "{run}");
    assert_eq!(
        repo.hit_paths("small_file_marker", &["--rev", "big", "--no-index"])[0],
        "ok.rs"
    );
}

#[test]
fn a_path_longer_than_any_checkout_is_not_walked() {
    let repo = TestRepo::with_files(&[("src/ok.rs", "pub fn shallow_marker() {}\n")]);
    let deep_blob = repo.git(&["hash-object", "-w", "src/ok.rs"]);
    repo.write("deep.rs", "pub fn too_deep_marker() {}\n");
    let blob = repo.git(&["hash-object", "-w", "deep.rs"]);
    repo.remove("deep.rs");
    // 50 directories of 100-character names: a path of over 5,000 bytes, which no file
    // system checks out (git's own limit is the system's PATH_MAX, 4,096 on Linux).
    let mut tree = mktree(&repo, &format!("100644 blob {}\tdeep.rs\n", blob.trim()));
    let name = "d".repeat(100);
    for _ in 0..50 {
        tree = mktree(&repo, &format!("040000 tree {tree}\t{name}\n"));
    }
    let root = mktree(
        &repo,
        &format!(
            "040000 tree {tree}\t{name}\n100644 blob {}\tok.rs\n",
            deep_blob.trim()
        ),
    );
    let commit = repo.git(&["commit-tree", &root, "-m", "deep"]);
    repo.git(&["tag", "deep", commit.trim()]);
    let run = repo.index(&["--rev", "deep"]);
    assert_eq!(run["stats"]["skipped"], 1, "{run}");
    let deep = repo.hit_paths("too_deep_marker", &["--rev", "deep", "--no-index"]);
    assert!(!deep.iter().any(|p| p.contains("deep.rs")), "{deep:?}");
    assert_eq!(
        repo.hit_paths("shallow_marker", &["--rev", "deep", "--no-index"])[0],
        "ok.rs"
    );
}

#[test]
fn an_index_of_a_crafted_tree_exports_and_imports() {
    let repo = TestRepo::with_files(&[("src/ok.rs", "pub fn exported_fine_marker() {}\n")]);
    std::os::unix::fs::symlink("src/ok.rs", repo.path().join("link.rs")).unwrap();
    repo.commit_all("a link");
    let blob = repo.git(&["rev-parse", "HEAD:src/ok.rs"]);
    let inner = mktree(&repo, &format!("100644 blob {}\tx.rs\n", blob.trim()));
    let root = mktree(
        &repo,
        &format!(
            "040000 tree {inner}\t..\n040000 tree {inner}\t.git\n100644 blob {}\tgood.rs\n",
            blob.trim()
        ),
    );
    let commit = repo.git(&["commit-tree", &root, "-m", "crafted"]);
    repo.git(&["tag", "evil", commit.trim()]);
    repo.index(&[]);
    repo.index(&["--rev", "evil"]);
    let tmp = tempfile::tempdir().unwrap();
    let tar = tmp.path().join("index.tar");
    repo.run_ok(&["export", tar.to_str().unwrap()], 0);
    let dev = crate::untrusted::fresh_clone(&repo);
    let out = dev.run_ok(&["import", tar.to_str().unwrap()], 0);
    assert!(out.contains("main"), "{out}");
    assert_eq!(
        dev.hit_paths("exported_fine_marker", &["--no-index"])[0],
        "src/ok.rs"
    );
}

/// Write an object of `kind` whose body is `head` then `filler` bytes of `a`, streamed into
/// `git hash-object --literally` (only git holds the bytes); its id.
pub(crate) fn huge_object(repo: &TestRepo, kind: &str, head: &str, filler: usize) -> String {
    use std::io::Write;
    let mut cmd = std::process::Command::new("git");
    cmd.args(["hash-object", "-w", "--literally", "-t", kind, "--stdin"])
        .current_dir(repo.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    crate::common::hermetic(&mut cmd, repo.path());
    let mut child = cmd.spawn().expect("git hash-object");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(head.as_bytes()).unwrap();
    let block = vec![b'a'; 1 << 20];
    for _ in 0..filler / block.len() {
        stdin.write_all(&block).unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A 64 MiB object: twice the tree bound, 64 times the commit bound.
const HUGE: usize = 64 << 20;

/// Peak memory of a plain `index --rev` of a small tree, in KiB: what a bounded read of a
/// huge object must stay near.
fn baseline_rss(repo: &TestRepo) -> u64 {
    let (out, rss) = crate::common::peak_rss_within(
        &mut repo.cmd(&["index", "--rev", "HEAD", "--json"]),
        std::time::Duration::from_secs(120),
    );
    assert!(out.status.success(), "{out:?}");
    rss
}

#[test]
fn a_huge_tree_object_is_refused_by_its_header() {
    let repo = TestRepo::with_files(&[("src/ok.rs", "pub fn fine() {}\n")]);
    let base = baseline_rss(&repo);
    let blob = repo.git(&["rev-parse", "HEAD:src/ok.rs"]);
    // Not a valid tree past its first entry: it must never be decompressed to find out.
    let huge = huge_object(&repo, "tree", "", HUGE);
    let root = mktree(
        &repo,
        &format!(
            "040000 tree {huge}\tbig\n100644 blob {}\tok.rs\n",
            blob.trim()
        ),
    );
    let commit = repo.git(&["commit-tree", &root, "-m", "huge tree"]);
    let (out, rss) = crate::common::peak_rss_within(
        &mut repo.cmd(&["index", "--rev", commit.trim()]),
        std::time::Duration::from_secs(60),
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("too large") && err.contains(&huge), "{err}");
    // Reading it whole costs 64 MiB at least.
    assert!(
        rss < base + 32 * 1024,
        "peak {rss} KiB, baseline {base} KiB"
    );
}

#[test]
fn a_tree_that_doubles_twenty_times_is_cut_not_walked() {
    let repo = TestRepo::with_files(&[("a.txt", "x\n")]);
    let blob = repo.git(&["rev-parse", "HEAD:a.txt"]);
    let mut t = mktree(&repo, &format!("100644 blob {}\tf.txt\n", blob.trim()));
    // Each tree names the one below twice: 2^20 paths from 21 tiny trees.
    for _ in 0..20 {
        t = mktree(&repo, &format!("040000 tree {t}\ta\n040000 tree {t}\tb\n"));
    }
    let commit = repo.git(&["commit-tree", &t, "-m", "doubling"]);
    let started = std::time::Instant::now();
    let (out, rss) = crate::common::peak_rss_within(
        &mut repo.cmd(&["index", "--rev", commit.trim(), "--json"]),
        std::time::Duration::from_secs(120),
    );
    let took = started.elapsed();
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the rest is left out"), "{err}");
    let run: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let files = run["stats"]["files"].as_u64().unwrap();
    assert!(files < 1 << 20, "{run}");
    // The one blob is computed once, whatever the number of paths naming it.
    assert!(run["stats"]["compute"].as_u64().unwrap() <= 1, "{run}");
    eprintln!("doubling tree: {took:?}, peak {rss} KiB, {files} files");
    assert!(rss < 300 * 1024, "peak {rss} KiB");
}

/// A partial clone (`git clone --filter=blob:limit=1m`) lacks the blobs it has not needed:
/// indexing a revision leaves such a file out, with the reason, and indexes the rest, where
/// it failed the run naming the blob as a revision. A missing tree still fails it (the test
/// above): a directory's files cannot be listed.
#[test]
fn a_blob_a_partial_clone_lacks_is_left_out_and_the_rest_indexed() {
    let repo = TestRepo::with_files(&[
        ("src/ok.rs", "pub fn present_blob_marker() {}\n"),
        ("data/big.json", "{\"absent\": \"absent_blob_marker\"}\n"),
    ]);
    let blob = repo.git(&["rev-parse", "HEAD:data/big.json"]);
    std::fs::remove_file(loose_object(&repo, blob.trim())).unwrap();
    let run = repo.index(&["--rev", "HEAD"]);
    assert_eq!(run["stats"]["skipped"], 1, "{run}");
    assert_eq!(
        repo.hit_paths("present_blob_marker", &["--rev", "HEAD", "--no-index"])[0],
        "src/ok.rs"
    );
}

/// `--rev` kept the bytes of every new blob of the tree from its listing to the end of the
/// run: a tree of many distinct blobs (a few MB packed, as deltas of each other) took
/// gigabytes. Now a blob is hashed when listed and read again when computed, so even a dry
/// run that lists 58 MB of new code stays near a small tree's memory.
#[test]
fn a_tree_of_many_new_blobs_is_not_held_in_memory() {
    let repo = TestRepo::with_files(&[("src/ok.rs", "pub fn fine() {}\n")]);
    let base = baseline_rss(&repo);
    // Written as files outside the work tree, stored by one `git hash-object -w`.
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["hash-object".to_string(), "-w".to_string()];
    for i in 0..64 {
        let mut text = String::with_capacity(950_000);
        let mut j = 0;
        while text.len() < 900_000 {
            text.push_str(&format!("let v_{i}_{j} = {j};\n"));
            j += 1;
        }
        let path = dir.path().join(format!("f{i}.rs"));
        std::fs::write(&path, text).unwrap();
        args.push(path.to_string_lossy().into_owned());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let ids = repo.git(&args);
    let lines: String = ids
        .lines()
        .enumerate()
        .map(|(i, id)| format!("100644 blob {id}\tf{i}.rs\n"))
        .collect();
    let root = mktree(&repo, &lines);
    let commit = repo.git(&["commit-tree", &root, "-m", "many blobs"]);
    let (out, rss) = crate::common::peak_rss_within(
        &mut repo.cmd(&["index", "--rev", commit.trim(), "--dry-run", "--json"]),
        std::time::Duration::from_secs(120),
    );
    assert!(out.status.success(), "{out:?}");
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(plan["stats"]["compute"], 64, "{plan}");
    // Held whole, the 64 blobs are 55 MiB.
    assert!(
        rss < base + 28 * 1024,
        "peak {rss} KiB, baseline {base} KiB"
    );
}
