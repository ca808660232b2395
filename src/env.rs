//! Every environment variable git-codesearch reads, in one place, with what it does. The
//! modules that use one read it through these names, so this list is the whole story (the
//! README's "Environment" section shows it to users). Credentials are not here: their
//! variable's *name* is a setting (`embed.api_key_env`, `llm.api_key_env`).

use std::ffi::OsString;

/// Set: show the trace points (where a search or an index run spends its time) on stderr;
/// the value is a `RUST_LOG`-style filter, or `1` for this program's own (`cli::trace`).
pub const TRACE: &str = "GIT_CODESEARCH_TRACE";
/// Where the index lives instead of the repository's git dir.
pub const INDEX_DIR: &str = "GIT_CODESEARCH_DIR";
/// Non-empty: no colour in the output (<https://no-color.org>).
pub const NO_COLOR: &str = "NO_COLOR";
/// The host name recorded in the index lock (so a lock taken on another host is judged by
/// its lease, not by a process id).
pub const HOSTNAME: &str = "HOSTNAME";

/// `0`: embed in the foreground (as `index --wait` does) instead of in a detached,
/// low-priority background run; for scripts and tests that need the vectors when a command
/// returns.
pub const BACKGROUND: &str = "GIT_CODESEARCH_BACKGROUND";
/// Bytes of file content per pack a push uploads (default 8 MiB): tests and benchmarks make
/// packs small to have many.
pub const PACK_BYTES: &str = "GIT_CODESEARCH_PACK_BYTES";

/// For tests, and read by debug builds only: while parsing a file whose text contains this
/// value, die (`abort`) as a crashing grammar would, to test crash-only recovery
/// (`index::crashed`). A release build never reads it.
pub const CRASH_ON_PARSE: &str = "GIT_CODESEARCH_TEST_CRASH_ON_PARSE";

/// For tests, and read by debug builds only: the manifest bytes one pull may read, instead
/// of 256 MiB (`share::fetch::Budget`). A release build never reads it.
pub const TEST_PULL_MANIFEST_BYTES: &str = "GIT_CODESEARCH_TEST_PULL_MANIFEST_BYTES";

/// The value of `name`, if set.
pub fn get(name: &str) -> Option<OsString> {
    std::env::var_os(name)
}

/// The value of `name`, if set and not empty.
pub fn non_empty(name: &str) -> Option<OsString> {
    get(name).filter(|v| !v.is_empty())
}
