//! The ranking parameters of one search, in one place. Two kinds of query want different
//! fusion: a *question* (one line, a few words: "how are template filters implemented") names
//! what a function does, and the chunk and definition evidence should decide; a pasted
//! *issue* (several lines, a title and a body) spreads its words over the file it is about,
//! and the file-level lists should. Each value says why; docs/ranking.md has the design and
//! bench/RESULTS.md and bench/history/ the measurements.

use super::reading::Reading;
pub use super::reading::Shape;
use crate::config::{SearchConfig, Weights};

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
/// Touching chunks of one file are merged into one hit up to this many lines.
pub const MERGE_MAX_LINES: u32 = 60;
/// Chunks of one file at most this many lines apart touch (a blank line between): they
/// merge into one hit (`fusion::merge_spans`), and a cut hit keeps them (`search::trim`).
pub const MERGE_GAP: u32 = 1;
/// Recency: a file edited `d` days ago gets `recency_boost * exp(-d / RECENCY_DAYS)` more.
pub const RECENCY_DAYS: f64 = 14.0;
/// Best-matching past commits whose files are ranked (10 and 40 measured no better;
/// `search::commits`).
pub const COMMITS: usize = 20;

/// The weight of the definitions list for a question that names a topic rather than
/// describing one function (`search::wording`), as a share of `weights.definitions`. Its
/// words name many definitions in part ("type adapter factories": every `*TypeAdapterFactory`)
/// while its answer is a file; a description's words spell the one function it describes.
/// Concept set 0.881 → 0.885 (architecture 0.813 → 0.822), short questions R@10 0.942 →
/// 0.950 and MRR@10 0.749 → 0.750; 0.5 measured 0.881 on the concept set with larger swings
/// per language and cost static vectors 0.004, 0.25 and 0 lower still.
pub const TOPIC_DEFINITIONS: f64 = 0.75;

/// Files that change together with a top result (`search::cochange`).
pub mod cochange {
    /// Result files whose partners are considered.
    pub const HEADS: usize = 3;
    /// Partners are placed after this many results (and are left alone when already there).
    pub const POSITION: usize = 5;
    /// A partner must share at least this share of its head's commits (on the dev set 0.3
    /// left partners out that fixes needed; 0.15 and 0.1 brought weak ones in, and js lost).
    pub const MIN_SHARE: f64 = 0.2;
}

/// A pasted issue's best lines inside its first result files (`search::infile`). Simulated
/// on the pasted issues: the first file alone brought 3 more gold spans into the first ten
/// hits, two files 6, three 5, and each of the 18 folds leaving one repository out picks two;
/// a second window per file pushed out more than it brought (bench/RESULTS.md, twenty-fifth
/// session, "A pasted issue's lines").
pub mod infile {
    /// Result files that each bring their best chunk.
    pub const FILES: usize = 2;
    /// A file's best chunks looked at: for the best one no hit already shows, and the ones
    /// that touch it.
    pub const CANDIDATES: usize = 50;
    /// Most lines of a file's best lines (the best chunk and the matching chunks touching it).
    /// Up to 60 like ranking's merges: Span@10 0.620, but 11 fewer issues reach their first
    /// gold file within 2,000 tokens; up to 30 (40 alike): Span@10 0.609, and 5 fewer, while
    /// more reach the gold function and span within 2,000 than without the stage.
    pub const MAX_LINES: u32 = 30;
    /// How much more a pasted issue's title weighs than its whole text in choosing a file's
    /// lines: a title names the problem, the body adds logs and steps that match in passing.
    /// Span@10 0.609 (no weight) / 0.613 (2) / 0.620 (4, 8) / 0.624 (16); leaving each
    /// repository out, 16 of 18 folds choose 16 (held-out 0.616).
    pub const TITLE_WEIGHT: f32 = 16.0;
}

