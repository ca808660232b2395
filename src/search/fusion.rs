//! Weighted reciprocal-rank fusion of ranked lists, and merging of overlapping or adjacent
//! hits in the same file. Pure functions, tested here.

use std::collections::HashMap;

use super::explain::{Feature, Why};

pub use super::source::Source;

/// A fused score with the retrievers that contributed.
#[derive(Debug, Clone, PartialEq)]
pub struct Fused {
    /// Sum of weight / (k + rank) over the lists the key appears in.
    pub score: f64,
    /// Retrievers that returned the key, in order.
    pub sources: Vec<Source>,
    /// What each list added.
    pub why: Why,
}

/// Fuse ranked lists of keys: each list has a source and a weight; ranks start at 1.
/// A key repeated within one list counts at its best rank only.
pub fn rrf(lists: &[(Source, f64, Vec<String>)], k: f64) -> Vec<(String, Fused)> {
    let mut acc: HashMap<&str, Fused> = HashMap::new();
    let mut order: Vec<&str> = Vec::new();
    for (source, weight, keys) in lists {
        let mut seen = std::collections::HashSet::new();
        for (i, key) in keys.iter().enumerate() {
            if !seen.insert(key.as_str()) {
                continue;
            }
            let entry = acc.entry(key.as_str()).or_insert_with(|| {
                order.push(key.as_str());
                Fused {
                    score: 0.0,
                    sources: Vec::new(),
                    why: Why::default(),
                }
            });
            let add = weight / (k + (i + 1) as f64);
            entry.score += add;
            entry.why.add(
                Feature::Retrieved {
                    by: *source,
                    rank: i + 1,
                },
                add,
            );
            if !entry.sources.contains(source) {
                entry.sources.push(*source);
            }
        }
    }
    let mut out: Vec<(String, Fused)> = order
        .into_iter()
        .map(|key| (key.to_string(), acc.remove(key).expect("inserted above")))
        .collect();
    // Stable: ties keep first-seen order (earlier lists, better ranks).
    out.sort_by(|a, b| b.1.score.total_cmp(&a.1.score));
    out
}

/// A span of lines in one file with a score, to be merged with its neighbours.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    /// File path.
    pub path: String,
    /// First line.
    pub start: u32,
    /// Last line (inclusive).
    pub end: u32,
    /// Score.
    pub score: f64,
    /// Retrievers.
    pub sources: Vec<Source>,
    /// Indices of the original items merged into this span.
    pub members: Vec<usize>,
    /// What made its score (`search::explain`).
    pub why: Why,
}

/// Whether lines starting at `start` touch lines ending at `end`: at most `gap` lines lie
/// between them.
pub fn touching(end: u32, start: u32, gap: u32) -> bool {
    start <= end.saturating_add(gap + 1)
}

/// Merge spans of the same file that overlap, or that touch (`gap` lines apart at most)
/// while the merged span stays within `max_lines`. The merged score is the best member's
/// plus a tenth of the others', so a region found by several chunks ranks a little higher
/// without swamping single strong hits.
pub fn merge_spans(mut spans: Vec<Span>, gap: u32, max_lines: u32) -> Vec<Span> {
    spans.sort_by(|a, b| a.path.cmp(&b.path).then(a.start.cmp(&b.start)));
    let mut out: Vec<Span> = Vec::new();
    let mut extra: Vec<f64> = Vec::new();
    for mut s in spans {
        if let Some(last) = out.last_mut() {
            let overlaps = s.start <= last.end;
            let touches =
                touching(last.end, s.start, gap) && s.end.max(last.end) - last.start < max_lines;
            if last.path == s.path && (overlaps || touches) {
                // The best member's chunk leads the members (`search::trim` cuts a hit to
                // the definition around it).
                let (hi, lo) = if s.score > last.score {
                    last.why = std::mem::take(&mut s.why);
                    let rest = std::mem::take(&mut last.members);
                    last.members = std::mem::take(&mut s.members);
                    last.members.extend(rest);
                    (s.score, last.score)
                } else {
                    (last.score, s.score)
                };
                *extra.last_mut().expect("parallel to out") += lo;
                last.score = hi;
                last.end = last.end.max(s.end);
                for src in s.sources {
                    if !last.sources.contains(&src) {
                        last.sources.push(src);
                    }
                }
                last.members.extend(s.members);
                continue;
            }
        }
        out.push(s);
        extra.push(0.0);
    }
    for (s, e) in out.iter_mut().zip(extra) {
        s.score += 0.1 * e;
        let chunks = s.members.len() - 1;
        s.why.add(Feature::Neighbours { chunks }, 0.1 * e);
        s.sources.sort();
    }
    sort_best_first(&mut out);
    out
}

