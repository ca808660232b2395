//! `git codesearch mcp`: a Model Context Protocol server over stdio (JSON-RPC 2.0, one
//! message per line) for coding agents. Tools: `code_search`, `symbol_lookup`,
//! `index_status`, `reindex`. Written directly on serde_json: the protocol surface we need is
//! four methods, smaller than an SDK and its async runtime plumbing.
//!
//! Every path the server returns comes from the catalog (relative to the work tree); a
//! `path` filter that is absolute or climbs out with `..` is refused.

use std::io::{BufRead, Write};
use std::path::Path;

use serde_json::{json, Value};

use super::observer::Terminal;
use super::runs::{self, LOCK_WAIT};
use git_codesearch::answer::{self, HitRecord, Request};
use git_codesearch::index::lock::Contention;
use git_codesearch::report;
use git_codesearch::search::{self, budget, Mode, SearchOptions};
use git_codesearch::workspace::Workspace;
use git_codesearch::Error;

/// Protocol revisions we speak; the newest is offered when the client asks for another.
const PROTOCOLS: [&str; 3] = ["2025-06-18", "2025-03-26", "2024-11-05"];
/// Most hits a `code_search` call may ask for.
const MAX_LIMIT: u64 = 50;
/// Token budget of a `code_search` answer unless the call sets `max_tokens`.
const DEFAULT_BUDGET: u64 = 6000;

/// Longest request line read; a longer one is answered with an error and skipped, never
/// held whole (a 500 MB line once took 1.5 GB).
pub const MAX_LINE: usize = 1 << 20;

/// Serve requests from `input` until it closes, answering on `output`. A line that is not
/// UTF-8, not JSON or too long gets a JSON-RPC error, and the server goes on.
pub fn serve(dir: &Path, mut input: impl BufRead, mut output: impl Write) -> Result<(), Error> {
    let mut buf = Vec::new();
    loop {
        let reply = match read_line(&mut input, &mut buf, MAX_LINE).map_err(Error::Output)? {
            Line::End => return Ok(()),
            Line::TooLong => Some(rpc_error(
                Value::Null,
                -32600,
                &format!("request line longer than {MAX_LINE} bytes"),
            )),
            Line::Read => match std::str::from_utf8(&buf) {
                Err(_) => Some(rpc_error(Value::Null, -32700, "parse error: not UTF-8")),
                Ok(line) if line.trim().is_empty() => None,
                Ok(line) => handle(dir, line),
            },
        };
        if let Some(reply) = reply {
            writeln!(output, "{reply}").map_err(Error::Output)?;
            output.flush().map_err(Error::Output)?;
        }
    }
}

/// What [`read_line`] found.
#[derive(Debug, PartialEq)]
pub enum Line {
    /// A line (without its newline) is in the buffer.
    Read,
    /// A line longer than the limit was read past and dropped.
    TooLong,
    /// The input is closed.
    End,
}

/// Read one `\n`-terminated line into `buf` (cleared first), keeping at most `max` bytes:
/// the rest of a longer line is consumed and dropped.
pub fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> std::io::Result<Line> {
    buf.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok(match (any, too_long) {
                (false, _) => Line::End,
                (true, true) => Line::TooLong,
                (true, false) => Line::Read,
            });
        }
        any = true;
        let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], i + 1),
            None => (chunk, chunk.len()),
        };
        let ends = done > part.len();
        if !too_long && buf.len() + part.len() <= max {
            buf.extend_from_slice(part);
        } else {
            too_long = true;
            buf.clear();
        }
        input.consume(done);
        if ends {
            return Ok(if too_long { Line::TooLong } else { Line::Read });
        }
    }
}

/// Answer one message (`None` for notifications).
fn handle(dir: &Path, line: &str) -> Option<Value> {
    let msg: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return Some(rpc_error(Value::Null, -32700, &format!("parse error: {e}"))),
    };
    // JSON that is no request object (a number, a batch array) is an invalid request, which
    // JSON-RPC answers; it used to go unanswered, and a client waiting for it hung.
    if !msg.is_object() {
        return Some(rpc_error(
            Value::Null,
            -32600,
            "invalid request: not a JSON-RPC request object",
        ));
    }
    let id = msg.get("id").cloned();
    let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
    let params = msg.get("params").cloned().unwrap_or(json!({}));
    let id = id?; // notifications (initialized, cancelled, …) get no answer
    let result = match method {
        "initialize" => Ok(initialize(&params)),
        "ping" => Ok(json!({})),
        "tools/list" => Ok(json!({ "tools": tools() })),
        "tools/call" => Ok(call(dir, &params)),
        _ => Err((-32601, format!("method not found: {method}"))),
    };
    Some(match result {
        Ok(r) => json!({"jsonrpc": "2.0", "id": id, "result": r}),
        Err((code, m)) => rpc_error(id, code, &m),
    })
}

