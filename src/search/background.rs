//! Retrievers that run on a thread of their own beside the chunk retrievers (whole files,
//! the title, past commits), each with its own connection to the SQLite database, since a
//! connection cannot be shared between threads.

use std::path::Path;
use std::thread::JoinHandle;

use super::types::SearchError;
use crate::store::Db;

/// A retriever that may have been started.
pub type Pending<T> = Option<JoinHandle<Result<T, SearchError>>>;

/// Run `retrieve` on a new thread with its own connection to the database at `path`.
pub fn spawn<T: Send + 'static>(
    path: &Path,
    retrieve: impl FnOnce(&Db) -> Result<T, SearchError> + Send + 'static,
) -> JoinHandle<Result<T, SearchError>> {
    let path = path.to_path_buf();
    std::thread::spawn(move || retrieve(&Db::open(&path)?))
}

/// What a started retriever found; nothing when it was not started.
pub fn join<T: Default>(pending: Pending<T>) -> Result<T, SearchError> {
    match pending {
        // A retriever that panicked is a bug: its panic goes on in this thread.
        Some(t) => t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
        None => Ok(T::default()),
    }
}
