//! Settings, resolved once: defaults < `.codesearch.toml` in the work tree < git config
//! (`codesearch.*`) < command-line flags. The rest of the library only sees [`Config`].
//!
//! `.codesearch.toml` comes with the repository, so it is untrusted: it may tune ranking
//! and indexing, but where code and credentials go (a remote embedding provider, its URL and
//! key variable, every `[llm]` setting) it decides only once the user has trusted that exact
//! file (`git codesearch trust`, which records its SHA-256 in the local git config, like
//! `direnv allow`). Until then those keys keep their defaults and [`Config::untrusted`]
//! names them, for the CLI to say so.

use std::path::Path;

mod error;
mod file;
pub(crate) mod keys;
mod llm;
mod provider;
mod ranges;
mod settings;

pub(crate) use error::invalid;
pub use error::{ConfigError, CONFIG_FILE, MAX_CONFIG_BYTES};
pub use file::{read_config_file, TRUST_KEY};
pub use provider::{Provider, PROVIDER_RULE};
pub use settings::{Config, EmbedConfig, IndexConfig, LlmConfig, SearchConfig, Weights};

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
                let parse_err = |e| ConfigError::Parse {
                    path: path.clone(),
                    source: Box::new(e),
                };
                let (mut c, unknown) = file::parse_config(&text).map_err(parse_err)?;
                let trusted =
                    git_value(TRUST_KEY) == Some(crate::util::sha256_hex(text.as_bytes()));
                if !trusted {
                    c.untrusted = c.drop_untrusted(unknown);
                } else if let Some(name) = unknown {
                    let origin = path.display().to_string();
                    return Err(invalid(&origin, "embed.provider", name, PROVIDER_RULE));
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
        if e.provider == Provider::OpenAi {
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
        Ok(())
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

    #[test]
    fn an_unknown_provider_is_named_with_the_same_words_wherever_it_came_from() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(CONFIG_FILE);
        let text = "[embed]\nprovider = \"bogus\"\n";
        std::fs::write(&file, text).unwrap();
        // Untrusted: dropped like a provider the file may not choose.
        let c = Config::load(dir.path(), |_| None).unwrap();
        assert_eq!(c.embed.provider, Provider::Static);
        assert_eq!(c.untrusted, ["embed.provider = \"bogus\""]);
        // Trusted: refused, naming the key, the value and the file.
        let hash = crate::util::sha256_hex(text.as_bytes());
        let err = Config::load(dir.path(), |k| (k == TRUST_KEY).then(|| hash.clone()));
        let want = format!(
            "invalid setting embed.provider = bogus (from {}): must be static, openai or none",
            file.display()
        );
        assert_eq!(err.unwrap_err().to_string(), want);
        let err = Config::load(tempfile::tempdir().unwrap().path(), |k| {
            (k == "codesearch.embedprovider").then(|| "bogus".into())
        });
        assert_eq!(
            err.unwrap_err().to_string(),
            "invalid setting embed.provider = bogus (from git config codesearch.embedprovider): \
             must be static, openai or none"
        );
        // Other errors still point into the file's text.
        std::fs::write(&file, "[embed]\nprovider = \"bogus\"\nbatch = 3\n").unwrap();
        let err = Config::load(dir.path(), |_| None).unwrap_err();
        let ConfigError::Parse { source, .. } = err else {
            panic!("{err}")
        };
        assert!(source.to_string().contains("batch = 3"), "{source}");
    }
}
