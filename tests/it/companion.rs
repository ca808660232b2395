//! A C or C++ header's implementation beside it is placed right after the header's first
//! hit (`search::companion`): the header's doc comment holds the question's words, the
//! `-inl.h` beside it holds the code but none of the words, and other files that share some
//! of them would rank between the two.

use crate::common::{explained_features, TestRepo};

const HEADER: &str = "include/log/backtracer.h";
const IMPLEMENTATION: &str = "include/log/backtracer-inl.h";

fn repo() -> TestRepo {
    let noise = |topic: &str| {
        format!(
            "// {topic}: log messages are formatted into a buffer before the sink.\n\
             #pragma once\nnamespace log {{\nstruct {topic}_buffer {{\n  // The buffer of recent messages.\n\
             char messages[256];\n  int later;\n}};\n}}\n"
        )
    };
    TestRepo::with_files(&[
        (
            HEADER,
            "#pragma once\n#include \"ring.h\"\nnamespace log {\n\
             // Store recent debug messages in a circular buffer and dump them later, on demand.\n\
             class backtracer {\n public:\n  void push_back(const msg &m);\n  void foreach_pop();\n\
             private:\n  ring<msg> ring_;\n};\n}\n",
        ),
        (
            IMPLEMENTATION,
            "#pragma once\n#include \"backtracer.h\"\nnamespace log {\n\
             inline void backtracer::push_back(const msg &m) { ring_.push_back(m); }\n\
             inline void backtracer::foreach_pop() {\n  while (!ring_.empty()) {\n\
             sink(ring_.front());\n    ring_.pop_front();\n  }\n}\n}\n",
        ),
        ("include/log/format.h", &noise("format")),
        ("include/log/sink.h", &noise("sink")),
        ("include/log/pattern.h", &noise("pattern")),
        ("include/log/async.h", &noise("async")),
        ("src/main.rs", "fn main() {}\n"),
    ])
}

const TOPIC: &str = "buffer recent debug messages and dump them later on demand";

/// The paths of a search's hits and each hit's explained features.
fn hits(repo: &TestRepo, extra: &[&str]) -> Vec<(String, Vec<String>)> {
    hits_of(repo, TOPIC, extra)
}

/// The same for `query`.
fn hits_of(repo: &TestRepo, query: &str, extra: &[&str]) -> Vec<(String, Vec<String>)> {
    let mut args = vec!["--explain", "-n", "10"];
    args.extend_from_slice(extra);
    repo.search(query, &args)
        .iter()
        .map(|h| {
            (
                h["path"].as_str().unwrap().to_string(),
                explained_features(h),
            )
        })
        .collect()
}

/// Where the header's first hit is, and the path of the hit after it.
fn after_header(hits: &[(String, Vec<String>)]) -> (usize, Option<&str>) {
    let at = hits
        .iter()
        .position(|(p, _)| p == HEADER)
        .unwrap_or_else(|| panic!("the header is found: {hits:#?}"));
    (at, hits.get(at + 1).map(|(p, _)| p.as_str()))
}

#[test]
fn a_header_s_implementation_follows_it() {
    let repo = repo();
    repo.index(&[]);
    // The retrievers alone rank the files that share the question's words between them.
    let plain = hits(&repo, &["--mode", "bm25"]);
    assert_ne!(after_header(&plain).1, Some(IMPLEMENTATION), "{plain:#?}");

    let got = hits(&repo, &[]);
    let (at, next) = after_header(&got);
    assert_eq!(next, Some(IMPLEMENTATION), "{got:#?}");
    assert!(
        got[at + 1].1.iter().any(|f| f == "implementation"),
        "the hit says why it is there: {got:#?}"
    );
    // Placed once: its other spans are not listed again further down.
    let times = got.iter().filter(|(p, _)| p == IMPLEMENTATION).count();
    assert_eq!(times, 1, "{got:#?}");
    // A filter chooses the files: none is added past it.
    let filtered = hits(&repo, &["--path", "include/log/*.h"]);
    assert!(
        filtered
            .iter()
            .all(|(_, f)| !f.iter().any(|f| f == "implementation")),
        "{filtered:#?}"
    );
    // A description of one function wants that function's lines, wherever they are.
    let described = hits_of(
        &repo,
        "Pushes a debug message to the back of the buffer.",
        &[],
    );
    assert!(described.iter().any(|(p, _)| p == HEADER), "{described:#?}");
    assert!(
        described
            .iter()
            .all(|(_, f)| !f.iter().any(|f| f == "implementation")),
        "{described:#?}"
    );
}