/// A pasted issue's first hits widened to their function (`search::widen`). On the pasted
/// issues, Span@10 0.628 → 0.647 (5 issues in 5 repositories, none lost: a hit only grows),
/// while the first gold file is reached within 2,000 tokens for 0.869 → 0.854 of them.
/// Measured with the overlap guard; without it 0.650 and 0.847.
pub mod widen {
    /// The hits widened: the gains were all among the first four; widening every hit gained
    /// no more and cost 0.004 more of the first gold files within 2,000 tokens, the first 3
    /// gained 2 issues fewer.
    pub const HITS: usize = 5;
    /// Longest function shown whole, in lines: as long as ranking's merged windows
    /// (`MERGE_MAX_LINES`, a test checks). 40 gained 1 issue, 80 and 120 one and two more
    /// at a higher cost in tokens.
    pub const MAX_LINES: u32 = 60;
}

/// A name's or a topic's hits cut to their best lines (`search::focus`).
pub mod focus {
    /// Most lines such a hit shows, as many as a pasted issue's best lines
    /// (`infile::MAX_LINES`). On the concept check set's tokens before the first relevant
    /// file and the five short-question sets' Func@10 (questions lost of 1,001), the first
    /// file's hits whole: 30: 338 → 297, 2 lost; 25: 281, 4; 20: 262, 7.
    pub const MAX_LINES: u32 = 30;
    /// Most lines a hit of the first hit's file shows: the answer more often than not, so
    /// more of it stays. 45: 297 → 284 tokens, no more questions lost; 36: 268, 3 more;
    /// every hit cut to 20 lines alike: 194, 19 lost in all.
    pub const FIRST_FILE_MAX_LINES: u32 = 45;
}

/// A name's or a topic's further hits of a file after the next file (`search::spread`).
/// Measured on the concept sets' tokens before the first relevant file and the five
/// short-question sets (bench/RESULTS.md, fortieth session).
pub mod spread {
    /// How many files not yet shown come before a further hit of a file shown above. 1 to
    /// 3 read the same on the concept sets once the first file's hits stay.
    pub const NEW_FILES_FIRST: usize = 1;
    /// The first hits reordered among themselves: a further hit waits at most until this
    /// place, so none leaves the first ten that every line measure reads (a wait with no
    /// bound pushed 3 of 1,001 short questions' functions out of the ten).
    pub const WITHIN: usize = 10;
}

/// The function-level stage (`search::defs`): how a definition's name words count against
/// the question's.
pub mod defs {
    /// A name word the query lacks costs this fraction of what a covered one of the same
    /// rarity earns: `getFieldName` for "field name" still ranks, below `fieldName`.
    pub const MISSING_WORD_COST: f64 = 0.5;
    /// Shortest name word, in characters, that may stand for a longer word of a question
    /// describing one function (`mut` for "mutable"): two letters (`is`, `to`) begin too
    /// many words; four lose three of the eight questions three win.
    pub const MIN_ABBREVIATION: usize = 3;
    /// What such a word earns, as a share of a word the query holds; the rest counts as
    /// missing. Questions gained net on the four short-question sets (dev, check, check2,
    /// check3; Func@10): 1.0: +1 +3 +2 +1 (two lost); 0.75: +2 +3 +2 +1 (none lost); 0.5:
    /// +1 +3 +1 0. Leaving any one set out, the other three choose 0.75 (bench/RESULTS.md,
    /// thirty-second session).
    pub const ABBREVIATION_CREDIT: f64 = 0.75;
}

/// A description's function inside its first result file (`search::described`).
pub mod described {
    /// Least cosine between the question and a function's signature (the static model's
    /// vectors) for the function to be shown. Func@10 on the four short-question sets (dev,
    /// check, check2, check3): 0.802 / 0.795 / 0.786 / 0.809 at 0.5, 0.806 / 0.795 / 0.786 /
    /// 0.809 at 0.6, 0.806 / 0.795 / 0.786 / 0.793 at 0.7; leaving any set out, the others
    /// choose 0.6.
    pub const MIN_SIMILARITY: f32 = 0.6;
    /// Shortest function looked at, in lines: a one- or two-line function is most often an
    /// accessor whose name the symbol lists already match (1 changes none of the four short
    /// question sets' results).
    pub const MIN_LINES: u32 = 3;
    /// Longest function shown whole, in lines (ranking's merged windows go to 60).
    pub const MAX_LINES: u32 = 60;
    /// Definitions of one file read: a bound on the work for a generated file.
    pub const MAX_DEFINITIONS: usize = 2_000;
}

