//! A pasted issue's lines inside its files. Ranking finds the file a fix touches for most
//! issues, but the file's chunks it shows are those its retrievers reached among the whole
//! repository's best, which a long issue's many words fill with chunks that match in passing.
//! So after ranking, each of the first [`FILES`] result files brings the chunk BM25 scores
//! highest among that file's own chunks (with the matching chunks that touch it, up to
//! [`MAX_LINES`] lines), unless a shown hit already holds those lines. The issue's title
//! weighs [`TITLE_WEIGHT`] times its whole text there: it names the problem, where a body's
//! logs and steps match other chunks in passing. Measured on the pasted issues, per
//! repository (bench/RESULTS.md, twenty-fifth and twenty-sixth sessions).

use super::explain::Feature;
use super::fusion::{touching, Source, Span};
use super::params::MERGE_GAP;
use super::query::Query;
use super::types::{first_hits, held, Context, Ranked, SearchError};
use crate::store::{ChunkRef, FtsHit};

use super::params::infile::{CANDIDATES, FILES, MAX_LINES, TITLE_WEIGHT};

/// Add the best in-file lines of each of the first [`FILES`] result files of `ranked`, unless
/// a hit a reader will still see (of the first `seen`) holds them. They go after the
/// first hit of the last of those files, so the files' own order is kept: an agent reading
/// down the list meets each of them as early as before.
pub fn add_best_lines(
    cx: &Context<'_>,
    q: &Query,
    ranked: &mut Vec<Ranked>,
    seen: usize,
) -> Result<(), SearchError> {
    let Some((firsts, at)) = place(ranked, seen) else {
        return Ok(());
    };
    let Some(whole) = super::files::chunk_expression(q) else {
        return Ok(());
    };
    let expressions = Expressions {
        whole,
        title: q
            .title_query()
            .and_then(|t| super::files::chunk_expression(&t)),
    };
    let mut windows = Vec::new();
    for first in firsts {
        // Each window inserted pushes the last shown hit out: only what stays shown counts.
        let stays = seen.saturating_sub(windows.len() + 1).min(ranked.len());
        if let Some(parts) = best_lines(cx, &expressions, &ranked[..stays], &ranked[first])? {
            windows.push((ranked[first].0.path.clone(), parts));
        }
    }
    let score = ranked[at - 1].0.score;
    for (i, (path, parts)) in windows.into_iter().enumerate() {
        let start = parts.iter().map(|c| c.start_line).min().unwrap_or(1);
        let end = parts.iter().map(|c| c.end_line).max().unwrap_or(start);
        let mut span = Span {
            path,
            start,
            end,
            score,
            sources: vec![Source::Bm25],
            members: Vec::new(),
            why: Default::default(),
        };
        span.why.add(Feature::BestInFile, score);
        ranked.insert(at + i, (span, parts));
    }
    Ok(())
}

/// The files that bring their best lines, as their first hits, and where those lines go: the
/// first [`FILES`] files among the first `seen - 1` hits (so that at least one window is
/// shown), and the place right after the first hit of the last of them. `None` when no file
/// qualifies.
fn place(ranked: &[Ranked], seen: usize) -> Option<(Vec<usize>, usize)> {
    let room = &ranked[..seen.saturating_sub(1).min(ranked.len())];
    let firsts = first_hits(room, FILES);
    let at = firsts.last()? + 1;
    Some((firsts, at))
}

/// The FTS5 expressions a file's chunks are scored with: the whole issue's, and its title's.
struct Expressions {
    whole: String,
    title: Option<String>,
}

