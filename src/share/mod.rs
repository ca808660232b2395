//! Sharing an index: one file (`file`: export and import), or object storage (`remote`: push
//! and pull, through the `client` of a bucket, with each branch's `manifest`). Everything that
//! comes back is untrusted: `unpack` reads a snapshot's archive within bounds, the store checks
//! its schema, and `index::verify` checks its content against this clone's own bytes before it
//! is shown. It sits above `index` (whose lock and verification it uses) and beside `search`.

pub mod client;
pub mod fetch;
pub mod file;
pub mod local;
pub mod manifest;
pub mod pull_lock;
pub mod remote;
mod take;
pub mod unpack;
pub mod versions;

use crate::index::IndexError;
use crate::store::StoreError;

/// Errors while exporting, importing, pushing or pulling an index.
#[derive(Debug, thiserror::Error)]
pub enum ShareError {
    /// A store operation failed (the snapshot's or this clone's database names which).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The index lock or the verification of what came in failed.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// A remote of `push` or `pull` failed or holds what no push writes.
    #[error(transparent)]
    Remote(#[from] client::RemoteError),
    /// Git could not be read (the branches to push, the objects to verify against).
    #[error(transparent)]
    Git(#[from] crate::git::GitError),
    /// Another pull into the same index is running (`pull_lock`).
    #[error("another pull into the index at {} is running", index_dir.display())]
    PullRunning { index_dir: std::path::PathBuf },
    /// The pull lock's file could not be opened or locked.
    #[error("cannot take the pull lock {}", path.display())]
    PullLock {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl ShareError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            ShareError::Store(e) => e.hint(),
            ShareError::Index(e) => e.hint(),
            ShareError::Remote(e) => e.hint(),
            ShareError::Git(e) => e.hint(),
            ShareError::PullRunning { .. } => Some(
                "let it finish: the post-merge hook starts one in the background after `git pull`"
                    .into(),
            ),
            ShareError::PullLock { .. } => None,
        }
    }
}
