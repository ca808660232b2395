//! Small helpers shared by the modules: clocks, hashing, identifiers, path checks and
//! reading a file of an untrusted tree ([`files`]).

pub(crate) mod files;
#[cfg(test)]
pub(crate) mod fuzzing;

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
    hex(&Sha256::digest(bytes))
}

/// `bytes` as lower-case hex digits.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// Whether `hex` is a content address: 64 lower-case hex digits. Every hash that comes from
/// outside (a snapshot) is checked with this before it is stored or used in a filter.
pub fn is_content_hash(hex: &str) -> bool {
    hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Whether `rel` is a path git itself would check out (its `verify_path`): relative, no
/// empty, `.` or `..` component, no `.git` component in any spelling a case-insensitive or
/// Windows file system would take for `.git` (`.GIT`, `.git.`, `.git `, `git~1`), no
/// backslash. (A newline is a legal file name character; printing quotes it.) Paths from a tree object or a snapshot are untrusted:
/// one that fails is never used as a path.
pub fn is_safe_rel_path(rel: &str) -> bool {
    !rel.is_empty()
        && !rel.starts_with('/')
        && !rel.contains('\\')
        && rel.split('/').all(|c| {
            let trimmed = c.trim_end_matches(['.', ' ']).to_ascii_lowercase();
            !(c.is_empty() || c == "." || c == ".." || trimmed == ".git" || trimmed == "git~1")
        })
}

/// A URL as it may be shown or stored: without credentials (`user:pass@`) and without its
/// query (`?key=…`), which are replaced by `***`. Everything else is kept, so the URL still
/// says which server it is.
pub fn redact_url(url: &str) -> String {
    let (scheme, rest) = match url.split_once("://") {
        Some((s, r)) => (format!("{s}://"), r),
        None => (String::new(), url),
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let host = match authority.rsplit_once('@') {
        Some((_, host)) => format!("***@{host}"),
        None => authority.to_string(),
    };
    let tail = match tail.split_once('?') {
        Some((path, _)) => format!("{path}?***"),
        None => tail.to_string(),
    };
    format!("{scheme}{host}{tail}")
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

/// `2026-11-22 08:00:00 UTC` for a unix time.
pub fn when(unix: i64) -> String {
    let days = unix.div_euclid(86_400);
    let secs = unix.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        secs / 3600,
        (secs / 60) % 60,
        secs % 60
    )
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
    fn unsafe_paths_are_refused() {
        for bad in [
            "",
            "/etc/passwd",
            "..",
            "../x",
            "a/../../x",
            "a//b",
            "./a",
            "a/.",
            ".git/config",
            "sub/.GIT/hooks/x",
            ".git./config",
            "git~1/config",
            "a\\..\\b",
        ] {
            assert!(!super::is_safe_rel_path(bad), "{bad:?}");
        }
        for good in [
            "a",
            "src/main.rs",
            ".github/x.yml",
            "a/.gitignore",
            "x..y/z",
            "..a",
            "a\nb",
        ] {
            assert!(super::is_safe_rel_path(good), "{good:?}");
        }
    }

    #[test]
    fn urls_lose_their_credentials() {
        use super::redact_url;
        assert_eq!(
            redact_url("http://127.0.0.1:11434/v1"),
            "http://127.0.0.1:11434/v1"
        );
        assert_eq!(
            redact_url("https://user:pass@api.example/v1"),
            "https://***@api.example/v1"
        );
        assert_eq!(redact_url("https://h/v1?key=sk-1"), "https://h/v1?***");
        assert_eq!(redact_url("https://a:b@c@h"), "https://***@h");
    }

    #[test]
    fn content_hashes_are_64_lower_hex() {
        assert!(super::is_content_hash(&"a".repeat(64)));
        assert!(!super::is_content_hash(&"A".repeat(64)));
        assert!(!super::is_content_hash(&"a".repeat(63)));
        assert!(!super::is_content_hash(
            "x') OR true OR content_hash IN ('y"
        ));
    }

    #[test]
    fn sha256_of_empty_input() {
        assert_eq!(
            super::sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
