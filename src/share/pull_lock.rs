//! One pull at a time per index. A pull downloads before it takes the index lock (for its
//! merge), and the post-merge hook starts one in the background on every `git pull`: without
//! this lock, a remote that keeps a pull busy (slow objects, manifests refused after they
//! are read) would have each `git pull` start another beside it, each with its own scratch
//! space. The operating system's file lock ends with the process, so a pull that was killed
//! never leaves it held.

use std::fs::{File, OpenOptions, TryLockError};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use super::ShareError;

/// The lock file's name in the index directory.
pub const FILE: &str = "pull.lock";

/// The pull lock, held until dropped.
pub struct PullLock {
    _file: File,
}

/// Take the pull lock of the index in `index_dir`, or say that another pull holds it.
pub fn take(index_dir: &Path) -> Result<PullLock, ShareError> {
    let path = index_dir.join(FILE);
    let io = |source| ShareError::PullLock {
        path: path.clone(),
        source,
    };
    // Never through a link: the lock is this index's own file.
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&path)
        .map_err(io)?;
    match file.try_lock() {
        Ok(()) => Ok(PullLock { _file: file }),
        Err(TryLockError::WouldBlock) => Err(ShareError::PullRunning {
            index_dir: index_dir.to_path_buf(),
        }),
        Err(TryLockError::Error(e)) => Err(io(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_pull_is_refused_while_the_first_holds_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let first = take(dir.path()).unwrap();
        assert!(matches!(
            take(dir.path()),
            Err(ShareError::PullRunning { .. })
        ));
        drop(first);
        assert!(take(dir.path()).is_ok());
    }
}