/// The second stage of a question's ranking (`search::rerank`). Each lift is a share of
/// the best fused score of the question, added to a span (times its path prior). Measured
/// on the concept set (`../shared/eval/concept`, NDCG@10) against the short questions
/// (`bench/shortq.jsonl`), which pull the other way: see bench/RESULTS.md and bench/history/.
pub mod rerank {
    /// A file's path: times the share of the question's words it holds (`templating.py`
    /// for "template rendering"). 1.0 and 2.0 measured 0.01 lower on the concept set.
    pub const PATH: f64 = 1.5;
    /// Below this share a path's match is chance (one generic word of a long question).
    pub const PATH_MIN_SHARE: f64 = 0.1;
    /// A file's summed span scores: times its share of the best file's (0.2 and 0.7
    /// measured lower; 0 cost 0.03 on the concept set's architecture questions).
    pub const COHERENCE: f64 = 0.5;
    /// A topic question that opens with a content word ("size-based log file rotation",
    /// not "how are routes registered") names a feature, which a file of its own most often
    /// holds: its coherence lift is weighed down by the file's size, times
    /// `(COHERENCE_FULL_BYTES / bytes) ^ COHERENCE_SIZE_EXPONENT` past that size
    /// (`search::filesize`), since a big file's many chunks match such words in passing
    /// (`logger.h`, `context.go` over `rotating_file_sink-inl.h`, `render/render.go`).
    /// Leaving each of the 42 repositories of every development set out (the concept check
    /// set's eight among them, whose misses suggested the rule), 35 of 42 folds
    /// choose these two values from 6 sizes by 6 exponents (`bench/filesize_fit.py`; the
    /// rest 16,000 and 0.375, or 4,000 and 0.25); held out: concept check set +0.012,
    /// concept set −0.003, short-question sets −0.003 to +0.003, issues +0.002. Searched:
    /// concept check set 0.821 → 0.839, concept set 0.895 → 0.892 (bench/RESULTS.md,
    /// forty-third session).
    pub const COHERENCE_FULL_BYTES: f64 = 8_000.0;
    /// See [`COHERENCE_FULL_BYTES`]: a file of 128 KB keeps half of its lift.
    pub const COHERENCE_SIZE_EXPONENT: f64 = 0.25;
    /// A directory's module file (`railtie.rb` beside `railtie/`): times the share of the
    /// best file's score that the spans of its directory's own files hold (at most 1), added
    /// to its coherence. Concept set 0.853 → 0.855 lexical, 0.871 → 0.874 with static
    /// vectors; 1.0 lifted architecture questions and cost semantic ones; counting every
    /// directory above, or `mod.rs` / `__init__.py` / `index.ts` as the module, did no better.
    pub const MODULE: f64 = 0.5;
    /// A file named after the question's topic (`evidence::topic`: its first word that
    /// at most [`TOPIC_MAX_SHARE`] of the candidate files' paths hold): `Response.swift`
    /// for "Response type and HTTP response construction", `reducers.ts` for "reducer type
    /// definition", where the path lift alone prefers a file whose name holds more of the
    /// question's words. Concept set 0.859 → 0.881 lexical (its semantic category 0.857
    /// → 0.892); 0.4 measured lower, 0.6 0.0007 higher with short questions' MRR@10 0.001
    /// and the lowest language lower; the first two words instead of one 0.884 but short
    /// questions' MRR@10 −0.002 and Func@10 −0.004, any word 0.871 and −0.016 / −0.008.
    pub const TOPIC_FILE: f64 = 0.5;
    /// A word more than this share of the candidate files' paths hold is the project's or
    /// the part's name, not the topic (`phoenix` in `lib/phoenix/*.ex`); 0.2 and 0.5
    /// measured lower.
    pub const TOPIC_MAX_SHARE: f64 = 0.35;
    /// The share of the vector list's files' weight that a question describing what one
    /// piece of code does gets ("Returns the path of the global gitignore file";
    /// `search::wording`): its answer is a function, often in a file whose name the question
    /// does not say. It was the share of every file lift above too (short questions MRR@10
    /// 0.734 → 0.749, Func@10 0.767 → 0.787), until the learned scorer weighed that evidence
    /// at 0 for such a question and the stage stopped running for it (`search::learned`).
    pub const FILES_FOR_BEHAVIOUR: f64 = 0.3;
    /// The definition of the name that is the whole query (`Logger`): first, whatever the
    /// fusion said.
    pub const DEFINITION: f64 = 3.0;
    /// The definition of a name inside a sentence (`how Application boots`).
    pub const DEFINITION_IN_SENTENCE: f64 = 1.0;
    /// Times this again in the file named after it (`Logger.php`).
    pub const DEFINITION_IN_ITS_FILE: f64 = 1.5;
}

