//! `push` and `pull` seen from other clones: a clone on a branch of its own, credentials in
//! every error, and the vectors a pull leaves to embed.

use crate::common::fixture;
use crate::remote::{feature_branch, no_secret, Target};
use crate::s3server::SECRET;
use crate::untrusted::fresh_clone;

#[test]
fn a_pull_into_a_clone_on_another_branch_hides_what_it_cannot_check() {
    let t = Target::file();
    let ci = fixture();
    ci.index(&[]);
    feature_branch(&ci);
    t.ok(&ci, &["push", "--all"]);
    // The developer has main only, and works on a branch of their own.
    let dev = fresh_clone(&ci);
    dev.git(&["checkout", "-q", "-b", "topic"]);
    let out = t.ok(&dev, &["pull"]);
    assert!(out.contains("branches merged: feature, main"), "{out}");
    // The feature's new file is not in this clone: its chunks are not shown as code.
    assert!(out.contains("1 not checkable yet"), "{out}");
    assert!(dev
        .hit_paths(
            "feature flag marker",
            &["--no-index", "--branch", "feature"]
        )
        .iter()
        .all(|p| p != "feature/flag.py"));
    // The topic branch's first index run finds everything known.
    let run = dev.index(&[]);
    assert_eq!(run["stats"]["compute"], 0, "{run}");
}

#[test]
fn credentials_are_never_printed_even_in_errors() {
    let dev = fixture();
    dev.index(&[]);
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let run = |url: &str, env: &[(&str, String)]| {
        let mut cmd = dev.cmd(&["push", url]);
        cmd.env("AWS_SECRET_ACCESS_KEY", SECRET)
            .env("AWS_ACCESS_KEY_ID", "testing")
            .env("GIT_CODESEARCH_TRACE", "debug");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        no_secret(&out);
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let env = [
        ("AWS_ENDPOINT", format!("http://127.0.0.1:{port}")),
        ("AWS_ALLOW_HTTP", "true".into()),
        ("AWS_REGION", "us-east-1".into()),
    ];
    let err = run("s3://bucket/prefix", &env);
    assert!(err.contains("s3://bucket/prefix"), "{err}");
    let err = run(&format!("s3://testing:{SECRET}@bucket/prefix"), &env);
    assert!(
        err.contains("credentials") && err.contains("***@bucket"),
        "{err}"
    );
    // And against a real server, with every trace on.
    let t = Target::s3();
    let mut cmd = t.cmd(&dev, &["push", &t.url]);
    let out = cmd.env("GIT_CODESEARCH_TRACE", "debug").output().unwrap();
    no_secret(&out);
    assert!(out.status.success(), "{out:?}");
}

/// Vectors never travel: a pull into a fresh clone with the default (static vectors) starts
/// embedding what the checked-out branch now lacks, in the background as `index` does.
#[test]
fn a_pull_embeds_the_pulled_branch_in_the_background() {
    let t = Target::file();
    let ci = fixture();
    ci.index(&[]);
    t.ok(&ci, &["push"]);
    let dev = fresh_clone(&ci);
    let out = t
        .cmd(&dev, &["pull", &t.url])
        .env_remove("GIT_CODESEARCH_BACKGROUND")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("files in the background"), "{text}");
    crate::vectors::wait_until_embedded(&dev, None);
}

/// The post-merge hook starts a pull in the background on every `git pull`; a pull the
/// remote keeps busy must not have the next ones start beside it, each with scratch space of
/// its own. A second pull leaves at once, names why, and touches nothing.
#[test]
fn a_pull_while_another_runs_leaves_at_once() {
    let (t, _ci, dev) = crate::remote::pushed_and_cloned();
    let index = dev.path().join(".git/codesearch");
    let held = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(index.join("pull.lock"))
        .unwrap();
    held.try_lock().unwrap();
    let out = t.run(&dev, &["pull"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("another pull into the index"), "{err}");
    assert_eq!(crate::remote::pull_scratch(&index), 0);
    // Once the first is done, a pull runs.
    drop(held);
    let out = t.ok(&dev, &["pull"]);
    assert!(out.starts_with("pulled from "), "{out}");
}

/// Manifests refused once read (not gzip) were read whole on every pull and charged to the
/// pull's budget only when they parsed: a bucket of many large ones cost each `git pull`
/// (through the hook) all of them. Each is now charged before it is parsed, and read only
/// within what the budget leaves.
#[test]
fn manifests_refused_once_read_spend_the_pulls_budget() {
    use git_codesearch::share::manifest::key_of;
    let t = Target::file();
    let ci = fixture();
    ci.index(&[]);
    t.ok(&ci, &["push"]);
    // Eight branches (after `main` in the listing's order), each a 256 KiB manifest.
    for i in 0..8u32 {
        let junk: Vec<u8> = (0..256 * 1024u32)
            .map(|j| (j.wrapping_mul(7) ^ i) as u8)
            .collect();
        t.remote
            .create(&key_of(&format!("refs/heads/zz-junk{i}"), 1), junk)
            .unwrap();
    }
    let dev = fresh_clone(&ci);
    let out = t
        .cmd(&dev, &["pull", &t.url])
        .env("GIT_CODESEARCH_TEST_PULL_MANIFEST_BYTES", "655360")
        .output()
        .unwrap();
    let (stdout, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{err}");
    assert!(stdout.contains("branches merged: main;"), "{stdout}");
    assert!(err.contains("pull budget exceeded"), "{err}");
    // What came: main's manifest and packs and at most the 640 KiB budget of junk, where
    // all eight (2,048 KiB) came before.
    let kib: f64 = stdout
        .split("packs, ")
        .nth(1)
        .and_then(|s| s.split(" KiB").next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(kib < 1000.0, "{stdout}");
}

/// A pack padded with gzip's empty stored blocks (five bytes each that unpack to nothing)
/// hashes to its name, unpacks to what it declares and passed every check: a remote could
/// make each pull download a gigabyte for a pack of kilobytes. Its stored size is now
/// bounded by what it may unpack to.
#[test]
fn a_pack_padded_past_what_it_holds_is_refused_unread() {
    let t = Target::file();
    let ci = fixture();
    ci.index(&[]);
    t.ok(&ci, &["push"]);
    crate::remote_more::forge_main_pack_bytes(&t, |gz| {
        // gzip's 10-byte header (no optional fields), then the deflate stream: empty stored
        // blocks before it keep it valid.
        assert_eq!(gz[3], 0, "gzip flags");
        let mut padded = gz[..10].to_vec();
        for _ in 0..600_000 {
            padded.extend_from_slice(&[0, 0, 0, 0xff, 0xff]);
        }
        padded.extend_from_slice(&gz[10..]);
        padded
    });
    let dev = fresh_clone(&ci);
    let out = t.run(&dev, &["pull"]);
    let (stdout, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{err}");
    assert!(err.contains("main: not pulled"), "{err}");
    assert!(err.contains("more than the"), "{err}");
}
