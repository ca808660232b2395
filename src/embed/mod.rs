//! Embedding providers for vector search. [`Embedder`] turns texts into vectors; a provider
//! is chosen by `[embed] provider` in the configuration: `local` (the default: a sentence
//! transformer compiled into the binary, see [`local`]), `static` (a token-embedding model
//! compiled into the binary: milliseconds, not seconds, see [`static_model`]), `openai` (any
//! OpenAI-compatible `/embeddings` API, see [`openai`]) or `none` (vector search off).

pub(crate) mod bert;
mod embedder;
pub(crate) mod limit;
pub mod local;
pub mod models;
pub(crate) mod openai;
pub(crate) mod static_model;
pub(crate) mod wordpiece;

use crate::config::{EmbedConfig, Provider};

pub use embedder::{EmbedError, Embedder, Reads};

/// Start loading the configured model in the background when it is the local one (a
/// remote provider has nothing to load).
pub fn warm_up(config: &EmbedConfig) {
    if config.provider == Provider::Local && config.model.is_empty() {
        local::warm_up();
    }
}

/// The configured embedder, or `None` when vector search is off. The bundled model loads
/// on its first use; an installed model (`[embed] model = "NAME"`) loads here.
pub fn from_config(cfg: &EmbedConfig) -> Result<Option<Box<dyn Embedder>>, EmbedError> {
    match cfg.provider {
        Provider::OpenAi => Ok(Some(Box::new(openai::OpenAi::new(cfg)?))),
        Provider::Local if cfg.model.is_empty() => Ok(Some(Box::new(local::Local))),
        Provider::Static => Ok(Some(Box::new(static_model::Static))),
        Provider::Local => {
            let m = models::find(&cfg.model).map_err(|e| EmbedError::Local {
                what: crate::util::chain(&e),
            })?;
            Ok(Some(Box::new(bert::BertDir::load(&m.dir, &m.id)?)))
        }
        Provider::None => Ok(None),
    }
}

/// The model id vectors of this configuration are stored under, without starting the
/// provider (`None` when vector search is off). It names provider, model, endpoint and
/// dimension: vectors of different ids never mix.
pub fn model_id(cfg: &EmbedConfig) -> Option<String> {
    match cfg.provider {
        // Shown by `status` and stored: never with the URL's credentials.
        Provider::OpenAi => Some(openai::model_id(cfg)),
        Provider::Local if cfg.model.is_empty() => Some(local::model_id()),
        Provider::Static => Some(static_model::model_id()),
        // Not installed: an id no vectors have, so search says "no vectors yet".
        Provider::Local => Some(format!(
            "local:{}",
            models::find(&cfg.model).map_or_else(|_| format!("{}@missing", cfg.model), |m| m.id)
        )),
        Provider::None => None,
    }
}