/// The path prior's factors (`search::prior`): people search code for code.
pub mod prior {
    /// Multiplier for prose files (markdown, reStructuredText, plain text).
    pub const PROSE: f64 = 0.5;
    /// Multiplier for data and configuration files (JSON, YAML, TOML, XML, lock files, CI).
    pub const DATA: f64 = 0.6;
    /// Multiplier for test files.
    pub const TEST: f64 = 0.5;
    /// Multiplier for other files in languages without a grammar here (shell, HTML, SQL, files
    /// with an unknown extension): often code, but less often what a search is after.
    pub const OTHER: f64 = 0.8;
    /// Extra multiplier for code copied in from other projects (`vendor/`, `third_party/`, or a
    /// subtree with a licence of its own).
    pub const VENDORED: f64 = 0.6;
    /// Extra multiplier for type declarations and stubs (`.d.ts`, `.pyi`): they restate what
    /// the implementation defines, and the implementation is usually what a search is after.
    pub const DECLARATIONS: f64 = 0.7;
    /// Extra multiplier for another operating system's code (`src/win/` and `_windows.go`
    /// on Linux or macOS) when the query does not name that system: the code that runs where
    /// the user is is what a question about behaviour usually means. Concept set 0.855 →
    /// 0.859 lexical, 0.874 → 0.877 with static vectors (libuv's `unix/` over `win/`); 0.6
    /// measured 0.001 more; the short questions and pasted issues do not move.
    pub const OTHER_OS: f64 = 0.8;
    /// Extra multiplier for files under documentation and example trees.
    pub const DOCS: f64 = 0.7;
    /// Extra multiplier for code kept for old callers (`compat/`, `legacy/`, `deprecated/`).
    pub const LEGACY: f64 = 0.5;
    /// Extra per query word found in the path (at most three count).
    pub const PATH_WORD: f64 = 0.1;
}

/// The parameters one search ranks with.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranking {
    /// The query's shape, which chose the values below.
    pub shape: Shape,
    /// The `k` of weighted reciprocal-rank fusion, for chunk and file lists alike.
    pub rrf_k: f64,
    /// Every list's weight for this query, the configured ones as the query's shape sets
    /// them: `vector` (a question's own), `definitions` (0 for an issue, which turns the
    /// function-level list off; less for a topic). Retrievers read these, never the
    /// configuration's.
    pub weights: Weights,
    /// See [`ISSUE_FILE_SPAN_DECAY`] and [`QUESTION_FILE_SPAN_DECAY`].
    pub file_span_decay: f64,
    /// Spans of one file a file-level score lifts.
    pub file_spans: usize,
    /// Contents whose definitions the function-level stage ranks.
    pub definition_files: usize,
    /// Weight of the vector list's files as a file list (0: not used). The one weight
    /// outside [`Ranking::weights`]: it weighs a list no retriever of its own makes.
    pub vector_files: f64,
}

