//! The settings themselves: [`Config`] and its sections, with their defaults. Loading and
//! validation are `config`'s (`Config::load`), the file reader `file`'s.

use serde::Deserialize;

use super::provider::Provider;

/// All settings, with the design's defaults.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// How searches retrieve and rank.
    pub search: SearchConfig,
    /// What gets indexed and how it is cut.
    pub index: IndexConfig,
    /// Which embedding model vector search uses.
    pub embed: EmbedConfig,
    /// The optional chat model (query rewrite, rerank).
    pub llm: LlmConfig,
    /// Keys `.codesearch.toml` set that only a trusted file may set; they were left at
    /// their defaults (empty when the file is trusted or sets none).
    #[serde(skip)]
    pub untrusted: Vec<String>,
}

/// Embedding provider settings (vector search).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct EmbedConfig {
    /// `static` (the default: the token-embedding model compiled into the binary), `openai`
    /// (any OpenAI-compatible `/embeddings` API: OpenAI, Voyage, Ollama, llama.cpp server,
    /// TEI, vLLM) or `none` (vector search off).
    pub provider: Provider,
    /// Base URL of the API; `/embeddings` is appended.
    pub url: String,
    /// `openai`: the model name sent to the API (unused by `static`).
    pub model: String,
    /// Vector dimension (0: whatever the model returns).
    pub dimension: usize,
    /// Environment variable holding the API key (empty: no key). The key is never printed.
    pub api_key_env: String,
    /// Texts per request.
    pub batch_size: usize,
    /// Requests per second at most.
    pub requests_per_second: f64,
    /// Input tokens per minute at most.
    pub tokens_per_minute: f64,
    /// Retries of a request that failed with 429, 5xx or a timeout.
    pub max_retries: u32,
    /// First retry delay; it doubles (with jitter) up to `backoff_max_ms`.
    pub backoff_base_ms: u64,
    /// Longest retry delay.
    pub backoff_max_ms: u64,
    /// Time limit of one request.
    pub timeout_secs: u64,
    /// When a search has to index first, embed for at most this long before answering
    /// (the rest stays pending for `git codesearch index` or the hooks).
    pub search_budget_secs: u64,
    /// Vector hits less similar than this (cosine, -1..1) are dropped: nearest neighbours
    /// always exist, and a query about nothing in the code should still find nothing.
    pub min_similarity: f32,
}

impl Default for EmbedConfig {
    fn default() -> Self {
        EmbedConfig {
            provider: Provider::default(),
            url: "http://127.0.0.1:11434/v1".into(),
            model: String::new(),
            dimension: 0,
            api_key_env: String::new(),
            batch_size: 64,
            requests_per_second: 5.0,
            tokens_per_minute: 1_000_000.0,
            max_retries: 5,
            backoff_base_ms: 1000,
            backoff_max_ms: 60_000,
            timeout_secs: 30,
            search_budget_secs: 10,
            min_similarity: 0.25,
        }
    }
}

/// Ranking settings.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SearchConfig {
    /// Results shown.
    pub n_final: usize,
    /// The results ranking treats as read, whatever `-n` asks for: a file only whole-file
    /// lists found joins when it would rank among them, and the stages that add lines in the
    /// first files (an issue's best lines and widened hits, a description's function) skip
    /// lines one of them holds. One depth for every `-n`, so a shorter list is the start of
    /// a longer one.
    pub n_seen: usize,
    /// Candidates each retriever returns before fusion.
    pub n_retrieve: usize,
    /// The `k` of reciprocal-rank fusion for a pasted issue (a query of several lines or
    /// many words; see `search::params`).
    pub rrf_k: f64,
    /// The `k` of reciprocal-rank fusion for a question (one line, a few words).
    pub question_rrf_k: f64,
    /// The vector list's weight for a question (`weights.vector` is a pasted issue's).
    pub question_vector_weight: f64,
    /// For a question, the weight of the files the vector list found, as a file list: each
    /// file's best spans are lifted, nearest file first (0 turns it off).
    pub question_vector_file_weight: f64,
    /// Weights of the retrievers in the fusion.
    pub weights: Weights,
    /// Stem query and index words (English); changing it rebuilds the full-text index.
    pub stemming: bool,
    /// Extra weight for files edited in the last days (0 turns it off).
    pub recency_boost: f64,
    /// Rank prose below code, tests a little below, and files whose path names query words
    /// a little above (see `search::prior`).
    pub path_prior: bool,
    /// Add the file most often changed together with a top result (from git history).
    pub cochange: bool,
}

