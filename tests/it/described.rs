//! What `-n` changes: only how many hits are listed. The stages that add lines inside the
//! first result files (a description's function, an issue's best lines and widened hits)
//! judge what is read by one depth (`search.n_seen`, 50), so a shorter list is the first
//! hits of a longer one.

use crate::common::{places, TestRepo};
use crate::embed_server::{Answer, Server};

/// A small cache: three functions whose bodies repeat "cache entry", three report
/// formatters, then `clear_all_entries`, whose body holds none of a question's words, in one
/// chunk with the last formatter and the footer's.
fn cache() -> TestRepo {
    TestRepo::with_files(&[
        ("cache.py", cache_text().as_str()),
        (
            "disk.py",
            "def write_block(path, data):\n    return len(data)\n",
        ),
    ])
}

/// The text of `cache()`'s `cache.py`.
fn cache_text() -> String {
    let function = |name: &str, args: &str, lines: usize, line: &dyn Fn(usize) -> String| {
        let body: Vec<String> = (0..lines).map(|i| format!("    {}\n", line(i))).collect();
        format!(
            "def {name}({args}):\n{}    return self\n\n\n",
            body.concat()
        )
    };
    let mut text = String::from("\"\"\"A small store of values by key.\"\"\"\n\n\n");
    for (name, word) in [
        ("lookup_entry", "lookup"),
        ("store_entry", "store"),
        ("evict_entry", "evict removes"),
    ] {
        let line = |i| format!("entry_{i} = self.cache_entries.get(key_{i})  # cache entry {word}");
        text.push_str(&function(name, "self, key", 14, &line));
    }
    for k in 0..3 {
        let line = |i| format!("line_{i} = 'report {i}'");
        text.push_str(&function(&format!("format_report_{k}"), "self", 14, &line));
    }
    let slot = |i| format!("self._slot_{i} = None");
    text.push_str(&function("clear_all_entries", "self", 3, &slot));
    let footer = |i| format!("line_{i} = 'footer {i}'");
    text.push_str(&function("format_footer", "self", 3, &footer));
    text
}

/// A question that says what one function does gets, right after its first file's first
/// hit, the function of that file whose signature the static model puts nearest the
/// question, as that function's own lines: here `clear_all_entries`, whose body matches none
/// of the question's words, where the file's hits are the functions that say "cache entry".
/// BM25 alone and a lexical index never get it.
#[test]
fn a_description_gets_the_nearest_function_of_its_first_file() {
    let repo = cache();
    // The hits the stage treats as read (`codesearch.nSeen`): within the default 50 the
    // window holding `clear_all_entries` is read at rank 4.
    repo.git(&["config", "codesearch.nSeen", "3"]);
    let question = "Removes every entry from the cache.";
    let hits = repo.search(question, &["--explain", "-n", "3"]);
    assert_eq!(hits.len(), 3, "{hits:#?}");
    assert_eq!(hits[0]["path"], "cache.py", "{hits:#?}");
    let function = &hits[1];
    assert_eq!(function["path"], "cache.py", "{hits:#?}");
    let lines = (
        function["start_line"].as_u64(),
        function["end_line"].as_u64(),
    );
    assert_eq!(
        lines,
        (Some(112), Some(116)),
        "clear_all_entries: {hits:#?}"
    );
    let features: Vec<&str> = function["explain"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["feature"].as_str().unwrap())
        .collect();
    assert_eq!(features, ["described_function"], "{hits:#?}");
    let similarity = function["explain"][0]["similarity"].as_f64().unwrap();
    assert!((0.6..=1.0).contains(&similarity), "{hits:#?}");
    assert_eq!(function["score"], hits[0]["score"], "{hits:#?}");
    // The function's own lines, not its chunk's (which starts in `format_report_2`).
    let snippet = function["snippet"].as_str().unwrap();
    assert!(
        snippet.starts_with("def clear_all_entries(self):"),
        "{snippet}"
    );
    for (extra, lexical) in [(vec!["--mode", "bm25"], false), (vec![], true)] {
        if lexical {
            repo.lexical();
        }
        let mut args = vec!["--explain", "-n", "3"];
        args.extend(extra.iter().copied());
        let hits = repo.search(question, &args);
        assert!(
            !hits
                .iter()
                .any(|h| h.to_string().contains("described_function")),
            "{extra:?}, lexical {lexical}: {hits:#?}"
        );
    }
}

/// `-n N` lists the first N hits of `-n 50`: for a description, a pasted issue (whose best
/// lines and widened hits the stages add) and a topic, and for the description again when the
/// depth read is 3 hits, where its nearest function is added after the first hit and the
/// later window around that function keeps only its other lines. Before, the stages judged
/// what is read by `-n`, so `-n 3` was not the start of `-n 5`.
#[test]
fn a_shorter_list_is_the_first_hits_of_a_longer_one() {
    let repo = cache();
    let search = |query: &str, n: usize| repo.search(query, &["--explain", "-n", &n.to_string()]);
    let description = "Removes every entry from the cache.";
    let issue = "clear_all_entries leaves cache entries behind\n\nAfter clear_all_entries the \
                 lookup of a cache entry still returns the old entry; evict_entry removes it.";
    let check = |query: &str| -> Vec<serde_json::Value> {
        let all = search(query, 50);
        assert!(all.len() >= 4, "{query}: {all:#?}");
        for n in 1..all.len() {
            assert_eq!(
                places(&search(query, n)),
                places(&all[..n]),
                "{query}, -n {n}"
            );
        }
        all
    };
    for query in [description, issue, "cache entry store"] {
        check(query);
    }
    repo.git(&["config", "codesearch.nSeen", "3"]);
    let all = check(description);
    assert!(
        all[1].to_string().contains("described_function"),
        "{all:#?}"
    );
    let all = places(&all);
    assert_eq!(all[1], ("cache.py".to_string(), 112, 116), "{all:#?}");
    let repeats = |(p, s, e): &(String, u64, u64)| *p == all[1].0 && *s <= 116 && 112 <= *e;
    assert_eq!(all.iter().filter(|h| repeats(h)).count(), 1, "{all:#?}");
}

/// With a chat model reranking, the hits it judges (`rerank_top`, 10) repeat no lines before
/// it moves them: here it says yes to the cache's hits and no to `entries.py`'s, which lay
/// between the description's function and the later window around it, so that window moves
/// into the first five. Before, only the first `-n` were cut to their own lines, and the
/// window showed `clear_all_entries` a second time.
#[test]
fn a_reranked_list_shows_no_line_twice() {
    let text = cache_text();
    let repo = TestRepo::with_files(&[
        // The fake chat model says yes to code under a path holding "uploader".
        ("uploader/cache.py", text.as_str()),
        (
            "entries.py",
            "def cache_size(self):\n    \"\"\"The size of the cache.\"\"\"\n    return 0\n",
        ),
    ]);
    repo.git(&["config", "codesearch.nSeen", "3"]);
    let server = Server::start(Vec::new(), Answer::Ok);
    crate::llm::llm_config(&repo, &server, "rerank");
    let question = "Removes every entry from the cache.";
    let all = repo.hit_places(question, &["-n", "50"]);
    let five = repo.hit_places(question, &["-n", "5"]);
    assert!(
        five.contains(&("uploader/cache.py".into(), 112, 116)),
        "{five:?}"
    );
    for (i, (p, s, e)) in five.iter().enumerate() {
        for (q, t, f) in &five[..i] {
            assert!(p != q || e < t || f < s, "hit {i} repeats lines: {five:?}");
        }
    }
    assert_eq!(five, all[..5], "{all:?}");
}
