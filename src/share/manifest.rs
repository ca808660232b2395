//! The manifest of one branch on a remote: the packs it uses and, per path, the content hash
//! and the pack holding it. Gzip'd JSON, one object per version under
//! `manifests/<hex of the branch key>/<version, 20 digits>`: a push writes version n+1 with
//! a conditional create, so two pushers never overwrite each other and a reader sees a
//! whole version or none. A manifest comes from anyone who can write the remote: every field
//! is checked before any of it is used (`check`).

use std::collections::HashSet;
use std::io::{Read, Write};

use crate::store::pack::RemoteFile;

/// The manifest format this build writes and reads.
pub const FORMAT: u32 = 1;
/// Most bytes of a manifest object as stored (gzip'd): what a pull downloads for one branch.
pub const MAX_GZ: u64 = 32 << 20;
/// Most bytes a manifest may unpack to (its JSON, read as it streams, never held whole).
pub const MAX_JSON: u64 = 128 << 20;
/// Most entries (paths, and packs) of one manifest: a repository of half a million files
/// fits; a crafted manifest of millions of tiny entries stops here, at about 100 MiB held.
pub const MAX_ENTRIES: usize = 500_000;
/// Most bytes of a path in a manifest (git's own bound on a path it reads, see `git::tree`).
pub const MAX_PATH: usize = 4096;
/// Highest manifest version: a key above it is no manifest (so `n + 1` never wraps), and a
/// branch that reached it takes no more pushes.
pub const MAX_VERSION: u64 = 1_000_000_000_000;
/// Where packs live on a remote.
pub const PACKS: &str = "packs";
/// Where manifests live on a remote.
pub const MANIFESTS: &str = "manifests";

/// One path of a branch.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    /// Path relative to the work tree.
    #[serde(rename = "p")]
    pub path: String,
    /// Content hash (empty for a skipped entry with no content).
    #[serde(rename = "h")]
    pub hash: String,
    /// Size in bytes.
    #[serde(rename = "s")]
    pub size: u64,
    /// Why it is not indexed, if it is not.
    #[serde(rename = "k", default, skip_serializing_if = "Option::is_none")]
    pub skip: Option<String>,
    /// Index into [`Manifest::packs`] of the pack holding the content (indexed entries).
    #[serde(rename = "i", default, skip_serializing_if = "Option::is_none")]
    pub pack: Option<usize>,
}

/// One version of one branch's manifest.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Manifest {
    /// [`FORMAT`].
    pub format: u32,
    /// Catalog key of the branch.
    pub branch: String,
    /// When it was pushed (the pusher's clock, unix seconds).
    pub pushed_at: i64,
    /// Pack names (SHA-256 of their bytes).
    #[serde(deserialize_with = "bounded")]
    pub packs: Vec<String>,
    /// The branch's paths.
    #[serde(deserialize_with = "bounded")]
    pub files: Vec<Entry>,
}

/// The object key of `branch`'s manifest directory.
pub fn dir_of(branch: &str) -> String {
    let hex: String = branch.bytes().map(|b| format!("{b:02x}")).collect();
    format!("{MANIFESTS}/{hex}")
}

/// The object key of version `n` of `branch`'s manifest.
pub fn key_of(branch: &str, n: u64) -> String {
    format!("{}/{n:020}", dir_of(branch))
}

/// The object key of a pack.
pub fn pack_key(pack: &str) -> String {
    format!("{PACKS}/{pack}")
}

/// (branch, version) of a manifest key, if it is one a push writes.
pub fn parse_key(key: &str) -> Option<(String, u64)> {
    let rest = key.strip_prefix(MANIFESTS)?.strip_prefix('/')?;
    let (hex, n) = rest.split_once('/')?;
    if n.len() != 20 || !n.bytes().all(|b| b.is_ascii_digit()) || hex.len() % 2 != 0 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect();
    let branch = String::from_utf8(bytes?).ok()?;
    let n: u64 = n.parse().ok()?;
    (is_branch_key(&branch) && (1..=MAX_VERSION).contains(&n)).then_some((branch, n))
}

