//! Hashing the walked files, reusing the stat cache: a file whose size and mtime equal a
//! catalog row of any branch (written at least a second after that mtime, so not "racy" in
//! git's sense) has that row's content hash and needs no reading.

use std::collections::HashMap;

use rayon::prelude::*;

use super::plan::Scanned;
use super::quality::{self, SkipReason};
use super::walk::{Walk, WalkedFile};
use crate::config::IndexConfig;
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
            && f.mtime_ns != 0
            && !r.content_hash.is_empty()
            && r.indexed_at.saturating_mul(1_000_000_000) > f.mtime_ns + 1_000_000_000
    })?;
    Some(Scanned {
        rel: f.rel.clone(),
        size: f.size,
        mtime_ns: f.mtime_ns,
        content_hash: row.content_hash.clone(),
        skip_reason: row.skip_reason.clone(),
    })
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
    if f.size > cfg.max_file_size {
        // Too large to index: hash the metadata only, the bytes are never read.
        s.content_hash =
            crate::util::sha256_hex(format!("large:{}:{}", f.size, f.mtime_ns).as_bytes());
        s.skip_reason = Some(SkipReason::TooLarge(f.size).to_string());
        return s;
    }
    match f.read() {
        Ok(bytes) => {
            s.size = bytes.len() as u64;
            s.content_hash = crate::util::sha256_hex(&bytes);
            if let Err(reason) = quality::check(&bytes, cfg) {
                s.skip_reason = Some(reason.to_string());
            }
        }
        Err(e) => s.skip_reason = Some(SkipReason::Unreadable(e.to_string()).to_string()),
    }
    s
}
