//! Optional help from a chat model over an OpenAI-compatible `/chat/completions` API (off by
//! default; `[llm] rewrite` / `[llm] rerank`): rewriting a query into English keywords and
//! likely identifiers (so a question in Chinese, or in words the code does not use, still
//! reaches BM25), and a yes/no relevance check of the top hits. Both are best effort: any
//! failure leaves the search as it would have been, with a note saying so.

use std::time::Duration;

use serde_json::{json, Value};

use super::query::Query;
use super::types::{note, prepare, Hit};
use crate::config::LlmConfig;
use crate::http::{self, Client, HttpError};

const REWRITE_PROMPT: &str = "You turn a question about a code base into a code search query. \
Reply with one line only: English keywords and likely code identifiers (function, type and file \
names in camelCase or snake_case), most important first, no explanation. Translate to English \
if the question is in another language.";

const RERANK_PROMPT: &str = "You judge code search results. Answer only yes or no: is this code \
relevant to the query (does it implement, define or directly handle what is asked)?";

/// Lines of a hit shown to the reranker.
const RERANK_LINES: usize = 60;

/// Why the chat model gave no usable answer. A search shows it in its note and goes on
/// without the model.
#[derive(Debug, thiserror::Error)]
pub enum ChatError {
    /// The request failed, or the key or the client is missing.
    #[error(transparent)]
    Http(#[from] HttpError),
    /// The answer is not JSON.
    #[error("error decoding response body: {0}")]
    NotJson(#[source] serde_json::Error),
    /// The answer has no message.
    #[error("an answer without choices[0].message.content")]
    NoContent,
    /// The rewrite is empty.
    #[error("an empty rewrite")]
    EmptyRewrite,
}

/// A chat client for one search.
pub struct Chat {
    client: Client,
    model: String,
}

impl Chat {
    /// A client for `cfg`, or why there is none.
    pub fn new(cfg: &LlmConfig) -> Result<Chat, ChatError> {
        let key = http::api_key(&cfg.api_key_env, "llm.api_key_env")?;
        let timeout = Duration::from_secs(cfg.timeout_secs);
        Ok(Chat {
            client: Client::new(&cfg.url, "/chat/completions", key, timeout)?,
            model: cfg.model.clone(),
        })
    }

    /// Ask every `(system, user)` pair at once; the answers in order.
    fn ask_all(&self, prompts: &[(&str, String)]) -> Result<Vec<String>, ChatError> {
        let bodies: Vec<Value> = prompts
            .iter()
            .map(|(system, user)| {
                json!({
                    "model": self.model,
                    "temperature": 0,
                    "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
                })
            })
            .collect();
        self.client
            .post_all(&bodies)
            .into_iter()
            .map(|answer| {
                let text = answer?.success()?;
                let v: Value = serde_json::from_str(&text).map_err(ChatError::NotJson)?;
                v["choices"][0]["message"]["content"]
                    .as_str()
                    .map(|s| s.trim().to_string())
                    .ok_or(ChatError::NoContent)
            })
            .collect()
    }
}

/// The chat client, when rewrite or rerank is on and it can be set up.
pub(super) fn chat_if_used(cfg: &LlmConfig, degraded: &mut Option<String>) -> Option<Chat> {
    if !(cfg.rewrite || cfg.rerank) {
        return None;
    }
    Chat::new(cfg)
        .map_err(|why| note(degraded, Some(format!("chat model unavailable: {why}"))))
        .ok()
}

/// The query plus the chat model's English keywords and identifiers; the query as it was
/// when the model fails.
pub(super) fn rewritten(chat: &Chat, q: Query, degraded: &mut Option<String>) -> Query {
    match rewrite(chat, &q.raw) {
        Ok(extra) => prepare(&format!("{} {extra}", q.raw)).unwrap_or(q),
        Err(why) => {
            note(degraded, Some(format!("query rewrite skipped: {why}")));
            q
        }
    }
}

/// The query's keywords and identifiers in English, from the chat model.
pub fn rewrite(chat: &Chat, query: &str) -> Result<String, ChatError> {
    let answer = chat.ask_all(&[(REWRITE_PROMPT, query.to_string())])?;
    let line = answer
        .first()
        .and_then(|a| a.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("")
        .trim()
        .to_string();
    if line.is_empty() {
        return Err(ChatError::EmptyRewrite);
    }
    Ok(line)
}

/// Ask about the first `top` hits; those judged relevant move ahead of those that are not
/// (each group keeps its order), the rest stays behind.
pub fn rerank(chat: &Chat, query: &str, hits: &mut Vec<Hit>, top: usize) -> Result<(), ChatError> {
    let n = top.min(hits.len());
    if n == 0 {
        return Ok(());
    }
    let prompts: Vec<(&str, String)> = hits[..n]
        .iter()
        .map(|h| {
            let code: String = h
                .lines
                .iter()
                .take(RERANK_LINES)
                .map(|(_, l)| format!("{l}\n"))
                .collect();
            (
                RERANK_PROMPT,
                format!("Query: {query}\n\nFile: {}\n```\n{code}```", h.path),
            )
        })
        .collect();
    let answers = chat.ask_all(&prompts)?;
    let yes: Vec<bool> = answers
        .iter()
        .map(|a| a.trim_start().to_ascii_lowercase().starts_with("yes"))
        .collect();
    let rest = hits.split_off(n);
    let judged = std::mem::take(hits);
    let (mut relevant, others): (Vec<_>, Vec<_>) =
        judged.into_iter().zip(yes).partition(|(_, y)| *y);
    relevant.extend(others);
    hits.extend(relevant.into_iter().map(|(h, _)| h));
    hits.extend(rest);
    Ok(())
}
