//! `TestRepo`: a real git repository in a temp dir, with hermetic git settings, and helpers
//! to run the real `git-codesearch` binary in it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Path of the binary under test.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_git-codesearch"))
}

/// A git repository in a temporary directory.
pub struct TestRepo {
    pub dir: tempfile::TempDir,
}

/// Environment that makes git ignore the machine's own configuration.
pub fn hermetic(cmd: &mut Command, home: &Path) {
    cmd.env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_SYSTEM", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", home)
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .env("NO_COLOR", "1")
        // Vectors in the foreground: a test that asks for them has them when `index` returns
        // (the background run has its own tests, in vectors.rs).
        .env("GIT_CODESEARCH_BACKGROUND", "0")
        .env_remove("GIT_CODESEARCH_DIR")
        .env_remove("GIT_CODESEARCH_TRACE")
        .env_remove("XDG_DATA_HOME")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE");
}

impl TestRepo {
    /// An empty repository on branch `main`, with the product's defaults: vector search on,
    /// with the compiled-in static model (embedded in the foreground here, see `cmd`).
    pub fn new() -> TestRepo {
        let repo = TestRepo {
            dir: tempfile::tempdir().expect("tempdir"),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo
    }

    /// Choose the compiled-in static model explicitly, as a user does with `git config
    /// codesearch.embedProvider static` (the default; a test says so where it matters).
    pub fn embed_locally(&self) -> &Self {
        self.git(&["config", "codesearch.embedProvider", "static"]);
        self
    }

    /// Turn vector search off, as a user does with `git config codesearch.embedProvider
    /// none`: for tests that check exactly which files lexical retrieval and ranking bring
    /// (in a repository of three files, vectors bring every file, closest first).
    pub fn lexical(&self) -> &Self {
        self.git(&["config", "codesearch.embedProvider", "none"]);
        self
    }

    /// Trust the `.codesearch.toml` now in the work tree (`git codesearch trust`), as a
    /// user does before it may choose an embedding or chat provider.
    pub fn trust_config(&self) -> &Self {
        self.run_ok(&["trust"], 0);
        self
    }

    /// A repository with `files` committed on `main`.
    pub fn with_files(files: &[(&str, &str)]) -> TestRepo {
        let repo = TestRepo::new();
        for (p, c) in files {
            repo.write(p, c);
        }
        repo.commit_all("initial");
        repo
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Write a file (creating directories).
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let p = self.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }

    pub fn remove(&self, rel: &str) {
        std::fs::remove_file(self.path().join(rel)).unwrap();
    }

    /// Run git, asserting success; returns stdout.
    pub fn git(&self, args: &[&str]) -> String {
        let mut cmd = Command::new("git");
        cmd.args(args).current_dir(self.path());
        hermetic(&mut cmd, self.path());
        let out = cmd.output().expect("run git");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn commit_all(&self, msg: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", msg]);
    }

    /// A `git-codesearch` command ready to run in the repository.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(bin());
        cmd.args(args).current_dir(self.path());
        hermetic(&mut cmd, self.path());
        cmd
    }

    /// Run `git-codesearch`.
    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().expect("run git-codesearch")
    }

