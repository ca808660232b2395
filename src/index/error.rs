//! The index run's error type, [`IndexError`], naming the lock holder, the path or the count
//! of files done, with a hint for each.

use std::path::PathBuf;
use std::time::Duration;

use crate::store::state::LockHolder;
use crate::store::StoreError;

/// Errors while indexing.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// A store operation failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Another process holds the index lock.
    #[error("another index run holds the lock: pid {} on {} since {} (waited {}s)",
        holder.pid, holder.host, crate::util::when(holder.acquired_at), waited.as_secs())]
    Locked {
        holder: LockHolder,
        waited: Duration,
    },
    /// This run's lock was taken over (or removed) while it ran: it stopped writing.
    #[error("this index run lost the index lock{}", holder.as_ref().map(|h| format!(" to pid {} on {}", h.pid, h.host)).unwrap_or_default())]
    LockLost { holder: Option<LockHolder> },
    /// The user pressed Ctrl-C; progress so far is saved.
    #[error("interrupted: {done}/{total} files done, progress saved")]
    Interrupted { done: usize, total: usize },
    /// The repository has no commits and no files.
    #[error("nothing to index in {path}: the repository has no commits and no files")]
    Empty { path: PathBuf },
    /// Git could not be read: HEAD, a `--rev` revision or its trees and blobs, the branches
    /// (the git error names which, and the path or revision).
    #[error(transparent)]
    Git(#[from] crate::git::GitError),
}

impl IndexError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            IndexError::Store(e) => e.hint(),
            IndexError::Locked { .. } => Some(
                "wait for it to finish; a lock of a process that died is taken over automatically"
                    .into(),
            ),
            IndexError::LockLost { .. } => Some(
                "what was written so far is kept; run `git codesearch index` again to finish"
                    .into(),
            ),
            IndexError::Interrupted { .. } => {
                Some("run `git codesearch index` to resume where it stopped".into())
            }
            IndexError::Empty { .. } => {
                Some("add some files (and commit them), then search again".into())
            }
            IndexError::Git(e) => e.hint(),
        }
    }
}
