//! A pasted issue's first hits widened to the function they lie in. An issue's hits are
//! windows of merged chunks, cut where the chunker cut, and the lines a fix changes are
//! often a few lines past the window's edge, in the same function. So each of the first
//! [`HITS`] hits whose leading chunk lies in a function or method of at most [`MAX_LINES`]
//! lines shows that whole function (with the window's lines it already had), unless another
//! hit already shows some of those lines. Scores and order do not change. Measured on the
//! pasted issues and commit messages (bench/RESULTS.md, twenty-ninth session).

use std::collections::HashMap;

use super::params::widen::{HITS, MAX_LINES};
use super::types::{Context, Ranked, SearchError};
use crate::lang::SymbolKind;
use crate::store::ChunkRef;

/// Widen each of the first [`HITS`] of `hits` to the function its leading chunk lies in,
/// among the first `limit` hits (those the search shows): a later shown hit the widened one
/// now holds whole goes (its lines are shown), one it would hold in part, or an earlier one
/// it would reach, leaves the hit as it was.
pub fn to_functions(
    cx: &Context<'_>,
    hits: &mut Vec<Ranked>,
    limit: usize,
) -> Result<(), SearchError> {
    let first = HITS.min(limit).min(hits.len());
    let mut hashes: Vec<String> = hits[..first]
        .iter()
        .filter_map(|(_, parts)| parts.first().map(|c| c.content_hash.clone()))
        .collect();
    if hashes.is_empty() {
        return Ok(());
    }
    hashes.sort();
    hashes.dedup();
    let mut functions: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
    for d in cx.db.symbols().definitions_of(&hashes)? {
        if matches!(d.kind, SymbolKind::Function | SymbolKind::Method) {
            functions
                .entry(d.content_hash)
                .or_default()
                .push((d.start_line, d.end_line));
        }
    }
    let mut chunks: HashMap<String, Vec<ChunkRef>> = HashMap::new();
    for c in cx.chunks.refs_of(&hashes)? {
        chunks.entry(c.content_hash.clone()).or_default().push(c);
    }
    // Hits after `i` may go as it widens: the bound is read again each time.
    let mut i = 0;
    while i < HITS.min(limit).min(hits.len()) {
        i += 1;
        let i = i - 1;
        let Some(lead) = hits[i].1.first().cloned() else {
            continue;
        };
        let Some(function) = functions
            .get(&lead.content_hash)
            .and_then(|fs| around(fs, &lead, MAX_LINES))
        else {
            continue;
        };
        let span = &hits[i].0;
        let (start, end) = (span.start.min(function.0), span.end.max(function.1));
        let Some(held) = held_by(hits, i, limit, start, end) else {
            continue;
        };
        for j in held.into_iter().rev() {
            hits.remove(j);
        }
        let (span, parts) = &mut hits[i];
        for c in chunks.get(&lead.content_hash).into_iter().flatten() {
            let inside = c.start_line <= end && start <= c.end_line;
            if inside && !parts.iter().any(|p| p.row == c.row) {
                parts.push(c.clone());
            }
        }
        span.start = start;
        span.end = end;
    }
    Ok(())
}

/// The shown hits after hit `i` that lines `start..=end` of its file hold whole, in order;
/// `None` when a shown hit before it touches those lines, or one after it holds them in part.
fn held_by(hits: &[Ranked], i: usize, limit: usize, start: u32, end: u32) -> Option<Vec<usize>> {
    let path = &hits[i].0.path;
    let mut held = Vec::new();
    for (j, (other, _)) in hits.iter().enumerate().take(limit) {
        let touches = j != i && other.path == *path && other.start <= end && start <= other.end;
        if !touches {
            continue;
        }
        if j < i || other.start < start || other.end > end {
            return None;
        }
        held.push(j);
    }
    Some(held)
}

/// The function of at most `max_lines` lines that overlaps `lead` most (the shorter on a
/// tie).
fn around(functions: &[(u32, u32)], lead: &ChunkRef, max_lines: u32) -> Option<(u32, u32)> {
    functions
        .iter()
        .filter(|(s, e)| e - s < max_lines)
        .map(|&(s, e)| {
            let overlap = (e.min(lead.end_line) + 1).saturating_sub(s.max(lead.start_line));
            ((s, e), overlap)
        })
        .filter(|(_, overlap)| *overlap > 0)
        .max_by_key(|&((s, e), overlap)| (overlap, std::cmp::Reverse(e - s)))
        .map(|(f, _)| f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::trim::tests::chunk;

    #[test]
    fn a_chunk_widens_to_the_short_function_it_overlaps_most() {
        let functions = [(1, 30), (32, 80), (82, 90), (84, 88)];
        // Inside the first function.
        assert_eq!(around(&functions, &chunk(10, 20), 60), Some((1, 30)));
        // Across two: the one it overlaps most.
        assert_eq!(around(&functions, &chunk(25, 40), 60), Some((32, 80)));
        // A method inside another: the shorter on a tie.
        assert_eq!(around(&functions, &chunk(85, 86), 60), Some((84, 88)));
        // A function longer than the limit is not shown whole; outside every function, none.
        assert_eq!(around(&functions, &chunk(40, 50), 40), None);
        assert_eq!(around(&functions, &chunk(100, 110), 60), None);
    }
}
