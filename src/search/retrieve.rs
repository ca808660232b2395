//! The retrievers: BM25 over chunk text (SQLite FTS5) and symbol search over definitions
//! (SQLite), each restricted to content that is on the searched branch.

use std::collections::{HashMap, HashSet};

use super::query::Query;
use super::types::SearchError;
use crate::lang::Language;
use crate::store::catalog::SymbolHit;
use crate::store::{filter, ChunkRef, ChunkStore, Db};

/// Paths of the branch for each content hash: (path, mtime_ns).
pub type Membership = HashMap<String, Vec<(String, i64)>>;

/// Look up which of `hashes` are on `branch`, and under which paths.
pub fn membership(db: &Db, branch: &str, hashes: &[String]) -> Result<Membership, SearchError> {
    let mut m: Membership = HashMap::new();
    for (h, path, mtime) in db.catalog().paths_for(branch, hashes)? {
        m.entry(h).or_default().push((path, mtime));
    }
    Ok(m)
}

/// BM25 candidates on the branch, best first. The first pass scores only the store's best
/// matches, enough that `n` of them are likely on the branch (other branches' versions of a
/// file match as well as this one's); its scores are those of the whole store, so when it
/// holds `n` on the branch they are exactly the branch's best `n`. Only if it does not is
/// every match looked up, which costs a chunk row per match. The query's words are matched
/// whole and split, as the chunks' identifiers are stored
/// (`search::files::match_expression`).
pub fn bm25(
    db: &Db,
    chunks: &ChunkStore,
    branch: &str,
    q: &Query,
    n: usize,
    lang: Option<Language>,
) -> Result<Vec<ChunkRef>, SearchError> {
    let Some(expression) = super::files::chunk_expression(q) else {
        return Ok(Vec::new());
    };
    let fetch = first_fetch(db, branch, n)?;
    let (mut found, more) = chunks.search_fts(&expression, n, (branch, lang), Some(fetch))?;
    tracing::debug!("bm25 first pass");
    if found.len() < n && more {
        found = chunks.search_fts(&expression, n, (branch, lang), None)?.0;
        tracing::debug!("bm25 second pass, every match");
    }
    Ok(found.into_iter().map(|h| h.chunk).collect())
}

/// How many matches the first BM25 pass scores: `n` scaled by how many contents the store
/// holds per content on the branch (1 for a one-branch index), with a margin.
fn first_fetch(db: &Db, branch: &str, n: usize) -> Result<usize, SearchError> {
    let factor =
        (db.stats().store_per_branch(branch)? * FETCH_MARGIN).clamp(FETCH_MARGIN, MAX_FETCH_FACTOR);
    Ok((n as f64 * factor).ceil() as usize)
}

/// Over-fetch margin of the first BM25 pass.
const FETCH_MARGIN: f64 = 1.5;
/// Beyond this many candidates per wanted one, scoring every match is as cheap.
const MAX_FETCH_FACTOR: f64 = 30.0;

/// Definitions on the branch named by query words, best first: whole-identifier matches,
/// then exact word matches, then prefix matches; at most `n`, one per place. The first
/// half of symbol search (SQLite); [`symbol_chunks`] is the second.
pub fn symbol_hits(
    db: &Db,
    branch: &str,
    q: &Query,
    n: usize,
) -> Result<Vec<SymbolHit>, SearchError> {
    let terms: Vec<String> = q
        .terms
        .iter()
        .filter(|t| t.chars().count() >= 3)
        .cloned()
        .collect();
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    let per_term = db.symbols().find(branch, &terms, n * 4)?;
    // A term that names few definitions on the branch says more than one that names many
    // (`truncatewords` against `template`): within a class, rarer terms' hits come first,
    // then shorter names.
    let mut ranked: Vec<(u8, usize, usize, SymbolHit)> = Vec::new();
    for hits in per_term {
        let count = hits.len();
        for h in hits {
            let lower = h.name.to_lowercase();
            let class = if q.identifiers.contains(&lower) {
                0
            } else if terms.contains(&lower) {
                1
            } else {
                2
            };
            ranked.push((class, count, lower.len(), h));
        }
    }
    ranked.sort_by_key(|r| (r.0, r.1, r.2));
    let mut seen = HashSet::new();
    ranked.retain(|(_, _, _, h)| seen.insert((h.content_hash.clone(), h.start_line)));
    ranked.truncate(n);
    Ok(ranked.into_iter().map(|(_, _, _, h)| h).collect())
}

/// Definitions on the branch whose name is one of
/// `names` (lower-case; the index stores a qualified name by its last part), at most [`MAX_NAMED`] per name;
/// for a name ending in `!` or `?` that nothing defines, those of the name without it.
pub fn definitions_named(
    db: &Db,
    branch: &str,
    names: &[String],
) -> Result<Vec<SymbolHit>, SearchError> {
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for name in names {
        let mut found = db.symbols().definitions_named(branch, name, MAX_NAMED)?;
        // `empty?` and `save!` name Ruby methods; elsewhere the mark is punctuation
        // (`Router?`), and the name without it is what is defined.
        let bare = super::evidence::without_mark(name);
        if found.is_empty() && bare != name {
            found = db.symbols().definitions_named(branch, bare, MAX_NAMED)?;
        }
        out.extend(found);
    }
    Ok(out)
}

/// Most definitions of one name that the second stage lifts (a name defined more often
/// than this says little about where to look).
pub(super) const MAX_NAMED: usize = 200;

