//! The one HTTP client of the crate, for OpenAI-compatible APIs (`embed::openai`'s
//! `/embeddings`, `search::llm`'s `/chat/completions`): the API key read from the environment
//! variable a setting names, a client with the configured timeout, a single-threaded tokio
//! runtime to block on (the rest of the crate is synchronous), and redaction, so neither the key
//! nor a URL's credentials reach a message. Pacing, retries and what an answer means stay with
//! the caller.

use std::time::Duration;

use serde_json::Value;

use crate::util::redact_url;

/// Errors of the HTTP client. None of them carries the API key or the URL's credentials.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// The API key's environment variable is not set.
    #[error("the environment variable {var} ({setting}) is not set")]
    MissingKey {
        /// The variable named by the setting.
        var: String,
        /// The setting that names it (`embed.api_key_env`, `llm.api_key_env`).
        setting: &'static str,
    },
    /// The HTTP client could not be set up.
    #[error("cannot set up the HTTP client")]
    Client(#[source] reqwest::Error),
    /// The runtime that drives the requests could not start.
    #[error("cannot start the I/O runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// The request took longer than the timeout.
    #[error("timed out")]
    Timeout,
    /// The server could not be reached.
    #[error("connection failed")]
    Connect,
    /// The request or its answer failed otherwise (reqwest's message, without the URL).
    #[error("{0}")]
    Transport(String),
    /// The server answered with an error status.
    #[error("HTTP {0}")]
    Status(reqwest::StatusCode),
}

impl HttpError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            HttpError::MissingKey { var, setting } => Some(format!(
                "export {var}=… or set {setting} to another variable"
            )),
            _ => None,
        }
    }
}

impl From<reqwest::Error> for HttpError {
    fn from(e: reqwest::Error) -> HttpError {
        if e.is_timeout() {
            HttpError::Timeout
        } else if e.is_connect() {
            HttpError::Connect
        } else {
            // Without the URL: it is known, and a URL could carry credentials.
            HttpError::Transport(e.without_url().to_string())
        }
    }
}

/// The API key in the environment variable `var`, which the setting `setting` names; none
/// when `var` is empty (a local server needs none).
pub fn api_key(var: &str, setting: &'static str) -> Result<Option<String>, HttpError> {
    if var.is_empty() {
        return Ok(None);
    }
    std::env::var(var)
        .map(Some)
        .map_err(|_| HttpError::MissingKey {
            var: var.to_string(),
            setting,
        })
}

/// A server's answer: its status, its `Retry-After` in seconds if any, and its body.
pub struct Answer {
    /// The HTTP status.
    pub status: reqwest::StatusCode,
    /// How long the server asked to wait before the next attempt.
    pub retry_after: Option<Duration>,
    /// The body as text.
    pub body: String,
}

impl Answer {
    /// The body when the status is a success, else the status as the error.
    pub fn success(self) -> Result<String, HttpError> {
        if self.status.is_success() {
            Ok(self.body)
        } else {
            Err(HttpError::Status(self.status))
        }
    }
}

/// A client for one endpoint: `POST`s JSON with the API key as a bearer token.
pub struct Client {
    http: reqwest::Client,
    rt: tokio::runtime::Runtime,
    url: String,
    key: Option<String>,
}

impl Client {
    /// A client posting to `base` + `path` (`https://api.example/v1` + `/embeddings`) with
    /// `key`, each request limited to `timeout`.
    pub fn new(
        base: &str,
        path: &str,
        key: Option<String>,
        timeout: Duration,
    ) -> Result<Client, HttpError> {
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(HttpError::Client)?;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(HttpError::Runtime)?;
        Ok(Client {
            http,
            rt,
            url: format!("{}{path}", base.trim_end_matches('/')),
            key,
        })
    }

    /// The endpoint as it may be shown: without credentials or query (`util::redact_url`).
    pub fn shown_url(&self) -> String {
        redact_url(&self.url)
    }

    /// Post `body`; the answer whatever its status, or why there is none.
    pub fn post(&self, body: &Value) -> Result<Answer, HttpError> {
        self.post_all(std::slice::from_ref(body))
            .pop()
            .expect("one answer per body")
    }

    /// Post every body at once; the answers in order.
    pub fn post_all(&self, bodies: &[Value]) -> Vec<Result<Answer, HttpError>> {
        let calls = bodies.iter().map(|body| {
            let mut req = self.http.post(&self.url).json(body);
            if let Some(k) = &self.key {
                req = req.bearer_auth(k);
            }
            async move {
                let resp = req.send().await?;
                let status = resp.status();
                let retry_after = resp
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .map(Duration::from_secs);
                let body = resp.text().await?;
                Ok(Answer {
                    status,
                    retry_after,
                    body,
                })
            }
        });
        self.rt.block_on(futures::future::join_all(calls))
    }

    /// `text` (a server's message) as it may be shown: the key never, even if a server echoes
    /// it, and at most 300 characters.
    pub fn redact(&self, text: &str) -> String {
        redact_key(text, self.key.as_deref())
    }
}

/// `text` with every occurrence of `key` replaced, cut to 300 characters: redacted first,
/// then cut (cut first, a key straddling the cut would leave its start readable).
fn redact_key(text: &str, key: Option<&str>) -> String {
    let full = match key.filter(|k| !k.is_empty()) {
        Some(k) => text.replace(k, "***"),
        None => text.to_string(),
    };
    full.chars().take(300).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_straddling_the_cut_is_never_shown_in_part() {
        let key = "sk-secretsecretsecretsecret";
        let body = format!("{}{key}", "e".repeat(290));
        let shown = redact_key(&body, Some(key));
        assert!(!shown.contains("sk-secr"), "{shown}");
        assert!(shown.ends_with("***"), "{shown}");
    }

    #[test]
    fn a_missing_key_names_its_variable_and_setting() {
        let e = api_key("GIT_CODESEARCH_SURELY_UNSET_KEY", "llm.api_key_env").unwrap_err();
        assert_eq!(
            e.to_string(),
            "the environment variable GIT_CODESEARCH_SURELY_UNSET_KEY (llm.api_key_env) is not set"
        );
        assert_eq!(api_key("", "llm.api_key_env").unwrap(), None);
    }
}
