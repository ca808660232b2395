//! The default embedder: `paraphrase-MiniLM-L3-v2` (384 dimensions, 128 tokens of input),
//! compiled into the binary by the `pocket-encoder` crate and run on the CPU in pure Rust.
//! Nothing is downloaded, ever: a fresh install has semantic search offline. The model is
//! loaded once per process (a large part of a search's time, so a search starts loading it
//! in the background before anything else, see [`warm_up`]; the MCP server keeps it for the
//! whole session), and inputs are embedded on all cores.

use std::sync::OnceLock;

use rayon::prelude::*;

use super::embedder::{EmbedError, Embedder};

/// The bundled model, loaded lazily and shared by the whole process.
#[derive(Default)]
pub struct Local;

static ENCODER: OnceLock<Result<pocket_encoder::Encoder, String>> = OnceLock::new();

/// The process-wide encoder; the first caller loads it, concurrent callers wait for it.
fn shared() -> Result<&'static pocket_encoder::Encoder, EmbedError> {
    ENCODER
        .get_or_init(|| {
            let e = pocket_encoder::Encoder::new().map_err(|e| e.to_string());
            tracing::debug!("local model loaded");
            e
        })
        .as_ref()
        .map_err(|what| EmbedError::Local { what: what.clone() })
}

/// Start loading the model on another thread, so it overlaps opening the index and the
/// lexical retrievers.
pub fn warm_up() {
    std::thread::spawn(|| {
        let _ = shared();
    });
}

/// Id of the bundled model's vector space (its name and weights checksum).
pub fn model_id() -> String {
    let info = pocket_encoder::model_info();
    format!(
        "local:{}@{}",
        info.id,
        &info.revision[..info.revision.len().min(12)]
    )
}

impl Embedder for Local {
    fn model_id(&self) -> String {
        model_id()
    }

    fn embed(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let encoder = shared()?;
        // The model rejects blank input; a blank chunk gets a neutral stand-in.
        texts
            .par_iter()
            .map(|t| {
                let t = if t.trim().is_empty() {
                    "empty"
                } else {
                    t.as_str()
                };
                encoder
                    .embed(&[t])
                    .map(|mut v| v.remove(0))
                    .map_err(|e| EmbedError::Local {
                        what: e.to_string(),
                    })
            })
            .collect()
    }
}
