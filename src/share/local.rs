//! A `file://` remote on a directory that others may write too: every object is reached
//! from the remote's root without following a symbolic link (a co-writer could otherwise
//! point `packs` at `~/.ssh` and have a push write there, or a pull read from there), listed
//! without entering one, and created atomically without replacing anything (a temporary
//! file, then a hard link).

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::util::files;

/// The directory of a `file://` remote.
pub struct FileStore {
    root: PathBuf,
}

/// The directory part and the name of `key`.
fn split(key: &str) -> (&Path, &str) {
    match key.rsplit_once('/') {
        Some((dir, name)) => (Path::new(dir), name),
        None => (Path::new(""), key),
    }
}

impl FileStore {
    /// The remote at `root` (created if missing; a link as the root itself is the user's
    /// own choice, so it is resolved once, here).
    pub fn open(root: &Path) -> std::io::Result<FileStore> {
        std::fs::create_dir_all(root)?;
        Ok(FileStore {
            root: root.canonicalize()?,
        })
    }

    /// Keys and sizes of the regular files below `dir` (links are neither listed nor
    /// entered; a `dir` that is a link lists as empty); `None` past `max` of them.
    pub fn list(&self, dir: &str, max: usize) -> std::io::Result<Option<Vec<(String, u64)>>> {
        let mut out = Vec::new();
        match files::dir_beneath(&self.root, Path::new(dir), false) {
            Ok(_) => {}
            Err(e) if is_absent_or_refused(&e) => return Ok(Some(out)),
            Err(e) => return Err(e),
        }
        let mut todo = vec![dir.trim_matches('/').to_string()];
        while let Some(rel) = todo.pop() {
            for entry in std::fs::read_dir(self.root.join(&rel))? {
                let entry = entry?;
                let name = entry.file_name().to_string_lossy().into_owned();
                let key = if rel.is_empty() {
                    name.clone()
                } else {
                    format!("{rel}/{name}")
                };
                // The type from the directory entry itself: a link is never followed.
                let kind = entry.file_type()?;
                if kind.is_dir() {
                    todo.push(key);
                } else if kind.is_file() && !name.starts_with(".tmp-") {
                    if out.len() == max {
                        return Ok(None);
                    }
                    out.push((key, entry.metadata()?.len()));
                }
            }
        }
        out.sort();
        Ok(Some(out))
    }

    /// The file at `key`, opened for reading; `None` if there is none.
    pub fn open_file(&self, key: &str) -> std::io::Result<Option<impl Read>> {
        match files::open_beneath(&self.root, Path::new(key)) {
            Ok(f) if f.metadata()?.is_file() => Ok(Some(f)),
            Ok(_) => Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a regular file",
            )),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Write `bytes` at `key` unless something is there; whether it was written.
    pub fn create(&self, key: &str, bytes: &[u8]) -> std::io::Result<bool> {
        let (dir, name) = split(key);
        let dir = files::dir_beneath(&self.root, dir, true)?;
        files::create_in(&dir, name, bytes)
    }

    /// Remove the file at `key`; a missing one is no error.
    pub fn delete(&self, key: &str) -> std::io::Result<()> {
        let (dir, name) = split(key);
        let gone = |e: &std::io::Error| e.kind() == std::io::ErrorKind::NotFound;
        match files::dir_beneath(&self.root, dir, false) {
            Ok(d) => match files::remove_in(&d, name) {
                Err(e) if !gone(&e) => Err(e),
                _ => Ok(()),
            },
            Err(e) if gone(&e) => Ok(()),
            Err(e) => Err(e),
        }
    }
}

/// A missing directory, or one reached only through a link.
fn is_absent_or_refused(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::InvalidInput
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_stops_past_its_bound() {
        let dir = tempfile::tempdir().unwrap();
        let fs = FileStore::open(dir.path()).unwrap();
        for i in 0..3 {
            assert!(fs.create(&format!("manifests/b/{i}"), b"x").unwrap());
        }
        assert_eq!(fs.list("manifests", 3).unwrap().unwrap().len(), 3);
        assert!(fs.list("manifests", 2).unwrap().is_none());
        assert_eq!(fs.list("absent", 0).unwrap(), Some(vec![]));
    }
}
