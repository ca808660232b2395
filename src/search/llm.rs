//! Optional help from a chat model over an OpenAI-compatible `/chat/completions` API (off by
//! default; `[llm] rewrite` / `[llm] rerank`): rewriting a query into English keywords and
//! likely identifiers (so a question in Chinese, or in words the code does not use, still
//! reaches BM25), and a yes/no relevance check of the top hits. Both are best effort: any
//! failure leaves the search as it would have been, with a note saying so.

use std::time::Duration;

use serde_json::json;

use super::Hit;
use crate::config::LlmConfig;

const REWRITE_PROMPT: &str = "You turn a question about a code base into a code search query. \
Reply with one line only: English keywords and likely code identifiers (function, type and file \
names in camelCase or snake_case), most important first, no explanation. Translate to English \
if the question is in another language.";

const RERANK_PROMPT: &str = "You judge code search results. Answer only yes or no: is this code \
relevant to the query (does it implement, define or directly handle what is asked)?";

/// Lines of a hit shown to the reranker.
const RERANK_LINES: usize = 60;

/// A chat client for one search.
pub struct Chat {
    client: reqwest::Client,
    rt: tokio::runtime::Runtime,
    url: String,
    key: Option<String>,
    model: String,
}

impl Chat {
    /// A client for `cfg`, or why there is none.
    pub fn new(cfg: &LlmConfig) -> Result<Chat, String> {
        let key = match cfg.api_key_env.as_str() {
            "" => None,
            var => Some(
                std::env::var(var).map_err(|_| format!("{var} (llm.api_key_env) is not set"))?,
            ),
        };
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(cfg.timeout_secs))
            .build()
            .map_err(|e| e.to_string())?;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Chat {
            client,
            rt,
            url: format!("{}/chat/completions", cfg.url.trim_end_matches('/')),
            key,
            model: cfg.model.clone(),
        })
    }

    /// Ask every `(system, user)` pair at once; the answers in order.
    fn ask_all(&self, prompts: &[(&str, String)]) -> Result<Vec<String>, String> {
        let calls = prompts.iter().map(|(system, user)| {
            let body = json!({
                "model": self.model,
                "temperature": 0,
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            });
            let mut req = self.client.post(&self.url).json(&body);
            if let Some(k) = &self.key {
                req = req.bearer_auth(k);
            }
            async move {
                let resp = req.send().await.map_err(describe)?;
                let status = resp.status();
                if !status.is_success() {
                    return Err(format!("HTTP {status}"));
                }
                let v: serde_json::Value = resp.json().await.map_err(describe)?;
                v["choices"][0]["message"]["content"]
                    .as_str()
                    .map(|s| s.trim().to_string())
                    .ok_or_else(|| "an answer without choices[0].message.content".to_string())
            }
        });
        self.rt
            .block_on(futures::future::join_all(calls))
            .into_iter()
            .collect()
    }
}

/// reqwest's messages carry the URL; ours names it once.
fn describe(e: reqwest::Error) -> String {
    if e.is_timeout() {
        "timed out".into()
    } else {
        e.without_url().to_string()
    }
}

/// The query's keywords and identifiers in English, from the chat model.
pub fn rewrite(chat: &Chat, query: &str) -> Result<String, String> {
    let answer = chat.ask_all(&[(REWRITE_PROMPT, query.to_string())])?;
    let line = answer
        .first()
        .and_then(|a| a.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("")
        .trim()
        .to_string();
    if line.is_empty() {
        return Err("an empty rewrite".into());
    }
    Ok(line)
}

/// Ask about the first `top` hits; those judged relevant move ahead of those that are not
/// (each group keeps its order), the rest stays behind.
pub fn rerank(chat: &Chat, query: &str, hits: &mut Vec<Hit>, top: usize) -> Result<(), String> {
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
