//! Embedding providers for vector search. [`Embedder`] turns texts into vectors; a provider
//! is chosen by `[embed] provider` in the configuration: `local` (the default: a sentence
//! transformer compiled into the binary, see [`local`]), `static` (a token-embedding model
//! compiled into the binary: milliseconds, not seconds, see [`static_model`]), `openai` (any
//! OpenAI-compatible `/embeddings` API, see [`openai`]) or `none` (vector search off).

pub(crate) mod bert;
pub(crate) mod limit;
pub mod local;
pub mod models;
pub(crate) mod openai;
pub(crate) mod static_model;
pub(crate) mod wordpiece;

use crate::config::{EmbedConfig, Provider};

/// Errors of an embedding provider. None of them carries the API key.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// The API key is missing, or the HTTP client could not be set up.
    #[error(transparent)]
    Http(#[from] crate::http::HttpError),
    /// The API refused the request (4xx other than 429).
    #[error("embedding API {url} answered {status}: {body}")]
    Refused {
        url: String,
        status: u16,
        body: String,
    },
    /// Retries ran out on 429s, 5xx answers or timeouts.
    #[error("embedding API {url} still failing after {attempts} attempts: {last}")]
    GaveUp {
        url: String,
        attempts: u32,
        last: String,
    },
    /// The answer did not have one vector per input of a consistent dimension.
    #[error("embedding API {url} returned unusable vectors: {what}")]
    BadAnswer { url: String, what: String },
    /// The local model failed to load or run.
    #[error("the local embedding model failed: {what}")]
    Local { what: String },
}

impl EmbedError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            EmbedError::Http(e) => return e.hint(),
            EmbedError::Refused { .. } => "check embed.url, embed.model and the API key".into(),
            EmbedError::GaveUp { .. } => "the API is down or rate-limited: `git codesearch index` retries the pending chunks later; search uses BM25 + symbols meanwhile".into(),
            EmbedError::BadAnswer { .. } => "check embed.model and embed.dimension".into(),
            EmbedError::Local { .. } => "set [embed] provider = \"none\" to turn vector search off".into(),
        })
    }
}

/// Turns texts into vectors.
pub trait Embedder {
    /// Identifies the model (and so the vector space): vectors of different ids never mix.
    fn model_id(&self) -> String;
    /// One vector per text, in order.
    fn embed(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError>;
    /// Which text of a chunk it embeds best (the whole chunk unless it says otherwise).
    fn reads(&self) -> Reads {
        Reads::Chunk
    }
}

/// The text of a chunk an embedder is given (the file's path comes first either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reads {
    /// The whole chunk: a transformer reads each word in its context.
    Chunk,
    /// The chunk's definition and comment lines: a static model averages its tokens, and a
    /// body's many identifiers drown the few words that say what the code is for (concept
    /// set: vector-only NDCG@10 0.704 → 0.734, hybrid 0.857 → 0.875 at vector weight 1;
    /// bench/RESULTS.md and bench/history/).
    Definitions,
}

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
        Provider::OpenAi => Some(format!(
            "openai:{}|{}|{}",
            crate::util::redact_url(cfg.url.trim_end_matches('/')),
            cfg.model,
            cfg.dimension
        )),
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