/// Fusion weights for each retriever.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Weights {
    /// BM25 full-text search over chunk text.
    pub bm25: f64,
    /// Vector (embedding) search.
    pub vector: f64,
    /// Symbol search over definition names (`snippet` is its old name, still read).
    #[serde(alias = "snippet")]
    pub symbol: f64,
    /// Whole-file BM25 over identifier terms (hybrid mode).
    pub file: f64,
    /// Whole-file BM25 over the first line of a query of several lines, a pasted issue's
    /// title (hybrid mode).
    pub title: f64,
    /// Files changed by past commits whose messages match the query (hybrid mode).
    pub commits: f64,
    /// The same for the title of a query of several lines (hybrid mode).
    pub commits_title: f64,
    /// Definitions whose names the words of a question spell out (hybrid mode, questions
    /// only; see `search::defs`). A question that does not describe one function gets
    /// `search::params::TOPIC_DEFINITIONS` of it.
    pub definitions: f64,
}

/// Indexing settings: junk-file thresholds and chunk size.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct IndexConfig {
    /// Files larger than this many bytes are skipped.
    pub max_file_size: u64,
    /// Files with a longer line are skipped (minified or generated).
    pub max_line_length: usize,
    /// Files whose mean line is longer are skipped.
    pub max_avg_line_length: f64,
    /// Files with a smaller share of alphanumeric characters are skipped.
    pub min_alnum_fraction: f64,
    /// Files with a larger share of digits are skipped (data tables).
    pub max_digit_fraction: f64,
    /// Files with more lines are skipped.
    pub max_lines: usize,
    /// Largest chunk, in tokens (cl100k).
    pub chunk_tokens: usize,
    /// Files per committed batch (and checkpoint).
    pub batch_files: usize,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            n_final: 20,
            n_seen: 50,
            n_retrieve: 200,
            rrf_k: 90.0,
            question_rrf_k: 15.0,
            question_vector_weight: 0.15,
            question_vector_file_weight: 0.8,
            weights: Weights::default(),
            stemming: false,
            recency_boost: 0.05,
            path_prior: true,
            cochange: true,
        }
    }
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            bm25: 0.6,
            vector: 0.0,
            symbol: 0.1,
            file: 1.0,
            title: 0.15,
            commits: 0.3,
            commits_title: 0.2,
            definitions: 1.0,
        }
    }
}

impl Default for IndexConfig {
    fn default() -> Self {
        IndexConfig {
            max_file_size: 1_000_000,
            max_line_length: 300,
            max_avg_line_length: 150.0,
            min_alnum_fraction: 0.25,
            max_digit_fraction: 0.5,
            max_lines: 100_000,
            chunk_tokens: 256,
            batch_files: 100,
        }
    }
}

/// Chat model settings.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LlmConfig {
    /// Rewrite each query into English keywords and identifiers before searching.
    pub rewrite: bool,
    /// Ask the model whether each of the top hits is relevant, and move those ahead.
    pub rerank: bool,
    /// How many top hits the reranker judges.
    pub rerank_top: usize,
    /// Base URL of an OpenAI-compatible API; `/chat/completions` is appended.
    pub url: String,
    /// Model name sent to the API.
    pub model: String,
    /// Environment variable holding the API key (empty: no key).
    pub api_key_env: String,
    /// Per-request timeout: a slow model must not hold a search up for long.
    pub timeout_secs: u64,
}

impl Default for LlmConfig {
    fn default() -> Self {
        LlmConfig {
            rewrite: false,
            rerank: false,
            rerank_top: 10,
            url: "http://127.0.0.1:11434/v1".into(),
            model: String::new(),
            api_key_env: String::new(),
            timeout_secs: 15,
        }
    }
}
