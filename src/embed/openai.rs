//! An OpenAI-compatible `/embeddings` client (OpenAI, Voyage, Ollama, llama.cpp server,
//! TEI, vLLM): batching, a token bucket for requests/s and tokens/min, retries with
//! exponential backoff and jitter on 429, 5xx and timeouts (honouring `Retry-After`). The
//! client, the API key and its redaction are `http`'s.

use std::time::Duration;

use serde_json::{json, Value};

use super::embedder::{EmbedError, Embedder};
use super::limit::{backoff, Bucket};
use crate::config::EmbedConfig;
use crate::http::{self, Client, HttpError};
use crate::text::tokens;

/// Longest text sent for one chunk, in characters (models cut longer input anyway).
const MAX_CHARS: usize = 8000;

/// A client for one API and model.
pub struct OpenAi {
    cfg: EmbedConfig,
    client: Client,
    requests: Bucket,
    tokens: Bucket,
}

/// How one attempt went wrong.
enum Failure {
    /// Worth retrying; with the server's `Retry-After`, if any.
    Retry(String, Option<Duration>),
    /// Not worth retrying.
    Fatal(EmbedError),
}

impl OpenAi {
    /// A client for `cfg` (provider `openai`).
    pub fn new(cfg: &EmbedConfig) -> Result<OpenAi, EmbedError> {
        let key = http::api_key(&cfg.api_key_env, "embed.api_key_env")?;
        let timeout = Duration::from_secs(cfg.timeout_secs);
        Ok(OpenAi {
            client: Client::new(&cfg.url, "/embeddings", key, timeout)?,
            requests: Bucket::new(cfg.requests_per_second, cfg.requests_per_second.max(1.0)),
            tokens: Bucket::new(cfg.tokens_per_minute / 60.0, cfg.tokens_per_minute),
            cfg: cfg.clone(),
        })
    }

    /// One batch, with pacing and retries.
    fn batch(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let input: Vec<&str> = texts.iter().map(|t| clip(t)).collect();
        let cost: usize = input.iter().map(|t| tokens::estimate(t)).sum();
        let wait = self.requests.take(1.0).max(self.tokens.take(cost as f64));
        std::thread::sleep(wait);
        let base = Duration::from_millis(self.cfg.backoff_base_ms);
        let max = Duration::from_millis(self.cfg.backoff_max_ms);
        let mut attempt = 0;
        loop {
            match self.send(&input) {
                Ok(v) => return Ok(v),
                Err(Failure::Fatal(e)) => return Err(e),
                Err(Failure::Retry(why, after)) => {
                    if attempt >= self.cfg.max_retries {
                        return Err(EmbedError::GaveUp {
                            url: self.client.shown_url(),
                            attempts: attempt + 1,
                            last: why,
                        });
                    }
                    let delay = backoff(attempt, base, max).max(after.unwrap_or_default().min(max));
                    std::thread::sleep(delay);
                    attempt += 1;
                }
            }
        }
    }

    fn send(&self, input: &[&str]) -> Result<Vec<Vec<f32>>, Failure> {
        let mut body = json!({"model": self.cfg.model, "input": input});
        if self.cfg.dimension > 0 {
            body["dimensions"] = self.cfg.dimension.into();
        }
        let answer = match self.client.post(&body) {
            Ok(a) => a,
            // Timeouts and connection failures: the server may come back.
            Err(e) => return Err(Failure::Retry(e.to_string(), None)),
        };
        let status = answer.status;
        if status.as_u16() == 429 || status.is_server_error() {
            return Err(Failure::Retry(
                HttpError::Status(status).to_string(),
                answer.retry_after,
            ));
        }
        if !status.is_success() {
            return Err(Failure::Fatal(EmbedError::Refused {
                url: self.client.shown_url(),
                status: status.as_u16(),
                body: self.client.redact(&answer.body),
            }));
        }
        self.parse(&answer.body, input.len())
            .map_err(Failure::Fatal)
    }

    fn parse(&self, text: &str, n: usize) -> Result<Vec<Vec<f32>>, EmbedError> {
        let bad = |what: String| EmbedError::BadAnswer {
            url: self.client.shown_url(),
            what,
        };
        let v: Value = serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
        let data = v["data"]
            .as_array()
            .ok_or_else(|| bad("no data array".into()))?;
        let mut out: Vec<(u64, Vec<f32>)> = Vec::with_capacity(data.len());
        for (i, d) in data.iter().enumerate() {
            let index = d["index"].as_u64().unwrap_or(i as u64);
            let vec: Vec<f32> = d["embedding"]
                .as_array()
                .ok_or_else(|| bad("an item has no embedding".into()))?
                .iter()
                .map(|x| x.as_f64().map(|f| f as f32))
                .collect::<Option<_>>()
                .ok_or_else(|| bad("an embedding has a non-number".into()))?;
            out.push((index, vec));
        }
        out.sort_by_key(|(i, _)| *i);
        if out.len() != n {
            return Err(bad(format!("{} vectors for {n} inputs", out.len())));
        }
        // Exactly one vector per input: a repeated index (and so a missing one) would store
        // one chunk's vector under another chunk's id.
        if let Some((pos, (index, _))) = out.iter().enumerate().find(|(p, (i, _))| *i != *p as u64)
        {
            return Err(bad(format!(
                "vector {pos} has index {index}: each input must have exactly one"
            )));
        }
        let dim = out[0].1.len();
        let want = if self.cfg.dimension > 0 {
            self.cfg.dimension
        } else {
            dim
        };
        if dim == 0 || dim != want || out.iter().any(|(_, v)| v.len() != dim) {
            return Err(bad(format!("dimension {dim}, expected {want}")));
        }
        Ok(out.into_iter().map(|(_, v)| v).collect())
    }
}

/// The model id of an OpenAI-compatible provider: provider, endpoint, model and dimension.
/// Shown by `status` and stored: never with the URL's credentials.
pub(super) fn model_id(cfg: &EmbedConfig) -> String {
    format!(
        "openai:{}|{}|{}",
        crate::util::redact_url(cfg.url.trim_end_matches('/')),
        cfg.model,
        cfg.dimension
    )
}

fn clip(text: &str) -> &str {
    match text.char_indices().nth(MAX_CHARS) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

impl Embedder for OpenAi {
    fn model_id(&self) -> String {
        model_id(&self.cfg)
    }

    fn embed(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(self.cfg.batch_size) {
            out.extend(self.batch(batch)?);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_input_gets_exactly_one_vector() {
        let cfg = EmbedConfig {
            provider: crate::config::Provider::OpenAi,
            model: "m".into(),
            ..EmbedConfig::default()
        };
        let api = OpenAi::new(&cfg).unwrap();
        let answer = |indices: &[u64]| {
            let data: Vec<Value> = indices
                .iter()
                .map(|i| json!({"index": i, "embedding": [*i as f64, 1.0]}))
                .collect();
            json!({ "data": data }).to_string()
        };
        assert_eq!(
            api.parse(&answer(&[1, 0]), 2).unwrap(),
            [vec![0.0, 1.0], vec![1.0, 1.0]]
        );
        // Two vectors for input 0 and none for input 1 would store one chunk's vector under
        // another chunk's id; an index past the inputs is as wrong.
        for bad in [&[0, 0][..], &[0, 2], &[1, 1]] {
            assert!(api.parse(&answer(bad), 2).is_err(), "{bad:?}");
        }
    }
}