/// Order spans best first; ties by path, then line, so output never depends on hash order.
pub fn sort_best_first(spans: &mut [Span]) {
    spans.sort_by(best_first);
}

/// The order of [`sort_best_first`]: higher score first, then path, then first line.
pub fn best_first(a: &Span, b: &Span) -> std::cmp::Ordering {
    b.score
        .total_cmp(&a.score)
        .then(a.path.cmp(&b.path))
        .then(a.start.cmp(&b.start))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn rrf_sums_weighted_reciprocal_ranks() {
        let lists = vec![
            (Source::Bm25, 0.6, keys(&["a", "b", "c"])),
            (Source::Symbol, 0.1, keys(&["c", "a"])),
        ];
        let fused = rrf(&lists, 60.0);
        let a = &fused.iter().find(|(k, _)| k == "a").unwrap().1;
        assert!((a.score - (0.6 / 61.0 + 0.1 / 62.0)).abs() < 1e-12);
        assert_eq!(a.sources, vec![Source::Bm25, Source::Symbol]);
        assert_eq!(fused[0].0, "a");
        // c: 0.6/63 + 0.1/61 > b: 0.6/62
        assert_eq!(fused[1].0, "c");
    }

    #[test]
    fn rrf_counts_a_repeated_key_once_per_list() {
        let fused = rrf(&[(Source::Bm25, 1.0, keys(&["a", "a"]))], 60.0);
        assert_eq!(fused.len(), 1);
        assert!((fused[0].1.score - 1.0 / 61.0).abs() < 1e-12);
    }

    fn span(path: &str, start: u32, end: u32, score: f64, i: usize) -> Span {
        Span {
            path: path.into(),
            start,
            end,
            score,
            sources: vec![Source::Bm25],
            members: vec![i],
            why: Why::default(),
        }
    }

    #[test]
    fn merges_overlapping_and_adjacent_spans_of_one_file() {
        let merged = merge_spans(
            vec![
                span("a.rs", 1, 10, 0.5, 0),
                span("a.rs", 11, 20, 0.2, 1),
                span("a.rs", 40, 50, 0.3, 2),
                span("b.rs", 5, 9, 0.4, 3),
            ],
            0,
            80,
        );
        assert_eq!(merged.len(), 3);
        assert_eq!((merged[0].start, merged[0].end), (1, 20));
        assert!((merged[0].score - 0.52).abs() < 1e-12);
        assert_eq!(merged[0].members, vec![0, 1]);
        assert_eq!(merged[1].path, "b.rs");
        // Touching spans are not merged past the size limit; overlapping ones always are.
        let apart = merge_spans(
            vec![span("a.rs", 1, 50, 0.5, 0), span("a.rs", 51, 100, 0.4, 1)],
            0,
            80,
        );
        assert_eq!(apart.len(), 2);
        let overlap = merge_spans(
            vec![span("a.rs", 1, 50, 0.5, 0), span("a.rs", 40, 100, 0.4, 1)],
            0,
            80,
        );
        assert_eq!(overlap.len(), 1);
    }

    #[test]
    fn the_best_member_leads_a_merged_span() {
        // `search::trim` cuts a hit around its first member.
        let merged = merge_spans(
            vec![
                span("a.rs", 1, 10, 0.2, 0),
                span("a.rs", 11, 20, 0.5, 1),
                span("a.rs", 21, 30, 0.3, 2),
            ],
            0,
            80,
        );
        assert_eq!(merged[0].members, vec![1, 0, 2]);
    }
}
