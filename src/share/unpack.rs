//! Unpacking an untrusted snapshot (`import FILE`): entry by entry, into a private directory,
//! refusing anything `export` never writes. Only regular files and directories, only
//! `meta.sqlite` and `lance/…`, no absolute path, `..` or `.git` component, no entry twice,
//! and bounded in entries and bytes: a link in the tar once made `import` open and migrate a
//! database outside the index.

use std::collections::HashSet;
use std::fs::File;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use tar::EntryType;

use crate::store::{ChunkRow, StoreError};
use crate::workspace::{DB_FILE, LANCE_DIR};

/// Most entries a snapshot may hold (an index's LanceDB directory has hundreds).
pub const MAX_ENTRIES: usize = 1_000_000;
/// Most bytes a snapshot may unpack to.
pub const MAX_BYTES: u64 = 64 << 30;

/// Unpack the snapshot `file` into the empty directory `dir`.
pub fn unpack(file: &Path, dir: &Path) -> Result<(), StoreError> {
    let bad = |why: String| StoreError::BadSnapshot {
        path: file.to_path_buf(),
        why,
    };
    let input = File::open(file).map_err(StoreError::file(file, "open"))?;
    let truncated = |e: std::io::Error| bad(format!("it is truncated or not a tar archive ({e})"));
    let mut archive = tar::Archive::new(input);
    let mut entries = 0usize;
    let mut bytes = 0u64;
    let mut seen_db = false;
    for entry in archive.entries().map_err(truncated)? {
        let mut entry = entry.map_err(truncated)?;
        entries += 1;
        if entries > MAX_ENTRIES {
            return Err(bad(format!("it has more than {MAX_ENTRIES} entries")));
        }
        let rel = entry_path(&entry).map_err(&bad)?;
        let dest = dir.join(&rel);
        match entry.header().entry_type() {
            EntryType::Directory => {
                std::fs::create_dir_all(&dest).map_err(StoreError::scratch(&dest, "write"))?;
            }
            EntryType::Regular | EntryType::Continuous => {
                bytes = bytes.saturating_add(entry.size());
                if bytes > MAX_BYTES {
                    return Err(bad(format!("it unpacks to more than {MAX_BYTES} bytes")));
                }
                // `lance` is the vector store's directory; a file of that name is no snapshot's.
                if rel == Path::new(LANCE_DIR) {
                    return Err(bad(format!(
                        "{LANCE_DIR} is a file; a snapshot holds it as a directory"
                    )));
                }
                seen_db |= rel == Path::new(DB_FILE);
                write_file(&mut entry, &dest).map_err(|e| match e {
                    Written::Io(e) => StoreError::scratch(&dest, "write")(e),
                    Written::Twice => bad(format!("{} appears twice", rel.display())),
                    Written::Short(e) => truncated(e),
                })?;
            }
            other => {
                return Err(bad(format!(
                    "{} is a {other:?} entry; a snapshot holds only files and directories",
                    rel.display()
                )))
            }
        }
    }
    if !seen_db {
        return Err(bad(format!(
            "it holds no {DB_FILE}: not a snapshot written by `git codesearch export`"
        )));
    }
    Ok(())
}

/// The entry's path, if it is one `export` could have written.
fn entry_path<R: Read>(entry: &tar::Entry<'_, R>) -> Result<PathBuf, String> {
    let raw = entry.path_bytes();
    let shown = String::from_utf8_lossy(&raw).into_owned();
    let rel = std::str::from_utf8(&raw)
        .map_err(|_| format!("entry {shown:?} is not a UTF-8 path"))?
        .trim_end_matches('/');
    let path = Path::new(rel);
    let normal = path.components().all(|c| matches!(c, Component::Normal(_)));
    let top_ok = rel == DB_FILE || rel == LANCE_DIR || rel.starts_with(&format!("{LANCE_DIR}/"));
    if !normal || !top_ok || !crate::util::is_safe_rel_path(rel) {
        return Err(format!("entry {shown:?} is not a path a snapshot holds"));
    }
    Ok(path.to_path_buf())
}

enum Written {
    Io(std::io::Error),
    Twice,
    Short(std::io::Error),
}

fn write_file(entry: &mut impl Read, dest: &Path) -> Result<(), Written> {
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent).map_err(Written::Io)?;
    }
    let mut out = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(dest)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => Written::Twice,
            _ => Written::Io(e),
        })?;
    std::io::copy(entry, &mut out).map_err(Written::Short)?;
    Ok(())
}

