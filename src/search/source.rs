//! Which retriever found a candidate: the names hits show in `sources`, shared by fusion and
//! by `--explain`.

/// Which retriever found a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// BM25 full-text search.
    Bm25,
    /// Vector search.
    Vector,
    /// Symbol (definition name) search.
    Symbol,
    /// Git history: changed together with a top result.
    History,
    /// Whole-file BM25.
    File,
    /// Whole-file BM25 over the title (first line) of a query of several lines.
    Title,
    /// Changed by past commits whose messages match the query.
    Commits,
}

impl Source {
    /// Lower-case name, as shown in output.
    pub fn name(self) -> &'static str {
        match self {
            Source::Bm25 => "bm25",
            Source::Vector => "vector",
            Source::Symbol => "symbol",
            Source::History => "history",
            Source::File => "file",
            Source::Title => "title",
            Source::Commits => "commits",
        }
    }
}
