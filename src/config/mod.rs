//! Settings, resolved once: defaults < `.codesearch.toml` in the work tree < git config
//! (`codesearch.*`) < command-line flags. The rest of the library only sees [`Config`].
//!
//! `.codesearch.toml` comes with the repository, so it is untrusted: it may tune ranking
//! and indexing, but where code and credentials go (a remote embedding provider, its URL and
//! key variable, every `[llm]` setting) it decides only once the user has trusted that exact
//! file (`git codesearch trust`, which records its SHA-256 in the local git config, like
//! `direnv allow`). Until then those keys keep their defaults and [`Config::untrusted`]
//! names them, for the CLI to say so.

use std::path::{Path, PathBuf};

use serde::Deserialize;

mod file;
pub mod keys;
mod llm;
mod ranges;
pub use file::{read_config_file, MAX_CONFIG_BYTES, TRUST_KEY};
pub use llm::LlmConfig;

/// Name of the per-repository configuration file, at the top of the work tree.
pub const CONFIG_FILE: &str = ".codesearch.toml";

/// Errors while reading or validating the configuration.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The config file exists but could not be read.
    #[error("cannot read {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The config file is a symbolic link, not a regular file, or too large.
    #[error("refusing to read {path}: {why}")]
    Refused { path: PathBuf, why: String },
    /// `git codesearch trust` could not write the local git config.
    #[error("cannot record the trust in the local git config: {why}")]
    Trust { why: String },
    /// The config file is not valid TOML or has unknown keys.
    #[error("invalid configuration in {path}")]
    Parse {
        path: PathBuf,
        #[source]
        source: Box<toml::de::Error>,
    },
    /// A value is out of range or malformed.
    #[error("invalid setting {key} = {value} (from {origin}): {reason}")]
    Invalid {
        key: String,
        value: String,
        origin: String,
        reason: String,
    },
}

impl ConfigError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            ConfigError::Read { .. } => "check the file's permissions".into(),
            ConfigError::Refused { .. } => format!(
                "{CONFIG_FILE} must be a regular file of at most {MAX_CONFIG_BYTES} bytes; remove or replace it"
            ),
            ConfigError::Trust { .. } => "check that .git/config is writable".into(),
            ConfigError::Parse { .. } => {
                "see README.md, section \"Configuration\", for the keys and their defaults".into()
            }
            ConfigError::Invalid { .. } => {
                "fix the value, or remove it to use the default (see README.md, \"Configuration\")"
                    .into()
            }
        })
    }
}

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
    /// `none` (the default: vector search off, no embedding cost; see bench/RESULTS.md for
    /// why), `local` (the model compiled into the binary, or one installed with `model
    /// install`), `static` (the token-embedding model compiled into the binary) or `openai` (any OpenAI-compatible `/embeddings` API: OpenAI, Voyage, Ollama,
    /// llama.cpp server, TEI, vLLM).
    pub provider: String,
    /// Base URL of the API; `/embeddings` is appended.
    pub url: String,
    /// `openai`: the model name sent to the API. `local`: empty for the bundled model, or
    /// the name of a model installed with `git codesearch model install`.
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
            provider: "none".into(),
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

impl Config {
    /// Load `.codesearch.toml` from `workdir` (if present), then apply git config values
    /// given by `git_value` (a lookup of lower-cased keys), then validate.
    pub fn load(
        workdir: &Path,
        git_value: impl Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let path = workdir.join(CONFIG_FILE);
        let mut config = match read_config_file(&path)? {
            Some(text) => {
                let mut c: Config = toml::from_str(&text).map_err(|e| ConfigError::Parse {
                    path: path.clone(),
                    source: Box::new(e),
                })?;
                let trusted =
                    git_value(TRUST_KEY) == Some(crate::util::sha256_hex(text.as_bytes()));
                if !trusted {
                    c.untrusted = c.drop_untrusted();
                }
                c
            }
            None => Config::default(),
        };
        config.validate(&path.display().to_string())?;
        // Validated again after git config, so a bad range is blamed on what set it.
        let mut from_git = Vec::new();
        for setting in keys::SETTINGS {
            if let Some(value) = git_value(setting.git) {
                let origin = format!("git config {}", setting.git);
                setting
                    .apply(&mut config, &value)
                    .map_err(|reason| invalid(&origin, setting.toml, value.clone(), reason))?;
                from_git.push(setting.git);
            }
        }
        if !from_git.is_empty() {
            config.validate(&format!("git config {}", from_git.join(", ")))?;
        }
        Ok(config)
    }

    /// Set one value by its TOML path from a string (git config, flags).
    pub fn set(&mut self, key: &str, value: &str, origin: &str) -> Result<(), ConfigError> {
        let setting = keys::by_toml(key)
            .ok_or_else(|| invalid(origin, key, value.into(), "unknown setting"))?;
        setting
            .apply(self, value)
            .map_err(|reason| invalid(origin, key, value.into(), reason))
    }

