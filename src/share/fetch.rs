//! Fetching a pulled pack within bounds: streamed from the remote through gunzip straight to
//! a scratch file while its hash is computed, so a pack is never held in memory; its
//! unpacked size is bounded by what the manifest declares it holds (a gzip bomb stops a few
//! MiB past that), and the whole pull by a budget of manifest entries, manifest bytes and
//! unpacked bytes. Also the scratch directories of push and pull, named by their process, so
//! that the next run removes those a killed one left.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::Path;

use super::client::{Remote, RemoteError};
use super::manifest::{self, Manifest};
use super::ShareError;
use crate::store::StoreError;

/// Most bytes of content a manifest entry counts for in a pack's unpack bound (the ceiling
/// of `index.max_file_size`: no indexed file is larger).
pub const MAX_DECLARED: u64 = 100 << 20;

/// Most bytes of one pack object as stored.
pub const MAX_PACK_GZ: u64 = 1 << 30;
/// Most bytes one pack may unpack to, whatever a manifest declares.
pub const MAX_UNPACK: u64 = 4 << 30;
/// Unpacked bytes a pack may take beyond 4x the content it is declared to hold: an empty
/// database in the pack schema, with its tables and indexes, is well under this.
pub const UNPACK_FLOOR: u64 = 1 << 20;
/// Manifest entries a whole pull reads, over all branches.
pub const PULL_ENTRIES: u64 = 2_000_000;
/// Manifest bytes (as stored) a whole pull reads.
pub const PULL_MANIFEST_BYTES: u64 = 256 << 20;
/// Bytes the packs of a whole pull may unpack to.
pub const PULL_UNPACKED: u64 = 32 << 30;

/// What a pull may still read.
pub struct Budget {
    entries: u64,
    manifest_bytes: u64,
    unpacked: u64,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            entries: PULL_ENTRIES,
            manifest_bytes: pull_manifest_bytes(),
            unpacked: PULL_UNPACKED,
        }
    }
}

/// Why a manifest is not read, or refused, once the pull's budget is spent.
pub fn budget_spent() -> String {
    format!(
        "pull budget exceeded: a pull reads at most {PULL_ENTRIES} manifest entries and {PULL_MANIFEST_BYTES} manifest bytes"
    )
}

/// The manifest bytes a pull may read: [`PULL_MANIFEST_BYTES`], or in a debug build what
/// the tests set (`env::TEST_PULL_MANIFEST_BYTES`), so that a test spends it in a few MiB.
fn pull_manifest_bytes() -> u64 {
    #[cfg(debug_assertions)]
    if let Some(n) = crate::env::non_empty(crate::env::TEST_PULL_MANIFEST_BYTES)
        .and_then(|v| v.to_str()?.parse().ok())
    {
        return n;
    }
    PULL_MANIFEST_BYTES
}

impl Budget {
    /// Manifest bytes the pull may still read.
    pub fn manifest_room(&self) -> u64 {
        self.manifest_bytes
    }

    /// Charge a manifest of `entries` entries and `bytes` stored bytes; the reason once the
    /// pull has read all it may.
    pub fn manifest(&mut self, entries: usize, bytes: u64) -> Result<(), String> {
        match (
            self.entries.checked_sub(entries as u64),
            self.manifest_bytes.checked_sub(bytes),
        ) {
            (Some(e), Some(b)) => {
                (self.entries, self.manifest_bytes) = (e, b);
                Ok(())
            }
            _ => Err(budget_spent()),
        }
    }
}

/// The unpacked size allowed to a pack said to hold `declared` bytes of file content.
pub fn unpack_bound(declared: u64) -> u64 {
    declared
        .saturating_mul(4)
        .saturating_add(UNPACK_FLOOR)
        .min(MAX_UNPACK)
}

/// The stored (gzip) size allowed to a pack said to hold `declared` bytes of content: what
/// it may unpack to and gzip's own overhead (under 0.1 %). A pack is never larger than the
/// data it holds, but gzip's empty stored blocks (five bytes that unpack to nothing) could
/// pad a small one to [`MAX_PACK_GZ`], all of it downloaded.
pub fn stored_bound(declared: u64) -> u64 {
    let unpacked = unpack_bound(declared);
    unpacked
        .saturating_add(unpacked / 1000)
        .saturating_add(4 << 10)
        .min(MAX_PACK_GZ)
}

/// A writer that gunzips into a file, refusing past a bound (which it remembers, to tell a
/// refusal from a failed write).
struct Unpacker<'a> {
    gz: flate2::write::GzDecoder<Counted<'a>>,
}

struct Counted<'a> {
    file: std::fs::File,
    left: u64,
    budget: &'a mut u64,
    bound: u64,
    refused: bool,
    failed: bool,
}