/// The chunks of the contents that define `hits`, by content hash (in `lang` only, if given).
pub fn chunks_of_definitions(
    chunks: &ChunkStore,
    hits: &[SymbolHit],
    lang: Option<Language>,
) -> Result<HashMap<String, Vec<ChunkRef>>, SearchError> {
    let mut hashes: Vec<String> = hits.iter().map(|h| h.content_hash.clone()).collect();
    hashes.sort();
    hashes.dedup();
    let mut by_hash: HashMap<String, Vec<ChunkRef>> = HashMap::new();
    for c in chunks.refs_of(&hashes)? {
        if lang.is_none_or(|l| c.language == l) {
            by_hash.entry(c.content_hash.clone()).or_default().push(c);
        }
    }
    Ok(by_hash)
}

/// The chunk that holds each definition, in the order of `hits` (LanceDB only, so it can
/// run beside BM25 while the SQLite connection is busy there).
pub fn symbol_chunks(
    chunks: &ChunkStore,
    hits: &[SymbolHit],
    lang: Option<Language>,
) -> Result<Vec<ChunkRef>, SearchError> {
    let by_hash = chunks_of_definitions(chunks, hits, lang)?;
    let mut out = Vec::new();
    for h in hits {
        let Some(cs) = by_hash.get(&h.content_hash) else {
            continue;
        };
        // The chunk holding the definition's first line, else the nearest one after it.
        let best = cs
            .iter()
            .filter(|c| c.end_line >= h.start_line)
            .min_by_key(|c| {
                (
                    c.start_line > h.start_line,
                    c.start_line.abs_diff(h.start_line),
                )
            });
        if let Some(c) = best {
            out.push(c.clone());
        }
    }
    Ok(out)
}

/// Vector candidates on the branch from LanceDB, nearest first: over-fetches and filters by
/// membership, and if that leaves too few while more may exist, asks again with a branch
/// prefilter. (A current flat copy is scanned instead: `semantic::start`.)
pub fn vector(
    cx: &super::types::Context<'_>,
    model: &str,
    query: &[f32],
    fetch: super::types::Fetch<'_>,
) -> Result<Vec<ChunkRef>, SearchError> {
    let (db, chunks, branch) = (cx.db, cx.chunks, cx.branch);
    let (n, lang) = (fetch.n, fetch.lang);
    let close = |h: &crate::store::VectorHit| close_enough(cx, h);
    let lang_filter = lang.map(|l| filter::eq("language", l.name()));
    let fetch = n * 3;
    let found = chunks.search_vectors(model, query, fetch, lang_filter.as_deref())?;
    let full = found.len() == fetch;
    let mut hashes: Vec<String> = found.iter().map(|h| h.content_hash.clone()).collect();
    hashes.sort();
    hashes.dedup();
    let members = membership(db, branch, &hashes)?;
    let near: Vec<&crate::store::VectorHit> = found
        .iter()
        .filter(|h| members.contains_key(&h.content_hash) && close(h))
        .collect();
    let mut kept: Vec<String> = near.iter().map(|h| h.id.clone()).collect();
    // Other branches' content crowded this branch out of the first pass, and what lies
    // beyond it could still be close enough: search again, restricted to the branch.
    let on_branch = found
        .iter()
        .filter(|h| members.contains_key(&h.content_hash))
        .count();
    if on_branch < n && full && found.last().is_some_and(close) {
        let filter = branch_filter(db, branch, lang_filter.as_deref())?;
        kept = chunks
            .search_vectors(model, query, n, Some(&filter))?
            .into_iter()
            .filter(close)
            .map(|h| h.id)
            .collect();
    }
    kept.truncate(n);
    refs_in_order(chunks, &kept)
}

/// The chunks of a flat scan's hits that are close enough (`embed.min_similarity`), nearest
/// first.
pub fn flat_refs(
    cx: &super::types::Context<'_>,
    hits: Vec<crate::store::VectorHit>,
) -> Result<Vec<ChunkRef>, SearchError> {
    let kept: Vec<String> = hits
        .into_iter()
        .filter(|h| close_enough(cx, h))
        .map(|h| h.id)
        .collect();
    refs_in_order(cx.chunks, &kept)
}

/// Whether a vector hit is similar enough to count (`embed.min_similarity`).
fn close_enough(cx: &super::types::Context<'_>, h: &crate::store::VectorHit) -> bool {
    1.0 - h.distance >= cx.config.embed.min_similarity
}

/// The chunk refs of `ids`, in that order (an id without a row is left out).
fn refs_in_order(chunks: &ChunkStore, ids: &[String]) -> Result<Vec<ChunkRef>, SearchError> {
    let mut rows: HashMap<String, ChunkRef> = chunks
        .refs_by_id(ids)?
        .into_iter()
        .map(|c| (c.id.clone(), c))
        .collect();
    Ok(ids.iter().filter_map(|id| rows.remove(id)).collect())
}

/// A store filter for every content on `branch` (and the language, if asked): the second,
/// exact pass when the first, unfiltered pass came back full of other branches' content.
fn branch_filter(db: &Db, branch: &str, lang_filter: Option<&str>) -> Result<String, SearchError> {
    let on_branch = filter::in_list("content_hash", db.catalog().branch_hashes(branch)?);
    Ok(match lang_filter {
        Some(l) => filter::and(&on_branch, l),
        None => on_branch,
    })
}
