//! The settings a user may give in git config (`git config codesearch.nFinal 10`), in one
//! table: each one's git key (lower-cased, as git compares keys), the TOML path it overrides,
//! and how its text is parsed and stored. Loading, [`super::Config::set`] and the list of
//! keys the workspace asks git for all read this table, so a new setting is one line here
//! (plus its field, default and range check).

use super::provider::Provider;
use super::settings::Config;

/// How one setting's text is parsed and stored; the error is the reason, for the message.
type Apply = fn(&mut Config, &str) -> Result<(), &'static str>;

/// One setting that git config can give.
pub struct Setting {
    /// The git config key, lower-cased (`codesearch.nfinal`).
    pub git: &'static str,
    /// The TOML path it overrides (`search.n_final`).
    pub toml: &'static str,
    apply: Apply,
}

impl Setting {
    /// Parse `value` and store it in `config`.
    pub fn apply(&self, config: &mut Config, value: &str) -> Result<(), &'static str> {
        (self.apply)(config, value)
    }
}

fn int(v: &str) -> Result<usize, &'static str> {
    v.trim().parse().map_err(|_| "expected a whole number")
}

fn bytes(v: &str) -> Result<u64, &'static str> {
    v.trim().parse().map_err(|_| "expected a whole number")
}

fn float(v: &str) -> Result<f64, &'static str> {
    v.trim().parse().map_err(|_| "expected a number")
}

fn boolean(v: &str) -> Result<bool, &'static str> {
    match v.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Ok(true),
        "false" | "no" | "off" | "0" => Ok(false),
        _ => Err("expected true or false"),
    }
}

fn provider(v: &str) -> Result<Provider, &'static str> {
    Provider::parse(v.trim())
}

fn text(v: &str) -> Result<String, &'static str> {
    Ok(v.trim().to_string())
}

/// `setting!(git key, TOML path, parser, field path)`.
macro_rules! setting {
    ($git:literal, $toml:literal, $parse:ident, $($field:ident).+) => {
        Setting {
            git: $git,
            toml: $toml,
            apply: |c, v| {
                c.$($field).+ = $parse(v)?;
                Ok(())
            },
        }
    };
}

/// Every setting git config can give, in the order they are applied (one row each).
#[rustfmt::skip]
pub const SETTINGS: &[Setting] = &[
    setting!("codesearch.nfinal", "search.n_final", int, search.n_final),
    setting!("codesearch.nseen", "search.n_seen", int, search.n_seen),
    setting!("codesearch.nretrieve", "search.n_retrieve", int, search.n_retrieve),
    setting!("codesearch.rrfk", "search.rrf_k", float, search.rrf_k),
    setting!("codesearch.questionrrfk", "search.question_rrf_k", float, search.question_rrf_k),
    setting!("codesearch.questionvectorweight", "search.question_vector_weight", float, search.question_vector_weight),
    setting!("codesearch.questionvectorfileweight", "search.question_vector_file_weight", float, search.question_vector_file_weight),
    setting!("codesearch.weightbm25", "search.weights.bm25", float, search.weights.bm25),
    setting!("codesearch.weightvector", "search.weights.vector", float, search.weights.vector),
    setting!("codesearch.weightsymbol", "search.weights.symbol", float, search.weights.symbol),
    // The old name of the same setting.
    setting!("codesearch.weightsnippet", "search.weights.symbol", float, search.weights.symbol),
    setting!("codesearch.weightfile", "search.weights.file", float, search.weights.file),
    setting!("codesearch.weighttitle", "search.weights.title", float, search.weights.title),
    setting!("codesearch.weightcommits", "search.weights.commits", float, search.weights.commits),
    setting!("codesearch.weightcommitstitle", "search.weights.commits_title", float, search.weights.commits_title),
    setting!("codesearch.weightdefinitions", "search.weights.definitions", float, search.weights.definitions),
    setting!("codesearch.stemming", "search.stemming", boolean, search.stemming),
    setting!("codesearch.recencyboost", "search.recency_boost", float, search.recency_boost),
    setting!("codesearch.pathprior", "search.path_prior", boolean, search.path_prior),
    setting!("codesearch.cochange", "search.cochange", boolean, search.cochange),
    setting!("codesearch.maxfilesize", "index.max_file_size", bytes, index.max_file_size),
    setting!("codesearch.chunktokens", "index.chunk_tokens", int, index.chunk_tokens),
    setting!("codesearch.embedprovider", "embed.provider", provider, embed.provider),
    setting!("codesearch.embedurl", "embed.url", text, embed.url),
    setting!("codesearch.embedmodel", "embed.model", text, embed.model),
    setting!("codesearch.embeddimension", "embed.dimension", int, embed.dimension),
    setting!("codesearch.embedapikeyenv", "embed.api_key_env", text, embed.api_key_env),
    setting!("codesearch.llmrewrite", "llm.rewrite", boolean, llm.rewrite),
    setting!("codesearch.llmrerank", "llm.rerank", boolean, llm.rerank),
    setting!("codesearch.llmurl", "llm.url", text, llm.url),
    setting!("codesearch.llmmodel", "llm.model", text, llm.model),
];

/// The setting of a TOML path (the first, when an old git name shares it).
pub fn by_toml(path: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.toml == path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_setting_stores_what_it_parses_at_its_own_path() {
        for s in SETTINGS {
            let mut c = Config::default();
            let value = match s.toml {
                "search.stemming" | "search.path_prior" | "search.cochange" => "yes",
                "llm.rewrite" | "llm.rerank" => "yes",
                "embed.dimension" => "7",
                "embed.provider" => " static ",
                t if t.starts_with("embed.") || t.starts_with("llm.") => " some-text ",
                _ => "7",
            };
            s.apply(&mut c, value).unwrap();
            // The same value written at the TOML path gives the same configuration.
            let (table, key) = s.toml.rsplit_once('.').unwrap();
            let literal = match value {
                "yes" => "true",
                " some-text " => "\"some-text\"",
                " static " => "\"static\"",
                v => v,
            };
            let doc = format!("[{table}]\n{key} = {literal}\n");
            let from_toml: Config = toml::from_str(&doc).unwrap();
            assert_eq!(c, from_toml, "{} -> {}", s.git, s.toml);
            assert!(s.git.starts_with("codesearch.") && s.git == s.git.to_lowercase());
        }
        assert!(SETTINGS[0].apply(&mut Config::default(), "many").is_err());
    }
}
