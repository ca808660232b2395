//! What every embedding provider is and says: the [`Embedder`] trait, what text it reads
//! ([`Reads`]) and [`EmbedError`]. The providers import it; `embed` picks one of them.

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
    /// The compiled-in model failed to load or run.
    #[error("the compiled-in embedding model failed: {what}")]
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
