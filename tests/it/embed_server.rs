//! A tiny OpenAI-compatible server on 127.0.0.1 for tests, in this process: `/embeddings`
//! (bag-of-words vectors) and `/chat/completions` (rules a test can predict: see `chat`).
//! It answers from a script (429, 500, slow, 401, ok) and records what it saw, so tests can
//! check retries, backoff and that nothing is marked done wrongly.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the server does with one request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Answer {
    /// 200 with one vector per input.
    Ok,
    /// This HTTP status with a short error body.
    Status(u16),
    /// Wait this long, then answer Ok (the client may have given up by then).
    Slow(Duration),
}

/// Shared state of the server.
#[derive(Default)]
pub struct Seen {
    /// Answers still to give, first first; when empty, `fallback` is used.
    pub script: Vec<Answer>,
    /// Answer once the script is used up.
    pub fallback: Option<Answer>,
    /// Requests received (with their status).
    pub requests: Vec<u16>,
    /// Authorization headers received.
    pub auth: Vec<String>,
    /// Inputs embedded successfully.
    pub inputs: usize,
    /// Chat requests answered successfully.
    pub chats: usize,
}

/// A running server.
pub struct Server {
    pub port: u16,
    pub seen: Arc<Mutex<Seen>>,
}

/// Vector dimension the server returns.
pub const DIM: usize = 16;

impl Server {
    /// Start a server that answers `script` in order, then `fallback` forever.
    pub fn start(script: Vec<Answer>, fallback: Answer) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Seen {
            script: script.into_iter().rev().collect(),
            fallback: Some(fallback),
            ..Default::default()
        }));
        let shared = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let shared = shared.clone();
                std::thread::spawn(move || serve(stream, &shared));
            }
        });
        Server { port, seen }
    }

    /// Base URL for `[embed] url`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// Answer `a` from now on.
    pub fn set_fallback(&self, a: Answer) {
        self.seen.lock().unwrap().fallback = Some(a);
    }

    /// Statuses of the requests so far.
    pub fn statuses(&self) -> Vec<u16> {
        self.seen.lock().unwrap().requests.clone()
    }
}

fn serve(stream: TcpStream, seen: &Mutex<Seen>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut len = 0;
    let mut auth = String::new();
    let mut request_line = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if request_line.is_empty() {
            request_line = l.to_string();
        }
        let lower = l.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            len = v.trim().parse().unwrap_or(0);
        }
        if lower.starts_with("authorization:") {
            auth = l["authorization:".len()..].trim().to_string();
        }
    }
    let mut body = vec![0; len];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let answer = {
        let mut s = seen.lock().unwrap();
        s.auth.push(auth.clone());
        let a = s.script.pop().or(s.fallback).unwrap_or(Answer::Ok);
        s.requests.push(match a {
            Answer::Status(c) => c,
            _ => 200,
        });
        a
    };
    let ok = |body: &[u8]| {
        if request_line.contains("/chat/completions") {
            chat(body, seen)
        } else {
            embeddings(body, seen)
        }
    };
    let (status, text) = match answer {
        Answer::Status(401) => (401, format!("{{\"error\":\"bad key {auth}\"}}")),
        Answer::Status(c) => (c, "{\"error\":\"try later\"}".to_string()),
        Answer::Slow(d) => {
            std::thread::sleep(d);
            (200, ok(&body))
        }
        Answer::Ok => (200, ok(&body)),
    };
    let reply = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
        text.len()
    );
    let mut stream = stream;
    let _ = stream.write_all(reply.as_bytes());
}

/// A chat answer by fixed rules: a query rewrite turns the Chinese word for "upload" (上传)
/// into `upload push_blob storage` (anything else is echoed); a relevance question is
/// answered "yes" only for code in a file whose path contains `uploader`.
fn chat(body: &[u8], seen: &Mutex<Seen>) -> String {
    let req: serde_json::Value = serde_json::from_slice(body).expect("request JSON");
    let system = req["messages"][0]["content"].as_str().unwrap_or("");
    let user = req["messages"][1]["content"].as_str().unwrap_or("");
    let content = if system.contains("judge") {
        if user.contains("uploader") {
            "yes"
        } else {
            "no"
        }
        .to_string()
    } else if user.contains("上传") {
        "upload push_blob storage".to_string()
    } else {
        user.to_string()
    };
    seen.lock().unwrap().chats += 1;
    serde_json::json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})
        .to_string()
}

/// One deterministic vector per input: a bag of hashed lower-case words, normalised.
fn embeddings(body: &[u8], seen: &Mutex<Seen>) -> String {
    let req: serde_json::Value = serde_json::from_slice(body).expect("request JSON");
    let inputs: Vec<String> = req["input"]
        .as_array()
        .expect("input array")
        .iter()
        .map(|v| v.as_str().unwrap_or("").to_string())
        .collect();
    seen.lock().unwrap().inputs += inputs.len();
    let data: Vec<serde_json::Value> = inputs
        .iter()
        .enumerate()
        .map(
            |(i, t)| serde_json::json!({"object": "embedding", "index": i, "embedding": vector(t)}),
        )
        .collect();
    serde_json::json!({"object": "list", "data": data, "model": req["model"]}).to_string()
}

fn vector(text: &str) -> Vec<f32> {
    let mut v = vec![0.0f32; DIM];
    for w in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let h = w
            .to_lowercase()
            .bytes()
            .fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(b as u32));
        v[(h as usize) % DIM] += 1.0;
    }
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
    if v.iter().all(|x| *x == 0.0) {
        v[0] = 1.0;
        return v;
    }
    v.iter().map(|x| x / n).collect()
}
