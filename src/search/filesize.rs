//! A file's size against its coherence lift (`search::rerank`), for a topic question that
//! names a feature ("size-based log file rotation", "per-thread key value context"): the
//! lift sums the scores of a file's matching spans, and a big file's many chunks match such
//! words in passing, so a hub (`logger.h`, `context.go`) outranks the small file of its
//! own that holds the feature. Past `COHERENCE_FULL_BYTES` the lift is weighed down by
//! `(COHERENCE_FULL_BYTES / bytes) ^ COHERENCE_SIZE_EXPONENT` (`search::params::rerank`).
//! A question opening with a stop word ("how are routes registered") asks how something
//! works, whose answer is often the central file most of its words meet: it keeps the lift.

use std::collections::HashMap;

use super::fusion::Span;
use super::params::rerank::{COHERENCE_FULL_BYTES, COHERENCE_SIZE_EXPONENT};
use super::types::SearchError;
use crate::store::{ChunkRef, Db};

/// The size of each candidate file, by path; empty when size does not weigh.
#[derive(Debug, Default)]
pub(super) struct Sizes(HashMap<String, u64>);

impl Sizes {
    /// The sizes of the files of `spans` (each member an index into `chunks`).
    pub(super) fn of(db: &Db, spans: &[Span], chunks: &[ChunkRef]) -> Result<Sizes, SearchError> {
        let content_of = |s: &Span| s.members.first().and_then(|&m| chunks.get(m));
        let mut hashes: Vec<&str> = spans
            .iter()
            .filter_map(|s| content_of(s).map(|c| c.content_hash.as_str()))
            .collect();
        hashes.sort_unstable();
        hashes.dedup();
        let bytes = db.catalog().content_sizes(&hashes)?;
        let by_path = spans
            .iter()
            .filter_map(|s| {
                let size = bytes.get(&content_of(s)?.content_hash)?;
                Some((s.path.clone(), *size))
            })
            .collect();
        Ok(Sizes(by_path))
    }

    /// What a file's coherence lift is multiplied by: 1 for a file of at most
    /// `COHERENCE_FULL_BYTES`, or of a size not known.
    pub(super) fn coherence_factor(&self, path: &str) -> f64 {
        self.0.get(path).map_or(1.0, |&bytes| factor(bytes))
    }
}

/// The factor for a file of `bytes`.
fn factor(bytes: u64) -> f64 {
    if bytes as f64 <= COHERENCE_FULL_BYTES {
        return 1.0;
    }
    (COHERENCE_FULL_BYTES / bytes as f64).powf(COHERENCE_SIZE_EXPONENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_keeps_its_lift_up_to_the_size_and_loses_it_slowly_past_it() {
        assert_eq!(factor(0), 1.0);
        assert_eq!(factor(8_000), 1.0);
        assert!((factor(128_000) - 0.5).abs() < 1e-9);
        assert!(factor(16_000) < 1.0 && factor(16_000) > factor(64_000));
        assert_eq!(Sizes::default().coherence_factor("a.rs"), 1.0);
    }
}
