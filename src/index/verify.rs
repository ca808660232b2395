//! Checking content computed elsewhere against this clone's own bytes: an imported snapshot
//! (and, later, a pulled index) brings chunk text and definitions for content hashes, and a
//! content hash is the SHA-256 of a file's bytes, so whoever holds the same bytes can check
//! what was claimed about them. The check does not compute anything again (it holds across
//! builds and settings, which cut chunks differently): it asks whether the claims are
//! *true of the bytes*. The chunks, in order, cover every non-blank line once, and each
//! one's text is exactly its lines; each definition lies inside the file, its name and
//! signature on its first lines, each line of its doc comment in the file around it; the
//! counts and the size agree; names of kinds are plain words (a language is one this build
//! knows: `store::snapshot` refuses a snapshot that names another). Text that passes is the
//! user's own text at its own lines, whoever cut it.
//!
//! Until checked, imported content is hidden (`store::unverified`), and so is every catalog
//! row another machine wrote, whatever its content: a row is shown once this clone's blob at
//! its path has its hash ([`settle_from_objects`], after `import` and `pull`) or an index
//! run rewrites it from the file. [`settle`] records a batch of content checks for the index
//! run ([`settle_walked`]); `doctor` checks a sample ([`check_stored`]).

mod committed;
mod lines;

use std::collections::{HashMap, HashSet};
use std::path::Path;

pub use self::committed::committed_rows;
use self::committed::{blob_bytes, commit_of, AtPath, BlobHashes, Committed};
use self::lines::{found, found_as_lines, Lines};
use super::walk::WalkedFile;
use crate::git::Repo;
use crate::lang::symbols::{MAX_DOC, MAX_SIGNATURE};
use crate::lang::Symbol;
use crate::store::unverified::ContentRow;
use crate::store::{ChunkRow, ChunkStore, Db, StoreError};

/// How far from its first line a definition's name, signature or doc comment may be, in
/// lines (attributes and annotations come first; a docstring follows).
const NEAR: u32 = 64;

/// Most bytes the checks of one content may search through, as a multiple of its size (plus
/// a mebibyte): a real file's definitions need a few times its size; a snapshot claiming a
/// million definitions of one long line must not turn a check into hours.
const WORK_PER_BYTE: usize = 64;

/// What the index holds for one content hash.
#[derive(Debug, Clone)]
pub struct Stored {
    /// The content hash (SHA-256 of the bytes).
    pub hash: String,
    /// Its row: language, counts, size.
    pub row: ContentRow,
    /// Its chunks, in chunk order.
    pub chunks: Vec<ChunkRow>,
    /// Its definitions.
    pub symbols: Vec<Symbol>,
}

/// What the index holds for `hash`, if it holds the content.
pub fn stored(db: &Db, chunks: &ChunkStore, hash: &str) -> Result<Option<Stored>, StoreError> {
    let Some(row) = db.unverified().content_row(hash)? else {
        return Ok(None);
    };
    Ok(Some(Stored {
        hash: hash.to_string(),
        row,
        chunks: chunks.chunks_of(&[hash.to_string()])?,
        symbols: db.unverified().symbols_of(hash)?,
    }))
}

/// Whether everything `stored` says is true of `bytes`; the first claim that is not, in words.
pub fn check(bytes: &[u8], stored: &Stored) -> Result<(), String> {
    if crate::util::sha256_hex(bytes) != stored.hash {
        return Err("the bytes are another content".into());
    }
    if stored.row.size != bytes.len() as u64 {
        return Err(format!(
            "size {} for {} bytes",
            stored.row.size,
            bytes.len()
        ));
    }
    let text = std::str::from_utf8(bytes).map_err(|_| "the bytes are not UTF-8 text")?;
    let lines = Lines::new(text);
    check_chunks(&lines, stored)?;
    let mut budget = bytes.len().saturating_mul(WORK_PER_BYTE) + (1 << 20);
    check_symbols(&lines, stored, &mut budget)
}

/// A kind name: 1 to 32 characters of letters, digits, `_`, `+`, `#`, `.`, `-`.
fn is_word(s: &str) -> bool {
    (1..=32).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_+#.-".contains(&b))
}

