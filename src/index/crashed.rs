//! Crash-only recovery for grammar crashes. Twenty C scanners run in this process: one that
//! crashes on some file would kill every index run of the repository (hooks included) until
//! the file changed. So before the tree-sitter work on a content, a record
//! `<index dir>/parsing/<hash>` is written, and removed after it. If the parse crashes the
//! process (a fatal signal on that thread), the handler in `on_crash` moves the record to
//! `crashed/<hash>`; from then on that content is indexed as plain text, without any grammar,
//! with a note `status --verbose` shows. The next run completes: the crash costs one file,
//! not the index. A record left by a run killed from outside (SIGKILL) marks nothing: the
//! next run, under the index lock, removes it. `gc` forgets crash records of content no
//! branch uses.

use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use crate::store::StoreError;

/// Records of contents being parsed now, one file per content hash.
const PARSING_DIR: &str = "parsing";
/// Contents whose parse killed a process, one file per content hash.
const CRASHED_DIR: &str = "crashed";
/// The most of a record read back (`pid\npath`): a record is ours, but bounded all the same.
const MAX_RECORD: u64 = 4096;

/// The records this process is holding now: one process may run several index runs at once
/// (an MCP server's threads share the lock, which is held per process), and another run's
/// live record must not be taken for a crash.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn live() -> MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// The note stored with a content indexed as plain text after a crash.
pub(super) const NOTE: &str =
    "indexed as plain text: a grammar crashed the index run that parsed it";

/// The ledger of one index run: where records go, and the contents known to crash.
#[derive(Debug)]
pub(super) struct Ledger {
    /// `<index dir>/parsing`.
    parsing: PathBuf,
    /// `<index dir>/crashed`.
    crashed_dir: PathBuf,
    /// Content hashes whose parse killed an earlier run.
    crashed: HashSet<String>,
}

impl Ledger {
    /// Under the index lock: load the crash records, and remove the parse records left
    /// behind by runs that are gone (killed from outside: not a grammar's fault, see
    /// `on_crash`). A record of a live process (one that lost the lock) is left to it.
    pub(super) fn open(index_dir: &Path) -> Result<Ledger, StoreError> {
        let parsing = index_dir.join(PARSING_DIR);
        let crashed_dir = index_dir.join(CRASHED_DIR);
        for dir in [&parsing, &crashed_dir] {
            std::fs::create_dir_all(dir).map_err(|e| dir_error(dir, e))?;
        }
        for hash in hashes_in(&parsing)? {
            let record = parsing.join(&hash);
            let alive = match recorded_pid(&record) {
                Some(pid) if pid == std::process::id() => live().contains(&record),
                Some(pid) => super::lock::pid_alive(pid),
                None => false,
            };
            if !alive {
                let _ = std::fs::remove_file(&record);
            }
        }
        #[cfg(unix)]
        super::on_crash::install();
        let crashed = hashes_in(&crashed_dir)?;
        if !crashed.is_empty() {
            tracing::debug!(
                contents = crashed.len(),
                "indexed as plain text: a grammar crashed on them"
            );
        }
        Ok(Ledger {
            crashed,
            parsing,
            crashed_dir,
        })
    }

    /// Whether the parse of `hash` killed an earlier run.
    pub(super) fn crashed(&self, hash: &str) -> bool {
        self.crashed.contains(hash)
    }

    /// Record that `hash` (at `rel`) is being parsed on this thread, until the returned
    /// guard is dropped; if the parse crashes, the record becomes a crash record. A record
    /// that cannot be written does not stop the run: it only loses the recovery.
    pub(super) fn begin(&self, hash: &str, rel: &str) -> Parsing {
        let path = self.parsing.join(hash);
        if let Err(e) = std::fs::write(&path, format!("{}\n{rel}", std::process::id())) {
            tracing::debug!(path = %path.display(), error = %e, "parse record not written");
            return Parsing::default();
        }
        live().push(path.clone());
        #[cfg(unix)]
        let paths = {
            use std::os::unix::ffi::OsStrExt;
            let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes()).ok();
            match (c(&path), c(&self.crashed_dir.join(hash))) {
                (Some(from), Some(to)) => {
                    let paths = Box::new(super::on_crash::Paths { from, to });
                    super::on_crash::set(&paths);
                    Some(paths)
                }
                _ => None,
            }
        };
        Parsing {
            path: Some(path),
            #[cfg(unix)]
            paths,
            not_send: std::marker::PhantomData,
        }
    }
}

