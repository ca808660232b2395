//! A pasted issue's first hits widened to the function they lie in. An issue's hits are
//! windows of merged chunks, cut where the chunker cut, and the lines a fix changes are
//! often a few lines past the window's edge, in the same function. So each of the first
//! [`HITS`] hits whose leading chunk overlaps a function or method of at most [`MAX_LINES`]
//! lines shows that whole function (with the window's lines it already had). A later hit it
//! then holds whole goes, since its lines are shown (the next hit moves up, as when any hit
//! goes); a later hit it would hold only in part, or an earlier hit it would reach, leaves it
//! as it was, so that no line is shown twice. Scores and the order of the hits that stay do
//! not change. Measured on the pasted issues and commit messages (bench/RESULTS.md,
//! twenty-ninth session).

use std::collections::HashMap;

use super::params::widen::{HITS, MAX_LINES};
use super::types::{Context, Ranked, SearchError};
use crate::lang::SymbolKind;
use crate::store::ChunkRef;

/// Widen each of the first [`HITS`] of `hits` (best first; a reader sees the first `seen`) to
/// the function its leading chunk overlaps most.
pub fn to_functions(
    cx: &Context<'_>,
    hits: &mut Vec<Ranked>,
    seen: usize,
) -> Result<(), SearchError> {
    // Hits that go let later ones move up into the first HITS: read all that can.
    let reach = (HITS + seen).min(hits.len());
    let mut hashes: Vec<String> = hits[..reach]
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
    let mut i = 0;
    while i < HITS.min(seen).min(hits.len()) {
        widen_one(hits, i, seen, &functions, &chunks);
        i += 1;
    }
    Ok(())
}

/// Widen hit `i` to its function, when there is one and the hits around allow it.
fn widen_one(
    hits: &mut Vec<Ranked>,
    i: usize,
    seen: usize,
    functions: &HashMap<String, Vec<(u32, u32)>>,
    chunks: &HashMap<String, Vec<ChunkRef>>,
) {
    let Some(lead) = hits[i].1.first().cloned() else {
        return;
    };
    let Some(function) = functions
        .get(&lead.content_hash)
        .and_then(|fs| around(fs, &lead, MAX_LINES))
    else {
        return;
    };
    let span = &hits[i].0;
    let (start, end) = (span.start.min(function.0), span.end.max(function.1));
    if (start, end) == (span.start, span.end) {
        return; // the window holds the function already
    }
    let places: Vec<(&str, u32, u32)> = hits
        .iter()
        .map(|(s, _)| (s.path.as_str(), s.start, s.end))
        .collect();
    let Some(held) = held_by(&places, i, seen, start, end) else {
        return;
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

/// The hits after hit `i` (of `places`, each a path and its lines; a reader sees the first
/// `seen`) that lines `start..=end` of its path hold whole, in order; `None` when an earlier
/// hit touches those lines, or a later one that would be shown once the held ones go holds
/// them in part.
fn held_by(
    places: &[(&str, u32, u32)],
    i: usize,
    seen: usize,
    start: u32,
    end: u32,
) -> Option<Vec<usize>> {
    let path = places[i].0;
    let mut held = Vec::new();
    for (j, &(p, s, e)) in places.iter().enumerate() {
        if j == i || p != path || e < start || end < s {
            continue;
        }
        if j < i {
            return None;
        }
        if start <= s && e <= end {
            held.push(j);
        } else if j - held.len() < seen {
            return None;
        }
    }
    Some(held)
}

/// The function of at most `max_lines` lines that overlaps `lead` most (the shorter on a
/// tie).
fn around(functions: &[(u32, u32)], lead: &ChunkRef, max_lines: u32) -> Option<(u32, u32)> {
    functions
        .iter()
        .filter(|(s, e)| e.saturating_sub(*s) < max_lines)
        .map(|&(s, e)| {
            let overlap = (e.min(lead.end_line) + 1).saturating_sub(s.max(lead.start_line));
            ((s, e), overlap)
        })
        .filter(|(_, overlap)| *overlap > 0)
        .max_by_key(|&((s, e), overlap)| (overlap, std::cmp::Reverse(e.saturating_sub(s))))
        .map(|(f, _)| f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::trim::tests::chunk;

    #[test]
    fn a_widened_hit_takes_the_place_of_later_hits_it_holds_and_never_repeats_a_line() {
        let places = [
            ("a.py", 10, 20),
            ("b.py", 1, 9),
            ("a.py", 30, 40),
            ("a.py", 45, 60),
            ("a.py", 70, 80),
        ];
        // Hit 0 widened to 5-42 holds hit 2 whole: it goes.
        assert_eq!(held_by(&places, 0, 5, 5, 42), Some(vec![2]));
        // To 5-60, hits 2 and 3.
        assert_eq!(held_by(&places, 0, 5, 5, 60), Some(vec![2, 3]));
        // To 5-50 it would hold hit 3 in part, and hit 3 is shown: no.
        assert_eq!(held_by(&places, 0, 5, 5, 50), None);
        // With three shown, hit 4 in part moves up to third once hits 2 and 3 go: no; with
        // two seen it stays past them.
        assert_eq!(held_by(&places, 0, 3, 5, 75), None);
        assert_eq!(held_by(&places, 0, 2, 5, 75), Some(vec![2, 3]));
        // Hit 2 widened back to 15 would reach hit 0, shown before it: no.
        assert_eq!(held_by(&places, 2, 5, 15, 40), None);
        // Other paths never count.
        assert_eq!(held_by(&places, 1, 5, 1, 100), Some(vec![]));
    }

    #[test]
    fn a_chunk_widens_to_the_short_function_it_overlaps_most() {
        let functions = [(1, 30), (32, 80), (82, 90), (84, 88)];
        // Inside the first function.
        assert_eq!(around(&functions, &chunk(10, 20), 60), Some((1, 30)));
        // Across two: the one it overlaps most.
        assert_eq!(around(&functions, &chunk(25, 40), 60), Some((32, 80)));
        // A method inside another: the shorter on a tie.
        assert_eq!(around(&functions, &chunk(85, 86), 60), Some((84, 88)));
        // A function longer than the limit is not shown whole (60 lines is, 61 is not);
        // outside every function, none.
        assert_eq!(around(&functions, &chunk(40, 50), 40), None);
        assert_eq!(around(&[(1, 60)], &chunk(5, 6), 60), Some((1, 60)));
        assert_eq!(around(&[(1, 61)], &chunk(5, 6), 60), None);
        assert_eq!(around(&functions, &chunk(100, 110), 60), None);
    }
}
