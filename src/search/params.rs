//! The ranking parameters of one search, in one place. Two kinds of query want different
//! fusion: a *question* (one line, a few words: "how are template filters implemented") names
//! what a function does, and the chunk and definition evidence should decide; a pasted
//! *issue* (several lines, a title and a body) spreads its words over the file it is about,
//! and the file-level lists should. Each value says why; docs/ranking.md has the design and
//! bench/RESULTS.md the measurements.

use super::query::Query;
use crate::config::{SearchConfig, Weights};

/// A one-line query of at most this many words is a question; longer or several lines is
/// an issue. The short-question set runs to 18 words; the issues' median is 24, and only one
/// of the 268 is a single line.
pub const QUESTION_MAX_WORDS: usize = 30;

/// How much of a file's score its k-th best span (0-based) gets, for an issue: `0.75^k`. An
/// issue's file is right more often than its lines, so the file's first spans come first and
/// other files still get in (issue set: Span@10 0.53 with 0.5, 0.58 with 0.75).
const ISSUE_FILE_SPAN_DECAY: f64 = 0.75;
/// For a question every lifted span of a file gets all of its score: the chunk evidence then
/// orders them, and the best file's third chunk can beat the ninth file's first (short set:
/// Func@10 0.75 → 0.78 with 1.0 rather than 0.75).
const QUESTION_FILE_SPAN_DECAY: f64 = 1.0;
/// Spans of one file that a file-level score lifts.
const FILE_SPANS: usize = 5;
/// Distinct contents, from the top of each list, whose definitions the function-level stage
/// ranks (`search::defs`).
const DEFINITION_FILES: usize = 30;

/// What kind of query it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One line, at most [`QUESTION_MAX_WORDS`] words.
    Question,
    /// Several lines, or a long line: a pasted issue, log or message.
    Issue,
}

impl Shape {
    /// The shape of `q`.
    pub fn of(q: &Query) -> Shape {
        if q.title.is_none() && q.raw.split_whitespace().count() <= QUESTION_MAX_WORDS {
            Shape::Question
        } else {
            Shape::Issue
        }
    }
}

/// The parameters one search ranks with.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranking {
    /// The query's shape, which chose the values below.
    pub shape: Shape,
    /// The `k` of weighted reciprocal-rank fusion, for chunk and file lists alike.
    pub rrf_k: f64,
    /// The retrievers' weights.
    pub weights: Weights,
    /// Weight of the function-level list (definitions the query names); 0 turns it off.
    pub definitions: f64,
    /// See [`ISSUE_FILE_SPAN_DECAY`] and [`QUESTION_FILE_SPAN_DECAY`].
    pub file_span_decay: f64,
    /// Spans of one file a file-level score lifts.
    pub file_spans: usize,
    /// Contents whose definitions the function-level stage ranks.
    pub definition_files: usize,
}

impl Ranking {
    /// The parameters for `q` under the settings `s`.
    ///
    /// An issue keeps the flat fusion (k = `rrf_k`, 90) that lets its many weak lists add
    /// up, and no function-level list: its dozens of words name many definitions by chance
    /// (issue set: MRR@10 0.711 → 0.683 with that list at 0.5). A question gets a steep fusion
    /// (k = `question_rrf_k`, 15), so the top of each list counts, and the definitions its
    /// words name.
    pub fn for_query(s: &SearchConfig, q: &Query) -> Ranking {
        let shape = Shape::of(q);
        let (rrf_k, definitions, file_span_decay) = match shape {
            Shape::Question => (
                s.question_rrf_k,
                s.weights.definitions,
                QUESTION_FILE_SPAN_DECAY,
            ),
            Shape::Issue => (s.rrf_k, 0.0, ISSUE_FILE_SPAN_DECAY),
        };
        Ranking {
            shape,
            rrf_k,
            weights: s.weights.clone(),
            definitions,
            file_span_decay,
            file_spans: FILE_SPANS,
            definition_files: DEFINITION_FILES,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_of_words_is_a_question_and_a_pasted_issue_is_not() {
        let s = SearchConfig::default();
        let question = crate::search::prepare("how are template filters implemented").unwrap();
        let r = Ranking::for_query(&s, &question);
        assert_eq!(r.shape, Shape::Question);
        assert_eq!(r.rrf_k, s.question_rrf_k);
        assert!(r.definitions > 0.0);
        let issue =
            crate::search::prepare("Crash on load\nWhen I open a file the app crashes.").unwrap();
        let r = Ranking::for_query(&s, &issue);
        assert_eq!(r.shape, Shape::Issue);
        assert_eq!(r.rrf_k, s.rrf_k);
        assert_eq!(r.definitions, 0.0);
        let long_line = crate::search::prepare(&"word ".repeat(QUESTION_MAX_WORDS + 1)).unwrap();
        assert_eq!(Shape::of(&long_line), Shape::Issue);
    }
}
