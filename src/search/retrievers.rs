//! The retrievers in one table: what each one ranks (chunks or whole files), the modes it
//! runs in, its weight in the fusion (a key of `search.weights`), whether a zero weight turns
//! it off, and the function that runs it. `search()` asks this table whether to start a
//! retriever and with what weight; validation and the settings table cover every weight
//! key (a test below checks both against this table).
//!
//! Adding a retriever: a row here (and its [`Id`]), its weight in `config::Weights` with a
//! default, its git key in `config::keys::SETTINGS`, its call in `search()`, and where its
//! list goes in `rank` (chunk lists are fused; file lists lift a file's spans).

use super::fusion::Source;
use super::types::Mode;
use crate::config::Weights;

/// Each retriever (a row of [`RETRIEVERS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Id {
    /// BM25 over chunk text.
    Bm25,
    /// Nearest chunks by embedding.
    Vector,
    /// Definitions whose names hold the query's identifiers.
    Symbol,
    /// Definitions whose names a question's words spell out.
    Definitions,
    /// BM25 over whole files' identifier terms.
    File,
    /// Whole-file BM25 over a pasted issue's first line.
    Title,
    /// Files changed by past commits whose messages match the query.
    Commits,
    /// The same for a pasted issue's first line.
    CommitsTitle,
}

/// What a retriever ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Chunks, fused by weighted reciprocal rank.
    Chunk,
    /// Files, whose score lifts their best spans.
    File,
}

/// One retriever.
pub struct Retriever {
    /// Which one.
    pub id: Id,
    /// The source its hits show.
    pub source: Source,
    /// What it ranks.
    pub level: Level,
    /// Its key under `search.weights`.
    pub weight_key: &'static str,
    /// Its weight in a configuration.
    pub weight: fn(&Weights) -> f64,
    /// The modes that run it.
    pub modes: &'static [Mode],
    /// The mode that runs it alone at weight 1, if any (`--mode bm25` keeps BM25's weight:
    /// one list's ranks do not depend on it).
    pub alone: Option<Mode>,
    /// Whether a weight of 0 means it does not run at all (a file list costs a query of its
    /// own); the chunk retrievers run anyway and their list counts for nothing.
    pub off_at_zero: bool,
    /// The function that runs it.
    pub entry: &'static str,
}

const HYBRID: &[Mode] = &[Mode::Hybrid];

/// Every retriever, in the order of [`Id`].
#[rustfmt::skip]
pub const RETRIEVERS: [Retriever; 8] = [
    Retriever { id: Id::Bm25, source: Source::Bm25, level: Level::Chunk, weight_key: "bm25",
        weight: |w| w.bm25, alone: None, modes: &[Mode::Hybrid, Mode::Bm25], off_at_zero: false,
        entry: "retrieve::bm25" },
    Retriever { id: Id::Vector, source: Source::Vector, level: Level::Chunk, weight_key: "vector",
        weight: |w| w.vector, alone: Some(Mode::Vector), modes: &[Mode::Hybrid, Mode::Vector], off_at_zero: true,
        entry: "semantic::start, semantic::finish" },
    Retriever { id: Id::Symbol, source: Source::Symbol, level: Level::Chunk, weight_key: "symbol",
        weight: |w| w.symbol, alone: Some(Mode::Symbol), modes: &[Mode::Hybrid, Mode::Symbol], off_at_zero: false,
        entry: "retrieve::symbol_hits, retrieve::symbol_chunks" },
    Retriever { id: Id::Definitions, source: Source::Symbol, level: Level::Chunk,
        weight_key: "definitions", weight: |w| w.definitions, alone: None, modes: HYBRID,
        off_at_zero: true, entry: "defs::name_matches (questions only: params::Ranking)" },
    Retriever { id: Id::File, source: Source::File, level: Level::File, weight_key: "file",
        weight: |w| w.file, alone: None, modes: HYBRID, off_at_zero: true,
        entry: "files::spawn" },
    Retriever { id: Id::Title, source: Source::Title, level: Level::File, weight_key: "title",
        weight: |w| w.title, alone: None, modes: HYBRID, off_at_zero: true,
        entry: "files::spawn (the query's title)" },
    Retriever { id: Id::Commits, source: Source::Commits, level: Level::File,
        weight_key: "commits", weight: |w| w.commits, alone: None, modes: HYBRID,
        off_at_zero: true, entry: "commits::spawn" },
    Retriever { id: Id::CommitsTitle, source: Source::Commits, level: Level::File,
        weight_key: "commits_title", weight: |w| w.commits_title, alone: None, modes: HYBRID,
        off_at_zero: true, entry: "commits::spawn (the query's title)" },
];

/// The row of `id`.
pub fn of(id: Id) -> &'static Retriever {
    &RETRIEVERS[id as usize]
}

impl Retriever {
    /// Whether a search in `mode` with weights `w` runs it.
    pub fn runs(&self, mode: Mode, w: &Weights) -> bool {
        self.modes.contains(&mode)
            && (self.alone == Some(mode) || !(self.off_at_zero && (self.weight)(w) <= 0.0))
    }

    /// Its weight in a search in `mode`: 1 when the mode runs it alone.
    pub fn weight_in(&self, mode: Mode, w: &Weights) -> f64 {
        if self.alone == Some(mode) {
            1.0
        } else {
            (self.weight)(w)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{keys, Config};

    #[test]
    fn rows_are_in_id_order_and_each_weight_key_is_a_setting() {
        for (i, r) in RETRIEVERS.iter().enumerate() {
            assert_eq!(r.id as usize, i, "{:?}", r.id);
            let toml = format!("search.weights.{}", r.weight_key);
            assert!(keys::by_toml(&toml).is_some(), "no git key for {toml}");
            // The weight read is the one the key sets.
            let mut c = Config::default();
            c.set(&toml, "0.123", "test").unwrap();
            assert_eq!((r.weight)(&c.search.weights), 0.123, "{toml}");
        }
        let weight_settings = keys::SETTINGS
            .iter()
            .filter(|s| s.toml.starts_with("search.weights."))
            .map(|s| s.toml)
            .collect::<std::collections::BTreeSet<_>>();
        assert_eq!(weight_settings.len(), RETRIEVERS.len());
    }

    #[test]
    fn a_mode_runs_its_retriever_alone_at_weight_one_and_hybrid_skips_file_lists_at_zero() {
        let mut w = Weights::default();
        let vector = of(Id::Vector);
        assert!(vector.runs(Mode::Vector, &w) && !vector.runs(Mode::Bm25, &w));
        assert_eq!(vector.weight_in(Mode::Vector, &w), 1.0);
        assert_eq!(vector.weight_in(Mode::Hybrid, &w), w.vector);
        w.file = 0.0;
        w.bm25 = 0.0;
        assert!(!of(Id::File).runs(Mode::Hybrid, &w));
        assert!(of(Id::Bm25).runs(Mode::Hybrid, &w));
        assert!(!of(Id::File).runs(Mode::Bm25, &Weights::default()));
        assert_eq!(of(Id::Bm25).weight_in(Mode::Bm25, &w), w.bm25);
    }
}