/// A catalog key a push writes: `refs/heads/…` with a safe name, or `detached/<commit id>`
/// (a detached HEAD) or `rev/<commit id>` (an index built with `--rev`), the id in full hex:
/// anything else after `detached/` could be a revision expression for whoever resolves it.
pub fn is_branch_key(key: &str) -> bool {
    if let Some(id) = key
        .strip_prefix("rev/")
        .or_else(|| key.strip_prefix("detached/"))
    {
        return matches!(id.len(), 40 | 64) && id.bytes().all(|b| b.is_ascii_hexdigit());
    }
    let name = key.strip_prefix("refs/heads/");
    name.is_some_and(|n| {
        !n.is_empty()
            && n.len() <= 1024
            && crate::util::is_safe_rel_path(n)
            && !n.chars().any(char::is_control)
    })
}

impl Manifest {
    /// Build the manifest of `branch` from its catalog rows and the pack of each content.
    pub fn new(
        branch: &str,
        files: &[RemoteFile],
        pack_of: &impl Fn(&str) -> Option<String>,
    ) -> Manifest {
        let mut packs: Vec<String> = Vec::new();
        let mut index = std::collections::HashMap::new();
        let entries = files
            .iter()
            .map(|f| {
                let pack = if f.skip.is_none() {
                    pack_of(&f.hash).map(|p| {
                        *index.entry(p.clone()).or_insert_with(|| {
                            packs.push(p);
                            packs.len() - 1
                        })
                    })
                } else {
                    None
                };
                Entry {
                    path: f.path.clone(),
                    hash: f.hash.clone(),
                    size: f.size,
                    skip: f.skip.clone(),
                    pack,
                }
            })
            .collect();
        Manifest {
            format: FORMAT,
            branch: branch.into(),
            pushed_at: crate::util::unix_now(),
            packs,
            files: entries,
        }
    }

    /// Whether two versions say the same (apart from when they were pushed).
    pub fn same_as(&self, other: &Manifest) -> bool {
        let files = |m: &Manifest| -> Vec<(Entry, Option<String>)> {
            m.files
                .iter()
                .map(|e| {
                    let pack = e.pack.and_then(|i| m.packs.get(i).cloned());
                    (
                        Entry {
                            pack: None,
                            ..e.clone()
                        },
                        pack,
                    )
                })
                .collect()
        };
        self.branch == other.branch && files(self) == files(other)
    }

    /// The rows of the catalog this manifest describes.
    pub fn files(&self) -> Vec<RemoteFile> {
        self.files
            .iter()
            .map(|e| RemoteFile {
                path: e.path.clone(),
                hash: e.hash.clone(),
                size: e.size,
                skip: e.skip.clone(),
            })
            .collect()
    }

    /// The pack holding `entry`'s content.
    pub fn pack_of(&self, entry: &Entry) -> Option<&str> {
        entry
            .pack
            .and_then(|i| self.packs.get(i))
            .map(String::as_str)
    }

    /// Gzip'd JSON.
    pub fn to_bytes(&self) -> Vec<u8> {
        let json = serde_json::to_vec(self).unwrap_or_default();
        gzip(&json)
    }

    /// Parse and check the bytes of the object at `branch`'s manifest key; the reason if
    /// they are not a manifest of that branch this build would write.
    pub fn parse(bytes: &[u8], branch: &str) -> Result<Manifest, String> {
        // Streamed: the JSON is never held whole, and neither more than MAX_JSON bytes of
        // it nor more than MAX_ENTRIES entries are read.
        let json = Bounded {
            inner: flate2::read::GzDecoder::new(bytes),
            left: MAX_JSON,
        };
        let m: Manifest = serde_json::from_reader(std::io::BufReader::new(json))
            .map_err(|e| format!("it does not parse: {e}"))?;
        m.check(branch)?;
        Ok(m)
    }

    fn check(&self, branch: &str) -> Result<(), String> {
        if self.format != FORMAT {
            return Err(format!(
                "format {} (this build reads {FORMAT})",
                self.format
            ));
        }
        if self.branch != branch {
            return Err("it names another branch than its key".into());
        }
        if let Some(p) = self.packs.iter().find(|p| !crate::util::is_content_hash(p)) {
            return Err(format!("pack name {p:?} is not a SHA-256"));
        }
        let mut seen = HashSet::new();
        for e in &self.files {
            if e.path.len() > MAX_PATH
                || !crate::util::is_safe_rel_path(&e.path)
                || !seen.insert(e.path.as_str())
            {
                return Err(format!("path {:?} is not safe or appears twice", e.path));
            }
            let hash_ok =
                crate::util::is_content_hash(&e.hash) || (e.hash.is_empty() && e.skip.is_some());
            let pack_ok = match (&e.skip, e.pack) {
                (None, Some(i)) => i < self.packs.len(),
                (Some(_), None) => true,
                _ => false,
            };
            let skip_ok = e
                .skip
                .as_ref()
                .is_none_or(|s| s.len() <= 200 && !s.chars().any(char::is_control));
            if !hash_ok || !pack_ok || !skip_ok {
                return Err(format!("the entry of {:?} is malformed", e.path));
            }
        }
        Ok(())
    }
}

