//! Small helpers shared by the modules: clocks, hashing, identifiers.

use sha2::{Digest, Sha256};

/// Seconds since the Unix epoch.
pub fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Hex SHA-256 of `bytes`: the content address of a file version.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// A fresh identifier for an index run: time and pid, unique enough on one machine.
pub fn new_run_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{nanos:x}-{}", std::process::id())
}

/// Modification time of a file in nanoseconds since the epoch (0 when unknown).
pub fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// When `GIT_CODESEARCH_TRACE` is set, print how long the process has run at `label` to
/// stderr: a cheap way to see where a command spends its time without a profiler.
pub fn trace(label: &str) {
    use std::sync::OnceLock;
    static START: OnceLock<Option<std::time::Instant>> = OnceLock::new();
    let start = START.get_or_init(|| {
        std::env::var_os("GIT_CODESEARCH_TRACE").map(|_| std::time::Instant::now())
    });
    if let Some(t) = start {
        eprintln!(
            "trace: {:>8.2} ms  {label}",
            t.elapsed().as_secs_f64() * 1000.0
        );
    }
}

/// A scratch directory, removed with everything in it when dropped.
pub struct ScratchDir(pub std::path::PathBuf);

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// An error and its causes on one line: `outer: inner: innermost`.
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn sha256_of_empty_input() {
        assert_eq!(
            super::sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
