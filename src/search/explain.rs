//! Why a hit ranks where it does (`--explain`). Every step of ranking that changes a
//! candidate's score records what it added, as a named feature and a value, so that a hit's
//! contributions always sum to its score: a step that changed a score without saying so
//! would break that sum, which the tests check on real searches.

use serde::Serialize;

use super::source::Source;

/// What added to (or took from) a hit's score.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "feature", rename_all = "snake_case")]
pub enum Feature {
    /// A retriever's list ranked the hit's chunk: weight / (k + rank).
    Retrieved {
        /// The retriever.
        by: Source,
        /// Its rank in that list (1 is first).
        rank: usize,
    },
    /// Recency and the path prior (tests, docs, vendored code lower), as one factor on what
    /// the chunk had.
    PathAndRecency {
        /// The factor.
        factor: f64,
    },
    /// Neighbouring chunks merged into the hit: a tenth of their scores. A name's or a
    /// topic's hit may show fewer of them (`search::trim`); they still counted.
    Neighbours {
        /// How many chunks were merged in.
        chunks: usize,
    },
    /// A whole-file list ranked the hit's file (whole-file BM25, the same over an issue's
    /// title, the vector list's files, past commits' files): a file's best spans share what
    /// the list gave it, less and less (`search::files::lift_best_spans`).
    FileRanked {
        /// The list.
        by: Source,
        /// Its rank there (1 is first).
        rank: usize,
    },
    /// Only whole-file lists found the file: the hit is its best chunk, scored as the file.
    FileOnly,
    /// A question's evidence for the file (`search::rerank`), given to its best span: its
    /// summed span scores as a share of the best file's (several spans and retrievers point
    /// at it, not one lucky chunk). For a topic question naming a feature, times a factor
    /// below 1 for a big file (`search::filesize`).
    Coherence {
        /// That factor: 1 for a file of at most `COHERENCE_FULL_BYTES`, or any other query.
        size_factor: f64,
    },
    /// The same for the file that is the module of a directory beside it (`railtie.rb` for
    /// `railtie/`): a share of the scores of the spans in that directory's own files.
    Module,
    /// The share of the question's words the file's path holds (`templating.py` for
    /// "template rendering").
    PathWords,
    /// The file is named after the question's topic (`Response.swift` for "Response type
    /// and HTTP response construction").
    TopicFile,
    /// The span holds the definition of a name the question asks for (`Logger`, or
    /// `Application` in "how Application boots").
    Definition,
    /// Changed together with a top result in history: placed after the top hits.
    ChangedWith,
    /// The file beside a C or C++ header ranked above that implements what it declares
    /// (`backtracer-inl.h` for `backtracer.h`): placed right after the header's first hit,
    /// with its score (`search::companion`).
    Implementation,
    /// A pasted issue's best BM25 match among the chunks of one of its first result files:
    /// placed right after that file's first hit, with its score (`search::infile`).
    BestInFile,
    /// The function of a description's first result file whose signature the static model
    /// puts nearest the question: placed right after that file's first hit, with its score
    /// (`search::described`).
    DescribedFunction {
        /// The cosine of its signature's vector to the question's.
        similarity: f64,
    },
    /// A further hit of a file with a hit above, among a name's or a topic's first hits:
    /// placed after the next file not yet shown, with the score of the hit it follows
    /// (`search::spread`).
    FileShownAbove,
}

impl Feature {
    /// The question's evidence (`search::rerank`), one feature per rule.
    pub const EVIDENCE: [Feature; 5] = [
        // Only the variant matters here (`learned::group` matches `Coherence { .. }`).
        Feature::Coherence { size_factor: 1.0 },
        Feature::Module,
        Feature::PathWords,
        Feature::TopicFile,
        Feature::Definition,
    ];

    /// The feature in words, for a terminal.
    pub fn describe(&self) -> String {
        match self {
            Feature::Retrieved { by, rank } => format!("{} found it at rank {rank}", by.name()),
            Feature::PathAndRecency { factor } => format!("path prior and recency (x{factor:.2})"),
            Feature::Neighbours { chunks } => {
                format!("{chunks} touching chunk(s) of the file matched too")
            }
            Feature::FileRanked { by, rank } => {
                format!("{} ranked its file at {rank}", file_list_name(*by))
            }
            Feature::FileOnly => "only whole-file lists found its file".into(),
            // Said only where it shows: a file just past the size keeps x1.00.
            Feature::Coherence { size_factor } if *size_factor < 0.995 => format!(
                "several spans of its file matched (file coherence, x{size_factor:.2} for its size)"
            ),
            Feature::Coherence { .. } => {
                "several spans of its file matched (file coherence)".into()
            }
            Feature::Module => "the files of the directory it is the module of matched".into(),
            Feature::PathWords => "its path holds the question's words".into(),
            Feature::TopicFile => "its file is named after the question's topic".into(),
            Feature::Definition => "it defines a name the question asks for".into(),
            Feature::ChangedWith => "changed together with a top result".into(),
            Feature::Implementation => "it implements the header ranked above it".into(),
            Feature::BestInFile => "the issue's best match inside a top result file".into(),
            Feature::DescribedFunction { similarity } => format!(
                "the function of the first result file nearest the question (cosine {similarity:.2})"
            ),
            Feature::FileShownAbove => {
                "its file has a hit above: placed after the next file not yet shown".into()
            }
        }
    }
}

/// A whole-file list, in words.
fn file_list_name(by: Source) -> &'static str {
    match by {
        Source::File => "whole-file BM25",
        Source::Title => "whole-file BM25 over the title",
        Source::Vector => "the vector list's files",
        Source::Commits => "past commits' files",
        Source::Bm25 | Source::Symbol | Source::History => by.name(),
    }
}

/// One feature's share of a score.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Contribution {
    /// The feature.
    #[serde(flatten)]
    pub feature: Feature,
    /// What it added (negative: took away).
    pub value: f64,
}

/// The contributions to one candidate's score, in the order ranking applied them.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Why(pub Vec<Contribution>);

impl Why {
    /// Record that `feature` added `value`.
    pub fn add(&mut self, feature: Feature, value: f64) {
        if value != 0.0 {
            self.0.push(Contribution { feature, value });
        }
    }
}