impl Ranking {
    /// The parameters for `q` under the settings `s`.
    ///
    /// An issue keeps the flat fusion (k = `rrf_k`, 90) that lets its many weak lists add
    /// up, and no function-level list: its dozens of words name many definitions by chance
    /// (issue set: MRR@10 0.711 → 0.683 with that list at 0.5). A question gets a steep fusion
    /// (k = `question_rrf_k`, 15), so the top of each list counts, and the definitions its
    /// words name. Vectors count for a question and not for an issue (`weights.vector`, 0): a
    /// few words embed as one meaning, an issue's dozens as a blur (issue set MRR@10 0.707 →
    /// 0.697 even at weight 0.05). For a question they count mostly as a *file* list
    /// (`question_vector_file_weight`, 0.8), which lifts a near file's best lexical spans,
    /// and a little as a chunk list (`question_vector_weight`, 0.15): their chunks at a
    /// higher weight push the lines a short question asks for out of the first ten (static
    /// vectors, concept set NDCG@10 0.853 → 0.871; short questions' Func@10 0.767 → 0.775,
    /// where the chunk list alone at 1.0 gave 0.873 and 0.744; bench/RESULTS.md and
    /// bench/history/). A question naming a topic weighs the definitions its words name at
    /// [`TOPIC_DEFINITIONS`] of a description's, and a description gets
    /// [`rerank::FILES_FOR_BEHAVIOUR`] of the vector files' weight.
    pub fn for_query(s: &SearchConfig, reading: &Reading) -> Ranking {
        let shape = reading.shape;
        let mut weights = s.weights.clone();
        if shape == Shape::Question {
            weights.vector = s.question_vector_weight;
        }
        let (rrf_k, definitions, file_span_decay, vector_files) = match shape {
            Shape::Question => (
                s.question_rrf_k,
                s.weights.definitions,
                QUESTION_FILE_SPAN_DECAY,
                s.question_vector_file_weight,
            ),
            Shape::Issue => (s.rrf_k, 0.0, ISSUE_FILE_SPAN_DECAY, 0.0),
        };
        let describes_behaviour = reading.describes_behaviour;
        weights.definitions = if describes_behaviour {
            definitions
        } else {
            definitions * TOPIC_DEFINITIONS
        };
        // The vector list's files are a file lift, and a description's answer is one
        // function: it gets a share of them (static vectors, short questions Func@10 0.791 →
        // 0.795, MRR@10 0.754 → 0.751; check set 0.795 → 0.804, 0.823 → 0.821).
        let vector_files = if describes_behaviour {
            vector_files * rerank::FILES_FOR_BEHAVIOUR
        } else {
            vector_files
        };
        Ranking {
            shape,
            rrf_k,
            weights,
            file_span_decay,
            file_spans: FILE_SPANS,
            definition_files: DEFINITION_FILES,
            vector_files,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(q: &str) -> Reading {
        Reading::of(&crate::search::prepare(q).unwrap())
    }

    #[test]
    fn an_issue_shows_functions_whole_up_to_a_merged_windows_length() {
        assert_eq!(widen::MAX_LINES, MERGE_MAX_LINES);
    }

    #[test]
    fn a_line_of_words_is_a_question_and_a_pasted_issue_is_not() {
        let s = SearchConfig::default();
        let question = read("how are template filters implemented");
        let r = Ranking::for_query(&s, &question);
        assert_eq!(r.shape, Shape::Question);
        assert_eq!(r.rrf_k, s.question_rrf_k);
        assert!(r.weights.definitions > 0.0);
        assert_eq!(r.weights.vector, s.question_vector_weight);
        assert_eq!(r.vector_files, s.question_vector_file_weight);
        let issue = read("Crash on load\nWhen I open a file the app crashes.");
        let r = Ranking::for_query(&s, &issue);
        assert_eq!(r.shape, Shape::Issue);
        assert_eq!(r.rrf_k, s.rrf_k);
        assert_eq!(r.weights.definitions, 0.0);
        assert_eq!(r.vector_files, 0.0);
        assert_eq!(r.weights.vector, s.weights.vector);
        let described = read("Returns the path of the ignore file");
        let r = Ranking::for_query(&s, &described);
        assert_eq!(
            r.vector_files,
            s.question_vector_file_weight * rerank::FILES_FOR_BEHAVIOUR
        );
    }

    #[test]
    fn a_description_weighs_the_definitions_it_names_more_than_a_topic_question() {
        let s = SearchConfig::default();
        let ranking = |q: &str| Ranking::for_query(&s, &read(q));
        let described = ranking("Returns the type adapter for the given type");
        let topic = ranking("type adapter factories and how they are selected");
        assert!(
            read("Returns the type adapter for the given type").describes_behaviour
                && !read("type adapter factories and how they are selected").describes_behaviour
        );
        assert_eq!(described.weights.definitions, s.weights.definitions);
        assert!(
            topic.weights.definitions > 0.0
                && topic.weights.definitions < described.weights.definitions
        );
    }
}
