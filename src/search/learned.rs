//! The learned scorer: the final order of a search's candidates from their named features
//! (`search::explain`), each feature group weighed by the kind of query. The weights are a
//! table fitted offline by `bench/ltr.py` on the development sets (the description row on
//! five short-question sets) and scored there on repositories each fold was not fitted to
//! (`search::learned_table`); all ones would be the hand rules' order exactly.
//! Deterministic: a table lookup and a sort.

use super::explain::Feature;
use super::fusion::best_first;
use super::learned_table::{GROUPS, WEIGHTS};
pub use super::reading::Kind;
use super::source::Source;
use super::types::Ranked;

/// A kind's row of [`WEIGHTS`].
fn row(kind: Kind) -> usize {
    match kind {
        Kind::Name => 0,
        Kind::Topic => 1,
        Kind::Behaviour => 2,
        Kind::Issue => 3,
    }
}

/// The weight group of a contribution, as an index into a row of [`WEIGHTS`] (names in
/// [`GROUPS`]); `None` for what the scorer leaves as it is: history's partners, a header's
/// implementation, an issue's best lines in a file, a description's function in its first
/// file and a file's further hits after the next file are placed by position after the order
/// is set.
fn group(feature: &Feature) -> Option<usize> {
    Some(match feature {
        Feature::Retrieved { by, .. } => return list_group(*by),
        // The vector list ranks chunks and, for a question, their files: two groups.
        Feature::FileRanked {
            by: Source::Vector, ..
        } => 6,
        Feature::FileRanked { by, .. } => return list_group(*by),
        Feature::PathAndRecency { .. } => 7,
        Feature::Neighbours { .. } => 8,
        Feature::FileOnly => 9,
        Feature::Coherence { .. } => 10,
        Feature::Module => 11,
        Feature::PathWords => 12,
        Feature::TopicFile => 13,
        Feature::Definition => 14,
        Feature::ChangedWith
        | Feature::Implementation
        | Feature::BestInFile
        | Feature::DescribedFunction { .. }
        | Feature::FileShownAbove => return None,
    })
}

/// The group of a list's contributions by its source; history has no list of its own (its
/// partners are placed, `Feature::ChangedWith`).
fn list_group(by: Source) -> Option<usize> {
    Some(match by {
        Source::Bm25 => 0,
        Source::Vector => 1,
        Source::Symbol => 2,
        Source::File => 3,
        Source::Title => 4,
        Source::Commits => 5,
        Source::History => return None,
    })
}

/// Whether the scorer weighs `feature` for a query of `kind` at all: a stage whose every
/// contribution would be weighed at 0 need not run.
pub fn weighs(kind: Kind, feature: &Feature) -> bool {
    group(feature).is_none_or(|g| WEIGHTS[row(kind)][g] != 0.0)
}

/// Weigh each candidate's contributions by the row of `kind` and order the candidates by the
/// weighted sum, best first (ties by path and line, as ranking orders them). Each
/// contribution shown by `--explain` is the weighted one, so they still sum to the score. A
/// row of ones leaves scores and order as ranking made them.
pub fn reorder(ranked: &mut [Ranked], kind: Kind) {
    reorder_by(ranked, &WEIGHTS[row(kind)]);
}

