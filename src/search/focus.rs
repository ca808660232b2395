//! A hit cut to its best lines. Chunks are cut at syntax boundaries up to a size (256
//! tokens by default), so a hit is often 40 to 60 lines, of which the query matches a part:
//! one method among several, one block of a long function. For a query that names a thing
//! or a topic the file is what is asked for, and an agent reads each hit in turn until it
//! reaches the right file: the lines of the files before it are its cost. So each hit
//! longer than [`MAX_LINES`] lines shows the [`MAX_LINES`] lines that hold the most of the
//! query's terms; the hits of the first file, most often the answer, keep up to
//! [`FIRST_FILE_MAX_LINES`]. Which files come first, and in what order, does not change.
//!
//! Measured (bench/RESULTS.md, thirty-ninth session): on the concept check set the tokens
//! read before the first relevant file fall 338 → 284; the short questions' gold function
//! lies more often within the first 2,000 tokens on every set, and 2 of 1,001 leave the
//! first ten hits (a question whose function has lost its doc comment matches its
//! neighbour's doc comment better than its own lines). Cutting the first file's hits to 36
//! lines, the others' to 20 or 25, or every hit to 20, saved more and lost 2 to 17 more.

use super::params::focus::{FIRST_FILE_MAX_LINES, MAX_LINES};
use super::types::Hit;

/// Cut each of `hits` longer than [`MAX_LINES`] lines (of the first hit's file, than
/// [`FIRST_FILE_MAX_LINES`]) to its best lines for `terms`.
pub fn to_best_lines(hits: &mut [Hit], terms: &[String]) {
    let Some(first) = hits.first().map(|h| h.path.clone()) else {
        return;
    };
    for hit in hits.iter_mut() {
        let max = if hit.path == first {
            FIRST_FILE_MAX_LINES
        } else {
            MAX_LINES
        } as usize;
        if let Some(at) = best_window(&hit.lines, terms, max) {
            hit.lines = hit.lines[at..at + max].to_vec();
            hit.start_line = hit.lines[0].0;
            hit.end_line = hit.lines[hit.lines.len() - 1].0;
        }
    }
}

/// Where the window of `max` lines of `lines` with the most term matches starts (the
/// earliest on a tie), or `None` when `lines` fit already or no line matches.
fn best_window(lines: &[(u32, String)], terms: &[String], max: usize) -> Option<usize> {
    if max == 0 || lines.len() <= max || terms.is_empty() {
        return None;
    }
    let (start, matched) = densest_window(lines, terms, max);
    (matched > 0).then_some(start)
}

/// The start of the window of `n` consecutive lines of `lines` (`n <= lines.len()`)
/// holding the most matches of `terms` (the earliest on a tie), and how many it holds. A
/// hit's snippet is chosen the same way (`answer::snippet`).
pub(crate) fn densest_window(
    lines: &[(u32, String)],
    terms: &[String],
    n: usize,
) -> (usize, usize) {
    let scores: Vec<usize> = lines.iter().map(|(_, l)| matches(l, terms)).collect();
    let mut sum: usize = scores[..n].iter().sum();
    let mut best = (0, sum);
    for start in 1..=scores.len() - n {
        sum = sum + scores[start + n - 1] - scores[start - 1];
        if sum > best.1 {
            best = (start, sum);
        }
    }
    best
}

/// How many of `terms` the line holds (case-insensitive).
fn matches(line: &str, terms: &[String]) -> usize {
    let lower = line.to_lowercase();
    terms.iter().filter(|t| lower.contains(t.as_str())).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(texts: &[&str]) -> Vec<(u32, String)> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| (i as u32 + 10, t.to_string()))
            .collect()
    }

    fn terms(t: &[&str]) -> Vec<String> {
        t.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_window_with_the_most_matches_wins_and_the_earliest_on_a_tie() {
        let lines = numbered(&["a", "retry", "b", "Retry backoff", "c", "backoff"]);
        assert_eq!(
            best_window(&lines, &terms(&["retry", "backoff"]), 2),
            Some(2)
        );
        let tie = numbered(&["retry", "x", "retry", "y"]);
        assert_eq!(best_window(&tie, &terms(&["retry"]), 1), Some(0));
    }

    #[test]
    fn a_hit_that_fits_or_matches_nothing_is_left_alone() {
        let lines = numbered(&["a", "b", "c"]);
        assert_eq!(best_window(&lines, &terms(&["a"]), 3), None);
        assert_eq!(best_window(&lines, &terms(&["zzz"]), 2), None);
        assert_eq!(best_window(&lines, &[], 2), None);
    }

    fn hit(path: &str, n: usize, word_at: usize) -> Hit {
        let lines = (0..n)
            .map(|i| {
                let text = if i == word_at { "retry" } else { "pass" };
                (i as u32 + 1, text.to_string())
            })
            .collect();
        Hit {
            path: path.into(),
            start_line: 1,
            end_line: n as u32,
            score: 1.0,
            sources: vec![],
            language: crate::lang::Language::Python,
            lines,
            why: Default::default(),
        }
    }

    #[test]
    fn the_first_file_keeps_more_lines_than_the_others() {
        let long = FIRST_FILE_MAX_LINES as usize * 2;
        let mut hits = vec![
            hit("a.py", long, long - 1),
            hit("b.py", long, long - 1),
            hit("a.py", FIRST_FILE_MAX_LINES as usize, 0),
            hit("c.py", 5, 0),
        ];
        to_best_lines(&mut hits, &terms(&["retry"]));
        let spans: Vec<(u32, u32, usize)> = hits
            .iter()
            .map(|h| (h.start_line, h.end_line, h.lines.len()))
            .collect();
        let (l, first, other) = (long as u32, FIRST_FILE_MAX_LINES, MAX_LINES);
        assert_eq!(
            spans,
            vec![
                (l - first + 1, l, first as usize),
                (l - other + 1, l, other as usize),
                (1, first, first as usize),
                (1, 5, 5)
            ]
        );
        assert_eq!(hits[1].lines[0].0, hits[1].start_line);
    }
}
