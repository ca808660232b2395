//! Blobs read from any thread. `--rev` hashes every new blob of a tree while it lists it,
//! and its compute workers read each one again when they chunk it: a tree of thousands of
//! distinct blobs (a few MB packed, as deltas of each other) is then never held in memory
//! at once, where keeping every new blob's bytes from the listing to the end of the run
//! took gigabytes.

use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::Arc;

use super::GitError;

/// A handle that reads one repository's blobs from any thread.
#[derive(Debug, Clone)]
pub struct Blobs {
    git_dir: Arc<PathBuf>,
}

thread_local! {
    /// This thread's own handle on the repository last read (gix's handle is not shared
    /// between threads in this build), opened once per thread.
    static OPEN: RefCell<Option<(Arc<PathBuf>, gix::Repository)>> = const { RefCell::new(None) };
}

impl Blobs {
    pub(super) fn of(repo: &gix::Repository) -> Blobs {
        Blobs {
            git_dir: Arc::new(repo.git_dir().to_path_buf()),
        }
    }

    /// The bytes of blob `id` (its size, from its header, was checked when it was listed).
    pub fn read(&self, id: gix::ObjectId) -> Result<Vec<u8>, GitError> {
        OPEN.with(|open| {
            let mut open = open.borrow_mut();
            if open.as_ref().is_none_or(|(dir, _)| dir != &self.git_dir) {
                let repo = gix::open(self.git_dir.as_path()).map_err(|e| GitError::NotARepo {
                    path: self.git_dir.to_path_buf(),
                    source: Box::new(e),
                })?;
                *open = Some((self.git_dir.clone(), repo));
            }
            let (_, repo) = open.as_ref().expect("opened above");
            bytes(repo, id)
        })
    }
}

/// The bytes of blob `id` of `repo` (`Repo::blob` and [`Blobs::read`] alike).
pub(super) fn bytes(repo: &gix::Repository, id: gix::ObjectId) -> Result<Vec<u8>, GitError> {
    let object = repo
        .find_object(id)
        .map_err(GitError::rev(&id.to_string()))?;
    Ok(object.detach().data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blob_is_read_on_another_thread() {
        let dir = tempfile::tempdir().unwrap();
        let repo = gix::init(dir.path()).unwrap();
        let id = repo.write_blob(b"fn main() {}\n").unwrap().detach();
        let blobs = Blobs::of(&repo);
        let read = std::thread::spawn(move || blobs.read(id).unwrap())
            .join()
            .unwrap();
        assert_eq!(read, b"fn main() {}\n");
    }
}