fn check_chunks(lines: &Lines<'_>, stored: &Stored) -> Result<(), String> {
    let chunks = &stored.chunks;
    if chunks.len() != stored.row.n_chunks {
        return Err(format!(
            "{} chunks where its row says {}",
            chunks.len(),
            stored.row.n_chunks
        ));
    }
    // Lines before the next chunk: all must be blank.
    let mut next = 1u32;
    for (n, c) in chunks.iter().enumerate() {
        let bad = |why: &str| Err(format!("chunk {n}: {why}"));
        if c.id != format!("{}:{n}", stored.hash) || c.content_hash != stored.hash {
            return bad("not numbered in order");
        }
        if c.start_line < next || c.end_line < c.start_line || c.end_line > lines.count() {
            return bad("its lines overlap another chunk or leave the file");
        }
        if next < c.start_line && !lines.span(next, c.start_line - 1).trim().is_empty() {
            return bad("a line before it is in no chunk");
        }
        let newlines = c.content.matches('\n').count() as u32;
        let own = lines.span(c.start_line, c.end_line).trim_end();
        if c.content.trim().is_empty() || c.content != own || c.start_line + newlines != c.end_line
        {
            return bad("its text is not its lines");
        }
        next = c.end_line + 1;
    }
    if next <= lines.count() && !lines.span(next, lines.count()).trim().is_empty() {
        return Err("lines after the last chunk are in no chunk".into());
    }
    Ok(())
}

fn check_symbols(lines: &Lines<'_>, stored: &Stored, budget: &mut usize) -> Result<(), String> {
    if stored.symbols.len() != stored.row.n_symbols {
        return Err(format!(
            "{} definitions where its row says {}",
            stored.symbols.len(),
            stored.row.n_symbols
        ));
    }
    let n = lines.count();
    for s in &stored.symbols {
        let bad = |why: &str| Err(format!("definition {:?}: {why}", s.name));
        if s.start_line < 1 || s.end_line < s.start_line || s.end_line > n {
            return bad("its lines leave the file");
        }
        if !is_word(&s.kind) {
            return bad("its kind is not a name");
        }
        let longer = |t: &str, max: usize| t.chars().nth(max).is_some();
        if longer(&s.signature, MAX_SIGNATURE)
            || s.doc.as_deref().is_some_and(|d| longer(d, MAX_DOC))
        {
            return bad("its signature or doc comment is longer than any this build keeps");
        }
        if !head_found(lines, s, budget) {
            return bad(
                "its name or signature is not on its lines (or checking it costs too much)",
            );
        }
        if !doc_found(lines, s, budget) {
            return bad(
                "its doc comment is not in the file around it (or checking it costs too much)",
            );
        }
    }
    Ok(())
}

/// Whether `s`'s name and its line (the signature) come first on its lines, after any
/// attributes: within `NEAR` lines of its start.
fn head_found(lines: &Lines<'_>, s: &Symbol, budget: &mut usize) -> bool {
    let head = lines.span(s.start_line, s.end_line.min(s.start_line + NEAR));
    !s.name.is_empty() && found(head, &s.name, budget) && found(head, s.signature.trim(), budget)
}

/// Whether `s`'s doc comment (if it has one) is in the file around it: comment lines above
/// it, or a docstring below its first line, as whole lines one after the other. A doc cut at
/// `MAX_DOC` characters keeps its first lines, which may start far above (a long doc
/// comment): then the window reaches the top of the file.
fn doc_found(lines: &Lines<'_>, s: &Symbol, budget: &mut usize) -> bool {
    let Some(doc) = &s.doc else {
        return true;
    };
    let cut = doc.chars().nth(MAX_DOC - 1).is_some();
    let above = if cut {
        s.start_line
    } else {
        doc.lines().count() as u32 + NEAR
    };
    let near = (
        s.start_line.saturating_sub(above).max(1),
        lines.count().min(s.start_line + NEAR),
    );
    let doc_lines: Vec<&str> = doc
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    found_as_lines(lines, near, &doc_lines, cut, budget)
}

