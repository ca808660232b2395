//! On-disk storage of the index, under `<common git dir>/codesearch/`:
//! SQLite (`meta.sqlite`) for the catalog, symbols, lock, checkpoint, run statistics, the
//! content-addressed chunks with their full-text index (`chunk_terms`, FTS5) and a
//! whole-file term index (`file_terms`, FTS5); LanceDB (`lance/`) for the chunk vectors of
//! each embedding model, opened only when vectors are used.
//!
//! Write order keeps crashes harmless: chunks are written first, keyed by content hash, and
//! become visible only when the catalog transaction that references them commits.

pub mod catalog;
pub mod chunks;
mod chunkterms;
pub mod cochange;
pub mod commits;
pub mod embedded;
pub mod fileterms;
pub mod filter;
pub mod flat;
pub mod health;
pub mod hits;
mod lance;
pub mod lookup;
pub mod merge;
pub mod pack;
pub mod remote;
pub mod snapshot;
pub mod sqlite;
pub mod state;
pub mod unverified;
pub mod vectors;

use std::path::{Path, PathBuf};

pub use chunks::{ChunkRow, ChunkStore};
pub use hits::{ChunkRef, FtsHit};
pub(crate) use sqlite::sqlite_err;
pub use sqlite::Db;
pub use vectors::VectorHit;

/// Environment variable that overrides where the index lives.
pub const DIR_ENV: &str = crate::env::INDEX_DIR;

/// Errors of the SQLite and LanceDB stores.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The index directory cannot be created or read.
    #[error("cannot use the index directory {path}")]
    Dir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A private scratch directory inside the index directory (an export's staging copy, an
    /// import's unpacked snapshot) could not be made, written or removed.
    #[error("cannot {op} {path} (scratch space of an export or import)")]
    Scratch {
        path: PathBuf,
        op: &'static str,
        #[source]
        source: std::io::Error,
    },
    /// A file that is not part of the index (an export's target, an import's source).
    #[error("cannot {op} {path}")]
    File {
        path: PathBuf,
        op: &'static str,
        #[source]
        source: std::io::Error,
    },
    /// SQLite failed while doing `op`.
    #[error("index database {path}: {op} failed")]
    Sqlite {
        path: PathBuf,
        op: &'static str,
        #[source]
        source: rusqlite::Error,
    },
    /// The database cannot be opened or written for lack of permission (a read-only index).
    #[error(
        "index database {path}: {op} failed: it cannot be written (read-only or no permission)"
    )]
    Access {
        path: PathBuf,
        op: &'static str,
        #[source]
        source: rusqlite::Error,
    },
    /// The SQLite file is damaged.
    #[error("index database {path} is corrupt")]
    Corrupt {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    /// The chunk table is gone while the catalog says chunks are stored.
    #[error("index database {path} has lost its chunks: {expected} indexed contents have none")]
    ChunksMissing { path: PathBuf, expected: usize },
    /// The index was written by a newer git-codesearch; we never modify it.
    #[error("index at {path} has schema version {found}, newer than this git-codesearch supports ({supported})")]
    TooNew {
        path: PathBuf,
        found: u32,
        supported: u32,
    },
    /// LanceDB failed while doing `op`.
    #[error("vector store {path}: {op} failed")]
    Lance {
        path: PathBuf,
        op: &'static str,
        #[source]
        source: Box<lancedb::Error>,
    },
    /// An imported snapshot is not one this build could have written, or holds a value of
    /// the wrong form; nothing of it was used.
    #[error("snapshot {path} is refused: {why}")]
    BadSnapshot { path: PathBuf, why: String },
    /// A LanceDB result did not have the expected shape.
    #[error("vector store {path}: unexpected data: {what}")]
    Shape { path: PathBuf, what: String },
    /// The async runtime LanceDB needs could not start (threads or file descriptors).
    #[error("cannot start the runtime of the vector store {path}")]
    Runtime {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl StoreError {
    /// A maker for `map_err`: the file at `path` (not part of the index) failed at `op`.
    pub fn file<'a>(
        path: &'a Path,
        op: &'static str,
    ) -> impl Fn(std::io::Error) -> StoreError + 'a {
        move |source| StoreError::File {
            path: path.to_path_buf(),
            op,
            source,
        }
    }

    /// A maker for `map_err`: the scratch directory at `path` (or a file in it) failed at `op`.
    pub fn scratch<'a>(
        path: &'a Path,
        op: &'static str,
    ) -> impl Fn(std::io::Error) -> StoreError + 'a {
        move |source| StoreError::Scratch {
            path: path.to_path_buf(),
            op,
            source,
        }
    }

    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            StoreError::Dir { path, .. } => Some(format!(
                "check that {} is readable and writable, or point {DIR_ENV} elsewhere",
                path.display()
            )),
            StoreError::Corrupt { .. } => Some(
                "run `git codesearch doctor --repair` (it rebuilds the index from the work tree)"
                    .into(),
            ),
            StoreError::TooNew { .. } => Some(
                "upgrade git-codesearch (cargo install --path . in a newer checkout), or point GIT_CODESEARCH_DIR at another directory".into(),
            ),
            StoreError::Runtime { .. } => {
                Some("the machine is out of threads or file descriptors; try again".into())
            }
            StoreError::Lance { .. } | StoreError::Shape { .. } | StoreError::ChunksMissing { .. } => {
                Some("run `git codesearch doctor --repair`".into())
            }
            StoreError::Sqlite { source, .. } if is_busy(source) => Some(
                "the index database is busy: another git-codesearch process (an index run, import or gc) is writing it; try again when it is done".into(),
            ),
            StoreError::Sqlite { .. } => None,
            StoreError::Access { path, .. } => Some(format!(
                "check the permissions of {} and its directory (nothing is damaged)",
                path.display()
            )),
            StoreError::Scratch { path, .. } => Some(format!(
                "check the free space and permissions of {}",
                path.parent().unwrap_or(path).display()
            )),
            StoreError::File { path, .. } => Some(format!(
                "check that {} exists and that you may read or write it",
                path.display()
            )),
            StoreError::BadSnapshot { .. } => Some(
                "import only snapshots written by `git codesearch export`; build the index with `git codesearch index` instead".into(),
            ),
        }
    }
}

