//! The store's one error type, [`StoreError`], naming the index directory, database or table
//! each failure concerns, with a hint for each.

use std::path::{Path, PathBuf};

use super::dir::DIR_ENV;

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

    /// True when repairing the index is the remedy (the hint says so in the library's words;
    /// the command line names its own command for it).
    pub fn needs_repair(&self) -> bool {
        matches!(
            self,
            StoreError::Corrupt { .. }
                | StoreError::Lance { .. }
                | StoreError::Shape { .. }
                | StoreError::ChunksMissing { .. }
        )
    }

    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            StoreError::Dir { path, .. } => Some(format!(
                "check that {} is readable and writable, or point {DIR_ENV} elsewhere",
                path.display()
            )),
            StoreError::Corrupt { .. } => {
                Some("repair the index (it is rebuilt from the work tree)".into())
            }
            StoreError::TooNew { .. } => Some(
                "upgrade git-codesearch (cargo install --path . in a newer checkout), or point GIT_CODESEARCH_DIR at another directory".into(),
            ),
            StoreError::Runtime { .. } => {
                Some("the machine is out of threads or file descriptors; try again".into())
            }
            StoreError::Lance { .. } | StoreError::Shape { .. } | StoreError::ChunksMissing { .. } => {
                Some("repair the index".into())
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

pub(super) fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy) | Some(rusqlite::ErrorCode::DatabaseLocked)
    )
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