/// The best lines of the file of `hit` that no hit of `shown` holds: its best matching chunk
/// with the matching chunks that touch it. Scored by the store's BM25, with the whole
/// repository's statistics, as `--path FILE --mode bm25` scores them (what
/// `bench/infile_sim.py` measured); `files::best_chunks`, which picks a file-only hit's
/// chunk, weighs words by the file's own statistics and reads every chunk's text.
fn best_lines(
    cx: &Context<'_>,
    expressions: &Expressions,
    shown: &[Ranked],
    (span, parts): &Ranked,
) -> Result<Option<Vec<ChunkRef>>, SearchError> {
    let Some(hash) = parts.first().map(|c| c.content_hash.as_str()) else {
        return Ok(None);
    };
    let wanted: Vec<&str> = std::iter::once(expressions.whole.as_str())
        .chain(expressions.title.as_deref())
        .collect();
    let mut lists = cx
        .chunks
        .search_fts_in(&wanted, hash, CANDIDATES)?
        .into_iter();
    let whole = lists.next().unwrap_or_default();
    let found = by_title_and_whole(whole, lists.next().unwrap_or_default());
    let free = |c: &&ChunkRef| !held(shown, &span.path, c.start_line, c.end_line);
    Ok(found
        .iter()
        .find(free)
        .map(|best| with_touching(best, found.iter().filter(free).collect())))
}

/// The chunks of `whole` and `title` (one file's BM25 hits for the whole issue and for its
/// title), best first by the whole's score plus [`TITLE_WEIGHT`] times the title's. That is
/// the score of one expression holding the title's words that many times more (BM25 adds
/// phrase by phrase), without the cost of matching each repeat. Ties keep the whole's order.
fn by_title_and_whole(whole: Vec<FtsHit>, title: Vec<FtsHit>) -> Vec<ChunkRef> {
    let mut scored: Vec<(ChunkRef, f32)> = whole.into_iter().map(|h| (h.chunk, h.score)).collect();
    for h in title {
        let add = TITLE_WEIGHT * h.score;
        match scored.iter_mut().find(|(c, _)| c.row == h.chunk.row) {
            Some((_, score)) => *score += add,
            None => scored.push((h.chunk, add)),
        }
    }
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    scored.into_iter().map(|(c, _)| c).collect()
}

