//! A file's further hits after the next file. For a query that names a thing or a topic the
//! file is what is asked for, and an agent reads the hits in order until it reaches the right
//! one: a neighbour of the answer with two or three hits near the top is read whole before
//! the answer's file. So among the first [`HELD_WITHIN`] hits, a further hit of a file other
//! than the first waits until [`NEW_FILES_FIRST`] files not yet shown have come before it.
//! The first file, most often the answer, keeps its hits where they rank (as it keeps more of
//! its lines, `search::focus`). Each file's first hit keeps its place among the other files'
//! first hits, so the files and their order do not change, nor which hits are listed.
//!
//! [`HELD_WITHIN`]: super::params::spread::HELD_WITHIN
//! [`NEW_FILES_FIRST`]: super::params::spread::NEW_FILES_FIRST

use std::collections::HashSet;

use super::explain::Feature;
use super::params::spread::{HELD_WITHIN, NEW_FILES_FIRST};
use super::types::Ranked;

/// Move the further hits of `ranked` (best first) that wait for the next files
/// (`spread`). A moved hit's score falls to the score of the hit it now follows, so scores
/// still fall down the list and `--explain` still sums (`Feature::FileShownAbove`).
pub fn further_hits_after_next_files(ranked: &mut Vec<Ranked>) {
    let order = spread(
        ranked.iter().map(|(s, _)| s.path.as_str()),
        NEW_FILES_FIRST,
        HELD_WITHIN,
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
/// first item's, waits until `new_files` items of paths not yet seen have come after it (or
/// the list ends).
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
    fn the_first_files_hits_and_hits_past_the_first_few_stay() {
        assert_eq!(order(&["a", "a", "b", "a", "c"], 1, 8), [0, 1, 2, 3, 4]);
        // b's hit at index 3 waits; its hit at index 4 (not within the first 4) stays.
        assert_eq!(
            order(&["a", "b", "c", "b", "b", "d"], 1, 4),
            [0, 1, 2, 4, 5, 3]
        );
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

    #[test]
    fn held_back_hits_end_the_list_when_too_few_files_follow() {
        assert_eq!(order(&["a", "b", "b", "c"], 3, 8), [0, 1, 3, 2]);
        assert_eq!(order(&["a", "b", "c"], 2, 8), [0, 1, 2]);
    }
}