fn rpc_error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn initialize(params: &Value) -> Value {
    let asked = params.get("protocolVersion").and_then(Value::as_str);
    let version = asked
        .filter(|v| PROTOCOLS.contains(v))
        .unwrap_or(PROTOCOLS[0]);
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": {"name": "git-codesearch", "version": env!("CARGO_PKG_VERSION")},
        "instructions": "Search this git repository's code (the checked-out branch). Use code_search with plain-language questions or identifiers; symbol_lookup for a definition by name.",
    })
}

fn tools() -> Value {
    json!([
        {
            "name": "code_search",
            "description": "Ranked code chunks (path, line range, score, content) of the checked-out branch for a plain-language question or identifiers.",
            "inputSchema": {"type": "object", "properties": {
                "query": {"type": "string", "description": "what to look for"},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": 10},
                "path": {"type": "string", "description": "only paths matching this glob, relative to the repository, e.g. src/**/*.rs"},
                "lang": {"type": "string", "description": "only this language: rust, python, go, java, typescript, javascript, c, cpp, …"},
                "mode": {"type": "string", "enum": ["hybrid", "bm25", "vector", "symbol"], "default": "hybrid"},
                "max_tokens": {"type": "integer", "minimum": 1, "default": DEFAULT_BUDGET},
                "explain": {"type": "boolean", "default": false, "description": "each hit's score feature by feature (what each added)"}
            }, "required": ["query"]}
        },
        {
            "name": "symbol_lookup",
            "description": "Definitions (functions, methods, classes, structs, traits) by name: exact matches first, then names starting with it; with path, lines, signature and doc comment.",
            "inputSchema": {"type": "object", "properties": {
                "name": {"type": "string"},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": 10}
            }, "required": ["name"]}
        },
        {
            "name": "index_status",
            "description": "What is indexed for the checked-out branch: files, chunks, symbols, last run.",
            "inputSchema": {"type": "object", "properties": {}}
        },
        {
            "name": "reindex",
            "description": "Bring the index of the checked-out branch up to date with the work tree (only changed content is processed).",
            "inputSchema": {"type": "object", "properties": {}}
        }
    ])
}

/// A tool's answer: text for the model, structured content for programs.
fn tool_result(structured: Value, text: String, is_error: bool) -> Value {
    json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": structured,
        "isError": is_error,
    })
}

fn tool_error(message: String) -> Value {
    json!({"content": [{"type": "text", "text": message}], "isError": true})
}

fn call(dir: &Path, params: &Value) -> Value {
    let name = params.get("name").and_then(Value::as_str).unwrap_or("");
    let args = params.get("arguments").cloned().unwrap_or(json!({}));
    let outcome = match name {
        "code_search" => code_search(dir, &args),
        "symbol_lookup" => symbol_lookup(dir, &args),
        "index_status" => index_status(dir),
        "reindex" => reindex(dir),
        _ => return tool_error(format!("unknown tool {name:?}")),
    };
    match outcome {
        Ok(v) => v,
        Err(ToolError::Bad(m)) => tool_error(m),
        Err(ToolError::Failed(e)) => tool_error(e.render()),
    }
}

enum ToolError {
    /// The call's arguments are wrong.
    Bad(String),
    /// The work failed.
    Failed(Error),
}

impl<E: Into<Error>> From<E> for ToolError {
    fn from(e: E) -> Self {
        ToolError::Failed(e.into())
    }
}

fn str_arg<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

fn limit_arg(args: &Value, default: u64) -> Result<usize, ToolError> {
    match args.get("limit") {
        None | Some(Value::Null) => Ok(default as usize),
        Some(v) => match v.as_u64() {
            Some(n) if (1..=MAX_LIMIT).contains(&n) => Ok(n as usize),
            _ => Err(ToolError::Bad(format!(
                "limit must be an integer from 1 to {MAX_LIMIT}"
            ))),
        },
    }
}

/// A `path` filter must stay inside the repository: relative, without `..`.
pub fn check_path_glob(glob: &str) -> Result<(), String> {
    let escapes = glob.starts_with('/')
        || glob.starts_with('\\')
        || glob.chars().nth(1) == Some(':')
        || glob.split(['/', '\\']).any(|part| part == "..");
    if escapes {
        Err(format!(
            "path {glob:?} is outside the repository: give a glob relative to its top, without '..'"
        ))
    } else {
        Ok(())
    }
}

/// How the server indexes a branch that has none yet: quietly, resuming without asking.
fn first_index() -> Option<git_codesearch::index::IndexOptions> {
    Some(runs::quiet_options(Contention::Wait(LOCK_WAIT)))
}

/// After a call that indexed first: embed what that run left, in the background.
fn after(ws: &Workspace, ready: &answer::Ready) {
    if let Some(report) = &ready.first_index {
        runs::embed_after(ws, report, None);
    }
}