/// The definitions as the check above finds them: each doc comment it would not find around
/// its definition dropped, and each definition whose name it would not find near its start
/// left out. A parser's error recovery can attach a comment that ends a line of code
/// (`x := 1 // note`) to the next definition (Go, TypeScript), or start a definition dozens
/// of lines above its name (Elixir: `def g(x):(` … `""" where` sixty-five lines below). What
/// this build stores must pass its own check, or a teammate's import of it would be dropped
/// (both found by `index::fuzz`).
pub(crate) fn checkable(text: &str, mut symbols: Vec<Symbol>) -> Vec<Symbol> {
    let lines = Lines::new(text);
    let mut budget = text.len().saturating_mul(WORK_PER_BYTE) + (1 << 20);
    let inside = |s: &Symbol| s.start_line >= 1 && s.start_line <= lines.count();
    // Lines outside the file are the check's to refuse (the property test asserts there are
    // none), not this filter's to hide.
    let sound = |s: &Symbol| inside(s) && s.start_line <= s.end_line && s.end_line <= lines.count();
    symbols.retain(|s| !sound(s) || head_found(&lines, s, &mut budget));
    for s in symbols.iter_mut() {
        if inside(s) && !doc_found(&lines, s, &mut budget) {
            s.doc = None;
        }
    }
    symbols
}

/// What a batch of checks found.
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize)]
pub struct Settled {
    /// Contents found true of this clone's bytes: shown from now on.
    pub verified: usize,
    /// Contents that were not: dropped (their files are computed from their own bytes).
    pub dropped: usize,
}

/// Check each content of `found` (hash and this clone's bytes of it) that the index holds,
/// and record the outcome: verified, or dropped with its chunks and vectors. `bytes` of
/// `None` means the bytes were expected but could not be read as that content (the file
/// changed): dropped too, since whoever asked is about to use the content for that file.
pub fn settle(
    db: &Db,
    chunks: &ChunkStore,
    found: impl IntoIterator<Item = (String, Option<Vec<u8>>)>,
) -> Result<Settled, StoreError> {
    let mut verified = Vec::new();
    let mut dropped = Vec::new();
    for (hash, bytes) in found {
        let ok = match (&bytes, stored(db, chunks, &hash)?) {
            (_, None) => continue,
            (Some(b), Some(s)) => match check(b, &s) {
                Ok(()) => true,
                Err(why) => {
                    tracing::debug!("imported content {hash} dropped: {why}");
                    false
                }
            },
            (None, Some(_)) => false,
        };
        if ok {
            verified.push(hash);
        } else {
            dropped.push(hash);
        }
    }
    db.unverified().settle(&verified, &dropped)?;
    // After the catalog no longer shows them: a crash in between leaves orphans `doctor`
    // finds, never chunks shown for content that is gone.
    chunks.delete_hashes(&dropped)?;
    Ok(Settled {
        verified: verified.len(),
        dropped: dropped.len(),
    })
}

/// Before an index run tags anything: check every unverified content it found a file of
/// (`scanned` hash per path, `walked` the files with their bytes), so that it tags only
/// verified content. Whatever cannot be checked against the file now is dropped, and the
/// run computes that file itself.
pub fn settle_walked(
    db: &Db,
    chunks: &ChunkStore,
    unverified: &HashSet<String>,
    scanned: &[super::plan::Scanned],
    walked: &[WalkedFile],
    max: u64,
) -> Result<Settled, StoreError> {
    let mut first: HashMap<&str, &str> = HashMap::new();
    for s in scanned {
        if s.skip_reason.is_none() && unverified.contains(&s.content_hash) {
            first.entry(&s.content_hash).or_insert(&s.rel);
        }
    }
    let found = first.into_iter().map(|(hash, rel)| {
        let bytes = walked
            .binary_search_by(|f| f.rel.as_str().cmp(rel))
            .ok()
            .and_then(|i| walked[i].read(max).ok())
            .map(|b| b.into_owned());
        (hash.to_string(), bytes)
    });
    settle(db, chunks, found.collect::<Vec<_>>())
}