/// A reader that fails past `left` bytes, rather than ending: a manifest cut at its bound
/// must not parse as a shorter one.
struct Bounded<R> {
    inner: R,
    left: u64,
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.left = self.left.checked_sub(n as u64).ok_or_else(|| {
            std::io::Error::other(format!("it unpacks to more than {MAX_JSON} bytes"))
        })?;
        Ok(n)
    }
}

/// Deserialize a list of at most [`MAX_ENTRIES`] items, failing at the first one past it
/// (before it is built): serde's own `Vec` takes any length.
fn bounded<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    struct Visit<T>(std::marker::PhantomData<T>);
    impl<'de, T: serde::Deserialize<'de>> serde::de::Visitor<'de> for Visit<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "a list of at most {MAX_ENTRIES} entries")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
            while let Some(item) = seq.next_element()? {
                if out.len() == MAX_ENTRIES {
                    return Err(serde::de::Error::custom(format!(
                        "more than {MAX_ENTRIES} entries"
                    )));
                }
                out.push(item);
            }
            Ok(out)
        }
    }
    d.deserialize_seq(Visit(std::marker::PhantomData))
}

/// Gzip `bytes`.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    // Writing to a Vec does not fail.
    let _ = enc.write_all(bytes);
    enc.finish().unwrap_or_default()
}

/// Gunzip `bytes`, refusing more than `max` bytes out.
pub fn gunzip(bytes: &[u8], max: u64) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    gunzip_to(bytes, &mut out, max).map_err(|e| match e {
        Gunzip::Refused(why) => why,
        Gunzip::Write(e) => format!("it cannot be unpacked in memory ({e})"),
    })?;
    Ok(out)
}

/// Why [`gunzip_to`] stopped.
#[derive(Debug)]
pub enum Gunzip {
    /// The bytes are not gzip data, or unpack to more than allowed.
    Refused(String),
    /// Writing what they unpack to failed.
    Write(std::io::Error),
}

