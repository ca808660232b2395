//! Hits the size of an answer. Ranking merges touching chunks of a file into one hit of up
//! to `MERGE_MAX_LINES` lines, so a file found by several chunks ranks as one region; but a
//! query that names a thing or a topic asks for a definition or a file, and the lines
//! around the best chunk that belong to other definitions are what an agent reads before it
//! reaches the next file. So for such a query each shown hit is cut to its leading chunk
//! (the best one, or the one holding a definition the question names: `search::rerank`
//! moves it first) and the touching chunks inside the same outermost definition (a
//! function, or a whole class with its methods), or, for a leading chunk outside every
//! definition, the touching chunks outside every definition too; a chunk that no one
//! definition holds whole (the end of one function and the start of the next) counts as
//! outside. The hit keeps its score and place: which files come first does not change, only
//! how many lines each shows.
//!
//! Cutting at the innermost definition (a method) saved more (concept questions' tokens
//! before the first relevant file 156 → 120, against 129) and lost more lines: a class's
//! next method is often the one asked for (short questions' Func@10 0.802 → 0.795, where the
//! outermost cut keeps 0.802). A question that describes what one function does, and a
//! pasted issue, keep the whole window: their measures are the lines, and a neighbour in the
//! window is often the function asked for (short questions' Func@10 0.802 → 0.775 when every
//! hit was cut). bench/RESULTS.md, twenty-third session, has the runs.

use std::collections::HashMap;

use super::learned::Kind;
use super::params::MERGE_GAP;
use super::types::{Ranked, SearchError};
use crate::store::catalog::SymbolHit;
use crate::store::{ChunkRef, Db};

/// Whether hits of a query of `kind` are cut to their definition.
pub fn cuts(kind: Kind) -> bool {
    matches!(kind, Kind::Name | Kind::Topic)
}

/// Cut each of `hits` (their leading chunk first, as `fusion::merge_spans` and
/// `search::rerank` leave them) to the definition around it. Reads the definitions of the
/// contents of the hits that merged chunks: one statement for the shown hits (per 500
/// contents).
pub fn to_definitions(db: &Db, hits: &mut [Ranked]) -> Result<(), SearchError> {
    let mut hashes: Vec<String> = hits
        .iter()
        .filter(|(_, parts)| parts.len() > 1)
        .map(|(_, parts)| parts[0].content_hash.clone())
        .collect();
    if hashes.is_empty() {
        return Ok(());
    }
    hashes.sort();
    hashes.dedup();
    let defs = Definitions::of(db.symbols().definitions_of(&hashes)?);
    for hit in hits.iter_mut() {
        defs.cut(hit);
    }
    Ok(())
}

/// Definition line ranges by content.
struct Definitions {
    by_content: HashMap<String, Vec<(u32, u32)>>,
}

impl Definitions {
    fn of(defs: Vec<SymbolHit>) -> Definitions {
        let mut by_content: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
        for d in defs {
            by_content
                .entry(d.content_hash)
                .or_default()
                .push((d.start_line, d.end_line));
        }
        Definitions { by_content }
    }

    /// The largest definition that holds chunk `c` whole (the first on a tie), if any: the
    /// class rather than its method.
    fn around(&self, c: &ChunkRef) -> Option<(u32, u32)> {
        self.by_content
            .get(&c.content_hash)?
            .iter()
            .filter(|(s, e)| *s <= c.start_line && c.end_line <= *e)
            .max_by_key(|(s, e)| (e - s, std::cmp::Reverse(*s)))
            .copied()
    }