    /// Check ranges; `origin` names where the values came from for the message.
    pub fn validate(&self, origin: &str) -> Result<(), ConfigError> {
        let bad = |key: &str, value: String, reason: &str| invalid(origin, key, value, reason);
        for range in ranges::RANGES {
            if let Some(v) = range.violated(self) {
                return Err(bad(range.key, v.to_string(), &range.rule()));
            }
        }
        let s = &self.search;
        if s.n_retrieve < s.n_final.min(50) {
            return Err(bad(
                "search.n_retrieve",
                s.n_retrieve.to_string(),
                "must be at least min(n_final, 50)",
            ));
        }
        let w = &s.weights;
        if w.bm25 + w.vector + w.symbol <= 0.0 {
            return Err(bad(
                "search.weights",
                "0".into(),
                "at least one of bm25, vector and symbol must be > 0",
            ));
        }
        self.validate_embed(origin)?;
        self.validate_llm(origin)
    }

    fn validate_embed(&self, origin: &str) -> Result<(), ConfigError> {
        let bad = |key: &str, value: String, reason: &str| invalid(origin, key, value, reason);
        let e = &self.embed;
        match e.provider.as_str() {
            "none" | "local" | "static" => {}
            "openai" => {
                if e.model.trim().is_empty() {
                    return Err(bad(
                        "embed.model",
                        "\"\"".into(),
                        "the openai provider needs a model name",
                    ));
                }
                if !(e.url.starts_with("http://") || e.url.starts_with("https://")) {
                    return Err(bad(
                        "embed.url",
                        e.url.clone(),
                        "must start with http:// or https://",
                    ));
                }
            }
            other => {
                return Err(bad(
                    "embed.provider",
                    other.into(),
                    "must be local, static, openai or none",
                ))
            }
        }
        Ok(())
    }
}

/// A range or value error of `key`, from `origin`.
pub(crate) fn invalid(origin: &str, key: &str, value: String, reason: &str) -> ConfigError {
    ConfigError::Invalid {
        key: key.into(),
        value,
        origin: origin.into(),
        reason: reason.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_designs_as_measured() {
        let c = Config::default();
        assert_eq!(c.search.n_final, 20);
        // 50 and 60 in the design; 200 and 90 measured better on the development set.
        assert_eq!(c.search.n_retrieve, 200);
        assert_eq!(c.search.rrf_k, 90.0);
        assert_eq!(c.search.weights.bm25, 0.6);
        // 0.3 in the design; vectors measured best for questions only (search::params).
        assert_eq!(c.search.weights.vector, 0.0);
        assert_eq!(c.search.question_vector_weight, 0.15);
        assert_eq!(c.search.question_vector_file_weight, 0.8);
        assert_eq!(c.search.weights.symbol, 0.1);
        c.validate("defaults").unwrap();
    }

    #[test]
    fn toml_then_git_config_override() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(CONFIG_FILE),
            "[search]\nn_final = 7\nrrf_k = 10\n",
        )
        .unwrap();
        let c = Config::load(dir.path(), |k| {
            (k == "codesearch.rrfk").then(|| "30".into())
        })
        .unwrap();
        assert_eq!(c.search.n_final, 7);
        assert_eq!(c.search.rrf_k, 30.0);
    }

    #[test]
    fn the_symbol_weight_is_read_by_its_old_name_too() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(CONFIG_FILE);
        std::fs::write(&file, "[search.weights]\nsnippet = 0.4\n").unwrap();
        let c = Config::load(dir.path(), |_| None).unwrap();
        assert_eq!(c.search.weights.symbol, 0.4);
        std::fs::write(&file, "[search.weights]\nsymbol = 0.3\n").unwrap();
        let c = Config::load(dir.path(), |_| None).unwrap();
        assert_eq!(c.search.weights.symbol, 0.3);
        for key in ["codesearch.weightsnippet", "codesearch.weightsymbol"] {
            let c = Config::load(dir.path(), |k| (k == key).then(|| "0.2".into())).unwrap();
            assert_eq!(c.search.weights.symbol, 0.2, "{key}");
        }
    }

    #[test]
    fn unknown_and_invalid_values_are_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CONFIG_FILE), "[search]\nnfinal = 7\n").unwrap();
        let err = Config::load(dir.path(), |_| None).unwrap_err();
        assert!(matches!(err, ConfigError::Parse { .. }));
        std::fs::write(
            dir.path().join(CONFIG_FILE),
            "[search.weights]\nbm25 = -1\n",
        )
        .unwrap();
        let err = Config::load(dir.path(), |_| None).unwrap_err().to_string();
        assert!(err.contains("search.weights.bm25"), "{err}");
        let err = Config::load(tempfile::tempdir().unwrap().path(), |k| {
            (k == "codesearch.nfinal").then(|| "many".into())
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("git config codesearch.nfinal"), "{err}");
        // A value in range for its type but not for the others is blamed on git config,
        // not on a .codesearch.toml that does not exist.
        let err = Config::load(tempfile::tempdir().unwrap().path(), |k| {
            (k == "codesearch.nretrieve").then(|| "3".into())
        })
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("from git config codesearch.nretrieve"),
            "{err}"
        );
    }
}