/// A content being parsed on this thread: the record is removed when this is dropped (the
/// parse ended, or panicked: a panic is not a crash of the process).
#[derive(Default)]
pub(super) struct Parsing {
    path: Option<PathBuf>,
    /// What the crash handler reads while this lives.
    #[cfg(unix)]
    paths: Option<Box<super::on_crash::Paths>>,
    /// The handler's record is per thread: the guard must stay on its thread.
    not_send: std::marker::PhantomData<*const ()>,
}

impl Drop for Parsing {
    fn drop(&mut self) {
        #[cfg(unix)]
        if self.paths.take().is_some() {
            // Cleared before the paths are freed (they are, at the end of this block).
            super::on_crash::clear();
        }
        if let Some(path) = &self.path {
            let _ = std::fs::remove_file(path);
            let mut live = live();
            if let Some(i) = live.iter().position(|p| p == path) {
                live.swap_remove(i);
            }
        }
    }
}

/// Crash records whose content no catalog row uses any more (for `gc`).
pub(crate) fn forget_unused(index_dir: &Path, used: &HashSet<String>) -> Result<(), StoreError> {
    let dir = index_dir.join(CRASHED_DIR);
    if !dir.exists() {
        return Ok(());
    }
    for hash in hashes_in(&dir)? {
        if !used.contains(&hash) {
            let _ = std::fs::remove_file(dir.join(&hash));
        }
    }
    Ok(())
}

/// For tests only, in debug builds only: die as a crashing grammar would while parsing a
/// content that contains the value of `GIT_CODESEARCH_TEST_CRASH_ON_PARSE`. Nothing a
/// repository holds can set it, and a release build has no such code.
#[cfg(debug_assertions)]
pub(super) fn crash_for_tests(text: &str) {
    static MARKER: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    let marker = MARKER.get_or_init(|| {
        crate::env::non_empty(crate::env::CRASH_ON_PARSE).and_then(|v| v.into_string().ok())
    });
    if marker.as_deref().is_some_and(|m| text.contains(m)) {
        std::process::abort();
    }
}

/// The names in `dir` that are content hashes (64 lowercase hex digits); anything else
/// there is not ours and is left alone.
fn hashes_in(dir: &Path) -> Result<HashSet<String>, StoreError> {
    let entries = std::fs::read_dir(dir).map_err(|e| dir_error(dir, e))?;
    Ok(entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.len() == 64 && n.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
        .collect())
}

/// The process id a record names, if it can be read.
fn recorded_pid(record: &Path) -> Option<u32> {
    let mut text = String::new();
    std::fs::File::open(record)
        .ok()?
        .take(MAX_RECORD)
        .read_to_string(&mut text)
        .ok()?;
    text.lines().next()?.trim().parse().ok()
}

fn dir_error(dir: &Path, source: std::io::Error) -> StoreError {
    StoreError::Dir {
        path: dir.to_path_buf(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn records_of_killed_runs_are_removed_and_crash_records_are_loaded() {
        let dir = tempfile::tempdir().unwrap();
        let parsing = dir.path().join(PARSING_DIR).join(H);
        let ledger = Ledger::open(dir.path()).unwrap();
        assert!(!ledger.crashed(H));
        // A guard dropped normally leaves nothing behind.
        drop(ledger.begin(H, "a.sh"));
        assert!(!parsing.exists());
        // A record this process still holds (another run's thread) is left alone.
        let held = ledger.begin(H, "a.sh");
        assert!(!Ledger::open(dir.path()).unwrap().crashed(H));
        assert!(parsing.exists());
        // A record nobody holds (with this pid: left by an earlier process that had it) was
        // left by a kill, not a crash: removed, and the content is not marked.
        drop(held);
        std::fs::write(&parsing, format!("{}\na.sh", std::process::id())).unwrap();
        assert!(!Ledger::open(dir.path()).unwrap().crashed(H));
        assert!(!parsing.exists());
        // A crash record (as the handler leaves it) is loaded; other names are not ours.
        std::fs::write(dir.path().join(CRASHED_DIR).join(H), "1\na.sh").unwrap();
        std::fs::write(dir.path().join(CRASHED_DIR).join("notes.txt"), "").unwrap();
        let after = Ledger::open(dir.path()).unwrap();
        assert!(after.crashed(H));
        assert_eq!(after.crashed.len(), 1);
        forget_unused(dir.path(), &HashSet::new()).unwrap();
        assert!(!Ledger::open(dir.path()).unwrap().crashed(H));
    }
}
