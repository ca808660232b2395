//! The range of every numeric setting, in one table: [`super::Config::validate`] checks each
//! row and names the key, so a new number is one row here. Upper bounds matter as much as
//! lower ones: `.codesearch.toml` comes with the repository, and it must not be able to make
//! a run read gigabytes per file or wait for minutes (see docs/security.md). What is not a
//! range (one setting against another, provider names, URLs) is checked in `validate`.

use super::settings::Config;

/// One numeric setting's allowed values: `low..=high`, or `low < v` when `open`; always
/// finite.
pub struct Range {
    /// The TOML path (`search.n_final`).
    pub key: &'static str,
    get: fn(&Config) -> f64,
    low: f64,
    open: bool,
    high: f64,
}

impl Range {
    /// The value in `config`, when it is out of range.
    pub fn violated(&self, config: &Config) -> Option<f64> {
        let v = (self.get)(config);
        let above_low = if self.open {
            v > self.low
        } else {
            v >= self.low
        };
        (!(v.is_finite() && above_low && v <= self.high)).then_some(v)
    }

    /// What the values must be, for the message.
    pub fn rule(&self) -> String {
        match (self.open, self.high.is_finite()) {
            (true, _) => format!("must be > {}", self.low),
            (false, false) => format!("must be a number >= {}", self.low),
            (false, true) => format!("must be between {} and {}", self.low, self.high),
        }
    }
}

/// `range!(TOML path, field path, low, high)`: a closed range; `range!(TOML path, field
/// path, > low)`: any finite number above `low`.
macro_rules! range {
    ($key:literal, $($field:ident).+, > $low:expr) => {
        Range { key: $key, get: |c| c.$($field).+ as f64, low: $low as f64, open: true, high: f64::INFINITY }
    };
    ($key:literal, $($field:ident).+, $low:expr, $high:expr) => {
        Range { key: $key, get: |c| c.$($field).+ as f64, low: $low as f64, open: false, high: $high as f64 }
    };
}

const ANY: f64 = f64::INFINITY;

/// Every numeric setting's range, in the order they are checked.
#[rustfmt::skip]
pub const RANGES: &[Range] = &[
    range!("search.n_final", search.n_final, 1, 10_000),
    range!("search.n_seen", search.n_seen, 1, 10_000),
    range!("search.n_retrieve", search.n_retrieve, 1, 10_000),
    range!("search.rrf_k", search.rrf_k, > 0),
    range!("search.question_rrf_k", search.question_rrf_k, > 0),
    range!("search.question_vector_weight", search.question_vector_weight, 0, ANY),
    range!("search.question_vector_file_weight", search.question_vector_file_weight, 0, ANY),
    range!("search.weights.bm25", search.weights.bm25, 0, ANY),
    range!("search.weights.vector", search.weights.vector, 0, ANY),
    range!("search.weights.symbol", search.weights.symbol, 0, ANY),
    range!("search.weights.file", search.weights.file, 0, ANY),
    range!("search.weights.title", search.weights.title, 0, ANY),
    range!("search.weights.commits", search.weights.commits, 0, ANY),
    range!("search.weights.commits_title", search.weights.commits_title, 0, ANY),
    range!("search.weights.definitions", search.weights.definitions, 0, ANY),
    range!("search.recency_boost", search.recency_boost, 0, ANY),
    range!("index.chunk_tokens", index.chunk_tokens, 16, 8192),
    range!("index.batch_files", index.batch_files, 1, 10_000),
    range!("index.max_file_size", index.max_file_size, 0, 100 << 20),
    range!("index.max_lines", index.max_lines, 0, 1_000_000),
    // Untrusted (a committed file may set them): `nan` or 0 would refuse every file.
    range!("index.max_line_length", index.max_line_length, 1, 1_000_000),
    range!("index.max_avg_line_length", index.max_avg_line_length, 1, 1_000_000),
    range!("index.min_alnum_fraction", index.min_alnum_fraction, 0, 1),
    range!("index.max_digit_fraction", index.max_digit_fraction, 0, 1),
    range!("embed.search_budget_secs", embed.search_budget_secs, 0, 600),
    range!("embed.timeout_secs", embed.timeout_secs, 1, 600),
    range!("embed.max_retries", embed.max_retries, 0, 20),
    range!("embed.backoff_max_ms", embed.backoff_max_ms, 0, 600_000),
    range!("embed.min_similarity", embed.min_similarity, -1, 1),
    range!("embed.batch_size", embed.batch_size, 1, 2048),
    // 0: whatever the model returns; the largest models in use return 4,096.
    range!("embed.dimension", embed.dimension, 0, 16_384),
    // A request waits at most 10 s for its turn, and a rate is never too small to turn into
    // a wait (`1e-300` overflowed it).
    range!("embed.requests_per_second", embed.requests_per_second, 0.1, 100_000),
    range!("embed.tokens_per_minute", embed.tokens_per_minute, 1_000, 1e12),
    range!("llm.timeout_secs", llm.timeout_secs, 0, 600),
    range!("llm.rerank_top", llm.rerank_top, 1, 100),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::keys;

    #[test]
    fn defaults_are_in_range_and_every_numeric_git_setting_has_a_range() {
        let c = Config::default();
        for r in RANGES {
            assert_eq!(r.violated(&c), None, "{}", r.key);
        }
        for s in keys::SETTINGS {
            let mut c = Config::default();
            if s.apply(&mut c, "7").is_ok() && s.apply(&mut c, "x").is_err() {
                assert!(
                    RANGES.iter().any(|r| r.key == s.toml),
                    "{} has no range",
                    s.toml
                );
            }
        }
    }

    #[test]
    fn each_row_reads_its_own_key() {
        for r in RANGES {
            let Some(setting) = keys::by_toml(r.key) else {
                continue;
            };
            let mut c = Config::default();
            setting.apply(&mut c, "7").unwrap();
            assert_eq!((r.get)(&c), 7.0, "{}", r.key);
        }
    }

    #[test]
    fn a_vector_dimension_is_bounded_even_from_a_trusted_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(crate::config::CONFIG_FILE);
        let trusting = |text: &str| {
            let hash = crate::util::sha256_hex(text.as_bytes());
            move |k: &str| (k == crate::config::TRUST_KEY).then(|| hash.clone())
        };
        let huge = "[embed]\ndimension = 1000000\n";
        std::fs::write(&file, huge).unwrap();
        let err = Config::load(dir.path(), trusting(huge))
            .unwrap_err()
            .to_string();
        assert!(err.contains("embed.dimension"), "{err}");
        let fine = "[embed]\ndimension = 384\n";
        std::fs::write(&file, fine).unwrap();
        let c = Config::load(dir.path(), trusting(fine)).unwrap();
        assert_eq!(c.embed.dimension, 384);
        // Untrusted, the file does not choose it at all.
        let c = Config::load(dir.path(), |_| None).unwrap();
        assert_eq!(c.embed.dimension, 0);
    }

    #[test]
    fn bounds_open_closed_and_not_a_number() {
        let n_final = &RANGES[0];
        let rrf = &RANGES[3];
        let mut c = Config::default();
        c.search.n_final = 10_000;
        c.search.rrf_k = 0.0;
        assert_eq!(n_final.violated(&c), None);
        assert_eq!(rrf.violated(&c), Some(0.0));
        c.search.n_final = 10_001;
        c.search.rrf_k = f64::NAN;
        assert_eq!(n_final.violated(&c), Some(10_001.0));
        assert!(rrf.violated(&c).is_some());
        assert_eq!(rrf.rule(), "must be > 0");
        assert_eq!(n_final.rule(), "must be between 1 and 10000");
    }
}
