//! A topic's further hits of another file wait for the next file (`search::spread`): the
//! first file and a second one each hold two stretches of the question's words, far apart,
//! and two more files weaker matches. The second file's further hit follows the next file's
//! first, its score lowered to the hit it follows and `--explain` saying why; the first
//! file's further hit stays where it ranks.

use crate::common::{explained_features, TestRepo};

/// The question: each of its words in every line of the stretches below.
const QUESTION: &str = "retry backoff jitter";

/// Lines of top-level code, none of the question's words among them.
fn filler(name: &str, n: usize) -> String {
    (0..n)
        .map(|i| format!("{name}_{i} = {i}\n"))
        .collect::<String>()
}

/// `n` lines that hold each of the question's words, numbered from `from`.
fn stretch(n: usize, from: usize) -> String {
    (from..from + n)
        .map(|i| format!("retry_backoff_{i} = retry(backoff={i}, jitter=jitter_{i})\n"))
        .collect::<String>()
}

fn repo() -> TestRepo {
    let first = format!(
        "{}{}{}",
        stretch(14, 0),
        filler("width", 90),
        stretch(10, 20)
    );
    let second = format!("{}{}{}", stretch(8, 40), filler("pace", 90), stretch(8, 60));
    let third = format!("{}size_jitter = retry_backoff_size\n", filler("size", 40));
    let fourth = format!("{}note_backoff = 1\n", filler("note", 60));
    TestRepo::with_files(&[
        ("policy/retry.py", first.as_str()),
        ("net/pacing.py", second.as_str()),
        ("layout/sizes.py", third.as_str()),
        ("docs/notes.py", fourth.as_str()),
    ])
}

/// Each hit's path, first line, score and explained features.
fn hits(repo: &TestRepo) -> Vec<(String, u64, f64, Vec<String>)> {
    repo.search(QUESTION, &["--explain", "-n", "10"])
        .iter()
        .map(|h| {
            let sum: f64 = h["explain"].as_array().map_or(0.0, |a| {
                a.iter().map(|c| c["value"].as_f64().unwrap()).sum()
            });
            let score = h["score"].as_f64().unwrap();
            assert!((sum - score).abs() < 1e-9, "{sum} != {score}: {h}");
            (
                h["path"].as_str().unwrap().to_string(),
                h["start_line"].as_u64().unwrap(),
                score,
                explained_features(h),
            )
        })
        .collect()
}

#[test]
fn another_files_further_hit_follows_the_next_file() {
    let repo = repo();
    repo.index(&[]);
    let hits = hits(&repo);
    let at: Vec<(&str, u64)> = hits.iter().map(|h| (h.0.as_str(), h.1)).collect();
    // Ranked by score: retry 1, pacing 99, retry 91, sizes, pacing 1, notes. The first
    // file's further hit stays third; pacing's waits for the next new file, notes.
    assert_eq!(
        at[..6],
        [
            ("policy/retry.py", 1),
            ("net/pacing.py", 99),
            ("policy/retry.py", 91),
            ("layout/sizes.py", 12),
            ("docs/notes.py", 37),
            ("net/pacing.py", 1),
        ],
        "{hits:#?}"
    );
    let moved: Vec<usize> = (0..hits.len())
        .filter(|&i| hits[i].3.iter().any(|f| f == "file_shown_above"))
        .collect();
    assert_eq!(moved, [5], "{hits:#?}");
    // Its score is the hit's it follows; scores still fall down the list.
    assert_eq!(hits[5].2, hits[4].2, "{hits:#?}");
    assert!(hits.windows(2).all(|w| w[0].2 >= w[1].2), "{hits:#?}");
    // It orders before the cut: a shorter list is the longer one's first hits.
    let ten = repo.hit_places(QUESTION, &["-n", "10"]);
    for n in [3, 5] {
        let short = repo.hit_places(QUESTION, &["-n", &n.to_string()]);
        assert_eq!(short, ten[..n], "-n {n}");
    }
    // A listing of files (`-l`) is left alone: pacing's second hit, moved, would fall past
    // the hits that list three files and leave its count.
    let files = repo.search(QUESTION, &["-l", "-n", "3"]);
    let pacing = files.iter().find(|f| f["path"] == "net/pacing.py");
    assert_eq!(
        pacing.map(|f| f["hits"].clone()),
        Some(2.into()),
        "{files:#?}"
    );
}
