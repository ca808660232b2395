//! The static embedder (`[embed] provider = "static"`): one vector per vocabulary token,
//! compiled into the binary; a text's vector is the mean of its tokens' vectors, at unit
//! length. No matrix products: a query embeds in microseconds and chunks by the thousand per
//! second on one core, and nothing is decoded at start (the file is read where it lies).
//!
//! The model (`models/static/model.bin`, see `models/static/README.md` for its provenance
//! and licence) was distilled from all-MiniLM-L6-v2 and trained on code by
//! `scripts/make-static-model.py`; the tokenizer is BERT's ([`super::wordpiece`]).
//!
//! File format, all numbers little-endian:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | magic `GCSSTATC` |
//! | 4 | version, 1 |
//! | 4 | dims `d` |
//! | 4 | vocabulary size `n` |
//! | 4 | length `t` of the token text |
//! | 8 | zero |
//! | 4·n | each row's scale (f32) |
//! | n·d | the rows (i8; a row's vector is its bytes times its scale) |
//! | 4·(n+1) | where each token starts in the token text (u32; the last is `t`) |
//! | t | the tokens in byte order, each followed by `\n` (row `i` is token `i`) |

use std::sync::OnceLock;

use rayon::prelude::*;

use super::embedder::{EmbedError, Embedder};
use super::wordpiece::{self, Vocab};

/// The model file, compiled in.
static MODEL_BYTES: &[u8] = include_bytes!("../../models/static/model.bin");
/// The first 12 hex digits of the model file's SHA-256 (checked by a test): the vector space's
/// id changes with the model.
const MODEL_SHA12: &str = "3f8e93bd0cbc";
const MAGIC: &[u8; 8] = b"GCSSTATC";
const HEADER: usize = 32;
/// Texts embedded on one thread before the work is spread over the cores.
const PARALLEL_FROM: usize = 64;

/// The model's sections, borrowed from the bytes.
pub struct Model<'a> {
    dims: usize,
    n: usize,
    scales: &'a [u8],
    rows: &'a [u8],
    offsets: &'a [u8],
    tokens: &'a [u8],
}

fn bad(what: impl Into<String>) -> EmbedError {
    EmbedError::Local {
        what: format!("static model: {}", what.into()),
    }
}

fn u32_at(bytes: &[u8], at: usize) -> usize {
    let mut b = [0u8; 4];
    b.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(b) as usize
}

impl<'a> Model<'a> {
    /// Check the header and cut the sections; nothing is copied.
    pub fn parse(bytes: &'a [u8]) -> Result<Model<'a>, EmbedError> {
        if bytes.len() < HEADER || &bytes[..8] != MAGIC {
            return Err(bad("not a model file"));
        }
        if u32_at(bytes, 8) != 1 {
            return Err(bad(format!("unknown version {}", u32_at(bytes, 8))));
        }
        let (dims, n, t) = (u32_at(bytes, 12), u32_at(bytes, 16), u32_at(bytes, 20));
        let sizes = [4 * n, n * dims, 4 * (n + 1), t];
        if dims == 0 || n == 0 || HEADER + sizes.iter().sum::<usize>() != bytes.len() {
            return Err(bad("sizes do not add up"));
        }
        let mut at = HEADER;
        let mut cut = |len: usize| {
            let s = &bytes[at..at + len];
            at += len;
            s
        };
        let model = Model {
            dims,
            n,
            scales: cut(sizes[0]),
            rows: cut(sizes[1]),
            offsets: cut(sizes[2]),
            tokens: cut(sizes[3]),
        };
        if u32_at(model.offsets, 4 * n) != t {
            return Err(bad("token offsets do not end at the token text's end"));
        }
        Ok(model)
    }

    /// Vector dimension (tests only: the embedder's callers read a vector's length).
    #[cfg(test)]
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Token `i`'s text (`i < n`).
    fn token(&self, i: usize) -> &'a [u8] {
        let start = u32_at(self.offsets, 4 * i);
        let end = u32_at(self.offsets, 4 * (i + 1)).saturating_sub(1);
        self.tokens.get(start..end.max(start)).unwrap_or_default()
    }

    /// Add token `id`'s vector to `acc`.
    fn add_row(&self, id: usize, acc: &mut [f32]) {
        let mut s = [0u8; 4];
        s.copy_from_slice(&self.scales[4 * id..4 * id + 4]);
        let scale = f32::from_le_bytes(s);
        let row = &self.rows[id * self.dims..(id + 1) * self.dims];
        for (a, &r) in acc.iter_mut().zip(row) {
            *a += f32::from(r as i8) * scale;
        }
    }

    /// The unit-length mean of `text`'s token vectors; `ids` is scratch space. A text with
    /// no known token gets the vector of "empty", as the bundled model's blank chunks do.
    pub fn embed_one(&self, text: &str, ids: &mut Vec<u32>) -> Vec<f32> {
        ids.clear();
        wordpiece::tokenize(text, self, ids);
        if ids.is_empty() {
            wordpiece::tokenize("empty", self, ids);
        }
        let mut acc = vec![0f32; self.dims];
        for &id in ids.iter() {
            self.add_row(id as usize, &mut acc);
        }
        let norm = acc.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            acc.iter_mut().for_each(|x| *x /= norm);
        }
        acc
    }
}

impl Vocab for Model<'_> {
    fn id(&self, piece: &[u8]) -> Option<u32> {
        // Tokens are stored in byte order: a binary search, no table built at start.
        let (mut lo, mut hi) = (0, self.n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.token(mid).cmp(piece) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return u32::try_from(mid).ok(),
            }
        }
        None
    }
}

static MODEL: OnceLock<Result<Model<'static>, String>> = OnceLock::new();

/// The compiled-in model (its header is checked once per process).
pub fn shared() -> Result<&'static Model<'static>, EmbedError> {
    MODEL
        .get_or_init(|| Model::parse(MODEL_BYTES).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|what| EmbedError::Local { what: what.clone() })
}

/// Id of the static model's vector space: its name and the file's checksum.
pub fn model_id() -> String {
    format!("static:minilm-code@{MODEL_SHA12}")
}

/// The static embedder; the model is shared by the whole process.
#[derive(Default)]
pub struct Static;

impl Embedder for Static {
    fn model_id(&self) -> String {
        model_id()
    }

    fn reads(&self) -> super::embedder::Reads {
        super::embedder::Reads::Definitions
    }

    fn embed(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let model = shared()?;
        if texts.len() < PARALLEL_FROM {
            let mut ids = Vec::new();
            return Ok(texts.iter().map(|t| model.embed_one(t, &mut ids)).collect());
        }
        Ok(texts
            .par_iter()
            .map_init(Vec::new, |ids, t| model.embed_one(t, ids))
            .collect())
    }
}

#[cfg(test)]
#[path = "static_model_tests.rs"]
mod tests;