impl Write for Counted<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = buf.len() as u64;
        if n > self.left || n > *self.budget {
            self.refused = true;
            return Err(std::io::Error::other(format!(
                "it unpacks to more than {} bytes",
                self.bound
            )));
        }
        let written = self.file.write(buf).inspect_err(|_| self.failed = true)?;
        self.left -= written as u64;
        *self.budget -= written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl Write for Unpacker<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.gz.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.gz.flush()
    }
}

/// Download pack `name` to `path`, said to hold `declared` bytes of content: streamed,
/// hashed as it comes, unpacked within [`unpack_bound`] and the pull's `budget`, then its
/// database checked. The bytes downloaded. Whatever is wrong with the remote's data is a
/// [`RemoteError::BadObject`] naming the remote and the pack.
pub fn fetch_pack(
    remote: &Remote,
    name: &str,
    declared: u64,
    path: &Path,
    budget: &mut Budget,
) -> Result<u64, ShareError> {
    let key = manifest::pack_key(name);
    let bad = |why: String| RemoteError::BadObject {
        url: remote.url().into(),
        key: key.clone(),
        why,
    };
    if !crate::util::is_content_hash(name) {
        return Err(bad("a manifest names it without a pack".into()).into());
    }
    let bound = unpack_bound(declared);
    let file = std::fs::File::create(path).map_err(StoreError::scratch(path, "write"))?;
    let mut sink = Unpacker {
        gz: flate2::write::GzDecoder::new(Counted {
            file,
            left: bound,
            budget: &mut budget.unpacked,
            bound,
            refused: false,
            failed: false,
        }),
    };
    let got = remote.get_to(&key, stored_bound(declared), &mut sink);
    let finished = sink.gz.try_finish();
    let (refused, failed) = (sink.gz.get_ref().refused, sink.gz.get_ref().failed);
    let info = match got {
        Ok(Some(info)) => info,
        Ok(None) => {
            return Err(RemoteError::Missing {
                url: remote.url().into(),
                key,
            }
            .into())
        }
        Err(RemoteError::Sink { source, .. }) if refused => {
            return Err(bad(source.to_string()).into())
        }
        Err(RemoteError::Sink { source, .. }) if failed => {
            return Err(StoreError::scratch(path, "write")(source).into())
        }
        Err(RemoteError::Sink { source, .. }) => {
            return Err(bad(format!("it is not gzip data ({source})")).into())
        }
        Err(e) => return Err(e.into()),
    };
    if info.sha256 != name {
        return Err(bad(format!(
            "its bytes hash to {}, not to its name",
            info.sha256
        ))
        .into());
    }
    match finished {
        Ok(()) => {}
        Err(_) if refused => {
            return Err(bad(format!("it unpacks to more than {bound} bytes")).into())
        }
        Err(e) if failed => return Err(StoreError::scratch(path, "write")(e).into()),
        Err(e) => return Err(bad(format!("it is not gzip data ({e})")).into()),
    }
    // Said of the remote's object, not of a local file: this index is not damaged.
    crate::store::snapshot::check(path).map_err(|e| match e {
        StoreError::BadSnapshot { why, .. } => {
            bad(format!("it is not a pack this build reads: {why}"))
        }
        _ => bad("it is not a pack database (SQLite refuses it)".into()),
    })?;
    tracing::debug!(pack = %name, bytes = info.bytes, "pack fetched");
    Ok(info.bytes)
}

/// Per pack of `m`: the contents to take from it (`wanted`, not `dropped`), and the content
/// it is said to hold (the bound of what it may unpack to).
pub fn by_pack<'a>(
    m: &'a Manifest,
    wanted: &HashSet<String>,
    dropped: &HashSet<String>,
) -> BTreeMap<&'a str, (Vec<String>, u64)> {
    let mut by_pack: BTreeMap<&str, (Vec<String>, u64)> = BTreeMap::new();
    let mut seen: HashSet<&str> = HashSet::new();
    for e in m.files.iter().filter(|e| e.skip.is_none()) {
        if !seen.insert(&e.hash) {
            continue;
        }
        let Some(p) = m.pack_of(e) else { continue };
        let slot = by_pack.entry(p).or_default();
        slot.1 = slot.1.saturating_add(e.size.min(MAX_DECLARED));
        if wanted.contains(&e.hash) && !dropped.contains(&e.hash) {
            slot.0.push(e.hash.clone());
        }
    }
    by_pack
}

/// Prefixes of the scratch directories of push and pull in the index directory.
const SCRATCH: [&str; 2] = [".pull-", ".push-"];
/// Age past which a scratch directory is removed whatever its name says.
const STALE_SECS: u64 = 24 * 3600;