impl StoreError {
    /// Whether SQLite gave up waiting for another process's write lock (its busy timeout):
    /// the database is in use, not damaged.
    pub fn is_busy(&self) -> bool {
        matches!(self, StoreError::Sqlite { source, .. } if is_busy(source))
    }
}

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy) | Some(rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// Where the index of a repository lives: `$GIT_CODESEARCH_DIR`, else `<common dir>/codesearch`.
pub fn index_dir(common_dir: &Path) -> PathBuf {
    match crate::env::get(DIR_ENV) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => common_dir.join("codesearch"),
    }
}

/// Total size in bytes of the files below `dir`.
pub fn dir_size(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            match entry.metadata() {
                Ok(m) if m.is_dir() => stack.push(entry.path()),
                Ok(m) => total += m.len(),
                Err(_) => {}
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_and_file_errors_name_what_failed_and_where() {
        let io = || std::io::Error::from(std::io::ErrorKind::StorageFull);
        let scratch = StoreError::scratch(Path::new("/idx/.import-x/meta.sqlite"), "write")(io());
        assert_eq!(
            scratch.to_string(),
            "cannot write /idx/.import-x/meta.sqlite (scratch space of an export or import)"
        );
        assert!(scratch.hint().unwrap().contains("/idx/.import-x"));
        let file = StoreError::file(Path::new("/home/me/index.tar"), "write")(io());
        assert_eq!(file.to_string(), "cannot write /home/me/index.tar");
        // Neither is taken for the index directory itself.
        assert!(!matches!(scratch, StoreError::Dir { .. }));
    }
}
