//! `push` and `pull` through object storage: against a `file://` remote and a real
//! S3-compatible server (`moto_server` on 127.0.0.1, see `s3server`), the same scenarios.
//! Every command runs with AWS_SECRET_ACCESS_KEY set to a marker that must never be printed.

use std::collections::BTreeMap;
use std::process::{Command, Output};

use git_codesearch::share::client::Remote;
use git_codesearch::share::manifest::{key_of, Manifest};

use crate::common::{fixture, TestRepo, UPLOAD_PY};
use crate::s3server::{S3Server, SECRET};
use crate::untrusted::fresh_clone;

/// A remote under test: its URL, the environment that reaches it, and the tests' own handle
/// on its objects.
pub(crate) struct Target {
    pub(crate) url: String,
    env: Vec<(&'static str, String)>,
    pub(crate) remote: Remote,
    _dir: Option<tempfile::TempDir>,
    _server: Option<S3Server>,
}

/// A fixture indexed and pushed to a new `file://` remote, and a fresh clone of it with an
/// index of its own: the start of most pull tests.
pub(crate) fn pushed_and_cloned() -> (Target, TestRepo, TestRepo) {
    let t = Target::file();
    let ci = fixture();
    ci.index(&[]);
    t.ok(&ci, &["push"]);
    let dev = fresh_clone(&ci);
    dev.index(&[]);
    (t, ci, dev)
}

/// Scratch directories of pulls left in the index directory `index`.
pub(crate) fn pull_scratch(index: &std::path::Path) -> usize {
    std::fs::read_dir(index)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".pull-"))
        .count()
}

impl Target {
    pub(crate) fn file() -> Target {
        Target::file_at("remote")
    }

    /// A `file://` remote in the directory `name` of a new temporary directory.
    pub(crate) fn file_at(name: &str) -> Target {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("file://{}/{name}", dir.path().display());
        Target {
            remote: Remote::open(&url).unwrap(),
            url,
            env: vec![("AWS_SECRET_ACCESS_KEY", SECRET.into())],
            _dir: Some(dir),
            _server: None,
        }
    }

    pub(crate) fn s3() -> Target {
        Target::s3_at("ci/idx")
    }

    /// A remote on a new S3 server, under `prefix` of its bucket.
    pub(crate) fn s3_at(prefix: &str) -> Target {
        let server = S3Server::start("team-index");
        let url = format!("s3://team-index/{prefix}");
        let opts = server.options();
        let opts: Vec<(&str, &str)> = opts.iter().map(|(k, v)| (*k, v.as_str())).collect();
        Target {
            remote: Remote::open_with(&url, &opts).unwrap(),
            url,
            env: server.env(),
            _dir: None,
            _server: Some(server),
        }
    }

    /// `git-codesearch ARGS` in `repo` with this remote's environment.
    pub(crate) fn cmd(&self, repo: &TestRepo, args: &[&str]) -> Command {
        let mut cmd = repo.cmd(args);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }

    /// Run `push`/`pull` ARGS... with the remote's URL; the secret is never printed.
    pub(crate) fn run(&self, repo: &TestRepo, args: &[&str]) -> Output {
        let mut all = args.to_vec();
        all.push(&self.url);
        let out = self.cmd(repo, &all).output().unwrap();
        no_secret(&out);
        out
    }

