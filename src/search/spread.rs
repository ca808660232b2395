//! A file's further hits after the next file. For a query that names a thing or a topic the
//! file is what is asked for, and an agent reads the hits in order until it reaches the right
//! one: a neighbour of the answer with two or three hits near the top is read whole before
//! the answer's file. So among the first [`WITHIN`] hits, a further hit of a file other than
//! the first waits until [`NEW_FILES_FIRST`] files not yet shown have come before it, or
//! until the [`WITHIN`]-th place, whichever comes first: the first [`WITHIN`] hits stay the
//! first, in another order, and so do the hits past them. The first file, most often the
//! answer, keeps its hits where they rank (as it keeps more of its lines, `search::focus`).
//! Each file's first hit keeps its place among the other files' first hits, or moves up.
//!
//! [`WITHIN`]: super::params::spread::WITHIN
//! [`NEW_FILES_FIRST`]: super::params::spread::NEW_FILES_FIRST

use std::collections::HashSet;

use super::explain::Feature;
use super::params::spread::{NEW_FILES_FIRST, WITHIN};
use super::types::Ranked;

/// Move the further hits of `ranked` (best first) that wait for the next files
/// (`spread`). A moved hit's score falls to the score of the hit it now follows, so scores
/// still fall down the list and `--explain` still sums (`Feature::FileShownAbove`).
pub fn further_hits_after_next_files(ranked: &mut Vec<Ranked>) {
    let order = spread(
        ranked.iter().map(|(s, _)| s.path.as_str()),
        NEW_FILES_FIRST,
        WITHIN,
    );
    let mut slots: Vec<Option<Ranked>> = std::mem::take(ranked).into_iter().map(Some).collect();
    for (i, moved) in order {
        let Some(mut entry) = slots[i].take() else {
            continue;
        };
        if let Some(above) = ranked.last().map(|(s, _)| s.score) {
            if moved && entry.0.score > above {
                entry
                    .0
                    .why
                    .add(Feature::FileShownAbove, above - entry.0.score);
                entry.0.score = above;
            }
        }
        ranked.push(entry);
    }
}

