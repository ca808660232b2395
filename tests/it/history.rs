//! What git history adds to search. Files that change together: a top result brings in the
//! file most often changed in the same commits on the searched branch, marked with the
//! source "history". Past commits: files changed by commits whose messages match the query,
//! marked "commits".

use crate::common::TestRepo;

/// Append a line to `path` and commit it together with the other `paths`.
fn change_together(repo: &TestRepo, paths: &[&str], n: usize) {
    for round in 0..n {
        for p in paths {
            let old = std::fs::read_to_string(repo.path().join(p)).unwrap_or_default();
            repo.write(p, format!("{old}// edit {round} of {p}\n"));
        }
        repo.commit_all(&format!("change {paths:?} {round}"));
    }
}

/// (path, sources) of each hit.
fn hits(repo: &TestRepo, query: &str, extra: &[&str]) -> Vec<(String, Vec<String>)> {
    repo.search(query, extra)
        .iter()
        .map(|h| {
            let sources = h["sources"].as_array().unwrap();
            (
                h["path"].as_str().unwrap().to_string(),
                sources
                    .iter()
                    .map(|s| s.as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect()
}

/// The paths of the hits `source` found.
fn by_source<'a>(found: &'a [(String, Vec<String>)], source: &str) -> Vec<&'a str> {
    found
        .iter()
        .filter(|(_, s)| s.iter().any(|s| s == source))
        .map(|(p, _)| p.as_str())
        .collect()
}

fn by_history(found: &[(String, Vec<String>)]) -> Vec<&str> {
    by_source(found, "history")
}

#[test]
fn a_top_result_brings_in_the_file_changed_with_it_on_this_branch_only() {
    let repo = TestRepo::new();
    // Vectors would find every file of three: what history adds is the point here.
    repo.lexical();
    repo.write("src/parser.rs", "pub fn frobnicate_widget() -> u32 { 7 }\n");
    repo.write("src/header.rs", "pub const LIMIT: usize = 64;\n");
    repo.write(
        "src/table.rs",
        "pub struct Row { pub cells: Vec<String> }\n",
    );
    repo.commit_all("start");
    repo.git(&["branch", "other"]);
    change_together(&repo, &["src/parser.rs", "src/header.rs"], 3);
    change_together(&repo, &["src/table.rs"], 2);
    repo.index(&[]);

    let found = hits(&repo, "frobnicate widget", &[]);
    assert_eq!(found[0].0, "src/parser.rs", "{found:?}");
    assert_eq!(by_history(&found), ["src/header.rs"], "{found:?}");
    // Only hybrid mode consults history, and it can be switched off.
    assert!(by_history(&hits(&repo, "frobnicate widget", &["--mode", "bm25"])).is_empty());
    repo.git(&["config", "codesearch.cochange", "false"]);
    let off = hits(&repo, "frobnicate widget", &[]);
    assert!(off.iter().all(|(p, _)| p != "src/header.rs"), "{off:?}");
    repo.git(&["config", "--unset", "codesearch.cochange"]);

    // On another branch the parser changed with the table instead: its partner follows.
    repo.git(&["checkout", "-q", "other"]);
    change_together(&repo, &["src/parser.rs", "src/table.rs"], 3);
    repo.index(&[]);
    let found = hits(&repo, "frobnicate widget", &[]);
    assert_eq!(by_history(&found), ["src/table.rs"], "{found:?}");
}

/// A shallow clone's history stops at a commit whose parent is missing: what is there is
/// used, and indexing never fails for it.
#[test]
fn a_shallow_clone_uses_the_history_it_has() {
    let origin = TestRepo::new();
    origin.write("src/parser.rs", "pub fn frobnicate_widget() -> u32 { 7 }\n");
    origin.write("src/header.rs", "pub const LIMIT: usize = 64;\n");
    origin.commit_all("start");
    change_together(&origin, &["src/parser.rs", "src/header.rs"], 4);

    let clone = TestRepo {
        dir: tempfile::tempdir().expect("tempdir"),
    };
    let url = format!("file://{}", origin.path().display());
    clone.git(&["clone", "-q", "--depth", "4", &url, "."]);
    clone.git(&["config", "codesearch.embedProvider", "none"]);
    assert_eq!(clone.git(&["rev-list", "--count", "HEAD"]).trim(), "4");
    clone.index(&[]);
    let found = hits(&clone, "frobnicate widget", &[]);
    assert_eq!(by_history(&found), ["src/header.rs"], "{found:?}");
}

/// A partner counts when it changed in at least a fifth of the head's commits: a file the
/// head changed with now and then, among many changes of its own, is left out.
#[test]
fn a_partner_must_share_a_fifth_of_the_head_s_commits() {
    let repo = TestRepo::new();
    // Vectors would find every file of three: what history adds is the point here.
    repo.lexical();
    repo.write("src/parser.rs", "pub fn frobnicate_widget() -> u32 { 7 }\n");
    repo.write("src/header.rs", "pub const LIMIT: usize = 64;\n");
    repo.commit_all("start");
    change_together(&repo, &["src/parser.rs", "src/header.rs"], 3);
    // 3 or 4 shared commits of 14: between a fifth and 30 %.
    change_together(&repo, &["src/parser.rs"], 10);
    repo.index(&[]);
    let found = hits(&repo, "frobnicate widget", &[]);
    assert_eq!(by_history(&found), ["src/header.rs"], "{found:?}");
    // 3 or 4 of 34: under a fifth.
    change_together(&repo, &["src/parser.rs"], 20);
    repo.index(&[]);
    let found = hits(&repo, "frobnicate widget", &[]);
    assert!(by_history(&found).is_empty(), "{found:?}");
}

fn by_commits(found: &[(String, Vec<String>)]) -> Vec<&str> {
    by_source(found, "commits")
}

/// A query that says what a past commit message said finds the files that commit changed,
/// even when they hold none of its words; only commits of the searched branch count, and
/// only files still on it.
#[test]
fn a_past_commit_message_brings_in_the_files_it_changed_on_this_branch_only() {
    let repo = TestRepo::new();
    repo.write(
        "src/net.rs",
        "pub fn send_packet(buf: &[u8]) -> usize { buf.len() }\n",
    );
    repo.write("src/gone.rs", "pub fn helper() -> u32 { 1 }\n");
    repo.write("src/table.rs", "pub fn render_rows() -> u32 { 2 }\n");
    repo.commit_all("start");
    repo.git(&["branch", "other"]);
    repo.write(
        "src/net.rs",
        "pub fn send_packet(buf: &[u8]) -> usize { buf.len() + 1 }\n",
    );
    repo.write("src/gone.rs", "pub fn helper() -> u32 { 2 }\n");
    repo.commit_all(
        "Handle unicode method names when sending\n\nLatin-1 verbs broke the wire format.",
    );
    repo.remove("src/gone.rs");
    repo.commit_all("drop the helper");
    repo.index(&[]);

    let issue = "Crash with unicode method names\nA verb such as PÖST makes the request fail.";
    let found = hits(&repo, issue, &[]);
    assert_eq!(by_commits(&found), ["src/net.rs"], "{found:?}");
    // Only hybrid mode reads past commits. Each list has its own weight: the whole query's
    // at 0 leaves the title's (which matches this message too), both at 0 turn them off.
    assert!(by_commits(&hits(&repo, issue, &["--mode", "bm25"])).is_empty());
    repo.git(&["config", "codesearch.weightCommits", "0"]);
    assert_eq!(by_commits(&hits(&repo, issue, &[])), ["src/net.rs"]);
    repo.git(&["config", "codesearch.weightCommitsTitle", "0"]);
    assert!(by_commits(&hits(&repo, issue, &[])).is_empty());
    repo.git(&["config", "--unset", "codesearch.weightCommits"]);
    repo.git(&["config", "--unset", "codesearch.weightCommitsTitle"]);
    // The title of a query of several lines matches the messages once more on its own.
    let score = |query: &str, title_weight: &str| {
        repo.git(&["config", "codesearch.weightCommitsTitle", title_weight]);
        let found = repo.search(query, &[]);
        let net = found.iter().find(|h| h["path"] == "src/net.rs").unwrap();
        net["score"].as_f64().unwrap()
    };
    assert!(score(issue, "0.2") > score(issue, "0"));
    let one_line = "unicode method names fail";
    assert_eq!(score(one_line, "0.2"), score(one_line, "0"));
    repo.git(&["config", "--unset", "codesearch.weightCommitsTitle"]);

    // The branch that never had the commit does not see it.
    repo.git(&["checkout", "-q", "other"]);
    repo.index(&[]);
    let found = hits(&repo, issue, &[]);
    assert!(by_commits(&found).is_empty(), "{found:?}");
    let on_main = hits(&repo, issue, &["--branch", "main"]);
    assert_eq!(by_commits(&on_main), ["src/net.rs"], "{on_main:?}");
}

/// Commit messages are history, so untrusted: each is read to its first 64 KiB (a long
/// message is a few kilobytes), whatever it holds past that.
#[test]
fn a_huge_commit_message_is_read_only_to_its_bound() {
    let repo = TestRepo::new();
    repo.write(
        "src/net.rs",
        "pub fn send_packet(buf: &[u8]) -> usize { buf.len() }\n",
    );
    repo.commit_all("start");
    repo.write(
        "src/net.rs",
        "pub fn send_packet(buf: &[u8]) -> usize { buf.len() + 1 }\n",
    );
    // Over the 128 KiB one command-line argument may hold: given as a file.
    let filler = "padding words here ".repeat(8_000);
    let message = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        message.path(),
        format!("Handle unicode method names\n\n{filler}\nzebrafish quagga okapi\n"),
    )
    .unwrap();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-F", message.path().to_str().unwrap()]);
    repo.index(&[]);
    let head = hits(&repo, "unicode method names", &[]);
    assert_eq!(by_commits(&head), ["src/net.rs"], "{head:?}");
    let tail = hits(&repo, "zebrafish quagga okapi", &[]);
    assert!(by_commits(&tail).is_empty(), "{tail:?}");
}

/// A commit object of 64 MiB as the parent of a small one, or a parent whose tree object is
/// 64 MiB: history mining reads neither (before, the parent's commit and tree were read
/// whole, past the bound the walk puts on the commits it visits).
#[test]
fn a_huge_parent_commit_or_tree_in_history_is_not_read() {
    use crate::common::peak_rss_within as peak_rss;
    use crate::rev::huge_object;
    let deadline = std::time::Duration::from_secs(120);
    for parent_kind in ["commit", "tree"] {
        let repo = TestRepo::with_files(&[("src/ok.rs", "pub fn fine() {}\n")]);
        let (first, base) = peak_rss(&mut repo.cmd(&["index", "--json"]), deadline);
        assert!(first.status.success(), "{first:?}");
        let tree = repo.git(&["rev-parse", "HEAD^{tree}"]);
        let tree = tree.trim();
        let sig = "Test <test@example.com> 1767225600 +0000";
        let parent = match parent_kind {
            "commit" => huge_object(
                &repo,
                "commit",
                &format!("tree {tree}\nauthor {sig}\ncommitter {sig}\n\n"),
                64 << 20,
            ),
            _ => {
                let huge = huge_object(&repo, "tree", "", 64 << 20);
                repo.git(&["commit-tree", &huge, "-m", "huge tree"])
            }
        };
        let child = repo.git(&["commit-tree", tree, "-p", parent.trim(), "-m", "small"]);
        repo.git(&["update-ref", "refs/heads/main", child.trim()]);
        let (out, rss) = peak_rss(&mut repo.cmd(&["index", "--json"]), deadline);
        assert!(out.status.success(), "{parent_kind}: {out:?}");
        assert!(
            rss < base + 32 * 1024,
            "{parent_kind}: peak {rss} KiB, baseline {base} KiB"
        );
    }
}
