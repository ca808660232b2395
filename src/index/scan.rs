//! Hashing the walked files, reusing the stat cache: a file whose size and mtime equal a
//! catalog row of any branch (written at least a second after that mtime, so not "racy" in
//! git's sense) has that row's content hash and needs no reading.

use std::collections::HashMap;

use rayon::prelude::*;

use super::plan::Scanned;
use super::walk::{Walk, WalkedFile};
use crate::config::IndexConfig;
use crate::lang::quality::{self, SkipReason};
use crate::store::catalog::CatalogRow;

/// Hash every walked file (or reuse a cached hash); skipped walk entries become rows too.
/// `tick` is called once per file (progress).
pub fn scan(
    walk: &Walk,
    cache: &HashMap<String, Vec<CatalogRow>>,
    cfg: &IndexConfig,
    tick: &(dyn Fn() + Sync),
) -> Vec<Scanned> {
    let mut out: Vec<Scanned> = walk
        .files
        .par_iter()
        .map(|f| {
            let s = cached(f, cache).unwrap_or_else(|| read_and_hash(f, cfg));
            tick();
            s
        })
        .collect();
    out.extend(walk.skipped.iter().map(|(rel, reason)| Scanned {
        rel: rel.clone(),
        size: 0,
        mtime_ns: 0,
        content_hash: String::new(),
        skip_reason: Some(reason.to_string()),
    }));
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    out.dedup_by(|a, b| a.rel == b.rel);
    out
}

fn cached(f: &WalkedFile, cache: &HashMap<String, Vec<CatalogRow>>) -> Option<Scanned> {
    let rows = cache.get(&f.rel)?;
    let row = rows.iter().find(|r| {
        r.size == f.size
            && r.mtime_ns == f.mtime_ns
            && !r.content_hash.is_empty()
            && trusted(r.indexed_at, f.mtime_ns)
    })?;
    Some(Scanned {
        rel: f.rel.clone(),
        size: f.size,
        mtime_ns: f.mtime_ns,
        content_hash: row.content_hash.clone(),
        skip_reason: row.skip_reason.clone(),
    })
}

/// Whether a catalog row written at `indexed_at` (unix seconds) can vouch for a file with
/// this mtime: only if it was written over a second after that mtime (a later change in the
/// same second could keep both size and mtime).
fn trusted(indexed_at: i64, mtime_ns: i64) -> bool {
    mtime_ns != 0 && indexed_at.saturating_mul(1_000_000_000) > mtime_ns + 1_000_000_000
}

/// The paths whose row in `old` (this branch's catalog) has the scanned size, mtime and
/// content but could not vouch for them (so the file was read and matched), and that a row
/// written `now` could vouch for: refreshing them spares the next runs reading them again.
/// Without this, files checked out less than a second before an index run were re-read by
/// every later run.
pub fn verified_racy(scanned: &[Scanned], old: &[CatalogRow], now: i64) -> Vec<String> {
    let by_path: HashMap<&str, &CatalogRow> = old.iter().map(|r| (r.path.as_str(), r)).collect();
    scanned
        .iter()
        .filter(|s| !s.content_hash.is_empty() && trusted(now, s.mtime_ns))
        .filter(|s| {
            by_path.get(s.rel.as_str()).is_some_and(|r| {
                r.content_hash == s.content_hash
                    && r.size == s.size
                    && r.mtime_ns == s.mtime_ns
                    && r.skip_reason == s.skip_reason
                    && !trusted(r.indexed_at, r.mtime_ns)
            })
        })
        .map(|s| s.rel.clone())
        .collect()
}

/// Read a file, hash it and run the junk filter.
pub fn read_and_hash(f: &WalkedFile, cfg: &IndexConfig) -> Scanned {
    let mut s = Scanned {
        rel: f.rel.clone(),
        size: f.size,
        mtime_ns: f.mtime_ns,
        content_hash: String::new(),
        skip_reason: None,
    };
    let read = if f.size > cfg.max_file_size {
        Err(SkipReason::TooLarge(f.size))
    } else {
        f.read(cfg.max_file_size)
    };
    match read {
        Ok(bytes) => {
            s.size = bytes.len() as u64;
            s.content_hash = crate::util::sha256_hex(&bytes);
            if let Err(reason) = quality::check(&bytes, cfg) {
                s.skip_reason = Some(reason.to_string());
            }
        }
        Err(SkipReason::TooLarge(size)) => {
            // Too large to index: hash the metadata only, the bytes are never read whole.
            s.size = size;
            s.content_hash =
                crate::util::sha256_hex(format!("large:{size}:{}", f.mtime_ns).as_bytes());
            s.skip_reason = Some(SkipReason::TooLarge(size).to_string());
        }
        Err(reason) => s.skip_reason = Some(reason.to_string()),
    }
    s
}
