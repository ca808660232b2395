//! Files that change together: after ranking, each of the top three result files brings in
//! the file most often changed in the same commits as it (mined from the branch's history
//! at index time, `index::history`), placed right after the fifth result. A bug report
//! names the parser; the fix needs its header too. Measured with `bench/cochange_sim.py` and
//! `bench/eval.py` (bench/history/2026-11-23-to-25.md, "Retrieval quality (development set)"; docs/ranking.md,
//! "Retrievers").

use super::fusion::{Source, Span};
use super::types::{first_hits, Context, Ranked, SearchError};

use super::params::cochange::{HEADS, MIN_SHARE, POSITION};

/// Move or add the partners of the top result files to just after `POSITION`.
pub fn add_partners(cx: &Context<'_>, ranked: &mut Vec<Ranked>) -> Result<(), SearchError> {
    let Context { db, branch, .. } = *cx;
    let heads: Vec<String> = first_hits(ranked, HEADS)
        .into_iter()
        .map(|i| ranked[i].0.path.clone())
        .collect();
    let pos = POSITION.min(ranked.len());
    let mut wanted: Vec<String> = Vec::new();
    for head in &heads {
        // When the partner is already near the top, nothing is added.
        let Some(p) = db.history().partner(branch, head)? else {
            continue;
        };
        if p.together as f64 >= MIN_SHARE * p.changes as f64
            && !ranked[..pos].iter().any(|(s, _)| s.path == p.partner)
            && !wanted.contains(&p.partner)
        {
            wanted.push(p.partner);
        }
    }
    for (i, path) in wanted.into_iter().enumerate() {
        let Some(mut entry) = take_or_make(cx, ranked, &path)? else {
            continue;
        };
        let at = (pos + i).min(ranked.len());
        let placed = ranked
            .get(at)
            .or(ranked.last())
            .map_or(entry.0.score, |(s, _)| s.score);
        let add = placed - entry.0.score;
        entry.0.score = placed;
        entry.0.why.add(super::explain::Feature::ChangedWith, add);
        if !entry.0.sources.contains(&Source::History) {
            entry.0.sources.push(Source::History);
        }
        ranked.insert(at, entry);
    }
    Ok(())
}

/// The partner's best-ranked span (removing all of its spans from `ranked`), or else its
/// first chunk on the branch, or for a file the index skipped (a generated amalgamation,
/// say) a hit with no lines; None when the file is not on the branch.
pub(super) fn take_or_make(
    cx: &Context<'_>,
    ranked: &mut Vec<Ranked>,
    path: &str,
) -> Result<Option<Ranked>, SearchError> {
    let Context {
        db, chunks, branch, ..
    } = *cx;
    if let Some(i) = ranked.iter().position(|(s, _)| s.path == path) {
        let best = ranked.remove(i);
        ranked.retain(|(s, _)| s.path != path);
        return Ok(Some(best));
    }
    let first = match db.catalog().path_on_branch(branch, path)? {
        None => return Ok(None),
        Some(None) => None,
        Some(Some(hash)) => chunks
            .refs_of(&[hash])?
            .into_iter()
            .min_by_key(|c| c.start_line),
    };
    let (start, end) = first
        .as_ref()
        .map_or((1, 1), |c| (c.start_line, c.end_line));
    let span = Span {
        path: path.to_string(),
        start,
        end,
        score: 0.0,
        sources: Vec::new(),
        members: Vec::new(),
        why: Default::default(),
    };
    Ok(Some((span, first.into_iter().collect())))
}
