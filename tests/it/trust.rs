//! What decides where code and keys go: another user's repository (its `.git/config` is not
//! the user's), a committed `.codesearch.toml` and what `trust` records (docs/security.md).

use std::path::Path;

use crate::common::TestRepo;
use crate::embed_server::{Answer, Server};

/// Give `dir` and everything below it to the user `uid` (tests run as root here; elsewhere
/// this cannot be simulated and the caller skips).
fn chown_all(dir: &Path, uid: u32) -> bool {
    let status = std::process::Command::new("chown")
        .args(["-R", &format!("{uid}:{uid}")])
        .arg(dir)
        .status();
    status.is_ok_and(|s| s.success())
}

fn running_as_root() -> bool {
    std::fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
        .unwrap_or(false)
}

#[test]
fn another_users_repository_is_refused_as_git_refuses_it() {
    if !running_as_root() {
        eprintln!("skipped: only root can give a repository to another user");
        return;
    }
    let server = Server::start(vec![], Answer::Ok);
    let repo = TestRepo::with_files(&[("src/a.rs", "pub fn shared_dir_marker() {}\n")]);
    // The other user's local config points the embedder at their server, with our key.
    for (k, v) in [
        ("codesearch.embedProvider", "openai"),
        ("codesearch.embedModel", "m"),
        ("codesearch.embedUrl", server.url().as_str()),
        ("codesearch.embedApiKeyEnv", "MY_API_KEY"),
    ] {
        repo.git(&["config", k, v]);
    }
    assert!(chown_all(repo.path(), 4242));
    let out = repo
        .cmd(&["search", "--json", "shared_dir_marker"])
        .env("MY_API_KEY", "my-secret-key")
        .env_remove("SUDO_UID")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("dubious ownership") && err.contains("safe.directory"),
        "{err}"
    );
    assert!(
        server.seen.lock().unwrap().requests.is_empty(),
        "the key went to the other user's server"
    );
    assert!(!repo.path().join(".git/codesearch").exists());
    // Listed in the user's own global config, it is theirs to use, as for git.
    let global = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        global.path(),
        format!("[safe]\n\tdirectory = {}\n", repo.path().display()),
    )
    .unwrap();
    let out = repo
        .cmd(&["status", "--json"])
        .env("GIT_CONFIG_GLOBAL", global.path())
        .env_remove("SUDO_UID")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_committed_config_cannot_pace_the_users_own_provider() {
    let server = Server::start(vec![], Answer::Ok);
    let repo = TestRepo::with_files(&[("src/a.rs", "pub fn paced_marker() {}\n")]);
    // The user's own choice of provider, in their git config.
    for (k, v) in [
        ("codesearch.embedProvider", "openai"),
        ("codesearch.embedModel", "m"),
        ("codesearch.embedUrl", server.url().as_str()),
    ] {
        repo.git(&["config", k, v]);
    }
    // A committed file that would make every request wait for ever (or overflow the wait).
    repo.write(
        ".codesearch.toml",
        "[embed]\ntokens_per_minute = 1e-300\nrequests_per_second = 1e-300\nbatch_size = 1\n",
    );
    repo.commit_all("pacing");
    let out = repo.run(&["index", "-q"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("embed.tokens_per_minute"), "{err}");
    assert!(!server.seen.lock().unwrap().requests.is_empty());
}

#[test]
fn trust_shows_the_file_it_records_escaped() {
    let repo = TestRepo::with_files(&[("src/a.rs", "pub fn f() {}\n")]);
    // TOML allows no control character in a valid file, but it does allow a bidirectional
    // override, which makes a terminal show the line in another order ("Trojan Source").
    repo.write(
        ".codesearch.toml",
        "# team settings \u{202e}desrever\n[search]\nn_final = 7\n",
    );
    let out = repo.run_ok(&["trust"], 0);
    assert!(out.contains("n_final = 7"), "{out}");
    assert!(out.contains("# team settings"), "{out}");
    assert!(!out.contains('\u{202e}'), "{out:?}");
    assert!(out.contains("\\u{202e}desrever"), "{out}");
}

#[test]
fn a_config_parse_error_reaches_the_terminal_escaped() {
    let repo = TestRepo::with_files(&[("src/a.rs", "pub fn f() {}\n")]);
    repo.write(
        ".codesearch.toml",
        "[search]\nn_final = \x1b]0;pwned\x07\x1b[2J\n",
    );
    let out = repo.run(&["search", "f"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("invalid configuration"), "{err}");
    assert!(!err.contains('\x1b') && !err.contains('\x07'), "{err:?}");
}

/// An untrusted `.codesearch.toml` may tune what is indexed, within ranges: a line-length
/// bound of `nan` or 0 would refuse every file (or none), so it is refused, naming the key.
#[test]
fn a_committed_config_cannot_set_a_line_length_to_nan() {
    for (key, value) in [
        ("max_avg_line_length", "nan"),
        ("max_avg_line_length", "-1.0"),
        ("max_line_length", "0"),
    ] {
        let repo = TestRepo::with_files(&[
            ("src/a.rs", "pub fn alpha() {}\n"),
            (".codesearch.toml", &format!("[index]\n{key} = {value}\n")),
        ]);
        let out = repo.run(&["index"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{key} = {value}: {err}");
        assert!(err.contains(&format!("index.{key}")), "{err}");
    }
}
