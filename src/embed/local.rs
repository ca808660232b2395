//! The default embedder: `paraphrase-MiniLM-L3-v2` (384 dimensions, 128 tokens of input),
//! compiled into the binary by the `pocket-encoder` crate and run on the CPU in pure Rust.
//! Nothing is downloaded, ever: a fresh install has semantic search offline. The model is
//! loaded on first use (a fraction of a second), and inputs are embedded on all cores.

use rayon::prelude::*;

use super::{EmbedError, Embedder};

/// The bundled model, loaded lazily.
#[derive(Default)]
pub struct Local {
    encoder: Option<pocket_encoder::Encoder>,
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

impl Local {
    fn encoder(&mut self) -> Result<&pocket_encoder::Encoder, EmbedError> {
        if self.encoder.is_none() {
            let e = pocket_encoder::Encoder::new().map_err(|e| EmbedError::Local {
                what: e.to_string(),
            })?;
            self.encoder = Some(e);
        }
        Ok(self.encoder.as_ref().expect("just loaded"))
    }
}

impl Embedder for Local {
    fn model_id(&self) -> String {
        model_id()
    }

    fn embed(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let encoder = self.encoder()?.clone();
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