fn code_search(dir: &Path, args: &Value) -> Result<Value, ToolError> {
    let query = str_arg(args, "query").ok_or_else(|| ToolError::Bad("query is required".into()))?;
    let limit = limit_arg(args, 10)?;
    let path = str_arg(args, "path").map(str::to_string);
    if let Some(p) = &path {
        check_path_glob(p).map_err(ToolError::Bad)?;
    }
    let mode = str_arg(args, "mode").unwrap_or("hybrid");
    let mode = Mode::named(mode).ok_or_else(|| ToolError::Bad(format!("unknown mode {mode:?}")))?;
    let explain = args
        .get("explain")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let budget_tokens = args
        .get("max_tokens")
        .and_then(Value::as_u64)
        .unwrap_or(DEFAULT_BUDGET);
    let ws = super::common::open(dir)?;
    let req = Request {
        query,
        options: SearchOptions {
            limit: Some(limit),
            path_glob: path,
            lang: str_arg(args, "lang").map(search::language).transpose()?,
            mode,
            files_only: false,
        },
        first_index: first_index(),
        ..Request::default()
    };
    let got = answer::answer(&ws, req, &Terminal::new(true))?;
    after(&ws, &got.ready);
    let result = got.result;
    let branch = got.ready.branch.key;
    let (hits, cut) = budget::fit(result.hits, budget_tokens as usize);
    let degraded = result.degraded.as_deref();
    let mut text = String::new();
    let kind = explain.then_some(result.kind);
    let items: Vec<HitRecord<'_>> = hits
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let truncated = i + 1 == hits.len() && cut.trimmed_lines > 0;
            let mut record = HitRecord::new(h, &result.query, &branch, degraded, Some(truncated));
            if let Some(kind) = kind {
                record = record.explained(h, kind);
            }
            text.push_str(&format!(
                "{}:{}-{} (score {:.4})\n{}\n\n",
                h.path,
                h.start_line,
                h.end_line,
                h.score,
                record.content.as_deref().unwrap_or_default()
            ));
            record
        })
        .collect();
    if items.is_empty() {
        text.push_str("no hits\n");
    }
    if !cut.is_empty() {
        text.push_str(&format!(
            "[{}]\n",
            super::render::cut_note(&cut, budget_tokens as u32)
        ));
    }
    if let Some(d) = degraded {
        text.push_str(&format!("[note: {d}]\n"));
    }
    let structured = json!({"hits": items, "degraded": degraded,
        "cut": {"dropped_hits": cut.dropped_hits, "trimmed_lines": cut.trimmed_lines}});
    Ok(tool_result(structured, text, false))
}

fn symbol_lookup(dir: &Path, args: &Value) -> Result<Value, ToolError> {
    let name = str_arg(args, "name")
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| ToolError::Bad("name is required".into()))?;
    let limit = limit_arg(args, 10)?;
    let ws = super::common::open(dir)?;
    let ready = answer::ready(&ws, None, None, first_index(), &Terminal::new(true))?;
    after(&ws, &ready);
    let defs = ws
        .db()?
        .symbols()
        .definitions(&ready.branch.key, name, limit)?;
    let mut text = String::new();
    for d in &defs {
        text.push_str(&format!(
            "{}:{}-{} {} {}\n    {}\n",
            d.path,
            d.symbol.start_line,
            d.symbol.end_line,
            d.symbol.kind,
            d.symbol.name,
            d.symbol.signature
        ));
    }
    if defs.is_empty() {
        text.push_str(&format!("no definition named {name:?}\n"));
    }
    Ok(tool_result(json!({ "definitions": defs }), text, false))
}

fn index_status(dir: &Path) -> Result<Value, ToolError> {
    let ws = super::common::open(dir)?;
    // The record `status --json` prints: one shape for both.
    let r = report::status(&ws, None, false)?;
    let text = format!(
        "branch {}: {} files indexed ({} skipped), {} chunks, {} symbols",
        r.branch, r.files, r.skipped, r.chunks, r.symbols
    );
    Ok(tool_result(report::to_json(&r), text, false))
}

fn reindex(dir: &Path) -> Result<Value, ToolError> {
    let ws = super::common::open(dir)?;
    let opts = runs::quiet_options(Contention::Wait(LOCK_WAIT));
    let report = git_codesearch::index::run(&ws, &opts, &Terminal::new(true))?;
    let background = runs::embed_after(&ws, &report, None);
    let mut text = runs::summary(&report);
    if background > 0 {
        text.push_str(&format!("; embedding {background} files in the background"));
    }
    // The record `index --json` prints: one shape for both.
    let record = report::IndexRecord::new(&report, background);
    Ok(tool_result(report::to_json(&record), text, false))
}

#[cfg(test)]
#[path = "mcp_tests.rs"]
mod tests;