/// Chunks read from a snapshot's chunk table for the contents `hashes`: each must belong to
/// one of them, with an id of the form `<hash>:<n>`, a safe path and an ordered line range.
pub fn check_chunks(hashes: &[String], rows: &[ChunkRow]) -> Result<(), String> {
    let wanted: HashSet<&str> = hashes.iter().map(String::as_str).collect();
    for r in rows {
        let id_ok = r.id.split_once(':').is_some_and(|(h, n)| {
            h == r.content_hash && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())
        });
        if !wanted.contains(r.content_hash.as_str()) || !id_ok {
            return Err(format!(
                "chunk {:?} does not belong to a content it announces",
                r.id
            ));
        }
        if !crate::util::is_safe_rel_path(&r.filepath) || r.start_line > r.end_line {
            return Err(format!("chunk {:?} has a bad path or line range", r.id));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tar with one entry named `name` (written into the header as is) of `kind`.
    fn one_entry(name: &[u8], kind: EntryType, data: &[u8]) -> Vec<u8> {
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(kind);
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        let n = name.len().min(100);
        h.as_gnu_mut().unwrap().name[..n].copy_from_slice(&name[..n]);
        h.set_cksum();
        let mut b = tar::Builder::new(Vec::new());
        b.append(&h, data).unwrap();
        b.into_inner().unwrap()
    }

    fn try_unpack(bytes: &[u8]) -> (tempfile::TempDir, Result<(), StoreError>) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("in.tar");
        std::fs::write(&file, bytes).unwrap();
        let out = dir.path().join("out");
        std::fs::create_dir(&out).unwrap();
        let r = unpack(&file, &out);
        (dir, r)
    }

    /// Every file below `dir`, relative.
    fn files(dir: &Path) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if e.file_type().unwrap().is_dir() {
                    stack.push(p);
                } else {
                    out.push(p.strip_prefix(dir).unwrap().display().to_string());
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn only_files_and_directories_under_the_known_names() {
        let (_d, ok) = try_unpack(&one_entry(b"meta.sqlite", EntryType::Regular, b"x"));
        ok.unwrap();
        for (name, kind) in [
            (&b"meta.sqlite"[..], EntryType::Symlink),
            (b"meta.sqlite", EntryType::Link),
            (b"lance/x", EntryType::Fifo),
            (b"lance/../../x", EntryType::Regular),
            (b"/etc/x", EntryType::Regular),
            (b"other", EntryType::Regular),
            (b"lance/.git/config", EntryType::Regular),
            // Found by the property test below: `lance` may only be the directory.
            (b"lance", EntryType::Regular),
        ] {
            let (d, r) = try_unpack(&one_entry(name, kind, b""));
            assert!(
                matches!(r, Err(StoreError::BadSnapshot { .. })),
                "{:?} {kind:?}: {r:?}",
                String::from_utf8_lossy(name)
            );
            assert_eq!(files(d.path()), ["in.tar"], "nothing written for {name:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(crate::util::fuzzing::config(64))]
        /// Any bytes, and any one-entry tar: no panic, and nothing is ever written outside
        /// the output directory or under a name a snapshot does not hold.
        #[test]
        fn any_snapshot_is_read_safely(
            junk in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..2048),
            name in proptest::collection::vec(proptest::sample::select(vec![
                &b"meta.sqlite"[..], b"lance", b"/", b"..", b"x", b".git", b"\\", b"\xff"]), 1..6),
            kind in proptest::sample::select(vec![
                EntryType::Regular, EntryType::Directory, EntryType::Symlink, EntryType::Link,
                EntryType::Char, EntryType::Fifo, EntryType::GNUSparse]),
        ) {
            let (d, _) = try_unpack(&junk);
            for f in files(d.path()) {
                proptest::prop_assert!(f == "in.tar" || f == "out/meta.sqlite" || f.starts_with("out/lance/"), "{}", f);
            }
            let entry = one_entry(&name.concat(), kind, b"data");
            let (d, _) = try_unpack(&entry);
            for f in files(d.path()) {
                proptest::prop_assert!(f == "in.tar" || f == "out/meta.sqlite" || f.starts_with("out/lance/"), "{}", f);
            }
        }
    }
}