/// A new scratch directory for `what` ("pull" or "push") in `index_dir`, named by this
/// process, so that [`clean_stale_scratch`] knows when it is left over.
pub fn scratch_dir(index_dir: &Path, what: &str) -> Result<tempfile::TempDir, StoreError> {
    tempfile::Builder::new()
        .prefix(&format!(".{what}-{}-", std::process::id()))
        .tempdir_in(index_dir)
        .map_err(StoreError::scratch(index_dir, "create"))
}

/// Remove the scratch directories of pushes and pulls that are over: their process is gone,
/// or they are older than a day (best effort: what cannot be removed now is tried next time).
pub fn clean_stale_scratch(index_dir: &Path) {
    let Ok(entries) = std::fs::read_dir(index_dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = SCRATCH.iter().find_map(|p| name.strip_prefix(p)) else {
            continue;
        };
        // Never follow a link out of the index directory.
        if !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let pid: Option<u32> = rest.split('-').next().and_then(|p| p.parse().ok());
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age.as_secs() > STALE_SECS);
        let dead = pid.is_some_and(|p| p != std::process::id() && !pid_alive(p));
        if dead || old {
            tracing::debug!(dir = %name, "removing a scratch directory left over");
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(unix)]
fn pid_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: kill(2) with signal 0 sends nothing and touches no memory of ours.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(not(unix))]
fn pid_alive(_pid: u32) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes of a valid (empty) pack: a database in the snapshot schema.
    fn valid_pack() -> &'static [u8] {
        static PACK: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
        PACK.get_or_init(|| {
            let dir = tempfile::tempdir().expect("temp dir");
            let db = crate::store::Db::open(&dir.path().join("seed.sqlite")).expect("seed");
            let out = dir.path().join("pack.sqlite");
            db.exchange().snapshot_into(&out).expect("snapshot");
            std::fs::read(&out).expect("read pack")
        })
    }

    /// Upload `raw` gzip'd as a pack and fetch it, declared as `declared` bytes; then
    /// assemble it if it was taken.
    fn fetch(raw: &[u8], declared: u64) -> Result<(), String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let url = format!("file://{}/remote", dir.path().display());
        let remote = Remote::open(&url).map_err(|e| e.to_string())?;
        let gz = manifest::gzip(raw);
        let name = crate::util::sha256_hex(&gz);
        remote
            .create(&manifest::pack_key(&name), gz)
            .map_err(|e| e.to_string())?;
        let path = dir.path().join("pack-0.sqlite");
        fetch_pack(&remote, &name, declared, &path, &mut Budget::default())
            .map_err(|e| crate::util::chain(&e))?;
        let out = dir.path().join("assembled.sqlite");
        crate::store::pack::assemble(&out, &[(path, vec!["a".repeat(64)])])
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_valid_pack_is_fetched_and_a_bomb_is_stopped_at_its_bound() {
        fetch(valid_pack(), 0).expect("a valid pack");
        let bomb = vec![0u8; (unpack_bound(0) + 1) as usize];
        let err = fetch(&bomb, 0).unwrap_err();
        assert!(err.contains("unpacks to more than"), "{err}");
        let err = fetch(b"SQLite format 3\0 and then nothing", 0).unwrap_err();
        assert!(err.contains("remote"), "{err}");
    }

    #[test]
    fn a_read_stops_at_its_bound_whatever_size_the_object_has() {
        let dir = tempfile::tempdir().expect("temp dir");
        let remote = Remote::open(&format!("file://{}/r", dir.path().display())).expect("open");
        remote
            .create("packs/x", vec![7u8; 100_000])
            .expect("create");
        let mut sink = Vec::new();
        let err = remote.get_to("packs/x", 99_999, &mut sink).unwrap_err();
        assert!(err.to_string().contains("is refused"), "{err}");
        assert!(sink.len() < 100_000);
        let got = remote
            .get_to("packs/x", 100_000, &mut Vec::new())
            .expect("read");
        let want = crate::util::sha256_hex(&vec![7u8; 100_000]);
        assert_eq!(got.map(|g| (g.bytes, g.sha256)), Some((100_000, want)));
    }

    proptest::proptest! {
        #![proptest_config(crate::util::fuzzing::config(16))]
        /// A pack with bytes changed: refused naming the remote, or read and assembled;
        /// never a panic.
        #[test]
        fn a_mutated_pack_is_refused_or_read(
            edits in proptest::collection::vec(
                (proptest::prelude::any::<usize>(), proptest::prelude::any::<u8>()), 1..8),
        ) {
            let mut raw = valid_pack().to_vec();
            for (at, b) in edits {
                let i = at % raw.len();
                raw[i] = b;
            }
            if let Err(e) = fetch(&raw, 1 << 20) {
                proptest::prop_assert!(e.contains("remote") || e.contains("assembl"), "{}", e);
            }
        }
    }
}
