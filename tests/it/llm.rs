//! The optional chat model: a query in Chinese is rewritten into English keywords that BM25
//! finds; the reranker moves the hits it judges relevant ahead; a failing chat API leaves
//! the search as it would have been and says so.

use crate::common::TestRepo;
use crate::embed_server::{Answer, Server};

const FILES: &[(&str, &str)] = &[
    (
        "src/uploader.py",
        "def push_blob(blob):\n    \"\"\"Send a blob to storage; on failure retry with backoff.\"\"\"\n    return send_with_backoff(blob)\n",
    ),
    (
        "src/retry_policy.py",
        "def retry(times):\n    \"\"\"How many times to retry, retry and retry again.\"\"\"\n    return times * 2  # retry retry\n",
    ),
    ("src/colors.py", "def blend(a, b):\n    return (a + b) / 2\n"),
];

/// Turn `what` on (`rewrite`, `rerank`) against the fake chat API of `server`.
pub(crate) fn llm_config(repo: &TestRepo, server: &Server, what: &str) {
    repo.write(".git/info/exclude", ".codesearch.toml\n");
    repo.write(
        ".codesearch.toml",
        format!(
            "[llm]\n{what} = true\nurl = \"{}\"\nmodel = \"test-chat\"\ntimeout_secs = 2\n",
            server.url()
        ),
    );
    repo.trust_config();
}

#[test]
fn a_chinese_query_is_rewritten_into_keywords_bm25_finds() {
    let repo = TestRepo::with_files(FILES);
    repo.index(&[]);
    let query = "在哪里处理上传失败";
    assert!(
        !repo
            .hit_paths(query, &[])
            .iter()
            .any(|p| p == "src/uploader.py"),
        "without a rewrite the Chinese words match nothing"
    );
    let server = Server::start(Vec::new(), Answer::Ok);
    llm_config(&repo, &server, "rewrite");
    let hits = repo.search(query, &[]);
    assert_eq!(hits[0]["path"], "src/uploader.py", "{hits:?}");
    let why = hits[0]["degraded"].as_str().unwrap_or_default();
    assert!(!why.contains("rewrite"), "{why}");
    assert_eq!(server.seen.lock().unwrap().chats, 1);
}

#[test]
fn the_reranker_moves_relevant_hits_ahead() {
    let repo = TestRepo::with_files(FILES);
    repo.index(&[]);
    let before = repo.hit_paths("retry", &[]);
    assert_eq!(before[0], "src/retry_policy.py", "{before:?}");
    assert!(before.iter().any(|p| p == "src/uploader.py"), "{before:?}");
    let server = Server::start(Vec::new(), Answer::Ok);
    llm_config(&repo, &server, "rerank");
    let after = repo.hit_paths("retry", &[]);
    assert_eq!(after[0], "src/uploader.py", "{after:?}");
    assert_eq!(after.len(), before.len(), "reranking reorders, never drops");
}

#[test]
fn a_failing_chat_api_changes_nothing_but_says_so() {
    let repo = TestRepo::with_files(FILES);
    repo.index(&[]);
    let before = repo.hit_paths("retry", &[]);
    let server = Server::start(Vec::new(), Answer::Status(500));
    llm_config(&repo, &server, "rewrite = true\nrerank");
    let hits = repo.search("retry", &[]);
    let paths: Vec<&str> = hits.iter().map(|h| h["path"].as_str().unwrap()).collect();
    assert_eq!(paths, before);
    let why = hits[0]["degraded"].as_str().unwrap_or_default();
    assert!(
        why.contains("query rewrite skipped: HTTP 500") && why.contains("rerank skipped"),
        "{why}"
    );
    let out = repo.run(&["retry"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("query rewrite skipped"));
}