/// The new order of items whose files are `paths` (best first), as (index, whether the item
/// was held back): an item among the first `within` whose path came before, other than the
/// first item's, waits until `new_files` items of paths not yet seen have come after it, or
/// until the `within`-th place (so the first `within` items stay the first).
fn spread<'a>(
    paths: impl Iterator<Item = &'a str>,
    new_files: usize,
    within: usize,
) -> Vec<(usize, bool)> {
    let mut out: Vec<(usize, bool)> = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut first: Option<&str> = None;
    // Held-back items, oldest first, with how many new files each still waits for.
    let mut waiting: Vec<(usize, usize)> = Vec::new();
    for (i, path) in paths.enumerate() {
        if i == within {
            out.extend(waiting.drain(..).map(|(at, _)| (at, true)));
        }
        let top = *first.get_or_insert(path);
        if !seen.insert(path) {
            if i < within && path != top && new_files > 0 {
                waiting.push((i, new_files));
            } else {
                out.push((i, false));
            }
            continue;
        }
        out.push((i, false));
        for (_, left) in waiting.iter_mut() {
            *left -= 1;
        }
        let due = waiting.iter().take_while(|(_, left)| *left == 0).count();
        out.extend(waiting.drain(..due).map(|(at, _)| (at, true)));
    }
    out.extend(waiting.into_iter().map(|(at, _)| (at, true)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(paths: &[&str], n: usize, within: usize) -> Vec<usize> {
        spread(paths.iter().copied(), n, within)
            .into_iter()
            .map(|(i, _)| i)
            .collect()
    }

    #[test]
    fn another_files_further_hits_wait_for_the_next_files() {
        // b's second and third hits wait for c (one new file).
        assert_eq!(order(&["a", "b", "b", "b", "c"], 1, 8), [0, 1, 4, 2, 3]);
        // Each waits for two new files from where it stood: b's second for c and d, its
        // third for d and e.
        assert_eq!(
            order(&["a", "b", "b", "c", "b", "d", "e"], 2, 8),
            [0, 1, 3, 5, 2, 6, 4]
        );
    }

    #[test]
    fn only_held_back_items_are_marked_moved() {
        let got = spread(["a", "b", "b", "c", "a"].into_iter(), 1, 10);
        assert_eq!(
            got,
            [(0, false), (1, false), (3, false), (2, true), (4, false)]
        );
    }

    #[test]
    fn the_first_files_hits_stay() {
        assert_eq!(order(&["a", "a", "b", "a", "c"], 1, 8), [0, 1, 2, 3, 4]);
    }

    #[test]
    fn no_hit_leaves_the_first_few_nor_enters_them() {
        // b's hits at 2 and 3 wait for a new file; none comes within the first 4, so they
        // take the last of the four places; b's hit at 4 is past them and stays.
        assert_eq!(
            order(&["a", "b", "b", "b", "b", "c"], 1, 4),
            [0, 1, 2, 3, 4, 5]
        );
        assert_eq!(
            order(&["a", "b", "b", "c", "b", "d"], 1, 4),
            [0, 1, 3, 2, 4, 5]
        );
        let paths = ["a", "b", "b", "b", "c", "d", "b", "e", "f", "b", "g", "b"];
        for within in 1..paths.len() {
            let got = order(&paths, 2, within);
            let mut head = got[..within].to_vec();
            head.sort();
            assert_eq!(head, (0..within).collect::<Vec<_>>(), "{within}: {got:?}");
            assert_eq!(got[within..], (within..paths.len()).collect::<Vec<_>>()[..]);
        }
    }

    #[test]
    fn the_files_keep_their_order_and_every_hit_stays() {
        let paths = ["a", "b", "a", "c", "b", "b", "d", "a", "c", "e"];
        for n in 0..5 {
            let got = order(&paths, n, 8);
            let mut sorted = got.clone();
            sorted.sort();
            assert_eq!(sorted, (0..paths.len()).collect::<Vec<_>>());
            let mut firsts: Vec<&str> = Vec::new();
            for &i in &got {
                if !firsts.contains(&paths[i]) {
                    firsts.push(paths[i]);
                }
            }
            assert_eq!(firsts, ["a", "b", "c", "d", "e"]);
        }
    }

    /// A ranked span of `path` scored `score`, its score explained as one contribution.
    fn span(path: &str, score: f64) -> Ranked {
        crate::search::types::ranked_of(path, &[(Feature::Coherence { size_factor: 1.0 }, score)])
    }

    #[test]
    fn a_moved_hit_takes_the_score_of_the_hit_it_follows_and_says_so() {
        let mut ranked = vec![
            span("a", 1.0),
            span("b", 0.8),
            span("b", 0.7),
            span("c", 0.5),
        ];
        further_hits_after_next_files(&mut ranked);
        let got: Vec<(&str, f64)> = ranked
            .iter()
            .map(|(s, _)| (s.path.as_str(), s.score))
            .collect();
        assert_eq!(got, [("a", 1.0), ("b", 0.8), ("c", 0.5), ("b", 0.5)]);
        for (s, _) in &ranked {
            let sum: f64 = s.why.0.iter().map(|c| c.value).sum();
            assert!((sum - s.score).abs() < 1e-12, "{s:?}");
        }
        let moved = &ranked[3].0.why.0;
        assert_eq!(
            moved.last().map(|c| c.feature),
            Some(Feature::FileShownAbove)
        );
        // Nothing to move: nothing changes, no feature added.
        let mut still = vec![span("a", 1.0), span("a", 0.9), span("b", 0.5)];
        further_hits_after_next_files(&mut still);
        assert!(still.iter().all(|(s, _)| s.why.0.len() == 1), "{still:?}");
    }

    #[test]
    fn held_back_hits_end_the_list_when_too_few_files_follow() {
        assert_eq!(order(&["a", "b", "b", "c"], 3, 8), [0, 1, 3, 2]);
        assert_eq!(order(&["a", "b", "c"], 2, 8), [0, 1, 2]);
        assert!(spread(std::iter::empty(), 1, 8).is_empty());
    }
}