    /// Cut `hit` to its first (best) chunk and the chunks around it, touching one another,
    /// in the same outermost definition as it.
    fn cut(&self, (span, parts): &mut Ranked) {
        if parts.len() < 2 {
            return;
        }
        let unit = self.around(&parts[0]);
        let mut same: Vec<usize> = (0..parts.len())
            .filter(|&i| self.around(&parts[i]) == unit)
            .collect();
        same.sort_by_key(|&i| (parts[i].start_line, parts[i].end_line));
        let lead = same
            .iter()
            .position(|&i| i == 0)
            .expect("the best chunk is kept");
        // Touching as ranking merges them.
        let touch = |a: usize, b: usize| {
            super::fusion::touching(parts[a].end_line, parts[b].start_line, MERGE_GAP)
        };
        let (mut first, mut last) = (lead, lead);
        while first > 0 && touch(same[first - 1], same[first]) {
            first -= 1;
        }
        while last + 1 < same.len() && touch(same[last], same[last + 1]) {
            last += 1;
        }
        // The best chunk stays first; `members` stays parallel to `parts`.
        let keep: Vec<usize> = std::iter::once(0)
            .chain(same[first..=last].iter().copied().filter(|&i| i != 0))
            .collect();
        span.start = keep
            .iter()
            .map(|&i| parts[i].start_line)
            .min()
            .unwrap_or(span.start);
        span.end = keep
            .iter()
            .map(|&i| parts[i].end_line)
            .max()
            .unwrap_or(span.end);
        if span.members.len() == parts.len() {
            span.members = keep.iter().map(|&i| span.members[i]).collect();
        }
        *parts = keep.iter().map(|&i| parts[i].clone()).collect();
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::lang::Language;
    use crate::search::fusion::Span;

    /// A chunk of content `h` (shared with `search::widen`'s tests).
    pub(crate) fn chunk(start: u32, end: u32) -> ChunkRef {
        ChunkRef {
            row: u64::from(start),
            id: format!("h:{start}"),
            content_hash: "h".into(),
            language: Language::Python,
            start_line: start,
            end_line: end,
        }
    }

    fn hit(parts: &[(u32, u32)]) -> Ranked {
        let parts: Vec<ChunkRef> = parts.iter().map(|&(s, e)| chunk(s, e)).collect();
        let span = Span {
            path: "a.py".into(),
            start: parts.iter().map(|c| c.start_line).min().unwrap(),
            end: parts.iter().map(|c| c.end_line).max().unwrap(),
            score: 1.0,
            sources: vec![],
            members: (0..parts.len()).collect(),
            why: Default::default(),
        };
        (span, parts)
    }

    fn defs(ranges: &[(u32, u32)]) -> Definitions {
        Definitions {
            by_content: HashMap::from([("h".to_string(), ranges.to_vec())]),
        }
    }

    fn lines(h: &Ranked) -> (u32, u32, Vec<(u32, u32)>) {
        let parts = h.1.iter().map(|c| (c.start_line, c.end_line)).collect();
        (h.0.start, h.0.end, parts)
    }

    #[test]
    fn a_hit_keeps_the_definition_of_its_best_chunk_only() {
        // Functions 1-20, 21-40 and 41-60; the best chunk (first) is in the second, which
        // its second chunk continues; the neighbours are the other functions.
        let d = defs(&[(1, 20), (21, 40), (41, 60)]);
        let mut h = hit(&[(21, 30), (11, 20), (31, 40), (41, 50)]);
        d.cut(&mut h);
        assert_eq!(lines(&h), (21, 40, vec![(21, 30), (31, 40)]));
        assert_eq!(h.0.members, vec![0, 2]);
    }

    #[test]
    fn the_methods_of_one_class_stay_together() {
        // A class (1-60) whose methods are 1-20 and 21-40: one outermost definition.
        let d = defs(&[(1, 60), (1, 20), (21, 40)]);
        let mut h = hit(&[(21, 30), (11, 20), (31, 40)]);
        d.cut(&mut h);
        assert_eq!(lines(&h), (11, 40, vec![(21, 30), (11, 20), (31, 40)]));
    }

    #[test]
    fn outside_every_definition_the_touching_code_outside_stays() {
        // Top-level code (1-10, 11-15) before a function (16-30), more after it (31-40):
        // the best chunk is top-level, so the touching top-level chunk stays, the function
        // goes, and the code beyond it is not joined (a hit is one stretch of lines).
        let d = defs(&[(16, 30)]);
        let mut h = hit(&[(11, 15), (1, 10), (16, 30), (31, 40)]);
        d.cut(&mut h);
        assert_eq!(lines(&h), (1, 15, vec![(11, 15), (1, 10)]));
    }

    #[test]
    fn a_single_chunk_or_no_definitions_leave_the_hit_as_it_is() {
        let none = defs(&[]);
        let mut h = hit(&[(1, 10), (11, 20)]);
        none.cut(&mut h);
        assert_eq!(lines(&h), (1, 20, vec![(1, 10), (11, 20)]));
        let d = defs(&[(1, 5)]);
        let mut one = hit(&[(1, 10)]);
        d.cut(&mut one);
        assert_eq!(lines(&one), (1, 10, vec![(1, 10)]));
    }
}
