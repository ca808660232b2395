//! `[llm]`: the optional chat model for query rewriting and reranking (both off by default;
//! see `search::llm`).

use serde::Deserialize;

use super::{invalid, Config, ConfigError};

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

impl Config {
    /// `[llm]` must name a model and an http(s) URL when it is used.
    pub(super) fn validate_llm(&self, origin: &str) -> Result<(), ConfigError> {
        let l = &self.llm;
        let bad = |key: &str, value: String, reason: &str| invalid(origin, key, value, reason);
        if !(l.rewrite || l.rerank) {
            return Ok(());
        }
        if l.model.trim().is_empty() {
            let why = "llm.rewrite and llm.rerank need a chat model name";
            return Err(bad("llm.model", "\"\"".into(), why));
        }
        if !(l.url.starts_with("http://") || l.url.starts_with("https://")) {
            return Err(bad(
                "llm.url",
                l.url.clone(),
                "must start with http:// or https://",
            ));
        }
        Ok(())
    }
}
