//! `push` and `pull`, more cases on a `file://` remote: the post-merge hook, content that
//! fails the check against this clone, a branch indexed here since its pull, a `--rev` index.

use git_codesearch::share::manifest::{key_of, Manifest};

use crate::common::{fixture, peak_rss};
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
    forge_main_pack(&t, |db| {
        rusqlite::Connection::open(db)
            .unwrap()
            .execute(
                "UPDATE chunk_text SET content = 'def steal_tokens(): pass'
                 WHERE rid IN (SELECT rid FROM chunks WHERE filepath = 'app/upload.py')",
                [],
            )
            .unwrap();
    });

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

/// The newest manifest of main, parsed.
fn newest_main(t: &Target) -> (u64, Manifest) {
    let keys = t.remote.list("manifests").unwrap();
    let n = keys
        .iter()
        .filter_map(|(k, _)| git_codesearch::share::manifest::parse_key(k))
        .filter(|(b, _)| b == "refs/heads/main")
        .map(|(_, n)| n)
        .max()
        .unwrap();
    let bytes = t
        .remote
        .get(&key_of("refs/heads/main", n), 1 << 20)
        .unwrap()
        .unwrap();
    (n, Manifest::parse(&bytes, "refs/heads/main").unwrap())
}

#[test]
fn a_version_at_the_ceiling_is_ignored_and_pushes_go_on() {
    let t = Target::file();
    let ci = fixture();
    ci.index(&[]);
    t.ok(&ci, &["push"]);
    let (_, m) = newest_main(&t);
    t.remote
        .create(&key_of("refs/heads/main", u64::MAX), m.to_bytes())
        .unwrap();
    for round in ["quota_a", "quota_b"] {
        ci.write("src/quota.rs", format!("pub fn {round}_marker() {{}}\n"));
        ci.commit_all(round);
        ci.index(&[]);
        t.ok(&ci, &["push"]);
    }
    assert_eq!(newest_main(&t).0, 3);
    let dev = fresh_clone(&ci);
    assert!(t.ok(&dev, &["pull"]).contains("branches merged: main"));
    assert_eq!(
        dev.hit_paths("quota b marker", &["--no-index"])[0],
        "src/quota.rs"
    );
}