    /// Run and require exit code `code`; returns stdout.
    pub fn run_ok(&self, args: &[&str], code: i32) -> String {
        let out = self.run(args);
        assert_eq!(
            out.status.code(),
            Some(code),
            "git-codesearch {args:?}\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Search with --json; returns the parsed hits.
    pub fn search(&self, query: &str, extra: &[&str]) -> Vec<serde_json::Value> {
        let mut args = vec!["search", "--json", "-q"];
        args.extend_from_slice(extra);
        args.push(query);
        let out = self.run(&args);
        let code = out.status.code();
        assert!(
            code == Some(0) || code == Some(1),
            "search {query:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).expect("each line is JSON"))
            .collect()
    }

    /// Paths of the hits of a search, in order.
    pub fn hit_paths(&self, query: &str, extra: &[&str]) -> Vec<String> {
        self.search(query, extra)
            .iter()
            .map(|h| h["path"].as_str().unwrap().to_string())
            .collect()
    }

    /// Where the hits of a search are, in order: path, first and last line.
    pub fn hit_places(&self, query: &str, extra: &[&str]) -> Vec<Place> {
        places(&self.search(query, extra))
    }

    /// `status --json` parsed.
    pub fn status(&self, extra: &[&str]) -> serde_json::Value {
        let mut args = vec!["status", "--json"];
        args.extend_from_slice(extra);
        serde_json::from_str(&self.run_ok(&args, 0)).expect("status JSON")
    }

    /// `index --json` parsed (the run's stats).
    pub fn index(&self, extra: &[&str]) -> serde_json::Value {
        let mut args = vec!["index", "--json", "-q"];
        args.extend_from_slice(extra);
        serde_json::from_str(&self.run_ok(&args, 0)).expect("index JSON")
    }
}

/// The shared fixture: a config loader in Rust, an uploader in Python, a Go function, a
/// README, and files the index must leave out (ignored, minified, binary).
const CONFIG_RS: &str = r#"use std::path::Path;

/// Settings read from the configuration file.
pub struct Settings {
    pub verbose: bool,
}

/// Read the configuration file at `path` and parse its TOML text into settings.
pub fn load_settings(path: &Path) -> Settings {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    Settings { verbose: text.contains("verbose") }
}
"#;

pub const UPLOAD_PY: &str = r#"import time


class Uploader:
    """Sends files to the storage server."""

    def send_with_retry(self, blob, attempts=5):
        """Retry failed uploads with exponential backoff."""
        for attempt in range(attempts):
            if self.send(blob):
                return True
            time.sleep(2 ** attempt)
        return False
"#;

pub const GEOMETRY_GO: &str = r#"package geometry

// Area returns the area of a circle with the given radius.
func CircleArea(radius float64) float64 {
	return 3.14159 * radius * radius
}
"#;

pub fn fixture() -> TestRepo {
    TestRepo::with_files(&[
        ("src/config.rs", CONFIG_RS),
        ("app/upload.py", UPLOAD_PY),
        ("geometry/area.go", GEOMETRY_GO),
        ("README.md", "# Demo\n\nA small project for tests.\n"),
        (".gitignore", "build/\n"),
        ("build/generated.rs", "pub fn zebra_ignored_marker() {}\n"),
        (
            "static/app.min.js",
            &format!("var zebraminified=1;{}\n", "a=b;".repeat(200)),
        ),
        ("assets/logo.bin", "PNG\0\0\0zebrabinary"),
    ])
}

/// A `git-codesearch` process whose trace events (stderr, `GIT_CODESEARCH_TRACE`) are read as
/// they come, so a test acts when the run has reached a point, not after some time.
pub struct Traced {
    pub child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
}

impl TestRepo {
    /// Start `git-codesearch args` with its trace points on stderr.
    pub fn spawn_traced(&self, args: &[&str]) -> Traced {
        let mut child = self
            .cmd(args)
            .env("GIT_CODESEARCH_TRACE", "git_codesearch=debug")
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn git-codesearch");
        let stderr = child.stderr.take().unwrap();
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Traced { child, lines }
    }

    /// Take the index database's write lock (`BEGIN IMMEDIATE`) until the connection is
    /// dropped: a run reaching its next write waits there (up to SQLite's busy timeout).
    pub fn hold_writes(&self) -> rusqlite::Connection {
        let db = self.path().join(".git/codesearch/meta.sqlite");
        let conn = rusqlite::Connection::open(db).unwrap();
        conn.execute_batch("BEGIN IMMEDIATE;").unwrap();
        conn
    }
}

impl Traced {
    /// Wait for a trace line containing `event`. Fails if the process ends first (or, as a
    /// guard against a hang, if nothing arrives for five minutes).
    pub fn wait_for(&mut self, event: &str) {
        loop {
            match self.lines.recv_timeout(std::time::Duration::from_secs(300)) {
                Ok(line) if line.contains(event) => return,
                Ok(_) => {}
                Err(e) => panic!("the run never traced {event:?} ({e})"),
            }
        }
    }

    /// Wait for the process to end; its exit status, the rest of its stderr drained.
    pub fn finish(mut self) -> std::process::ExitStatus {
        let status = self.child.wait().unwrap();
        while self.lines.recv().is_ok() {}
        status
    }
}

/// Run `cmd` to completion and measure it: its output and the peak resident set size of that
/// child alone, in KiB (see [`peak_rss_within`]), killed after ten minutes.
pub fn peak_rss(cmd: &mut Command) -> (Output, u64) {
    peak_rss_within(cmd, std::time::Duration::from_secs(600))
}

/// Run `cmd` to its end (killed past `deadline`), with its output and the peak resident
/// memory of that child alone, in KiB: reaped with `wait4`, whose `ru_maxrss` is the
/// child's own (`RUSAGE_CHILDREN` would mix in other tests' children).
#[allow(clippy::zombie_processes)] // reaped by `wait4` below, which `Child::wait` cannot be
pub fn peak_rss_within(
    cmd: &mut std::process::Command,
    deadline: std::time::Duration,
) -> (std::process::Output, u64) {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("piped")));
    let err = drain(Box::new(child.stderr.take().expect("piped")));
    let pid = child.id() as libc::pid_t;
    let start = std::time::Instant::now();
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is a valid value, filled in by `wait4`.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `pid` is this process's own unreaped child; the pointers are valid.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        assert!(r >= 0, "wait4: {}", std::io::Error::last_os_error());
        if r == pid {
            break;
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            // SAFETY: as above; this time it blocks until the killed child is reaped.
            unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
            panic!("still running after {deadline:?}: killed");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let output = std::process::Output {
        status: std::process::ExitStatus::from_raw(status),
        stdout: out.join().expect("stdout reader"),
        stderr: err.join().expect("stderr reader"),
    };
    (output, usage.ru_maxrss as u64)
}

/// Where a hit is: its path, first and last line.
pub type Place = (String, u64, u64);

/// Where each of `hits` (`search --json` lines) is.
pub fn places(hits: &[serde_json::Value]) -> Vec<Place> {
    let place = |hit: &serde_json::Value| {
        let line = |k: &str| hit[k].as_u64().unwrap();
        let path = hit["path"].as_str().unwrap().to_string();
        (path, line("start_line"), line("end_line"))
    };
    hits.iter().map(place).collect()
}

/// The features `--explain` lists for a hit (`--json`), in order; none when not asked.
pub fn explained_features(hit: &serde_json::Value) -> Vec<String> {
    hit["explain"].as_array().map_or(Vec::new(), |a| {
        a.iter()
            .map(|c| c["feature"].as_str().unwrap_or("").to_string())
            .collect()
    })
}