/// After an import or a pull: check each catalog row still waiting (`pending_rows`: every
/// row a merge brought in) against this clone's object database, row by row. A row is shown
/// only when the blob at its own path, in the commit of its branch (when this clone has that
/// branch or commit, else in HEAD's), has its hash, and its content, if not verified yet,
/// is true of those bytes; a row whose branch's own blob there has another hash is marked
/// [`MISMATCH`](crate::store::unverified::MISMATCH), and one whose path that commit lacks
/// goes; what this clone has no blob for stays hidden until an index run meets its file.
/// Each blob is hashed once and each content checked once per pass, however many rows share
/// them.
pub fn settle_from_objects(
    repo: &Repo,
    db: &Db,
    chunks: &ChunkStore,
    max: u64,
) -> Result<Settled, StoreError> {
    let pending = db.unverified().pending_rows()?;
    let unverified = db.unverified().hashes()?;
    let head = repo.head_commit().and_then(|c| Committed::of(repo, &c));
    let mut blobs = BlobHashes::default();
    // The content verdict per hash for this pass: true = verified.
    let mut verdicts: HashMap<String, bool> = HashMap::new();
    let (mut shown, mut mismatched, mut absent) = (Vec::new(), Vec::new(), Vec::new());
    // One branch's tree at a time (the rows are in branch order).
    let mut tree: Option<(String, Option<Committed>)> = None;
    for (branch, path, hash) in pending {
        if tree.as_ref().map(|(b, _)| b) != Some(&branch) {
            let own = commit_of(repo, &branch).and_then(|c| Committed::of(repo, &c));
            tree = Some((branch.clone(), own));
        }
        let own = tree.as_ref().and_then(|(_, t)| t.as_ref());
        let Some(at_commit) = own.or(head.as_ref()) else {
            continue;
        };
        let (id, found) = match at_commit.at(repo, &mut blobs, &path, max) {
            AtPath::File(id, found) => (id, found),
            // Another file there in the branch's own commit: the row is false here.
            AtPath::Other if own.is_some() => {
                mismatched.push((branch, path));
                continue;
            }
            // No such path in the branch's own commit: no run will ever meet its file, and a
            // row left waiting was read again by every later merge.
            AtPath::Absent if own.is_some() => {
                absent.push((branch, path));
                continue;
            }
            _ => continue,
        };
        if found != hash {
            if own.is_some() {
                mismatched.push((branch, path));
            }
            continue;
        }
        if unverified.contains(&hash) {
            let ok = match verdicts.get(&hash) {
                Some(&ok) => ok,
                None => {
                    let ok = content_holds(db, chunks, &hash, blob_bytes(repo, id, max))?;
                    verdicts.insert(hash.clone(), ok);
                    ok
                }
            };
            if !ok {
                continue; // its rows are marked when the content is dropped
            }
        }
        shown.push((branch, path));
    }
    let (verified, dropped): (Vec<_>, Vec<_>) = verdicts.into_iter().partition(|(_, ok)| *ok);
    let verified: Vec<String> = verified.into_iter().map(|(h, _)| h).collect();
    let dropped: Vec<String> = dropped.into_iter().map(|(h, _)| h).collect();
    db.unverified().settle(&verified, &dropped)?;
    chunks.delete_hashes(&dropped)?;
    db.unverified().settle_rows(&shown, &mismatched, &absent)?;
    Ok(Settled {
        verified: verified.len(),
        dropped: dropped.len(),
    })
}

/// Whether what the index holds for `hash` is true of `bytes` (this clone's blob of that
/// hash); a content the index does not hold is not.
fn content_holds(
    db: &Db,
    chunks: &ChunkStore,
    hash: &str,
    bytes: Option<Vec<u8>>,
) -> Result<bool, StoreError> {
    let (Some(bytes), Some(s)) = (bytes, stored(db, chunks, hash)?) else {
        return Ok(false);
    };
    Ok(match check(&bytes, &s) {
        Ok(()) => true,
        Err(why) => {
            tracing::debug!("imported content {hash} dropped: {why}");
            false
        }
    })
}

/// Check a sample of `branch`'s contents against the files of the work tree at `root`
/// (content already taken as verified, e.g. imported by an older version): the hashes
/// whose stored chunks or definitions are not true of their file. A file that changed since
/// it was indexed is not a finding.
pub fn check_stored(
    db: &Db,
    chunks: &ChunkStore,
    root: &Path,
    sample: &[(String, String)],
    max: u64,
) -> Result<Vec<String>, StoreError> {
    let mut wrong = Vec::new();
    for (path, hash) in sample {
        let Ok(crate::util::files::Bounded::Bytes(bytes)) =
            crate::util::files::read_beneath(root, Path::new(path), max)
        else {
            continue;
        };
        if crate::util::sha256_hex(&bytes) != *hash {
            continue;
        }
        if let Some(s) = stored(db, chunks, hash)? {
            if check(&bytes, &s).is_err() {
                wrong.push(hash.clone());
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    Ok(wrong)
}

#[cfg(test)]
mod tests;
