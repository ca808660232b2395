//! A header's implementation next to it: after ranking, each C or C++ header among the
//! results brings the file beside it that implements what it declares
//! (`lang::companion`), placed right after the header's first hit unless it already ranks
//! above it. A question about behaviour finds the header's words (its doc comments, its
//! declarations' names) while the answer is the code in `backtracer-inl.h` or
//! `zstd_ddict.c`; an agent that reads the header reads the implementation next. History's
//! co-change partners (`search::cochange`) pair such files too, where the repository has a
//! history to mine; this needs none. For a question naming a topic and a pasted issue, not
//! for a description of one function: that is answered by the function's own lines wherever
//! they are (inline in a header, often), and an implementation placed after the header
//! pushed them out of the first ten (bench/RESULTS.md, thirty-eighth session).

use std::collections::HashSet;

use super::explain::Feature;
use super::learned::Kind;
use super::types::{Context, Ranked, SearchError};
use crate::lang::companion::implementations_of;

/// Whether a query of `kind` brings a header's implementation beside it: a topic's or an
/// issue's.
pub fn adds(kind: Kind) -> bool {
    matches!(kind, Kind::Topic | Kind::Issue)
}

/// Place the implementation of each header in `ranked` right after the header's first hit.
pub fn add_implementations(cx: &Context<'_>, ranked: &mut Vec<Ranked>) -> Result<(), SearchError> {
    // The paths of `ranked[..=i]`: a hit's path is new when it is not here, and an
    // implementation listed here already ranks above its header (or another header placed it).
    let mut seen: HashSet<String> = HashSet::new();
    let mut i = 0;
    while i < ranked.len() {
        if seen.insert(ranked[i].0.path.clone()) {
            if let Some(entry) = implementation(cx, ranked, i, &seen)? {
                seen.insert(entry.0.path.clone());
                ranked.insert(i + 1, entry);
                i += 1;
            }
        }
        i += 1;
    }
    Ok(())
}

/// The hit for the implementation of the header whose first hit is `ranked[at]`, taken
/// out of `ranked` (its best span) or made from its first chunk, scored as the header; None
/// when that is no header, its implementation is not on the branch or holds no chunk, or it
/// is among `above` (the paths of `ranked[..=at]`).
fn implementation(
    cx: &Context<'_>,
    ranked: &mut Vec<Ranked>,
    at: usize,
    above: &HashSet<String>,
) -> Result<Option<Ranked>, SearchError> {
    for candidate in implementations_of(&ranked[at].0.path) {
        if above.contains(&candidate) {
            return Ok(None);
        }
        let Some(mut entry) = super::cochange::take_or_make(cx, ranked, &candidate)? else {
            continue;
        };
        // A skipped file (generated, too large) would be a hit with no lines to read.
        if entry.1.is_empty() {
            continue;
        }
        let header = ranked[at].0.score;
        entry
            .0
            .why
            .add(Feature::Implementation, header - entry.0.score);
        entry.0.score = header;
        return Ok(Some(entry));
    }
    Ok(None)
}