    pub(crate) fn ok(&self, repo: &TestRepo, args: &[&str]) -> String {
        let out = self.run(repo, args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A failing run: exit 2, stderr says `says` and has a hint.
    #[allow(dead_code)] // for the other files' scenarios
    pub(crate) fn fails(&self, repo: &TestRepo, args: &[&str], says: &str) {
        let out = self.run(repo, args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(says) && err.contains("hint:"), "{err}");
    }

    /// A pull that pulls what it can: exit 1, stderr says `says` (what was not pulled) with
    /// a hint that does not send the user to repair a healthy index; its stdout.
    pub(crate) fn partial(&self, repo: &TestRepo, args: &[&str], says: &str) -> String {
        let out = self.run(repo, args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(says) && err.contains("hint:"), "{err}");
        assert!(!err.contains("doctor"), "{err}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Every object on the remote: key -> size.
    pub(crate) fn objects(&self) -> BTreeMap<String, u64> {
        self.remote.list("").unwrap().into_iter().collect()
    }

    pub(crate) fn packs(&self) -> Vec<String> {
        let keys = self.objects().into_keys();
        keys.filter(|k| k.starts_with("packs/")).collect()
    }
}

/// Fails the test if a command printed the secret key.
pub(crate) fn no_secret(out: &Output) {
    for text in [&out.stdout, &out.stderr] {
        assert!(
            !String::from_utf8_lossy(text).contains(SECRET),
            "the secret was printed: {}",
            String::from_utf8_lossy(text)
        );
    }
}

fn branches(repo: &TestRepo) -> Vec<String> {
    let status = repo.status(&[]);
    let names = status["branches"].as_array().unwrap();
    names
        .iter()
        .map(|b| b.as_str().unwrap().to_string())
        .collect()
}

/// Check out a new branch `feature` in `repo` with one new file, and index it.
pub(crate) fn feature_branch(repo: &TestRepo) {
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write(
        "feature/flag.py",
        "def feature_flag_marker():\n    return True\n",
    );
    repo.commit_all("feature");
    repo.index(&[]);
}

fn first_push_and_pull(t: &Target) {
    let ci = fixture();
    ci.index(&[]);
    assert!(t.ok(&ci, &["push"]).contains("manifest version 1"));
    let first = t.objects();
    assert!(first.len() >= 2, "{first:?}");
    // Nothing new: nothing moves.
    let out = t.ok(&ci, &["push"]);
    assert!(
        out.contains("up to date") && out.contains("uploaded 0 packs"),
        "{out}"
    );
    assert_eq!(t.objects(), first);

    // A fresh clone, the remote from git config: searchable at once, without indexing.
    let dev = fresh_clone(&ci);
    dev.git(&["config", "codesearch.remote", &t.url]);
    let mut pull = t.cmd(&dev, &["pull"]).output().unwrap();
    no_secret(&pull);
    let out = String::from_utf8_lossy(&pull.stdout).into_owned();
    assert!(out.contains("branches merged: main"), "{out}");
    assert_eq!(
        dev.hit_paths("retry failed uploads", &["--no-index"])[0],
        "app/upload.py"
    );
    let status = dev.run_ok(&["status"], 0);
    assert!(
        status.contains("remote ") && status.contains("pulled here 20"),
        "{status}"
    );
    pull = t.cmd(&dev, &["pull"]).output().unwrap();
    assert!(String::from_utf8_lossy(&pull.stdout).contains("downloaded 0 packs"));
    // Everything pulled was checked against this clone's blobs: the first run only hashes.
    let run = dev.index(&[]);
    assert_eq!(run["stats"]["compute"], 0, "{run}");
    assert_eq!(dev.run(&["doctor"]).status.code(), Some(0));
}

fn incremental(t: &Target) {
    let ci = fixture();
    ci.index(&[]);
    t.ok(&ci, &["push"]);
    let dev = fresh_clone(&ci);
    t.ok(&dev, &["pull"]);
    let before = t.objects();
    let first_bytes: u64 = before.values().sum();

    ci.write(
        "app/upload.py",
        format!("{UPLOAD_PY}\ndef resume_partial_upload_marker():\n    return 2\n"),
    );
    ci.write(
        "src/quota.rs",
        "pub fn quota_exceeded_marker() -> bool {\n    true\n}\n",
    );
    ci.commit_all("change two files");
    ci.index(&[]);
    let out = t.ok(&ci, &["push"]);
    assert!(out.contains("uploaded 1 packs (2 contents)"), "{out}");
    let after = t.objects();
    let new: Vec<(&String, &u64)> = after
        .iter()
        .filter(|(k, _)| !before.contains_key(*k))
        .collect();
    assert_eq!(new.len(), 2, "one pack and one manifest version: {new:?}");
    let new_bytes: u64 = new.iter().map(|(_, s)| **s).sum();
    assert!(new_bytes < first_bytes, "{new_bytes} of {first_bytes}");

    // The developer pulls the commits, then the index: one pack, checked, searchable.
    dev.git(&["fetch", "-q", ci.path().to_str().unwrap(), "main"]);
    dev.git(&["reset", "-q", "--hard", "FETCH_HEAD"]);
    let out = t.ok(&dev, &["pull"]);
    assert!(
        out.contains("downloaded 1 packs") && out.contains("2 verified"),
        "{out}"
    );
    assert_eq!(
        dev.hit_paths("quota exceeded marker", &["--no-index"])[0],
        "src/quota.rs"
    );
}

fn concurrent(t: &Target) {
    let ci = fixture();
    ci.index(&[]);
    let other = fresh_clone(&ci);
    feature_branch(&other);
    let mut a = t.cmd(&ci, &["push", &t.url]).output();
    let b = std::thread::scope(|s| {
        let b = s.spawn(|| t.cmd(&other, &["push", &t.url]).output().unwrap());
        a = t.cmd(&ci, &["push", &t.url]).output();
        b.join().unwrap()
    });
    let a = a.unwrap();
    assert!(a.status.success() && b.status.success(), "{a:?} {b:?}");
    let dev = fresh_clone(&ci);
    let out = t.ok(&dev, &["pull"]);
    assert!(out.contains("branches merged: feature, main"), "{out}");

    // A pusher of main that read before another push landed: its version goes after it,
    // and the version that landed is untouched.
    let v1 = t
        .remote
        .get(&key_of("refs/heads/main", 1), 1 << 20)
        .unwrap()
        .unwrap();
    let mut mine = Manifest::parse(&v1, "refs/heads/main").unwrap();
    mine.files.retain(|e| e.path != "README.md");
    let landed = git_codesearch::share::remote::land_manifest(&t.remote, &mine, 0, None).unwrap();
    assert_eq!(landed, Some(2));
    let again = t
        .remote
        .get(&key_of("refs/heads/main", 1), 1 << 20)
        .unwrap()
        .unwrap();
    assert_eq!(again, v1);
}

fn tampered(t: &Target) {
    let ci = fixture();
    ci.index(&[]);
    t.ok(&ci, &["push"]);
    let pack = &t.packs()[0];
    let mut bytes = t.remote.get(pack, 1 << 30).unwrap().unwrap();
    let last = bytes.len() - 9;
    bytes[last] ^= 0x55;
    t.remote.delete(pack).unwrap();
    t.remote.create(pack, bytes).unwrap();
    let dev = fresh_clone(&ci);
    t.partial(&dev, &["pull"], "not to its name");
    assert!(branches(&dev).is_empty());
}

/// A manifest of `branch` at version `n` whose first path climbs out of the work tree,
/// written as a bucket writer could.
fn land_climbing(t: &Target, branch: &str, n: u64) {
    let v1 = t
        .remote
        .get(&key_of("refs/heads/main", 1), 1 << 20)
        .unwrap()
        .unwrap();
    let mut m = Manifest::parse(&v1, "refs/heads/main").unwrap();
    m.branch = branch.into();
    m.files[0].path = "../../x".into();
    t.remote.create(&key_of(branch, n), m.to_bytes()).unwrap();
}

fn bad_branch(t: &Target) {
    let ci = fixture();
    ci.index(&[]);
    t.ok(&ci, &["push"]);
    land_climbing(t, "refs/heads/evil", 1);
    let dev = fresh_clone(&ci);
    let out = t.partial(&dev, &["pull"], "evil: not pulled");
    assert!(out.contains("branches merged: main"), "{out}");
    assert_eq!(
        dev.hit_paths("retry failed uploads", &["--no-index"])[0],
        "app/upload.py"
    );
    // A push of main whose newest version is bad supersedes it, and the pull goes on.
    land_climbing(t, "refs/heads/main", 2);
    ci.write("src/quota.rs", "pub fn quota_exceeded_marker() {}\n");
    ci.commit_all("quota");
    ci.index(&[]);
    let out = t.run(&ci, &["push", "--all"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("supersedes"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("manifest version 3"));
    dev.git(&["fetch", "-q", ci.path().to_str().unwrap(), "main"]);
    dev.git(&["reset", "-q", "--hard", "FETCH_HEAD"]);
    let out = t.partial(&dev, &["pull"], "evil: not pulled");
    assert!(out.contains("branches merged: main"), "{out}");
}

/// A file this clone never committed (a local note with a credential) is never uploaded,
/// nor a tracked file's uncommitted text.
fn untracked(t: &Target) {
    let ci = fixture();
    ci.write(
        "notes/local-credentials.txt",
        format!("aws_secret={SECRET}\n"),
    );
    ci.write("app/upload.py", format!("{UPLOAD_PY}\n# draft_{SECRET}\n"));
    ci.index(&[]);
    let out = t.ok(&ci, &["push"]);
    assert!(out.contains("left out 2 files"), "{out}");
    for key in t.objects().into_keys() {
        let gz = t.remote.get(&key, 1 << 30).unwrap().unwrap();
        let bytes = git_codesearch::share::manifest::gunzip(&gz, 1 << 30).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(SECRET), "{key} carries the secret");
        assert!(!text.contains("local-credentials"), "{key} names the note");
    }
    assert!(t
        .ok(&fresh_clone(&ci), &["pull"])
        .contains("branches merged: main"));
}

/// One test per remote kind for a scenario: `file_NAME` and `s3_NAME`.
macro_rules! on_both {
    ($($scenario:ident => $file:ident, $s3:ident;)+) => {$(
        #[test]
        fn $file() {
            $scenario(&Target::file());
        }
        #[test]
        fn $s3() {
            $scenario(&Target::s3());
        }
    )+};
}

on_both! {
    first_push_and_pull => file_first_push_and_pull_then_search_at_once,
        s3_first_push_and_pull_then_search_at_once;
    incremental => file_an_incremental_push_moves_only_the_new_pack,
        s3_an_incremental_push_moves_only_the_new_pack;
    concurrent => file_concurrent_pushes_both_land, s3_concurrent_pushes_both_land;
    tampered => file_a_tampered_pack_is_refused_by_its_hash,
        s3_a_tampered_pack_is_refused_by_its_hash;
    bad_branch => file_one_bad_branch_is_reported_and_the_others_pulled,
        s3_one_bad_branch_is_reported_and_the_others_pulled;
    untracked => file_push_never_uploads_an_untracked_file,
        s3_push_never_uploads_an_untracked_file;
}

#[test]
fn a_manifest_naming_a_missing_pack_fails_and_changes_nothing() {
    let (t, ci, dev) = pushed_and_cloned();
    let before = dev.status(&[]);
    // A second branch whose new content is in a pack that is then lost.
    feature_branch(&ci);
    let packs = t.packs();
    t.ok(&ci, &["push"]);
    let new: Vec<String> = t
        .packs()
        .into_iter()
        .filter(|p| !packs.contains(p))
        .collect();
    t.remote.delete(&new[0]).unwrap();
    // That branch fails, and nothing changes for it; main is as this clone has it.
    let out = t.partial(&dev, &["pull"], "feature: not pulled");
    assert!(!out.contains("branches merged: feature"), "{out}");
    let after = dev.status(&[]);
    assert_eq!(after["branches"], before["branches"], "{after}");
}

#[test]
fn a_push_killed_midway_leaves_the_remote_readable_and_the_next_push_finishes() {
    let t = Target::file();
    let ci = fixture();
    ci.index(&[]);
    // One content per pack; the push stops at its first local write (recording the first
    // pack it uploaded) while the test holds the database, and is killed there.
    let hold = ci.hold_writes();
    let mut push = t.cmd(&ci, &["push", &t.url]);
    let mut child = push.env("GIT_CODESEARCH_PACK_BYTES", "1").spawn().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    while t.packs().is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "no pack was ever uploaded"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    drop(hold);
    assert!(!t.objects().keys().any(|k| k.starts_with("manifests/")));
    let dev = fresh_clone(&ci);
    assert!(t.ok(&dev, &["pull"]).contains("branches merged: none"));

    let mut again = t.cmd(&ci, &["push", &t.url]);
    let out = again
        .env("GIT_CODESEARCH_PACK_BYTES", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("manifest version 1"));
    assert!(t.ok(&dev, &["pull"]).contains("branches merged: main"));
    assert_eq!(
        dev.hit_paths("retry failed uploads", &["--no-index"])[0],
        "app/upload.py"
    );
}
