//! Walking the work tree with `ignore`: .gitignore, .ignore, .git/info/exclude and the
//! global excludes file are honoured; hidden files are walked as git would (git does not
//! treat dot-files specially). Symlinks, submodules and non-UTF-8 names are reported, not
//! followed.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::{WalkBuilder, WalkState};

use crate::lang::quality::SkipReason;
use crate::util::files::{read_beneath, Bounded};

/// A regular file found in the work tree, or a blob of a commit that is not checked out.
#[derive(Debug, Clone)]
pub struct WalkedFile {
    /// Path relative to the work tree, `/`-separated.
    pub rel: String,
    /// Where the bytes are.
    pub source: Source,
    /// Size in bytes.
    pub size: u64,
    /// Modification time (ns).
    pub mtime_ns: i64,
}

/// Where a file's bytes are read from.
#[derive(Debug, Clone)]
pub enum Source {
    /// A file in the work tree: `rel` below the top of the work tree, `root`.
    Disk { root: Arc<Path>, rel: PathBuf },
    /// A blob of the object database (`--rev`), read again when its content is computed
    /// (`git::blobs`). Tree paths are never used to write files: a crafted tree (`..`,
    /// `.git`) must not reach the file system.
    Blob {
        blobs: crate::git::blobs::Blobs,
        id: gix::ObjectId,
    },
}

impl WalkedFile {
    /// The file's bytes, at most `max` of them. The work tree may have changed since the
    /// walk: a path that now goes through a symbolic link, or a file that is no longer
    /// regular (a FIFO would block), is unreadable, and a file that grew past `max` is too
    /// large (see `util::files`).
    pub fn read(&self, max: u64) -> Result<Cow<'_, [u8]>, SkipReason> {
        let unreadable = |e: std::io::Error| SkipReason::Unreadable(e.to_string());
        match &self.source {
            Source::Disk { root, rel } => match read_beneath(root, rel, max).map_err(unreadable)? {
                Bounded::Bytes(bytes) => Ok(Cow::Owned(bytes)),
                Bounded::TooLarge(size) => Err(SkipReason::TooLarge(size)),
            },
            // A blob's size is its header's, read when it was listed; its bytes cannot change.
            Source::Blob { .. } if self.size > max => Err(SkipReason::TooLarge(self.size)),
            Source::Blob { blobs, id } => blobs
                .read(*id)
                .map(Cow::Owned)
                .map_err(|e| SkipReason::Unreadable(e.to_string())),
        }
    }
}

/// What the walk found: files to consider, and entries skipped at once with a reason.
#[derive(Debug, Default)]
pub struct Walk {
    /// Regular files, sorted by path.
    pub files: Vec<WalkedFile>,
    /// Entries not indexed, sorted by path.
    pub skipped: Vec<(String, SkipReason)>,
    /// Names git would refuse to check out (`util::is_safe_rel_path`), sorted: never
    /// indexed and never a catalog row, only counted (a `..\x` or `src\a.rs` on Linux is one
    /// file whose name must not pass for another path).
    pub left_out: Vec<String>,
}

/// Walk the work tree at `root`.
pub fn walk(root: &Path) -> Walk {
    let found = Mutex::new(Walk::default());
    let root_buf: Arc<Path> = Arc::from(root);
    WalkBuilder::new(root)
        .hidden(false)
        .parents(false)
        .ignore(true)
        .git_ignore(true)
        .git_global(true)
        .git_exclude(true)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build_parallel()
        .run(|| {
            let found = &found;
            let root = &root_buf;
            Box::new(move |entry| {
                let Ok(entry) = entry else {
                    return WalkState::Continue;
                };
                match visit(root, &entry) {
                    Visit::File(f) => lock(found).files.push(f),
                    Visit::Skip(rel, reason) => lock(found).skipped.push((rel, reason)),
                    Visit::SkipDir(rel, reason) => {
                        lock(found).skipped.push((rel, reason));
                        return WalkState::Skip;
                    }
                    Visit::LeftOut(rel, is_dir) => {
                        tracing::info!(path = %rel, "left out: a name git would not check out");
                        lock(found).left_out.push(rel);
                        if is_dir {
                            return WalkState::Skip;
                        }
                    }
                    Visit::Nothing => {}
                }
                WalkState::Continue
            })
        });
    let mut walk = found.into_inner().unwrap_or_else(|p| p.into_inner());
    walk.files.sort_by(|a, b| a.rel.cmp(&b.rel));
    walk.skipped.sort_by(|a, b| a.0.cmp(&b.0));
    walk.left_out.sort();
    walk
}

fn lock(m: &Mutex<Walk>) -> std::sync::MutexGuard<'_, Walk> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

enum Visit {
    File(WalkedFile),
    Skip(String, SkipReason),
    SkipDir(String, SkipReason),
    /// A name `util::is_safe_rel_path` refuses (and whether it is a directory, whose
    /// entries are then not walked).
    LeftOut(String, bool),
    Nothing,
}

/// The path as stored: `/`-separated. Only on Windows is `\` a separator; elsewhere it is
/// an ordinary character of a name, as it is for git.
fn as_rel(s: &str) -> String {
    if cfg!(windows) {
        s.replace('\\', "/")
    } else {
        s.to_string()
    }
}

fn visit(root: &Arc<Path>, entry: &ignore::DirEntry) -> Visit {
    let Some(ft) = entry.file_type() else {
        return Visit::Nothing;
    };
    let path = entry.path();
    let Ok(rel_path) = path.strip_prefix(root) else {
        return Visit::Nothing;
    };
    if rel_path.as_os_str().is_empty() {
        return Visit::Nothing;
    }
    let rel = match rel_path.to_str() {
        Some(s) => as_rel(s),
        None => {
            let lossy = as_rel(&rel_path.to_string_lossy());
            if !crate::util::is_safe_rel_path(&lossy) {
                return Visit::LeftOut(lossy, ft.is_dir());
            }
            return Visit::Skip(lossy, SkipReason::NonUtf8Name);
        }
    };
    // Checked before anything becomes a row, so no unsafe name is ever stored, shown or
    // pushed (a symbolic link or submodule row names its path too).
    if !crate::util::is_safe_rel_path(&rel) {
        return Visit::LeftOut(rel, ft.is_dir());
    }
    if ft.is_symlink() {
        return Visit::Skip(rel, SkipReason::Symlink);
    }
    if ft.is_dir() {
        // A nested `.git` (file or directory) marks a submodule or nested repository.
        if path.join(".git").exists() {
            return Visit::SkipDir(rel, SkipReason::Submodule);
        }
        return Visit::Nothing;
    }
    if !ft.is_file() {
        return Visit::Nothing;
    }
    if let Err(reason) = crate::lang::quality::check_name(&rel) {
        return Visit::Skip(rel, reason);
    }
    match entry.metadata() {
        Ok(meta) => Visit::File(WalkedFile {
            rel,
            source: Source::Disk {
                root: root.clone(),
                rel: rel_path.to_path_buf(),
            },
            size: meta.len(),
            mtime_ns: crate::util::mtime_ns(&meta),
        }),
        Err(e) => Visit::Skip(rel, SkipReason::Unreadable(e.to_string())),
    }
}
