//! `[llm]`: the optional chat model for query rewriting and reranking (both off by default;
//! see `search::llm`).

use super::error::{invalid, ConfigError};
use super::settings::Config;

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
