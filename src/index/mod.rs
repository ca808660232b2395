//! Building and updating the index of the checked-out branch: walk the work tree, hash files
//! (reusing hashes of unchanged files), plan the delta against the catalog, compute chunks
//! and symbols for content never seen, and commit the branch's membership atomically.

pub mod chunk;
mod compute;
pub mod doctor;
mod find;
#[cfg(test)]
mod fuzz;
pub mod gc;
pub mod guard;
pub mod history;
pub mod keyword_defs;
pub mod lock;
pub mod manifest;
pub mod observe;
pub mod plan;
pub mod quality;
pub mod remote;
pub mod rev;
pub mod run;
pub mod scan;
pub mod share;
pub mod symbols;
#[cfg(test)]
mod symbols_langs;
mod tagrun;
pub mod terms;
pub mod unpack;
pub mod vectors;
pub mod verify;
pub mod walk;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub use observe::{Event, Observer, Phase, Silent};
pub use run::{run, IndexOptions, IndexReport, ResumeChoice};
pub use vectors::{EmbedPolicy, EmbedReport};

use crate::store::state::LockHolder;
use crate::store::StoreError;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Mark the current run as interrupted (called from the Ctrl-C handler).
pub fn interrupt() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Whether Ctrl-C was pressed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

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
    /// A remote of `push` or `pull` failed or holds what no push writes.
    #[error(transparent)]
    Remote(#[from] crate::store::remote::RemoteError),
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
            IndexError::Remote(e) => e.hint(),
        }
    }
}
