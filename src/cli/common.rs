//! What every command shares: the outcome it reports for the exit code, and opening the
//! workspace (with the one warning about an untrusted `.codesearch.toml`).

use std::io::Write;

use git_codesearch::Error;

/// What a successful command found, for the exit code.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    /// Success, or a search with hits.
    Found,
    /// A search without hits.
    NotFound,
}

/// Open the workspace of `dir`; the first time in this process, say on stderr which
/// settings of an untrusted `.codesearch.toml` were ignored.
pub(crate) fn open(dir: &std::path::Path) -> Result<git_codesearch::workspace::Workspace, Error> {
    static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let ws = git_codesearch::workspace::Workspace::open(dir)?;
    let ignored = &ws.config.untrusted;
    if !ignored.is_empty() && !WARNED.swap(true, std::sync::atomic::Ordering::Relaxed) {
        let _ = writeln!(
            std::io::stderr(),
            "warning: {} sets {}, which only a trusted file may set: ignored (they choose where code \
             and credentials go, or what your provider is sent and how fast). Set them in your git \
             config, or run `git codesearch trust` after reading the file.",
            git_codesearch::config::CONFIG_FILE,
            ignored.join(", ")
        );
    }
    Ok(ws)
}
