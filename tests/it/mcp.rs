//! An MCP session over stdio against a real repository: initialize, list tools, search,
//! look up a symbol, and a refused path escape.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

use serde_json::{json, Value};

use crate::common::fixture;

#[test]
fn an_agent_session_over_stdio() {
    let repo = fixture();
    let mut child = repo
        .cmd(&["mcp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut id = 0;
    let mut ask = |method: &str, params: Value| -> Value {
        id += 1;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{msg}").unwrap();
        if method == "initialize" {
            writeln!(
                stdin,
                "{}",
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
            )
            .unwrap();
        }
        stdin.flush().unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let reply: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(reply["id"], id, "{reply}");
        reply
    };
    let init = ask(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}),
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "git-codesearch");
    let tools = ask("tools/list", json!({}));
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["code_search", "symbol_lookup", "index_status", "reindex"]
    );

    // The first search indexes the repository, then answers from it.
    let found = ask(
        "tools/call",
        json!({"name": "code_search",
        "arguments": {"query": "retry failed uploads with backoff", "limit": 3}}),
    );
    let r = &found["result"];
    assert_eq!(r["isError"], false, "{r}");
    let hits = r["structuredContent"]["hits"].as_array().unwrap();
    assert_eq!(hits[0]["path"], "app/upload.py");
    assert!(hits[0]["content"]
        .as_str()
        .unwrap()
        .contains("def send_with_retry"));
    assert!(r["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("app/upload.py:"));

    let sym = ask(
        "tools/call",
        json!({"name": "symbol_lookup", "arguments": {"name": "load_settings"}}),
    );
    let defs = sym["result"]["structuredContent"]["definitions"]
        .as_array()
        .unwrap();
    assert_eq!(defs[0]["path"], "src/config.rs");
    assert_eq!(defs[0]["kind"], "function");

    let status = ask(
        "tools/call",
        json!({"name": "index_status", "arguments": {}}),
    );
    assert!(
        status["result"]["structuredContent"]["files"]
            .as_i64()
            .unwrap()
            >= 3
    );
    // The same record `status --json` prints (the index's size on disk aside: the server
    // holds the database open).
    let out = repo.cmd(&["status", "--json"]).output().unwrap();
    let mut cli: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut mcp = status["result"]["structuredContent"].clone();
    for v in [&mut cli, &mut mcp] {
        v.as_object_mut().unwrap().remove("index_bytes");
    }
    assert_eq!(mcp, cli);

    // Path escapes and bad arguments are tool errors, not crashes: a brace nested 300 deep
    // made globset panic and the server die, so the requests after it got no answer.
    let deep = format!("{}a{}", "{".repeat(300), "}".repeat(300));
    for args in [
        json!({"query": "password", "path": "../../etc/passwd"}),
        json!({"query": "password", "path": "/etc/*"}),
        json!({"query": "password", "path": deep}),
        json!({"query": "x", "limit": 500}),
        json!({}),
    ] {
        let refused = ask(
            "tools/call",
            json!({"name": "code_search", "arguments": args}),
        );
        assert_eq!(refused["result"]["isError"], true, "{refused}");
    }
    let reindex = ask("tools/call", json!({"name": "reindex", "arguments": {}}));
    assert_eq!(reindex["result"]["isError"], false, "{reindex}");
    // The record `index --json` prints.
    let record = &reindex["result"]["structuredContent"];
    for key in [
        "branch",
        "dry_run",
        "deferred",
        "noop",
        "stats",
        "embed_error",
    ] {
        assert!(record.get(key).is_some(), "{key}: {record}");
    }

    drop(stdin);
    assert!(child.wait().unwrap().success());
}
