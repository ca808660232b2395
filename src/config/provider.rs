//! The embedding provider, a closed set: parsed once where settings come in (the TOML
//! file, git config, flags), so the rest of the library matches variants, not text.

use serde::Deserialize;

/// Why a provider name was refused (the same words whichever way it came in).
pub const PROVIDER_RULE: &str = "must be static, openai or none";

/// Which embedding model vector search uses (`[embed] provider`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize)]
pub enum Provider {
    /// Vector search off.
    #[serde(rename = "none")]
    None,
    /// The token-embedding model compiled into the binary (the default: +0.012 NDCG@10 on
    /// repositories it was not fitted to, at a few milliseconds; bench/RESULTS.md). `local`,
    /// the name of the transformer it replaced, still reads as this one, so an older
    /// configuration keeps vectors that work offline.
    #[default]
    #[serde(rename = "static", alias = "local")]
    Static,
    /// Any OpenAI-compatible `/embeddings` API (OpenAI, Voyage, Ollama, llama.cpp server,
    /// TEI, vLLM).
    #[serde(rename = "openai")]
    OpenAi,
}

impl Provider {
    /// Every provider, in the order the rule names them.
    pub const ALL: [Provider; 3] = [Provider::Static, Provider::OpenAi, Provider::None];

    /// The name a setting gives it.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::None => "none",
            Provider::Static => "static",
            Provider::OpenAi => "openai",
        }
    }

    /// The provider of a setting's text (exact, as the TOML file gives it); the error is
    /// the rule, for the message.
    pub fn parse(name: &str) -> Result<Provider, &'static str> {
        if name == "local" {
            return Ok(Provider::Static);
        }
        Provider::ALL
            .into_iter()
            .find(|p| p.as_str() == name)
            .ok_or(PROVIDER_RULE)
    }

    /// True when it runs in this process and sends nothing anywhere, so a committed,
    /// untrusted `.codesearch.toml` may pick it.
    pub fn is_compiled_in(self) -> bool {
        !matches!(self, Provider::OpenAi)
    }
}

impl std::fmt::Display for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_name_parses_back_and_serde_reads_the_same_names() {
        for p in Provider::ALL {
            assert_eq!(Provider::parse(p.as_str()), Ok(p));
            let read: Provider = serde_json::from_str(&format!("\"{p}\"")).unwrap();
            assert_eq!(read, p);
        }
        assert_eq!(Provider::parse("OpenAI"), Err(PROVIDER_RULE));
        assert!(serde_json::from_str::<Provider>("\"bogus\"").is_err());
        assert_eq!(Provider::default(), Provider::Static);
        // The removed transformer's name reads as the model that replaced it.
        assert_eq!(Provider::parse("local"), Ok(Provider::Static));
        let read: Provider = serde_json::from_str("\"local\"").unwrap();
        assert_eq!(read, Provider::Static);
    }
}
