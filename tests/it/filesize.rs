//! A topic question that names a feature weighs a big file's coherence down by its size
//! (`search::filesize`): a 170 KB file of handlers that mention the question's words in
//! passing, in every eighth function, against a small file that holds the feature. The noun
//! phrase finds the small file first, `--explain` saying why the big one fell; a question
//! opening with a stop word ("how are …") keeps the big file's whole lift, and it stays first.

use crate::common::TestRepo;

/// 1,400 short functions, every eighth holding the question's words in passing.
fn handlers() -> String {
    (0..1400)
        .map(|i| {
            if i % 8 == 0 {
                format!(
                    "def handler_{i}(record, target):\n    # rotation of the file backups is done elsewhere\n    target.file_backups_{i} = record.rotation\n    return target\n\n"
                )
            } else {
                format!(
                    "def handler_{i}(record, target):\n    target.level_{i} = record.level\n    target.name_{i} = record.name\n    return target\n\n"
                )
            }
        })
        .collect()
}

const SIZED: &str = r#"class SizedSink:
    """Writes to a file and keeps a fixed number of backups: rotation by size."""

    def __init__(self, path, max_bytes, backups):
        self.path, self.max_bytes, self.backups = path, max_bytes, backups

    def rotate_file(self):
        for n in range(self.backups - 1, 0, -1):
            rename_backup(self.path, n, n + 1)
        rename_backup(self.path, 0, 1)
"#;

/// The coherence feature of each hit that has one: (path, its size factor).
fn coherence(hits: &[serde_json::Value]) -> Vec<(String, f64)> {
    hits.iter()
        .flat_map(|h| {
            let path = h["path"].as_str().unwrap().to_string();
            h["explain"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|c| c["feature"] == "coherence")
                .map(move |c| (path.clone(), c["size_factor"].as_f64().unwrap()))
        })
        .collect()
}

#[test]
fn a_feature_named_finds_its_own_small_file_above_a_big_file_that_mentions_it() {
    let big = handlers();
    assert!(big.len() > 128_000, "{}", big.len());
    let repo = TestRepo::with_files(&[("sink/handlers.py", &big), ("sink/sized.py", SIZED)]);
    repo.lexical();
    repo.index(&[]);

    let named = repo.search("file rotation backups", &["--explain", "-n", "3"]);
    let paths: Vec<&str> = named.iter().map(|h| h["path"].as_str().unwrap()).collect();
    assert_eq!(
        paths[..2],
        ["sink/sized.py", "sink/handlers.py"],
        "{named:#?}"
    );
    let factors = coherence(&named);
    let of = |p: &str| factors.iter().find(|(path, _)| path == p).map(|f| f.1);
    // (8,000 / 170 KB) ^ 0.25: under half of its lift left; the small file keeps all.
    assert!(
        of("sink/handlers.py").is_some_and(|f| f > 0.4 && f < 0.5),
        "{factors:?}"
    );
    assert_eq!(of("sink/sized.py"), Some(1.0), "{factors:?}");

    let asked = repo.search(
        "how are file rotation backups kept",
        &["--explain", "-n", "3"],
    );
    let first = asked[0]["path"].as_str().unwrap();
    assert_eq!(first, "sink/handlers.py", "{asked:#?}");
    assert!(
        coherence(&asked).iter().all(|(_, f)| *f == 1.0),
        "{asked:#?}"
    );
}