/// `best` with the matching chunks that touch it (within [`MERGE_GAP`] lines, as ranking
/// merges a file's chunks), up to [`MAX_LINES`] lines in all: `best` first, the others in
/// line order; `matching` holds `best`.
fn with_touching(best: &ChunkRef, mut matching: Vec<&ChunkRef>) -> Vec<ChunkRef> {
    matching.sort_by_key(|c| c.start_line);
    let mut parts = vec![best.clone()];
    let (mut start, mut end) = (best.start_line, best.end_line);
    let mut grew = true;
    while grew {
        grew = false;
        for c in &matching {
            let touches =
                touching(end, c.start_line, MERGE_GAP) && touching(c.end_line, start, MERGE_GAP);
            let (s, e) = (start.min(c.start_line), end.max(c.end_line));
            if touches && !parts.contains(c) && e - s < MAX_LINES {
                parts.push((*c).clone());
                (start, end, grew) = (s, e, true);
            }
        }
    }
    // The best chunk first, as ranking's merged hits keep it (`search::trim` reads it so).
    parts[1..].sort_by_key(|c| c.start_line);
    parts
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A hit at `path`, lines `start..=end`, of no chunks (shared with `search::widen`'s
    /// and `search::types`' tests).
    pub(crate) fn hit(path: &str, start: u32, end: u32) -> Ranked {
        let span = Span {
            path: path.into(),
            start,
            end,
            score: 1.0,
            sources: Vec::new(),
            members: Vec::new(),
            why: Default::default(),
        };
        (span, Vec::new())
    }

    fn chunk(n: u64, start_line: u32, end_line: u32) -> ChunkRef {
        ChunkRef {
            row: n,
            id: format!("h:{n}"),
            content_hash: "h".into(),
            language: crate::lang::Language::Python,
            start_line,
            end_line,
        }
    }

    fn lines(parts: &[ChunkRef]) -> Vec<(u32, u32)> {
        parts.iter().map(|c| (c.start_line, c.end_line)).collect()
    }

    #[test]
    fn the_best_chunk_takes_the_matching_chunks_that_touch_it_up_to_the_merge_limit() {
        let (a, b, c) = (chunk(0, 1, 10), chunk(1, 11, 20), chunk(3, 30, 40));
        // Lines 21-29 did not match: 30-40 is not reached through them.
        assert_eq!(
            lines(&with_touching(&b, vec![&c, &b, &a])),
            [(11, 20), (1, 10)]
        );
        assert_eq!(lines(&with_touching(&c, vec![&a, &b, &c])), [(30, 40)]);
        // Touching chunks join while the whole stays within MAX_LINES lines.
        let run: Vec<ChunkRef> = (0..10)
            .map(|i| chunk(i, i as u32 * 10 + 1, i as u32 * 10 + 10))
            .collect();
        let merged = with_touching(&run[4], run.iter().collect());
        let first = merged.iter().map(|c| c.start_line).min().unwrap();
        let last = merged.iter().map(|c| c.end_line).max().unwrap();
        assert_eq!(
            merged[0],
            run[4],
            "the best chunk first: {:?}",
            lines(&merged)
        );
        assert!(merged.contains(&run[4]), "{:?}", lines(&merged));
        assert!(last - first < MAX_LINES, "{:?}", lines(&merged));
        assert_eq!(merged.len() as u32, MAX_LINES / 10, "{:?}", lines(&merged));
    }

    fn fts(n: u64, score: f32) -> FtsHit {
        FtsHit {
            chunk: chunk(n, n as u32 * 10 + 1, n as u32 * 10 + 10),
            score,
        }
    }

    #[test]
    fn the_title_weighs_more_than_the_whole_issue() {
        let rows = |c: Vec<ChunkRef>| c.iter().map(|c| c.row).collect::<Vec<_>>();
        // 1 matches the title a little, 2 only the title (beyond the whole's candidates).
        let whole = vec![fts(0, 5.0), fts(1, 4.0), fts(3, 4.0)];
        let title = vec![fts(1, 1.0), fts(2, 0.5)];
        assert_eq!(rows(by_title_and_whole(whole.clone(), title)), [1, 2, 0, 3]);
        // Without a title, the whole's order, ties as the store gave them.
        assert_eq!(rows(by_title_and_whole(whole, Vec::new())), [0, 1, 3]);
    }

    /// Four hits of three files, the first file's two first.
    fn three_files() -> [Ranked; 4] {
        [
            hit("a", 1, 2),
            hit("a", 5, 9),
            hit("b", 1, 2),
            hit("c", 1, 2),
        ]
    }

    #[test]
    fn windows_go_after_the_second_files_first_hit_when_one_of_them_is_shown() {
        let ranked = three_files();
        assert_eq!(place(&ranked, 10), Some((vec![0, 2], 3)));
        assert_eq!(place(&ranked, 4), Some((vec![0, 2], 3)));
        // The second file's first hit is the last shown: only the first file brings lines.
        assert_eq!(place(&ranked, 3), Some((vec![0], 1)));
        assert_eq!(place(&ranked, 1), None, "one hit shown: no room");
        assert_eq!(place(&ranked[..1], 10), Some((vec![0], 1)));
        assert_eq!(place(&[], 10), None);
    }

    #[test]
    fn the_first_files_are_distinct_and_in_order() {
        let ranked = three_files();
        assert_eq!(first_hits(&ranked, 2), [0, 2]);
        assert_eq!(first_hits(&ranked, 9), [0, 2, 3]);
    }

    #[test]
    fn lines_a_hit_of_the_same_file_shows_are_held() {
        let ranked = [hit("a", 10, 20), hit("b", 30, 40)];
        assert!(held(&ranked, "a", 20, 25), "one shared line");
        assert!(held(&ranked, "a", 1, 10));
        assert!(!held(&ranked, "a", 21, 29), "touching is not showing");
        assert!(!held(&ranked, "a", 30, 40), "another file's lines");
    }
}
