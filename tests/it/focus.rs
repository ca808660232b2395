//! A topic's hits outside the first file show their best lines (`search::focus`): a chunk
//! of short lines and its neighbour merge into a hit of 60 lines, of which the question
//! matches the last few; the first file's hits keep up to 45 lines.

use crate::common::TestRepo;

/// Lines of top-level code, none of the question's words among them.
fn filler(name: &str, n: usize) -> String {
    (0..n)
        .map(|i| format!("{name}_{i} = {i}\n"))
        .collect::<String>()
}

fn repo() -> TestRepo {
    // The first file: the question's words throughout one long stretch of code.
    let mut first = String::new();
    for i in 0..40 {
        first.push_str(&format!(
            "retry_backoff_jitter_{i} = retry_backoff({i}) + jitter\n"
        ));
    }
    // The second: one word in its first line, all of them in its last three, and many
    // lines between that hold none (two chunks, merged into one hit).
    let second = format!(
        "retry_width = 0\n{}retry = 1\nbackoff = 2\njitter = retry + backoff\n",
        filler("width", 56)
    );
    TestRepo::with_files(&[
        ("policy/retry.py", first.as_str()),
        ("layout/sizes.py", second.as_str()),
        ("layout/colours.py", &filler("colour", 45)),
    ])
}

#[test]
fn hits_outside_the_first_file_show_their_best_lines() {
    let repo = repo();
    repo.index(&[]);
    let hits = repo.search("retry backoff jitter", &["-n", "10"]);
    let span = |h: &serde_json::Value| {
        (
            h["start_line"].as_u64().unwrap(),
            h["end_line"].as_u64().unwrap(),
        )
    };
    assert_eq!(hits[0]["path"], "policy/retry.py", "{hits:#?}");
    // The first file's hit, 40 lines, keeps all of them.
    let (s, e) = span(&hits[0]);
    assert!(e - s + 1 > 30, "{hits:#?}");
    // The other file's hit is its last 30 lines, where the words are.
    let other = hits
        .iter()
        .find(|h| h["path"] == "layout/sizes.py")
        .unwrap_or_else(|| panic!("the second file is found: {hits:#?}"));
    assert_eq!(span(other), (31, 60), "{hits:#?}");
    assert!(
        other["snippet"].as_str().unwrap().contains("jitter"),
        "{other:#?}"
    );
}
