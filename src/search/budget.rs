//! Fitting results into an output budget for agents (`--max-tokens`), and collapsing them
//! to ranked unique files (`--files-only`).

use super::types::Hit;
use crate::text::tokens;

/// What a budget cut away.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cut {
    /// Hits left out entirely.
    pub dropped_hits: usize,
    /// Lines trimmed from the end of the last hit kept.
    pub trimmed_lines: usize,
}

impl Cut {
    /// Whether anything was cut.
    pub fn is_empty(&self) -> bool {
        self.dropped_hits == 0 && self.trimmed_lines == 0
    }
}

/// Tokens a hit costs in output: its header plus every line.
fn line_cost(line: &str) -> usize {
    tokens::estimate(line) + 1
}

const HEADER_COST: usize = 12;

/// Keep the best hits whose full text fits in `max_tokens` (estimated cl100k tokens). The
/// first hit that does not fit is trimmed at a line boundary if at least a few lines fit;
/// the rest are dropped. The first hit always keeps at least one line.
pub fn fit(hits: Vec<Hit>, max_tokens: usize) -> (Vec<Hit>, Cut) {
    let mut left = max_tokens;
    let mut kept = Vec::new();
    let mut cut = Cut::default();
    let total = hits.len();
    for mut hit in hits {
        let cost: usize = HEADER_COST + hit.lines.iter().map(|(_, l)| line_cost(l)).sum::<usize>();
        if cost <= left {
            left -= cost;
            kept.push(hit);
            continue;
        }
        // Trim this hit to what fits, if that is worth showing.
        let mut budget = left.saturating_sub(HEADER_COST);
        let mut n = 0;
        for (_, l) in &hit.lines {
            let c = line_cost(l);
            if c > budget {
                break;
            }
            budget -= c;
            n += 1;
        }
        let first = kept.is_empty();
        let n = if first { n.max(1) } else { n };
        if n > 0 && (first || n >= 3.min(hit.lines.len())) {
            cut.trimmed_lines = hit.lines.len() - n;
            hit.lines.truncate(n);
            hit.end_line = hit.lines.last().map(|(l, _)| *l).unwrap_or(hit.start_line);
            kept.push(hit);
        }
        break;
    }
    cut.dropped_hits = total - kept.len();
    (kept, cut)
}

/// One file of a `--files-only` answer.
#[derive(Debug, Clone, PartialEq)]
pub struct FileHit {
    /// Path relative to the work tree.
    pub path: String,
    /// Score of the file's best hit.
    pub score: f64,
    /// Line range of the best hit.
    pub best: (u32, u32),
    /// How many hits the file had.
    pub hits: usize,
}

/// Ranked unique files: each file is ranked by its best hit (hits arrive best first).
pub fn files(hits: &[Hit]) -> Vec<FileHit> {
    let mut out: Vec<FileHit> = Vec::new();
    for h in hits {
        match out.iter_mut().find(|f| f.path == h.path) {
            Some(f) => f.hits += 1,
            None => out.push(FileHit {
                path: h.path.clone(),
                score: h.score,
                best: (h.start_line, h.end_line),
                hits: 1,
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(path: &str, start: u32, n: u32) -> Hit {
        Hit {
            path: path.into(),
            start_line: start,
            end_line: start + n - 1,
            score: 1.0 / start as f64,
            sources: Vec::new(),
            language: crate::lang::Language::Rust,
            lines: (start..start + n)
                .map(|i| (i, format!("    let value_{i} = compute(input, {i});")))
                .collect(),
            why: Default::default(),
        }
    }

    #[test]
    fn fits_whole_hits_then_trims_at_a_line_boundary() {
        let hits = vec![hit("a.rs", 1, 10), hit("b.rs", 20, 10), hit("c.rs", 40, 10)];
        let one: usize = HEADER_COST
            + hits[0]
                .lines
                .iter()
                .map(|(_, l)| line_cost(l))
                .sum::<usize>();
        let (kept, cut) = fit(hits.clone(), one + one / 2);
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[0].lines.len(), 10);
        let trimmed = &kept[1];
        assert!(trimmed.lines.len() < 10 && trimmed.lines.len() >= 3);
        assert_eq!(trimmed.end_line, trimmed.lines.last().unwrap().0);
        assert_eq!(cut.dropped_hits, 1);
        assert_eq!(cut.trimmed_lines, 10 - trimmed.lines.len());
        let (kept, cut) = fit(hits, 100_000);
        assert_eq!(kept.len(), 3);
        assert!(cut.is_empty());
    }

    #[test]
    fn a_tiny_budget_still_shows_one_line() {
        let (kept, cut) = fit(vec![hit("a.rs", 1, 10), hit("b.rs", 20, 5)], 1);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].lines.len(), 1);
        assert_eq!(cut.dropped_hits, 1);
    }

    #[test]
    fn files_are_unique_in_rank_order() {
        let f = files(&[hit("a.rs", 1, 2), hit("b.rs", 2, 2), hit("a.rs", 3, 2)]);
        let paths: Vec<&str> = f.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["a.rs", "b.rs"]);
        assert_eq!(f[0].hits, 2);
        assert_eq!(f[0].best, (1, 2));
    }
}
