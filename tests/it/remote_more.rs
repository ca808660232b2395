//! `push` and `pull`, more cases on a `file://` remote: the post-merge hook, content that
//! fails the check against this clone, a branch indexed here since its pull, a `--rev` index.

use git_codesearch::share::manifest::{key_of, Manifest};

use crate::common::fixture;
use crate::remote::Target;
use crate::untrusted::fresh_clone;

#[test]
fn the_post_merge_hook_pulls_when_a_remote_is_configured() {
    let t = Target::file();
    let ci = fixture();
    ci.index(&[]);
    t.ok(&ci, &["push"]);
    let dev = fresh_clone(&ci);
    dev.run_ok(&["hooks", "install"], 0);
    dev.git(&["config", "codesearch.remote", &t.url]);
    ci.write("src/quota.rs", "pub fn quota_exceeded_marker() {}\n");
    ci.commit_all("quota");
    ci.index(&[]);
    t.ok(&ci, &["push"]);
    dev.git(&[
        "pull",
        "-q",
        "--no-rebase",
        ci.path().to_str().unwrap(),
        "main",
    ]);
    // The hook pulls in the background: wait for this clone to record the pull.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    loop {
        let status = dev.status(&[]);
        let pulled = status["remote_branches"].as_array().is_some_and(|r| {
            r.iter()
                .any(|b| b["branch"] == "refs/heads/main" && b["pulled_at"].is_i64())
        });
        if pulled {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the hook never pulled: {status}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn content_that_fails_the_check_is_hidden_and_not_downloaded_again() {
    let t = Target::file();
    let ci = fixture();
    ci.index(&[]);
    t.ok(&ci, &["push"]);
    // A pusher claims other text for app/upload.py: a pack of its own, a manifest naming it.
    let main = "refs/heads/main";
    let v1 = t.remote.get(&key_of(main, 1), 1 << 20).unwrap().unwrap();
    let mut m = Manifest::parse(&v1, main).unwrap();
    let gz = t
        .remote
        .get(&format!("packs/{}", m.packs[0]), 1 << 30)
        .unwrap()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pack.sqlite");
    std::fs::write(
        &db,
        git_codesearch::share::manifest::gunzip(&gz, 1 << 30).unwrap(),
    )
    .unwrap();
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute(
            "UPDATE chunk_text SET content = 'def steal_tokens(): pass'
             WHERE rid IN (SELECT rid FROM chunks WHERE filepath = 'app/upload.py')",
            [],
        )
        .unwrap();
    let forged = git_codesearch::share::manifest::gzip(&std::fs::read(&db).unwrap());
    let name = git_codesearch::util::sha256_hex(&forged);
    t.remote.create(&format!("packs/{name}"), forged).unwrap();
    m.packs[0] = name;
    let read = Manifest::parse(&v1, main).unwrap();
    git_codesearch::share::remote::land_manifest(&t.remote, &m, 1, Some(read)).unwrap();

    let dev = fresh_clone(&ci);
    let out = t.ok(&dev, &["pull"]);
    assert!(out.contains("1 dropped"), "{out}");
    assert!(dev.hit_paths("steal tokens", &["--no-index"]).is_empty());
    // The next push of the branch: the dropped content is not fetched again.
    ci.write("src/quota.rs", "pub fn quota_exceeded_marker() {}\n");
    ci.commit_all("quota");
    ci.index(&[]);
    t.ok(&ci, &["push"]);
    let out = t.ok(&dev, &["pull"]);
    assert!(out.contains("downloaded 1 packs"), "{out}");
    // And this clone's next index run computes the file itself.
    let run = dev.index(&[]);
    assert_eq!(run["stats"]["compute"], 1, "{run}");
}

#[test]
fn a_branch_indexed_here_keeps_its_catalog_but_gets_the_new_contents() {
    let t = Target::file();
    let ci = fixture();
    ci.index(&[]);
    t.ok(&ci, &["push"]);
    let dev = fresh_clone(&ci);
    t.ok(&dev, &["pull"]);
    dev.index(&[]);
    ci.write("src/quota.rs", "pub fn quota_exceeded_marker() {}\n");
    ci.commit_all("quota");
    ci.index(&[]);
    t.ok(&ci, &["push"]);
    dev.git(&["fetch", "-q", ci.path().to_str().unwrap(), "main"]);
    dev.git(&["reset", "-q", "--hard", "FETCH_HEAD"]);
    let out = t.ok(&dev, &["pull"]);
    assert!(
        out.contains("kept as indexed here") && out.contains("imported 1 contents"),
        "{out}"
    );
    // This clone's own index run of the branch only tags what was pulled.
    let run = dev.index(&[]);
    assert_eq!(run["stats"]["compute"], 0, "{run}");
    assert_eq!(
        dev.hit_paths("quota exceeded marker", &["--no-index"])[0],
        "src/quota.rs"
    );
}

#[test]
fn an_index_of_a_revision_travels_under_its_commit_key() {
    let t = Target::file();
    let ci = fixture();
    let commit = ci.git(&["rev-parse", "HEAD"]).trim().to_string();
    ci.write(
        "app/upload.py",
        "def changed_after_the_commit():\n    pass\n",
    );
    ci.commit_all("later");
    ci.index(&["--rev", &commit]);
    let out = t.ok(&ci, &["push", "--all"]);
    assert!(out.contains("manifest version 1"), "{out}");
    let dev = fresh_clone(&ci);
    let out = t.ok(&dev, &["pull"]);
    assert!(out.contains(&format!("(commit {}", &commit[..10])), "{out}");
    assert_eq!(
        dev.hit_paths("retry failed uploads", &["--no-index", "--rev", &commit])[0],
        "app/upload.py"
    );
}
