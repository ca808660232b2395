//! Where the index of a repository lives and how large it is on disk.

use std::path::{Path, PathBuf};

/// Environment variable that overrides where the index lives.
pub const DIR_ENV: &str = crate::env::INDEX_DIR;

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
