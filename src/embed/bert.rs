//! A BERT-family sentence-embedding model read from a local directory (Hugging Face
//! layout), run with `candle` on the CPU: token ids → encoder → mean over real tokens →
//! unit length, as sentence-transformers does for MiniLM, BGE, E5 and GTE models.

use std::path::Path;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{PaddingParams, Tokenizer, TruncationParams};

use super::embedder::{EmbedError, Embedder};

/// Longest input in tokens: code chunks are longer, and their start says most.
const MAX_TOKENS: usize = 256;
/// Texts per forward pass.
const BATCH: usize = 16;

/// A loaded model directory.
pub struct BertDir {
    model: BertModel,
    tokenizer: Tokenizer,
    id: String,
}

fn failed(what: impl std::fmt::Display) -> EmbedError {
    EmbedError::Local {
        what: what.to_string(),
    }
}

impl BertDir {
    /// Load `config.json`, `tokenizer.json` and `model.safetensors` from `dir`; vectors are
    /// stored under `id`.
    pub fn load(dir: &Path, id: &str) -> Result<BertDir, EmbedError> {
        let read = |f: &str| {
            std::fs::read(dir.join(f))
                .map_err(|e| failed(format!("{}: {e}", dir.join(f).display())))
        };
        let config: Config = serde_json::from_slice(&read("config.json")?)
            .map_err(|e| failed(format!("config.json: {e}")))?;
        let vb = VarBuilder::from_buffered_safetensors(
            read("model.safetensors")?,
            DType::F32,
            &Device::Cpu,
        )
        .map_err(failed)?;
        let model = BertModel::load(vb, &config).map_err(failed)?;
        let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json"))
            .map_err(|e| failed(format!("tokenizer.json: {e}")))?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS.min(config.max_position_embeddings),
                ..Default::default()
            }))
            .map_err(failed)?;
        tokenizer.with_padding(Some(PaddingParams::default()));
        Ok(BertDir {
            model,
            tokenizer,
            id: id.to_string(),
        })
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(failed)?;
        let rows = |f: &dyn Fn(&tokenizers::Encoding) -> Vec<u32>| -> Result<Tensor, EmbedError> {
            let rows: Vec<Tensor> = encodings
                .iter()
                .map(|e| Tensor::new(f(e).as_slice(), &Device::Cpu))
                .collect::<Result<_, _>>()
                .map_err(failed)?;
            Tensor::stack(&rows, 0).map_err(failed)
        };
        let ids = rows(&|e| e.get_ids().to_vec())?;
        let types = ids.zeros_like().map_err(failed)?;
        let mask = rows(&|e| e.get_attention_mask().to_vec())?;
        let hidden = self
            .model
            .forward(&ids, &types, Some(&mask))
            .map_err(failed)?;
        mean_normalized(&hidden, &mask).map_err(failed)
    }
}

/// Mean of the token vectors where `mask` is 1, scaled to unit length.
fn mean_normalized(hidden: &Tensor, mask: &Tensor) -> candle_core::Result<Vec<Vec<f32>>> {
    let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
    let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
    let counts = mask.sum(1)?.clamp(1e-9, f64::MAX)?;
    let mean = summed.broadcast_div(&counts)?;
    let norm = mean.sqr()?.sum_keepdim(1)?.sqrt()?.clamp(1e-12, f64::MAX)?;
    mean.broadcast_div(&norm)?.to_vec2::<f32>()
}

impl Embedder for BertDir {
    fn model_id(&self) -> String {
        format!("local:{}", self.id)
    }

    fn embed(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(BATCH) {
            // The tokenizer rejects nothing, but an empty input has no real tokens.
            let batch: Vec<&str> = batch
                .iter()
                .map(|t| if t.trim().is_empty() { "empty" } else { t })
                .collect();
            out.extend(self.embed_batch(&batch)?);
        }
        Ok(out)
    }
}