/// [`reorder`] with one row of weights.
fn reorder_by(ranked: &mut [Ranked], weights: &[f64; GROUPS.len()]) {
    if weights.iter().all(|&w| w == 1.0) {
        return;
    }
    for (span, _) in ranked.iter_mut() {
        let mut score = 0.0;
        for c in &mut span.why.0 {
            if let Some(g) = group(&c.feature) {
                c.value *= weights[g];
            }
            score += c.value;
        }
        // A feature weighed at 0 added nothing: not shown, as `Why::add` records no 0.
        span.why.0.retain(|c| c.value != 0.0);
        span.score = score;
    }
    ranked.sort_by(|(a, _), (b, _)| best_first(a, b));
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::search::types::ranked_of as span;

    #[test]
    fn a_feature_is_weighed_where_its_row_gives_it_a_weight() {
        for kind in [Kind::Name, Kind::Topic, Kind::Behaviour, Kind::Issue] {
            let row = WEIGHTS[row(kind)];
            for (g, f) in Feature::EVIDENCE.iter().enumerate() {
                assert_eq!(weighs(kind, f), row[10 + g] != 0.0);
            }
            assert_eq!(weighs(kind, &Feature::FileOnly), row[9] != 0.0);
            // History's partners are placed, not weighed: always kept.
            assert!(weighs(kind, &Feature::ChangedWith));
        }
    }

    fn file_ranked(by: Source) -> Feature {
        Feature::FileRanked { by, rank: 1 }
    }

    fn retrieved(by: Source) -> Feature {
        Feature::Retrieved { by, rank: 1 }
    }

    #[test]
    fn the_table_names_the_groups_in_the_order_the_scorer_indexes_them() {
        let named = [
            (retrieved(Source::Bm25), "bm25"),
            (retrieved(Source::Vector), "vector"),
            (retrieved(Source::Symbol), "symbol"),
            (file_ranked(Source::File), "file"),
            (file_ranked(Source::Title), "title"),
            (file_ranked(Source::Commits), "commits"),
            (file_ranked(Source::Vector), "vector_files"),
            (Feature::PathAndRecency { factor: 1.0 }, "path_and_recency"),
            (Feature::Neighbours { chunks: 1 }, "neighbours"),
            (Feature::FileOnly, "file_only"),
            (Feature::Coherence { size_factor: 1.0 }, "coherence"),
            (Feature::Module, "module"),
            (Feature::PathWords, "path_words"),
            (Feature::TopicFile, "topic_file"),
            (Feature::Definition, "definition"),
        ];
        assert_eq!(named.len(), GROUPS.len());
        for (feature, name) in named {
            assert_eq!(GROUPS[group(&feature).unwrap()], name);
        }
        assert_eq!(group(&Feature::ChangedWith), None);
        assert_eq!(group(&Feature::FileShownAbove), None);
        let chunk_file = retrieved(Source::File);
        assert_eq!(group(&chunk_file), group(&file_ranked(Source::File)));
        for row in WEIGHTS {
            assert!(row.iter().all(|w| w.is_finite() && *w >= 0.0));
        }
    }

    /// The description row as chosen on five short-question sets (bench/RESULTS.md,
    /// thirty-third session): a function's description is nearer its code by the vectors
    /// than by the messages of the commits that touched its file, whose words are a bug
    /// report's more than a doc comment's. A topic keeps ranking's order.
    #[test]
    fn a_description_trusts_its_vectors_over_a_commit_message() {
        let ranked = || {
            vec![
                span(
                    "changed.py",
                    &[
                        (file_ranked(Source::Commits), 0.03),
                        (retrieved(Source::Bm25), 0.01),
                    ],
                ),
                span(
                    "described.py",
                    &[
                        (retrieved(Source::Vector), 0.015),
                        (retrieved(Source::Bm25), 0.01),
                    ],
                ),
            ]
        };
        let mut topic = ranked();
        reorder(&mut topic, Kind::Topic);
        assert_eq!(topic[0].0.path, "changed.py");
        let mut description = ranked();
        reorder(&mut description, Kind::Behaviour);
        assert_eq!(description[0].0.path, "described.py", "{description:?}");
    }

    #[test]
    fn weights_reorder_by_the_weighted_sum_and_the_shares_still_sum_to_the_score() {
        let bm25 = retrieved(Source::Bm25);
        let ranked = || {
            vec![
                span("a", &[(file_ranked(Source::File), 0.30)]),
                span("b", &[(bm25, 0.20), (file_ranked(Source::File), 0.04)]),
            ]
        };
        let mut ones = ranked();
        reorder_by(&mut ones, &[1.0; GROUPS.len()]);
        assert_eq!(ones, ranked(), "all ones: ranking's order and scores");
        let mut weighed = ranked();
        let mut w = [1.0; GROUPS.len()];
        w[0] = 1.5;
        reorder_by(&mut weighed, &w);
        assert_eq!(weighed[0].0.path, "b", "0.30 + 0.04 > 0.30");
        assert!((weighed[0].0.score - 0.34).abs() < 1e-12);
        for (s, _) in &weighed {
            let sum: f64 = s.why.0.iter().map(|c| c.value).sum();
            assert!((sum - s.score).abs() < 1e-12, "the shares sum to the score");
        }
        let mut dropped = ranked();
        w[3] = 0.0;
        reorder_by(&mut dropped, &w);
        assert_eq!(dropped[0].0.path, "b");
        assert!(
            dropped
                .iter()
                .all(|(s, _)| s.why.0.iter().all(|c| c.value != 0.0)),
            "a feature weighed at 0 is not shown: {dropped:?}"
        );
        assert_eq!(dropped[1].0.score, 0.0);
    }
}