#[test]
fn an_older_version_replayed_is_refused() {
    let t = Target::file();
    let ci = fixture();
    ci.index(&[]);
    t.ok(&ci, &["push"]);
    let v1 = t
        .remote
        .get(&key_of("refs/heads/main", 1), 1 << 20)
        .unwrap()
        .unwrap();
    ci.write("src/quota.rs", "pub fn quota_exceeded_marker() {}\n");
    ci.commit_all("quota");
    ci.index(&[]);
    t.ok(&ci, &["push"]);
    let dev = fresh_clone(&ci);
    t.ok(&dev, &["pull"]);
    // Version 2 deleted: the remote's newest, 1, is older than what this clone pulled.
    let v2 = key_of("refs/heads/main", 2);
    t.remote.delete(&v2).unwrap();
    t.partial(&dev, &["pull"], "older than version 2 recorded here");
    assert_eq!(
        dev.hit_paths("quota exceeded marker", &["--no-index"])[0],
        "src/quota.rs"
    );
    // Version 1's bytes replayed as version 3: merged (its number is newer), with a warning
    // naming its older push time.
    let mut old = Manifest::parse(&v1, "refs/heads/main").unwrap();
    old.pushed_at -= 10;
    t.remote
        .create(&key_of("refs/heads/main", 3), old.to_bytes())
        .unwrap();
    let out = t.run(&dev, &["pull"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && err.contains("before the version recorded here"),
        "{err}"
    );
}

#[test]
fn a_bogus_pack_claim_is_not_copied_forward() {
    let t = Target::file();
    let ci = fixture();
    ci.index(&[]);
    t.ok(&ci, &["push"]);
    // A bucket writer lands version 2: app/upload.py's content in an empty pack of its own.
    let (n, mut m) = newest_main(&t);
    let base = m.clone();
    let pack = git_codesearch::share::manifest::gzip(b"not a pack at all");
    let name = git_codesearch::util::sha256_hex(&pack);
    t.remote.create(&format!("packs/{name}"), pack).unwrap();
    m.packs.push(name);
    let i = m
        .files
        .iter()
        .position(|e| e.path == "app/upload.py")
        .unwrap();
    m.files[i].pack = Some(m.packs.len() - 1);
    git_codesearch::share::remote::land_manifest(&t.remote, &m, n, Some(base)).unwrap();
    // Another clone indexes and pushes: its manifest names only packs it uploaded or
    // checked, never the bogus claim.
    let other = fresh_clone(&ci);
    other.write("src/quota.rs", "pub fn quota_exceeded_marker() {}\n");
    other.commit_all("quota");
    other.index(&[]);
    t.ok(&other, &["push"]);
    let (_, mine) = newest_main(&t);
    let e = mine
        .files
        .iter()
        .find(|e| e.path == "app/upload.py")
        .unwrap();
    assert_ne!(mine.pack_of(e), Some(m.packs.last().unwrap().as_str()));
    let dev = fresh_clone(&other);
    let out = t.ok(&dev, &["pull"]);
    assert!(out.contains("branches merged: main"), "{out}");
    assert_eq!(
        dev.hit_paths("retry failed uploads", &["--no-index"])[0],
        "app/upload.py"
    );
}

#[test]
fn a_detached_key_with_a_revision_expression_is_not_a_branch() {
    let t = Target::file();
    let ci = fixture();
    ci.index(&[]);
    t.ok(&ci, &["push"]);
    let (_, mut m) = newest_main(&t);
    m.branch = "detached/HEAD~1".into();
    t.remote
        .create(&key_of("detached/HEAD~1", 1), m.to_bytes())
        .unwrap();
    let dev = fresh_clone(&ci);
    let out = t.ok(&dev, &["pull"]);
    assert!(out.contains("branches merged: main;"), "{out}");
    let status = dev.run_ok(&["status"], 0);
    assert!(!status.contains("HEAD~1"), "{status}");
}

#[test]
fn a_stale_scratch_directory_is_removed_by_the_next_pull() {
    let (t, _ci, dev) = crate::remote::pushed_and_cloned();
    // What a pull killed mid-way leaves: its scratch directory, named by its process.
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let pid = gone.id();
    gone.wait().unwrap();
    let index = dev.path().join(".git/codesearch");
    let stale = index.join(format!(".pull-{pid}-x1y2z3"));
    std::fs::create_dir_all(stale.join("inner")).unwrap();
    std::fs::write(stale.join("pack-0.sqlite"), vec![0u8; 4096]).unwrap();
    t.ok(&dev, &["pull"]);
    assert!(!stale.exists());
    let left: Vec<_> = std::fs::read_dir(&index)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".pull-") || n.starts_with(".push-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Gzip what `write` writes, streamed (the test never holds what it unpacks to).
fn gzip_with(write: impl FnOnce(&mut dyn std::io::Write)) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    write(&mut enc);
    enc.finish().unwrap()
}

#[test]
fn a_hostile_remote_is_pulled_within_bounds() {
    use git_codesearch::share::manifest::MAX_ENTRIES;
    let t = Target::file();
    let ci = fixture();
    ci.index(&[]);
    t.ok(&ci, &["push"]);
    let (_, m) = newest_main(&t);
    // A manifest of more entries than one manifest may hold (tiny ones: skipped, no pack).
    let huge = gzip_with(|w| {
        w.write_all(
            br#"{"format":1,"branch":"refs/heads/huge","pushed_at":1,"packs":[],"files":["#,
        )
        .unwrap();
        for i in 0..=MAX_ENTRIES {
            let sep = if i == 0 { "" } else { "," };
            write!(w, r#"{sep}{{"p":"d/{i}","h":"","s":1,"k":"x"}}"#).unwrap();
        }
        w.write_all(b"]}").unwrap();
    });
    t.remote
        .create(&key_of("refs/heads/huge", 1), huge)
        .unwrap();
    // A gzip bomb: 64 MiB of zeros, named as the pack of one content declared 1 KiB.
    let bomb = gzip_with(|w| {
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..64 {
            w.write_all(&zeros).unwrap();
        }
    });
    let name = git_codesearch::util::sha256_hex(&bomb);
    t.remote.create(&format!("packs/{name}"), bomb).unwrap();
    let mut b = m.clone();
    b.branch = "refs/heads/bomb".into();
    b.packs = vec![name];
    b.files.truncate(1);
    b.files[0].hash = "e".repeat(64);
    b.files[0].size = 1024;
    b.files[0].pack = Some(0);
    t.remote
        .create(&key_of("refs/heads/bomb", 1), b.to_bytes())
        .unwrap();

    let dev = fresh_clone(&ci);
    let (out, rss) = peak_rss(&mut t.cmd(&dev, &["pull", &t.url]));
    let err = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(stdout.contains("branches merged: main;"), "{stdout}");
    assert!(
        err.contains("huge: not pulled")
            && err.contains(&format!("more than {MAX_ENTRIES} entries")),
        "{err}"
    );
    // It stopped at a bound of a few times what the manifest declares, not at 64 MiB.
    let bound = git_codesearch::share::fetch::unpack_bound(1024);
    assert!(bound < 2 << 20, "{bound}");
    assert!(
        err.contains("bomb: not pulled")
            && err.contains(&format!("unpacks to more than {bound} bytes")),
        "{err}"
    );
    assert!(!err.contains("doctor"), "{err}");
    assert!(rss < 300 * 1024, "peak RSS {rss} KiB");
    eprintln!("hostile pull: peak RSS {rss} KiB");
    assert_eq!(
        crate::remote::pull_scratch(&dev.path().join(".git/codesearch")),
        0
    );
}

#[test]
fn a_prefix_with_tilde_hash_and_percent_round_trips() {
    for t in [Target::file_at("re~mo#te%20x"), Target::s3_at("a~b/c#d%e")] {
        let ci = fixture();
        ci.index(&[]);
        assert!(t.ok(&ci, &["push"]).contains("manifest version 1"));
        let dev = fresh_clone(&ci);
        let out = t.ok(&dev, &["pull"]);
        assert!(out.contains("branches merged: main"), "{}: {out}", t.url);
        let keys = t.remote.list("manifests").unwrap();
        assert!(!keys.is_empty());
        for (key, _) in keys {
            assert!(
                git_codesearch::share::manifest::parse_key(&key).is_some(),
                "{key}"
            );
        }
    }
}

#[test]
fn a_file_remote_never_follows_a_link_inside_it() {
    let t = Target::file();
    let root = std::path::PathBuf::from(t.url.strip_prefix("file://").unwrap());
    let victim = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(victim.path(), root.join("packs")).unwrap();
    let ci = fixture();
    ci.index(&[]);
    let out = t.run(&ci, &["push"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read_dir(victim.path()).unwrap().count(), 0);
    // Manifests reached only through a link are not read either.
    let elsewhere = Target::file();
    elsewhere.ok(&ci, &["push"]);
    let there = elsewhere.url.strip_prefix("file://").unwrap();
    std::os::unix::fs::symlink(format!("{there}/manifests"), root.join("manifests")).unwrap();
    let dev = fresh_clone(&ci);
    let out = t.ok(&dev, &["pull"]);
    assert!(out.contains("branches merged: none"), "{out}");
    assert!(t.remote.list("").unwrap().is_empty());
}

#[test]
fn a_committed_backslash_name_is_not_pushed() {
    let t = Target::file();
    let ci = fixture();
    ci.write("..\\..\\SETUP.md", "setup decoy marker text\n");
    ci.commit_all("a name with backslashes");
    ci.index(&[]);
    t.ok(&ci, &["push"]);
    let (_, m) = newest_main(&t);
    assert!(
        m.files
            .iter()
            .all(|e| git_codesearch::util::is_safe_rel_path(&e.path)),
        "{:?}",
        m.files
    );
    let dev = fresh_clone(&ci);
    assert!(t.ok(&dev, &["pull"]).contains("branches merged: main"));
    ci.write("src/quota.rs", "pub fn quota_exceeded_marker() {}\n");
    ci.commit_all("quota");
    ci.index(&[]);
    t.ok(&ci, &["push"]);
}

/// Forge version 2 of main's manifest on `t`: its first pack, altered by `alter` (given the
/// unpacked SQLite file), uploaded under its own (correct) hash, and a manifest naming it.
pub(crate) fn forge_main_pack(t: &Target, alter: impl FnOnce(&std::path::Path)) {
    use git_codesearch::share::manifest::{gunzip, gzip};
    forge_main_pack_bytes(t, |gz| {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("pack.sqlite");
        std::fs::write(&db, gunzip(&gz, 1 << 30).unwrap()).unwrap();
        alter(&db);
        gzip(&std::fs::read(&db).unwrap())
    });
}

/// [`forge_main_pack`] on the pack's stored (gzip) bytes: `alter` gives the bytes to upload.
pub(crate) fn forge_main_pack_bytes(t: &Target, alter: impl FnOnce(Vec<u8>) -> Vec<u8>) {
    let main = "refs/heads/main";
    let v1 = t.remote.get(&key_of(main, 1), 1 << 20).unwrap().unwrap();
    let mut m = Manifest::parse(&v1, main).unwrap();
    let gz = t
        .remote
        .get(&format!("packs/{}", m.packs[0]), 1 << 30)
        .unwrap()
        .unwrap();
    let forged = alter(gz);
    let name = git_codesearch::util::sha256_hex(&forged);
    t.remote.create(&format!("packs/{name}"), forged).unwrap();
    m.packs[0] = name;
    let read = Manifest::parse(&v1, main).unwrap();
    git_codesearch::share::remote::land_manifest(&t.remote, &m, 1, Some(read)).unwrap();
}