/// Gunzip `bytes` into `out` as it goes, refusing more than `max` bytes out (what was
/// written before a refusal stays in `out`: the caller drops it).
pub fn gunzip_to(bytes: &[u8], out: &mut impl Write, max: u64) -> Result<(), Gunzip> {
    let mut unpacked = flate2::read::GzDecoder::new(bytes).take(max + 1);
    let mut buf = vec![0u8; 64 << 10];
    let mut written = 0u64;
    loop {
        let n = unpacked
            .read(&mut buf)
            .map_err(|e| Gunzip::Refused(format!("it is not gzip data ({e})")))?;
        if n == 0 {
            break;
        }
        written += n as u64;
        if written > max {
            return Err(Gunzip::Refused(format!(
                "it unpacks to more than {max} bytes"
            )));
        }
        out.write_all(&buf[..n]).map_err(Gunzip::Write)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, hash: char) -> RemoteFile {
        RemoteFile {
            path: path.into(),
            hash: hash.to_string().repeat(64),
            size: 3,
            skip: None,
        }
    }

    #[test]
    fn a_manifest_round_trips_and_keys_parse_back() {
        let pack = "c".repeat(64);
        let m = Manifest::new(
            "refs/heads/feat/x",
            &[file("a.rs", 'a'), file("b.rs", 'b')],
            &|_| Some(pack.clone()),
        );
        assert_eq!(m.packs, std::slice::from_ref(&pack));
        let back = Manifest::parse(&m.to_bytes(), "refs/heads/feat/x").unwrap();
        assert_eq!(back, m);
        assert!(back.same_as(&m));
        let key = key_of("refs/heads/feat/x", 7);
        assert_eq!(parse_key(&key), Some(("refs/heads/feat/x".into(), 7)));
        assert_eq!(parse_key("manifests/2e2e/00000000000000000001"), None);
        let rev = format!("rev/{}", "ab".repeat(20));
        assert_eq!(parse_key(&key_of(&rev, 1)), Some((rev, 1)));
        assert!(!is_branch_key("rev/../x"));
        assert!(Manifest::parse(&m.to_bytes(), "refs/heads/main").is_err());
    }

    #[test]
    fn a_manifest_naming_a_climbing_path_or_a_bad_pack_is_refused() {
        let pack = "c".repeat(64);
        let mut m = Manifest::new("refs/heads/main", &[file("a.rs", 'a')], &|_| {
            Some(pack.clone())
        });
        m.files[0].path = "../x".into();
        assert!(Manifest::parse(&m.to_bytes(), "refs/heads/main").is_err());
        m.files[0].path = "a.rs".into();
        m.files[0].pack = Some(3);
        assert!(Manifest::parse(&m.to_bytes(), "refs/heads/main").is_err());
        m.files[0].pack = Some(0);
        m.packs[0] = "../../etc".into();
        assert!(Manifest::parse(&m.to_bytes(), "refs/heads/main").is_err());
        assert!(Manifest::parse(b"not gzip", "refs/heads/main").is_err());
    }

    #[test]
    fn gunzip_stops_past_its_bound_and_refuses_what_is_not_gzip() {
        let packed = gzip(&vec![b'x'; 300_000]);
        assert_eq!(gunzip(&packed, 300_000).unwrap().len(), 300_000);
        let mut out = Vec::new();
        assert!(matches!(
            gunzip_to(&packed, &mut out, 299_999),
            Err(Gunzip::Refused(why)) if why.contains("more than 299999 bytes")
        ));
        assert!(out.len() < 300_000, "it stopped writing at the bound");
        assert!(gunzip(b"not gzip", 10)
            .unwrap_err()
            .contains("not gzip data"));
    }

    /// What every manifest that parses holds to, whatever bytes it came from.
    fn holds(m: &Manifest) -> Result<(), String> {
        let ok = m.files.len() <= MAX_ENTRIES
            && m.packs.iter().all(|p| crate::util::is_content_hash(p))
            && m.files.iter().all(|e| {
                crate::util::is_safe_rel_path(&e.path)
                    && e.path.len() <= MAX_PATH
                    && e.pack.is_none_or(|i| i < m.packs.len())
                    && m.pack_of(e).is_some() == e.skip.is_none()
            });
        ok.then_some(()).ok_or_else(|| format!("{m:?}"))
    }

    proptest::proptest! {
        #![proptest_config(crate::util::fuzzing::config(64))]
        /// Any bytes, gzip'd or not: refused or a manifest that holds to its checks, never a
        /// panic.
        #[test]
        fn any_bytes_are_refused_or_a_checked_manifest(
            junk in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..1024),
        ) {
            for bytes in [junk.clone(), gzip(&junk)] {
                if let Ok(m) = Manifest::parse(&bytes, "refs/heads/main") {
                    proptest::prop_assert!(holds(&m).is_ok(), "{:?}", holds(&m));
                }
            }
        }

        /// A valid manifest's JSON with bytes changed: refused, or still one that holds.
        #[test]
        fn a_mutated_manifest_is_refused_or_checked(
            paths in proptest::collection::vec("[a-z./\\\\]{1,12}", 1..6),
            edits in proptest::collection::vec(
                (proptest::prelude::any::<usize>(), proptest::prelude::any::<u8>()), 1..4),
        ) {
            let files: Vec<RemoteFile> = paths.iter().map(|p| file(p, 'a')).collect();
            let pack = "c".repeat(64);
            let m = Manifest::new("refs/heads/main", &files, &|_| Some(pack.clone()));
            let mut json = serde_json::to_vec(&m).unwrap();
            for (at, b) in edits {
                let i = at % json.len();
                json[i] = b;
            }
            if let Ok(m) = Manifest::parse(&gzip(&json), "refs/heads/main") {
                proptest::prop_assert!(holds(&m).is_ok(), "{:?}", holds(&m));
            }
        }

        /// A key parses back only to a branch a push writes and a version in range.
        #[test]
        fn a_key_parses_only_within_its_bounds(
            hex in "[0-9a-f]{0,40}",
            n in "[0-9]{18,21}",
        ) {
            let key = format!("{MANIFESTS}/{hex}/{n}");
            if let Some((branch, v)) = parse_key(&key) {
                proptest::prop_assert!(is_branch_key(&branch));
                proptest::prop_assert!((1..=MAX_VERSION).contains(&v));
                proptest::prop_assert_eq!(key_of(&branch, v), key);
            }
        }
    }
}
