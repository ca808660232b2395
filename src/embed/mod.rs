//! Embedding providers for vector search. [`Embedder`] turns texts into vectors; a provider
//! is chosen by `[embed] provider` in the configuration: `static` (the default: a
//! token-embedding model compiled into the binary, milliseconds not seconds, see
//! [`static_model`]), `openai` (any OpenAI-compatible `/embeddings` API, which is also how a
//! user runs a transformer of their own: Ollama, TEI or llama.cpp on localhost, see
//! [`openai`]) or `none` (vector search off).

mod embedder;
pub(crate) mod limit;
pub(crate) mod openai;
pub(crate) mod static_model;
pub(crate) mod wordpiece;

use crate::config::{EmbedConfig, Provider};

pub use embedder::{EmbedError, Embedder, Reads};

/// The configured embedder, or `None` when vector search is off.
pub fn from_config(cfg: &EmbedConfig) -> Result<Option<Box<dyn Embedder>>, EmbedError> {
    match cfg.provider {
        Provider::OpenAi => Ok(Some(Box::new(openai::OpenAi::new(cfg)?))),
        Provider::Static => Ok(Some(Box::new(static_model::Static))),
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
        Provider::Static => Some(static_model::model_id()),
        Provider::None => None,
    }
}
